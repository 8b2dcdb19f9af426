//! Snapshot → PNG at 80×24 and 200×60, against the floor of PNG-encoding an already
//! filled RGBA buffer of the same size with the same compression, in the same run.
//! (`tuipilot capture --png` end to end is timed by the CLI's `agent_loop` bench.)
//!
//! `cargo bench --bench render`

use tuipilot::Terminal;
use tuipilot::render::{PngCompression, RenderOptions, encode_png};

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

fn main() {
    let options = RenderOptions::default();
    for (cols, rows) in [(80u16, 24u16), (200, 60)] {
        let snap = busy(cols, rows);
        // Warm the glyph cache, as a session that has rendered once has.
        let image = snap.render(&options).unwrap();
        let floor = time(50, || {
            std::hint::black_box(
                encode_png(image.width, image.height, &image.pixels, PngCompression::Fast).unwrap(),
            );
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
            "  encode a filled RGBA buffer (floor): {:>7.2} ms",
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
            "  ratio: {:.2}x the floor (target <= 1.5x at 80x24)",
            full.as_secs_f64() / floor.as_secs_f64()
        );
    }
}
