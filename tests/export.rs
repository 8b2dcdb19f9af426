//! A session driven through operations, exported as a tape, replays: `tuipilot::tape`
//! runs the exported tape and it passes; when the program's behaviour changes, it fails
//! with the snapshot's diff. The Rust export names the same steps.

use tuipilot_testenv::needs;
mod common;

use std::path::Path;

use tuipilot::StartSpec;
use tuipilot::operation::{Operation, Step, WaitFor};
use tuipilot::tape::export::{ExportOptions, to_rust, to_tape};
use tuipilot::tape::{RunOptions, run_file};

use common::{send_op as send, wait_op as wait};

/// Runs `operations` on a session started from `spec`, exports it to `dir/NAME.tape`
/// (with its snapshot), and returns the tape's path.
fn drive_and_export(
    spec: &StartSpec,
    operations: &[Operation],
    dir: &Path,
    name: &str,
) -> std::path::PathBuf {
    let session = spec.spawn().unwrap();
    for operation in operations {
        session.apply(operation).unwrap();
    }
    let log = session.operations();
    session.exit().unwrap();
    // These replays need the program's environment: written into the tape.
    let options = ExportOptions {
        include_env: true,
        ..ExportOptions::default()
    };
    write_export(spec, &log, dir, name, &options)
}

/// Writes the tape (and its snapshot) exported from `log` into `dir` as NAME.tape.
fn write_export(
    spec: &StartSpec,
    log: &[tuipilot::operation::LoggedOperation],
    dir: &Path,
    name: &str,
    options: &ExportOptions,
) -> std::path::PathBuf {
    let exported = to_tape(spec, log, name, options).expect("the log exports");
    let tape = dir.join(format!("{name}.tape"));
    std::fs::write(&tape, &exported.tape).unwrap();
    let (snap, text) = exported.snapshot.expect("the session had a capture");
    std::fs::write(dir.join(snap), text).unwrap();
    tape
}

#[test]
fn a_menu_session_exported_replays_and_fails_with_a_diff_when_the_label_changes() {
    let dir = common::TempDir::new("export-menu");
    let script = dir.0.join("menu.sh");
    let menu = |label: &str| {
        format!(
            "printf 'Menu at 12:34:56\\n  1) {label}\\n  2) Quit\\nchoice> '; read c; echo \"picked $c\"; sleep 600\n"
        )
    };
    std::fs::write(&script, menu("Open")).unwrap();
    let spec = StartSpec {
        cwd: Some(dir.0.clone()),
        env: vec![("MENU_USER".into(), "agent's \"quoted\" name".into())],
        ..StartSpec::new(["sh".to_string(), script.display().to_string()])
    };
    let tape = drive_and_export(
        &spec,
        &[
            wait(WaitFor::Line("^choice>$".into())),
            Operation::capture_text(),
            send("1", "Enter", Some(WaitFor::Text("^picked 1$".into()))),
            Operation::capture_text(),
        ],
        &dir.0,
        "menu",
    );
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(
        text.contains("Env MENU_USER 'agent's \"quoted\" name'")
            || text.contains("Env MENU_USER `agent's \"quoted\" name`"),
        "{text}"
    );
    assert!(
        text.contains("Expect /^  1\\) Open$/"),
        "the first capture's new rows: {text}"
    );
    assert!(
        text.contains("Mask /(?:\\b\\d{1,2}:\\d{2}(:\\d{2})?\\b)[ ─━═]*/"),
        "the clock is masked: {text}"
    );
    let report = run_file(&tape, &RunOptions::default());
    assert!(report.is_ok(), "the exported tape replays:\n{text}\n{report:?}");

    std::fs::write(&script, menu("Close")).unwrap();
    let failure = run_file(&tape, &RunOptions::default()).unwrap_err();
    let report = format!("{failure:?}");
    assert!(
        report.contains("Open") && report.contains("Close"),
        "the diff shows the change: {report}"
    );
    let _ = std::fs::remove_dir_all(dir.0.join("menu.failure"));
}

