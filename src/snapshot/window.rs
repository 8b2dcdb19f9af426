//! Part of a snapshot drawn for a person's terminal: what a live view (`tuipilot attach`,
//! `tuipilot record`) writes, row by row. The screen is drawn from its cells, never from
//! the program's bytes, so nothing the program printed reaches the person's terminal as
//! a control sequence, and a view of a different size clips it cell by cell.

use super::{Cell, Snapshot};
use crate::style::Style;

impl Snapshot {
    /// Rows `rows` of the screen, each cut to the `width` columns from `first_col`, as
    /// text with SGR sequences: every row starts from the default style, fills exactly
    /// `width` columns (blank cells past the screen's edge), and ends with a reset. A
    /// wide character cut by either edge shows as a space; a control character in a
    /// cell (none should be there) as a space too.
    ///
    /// ```
    /// use tuipilot::terminal::Terminal;
    /// let mut term = Terminal::new(10, 2).unwrap();
    /// term.process(b"ab\x1b[1mcd\x1b[0m");
    /// let rows = term.snapshot().ansi_window(0..1, 1, 4);
    /// assert_eq!(rows, ["b\x1b[0;1mcd\x1b[0m \x1b[0m"]);
    /// ```
    pub fn ansi_window(&self, rows: std::ops::Range<u16>, first_col: u16, width: u16) -> Vec<String> {
        let cols = usize::from(self.cols);
        rows.map(|row| {
            let cells: &[Cell] = match usize::from(row) {
                r if r < usize::from(self.rows) => &self.cells[r * cols..(r + 1) * cols],
                _ => &[],
            };
            let mut out = String::new();
            let mut current = Style::default();
            let mut set = |out: &mut String, style: Style| {
                if style != current {
                    out.push_str(&style.sgr());
                    current = style;
                }
            };
            let (first, end) = (
                usize::from(first_col),
                usize::from(first_col) + usize::from(width),
            );
            let mut col = first;
            while col < end {
                let Some(cell) = cells.get(col) else {
                    set(&mut out, Style::default());
                    out.push(' ');
                    col += 1;
                    continue;
                };
                set(&mut out, cell.style);
                let text = cell.text();
                let cut = (cell.wide_continuation && col == first) || (cell.wide && col + 1 >= end);
                if cell.wide_continuation && !cut {
                    col += 1;
                    continue;
                }
                if text.is_empty() || cut || text.chars().any(char::is_control) {
                    out.push(' ');
                } else {
                    out.push_str(text);
                }
                col += 1;
            }
            out.push_str("\x1b[0m");
            out
        })
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::terminal::Terminal;

    fn window(bytes: &[u8], cols: u16, first_col: u16, width: u16) -> Vec<String> {
        let mut term = Terminal::new(cols, 2).unwrap();
        term.process(bytes);
        term.snapshot().ansi_window(0..3, first_col, width)
    }

    #[test]
    fn a_window_fills_its_width_and_pads_rows_past_the_screen() {
        let rows = window(b"hello", 10, 0, 12);
        assert_eq!(rows[0], "hello       \x1b[0m");
        assert_eq!(rows[2], format!("{}\x1b[0m", " ".repeat(12)));
        assert_eq!(rows.len(), 3);
    }

    #[test]
    fn a_wide_character_cut_by_an_edge_is_a_space() {
        // 漢 takes columns 1-2 and 字 columns 3-4.
        let rows = window("a漢字b".as_bytes(), 10, 2, 2);
        assert_eq!(rows[0], "  \x1b[0m");
        let rows = window("a漢字b".as_bytes(), 10, 1, 4);
        assert_eq!(rows[0], "漢字\x1b[0m");
        let rows = window("a漢字b".as_bytes(), 10, 0, 2);
        assert_eq!(rows[0], "a \x1b[0m");
    }

    #[test]
    fn colours_come_from_the_cells_and_every_row_ends_reset() {
        let rows = window(b"\x1b[44m  \x1b[0mx", 10, 0, 3);
        assert_eq!(rows[0], "\x1b[0;48;5;4m  \x1b[0mx\x1b[0m");
    }
}
