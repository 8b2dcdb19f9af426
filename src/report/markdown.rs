//! `report.md`: the report for an agent or a CI comment — the header, what failed
//! (expected, found, the closest line, unanswered queries, the screen as text), the steps
//! as a table, goldens, attachments and notes. Kept short: at most [`MOST_STEPS`] steps
//! are listed (those before the failure, or the last ones), the screen shown once.

use std::fmt::Write;

use super::{RunReport, Verdict};

/// The most steps the table lists.
pub const MOST_STEPS: usize = 100;

/// `text` as an inline code span that nothing in it can close or escape: delimited by a
/// backtick run longer than any in the text (padded with spaces where the text starts or
/// ends with a backtick, as CommonMark strips one), line breaks shown as `\n`. Markdown
/// and HTML in a code span are shown, never rendered: a program's `[x](y)` or `<img>` stays
/// text in a CI comment.
fn code(text: &str) -> String {
    let one_line = text.replace("\r\n", "\\n").replace(['\n', '\r'], "\\n");
    if one_line.is_empty() {
        return "(empty)".into();
    }
    let ticks = "`".repeat(longest_backticks(&one_line) + 1);
    let pad = if one_line.starts_with('`') || one_line.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{one_line}{pad}{ticks}")
}

/// [`code`] for a table cell: a pipe would end the cell even inside a code span (GFM), so
/// it is escaped, which GFM turns back into a pipe there.
fn code_cell(text: &str) -> String {
    code(&text.replace('|', "\\|"))
}

/// A link to one of the report's files, its label a code span; a path a link cannot hold
/// whole (a line break or an angle bracket) is shown as code instead of linked.
fn link(label: &str, path: &str) -> String {
    if path.contains(['<', '>', '\n', '\r']) {
        format!("{}: {}", code(label), code(path))
    } else {
        format!("[{}](<{path}>)", code(label))
    }
}

