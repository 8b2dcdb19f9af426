//! Glyphs drawn from geometry instead of the font: box drawing (U+2500–257F), block
//! elements (U+2580–259F), braille (U+2800–28FF) and Powerline separators (U+E0B0–E0B3).
//!
//! Font glyphs for these leave gaps or overlaps between cells at most sizes. Here every
//! line is an integer rectangle positioned from the cell's own integer centre, so a line
//! leaving one cell continues exactly into the next.

use super::surface::{Seg, Surface};
use crate::color::Rgb;

/// The pixel geometry of one cell.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CellBox {
    pub x: i32,
    pub y: i32,
    pub w: i32,
    pub h: i32,
    /// Thickness of a light line.
    pub light: i32,
}

impl CellBox {
    fn heavy(&self) -> i32 {
        self.light * 2 + 1
    }

    /// Integer centre: the same offsets in every cell, so lines meet across cells.
    fn centre(&self) -> (i32, i32) {
        (self.w / 2, self.h / 2)
    }
}

/// Whether `c` is drawn here rather than from the font.
pub(crate) fn is_procedural(c: char) -> bool {
    matches!(c as u32, 0x2500..=0x259F | 0x2800..=0x28FF | 0xE0B0..=0xE0B3)
}

/// Draws `c` into the cell; the background is already painted.
pub(crate) fn draw(canvas: &mut impl Surface, c: char, cell: CellBox, fg: Rgb, bg: Rgb) {
    let code = c as u32;
    match code {
        0x2504..=0x250B | 0x254C..=0x254F => dashed(canvas, code, cell, fg),
        0x256D..=0x2570 => arc(canvas, code, cell, fg),
        0x2571..=0x2573 => diagonal(canvas, code, cell, fg),
        0x2500..=0x257F => lines(canvas, arms(code), cell, fg),
        0x2580..=0x259F => block(canvas, code, cell, fg, bg),
        0x2800..=0x28FF => braille(canvas, code, cell, fg),
        0xE0B0..=0xE0B3 => powerline(canvas, code, cell, fg),
        _ => {}
    }
}

