//! What a wait waits for, and what a failed wait reports: the vocabulary of waiting, as
//! data. The waiting itself belongs to the session, whose state it reads
//! (`session::waiting`); this module names nothing of sessions, so every layer above the
//! screen — locators, operations, reports — can speak of conditions and failures.
//!
//! A wait that fails returns a [`WaitError`] whose `Display` shows the condition, the
//! elapsed time, the screen as it last was, the line closest to what was wanted, and the
//! terminal queries the program sent that went unanswered (`report`). The readiness
//! wait's constants (`ready`) and the rule for whole frames (`frames`) have files of their
//! own.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use regex::Regex;

use crate::error::Result;
use crate::snapshot::{Snapshot, compile};

mod frames;
mod ready;
pub(crate) mod report;

pub(crate) use frames::reads_the_screen;
pub use frames::{FRAME_LIMIT, FRAME_QUIET};
pub(crate) use ready::STILL_TRUE;
pub(crate) use ready::spoken;
pub use ready::{ESCAPE_SETTLE, REACTION_BOUND, READY_FALLBACK_QUIET, still_true};
pub use report::WaitError;
pub(crate) use report::closest_line;

/// A test on a snapshot, for [`Condition::Predicate`].
pub type Predicate = Arc<dyn Fn(&Snapshot) -> bool + Send + Sync>;

/// What a failed wait's report says the screen held instead, for a [`Condition::Explained`].
pub type Explain = Arc<dyn Fn(&Snapshot) -> Option<String> + Send + Sync>;

/// What a wait waits for.
#[derive(Clone)]
pub enum Condition {
    /// A regex matches some row of the visible screen.
    Text(Regex),
    /// No row of the visible screen matches the regex.
    NoText(Regex),
    /// A regex matches the cursor's row (trailing spaces trimmed): the line a shell
    /// prompt or a program's input field is on.
    Line(Regex),
    /// A regex matches a logical line of the visible screen: the rows the terminal wrapped
    /// joined into the line the program wrote ([`Snapshot::logical_lines`]) — a path or
    /// command longer than the screen is wide.
    Wrapped(Regex),
    /// A regex matches the program's output (escape sequences removed) since a point in
    /// the stream: the session start, a [`Mark`](crate::Mark), or the input of a
    /// `send_and_wait`.
    Output(Regex),
    /// The screen has not changed for this long, counted from the start of the wait.
    Stable(Duration),
    /// The program has exited.
    Exit,
    /// The cursor is at this 0-based (row, col).
    CursorAt(u16, u16),
    /// A shell command finished after the baseline: the shell's OSC 133;D mark (see
    /// shell integration). The reply's screen carries its exit code.
    CommandDone,
    /// The program rang the bell after the baseline.
    Bell,
    /// The window title matches the regex.
    Title(Regex),
    /// The working directory the program reported (OSC 7) matches the regex.
    Cwd(Regex),
    /// A caller-supplied test on the screen.
    Predicate(Predicate),
    /// A caller-supplied test with the words a failed wait's report uses for it
    /// ([`Condition::described`]).
    Described(String, Predicate),
    /// A [`Described`](Condition::Described) test that also says, when the wait fails, what
    /// the screen held instead (`"Cherry" is drawn bold fg=white (15)`).
    Explained(String, Predicate, Explain),
    /// The program has finished reacting and waits for input, as the kernel sees it (see
    /// [`readiness`](crate::readiness)): every process of the terminal's foreground group
    /// asleep, one blocked on the terminal, no output or input in flight; seen twice a few
    /// milliseconds apart with no output between. Where the kernel cannot tell, a screen
    /// quiet for [`READY_FALLBACK_QUIET`].
    Ready,
    /// A shell waits at its prompt: [`Condition::Ready`], and, once the shell has sent
    /// OSC 133 marks, its last marks a prompt with no command running. For a shell's first
    /// prompt, where the screen's text is anyone's guess (`$`, `#`, `%`, a theme).
    Prompt,
}

impl Condition {
    /// Text on the screen matching `pattern`.
    pub fn text(pattern: &str) -> Result<Condition> {
        Ok(Condition::Text(compile(pattern)?))
    }

    /// No text on the screen matching `pattern`.
    pub fn no_text(pattern: &str) -> Result<Condition> {
        Ok(Condition::NoText(compile(pattern)?))
    }

    /// The cursor's row matching `pattern`.
    pub fn line(pattern: &str) -> Result<Condition> {
        Ok(Condition::Line(compile(pattern)?))
    }

    /// A logical line (the rows the terminal wrapped, joined) matching `pattern`.
    pub fn wrapped(pattern: &str) -> Result<Condition> {
        Ok(Condition::Wrapped(compile(pattern)?))
    }

    /// Output matching `pattern`.
    pub fn output(pattern: &str) -> Result<Condition> {
        Ok(Condition::Output(compile(pattern)?))
    }

    /// The window title matching `pattern`.
    pub fn title(pattern: &str) -> Result<Condition> {
        Ok(Condition::Title(compile(pattern)?))
    }

    /// The working directory the program reports (OSC 7) matching `pattern`.
    pub fn cwd(pattern: &str) -> Result<Condition> {
        Ok(Condition::Cwd(compile(pattern)?))
    }

    /// A screen unchanged for `quiet`.
    pub fn stable(quiet: Duration) -> Condition {
        Condition::Stable(quiet)
    }

    /// A test on each new screen.
    pub fn predicate(test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static) -> Condition {
        Condition::Predicate(Arc::new(test))
    }

    /// A test on each new screen, named for the report: a failed wait says
    /// "waiting for the selected row to be bold", not "a condition on the screen".
    pub fn described(
        what: impl Into<String>,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
    ) -> Condition {
        Condition::Described(what.into(), Arc::new(test))
    }

    /// A named test on each new screen, and what to say about the last screen when the
    /// wait fails (a note in the report).
    pub fn explained(
        what: impl Into<String>,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
        explain: impl Fn(&Snapshot) -> Option<String> + Send + Sync + 'static,
    ) -> Condition {
        Condition::Explained(what.into(), Arc::new(test), Arc::new(explain))
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Condition::Text(re) => write!(f, "text matching /{re}/ on the screen"),
            Condition::NoText(re) => write!(f, "no text matching /{re}/ on the screen"),
            Condition::Line(re) => write!(f, "the cursor's line to match /{re}/"),
            Condition::Wrapped(re) => write!(f, "a line matching /{re}/, wrapped rows joined"),
            Condition::Output(re) => write!(f, "output matching /{re}/"),
            Condition::Stable(d) => {
                write!(f, "the screen to stay unchanged for {} ms", d.as_millis())
            }
            Condition::Exit => write!(f, "the program to exit"),
            Condition::CursorAt(r, c) => write!(f, "the cursor at row {r}, col {c}"),
            Condition::CommandDone => write!(f, "the next command to finish (OSC 133;D)"),
            Condition::Bell => write!(f, "a bell"),
            Condition::Title(re) => write!(f, "the title to match /{re}/"),
            Condition::Cwd(re) => write!(f, "the working directory (OSC 7) to match /{re}/"),
            Condition::Predicate(_) => write!(f, "a condition on the screen"),
            Condition::Described(what, _) | Condition::Explained(what, ..) => f.write_str(what),
            Condition::Ready => write!(f, "the program to wait for input"),
            Condition::Prompt => write!(f, "the shell to wait at its prompt"),
        }
    }
}

impl fmt::Debug for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Condition({self})")
    }
}
