//! A snapshot of the parser's screen: vt100's cells read once, each with the grapheme
//! and the attributes vt100 cannot hold (kept by `clusters`), into a [`Snapshot`] that
//! owns them.

use super::clusters::Clusters;
use crate::keys::InputModes;
use crate::snapshot::{Cell, Cursor, CursorShape, Image, LineSize, Snapshot, Style, UnderlineStyle};

/// The screen `screen` shows, with its title, input modes and images.
pub(super) fn snapshot_of(
    screen: &vt100::Screen,
    title: &str,
    input: InputModes,
    clusters: &Clusters,
    images: Vec<Image>,
    reverse_screen: bool,
    line_sizes: Vec<LineSize>,
) -> Snapshot {
    let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
    let mut cells = Vec::with_capacity(usize::from(rows) * usize::from(cols));
    for row in 0..rows {
        for col in 0..cols {
            let cell = match screen.cell(row, col) {
                Some(c) => {
                    let (text, extra) = clusters.decode_cell(c.contents());
                    let style = Style {
                        fg: c.fgcolor().into(),
                        bg: c.bgcolor().into(),
                        bold: c.bold(),
                        dim: c.dim(),
                        italic: c.italic(),
                        underline: c.underline(),
                        inverse: c.inverse(),
                        underline_style: match (c.underline(), extra.underline_style) {
                            (false, _) => UnderlineStyle::None,
                            (true, UnderlineStyle::None) => UnderlineStyle::Single,
                            (true, style) => style,
                        },
                        underline_color: extra.underline_color,
                        strikethrough: extra.strikethrough,
                        hidden: extra.hidden,
                        blink: extra.blink,
                        overline: extra.overline,
                    };
                    Cell::new(&text, style, c.is_wide(), c.is_wide_continuation())
                }
                None => Cell::default(),
            };
            cells.push(cell);
        }
    }
    let (crow, ccol) = screen.cursor_position();
    let (shape, blinking) = match screen.cursor_style() {
        vt100::CursorStyle::Default => (CursorShape::Block, true),
        vt100::CursorStyle::BlinkBlock => (CursorShape::Block, true),
        vt100::CursorStyle::SteadyBlock => (CursorShape::Block, false),
        vt100::CursorStyle::BlinkUnderline => (CursorShape::Underline, true),
        vt100::CursorStyle::SteadyUnderline => (CursorShape::Underline, false),
        vt100::CursorStyle::BlinkVerticalBar => (CursorShape::Bar, true),
        vt100::CursorStyle::SteadyVerticalBar => (CursorShape::Bar, false),
    };
    let cursor = Cursor {
        row: crow.min(rows - 1),
        col: ccol.min(cols - 1),
        visible: !screen.hide_cursor(),
        shape,
        blinking,
    };
    let wraps = (0..rows).map(|row| screen.row_wrapped(row)).collect();
    let mut snapshot = Snapshot::from_cells(
        cols,
        rows,
        cells,
        wraps,
        cursor,
        title,
        screen.alternate_screen(),
        input,
        images,
    );
    snapshot.reverse_screen = reverse_screen;
    snapshot.line_sizes = line_sizes;
    snapshot
}
