//! The session host under hostile clients and races: vanished and slow clients free what
//! they held, a full host still answers `info` and `exit`, a name has one owner, a send is
//! one unit, and a host that dies or loses its socket is reported and cleaned up.

#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::io::Write;
use std::os::unix::net::UnixStream;
use std::time::Duration;

use common::wait_for_pid_exit;
use support::{Dir, eventually, start_bash, text};

/// The host's limit on requests in progress (`server::MAX_CONNECTIONS`).
const MAX_CONNECTIONS: usize = 32;

/// Starts as many clients as the host serves at once, each typing one `.` and then
/// waiting for text that never comes; returns once the host is full (a capture is
/// refused as busy).
fn fill_with_waiting_clients(dir: &Dir, name: &str) -> Vec<std::process::Child> {
    let waiter = || {
        dir.spawn(&[
            "send",
            "-s",
            name,
            "-t",
            ".",
            "--wait",
            "NEVER-SHOWN",
            "--timeout-ms",
            "600000",
        ])
    };
    let mut clients: Vec<_> = (0..MAX_CONNECTIONS).map(|_| waiter()).collect();
    let full = eventually(Duration::from_secs(30), || {
        // A client that arrived while this probe held a slot was told "busy": replace it.
        for client in clients.iter_mut() {
            if client.try_wait().ok().flatten().is_some() {
                *client = waiter();
            }
        }
        let out = dir.run(&["capture", "-s", name]);
        out.status.code() == Some(2) && text(&out.stderr).contains("busy")
    });
    assert!(full, "the host never filled up");
    clients
}

fn kill_all(clients: &mut [std::process::Child]) {
    for client in clients.iter_mut() {
        let _ = client.kill();
        let _ = client.wait();
    }
}

#[test]
fn a_client_killed_mid_wait_frees_its_request_at_once() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    let mut clients = fill_with_waiting_clients(&dir, "s");
    kill_all(&mut clients);
    // The waits had ten minutes left: only cancelling them on hang-up frees the host now.
    let served = eventually(Duration::from_secs(10), || {
        dir.run(&["capture", "-s", "s"]).status.code() == Some(0)
    });
    assert!(
        served,
        "the host still refuses requests after its waiting clients died"
    );
}

#[test]
fn a_full_host_still_answers_info_and_exit_and_says_busy_to_the_rest() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    let mut clients = fill_with_waiting_clients(&dir, "s");
    let info = dir.info("s");
    assert_eq!(info["running"], true, "{info}");

    let busy = dir.run(&["--json", "send", "-s", "s", "-t", "x"]);
    assert_eq!(busy.status.code(), Some(2));
    let error: serde_json::Value = serde_json::from_slice(&busy.stdout).expect("JSON error");
    assert_eq!(error["error"]["code"], "busy", "{error}");
    let message = error["error"]["message"].as_str().unwrap_or_default();
    assert!(!message.contains("request None"), "{message}");
    // Busy is not gone: neither `list` nor `start` may take the name from a live host.
    assert!(dir.socket("s").exists());
    let again = dir.run(&["start", "-s", "s", "--", "true"]);
    assert!(
        text(&again.stderr).contains("already running"),
        "{}",
        text(&again.stderr)
    );

    dir.ok(&["exit", "-s", "s", "--timeout-ms", "5000"]);
    for client in &mut clients {
        let status = client.wait().expect("client ends");
        assert_ne!(
            status.code(),
            Some(0),
            "a wait cut short by exit is not a success"
        );
    }
    assert!(!dir.socket("s").exists());
}

#[test]
fn a_connection_that_never_finishes_its_line_is_closed() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    // More half-written lines than the host serves at once, as a slow or hostile client
    // would leave them.
    let mut stuck: Vec<UnixStream> = (0..MAX_CONNECTIONS + 4)
        .map(|_| {
            let mut s = UnixStream::connect(dir.socket("s")).expect("connect");
            s.write_all(br#"{"id":1,"op":"#).expect("write half a line");
            s
        })
        .collect();
    let served = eventually(Duration::from_secs(20), || {
        dir.run(&["capture", "-s", "s"]).status.code() == Some(0)
    });
    assert!(served, "half-written lines hold the host");
    // The host closed them: reading gives EOF rather than blocking.
    let first = &mut stuck[0];
    first.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut buf = [0u8; 64];
    let n = std::io::Read::read(first, &mut buf).expect("EOF, not a timeout");
    assert_eq!(n, 0, "{}", text(&buf[..n]));
}

