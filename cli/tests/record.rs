//! Recording on the command line's faces: `start --record` (through the host), `once
//! --record`, and a tape's `Output x.cast`; a failed tape's bundle keeps the run's
//! recording.

mod support;

use std::os::unix::fs::PermissionsExt;

use support::{Dir, text};
use tuipilot::record::{EventKind, Recording};

fn markers(recording: &Recording) -> Vec<String> {
    recording
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Marker(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn start_record_writes_a_private_recording_of_the_whole_session() {
    let dir = Dir::new();
    let path = dir.work().join("bash.cast");
    dir.ok(&[
        "start",
        "-s",
        "rec",
        "--record",
        path.to_str().unwrap(),
        "--record-title",
        "demo",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    dir.ok(&[
        "send",
        "-s",
        "rec",
        "-t",
        "echo from-the-host",
        "-k",
        "Enter",
        "--wait",
        "^from-the-host$",
    ]);
    dir.ok(&["exit", "-s", "rec"]);
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "a recording holds what was typed: owner only");
    let recording = Recording::read_file(&path).unwrap();
    assert_eq!(recording.header.title.as_deref(), Some("demo"));
    assert!(
        recording
            .replay()
            .unwrap()
            .snapshot()
            .text()
            .contains("from-the-host")
    );
    assert!(
        recording
            .events
            .iter()
            .any(|e| e.kind == EventKind::Input("echo from-the-host".into())),
        "the input is recorded"
    );
    assert!(
        markers(&recording)
            .contains(&r#"send "echo from-the-host" Enter wait text /^from-the-host$/"#.to_string()),
        "{:?}",
        markers(&recording)
    );
    // Right after what the operation did, why its wait ended.
    let all = markers(&recording);
    let sent = all.iter().position(|m| m.starts_with("send ")).unwrap();
    assert!(
        all[sent + 1].starts_with("→ matched /^from-the-host$/ at row "),
        "{all:?}"
    );
}

#[test]
fn once_record_leaves_input_out_when_asked() {
    let dir = Dir::new();
    let path = dir.work().join("once.cast");
    dir.ok(&[
        "once",
        "--record",
        path.to_str().unwrap(),
        "--record-no-input",
        "-k",
        "x",
        "--",
        "sh",
        "-c",
        "echo once; read line",
    ]);
    let recording = Recording::read_file(&path).unwrap();
    assert!(
        recording
            .events
            .iter()
            .all(|e| !matches!(e.kind, EventKind::Input(_)))
    );
    assert!(recording.replay().unwrap().snapshot().text().contains("once"));
}

#[test]
fn a_record_flag_without_record_is_a_usage_error() {
    let dir = Dir::new();
    let out = dir.run(&["once", "--record-no-input", "--", "true"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--record"), "{}", text(&out.stderr));
    // And the recording's directory must exist: a one-line error naming it.
    let out = dir.run(&["once", "--record", "/nonexistent-dir/x.cast", "--", "true"]);
    assert_ne!(out.status.code(), Some(0));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("creating the recording /nonexistent-dir/x.cast"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
}

/// Writes `source` as `name` in a fresh work folder and runs it there; the folder (kept
/// alive by the returned `Dir`) and the output.
fn run_tape(name: &str, source: &str) -> (Dir, std::path::PathBuf, std::process::Output) {
    let dir = Dir::new();
    let work = dir.work();
    std::fs::write(work.join(name), source).unwrap();
    let out = dir.run_in(&work, &["run", name]);
    (dir, work, out)
}

#[test]
fn a_tape_output_cast_records_the_run_with_a_marker_per_line() {
    let (_dir, work, out) = run_tape(
        "t.tape",
        "Output out/t.cast\nSet TypingSpeed 0\nType \"echo taped\" Enter\nWait\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let recording = Recording::read_file(work.join("out/t.cast")).unwrap();
    let markers = markers(&recording);
    for line in ["t.tape:3 Type \"echo taped\"", "t.tape:3 Enter", "t.tape:4 Wait"] {
        assert!(markers.iter().any(|m| m == line), "{line:?} in {markers:?}");
    }
    let screen = recording.replay().unwrap().snapshot().text();
    assert!(screen.contains("> echo taped\ntaped\n>"), "{screen}");
}

#[test]
fn a_failed_tape_leaves_its_recording_in_the_bundle() {
    let (_dir, work, out) = run_tape(
        "f.tape",
        "Set TypingSpeed 0\nType \"echo shown\" Enter\nExpect@300ms /absent/\n",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let recording = Recording::read_file(work.join("f.failure/recording.cast")).unwrap();
    assert!(recording.replay().unwrap().snapshot().text().contains("shown"));
    assert!(
        markers(&recording)
            .iter()
            .any(|m| m == "f.tape:3 Expect@300ms /absent/")
    );
    // The failed wait's end is marked, and the bundle's operations say why each wait ended.
    assert!(
        markers(&recording)
            .iter()
            .any(|m| m.starts_with("→ failed: ") && m.contains("/absent/")),
        "{:?}",
        markers(&recording)
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(work.join("f.failure/state.json")).unwrap()).unwrap();
    let waits: Vec<&str> = state["operations"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|o| o["waited"].as_str())
        .collect();
    assert!(
        waits.iter().any(|w| w.starts_with("the cursor's row ")),
        "the runner's wait for the prompt: {state:#}"
    );
}

#[test]
fn render_turns_a_recording_into_a_gif_an_apng_a_last_frame_and_frames() {
    let dir = Dir::new();
    let work = dir.work();
    let cast = work.join("vim.cast");
    dir.ok(&[
        "once",
        "--record",
        cast.to_str().unwrap(),
        "--wait",
        "^~",
        "-k",
        "i",
        "-k",
        "h",
        "-k",
        "i",
        "--",
        "vim",
        "-u",
        "NONE",
        "-N",
        "-n",
    ]);
    let render = |output: &str, extra: &[&str]| -> serde_json::Value {
        let out = work.join(output);
        let mut args = vec![
            "--json",
            "render",
            cast.to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        dir.json(&args)
    };
    let gif = render("vim.gif", &[]);
    assert!(gif["frames"].as_u64().unwrap() >= 2, "{gif}");
    assert!(
        std::fs::read(work.join("vim.gif"))
            .unwrap()
            .starts_with(b"GIF89a")
    );
    let apng = std::fs::read(work.join("vim.apng")).ok();
    assert!(apng.is_none());
    render("vim.apng", &["--palette", "global"]);
    let apng = std::fs::read(work.join("vim.apng")).unwrap();
    assert!(
        apng.windows(4).any(|w| w == b"acTL"),
        "an animated PNG has an acTL chunk"
    );
    // Up to the exit marker the last frame is vim's screen, not its exit message; the
    // default end of a program that left the alternate screen is its last screen there
    // too (vim's, as tests/record.rs checks by its text: here vim's ending moves its
    // cursor before it leaves, in the same write or not), never the emptied main screen
    // an end past the recording's shows.
    render("before-exit.png", &["--to", "exit"]);
    render("default-end.png", &[]);
    render("after-exit.png", &["--to", "99999"]);
    let png = |name: &str| std::fs::read(work.join(name)).unwrap();
    assert_ne!(png("before-exit.png"), png("after-exit.png"));
    assert_ne!(png("default-end.png"), png("after-exit.png"));
    let plain = render("plain.gif", &["--to", "exit"]);
    let keyed = render("keys.gif", &["--to", "exit", "--keys"]);
    assert!(
        keyed["frames"].as_u64() > plain["frames"].as_u64(),
        "the overlay adds frames where its chip appears and fades: {keyed} vs {plain}"
    );
    let frames = render(
        "frames/",
        &["--fps-cap", "5", "--speed", "2", "--idle-limit", "0.5"],
    );
    let count = std::fs::read_dir(work.join("frames")).unwrap().count() as u64;
    assert_eq!(count, frames["frames"].as_u64().unwrap());
    for (args, message) in [
        (vec!["-o", "x.mp4"], "x.mp4: write .gif, .apng, .png"),
        (
            vec!["-o", "x.gif", "--from", "nope"],
            "no marker `nope`; the first markers are: wait text /^~/",
        ),
        (
            vec!["-o", "x.gif", "--speed", "0"],
            "speed 0 must be a positive number",
        ),
    ] {
        let mut all = vec!["render", cast.to_str().unwrap()];
        all.extend(args);
        let out = dir.run(&all);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains(message), "{}", text(&out.stderr));
    }
    // A recording is read from the file on each pass, so it must be a regular file: a
    // FIFO is refused at once rather than read (and waited on) twice.
    let fifo = work.join("pipe.cast");
    let c_path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
    let out = dir.run(&["render", fifo.to_str().unwrap(), "-o", "x.gif"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("pipe.cast is not a regular file"),
        "{}",
        text(&out.stderr)
    );
}
