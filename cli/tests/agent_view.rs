//! An agent's view of a screen: how long it has been settled, which rows changed since
//! the previous capture, only those rows on request, and no trailing blank rows sent to a
//! model — through the CLI and through MCP; and the new inputs and waits through MCP.

mod support;

#[path = "support/mcp.rs"]
mod mcp_client;

use mcp_client::{call, connect, is_error, texts};
use serde_json::json;
use support::{Dir, start_bash};

#[test]
fn capture_json_says_how_settled_the_screen_is_and_which_rows_changed() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&["wait", "-s", "b", "--text", r"^\$$"]);
    let first = dir.json(&["capture", "-s", "b", "--json"]);
    assert!(first["settled_ms"].as_u64().is_some(), "{first}");
    let same = dir.json(&["capture", "-s", "b", "--json"]);
    assert_eq!(same["changed_rows"], json!([]), "{same}");
    dir.ok(&[
        "send",
        "-s",
        "b",
        "-t",
        "echo hello",
        "-k",
        "Enter",
        "--wait-command",
    ]);
    let after = dir.json(&["capture", "-s", "b", "--json"]);
    assert_eq!(after["changed_rows"], json!([0, 1, 2]), "{after}");
}

#[test]
fn capture_trim_leaves_out_the_blank_bottom_rows_and_the_default_keeps_them() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&["wait", "-s", "b", "--text", r"^\$$"]);
    let whole = dir.ok(&["capture", "-s", "b"]);
    assert_eq!(whole.lines().count(), 24, "every row by default: {whole:?}");
    let trimmed = dir.ok(&["capture", "-s", "b", "--trim"]);
    assert_eq!(trimmed, "$\n");
    let json = dir.json(&["capture", "-s", "b", "--trim", "--json"]);
    assert_eq!(json["text"], "$", "{json}");
    assert_eq!(json["empty_rows_below"], 23, "{json}");
    assert_eq!(
        json["cursor"],
        json!({"row": 0, "col": 2, "visible": true}),
        "{json}"
    );
}

#[test]
fn capture_changed_prints_a_header_and_only_the_changed_rows() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&["wait", "-s", "b", "--text", r"^\$$"]);
    dir.ok(&["capture", "-s", "b"]);
    dir.ok(&[
        "send",
        "-s",
        "b",
        "-t",
        "echo hello",
        "-k",
        "Enter",
        "--wait-command",
    ]);
    let view = dir.ok(&["capture", "-s", "b", "--changed"]);
    let lines: Vec<&str> = view.lines().collect();
    assert!(
        lines[0].starts_with("80x24 · cursor at row 2, col 2 · settled ") && lines[0].ends_with(" ms"),
        "{view}"
    );
    assert_eq!(
        &lines[1..],
        [
            "   0 | $ echo hello",
            "     ^ cols 2-11: text",
            "   1 | hello",
            "     ^ cols 0-4: text",
            "   2 | $",
            "     ^ col 0: text"
        ],
        "{view}"
    );
    let again = dir.ok(&["capture", "-s", "b", "--changed"]);
    assert!(again.ends_with("no rows changed\n"), "{again}");
    // A cleared screen: the blank rows at the bottom are one line with their count.
    dir.ok(&["send", "-s", "b", "-t", "clear", "-k", "Enter", "--wait-command"]);
    let cleared = dir.ok(&["capture", "-s", "b", "--changed"]);
    assert!(
        cleared.contains("   0 | $\n     ^ cols 2-11: text\n     | (2 empty rows, 1-2)"),
        "{cleared}"
    );
}

