//! An immutable copy of the screen at one moment.
//!
//! A [`Snapshot`] owns its cells, so it can be inspected, compared, printed or rendered
//! while the program keeps running. Text rows are built from the cells the same way for
//! every face (the CLI, MCP, golden files): wide-character continuations are skipped and
//! trailing spaces trimmed.

use std::fmt;
use std::sync::Arc;

use regex::Regex;

use crate::color::Color;
use crate::keys::InputModes;
use crate::process::ExitStatus;
pub use crate::style::{Style, UnderlineStyle};

mod highlight;
mod image;
mod mask;
mod search;
mod window;

pub use highlight::Highlight;
pub(crate) use image::Picture;
pub use image::{CellSize, Image, ImageProtocol};
pub use mask::{MASK_CHAR, MASK_COLOR, MASK_PLACEHOLDER, mask_rows};
pub use search::crosses_rows;
pub(crate) use search::matches_rows;
pub(crate) use window::hides_or_reorders;

impl Cell {
    /// A cell showing `text` (a grapheme; empty for a blank) in `style`.
    pub(crate) fn new(text: &str, style: Style, wide: bool, wide_continuation: bool) -> Cell {
        Cell {
            text: CellText::new(text),
            style,
            wide,
            wide_continuation,
        }
    }

    /// The grapheme in the cell (a character plus any combining marks); empty if blank.
    pub fn text(&self) -> &str {
        self.text.as_str()
    }
}

/// The text of a cell, stored inline: a snapshot copies thousands of cells, and one
/// allocation per cell would dominate the cost of taking it.
#[derive(Clone, PartialEq, Eq)]
enum CellText {
    Inline { len: u8, bytes: [u8; 14] },
    Long(Box<str>),
}

impl CellText {
    fn new(text: &str) -> CellText {
        let mut bytes = [0u8; 14];
        match bytes.get_mut(..text.len()) {
            Some(slot) => {
                slot.copy_from_slice(text.as_bytes());
                CellText::Inline {
                    len: text.len() as u8,
                    bytes,
                }
            }
            None => CellText::Long(text.into()),
        }
    }

    fn as_str(&self) -> &str {
        match self {
            // Always a copy of a whole `&str`, so valid UTF-8.
            CellText::Inline { len, bytes } => std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or(""),
            CellText::Long(s) => s,
        }
    }
}

impl Default for CellText {
    fn default() -> Self {
        CellText::new("")
    }
}

impl fmt::Debug for CellText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// One character cell.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    text: CellText,
    /// How it is drawn.
    pub style: Style,
    /// The first half of a double-width character.
    pub wide: bool,
    /// The second half of a double-width character (its text is empty).
    pub wide_continuation: bool,
}

/// Cursor shape requested by the program (`CSI Ps SP q`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CursorShape {
    #[default]
    /// A filled block.
    Block,
    /// An underline.
    Underline,
    /// A vertical bar.
    Bar,
}

/// Where the cursor is (0-based, always inside the grid) and how it looks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// Row, 0-based from the top.
    pub row: u16,
    /// Column, 0-based from the left.
    pub col: u16,
    /// Whether the program shows it.
    pub visible: bool,
    /// Block, underline or bar.
    pub shape: CursorShape,
    /// Whether it blinks.
    pub blinking: bool,
}

impl Cursor {
    /// Where it is, as every report writes it: `cursor at row 3, col 12` (0-based, the
    /// row first), with `, hidden` when the program hides it.
    pub fn words(&self) -> String {
        cursor_words(self.row, self.col, self.visible)
    }
}

/// The one spelling of a cursor's place ([`Cursor::words`]), for the faces' reports too.
pub(crate) fn cursor_words(row: u16, col: u16, visible: bool) -> String {
    let hidden = if visible { "" } else { ", hidden" };
    format!("cursor at row {row}, col {col}{hidden}")
}

/// A regex match on the screen: its row, its starting column, and the matched text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// Row of the match, 0-based.
    pub row: u16,
    /// Column where the match starts (in cells), 0-based.
    pub col: u16,
    /// The matched text.
    pub text: String,
}

