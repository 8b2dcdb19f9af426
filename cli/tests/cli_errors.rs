//! The command line's answers to mistakes and abuse: one-line errors with codes and exit
//! statuses, JSON errors, refused requests, limits, and what other users can see. Real
//! `tuipilot` processes, each test with its own runtime directory.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::process::Command;

use serde_json::Value;
use support::{Dir, start_bash, text};

#[test]
fn errors_have_codes_and_one_line_messages() {
    let dir = Dir::new();
    let check = |args: &[&str], code: i32, message: &str| {
        let out = dir.run(args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("tuipilot: ") || stderr.starts_with("error:"),
            "{args:?}: {stderr}"
        );
        assert!(stderr.contains(message), "{args:?}: {stderr}");
        stderr
    };
    check(
        &["capture", "-s", "nope"],
        2,
        "no session named `nope` (none is running): start one with `tuipilot start -s nope -- CMD`",
    );
    check(&["capture", "-s", "a/b"], 2, "invalid session name `a/b`");
    check(
        &["start", "--", "no-such-program-tuipilot"],
        2,
        "program `no-such-program-tuipilot` not found: searched PATH=",
    );
    check(
        &["start", "--env", "=v", "--", "sh"],
        2,
        "invalid --env `=v`: expected KEY=VALUE",
    );
    check(
        &["start", "--env", "TP_NOT_SET_ANYWHERE", "--", "sh"],
        2,
        "--env TP_NOT_SET_ANYWHERE: TP_NOT_SET_ANYWHERE is not set here",
    );
    check(
        &["start", "--cwd", "/no/such/dir", "--", "sh"],
        2,
        "is not a directory",
    );
    check(
        &["start", "--cols", "5", "--", "sh"],
        2,
        "terminal size 5x24 is out of range",
    );
    check(&["wait"], 2, "required");
    check(&["send", "--frobnicate"], 2, "unexpected argument");

    start_bash(&dir, "default");
    check(&["start", "--", "sh"], 2, "session `default` is already running");
    check(
        &["send", "-k", "Entr"],
        2,
        "unknown key `Entr`: did you mean Enter",
    );
    check(&["wait", "--text", "(unclosed"], 2, "invalid regex `(unclosed`");
    check(&["send"], 2, "nothing to send");
    check(&["resize", "--cols", "5", "--rows", "5"], 2, "out of range");

    // A wait that times out exits 1 and shows the screen and the closest line.
    dir.ok(&["send", "-t", "echo hello", "--wait", "hello"]);
    let report = check(
        &["wait", "--text", "echo hallo", "--timeout-ms", "200"],
        1,
        "timed out after",
    );
    assert!(report.contains("   0 | $ echo hello"), "{report}");
    assert!(
        report.contains("closest line: row 0: \"$ echo hello\""),
        "{report}"
    );
    dir.ok(&["send", "-k", "C-u"]);

    // A wait on a program that has exited fails at once, exit code 1.
    dir.ok(&["send", "-t", "exit 7", "-k", "Enter"]);
    assert_eq!(dir.ok(&["wait", "--exit"]).trim(), "exited with code 7");
    check(&["wait", "--text", "never"], 1, "the program exited with code 7");
    check(
        &["send", "-t", "x"],
        2,
        "cannot send input: the program exited with code 7",
    );
}

