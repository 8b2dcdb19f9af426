//! Painting a snapshot's cells: backgrounds first (a glyph may span several cells), then
//! each cell's text — from geometry, a bundled glyph, an external face's glyph or a
//! colour emoji — and its decorations, then the cursor.

use tiny_skia::Pixmap;

use super::canvas::Canvas;
use super::chain::{self, Chain, Source};
use super::faces::ExternalFace;
use super::images;
use super::outline::{self, GlyphBox, Sprite, Synthetic};
use super::procedural::{self, CellBox};
use super::surface::{Surface, wave};
use super::{Metrics, RenderOptions, fonts, mix, resolve};
use crate::color::{Color, Rgb, Theme};
use crate::snapshot::{Cell, CursorShape, Snapshot};
use crate::style::UnderlineStyle;

/// What every cell of a render shares.
pub(crate) struct Painter<'a> {
    pub canvas: &'a mut Canvas,
    pub options: &'a RenderOptions,
    pub metrics: Metrics,
    pub chain: &'a Chain,
    /// Font size in pixels, scaled.
    pub px: f32,
}

impl Painter<'_> {
    fn cell_width(&self) -> i32 {
        self.metrics.cell_width as i32
    }

    fn cell_height(&self) -> i32 {
        self.metrics.cell_height as i32
    }

    fn light(&self) -> i32 {
        self.metrics.light()
    }

    fn origin(&self, row: u16, col: u16) -> (i32, i32) {
        self.metrics.origin(row, col)
    }

    fn colors(&self, snapshot: &Snapshot, row: u16, col: u16, cell: &Cell) -> (Rgb, Rgb) {
        cell_colors(self.options, snapshot, row, col, cell)
    }

    /// Paints every cell of the snapshot, its images, then the cursor.
    pub fn screen(&mut self, snapshot: &Snapshot) {
        let (cols, rows) = snapshot.size();
        let mut colors = Vec::with_capacity(usize::from(cols));
        let blank = Cell::default();
        let pictures = images::sources(snapshot.images());
        for row in 0..rows {
            colors.clear();
            for col in 0..cols {
                let cell = snapshot.cell(row, col).unwrap_or(&blank);
                let (fg, bg) = self.colors(snapshot, row, col, cell);
                if bg != self.options.theme.background && !cell.wide_continuation {
                    let (x, y) = self.origin(row, col);
                    let span = if cell.wide { 2 } else { 1 };
                    self.canvas
                        .fill_rect(x, y, self.cell_width() * span, self.cell_height(), bg);
                }
                colors.push((fg, bg));
            }
            self.images(snapshot, &pictures, row, Some(&colors));
            let mut col = 0;
            while col < cols {
                col = self.cell(snapshot, row, col, &colors);
            }
        }
        for row in 0..rows {
            self.images(snapshot, &pictures, row, None);
        }
        self.cursor(snapshot);
    }

    /// Draws the strips of images shown on `row`: with the row's colours, those below the
    /// text (a cell with text or its own background hides its part); without, those above.
    fn images(
        &mut self,
        snapshot: &Snapshot,
        pictures: &[Option<Pixmap>],
        row: u16,
        colors: Option<&[(Rgb, Rgb)]>,
    ) {
        let background = self.options.theme.background;
        let (cw, ch) = (self.cell_width(), self.cell_height());
        for (image, picture) in snapshot.images().iter().zip(pictures) {
            let Some(picture) = picture else { continue };
            if image.above_text == colors.is_some() {
                continue;
            }
            for &(_, image_row) in image.visible_rows().iter().filter(|(r, _)| *r == row) {
                let shown: Vec<(i32, i32, i32, i32)> =
                    images::shown_columns(snapshot, image, row, colors, background)
                        .into_iter()
                        .map(|col| {
                            let (x, y) = self.origin(row, col);
                            (x, y, cw, ch)
                        })
                        .collect();
                let (x, y) = self.origin(row, image.col);
                let top = (y - i32::from(image_row) * ch) as f32;
                images::fill(
                    &mut self.canvas.pixmap,
                    picture,
                    image,
                    &self.metrics,
                    (x as f32, top),
                    &shown,
                );
            }
        }
    }

    /// Paints the text and decorations of the cell at `col` (and of the cells its glyph
    /// joins); returns the column after it.
    fn cell(&mut self, snapshot: &Snapshot, row: u16, col: u16, colors: &[(Rgb, Rgb)]) -> u16 {
        let Some(cell) = snapshot.cell(row, col) else {
            return col + 1;
        };
        if cell.wide_continuation {
            return col + 1;
        }
        let mut end = col + if cell.wide { 2 } else { 1 };
        let (x, y) = self.origin(row, col);
        let (fg, bg) = colors[usize::from(col)];
        let style = cell.style;
        let text = cell.text();
        let first = text.chars().next().unwrap_or(' ');
        if procedural::is_procedural(first) {
            let cell_box = CellBox {
                x,
                y,
                w: self.cell_width(),
                h: self.cell_height(),
                light: self.light(),
            };
            procedural::draw(self.canvas, first, cell_box, fg, bg);
        } else if !text.is_empty() && text != " " {
            // Emoji are never ASCII: plain text skips the cluster.
            let (cluster, joined_end) = if first.is_ascii() {
                (String::new(), end)
            } else {
                cluster(snapshot, row, col)
            };
            let joined_span = i32::from(joined_end - col);
            // An emoji and its skin tone took two cells each; drawn as one glyph, it
            // covers them all rather than sit between two gaps that read as spaces.
            let fill = joined_span > 2 && cluster.chars().any(chain::is_skin_tone);
            let drawn_in_color = chain::wants_color(&cluster)
                && chain::color_cluster(self.chain, &cluster).is_some_and(|(face, glyph)| {
                    let how = (fill, Synthetic::default());
                    self.sprite(&face, glyph, (x, y), joined_span, how, fg)
                });
            if drawn_in_color {
                end = joined_end;
            } else {
                let span = i32::from(end - col);
                for c in text.chars() {
                    self.char(c, (x, y), span, style.bold, style.italic, fg);
                }
            }
        }
        if !style.hidden {
            let width = self.cell_width() * i32::from(end - col);
            decorations(
                self.canvas,
                (&self.metrics, &self.options.theme),
                &style,
                (x, y),
                width,
                fg,
            );
        }
        end
    }

    /// Draws a glyph of an external face over `span` cells (a colour glyph stretched to
    /// fill them when asked; the styles the face lacks drawn on); false if it draws
    /// nothing.
    fn sprite(
        &mut self,
        face: &ExternalFace,
        glyph: ttf_parser::GlyphId,
        (x, y): (i32, i32),
        span: i32,
        (fill, synthetic): (bool, Synthetic),
        fg: Rgb,
    ) -> bool {
        let cell = GlyphBox {
            width: (self.cell_width() * span) as u32,
            height: self.cell_height() as u32,
            baseline: self.metrics.baseline as f32,
            px: self.px,
            fill,
            synthetic,
        };
        match outline::sprite(face, glyph, cell).as_deref() {
            Some(Sprite::Coverage(coverage)) => {
                self.canvas
                    .blend_coverage(x, y, cell.width as usize, cell.height as usize, coverage, fg);
                true
            }
            Some(Sprite::Color(pixmap)) => {
                self.canvas.blend_premultiplied(x, y, pixmap);
                true
            }
            None => false,
        }
    }

    /// Draws one character from the first face that has it; a character no face has is a
    /// box filling its cells, so the layout stays visible.
    fn char(&mut self, c: char, (x, y): (i32, i32), span: i32, bold: bool, italic: bool, fg: Rgb) {
        let (cw, ch) = (self.cell_width(), self.cell_height());
        match self.chain.face(c, bold, italic) {
            Some(Source::Bundled(face)) => {
                let glyph = fonts::glyph(face, c, self.px);
                let gm = glyph.metrics;
                // Centre glyphs narrower or wider than their cells (DejaVu Sans) in them.
                let slack = cw * span - gm.advance_width.round() as i32;
                let centre = if slack != 0 && !self.chain.bundled().is_monospace(face) {
                    slack / 2
                } else {
                    0
                };
                let gx = x + gm.xmin + centre;
                let gy = y + self.metrics.baseline as i32 - gm.ymin - gm.height as i32;
                self.canvas
                    .blend_coverage(gx, gy, gm.width, gm.height, &glyph.coverage, fg);
            }
            Some(Source::External(face, glyph, synthetic)) => {
                self.sprite(&face, glyph, (x, y), span, (false, synthetic), fg);
            }
            None if chain::needs_no_face(c) => {}
            None => {
                // Nothing can draw it: an outlined box over its cells.
                let t = 1.max(ch / 18);
                let (bx, by, bw, bh) = (x + 1, y + 2, cw * span - 2, ch - 4);
                self.canvas.fill_rect(bx, by, bw, t, fg);
                self.canvas.fill_rect(bx, by + bh - t, bw, t, fg);
                self.canvas.fill_rect(bx, by, t, bh, fg);
                self.canvas.fill_rect(bx + bw - t, by, t, bh, fg);
            }
        }
    }

    fn cursor(&mut self, snapshot: &Snapshot) {
        cursor_mark(self.canvas, &self.metrics, self.options, snapshot);
    }
}

