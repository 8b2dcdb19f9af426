//! Terminal images in the picture: each image scaled once from the terminal's cells to
//! the render's, then drawn strip by strip on the screen rows that show it.
//!
//! A sixel or iTerm2 image (or a kitty image below the text) is drawn after the row's
//! backgrounds and before its text, and a cell holding text or a background of its own
//! hides its part, as text written over a sixel does in xterm; a kitty image above the
//! text (z ≥ 0, kitty's default) is drawn over everything but the cursor.

use tiny_skia::{FilterQuality, Pixmap, PixmapPaint, Transform};

use super::Metrics;
use crate::terminal::Image;

/// Straight RGBA pixels as a (premultiplied) pixmap.
pub(super) fn pixmap(width: u32, height: u32, rgba: &[u8]) -> Option<Pixmap> {
    let mut out = Pixmap::new(width, height)?;
    for (dst, src) in out.pixels_mut().iter_mut().zip(rgba.chunks_exact(4)) {
        *dst = tiny_skia::ColorU8::from_rgba(src[0], src[1], src[2], src[3]).premultiply();
    }
    Some(out)
}

/// Each image of the screen scaled to the render's cells (`None`: nothing to draw).
pub(super) fn scale_all(images: &[Image], metrics: &Metrics) -> Vec<Option<Pixmap>> {
    images.iter().map(|image| scaled(image, metrics)).collect()
}

fn scaled(image: &Image, metrics: &Metrics) -> Option<Pixmap> {
    let (w, h, rgba) = image.pixels();
    let source = pixmap(w, h, rgba)?;
    let (sx, sy) = (
        metrics.cell_width as f32 / f32::from(image.cell.width.max(1)),
        metrics.cell_height as f32 / f32::from(image.cell.height.max(1)),
    );
    let (dw, dh) = (
        (image.display.0 as f32 * sx).round().max(1.0),
        (image.display.1 as f32 * sy).round().max(1.0),
    );
    let mut out = Pixmap::new(dw as u32, dh as u32)?;
    let paint = PixmapPaint {
        quality: FilterQuality::Bilinear,
        ..PixmapPaint::default()
    };
    let transform = Transform::from_scale(dw / w as f32, dh / h as f32);
    out.draw_pixmap(0, 0, source.as_ref(), &paint, transform, None);
    Some(out)
}

/// The part of `picture` for image cell row `image_row`, `height` pixels tall, with the
/// cells `hidden(col)` says are covered made transparent; `None` when nothing is left.
pub(super) fn strip(
    picture: &Pixmap,
    image_row: u16,
    (cell_width, height): (u32, u32),
    hidden: impl Fn(u16) -> bool,
) -> Option<Pixmap> {
    let top = u32::from(image_row) * height;
    if top >= picture.height() {
        return None;
    }
    let rows = height.min(picture.height() - top);
    let mut out = Pixmap::new(picture.width(), rows)?;
    let stride = picture.width() as usize * 4;
    let start = top as usize * stride;
    out.data_mut()
        .copy_from_slice(&picture.data()[start..start + rows as usize * stride]);
    for col in 0..picture.width().div_ceil(cell_width.max(1)) {
        if !hidden(col as u16) {
            continue;
        }
        let (x0, x1) = (col * cell_width, ((col + 1) * cell_width).min(picture.width()));
        for y in 0..rows as usize {
            out.data_mut()[y * stride + x0 as usize * 4..y * stride + x1 as usize * 4].fill(0);
        }
    }
    Some(out)
}