#[test]
fn json_errors_go_to_stdout() {
    let dir = Dir::new();
    let out = dir.run(&["capture", "-s", "nope", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(v["error"]["code"], "no_session");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no session named `nope`")
    );

    let out = dir.run(&["wait", "--json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(v["error"]["code"], "bad_request");

    start_bash(&dir, "j");
    let out = dir.run(&[
        "wait",
        "-s",
        "j",
        "--text",
        "zzz",
        "--timeout-ms",
        "100",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(v["error"]["code"], "timeout");
    assert!(v["error"]["report"].as_str().unwrap().contains("screen (80x24"));
}

#[test]
fn oversized_and_malformed_requests_are_refused() {
    let dir = Dir::new();
    start_bash(&dir, "default");
    let talk = |payload: &[u8]| -> Value {
        let mut stream = UnixStream::connect(dir.socket("default")).unwrap();
        stream.write_all(payload).unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap()
    };
    let mut huge = br#"{"id":1,"op":"send","actions":[{"text":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'x', (1 << 20) + 10));
    huge.extend_from_slice(b"\"}]}\n");
    let reply = talk(&huge);
    assert_eq!(reply["error"]["code"], "bad_request");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("request line longer than 1048576 bytes")
    );

    let reply = talk(b"{\"id\":5,\"op\":\"hello\",\"version\":99}\n");
    assert_eq!(reply["id"], 5);
    assert_eq!(reply["error"]["code"], "unsupported");
    let reply = talk(b"{\"id\":6,\"op\":\"teleport\"}\n");
    assert_eq!(reply["error"]["code"], "bad_request");
    let reply = talk(b"{\"id\":8,\"op\":\"capture\",\"png\":{\"path\":\"shot.png\"}}\n");
    assert_eq!(reply["error"]["code"], "bad_request", "{reply}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`shot.png` is a relative path"),
        "{reply}"
    );
    assert!(!dir.0.join("shot.png").exists());
    let reply = talk(b"{\"id\":7,\"op\":\"hello\",\"version\":1}\n");
    assert_eq!(reply["ok"]["version"], 1);
    assert!(
        reply["ok"]["capabilities"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "send")
    );
    // The host still serves after all that.
    dir.ok(&[
        "send",
        "-t",
        "echo still-here",
        "-k",
        "Enter",
        "--wait",
        "^still-here$",
    ]);
}

#[test]
fn an_unsafe_runtime_directory_is_refused() {
    let dir = Dir::new();
    std::fs::create_dir_all(&dir.0).unwrap();
    std::fs::set_permissions(&dir.0, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.run(&["list"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains(&format!("run `chmod 700 {}`", dir.0.display())),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn mistakes_get_the_same_codes_as_over_mcp() {
    let dir = Dir::new();
    start_bash(&dir, "default");
    let code_of = |args: &[&str]| {
        // Before any `--`, after which everything belongs to the program.
        let mut args = args.to_vec();
        args.insert(1, "--json");
        let out = dir.run(&args);
        let v: Value = serde_json::from_str(&text(&out.stdout)).expect("a JSON error");
        (
            out.status.code(),
            v["error"]["code"].as_str().unwrap_or_default().to_string(),
            v["error"]["message"].as_str().unwrap_or_default().to_string(),
        )
    };
    let (status, code, message) = code_of(&["capture", "--png", "--font-size", "500"]);
    assert_eq!((status, code.as_str()), (Some(2), "bad_request"), "{message}");
    assert!(
        message.contains("font size 500 px is out of range: use 4 to 128 px"),
        "{message}"
    );
    let (status, code, _) = code_of(&["capture", "--png", "--scale", "9"]);
    assert_eq!((status, code.as_str()), (Some(2), "bad_request"));
    let (status, code, _) = code_of(&["capture", "--png", "--theme", "sepia"]);
    assert_eq!((status, code.as_str()), (Some(2), "bad_request"));
    let (status, code, _) = code_of(&["send", "-k", "Entr"]);
    assert_eq!((status, code.as_str()), (Some(2), "bad_request"));
    let (status, code, _) = code_of(&["wait", "--text", "("]);
    assert_eq!((status, code.as_str()), (Some(2), "bad_request"));
    let (status, code, _) = code_of(&["start", "-s", "x", "--", "no-such-program-tp"]);
    assert_eq!((status, code.as_str()), (Some(2), "spawn_failed"));
}

#[test]
fn the_hosts_command_line_shows_no_environment_values() {
    let dir = Dir::new();
    let secret = format!("hunter2-{}", std::process::id());
    dir.ok(&[
        "start",
        "--env",
        &format!("TP_SECRET={secret}"),
        "--",
        "sh",
        "-c",
        "echo up; exec sleep 600",
    ]);
    let info = dir.json(&["list", "--json"]);
    let host = info[0]["host_pid"].as_i64().unwrap();
    let cmdline = std::fs::read(format!("/proc/{host}/cmdline")).unwrap();
    assert!(
        String::from_utf8_lossy(&cmdline).starts_with("tuipilot-host default"),
        "{:?}",
        String::from_utf8_lossy(&cmdline)
    );
    // No process at all (host, watchdog, program) shows the value in its command line.
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            assert!(
                !String::from_utf8_lossy(&cmdline).contains(&secret),
                "{:?} shows the secret: {:?}",
                entry.path(),
                String::from_utf8_lossy(&cmdline)
            );
        }
    }
}

#[test]
fn env_by_name_passes_the_value_on_without_any_command_line_holding_it() {
    let dir = Dir::new();
    let secret = format!("hunter3-{}", std::process::id());
    let mut client = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
        .args([
            "start",
            "--env",
            "TP_SECRET",
            "--",
            "sh",
            "-c",
            "echo \"[$TP_SECRET]\"; exec sleep 600",
        ])
        .env("TUIPILOT_DIR", &dir.0)
        .env("TP_SECRET", &secret)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Every process's command line, read while the client runs and after.
    let leaks = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .filter(|c| String::from_utf8_lossy(c).contains(&secret))
            .count()
    };
    let mut seen = 0;
    while client.try_wait().unwrap().is_none() {
        seen += leaks();
    }
    assert!(client.wait().unwrap().success());
    dir.ok(&["wait", "-s", "default", "--text", &format!("^\\[{secret}\\]$")]);
    assert_eq!(seen + leaks(), 0, "a command line held the value");
    let out = dir.run(&[
        "start",
        "-s",
        "unset",
        "--env",
        "TP_SURELY_UNSET_HERE",
        "--",
        "true",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("TP_SURELY_UNSET_HERE is not set here"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_png_too_large_to_draw_is_bad_input_and_the_host_survives() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "--cols",
        "1000",
        "--rows",
        "1000",
        "--",
        "sh",
        "-c",
        "echo up; exec sleep 600",
    ]);
    let out = dir.run(&["capture", "--png", "--scale", "4", "--font-size", "128", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let v: Value = serde_json::from_str(&text(&out.stdout)).unwrap();
    assert_eq!(v["error"]["code"], "bad_request");
    assert!(
        v["error"]["message"].as_str().unwrap().contains("megapixels"),
        "{v}"
    );
    // The host is still there and answers.
    assert!(dir.ok(&["capture"]).contains("up"));
}

#[test]
fn render_options_without_png_are_refused_not_ignored() {
    let dir = Dir::new();
    for args in [
        &["capture", "--theme", "light"][..],
        &["capture", "--scale", "2"],
        &["capture", "--font-size", "20"],
        &["once", "--theme", "light", "--", "true"],
    ] {
        let out = dir.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains("--png"),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn a_reader_that_goes_away_ends_the_output_quietly() {
    let dir = Dir::new();
    // The pipe's read end is closed before the binary has even started: its first write
    // fails with EPIPE.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tuipilot"))
        .arg("describe")
        .env("TUIPILOT_DIR", &dir.0)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
}

#[test]
fn a_non_utf8_argument_is_a_usage_error_not_a_panic() {
    use std::os::unix::ffi::OsStrExt;
    let dir = Dir::new();
    for json in [false, true] {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"));
        if json {
            command.arg("--json");
        }
        let out = command
            .args(["send", "--paste"])
            .arg(std::ffi::OsStr::from_bytes(b"\x9b"))
            .env("TUIPILOT_DIR", &dir.0)
            .output()
            .unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert!(
            (text(&out.stdout) + &stderr).contains("invalid UTF-8"),
            "{stderr}"
        );
    }
}

#[test]
fn an_exit_refused_as_bad_input_leaves_the_session_running() {
    let dir = Dir::new();
    dir.ok(&["start", "--", "sh", "-c", "echo up; exec sleep 600"]);
    dir.ok(&["wait", "--text", "^up$"]);
    let out = dir.run(&["exit", "--timeout-ms", "999999999999"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("too long"), "{}", text(&out.stderr));
    let info = dir.json(&["list", "--json"]);
    assert_eq!(info[0]["running"], true, "{info}");
    let exit = dir.json(&["exit", "--json"]);
    assert!(
        exit.to_string().contains("signal") || exit.to_string().contains("exit"),
        "{exit}"
    );
}

#[test]
fn a_session_not_found_names_the_sessions_that_are_running() {
    let dir = Dir::new();
    start_bash(&dir, "alpha");
    start_bash(&dir, "beta");
    let out = dir.run(&["capture", "-s", "alhpa"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no session named `alhpa` (running: alpha, beta): start one with"),
        "{stderr}"
    );
}

#[test]
fn a_tuipilot_flag_after_the_double_dash_is_pointed_out() {
    let dir = Dir::new();
    let out = dir.run(&[
        "start", "-s", "p", "--", "sh", "-c", "sleep 60", "sh", "--cols", "100",
    ]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("tuipilot: note: --cols went to the program; tuipilot's flags go before --"),
        "{stderr}"
    );
    // A program that stops at once over the option: its start line says it too.
    let out = dir.run(&["start", "-s", "q", "--", "ls", "--rows=30", "/"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--rows went to the program; tuipilot's flags go before --. `ls --rows=30 /` exited"),
        "{stderr}"
    );
    // A program's own flags that tuipilot does not have are nobody's business.
    let out = dir.run(&[
        "start",
        "-s",
        "r",
        "--",
        "sh",
        "-c",
        "sleep 60",
        "sh",
        "--verbose",
    ]);
    assert!(!text(&out.stderr).contains("note:"), "{}", text(&out.stderr));
}
