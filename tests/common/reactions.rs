//! The rows of the readiness matrix: the wake-up mechanisms `fixtures/reactions.py` draws
//! a reaction by, and the places it runs them (`tests/readiness_matrix.rs` and the
//! readiness benchmark's corpus share them).

/// The mechanisms, as the fixture names them.
pub const MECHANISMS: &[&str] = &[
    "sleep",
    "nanosleep",
    "event",
    "select",
    "poll",
    "epoll",
    "timerfd",
    "timerfd-read",
    "alarm",
    "posix-timer",
    "pipe",
    "socket",
    "child",
    "spin",
];

/// Where the fixture runs its reaction.
pub const PLACES: &[&str] = &["main", "thread", "child", "group", "session", "grandchild"];

/// The fixture's path.
pub const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/reactions.py");
