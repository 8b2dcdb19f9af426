//! [`Input`]: what is sent to a program — text, keys, a paste, raw bytes, a mouse action or
//! a focus change — as data, before it is encoded for the modes the program has set.
//! The operation vocabulary checks a send into it; the session encodes and writes it.

use super::mouse::MouseAction;
use super::{Focus, Key, parse_key_list};
use crate::error::Result;

/// Input for [`Session::send_and_wait`](crate::Session::send_and_wait).
#[derive(Clone, Debug)]
pub enum Input {
    /// Literal text, sent as UTF-8.
    Text(String),
    /// Keys, each encoded for the modes in effect when it is sent.
    Keys(Vec<Key>),
    /// A paste, bracketed if the program enabled bracketed paste.
    Paste(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
    /// A mouse action, encoded for the program's mouse modes and aimed at the screen as
    /// it is when sent; refused when the program enabled no mouse reporting.
    Mouse(MouseAction),
    /// A focus change; refused when the program did not enable focus events.
    Focus(Focus),
}

impl Input {
    /// Literal text.
    pub fn text(text: impl Into<String>) -> Input {
        Input::Text(text.into())
    }

    /// One key or several separated by spaces/commas (`"Down Down Enter"`).
    pub fn keys(specs: &str) -> Result<Input> {
        Ok(Input::Keys(parse_key_list(specs)?))
    }

    /// A paste.
    pub fn paste(text: impl Into<String>) -> Input {
        Input::Paste(text.into())
    }

    /// A mouse action (`click 12,3`, `drag 2,1..9,1`, `scroll-down /log/ 3`).
    pub fn mouse(spec: &str) -> Result<Input> {
        Ok(Input::Mouse(MouseAction::parse(spec)?))
    }
}
