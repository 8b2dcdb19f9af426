//! Peak memory under a `yes` flood: a session reads `yes` for 60 seconds (set
//! `TUIPILOT_FLOOD_SECS` to change it); the process's resident memory is sampled every
//! second. The baseline is the same process's resident memory before the session starts.
//!
//! `cargo bench --bench flood_memory`

use std::time::{Duration, Instant};

use tuipilot::Session;

mod support;
use support::status_kib;

fn main() {
    let secs: u64 = std::env::var("TUIPILOT_FLOOD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let before = status_kib(None, "VmRSS");
    let s = Session::builder("yes")
        .arg("tuipilot flood line")
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut samples = Vec::new();
    while start.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_secs(1));
        samples.push(status_kib(None, "VmRSS"));
    }
    let (held, total) = s.output_log_usage();
    let screen = s.snapshot();
    s.kill().unwrap();
    // VmHWM is updated lazily; the samples can be a little higher.
    let peak = status_kib(None, "VmHWM").max(samples.iter().copied().max().unwrap_or(0));
    let after_first = samples.first().copied().unwrap_or(before);
    let last = samples.last().copied().unwrap_or(before);
    println!("flood memory: `yes` through a session for {secs} s");
    println!(
        "  output processed: {:.0} MB ({:.0} MB/s); raw log holds {} KiB",
        total as f64 / 1e6,
        total as f64 / 1e6 / secs as f64,
        held / 1024
    );
    println!("  resident memory before the session (baseline): {before:>8} KiB");
    println!("  resident after 1 s / at the end / peak:         {after_first:>8} / {last} / {peak} KiB");
    println!(
        "  growth from 1 s to the end: {} KiB (bounded: grid, 1000-line scrollback, 1 MiB log ring)",
        last as i64 - after_first as i64
    );
    println!("  last row: {:?}", screen.row(22).unwrap_or(""));
}
