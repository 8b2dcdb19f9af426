//! Part of a snapshot drawn for a person's terminal: what a live view (`tuipilot attach`,
//! `tuipilot record`) writes, row by row. The screen is drawn from its cells, never from
//! the program's bytes, so nothing the program printed reaches the person's terminal as
//! a control sequence, and a view of a different size clips it cell by cell. Characters
//! that would hide or rearrange what the person sees — bidirectional overrides and
//! isolates, zero-width characters, line and paragraph separators — are never written:
//! a cell holding one shows its visible part (or `�`) in reverse video, so the person
//! sees that something is there.

use super::{Cell, Snapshot};
use crate::style::Style;

/// Whether `c` hides or rearranges the text around it when a terminal draws it: a line or
/// paragraph separator, a bidirectional mark, embedding, override or isolate, or an
/// invisible character (zero-width space, joiner, word joiner, soft hyphen, BOM).
pub(crate) fn hides_or_reorders(c: char) -> bool {
    matches!(c,
        '\u{00ad}' // soft hyphen
        | '\u{061c}' // Arabic letter mark
        | '\u{180e}'
        | '\u{200b}'..='\u{200f}' // zero-width characters, LRM, RLM
        | '\u{2028}'..='\u{202e}' // separators, bidirectional embeddings and overrides
        | '\u{2060}'..='\u{206f}' // word joiner, invisible operators, isolates
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
    )
}

/// What a cell holding a hiding or reordering character shows instead: its visible part
/// (a zero-width joiner inside an emoji sequence is part of the emoji), or `�` when nothing
/// of it is visible; `None` when the cell holds no such character.
fn shown_instead(text: &str) -> Option<String> {
    let pictographic = text
        .chars()
        .any(|c| matches!(u32::from(c), 0x1f000..=0x1faff | 0x2600..=0x27bf));
    let hidden = |c: char| hides_or_reorders(c) && !(c == '\u{200d}' && pictographic);
    if !text.chars().any(hidden) {
        return None;
    }
    let visible: String = text.chars().filter(|c| !hidden(*c)).collect();
    Some(if visible.is_empty() {
        "\u{fffd}".into()
    } else {
        visible
    })
}

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
                let text = cell.text();
                let cut = (cell.wide_continuation && col == first) || (cell.wide && col + 1 >= end);
                if cell.wide_continuation && !cut {
                    col += 1;
                    continue;
                }
                let marked = shown_instead(text).filter(|_| !cut);
                let style = match marked {
                    Some(_) => Style {
                        inverse: !cell.style.inverse,
                        ..cell.style
                    },
                    None => cell.style,
                };
                set(&mut out, style);
                if let Some(shown) = &marked {
                    out.push_str(shown);
                } else if text.is_empty() || cut || text.chars().any(char::is_control) {
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

    // Fails on the code before: the override and the zero-width space were written as
    // they are, reordering and hiding text on the watcher's terminal.
    #[test]
    fn bidi_overrides_and_zero_width_characters_are_marked_never_written() {
        let rows = window("a\u{202e}bc\u{200b}d".as_bytes(), 10, 0, 5);
        assert!(
            !rows[0].contains('\u{202e}') && !rows[0].contains('\u{200b}'),
            "{:?}",
            rows[0]
        );
        // Each cell holding one is shown reverse: the person sees something is there.
        assert_eq!(rows[0], "\x1b[0;7ma\x1b[0mb\x1b[0;7mc\x1b[0md \x1b[0m");
        // An emoji's own joiner is part of the emoji, in grapheme mode.
        let family = "\u{1f468}\u{200d}\u{1f469}";
        let rows = window(format!("\x1b[?2027h{family}").as_bytes(), 10, 0, 3);
        assert_eq!(rows[0], format!("{family} \x1b[0m"));
    }

    #[test]
    fn colours_come_from_the_cells_and_every_row_ends_reset() {
        let rows = window(b"\x1b[44m  \x1b[0mx", 10, 0, 3);
        assert_eq!(rows[0], "\x1b[0;48;5;4m  \x1b[0mx\x1b[0m");
    }
}
