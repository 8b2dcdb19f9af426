//! The kinds of session an agent turns into a test, each exported and replayed as
//! written: a colour capture (a styled snapshot, never a regex of escape codes), a program
//! ended by a key (the replay waits for its exit before the last screen), a send whose
//! wait timed out (its input reached the program, so the replay sends it), a program never
//! found ready at its start (no ready wait replayed), and a Rust export that waits for
//! nothing (it compiles without a warning).

mod common;

use tuipilot::StartSpec;
use tuipilot::operation::{LoggedOperation, Operation, WaitFor};
use tuipilot::tape::export::{ExportOptions, to_rust, to_tape};
use tuipilot::tape::{RunOptions, run_file};

use common::{send_op as send, wait_op as wait};

#[allow(dead_code)]
#[path = "../cli/examples/fuzz/export.rs"]
mod export_fuzz;
#[allow(dead_code)]
#[path = "../cli/examples/fuzz/rng.rs"]
mod rng;
#[allow(unused_imports)]
use rng::Rng;

/// Writes the tape (and its snapshot) exported from `log` into `dir` as NAME.tape; the
/// tape's text.
fn export(spec: &StartSpec, log: &[LoggedOperation], dir: &std::path::Path, name: &str) -> String {
    let exported = to_tape(spec, log, name, &ExportOptions::default()).expect("the log exports");
    std::fs::write(dir.join(format!("{name}.tape")), &exported.tape).unwrap();
    let (snap, text) = exported.snapshot.expect("the session had a capture");
    std::fs::write(dir.join(snap), text).unwrap();
    exported.tape
}

/// Runs the tape NAME.tape in `dir` three times; each must pass.
fn replays_three_times(dir: &std::path::Path, name: &str, tape: &str) {
    for run in 1..=3 {
        let report = run_file(dir.join(format!("{name}.tape")), &RunOptions::default());
        assert!(report.is_ok(), "replay {run}:\n{tape}\n{report:?}");
    }
}

/// A program started as `sh -c SCRIPT`.
fn sh(script: &str) -> StartSpec {
    StartSpec::new(["sh", "-c", script].map(String::from))
}

#[test]
fn a_colour_capture_exports_as_a_styled_snapshot_and_fails_when_a_colour_changes() {
    let dir = common::TempDir::new("export-colour");
    let script = dir.0.join("menu.sh");
    let menu = |colour: u8| {
        format!(
            "printf '\\033[1;3{colour}mTitle\\033[0m\\n  \\033[7mOpen\\033[0m\\n  Quit\\n'; read choice\n"
        )
    };
    std::fs::write(&script, menu(1)).unwrap();
    let spec = StartSpec::new(["sh".to_string(), script.display().to_string()]);
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text("Quit".into()))).unwrap();
    session.apply(&Operation::capture_ansi()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = export(&spec, &log, &dir.0, "colour");
    assert!(
        !tape.contains("\\x{1b}") && !tape.contains('\u{1b}') && !tape.contains("\\e["),
        "no escape codes asserted: {tape}"
    );
    assert!(tape.contains("Snapshot+Styled colour"), "{tape}");
    let golden = std::fs::read_to_string(dir.0.join("colour.snap")).unwrap();
    assert!(
        golden.contains("bold fg=red (1)") && golden.contains("inverse"),
        "the styles are in the snapshot: {golden}"
    );
    replays_three_times(&dir.0, "colour", &tape);
    // The title turns green: the text is the same, the snapshot is not.
    std::fs::write(&script, menu(2)).unwrap();
    let failure = run_file(dir.0.join("colour.tape"), &RunOptions::default()).unwrap_err();
    let report = format!("{failure:?}");
    assert!(report.contains("green"), "the diff shows the colour: {report}");
    let _ = std::fs::remove_dir_all(dir.0.join("colour.failure"));
}

