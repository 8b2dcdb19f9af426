//! A report's memory and size, which must not grow with the screen's size times its
//! frames. Peaks are the kernel's `ru_maxrss` of each process; every figure has its
//! baseline measured in the same run.
//!
//! - **A recording at 500×400**: 300 frames, 2.2 MB of coloured words written at random
//!   places (`words.cast`), and 300 frames of 5 MB with a colour for every character
//!   (`cells.cast`, the costliest picture a row can be). `tuipilot report REC -o DIR`:
//!   goal ≤ 512 MB peak and a `report.html` ≤ 64 MB. Baseline: the same recording replayed
//!   to its last screen (`tuipilot render REC -o last.png`).
//! - **A 2,000-step tape** (`Type` lines into `cat`): `tuipilot run --report DIR` against
//!   `tuipilot run` of the same tape: goal ≤ 2× the peak.
//! - **A session host after `report -s`** of a 5,000-step session (`send` into `cat`):
//!   goal ≤ 100 MB resident. Baseline: the same host before the report.
//!
//! `cargo bench -p tuipilot-cli --bench report_memory`

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::peak_memory_of;

/// A deterministic generator for the recordings (xorshift).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A 500×400 cast of 300 frames 50 ms apart; each frame writes `writes` runs of `len`
/// characters at random places, coloured by the word or, `per_cell`, by the character.
fn cast(path: &Path, writes: usize, len: usize, per_cell: bool) {
    let (cols, rows) = (500u64, 400u64);
    let mut rng = Lcg(0x2545_f491_4f6c_dd1d);
    let mut text = format!("{{\"version\":2,\"width\":{cols},\"height\":{rows}}}\n");
    let letters = b"abcdefghijklmnopqrstuvwxyz0123456789 ";
    for frame in 0..300 {
        let mut data = String::new();
        for _ in 0..writes {
            let (row, col) = (rng.below(rows) + 1, rng.below(cols - len as u64) + 1);
            write!(data, "\\u001b[{row};{col}H").expect("a String takes writes");
            for n in 0..len {
                if per_cell || n == 0 {
                    write!(data, "\\u001b[3{};4{}m", rng.below(8), rng.below(8))
                        .expect("a String takes writes");
                }
                let letter = letters[rng.below(letters.len() as u64) as usize];
                data.push(letter as char);
            }
            data.push_str("\\u001b[0m");
        }
        writeln!(text, "[{:.3},\"o\",\"{data}\"]", f64::from(frame + 1) * 0.05)
            .expect("a String takes writes");
    }
    std::fs::write(path, text).expect("the cast is written");
}

/// `tuipilot ARGS` under `dir`'s runtime folder, its peak (KiB) and whether it passed.
fn peak(dir: &Path, args: &[&str]) -> (bool, u64) {
    let (ok, peak, _) = peak_memory_of(
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(args)
            .current_dir(dir)
            .env("TUIPILOT_DIR", dir.join("run"))
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    );
    (ok, peak)
}

fn mb(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn recording_section(dir: &Path) {
    println!("report of a 500x400 recording of 300 frames: peak resident memory, report.html");
    for (name, writes, len, per_cell) in [("words", 40, 150, false), ("cells", 12, 100, true)] {
        let path = dir.join(format!("{name}.cast"));
        cast(&path, writes, len, per_cell);
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        let rec = path.to_str().expect("a UTF-8 path");
        let out = dir.join(format!("{name}-report"));
        let (ok, report) = peak(dir, &["report", rec, "-o", out.to_str().expect("a UTF-8 path")]);
        assert!(ok, "report {rec} failed");
        let html = std::fs::metadata(out.join("report.html")).map_or(0, |m| m.len());
        let (ok, last) = peak(dir, &["render", rec, "-o", "last.png"]);
        assert!(ok, "render {rec} failed");
        let notes = std::fs::read_to_string(out.join("report.md")).unwrap_or_default();
        println!("\n  {name}.cast ({:.1} MB)", size as f64 / 1e6);
        println!("    baseline: render to the last screen  {:>8.1} MB", mb(last));
        println!(
            "    report                               {:>8.1} MB (goal <= 512), report.html {:.1} MB (goal <= 64), {:.2}x the baseline's peak",
            mb(report),
            html as f64 / 1e6,
            report as f64 / last as f64
        );
        for note in notes
            .lines()
            .filter(|l| l.contains("thinned") || l.contains("not drawn"))
        {
            println!("    note: {}", note.trim_start_matches("- "));
        }
    }
}

fn tape_section(dir: &Path) {
    let tape = dir.join("steps.tape");
    let mut text = String::from("Set TypingSpeed 0\nSet Shell bash\nType \"exec cat\"\nEnter\nWait+Ready\n");
    for n in 0..1999 {
        writeln!(text, "Type \"line {n} of the tape\"").expect("a String takes writes");
    }
    std::fs::write(&tape, text).expect("the tape is written");
    let (ok, plain) = peak(dir, &["run", "steps.tape"]);
    assert!(ok, "the tape failed");
    let (ok, reported) = peak(dir, &["run", "--report", "reports", "steps.tape"]);
    assert!(ok, "the tape with a report failed");
    println!("\n2,000-step tape: peak resident memory");
    println!("    baseline: run                        {:>8.1} MB", mb(plain));
    println!(
        "    run --report                         {:>8.1} MB, {:.2}x (goal <= 2x)",
        mb(reported),
        reported as f64 / plain as f64
    );
}

/// `tuipilot ARGS` in the bench's runtime folder; its standard output.
fn cli(dir: &Path, args: &[&str]) -> String {
    let run = dir.join("run");
    let out = support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), &run.to_string_lossy(), args)
        .unwrap_or_else(|why| panic!("{why}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn host_section(dir: &Path) {
    const STEPS: usize = 5000;
    cli(dir, &["start", "-s", "r", "--", "cat"]);
    let info: serde_json::Value =
        serde_json::from_str(&cli(dir, &["--json", "info", "-s", "r"])).expect("info is JSON");
    let host = info["host_pid"].as_i64().expect("a host pid");
    for n in 0..STEPS {
        cli(
            dir,
            &["send", "-s", "r", "-t", &format!("step {n}"), "-k", "Enter"],
        );
    }
    let before = support::status_kib(Some(host), "VmRSS");
    let out = dir.join("host-report");
    cli(
        dir,
        &["report", "-s", "r", "-o", out.to_str().expect("a UTF-8 path")],
    );
    let after = support::status_kib(Some(host), "VmRSS");
    let peak = support::status_kib(Some(host), "VmHWM");
    cli(dir, &["exit", "-s", "r"]);
    println!("\nsession host of a {STEPS}-step session, resident memory");
    println!("    baseline: before report -s           {:>8.1} MB", mb(before));
    println!(
        "    after report -s                      {:>8.1} MB (goal <= 100), its peak {:.1} MB",
        mb(after),
        mb(peak)
    );
}

fn main() {
    use std::os::unix::fs::PermissionsExt;
    let dir = std::env::temp_dir().join(format!("tuipilot-report-memory-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("run")).expect("a scratch folder");
    std::fs::set_permissions(dir.join("run"), std::fs::Permissions::from_mode(0o700))
        .expect("a private runtime folder");
    recording_section(&dir);
    tape_section(&dir);
    host_section(&dir);
    std::fs::remove_dir_all(&dir).ok();
}
