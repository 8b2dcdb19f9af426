//! The live view's session side is the engine's ([`tuipilot::live::serve`]), and so is
//! turning a connection that asked to `watch` into one ([`hand_over`]).

pub use tuipilot::live::point::hand_over;
pub use tuipilot::live::serve::{Person, send_typed, serve};
