//! The protocol of a session's socket: the library's operations, one JSON object per line
//! each way — what the command line's hosts serve in full, and what a watch point
//! ([`super::point`]) answers of it (`hello`, `info`, `watch`).
//!
//! A request is an [`Operation`] serialised (`{"op": "send", ...}`) with an `id` beside
//! it, or the handshake `{"id":1,"op":"hello","version":1}`; its response echoes the id
//! with either `"ok": {...}` (the operation's [`Reply`](crate::Reply), or for `info` the
//! session's [`HostInfo`]) or `"error": {"code": "...", "message": "..."}`, the code
//! being the error's kind on the wire ([`wire_code`]). This file holds only what the
//! transport adds — ids, the handshake, the codes — and their tests; what the operations
//! mean is the executor's.
//!
//! Version 1 still holds: every addition since (`no_text` waits, raw-byte steps, any
//! condition after `send` or before `capture`, the `spawn_failed` and `mismatch` error
//! codes) is a new optional form that a version-1 request never uses.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::operation::{Info, Operation};
use crate::{Error, ErrorKind, Result};

/// The protocol version this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request, without its id.
#[derive(Clone, Debug, PartialEq)]
pub enum Request {
    /// The handshake: the client's protocol version.
    Hello {
        /// The version the client speaks.
        version: u32,
    },
    /// An operation on the session.
    Op(Operation),
    /// The session's start spec and operation log (what `export` replays); the host's
    /// own request, since only the host knows how the session was started.
    Log,
    /// The session's report (see `tuipilot::report`): written by the host to `path` (an
    /// absolute `.html`, `.md` or `.json` file, or a folder for all three), or returned as
    /// Markdown without one. A read of the session, like `log`, not an operation on it.
    Report {
        /// Where to write it.
        path: Option<PathBuf>,
    },
    /// A live view of the session (`tuipilot attach`): answered `ok`, after which the
    /// connection carries the view's own lines both ways (see `crate::watch`) until the
    /// watcher hangs up.
    Watch {
        /// Whether the watcher's keys go to the program.
        control: bool,
        /// The watcher's view size.
        cols: u16,
        /// The watcher's view size.
        rows: u16,
    },
}

/// `info` as the host answers it: the library's [`Info`] plus the session's name and the
/// host's own pid.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostInfo {
    /// The session's name.
    pub session: String,
    /// The host process's pid.
    pub host_pid: u32,
    /// The program's identity and state.
    #[serde(flatten)]
    pub info: Info,
}

/// Parses one request line into its id (if it has one) and the request.
pub fn parse_request(line: &[u8]) -> (Option<u64>, Result<Request>) {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return (None, Err(bad_request(format!("the request is not JSON: {e}"))));
        }
    };
    let Value::Object(mut object) = value else {
        return (None, Err(bad_request("the request must be a JSON object")));
    };
    let id = match object.remove("id") {
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(_) => {
            return (None, Err(bad_request("`id` must be a non-negative integer")));
        }
        None => return (None, Err(bad_request("the request has no `id`"))),
    };
    (id, request_of(object))
}

fn request_of(mut object: Map<String, Value>) -> Result<Request> {
    if object.get("op").and_then(Value::as_str) == Some("hello") {
        object.remove("op");
        let version = object
            .get("version")
            .and_then(Value::as_u64)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| bad_request("invalid request: `hello` needs a numeric `version`"))?;
        return Ok(Request::Hello { version });
    }
    if object.get("op").and_then(Value::as_str) == Some("log") {
        return Ok(Request::Log);
    }
    if object.get("op").and_then(Value::as_str) == Some("report") {
        let path = match object.get("path") {
            None | Some(Value::Null) => None,
            Some(Value::String(path)) if Path::new(path).is_absolute() => Some(PathBuf::from(path)),
            Some(Value::String(path)) => {
                return Err(bad_request(format!(
                    "`{path}` is a relative path: the protocol takes absolute paths (report.path)"
                )));
            }
            Some(_) => return Err(bad_request("`path` must be a string")),
        };
        return Ok(Request::Report { path });
    }
    if object.get("op").and_then(Value::as_str) == Some("watch") {
        let size = |key: &str| {
            object
                .get(key)
                .and_then(Value::as_u64)
                .and_then(|n| u16::try_from(n).ok())
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    bad_request(format!(
                        "invalid request: `watch` needs `{key}`, a size from 1 to 65535"
                    ))
                })
        };
        let control = match object.get("control") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(control)) => *control,
            Some(_) => return Err(bad_request("`control` must be true or false")),
        };
        return Ok(Request::Watch {
            control,
            cols: size("cols")?,
            rows: size("rows")?,
        });
    }
    serde_json::from_value(Value::Object(object))
        .map(Request::Op)
        .map_err(|e| bad_request(format!("invalid request: {e}")))
}

