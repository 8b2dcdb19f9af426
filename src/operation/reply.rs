//! What operations answer: the screen, how a program ended, a session's identity. Each
//! serialises to the host protocol's version-1 JSON, so the faces never build it by hand.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::keys::KeyModes;
use crate::keys::mouse::MouseModes;
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::terminal::signals::{
    ClipboardWrite, LastCommand, Link, Notification, REPLY_CLIPBOARD_BYTES, REPLY_LINK_URI_BYTES,
    REPLY_LINKS, cut_at,
};
use crate::terminal::{Image, ImageProtocol, Terminal};

mod changes;

pub use changes::{HighlightedRow, RowChange};

/// How a program ended, as the protocol reports it: both fields null while it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitReport {
    /// The exit code, if it exited normally.
    pub exit_code: Option<i32>,
    /// The signal's name (`SIGKILL`), if a signal ended it.
    pub signal: Option<String>,
}

impl From<Option<ExitStatus>> for ExitReport {
    fn from(status: Option<ExitStatus>) -> ExitReport {
        ExitReport {
            exit_code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
        }
    }
}

impl From<ExitStatus> for ExitReport {
    fn from(status: ExitStatus) -> ExitReport {
        Some(status).into()
    }
}

impl ExitReport {
    /// `exited with code N`, `killed by SIGNAME`, or `running`.
    pub fn words(&self) -> String {
        match (&self.exit_code, &self.signal) {
            (_, Some(signal)) => format!("killed by {signal}"),
            (Some(code), None) => format!("exited with code {code}"),
            (None, None) => "running".to_string(),
        }
    }
}

/// The cursor in a [`Screen`] reply (0-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorReport {
    /// Row, from the top.
    pub row: u16,
    /// Column, from the left.
    pub col: u16,
    /// Whether the program shows it.
    pub visible: bool,
}

/// The screen as the faces report it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screen {
    /// The rows as text (or with escape sequences, for an ANSI capture), scrollback first
    /// when asked for.
    pub text: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Where the cursor is.
    pub cursor: CursorReport,
    /// The window title the program set.
    pub title: String,
    /// Whether the program is on the alternate screen (full-screen programs are).
    pub alternate_screen: bool,
    /// Which mouse events the program receives and how they are spelled (tracking `off`:
    /// mouse actions are refused).
    #[serde(default)]
    pub mouse: MouseModes,
    /// How keys are encoded for it: application cursor mode, kitty keyboard flags,
    /// modifyOtherKeys level.
    #[serde(default)]
    pub keys: KeyModes,
    /// Whether it asked for focus events.
    #[serde(default)]
    pub focus_events: bool,
    /// Milliseconds since the screen last changed (measured at the batch of output that
    /// changed it): how settled it is.
    #[serde(default)]
    pub settled_ms: u64,
    /// Why the wait before this screen ended, when there was one: `matched /…/ at row 3`,
    /// `quiet for 300 ms`, `ready: vim (pid 4711) reading the terminal`, `command done (OSC
    /// 133), exit 0`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub waited: Option<String>,
    /// What of the program's reaction may still be pending when the wait returned — a
    /// timer due beyond the reaction bound, work still running, a signal timer whose due
    /// time the kernel does not show — naming the process and what it waits on: the
    /// clauses of `waited` that say so ([`pending_in`]). Every face says it in its
    /// ordinary output.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<String>,
    /// What the wait did not wait for that may still draw, though nothing showed it in
    /// flight: timers skipped for what the session learnt of the program (its timers after
    /// this kind of input drew nothing the last times), a signal timer that a handler
    /// installed before would hide from `/proc` — the clauses of `waited` that say so
    /// ([`unwaited_in`]). Weaker than `pending`, said apart so that the two are never
    /// confused; every face says it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwaited: Option<String>,
    /// The rows (0-based) that look different from this session's previous capture
    /// (every row before the first); text or style.
    #[serde(default)]
    pub changed_rows: Vec<u16>,
    /// For each changed row, where in it and what changed (when the previous capture had
    /// the same size): `row 3, cols 52-60: style (now inverse)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub changes: Vec<RowChange>,
    /// The rows a highlight runs across (a selection in reverse video or a background:
    /// htop's selected process, a menu's item), with the highlight's look in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub highlighted: Vec<HighlightedRow>,
    /// What the program signalled besides the screen (bells, shell marks, clipboard, links).
    #[serde(flatten)]
    pub signals: Box<SignalReport>,
    /// How the program ended, if it has.
    #[serde(flatten)]
    pub exit: ExitReport,
    /// The images on the screen (sixel, kitty graphics, iTerm2 inline), in the order they
    /// were placed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<ImageReport>,
    /// Characters on the screen no font can draw (`U+1F600`), each once: a PNG shows
    /// them as boxes. Reported by `capture`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing_glyphs: Vec<String>,
    /// Where the SVG was written, if one was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub svg: Option<PathBuf>,
    /// Where the PNG was written, if one was asked for with a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub png: Option<PathBuf>,
    /// The PNG's width in pixels, if one was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// The PNG's height in pixels, if one was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The PNG itself, if one was rendered (not serialised: the protocol passes a path).
    #[serde(skip)]
    pub png_bytes: Option<Vec<u8>>,
}