/// How a row is drawn: the DEC double-width and double-height lines (`ESC # 6`, `ESC # 3`
/// and `ESC # 4`). The text keeps one character a cell either way; pictures draw the
/// row's first half of the columns at twice the width (and, for the double-height
/// halves, the top or bottom half of characters twice as tall).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LineSize {
    /// Normal size.
    #[default]
    Single,
    /// Double width (DECDWL).
    DoubleWidth,
    /// Double width and height, the top half (DECDHL, `ESC # 3`).
    DoubleTop,
    /// Double width and height, the bottom half (DECDHL, `ESC # 4`).
    DoubleBottom,
}

/// An immutable copy of the screen.
///
/// ```
/// use tuipilot::Terminal;
///
/// let mut term = Terminal::new(20, 3).unwrap();
/// term.process(b"hello\r\n\x1b[1;31mworld");
/// let snap = term.snapshot();
/// assert_eq!(snap.text(), "hello\nworld\n");
/// assert!(snap.cell(1, 0).unwrap().style.bold);
/// assert_eq!(snap.find("w.rld").unwrap()[0].row, 1);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub(crate) cols: u16,
    pub(crate) rows: u16,
    // Shared between copies (a snapshot is copied to every waiter, reply and base of
    // comparison; a copy changed, as a mask changes it, takes its own).
    pub(crate) cells: Arc<Vec<Cell>>,
    pub(crate) lines: Arc<Vec<String>>,
    /// Per row: whether the terminal wrapped it, so the next row continues its line.
    pub(crate) wraps: Vec<bool>,
    pub(crate) cursor: Cursor,
    pub(crate) title: String,
    pub(crate) alternate_screen: bool,
    /// DECSCNM: the whole screen in reverse video.
    pub(crate) reverse_screen: bool,
    /// Each row's size (all single unless the program asked otherwise).
    pub(crate) line_sizes: Vec<LineSize>,
    pub(crate) input: InputModes,
    pub(crate) exit: Option<ExitStatus>,
    pub(crate) images: Vec<Image>,
}