#[test]
fn timeouts_and_pauses_beyond_a_day_are_refused_not_clamped() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    for args in [
        &[
            "wait",
            "-s",
            "s",
            "--text",
            "x",
            "--timeout-ms",
            "18446744073709551615",
        ][..],
        &["send", "-s", "s", "--sleep-ms", "18446744073709551615"][..],
        &[
            "send",
            "-s",
            "s",
            "-t",
            "x",
            "--wait",
            "x",
            "--timeout-ms",
            "86400001",
        ][..],
    ] {
        let out = dir.run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains("is too long: the most is 86400000 ms"),
            "{args:?}: {stderr}"
        );
    }
    dir.ok(&["capture", "-s", "s"]);
}

#[test]
fn of_two_racing_starts_exactly_one_wins_and_the_loser_touches_nothing() {
    let dir = Dir::new();
    for round in 0..10 {
        let name = format!("r{round}");
        let args = ["start", "-s", &name, "--", "sleep", "600"];
        let mut racers = [dir.spawn(&args), dir.spawn(&args)];
        let outcomes: Vec<_> = racers
            .iter_mut()
            .map(|r| {
                let status = r.wait().unwrap();
                let mut stderr = String::new();
                std::io::Read::read_to_string(r.stderr.as_mut().unwrap(), &mut stderr).unwrap();
                (status.code(), stderr)
            })
            .collect();
        let won = outcomes.iter().filter(|(code, _)| *code == Some(0)).count();
        assert_eq!(won, 1, "round {round}: {outcomes:?}");
        let (_, loser) = outcomes.iter().find(|(code, _)| *code != Some(0)).unwrap();
        assert!(loser.contains("already running"), "round {round}: {loser}");
        // The winner's socket and log are intact and it answers.
        let info = dir.info(&name);
        assert_eq!(info["running"], true);
        assert!(
            dir.0.join(format!("{name}.log")).exists(),
            "round {round}: log gone"
        );
        dir.ok(&["exit", "-s", &name]);
    }
}

#[test]
fn a_host_whose_socket_is_removed_ends_its_program_and_removes_only_its_own_files() {
    let dir = Dir::new();
    dir.ok(&["start", "-s", "gone", "--", "sleep", "600"]);
    let pid = dir.info("gone")["pid"].as_i64().unwrap() as i32;
    std::fs::remove_file(dir.socket("gone")).unwrap();
    assert!(
        wait_for_pid_exit(pid, Duration::from_secs(10)),
        "the program outlived its host's socket"
    );

    // Replaced rather than removed: the host stops, and the file in its place stays.
    dir.ok(&["start", "-s", "moved", "--", "sleep", "600"]);
    let pid = dir.info("moved")["pid"].as_i64().unwrap() as i32;
    let other = dir.0.join("other");
    std::fs::write(&other, "not the host's").unwrap();
    std::fs::rename(&other, dir.socket("moved")).unwrap();
    assert!(wait_for_pid_exit(pid, Duration::from_secs(10)));
    assert_eq!(
        std::fs::read_to_string(dir.socket("moved")).unwrap(),
        "not the host's"
    );
    std::fs::remove_file(dir.socket("moved")).unwrap();
    // Nothing else of either host is left: no log, no lock.
    let left = || -> Vec<String> {
        std::fs::read_dir(&dir.0)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert!(
        eventually(Duration::from_secs(5), || left().is_empty()),
        "left behind: {:?}",
        left()
    );
}

#[test]
fn sends_from_two_clients_never_interleave() {
    let dir = Dir::new();
    let out = dir.0.join("lines.txt");
    dir.ok(&[
        "start",
        "-s",
        "cat",
        "--",
        "sh",
        "-c",
        &format!("stty -echo; exec cat > {}", out.display()),
    ]);
    let per_client = 100;
    std::thread::scope(|scope| {
        for who in ["A", "B"] {
            let dir = &dir;
            scope.spawn(move || {
                for _ in 0..per_client {
                    dir.ok(&[
                        "send", "-s", "cat", "-t", who, "-t", "line1", "-t", "end", "-k", "Enter",
                    ]);
                }
            });
        }
    });
    let complete = eventually(Duration::from_secs(20), || {
        std::fs::read_to_string(&out).is_ok_and(|t| t.lines().count() >= 2 * per_client)
    });
    let written = std::fs::read_to_string(&out).unwrap_or_default();
    assert!(complete, "only {} lines arrived", written.lines().count());
    for line in written.lines() {
        assert!(
            line == "Aline1end" || line == "Bline1end",
            "interleaved: {line:?}"
        );
    }
}

#[test]
fn a_client_whose_host_is_killed_mid_wait_says_the_host_died() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    let host = dir.info("s")["host_pid"].as_i64().unwrap();
    let client = dir.spawn(&[
        "send",
        "-s",
        "s",
        "-t",
        "marker-7",
        "--wait",
        "NEVER",
        "--timeout-ms",
        "600000",
    ]);
    dir.ok(&["wait", "-s", "s", "--text", "marker-7"]);
    // SAFETY: kill(2) on a pid this test started (through `start`).
    unsafe { libc::kill(host as i32, libc::SIGKILL) };
    let out = client.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(stderr.contains("the session's host died"), "{stderr}");
    assert!(!stderr.contains("lost the connection"), "{stderr}");
}

