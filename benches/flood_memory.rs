//! Peak memory under a `yes` flood: a session reads `yes` for 60 seconds (set
//! `TUIPILOT_FLOOD_SECS` to change it); the process's resident memory is sampled every
//! second. The baseline is the same process's resident memory before the session starts.
//! Then the same flood recorded to an asciicast file: its growth against the unrecorded
//! run's (the recorder's queue is capped, so a few MB at most), and how much it wrote.
//!
//! Last, the operation log after 1,000 sends of 1 MB each (to `cat > /dev/null`): what it
//! holds against what was sent, and the process's growth.
//!
//! `cargo bench --bench flood_memory`

use std::path::Path;
use std::time::{Duration, Instant};

use tuipilot::Session;

mod support;
use support::status_kib;

/// Resident memory after 1 s, at the end and at its peak (KiB), and the output processed.
struct Flood {
    after_first: u64,
    last: u64,
    peak: u64,
    total: u64,
    held: usize,
    last_row: String,
}

fn flood(secs: u64, record: Option<&Path>) -> Flood {
    let mut builder = Session::builder("yes").arg("tuipilot flood line");
    if let Some(path) = record {
        builder = builder.record(path);
    }
    let s = builder.spawn().unwrap();
    let start = Instant::now();
    let mut samples = Vec::new();
    while start.elapsed() < Duration::from_secs(secs) {
        std::thread::sleep(Duration::from_secs(1));
        samples.push(status_kib(None, "VmRSS"));
    }
    let (held, total) = s.output_log_usage();
    let last_row = s.snapshot().row(22).unwrap_or("").to_string();
    s.kill().unwrap();
    Flood {
        after_first: samples.first().copied().unwrap_or(0),
        last: samples.last().copied().unwrap_or(0),
        // VmHWM is updated lazily; the samples can be a little higher.
        peak: status_kib(None, "VmHWM").max(samples.iter().copied().max().unwrap_or(0)),
        total,
        held,
        last_row,
    }
}

/// 1,000 sends of 1 MB through the executor: the log's size and the memory it costs.
fn operation_log_after_large_sends() {
    use tuipilot::operation::{Operation, Step};
    let s = Session::builder("sh")
        .args(["-c", "cat > /dev/null"])
        .spawn()
        .unwrap();
    let before = status_kib(None, "VmRSS");
    let text = "x".repeat(1 << 20);
    let sends = 1000;
    for _ in 0..sends {
        s.apply(&Operation::Send {
            steps: vec![Step::Text(text.clone())],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        })
        .unwrap();
    }
    let after = status_kib(None, "VmRSS");
    let (count, input, screens) = s.operation_log_usage();
    let exported = serde_json::to_string(&s.operations()).map_or(0, |j| j.len());
    s.exit().unwrap();
    println!("operation log after {sends} sends of 1 MiB ({} MiB sent):", sends);
    println!(
        "  entries kept: {count}; input kept: {} KiB; screens kept: {} KiB; the log as JSON: {} KiB",
        input / 1024,
        screens / 1024,
        exported / 1024
    );
    println!(
        "  resident before / after the sends: {before} / {after} KiB (growth {} KiB; the sent text is {} KiB)",
        after as i64 - before as i64,
        sends * 1024
    );
}

fn main() {
    operation_log_after_large_sends();
    let secs: u64 = std::env::var("TUIPILOT_FLOOD_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let before = status_kib(None, "VmRSS");
    let plain = flood(secs, None);
    println!("flood memory: `yes` through a session for {secs} s");
    println!(
        "  output processed: {:.0} MB ({:.0} MB/s); raw log holds {} KiB",
        plain.total as f64 / 1e6,
        plain.total as f64 / 1e6 / secs as f64,
        plain.held / 1024
    );
    println!("  resident memory before the session (baseline): {before:>8} KiB");
    println!(
        "  resident after 1 s / at the end / peak:         {:>8} / {} / {} KiB",
        plain.after_first, plain.last, plain.peak
    );
    let plain_growth = plain.last as i64 - plain.after_first as i64;
    println!(
        "  growth from 1 s to the end: {plain_growth} KiB (bounded: grid, 1000-line scrollback, 1 MiB log ring)"
    );
    println!("  last row: {:?}", plain.last_row);

    let cast = std::env::temp_dir().join(format!("tuipilot-flood-{}.cast", std::process::id()));
    let recorded = flood(secs, Some(&cast));
    let size = std::fs::metadata(&cast).map_or(0, |m| m.len());
    let _ = std::fs::remove_file(&cast);
    let growth = recorded.last as i64 - recorded.after_first as i64;
    println!("the same flood recorded to asciicast:");
    println!(
        "  output processed: {:.0} MB; recording written: {:.0} MB",
        recorded.total as f64 / 1e6,
        size as f64 / 1e6
    );
    println!(
        "  resident after 1 s / at the end / peak:         {:>8} / {} / {} KiB",
        recorded.after_first, recorded.last, recorded.peak
    );
    println!(
        "  growth from 1 s to the end: {growth} KiB vs {plain_growth} KiB unrecorded (recorder queue capped at 2 MiB)"
    );
}
