//! Instructions per byte of the engine's terminal against vt100's own, on the throughput
//! benchmark's stream (2 MB of SGR-coloured lines): both parse the same bytes in 4 KiB
//! chunks in `examples/parse_speed.rs`, counted by `valgrind --tool=callgrind`, so the
//! figures do not depend on the machine's load or on hardware counters (this machine has
//! none). Prints both and the ratio (target ≤ 1.3× vt100's own). Without valgrind it says
//! so and measures nothing.
//!
//! `cargo bench --bench parse_instructions`

use std::path::Path;
use std::process::Command;

mod support;

const BYTES: usize = 2_000_000;

/// The instructions `valgrind --tool=callgrind` counted for `parse_speed FILE MODE`.
fn instructions(example: &Path, input: &Path, mode: &str, out: &Path) -> u64 {
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out.display()))
        .arg(example)
        .arg(input)
        .arg(mode)
        .output()
        .expect("running valgrind");
    assert!(
        run.status.success(),
        "valgrind: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let log = String::from_utf8_lossy(&run.stderr);
    log.lines()
        .find_map(|l| l.split("Collected :").nth(1))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no count in valgrind's output:\n{log}"))
}

fn main() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!(
            "parse instructions: valgrind is not installed (apt-get install valgrind); nothing measured"
        );
        return;
    }
    // The example, built as this benchmark is (release).
    let built = Command::new(env!("CARGO"))
        .args(["build", "-q", "--release", "--example", "parse_speed"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("running cargo");
    assert!(built.success(), "building examples/parse_speed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let example = target.join("release/examples/parse_speed");
    let dir = std::env::temp_dir().join(format!("tp-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("stream");
    support::write_sgr_lines(&input, BYTES);
    let bytes = std::fs::metadata(&input).unwrap().len() as f64;
    let vt100 = instructions(&example, &input, "vt100", &dir.join("vt100.out"));
    let ours = instructions(&example, &input, "terminal", &dir.join("terminal.out"));
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "parse instructions: {:.1} MB of SGR-coloured lines, callgrind",
        bytes / 1e6
    );
    println!(
        "  vt100 alone:        {vt100:>12} instructions, {:.0} a byte",
        vt100 as f64 / bytes
    );
    println!(
        "  tuipilot terminal:  {ours:>12} instructions, {:.0} a byte",
        ours as f64 / bytes
    );
    println!(
        "  ratio: {:.2}x vt100's own (target <= 1.3x)",
        ours as f64 / vt100 as f64
    );
}
