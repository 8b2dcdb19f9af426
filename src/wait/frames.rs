//! Whole frames: a wait on the screen that matched returns only once the program has
//! finished drawing the frame it matched on (see the guide's "Waits and frames"). A
//! program writes a frame in pieces — ratatui through a 1 KiB buffer — and a match on the
//! first piece would hand a test a screen no person saw. Here: which conditions read the
//! screen, and how long a match waits for its frame; the waiting is the session's
//! (`session::waiting::frames`).

use std::time::Duration;

use super::Condition;

/// A wait that matched while the program was still writing returns once the output has
/// been quiet this long (where the kernel cannot say the program is ready again sooner).
pub const FRAME_QUIET: Duration = Duration::from_millis(30);

/// The longest a wait that matched waits for the frame to complete (output that never
/// pauses — a flood, a progress bar — is taken as it is then).
pub const FRAME_LIMIT: Duration = Duration::from_millis(250);

/// Conditions on what the screen shows: a match on a frame half drawn is not a match.
pub(crate) fn reads_the_screen(condition: &Condition) -> bool {
    matches!(
        condition,
        Condition::Text(_)
            | Condition::NoText(_)
            | Condition::Line(_)
            | Condition::Wrapped(_)
            | Condition::Output(_)
            | Condition::CursorAt(..)
            | Condition::Predicate(_)
            | Condition::Described(..)
            | Condition::Explained(..)
    )
}
