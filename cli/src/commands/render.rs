//! `tuipilot render`: a recording (asciicast v2 or v3) to a GIF, an animated PNG, its
//! last frame or a folder of frames — the library's frames and animation writer behind
//! flags.

use std::path::PathBuf;

use serde_json::json;
use tuipilot::operation::PngRequest;
use tuipilot::record::{CastFile, Cut, FrameOptions};
use tuipilot::render::animation::{AnimationTarget, write_frames};
use tuipilot::render::gif::GifPalette;
use tuipilot::render::{FONT_SIZES, SCALES};

use crate::error::Failure;

// `render`'s arguments.
#[derive(clap::Args)]
pub(super) struct RenderRecordingArgs {
    /// The recording (.cast, asciicast v2 or v3).
    #[arg(value_name = "RECORDING")]
    recording: PathBuf,
    /// Where to write: .gif, .apng, .png (the last frame) or a folder/ (a PNG per frame).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    output: PathBuf,
    /// Colour theme: dark, light, Dracula, Nord, Catppuccin Mocha, or a theme JSON.
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
    /// A fallback font file for characters the bundled fonts lack (repeatable).
    #[arg(long = "font", value_name = "PATH")]
    fonts: Vec<PathBuf>,
    #[arg(long, value_name = "PX", help = format!("Font size in pixels, {} to {} (default 16)", FONT_SIZES.start(), FONT_SIZES.end()))]
    font_size: Option<f32>,
    #[arg(long, value_name = "N", help = format!("Pixel scale factor, {} to {} (default 1)", SCALES.start(), SCALES.end()))]
    scale: Option<u32>,
    /// Playback speed (2: twice as fast).
    #[arg(long, default_value_t = 1.0, value_name = "X")]
    speed: f64,
    /// Cut pauses longer than this many seconds to it.
    #[arg(long, value_name = "SECS")]
    idle_limit: Option<f64>,
    /// At most this many frames a second.
    #[arg(long, default_value_t = 30, value_name = "N")]
    fps_cap: u32,
    /// Start at this time in seconds, or at the first marker with this label.
    #[arg(long, value_name = "SECS|MARKER")]
    from: Option<String>,
    /// End at this time in seconds, or at the first marker with this label (default: the
    /// end, or for a program that left the alternate screen, its last screen before it
    /// left).
    #[arg(long, value_name = "SECS|MARKER")]
    to: Option<String>,
    /// GIF colours: a palette per frame (exact for terminal text) or one for all frames.
    #[arg(long, value_name = "frame|global", default_value = "frame", value_parser = ["frame", "global"])]
    palette: String,
    /// Play once instead of looping forever.
    #[arg(long)]
    no_loop: bool,
    /// Draw the keys that were pressed (Ctrl+C, ↓, typed text) in a chip at the bottom
    /// right, fading a second after the last.
    #[arg(long)]
    keys: bool,
}

pub(super) fn render(args: RenderRecordingArgs, json: bool) -> Result<(), Failure> {
    let here = std::env::current_dir()
        .map_err(|e| Failure::internal(format!("reading the current directory: {e}")))?;
    let options = PngRequest {
        theme: args.theme,
        fonts: args.fonts.iter().map(|f| here.join(f)).collect(),
        font_size: args.font_size,
        scale: args.scale,
        ..PngRequest::default()
    }
    .options()?;
    let target = AnimationTarget::from_path(&args.output)?;
    let started = std::time::Instant::now();
    let recording = CastFile::open(&args.recording)?;
    let frames = recording.frame_source(&FrameOptions {
        speed: args.speed,
        idle_limit: args.idle_limit,
        fps_cap: args.fps_cap,
        from: args.from.as_deref().map(Cut::parse),
        to: args.to.as_deref().map(Cut::parse),
        hidden: Vec::new(),
        keys: args.keys,
    })?;
    let palette = match args.palette.as_str() {
        "global" => GifPalette::Global,
        _ => GifPalette::PerFrame,
    };
    let written = write_frames(&frames, &options, &target, palette, !args.no_loop, args.keys)?;
    let seconds = started.elapsed().as_secs_f64();
    for note in &written.notes {
        eprintln!("tuipilot: note: {note}");
    }
    let path = target.path().display().to_string();
    if json {
        say!(
            "{}",
            json!({ "path": path, "frames": written.frames, "bytes": written.bytes, "seconds": seconds, "notes": written.notes })
        );
    } else {
        let plural = if written.frames == 1 { "" } else { "s" };
        say!(
            "wrote {path}: {} frame{plural}, {:.1} KB, in {:.2} s",
            written.frames,
            written.bytes as f64 / 1e3,
            seconds
        );
    }
    Ok(())
}