#[test]
fn a_killed_hosts_session_leaves_no_temporary_folder_behind() {
    // Fails on the code before: the session's fresh HOME (and its world's copy, removed
    // with it) stayed in the temporary folder when its host was SIGKILLed, no destructor
    // running.
    let dir = Dir::new();
    let home = support::start_isolated(&dir, "k");
    let host = dir.info("k")["host_pid"].as_i64().unwrap();
    // SAFETY: kill(2) on a pid this test started (through `start`).
    unsafe { libc::kill(host as i32, libc::SIGKILL) };
    assert!(
        support::eventually(std::time::Duration::from_secs(20), || !home.exists()),
        "{} is left after its host was killed",
        home.display()
    );
}

/// A fixture-free program: python3 writing `script`'s output, then idling.
fn python_then_idle(script: &str) -> String {
    format!("import sys, time\n{script}\nsys.stdout.flush()\ntime.sleep(600)")
}

#[test]
fn a_60000_line_scrollback_comes_back_whole() {
    let dir = Dir::new();
    let script = python_then_idle(
        "for n in range(1, 60001): sys.stdout.write(f'line {n:05} of a long build log, padded to about sixty bytes\\r\\n')\nsys.stdout.write('END')",
    );
    dir.ok(&[
        "start",
        "-s",
        "log",
        "--scrollback",
        "60000",
        "--",
        "python3",
        "-c",
        &script,
    ]);
    dir.ok(&["wait", "-s", "log", "--text", "^END$", "--timeout-ms", "60000"]);
    let text = dir.ok(&["capture", "-s", "log", "--scrollback"]);
    assert!(text.len() > 3_000_000, "{} bytes", text.len());
    assert!(text.contains("line 00001 of"), "the oldest line is missing");
    assert!(text.contains("line 60000 of"), "the newest line is missing");
}

#[test]
fn a_1000_by_1000_screen_of_two_byte_characters_comes_back_whole() {
    let dir = Dir::new();
    let script = python_then_idle("sys.stdout.write('é' * 1_000_000 + '\\x1b[1;1HDONE')");
    dir.ok(&[
        "start", "-s", "big", "--cols", "1000", "--rows", "1000", "--", "python3", "-c", &script,
    ]);
    dir.ok(&["wait", "-s", "big", "--text", "^DONE", "--timeout-ms", "60000"]);
    for ansi in [false, true] {
        let args: &[&str] = if ansi {
            &["capture", "-s", "big", "--ansi"]
        } else {
            &["capture", "-s", "big"]
        };
        let text = dir.ok(args);
        assert!(
            text.matches('é').count() >= 999_990,
            "ansi {ansi}: {} bytes",
            text.len()
        );
    }
}

#[test]
fn a_megabyte_title_is_cut_and_every_call_still_works() {
    let dir = Dir::new();
    let script = python_then_idle("sys.stdout.write('\\x1b]2;' + 'T' * (1 << 20) + '\\x07ready')");
    dir.ok(&["start", "-s", "title", "--", "python3", "-c", &script]);
    dir.ok(&["wait", "-s", "title", "--text", "ready"]);
    let screen = dir.json(&["--json", "capture", "-s", "title"]);
    let title = screen["title"].as_str().unwrap_or_default();
    assert_eq!(title.len(), 4096, "the title is cut at 4096 bytes");
    assert!(title.bytes().all(|b| b == b'T'));
    dir.ok(&["send", "-s", "title", "-t", "x"]);
    dir.ok(&["exit", "-s", "title"]);
}