/// An image on the screen, as the faces report it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImageReport {
    /// `sixel`, `kitty` or `iterm2`.
    pub protocol: ImageProtocol,
    /// The kitty image id, or a count of the other protocols' images.
    pub id: u32,
    /// The screen row of its top edge (negative once its top has scrolled off).
    pub row: i32,
    /// The screen column of its left edge.
    pub col: u16,
    /// Cells it covers across.
    pub cols: u16,
    /// Cells it covers down.
    pub rows: u16,
    /// The picture's width in pixels.
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
}

impl ImageReport {
    fn of(image: &Image) -> ImageReport {
        ImageReport {
            protocol: image.protocol,
            id: image.id,
            row: image.row,
            col: image.col,
            cols: image.cols,
            rows: image.rows,
            width: image.width,
            height: image.height,
        }
    }
}

/// How `waited` begins when a settling wait ([`WaitFor::Settle`](super::WaitFor::Settle))
/// ran out of time before the program was ready.
pub(crate) const NOT_READY: &str = "not ready within ";

impl Screen {
    /// Why the program was still busy when a settling wait ran out of time (`not ready
    /// within 3000 ms: busy: …`), if it did: the screen is as it was then.
    pub fn not_ready(&self) -> Option<&str> {
        self.waited.as_deref().filter(|w| w.starts_with(NOT_READY))
    }

    /// A snapshot's fields with `text` as its text.
    pub fn of(snapshot: &Snapshot, text: String) -> Screen {
        let (cols, rows) = snapshot.size();
        let cursor = snapshot.cursor();
        Screen {
            text,
            cols,
            rows,
            cursor: CursorReport {
                row: cursor.row,
                col: cursor.col,
                visible: cursor.visible,
            },
            title: snapshot.title().to_string(),
            alternate_screen: snapshot.alternate_screen(),
            mouse: snapshot.input_modes().mouse,
            keys: snapshot.input_modes().keys,
            focus_events: snapshot.input_modes().focus_events,
            settled_ms: 0,
            waited: None,
            pending: None,
            unwaited: None,
            changed_rows: Vec::new(),
            changes: Vec::new(),
            highlighted: snapshot
                .highlighted_rows()
                .into_iter()
                .map(|h| HighlightedRow {
                    row: h.row,
                    style: h.style.to_string(),
                })
                .collect(),
            signals: Box::default(),
            exit: snapshot.exit_status().copied().into(),
            images: snapshot.images().iter().map(ImageReport::of).collect(),
            missing_glyphs: Vec::new(),
            svg: None,
            png: None,
            width: None,
            height: None,
            png_bytes: None,
        }
    }
}

impl Screen {
    /// One line about the screen: `80x24 · cursor at row 5, col 12 · settled 340 ms · alt
    /// screen` (the cursor as every report writes it, [`Cursor::words`](crate::Cursor::words);
    /// `alt screen` only when on it; how the program ended once it has).
    pub fn header(&self) -> String {
        let cursor = &self.cursor;
        let mut parts = vec![
            format!("{}x{}", self.cols, self.rows),
            crate::snapshot::cursor_words(cursor.row, cursor.col, cursor.visible),
            format!("settled {} ms", self.settled_ms),
        ];
        if !self.highlighted.is_empty() {
            let rows: Vec<String> = self
                .highlighted
                .iter()
                .map(|h| format!("{} ({})", h.row, h.style))
                .collect();
            let noun = if rows.len() == 1 { "row" } else { "rows" };
            parts.push(format!("highlighted {noun} {}", rows.join(", ")));
        }
        if self.alternate_screen {
            parts.push("alt screen".into());
        }
        if self.exit.exit_code.is_some() || self.exit.signal.is_some() {
            parts.push(self.exit.words());
        }
        parts.join(" · ")
    }

