//! What a wait waits for: [`WaitFor`], the vocabulary's waits, each the library's
//! [`Condition`] once its regex is compiled; and how the faces give a region of rows or
//! columns (`3-27`).

use serde::{Deserialize, Serialize};

use super::checked_duration;
use crate::error::{Error, Result};
use crate::wait::Condition;

/// What a wait waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    /// A regex matching some row of the screen (trailing spaces trimmed).
    Text(String),
    /// A regex matching inside a region of the screen ([`Condition::text_in`]): rows and
    /// columns each the first and the last, 0-based and inclusive (`None`: all). A match
    /// outside does not count.
    TextIn {
        /// The regex.
        pattern: String,
        /// The first and last row.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rows: Option<(u16, u16)>,
        /// The first and last column.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cols: Option<(u16, u16)>,
    },
    /// No row of the screen matches the regex.
    NoText(String),
    /// A regex matching the cursor's row (trailing spaces trimmed): a prompt, an input line.
    Line(String),
    /// A regex matching a logical line: rows the terminal wrapped joined into the line the
    /// program wrote ([`Condition::Wrapped`]).
    Wrapped(String),
    /// A regex matching the program's output (escape sequences removed): since the session
    /// started for `wait`, since the input for `send`.
    Output(String),
    /// The screen unchanged for this many milliseconds, counted from the call.
    StableMs(u64),
    /// The program's exit.
    Exit,
    /// The next shell command to finish (its OSC 133;D mark) after the call's baseline; the
    /// reply carries its exit code (`command_exit`) whatever it is.
    Command,
    /// A bell after the call's baseline.
    Bell,
    /// The window title matching the regex.
    Title(String),
    /// The working directory the program reports (OSC 7) matching the regex.
    Cwd(String),
    /// The program has finished reacting and waits for input, as the kernel sees it
    /// ([`Condition::Ready`]); a quiet screen where the kernel cannot tell.
    Ready,
    /// A shell waits at its prompt ([`Condition::Prompt`]).
    Prompt,
    /// [`Ready`](WaitFor::Ready) that never fails: when the time is up first, or the
    /// program exits, the operation still succeeds with the screen as it is then, and its
    /// `waited` says so (`not ready within 3000 ms: busy: sleep (pid 88) …`,
    /// `exited with code 0`). What a face waits for when input has no wait of its own and
    /// the caller wants to see what it did.
    Settle,
}

impl WaitFor {
    /// The library condition, with its regex compiled.
    pub fn condition(&self) -> Result<Condition> {
        Ok(match self {
            WaitFor::Text(re) => Condition::text(re)?,
            WaitFor::TextIn { pattern, rows, cols } => Condition::text_in(pattern, *rows, *cols)?,
            WaitFor::NoText(re) => Condition::no_text(re)?,
            WaitFor::Line(re) => Condition::line(re)?,
            WaitFor::Wrapped(re) => Condition::wrapped(re)?,
            WaitFor::Output(re) => Condition::output(re)?,
            WaitFor::StableMs(ms) => Condition::Stable(checked_duration("stable_ms", *ms)?),
            WaitFor::Exit => Condition::Exit,
            WaitFor::Command => Condition::CommandDone,
            WaitFor::Bell => Condition::Bell,
            WaitFor::Title(re) => Condition::title(re)?,
            WaitFor::Cwd(re) => Condition::cwd(re)?,
            WaitFor::Ready => Condition::Ready,
            WaitFor::Prompt => Condition::Prompt,
            WaitFor::Settle => Condition::Ready,
        })
    }
}

/// `rows 3-27, columns 0-39`: a region in words (first and last, inclusive).
pub fn region_words(rows: Option<(u16, u16)>, cols: Option<(u16, u16)>) -> String {
    let span = |(a, b): (u16, u16)| if a == b { a.to_string() } else { format!("{a}-{b}") };
    let mut words = Vec::new();
    if let Some(rows) = rows {
        words.push(format!("rows {}", span(rows)));
    }
    if let Some(cols) = cols {
        words.push(format!("columns {}", span(cols)));
    }
    if words.is_empty() {
        words.push("the whole screen".into());
    }
    words.join(", ")
}

/// `3-27` (or `5`) as the first and last row or column, 0-based and inclusive — how the
/// command line, MCP and tapes give a region.
pub fn parse_span(what: &str, text: &str) -> Result<(u16, u16)> {
    let bad = || Error::InvalidArgument {
        message: format!(
            "{what} `{text}` is not a span: give FIRST-LAST (0-based, inclusive: `3-27`) or one number"
        ),
    };
    let (a, b) = match text.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (text.trim(), text.trim()),
    };
    let (a, b) = (
        a.parse::<u16>().map_err(|_| bad())?,
        b.parse::<u16>().map_err(|_| bad())?,
    );
    if a > b {
        return Err(Error::InvalidArgument {
            message: format!("{what} `{text}` runs backwards: give the first, then the last ({b}-{a})"),
        });
    }
    Ok((a, b))
}

impl WaitFor {
    /// A short description: `text /re/`, `stable 300ms`, `exit`.
    pub fn label(&self) -> String {
        match self {
            WaitFor::Text(re) => format!("text /{re}/"),
            WaitFor::TextIn { pattern, rows, cols } => {
                format!("text /{pattern}/ in {}", region_words(*rows, *cols))
            }
            WaitFor::NoText(re) => format!("no text /{re}/"),
            WaitFor::Line(re) => format!("line /{re}/"),
            WaitFor::Wrapped(re) => format!("wrapped /{re}/"),
            WaitFor::Output(re) => format!("output /{re}/"),
            WaitFor::StableMs(ms) => format!("stable {ms}ms"),
            WaitFor::Exit => "exit".into(),
            WaitFor::Command => "command".into(),
            WaitFor::Bell => "bell".into(),
            WaitFor::Title(re) => format!("title /{re}/"),
            WaitFor::Cwd(re) => format!("cwd /{re}/"),
            WaitFor::Ready => "ready".into(),
            WaitFor::Prompt => "prompt".into(),
            WaitFor::Settle => "settle".into(),
        }
    }
}
