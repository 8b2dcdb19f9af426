//! What shapes are drawn on: the PNG's canvas or an SVG's elements. Box drawing, the
//! decorations and the cursor are written once against [`Surface`], so a line meets its
//! neighbour, and a curly underline curls, the same way in both pictures.

use crate::color::Rgb;

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Seg {
    /// Starts a new piece at a point.
    Move(f32, f32),
    /// A straight line to a point.
    Line(f32, f32),
    /// A quadratic curve through a control point to a point.
    Quad(f32, f32, f32, f32),
}

/// A picture being drawn.
pub(crate) trait Surface {
    /// Fills an integer rectangle.
    fn fill_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: Rgb);
    /// Strokes a path `width` wide (anti-aliased).
    fn stroke(&mut self, path: &[Seg], width: f32, color: Rgb);
    /// Fills a closed path (anti-aliased, non-zero winding).
    fn fill(&mut self, path: &[Seg], color: Rgb);
}

/// A wave from `start` rightwards over `length` pixels, for a curly underline: `shape` is
/// its amplitude and period.
pub(crate) fn wave(start: (f32, f32), length: f32, (amplitude, period): (f32, f32)) -> Vec<Seg> {
    let mut path = vec![Seg::Move(start.0, start.1)];
    let half = period / 2.0;
    let mut x = 0.0;
    let mut up = true;
    while x < length {
        let step = half.min(length - x);
        let peak = if up { -amplitude } else { amplitude };
        path.push(Seg::Quad(
            start.0 + x + step / 2.0,
            start.1 + 2.0 * peak,
            start.0 + x + step,
            start.1,
        ));
        x += step;
        up = !up;
    }
    path
}
