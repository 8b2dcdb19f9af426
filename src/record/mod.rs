//! Recordings: a session's history as asciicast v2 — what the program printed, what was
//! sent to it, resizes, and a marker per operation — reading recordings (v2 and v3)
//! back, and turning them into timed frames (`frames`).
//!
//! Besides the markers a person reads, a recording carries two event types of our own
//! (asciicast v2 leaves the list open; players skip what they do not know): how the
//! program was started ([`START_EVENT`], once, first) and each operation as the log
//! keeps it ([`OPERATION_EVENT`]: the operation with a secret one's text left out, its
//! times, why its wait ended, the screen it returned) — so a session can be exported
//! from its recording after it ended.
//!
//! Recording is one more observer of a session ([`SessionBuilder::record`]): the reader
//! thread stamps output as it arrives, the parser thread hands it over after the screen
//! has it, and the recorder's own thread writes the file, so the PTY never waits for the
//! disk. What happens under a flood is in `recorder`'s docs: memory stays bounded and the
//! file still replays to the same screen.
//!
//! [`SessionBuilder::record`]: crate::SessionBuilder::record

mod cast;
mod frames;
mod passes;
pub(crate) mod recorder;

pub use cast::{CastEvents, CastFile, Event, EventKind, Header, Recording, Replayable};
pub use frames::{Cut, Frame, FrameOptions, FrameStream, OVERLAY_FADE, alternate_screen_end};
pub use passes::{FrameSource, LoopFrom, LoopOffset, RecordingFrames};
pub(crate) use recorder::{Header as RecordHeader, Recorder};

/// The event code of how the program was started: `{"command": [...], "cwd": ..., "env":
/// [names]}` (names only: values can be secrets).
pub const START_EVENT: &str = "tuipilot.start";
/// The event code of one operation as the session's log keeps it (JSON).
pub const OPERATION_EVENT: &str = "tuipilot.op";
