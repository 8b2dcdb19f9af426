//! What a failed wait says: the condition, the time, the screen with row numbers, notes
//! on why (the pattern matched before the input; the program sent no OSC 133 marks), the
//! line closest to the pattern, unanswered terminal queries, and where the screen, the keys
//! and a recording were saved — the report every face prints.

use std::fmt;
use std::time::Duration;

use super::Condition;
use crate::error::Error;
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::terminal::QueryRecord;

/// A failed wait: why, after how long, and what the screen showed.
#[derive(Debug)]
pub struct WaitError {
    /// The condition, in words.
    pub condition: String,
    /// How long the wait ran.
    pub elapsed: Duration,
    /// The timeout it had.
    pub timeout: Duration,
    /// Set when the wait failed because the program exited.
    pub exited: Option<ExitStatus>,
    /// The screen as it last was.
    pub screen: Snapshot,
    /// The row (0-based) and text closest to what was wanted, if any is close.
    pub closest: Option<(usize, String)>,
    /// The last lines of output, for output conditions.
    pub output_tail: Option<String>,
    /// Queries the program sent that were not answered.
    pub unanswered: Vec<QueryRecord>,
    /// Whether the condition had a pattern (so a closest line means something).
    pub has_pattern: bool,
    /// What explains the failure beyond the screen: the pattern already matched before
    /// the input, rows are matched trimmed, …
    pub notes: Vec<String>,
    /// Where the wait was called from, for a direct library call: the report starts with
    /// it, so a `?` in a test still says which line failed.
    pub caller: Option<&'static std::panic::Location<'static>>,
    /// The folder the screen, its colours, a PNG and the state were written to (a direct
    /// library call inside a test; see `TUIPILOT_ARTIFACTS`).
    pub artifacts: Option<std::path::PathBuf>,
}

impl std::error::Error for WaitError {}

impl Error {
    /// The report of a wait that failed ([`Error::Timeout`], [`Error::ExitedWhileWaiting`]):
    /// its condition, the screen it last saw, the closest line; `None` for other errors.
    pub fn wait_error(&self) -> Option<&WaitError> {
        match self {
            Error::Timeout(report) | Error::ExitedWhileWaiting(report) => report.downcast_ref(),
            _ => None,
        }
    }

    /// [`wait_error`](Self::wait_error), to add to.
    pub(crate) fn wait_error_mut(&mut self) -> Option<&mut WaitError> {
        match self {
            Error::Timeout(report) | Error::ExitedWhileWaiting(report) => report.downcast_mut(),
            _ => None,
        }
    }
}

impl fmt::Display for WaitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.elapsed.as_secs_f64();
        if let Some(caller) = self.caller {
            write!(f, "{}:{}: ", caller.file(), caller.line())?;
        }
        match &self.exited {
            Some(status) => writeln!(
                f,
                "the program {status} after {secs:.2}s while waiting for {}",
                self.condition
            )?,
            None => writeln!(
                f,
                "timed out after {secs:.2}s (timeout {} ms) waiting for {}",
                self.timeout.as_millis(),
                self.condition
            )?,
        }
        f.write_str(&self.screen.listing())?;
        if let Some(tail) = &self.output_tail {
            writeln!(f, "last output:")?;
            for line in tail.lines() {
                writeln!(f, "     > {line}")?;
            }
        }
        for note in &self.notes {
            writeln!(f, "note: {note}")?;
        }
        match (&self.closest, self.has_pattern) {
            (Some((row, line)), _) => match line.matches('\n').count() {
                0 => writeln!(f, "closest line: row {row}: {line:?}")?,
                more => writeln!(f, "closest lines: rows {row}-{}: {line:?}", row + more)?,
            },
            (None, true) => writeln!(f, "closest line: none resembles the pattern")?,
            (None, false) => {}
        }
        if self.unanswered.is_empty() {
            write!(f, "unanswered terminal queries: none")?;
        } else {
            write!(f, "unanswered terminal queries:")?;
            for q in &self.unanswered {
                write!(f, "\n     {} ({})", q.query, q.note)?;
            }
        }
        // Last: where to look next.
        if let Some(dir) = &self.artifacts {
            write!(f, "\nsaved: {}", crate::error::saved_files(dir))?;
        }
        Ok(())
    }
}