    /// The text without its trailing empty rows, and how many there were: what a model is
    /// sent (the count, not the blank lines).
    pub fn trimmed_text(&self) -> (&str, usize) {
        let trimmed = self.text.trim_end_matches('\n');
        let kept = if trimmed.is_empty() {
            0
        } else {
            trimmed.split('\n').count()
        };
        let rows = if self.text.is_empty() {
            0
        } else {
            self.text.split('\n').count()
        };
        (trimmed, rows.saturating_sub(kept))
    }
}

/// What the program signalled besides the screen, as a reply reports it. Empty parts are
/// left out of the JSON, so a screen from a program that signals nothing stays small.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignalReport {
    /// The exit code of the last command the shell finished (OSC 133;D).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_exit: Option<i32>,
    /// The last finished command's prompt, command and output rows on this screen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_command: Option<LastCommand>,
    /// How many times the program rang the bell.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bells: u64,
    /// The working directory it reported (OSC 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Its last clipboard write (OSC 52), decoded; never passed on to this machine. Cut
    /// at [`REPLY_CLIPBOARD_BYTES`](crate::terminal::signals::REPLY_CLIPBOARD_BYTES); its
    /// `bytes` says how long it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard: Option<ClipboardWrite>,
    /// Hyperlinks (OSC 8) on the screen: the last
    /// [`REPLY_LINKS`](crate::terminal::signals::REPLY_LINKS) written, URIs cut at
    /// [`REPLY_LINK_URI_BYTES`](crate::terminal::signals::REPLY_LINK_URI_BYTES).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub links: Vec<Link>,
    /// Desktop notifications it sent (OSC 9, OSC 777), the most recent last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notifications: Vec<Notification>,
    /// Titles it pushed (`CSI 22 t`), the most recent last.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub title_stack: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl SignalReport {
    /// The report of a terminal's signals now.
    pub fn of(terminal: &Terminal) -> SignalReport {
        let last_command = terminal.last_command();
        let signals = terminal.signals();
        SignalReport {
            command_exit: last_command.as_ref().and_then(|c| c.exit_code),
            bells: terminal.bells(),
            cwd: signals.cwd.clone(),
            clipboard: signals
                .clipboard
                .as_ref()
                .map(|c| c.cut_to(REPLY_CLIPBOARD_BYTES)),
            notifications: signals.notifications.iter().cloned().collect(),
            title_stack: signals.title_stack.clone(),
            links: {
                let mut links = terminal.links();
                links.drain(..links.len().saturating_sub(REPLY_LINKS));
                for link in &mut links {
                    link.uri = cut_at(&link.uri, REPLY_LINK_URI_BYTES);
                }
                links
            },
            last_command,
        }
    }
}

/// A session's identity and state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// The program's pid (also its process session id).
    pub pid: i32,
    /// The program and its arguments, joined by spaces.
    pub command: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Whether the program is still running.
    pub running: bool,
    /// Which mouse events the program receives and how they are spelled.
    #[serde(default)]
    pub mouse: MouseModes,
    /// How it ended, if it has.
    #[serde(flatten)]
    pub exit: ExitReport,
    /// When the session started, in seconds since the Unix epoch.
    pub started_unix: u64,
    /// Seconds since the session started.
    pub age_secs: u64,
}

/// The result of an operation.
// One reply is made per operation and handed straight to a face: boxing the screen would
// cost every caller an indirection to save bytes no one holds many of.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// `capture`, `wait` for the screen, and `send` with `capture`: `{"screen": {...}}`.
    Screen {
        /// The screen.
        screen: Screen,
    },
    /// `wait` for the exit, and `exit`: `{"exit_code": .., "signal": ..}`.
    Exit(ExitReport),
    /// `info`.
    Info(Info),
    /// `resize`: the new size.
    Resized {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// `send` without `capture`: `{}`, or `{"waited": "…"}` with why its wait ended (and
    /// `"pending"` when its reaction may not be drawn yet).
    Sent {
        /// Why the send's wait ended, when it had one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        waited: Option<String>,
        /// What of the reaction may still be pending ([`Screen::pending`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pending: Option<String>,
        /// What the wait did not wait for ([`Screen::unwaited`]).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        unwaited: Option<String>,
    },
}

impl Reply {
    /// The screen, for replies that carry one.
    pub fn screen(&self) -> Option<&Screen> {
        match self {
            Reply::Screen { screen } => Some(screen),
            _ => None,
        }
    }