/// Line weights of the four arms (up, right, down, left): 0 none, 1 light, 2 heavy,
/// 3 double.
fn arms(code: u32) -> [u8; 4] {
    const TABLE: [[u8; 4]; 128] = {
        let mut t = [[0u8; 4]; 128];
        // 2500–2503: straight lines.
        t[0x00] = [0, 1, 0, 1];
        t[0x01] = [0, 2, 0, 2];
        t[0x02] = [1, 0, 1, 0];
        t[0x03] = [2, 0, 2, 0];
        // 250C–254B: corners, tees and crosses in light/heavy combinations.
        let rest: [[u8; 4]; 64] = [
            [0, 1, 1, 0],
            [0, 2, 1, 0],
            [0, 1, 2, 0],
            [0, 2, 2, 0],
            [0, 0, 1, 1],
            [0, 0, 1, 2],
            [0, 0, 2, 1],
            [0, 0, 2, 2],
            [1, 1, 0, 0],
            [1, 2, 0, 0],
            [2, 1, 0, 0],
            [2, 2, 0, 0],
            [1, 0, 0, 1],
            [1, 0, 0, 2],
            [2, 0, 0, 1],
            [2, 0, 0, 2],
            [1, 1, 1, 0],
            [1, 2, 1, 0],
            [2, 1, 1, 0],
            [1, 1, 2, 0],
            [2, 1, 2, 0],
            [2, 2, 1, 0],
            [1, 2, 2, 0],
            [2, 2, 2, 0],
            [1, 0, 1, 1],
            [1, 0, 1, 2],
            [2, 0, 1, 1],
            [1, 0, 2, 1],
            [2, 0, 2, 1],
            [2, 0, 1, 2],
            [1, 0, 2, 2],
            [2, 0, 2, 2],
            [0, 1, 1, 1],
            [0, 1, 1, 2],
            [0, 2, 1, 1],
            [0, 2, 1, 2],
            [0, 1, 2, 1],
            [0, 1, 2, 2],
            [0, 2, 2, 1],
            [0, 2, 2, 2],
            [1, 1, 0, 1],
            [1, 1, 0, 2],
            [1, 2, 0, 1],
            [1, 2, 0, 2],
            [2, 1, 0, 1],
            [2, 1, 0, 2],
            [2, 2, 0, 1],
            [2, 2, 0, 2],
            [1, 1, 1, 1],
            [1, 1, 1, 2],
            [1, 2, 1, 1],
            [1, 2, 1, 2],
            [2, 1, 1, 1],
            [1, 1, 2, 1],
            [2, 1, 2, 1],
            [2, 1, 1, 2],
            [2, 2, 1, 1],
            [1, 1, 2, 2],
            [1, 2, 2, 1],
            [2, 2, 1, 2],
            [1, 2, 2, 2],
            [2, 1, 2, 2],
            [2, 2, 2, 1],
            [2, 2, 2, 2],
        ];
        let mut i = 0;
        while i < 64 {
            t[0x0C + i] = rest[i];
            i += 1;
        }
        // 2550–256C: double lines.
        let double: [[u8; 4]; 29] = [
            [0, 3, 0, 3],
            [3, 0, 3, 0],
            [0, 3, 1, 0],
            [0, 1, 3, 0],
            [0, 3, 3, 0],
            [0, 0, 1, 3],
            [0, 0, 3, 1],
            [0, 0, 3, 3],
            [1, 3, 0, 0],
            [3, 1, 0, 0],
            [3, 3, 0, 0],
            [1, 0, 0, 3],
            [3, 0, 0, 1],
            [3, 0, 0, 3],
            [1, 3, 1, 0],
            [3, 1, 3, 0],
            [3, 3, 3, 0],
            [1, 0, 1, 3],
            [3, 0, 3, 1],
            [3, 0, 3, 3],
            [0, 3, 1, 3],
            [0, 1, 3, 1],
            [0, 3, 3, 3],
            [1, 3, 0, 3],
            [3, 1, 0, 1],
            [3, 3, 0, 3],
            [1, 3, 1, 3],
            [3, 1, 3, 1],
            [3, 3, 3, 3],
        ];
        let mut i = 0;
        while i < 29 {
            t[0x50 + i] = double[i];
            i += 1;
        }
        // 2574–257F: half lines.
        let half: [[u8; 4]; 12] = [
            [0, 0, 0, 1],
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 2],
            [2, 0, 0, 0],
            [0, 2, 0, 0],
            [0, 0, 2, 0],
            [0, 2, 0, 1],
            [1, 0, 2, 0],
            [0, 1, 0, 2],
            [2, 0, 1, 0],
        ];
        let mut i = 0;
        while i < 12 {
            t[0x74 + i] = half[i];
            i += 1;
        }
        t
    };
    TABLE[(code - 0x2500) as usize]
}

/// Draws the four arms of a box-drawing character.
///
/// Along its axis an arm runs from the cell edge to the point where it meets the
/// perpendicular arms: to the near edge of a single or heavy line, to the outer stroke of
/// a double line, or to the inner stroke when both are double (so `╬` stays hollow).
fn lines(canvas: &mut impl Surface, [up, right, down, left]: [u8; 4], cell: CellBox, fg: Rgb) {
    let (cx, cy) = cell.centre();
    let l = cell.light;
    let gap = l.max(1);
    let thickness = |weight: u8| if weight == 2 { cell.heavy() } else { l };
    // The band [lo, hi) of a stroke of thickness t centred on c.
    let band = |c: i32, t: i32| (c - t / 2, c - t / 2 + t);
    // The span covered by the perpendicular arm(s) of weight w around centre c.
    let cover = |w: u8, c: i32| -> (i32, i32) {
        match w {
            0 => (c, c),
            3 => (band(c - gap, l).0, band(c + gap, l).1),
            w => band(c, thickness(w)),
        }
    };
    // (arm weight, is horizontal, runs toward the high edge, perpendicular arms (low, high))
    let arms = [
        (up, false, false, (left, right)),
        (right, true, true, (up, down)),
        (down, false, true, (left, right)),
        (left, true, false, (up, down)),
    ];
    for (weight, horizontal, positive, (perp_low, perp_high)) in arms {
        if weight == 0 {
            continue;
        }
        let (across, along, length) = if horizontal {
            (cy, cx, cell.w)
        } else {
            (cx, cy, cell.h)
        };
        let strokes: Vec<((i32, i32), u8)> = if weight == 3 {
            vec![
                (band(across - gap, l), perp_low),
                (band(across + gap, l), perp_high),
            ]
        } else {
            vec![(band(across, thickness(weight)), perp_low.max(perp_high))]
        };
        for ((s0, s1), near) in strokes {
            let perp = perp_low.max(perp_high);
            // The part of the axis where this stroke meets the perpendicular lines.
            let (lo, hi) = if weight == 3 && near == 3 {
                // Stop at the inner stroke of the perpendicular double line.
                let (inner_lo, inner_hi) = (band(along + gap, l).0, band(along - gap, l).1);
                (inner_lo, inner_hi)
            } else if weight == 3 && near != 0 {
                band(along, thickness(near))
            } else {
                cover(perp, along)
            };
            let (from, to) = if positive { (lo, length) } else { (0, hi) };
            if horizontal {
                canvas.fill_rect(cell.x + from, cell.y + s0, to - from, s1 - s0, fg);
            } else {
                canvas.fill_rect(cell.x + s0, cell.y + from, s1 - s0, to - from, fg);
            }
        }
    }
}

