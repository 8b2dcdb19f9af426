//! Snapshot → PNG at 80×24 and 200×60, against the floor of the png crate encoding the
//! already rendered RGBA buffer with the same compression, in the same run; and
//! snapshot → SVG against the PNG.
//! (`tuipilot capture --png` end to end is timed by the CLI's `agent_loop` bench.)
//!
//! `cargo bench --bench render`

use tuipilot::Terminal;
use tuipilot::render::{RenderOptions, SvgFrame};

mod support;
use support::time;

/// A busy screen: coloured text on every row, box drawing, a few attributes.
fn busy(cols: u16, rows: u16) -> tuipilot::Snapshot {
    let mut t = Terminal::new(cols, rows).unwrap();
    let mut s = String::new();
    for r in 0..rows {
        s.push_str(&format!("\x1b[{};1H\x1b[3{}m", r + 1, r % 8));
        for c in 0..cols {
            s.push(match (r + c) % 11 {
                0 => '│',
                1 => '─',
                _ => char::from(b'a' + ((r * 7 + c) % 26) as u8),
            });
        }
        s.push_str("\x1b[0m");
    }
    t.process(s.as_bytes());
    t.snapshot()
}

/// Plain text in the default colours, as a shell or a man page shows it.
fn plain(cols: u16, rows: u16) -> tuipilot::Snapshot {
    let mut t = Terminal::new(cols, rows).unwrap();
    let mut s = String::new();
    for r in 0..rows {
        s.push_str(&format!("\x1b[{};1H", r + 1));
        for c in 0..cols {
            s.push(char::from(
                b"the quick brown fox jumps over a lazy dog; "[usize::from((r * 7 + c) % 43)],
            ));
        }
    }
    t.process(s.as_bytes());
    t.snapshot()
}

/// 80×24 of CJK and colour emoji: the fallback chain through the system's fonts.
fn cjk_and_emoji() -> tuipilot::Snapshot {
    let mut t = Terminal::new(80, 24).unwrap();
    let mut s = String::new();
    for r in 0..24 {
        s.push_str(&format!("\x1b[{};1H", r + 1));
        for c in 0..40 {
            s.push_str(["漢", "字", "😀", "🇯🇵", "한", "👍"][(r + c) % 6]);
        }
    }
    t.process(s.as_bytes());
    t.snapshot()
}

/// The floor: the png crate encoding the rendered RGBA buffer as it is, with the
/// compression captures use.
fn encode_floor(width: u32, height: u32, rgba: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(rgba).unwrap();
    writer.finish().unwrap();
    out
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let options = RenderOptions::default();
    // The first PNG of a process (a session's host starts with nothing parsed) against
    // the same PNG once the faces and glyphs are cached.
    let snap = busy(80, 24);
    let started = std::time::Instant::now();
    std::hint::black_box(snap.to_png(&options).unwrap());
    let first = started.elapsed();
    let warm = time(50, || {
        std::hint::black_box(snap.to_png(&options).unwrap());
    });
    println!(
        "first PNG of the process at 80x24: {:>7.2} ms; warm: {:>7.2} ms",
        ms(first),
        ms(warm)
    );
    println!(
        "  ratio: {:.2}x a warm one (target <= 2x)",
        first.as_secs_f64() / warm.as_secs_f64()
    );
    // CJK and colour emoji from the system's fonts, after the first capture.
    let cjk = cjk_and_emoji();
    let image = cjk.render(&options).unwrap();
    let floor = time(30, || {
        std::hint::black_box(encode_floor(image.width, image.height, &image.pixels));
    });
    let full = time(30, || {
        std::hint::black_box(cjk.to_png(&options).unwrap());
    });
    println!(
        "80x24 of CJK and colour emoji -> PNG: {:>7.2} ms; floor {:>7.2} ms; ratio {:.2}x (target <= 2x)",
        ms(full),
        ms(floor),
        full.as_secs_f64() / floor.as_secs_f64()
    );
    if cjk.render(&options).unwrap().pixels == image.pixels
        && tuipilot::render::missing_glyphs(&cjk, &options)
            .unwrap()
            .is_empty()
    {
        println!("  (every glyph drawn from the system's fonts)");
    } else {
        println!("  (some glyphs are missing: install fonts-noto-cjk and fonts-noto-color-emoji)");
    }
    // The two Noto collections named with --font, warm, against the same screen without.
    let named = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    ];
    if named.iter().all(|p| std::path::Path::new(p).exists()) {
        let with_fonts = named.iter().fold(options.clone(), |o, p| o.with_font(p));
        std::hint::black_box(snap.to_png(&with_fonts).unwrap());
        let with = time(50, || {
            std::hint::black_box(snap.to_png(&with_fonts).unwrap());
        });
        println!(
            "80x24 PNG with the two Noto CJK .ttc named: {:>7.2} ms; without: {:>7.2} ms; ratio {:.2}x (target <= 2x)",
            ms(with),
            ms(warm),
            with.as_secs_f64() / warm.as_secs_f64()
        );
    }
    // Plain text: few colours, so the PNG is written with a palette.
    let text = plain(80, 24);
    let image = text.render(&options).unwrap();
    let floor = time(50, || {
        std::hint::black_box(encode_floor(image.width, image.height, &image.pixels));
    });
    let full = time(50, || {
        std::hint::black_box(text.to_png(&options).unwrap());
    });
    println!(
        "80x24 of plain text -> PNG: {:>7.2} ms; floor {:>7.2} ms; ratio {:.2}x (target <= 1.0x)",
        ms(full),
        ms(floor),
        full.as_secs_f64() / floor.as_secs_f64()
    );
    for (cols, rows) in [(80u16, 24u16), (200, 60)] {
        let snap = busy(cols, rows);
        // Warm the glyph cache, as a session that has rendered once has.
        let image = snap.render(&options).unwrap();
        let floor = time(50, || {
            std::hint::black_box(encode_floor(image.width, image.height, &image.pixels));
        });
        let render_only = time(50, || {
            std::hint::black_box(snap.render(&options).unwrap());
        });
        let full = time(50, || {
            std::hint::black_box(snap.to_png(&options).unwrap());
        });
        println!(
            "{cols}x{rows} ({}x{} px), median of 50:",
            image.width, image.height
        );
        println!(
            "  png crate on the RGBA buffer (floor): {:>6.2} ms",
            floor.as_secs_f64() * 1e3
        );
        println!(
            "  render to pixels (cached glyphs):    {:>7.2} ms",
            render_only.as_secs_f64() * 1e3
        );
        println!(
            "  snapshot -> PNG:                     {:>7.2} ms",
            full.as_secs_f64() * 1e3
        );
        println!(
            "  ratio: {:.2}x the floor (eight colours of text: more than a palette holds)",
            full.as_secs_f64() / floor.as_secs_f64()
        );
        let svg = time(50, || {
            std::hint::black_box(snap.to_svg(&options, SvgFrame::None).unwrap());
        });
        println!(
            "  snapshot -> SVG:                     {:>7.2} ms ({:.2}x the PNG; target <= 1 ms at 80x24)",
            ms(svg),
            svg.as_secs_f64() / full.as_secs_f64()
        );
    }
}