    /// Why the operation's wait ended, when it had one.
    pub fn waited(&self) -> Option<&str> {
        match self {
            Reply::Screen { screen } => screen.waited.as_deref(),
            Reply::Sent { waited, .. } => waited.as_deref(),
            _ => None,
        }
    }

    /// What of the program's reaction may still be pending, when the wait said so.
    pub fn pending(&self) -> Option<&str> {
        match self {
            Reply::Screen { screen } => screen.pending.as_deref(),
            Reply::Sent { pending, .. } => pending.as_deref(),
            _ => None,
        }
    }

    /// What the wait did not wait for that may still draw ([`Screen::unwaited`]).
    pub fn unwaited(&self) -> Option<&str> {
        match self {
            Reply::Screen { screen } => screen.unwaited.as_deref(),
            Reply::Sent { unwaited, .. } => unwaited.as_deref(),
            _ => None,
        }
    }

    /// The notes every face says after this reply ([`wait_notes`]).
    pub fn notes(&self) -> Vec<String> {
        wait_notes(self.pending(), self.unwaited())
    }
}

/// The words a readiness wait ends a clause with when a reaction may not be drawn yet.
pub(crate) const NOT_DRAWN_YET: &str = "may not be drawn yet";

/// The words a readiness wait ends a clause with when it did not wait for something that
/// may still draw, though nothing showed it in flight (a timer skipped for what was
/// learnt, a signal timer `/proc` would not show).
pub(crate) const NOT_WAITED_FOR: &str = "was not waited for";

/// The clauses of a wait's reason (`waited`) that say part of the reaction may still be
/// pending (`a timer of vim (pid 4711) is due in 4 s: its reaction may not be drawn yet`),
/// joined by `; `; `None` when none does.
pub fn pending_in(waited: &str) -> Option<String> {
    clauses_with(waited, NOT_DRAWN_YET)
}

/// The clauses of a wait's reason (`waited`) that say what it did not wait for
/// ([`Screen::unwaited`]), joined by `; `; `None` when none does.
pub fn unwaited_in(waited: &str) -> Option<String> {
    clauses_with(waited, NOT_WAITED_FOR)
}

fn clauses_with(waited: &str, words: &str) -> Option<String> {
    let clauses: Vec<&str> = waited
        .split("; ")
        .filter(|clause| clause.contains(words))
        .collect();
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// The one sentence every face says a pending reaction with (the CLI on stderr, MCP after
/// the screen, Python as a warning): `the screen may not show the whole reaction yet: …`.
pub fn pending_note(pending: &str) -> String {
    format!("the screen may not show the whole reaction yet: {pending}")
}

/// The one sentence every face says what a wait did not wait for with: `not waited for,
/// and may still draw: …`.
pub fn unwaited_note(unwaited: &str) -> String {
    format!("not waited for, and may still draw: {unwaited}")
}

/// The notes a reply is said with, in order: what may be pending ([`pending_note`]),
/// then what was not waited for ([`unwaited_note`]).
pub fn wait_notes(pending: Option<&str>, unwaited: Option<&str>) -> Vec<String> {
    pending
        .map(pending_note)
        .into_iter()
        .chain(unwaited.map(unwaited_note))
        .collect()
}

impl Screen {
    /// Sets why the wait before this screen ended, and what it says may be pending or
    /// was not waited for.
    pub fn set_waited(&mut self, why: Option<String>) {
        self.pending = why.as_deref().and_then(pending_in);
        self.unwaited = why.as_deref().and_then(unwaited_in);
        self.waited = why;
    }

    /// The notes this screen is said with ([`wait_notes`]).
    pub fn notes(&self) -> Vec<String> {
        wait_notes(self.pending.as_deref(), self.unwaited.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_serialise_to_the_protocols_json() {
        let exit = Reply::Exit(ExitStatus::Signaled(9).into());
        assert_eq!(
            serde_json::to_string(&exit).unwrap(),
            r#"{"exit_code":null,"signal":"SIGKILL"}"#
        );
        assert_eq!(
            serde_json::to_string(&Reply::Sent {
                waited: None,
                pending: None,
                unwaited: None
            })
            .unwrap(),
            "{}"
        );
        let screen = Screen {
            text: "hi".into(),
            cols: 80,
            rows: 24,
            ..Screen::default()
        };
        let json = serde_json::to_value(Reply::Screen { screen }).unwrap();
        assert_eq!(json["screen"]["text"], "hi");
        assert_eq!(json["screen"]["exit_code"], serde_json::Value::Null);
        assert_eq!(json["screen"]["cursor"]["visible"], false);
        assert!(json["screen"].get("png").is_none());
    }
}