/// The text a cell's glyph is made of and the column after it: the cell's own text,
/// joined with the cells after it when they continue one emoji — after a zero-width
/// joiner, a flag's second regional indicator, a skin-tone modifier — since each of those
/// takes cells of its own in a terminal that follows `wcwidth`.
pub(crate) fn cluster(snapshot: &Snapshot, row: u16, col: u16) -> (String, u16) {
    let width = |c: &Cell| if c.wide { 2 } else { 1 };
    let Some(cell) = snapshot.cell(row, col) else {
        return (String::new(), col + 1);
    };
    let mut text = cell.text().to_string();
    let mut end = col + width(cell);
    while let Some(next) = snapshot.cell(row, end) {
        let Some(lead) = next.text().chars().next() else {
            break;
        };
        let flag_pair = chain::is_regional_indicator(lead)
            && text.chars().filter(|&c| chain::is_regional_indicator(c)).count() == 1
            && chain::is_regional_indicator(text.chars().next().unwrap_or(' '));
        let joins = text.ends_with('\u{200D}') || flag_pair || chain::is_skin_tone(lead);
        if !joins {
            break;
        }
        text.push_str(next.text());
        end += width(next);
    }
    (text, end)
}

/// The foreground and background a cell is drawn in (dim, inverse, the block cursor and
/// hidden applied, in that order).
pub(crate) fn cell_colors(
    options: &RenderOptions,
    snapshot: &Snapshot,
    row: u16,
    col: u16,
    cell: &Cell,
) -> (Rgb, Rgb) {
    let theme = &options.theme;
    let style = cell.style;
    // xterm's boldColors: bold text in colours 0-7 is drawn in 8-15.
    let fg_color = match style.fg {
        Color::Indexed(i) if i < 8 && style.bold && options.bold_is_bright => Color::Indexed(i + 8),
        other => other,
    };
    let mut fg = resolve(fg_color, theme.foreground, theme);
    let mut bg = resolve(style.bg, theme.background, theme);
    // Dim is a property of the text's colour, applied before inverse swaps the two, as
    // xterm and alacritty do: dim + inverse is a dimmed bar with background-coloured text.
    if style.dim {
        fg = mix(fg, bg, 100);
    }
    if style.inverse {
        std::mem::swap(&mut fg, &mut bg);
    }
    let cursor = snapshot.cursor();
    let block_cursor = options.cursor
        && cursor.visible
        && cursor.shape == CursorShape::Block
        && (cursor.row, cursor.col) == (row, col);
    if block_cursor {
        fg = bg;
        bg = theme.cursor;
    }
    if style.hidden {
        fg = bg;
    }
    (fg, bg)
}

