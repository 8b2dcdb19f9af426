//! `tuipilot record`, driven as a person would drive it: it runs inside a tuipilot session
//! (the person's terminal), recording a program into a tape and a Rust test.

mod support;

#[path = "../../tests/common/rustc.rs"]
mod rustc_build;

use serde_json::Value;
use support::{BASH, Dir, person, screen_with, status, text};

#[test]
fn a_recorded_session_becomes_a_tape_that_waits_where_the_person_waited_and_replays() {
    let dir = Dir::new();
    let work = dir.work();
    let rust = work.join("shell.rs");
    let rust_arg = rust.to_string_lossy().into_owned();
    let cast = work.join("shell.cast");
    let cast_arg = cast.to_string_lossy().into_owned();
    let options = ["--rust", &rust_arg, "--cast", &cast_arg];
    let tape = recording_with(&dir, &work, "shell", &options, BASH);
    screen_with(&dir, "person", r"^\$");
    // Typed as a person types: a character at a time.
    dir.ok(&[
        "send",
        "-s",
        "person",
        "--typing-ms",
        "20",
        "-t",
        "echo one",
        "--wait-ready",
    ]);
    dir.ok(&["send", "-s", "person", "-k", "Enter", "--wait", "^one$"]);
    dir.ok(&[
        "send",
        "-s",
        "person",
        "--typing-ms",
        "20",
        "-t",
        "printf 'two\\n'",
        "-k",
        "Enter",
        "--wait",
        "^two$",
    ]);
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "s"]);
    screen_with(&dir, "person", "added snapshot 1 of shell");
    dir.ok(&[
        "send",
        "-s",
        "person",
        "--typing-ms",
        "20",
        "-t",
        "echo three",
        "--wait-ready",
    ]);
    dir.ok(&["send", "-s", "person", "-k", "C-]"]);
    screen_with(&dir, "person", "recorder: s snapshot");
    dir.ok(&["send", "-s", "person", "-t", "e"]);
    screen_with(&dir, "person", "added Expect");
    dir.ok(&["send", "-s", "person", "-k", "Enter", "--wait", "^three$"]);
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
    // What it wrote, said on the person's terminal (its 80 columns wrap the line).
    let said: String = dir.ok(&["capture", "-s", "person"]).split_whitespace().collect();
    assert!(said.contains("replayitwith`tuipilotrun"), "{said}");
    let written = std::fs::read_to_string(&tape).unwrap();
    for line in [
        "Type \"echo one\"\nKey Enter\nWait+Ready\n",
        "Snapshot shell-1\n",
        "Expect /^\\$ echo three$/\n",
        "Snapshot shell\n",
    ] {
        assert!(written.contains(line), "{line:?} missing:\n{written}");
    }
    assert!(!written.contains("Sleep"), "{written}");
    assert!(work.join("shell-1.snap").exists() && work.join("shell.snap").exists());
    // The cast is the session's recording: asciicast v2, with what the screen showed.
    let recording = std::fs::read_to_string(&cast).unwrap();
    let header: Value = serde_json::from_str(recording.lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 2, "{header}");
    assert!(recording.contains("three"), "{recording}");
    let code = std::fs::read_to_string(&rust).unwrap();
    assert!(
        code.contains("s.wait_for_text(\"^\\\\$ echo three$\")?;"),
        "{code}"
    );
    // The Rust test replays and passes too.
    let ran = run_recorded_rust_test(&work, &rust);
    assert!(
        ran.status.success(),
        "{}{}\n{code}",
        text(&ran.stdout),
        text(&ran.stderr)
    );
    // The tape replays and passes, three times.
    for _ in 0..3 {
        let out = dir.run_in(&work, &["run", "shell.tape"]);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}{}\n{written}",
            text(&out.stdout),
            text(&out.stderr)
        );
    }
}

