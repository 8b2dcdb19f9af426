//! A reaction that may still be pending is said on every face in its ordinary output —
//! the command line's plain text (a line on stderr) and `--json` (a `pending` field),
//! MCP's reply text, a tape run's output — never a stale screen without a word; and so is
//! what a wait did not wait for (`unwaited`), apart.
//! (Python's warning is in python/tests, the library's in tests/readiness.rs.)
//!
//! The program: the `deferred` fixture with a 3 s debounce, beyond the 2 s reaction bound.

#[path = "../../tests/common/mod.rs"]
mod common;
#[path = "support/mcp.rs"]
mod mcp_client;
mod support;

use mcp_client::{call, connect, texts};
use serde_json::json;
use support::{Dir, text};

const SAID: &str = "the screen may not show the whole reaction yet";

fn start_debounced(dir: &Dir, name: &str) {
    let deferred = common::fixture("deferred");
    dir.ok(&[
        "start",
        "-s",
        name,
        "--wait-ready",
        "--",
        deferred.to_str().unwrap(),
        "--debounce",
        "3000",
    ]);
}

// Fails on the code before: plain output printed the stale screen with exit 0 and
// nothing on stderr; only --json's `waited` held the note.
#[test]
fn send_capture_and_wait_ready_say_a_pending_reaction_on_stderr_and_in_json() {
    let dir = Dir::new();
    start_debounced(&dir, "p");
    let out = dir.run(&["send", "-s", "p", "-t", "a", "--capture"]);
    assert_eq!(out.status.code(), Some(0));
    let said = text(&out.stderr);
    assert!(said.contains(SAID) && said.contains("is due in 3 s"), "{said}");
    assert!(
        text(&out.stdout).contains("read: 1"),
        "the screen is printed as it is"
    );
    let out = dir.run(&["send", "-s", "p", "-t", "b", "--wait-ready"]);
    assert!(text(&out.stderr).contains(SAID), "{}", text(&out.stderr));
    let reply = dir.json(&["send", "-s", "p", "-t", "c", "--wait-ready", "--json"]);
    let pending = reply["pending"]
        .as_str()
        .or(reply["screen"]["pending"].as_str())
        .unwrap_or("");
    assert!(
        pending.contains("a timer of deferred") && pending.contains("may not be drawn yet"),
        "{reply}"
    );
    let reply = dir.json(&["wait", "-s", "p", "--ready", "--json"]);
    assert!(
        reply.get("pending").is_none(),
        "no input since: nothing pending: {reply}"
    );
    dir.ok(&["exit", "-s", "p"]);
}

// What a wait skipped for what the session learnt is said too, apart from what is
// pending: on stderr in plain output, as `unwaited` in --json.
#[test]
fn a_timer_skipped_for_what_was_learnt_is_said_as_not_waited_for_not_as_pending() {
    let dir = Dir::new();
    let deferred = common::fixture("deferred");
    let deferred = deferred.to_str().unwrap();
    dir.ok(&[
        "start",
        "-s",
        "l",
        "--wait-ready",
        "--",
        deferred,
        "--debounce",
        "300",
        "--silent",
    ]);
    for key in ["a", "b", "c"] {
        let out = dir.run(&["send", "-s", "l", "-t", key, "--wait-ready"]);
        assert!(
            !text(&out.stderr).contains("note:"),
            "{key}: {}",
            text(&out.stderr)
        );
    }
    let out = dir.run(&["send", "-s", "l", "-t", "d", "--wait-ready"]);
    let said = text(&out.stderr);
    assert!(
        said.contains("tuipilot: note: not waited for, and may still draw: a timer of deferred")
            && !said.contains(SAID),
        "{said}"
    );
    // The next key re-arms the timer the program rests with: skipped as its own period,
    // for what was learnt too, and said so.
    let reply = dir.json(&["send", "-s", "l", "-t", "e", "--wait-ready", "--json"]);
    let unwaited = reply["unwaited"].as_str().unwrap_or("");
    assert!(
        unwaited.contains("drew nothing the last") && reply.get("pending").is_none(),
        "{reply}"
    );
    dir.ok(&["exit", "-s", "l"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_reply_says_a_pending_reaction_in_its_text() {
    let client = connect(&[]).await;
    let deferred = common::fixture("deferred");
    call(
        &client,
        json!({"action": "start", "session": "p", "command": [deferred, "--debounce", "3000"]}),
    )
    .await;
    call(
        &client,
        json!({"action": "wait", "session": "p", "wait_ready": true}),
    )
    .await;
    let sent = call(&client, json!({"action": "send", "session": "p", "text": "a"})).await;
    let said = texts(&sent);
    assert!(
        said.iter().any(|t| t.starts_with(&format!("note: {SAID}"))),
        "{said:?}"
    );
    call(&client, json!({"action": "exit", "session": "p"})).await;
    client.cancel().await.unwrap();
}

#[test]
fn a_tape_run_says_which_line_returned_with_a_pending_reaction() {
    let dir = Dir::new();
    let work = dir.work();
    let deferred = common::fixture("deferred");
    std::fs::write(
        work.join("p.tape"),
        format!(
            "Start {:?} \"--debounce\" \"3000\"\nWait+Ready\nType \"a\"\nWait+Ready\n",
            deferred.display().to_string()
        ),
    )
    .unwrap();
    let out = dir.run_in(&work, &["run", "p.tape"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let said = text(&out.stdout) + &text(&out.stderr);
    // The input and the wait after it run as one step, named by the input's line.
    assert!(
        said.contains(&format!("at p.tape:3:1: {SAID}: a timer of deferred")),
        "{said}"
    );
}
