//! Screens as SVG: crisp at any zoom, small, the text selectable — what a README or a
//! review page wants.
//!
//! The layout is the PNG's ([`Metrics`]: the same cell size, padding and baseline), so the
//! two pictures line up pixel for pixel where they agree. Backgrounds are rectangles (runs
//! of equal colour merged), text is one `<text>` per run of equally styled cells with every
//! character at its cell's exact x (so no font's advance can drift it off the grid; a wide
//! character centred in its two cells). A grapheme cluster is never split by code point:
//! a letter with its marks, and every emoji (a flag, a skin tone, a ZWJ sequence, a
//! one-cell ❤️), is one piece of text in a nested `<svg>` viewport of exactly its cells,
//! which clips what a browser's font draws beyond them; an emoji is sized and placed in
//! it as the PNG places it (at the largest size its cells allow, on the line of text, a
//! skin-tone sequence stretched over its cells). Box
//! drawing, block elements, braille and Powerline separators are paths drawn by the same
//! code as the PNG's (through [`Surface`]), decorations and the cursor likewise, and images
//! are embedded PNGs clipped to the cells that show them. Fonts are named, not embedded:
//! the bundled DejaVu Sans Mono first, then common monospace, CJK and emoji families.

use std::fmt::Write;

use base64::Engine;

use super::chain;
use super::draw::{cell_colors, cluster, cursor_mark, decorations};
use super::images::{drawn_size, shown_columns};
use super::procedural::{self, CellBox};
use super::surface::{Seg, Surface};
use super::{Metrics, PngCompression, RenderOptions, encode_png, image_size};
use crate::color::Rgb;
use crate::error::Result;
use crate::snapshot::{Cell, LineSize, Snapshot};

/// The font families asked for, in order.
const FONT_STACK: &str = "'DejaVu Sans Mono','Menlo','Consolas','Noto Sans Mono','Noto Sans CJK SC',\
                          'Noto Color Emoji','Apple Color Emoji','Segoe UI Emoji',monospace";

/// Whether an SVG draws a window around the screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SvgFrame {
    /// The screen alone, as the PNG shows it.
    #[default]
    None,
    /// A window: rounded corners and a title bar with the three buttons and the title.
    Window,
}

/// Height of the window's title bar, before scaling.
const TITLE_BAR: u32 = 28;

fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

