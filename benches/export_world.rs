//! An export of a long session with a large world: a session started in a 50 MB folder
//! (200 files of 256 KB) with its world kept, 1,000 sends (each a line the program echoes,
//! with a ready wait), then a tape exported and its world written beside it. It prints the
//! time and the process's memory growth of each part — the world's copy at the start, the
//! 1,000 steps, the export with its world — against the baseline measured in the same run:
//! the same session and export without a world. The world is copied file by file through
//! a fixed buffer, so the growth it adds stays far below its 50 MB.
//!
//! `cargo bench --bench export_world`

use std::time::Instant;

use tuipilot::files::WorldLimits;
use tuipilot::operation::{Operation, StartSpec, Step, WaitFor};
use tuipilot::tape::export::{ExportOptions, to_tape, write_world};

mod support;
use support::status_kib;

const FILES: usize = 200;
const FILE_BYTES: usize = 256 * 1000;
const STEPS: usize = 1000;

/// One run: (ms to start, ms for the steps, ms to export, KiB grown at each of the three,
/// bytes of the tape, files and bytes of the world written).
struct Run {
    start_ms: u128,
    steps_ms: u128,
    export_ms: u128,
    grown_kib: [i64; 3],
    tape_bytes: usize,
    world: Option<String>,
}

fn run(folder: &std::path::Path, out: &std::path::Path, with_world: bool) -> Run {
    let rss = || status_kib(None, "VmRSS") as i64;
    let mut spec =
        StartSpec::new(["sh", "-c", "while read line; do echo \"got $line\"; done"].map(String::from));
    spec.cwd = Some(folder.to_path_buf());
    let before = rss();
    let at = Instant::now();
    let mut builder = spec.builder().unwrap();
    if with_world {
        builder = builder.capture_world(WorldLimits::default());
    }
    let s = builder.spawn().unwrap();
    let start_ms = at.elapsed().as_millis();
    let started = rss();
    let at = Instant::now();
    for n in 0..STEPS {
        let send = Operation::Send {
            steps: vec![Step::Text(format!("line {n}")), Step::Keys("Enter".into())],
            wait: Some(WaitFor::Ready),
            timeout_ms: None,
            capture: false,
            secret: false,
        };
        s.apply(&send).unwrap();
    }
    s.apply(&Operation::capture_text()).unwrap();
    let steps_ms = at.elapsed().as_millis();
    let stepped = rss();
    let at = Instant::now();
    let mut options = ExportOptions::default();
    if let Some(Ok(world)) = s.world() {
        options.world = Some((world.map(), world.root().to_path_buf()));
    }
    let name = if with_world { "with" } else { "without" };
    let exported = to_tape(&spec, &s.operations(), name, &options).unwrap();
    std::fs::write(out.join(format!("{name}.tape")), &exported.tape).unwrap();
    let written = write_world(&options, name, out).unwrap();
    let export_ms = at.elapsed().as_millis();
    let exported_rss = rss();
    let world = options.world.as_ref().map(|(map, _)| map.summary.clone());
    let _ = written;
    s.exit().unwrap();
    Run {
        start_ms,
        steps_ms,
        export_ms,
        grown_kib: [started - before, stepped - started, exported_rss - stepped],
        tape_bytes: exported.tape.len(),
        world,
    }
}

fn main() {
    let folder = std::env::temp_dir().join(format!("tp-bench-world-{}", std::process::id()));
    let out = std::env::temp_dir().join(format!("tp-bench-world-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    for n in 0..FILES {
        let sub = folder.join(format!("d{}", n % 10));
        std::fs::create_dir_all(&sub).unwrap();
        let bytes: Vec<u8> = (0..FILE_BYTES).map(|i| (i * 31 + n) as u8).collect();
        std::fs::write(sub.join(format!("f{n}.bin")), bytes).unwrap();
    }
    println!(
        "export of a {STEPS}-step session in a folder of {FILES} files, {:.1} MB",
        (FILES * FILE_BYTES) as f64 / 1e6
    );
    // The baseline first, then the world: each in a fresh session of this process.
    let without = run(&folder, &out, false);
    let with = run(&folder, &out, true);
    for (label, r) in [
        ("without a world (baseline)", &without),
        ("with its world", &with),
    ] {
        println!(
            "{label:<28} start {:>5} ms (+{:>6} KiB), {STEPS} steps {:>6} ms (+{:>6} KiB), export {:>5} ms (+{:>6} KiB), tape {} bytes{}",
            r.start_ms,
            r.grown_kib[0],
            r.steps_ms,
            r.grown_kib[1],
            r.export_ms,
            r.grown_kib[2],
            r.tape_bytes,
            r.world
                .as_deref()
                .map_or(String::new(), |w| format!("; world: {w}")),
        );
    }
    let extra = (with.grown_kib[0] + with.grown_kib[2]) - (without.grown_kib[0] + without.grown_kib[2]);
    println!(
        "the world's copy and export added {extra} KiB of memory for {:.1} MB of files ({:.2}% of it); start {:.1}x and export {:.1}x the baseline's time",
        (FILES * FILE_BYTES) as f64 / 1e6,
        100.0 * extra as f64 * 1024.0 / (FILES * FILE_BYTES) as f64,
        with.start_ms as f64 / without.start_ms.max(1) as f64,
        with.export_ms as f64 / without.export_ms.max(1) as f64,
    );
    let _ = std::fs::remove_dir_all(&folder);
    let _ = std::fs::remove_dir_all(&out);
}
