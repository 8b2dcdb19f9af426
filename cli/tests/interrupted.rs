//! A command ended by any signal that ends a process — a closed terminal's SIGHUP,
//! SIGQUIT, SIGINT, SIGTERM — leaves none of its temporary files. (`run`'s scratch
//! recording is checked in `planted_links.rs`; SIGPIPE is ignored by Rust programs, so a
//! write to a closed pipe fails and the command ends the ordinary way.)

mod support;

use std::fmt::Write as _;
use std::time::Duration;

use support::{Dir, SignalsAtDefault, dies_of, eventually};

/// A long recording: a status line redrawn 20,000 times, 1 ms apart.
fn long_cast(path: &std::path::Path) {
    let mut text = String::from("{\"version\":2,\"width\":80,\"height\":24}\n");
    for n in 0..20_000 {
        writeln!(
            text,
            "[{:.3},\"o\",\"\\u001b[{};1H\\u001b[3{}mevent {n:>7} {}\"]",
            f64::from(n + 1) / 1000.0,
            n % 22 + 1,
            n % 7 + 1,
            "#".repeat(n as usize % 60)
        )
        .unwrap();
    }
    std::fs::write(path, text).unwrap();
}

// Fails on the code before for HUP and QUIT: only INT and TERM removed the files.
#[test]
fn a_render_ended_by_a_signal_leaves_no_half_written_file() {
    let dir = Dir::new();
    let work = dir.work();
    long_cast(&work.join("long.cast"));
    for signal in ["HUP", "QUIT", "INT", "TERM"] {
        let out = work.join(format!("out-{signal}"));
        std::fs::create_dir(&out).unwrap();
        let child = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(["render", "long.cast", "--fps-cap", "1000", "-o"])
            .arg(out.join("long.gif"))
            .current_dir(&work)
            .env("TUIPILOT_DIR", &dir.0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .signals_at_default()
            .spawn()
            .unwrap();
        // Under way once the GIF is being written at its temporary name.
        let writing = eventually(Duration::from_secs(60), || {
            std::fs::read_dir(&out).unwrap().flatten().next().is_some()
        });
        assert!(writing, "render never started writing");
        dies_of(child, signal);
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
    }
}

/// A program that ignores SIGHUP and SIGTERM (the hang-up a dying command's terminal sends
/// would not end it): it writes its pid (its session's id) to `pid_file`, then sleeps.
fn stubborn_program(pid_file: &std::path::Path) -> String {
    format!(
        "trap '' HUP TERM; echo $$ > {}; exec sleep 600",
        pid_file.display()
    )
}

/// Sends `signal` to `child` once `pid_file` names the program it started, waits for the
/// command to die of it, and says whether the program's session outlived it (ending it if
/// so, so the test leaves nothing behind either way).
fn program_outlives(child: std::process::Child, signal: &str, pid_file: &std::path::Path) -> Option<i32> {
    let started = eventually(Duration::from_secs(60), || {
        std::fs::read_to_string(pid_file).is_ok_and(|s| s.trim().parse::<i32>().is_ok())
    });
    assert!(started, "SIG{signal}: the program never started");
    let pid: i32 = std::fs::read_to_string(pid_file).unwrap().trim().parse().unwrap();
    dies_of(child, signal);
    let gone = eventually(Duration::from_secs(20), || !tuipilot::process::session_alive(pid));
    if gone {
        return None;
    }
    tuipilot::process::end_session(pid, &[(libc::SIGKILL, Duration::from_secs(5))]);
    Some(pid)
}

// Fails on the code before: the program, ignoring the hang-up, outlived `once` and `run`.
#[test]
fn once_and_run_ended_by_a_signal_take_their_program_with_them() {
    let dir = Dir::new();
    let work = dir.work();
    for signal in ["HUP", "QUIT", "INT", "TERM"] {
        let pid_file = work.join(format!("once-{signal}.pid"));
        let program = stubborn_program(&pid_file);
        let once = dir.spawn(&[
            "once",
            "--wait",
            "never on the screen",
            "--timeout-ms",
            "120000",
            "--",
            "sh",
            "-c",
            &program,
        ]);
        if let Some(pid) = program_outlives(once, signal, &pid_file) {
            panic!("SIG{signal}: the program of `once` (session {pid}) outlived it");
        }

        let pid_file = work.join(format!("run-{signal}.pid"));
        let tape = work.join(format!("stubborn-{signal}.tape"));
        std::fs::write(
            &tape,
            format!(
                "Type \"{}\"\nEnter\nWait+Screen@120s /never on the screen/\n",
                stubborn_program(&pid_file)
            ),
        )
        .unwrap();
        let run = dir.spawn(&["run", tape.to_str().unwrap()]);
        if let Some(pid) = program_outlives(run, signal, &pid_file) {
            panic!("SIG{signal}: the program a tape ran under `run` (session {pid}) outlived it");
        }
    }
}