/// Dashed lines: 2504–250B (3 and 4 dashes), 254C–254F (2 dashes).
fn dashed(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb) {
    let (dashes, heavy, vertical) = match code {
        0x2504 => (3, false, false),
        0x2505 => (3, true, false),
        0x2506 => (3, false, true),
        0x2507 => (3, true, true),
        0x2508 => (4, false, false),
        0x2509 => (4, true, false),
        0x250A => (4, false, true),
        0x250B => (4, true, true),
        0x254C => (2, false, false),
        0x254D => (2, true, false),
        0x254E => (2, false, true),
        _ => (2, true, true),
    };
    let t = if heavy { cell.heavy() } else { cell.light };
    let (cx, cy) = cell.centre();
    let length = if vertical { cell.h } else { cell.w };
    for i in 0..dashes {
        // Each dash takes its share of the cell, minus a gap split over both ends.
        let start = length * i / dashes;
        let end = length * (i + 1) / dashes;
        let gap = ((end - start) / 4).max(1);
        let (a, b) = (start + gap / 2, end - (gap - gap / 2));
        if vertical {
            canvas.fill_rect(cell.x + cx - t / 2, cell.y + a, t, b - a, fg);
        } else {
            canvas.fill_rect(cell.x + a, cell.y + cy - t / 2, b - a, t, fg);
        }
    }
}

/// Rounded corners, 256D–2570: a quarter circle from one edge's midpoint to another's.
fn arc(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb) {
    let (cx, cy) = cell.centre();
    let t = cell.light as f32;
    // The centre line of a light stroke, as the straight lines place it.
    let mx = (cell.x + cx - cell.light / 2) as f32 + t / 2.0;
    let my = (cell.y + cy - cell.light / 2) as f32 + t / 2.0;
    let (left, right) = (cell.x as f32, (cell.x + cell.w) as f32);
    let (top, bottom) = (cell.y as f32, (cell.y + cell.h) as f32);
    let (start, end) = match code {
        0x256D => ((right, my), (mx, bottom)),
        0x256E => ((left, my), (mx, bottom)),
        0x256F => ((left, my), (mx, top)),
        _ => ((right, my), (mx, top)),
    };
    canvas.stroke(
        &[Seg::Move(start.0, start.1), Seg::Quad(mx, my, end.0, end.1)],
        t,
        fg,
    );
}

/// Diagonals, 2571–2573: corner to corner, so they meet the neighbours' diagonals.
fn diagonal(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb) {
    let (x0, y0) = (cell.x as f32, cell.y as f32);
    let (x1, y1) = ((cell.x + cell.w) as f32, (cell.y + cell.h) as f32);
    let t = cell.light as f32;
    if code == 0x2571 || code == 0x2573 {
        canvas.stroke(&[Seg::Move(x1, y0), Seg::Line(x0, y1)], t, fg);
    }
    if code == 0x2572 || code == 0x2573 {
        canvas.stroke(&[Seg::Move(x0, y0), Seg::Line(x1, y1)], t, fg);
    }
}

