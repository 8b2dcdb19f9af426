//! A live view of a session, the session's side: frames of the screen out, a person's
//! keys (and a recorder's assertions) in, as one stream of JSON lines over a socket. The
//! command line's hosts serve it to `tuipilot attach` and `tuipilot record`; the person's
//! side (drawing frames in a terminal) is the command line's.
//!
//! - [`serve`]: sends a [`Frame`] whenever the screen changes, at most one per
//!   [`FRAME_INTERVAL`] (a flood of output costs the watcher 60 frames a second, not one
//!   per chunk), drawn from the session's cells for the watcher's view size; applies what
//!   the person typed through the executor, marked as typed by a person, and the
//!   recorder's assertions ([`serve::Person`]).
//! - [`lines`]: reading the stream's lines, each bounded.
//! - [`point`]: a session of this process watchable by name, as a host's is: the name
//!   taken in the [`runtime`] directory, connections checked ([`guards`]), the
//!   [`protocol`]'s `hello`, `info` and `watch` answered; [`keep`]: a failing test's
//!   session kept for a person to attach to (`TUIPILOT_KEEP`).
//!
//! Frames are text and SGR built from cells ([`Snapshot::ansi_window`](crate::Snapshot::ansi_window)),
//! never the program's bytes: a program cannot reach the person's terminal through them.

pub mod guards;
pub mod keep;
pub mod lines;
pub mod point;
pub mod protocol;
pub mod runtime;
pub mod serve;

use serde::{Deserialize, Serialize};
use std::time::Duration;

use crate::keys::mouse::MouseModes;
use crate::operation::Info;
use crate::{Operation, Reply, Result, Snapshot};

/// The shortest time between two frames: one frame at 60 Hz.
pub const FRAME_INTERVAL: Duration = Duration::from_millis(16);

/// The key that leaves `attach` (and opens `record`'s menu): Ctrl-].
pub const LEAVE_KEY: u8 = 0x1d;

/// How the leave key is written for a person.
pub const LEAVE_KEY_NAME: &str = "Ctrl-]";

/// A session as a live view and a watch point see it: its screen, as it changes, and the
/// executor for what a person does. The session implements it (`crate::session`, a layer
/// above): this module owns what a view needs, the session the behaviour.
pub trait Watched: Send + Sync {
    /// The screen now.
    fn snapshot(&self) -> Snapshot;
    /// A number that changes whenever the screen does (and when the program ends).
    fn screen_version(&self) -> u64;
    /// Waits until [`screen_version`](Self::screen_version) differs from `seen`, or
    /// `timeout` passes; the version then.
    fn wait_for_change(&self, seen: u64, timeout: Duration) -> u64;
    /// Applies `operation` through the executor, marked as done by a person.
    fn apply_by_person(&self, operation: &Operation) -> Result<Reply>;
    /// The program's identity and state (`info`).
    fn info(&self) -> Info;
    /// The program's process id.
    fn pid(&self) -> i32;
    /// The program's name, as started.
    fn program(&self) -> &str;
}

/// What the person's side sees of the screen at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The session's size.
    pub cols: u16,
    /// The session's size.
    pub rows: u16,
    /// The first column of the session shown (clipped views).
    pub first_col: u16,
    /// The first row of the session shown (clipped views).
    pub first_row: u16,
    /// The view this frame was cut for (columns, rows: the person's terminal less its
    /// status line); `(0, 0)` from a host that does not say. A frame cut for another view
    /// — sent before the host heard of the person's resize — is not drawn.
    #[serde(default)]
    pub view: (u16, u16),
    /// The rows shown, each the shown columns as text and SGR, ending reset.
    pub lines: Vec<String>,
    /// Where the cursor is among the shown rows and columns (`col`, `row`), if shown.
    pub cursor: Option<(u16, u16)>,
    /// The window title the program set.
    pub title: String,
    /// The program's cursor key mode: the person's terminal is put in it, so the keys it
    /// sends are the ones the program expects.
    pub application_cursor: bool,
    /// Whether the program enabled bracketed paste (mirrored like the cursor keys).
    pub bracketed_paste: bool,
    /// The mouse modes the program enabled.
    pub mouse: MouseModes,
    /// How the program ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exited: Option<String>,
}

/// What the person's side sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FromPerson {
    /// The view's size for the session's rows (the person's terminal less its status line).
    View {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// Bytes the person typed, base64: sent to the program only with control.
    Input(String),
    /// An assertion on the screen now (`record` only).
    Assert(Assertion),
}

/// An assertion a recording person asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Assertion {
    /// The whole screen, as a snapshot.
    Snapshot,
    /// The whole screen with every cell's colours and attributes, as a styled snapshot.
    StyledSnapshot,
    /// The cursor's row, as an `Expect`.
    CursorRow,
}

/// What the session's side sends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToPerson {
    /// The screen changed.
    Frame(Frame),
    /// A line for the status bar: what an assertion added, why input was not sent.
    Note(String),
}