/// A number as short as it can be written.
fn num(v: f32) -> String {
    let rounded = (v * 100.0).round() / 100.0;
    if rounded.fract() == 0.0 {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

/// Text safe inside an element or attribute; characters XML forbids are left out.
fn escape(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(' '),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
}

/// Shapes as SVG elements; rectangles are merged into one path per colour.
#[derive(Default)]
struct Shapes {
    rects: Vec<(Rgb, String)>,
    elements: String,
}

impl Surface for Shapes {
    fn fill_rect(&mut self, x: i32, y: i32, w: i32, h: i32, color: Rgb) {
        if w <= 0 || h <= 0 {
            return;
        }
        let index = match self.rects.iter().position(|(c, _)| *c == color) {
            Some(i) => i,
            None => {
                self.rects.push((color, String::new()));
                self.rects.len() - 1
            }
        };
        let _ = write!(self.rects[index].1, "M{x} {y}h{w}v{h}h-{w}z");
    }

    fn stroke(&mut self, path: &[Seg], width: f32, color: Rgb) {
        let _ = writeln!(
            self.elements,
            r#"<path d="{}" fill="none" stroke="{}" stroke-width="{}"/>"#,
            path_data(path),
            hex(color),
            num(width)
        );
    }

    fn fill(&mut self, path: &[Seg], color: Rgb) {
        let _ = writeln!(
            self.elements,
            r#"<path d="{}z" fill="{}"/>"#,
            path_data(path),
            hex(color)
        );
    }
}

impl Shapes {
    fn finish(self, out: &mut String) {
        for (color, d) in self.rects {
            let _ = writeln!(out, r#"<path d="{d}" fill="{}"/>"#, hex(color));
        }
        out.push_str(&self.elements);
    }
}

fn path_data(path: &[Seg]) -> String {
    let mut d = String::new();
    for step in path {
        let _ = match *step {
            Seg::Move(x, y) => write!(d, "M{} {}", num(x), num(y)),
            Seg::Line(x, y) => write!(d, "L{} {}", num(x), num(y)),
            Seg::Quad(cx, cy, x, y) => write!(d, "Q{} {} {} {}", num(cx), num(cy), num(x), num(y)),
        };
    }
    d
}

/// A run of cells drawn as one `<text>`.
struct Run {
    fg: Rgb,
    bold: bool,
    italic: bool,
    xs: String,
    text: String,
}

impl Run {
    fn flush(&mut self, out: &mut String, y: i32) {
        if self.text.is_empty() {
            return;
        }
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{y}" fill="{}"{}>{}</text>"#,
            self.xs.trim_end(),
            hex(self.fg),
            style_class(self.bold, self.italic),
            self.text
        );
        self.xs.clear();
        self.text.clear();
    }
}

/// The class attribute that makes text bold and/or italic (none for regular text).
fn style_class(bold: bool, italic: bool) -> &'static str {
    match (bold, italic) {
        (false, false) => "",
        (true, false) => r#" class="b""#,
        (false, true) => r#" class="i""#,
        (true, true) => r#" class="b i""#,
    }
}

/// A screen's SVG in pieces: each row's backgrounds, each row's text (with its drawn
/// glyphs and decorations), and what lies across rows — images below and above the text,
/// and the cursor. [`to_svg`] joins them; a report of many screens keeps each distinct
/// piece once, since most rows do not change from one screen to the next.
#[derive(Clone, Debug, PartialEq)]
pub struct SvgParts {
    /// The picture's width in pixels.
    pub width: u32,
    /// Its height in pixels.
    pub height: u32,
    /// The text's size in pixels (the `font-size` the text elements need).
    pub font_px: f32,
    /// The screen's background colour (`#rrggbb`), under everything.
    pub background: String,
    /// Each row's background rectangles (empty where the row is all default background).
    pub backgrounds: Vec<String>,
    /// Images drawn below the text.
    pub below: String,
    /// Each row's text, drawn glyphs and decorations.
    pub rows: Vec<String>,
    /// Images drawn over the text, and the cursor.
    pub above: String,
}

impl SvgParts {
    /// The `<style>` the text elements need (see [`text_style`]).
    pub fn style(&self) -> String {
        text_style(self.font_px)
    }

    /// The pieces in drawing order, after the background rectangle: every row's
    /// backgrounds, the images below, every row's text, the images above and the cursor.
    pub fn body(&self, out: &mut String) {
        let _ = writeln!(
            out,
            r#"<rect width="{}" height="{}" fill="{}"/>"#,
            self.width, self.height, self.background
        );
        self.backgrounds.iter().for_each(|piece| out.push_str(piece));
        out.push_str(&self.below);
        self.rows.iter().for_each(|piece| out.push_str(piece));
        out.push_str(&self.above);
    }
}

/// The style rules an SVG screen's text needs, for text of `font_px` pixels: the font
/// stack, the size, bold and italic.
pub fn text_style(font_px: f32) -> String {
    format!(
        "text{{font-family:{FONT_STACK};font-size:{}px;white-space:pre}}.b{{font-weight:bold}}.i{{font-style:italic}}",
        num(font_px)
    )
}

/// Renders a snapshot as an SVG document.
pub fn to_svg(snapshot: &Snapshot, options: &RenderOptions, frame: SvgFrame) -> Result<String> {
    let parts = svg_parts(snapshot, options)?;
    let (width, height) = (parts.width, parts.height);
    let bar = match frame {
        SvgFrame::None => 0,
        SvgFrame::Window => TITLE_BAR * options.scale.max(1),
    };
    let (cols, rows) = snapshot.size();
    let mut out = String::with_capacity(usize::from(cols) * usize::from(rows) * 24 + 4096);
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{}" viewBox="0 0 {width} {}">"#,
        height + bar,
        height + bar
    );
    let _ = writeln!(out, "<style>{}</style>", parts.style());
    if frame == SvgFrame::Window {
        window(&mut out, snapshot.title(), (width, height + bar), bar, options);
        let _ = writeln!(out, r#"<g transform="translate(0 {bar})">"#);
    }
    parts.body(&mut out);
    if frame == SvgFrame::Window {
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    Ok(out)
}

/// The colours (text, background) of each cell of `row`, as drawn: the cursor's block,
/// dim and inverse applied.
pub fn row_colors(snapshot: &Snapshot, row: u16, options: &RenderOptions) -> Vec<(Rgb, Rgb)> {
    let (cols, _) = snapshot.size();
    let blank = Cell::default();
    (0..cols)
        .map(|col| {
            cell_colors(
                options,
                snapshot,
                row,
                col,
                snapshot.cell(row, col).unwrap_or(&blank),
            )
        })
        .collect()
}

/// A number that is the same for two rows drawn the same: their cells (text, style,
/// width) and their colours as drawn ([`row_colors`]). A page of many screens draws each
/// such row once, at row 0, and places it ([`row_pieces`]).
pub fn row_key(snapshot: &Snapshot, row: u16, colors: &[(Rgb, Rgb)]) -> u64 {
    use std::hash::{Hash, Hasher};
    /// FNV-1a: a row is hashed for every frame of a report, where SipHash's resistance
    /// to chosen keys buys nothing. (Two rows with one 64-bit key would share a picture;
    /// a report holds thousands of rows, far from where that becomes likely.)
    struct Fnv(u64);
    impl Hasher for Fnv {
        fn finish(&self) -> u64 {
            self.0
        }
        fn write(&mut self, bytes: &[u8]) {
            for byte in bytes {
                self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    let mut hasher = Fnv(0xcbf2_9ce4_8422_2325);
    let (cols, _) = snapshot.size();
    for col in 0..cols {
        if let Some(cell) = snapshot.cell(row, col) {
            (cell.text(), cell.style, cell.wide, cell.wide_continuation).hash(&mut hasher);
        }
    }
    colors.hash(&mut hasher);
    hasher.finish()
}

/// Row `row`'s backgrounds and its text (with drawn glyphs and decorations), drawn where
/// row `place` is: `(row, row)` for a whole screen, `(row, 0)` for a piece a page places
/// itself (`translate(0, row × cell height)`).
pub fn row_pieces(
    snapshot: &Snapshot,
    (row, place): (u16, u16),
    colors: &[(Rgb, Rgb)],
    (m, options): (&Metrics, &RenderOptions),
) -> (String, String) {
    let theme = &options.theme;
    // Runs of one background become one rectangle.
    let mut shapes = Shapes::default();
    let cols = colors.len();
    let mut col = 0;
    while col < cols {
        let bg = colors[col].1;
        let start = col;
        while col < cols && colors[col].1 == bg {
            col += 1;
        }
        if bg != theme.background {
            let (x, y) = m.origin(place, start as u16);
            let w = (col - start) as i32 * m.cell_width as i32;
            shapes.fill_rect(x, y, w, m.cell_height as i32, bg);
        }
    }
    let mut background = String::new();
    shapes.finish(&mut background);
    let (mut text, mut shapes) = (String::new(), Shapes::default());
    text_row(
        &mut text,
        &mut shapes,
        snapshot,
        (row, place),
        colors,
        (m, options),
    );
    shapes.finish(&mut text);
    (background, text)
}

/// What lies across rows: the images below the text, and those above it with the cursor.
/// `colors` are every row's ([`row_colors`]).
pub fn overlays(
    snapshot: &Snapshot,
    colors: &[Vec<(Rgb, Rgb)>],
    (m, options): (&Metrics, &RenderOptions),
) -> Result<(String, String)> {
    let mut below = String::new();
    images(&mut below, snapshot, m, colors, options, false)?;
    let mut above = String::new();
    images(&mut above, snapshot, m, colors, options, true)?;
    let mut cursor = Shapes::default();
    cursor_mark(&mut cursor, m, options, snapshot);
    cursor.finish(&mut above);
    Ok((below, above))
}

/// Renders a snapshot as [`SvgParts`]: the SVG's pieces, row by row.
pub fn svg_parts(snapshot: &Snapshot, options: &RenderOptions) -> Result<SvgParts> {
    let options = &*super::shown_with(snapshot, options);
    let (cols, rows) = snapshot.size();
    let (width, height) = image_size(cols, rows, options)?;
    let theme = &options.theme;
    let m = Metrics::of(options);
    let colors: Vec<Vec<(Rgb, Rgb)>> = (0..rows).map(|row| row_colors(snapshot, row, options)).collect();
    let mut backgrounds = Vec::with_capacity(usize::from(rows));
    let mut text = Vec::with_capacity(usize::from(rows));
    for row in 0..rows {
        let (background, row_text) =
            row_pieces(snapshot, (row, row), &colors[usize::from(row)], (&m, options));
        let size = snapshot.line_size(row);
        backgrounds.push(sized(background, size, row, &m, width));
        text.push(sized(row_text, size, row, &m, width));
    }
    let (below, above) = overlays(snapshot, &colors, (&m, options))?;
    Ok(SvgParts {
        width,
        height,
        font_px: options.font_size * options.scale.max(1) as f32,
        background: hex(theme.background),
        backgrounds,
        below,
        rows: text,
        above,
    })
}

/// `piece` (a row's backgrounds or text) drawn at the row's size, as the PNG draws it
/// (see `render::lines`): twice as wide — the row's first half of the columns — and, for
/// the halves of a double-height line, twice as tall, clipped to the row by a nested
/// viewport (no ids, so a page of many screens cannot mix two rows' clips up).
fn sized(piece: String, size: LineSize, row: u16, m: &Metrics, width: u32) -> String {
    if size == LineSize::Single || piece.is_empty() {
        return piece;
    }
    let (x0, y0) = m.origin(row, 0);
    let ch = m.cell_height as i32;
    let (sy, ty) = match size {
        LineSize::DoubleTop => (2, -2 * y0),
        LineSize::DoubleBottom => (2, -2 * y0 - ch),
        _ => (1, -y0),
    };
    format!(
        "<svg x=\"0\" y=\"{y0}\" width=\"{width}\" height=\"{ch}\" overflow=\"hidden\"><g transform=\"matrix(2 0 0 {sy} {} {ty})\">{piece}</g></svg>\n",
        -x0
    )
}

/// One row's text runs, its procedural glyphs and its decorations, drawn where row
/// `place` is (the row itself for a whole screen; row 0 for a piece placed later).
fn text_row(
    out: &mut String,
    shapes: &mut Shapes,
    snapshot: &Snapshot,
    (row, place): (u16, u16),
    colors: &[(Rgb, Rgb)],
    (m, options): (&Metrics, &RenderOptions),
) {
    let (cols, _) = snapshot.size();
    let baseline = m.origin(place, 0).1 + m.baseline as i32;
    let px = options.font_size * options.scale.max(1) as f32;
    let mut run = Run {
        fg: Rgb(0, 0, 0),
        bold: false,
        italic: false,
        xs: String::new(),
        text: String::new(),
    };
    // Cells whose text joined the cluster of a cell before them (an emoji's modifier, a
    // flag's second letter, what follows a joiner): their glyph is that cluster's.
    let mut joined_until = 0;
    for col in 0..cols {
        let Some(cell) = snapshot.cell(row, col) else {
            continue;
        };
        if cell.wide_continuation {
            continue;
        }
        let (fg, bg) = colors[usize::from(col)];
        let (x, y) = m.origin(place, col);
        let span = if cell.wide { 2 } else { 1 };
        let style = cell.style;
        if !style.hidden {
            decorations(
                shapes,
                (m, &options.theme),
                &style,
                (x, y),
                m.cell_width as i32 * span,
                fg,
            );
        }
        if col < joined_until {
            continue;
        }
        // One grapheme cluster is one piece of text at one x, as the PNG draws it: a
        // browser given an x per code point draws 👍🏽 as a hand and a brown square.
        let (text, end) = cluster(snapshot, row, col);
        joined_until = end;
        let text = text.as_str();
        let mut chars = text.chars();
        let (Some(first), rest) = (chars.next(), chars.as_str()) else {
            continue;
        };
        if style.hidden || text.trim().is_empty() {
            continue;
        }
        if rest.is_empty() && procedural::is_procedural(first) {
            let cell_box = CellBox {
                x,
                y,
                w: m.cell_width as i32 * span,
                h: m.cell_height as i32,
                light: m.light(),
            };
            procedural::draw(shapes, first, cell_box, fg, bg);
            continue;
        }
        let cells = end - col;
        if chain::wants_color(text) {
            // An emoji is fitted to its cells, as the PNG does: a browser draws it at the
            // font size, wider than one cell, over its neighbours.
            run.flush(out, baseline);
            let fill = cells > 2 && text.chars().any(chain::is_skin_tone);
            let piece = Piece {
                x,
                y,
                width: m.cell_width * u32::from(cells),
                fill,
            };
            emoji(out, &piece, text, fg, (m, options));
            continue;
        }
        if !rest.is_empty() {
            // A letter and its marks, placed as a whole and clipped to its cells: a mark
            // a browser's font draws wide (an enclosing circle) stays in them.
            run.flush(out, baseline);
            let piece = Piece {
                x,
                y,
                width: m.cell_width * u32::from(cells),
                fill: false,
            };
            let attributes = format!(
                r#"x="0" y="{}" fill="{}"{}"#,
                m.baseline,
                hex(fg),
                style_class(style.bold, style.italic)
            );
            piece.write(out, m, &attributes, text);
            continue;
        }
        if run.fg != fg || run.bold != style.bold || run.italic != style.italic {
            run.flush(out, baseline);
            run.fg = fg;
            run.bold = style.bold;
            run.italic = style.italic;
        }
        // A wide character (CJK: one em across) is centred in its two cells, as the PNG
        // centres it.
        let x = if cells == 2 {
            x as f32 + ((m.cell_width * 2) as f32 - px).max(0.0) / 2.0
        } else {
            x as f32
        };
        let _ = write!(run.xs, "{} ", num(x));
        escape(&mut run.text, text);
    }
    run.flush(out, baseline);
}

/// The cells a piece of text is drawn in: their top-left corner and width, whether it is
/// stretched to cover them (a skin-tone sequence that took two cells per code point).
struct Piece {
    x: i32,
    y: i32,
    width: u32,
    fill: bool,
}

impl Piece {
    /// Writes `<text {attributes}>text</text>` in a viewport of exactly these cells, which
    /// clips whatever a browser's font draws beyond them, as the PNG's cells do.
    fn write(&self, out: &mut String, m: &Metrics, attributes: &str, text: &str) {
        let mut escaped = String::new();
        escape(&mut escaped, text);
        let _ = writeln!(
            out,
            r#"<svg x="{}" y="{}" width="{}" height="{}"><text {attributes}>{escaped}</text></svg>"#,
            self.x, self.y, self.width, m.cell_height,
        );
    }
}

/// How wide a colour font's emoji is, in ems (Noto Color Emoji's advance is 1.245 em;
/// Apple's and Segoe's are narrower): the size an emoji is given so it fits its cells.
const EMOJI_ADVANCE: f32 = 1.25;

/// An emoji in its cells: at the largest size they allow (never above the text's),
/// centred across, its middle where a full-size emoji's is on the line of text — as the
/// PNG places it ([`super::outline`]). A skin-tone sequence is stretched over all its
/// cells.
fn emoji(out: &mut String, piece: &Piece, text: &str, fg: Rgb, (m, options): (&Metrics, &RenderOptions)) {
    let px = options.font_size * options.scale.max(1) as f32;
    let (w, h) = (piece.width as f32, m.cell_height as f32);
    let size = px.min(w / EMOJI_ADVANCE).min(h / EMOJI_ADVANCE);
    // A colour font's emoji spans about 0.95 em above its baseline and 0.25 em below.
    let middle = m.baseline as f32 - super::outline::TEXT_MIDDLE * px;
    let baseline = (middle + super::outline::TEXT_MIDDLE * size).clamp(0.95 * size, h - 0.25 * size);
    // Centred, or (stretched) from the left edge over the whole width.
    let how = if piece.fill {
        format!(r#"x="0" textLength="{}" lengthAdjust="spacingAndGlyphs""#, num(w))
    } else {
        format!(r#"x="{}" text-anchor="middle""#, num(w / 2.0))
    };
    let attributes = format!(
        r#"{how} y="{}" fill="{}" style="font-size:{}px""#,
        num(baseline),
        hex(fg),
        num(size)
    );
    piece.write(out, m, &attributes, text);
}

/// Embeds the images below (or above) the text, each clipped to the cells that show it:
/// its visible rows, without the cells text or a background hides.
fn images(
    out: &mut String,
    snapshot: &Snapshot,
    m: &Metrics,
    colors: &[Vec<(Rgb, Rgb)>],
    options: &RenderOptions,
    above: bool,
) -> Result<()> {
    for (index, image) in snapshot.images().iter().enumerate() {
        if image.above_text != above {
            continue;
        }
        let mut clip = Shapes::default();
        for &(row, _) in image.visible_rows() {
            let below = (!above).then(|| colors[usize::from(row)].as_slice());
            for col in shown_columns(snapshot, image, row, below, options.theme.background) {
                let (x, y) = m.origin(row, col);
                clip.fill_rect(x, y, m.cell_width as i32, m.cell_height as i32, Rgb(0, 0, 0));
            }
        }
        let Some((_, cells)) = clip.rects.pop() else {
            continue;
        };
        let (x, y) = m.origin(0, image.col);
        let top = y as f32 + image.row as f32 * m.cell_height as f32;
        let (w, h) = drawn_size(image, m);
        let (pw, ph, rgba) = image.pixels();
        let png = encode_png(pw, ph, rgba, PngCompression::Fast)?;
        let _ = writeln!(
            out,
            r#"<clipPath id="image{index}"><path d="{cells}"/></clipPath>"#
        );
        let _ = writeln!(
            out,
            r#"<image x="{x}" y="{}" width="{}" height="{}" preserveAspectRatio="none" clip-path="url(#image{index})" href="data:image/png;base64,{}"/>"#,
            num(top),
            num(w),
            num(h),
            base64::engine::general_purpose::STANDARD.encode(png)
        );
    }
    Ok(())
}

/// The window: a rounded frame in the theme's background and a title bar above the screen.
fn window(out: &mut String, title: &str, (width, height): (u32, u32), bar: u32, options: &RenderOptions) {
    let theme = &options.theme;
    let scale = options.scale.max(1) as f32;
    let bar_color = super::mix(theme.background, theme.foreground, 24);
    let _ = writeln!(
        out,
        r#"<clipPath id="window"><rect width="{width}" height="{height}" rx="{r}"/></clipPath><g clip-path="url(#window)"><rect width="{width}" height="{height}" fill="{}"/><rect width="{width}" height="{bar}" fill="{}"/></g>"#,
        hex(theme.background),
        hex(bar_color),
        r = num(8.0 * scale),
    );
    for (i, color) in ["#ff5f57", "#febc2e", "#28c840"].iter().enumerate() {
        let _ = writeln!(
            out,
            r#"<circle cx="{}" cy="{}" r="{}" fill="{color}"/>"#,
            num((14.0 + 20.0 * i as f32) * scale),
            num(bar as f32 / 2.0),
            num(6.0 * scale)
        );
    }
    if !title.is_empty() {
        let mut escaped = String::new();
        escape(&mut escaped, title);
        let _ = writeln!(
            out,
            r#"<text x="{}" y="{}" fill="{}" text-anchor="middle" style="font-size:{}px">{escaped}</text>"#,
            num(width as f32 / 2.0),
            num(bar as f32 / 2.0 + 4.5 * scale),
            hex(super::mix(theme.background, theme.foreground, 160)),
            num(13.0 * scale)
        );
    }
}
