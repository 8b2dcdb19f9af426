//! The pixel surface: an opaque RGBA image with the few drawing operations the renderer
//! needs. Rectangles are exact integer fills; glyph coverage is blended by hand; curves
//! and diagonals go through tiny-skia's anti-aliased paths.

use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, Stroke, Transform};

use super::surface::{Seg, Surface};
use crate::color::Rgb;

pub(crate) struct Canvas {
    pub pixmap: Pixmap,
}

fn paint(color: Rgb) -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(color.0, color.1, color.2, 255);
    paint.anti_alias = true;
    paint
}

impl Canvas {
    /// A canvas filled with `background`; `None` if the size is zero or too large.
    pub fn new(width: u32, height: u32, background: Rgb) -> Option<Canvas> {
        let mut pixmap = Pixmap::new(width, height)?;
        pixmap.fill(tiny_skia::Color::from_rgba8(
            background.0,
            background.1,
            background.2,
            255,
        ));
        Some(Canvas { pixmap })
    }

    fn width(&self) -> i32 {
        self.pixmap.width() as i32
    }

    fn height(&self) -> i32 {
        self.pixmap.height() as i32
    }

    /// Calls `blend(pixel, i)` for each pixel `i` (row-major) of a `w`×`h` image placed
    /// at (x, y) that lies on the canvas, with the canvas's RGBA pixel under it.
    fn blend_image(
        &mut self,
        (x, y): (i32, i32),
        (w, h): (usize, usize),
        mut blend: impl FnMut(&mut [u8], usize),
    ) {
        let stride = self.pixmap.width() as usize * 4;
        let (cw, ch) = (self.width(), self.height());
        // The image's columns that lie on the canvas.
        let (first, last) = ((-x).max(0) as usize, ((cw - x).max(0) as usize).min(w));
        if first >= last {
            return;
        }
        let data = self.pixmap.data_mut();
        for iy in 0..h {
            let py = y + iy as i32;
            if py < 0 || py >= ch {
                continue;
            }
            let start = py as usize * stride + (x + first as i32) as usize * 4;
            let row = &mut data[start..start + (last - first) * 4];
            for (ix, pixel) in (first..last).zip(row.chunks_exact_mut(4)) {
                blend(pixel, iy * w + ix);
            }
        }
    }

    /// Blends an 8-bit coverage bitmap of `w`×`h` at (x, y) in `color`.
    pub fn blend_coverage(&mut self, x: i32, y: i32, w: usize, h: usize, coverage: &[u8], color: Rgb) {
        self.blend_image((x, y), (w, h), |pixel, i| {
            let a = u32::from(coverage[i]);
            if a == 0 {
                return;
            }
            for (dst, value) in pixel.iter_mut().zip([color.0, color.1, color.2]) {
                *dst = ((u32::from(value) * a + u32::from(*dst) * (255 - a) + 127) / 255) as u8;
            }
        });
    }

    /// Composites a premultiplied image at (x, y), source over (by hand: a pipeline per
    /// emoji cell cost more than the blend).
    pub fn blend_premultiplied(&mut self, x: i32, y: i32, image: &Pixmap) {
        let src = image.data();
        let size = (image.width() as usize, image.height() as usize);
        self.blend_image((x, y), size, |pixel, i| {
            let s = &src[i * 4..i * 4 + 4];
            let a = u32::from(s[3]);
            if a == 0 {
                return;
            }
            for (dst, value) in pixel.iter_mut().zip(&s[..3]) {
                *dst = (u32::from(*value) + (u32::from(*dst) * (255 - a) + 127) / 255).min(255) as u8;
            }
        });
    }
}

/// Builds a tiny-skia path from steps.
fn path(steps: &[Seg]) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    for step in steps {
        match *step {
            Seg::Move(x, y) => pb.move_to(x, y),
            Seg::Line(x, y) => pb.line_to(x, y),
            Seg::Quad(cx, cy, x, y) => pb.quad_to(cx, cy, x, y),
        }
    }
    pb.finish()
}

impl Surface for Canvas {
    /// Fills an integer rectangle, clipped to the canvas.
    fn fill_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: Rgb) {
        let (x0, y0) = (x.max(0), y.max(0));
        let (x1, y1) = ((x + w).min(self.width()), (y + h).min(self.height()));
        if x0 >= x1 || y0 >= y1 {
            return;
        }
        let stride = self.pixmap.width() as usize * 4;
        let data = self.pixmap.data_mut();
        let px = [color.0, color.1, color.2, 255];
        for row in y0..y1 {
            let start = row as usize * stride + x0 as usize * 4;
            for pixel in data[start..start + (x1 - x0) as usize * 4].chunks_exact_mut(4) {
                pixel.copy_from_slice(&px);
            }
        }
    }

    fn stroke(&mut self, steps: &[Seg], width: f32, color: Rgb) {
        if let Some(path) = path(steps) {
            let stroke = Stroke {
                width,
                ..Stroke::default()
            };
            self.pixmap
                .stroke_path(&path, &paint(color), &stroke, Transform::identity(), None);
        }
    }

    fn fill(&mut self, steps: &[Seg], color: Rgb) {
        if let Some(path) = path(steps) {
            self.pixmap.fill_path(
                &path,
                &paint(color),
                FillRule::Winding,
                Transform::identity(),
                None,
            );
        }
    }
}
