//! Masking what changes from run to run — a clock, a pid, a temporary path — so it cannot
//! break a golden: in the cells (each matched cell shows [`MASK_CHAR`] and is painted flat,
//! so no column moves and an image compares), and in the text a golden file holds, where a
//! match becomes [`MASK_PLACEHOLDER`] whatever its length (`pytest-9` and `pytest-10` read
//! the same). Both find matches row by row on the same trimmed rows.

use std::sync::Arc;

use regex::Regex;

use super::{Cell, CellText, Snapshot, Style, compile, row_text};
use crate::color::Color;
use crate::error::Result;

/// What a masked cell shows in text ([`Snapshot::masked`]).
pub const MASK_CHAR: char = '*';
const MASK_STR: &str = "*";

/// The flat colour a masked cell is painted in an image, text and background alike.
pub const MASK_COLOR: Color = Color::Rgb(0x80, 0x80, 0x80);

/// What a match becomes in the text of a golden ([`Snapshot::masked_text`]): one
/// placeholder for text of any length.
pub const MASK_PLACEHOLDER: &str = "[masked]";

impl Snapshot {
    /// The screen with every match of `pattern` masked: each matched cell shows
    /// [`MASK_CHAR`] in the text and is painted flat ([`MASK_COLOR`] on itself) in a
    /// rendered image, so a clock, a timestamp or a pid cannot break a golden and no column
    /// moves (a wide character becomes two mask cells).
    ///
    /// ```
    /// use tuipilot::Terminal;
    ///
    /// let mut term = Terminal::new(20, 2).unwrap();
    /// term.process(b"built at 12:34:56 ok");
    /// let masked = term.snapshot().masked(r"\d\d:\d\d:\d\d").unwrap();
    /// assert_eq!(masked.row(0), Some("built at ******** ok"));
    /// ```
    pub fn masked(&self, pattern: &str) -> Result<Snapshot> {
        self.masked_all(&[pattern])
    }

    /// [`masked`](Self::masked) with several patterns at once.
    pub fn masked_all(&self, patterns: &[&str]) -> Result<Snapshot> {
        let regexes = patterns.iter().map(|p| compile(p)).collect::<Result<Vec<_>>>()?;
        Ok(self.masked_regexes(&regexes))
    }

    /// [`masked_all`](Self::masked_all) with compiled regexes.
    pub fn masked_regexes(&self, regexes: &[Regex]) -> Snapshot {
        let mut out = self.clone();
        let cols = usize::from(self.cols);
        let mask = Cell {
            text: CellText::new(MASK_STR),
            style: Style {
                fg: MASK_COLOR,
                bg: MASK_COLOR,
                ..Style::default()
            },
            wide: false,
            wide_continuation: false,
        };
        for row in 0..usize::from(self.rows) {
            let start = row * cols;
            let (line, columns) = row_text(&self.cells[start..start + cols]);
            for re in regexes {
                for m in re.find_iter(&line) {
                    for &(byte, col) in &columns {
                        if byte < m.start() || byte >= m.end() {
                            continue;
                        }
                        let at = start + usize::from(col);
                        let wide = self.cells[at].wide;
                        Arc::make_mut(&mut out.cells)[at] = mask.clone();
                        if wide && usize::from(col) + 1 < cols {
                            Arc::make_mut(&mut out.cells)[at + 1] = mask.clone();
                        }
                    }
                }
            }
            Arc::make_mut(&mut out.lines)[row] = row_text(&out.cells[start..start + cols]).0;
        }
        out
    }

    /// The screen's text with every match of each pattern replaced by
    /// [`MASK_PLACEHOLDER`], whatever its length: what a text golden holds (a tape's
    /// `Snapshot NAME`, Python's `assert_snapshot`, an exported Rust test), so a masked
    /// temporary path or counter may grow a digit. [`masked`](Self::masked) keeps the
    /// length, for images and for reading columns.
    ///
    /// ```
    /// use tuipilot::Terminal;
    ///
    /// let mut term = Terminal::new(30, 2).unwrap();
    /// term.process(b"/tmp/pytest-9/app ok");
    /// let text = term.snapshot().masked_text(&[r"pytest-\d+"]).unwrap();
    /// assert_eq!(text.lines().next(), Some("/tmp/[masked]/app ok"));
    /// ```
    pub fn masked_text(&self, patterns: &[&str]) -> Result<String> {
        let regexes = patterns.iter().map(|p| compile(p)).collect::<Result<Vec<_>>>()?;
        Ok(mask_rows(&self.text(), &regexes))
    }
}

/// `text` (rows joined by `\n`, as [`Snapshot::text`] gives them) with every match of
/// each regex in each row replaced by [`MASK_PLACEHOLDER`]; overlapping or touching
/// matches of several regexes become one placeholder.
pub fn mask_rows(text: &str, regexes: &[Regex]) -> String {
    if regexes.is_empty() {
        return text.to_string();
    }
    text.split('\n')
        .map(|row| {
            let mut found: Vec<(usize, usize)> = regexes
                .iter()
                .flat_map(|re| re.find_iter(row).map(|m| (m.start(), m.end())))
                .filter(|(start, end)| start < end)
                .collect();
            found.sort_unstable();
            // Overlapping or touching matches merged: one placeholder each run.
            let mut runs: Vec<(usize, usize)> = Vec::with_capacity(found.len());
            for (start, end) in found {
                match runs.last_mut() {
                    Some(last) if start <= last.1 => last.1 = last.1.max(end),
                    _ => runs.push((start, end)),
                }
            }
            let mut out = String::with_capacity(row.len());
            let mut at = 0;
            for (start, end) in runs {
                out.push_str(&row[at..start]);
                out.push_str(MASK_PLACEHOLDER);
                at = end;
            }
            out.push_str(&row[at..]);
            out
        })
        .collect::<Vec<_>>()
        .join("\n")
}
