//! tuipilot drives terminal programs the way a person at a keyboard would — start one,
//! press keys, wait for what should appear — and shows what that person would see.
//!
//! The engine runs a program under a real pseudo-terminal, keeps its screen with a
//! `vt100` parser (plus a thin layer that fixes what `vt100` gets wrong), answers the
//! terminal queries programs send, encodes keys exactly as xterm does for the program's
//! current modes, and wakes waiters on every change instead of polling.
//!
//! ```
//! use tuipilot::Session;
//!
//! # fn main() -> Result<(), tuipilot::Error> {
//! let s = Session::builder("bash")
//!     .args(["--norc", "--noprofile"])
//!     .env("PS1", "$ ")
//!     .size(80, 24)
//!     .isolated()
//!     .spawn()?;
//! s.wait_for_text(r"^\$$")?; // rows are matched with trailing spaces trimmed
//! s.send_text("echo $((6 * 7))")?;
//! // Press Enter and wait for the answer *and* the next prompt: a key sent before bash
//! // is back at its prompt would be read by the terminal driver, not by bash.
//! let screen = s.send_keys_and_wait("Enter", r"^42\n\$$")?;
//! assert_eq!(screen.find("^42$")?[0].row, 1);
//! s.press("C-d")?;
//! assert!(s.wait_exit()?.success());
//! # Ok(())
//! # }
//! ```
//!
//! Modules, in the order bytes flow through them:
//!
//! - [`keys`]: key names → the bytes xterm sends for the program's current modes;
//! - [`session`]: the running program — its builder, the reader/parser/writer/exit
//!   threads, the shared state waits read, the raw-output ring;
//! - [`process`]: process sessions — exit statuses, waiting, ending everything a program
//!   started;
//! - [`terminal`]: the screen (`vt100` plus the gap layer that closes its gaps) and the
//!   replies to the program's queries; knows nothing of processes;
//! - [`wait`]: conditions and the one waiting loop;
//! - [`snapshot`]: immutable copies of the screen, with text, cells and styles;
//! - [`locate`]: parts of a snapshot and the assertions tests make on them;
//! - [`color`]: cell colours, sRGB, themes and the 256-colour palette;
//! - [`operation`]: the one vocabulary of operations every face (host protocol, MCP, CLI,
//!   tapes) translates to, and [`Session::apply`], their one executor;
//! - `render` (default feature `render`): snapshots to pixels and PNG, golden images;
//! - `report` (with `render`): one account of a run — a tape, a failed test, a session, a
//!   recording — as `report.html`, `report.md` and `report.json`;
//! - [`error`]: the error type and its kinds.

mod artifacts;
pub mod color;
pub mod error;
pub mod files;
pub mod keys;
pub mod live;
pub mod locate;
pub mod operation;
pub mod process;
mod pty;
pub mod readiness;
pub mod record;
#[cfg(feature = "render")]
pub mod render;
#[cfg(feature = "render")]
pub mod report;
pub mod session;
pub mod snapshot;
mod style;
#[cfg(feature = "render")]
pub mod tape;
pub mod terminal;
pub mod wait;

pub use color::{Color, Rgb, Theme};
pub use error::{Error, ErrorKind, MAX_PATTERN_BYTES, MAX_PATTERN_PROGRAM_BYTES, Result};
pub use keys::{Key, KeyCode, KeyModes, Modifiers};
pub use locate::{Locator, StyleMatch};
pub use operation::{Operation, Reply, StartSpec};
pub use process::ExitStatus;
pub use readiness::Readiness;
pub use session::{
    Cancel, DEFAULT_LOG_CAPACITY, DEFAULT_TIMEOUT, Input, LiveLocator, Mark, Session, SessionBuilder,
    WaitStart,
};
pub use snapshot::{Cell, Cursor, CursorShape, LineSize, Match, Snapshot, Style, UnderlineStyle};
pub use terminal::{
    CellSize, Image, ImageProtocol, MAX_IMAGE_MEMORY, MAX_IMAGE_PIXELS, QueryRecord, Terminal,
    TerminalOptions,
};
pub use wait::{Condition, WaitError};

/// The README's Rust examples, compiled and run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The guide's Rust examples (the book in `docs/`), compiled and run as doctests.
#[doc = include_str!("../docs/src/the-library.md")]
#[doc = include_str!("../docs/src/key-names.md")]
#[doc = include_str!("../docs/src/the-mouse.md")]
#[doc = include_str!("../docs/src/the-childs-environment.md")]
#[doc = include_str!("../docs/src/shell-integration.md")]
#[doc = include_str!("../docs/src/knowing-when-the-program-is-ready.md")]
#[doc = include_str!("../docs/src/waits-and-frames.md")]
#[doc = include_str!("../docs/src/what-the-terminal-answers.md")]
#[doc = include_str!("../docs/src/fidelity.md")]
#[doc = include_str!("../docs/src/limits.md")]
#[doc = include_str!("../docs/src/screenshots.md")]
#[doc = include_str!("../docs/src/recordings.md")]
#[doc = include_str!("../docs/src/an-agents-session-becomes-a-test.md")]
#[doc = include_str!("../docs/src/reports.md")]
#[doc = include_str!("../docs/src/tapes.md")]
#[doc = include_str!("../docs/src/the-command-line-for-agents.md")]
#[doc = include_str!("../docs/src/an-agents-view.md")]
#[doc = include_str!("../docs/src/the-mcp-server.md")]
#[doc = include_str!("../docs/src/python-and-pytest.md")]
#[doc = include_str!("../docs/src/security.md")]
#[doc = include_str!("../docs/src/architecture.md")]
#[doc = include_str!("../docs/src/tests-and-benchmarks.md")]
#[cfg(doctest)]
pub struct GuideDoctests;