#[test]
fn send_capture_takes_captures_options_and_is_the_base_of_the_next_changed_capture() {
    let dir = Dir::new();
    start_bash(&dir, "b");
    dir.ok(&["wait", "-s", "b", "--text", r"^\$$"]);
    // --trim: the blank rows below are left out.
    let trimmed = dir.ok(&[
        "send",
        "-s",
        "b",
        "-t",
        "echo one",
        "-k",
        "Enter",
        "--capture",
        "--trim",
    ]);
    assert_eq!(trimmed, "$ echo one\none\n$\n", "{trimmed}");
    // The send's capture is the base: nothing changed since.
    let again = dir.ok(&["capture", "-s", "b", "--changed"]);
    assert!(again.ends_with("no rows changed\n"), "{again}");
    // --changed on the send itself (it implies --capture): only its rows.
    let changed = dir.ok(&["send", "-s", "b", "-t", "echo two", "-k", "Enter", "--changed"]);
    let lines: Vec<&str> = changed.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "   2 | $ echo two",
            "     ^ cols 2-9: text",
            "   3 | two",
            "     ^ cols 0-2: text",
            "   4 | $",
            "     ^ col 0: text"
        ],
        "{changed}"
    );
    // --json: the capture's fields, with why the send's wait ended and the trim's count.
    let json = dir.ok(&[
        "--json",
        "send",
        "-s",
        "b",
        "-t",
        "echo three",
        "-k",
        "Enter",
        "--trim",
    ]);
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(
        value["waited"]
            .as_str()
            .is_some_and(|w| w.starts_with("ready: bash")),
        "{json}"
    );
    assert_eq!(value["empty_rows_below"], 17, "{json}");
    assert!(value["text"].as_str().unwrap().ends_with("three\n$"), "{json}");
}

#[tokio::test(flavor = "multi_thread")]
async fn mcp_capture_sends_no_blank_rows_and_can_send_only_the_changes() {
    let client = connect(&[]).await;
    let started = call(
        &client,
        json!({"action": "start", "command": "bash --norc --noprofile", "env": {"PS1": "$ "}}),
    )
    .await;
    assert!(!is_error(&started), "{:?}", texts(&started));
    call(&client, json!({"action": "wait", "wait_pattern": "^\\$$"})).await;
    let ran = call(
        &client,
        json!({"action": "send", "text": "echo hi; false", "keys": "Enter", "wait_command": true}),
    )
    .await;
    let info = ran.structured_content.clone().unwrap();
    assert_eq!(info["command_exit"], 1, "{info}");
    // The command's end (OSC 133;D) comes before bash draws its next prompt: the capture
    // waits for the prompt it shows.
    let capture = call(
        &client,
        json!({"action": "capture", "image": false, "wait_prompt": true}),
    )
    .await;
    let text = &texts(&capture)[0];
    assert_eq!(text, "$ echo hi; false\nhi\n$", "no trailing blank rows");
    let info = capture.structured_content.clone().unwrap();
    assert_eq!(info["empty_rows_below"], 21, "{info}");
    assert!(info["settled_ms"].is_u64(), "{info}");
    let changed = call(
        &client,
        json!({"action": "send", "text": "echo more", "keys": "Enter", "wait_command": true}),
    )
    .await;
    assert!(!is_error(&changed));
    let only = call(
        &client,
        json!({"action": "capture", "image": false, "changed_only": true, "wait_prompt": true}),
    )
    .await;
    let view = &texts(&only)[0];
    assert!(
        view.starts_with("80x24 · cursor at row 4, col 2 · settled "),
        "{view}"
    );
    assert!(
        view.ends_with(
            " ms\n   2 | $ echo more\n     ^ cols 2-10: text\n   3 | more\n     ^ cols 0-3: text\n   4 | $\n     ^ col 0: text"
        ),
        "{view}"
    );
    // A mouse action on a program that did not enable the mouse is a bad request.
    let clicked = call(&client, json!({"action": "send", "mouse": "click 1,1"})).await;
    assert!(is_error(&clicked));
    assert!(
        texts(&clicked)[0].contains("has not enabled mouse reporting"),
        "{:?}",
        texts(&clicked)
    );
    call(&client, json!({"action": "exit"})).await;
    client.cancel().await.unwrap();
}

#[test]
fn a_new_session_reports_every_row_as_changed_before_its_first_capture() {
    let dir = Dir::new();
    dir.ok(&["start", "-s", "n", "--", "sh", "-c", "echo ready; exec cat"]);
    let reply = dir.json(&["wait", "-s", "n", "--text", "^ready", "--json"]);
    assert_eq!(reply["changed_rows"].as_array().unwrap().len(), 24, "{reply}");
    // A wait's reply does not become the base: the first capture still sees every row.
    let first = dir.json(&["capture", "-s", "n", "--json"]);
    assert_eq!(first["changed_rows"].as_array().unwrap().len(), 24, "{first}");
    let second = dir.json(&["capture", "-s", "n", "--json"]);
    assert_eq!(second["changed_rows"], json!([]), "{second}");
}

