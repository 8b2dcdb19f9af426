//! The command line end to end: real `tuipilot` processes, each test with its own
//! runtime directory (`TUIPILOT_DIR`), so they run in parallel.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use support::{Dir, start_bash, text};

#[test]
fn the_agent_loop_on_bash() {
    let dir = Dir::new();
    let started = dir.json(&[
        "start",
        "--json",
        "--cols",
        "100",
        "--rows",
        "30",
        "--env",
        "PS1=$ ",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    assert_eq!(started["session"], "default");
    assert_eq!(
        (started["cols"].as_u64(), started["rows"].as_u64()),
        (Some(100), Some(30))
    );
    let pid = started["pid"].as_i64().unwrap() as i32;
    assert!(common::alive(pid));

    dir.ok(&["wait", "--text", r"^\$$"]);
    let screen = dir.ok(&[
        "send",
        "-t",
        "echo $((40 + 2))",
        "-k",
        "Enter",
        "--wait",
        "^42$",
        "--capture",
    ]);
    assert!(screen.lines().any(|l| l == "42"), "{screen}");
    dir.ok(&["wait", "--stable", "100"]);
    let cap = dir.json(&["capture", "--json"]);
    assert_eq!(cap["cols"], 100);
    assert_eq!(cap["rows"], 30);
    assert_eq!(cap["cursor"]["row"], 2);
    assert_eq!(cap["cursor"]["visible"], true);
    assert_eq!(cap["alternate_screen"], false);
    assert_eq!(cap["exit_code"], Value::Null);
    assert!(
        cap["text"]
            .as_str()
            .unwrap()
            .starts_with("$ echo $((40 + 2))\n42\n$")
    );

    dir.ok(&["resize", "--cols", "90", "--rows", "20"]);
    dir.ok(&[
        "send",
        "-t",
        "tput cols; tput lines",
        "-k",
        "Enter",
        "--wait",
        "^20$",
    ]);

    let status = dir.ok(&["exit"]);
    assert_eq!(status.trim(), "killed by SIGHUP");
    assert!(common::wait_for_pid_exit(pid, Duration::from_secs(5)));
    assert!(!dir.socket("default").exists(), "the socket is removed");
    assert!(!dir.0.join("default.log").exists(), "the log is removed");
    assert_eq!(dir.ok(&["list"]).trim(), "no sessions");
}

#[test]
fn send_with_wait_catches_an_instant_reply() {
    let dir = Dir::new();
    let keyecho = common::fixture("keyecho");
    dir.ok(&["start", "--", keyecho.to_str().unwrap()]);
    dir.ok(&["wait", "--text", "^ready"]);
    for i in 1..=20 {
        dir.ok(&[
            "send",
            "-t",
            "x",
            "--wait",
            &format!("^#{i} 78$"),
            "--timeout-ms",
            "10000",
        ]);
    }
}

#[test]
fn send_applies_actions_in_command_line_order() {
    let dir = Dir::new();
    let keyecho = common::fixture("keyecho");
    dir.ok(&["start", "--", keyecho.to_str().unwrap()]);
    dir.ok(&["wait", "--text", "^ready"]);
    dir.ok(&[
        "send",
        "-k",
        "Down",
        "-t",
        "ab",
        "--sleep-ms",
        "5",
        "-k",
        "Up,Enter",
        "--paste",
        "p",
        "-t",
        "z",
    ]);
    let screen = dir.ok(&["wait", "--output", "7a", "--json"]);
    let screen: Value = serde_json::from_str(&screen).unwrap();
    let received: Vec<String> = screen["text"]
        .as_str()
        .unwrap()
        .lines()
        .filter_map(|l| {
            l.strip_prefix('#')
                .and_then(|r| r.split_once(' '))
                .map(|(_, hex)| hex.to_string())
        })
        .collect();
    assert_eq!(received.join(" "), "1b 5b 42 61 62 1b 5b 41 0d 70 7a");
}

#[test]
fn two_sessions_side_by_side() {
    let dir = Dir::new();
    start_bash(&dir, "one");
    start_bash(&dir, "two");
    dir.ok(&[
        "send",
        "-s",
        "one",
        "-t",
        "echo first-session",
        "-k",
        "Enter",
        "--wait",
        "^first-session$",
    ]);
    dir.ok(&[
        "send",
        "-s",
        "two",
        "-t",
        "echo second-session",
        "-k",
        "Enter",
        "--wait",
        "^second-session$",
    ]);
    assert!(!dir.ok(&["capture", "-s", "one"]).contains("second-session"));
    assert!(!dir.ok(&["capture", "-s", "two"]).contains("first-session"));
    let list: Value = dir.json(&["list", "--json"]);
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["one", "two"]);
    let table = dir.ok(&["list"]);
    assert!(
        table.contains("one") && table.contains("running") && table.contains("bash --norc"),
        "{table}"
    );
}

#[test]
fn list_after_the_program_exits() {
    let dir = Dir::new();
    // A program that fails at once fails its start, with its status and last screen.
    let start = dir.run(&["start", "-s", "done", "--", "sh", "-c", "echo finished; exit 3"]);
    let stderr = text(&start.stderr);
    assert_eq!(start.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("`sh -c echo finished; exit 3` exited with code 3 before it was ready for input"),
        "{stderr}"
    );
    assert!(stderr.ends_with("finished\n"), "{stderr}");
    assert_eq!(
        dir.ok(&["wait", "-s", "done", "--exit"]).trim(),
        "exited with code 3"
    );
    let table = dir.ok(&["list"]);
    assert!(table.contains("exited with code 3"), "{table}");
    // The host outlives the program: the final screen is still there.
    assert!(dir.ok(&["capture", "-s", "done"]).starts_with("finished"));
    let cap = dir.json(&["capture", "-s", "done", "--json"]);
    assert_eq!(cap["exit_code"], 3);
    assert_eq!(dir.ok(&["exit", "-s", "done"]).trim(), "exited with code 3");
}

#[test]
fn a_host_killed_with_sigkill_leaves_nothing_behind() {
    let dir = Dir::new();
    // bash ignores nothing here, but its background job ignores SIGHUP.
    dir.ok(&["start", "--env", "PS1=$ ", "--", "bash", "--norc", "--noprofile"]);
    dir.ok(&["wait", "--text", r"^\$$"]);
    dir.ok(&[
        "send",
        "-t",
        "(trap '' HUP; exec sleep 1000) & echo job=$!",
        "-k",
        "Enter",
        "--wait",
        "^job=",
    ]);
    let screen = dir.ok(&["capture"]);
    let job: i32 = screen
        .lines()
        .find_map(|l| l.strip_prefix("job="))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let info = dir.json(&["list", "--json"]);
    let host = info[0]["host_pid"].as_i64().unwrap() as i32;
    let program = info[0]["pid"].as_i64().unwrap() as i32;
    assert!(common::alive(job) && common::alive(program));

    // SAFETY: signalling a process this test started.
    unsafe { libc::kill(host, libc::SIGKILL) };
    for pid in [program, job] {
        assert!(
            common::wait_for_pid_exit(pid, Duration::from_secs(5)),
            "process {pid} survived its host"
        );
    }
    // The dead host's socket is cleaned up by the next call that finds it.
    let out = dir.run(&["capture"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("is gone"), "{}", text(&out.stderr));
    assert_eq!(dir.ok(&["list"]).trim(), "no sessions");
    assert!(!dir.socket("default").exists());
}

#[test]
fn a_stale_socket_is_cleaned_up_and_the_name_reused() {
    let dir = Dir::new();
    std::fs::create_dir_all(&dir.0).unwrap();
    std::fs::set_permissions(&dir.0, std::fs::Permissions::from_mode(0o700)).unwrap();
    // A socket file with nobody listening, as a crashed host leaves it.
    drop(std::os::unix::net::UnixListener::bind(dir.socket("stale")).unwrap());
    assert!(dir.socket("stale").exists());
    let out = dir.run(&["capture", "-s", "stale"]);
    assert!(
        text(&out.stderr).contains("session `stale` is gone"),
        "{}",
        text(&out.stderr)
    );
    dir.ok(&[
        "start",
        "-s",
        "stale",
        "--",
        "sh",
        "-c",
        "echo reused; exec sleep 100",
    ]);
    dir.ok(&["wait", "-s", "stale", "--text", "^reused$"]);
}

#[test]
fn the_idle_timeout_stops_the_host_and_its_program() {
    let dir = Dir::new();
    let started = dir.json(&["start", "--json", "--idle-timeout", "1", "--", "sleep", "1000"]);
    let pid = started["pid"].as_i64().unwrap() as i32;
    assert!(
        common::wait_for_pid_exit(pid, Duration::from_secs(10)),
        "the idle host ended its program"
    );
    let out = dir.run(&["capture"]);
    assert_eq!(out.status.code(), Some(2));
}

fn green_screen() -> Dir {
    let dir = Dir::new();
    start_bash(&dir, "default");
    dir.ok(&[
        "send",
        "-t",
        "printf '\\033[42m green \\033[0m\\n'",
        "-k",
        "Enter",
        "--wait",
        "green",
    ]);
    dir
}

#[test]
fn capture_svg_writes_the_screen_as_svg_with_a_window_if_asked() {
    let dir = green_screen();
    let path = dir.0.join("shot.svg");
    let png = dir.0.join("shot.png");
    let out = dir.ok(&[
        "capture",
        "--svg",
        path.to_str().unwrap(),
        "--png",
        png.to_str().unwrap(),
        "--window",
        "--theme",
        "light",
    ]);
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [png.to_str().unwrap(), path.to_str().unwrap()]
    );
    let svg = std::fs::read_to_string(&path).unwrap();
    assert!(
        svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"816\" height=\"500\""),
        "{svg}"
    );
    assert!(svg.contains(">green</text>"));
    assert!(svg.contains("<circle"), "the window's buttons");
    let light = tuipilot::Theme::light().background;
    assert!(svg.contains(&format!(
        "fill=\"#{:02x}{:02x}{:02x}\"",
        light.0, light.1, light.2
    )));
    let reply = dir.json(&["capture", "--svg", path.to_str().unwrap(), "--json"]);
    assert_eq!(reply["svg"], path.to_str().unwrap());
    let out = dir.run(&["capture", "--window"]);
    assert_eq!(out.status.code(), Some(2), "--window needs --svg");
    let out = dir.run(&["capture", "--svg", "/no/such/dir/x.svg"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("/no/such/dir does not exist"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn capture_png_writes_numbered_or_named_files() {
    let dir = green_screen();
    let first = dir.ok(&["capture", "--png"]);
    let first = PathBuf::from(first.trim());
    assert_eq!(first, dir.0.join("default-0001.png"));
    let second = dir.ok(&["capture", "--png"]);
    assert_eq!(PathBuf::from(second.trim()), dir.0.join("default-0002.png"));
    let image = tuipilot::render::compare::load_png(&first).unwrap();
    assert_eq!((image.width, image.height), (80 * 10 + 16, 24 * 19 + 16));

    let named = dir.0.join("shot.png");
    let reply = dir.json(&[
        "capture",
        "--png",
        named.to_str().unwrap(),
        "--theme",
        "light",
        "--scale",
        "2",
        "--json",
    ]);
    assert_eq!(reply["png"], named.to_str().unwrap());
    assert_eq!(
        (reply["width"].as_u64(), reply["height"].as_u64()),
        (Some(2 * 816), Some(2 * 472))
    );
    assert!(reply["text"].as_str().unwrap().contains("green"));
    let image = tuipilot::render::compare::load_png(&named).unwrap();
    assert_eq!(image.pixel(0, 0), Some(tuipilot::Theme::light().background));

    let out = dir.run(&["capture", "--png", "--theme", "neon"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown theme `neon`: use one of dark, light"));
    let out = dir.run(&["capture", "--png", "/no/such/dir/x.png"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("/no/such/dir does not exist"),
        "{}",
        text(&out.stderr)
    );
    let fake = dir.0.join("fake.ttf");
    std::fs::write(&fake, "not a font").unwrap();
    let out = dir.run(&["capture", "--png", "--font", fake.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("not a TrueType/OpenType font"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn capture_with_scrollback_and_colours() {
    let dir = Dir::new();
    dir.ok(&[
        "start",
        "--rows",
        "10",
        "--",
        "sh",
        "-c",
        "seq 1 50; printf '\\033[31mred\\033[0m done'; exec sleep 600",
    ]);
    dir.ok(&["wait", "--text", "red done"]);
    let screen = dir.ok(&["capture"]);
    assert!(!screen.lines().any(|l| l == "1"), "row 1 scrolled off: {screen}");
    let history = dir.ok(&["capture", "--scrollback"]);
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(&lines[..3], ["1", "2", "3"], "{history}");
    assert!(history.contains("50\nred done"), "{history}");
    let ansi = dir.ok(&["capture", "--ansi"]);
    assert!(ansi.contains("\u{1b}[0;38;5;1mred\u{1b}[0m done"), "{ansi:?}");
}

#[test]
fn wait_no_text_waits_for_a_line_to_go() {
    let dir = Dir::new();
    start_bash(&dir, "default");
    dir.ok(&[
        "send",
        "-t",
        "echo busy; read x; clear",
        "-k",
        "Enter",
        "--wait",
        "^busy$",
    ]);
    let out = dir.run(&["wait", "--no-text", "^busy$", "--timeout-ms", "200"]);
    assert_eq!(out.status.code(), Some(1), "busy is still on the screen");
    dir.ok(&["send", "-k", "Enter"]);
    dir.ok(&["wait", "--no-text", "^busy$"]);
}

#[test]
fn an_isolated_session_gets_a_fresh_home_that_exit_removes() {
    let dir = Dir::new();
    let home = support::start_isolated(&dir, "iso");
    assert!(
        home.to_string_lossy().contains("tuipilot-home-"),
        "{}",
        home.display()
    );
    dir.ok(&["exit", "-s", "iso"]);
    assert!(
        support::eventually(std::time::Duration::from_secs(10), || !home.exists()),
        "{} outlived its session",
        home.display()
    );
}

#[test]
fn capture_masks_what_changes_between_runs() {
    let dir = Dir::new();
    support::start_sh(
        &dir,
        "clock",
        "echo \"pid $$ at $(date +%H:%M:%S) ready\"; sleep 600",
    );
    let text = dir.ok(&[
        "capture",
        "-s",
        "clock",
        "--wait",
        "ready$",
        "--mask",
        r"\d\d:\d\d:\d\d",
        "--mask",
        r"pid \d+",
    ]);
    // Whatever the pid's length, the row reads the same: one placeholder a match.
    assert_eq!(text.lines().next(), Some("[masked] at [masked] ready"), "{text}");
    let bad = dir.run(&["capture", "-s", "clock", "--mask", "("]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text_of(&bad.stderr).contains("invalid regex `(`"),
        "{}",
        text_of(&bad.stderr)
    );
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn list_info_and_tape_errors_show_escape_sequences_instead_of_sending_them_to_the_terminal() {
    let dir = Dir::new();
    // A command line holding an escape sequence that would set the operator's title.
    dir.ok(&[
        "start",
        "-s",
        "esc",
        "--",
        "sh",
        "-c",
        "sleep 60 # \x1b]0;pwned\x07",
    ]);
    for args in [&["list"][..], &["info", "-s", "esc"][..]] {
        let out = dir.ok(args);
        assert!(
            !out.contains('\x1b') && !out.contains('\x07'),
            "{args:?}: {out:?}"
        );
        assert!(out.contains(r"\e]0;pwned\x07"), "{args:?}: {out}");
    }
    dir.ok(&["exit", "-s", "esc"]);
    // A tape line holding one, in the error that quotes it.
    let work = dir.work();
    std::fs::write(
        work.join("t.tape"),
        "Set Shell bash\nWait@300ms /never\x1b]0;x\x07/\n",
    )
    .unwrap();
    let out = dir.run_in(&work, &["run", "t.tape"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains('\x1b') && !stderr.contains('\x07'), "{stderr:?}");
    assert!(stderr.contains(r"/never\e]0;x\x07/"), "{stderr}");
}

#[test]
fn start_reports_a_program_that_fails_at_once_and_wait_ready_returns_once_it_reads() {
    let dir = Dir::new();
    let bad = dir.run(&["start", "-s", "bad", "--", "bash", "--cwd", "/tmp"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
    assert!(
        text(&bad.stderr).contains("exited with code 2 before it was ready"),
        "{}",
        text(&bad.stderr)
    );
    dir.ok(&["exit", "-s", "bad"]);
    // A program that succeeds at once is fine: it was run for its output.
    dir.ok(&["start", "-s", "quick", "--", "sh", "-c", "echo output"]);
    dir.ok(&["exit", "-s", "quick"]);
    // --wait-ready: the prompt is there when start returns.
    dir.ok(&["start", "-s", "py", "--wait-ready", "--", "python3", "-q"]);
    let screen = dir.ok(&["capture", "-s", "py"]);
    assert!(screen.starts_with(">>>"), "{screen}");
    dir.ok(&["exit", "-s", "py"]);
}

#[test]
fn once_prints_the_screen_when_the_program_waits_for_input_or_has_exited() {
    let dir = Dir::new();
    // Quiet for 400 ms, then the answer: a 300 ms quiet period printed the empty screen.
    let out = dir.ok(&["once", "--", "sh", "-c", "sleep 0.4; echo late-answer; read x"]);
    assert!(out.starts_with("late-answer"), "{out:?}");
    // A program that is done is printed as it ended.
    let out = dir.ok(&["once", "--", "sh", "-c", "echo all done"]);
    assert!(out.starts_with("all done"), "{out:?}");
}
