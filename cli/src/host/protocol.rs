//! The host protocol: requests, the handshake and the line format are the engine's
//! ([`tuipilot::live::protocol`], which watch points answer too); what is the command
//! line's is what a host can do ([`CAPABILITIES`]), how long its replies may be, and its
//! errors as every face reports them ([`Failure`]), codes the command line's own
//! (`no_session`, `busy`, …) included.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::Failure;

pub use tuipilot::live::protocol::{
    HostInfo, PROTOCOL_VERSION, Request, ok_line, request_line, unsupported_version,
};

/// The longest request line accepted, and the longest reply a client reads before the
/// host's `hello` has told it the real bound ([`max_reply_bytes`]): 1 MiB, the engine's
/// bound on a line.
pub const MAX_LINE: usize = tuipilot::live::lines::MAX_LINE;

/// The longest reply line a host may send for a session that keeps `scrollback` lines:
/// every kept line at the widest screen as plain text, plus the tallest and widest screen
/// with an escape sequence on every cell, plus the longest title, all escaped for JSON,
/// plus room for the other fields. `hello` reports it, so a client accepts every reply
/// its session can legitimately produce — a 60,000-line scrollback, a 1000×1000 screen of
/// wide characters — and no more.
pub fn max_reply_bytes(scrollback: usize) -> usize {
    use tuipilot::terminal::{MAX_CELL_BYTES, MAX_SIZE, MAX_TITLE_BYTES};
    let widest = usize::from(MAX_SIZE);
    // `"` and `\` double when escaped.
    let kept_line = widest * MAX_CELL_BYTES * 2 + 2;
    // Each cell's text plus a full SGR sequence, its ESC escaped as `\u001b`.
    let styled_line = widest * (MAX_CELL_BYTES * 2 + 64) + 2;
    scrollback
        .saturating_mul(kept_line)
        .saturating_add(widest * styled_line)
        .saturating_add(MAX_TITLE_BYTES * 6)
        .saturating_add(64 * 1024)
}

/// What a host can do, reported by `hello`.
pub const CAPABILITIES: &[&str] = &[
    "info", "send", "wait", "capture", "resize", "exit", "log", "report", "watch",
];

/// Parses one request line into its id (if it has one) and the request, its error as
/// every face reports one.
pub fn parse_request(line: &[u8]) -> (Option<u64>, Result<Request, Failure>) {
    let (id, request) = tuipilot::live::protocol::parse_request(line);
    (id, request.map_err(Failure::from))
}

/// An error response line.
pub fn error_line(id: Option<u64>, error: &Failure) -> String {
    json!({ "id": id, "error": error }).to_string()
}

/// A parsed response.
#[derive(Debug, Deserialize)]
pub struct Response {
    /// The request's id.
    pub id: Option<u64>,
    /// The reply, on success.
    #[serde(default)]
    pub ok: Option<Value>,
    /// The failure.
    #[serde(default)]
    pub error: Option<Failure>,
}

pub use tuipilot::live::lines::{Line, read_line_limited};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn errors_serialize_with_codes() {
        let line = error_line(Some(3), &Failure::new(ErrorCode::NoSession, "gone"));
        assert_eq!(line, r#"{"error":{"code":"no_session","message":"gone"},"id":3}"#);
    }
}
