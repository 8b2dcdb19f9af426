//! Where sessions live is the engine's ([`tuipilot::live::runtime`]): the runtime
//! directory, its permissions, per-session paths and the name's lock, shared with the
//! watch points of library and Python sessions.

pub use tuipilot::live::runtime::*;
