//! Memory that must not grow with what a user feeds in. Peaks are the kernel's
//! `ru_maxrss` of each process; every figure has its baseline measured in the same run.
//!
//! - **`render`** on long recordings: frames are drawn and encoded one at a time, so the
//!   peak must not grow with the recording's length (goal: at most 200 MB for a
//!   100,000-event cast). The casts are made here: a status screen whose counter and bar
//!   change on every event, 1 ms apart (a flood, like a build log), 10,000 and 100,000
//!   events. Each is rendered to a GIF, an animated PNG and its last frame at the default
//!   30 frames a second, and its last frame at 1,000 frames a second (every event a frame,
//!   all of them made). The baseline is the same recording's frames collected whole
//!   (`Recording::frames`, which `render` did before it streamed).
//! - **A session host's memory after screenshots** with CJK and colour-emoji fallback
//!   fonts (goal: at most 20 MB resident). Baseline: the same host after an ASCII-only
//!   screenshot. The bundled full faces and the system's fonts are read one glyph at a
//!   time from memory-mapped files; before, fontdue's whole-face parse of DejaVu held
//!   28 MB, and files were read onto the heap.
//! - **A tape's `Type`** of 4 MiB at the default typing speed, ended by `Set TapeTimeout
//!   3s`: the text is typed from the string as it goes (it was a step per character,
//!   ~430 bytes each). Baseline: the same tape typing 1,000 characters.
//!
//! `cargo bench -p tuipilot-cli --bench memory_bounds`

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use tuipilot::record::{FrameOptions, Recording};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::peak_memory_of;

/// A cast of `events` output events 1 ms apart on an 80×24 screen.
fn cast(path: &Path, events: usize) {
    let mut text = String::from("{\"version\":2,\"width\":80,\"height\":24}\n");
    for n in 0..events {
        let time = (n + 1) as f64 / 1000.0;
        let bar = "#".repeat(n % 60);
        let line = format!(
            "\\u001b[{};1H\\u001b[3{}mevent {n:>7} {bar:<60}\\u001b[0m",
            n % 22 + 1,
            n % 7 + 1
        );
        writeln!(text, "[{time:.3},\"o\",\"{line}\"]").expect("a String takes writes");
    }
    std::fs::write(path, text).expect("the cast is written");
}

/// Peak KiB (and seconds) of `tuipilot render cast -o output` with extra arguments.
fn render(cast: &Path, output: &Path, extra: &[&str]) -> (u64, f64) {
    let (ok, peak, took) = peak_memory_of(
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .arg("render")
            .arg(cast)
            .arg("-o")
            .arg(output)
            .args(extra)
            .stdout(std::process::Stdio::null()),
    );
    assert!(
        ok,
        "render {} -o {} {extra:?} failed",
        cast.display(),
        output.display()
    );
    (peak, took.as_secs_f64())
}

