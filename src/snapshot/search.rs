//! Searching a snapshot: [`Snapshot::find`] and the one rule for where a pattern may match
//! — row by row, and across rows only for a pattern that names a line feed or lets its dot
//! match one — which `find`, locators and text waits all follow; and the screen's logical
//! lines, the rows the terminal wrapped joined again, for the one wait that asks for them
//! (`Condition::Wrapped`).

use regex::Regex;

use super::{Match, Snapshot, compile, row_text, row_text_untrimmed};
use crate::error::Result;

impl Snapshot {
    /// Every match of `pattern` on the screen, searched exactly as a text wait searches:
    /// row by row (trailing spaces trimmed), with `^` and `$` anchoring to rows — so what
    /// a wait can match, `find` finds. A pattern that names a line feed (`\n`) is searched
    /// across rows (`^2\n\$$`), and only then may a match span rows (see
    /// [`crosses_rows`]); its `row` and `col` are where it starts.
    pub fn find(&self, pattern: &str) -> Result<Vec<Match>> {
        Ok(self.find_regex(&compile(pattern)?))
    }

    /// Whether the terminal wrapped `row` (0-based): the program wrote on past its last
    /// column, so the next row continues the same line.
    pub fn row_wraps(&self, row: u16) -> bool {
        self.wraps.get(usize::from(row)).copied().unwrap_or(false)
    }

    /// The screen's logical lines: each row the terminal wrapped joined with the rows that
    /// continue it (its spaces at the wrap kept, the last row's trailing spaces trimmed),
    /// with the row it starts on — a long path or command line as the program wrote it,
    /// where [`rows`](Self::rows) shows it cut at the screen's edge.
    ///
    /// ```
    /// let mut term = tuipilot::Terminal::new(10, 3).unwrap();
    /// term.process(b"/usr/share/doc\r\nok");
    /// let snap = term.snapshot();
    /// assert_eq!(snap.rows()[..2], ["/usr/share", "/doc"]);
    /// assert_eq!(snap.logical_lines()[..2], [(0, "/usr/share/doc".to_string()), (2, "ok".to_string())]);
    /// ```
    pub fn logical_lines(&self) -> Vec<(u16, String)> {
        let cols = usize::from(self.cols);
        let mut lines: Vec<(u16, String)> = Vec::new();
        let mut continues = false;
        for row in 0..self.rows {
            let cells = &self.cells[usize::from(row) * cols..(usize::from(row) + 1) * cols];
            let wraps = self.row_wraps(row);
            let text = if wraps {
                row_text_untrimmed(cells).0
            } else {
                row_text(cells).0
            };
            match lines.last_mut() {
                Some((_, line)) if continues => line.push_str(&text),
                _ => lines.push((row, text)),
            }
            continues = wraps;
        }
        lines
    }

    /// The first logical line (see [`logical_lines`](Self::logical_lines)) `re` matches:
    /// the row it starts on and the rows it takes.
    pub(crate) fn logical_match(&self, re: &Regex) -> Option<(u16, u16)> {
        let lines = self.logical_lines();
        lines
            .iter()
            .enumerate()
            .find(|(_, (_, line))| re.is_match(line))
            .map(|(i, (row, _))| {
                let next = lines.get(i + 1).map_or(self.rows, |(next, _)| *next);
                (*row, next - row)
            })
    }

    /// Like [`find`](Self::find) with a compiled regex.
    pub fn find_regex(&self, re: &Regex) -> Vec<Match> {
        let cols = usize::from(self.cols);
        let mut text = String::new();
        let mut rows = Vec::with_capacity(usize::from(self.rows));
        for row in 0..usize::from(self.rows) {
            if row > 0 {
                text.push('\n');
            }
            let (line, columns) = row_text(&self.cells[row * cols..(row + 1) * cols]);
            rows.push((text.len(), columns));
            text.push_str(&line);
        }
        // Row by row unless the pattern names a line feed: then across rows, so a match
        // may span them.
        let found: Vec<(usize, &str)> = if crosses_rows(re) {
            re.find_iter(&text).map(|m| (m.start(), m.as_str())).collect()
        } else {
            rows.iter()
                .enumerate()
                .flat_map(|(row, (start, _))| {
                    let end = rows.get(row + 1).map_or(text.len(), |(next, _)| next - 1);
                    re.find_iter(&text[*start..end])
                        .map(move |m| (start + m.start(), m.as_str()))
                })
                .collect()
        };
        found
            .into_iter()
            .map(|(at, matched)| {
                let row = rows.partition_point(|(start, _)| *start <= at).saturating_sub(1);
                let (row_start, columns) = &rows[row];
                let offset = at - row_start;
                let col = columns
                    .iter()
                    .take_while(|(byte, _)| *byte <= offset)
                    .last()
                    .map_or(0, |(_, col)| *col);
                Match {
                    row: row as u16,
                    col,
                    text: matched.to_string(),
                }
            })
            .collect()
    }
}

/// Whether `re` is searched across rows: it names a line feed (`\n`, or one written in it)
/// or lets `.` match one (the `s` flag, `(?s)`), so a match may span rows. Every other
/// pattern is matched row by row — a `\s*` or a `[^x]` never runs on into the next row —
/// by `find`, locators and text waits alike.
pub fn crosses_rows(re: &Regex) -> bool {
    let source = re.as_str();
    let names_line_feed = source.contains("\\n")
        || source.contains('\n')
        || source.contains("\\x0a")
        || source.contains("\\x{a}");
    // A flag group (`(?s)`, `(?is:…)`) that turns `s` on: the letters before any `-`.
    let dot_matches_line_feed = source.match_indices("(?").any(|(at, _)| {
        source[at + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic() || *c == '-')
            .take_while(|c| *c != '-')
            .any(|c| c == 's')
    });
    names_line_feed || dot_matches_line_feed
}

/// Whether `re` matches `text` (rows joined by `\n`) as [`Snapshot::find`] searches it:
/// row by row unless it [`crosses_rows`].
pub(crate) fn matches_rows(re: &Regex, text: &str) -> bool {
    match crosses_rows(re) {
        true => re.is_match(text),
        false => text.split('\n').any(|row| re.is_match(row)),
    }
}