/// Underline (in its style and colour), strikethrough and overline over `width` pixels
/// of a row of cells starting at (x, y).
pub(crate) fn decorations(
    surface: &mut impl Surface,
    (m, theme): (&Metrics, &Theme),
    style: &crate::snapshot::Style,
    (x, y): (i32, i32),
    width: i32,
    fg: Rgb,
) {
    let t = m.underline_thickness as i32;
    if style.strikethrough {
        // Through the middle of lower-case letters.
        let middle = y + m.baseline as i32 - (m.cell_height as i32 * 3) / 10;
        surface.fill_rect(x, middle - t / 2, width, t, fg);
    }
    if style.overline {
        surface.fill_rect(x, y, width, t, fg);
    }
    let color = match style.underline_color {
        Color::Default => fg,
        other => resolve(other, fg, theme),
    };
    // The underline's top, kept inside the cell for the styles that need more room.
    let top = (y + m.baseline as i32 + m.underline_offset).min(y + m.cell_height as i32 - 3 * t);
    match style.underline_style {
        UnderlineStyle::None => {}
        UnderlineStyle::Single => surface.fill_rect(x, top, width, t, color),
        UnderlineStyle::Double => {
            surface.fill_rect(x, top, width, t, color);
            surface.fill_rect(x, top + 2 * t, width, t, color);
        }
        UnderlineStyle::Curly => {
            let amplitude = t as f32 * 1.5;
            let period = (m.cell_width as f32 / 2.0).max(4.0);
            let path = wave(
                (x as f32, top as f32 + amplitude),
                width as f32,
                (amplitude, period),
            );
            surface.stroke(&path, t as f32, color);
        }
        UnderlineStyle::Dotted | UnderlineStyle::Dashed => {
            let (on, off) = if style.underline_style == UnderlineStyle::Dotted {
                (t, t)
            } else {
                (3 * t, 2 * t)
            };
            let mut dx = 0;
            while dx < width {
                surface.fill_rect(x + dx, top, on.min(width - dx), t, color);
                dx += on + off;
            }
        }
    }
}

/// An underline or bar cursor, drawn over the text.
pub(crate) fn cursor_mark(
    surface: &mut impl Surface,
    metrics: &Metrics,
    options: &RenderOptions,
    snapshot: &Snapshot,
) {
    let cursor = snapshot.cursor();
    if !options.cursor || !cursor.visible || cursor.shape == CursorShape::Block {
        return;
    }
    let (x, y) = metrics.origin(cursor.row, cursor.col);
    let (cw, ch) = (metrics.cell_width as i32, metrics.cell_height as i32);
    let t = (metrics.light() * 2).max(2);
    let color = options.theme.cursor;
    match cursor.shape {
        CursorShape::Underline => surface.fill_rect(x, y + ch - t, cw, t, color),
        _ => surface.fill_rect(x, y, t, ch, color),
    }
}
