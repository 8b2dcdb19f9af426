//! A replayed export starts the program as the session did — by its argument vector — on
//! every face that writes one: the command line's `export`, MCP's `export` under an
//! allow-list, and `export --from` of a recording made elsewhere (crafted). (`record` is in
//! `attach.rs`, where a person drives it.)
//!
//! Each fails on the code before: the export typed `clear && cd … && exec PROGRAM ARGS` into
//! the tape's interactive bash, whose line editor took a Ctrl+U inside an argument as
//! "discard the line so far" and ran the rest of the argument as a command.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/mcp.rs"]
mod mcp_client;
mod support;

use std::path::Path;

use mcp_client::{call, connect, is_error, texts};
use serde_json::json;
use support::{Dir, replays_and_runs_nothing, text};

/// An argument that, typed into bash, discards the line and runs `touch CANARY`.
fn hostile_argument(canary: &Path) -> String {
    format!("\u{15}touch {}; exit #", canary.display())
}

#[test]
fn a_cli_sessions_argument_holding_line_editing_keys_replays_as_an_argument() {
    let dir = Dir::new();
    let work = dir.work();
    let notes = work.join("notes.txt");
    std::fs::write(&notes, "first line of the notes\n").unwrap();
    let canary = work.join("PWN_ARGV");
    let argument = hostile_argument(&canary);
    dir.ok(&[
        "start",
        "-s",
        "inj",
        "--wait-ready",
        "--",
        "less",
        notes.to_str().unwrap(),
        &argument,
    ]);
    dir.ok(&["capture", "-s", "inj", "--wait", "first line of the notes"]);
    dir.ok(&[
        "export",
        "-s",
        "inj",
        "-o",
        work.join("inj.tape").to_str().unwrap(),
    ]);
    dir.ok(&["exit", "-s", "inj"]);
    let source = replays_and_runs_nothing(&dir, &work, "inj.tape", &canary);
    // Started by its words (inside the copy of the session's world), never typed.
    let start = source.lines().find(|l| l.starts_with("Start")).expect(&source);
    assert!(
        start.starts_with("Start+Dir \"inj.world/") && start.contains(" less "),
        "{source}"
    );
    assert!(
        source.contains(r"\u{15}touch "),
        "the argument is written escaped: {source}"
    );
    assert!(
        !source.contains("\nType "),
        "nothing is typed to start it: {source}"
    );
}

#[test]
fn an_argument_that_is_not_utf8_reaches_the_replayed_program_as_the_same_bytes() {
    use std::os::unix::ffi::OsStrExt;
    let dir = Dir::new();
    let work = dir.work();
    let argument = std::ffi::OsStr::from_bytes(b"caf\xe9 \xff\x1b[31m");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
        .args(["start", "-s", "bytes", "--wait-ready", "--", "python3", "-c"])
        .arg("import os,sys; print(os.fsencode(sys.argv[1]).hex()); sys.stdin.read()")
        .arg(argument)
        .env("TUIPILOT_DIR", &dir.0)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    let hex = "636166e920ff1b5b33316d";
    dir.ok(&["capture", "-s", "bytes", "--wait", hex]);
    dir.ok(&[
        "export",
        "-s",
        "bytes",
        "-o",
        work.join("bytes.tape").to_str().unwrap(),
    ]);
    dir.ok(&["exit", "-s", "bytes"]);
    let source = replays_and_runs_nothing(&dir, &work, "bytes.tape", &work.join("none"));
    assert!(source.contains(r#"$"caf\xe9 \xff\e[31m""#), "{source}");
    assert!(
        std::fs::read_to_string(work.join("bytes.snap"))
            .unwrap()
            .contains(hex)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_session_under_an_allow_list_replays_its_argument_as_an_argument() {
    let dir = Dir::new();
    let work = dir.work();
    let notes = work.join("notes.txt");
    std::fs::write(&notes, "first line of the notes\n").unwrap();
    let canary = work.join("PWN_MCP");
    let client = connect(&["--allow", "less", "--artifact-dir", work.to_str().unwrap()]).await;
    let started = call(
        &client,
        json!({"action": "start", "session": "inj", "command": ["less", notes, hostile_argument(&canary)]}),
    )
    .await;
    assert!(!is_error(&started), "{:?}", texts(&started));
    let seen = call(
        &client,
        json!({"action": "capture", "session": "inj", "wait_pattern": "first line of the notes", "image": false}),
    )
    .await;
    assert!(!is_error(&seen), "{:?}", texts(&seen));
    let exported = call(&client, json!({"action": "export", "session": "inj"})).await;
    assert!(!is_error(&exported), "{:?}", texts(&exported));
    call(&client, json!({"action": "exit", "session": "inj"})).await;
    client.cancel().await.unwrap();
    // The replay runs what the allow-list allowed, and nothing else.
    let source = replays_and_runs_nothing(&dir, &work, "inj.tape", &canary);
    assert!(source.contains("\nStart"), "started by its words: {source}");
}

#[test]
fn a_crafted_recordings_start_replays_as_an_argument_vector() {
    let dir = Dir::new();
    let work = dir.work();
    let canary = work.join("PWN_CAST");
    // A recording made elsewhere: its start event names a program whose argument holds
    // Ctrl+U, ESC, DEL, Tab, CR and a line break, and no operation.
    let start = json!({
        "command": ["sh", "-c", "echo started; exec cat", format!("{}\u{1b}\u{7f}\t\r\ntouch {}", hostile_argument(&canary), canary.display())],
        "cols": 80,
        "rows": 24,
    });
    let cast = [
        json!({"version": 2, "width": 80, "height": 24}).to_string(),
        json!([0.0, "tuipilot.start", start.to_string()]).to_string(),
        json!([0.1, "o", "started\r\n"]).to_string(),
    ]
    .join("\n");
    std::fs::write(work.join("crafted.cast"), cast + "\n").unwrap();
    dir.ok(&[
        "export",
        "--from",
        work.join("crafted.cast").to_str().unwrap(),
        "-o",
        work.join("crafted.tape").to_str().unwrap(),
    ]);
    let source = replays_and_runs_nothing(&dir, &work, "crafted.tape", &canary);
    assert!(source.contains("\nStart sh \"-c\" "), "{source}");
}
