//! Load: many sessions driven at once through the CLI, the way a fleet of agents would.
//!
//! Starts `SESSIONS` bash sessions, then one client thread per session runs `ROUNDS`
//! rounds of `send -t 'echo N' -k Enter --wait ^N$` + `capture`, all sessions at once;
//! counts every failed call, ends every session and checks that no host, watchdog or
//! program is left. Prints calls, errors, wall time and per-call p50/p99.
//!
//! `cargo bench -p tuipilot-cli --bench load` (`TUIPILOT_LOAD_SESSIONS`,
//! `TUIPILOT_LOAD_ROUNDS` to change the size)

use std::sync::Mutex;
use std::time::Instant;

#[path = "../../benches/support/mod.rs"]
mod support;
use support::ms;

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn tuipilot(dir: &str, args: &[&str]) -> Result<(), String> {
    support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), dir, args).map(drop)
}

fn main() {
    let sessions = setting("TUIPILOT_LOAD_SESSIONS", 50);
    let rounds = setting("TUIPILOT_LOAD_ROUNDS", 40);
    let dir = format!("/tmp/tpload-{}", std::process::id());
    for s in 0..sessions {
        let name = format!("s{s}");
        tuipilot(
            &dir,
            &[
                "start",
                "-s",
                &name,
                "--env",
                "PS1=$ ",
                "--env",
                "HISTFILE=/dev/null",
                "--",
                "bash",
                "--norc",
                "--noprofile",
            ],
        )
        .expect("start");
    }
    let errors = Mutex::new(Vec::new());
    let times = Mutex::new(Vec::new());
    let start = Instant::now();
    std::thread::scope(|scope| {
        for s in 0..sessions {
            let (dir, errors, times) = (&dir, &errors, &times);
            scope.spawn(move || {
                let name = format!("s{s}");
                for round in 0..rounds {
                    let marker = format!("m{s}x{round}");
                    let echo = format!("echo {marker}");
                    let wait = format!("^{marker}$");
                    for args in [
                        &[
                            "send",
                            "-s",
                            &name,
                            "-t",
                            &echo,
                            "-k",
                            "Enter",
                            "--wait",
                            &wait,
                            "--timeout-ms",
                            "60000",
                        ][..],
                        &["capture", "-s", &name][..],
                    ] {
                        let t = Instant::now();
                        let result = tuipilot(dir, args);
                        times.lock().unwrap().push(t.elapsed());
                        if let Err(e) = result {
                            errors.lock().unwrap().push(e);
                        }
                    }
                }
            });
        }
    });
    let wall = start.elapsed();
    for s in 0..sessions {
        let _ = tuipilot(&dir, &["exit", "-s", &format!("s{s}")]);
    }
    let left: Vec<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    let _ = std::fs::remove_dir_all(&dir);
    let mut times = times.into_inner().unwrap();
    times.sort();
    let at = |q: f64| ms(times[((times.len() - 1) as f64 * q) as usize]);
    let errors = errors.into_inner().unwrap();
    println!(
        "load: {sessions} sessions x {rounds} rounds (send+wait, capture) at once: {} calls in {:.1} s, {} errors; per call p50 {:.1} ms, p99 {:.1} ms; files left after exit: {}",
        times.len(),
        wall.as_secs_f64(),
        errors.len(),
        at(0.5),
        at(0.99),
        left.len()
    );
    for e in errors.iter().take(5) {
        println!("  error: {e}");
    }
}