// Fails on the code before: --changed gave the rows alone, so a highlight that moved
// between two rows of the same text said nothing of where or what; and it refused --png.
#[test]
fn capture_changed_says_which_columns_changed_and_whether_only_their_style_did() {
    let dir = Dir::new();
    let script = "printf '\\033[7mone\\033[0m\\ntwo\\n'; read x; printf '\\033[H\\033[0mone\\n\\033[7mtwo\\033[0m\\n'; read y";
    dir.ok(&["start", "-s", "m", "--", "sh", "-c", script]);
    dir.ok(&["wait", "-s", "m", "--text", "^two$"]);
    dir.ok(&["capture", "-s", "m"]);
    dir.ok(&["send", "-s", "m", "-k", "Enter", "--wait-ready"]);
    let png = dir.0.join("m.png");
    let view = dir.ok(&["capture", "-s", "m", "--changed", "--png", png.to_str().unwrap()]);
    let lines: Vec<&str> = view.lines().collect();
    assert_eq!(
        &lines[1..5],
        [
            "   0 | one",
            "     ^ cols 0-2: style (now default)",
            "   1 | two",
            "     ^ cols 0-2: style (now inverse)"
        ],
        "{view}"
    );
    assert_eq!(lines.last().copied(), Some(png.to_str().unwrap()), "{view}");
    assert!(png.is_file());
    let json = dir.json(&["capture", "-s", "m", "--json"]);
    assert_eq!(json["changed_rows"], serde_json::json!([]), "{json}");
}

#[test]
fn capture_names_the_highlighted_row_and_changes_carry_the_rows_text() {
    // Fails on the code before: the selection showed only in an ANSI capture, and
    // `changes[].text` was a boolean.
    let dir = Dir::new();
    let menu = "printf 'Pick one\\n  Apples\\n\\033[7m  Bananas       \\033[0m\\n  Cherries\\n'; read x; printf '\\033[3;1H  Bananas       \\n\\033[7m  Cherries      \\033[0m\\n'; read y";
    support::start_sh(&dir, "menu", menu);
    dir.ok(&["wait", "-s", "menu", "--text", "Cherries"]);
    let view = dir.ok(&["capture", "-s", "menu", "--changed"]);
    assert!(
        view.lines()
            .next()
            .unwrap()
            .contains("highlighted row 2 (inverse)"),
        "{view}"
    );
    dir.ok(&["send", "-s", "menu", "-k", "Enter", "--wait-ready"]);
    let json = dir.json(&["capture", "-s", "menu", "--changed", "--json"]);
    assert_eq!(
        json["highlighted"],
        json!([{"row": 3, "style": "inverse"}]),
        "{json}"
    );
    let changes = json["changes"].as_array().unwrap();
    let row3 = changes.iter().find(|c| c["row"] == 3).expect("row 3 changed");
    assert_eq!(row3["text"], "  Cherries", "{json}");
    assert_eq!(row3["text_changed"], false, "{json}");
}

#[test]
fn blank_rows_that_only_changed_style_are_one_line_in_capture_changed() {
    // Fails on the code before: each restyled blank row was a line and its note.
    let dir = Dir::new();
    let repaint = "printf 'title\\n'; read x; printf '\\033[44m'; for i in 1 2 3 4 5 6; do printf '%40s\\n' ''; done; printf '\\033[0mend\\n'; read y";
    support::start_sh(&dir, "bg", repaint);
    dir.ok(&["wait", "-s", "bg", "--text", "^title$"]);
    dir.ok(&["capture", "-s", "bg"]);
    dir.ok(&["send", "-s", "bg", "-k", "Enter", "--wait", "^end$"]);
    let view = dir.ok(&["capture", "-s", "bg", "--changed"]);
    assert!(
        view.contains("   2-7 | (blank)\n     ^ cols 0-39: style (now bg=blue (4)), blank cells"),
        "{view}"
    );
    assert!(view.lines().count() <= 6, "{view}");
}

#[test]
fn send_takes_text_that_starts_with_a_dash() {
    // Fails on the code before: `-t -5` was refused as an unknown flag.
    let dir = Dir::new();
    support::start_sh(&dir, "dash", "read a; echo \"got[$a]\"; read b");
    dir.ok(&[
        "send",
        "-s",
        "dash",
        "-t",
        "- [ ] task",
        "-k",
        "Enter",
        "--wait",
        r"^got\[- \[ \] task\]$",
    ]);
}
