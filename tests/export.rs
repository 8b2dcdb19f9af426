//! A session driven through operations, exported as a tape, replays: `tuipilot::tape`
//! runs the exported tape and it passes; when the program's behaviour changes, it fails
//! with the snapshot's diff. The Rust export names the same steps.

mod common;

use std::path::Path;

use tuipilot::StartSpec;
use tuipilot::operation::{Operation, Step, WaitFor};
use tuipilot::tape::export::{to_rust, to_tape};
use tuipilot::tape::{RunOptions, run_file};

fn send(text: &str, keys: &str, wait: Option<WaitFor>) -> Operation {
    let mut steps = Vec::new();
    if !text.is_empty() {
        steps.push(Step::Text(text.into()));
    }
    if !keys.is_empty() {
        steps.push(Step::Keys(keys.into()));
    }
    Operation::Send {
        steps,
        wait,
        timeout_ms: None,
        capture: false,
    }
}

fn capture() -> Operation {
    Operation::Capture {
        wait: None,
        timeout_ms: None,
        ansi: false,
        scrollback: false,
        png: None,
        svg: None,
        text: true,
        mask: Vec::new(),
        scrolled_back: 0,
    }
}

fn wait(condition: WaitFor) -> Operation {
    Operation::Wait {
        condition,
        timeout_ms: None,
    }
}

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
    let exported = to_tape(spec, &log, name);
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
            capture(),
            send("1", "Enter", Some(WaitFor::Text("^picked 1$".into()))),
            capture(),
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
        text.contains("Mask /\\b\\d{1,2}:\\d{2}(:\\d{2})?\\b/"),
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

#[test]
fn a_vim_session_exported_replays() {
    if !common::have("vim") {
        return;
    }
    let dir = common::TempDir::new("export-vim");
    let spec = StartSpec {
        cwd: Some(dir.0.clone()),
        ..StartSpec::new(["vim", "-u", "NONE", "-N", "-i", "NONE", "-n", "notes.txt"].map(String::from))
    };
    let tape = drive_and_export(
        &spec,
        &[
            wait(WaitFor::Text("notes.txt".into())),
            send("ihello from an agent", "Escape", None),
            send(":w", "Enter", Some(WaitFor::Text("written".into()))),
            capture(),
        ],
        &dir.0,
        "vim",
    );
    std::fs::remove_file(dir.0.join("notes.txt")).unwrap();
    let text = std::fs::read_to_string(&tape).unwrap();
    let report = run_file(&tape, &RunOptions::default());
    assert!(report.is_ok(), "the exported tape replays:\n{text}\n{report:?}");
    assert_eq!(
        std::fs::read_to_string(dir.0.join("notes.txt")).unwrap(),
        "hello from an agent\n"
    );
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
    session.apply(&capture()).unwrap();
    let log = session.operations();
    session.exit().unwrap();
    let rust = to_rust(&spec, &log, "replays_bash");
    for piece in [
        "#[test]\nfn replays_bash() -> tuipilot::Result<()> {",
        "let s = Session::builder(r\"bash\")",
        r#"s.wait_timeout(&Condition::text(r"^\$$")?, s.timeout())?;"#,
        "let start = s.wait_start();",
        r#"s.send_text(r"echo hi")?;"#,
        r#"s.press_all(r"Enter".split(' '))?;"#,
        r#"s.wait_since_timeout(&start, &Condition::text(r"^hi$")?, s.timeout())?;"#,
        "let screen = s.snapshot().masked_all(&[])?;",
        "assert_eq!(screen.text().trim_end(), r\"$ echo hi\nhi\n$\");",
    ] {
        assert!(rust.contains(piece), "missing {piece:?} in:\n{rust}");
    }
}