impl Snapshot {
    /// A snapshot of `cells` (`rows` rows of `cols`, row by row), its text rows built from
    /// them the one way every face reads them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_cells(
        cols: u16,
        rows: u16,
        cells: Vec<Cell>,
        wraps: Vec<bool>,
        cursor: Cursor,
        title: &str,
        alternate_screen: bool,
        input: InputModes,
        images: Vec<Image>,
    ) -> Snapshot {
        let lines = (0..usize::from(rows))
            .map(|r| row_text(&cells[r * usize::from(cols)..(r + 1) * usize::from(cols)]).0)
            .collect();
        Snapshot {
            cols,
            rows,
            cells: Arc::new(cells),
            lines: Arc::new(lines),
            wraps,
            cursor,
            title: title.to_string(),
            alternate_screen,
            reverse_screen: false,
            line_sizes: Vec::new(),
            input,
            exit: None,
            images,
        }
    }

    /// The screen as text: every row, trailing spaces trimmed, joined by `\n`.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// Every row as text, trailing spaces trimmed.
    pub fn rows(&self) -> &[String] {
        &self.lines
    }

    /// One row as text (0-based), or `None` past the last row.
    pub fn row(&self, row: u16) -> Option<&str> {
        self.lines.get(usize::from(row)).map(String::as_str)
    }

    /// The cell at a 0-based position, or `None` outside the grid.
    pub fn cell(&self, row: u16, col: u16) -> Option<&Cell> {
        if row >= self.rows || col >= self.cols {
            return None;
        }
        self.cells
            .get(usize::from(row) * usize::from(self.cols) + usize::from(col))
    }

    /// The text of columns `from..to` of one row, trailing spaces trimmed as rows are
    /// (empty outside the grid).
    pub(crate) fn cells_text(&self, row: u16, from: u16, to: u16) -> String {
        let (to, cols) = (usize::from(to.min(self.cols)), usize::from(self.cols));
        if row >= self.rows || usize::from(from) >= to {
            return String::new();
        }
        let start = usize::from(row) * cols;
        row_text(&self.cells[start + usize::from(from)..start + to]).0
    }

    /// The screen as a failure report shows it: its size and cursor, then the rows
    /// numbered through the last with text (`   3 | text`), then how many empty rows
    /// follow.
    ///
    /// ```
    /// let mut term = tuipilot::Terminal::new(20, 4).unwrap();
    /// term.process(b"hello");
    /// assert_eq!(
    ///     term.snapshot().listing(),
    ///     "screen (20x4, cursor at row 0, col 5):\n   0 | hello\n     | (rows 1-3 empty)\n"
    /// );
    /// ```
    pub fn listing(&self) -> String {
        let (cols, rows) = self.size();
        let mut out = format!("screen ({cols}x{rows}, {}):\n", self.cursor().words());
        let (numbered, last) = self.numbered_rows(&[]);
        out.push_str(&numbered);
        if last < self.lines.len() {
            out.push_str(&format!("     | (rows {last}-{} empty)\n", self.lines.len() - 1));
        }
        out
    }

    /// The rows numbered for a report (`   3 | text`), through the last non-empty or
    /// marked row; a marked row is followed by a line with `^` under its columns
    /// `from..to` (marks are `(row, from, to)`). Also says how many rows were listed.
    pub(crate) fn numbered_rows(&self, marks: &[(u16, u16, u16)]) -> (String, usize) {
        let last = self
            .lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |p| p + 1);
        let last = marks
            .iter()
            .map(|(row, _, _)| usize::from(*row) + 1)
            .fold(last, usize::max)
            .min(self.lines.len());
        let mut out = String::new();
        for (i, line) in self.lines[..last].iter().enumerate() {
            out.push_str(&format!("{i:>4} | {line}\n"));
            let mut marked = String::new();
            for (_, from, to) in marks.iter().filter(|(row, _, _)| usize::from(*row) == i) {
                while marked.chars().count() < usize::from(*from) {
                    marked.push(' ');
                }
                while marked.chars().count() < usize::from(*to) {
                    marked.push('^');
                }
            }
            if !marked.is_empty() {
                out.push_str(&format!("     | {marked}\n"));
            }
        }
        (out, last)
    }

    /// The style at a 0-based position, or `None` outside the grid.
    pub fn style_at(&self, row: u16, col: u16) -> Option<Style> {
        self.cell(row, col).map(|c| c.style)
    }

    /// The images on the screen (sixel, kitty graphics, iTerm2 inline), in the order they
    /// were placed, with where they are.
    pub fn images(&self) -> &[Image] {
        &self.images
    }

    /// The cursor, clamped to the grid.
    pub fn cursor(&self) -> Cursor {
        self.cursor
    }

    /// The window title the program set (OSC 0/2), or empty.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Whether the program switched to the alternate screen (full-screen programs do).
    pub fn alternate_screen(&self) -> bool {
        self.alternate_screen
    }

    /// Whether the program put the whole screen in reverse video (DECSCNM, `CSI ? 5 h`;
    /// terminfo's visual bell flashes it): pictures swap the default foreground and
    /// background, as xterm does. The text and the cells' own styles are unchanged.
    pub fn reverse_screen(&self) -> bool {
        self.reverse_screen
    }

    /// How `row` is drawn (0-based): single, or a DEC double-width or double-height line.
    pub fn line_size(&self, row: u16) -> LineSize {
        self.line_sizes.get(usize::from(row)).copied().unwrap_or_default()
    }

    /// Whether application cursor mode (DECCKM) is on.
    pub fn application_cursor(&self) -> bool {
        self.input.keys.application_cursor
    }

    /// Whether the program enabled bracketed paste.
    pub fn bracketed_paste(&self) -> bool {
        self.input.bracketed_paste
    }

    /// Whether the program asked for mouse reports.
    pub fn mouse_reporting(&self) -> bool {
        self.input.mouse.tracking != crate::keys::mouse::MouseTracking::Off
    }

    /// Whether row `row` reads or looks different in `other` (a cell's text or style; a
    /// row outside either grid differs). What `changed_rows` compares.
    pub(crate) fn row_differs(&self, other: &Snapshot, row: u16) -> bool {
        fn cells(s: &Snapshot, row: u16) -> Option<&[Cell]> {
            let cols = usize::from(s.cols);
            s.cells
                .get(usize::from(row) * cols..(usize::from(row) + 1) * cols)
        }
        match (cells(self, row), cells(other, row)) {
            (Some(a), Some(b)) => {
                a.len() != b.len()
                    || a.iter()
                        .zip(b)
                        .any(|(x, y)| x.style != y.style || x.text() != y.text())
            }
            _ => true,
        }
    }

    /// Everything the program asked of its input: key encoding, mouse, focus, paste.
    pub fn input_modes(&self) -> InputModes {
        self.input
    }

    /// `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        (self.cols, self.rows)
    }

    /// How the program ended, if it had ended when the snapshot was taken.
    pub fn exit_status(&self) -> Option<&ExitStatus> {
        self.exit.as_ref()
    }

    /// Whether any row contains `needle` literally.
    pub fn contains(&self, needle: &str) -> bool {
        self.lines.iter().any(|l| l.contains(needle))
    }

    /// The screen as text with its styles as a layer a person can read and a snapshot
    /// tool can diff: each row, then (if any cell in it is styled) a line that marks every
    /// styled cell with a letter, then a legend of the letters. Stable for the same
    /// screen; letters are given in order of first appearance.
    ///
    /// ```text
    ///  0 |build ok  12:00
    ///    |aaaaaaaa  bbbbb
    ///  1 |plain
    /// a: bold fg=green (2)
    /// b: fg=yellow (3) bg=blue (4)
    /// ```
    pub fn styled(&self) -> String {
        const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        let cols = usize::from(self.cols);
        let last = self
            .lines
            .iter()
            .rposition(|l| !l.is_empty())
            .map_or(0, |p| p + 1);
        let mut legend: Vec<Style> = Vec::new();
        let mut out = String::new();
        for (row, line) in self.lines.iter().enumerate() {
            let cells = &self.cells[row * cols..(row + 1) * cols];
            let styled = cells.iter().any(|c| c.style != Style::default());
            if row >= last && !styled {
                continue;
            }
            out.push_str(&format!("{row:>2} |{line}\n"));
            if !styled {
                continue;
            }
            let mut marks = String::new();
            for cell in cells.iter().filter(|c| !c.wide_continuation) {
                let mark = if cell.style == Style::default() {
                    ' '
                } else {
                    let index = legend.iter().position(|s| *s == cell.style).unwrap_or_else(|| {
                        legend.push(cell.style);
                        legend.len() - 1
                    });
                    LETTERS.get(index).map_or('?', |&b| char::from(b))
                };
                // A wide character's mark covers both its cells.
                marks.push(mark);
                if cell.wide {
                    marks.push(mark);
                }
            }
            out.push_str(&format!("   |{}\n", marks.trim_end()));
        }
        for (index, style) in legend.iter().enumerate() {
            let letter = LETTERS.get(index).map_or('?', |&b| char::from(b));
            out.push_str(&format!("{letter}: {style}\n"));
        }
        out
    }

    /// The screen with colours and attributes as SGR escape sequences, for a person
    /// reading it in a terminal. Rows end with a reset and are joined by `\n`.
    pub fn ansi(&self) -> String {
        let mut out = String::new();
        for row in 0..self.rows {
            let start = usize::from(row) * usize::from(self.cols);
            let cells = &self.cells[start..start + usize::from(self.cols)];
            // Stop after the last cell that shows anything (text or a background).
            let used = cells
                .iter()
                .rposition(|c| !c.text().trim().is_empty() || c.style.bg != Color::Default || c.style.inverse)
                .map_or(0, |p| p + 1);
            let mut current = Style::default();
            for cell in &cells[..used] {
                if cell.wide_continuation {
                    continue;
                }
                if cell.style != current {
                    out.push_str(&cell.style.sgr());
                    current = cell.style;
                }
                out.push_str(if cell.text().is_empty() { " " } else { cell.text() });
            }
            if current != Style::default() {
                out.push_str("\x1b[0m");
            }
            if row + 1 < self.rows {
                out.push('\n');
            }
        }
        out
    }
}