/// Builds the recorded Rust test against the library beside this test binary and runs it.
fn run_recorded_rust_test(dir: &std::path::Path, source: &std::path::Path) -> std::process::Output {
    let code = std::fs::read_to_string(source).unwrap();
    rustc_build::run_as_test(dir, "recorded_test", &code)
}

#[test]
fn a_recorder_ended_by_a_signal_restores_the_terminal_and_takes_its_program_with_it() {
    let dir = Dir::new();
    let work = dir.work();
    // A program that ignores the hang-up a closing terminal sends.
    let program = [
        "bash",
        "--norc",
        "-c",
        "trap '' HUP; echo pid $$; exec sleep 1000",
    ];
    let tape = recording_in(&dir, &work, "gone", &program);
    let screen = screen_with(&dir, "person", r"^pid \d+");
    let pid: i32 = screen["text"]
        .as_str()
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|n| n.trim().parse().ok())
        .expect("the program's pid");
    let recorder = dir.info("person")["pid"].as_i64().unwrap() as i32;
    // SAFETY: a signal to the recorder's own process.
    unsafe { libc::kill(recorder, libc::SIGTERM) };
    dir.ok(&["wait", "-s", "person", "--exit"]);
    let after = dir.json(&["capture", "-s", "person", "--json"]);
    assert_eq!(after["alternate_screen"], false, "{after}");
    assert!(
        support::eventually(std::time::Duration::from_secs(10), || !std::path::Path::new(
            &format!("/proc/{pid}")
        )
        .exists()),
        "the recorded program (pid {pid}) outlived its recorder"
    );
    // What was recorded is written before the recorder dies of the signal.
    assert!(tape.exists(), "a recording ended by a signal writes its tape");
}

/// Starts `tuipilot record -o NAME.tape [OPTIONS…] -- CMD` as the program of session
/// `person`, in `work` (the recording's folder, so its world is the test's files alone);
/// the tape's path.
fn recording_with(
    dir: &Dir,
    work: &std::path::Path,
    name: &str,
    options: &[&str],
    command: &[&str],
) -> std::path::PathBuf {
    let tape = work.join(format!("{name}.tape"));
    let mut args = vec!["record", "-o", tape.to_str().unwrap()];
    args.extend_from_slice(options);
    args.push("--");
    args.extend_from_slice(command);
    support::person_in(dir, work, "person", (80, 25), &args);
    tape
}

/// [`recording_with`] with no options.
fn recording_in(dir: &Dir, work: &std::path::Path, name: &str, command: &[&str]) -> std::path::PathBuf {
    recording_with(dir, work, name, &[], command)
}

/// bash recorded as NAME.tape in `work`, the person having typed `echo WORD`; the tape's
/// path (written when the recording ends).
fn bash_recorded_saying(dir: &Dir, work: &std::path::Path, name: &str, word: &str) -> std::path::PathBuf {
    let tape = recording_in(dir, work, name, BASH);
    screen_with(dir, "person", r"^\$");
    let (line, said) = (format!("echo {word}"), format!("^{word}$"));
    dir.ok(&[
        "send", "-s", "person", "-t", &line, "-k", "Enter", "--wait", &said,
    ]);
    tape
}

