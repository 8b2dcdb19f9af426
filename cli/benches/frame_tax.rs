//! Whole frames without the flood tax: what a matching `wait` costs where there is no
//! frame to finish, through the CLI and the session host.
//!
//! 1. Under a `yes` flood, `wait --output y` against `capture` in the same run: a stream of
//!    lines has no frame, so a match returns as soon as it is seen (target: median ≤ 20 ms;
//!    before, every call paid the 250 ms frame cap).
//! 2. A program that prints a stamped marker and then sleeps (not reading the terminal):
//!    from the print to the CLI's `wait --text` returning (target: median ≤ 1.5 ms;
//!    before, the 30 ms quiet period). The same run's baseline: the same program reading
//!    the terminal after the print, which the kernel sees ready at once.
//!
//! `cargo bench -p tuipilot-cli --bench frame_tax`

use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{median, ms, time};

const FLOOD_CALLS: usize = 100;
const ROUNDS: usize = 20;

fn tuipilot(dir: &str, args: &[&str]) -> String {
    let out =
        support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), dir, args).unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos()
}

/// From the marker's print to `wait --text` returning, over `ROUNDS` sessions of a
/// program that prints after a key and then runs `after` (`sleep 600`, or `read y`).
fn print_to_return(dir: &str, after: &str) -> Duration {
    let script = format!("read x; echo MARK $(date +%s%N); {after}");
    let samples = (0..ROUNDS)
        .map(|round| {
            let name = format!("p{round}");
            tuipilot(
                dir,
                &["start", "-s", &name, "--wait-ready", "--", "sh", "-c", &script],
            );
            // The wait is waiting before the key goes: started, then given time to connect.
            let mut wait = Command::new(env!("CARGO_BIN_EXE_tuipilot"))
                .args([
                    "-s",
                    &name,
                    "wait",
                    "--text",
                    "^MARK [0-9]+$",
                    "--timeout-ms",
                    "10000",
                ])
                .env("TUIPILOT_DIR", dir)
                .stdout(Stdio::null())
                .spawn()
                .expect("the wait starts");
            std::thread::sleep(Duration::from_millis(300));
            tuipilot(dir, &["-s", &name, "send", "-k", "Enter"]);
            let status = wait.wait().expect("the wait ends");
            let returned = now_ns();
            assert!(status.success(), "wait --text failed");
            let screen = tuipilot(dir, &["-s", &name, "capture"]);
            let stamp: u128 = screen
                .lines()
                .find_map(|l| l.strip_prefix("MARK "))
                .and_then(|n| n.trim().parse().ok())
                .expect("the marker on the screen");
            tuipilot(dir, &["-s", &name, "exit"]);
            Duration::from_nanos(returned.saturating_sub(stamp) as u64)
        })
        .collect();
    median(samples)
}

fn main() {
    let dir = format!("/tmp/tpframetax-{}", std::process::id());
    println!("whole frames without the flood tax (CLI through the session host)");
    tuipilot(&dir, &["start", "-s", "flood", "--", "yes"]);
    tuipilot(&dir, &["wait", "-s", "flood", "--text", "^y$"]);
    let capture = time(FLOOD_CALLS, || {
        tuipilot(&dir, &["capture", "-s", "flood"]);
    });
    let output = time(FLOOD_CALLS, || {
        tuipilot(
            &dir,
            &["wait", "-s", "flood", "--output", "y", "--timeout-ms", "10000"],
        );
    });
    tuipilot(&dir, &["exit", "-s", "flood"]);
    println!(
        "  under `yes`, {FLOOD_CALLS} calls: wait --output y median {:.1} ms; capture (baseline) {:.1} ms; {:.2}x (target: wait ≤ 20 ms)",
        ms(output),
        ms(capture),
        ms(output) / ms(capture)
    );
    let sleeping = print_to_return(&dir, "sleep 600");
    let reading = print_to_return(&dir, "read y");
    println!(
        "  print, then sleep: print -> wait --text returns, median of {ROUNDS}: {:.2} ms; baseline, print then read the terminal: {:.2} ms; {:.2}x (target ≤ 1.5 ms)",
        ms(sleeping),
        ms(reading),
        ms(sleeping) / ms(reading)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
