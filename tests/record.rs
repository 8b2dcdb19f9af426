//! Recordings: a session recorded as asciicast v2 follows the format's rules (header
//! fields, one JSON array per line, times that never go back, the event codes), keeps
//! input, resizes and a marker per operation, never splits a character, and replays
//! through the engine to the screen the live session showed — for vim, and after a flood.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use serde_json::Value;
use tuipilot::operation::{Operation, Step, WaitFor};
use tuipilot::record::{EventKind, Recording};
use tuipilot::{Condition, Session, SessionBuilder};

fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn a_recording_follows_the_asciicast_v2_rules_and_keeps_input_resizes_and_markers() {
    let dir = common::TempDir::new("record-format");
    let path = dir.0.join("bash.cast");
    let s = common::bash()
        .env("SHELL", "/bin/bash")
        .record(&path)
        .record_title("format")
        .size(70, 20)
        .spawn()
        .unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    let send = Operation::Send {
        steps: vec![Step::Text("echo é€😀".into()), Step::Keys("Enter".into())],
        wait: Some(WaitFor::Text("^é€😀$".into())),
        timeout_ms: None,
        capture: false,
        secret: false,
    };
    s.apply(&send).unwrap();
    s.apply(&Operation::Resize { cols: 90, rows: 25 }).unwrap();
    s.apply(&Operation::Exit { timeout_ms: None }).unwrap();

    let all = lines(&path);
    let header = &all[0];
    assert_eq!(header["version"], 2);
    assert_eq!(
        (header["width"].as_u64(), header["height"].as_u64()),
        (Some(70), Some(20))
    );
    assert!(header["timestamp"].as_u64().unwrap() > 1_700_000_000, "{header}");
    assert_eq!(header["env"]["TERM"], "xterm-256color");
    assert_eq!(header["env"]["SHELL"], "/bin/bash");
    assert_eq!(header["title"], "format");
    let mut last = 0.0;
    for event in &all[1..] {
        let [time, code, data] = event.as_array().unwrap().as_slice() else {
            panic!("an event is [time, code, data]: {event}");
        };
        let time = time.as_f64().unwrap();
        assert!(time >= last, "times never go back: {time} after {last}");
        last = time;
        // The format's codes, and our own two (players skip what they do not know).
        assert!(
            ["o", "i", "r", "m", "tuipilot.start", "tuipilot.op"].contains(&code.as_str().unwrap()),
            "{event}"
        );
        assert!(data.is_string(), "{event}");
    }
    let of = |code: &str| -> Vec<String> {
        all[1..]
            .iter()
            .filter(|e| e[1] == code)
            .map(|e| e[2].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(of("i"), ["echo é€😀", "\r"], "input, one event per write");
    assert_eq!(of("r"), ["90x25"]);
    assert_eq!(
        of("m"),
        [
            r#"send "echo é€😀" Enter wait text /^é€😀$/"#,
            "→ matched /^é€😀$/ at row 1",
            "resize 90x25",
            "exit"
        ],
        "one marker per operation, and one for why its wait ended"
    );
    assert!(of("o").concat().contains("é€😀"));
    // How the program started, first, and each operation as the log keeps it: what an
    // export from the recording reads.
    assert_eq!(all[1][1], "tuipilot.start", "{}", all[1]);
    let operations: Vec<Value> = of("tuipilot.op")
        .iter()
        .map(|o| serde_json::from_str(o).unwrap())
        .collect();
    // (The exit ends the recording before its own entry is made.)
    assert_eq!(operations.len(), 2, "{operations:?}");
    assert_eq!(operations[0]["waited"], "matched /^é€😀$/ at row 1");
    assert_eq!(operations[1]["operation"]["op"], "resize");
}

#[test]
fn a_character_split_across_two_writes_is_one_character_in_the_recording() {
    let dir = common::TempDir::new("record-utf8");
    let path = dir.0.join("split.cast");
    // The euro sign's three bytes: the first after `a`, then (after a pause) the rest.
    let s = Session::builder("sh")
        .args([
            "-c",
            r"printf 'a\342'; sleep 0.3; printf '\202\254 done\n'; sleep 5",
        ])
        .record(&path)
        .record_input(false)
        .spawn()
        .unwrap();
    s.wait_for_text("done").unwrap();
    s.exit().unwrap();
    let recording = Recording::read_file(&path).unwrap();
    let outputs: Vec<&str> = recording
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Output(text) => Some(text.as_str()),
            EventKind::Input(_) => panic!("input was not to be recorded"),
            _ => None,
        })
        .collect();
    assert_eq!(
        outputs.first(),
        Some(&"a"),
        "the first write without its cut character"
    );
    assert!(outputs.concat().contains("a€ done"), "{outputs:?}");
    assert!(!outputs.concat().contains('\u{fffd}'), "{outputs:?}");
}