#[test]
fn a_program_ended_by_a_key_is_waited_for_to_exit_before_the_last_screen() {
    // A full-screen program that leaves the alternate screen when a key ends it: the last
    // screen is the one after its exit, which the replay must wait for.
    let dir = common::TempDir::new("export-ended");
    let spec = sh(r#"printf '\033[?1049hfull screen\n'; read key; sleep 0.2; printf '\033[?1049lbye\n'"#);
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text("full screen".into()))).unwrap();
    session.apply(&send("q", "Enter", Some(WaitFor::Settle))).unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    assert!(
        log[1].waited.as_deref().is_some_and(|w| w.starts_with("exited")),
        "{:?}",
        log[1].waited
    );
    let tape = export(&spec, &log, &dir.0, "ended");
    let lines: Vec<&str> = tape.lines().collect();
    let enter = lines.iter().position(|l| *l == "Key Enter").expect(&tape);
    assert_eq!(lines.get(enter + 1), Some(&"Wait+Exit"), "{tape}");
    replays_three_times(&dir.0, "ended", &tape);
}

#[test]
fn a_send_whose_wait_timed_out_is_replayed_with_its_input() {
    // The first answer's wait timed out (the agent waited for the wrong text), but the
    // program read the answer: a replay that left it out would feed the second answer
    // to the first question.
    let dir = common::TempDir::new("export-timed-out");
    let spec = sh(r#"read a; echo "first: $a"; read b; echo "second: $b"; sleep 600"#);
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Ready)).unwrap();
    let timed_out = common::with_timeout(
        send("one", "Enter", Some(WaitFor::Text("never printed".into()))),
        300,
    );
    assert!(session.apply(&timed_out).is_err());
    session
        .apply(&send("two", "Enter", Some(WaitFor::Text("^second: two$".into()))))
        .unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = export(&spec, &log, &dir.0, "timed-out");
    let at = |line: &str| tape.lines().position(|l| l == line);
    assert!(
        at("Type \"one\"").is_some() && at("Type \"one\"") < at("Type \"two\""),
        "{tape}"
    );
    assert!(
        !tape
            .lines()
            .any(|l| !l.starts_with('#') && l.contains("never printed")),
        "the wait that timed out is not replayed: {tape}"
    );
    // Fails on the code before: the second answer was typed at once, and the terminal
    // echoed it ahead of the program's `first: one` (seen under load).
    let caught_up = at("Wait+Screen /^first: one$/");
    assert!(
        caught_up.is_some() && caught_up < at("Type \"two\""),
        "the replay waits for what the session saw when its wait gave up: {tape}"
    );
    replays_three_times(&dir.0, "timed-out", &tape);
}