/// Why a wait failed, beyond the screen: the explanations a reader would otherwise have to
/// work out.
pub(crate) fn notes(condition: &Condition, screen: &Snapshot, unchanged_since_input: bool) -> Vec<String> {
    let mut notes = Vec::new();
    let searched = match condition {
        // The same text the wait searched.
        Condition::Text(re) => Some((re, screen.text())),
        Condition::Line(re) => Some((re, screen.row(screen.cursor().row).unwrap_or("").to_string())),
        _ => None,
    };
    if let Some((re, text)) = searched
        && unchanged_since_input
    {
        let already = crate::snapshot::matches_rows(re, &text);
        notes.push(if already {
            format!(
                "/{re}/ already matched before the input was sent, and the screen has not changed since; a wait after input needs the screen to change: wait for what the input changes, or use a plain wait"
            )
        } else {
            "the screen has not changed at all since the input was sent".to_string()
        });
    }
    if let Condition::Text(re) | Condition::NoText(re) | Condition::Line(re) | Condition::Wrapped(re) =
        condition
    {
        let pattern = re.as_str().trim_end_matches('$');
        if pattern.ends_with(' ') || pattern.ends_with("\\s") || pattern.ends_with("\\s+") {
            notes.push(
                "rows are matched with trailing spaces removed (only the cursor's row keeps the spaces before the cursor), so a pattern ending in a space or \\s matches only just before the cursor; drop the trailing space"
                    .to_string(),
            );
        }
    }
    notes
}

/// The line most like the literal part of `pattern`: the longest common substring,
/// ignoring case, ties broken by the earlier row.
pub(crate) fn closest_line(lines: &[String], pattern: &str) -> Option<(usize, String)> {
    // A pattern across rows (`a\nb`) is held against as many rows, joined as it sees them.
    let pattern = pattern.replace("\\n", "\n");
    let span = pattern.matches('\n').count() + 1;
    let literal: Vec<char> = pattern
        .chars()
        .filter(|c| !"\\^$.|?*+()[]{}".contains(*c))
        .flat_map(char::to_lowercase)
        .collect();
    if literal.is_empty() {
        return None;
    }
    let mut best: Option<(usize, usize)> = None;
    let windows: Vec<String> = (0..lines.len().saturating_sub(span - 1))
        .map(|i| lines[i..i + span].join("\n"))
        .collect();
    for (i, line) in windows.iter().enumerate() {
        let line: Vec<char> = line.chars().flat_map(char::to_lowercase).collect();
        let score = longest_common_substring(&literal, &line);
        if score >= 2.min(literal.len()) && best.is_none_or(|(_, s)| score > s) {
            best = Some((i, score));
        }
    }
    best.map(|(i, _)| (i, windows[i].clone()))
}

fn longest_common_substring(a: &[char], b: &[char]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut best = 0;
    for ca in a {
        let mut cur = vec![0usize; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            if ca == cb {
                cur[j + 1] = prev[j] + 1;
                best = best.max(cur[j + 1]);
            }
        }
        prev = cur;
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_line_prefers_the_longest_shared_run() {
        let lines: Vec<String> = ["$ ls", "Compiling foo", "error: bar", ""]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(closest_line(&lines, "Compiled foo").map(|(i, _)| i), Some(1));
        assert_eq!(closest_line(&lines, r"error\[E\d+\]").map(|(i, _)| i), Some(2));
        assert_eq!(closest_line(&lines, "zzz"), None);
        // A pattern over two rows is held against two rows at a time.
        assert_eq!(
            closest_line(&lines, r"^Compiling foo\nerror: baz$"),
            Some((1, "Compiling foo\nerror: bar".to_string()))
        );
    }
}