#[test]
fn idle_connections_crowding_a_full_hosts_control_lane_do_not_delay_info() {
    let dir = Dir::new();
    start_bash(&dir, "s");
    let mut clients = fill_with_waiting_clients(&dir, "s");
    // Connections that say nothing, each handed to the control lane; served one after
    // another with a second each, they held `info` back for a minute.
    let _idle: Vec<UnixStream> = (0..48)
        .map(|_| UnixStream::connect(dir.socket("s")).expect("connect"))
        .collect();
    let started = std::time::Instant::now();
    let out = dir.run(&["--json", "info", "-s", "s"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(info["running"], true, "{info}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "info waited {:?} behind idle connections",
        started.elapsed()
    );
    dir.ok(&["exit", "-s", "s", "--timeout-ms", "5000"]);
    kill_all(&mut clients);
}

#[test]
fn a_host_out_of_descriptors_keeps_its_program_and_serves_again_once_some_close() {
    let dir = Dir::new();
    // A host with few descriptors to spare: each connection takes two.
    let started = std::process::Command::new("sh")
        .args(["-c", "ulimit -n 40 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_tuipilot"))
        .args([
            "start",
            "-s",
            "s",
            "--env",
            "PS1=$ ",
            "--",
            "bash",
            "--norc",
            "--noprofile",
        ])
        .env("TUIPILOT_DIR", &dir.0)
        .output()
        .expect("start runs");
    assert!(started.status.success(), "{}", text(&started.stderr));
    let pid = dir.info("s")["pid"].as_i64().expect("the program's pid") as i32;
    // More silent connections than the host has descriptors for: accepting fails (EMFILE)
    // until the host closes the silent ones at their line deadline.
    let idle: Vec<UnixStream> = (0..40)
        .map(|_| UnixStream::connect(dir.socket("s")).expect("connect"))
        .collect();
    let served = eventually(Duration::from_secs(60), || {
        dir.run(&["capture", "-s", "s"]).status.code() == Some(0)
    });
    assert!(
        served,
        "the host stopped serving after running out of descriptors"
    );
    assert!(common::alive(pid), "the program was ended");
    drop(idle);
    dir.ok(&["exit", "-s", "s", "--timeout-ms", "5000"]);
}

// Fails on the code before: a host ended by a signal left NAME.sock, .lock and .log for
// the next call to find stale.
#[test]
fn a_host_ended_by_a_signal_removes_its_socket_lock_and_log() {
    for signal in ["TERM", "INT", "HUP"] {
        let dir = support::Dir::new();
        support::start_bash(&dir, "sig");
        let host = dir.info("sig")["host_pid"].as_i64().expect("the host's pid");
        let files = ["sig.sock", "sig.lock", "sig.log"].map(|f| dir.0.join(f));
        assert!(files[0].exists() && files[1].exists(), "{files:?}");
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &host.to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let gone = support::eventually(std::time::Duration::from_secs(20), || {
            !std::path::Path::new(&format!("/proc/{host}")).exists() && files.iter().all(|f| !f.exists())
        });
        let left: Vec<_> = files.iter().filter(|f| f.exists()).collect();
        assert!(gone, "SIG{signal}: the host left {left:?}");
    }
}

// Fails on the code before: a host out of descriptors dropped the connection, and the
// client said it had died and to start the session again while it ran on.
#[test]
fn a_host_out_of_descriptors_is_busy_not_dead() {
    let dir = Dir::new();
    dir.work();
    // A host with few descriptors to spare: it inherits the limit from `start`.
    let started = std::process::Command::new("bash")
        .args(["-c", "ulimit -n 24; exec \"$0\" start -s lim -- sleep 600"])
        .arg(env!("CARGO_BIN_EXE_tuipilot"))
        .env("TUIPILOT_DIR", &dir.0)
        .output()
        .unwrap();
    assert!(started.status.success(), "{}", text(&started.stderr));
    // Connections that ask nothing hold a descriptor each until the host gives up on them.
    let held: Vec<UnixStream> = (0..12)
        .filter_map(|_| UnixStream::connect(dir.socket("lim")).ok())
        .collect();
    let out = dir.run(&["capture", "-s", "lim"]);
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("died"), "{stderr}");
    drop(held);
    // Alive all along: once the connections are gone it answers again.
    assert!(
        eventually(Duration::from_secs(30), || dir
            .run(&["capture", "-s", "lim"])
            .status
            .success()),
        "the host no longer answers"
    );
}