/// Peak KiB of this bench re-run to collect the cast's frames whole.
fn collected(cast: &Path, fps_cap: u32) -> (u64, f64) {
    let (ok, peak, took) = peak_memory_of(
        Command::new(std::env::current_exe().expect("the bench knows its path"))
            .arg("--collect")
            .arg(cast)
            .arg(fps_cap.to_string())
            .stdout(std::process::Stdio::null()),
    );
    assert!(ok, "collecting the frames of {} failed", cast.display());
    (peak, took.as_secs_f64())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let [_, flag, cast, fps] = args.as_slice()
        && flag == "--collect"
    {
        let recording = Recording::read_file(Path::new(cast)).expect("the cast reads");
        let frames = recording
            .frames(&FrameOptions {
                fps_cap: fps.parse().expect("a frame rate"),
                ..FrameOptions::default()
            })
            .expect("frames");
        println!("{}", frames.len());
        return;
    }
    let dir = std::env::temp_dir().join(format!("tuipilot-memory-bounds-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    render_section(&dir);
    type_section(&dir);
    host_section(&dir);
    std::fs::remove_dir_all(&dir).ok();
}

/// A tape typing `chars` characters at the default speed, stopped by its time limit.
fn typing_tape(dir: &Path, chars: usize) -> (u64, f64) {
    let path = dir.join(format!("type-{chars}.tape"));
    let text = "a".repeat(chars);
    std::fs::write(
        &path,
        format!("Set TapeTimeout 3s\nSet Shell bash\nType \"{text}\"\n"),
    )
    .expect("the tape is written");
    let (_, peak, took) = peak_memory_of(
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .arg("run")
            .arg(&path)
            .current_dir(dir)
            .env("TUIPILOT_DIR", dir)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    (peak, took.as_secs_f64())
}

/// The peak of a tape typing 4 MiB against one typing 1,000 characters.
fn type_section(dir: &Path) {
    let mb = |kib: u64| kib as f64 / 1024.0;
    let chars = 4 << 20;
    let (small, small_took) = typing_tape(dir, 1000);
    let (large, large_took) = typing_tape(dir, chars);
    println!("\ntape Type at 50 ms a character, run stopped by TapeTimeout 3s");
    println!(
        "    baseline: Type of 1,000 characters        {:>8.1} MB  {small_took:>6.2} s",
        mb(small)
    );
    println!(
        "    Type of 4 MiB                              {:>8.1} MB  {large_took:>6.2} s",
        mb(large)
    );
    println!(
        "    cost per character typed: {:.1} bytes (the text itself: 1 byte)",
        (large.saturating_sub(small) * 1024) as f64 / chars as f64
    );
}

/// `render`'s peaks for two lengths of recording, and the whole-frames baseline.
fn render_section(dir: &Path) {
    let mb = |kib: u64| kib as f64 / 1024.0;
    println!("render: peak resident memory and time, by recording length");
    let mut gif_peaks = Vec::new();
    for events in [10_000, 100_000] {
        let path = dir.join(format!("{events}.cast"));
        cast(&path, events);
        let size = std::fs::metadata(&path).map_or(0, |m| m.len());
        println!(
            "\n  {events} events ({:.1} MB cast, {} s long)",
            size as f64 / 1e6,
            events / 1000
        );
        let out = |name: &str| -> PathBuf { dir.join(name) };
        let mut rows: Vec<(&str, (u64, f64))> = vec![
            ("render → GIF, 30 fps", render(&path, &out("a.gif"), &[])),
            ("render → APNG, 30 fps", render(&path, &out("a.apng"), &[])),
            ("render → last frame, 30 fps", render(&path, &out("a.png"), &[])),
            (
                "render → last frame, 1000 fps (every event)",
                render(&path, &out("b.png"), &["--fps-cap", "1000"]),
            ),
            ("baseline: frames collected whole, 30 fps", collected(&path, 30)),
        ];
        // At 100,000 frames the whole frames take ~9 GB: measured at 10,000 only.
        if events == 10_000 {
            rows.push((
                "baseline: frames collected whole, 1000 fps",
                collected(&path, 1000),
            ));
        }
        for (what, (peak, seconds)) in &rows {
            println!("    {what:<46} {:>8.1} MB  {seconds:>6.2} s", mb(*peak));
        }
        gif_peaks.push(rows[0].1.0);
        if let Some((_, (whole, _))) = rows.get(5) {
            println!(
                "    every event a frame: whole frames {:.1}× the streamed peak",
                *whole as f64 / rows[3].1.0 as f64
            );
        }
    }
    println!(
        "\n  streamed GIF peak, 100,000 events ÷ 10,000 events: {:.2}× (goal: ≤ 200 MB, not growing with length)",
        gif_peaks[1] as f64 / gif_peaks[0] as f64
    );
}

/// `tuipilot` with the runtime directory of this bench.
fn cli(dir: &Path, args: &[&str]) -> String {
    let run = dir.join("run");
    let out = support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), &run.to_string_lossy(), args)
        .unwrap_or_else(|why| panic!("{why}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A host's resident memory (KiB): all of it, and the part that is its own (anonymous).
fn resident(pid: i64) -> (u64, u64) {
    (
        support::status_kib(Some(pid), "VmRSS"),
        support::status_kib(Some(pid), "RssAnon"),
    )
}

/// A session host's memory after an ASCII screenshot and after CJK and emoji ones.
fn host_section(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let run = dir.join("run");
    std::fs::create_dir_all(&run).expect("a runtime folder");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("a private runtime folder");
    let png = dir.join("shot.png");
    let png = png.to_str().expect("a UTF-8 path");
    cli(
        dir,
        &[
            "start",
            "-s",
            "m",
            "--env",
            "PS1=$ ",
            "--",
            "bash",
            "--norc",
            "--noprofile",
        ],
    );
    cli(dir, &["wait", "-s", "m", "--text", r"^\$"]);
    let info: serde_json::Value =
        serde_json::from_str(&cli(dir, &["--json", "info", "-s", "m"])).expect("info is JSON");
    let host = info["host_pid"].as_i64().expect("a host pid");
    let started = resident(host);
    let shot = |text: &str, shown: &str| {
        cli(
            dir,
            &[
                "send",
                "-s",
                "m",
                "-t",
                &format!("echo {text}"),
                "-k",
                "Enter",
                "--wait",
                shown,
            ],
        );
        cli(dir, &["capture", "-s", "m", "--png", png]);
        resident(host)
    };
    let ascii = shot("plain ascii text", "^plain");
    let wide = shot("漢字かな 한글 αβγ ∀∂ ☺ 😀 👍🏽 🇯🇵 ❤️", "^漢字");
    for _ in 0..5 {
        cli(dir, &["capture", "-s", "m", "--png", png]);
    }
    let again = resident(host);
    cli(dir, &["exit", "-s", "m"]);
    let mb = |kib: u64| kib as f64 / 1024.0;
    println!("\nsession host resident memory (all / its own), MB");
    println!(
        "    started, no screenshot yet                  {:>6.1} / {:.1}",
        mb(started.0),
        mb(started.1)
    );
    println!(
        "    baseline: after an ASCII screenshot         {:>6.1} / {:.1}",
        mb(ascii.0),
        mb(ascii.1)
    );
    println!(
        "    after CJK + emoji screenshots               {:>6.1} / {:.1}  (goal: ≤ 20 MB)",
        mb(wide.0),
        mb(wide.1)
    );
    println!(
        "    after five more                             {:>6.1} / {:.1}",
        mb(again.0),
        mb(again.1)
    );
    println!(
        "    CJK + emoji cost over the ASCII baseline: {:.1} MB",
        mb(wide.0.saturating_sub(ascii.0))
    );
}