/// A request line with its id.
pub fn request_line(id: u64, request: &Request) -> String {
    let mut value = match request {
        Request::Hello { version } => json!({ "op": "hello", "version": version }),
        Request::Op(operation) => serde_json::to_value(operation).unwrap_or(Value::Null),
        Request::Log => json!({ "op": "log" }),
        Request::Report { path } => json!({ "op": "report", "path": path }),
        Request::Watch { control, cols, rows } => {
            json!({ "op": "watch", "control": control, "cols": cols, "rows": rows })
        }
    };
    if let Value::Object(object) = &mut value {
        object.insert("id".into(), json!(id));
    }
    value.to_string()
}

/// A success response line.
pub fn ok_line(id: Option<u64>, body: &impl Serialize) -> String {
    json!({ "id": id, "ok": body }).to_string()
}

/// A malformed request.
fn bad_request(message: impl Into<String>) -> Error {
    Error::InvalidArgument {
        message: message.into(),
    }
}

/// The code an error of `kind` carries on the wire (`{"error": {"code": ...}}`): the one
/// mapping of kinds to codes, which the command line's codes and exit statuses start from.
pub fn wire_code(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::BadInput => "bad_request",
        ErrorKind::Spawn => "spawn_failed",
        ErrorKind::Timeout => "timeout",
        ErrorKind::Exited | ErrorKind::ExitedWhileWaiting => "exited",
        ErrorKind::Mismatch => "mismatch",
        ErrorKind::Unsupported => "unsupported",
        ErrorKind::Cancelled | ErrorKind::Internal => "internal",
    }
}

/// An error response line: the error's code ([`wire_code`]) and its first line.
pub fn error_line(id: Option<u64>, error: &Error) -> String {
    let text = error.to_string();
    let message = text.lines().next().unwrap_or_default();
    json!({ "id": id, "error": { "code": wire_code(error.kind()), "message": message } }).to_string()
}

/// A protocol version this build cannot speak.
pub fn unsupported_version(version: u32) -> Error {
    Error::Unsupported {
        what: format!("protocol version {version}"),
        fix: format!("this build speaks version {PROTOCOL_VERSION}; use a client of the same release"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operation::{Step, WaitFor};

    #[test]
    fn requests_parse() {
        let (id, req) = parse_request(br#"{"id":7,"op":"hello","version":1}"#);
        assert_eq!((id, req.unwrap()), (Some(7), Request::Hello { version: 1 }));
        let (_, req) = parse_request(br#"{"id":1,"op":"send","actions":[{"keys":"Enter"}],"wait":"\\$"}"#);
        assert_eq!(
            req.unwrap(),
            Request::Op(Operation::Send {
                steps: vec![Step::Keys("Enter".into())],
                wait: Some(WaitFor::Text("\\$".into())),
                timeout_ms: None,
                capture: false,
                secret: false,
            })
        );
    }

    #[test]
    fn requests_round_trip() {
        let requests = [
            Request::Hello { version: 1 },
            Request::Op(Operation::Wait {
                condition: WaitFor::NoText("x".into()),
                timeout_ms: Some(5),
            }),
            Request::Watch {
                control: true,
                cols: 120,
                rows: 39,
            },
        ];
        for request in requests {
            let (id, back) = parse_request(request_line(9, &request).as_bytes());
            assert_eq!((id, back.unwrap()), (Some(9), request));
        }
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let cases: [(&[u8], &str); 8] = [
            (
                br#"{"id":1,"op":"watch","cols":0,"rows":24}"#,
                "`watch` needs `cols`",
            ),
            (
                br#"{"id":1,"op":"watch","cols":80,"rows":24,"control":"yes"}"#,
                "`control` must be",
            ),
            (b"not json", "not JSON"),
            (b"[1]", "must be a JSON object"),
            (br#"{"op":"info"}"#, "no `id`"),
            (br#"{"id":1,"op":"fly"}"#, "unknown variant `fly`"),
            (br#"{"id":1,"op":"hello"}"#, "needs a numeric `version`"),
            (
                br#"{"id":1,"op":"resize","cols":"wide","rows":2}"#,
                "invalid request",
            ),
        ];
        for (line, expected) in cases {
            let err = parse_request(line).1.unwrap_err();
            assert_eq!(err.kind(), ErrorKind::BadInput);
            assert!(
                err.to_string().contains(expected),
                "{}: {err}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