#[needs(vim)]
#[test]
fn a_recorded_vim_session_replays_to_the_screen_the_session_showed() {
    let dir = common::TempDir::new("record-vim");
    let path = dir.0.join("vim.cast");
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-N", "-i", "NONE", "-n"])
        .record(&path)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("^~").unwrap();
    for step in [
        "ihello from a recording",
        "Escape",
        "o",
        "second line é€",
        "Escape",
        ":set number",
        "Enter",
    ] {
        let step = if step.starts_with('i') || step.starts_with(':') || step.contains(' ') {
            Step::Text(step.into())
        } else {
            Step::Keys(step.into())
        };
        s.apply(&Operation::Send {
            steps: vec![step],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        })
        .unwrap();
    }
    s.wait_timeout(
        &Condition::text(r"^\s+2 second line é€$").unwrap(),
        Duration::from_secs(20),
    )
    .unwrap();
    s.wait_stable(Duration::from_millis(200)).unwrap();
    let live = s.snapshot();
    s.add_marker("the screen to compare");
    s.exit().unwrap();

    let recording = Recording::read_file(&path).unwrap();
    let at = recording
        .events
        .iter()
        .find(|e| e.kind == EventKind::Marker("the screen to compare".into()))
        .expect("the marker is in the recording")
        .time;
    let replayed = recording.replay_until(at).unwrap().snapshot();
    assert_eq!(replayed.text(), live.text());
    assert_eq!(replayed.cursor(), live.cursor());
    let (cols, rows) = live.size();
    for row in 0..rows {
        for col in 0..cols {
            assert_eq!(replayed.cell(row, col), live.cell(row, col), "cell {row},{col}");
        }
    }
}

/// Floods the screen with `lines` numbers under a recording set up by `record`; the
/// live screen's text at the end.
fn flood(lines: u32, record: impl FnOnce(SessionBuilder) -> SessionBuilder) -> String {
    let builder = Session::builder("sh")
        .args(["-c", &format!("seq 1 {lines}; echo flood-done; sleep 30")])
        .timeout(Duration::from_secs(60));
    let s = record(builder).spawn().unwrap();
    s.wait_for_text("^flood-done$").unwrap();
    let live = s.snapshot().text();
    s.exit().unwrap();
    live
}

#[test]
fn a_flood_recorded_to_a_file_replays_to_the_last_screen() {
    let dir = common::TempDir::new("record-flood");
    let path = dir.0.join("flood.cast");
    let live = flood(300_000, |b| b.record(&path));
    let recording = Recording::read_file(&path).unwrap();
    assert_eq!(recording.replay().unwrap().snapshot().text(), live);
}