#[test]
fn a_recording_ended_by_exit_in_bash_writes_its_tape_and_it_replays() {
    // Fails on the code before: the recorder stayed on "the program exited" until a key.
    let dir = Dir::new();
    let work = dir.work();
    let tape = bash_recorded_saying(&dir, &work, "ended", "one");
    dir.ok(&["send", "-s", "person", "-t", "exit", "-k", "Enter"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
    let said: String = dir.ok(&["capture", "-s", "person"]).split_whitespace().collect();
    assert!(said.contains("replayitwith"), "{said}");
    let written = std::fs::read_to_string(&tape).unwrap();
    assert!(written.contains("Type \"exit\""), "{written}");
    support::replays_three_times(&dir, &tape);
}

#[test]
fn a_recording_whose_terminal_hangs_up_writes_its_tape_and_it_replays() {
    // Fails on the code before: a hang-up wrote nothing at all.
    let dir = Dir::new();
    let work = dir.work();
    let tape = bash_recorded_saying(&dir, &work, "hungup", "two");
    // The person's terminal closes: its session ends, the recorder gets the hang-up.
    dir.ok(&["exit", "-s", "person"]);
    assert!(
        support::eventually(std::time::Duration::from_secs(20), || tape.exists()),
        "no tape after the hang-up"
    );
    let written = std::fs::read_to_string(&tape).unwrap();
    assert!(written.contains("Type \"echo two\""), "{written}");
    assert!(work.join("hungup.snap").exists(), "{written}");
    support::replays_three_times(&dir, &tape);
}

#[test]
fn the_recorders_menu_keeps_every_key_on_a_narrow_terminal() {
    let dir = Dir::new();
    let work = dir.work();
    let tape = work.join("narrow.tape");
    let record = [
        "record",
        "-o",
        tape.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "echo ready; read x",
    ];
    support::person_in(&dir, &work, "person", (40, 12), &record);
    screen_with(&dir, "person", "^ready");
    dir.ok(&["send", "-s", "person", "-k", "C-]"]);
    let screen = screen_with(&dir, "person", "q stop");
    let menu = status(&screen);
    for key in ["s ", "c ", "e ", "q ", "Esc"] {
        assert!(menu.contains(key), "{key:?} missing from {menu:?}");
    }
    dir.ok(&["send", "-s", "person", "-t", "q"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
}

#[test]
fn a_recording_longer_than_the_log_keeps_is_refused_rather_than_written_without_its_start() {
    let dir = Dir::new();
    let work = dir.work();
    let program = [
        "bash",
        "--norc",
        "-c",
        "stty raw -echo; echo reading; exec cat >/dev/null",
    ];
    let tape = recording_in(&dir, &work, "long", &program);
    screen_with(&dir, "person", "reading");
    // More input than the log keeps (4 MiB), pasted 100 KB at a time.
    let chunk = "x".repeat(100_000);
    for _ in 0..45 {
        dir.ok(&["send", "-s", "person", "--paste", &chunk]);
    }
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
    dir.ok(&["wait", "-s", "person", "--exit", "--timeout-ms", "60000"]);
    let said = dir.ok(&["capture", "-s", "person"]).replace('\n', "");
    assert!(
        said.contains("the recording is longer than a session's log keeps"),
        "{said}"
    );
    assert!(!tape.exists());
}

// Fails on the code before: the recorded tape typed the program's command line into bash,
// whose line editor took the argument's Ctrl+U as "discard the line" and ran the rest.
#[test]
fn a_recorded_programs_argument_holding_line_editing_keys_replays_as_an_argument() {
    let dir = Dir::new();
    let work = dir.work();
    let notes = work.join("notes.txt");
    std::fs::write(&notes, "first line of the notes\n").unwrap();
    let canary = work.join("PWN_RECORD");
    let argument = format!("\u{15}touch {}; exit #", canary.display());
    recording_in(&dir, &work, "inj", &["less", notes.to_str().unwrap(), &argument]);
    screen_with(&dir, "person", "first line of the notes");
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
    let written = support::replays_and_runs_nothing(&dir, &work, "inj.tape", &canary);
    assert!(written.contains("\nStart+Dir "), "{written}");
}

#[test]
fn record_s_name_makes_the_recording_watchable_under_that_name_and_leaves_no_file() {
    // Fails on the code before: -s was ignored, so nobody could watch a recording.
    let dir = Dir::new();
    let work = dir.work();
    let tape = work.join("named.tape");
    let record = [
        "-s",
        "rec",
        "record",
        "-o",
        tape.to_str().unwrap(),
        "--",
        "sh",
        "-c",
        "echo recording; read x",
    ];
    support::person_in(&dir, &work, "person", (80, 25), &record);
    screen_with(&dir, "person", "^recording");
    let listed = dir.json(&["list", "--json"]);
    assert!(
        listed.as_array().unwrap().iter().any(|r| r["session"] == "rec"),
        "{listed}"
    );
    person(&dir, "watcher", 80, 25, &["-s", "rec", "attach"]);
    screen_with(&dir, "watcher", "^recording");
    // The recorder drives it: other requests are refused in one line that says so.
    let out = dir.run(&["send", "-s", "rec", "-t", "x"]);
    assert_ne!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("belongs to another process (tuipilot record)"),
        "{}",
        text(&out.stderr)
    );
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
    assert!(tape.exists());
    assert!(!dir.0.join("rec.sock").exists() && !dir.0.join("rec.lock").exists());
}

#[test]
fn recording_again_in_its_folder_copies_none_of_the_earlier_recordings_files_into_its_world() {
    // Fails on the code before: the second recording's world held the first's tape,
    // snapshot and world (a copy inside a copy, growing with every recording).
    let dir = Dir::new();
    let work = dir.work();
    std::fs::write(work.join("data.txt"), "the data\n").unwrap();
    for round in 1..=2 {
        let tape = recording_in(&dir, &work, "again", &["sh", "-c", "ls; echo listed; read x"]);
        screen_with(&dir, "person", "^listed");
        dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
        dir.ok(&["wait", "-s", "person", "--exit"]);
        dir.ok(&["exit", "-s", "person"]);
        assert!(tape.exists(), "round {round}");
    }
    // What the program listed is there; the earlier world is an empty folder.
    let world = work.join("again.world").join("work");
    for file in ["data.txt", "again.tape", "again.snap"] {
        assert!(world.join(file).is_file(), "{file} in {}", world.display());
    }
    let earlier = std::fs::read_dir(world.join("again.world")).unwrap().count();
    assert_eq!(earlier, 0, "the earlier world was copied into this one");
    let source = std::fs::read_to_string(work.join("again.tape")).unwrap();
    assert!(
        source.contains("from an earlier recording, copied empty"),
        "{source}"
    );
    support::replays_three_times(&dir, &work.join("again.tape"));
}

#[test]
fn record_verify_replays_the_tape_once_and_names_the_row_a_replay_would_show_otherwise() {
    let dir = Dir::new();
    let work = dir.work();
    // A number drawn afresh on every run: the replay's screen cannot be the recording's.
    let command = [
        "sh",
        "-c",
        "echo \"token $(od -An -N4 -tu4 /dev/urandom | tr -d ' ')\"; read x",
    ];
    let tape = recording_with(&dir, &work, "token", &["--verify"], &command);
    screen_with(&dir, "person", "token");
    dir.ok(&["send", "-s", "person", "-k", "C-]", "-t", "q"]);
    // The replay waits for the token row as long as a tape's wait does.
    dir.ok(&["wait", "-s", "person", "--exit", "--timeout-ms", "60000"]);
    let said: String = dir.ok(&["capture", "-s", "person"]).split_whitespace().collect();
    assert!(
        said.contains("wouldfailwhenreplayed,attoken.tape:") && said.contains("closestline:row0:\"token"),
        "{said}"
    );
    assert!(tape.is_file(), "written either way");
    dir.ok(&["exit", "-s", "person"]);
    // A recording that replays says it was checked.
    let tape = recording_with(&dir, &work, "steady", &["--verify"], BASH);
    screen_with(&dir, "person", r"^\$");
    dir.ok(&["send", "-s", "person", "-t", "exit", "-k", "Enter"]);
    dir.ok(&["wait", "-s", "person", "--exit"]);
    let said: String = dir.ok(&["capture", "-s", "person"]).split_whitespace().collect();
    assert!(said.contains("checkedbyareplay"), "{said}");
    assert!(tape.is_file());
}
