//! A live view of a session for a person: `tuipilot attach` (an agent's session, in the
//! person's own terminal) and `tuipilot record` (the person drives a program, and a tape
//! is written from what they did).
//!
//! Both ends speak one stream of JSON lines over a Unix socket: the host's connection
//! (after a `watch` request) or, for `record`, a socket pair inside one process.
//!
//! - [`serve`]: the session's side, the engine's ([`tuipilot::live`]): a frame whenever the
//!   screen changes, at most one per [`tuipilot::live::FRAME_INTERVAL`], the person's keys
//!   and the recorder's assertions applied; here, turning a host connection into one.
//! - [`view`]: the person's side. It draws frames in the person's terminal (only rows
//!   that changed; the session centred when smaller, clipped around the cursor when
//!   larger, and a status line saying which), reads the person's keys, and restores the
//!   terminal on leaving, on any signal and when the session ends.
//! - [`tty`]: the person's terminal: raw mode, its size and resizes, restoring it.
//!
//! The view never replays the program's bytes: what reaches the person's terminal is
//! text and SGR built from cells ([`tuipilot::Snapshot::ansi_window`]), so a program
//! cannot move the person's cursor, set their title or answer queries through it.

pub mod serve;
pub mod tty;
pub mod view;

pub use tuipilot::live::{Assertion, Frame, FromPerson, LEAVE_KEY, LEAVE_KEY_NAME, ToPerson};