/// A writer that takes 20 ms per write, into a buffer the test reads afterwards.
#[derive(Clone, Default)]
struct SlowDisk(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for SlowDisk {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        std::thread::sleep(Duration::from_millis(20));
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_recorder_behind_a_flood_swaps_its_backlog_for_a_redraw_and_still_replays_right() {
    let disk = SlowDisk::default();
    let live = flood(1_500_000, |b| b.record_to(disk.clone()));
    let bytes = disk.0.lock().unwrap().clone();
    let recording = Recording::read(bytes.as_slice(), "slow.cast").unwrap();
    assert!(
        recording
            .events
            .iter()
            .any(|e| matches!(&e.kind, EventKind::Marker(m) if m.contains("replaced by a redraw"))),
        "a 10 MB flood into a 20 ms-per-write disk must fall behind and say so"
    );
    assert_eq!(recording.replay().unwrap().snapshot().text(), live);
}

#[test]
fn a_tapes_gif_leaves_out_what_hide_hid_and_plays_at_its_speed() {
    let dir = common::TempDir::new("record-tape-gif");
    let tape = dir.0.join("t.tape");
    let gif_path = dir.0.join("t.gif");
    std::fs::write(
        &tape,
        format!(
            "Output \"{}\"\nSet TypingSpeed 0\nSet PlaybackSpeed 2\nHide\nType \"sleep 1.5; clear\" Enter\nWait+Screen /^>$/\nShow\nType \"echo shown\" Enter\nWait\n",
            gif_path.display()
        ),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let report = tuipilot::tape::run_file(&tape, &tuipilot::tape::RunOptions::default()).unwrap();
    assert!(started.elapsed() > Duration::from_millis(1500));
    assert!(report.written.contains(&gif_path), "{:?}", report.written);
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(&gif_path).unwrap())
        .unwrap();
    let mut delays = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        delays.push(u32::from(frame.delay));
    }
    assert!(delays.len() >= 2, "{delays:?}");
    // Everything but the last frame (held a second): the hidden 1.5 s sleep is not there,
    // and what is left plays twice as fast.
    let shown: u32 = delays[..delays.len() - 1].iter().sum();
    assert!(
        shown < 60,
        "{shown} hundredths shown before the last frame: {delays:?}"
    );
}

/// Records vim, started by `sh -c SCRIPT`, until it quits and the script ends; the frames'
/// last screen by default and with an explicit end past the recording's.
fn vim_quits_then(script_after: &str, shows: Option<&str>) -> (String, String) {
    let dir = common::TempDir::new("record-alternate");
    let path = dir.0.join("vim.cast");
    let s = Session::builder("sh")
        .args(["-c", &format!("vim -u NONE -N -i NONE -n; {script_after}")])
        .size(60, 10)
        .record(&path)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("^~").unwrap();
    s.send_text("ifrom vim").unwrap();
    s.press("Escape").unwrap();
    s.wait_for_text("^from vim").unwrap();
    s.send_text(":q!\r").unwrap();
    // Everything the recording must hold is on the screen before the session ends.
    s.wait_for(|screen| !screen.alternate_screen()).unwrap();
    if let Some(text) = shows {
        // The script prints its summary once told to: after vim has left, in output of
        // its own, as a shell's later output would come.
        s.send_text("\r").unwrap();
        s.wait_for_text(text).unwrap();
    }
    s.wait_exit().unwrap();
    s.exit().unwrap();
    let recording = Recording::read_file(&path).unwrap();
    let last = |options: &tuipilot::record::FrameOptions| {
        recording.frames(options).unwrap().last().unwrap().screen.text()
    };
    let to_the_end = tuipilot::record::FrameOptions {
        to: Some(tuipilot::record::Cut::Time(1e6)),
        ..Default::default()
    };
    (last(&Default::default()), last(&to_the_end))
}

#[needs(vim)]
#[test]
fn a_recording_of_a_full_screen_program_ends_on_its_last_screen_before_it_left() {
    let (default, whole) = vim_quits_then("true", None);
    assert!(
        default.contains("from vim") && default.contains("\n~"),
        "{default}"
    );
    assert!(
        !whole.contains("from vim"),
        "an explicit end shows the main screen:\n{whole}"
    );
    // What the main screen shows after the program left (a shell's later output here) is
    // not the program: the default end is still its last screen; an end past the
    // recording's shows the rest.
    let (default, whole) = vim_quits_then(
        "read go; printf 'saved 1 file\\nwrote 8 bytes\\nbye\\n'",
        Some("^bye$"),
    );
    assert!(
        default.contains("from vim") && !default.contains("saved 1 file"),
        "{default}"
    );
    assert!(
        whole.contains("saved 1 file") && !whole.contains("from vim"),
        "{whole}"
    );
}