/// Block elements, 2580–259F.
fn block(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb, bg: Rgb) {
    let CellBox { x, y, w, h, .. } = cell;
    let eighth_h = |n: i32| h * n / 8;
    let eighth_w = |n: i32| w * n / 8;
    let (hx, hy) = (w / 2, h / 2);
    let mut fill =
        |x0: i32, y0: i32, x1: i32, y1: i32| canvas.fill_rect(x + x0, y + y0, x1 - x0, y1 - y0, fg);
    match code {
        0x2580 => fill(0, 0, w, hy),
        0x2581..=0x2588 => {
            let n = (code - 0x2580) as i32;
            fill(0, h - eighth_h(n), w, h);
        }
        0x2589..=0x258F => {
            let n = (0x2590 - code) as i32;
            fill(0, 0, eighth_w(n), h);
        }
        0x2590 => fill(hx, 0, w, h),
        0x2591..=0x2593 => {
            let alpha = [64u8, 128, 191][(code - 0x2591) as usize];
            canvas.fill_rect(x, y, w, h, super::mix(bg, fg, alpha));
        }
        0x2594 => fill(0, 0, w, eighth_h(1)),
        0x2595 => fill(w - eighth_w(1), 0, w, h),
        _ => {
            // Quadrants: upper-left, upper-right, lower-left, lower-right.
            let quads: [bool; 4] = match code {
                0x2596 => [false, false, true, false],
                0x2597 => [false, false, false, true],
                0x2598 => [true, false, false, false],
                0x2599 => [true, false, true, true],
                0x259A => [true, false, false, true],
                0x259B => [true, true, true, false],
                0x259C => [true, true, false, true],
                0x259D => [false, true, false, false],
                0x259E => [false, true, true, false],
                _ => [false, true, true, true],
            };
            let spans = [(0, 0, hx, hy), (hx, 0, w, hy), (0, hy, hx, h), (hx, hy, w, h)];
            for (on, (x0, y0, x1, y1)) in quads.iter().zip(spans) {
                if *on {
                    fill(x0, y0, x1, y1);
                }
            }
        }
    }
}

/// Braille patterns: a 2×4 grid of dots, bit n set for dot n+1.
fn braille(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb) {
    let bits = code - 0x2800;
    // (bit, column, row) for dots 1–8.
    const DOTS: [(u32, i32, i32); 8] = [
        (0, 0, 0),
        (1, 0, 1),
        (2, 0, 2),
        (3, 1, 0),
        (4, 1, 1),
        (5, 1, 2),
        (6, 0, 3),
        (7, 1, 3),
    ];
    let size = (cell.w / 4).min(cell.h / 8).max(1);
    for (bit, col, row) in DOTS {
        if bits & (1 << bit) == 0 {
            continue;
        }
        // Centre each dot in its quarter-width, eighth-height sub-cell.
        let cx = cell.w * (2 * col + 1) / 4;
        let cy = cell.h * (2 * row + 1) / 8;
        canvas.fill_rect(cell.x + cx - size / 2, cell.y + cy - size / 2, size, size, fg);
    }
}

/// Powerline separators: solid and outlined triangles pointing right or left.
fn powerline(canvas: &mut impl Surface, code: u32, cell: CellBox, fg: Rgb) {
    let (x0, y0) = (cell.x as f32, cell.y as f32);
    let (x1, y1) = ((cell.x + cell.w) as f32, (cell.y + cell.h) as f32);
    let ym = (y0 + y1) / 2.0;
    match code {
        0xE0B0 => canvas.fill(&[Seg::Move(x0, y0), Seg::Line(x1, ym), Seg::Line(x0, y1)], fg),
        0xE0B2 => canvas.fill(&[Seg::Move(x1, y0), Seg::Line(x0, ym), Seg::Line(x1, y1)], fg),
        0xE0B1 => {
            canvas.stroke(&[Seg::Move(x0, y0), Seg::Line(x1, ym)], cell.light as f32, fg);
            canvas.stroke(&[Seg::Move(x1, ym), Seg::Line(x0, y1)], cell.light as f32, fg);
        }
        _ => {
            canvas.stroke(&[Seg::Move(x1, y0), Seg::Line(x0, ym)], cell.light as f32, fg);
            canvas.stroke(&[Seg::Move(x0, ym), Seg::Line(x1, y1)], cell.light as f32, fg);
        }
    }
}
