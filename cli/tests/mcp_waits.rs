//! Waits over MCP, through `tuipilot mcp` driven by rmcp's client: a timeout is a tool
//! error carrying the screen; output, absence, exit and readiness waits; a send with no wait
//! of its own returns once the program has reacted; every wait says why it ended.

use serde_json::json;

#[path = "support/mcp.rs"]
mod mcp_client;
use mcp_client::{call, connect, error_code, is_error, texts};

#[tokio::test(flavor = "multi_thread")]
async fn a_wait_timeout_is_a_tool_error_with_the_screen() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": "sh -c 'echo waiting here; exec sleep 600'"}),
    )
    .await;
    call(&client, json!({"action": "wait", "wait_pattern": "waiting"})).await;
    let result = call(
        &client,
        json!({"action": "wait", "wait_pattern": "never", "timeout_ms": 200}),
    )
    .await;
    assert!(is_error(&result));
    let text = texts(&result).join("\n");
    assert!(
        text.contains("timed out after") && text.contains("   0 | waiting here"),
        "{text}"
    );
    let sent = call(
        &client,
        json!({"action": "send", "text": "x", "wait_pattern": "never", "timeout_ms": 200}),
    )
    .await;
    // A send whose wait times out fails exactly like a wait that times out.
    assert!(is_error(&sent), "{:?}", texts(&sent));
    let text = texts(&sent).join("\n");
    assert!(
        text.contains("timed out after") && text.contains("   0 | waiting here"),
        "{text}"
    );
    assert_eq!(error_code(&sent), "timeout");
    let bad = call(&client, json!({"action": "send", "keys": ["Entr"]})).await;
    assert!(
        is_error(&bad) && texts(&bad)[0].contains("did you mean Enter"),
        "{:?}",
        texts(&bad)
    );
    let missing = call(&client, json!({"action": "capture", "session": "nope"})).await;
    assert!(is_error(&missing) && texts(&missing)[0].contains("no session named `nope`"));
    let big = call(
        &client,
        json!({"action": "start", "session": "big", "command": "true", "cols": 500}),
    )
    .await;
    assert!(
        is_error(&big) && texts(&big)[0].contains("400x200"),
        "{:?}",
        texts(&big)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn output_absence_and_exit_waits_work_over_mcp() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["sh", "-c", "printf 'busy\\n'; read x; printf '\\033[2Jdone %s\\n' \"$x\"; read y; exit 3"]}),
    )
    .await;
    let seen = call(&client, json!({"action": "wait", "wait_output": "^busy"})).await;
    assert!(!is_error(&seen), "{:?}", texts(&seen));
    let gone = call(
        &client,
        json!({"action": "send", "text": "ok", "keys": "Enter", "wait_absent": "busy"}),
    )
    .await;
    assert!(!is_error(&gone), "{:?}", texts(&gone));
    assert!(texts(&gone)[0].contains("done ok"), "{:?}", texts(&gone));
    let exited = call(
        &client,
        json!({"action": "send", "keys": "Enter", "wait_exit": true}),
    )
    .await;
    assert!(!is_error(&exited), "{:?}", texts(&exited));
    let status = call(&client, json!({"action": "wait", "wait_exit": true})).await;
    assert_eq!(status.structured_content.unwrap()["exit_code"], 3);
    let two = call(
        &client,
        json!({"action": "wait", "wait_exit": true, "stable_ms": 5}),
    )
    .await;
    assert_eq!(error_code(&two), "bad_request");
    assert!(texts(&two)[0].contains("one wait at a time"), "{:?}", texts(&two));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_ready_returns_once_the_program_has_answered_without_naming_the_answer() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["sh", "-c", "read x; sleep 0.3; printf 'answer %s\\n' \"$x\"; read y"]}),
    )
    .await;
    let first = call(&client, json!({"action": "wait", "wait_ready": true})).await;
    assert!(!is_error(&first), "{:?}", texts(&first));
    let answered = call(
        &client,
        json!({"action": "send", "text": "42", "keys": "Enter", "wait_ready": true}),
    )
    .await;
    assert!(!is_error(&answered), "{:?}", texts(&answered));
    assert!(
        texts(&answered)[0].contains("answer 42"),
        "{:?}",
        texts(&answered)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_send_without_a_wait_returns_the_screen_once_the_program_has_reacted() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["bash", "--norc", "--noprofile"], "env": {"PS1": "$ "}}),
    )
    .await;
    call(&client, json!({"action": "wait", "wait_prompt": true})).await;
    let late = call(
        &client,
        json!({"action": "send", "text": "sleep 0.3; echo late-$((40+2))", "keys": "Enter"}),
    )
    .await;
    assert!(!is_error(&late), "{:?}", texts(&late));
    assert!(texts(&late)[0].contains("\nlate-42\n$"), "{:?}", texts(&late));
    // Still busy at the bound: the screen as it is and why, not an error.
    let busy = call(
        &client,
        json!({"action": "send", "text": "sleep 30", "keys": "Enter", "timeout_ms": 300}),
    )
    .await;
    assert!(!is_error(&busy), "{:?}", texts(&busy));
    let all = texts(&busy).join("\n");
    assert!(all.contains("not ready within 300 ms: busy: sleep (pid"), "{all}");
    // Asked not to wait: sent, and back at once.
    let sent = call(
        &client,
        json!({"action": "send", "keys": "C-c", "wait_ready": false}),
    )
    .await;
    assert_eq!(texts(&sent), ["sent"]);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_mcp_wait_says_why_it_ended() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["sh", "-c", "echo one; echo two; read x"]}),
    )
    .await;
    let seen = call(&client, json!({"action": "wait", "wait_pattern": "^two$"})).await;
    assert_eq!(
        seen.structured_content.unwrap()["waited"],
        "matched /^two$/ at row 1"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_line_waits_for_the_cursors_row_as_the_other_faces_do() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": "sh -c 'echo name: above; printf \"name: \"; read x; printf \"got $x> \"; exec sleep 600'"}),
    )
    .await;
    // `name: above` matches the pattern too, but only the cursor's row counts.
    let result = call(&client, json!({"action": "wait", "wait_line": "^name: $"})).await;
    assert!(!is_error(&result), "{:?}", texts(&result));
    let sent = call(
        &client,
        json!({"action": "send", "text": "bob", "keys": "Enter", "wait_line": "^got bob> $", "timeout_ms": 5000}),
    )
    .await;
    // The row the Enter left the cursor on is empty for a moment; waiting for `^$` there
    // raced the program's reply, so the wait names the reply's own prompt.
    assert!(
        texts(&sent).join("\n").contains("got bob> "),
        "{:?}",
        texts(&sent)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_wrapped_joins_the_rows_the_terminal_wrapped() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "cols": 40, "command": ["sh", "-c", "echo /srv/builds/2026/release-candidate/artifacts/linux/x86_64/tuipilot.tar.gz; exec sleep 600"]}),
    )
    .await;
    let pattern = r"^/srv/builds/.*/x86_64/tuipilot\.tar\.gz$";
    let seen = call(&client, json!({"action": "wait", "wait_wrapped": pattern})).await;
    assert_eq!(
        seen.structured_content.unwrap()["waited"],
        format!("matched /{pattern}/ in the line wrapped over rows 0-1")
    );
    let rows = call(
        &client,
        json!({"action": "wait", "wait_pattern": pattern, "timeout_ms": 300}),
    )
    .await;
    assert!(
        is_error(&rows),
        "no one row holds the whole path: {:?}",
        texts(&rows)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn wait_in_rows_limits_wait_pattern_to_a_region() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["sh", "-c", "printf 'city\\nTokyo 37.4\\n'; printf '\\033[24;1Hsearch: Tokyo'; exec sleep 600"]}),
    )
    .await;
    let seen = call(
        &client,
        json!({"action": "wait", "wait_pattern": "Tokyo", "wait_in_rows": "0-22"}),
    )
    .await;
    assert_eq!(
        seen.structured_content.unwrap()["waited"],
        "text matching /Tokyo/ in rows 0-22 on the screen: held"
    );
    let outside = call(
        &client,
        json!({"action": "wait", "wait_pattern": "search", "wait_in_rows": "0-22", "timeout_ms": 300}),
    )
    .await;
    assert!(is_error(&outside));
    assert!(
        texts(&outside)
            .join("\n")
            .contains("outside the region (in rows 0-22)"),
        "{:?}",
        texts(&outside)
    );
    let alone = call(&client, json!({"action": "wait", "wait_in_rows": "0-22"})).await;
    assert!(
        texts(&alone)
            .join("\n")
            .contains("wait_in_rows and wait_in_cols limit wait_pattern"),
        "{:?}",
        texts(&alone)
    );
    client.cancel().await.unwrap();
}
