//! How big an animated PNG of a 60-second counter is (five cells change every 100 ms on
//! an 80×24 screen, rendered at the default 30 frames a second): goal ≤ 40 MB. Baseline
//! in the same run: the same frames each written whole (`render -o frames/`, what every
//! frame of an animated PNG was before frame regions), and the same recording as a GIF.
//!
//! `cargo bench --bench apng_size`

use std::fmt::Write as _;

use tuipilot::record::{FrameOptions, Recording};
use tuipilot::render::RenderOptions;
use tuipilot::render::animation::{AnimationTarget, write_frames};
use tuipilot::render::gif::GifPalette;

fn main() {
    let mut cast = String::from(
        "{\"version\":2,\"width\":80,\"height\":24}\n[0.01,\"o\",\"$ ./counter\\r\\n\\u001b[32mcounting\\u001b[0m\\r\\n\"]\n",
    );
    for n in 1..=600 {
        writeln!(cast, "[{:.2},\"o\",\"\\u001b[2;10H{n:05}\"]", f64::from(n) * 0.1)
            .expect("a String takes writes");
    }
    let recording = Recording::read(cast.as_bytes(), "counter.cast").expect("the cast reads");
    let frames = recording.frames(&FrameOptions::default()).expect("the frames");
    let options = RenderOptions::default();
    let dir = std::env::temp_dir().join(format!("tuipilot-apng-size-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let write = |target: AnimationTarget| {
        let started = std::time::Instant::now();
        let written =
            write_frames(&frames, &options, &target, GifPalette::PerFrame, true, false).expect("written");
        (written, started.elapsed().as_secs_f64())
    };
    let (apng, apng_took) = write(AnimationTarget::Apng(dir.join("counter.apng")));
    let (whole, whole_took) = write(AnimationTarget::Folder(dir.join("frames")));
    let (gif, gif_took) = write(AnimationTarget::Gif(dir.join("counter.gif")));
    let mb = |bytes: u64| bytes as f64 / 1e6;
    println!("a 60 s counter, 80x24, {} frames:", apng.frames);
    println!(
        "    baseline: every frame whole (PNGs)   {:>8.2} MB  {whole_took:>6.2} s",
        mb(whole.bytes)
    );
    println!(
        "    GIF                                  {:>8.2} MB  {gif_took:>6.2} s",
        mb(gif.bytes)
    );
    println!(
        "    animated PNG, frame regions          {:>8.2} MB  {apng_took:>6.2} s (goal <= 40 MB), {:.3}x the whole frames",
        mb(apng.bytes),
        apng.bytes as f64 / whole.bytes as f64
    );
    std::fs::remove_dir_all(&dir).ok();
}
