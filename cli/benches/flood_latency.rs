//! Latency under a flood: `yes` fills an 80x24 session as fast as it can while a client
//! asks for the screen (`capture`) and for the next output (`wait --output y`), through the
//! CLI and the session host — against `tmux capture-pane` on the same flood, in one run.
//! Prints p50, p99 and the worst call of each (the target: p99 at most 50 ms).
//!
//! `cargo bench -p tuipilot-cli --bench flood_latency`

use std::time::{Duration, Instant};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{Tmux, ms};

const CALLS: usize = 300;

fn tuipilot(dir: &str, args: &[&str]) {
    support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), dir, args).unwrap_or_else(|e| panic!("{e}"));
}

/// p50, p99 and the worst of some durations, in milliseconds.
fn percentiles(mut v: Vec<Duration>) -> (f64, f64, f64) {
    v.sort();
    let at = |q: f64| ms(v[((v.len() - 1) as f64 * q).round() as usize]);
    (at(0.5), at(0.99), at(1.0))
}

fn timed(calls: usize, mut call: impl FnMut()) -> (f64, f64, f64) {
    percentiles(
        (0..calls)
            .map(|_| {
                let start = Instant::now();
                call();
                start.elapsed()
            })
            .collect(),
    )
}

fn print(what: &str, (p50, p99, worst): (f64, f64, f64)) {
    println!("  {what:<34} p50 {p50:>7.2} ms   p99 {p99:>7.2} ms   worst {worst:>8.2} ms");
}

fn main() {
    let dir = format!("/tmp/tpflood-{}", std::process::id());
    println!("latency under a `yes` flood at 80x24, {CALLS} calls each");
    tuipilot(&dir, &["start", "-s", "flood", "--", "yes"]);
    tuipilot(&dir, &["wait", "-s", "flood", "--text", "^y$"]);
    let capture = timed(CALLS, || tuipilot(&dir, &["capture", "-s", "flood"]));
    let output = timed(CALLS, || {
        tuipilot(
            &dir,
            &["wait", "-s", "flood", "--output", "y", "--timeout-ms", "10000"],
        )
    });
    tuipilot(&dir, &["exit", "-s", "flood"]);
    let _ = std::fs::remove_dir_all(&dir);

    let tmux = Tmux::new("flood");
    tmux.new_session("flood", "yes");
    let tmux_capture = timed(CALLS, || {
        tmux.run(&["capture-pane", "-p", "-t", "flood"]);
    });
    tmux.run(&["kill-server"]);

    print("tuipilot capture", capture);
    print("tuipilot wait --output", output);
    print("tmux capture-pane", tmux_capture);
    println!(
        "  ratio, capture p99: {:.2}x tmux (target: p99 <= 50 ms)",
        capture.1 / tmux_capture.1
    );
}
