//! `tuipilot mcp` driven by rmcp's client over a child process's stdio.

#[path = "../../tests/common/mod.rs"]
mod common;

use std::time::Duration;

use serde_json::{Value, json};

#[path = "support/mcp.rs"]
mod mcp_client;
use mcp_client::{call, connect, error_code, image, is_error, texts};

#[tokio::test(flavor = "multi_thread")]
async fn the_tool_is_listed_with_its_schema() {
    let client = connect(&[]).await;
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools.len(), 1);
    let tool = &tools[0];
    assert_eq!(tool.name, "terminal");
    let description = tool.description.as_deref().unwrap();
    for needle in ["Enter", "wait_pattern", "PNG", "C-c"] {
        assert!(description.contains(needle), "description lacks {needle}");
    }
    let schema = Value::Object(tool.input_schema.as_ref().clone());
    for field in [
        "action",
        "session",
        "command",
        "cols",
        "rows",
        "cwd",
        "env",
        "keys",
        "text",
        "sleep_ms",
        "wait_pattern",
        "stable_ms",
        "timeout_ms",
        "image",
        "theme",
        "scale",
    ] {
        assert!(
            schema["properties"].get(field).is_some(),
            "schema lacks {field}: {schema}"
        );
    }
    assert_eq!(schema["required"], json!(["action"]));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_full_loop_on_bash() {
    let client = connect(&[]).await;
    let started = call(
        &client,
        json!({"action": "start", "command": ["bash", "--norc", "--noprofile"], "env": {"PS1": "$ "}}),
    )
    .await;
    assert!(!is_error(&started), "{:?}", texts(&started));
    let info = started.structured_content.clone().unwrap();
    assert_eq!(
        (info["cols"].as_u64(), info["rows"].as_u64()),
        (Some(80), Some(24))
    );
    let pid = info["pid"].as_i64().unwrap() as i32;

    let ready = call(&client, json!({"action": "wait", "wait_pattern": "^\\$$"})).await;
    assert!(!is_error(&ready), "{:?}", texts(&ready));
    let sent = call(
        &client,
        json!({"action": "send", "text": "echo hi", "keys": ["Enter"], "wait_pattern": "^hi$"}),
    )
    .await;
    assert!(!is_error(&sent), "{:?}", texts(&sent));
    assert!(texts(&sent)[0].lines().any(|l| l == "hi"), "{:?}", texts(&sent));

    let captured = call(&client, json!({"action": "capture"})).await;
    assert!(!is_error(&captured));
    assert!(
        texts(&captured)[0].lines().any(|l| l == "hi"),
        "{:?}",
        texts(&captured)
    );
    let png = image(&captured).expect("an image");
    let dir = common::TempDir::new("mcp-png");
    std::fs::write(dir.0.join("c.png"), &png).unwrap();
    let decoded = tuipilot::render::compare::load_png(dir.0.join("c.png")).unwrap();
    assert_eq!((decoded.width, decoded.height), (80 * 10 + 16, 24 * 19 + 16));
    let info = captured.structured_content.unwrap();
    assert_eq!(info["cursor"]["row"], 2);
    assert_eq!(info["exit_code"], Value::Null);

    let text_only = call(&client, json!({"action": "capture", "image": false})).await;
    assert!(image(&text_only).is_none());

    let exited = call(&client, json!({"action": "exit"})).await;
    assert!(!is_error(&exited));
    assert_eq!(exited.structured_content.unwrap()["signal"], "SIGHUP");
    assert!(common::wait_for_pid_exit(pid, Duration::from_secs(5)));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_restricts_programs() {
    let client = connect(&["--allow", "sh"]).await;
    let refused = call(&client, json!({"action": "start", "command": "bash"})).await;
    assert!(is_error(&refused));
    assert!(
        texts(&refused)[0].contains("`bash` is not allowed: this server only starts sh"),
        "{:?}",
        texts(&refused)
    );
    let allowed = call(
        &client,
        json!({"action": "start", "command": ["/bin/sh", "-c", "sleep 600"]}),
    )
    .await;
    assert!(!is_error(&allowed), "{:?}", texts(&allowed));
    // A key holding `=` would reach the program as another variable; LESSSECURE changes
    // what an allowed `less` may run.
    for (key, why) in [
        ("LD_PRELOAD=/tmp/x.so", "not a variable name"),
        ("LESSSECURE", "may not be set"),
    ] {
        let refused = call(
            &client,
            json!({"action": "start", "session": "e", "command": "sh", "env": {key: "1"}}),
        )
        .await;
        assert!(
            is_error(&refused) && texts(&refused)[0].contains(why),
            "{key}: {:?}",
            texts(&refused)
        );
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn closing_the_client_ends_every_session() {
    let client = connect(&[]).await;
    let mut pids = Vec::new();
    for name in ["one", "two"] {
        let started = call(&client, json!({"action": "start", "session": name, "command": ["sh", "-c", "trap '' HUP; echo up; exec sleep 600"]})).await;
        pids.push(started.structured_content.unwrap()["pid"].as_i64().unwrap() as i32);
        call(
            &client,
            json!({"action": "wait", "session": name, "wait_pattern": "up"}),
        )
        .await;
    }
    let list = call(&client, json!({"action": "list"})).await;
    assert_eq!(
        list.structured_content.unwrap()["sessions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    client.cancel().await.unwrap();
    for pid in pids {
        assert!(
            common::wait_for_pid_exit(pid, Duration::from_secs(5)),
            "session {pid} outlived the server"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn captures_are_saved_only_with_an_artifact_dir() {
    let dir = common::TempDir::new("mcp-artifacts");
    let client = connect(&["--artifact-dir", dir.0.to_str().unwrap()]).await;
    let bad = call(
        &client,
        json!({"action": "start", "session": "a/../b", "command": "true"}),
    )
    .await;
    assert!(
        is_error(&bad) && texts(&bad)[0].contains("invalid session name"),
        "{:?}",
        texts(&bad)
    );
    let start = call(
        &client,
        json!({"action": "start", "session": "shot", "command": ["sh", "-c", "echo saved; exec sleep 600"]}),
    )
    .await;
    assert!(!is_error(&start));
    let captured = call(
        &client,
        json!({"action": "capture", "session": "shot", "wait_pattern": "saved"}),
    )
    .await;
    let path = captured.structured_content.unwrap()["png"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        path.ends_with("shot-0001.png") && std::path::Path::new(&path).exists(),
        "{path}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_is_recorded_only_into_the_artifact_dir() {
    let without = connect(&[]).await;
    let refused = call(
        &without,
        json!({"action": "start", "session": "r", "command": "bash", "record": "r.cast"}),
    )
    .await;
    assert!(
        is_error(&refused) && texts(&refused)[0].contains("--artifact-dir"),
        "{:?}",
        texts(&refused)
    );
    without.cancel().await.unwrap();

    let dir = common::TempDir::new("mcp-record");
    let client = connect(&["--artifact-dir", dir.0.to_str().unwrap()]).await;
    let start = call(
        &client,
        json!({"action": "start", "session": "r", "command": ["sh", "-c", "echo recorded; exec sleep 600"], "record": "../r.cast"}),
    )
    .await;
    assert!(!is_error(&start), "{:?}", texts(&start));
    let path = start.structured_content.unwrap()["recording"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        std::path::Path::new(&path).parent(),
        Some(dir.0.canonicalize().unwrap().as_path())
    );
    call(
        &client,
        json!({"action": "wait", "session": "r", "wait_pattern": "recorded"}),
    )
    .await;
    call(&client, json!({"action": "exit", "session": "r"})).await;
    let recording = tuipilot::record::Recording::read_file(&path).unwrap();
    assert!(recording.replay().unwrap().snapshot().text().contains("recorded"));
    assert!(
        recording
            .events
            .iter()
            .any(|e| e.kind == tuipilot::record::EventKind::Marker("wait text /recorded/".into())),
        "{:?}",
        recording.events
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn planted_fifos_and_links_in_the_artifact_dir_are_refused_or_replaced_never_written_through() {
    let dir = common::TempDir::new("mcp-planted");
    let victim = dir.0.join("victim");
    std::fs::write(&victim, "do not touch").unwrap();
    assert!(
        std::process::Command::new("mkfifo")
            .arg(dir.0.join("fifo.cast"))
            .status()
            .unwrap()
            .success()
    );
    std::fs::hard_link(&victim, dir.0.join("hard.cast")).unwrap();
    std::fs::hard_link(&victim, dir.0.join("p.tape")).unwrap();
    let client = connect(&["--artifact-dir", dir.0.to_str().unwrap()]).await;
    for (file, why) in [("fifo.cast", "FIFO"), ("hard.cast", "hard links")] {
        // A FIFO opened for writing would block the server until someone reads it.
        let refused = tokio::time::timeout(
            std::time::Duration::from_secs(20),
            call(
                &client,
                json!({"action": "start", "session": "p", "command": "sh", "record": file}),
            ),
        )
        .await
        .expect("the server answers at once");
        assert!(
            is_error(&refused) && texts(&refused)[0].contains(why),
            "{:?}",
            texts(&refused)
        );
        assert_eq!(error_code(&refused), "bad_request");
    }
    let start = call(
        &client,
        json!({"action": "start", "session": "p", "command": "sh"}),
    )
    .await;
    assert!(!is_error(&start), "{:?}", texts(&start));
    let export = call(&client, json!({"action": "export", "session": "p"})).await;
    assert!(!is_error(&export), "{:?}", texts(&export));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "do not touch");
    assert!(
        std::fs::read_to_string(dir.0.join("p.tape"))
            .unwrap()
            .contains("Exported from a tuipilot session")
    );
    call(&client, json!({"action": "exit", "session": "p"})).await;
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn export_returns_the_session_as_a_tape_and_writes_it_to_the_artifact_dir() {
    let dir = common::TempDir::new("mcp-export");
    let client = connect(&["--artifact-dir", dir.0.to_str().unwrap()]).await;
    call(
        &client,
        json!({"action": "start", "session": "ex", "command": ["bash", "--norc", "--noprofile"], "env": {"PS1": "$ "}}),
    )
    .await;
    call(
        &client,
        json!({"action": "wait", "session": "ex", "wait_pattern": "^\\$$"}),
    )
    .await;
    call(
        &client,
        json!({"action": "send", "session": "ex", "text": "echo from-mcp", "keys": "Enter", "wait_pattern": "^from-mcp$"}),
    )
    .await;
    call(
        &client,
        json!({"action": "capture", "session": "ex", "image": false}),
    )
    .await;
    let exported = call(&client, json!({"action": "export", "session": "ex"})).await;
    assert!(!is_error(&exported), "{:?}", texts(&exported));
    let tape = &texts(&exported)[0];
    for line in [
        "Type \"echo from-mcp\"",
        "Key Enter",
        "Wait+Screen /^from-mcp$/",
        "Snapshot ex",
    ] {
        assert!(tape.contains(line), "{line:?} in {tape}");
    }
    assert!(dir.0.join("ex.tape").exists() && dir.0.join("ex.snap").exists());
    let rust = call(
        &client,
        json!({"action": "export", "session": "ex", "rust": true}),
    )
    .await;
    assert!(texts(&rust)[0].contains("fn replays_ex() -> tuipilot::Result<()>"));
    // Checked by a replay before it is returned: this one replays.
    let verified = call(
        &client,
        json!({"action": "export", "session": "ex", "verify": true}),
    )
    .await;
    assert!(!is_error(&verified), "{:?}", texts(&verified));
    // The report: Markdown for the agent, the three files in the artifact directory.
    let report = call(&client, json!({"action": "report", "session": "ex"})).await;
    assert!(!is_error(&report), "{:?}", texts(&report));
    let markdown = &texts(&report)[0];
    assert!(markdown.starts_with("# • running — `ex`"), "{markdown}");
    assert!(markdown.contains("matched /^from-mcp$/ at row"), "{markdown}");
    for file in ["report.html", "report.md", "report.json"] {
        assert!(dir.0.join("ex-report").join(file).is_file(), "{file}");
    }
    // A recorded session exports from its recording after it ended.
    call(
        &client,
        json!({"action": "start", "session": "rec", "command": ["cat"], "record": "rec.cast"}),
    )
    .await;
    call(
        &client,
        json!({"action": "send", "session": "rec", "text": "kept in the recording", "keys": "Enter", "wait_pattern": "^kept in the recording\\nkept"}),
    )
    .await;
    call(&client, json!({"action": "exit", "session": "rec"})).await;
    let from = call(
        &client,
        json!({"action": "export", "session": "rec", "from": "rec.cast"}),
    )
    .await;
    assert!(!is_error(&from), "{:?}", texts(&from));
    assert!(
        texts(&from)[0].contains("Type \"kept in the recording\""),
        "{:?}",
        texts(&from)
    );
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn paste_is_sent_bracketed_and_keys_may_be_one_string() {
    let client = connect(&[]).await;
    let fixture = common::fixture("lineedit");
    call(&client, json!({"action": "start", "command": [fixture]})).await;
    call(&client, json!({"action": "wait", "wait_pattern": "^>$"})).await;
    let pasted = call(
        &client,
        json!({"action": "send", "paste": "hello\nworld", "wait_pattern": "pasted 11 bytes"}),
    )
    .await;
    assert!(!is_error(&pasted), "{:?}", texts(&pasted));
    let moved = call(
        &client,
        json!({"action": "send", "keys": "Home Right X", "wait_pattern": "^> hXelloworld$"}),
    )
    .await;
    assert!(!is_error(&moved), "{:?}", texts(&moved));
    let submitted = call(
        &client,
        json!({"action": "send", "keys": "End Enter", "wait_pattern": "^submitted: hXelloworld$"}),
    )
    .await;
    assert!(!is_error(&submitted), "{:?}", texts(&submitted));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn mistakes_get_the_same_codes_as_on_the_command_line() {
    let client = connect(&[]).await;
    call(
        &client,
        json!({"action": "start", "command": ["sh", "-c", "echo up; exec sleep 600"]}),
    )
    .await;
    let font = call(&client, json!({"action": "capture", "font_size": 500})).await;
    assert_eq!(error_code(&font), "bad_request");
    assert!(
        texts(&font)[0].contains("font size 500 px is out of range"),
        "{:?}",
        texts(&font)
    );
    let scale = call(&client, json!({"action": "capture", "scale": 9})).await;
    assert_eq!(error_code(&scale), "bad_request");
    let key = call(&client, json!({"action": "send", "keys": "Entr"})).await;
    assert_eq!(error_code(&key), "bad_request");
    let regex = call(&client, json!({"action": "wait", "wait_pattern": "("})).await;
    assert_eq!(error_code(&regex), "bad_request");
    let missing = call(
        &client,
        json!({"action": "start", "session": "x", "command": "no-such-program-tp"}),
    )
    .await;
    assert_eq!(error_code(&missing), "spawn_failed");
    let none = call(&client, json!({"action": "capture", "session": "nope"})).await;
    assert_eq!(error_code(&none), "no_session");
    client.cancel().await.unwrap();
}

/// A directory with an executable `cat` that leaves a mark when it runs: what an attacker
/// would plant to get past an allow-list.
struct Trap {
    dir: std::path::PathBuf,
    mark: std::path::PathBuf,
}

impl Trap {
    fn new(tag: &str) -> Trap {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("tp-trap-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mark = dir.join("ran");
        let fake = dir.join("cat");
        std::fs::write(
            &fake,
            format!("#!/bin/sh\ntouch {}\nexec sleep 600\n", mark.display()),
        )
        .unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        Trap { dir, mark }
    }
}

impl Drop for Trap {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_cannot_be_stepped_around() {
    let trap = Trap::new("mcp");
    let dir = trap.dir.to_str().unwrap();
    let client = connect(&["--allow", "cat", "--allow", "less"]).await;
    let fake = format!("{dir}/cat");
    let attempts = [
        (json!({"command": fake}), "is not allowed"),
        (
            json!({"command": "cat", "env": {"PATH": dir}}),
            "`PATH` may not be set",
        ),
        (json!({"command": "./cat", "cwd": dir}), "relative path"),
        (
            json!({"command": "cat", "env": {"LD_PRELOAD": format!("{dir}/x.so")}}),
            "`LD_PRELOAD` may not be set",
        ),
        (
            json!({"command": "less /etc/hostname", "env": {"LESSOPEN": format!("|touch {}; cat %s", trap.mark.display())}}),
            "`LESSOPEN` may not be set",
        ),
        (json!({"command": "cat", "cwd": dir}), "may not be chosen"),
    ];
    for (i, (start, expected)) in attempts.into_iter().enumerate() {
        let mut args = start.as_object().unwrap().clone();
        args.insert("action".into(), json!("start"));
        args.insert("session".into(), json!(format!("s{i}")));
        let result = call(&client, Value::Object(args)).await;
        assert_eq!(error_code(&result), "bad_request", "{start}");
        assert!(
            texts(&result)[0].contains(expected),
            "{start}: {:?}",
            texts(&result)
        );
    }
    assert!(!trap.mark.exists(), "a refused start ran the planted program");
    let allowed = call(&client, json!({"action": "start", "command": "cat"})).await;
    assert!(!is_error(&allowed), "{:?}", texts(&allowed));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_operator_can_allow_environment_keys_and_a_working_tree() {
    let trap = Trap::new("env");
    let dir = trap.dir.to_str().unwrap();
    let client = connect(&["--allow", "cat", "--allow-env", "GREETING", "--allow-cwd", dir]).await;
    let refused = call(
        &client,
        json!({"action": "start", "command": "cat", "env": {"OTHER": "x"}}),
    )
    .await;
    assert!(
        texts(&refused)[0].contains("only lets requests set GREETING"),
        "{:?}",
        texts(&refused)
    );
    let outside = call(&client, json!({"action": "start", "command": "cat", "cwd": "/"})).await;
    assert!(texts(&outside)[0].contains("is outside"), "{:?}", texts(&outside));
    let allowed = call(
        &client,
        json!({"action": "start", "command": "cat", "env": {"GREETING": "hi"}, "cwd": dir}),
    )
    .await;
    assert!(!is_error(&allowed), "{:?}", texts(&allowed));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_schema_advertises_the_real_limits() {
    let client = connect(&[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let schema = Value::Object(tools[0].input_schema.as_ref().clone());
    let limits = |field: &str| {
        let p = &schema["properties"][field];
        (p["minimum"].as_f64(), p["maximum"].as_f64())
    };
    assert_eq!(limits("cols"), (Some(10.0), Some(400.0)), "{schema}");
    assert_eq!(limits("rows"), (Some(2.0), Some(200.0)));
    assert_eq!(limits("scale"), (Some(1.0), Some(4.0)));
    assert_eq!(limits("font_size"), (Some(4.0), Some(128.0)));
    assert_eq!(limits("timeout_ms").1, Some(86_400_000.0));
    // Every default a wait uses is said where an agent reads the schema.
    let timeout = schema["properties"]["timeout_ms"]["description"]
        .as_str()
        .unwrap();
    let timeout = timeout.split_whitespace().collect::<Vec<_>>().join(" ");
    for default in ["else 10000", "up to 3000", "default: 2000"] {
        assert!(timeout.contains(default), "{default}: {timeout}");
    }
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn an_env_value_of_null_is_passed_on_from_the_servers_environment() {
    let dir = common::TempDir::new("mcp-env-by-name");
    let client = connect(&["--artifact-dir", &dir.0.display().to_string()]).await;
    // PATH is set wherever the tests run; the server inherits this process's.
    let path = std::env::var("PATH").unwrap();
    let started = call(
        &client,
        json!({"action": "start", "session": "e", "cols": 200, "command": ["sh", "-c", "echo \"path=$PATH\"; sleep 30"], "env": {"PATH": null}}),
    )
    .await;
    assert!(!is_error(&started), "{:?}", texts(&started));
    let shown = call(
        &client,
        json!({"action": "wait", "session": "e", "wait_pattern": "^path="}),
    )
    .await;
    let screen = texts(&shown)[0].clone();
    let first: String = path.chars().take(40).collect();
    assert!(screen.contains(&format!("path={first}")), "{screen}");
    let unset = call(
        &client,
        json!({"action": "start", "session": "u", "command": "true", "env": {"TUIPILOT_TEST_SURELY_UNSET": null}}),
    )
    .await;
    assert_eq!(error_code(&unset), "bad_request");
    assert!(texts(&unset)[0].contains("not set there"), "{:?}", texts(&unset));
    client.cancel().await.unwrap();
}

// Fails on the code before: the notifications came twice, in the structured content and
// in its copy as text.
#[tokio::test(flavor = "multi_thread")]
async fn notifications_come_once_in_a_reply() {
    let dir = common::TempDir::new("mcp-notifications");
    let client = connect(&["--artifact-dir", &dir.0.display().to_string()]).await;
    let started = call(
        &client,
        json!({"action": "start", "session": "n", "command": ["sh", "-c", "for i in 1 2 3; do printf '\\033]9;build step %s done\\007' $i; done; echo sent; sleep 30"]}),
    )
    .await;
    assert!(!is_error(&started), "{:?}", texts(&started));
    let reply = call(
        &client,
        json!({"action": "wait", "session": "n", "wait_pattern": "^sent$"}),
    )
    .await;
    let all = texts(&reply).join("\n") + &reply.structured_content.clone().unwrap_or_default().to_string();
    assert_eq!(all.matches("build step 3 done").count(), 1, "{all}");
    client.cancel().await.unwrap();
}