#[test]
fn a_program_never_found_ready_at_its_start_is_not_waited_for_in_the_replay() {
    // A loop beside the reader keeps the program busy for ever: its start's ready wait
    // failed in the session, which went on. A replay that waited for ready would fail
    // there.
    let dir = common::TempDir::new("export-never-ready");
    let spec = sh(r#"echo go; (while :; do :; done) & read x; echo "got $x"; kill $!; sleep 600"#);
    let session = spec.spawn().unwrap();
    let not_ready = common::with_timeout(wait(WaitFor::Ready), 500);
    assert!(session.apply(&not_ready).is_err());
    session.apply(&send("hi", "Enter", None)).unwrap();
    session.wait_for_text("got hi").unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = export(&spec, &log, &dir.0, "never-ready");
    assert!(!tape.contains("Wait+Ready"), "{tape}");
    assert!(tape.contains("not found ready at its start"), "{tape}");
    assert!(
        tape.contains("Wait+Screen /^go$/"),
        "waits for what the session saw first: {tape}"
    );
    replays_three_times(&dir.0, "never-ready", &tape);
}

#[test]
fn a_rust_export_that_waits_for_nothing_compiles_without_a_warning() {
    // It imported `Duration` and `Condition` whatever it used: two warnings in the user's
    // build.
    let dir = common::TempDir::new("export-rust-warnings");
    let spec = StartSpec::new(["cat".to_string()]);
    let mut capture = export_fuzz::logged(Operation::capture_text(), None);
    capture.screen = Some("hi".into());
    let log = vec![export_fuzz::logged(send("hi", "", None), None), capture];
    let rust = to_rust(&spec, &log, "waits_for_nothing", &ExportOptions::default()).unwrap();
    let mut extra = vec![
        "--test".to_string(),
        "--emit=metadata".to_string(),
        "-D".into(),
        "warnings".into(),
    ];
    extra.extend(common::rustc::against_the_library());
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    common::rustc::compile(&dir.0, "waits_for_nothing", &rust, &extra);
}

/// Starts `spec`, waits for `first`, captures, and waits until the screen changed with no
/// input (as when an agent exports a moment after its capture); exports it as NAME.tape in
/// `dir` with the screen then; the tape and its snapshot's text.
fn exported_after_drift(
    spec: &StartSpec,
    first: &str,
    dir: &std::path::Path,
    name: &str,
) -> (String, String) {
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text(first.into()))).unwrap();
    // The capture waits too, so it is a whole frame: a plain capture a moment after the
    // wait lands in the program's next frame half drawn when the machine is busy (rows
    // 1-2 of the next list drawn, row 3 not yet), and only row 3 would drift.
    let mut capture = Operation::capture_text();
    if let Operation::Capture { wait, .. } = &mut capture {
        *wait = Some(WaitFor::Text(first.into()));
    }
    session.apply(&capture).unwrap();
    let captured = session.snapshot().text();
    session
        .wait_for_timeout(
            move |now| now.text() != captured,
            std::time::Duration::from_secs(10),
        )
        .unwrap();
    let options = ExportOptions {
        screen_now: Some(session.snapshot().text()),
        ..ExportOptions::default()
    };
    let log = session.operations();
    session.exit().unwrap();
    let exported = to_tape(spec, &log, name, &options).unwrap();
    std::fs::write(dir.join(format!("{name}.tape")), &exported.tape).unwrap();
    let (snap, text) = exported.snapshot.unwrap();
    std::fs::write(dir.join(snap), &text).unwrap();
    (exported.tape, text)
}

#[test]
fn a_counter_beside_stable_text_is_masked_not_asserted_and_the_export_replays() {
    // A counter no clock pattern knows, redrawn every 50 ms beside a steady label, and
    // a frame of `─` fill after it that moves with its width.
    let dir = common::TempDir::new("export-drift");
    let spec =
        sh(r#"i=7; while :; do i=$((i * 13 % 100003)); printf '\r┌─ %s ───┐ steady' "$i"; sleep 0.05; done"#);
    let (tape, text) = exported_after_drift(&spec, "steady", &dir.0, "drift");
    assert!(tape.contains("Mask "), "the counter is masked: {tape}");
    assert!(
        text.contains("steady") && text.contains("[masked]"),
        "{tape}\n{text}"
    );
    replays_three_times(&dir.0, "drift", &tape);
}

#[test]
fn rows_that_drift_whole_are_masked_whole_and_the_export_replays() {
    // A list redrawn every 50 ms with other entries under a steady header: nothing in its
    // rows is steady enough to anchor a mask on.
    let dir = common::TempDir::new("export-rows");
    let spec = sh(
        r#"i=3; while :; do printf '\033[H\033[2JProcesses\n'; for n in 1 2 3; do i=$((i * 7919 % 100003)); printf '%s task-%s\n' "$i" "$((i % 97))"; done; sleep 0.05; done"#,
    );
    let (tape, text) = exported_after_drift(&spec, "^Processes$", &dir.0, "rows");
    assert!(
        tape.contains("Mask+Rows 1-3"),
        "the list's rows are masked whole: {tape}"
    );
    assert!(
        text.starts_with("Processes\n[masked]\n[masked]\n[masked]"),
        "{text}"
    );
    replays_three_times(&dir.0, "rows", &tape);
}
