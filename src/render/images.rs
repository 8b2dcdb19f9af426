//! Terminal images in the picture: each image sampled straight into the cells that show
//! it, scaled from the terminal's cells to the render's — never drawn whole first, so an
//! image a program declares enormous costs what its visible cells cost.
//!
//! A sixel or iTerm2 image (or a kitty image below the text) is drawn after the row's
//! backgrounds and before its text, and a cell holding text or a background of its own
//! hides its part, as text written over a sixel does in xterm; a kitty image above the
//! text (z ≥ 0, kitty's default) is drawn over everything but the cursor.

use tiny_skia::{FilterQuality, Paint, Pattern, Pixmap, Rect, SpreadMode, Transform};

use super::Metrics;
use crate::color::Rgb;
use crate::snapshot::Snapshot;
use crate::terminal::Image;

/// Straight RGBA pixels as a (premultiplied) pixmap.
pub(super) fn pixmap(width: u32, height: u32, rgba: &[u8]) -> Option<Pixmap> {
    let mut out = Pixmap::new(width, height)?;
    for (dst, src) in out.pixels_mut().iter_mut().zip(rgba.chunks_exact(4)) {
        *dst = tiny_skia::ColorU8::from_rgba(src[0], src[1], src[2], src[3]).premultiply();
    }
    Some(out)
}

/// The size an image is drawn at in this render's pixels: its size in the terminal's
/// pixels, scaled from the terminal's cells to the render's.
pub(super) fn drawn_size(image: &Image, metrics: &Metrics) -> (f32, f32) {
    (
        image.display.0 as f32 * metrics.cell_width as f32 / f32::from(image.cell.width.max(1)),
        image.display.1 as f32 * metrics.cell_height as f32 / f32::from(image.cell.height.max(1)),
    )
}

/// The screen columns of `row` where the image shows: those it covers on the screen, and
/// for an image below the text (`colors`: the row's cell colours) only the cells with
/// neither text nor a background of their own, as text written over a sixel hides it.
pub(super) fn shown_columns(
    snapshot: &Snapshot,
    image: &Image,
    row: u16,
    colors: Option<&[(Rgb, Rgb)]>,
    background: Rgb,
) -> Vec<u16> {
    let (cols, _) = snapshot.size();
    let hidden = |col: u16| {
        colors.is_some_and(|colors| {
            colors
                .get(usize::from(col))
                .is_some_and(|&(_, bg)| bg != background)
                || snapshot
                    .cell(row, col)
                    .is_some_and(|c| !c.text().trim().is_empty())
        })
    };
    (image.col..image.col.saturating_add(image.cols).min(cols))
        .filter(|&col| !hidden(col))
        .collect()
}

/// Each image's picture as a pixmap (`None`: nothing to draw).
pub(super) fn sources(images: &[Image]) -> Vec<Option<Pixmap>> {
    images
        .iter()
        .map(|image| {
            let (w, h, rgba) = image.pixels();
            pixmap(w, h, rgba)
        })
        .collect()
}

/// Fills the canvas rectangles `cells` (x, y, width, height) with the part of the image
/// that lies there, the image's top-left corner at `origin` and scaled to its drawn size:
/// sampled straight into the canvas, so however large a program says its image is, no
/// more than the visible cells is ever drawn.
pub(super) fn fill(
    canvas: &mut Pixmap,
    source: &Pixmap,
    image: &Image,
    metrics: &Metrics,
    origin: (f32, f32),
    cells: &[(i32, i32, i32, i32)],
) {
    let (dw, dh) = drawn_size(image, metrics);
    let transform = Transform::from_row(
        dw / source.width() as f32,
        0.0,
        0.0,
        dh / source.height() as f32,
        origin.0,
        origin.1,
    );
    let paint = Paint {
        shader: Pattern::new(
            source.as_ref(),
            SpreadMode::Pad,
            FilterQuality::Bilinear,
            1.0,
            transform,
        ),
        ..Paint::default()
    };
    for &(x, y, w, h) in cells {
        // Only where the image is: past its edges the pattern would repeat its border.
        let (x0, y0) = ((x as f32).max(origin.0), (y as f32).max(origin.1));
        let (x1, y1) = (
            ((x + w) as f32).min(origin.0 + dw),
            ((y + h) as f32).min(origin.1 + dh),
        );
        if let Some(rect) = Rect::from_ltrb(x0, y0, x1, y1) {
            canvas.fill_rect(rect, &paint, Transform::identity(), None);
        }
    }
}
