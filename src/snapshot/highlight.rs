//! The rows a program highlights: a selection drawn as reverse video or a background
//! across a row (htop's selected process, a menu's item, mc's cursor bar), which shows in
//! the text only as the text it covers. A reply names them, so an agent that reads the
//! text knows which row is selected without asking for the colours.

use super::Snapshot;
use crate::color::Color;
use crate::style::Style;

/// A highlighted row: where, and its highlight's look.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Highlight {
    /// The row (0-based).
    pub row: u16,
    /// The highlighted cells' style.
    pub style: Style,
}

/// The shortest run of highlighted cells that counts as a row's highlight.
const MIN_RUN: usize = 4;

/// At most this many rows are named: more is a coloured layout, not a selection.
const MAX_NAMED: usize = 3;

/// Whether a cell's look stands out: reverse video, or a background of its own.
fn stands_out(style: &Style) -> bool {
    style.inverse || style.bg != Color::Default
}

/// The part of a style a highlight is: its background and whether it is reversed.
fn look(style: &Style) -> (bool, Color, Color) {
    (
        style.inverse,
        style.bg,
        if style.inverse { style.fg } else { Color::Default },
    )
}

impl Snapshot {
    /// The rows a highlight runs across: a run of cells of one standing-out look (reverse
    /// video, or a background) that covers half or more of the text of its pane — the
    /// row's text between the borders around the run (`│`: a panel, a menu's box), or the
    /// whole row where none are drawn — and some of that text. A look that runs so across
    /// a third of the rows or more is the layout's background (mc's blue panels, a dialog's
    /// box), not a selection, and is left out; past three rows, none are named.
    pub fn highlighted_rows(&self) -> Vec<Highlight> {
        let (cols, rows) = self.size();
        let mut found: Vec<(Highlight, (bool, Color, Color))> = Vec::new();
        for row in 0..rows {
            let cells: Vec<_> = (0..cols).filter_map(|col| self.cell(row, col)).collect();
            let blank = |i: usize| cells[i].text().trim().is_empty();
            let border = |i: usize| {
                matches!(
                    cells[i].text(),
                    "│" | "┃" | "║" | "|" | "▏" | "▕" | "╎" | "┆" | "┊"
                )
            };
            let mut at = 0;
            while at < cells.len() {
                if !stands_out(&cells[at].style) {
                    at += 1;
                    continue;
                }
                let start = at;
                let kind = look(&cells[start].style);
                while at < cells.len() && stands_out(&cells[at].style) && look(&cells[at].style) == kind {
                    at += 1;
                }
                let end = at;
                // The pane: between the borders around the run, else the whole row.
                let left = (0..start).rev().find(|&i| border(i)).map_or(0, |i| i + 1);
                let right = (end..cells.len()).find(|&i| border(i)).unwrap_or(cells.len());
                let (Some(first), Some(last)) = (
                    (left..right).find(|&i| !blank(i)),
                    (left..right).rfind(|&i| !blank(i)),
                ) else {
                    continue;
                };
                let extent = last + 1 - first;
                let covers_text = (start..end).any(|i| !blank(i));
                let seen = found.iter().any(|(h, k)| h.row == row && *k == kind);
                if end - start >= MIN_RUN && (end - start) * 2 >= extent && covers_text && !seen {
                    let style = cells[start].style;
                    found.push((Highlight { row, style }, kind));
                }
            }
        }
        let background = |kind: &(bool, Color, Color)| {
            let rows_with_it = found.iter().filter(|(_, k)| k == kind).count();
            rows_with_it >= 2 && rows_with_it * 3 >= usize::from(rows)
        };
        let mut kept: Vec<Highlight> = Vec::new();
        for (highlight, kind) in &found {
            if !background(kind) && !kept.iter().any(|h| h.row == highlight.row) {
                kept.push(highlight.clone());
            }
        }
        match kept.len() > MAX_NAMED {
            true => Vec::new(),
            false => kept,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Terminal;

    fn rows_of(bytes: &[u8]) -> Vec<u16> {
        let mut term = Terminal::new(30, 9).unwrap();
        term.process(bytes);
        term.snapshot().highlighted_rows().iter().map(|h| h.row).collect()
    }

    #[test]
    fn a_reversed_item_is_the_highlighted_row_and_a_coloured_word_is_not() {
        let menu =
            b"Pick one\r\n  Apples\r\n\x1b[7m  Bananas       \x1b[0m\r\n  Cherries \x1b[31mred\x1b[0m\r\n";
        assert_eq!(rows_of(menu), vec![2]);
    }

    #[test]
    fn a_selection_inside_a_box_or_a_panel_is_measured_against_its_pane() {
        // A menu item inside a box, and a cursor bar across the left of two panels.
        let screen = "┌──────────────────────┐\r\n│  \x1b[44m Bananas \x1b[0m            │\r\n└──────────────────────┘\r\n│\x1b[46m file-1       \x1b[0m│ file-2       │\r\n";
        assert_eq!(rows_of(screen.as_bytes()), vec![1, 3]);
    }

    #[test]
    fn a_background_across_the_whole_layout_is_not_a_selection() {
        let mut panel = Vec::new();
        for n in 0..8 {
            let bg: &[u8] = if n == 4 { b"\x1b[46m" } else { b"\x1b[44m" };
            panel.extend_from_slice(bg);
            panel.extend_from_slice(format!(" file-{n}            ").as_bytes());
            panel.extend_from_slice(b"\x1b[0m\r\n");
        }
        assert_eq!(rows_of(&panel), vec![4]);
    }
}