#[needs(vim)]
#[test]
fn a_vim_session_exported_replays_hermetically_whatever_the_session_left_behind() {
    let dir = common::TempDir::new("export-vim");
    let spec = StartSpec {
        cwd: Some(dir.0.clone()),
        ..StartSpec::new(["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "notes.txt"].map(String::from))
    };
    let session = spec.spawn().unwrap();
    for operation in [
        wait(WaitFor::Text("notes.txt".into())),
        send("ihello from an agent", "Escape", None),
        send(":w", "Enter", Some(WaitFor::Text("written".into()))),
        Operation::capture_text(),
    ] {
        session.apply(&operation).unwrap();
    }
    let log = session.operations();
    session.exit().unwrap();
    // The session saved notes.txt: a replay where it ran would find it and show vim's
    // `"notes.txt" 1L` where the session saw `[New]`.
    assert!(dir.0.join("notes.txt").is_file());
    let tape = write_export(&spec, &log, &dir.0, "vim", &ExportOptions::default());
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(
        text.contains("\nSet Isolated true\n") && text.contains("# Hermetic: "),
        "{text}"
    );
    std::fs::write(dir.0.join("notes.txt"), "left by the first run\n").unwrap();
    let report = run_file(&tape, &RunOptions::default());
    assert!(report.is_ok(), "the exported tape replays:\n{text}\n{report:?}");
    assert_eq!(
        std::fs::read_to_string(dir.0.join("notes.txt")).unwrap(),
        "left by the first run\n",
        "the replay wrote nothing where the session ran"
    );
    // In place, it meets the file the session left, and fails.
    let options = ExportOptions {
        in_place: true,
        ..ExportOptions::default()
    };
    let in_place = write_export(&spec, &log, &dir.0, "vim-in-place", &options);
    let failure = run_file(&in_place, &RunOptions::default()).unwrap_err();
    assert!(format!("{failure:?}").contains("[New]"), "{failure:?}");
    let _ = std::fs::remove_dir_all(dir.0.join("vim-in-place.failure"));
}

#[test]
fn the_rust_export_spells_the_same_steps_as_a_test() {
    let spec = StartSpec::new(["bash".to_string()]);
    let session = common::bash().spawn().unwrap();
    session.apply(&wait(WaitFor::Text(r"^\$$".into()))).unwrap();
    session
        .apply(&send("echo hi", "Enter", Some(WaitFor::Text("^hi$".into()))))
        .unwrap();
    // `hi` can be on the screen before bash's next prompt: the capture waits for both.
    session.apply(&wait(WaitFor::Text(r"^hi\n\$$".into()))).unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let rust = to_rust(&spec, &log, "replays_bash", &ExportOptions::default()).unwrap();
    for piece in [
        "#[test]\nfn replays_bash() -> tuipilot::Result<()> {",
        "let s = Session::builder(\"bash\")",
        r#"s.wait_timeout(&Condition::text("^\\$$")?, s.timeout())?;"#,
        "let start = s.wait_start();",
        r#"s.send_text("echo hi")?;"#,
        r#"s.press_all(["Enter"])?;"#,
        r#"s.wait_since_timeout(&start, &Condition::text("^hi$")?, s.timeout())?;"#,
        "let screen = s.snapshot().masked_text(&[])?;",
        r#"assert_eq!(screen.trim_end(), "$ echo hi\nhi\n$");"#,
    ] {
        assert!(rust.contains(piece), "missing {piece:?} in:\n{rust}");
    }
}

#[test]
fn secrets_never_reach_the_log_the_recording_or_an_export() {
    let dir = common::TempDir::new("export-secret");
    let cast = dir.0.join("s.cast");
    let spec = StartSpec {
        env: vec![
            ("SECRET_TOKEN".into(), "hunter2-token".into()),
            ("PS1".into(), "$ ".into()),
        ],
        record: Some(cast.clone()),
        ..StartSpec::new(["bash", "--norc", "--noprofile"].map(String::from))
    };
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text(r"^\$$".into()))).unwrap();
    // A password prompt: the typed secret is never echoed.
    session
        .apply(&send(
            "read -rsp 'Password: ' pw; echo \"got ${#pw}\"",
            "Enter",
            Some(WaitFor::Line("^Password:$".into())),
        ))
        .unwrap();
    session
        .apply(&Operation::Send {
            steps: vec![Step::Text("S3cretPassw0rd".into()), Step::Keys("Enter".into())],
            wait: Some(WaitFor::Text("got 14$".into())),
            timeout_ms: None,
            capture: false,
            secret: true,
        })
        .unwrap();
    session
        .apply(&send(
            "echo pasted-$((6*7))",
            "Enter",
            Some(WaitFor::Text("^pasted-42$".into())),
        ))
        .unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();

    let logged = serde_json::to_string(&log).unwrap();
    assert!(!logged.contains("S3cret"), "{logged}");
    assert!(logged.contains("<secret input, 14 characters>"), "{logged}");
    let recording = std::fs::read_to_string(&cast).unwrap();
    assert!(
        !recording.contains("S3cret"),
        "the recording holds the secret:\n{recording}"
    );
    assert!(
        recording.contains("send <secret input, 14 characters> Enter wait text"),
        "{recording}"
    );
    assert!(recording.contains("echo pasted"), "other input is still recorded");

    let redact = ExportOptions::new(false, &["pasted-\\S+".to_string()]).unwrap();
    let tape = to_tape(&spec, &log, "s", &redact).unwrap();
    let snapshot = tape.snapshot.clone().unwrap().1;
    let text = tape.tape + &snapshot;
    for leaked in ["S3cret", "hunter2", "pasted-42", "pasted-$"] {
        assert!(!text.contains(leaked), "{leaked} in:\n{text}");
    }
    assert!(text.contains("\nEnv SECRET_TOKEN\n"), "{text}");
    assert!(text.contains("Type \"<secret input, 14 characters>\""), "{text}");
    assert!(text.contains("<redacted>"), "{text}");
    let rust = to_rust(&spec, &log, "replays_secret", &ExportOptions::default()).unwrap();
    assert!(!rust.contains("S3cret") && !rust.contains("hunter2"), "{rust}");
    assert!(rust.contains(r#"std::env::var_os("SECRET_TOKEN")"#), "{rust}");
    assert!(
        rust.contains(r#"s.send_text(&std::env::var("TUIPILOT_SECRET_1")"#),
        "{rust}"
    );
    let included = to_tape(&spec, &log, "s", &ExportOptions::new(true, &[]).unwrap()).unwrap();
    assert!(
        included.tape.contains("Env SECRET_TOKEN hunter2-token")
            || included.tape.contains("Env SECRET_TOKEN \"hunter2-token\""),
        "{}",
        included.tape
    );
}

#[test]
fn a_session_recorded_without_input_keeps_every_send_secret() {
    let dir = common::TempDir::new("export-noinput");
    let cast = dir.0.join("n.cast");
    let spec = StartSpec {
        record: Some(cast.clone()),
        record_no_input: true,
        ..StartSpec::new(["cat".to_string()])
    };
    let session = spec.spawn().unwrap();
    session
        .apply(&send(
            "typed-secret",
            "Enter",
            Some(WaitFor::Text("^typed-secret$".into())),
        ))
        .unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let recording = std::fs::read_to_string(&cast).unwrap();
    // The program's echo is output, and stays; the marker and the input do not.
    assert!(!recording.contains(",\"i\","), "{recording}");
    assert!(!recording.contains("\"send \\\"typed"), "{recording}");
    assert!(
        recording.contains("send <secret input, 12 characters> Enter"),
        "{recording}"
    );
    assert!(!serde_json::to_string(&log).unwrap().contains("\"typed-secret\""));
}

#[test]
fn env_without_a_value_in_a_tape_passes_the_runners_variable_on() {
    let dir = common::TempDir::new("export-env");
    let tape = dir.0.join("e.tape");
    let name = format!("TUIPILOT_TEST_ENV_{}", std::process::id());
    std::fs::write(
        &tape,
        format!("Env {name}\nType 'echo \"[${name}]\"'\nEnter\nWait+Screen /^\\[from-the-runner\\]$/\n"),
    )
    .unwrap();
    let err = run_file(&tape, &RunOptions::default()).unwrap_err();
    assert!(format!("{err:?}").contains("not set there"), "{err:?}");
    // SAFETY: the variable's name is this process's own; no other test reads it.
    unsafe { std::env::set_var(&name, "from-the-runner") };
    let report = run_file(&tape, &RunOptions::default());
    assert!(report.is_ok(), "{report:?}");
}

#[test]
fn typing_between_hide_and_show_stays_out_of_a_tapes_recording_and_failure() {
    let dir = common::TempDir::new("export-hide");
    let tape = dir.0.join("h.tape");
    let cast = dir.0.join("h.cast");
    std::fs::write(
        &tape,
        format!("Output {cast:?}\n") + "Hide\nType 'read -rsp \"pw: \" pw; echo \"len ${#pw}\"'\nEnter\nWait /^pw:/\nType \"tape-secret\"\nEnter\nWait+Screen /len 11$/\nShow\nType \"echo shown\"\nEnter\nWait+Screen /^shown$/\nHide\nType \"nope-secret\"\nWait+Screen@50ms /never/\n",
    )
    .unwrap();
    let failure = run_file(&tape, &RunOptions::default()).unwrap_err();
    let report = format!("{failure:?}");
    let bundle = dir.0.join("h.failure");
    assert!(report.contains("/never/"), "{report}");
    // A failed run's recording is kept in its bundle.
    let cast = std::fs::read_to_string(bundle.join("recording.cast")).unwrap();
    let state = std::fs::read_to_string(bundle.join("state.json")).unwrap();
    for (what, text) in [("report", &report), ("recording", &cast), ("bundle", &state)] {
        assert!(!text.contains("tape-secret"), "the {what} holds it:\n{text}");
    }
    // The shell echoes the last hidden typing (program output stays); the input does not.
    assert!(
        !cast.contains("\"i\",\"nope") && !cast.contains("Type \"nope"),
        "{cast}"
    );
    assert!(state.contains("Type <secret input, 11 characters>"), "{state}");
    assert!(cast.contains("Type <secret input, 11 characters>"), "{cast}");
    assert!(cast.contains("echo shown"), "shown typing is recorded: {cast}");
}

#[test]
fn an_export_waits_for_ready_where_the_session_found_the_program_waiting_and_nowhere_else() {
    let spec = StartSpec::new(
        [
            "sh",
            "-c",
            r#"read a; echo "got $a"; read b; echo "got $b"; sleep 600"#,
        ]
        .map(String::from),
    );
    let session = spec.spawn().unwrap();
    session.apply(&send("one", "Enter", None)).unwrap();
    // The agent looked later, when the program was reading again (outside the log).
    session.wait_ready().unwrap();
    session.apply(&send("two", "Enter", None)).unwrap();
    // At once: the program is still reading `two` or sleeping, busy either way.
    session.apply(&Operation::capture_text()).unwrap();
    // A settling send (`send --capture`, MCP's default) that met a busy program.
    let settle = common::with_timeout(send("", "Enter", Some(WaitFor::Settle)), 300);
    session.apply(&settle).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let ready: Vec<Option<bool>> = log.iter().map(|l| l.ready_before).collect();
    if ready[1].is_none() {
        eprintln!(
            "SKIPPED: the kernel cannot tell readiness here ({})",
            session.readiness()
        );
        return;
    }
    assert_eq!(&ready[1..3], &[Some(true), Some(false)], "{log:#?}");
    let tape = to_tape(&spec, &log, "ready", &ExportOptions::default())
        .unwrap()
        .tape;
    let lines: Vec<&str> = tape.lines().collect();
    let at = |line: &str| {
        lines
            .iter()
            .position(|l| *l == line)
            .unwrap_or_else(|| panic!("{line:?} in:\n{tape}"))
    };
    let (one, two) = (at(r#"Type "one""#), at(r#"Type "two""#));
    assert!(
        lines[one..two].contains(&"Wait+Ready"),
        "the second send waits for the program to read again:\n{tape}"
    );
    // (The snapshot waits for the rows it shows, which nothing before it saw: a replay
    // faster than the session must reach that screen first.)
    assert_eq!(
        lines[two..]
            .iter()
            .filter(|l| l.starts_with("Wait+Ready"))
            .count(),
        0,
        "no ready wait where the session found the program busy, nor for a settle that did not:\n{tape}"
    );
    assert!(
        log[3]
            .waited
            .as_deref()
            .is_some_and(|w| w.starts_with("not ready within ")),
        "{:?}",
        log[3].waited
    );
}

#[allow(dead_code)]
#[path = "../cli/examples/fuzz/export.rs"]
mod export_fuzz;
#[allow(dead_code)]
#[path = "../cli/examples/fuzz/rng.rs"]
mod rng;
use rng::Rng;

#[test]
fn any_generated_text_exports_and_parses_back_into_exactly_the_operations_logged() {
    // The fuzz harness's `export` target, over a fixed set of its inputs: typed, pasted,
    // pressed, waited for, an environment value, an argument and an error message.
    let mut rng = Rng(0x7e57_e4a0);
    for _ in 0..3000 {
        let text = export_fuzz::export_input(&mut rng);
        if let Err(why) = export_fuzz::check_export(&text) {
            panic!("{text:?}: {why}");
        }
    }
}

/// A directory of the tests' own, a bash in it, and the tape exported from what `drive`
/// did to it.
fn export_bash_session(dir: &Path, name: &str, drive: impl FnOnce(&tuipilot::Session)) -> std::path::PathBuf {
    let spec = StartSpec {
        env: vec![("PS1".into(), "$ ".into())],
        cwd: Some(dir.to_path_buf()),
        ..StartSpec::new(["bash", "--norc", "--noprofile"].map(String::from))
    };
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text(r"^\$$".into()))).unwrap();
    drive(&session);
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let options = ExportOptions {
        include_env: true,
        ..ExportOptions::default()
    };
    write_export(&spec, &log, dir, name, &options)
}

// Fails on the code before the one tape writer: the pasted lines became tape commands.
#[test]
fn a_pasted_payload_of_tape_commands_replays_as_pasted_text_and_runs_nothing() {
    let dir = common::TempDir::new("export-paste-injection");
    let marker = dir.0.join("PWN");
    let payload = format!("x\nType 'touch {}'\nEnter\n#", marker.display());
    let tape = export_bash_session(&dir.0, "paste", |bash| {
        bash.apply(&Operation::Send {
            steps: vec![Step::Paste(payload.clone()), Step::Keys("C-u".into())],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        })
        .unwrap();
        // bash's line editor takes the paste, Ctrl+U clears what is left on its line.
        bash.apply(&wait(WaitFor::Ready)).unwrap();
    });
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(text.contains(r#"Copy $"x\nType 'touch "#), "{text}");
    let report = run_file(&tape, &RunOptions::default());
    assert!(
        !marker.exists(),
        "the replay ran a command from the paste:\n{text}"
    );
    drop(report);
}

// Fails on the code before the one tape writer: the backtick fallback wrote a string
// that ended at its own backtick, and the tape could not run.
#[test]
fn a_typed_line_holding_every_quote_kind_and_a_carriage_return_replays() {
    let dir = common::TempDir::new("export-quotes");
    let tape = export_bash_session(&dir.0, "quotes", |bash| {
        bash.apply(&send(
            "echo \"it's `echo now`\"\r",
            "",
            Some(WaitFor::Text("^it's now$".into())),
        ))
        .unwrap();
        bash.apply(&wait(WaitFor::Text(r"^it's now\n\$$".into())))
            .unwrap();
    });
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(text.contains(r#"Type $"echo \"it's `echo now`\"\r""#), "{text}");
    run_file(&tape, &RunOptions::default()).unwrap();
}

// Fails on the code before: a raw literal took at most 7 hashes, and comments took line
// breaks; a printed `"########` closed the literal.
#[test]
fn every_rust_string_literal_is_exactly_its_text_as_rustc_reads_it() {
    let dir = common::TempDir::new("export-rust-literals");
    let mut rng = Rng(0x5eed_0042);
    let mut texts: Vec<String> = (0..400)
        .map(|_| String::from_utf8_lossy(&export_fuzz::export_input(&mut rng)).into_owned())
        .collect();
    texts.push("\"########; std::process::exit(3); r########\"".into());
    texts.push("\u{10ffff}\u{0}\u{7f}\\u{41}".into());
    let literals: Vec<String> = texts
        .iter()
        .map(|t| tuipilot::tape::export::rust_string(t))
        .collect();
    let source = format!(
        "const TEXTS: &[&str] = &[{}];\nfn main() {{ for t in TEXTS {{ let hex: Vec<String> = t.bytes().map(|b| format!(\"{{b:02x}}\")).collect(); println!(\"{{}}\", hex.join(\"\")); }} }}\n",
        literals.join(",\n")
    );
    let program = common::rustc::compile(&dir.0, "literals", &source, &[]);
    let out = std::process::Command::new(&program).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let printed = String::from_utf8(out.stdout).unwrap();
    let want: Vec<String> = texts
        .iter()
        .map(|t| t.bytes().map(|b| format!("{b:02x}")).collect())
        .collect();
    assert_eq!(printed.lines().collect::<Vec<_>>(), want);
}

#[test]
fn a_rust_export_of_hostile_text_compiles_and_holds_the_text_as_data() {
    let dir = common::TempDir::new("export-rust-compile");
    let hostile = "\"########;\n}\n#[test] fn injected() { std::process::exit(3) }\n// \u{202e}";
    let mut start = StartSpec::new(["cat", hostile]);
    start.env = vec![("TEXT".into(), hostile.into())];
    let logged = export_fuzz::logged;
    let typed = || Operation::Send {
        steps: vec![
            Step::Text(hostile.into()),
            Step::Paste(hostile.into()),
            Step::Keys("C-a comma #".into()),
        ],
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    };
    let log = vec![
        logged(typed(), None),
        logged(wait(WaitFor::Text(regex::escape(hostile))), None),
        logged(typed(), Some(hostile)),
    ];
    let options = ExportOptions {
        include_env: true,
        ..ExportOptions::default()
    };
    let rust = to_rust(&start, &log, "replays_hostile", &options).unwrap();
    assert!(
        !rust
            .lines()
            .any(|l| l.trim_start().starts_with("#[test] fn injected")),
        "{rust}"
    );
    // The library this test links against is the one the exported test would use.
    let mut extra = vec!["--test".to_string(), "--emit=metadata".to_string()];
    extra.extend(common::rustc::against_the_library());
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    common::rustc::compile(&dir.0, "hostile", &rust, &extra);
}

#[test]
fn an_export_snapshotting_a_screen_later_than_its_last_wait_waits_for_it_and_replays() {
    // The session's ready wait returned before a debounced redraw (a reaction bound of 0
    // waits out no timer, and says so); the agent captured later, with the redraw on the
    // screen. The export must not compare that capture with the screen its replay's
    // Wait+Ready returns: it waits for the row that changed. With the old export the
    // tape's snapshot ran against "nothing yet" and failed.
    let dir = common::TempDir::new("export-later");
    let spec = StartSpec {
        cwd: Some(dir.0.clone()),
        reaction_bound_ms: Some(0),
        ..StartSpec::new([
            common::fixture("deferred").display().to_string(),
            "--debounce".into(),
            "300".into(),
        ])
    };
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Ready)).unwrap();
    session.apply(&send("hi", "", Some(WaitFor::Ready))).unwrap();
    let log = session.operations();
    let why = log.last().and_then(|l| l.waited.clone()).unwrap_or_default();
    assert!(why.contains("may not be drawn yet"), "{why}");
    // The agent looked again later (outside the log).
    session.wait_for_text("typed: hi").unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = write_export(&spec, &log, &dir.0, "later", &ExportOptions::default());
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(text.contains("Set ReactionBound 0ms"), "{text}");
    let wait_line = text.lines().position(|l| l == "Wait+Screen /^typed: hi$/");
    let snapshot_line = text.lines().position(|l| l.starts_with("Snapshot "));
    assert!(
        wait_line.is_some() && wait_line < snapshot_line,
        "a wait for the later screen before the snapshot:\n{text}"
    );
    for run in 0..3 {
        let report = run_file(&tape, &RunOptions::default());
        assert!(report.is_ok(), "replay {run}:\n{text}\n{report:?}");
    }
}

#[needs(vim)]
#[test]
fn the_trials_vim_session_insert_text_esc_capture_exports_a_tape_that_passes_three_times() {
    // `send -k i -t x -k Esc --capture`, then `export`: the capture's wait waits out vim's
    // escape timeout, so its screen (normal mode) is what the replay's Wait+Ready returns.
    // Before, the send's screen showed `-- INSERT --` and `^[` while the export snapshotted
    // a later capture, and the replay failed 4 of 4.
    let dir = common::TempDir::new("export-vim-esc");
    let spec = StartSpec {
        cwd: Some(dir.0.clone()),
        ..StartSpec::new(["vim", "--clean", "-n", "-i", "NONE"].map(String::from))
    };
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Ready)).unwrap();
    let send_capture = Operation::Send {
        steps: vec![
            Step::Keys("i".into()),
            Step::Text("hello".into()),
            Step::Keys("Esc".into()),
        ],
        wait: Some(WaitFor::Settle),
        timeout_ms: None,
        capture: true,
        secret: false,
    };
    let reply = session.apply(&send_capture).unwrap();
    let seen = reply.screen().unwrap().text.clone();
    assert!(!seen.contains("-- INSERT --") && !seen.contains("^["), "{seen}");
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = write_export(&spec, &log, &dir.0, "vim-esc", &ExportOptions::default());
    let text = std::fs::read_to_string(&tape).unwrap();
    for run in 0..3 {
        let report = run_file(&tape, &RunOptions::default());
        assert!(report.is_ok(), "replay {run}:\n{text}\n{report:?}");
    }
}

/// A program that writes what it was started with — its arguments, folder, the `TEXT`
/// variable and every `TPN_` variable, NUL-separated — to `$DUMP`, says `dumped` and waits.
const DUMP_PROGRAM: &str = "import os,sys\nd=[b'ARGS']+[os.fsencode(a) for a in sys.argv[1:]]+[b'CWD',os.getcwdb(),b'TEXT',os.environb.get(b'TEXT',b'-')]\nd+=[k+b'='+v for k,v in sorted(os.environb.items()) if k.startswith(b'TPN_')]\nopen(os.environ['DUMP'],'wb').write(b'\\0'.join(d))\nprint('dumped')\nsys.stdin.read()\n";

// The property behind the fix for a replay typing the program's command line into a shell,
// whose line editor took a Ctrl+U in an argument as "discard the line" and ran the rest.
#[test]
fn any_generated_start_words_reach_the_replayed_program_byte_for_byte_and_run_nothing() {
    use std::os::unix::ffi::{OsStrExt, OsStringExt};
    let dir = common::TempDir::new("export-start-words");
    let mut rng = Rng(0x0a26_7e57);
    for round in 0..24 {
        let input = export_fuzz::export_input(&mut rng);
        let word = export_fuzz::start_word(&input);
        // A folder named after the input (no `/`, short enough for a file name).
        let mut folder: Vec<u8> = b"d-".to_vec();
        folder.extend(
            word.as_bytes()
                .iter()
                .map(|b| if *b == b'/' { b'_' } else { *b })
                .take(120),
        );
        let cwd = dir
            .0
            .join(format!("round-{round}"))
            .join(std::ffi::OsString::from_vec(folder));
        std::fs::create_dir_all(&cwd).unwrap();
        let dump = dir.0.join(format!("round-{round}.dump"));
        let spec = StartSpec {
            cwd: Some(cwd.clone()),
            env: vec![
                ("TEXT".into(), word.clone()),
                (export_fuzz::env_name(&input), word.clone()),
                ("DUMP".into(), dump.clone().into()),
            ],
            ..StartSpec::new(["python3".into(), "-c".into(), DUMP_PROGRAM.into(), word.clone()])
        };
        let session = spec.spawn().unwrap();
        session.apply(&wait(WaitFor::Text("^dumped$".into()))).unwrap();
        session.apply(&Operation::capture_text()).unwrap();
        let log = session.operations();
        session.exit().unwrap();
        let seen = std::fs::read(&dump).unwrap();
        std::fs::remove_file(&dump).unwrap();
        let options = ExportOptions {
            include_env: true,
            in_place: true,
            ..ExportOptions::default()
        };
        let tape = write_export(&spec, &log, &dir.0, &format!("round-{round}"), &options);
        let report = run_file(&tape, &RunOptions::default());
        let text = String::from_utf8_lossy(&std::fs::read(&tape).unwrap()).into_owned();
        assert!(
            report.is_ok(),
            "{input:?}: the export replays:\n{text}\n{report:?}"
        );
        let replayed = std::fs::read(&dump).unwrap();
        assert!(
            replayed == seen,
            "{input:?}: the replayed program was started with\n{:?}\nnot\n{:?}\n{text}",
            String::from_utf8_lossy(&replayed),
            String::from_utf8_lossy(&seen)
        );
    }
    // The generator's `touch PWN` never ran: no such file anywhere the replays started.
    let mut folders = vec![dir.0.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            assert_ne!(
                path.file_name().unwrap(),
                "PWN",
                "a replay ran a command: {}",
                path.display()
            );
            if path.is_dir() {
                folders.push(path);
            }
        }
    }
}

// Fails on the code before: a failed operation's error message, which an export writes as a
// comment, kept the redacted text (`# left out, it failed: wait text /<redacted>|nothing/
// (… matching /hunter77|nothing/ …)`).
#[test]
fn a_redacted_text_appears_nowhere_an_export_writes_it() {
    use std::os::unix::ffi::OsStringExt;
    let secret = "hunter77";
    let with_bytes = |before: &[u8]| {
        let mut word = before.to_vec();
        word.extend_from_slice(secret.as_bytes());
        word.push(0xff);
        std::ffi::OsString::from_vec(word)
    };
    let start = StartSpec {
        cwd: Some(std::path::PathBuf::from(with_bytes(b"/srv/"))),
        env: vec![("TOKEN".into(), with_bytes(b"t-"))],
        ..StartSpec::new(["prog".into(), with_bytes(b"--key=")])
    };
    let text = format!("say {secret} now");
    let pattern = format!("{secret}|nothing");
    let mut failed = export_fuzz::logged(
        wait(WaitFor::Text(pattern.clone())),
        Some(&format!(
            "timed out after 1000 ms waiting for text matching /{pattern}/; closest line: {secret}"
        )),
    );
    failed.waited = Some(format!("timeout: /{pattern}/"));
    failed.source = Some(format!("t.tape:3 Wait /{pattern}/"));
    let mut captured = export_fuzz::logged(Operation::capture_text(), None);
    captured.screen = Some(format!("$ echo {secret}\n{secret}"));
    let log = vec![
        export_fuzz::logged(send(&text, "Enter", Some(WaitFor::Line(pattern.clone()))), None),
        export_fuzz::logged(
            Operation::Send {
                steps: vec![
                    Step::Paste(text.clone()),
                    Step::Bytes(with_bytes(b"\xfe").into_vec()),
                    Step::Type {
                        text: text.clone(),
                        pause_ms: 5,
                    },
                ],
                wait: None,
                timeout_ms: None,
                capture: false,
                secret: false,
            },
            None,
        ),
        failed,
        export_fuzz::logged(wait(WaitFor::Output(pattern.clone())), None),
        captured,
    ];
    let redact = |in_place| {
        let mut options = ExportOptions::new(true, &[secret.to_string()]).unwrap();
        options.in_place = in_place;
        options
    };
    for in_place in [false, true] {
        let tape = to_tape(&start, &log, "s", &redact(in_place)).unwrap();
        let written = [tape.tape.clone(), tape.snapshot.clone().unwrap().1].concat();
        assert!(!written.contains(secret), "{secret} in:\n{written}");
        assert!(
            written.contains("# left out, it failed: wait text /<redacted>|nothing/"),
            "{written}"
        );
        let rust = to_rust(&start, &log, "replays", &redact(in_place)).unwrap();
        assert!(!rust.contains(secret), "{secret} in:\n{rust}");
        // Each place still says where something was taken out.
        assert!(written.matches("<redacted>").count() >= 9, "{written}");
    }
}

// Fails on the code before: bytes that were not UTF-8 became a comment, and the replay sent
// the program something else than the session did.
#[test]
fn input_that_is_not_utf8_replays_as_the_same_bytes() {
    let dir = common::TempDir::new("export-raw-bytes");
    let program = "import os,sys,tty\ntty.setraw(0)\nsys.stdout.write('ready\\r\\n'); sys.stdout.flush()\nb=b''\nwhile len(b)<6: b+=os.read(0,6-len(b))\nsys.stdout.write('got '+b.hex()+'\\r\\n'); sys.stdout.flush()\nos.read(0,1)\n";
    let spec = StartSpec::new(["python3", "-c", program]);
    let session = spec.spawn().unwrap();
    session.apply(&wait(WaitFor::Text("^ready$".into()))).unwrap();
    session
        .apply(&Operation::Send {
            steps: vec![Step::Bytes(b"a\xff\xfe\xc3b\x80".to_vec())],
            wait: Some(WaitFor::Text("^got ".into())),
            timeout_ms: None,
            capture: false,
            secret: false,
        })
        .unwrap();
    session.apply(&Operation::capture_text()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let tape = write_export(&spec, &log, &dir.0, "raw", &ExportOptions::default());
    let text = std::fs::read_to_string(&tape).unwrap();
    assert!(text.contains(r"\xff\xfe\xc3"), "{text}");
    assert!(
        std::fs::read_to_string(dir.0.join("raw.snap"))
            .unwrap()
            .contains("got 61fffec36280"),
        "the session's program got the bytes"
    );
    let report = run_file(&tape, &RunOptions::default());
    assert!(
        report.is_ok(),
        "the replay sends the same bytes:\n{text}\n{report:?}"
    );
}
