//! A command ended by any signal that ends a process — a closed terminal's SIGHUP,
//! SIGQUIT, SIGINT, SIGTERM — leaves none of its temporary files. (`run`'s scratch
//! recording is checked in `planted_links.rs`; SIGPIPE is ignored by Rust programs, so a
//! write to a closed pipe fails and the command ends the ordinary way.)

mod support;

use std::fmt::Write as _;
use std::os::unix::process::ExitStatusExt;
use std::time::Duration;

use support::{Dir, eventually};

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
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(["render", "long.cast", "--fps-cap", "1000", "-o"])
            .arg(out.join("long.gif"))
            .current_dir(&work)
            .env("TUIPILOT_DIR", &dir.0)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Under way once the GIF is being written at its temporary name.
        let writing = eventually(Duration::from_secs(60), || {
            std::fs::read_dir(&out).unwrap().flatten().next().is_some()
        });
        assert!(writing, "render never started writing");
        let killed = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(killed.success());
        let ended = child.wait().unwrap();
        assert!(
            ended.signal().is_some(),
            "SIG{signal}: render dies of the signal: {ended:?}"
        );
        let left: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "SIG{signal} left {left:?}");
    }
}
