//! Throughput: 20 MB of SGR-coloured 120-column lines `cat` through a session until a
//! final marker is on screen, against the floor of the same `cat` through a bare PTY
//! whose output is read and discarded. Prints both medians and the ratio; and the same
//! session recorded to an asciicast file, against the session without (target ≤ 1.15×).
//!
//! `cargo bench --bench throughput`

use std::io::Read;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use tuipilot::Session;

mod support;
use support::median;

const TOTAL: usize = 20_000_000;
const RUNS: usize = 11;

fn bare_pty(path: &std::path::Path) -> Duration {
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 40,
            cols: 120,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new("cat");
    cmd.arg(path);
    let start = Instant::now();
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
    }
    let elapsed = start.elapsed();
    child.wait().unwrap();
    elapsed
}

/// The flood through a session until its marker is on the screen; with `record`,
/// recorded there.
fn session(path: &std::path::Path, record: Option<&std::path::Path>) -> Duration {
    let start = Instant::now();
    let mut builder = Session::builder("sh")
        .args(["-c", &format!("cat '{}'; echo END-OF-FLOOD", path.display())])
        .size(120, 40)
        .timeout(Duration::from_secs(120));
    match record {
        Some(cast) if cast.as_os_str() == "sink" => builder = builder.record_to(std::io::sink()),
        Some(cast) => builder = builder.record(cast),
        None => {}
    }
    let s = builder.spawn().unwrap();
    s.wait_for_text("^END-OF-FLOOD$").unwrap();
    let elapsed = start.elapsed();
    s.exit().unwrap();
    elapsed
}

/// vt100 alone on the same bytes already in memory: the parser's own cost, which no
/// design around it can go below.
fn vt100_alone(bytes: &[u8]) -> Duration {
    let start = Instant::now();
    let (rows, cols) = (
        std::num::NonZeroU16::new(40).unwrap(),
        std::num::NonZeroU16::new(120).unwrap(),
    );
    let mut parser = vt100::Parser::new(rows, cols, tuipilot::terminal::DEFAULT_SCROLLBACK);
    for chunk in bytes.chunks(4096) {
        parser.process(chunk);
    }
    std::hint::black_box(parser.screen().cursor_position());
    start.elapsed()
}

fn main() {
    let path = std::env::temp_dir().join(format!("tuipilot-throughput-{}.txt", std::process::id()));
    support::write_sgr_lines(&path, TOTAL);
    let size = std::fs::metadata(&path).unwrap().len() as f64 / 1e6;
    let bytes = std::fs::read(&path).unwrap();
    let mut floor = Vec::new();
    let mut ours = Vec::new();
    let mut parse = Vec::new();
    let mut recorded = Vec::new();
    let mut to_sink = Vec::new();
    let cast = path.with_extension("cast");
    let mut cast_size = 0;
    for _ in 0..RUNS {
        floor.push(bare_pty(&path));
        ours.push(session(&path, None));
        parse.push(vt100_alone(&bytes));
        recorded.push(session(&path, Some(&cast)));
        to_sink.push(session(&path, Some(std::path::Path::new("sink"))));
        cast_size = std::fs::metadata(&cast).map_or(0, |m| m.len());
    }
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_file(&cast);
    let (f, o, p, r) = (median(floor), median(ours), median(parse), median(recorded));
    let k = median(to_sink);
    println!("throughput: {size:.1} MB of SGR-coloured 120-column lines, median of {RUNS} runs");
    println!(
        "  bare PTY, read and discard (floor): {:>8.1} ms  {:>6.0} MB/s",
        f.as_secs_f64() * 1e3,
        size / f.as_secs_f64()
    );
    println!(
        "  tuipilot session until marker:      {:>8.1} ms  {:>6.0} MB/s",
        o.as_secs_f64() * 1e3,
        size / o.as_secs_f64()
    );
    println!(
        "  vt100 alone, bytes in memory:       {:>8.1} ms  {:>6.0} MB/s  ({:.2}x the floor by itself)",
        p.as_secs_f64() * 1e3,
        size / p.as_secs_f64(),
        p.as_secs_f64() / f.as_secs_f64()
    );
    println!(
        "  ratio: {:.2}x the floor (target <= 1.4x); {:.2}x vt100 alone",
        o.as_secs_f64() / f.as_secs_f64(),
        o.as_secs_f64() / p.as_secs_f64()
    );
    println!(
        "  the session recorded to asciicast:  {:>8.1} ms  {:.2}x the session without (target <= 1.15x); {:.1} MB file",
        r.as_secs_f64() * 1e3,
        r.as_secs_f64() / o.as_secs_f64(),
        cast_size as f64 / 1e6
    );
    println!(
        "  recorded to nowhere (io::sink):     {:>8.1} ms  {:.2}x the session without (the recorder's cost before the disk)",
        k.as_secs_f64() * 1e3,
        k.as_secs_f64() / o.as_secs_f64()
    );
}