impl fmt::Display for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text())
    }
}

/// A row's text and, for each cell that starts a character, its byte offset and column.
fn row_text(cells: &[Cell]) -> (String, Vec<(usize, u16)>) {
    let (mut line, columns) = row_text_untrimmed(cells);
    let trimmed = line.trim_end_matches(' ').len();
    line.truncate(trimmed);
    (line, columns)
}

/// [`row_text`] with the trailing spaces kept: a row the terminal wrapped, whose spaces
/// at the end are the line's own.
fn row_text_untrimmed(cells: &[Cell]) -> (String, Vec<(usize, u16)>) {
    let mut line = String::with_capacity(cells.len());
    let mut columns = Vec::with_capacity(cells.len());
    for (col, cell) in cells.iter().enumerate() {
        if cell.wide_continuation {
            continue;
        }
        columns.push((line.len(), col as u16));
        line.push_str(if cell.text().is_empty() { " " } else { cell.text() });
    }
    (line, columns)
}

/// Compiles a user-supplied pattern (see [`compile_pattern`](crate::error::compile_pattern)).
pub(crate) use crate::error::compile_pattern as compile;

impl crate::keys::mouse::ScreenText for Snapshot {
    fn size(&self) -> (u16, u16) {
        Snapshot::size(self)
    }

