//! The rows a program made double size (DECDWL, DECDHL): painted as single rows first,
//! then the row's first half of the columns stretched to twice the width — and, for the
//! two halves of a double-height line, to twice the height, the top or the bottom half
//! shown — as a VT100 and xterm draw them. Each pixel is doubled (nearest), so a
//! doubled picture is as sharp as the single one and the same on every run.

use tiny_skia::{FilterQuality, IntRect, Pixmap, PixmapPaint, Transform};

use super::Metrics;
use super::canvas::Canvas;
use crate::color::Rgb;
use crate::snapshot::{LineSize, Snapshot};

/// Redraws each double-size row of `snapshot` on `canvas` at its size.
pub(crate) fn double_rows(canvas: &mut Canvas, snapshot: &Snapshot, metrics: &Metrics, background: Rgb) {
    let (cols, rows) = snapshot.size();
    let (cw, ch) = (metrics.cell_width, metrics.cell_height);
    for row in 0..rows {
        let size = snapshot.line_size(row);
        if size == LineSize::Single {
            continue;
        }
        let (x, y) = metrics.origin(row, 0);
        let half = u32::from(cols / 2).max(1) * cw;
        let Some(left) = IntRect::from_xywh(x, y, half, ch).and_then(|r| canvas.pixmap.clone_rect(r)) else {
            continue;
        };
        let Some(mut strip) = Pixmap::new(u32::from(cols) * cw, ch) else {
            continue;
        };
        // Twice as wide; double height also twice as tall, moved up a row for the bottom half.
        let (sy, dy) = match size {
            LineSize::DoubleTop => (2.0, 0.0),
            LineSize::DoubleBottom => (2.0, -(ch as f32)),
            _ => (1.0, 0.0),
        };
        strip.fill(tiny_skia::Color::from_rgba8(
            background.0,
            background.1,
            background.2,
            255,
        ));
        let paint = PixmapPaint {
            quality: FilterQuality::Nearest,
            ..PixmapPaint::default()
        };
        strip.draw_pixmap(
            0,
            0,
            left.as_ref(),
            &paint,
            Transform::from_row(2.0, 0.0, 0.0, sy, 0.0, dy),
            None,
        );
        canvas.pixmap.draw_pixmap(
            x,
            y,
            strip.as_ref(),
            &PixmapPaint::default(),
            Transform::identity(),
            None,
        );
    }
}