/// The longest run of backticks in `text`.
fn longest_backticks(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// A fence longer than any run of backticks in `text`, so the block cannot be closed early.
fn fence(text: &str) -> String {
    "`".repeat(longest_backticks(text).max(2) + 1)
}

/// A screen's text as a code block with row numbers, blank bottom rows left out.
fn screen_block(out: &mut String, text: &str) {
    let rows: Vec<&str> = text.split('\n').collect();
    let last = rows
        .iter()
        .rposition(|r| !r.trim().is_empty())
        .map_or(0, |r| r + 1);
    let listing: String = rows[..last]
        .iter()
        .enumerate()
        .map(|(i, row)| format!("{i:>3} | {}\n", row.trim_end()))
        .collect();
    let fence = fence(&listing);
    let _ = writeln!(out, "{fence}text\n{listing}{fence}");
    if last < rows.len() {
        let _ = writeln!(out, "(rows {last}-{} empty)", rows.len() - 1);
    }
}

pub(super) fn write(report: &RunReport) -> String {
    let mut out = String::new();
    let mark = match report.verdict {
        Verdict::Passed => "✓",
        Verdict::Failed => "✗",
        Verdict::Running | Verdict::Ended => "•",
    };
    let _ = writeln!(
        out,
        "# {mark} {} — {}\n",
        report.verdict.word(),
        code(&report.title)
    );
    let _ = writeln!(out, "| | |\n| --- | --- |");
    let _ = writeln!(out, "| {} | {} |", report.kind, code_cell(&report.title));
    if let Some(command) = &report.command {
        let _ = writeln!(out, "| command | {} |", code_cell(command));
    }
    let _ = writeln!(
        out,
        "| screen | {}×{}, TERM {} |",
        report.cols,
        report.rows,
        code_cell(&report.term)
    );
    let _ = writeln!(
        out,
        "| result | {} after {:.2} s, {} step{} |",
        report.verdict.word(),
        report.duration_ms as f64 / 1000.0,
        report.steps.len(),
        if report.steps.len() == 1 { "" } else { "s" }
    );
    if let Some(exit) = &report.exit {
        let _ = writeln!(out, "| program | {} |", code_cell(exit));
    }
    out.push('\n');

    if let Some(failure) = &report.failure {
        let _ = writeln!(out, "## What failed\n");
        match failure.step.and_then(|i| report.steps.get(i).map(|s| (i, s))) {
            Some((i, step)) => {
                let source = step
                    .source
                    .as_deref()
                    .map(|s| format!(" ({})", code(s)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "**Step {}** {}{source}: {}\n",
                    i + 1,
                    code(&step.label),
                    code(&failure.message)
                );
            }
            None => {
                let _ = writeln!(out, "{}\n", code(&failure.message));
            }
        }
        if let Some(expected) = &failure.expected {
            let _ = writeln!(out, "- expected: {}", code(expected));
        }
        if let Some(found) = &failure.found {
            let _ = writeln!(out, "- found: {}", code(found));
        }
        if let Some(closest) = &failure.closest {
            let _ = writeln!(out, "- closest line: {}", code(closest));
        }
        for mark in &failure.marks {
            let _ = writeln!(
                out,
                "- {} cells: row {}, columns {}-{}",
                mark.kind,
                mark.row,
                mark.col,
                mark.col + mark.width.saturating_sub(1)
            );
        }
        for query in &failure.unanswered {
            let _ = writeln!(out, "- unanswered query: {}", code(query));
        }
        if let Some(screen) = &failure.screen {
            let _ = writeln!(out, "\nThe screen when it failed:\n");
            screen_block(&mut out, screen);
        }
        if failure.details.lines().count() > 1 {
            let fence = fence(&failure.details);
            let _ = writeln!(
                out,
                "\n<details><summary>The whole report</summary>\n\n{fence}text\n{}\n{fence}\n</details>",
                failure.details.trim_end()
            );
        }
        out.push('\n');
    } else if let Some(screen) = report.steps.last().and_then(|s| s.screen.as_deref()) {
        let _ = writeln!(out, "## The last screen\n");
        screen_block(&mut out, screen);
        out.push('\n');
    }

    let _ = writeln!(out, "## Steps\n");
    if report.steps.is_empty() {
        let _ = writeln!(out, "(no steps)\n");
    } else {
        let end = match report.failure.as_ref().and_then(|f| f.step) {
            Some(failed) => (failed + 1).max(MOST_STEPS.min(report.steps.len())),
            None => report.steps.len(),
        };
        let start = end.saturating_sub(MOST_STEPS);
        if start > 0 {
            let _ = writeln!(out, "({start} earlier steps left out)\n");
        }
        let _ = writeln!(
            out,
            "| # | at | took | step | where | ended |\n| --- | --- | --- | --- | --- | --- |"
        );
        for (i, step) in report.steps.iter().enumerate().take(end).skip(start) {
            let ended = match (&step.error, &step.waited) {
                (Some(error), _) => format!("**failed**: {}", code_cell(error)),
                (None, Some(waited)) => code_cell(waited),
                (None, None) => String::new(),
            };
            let _ = writeln!(
                out,
                "| {} | {:.3} s | {} ms | {} | {} | {ended} |",
                i + 1,
                step.at_ms as f64 / 1000.0,
                step.took_ms,
                code_cell(&step.label),
                step.source.as_deref().map(code_cell).unwrap_or_default(),
            );
        }
        if end < report.steps.len() {
            let _ = writeln!(out, "\n({} later steps left out)", report.steps.len() - end);
        }
        out.push('\n');
    }

    if !report.goldens.is_empty() {
        let _ = writeln!(out, "## Golden images that differ\n");
        for golden in &report.goldens {
            let diff = golden
                .diff
                .as_ref()
                .map(|d| format!(", diff {}", code(&d.display().to_string())))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "- {}: expected {}, actual {}{diff}",
                code(&golden.name),
                code(&golden.expected.display().to_string()),
                code(&golden.actual.display().to_string())
            );
        }
        out.push('\n');
    }
    if !report.attachments.is_empty() {
        let _ = writeln!(out, "## Files\n");
        for file in &report.attachments {
            let _ = writeln!(out, "- {}", link(&file.label, &file.path.display().to_string()));
        }
        out.push('\n');
    }
    if !report.notes.is_empty() {
        let _ = writeln!(out, "## Notes\n");
        for note in &report.notes {
            let _ = writeln!(out, "- {}", code(note));
        }
        out.push('\n');
    }
    out
}