    fn first_match(&self, re: &Regex) -> Option<(u16, u16, String)> {
        self.find_regex(re)
            .into_iter()
            .next()
            .map(|m| (m.col, m.row, m.text))
    }
}

#[cfg(test)]
mod tests {
    use crate::Terminal;

    #[test]
    fn wide_characters_map_to_their_columns() {
        let mut t = Terminal::new(20, 2).unwrap();
        t.process("日本x".as_bytes());
        let snap = t.snapshot();
        assert_eq!(snap.row(0), Some("日本x"));
        assert!(snap.cell(0, 0).unwrap().wide);
        assert!(snap.cell(0, 1).unwrap().wide_continuation);
        assert_eq!(snap.find("x").unwrap()[0].col, 4);
    }

    #[test]
    fn a_pattern_matches_within_a_row_unless_it_names_a_line_feed() {
        let mut t = Terminal::new(20, 3).unwrap();
        t.process(b"abc\r\n  x\r\n2");
        let snap = t.snapshot();
        // `\s*` stops at the row's end: the match is `c`, not `c\n  `.
        let found = snap.find(r"c\s*").unwrap();
        assert_eq!((found[0].row, found[0].col, found[0].text.as_str()), (0, 2, "c"));
        assert!(snap.find(r"c\s+x").unwrap().is_empty());
        assert!(snap.find(r"[^z]+x").unwrap().iter().all(|m| m.row == 1));
        // A pattern that names the line feed still spans rows.
        let across = snap.find(r"x\n2").unwrap();
        assert_eq!((across[0].row, across[0].col), (1, 2));
        assert!(super::matches_rows(
            &regex::Regex::new(r"c\n").unwrap(),
            &snap.text()
        ));
        assert!(!super::matches_rows(
            &regex::Regex::new(r"c\s+x").unwrap(),
            &snap.text()
        ));
    }

    #[test]
    fn ansi_keeps_colours() {
        let mut t = Terminal::new(20, 2).unwrap();
        t.process(b"\x1b[31mred\x1b[0m plain");
        let ansi = t.snapshot().ansi();
        assert!(ansi.starts_with("\x1b[0;38;5;1mred\x1b[0m plain"), "{ansi:?}");
    }
}
