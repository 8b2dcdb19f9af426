//! What changed on a screen since the last capture, row by row, and which rows a
//! highlight runs across: the parts of a reply that tell an agent what its input did
//! without the whole screen (`capture --changed`, `changes`, `highlighted`).

use serde::{Deserialize, Serialize};

use super::Screen;

/// A row a highlight runs across ([`Snapshot::highlighted_rows`](crate::Snapshot::highlighted_rows)).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HighlightedRow {
    /// The row (0-based).
    pub row: u16,
    /// The highlight's look in words (`inverse`, `fg=black (0) bg=cyan (6)`).
    pub style: String,
}

/// Where a row changed since the previous capture, and what: its text, or only its style.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RowChange {
    /// The row (0-based).
    pub row: u16,
    /// The first column that changed (0-based).
    pub from: u16,
    /// The last column that changed.
    pub to: u16,
    /// The row's text now (trailing spaces trimmed).
    pub text: String,
    /// Whether any text changed (else only the style did).
    pub text_changed: bool,
    /// The style of the first changed cell now, in words, where only style changed
    /// (`inverse`, `bold fg=red (1)`): what a selection or a highlight became.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<String>,
}

impl RowChange {
    /// How row `row` of `now` differs from `before` (same size), or `None` when it does not.
    pub(crate) fn of(
        before: &crate::snapshot::Snapshot,
        now: &crate::snapshot::Snapshot,
        row: u16,
    ) -> Option<RowChange> {
        let (cols, _) = now.size();
        let (mut from, mut to, mut text) = (None, 0, false);
        for col in 0..cols {
            let (Some(a), Some(b)) = (before.cell(row, col), now.cell(row, col)) else {
                continue;
            };
            // A cell never written and a space written read the same.
            let text_differs =
                a.text() != b.text() && !(a.text().trim().is_empty() && b.text().trim().is_empty());
            if text_differs || a.style != b.style {
                from.get_or_insert(col);
                to = col;
                text |= text_differs;
            }
        }
        let from = from?;
        let style = (!text)
            .then(|| now.cell(row, from).map(|c| c.style.to_string()))
            .flatten();
        Some(RowChange {
            row,
            from,
            to,
            text: now.row(row).unwrap_or("").trim_end().to_string(),
            text_changed: text,
            now: style,
        })
    }

    /// Whether the changed columns of `row` (its text) hold only blanks.
    fn blank_in(&self, row: &str) -> bool {
        row.chars()
            .skip(usize::from(self.from))
            .take(usize::from(self.to.saturating_sub(self.from)) + 1)
            .all(char::is_whitespace)
    }

    /// `cols 52-60: style (now inverse)`, `col 4: text`.
    pub fn words(&self) -> String {
        let cols = match self.from == self.to {
            true => format!("col {}", self.from),
            false => format!("cols {}-{}", self.from, self.to),
        };
        match (&self.now, self.text_changed) {
            (_, true) => format!("{cols}: text"),
            (Some(style), false) => format!("{cols}: style (now {style})"),
            (None, false) => format!("{cols}: style"),
        }
    }
}

impl Screen {
    /// The header, then only the rows in `changed_rows`, each as `ROW | text`; changed rows
    /// that are empty at the bottom are one line with their count.
    pub fn changed_view(&self) -> String {
        let rows: Vec<&str> = self.text.split('\n').collect();
        let mut out = self.header();
        if self.changed_rows.is_empty() {
            out.push_str("\nno rows changed");
            return out;
        }
        let (_, empty_below) = self.trimmed_text();
        let first_empty = rows.len().saturating_sub(empty_below);
        let mut blank = Vec::new();
        // Rows whose change is only the style of blank cells (a background redrawn, a
        // highlight moved off empty space), run by run: one line each, not one a row.
        let mut restyled: Option<(u16, u16, &RowChange)> = None;
        let flush = |out: &mut String, run: Option<(u16, u16, &RowChange)>| {
            if let Some((first, last, change)) = run {
                let rows = match first == last {
                    true => format!("{first:>4}"),
                    false => format!("{first:>4}-{last}"),
                };
                let cols = change.words();
                out.push_str(&format!("\n{rows} | (blank)\n     ^ {cols}, blank cells"));
            }
        };
        for &row in &self.changed_rows {
            let r = usize::from(row);
            let change = self.changes.iter().find(|c| c.row == row);
            if r >= first_empty && change.is_none_or(|c| c.text_changed) {
                blank.push(row);
                continue;
            }
            let text = rows.get(r).copied().unwrap_or("");
            if let Some(change) = change.filter(|c| !c.text_changed && c.blank_in(text)) {
                match &mut restyled {
                    Some((_, last, run)) if *last + 1 == row && run.now == change.now => *last = row,
                    run => {
                        flush(&mut out, run.take());
                        *run = Some((row, row, change));
                    }
                }
                continue;
            }
            flush(&mut out, restyled.take());
            out.push_str(&format!("\n{row:>4} | {text}"));
            if let Some(change) = change {
                out.push_str(&format!("\n     ^ {}", change.words()));
            }
        }
        flush(&mut out, restyled.take());
        if let (Some(first), Some(last)) = (blank.first(), blank.last()) {
            out.push_str(&format!("\n     | ({} empty rows, {first}-{last})", blank.len()));
        }
        out
    }
}
