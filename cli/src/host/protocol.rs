//! The host protocol's vocabulary: one JSON object per line each way.
//!
//! A request is `{"id": N, "op": "...", ...}`; its response echoes the id with either
//! `"ok": {...}` or `"error": {"code": "...", "message": "..."}`. Start with
//! `{"id":1,"op":"hello","version":1}`. This file holds the request and error types, the
//! bounded line reader, and their tests; transports only translate to and from them.

use std::io::{self, BufRead};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use tuipilot::Snapshot;

/// The protocol version this build speaks.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest request or response line accepted (1 MiB).
pub const MAX_LINE: usize = 1 << 20;

/// What a host can do, reported by `hello`.
pub const CAPABILITIES: &[&str] = &["info", "send", "wait", "capture", "resize", "exit"];

/// Error classes on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The request was malformed or named something invalid (key, regex, size, name).
    BadRequest,
    /// No session by that name (no socket, or nothing listening on it).
    NoSession,
    /// A wait did not come true in time.
    Timeout,
    /// The program has exited (or the session was ended).
    Exited,
    /// A protocol version or operation this host does not support.
    Unsupported,
    /// Anything else.
    Internal,
}

/// A structured error: a code, a one-line message, and for failed waits the full report
/// (screen, closest line, unanswered queries).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
}

impl HostError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> HostError {
        HostError {
            code,
            message: message.into(),
            report: None,
        }
    }

    pub fn bad_request(message: impl Into<String>) -> HostError {
        HostError::new(ErrorCode::BadRequest, message)
    }

    pub fn internal(message: impl Into<String>) -> HostError {
        HostError::new(ErrorCode::Internal, message)
    }

    /// Whether this error means a wait's condition was not met (CLI exit code 1).
    pub fn is_unmet_condition(&self) -> bool {
        self.code == ErrorCode::Timeout || (self.code == ErrorCode::Exited && self.report.is_some())
    }
}

impl std::fmt::Display for HostError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.report {
            Some(report) => f.write_str(report),
            None => f.write_str(&self.message),
        }
    }
}

impl From<tuipilot::Error> for HostError {
    fn from(e: tuipilot::Error) -> HostError {
        use tuipilot::Error as E;
        let code = match &e {
            E::Timeout(_) => ErrorCode::Timeout,
            E::ExitedWhileWaiting(_) | E::Exited { .. } | E::Closed { .. } => ErrorCode::Exited,
            E::TerminalFault { .. } | E::Io { .. } => ErrorCode::Internal,
            _ => ErrorCode::BadRequest,
        };
        let text = e.to_string();
        let report = matches!(e, E::Timeout(_) | E::ExitedWhileWaiting(_)).then(|| text.clone());
        HostError {
            code,
            message: text.lines().next().unwrap_or_default().to_string(),
            report,
        }
    }
}

/// One step of a `send`, applied in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SendAction {
    /// Literal text.
    Text(String),
    /// Key names separated by spaces or commas.
    Keys(String),
    /// A paste (bracketed if the program enabled it).
    Paste(String),
    /// A pause in milliseconds.
    SleepMs(u64),
}

/// What a `wait` waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    Text(String),
    Output(String),
    StableMs(u64),
    Exit,
}

/// Where and how `capture` writes a PNG.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PngRequest {
    /// An absolute path; without one, a numbered file in the runtime directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// `dark` (default) or `light`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Fallback font files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fonts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font_size: Option<f32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<u32>,
}

impl PngRequest {
    /// The render options this request asks for.
    pub fn options(&self) -> Result<tuipilot::render::RenderOptions, tuipilot::Error> {
        let mut options = tuipilot::render::RenderOptions::default();
        if let Some(theme) = &self.theme {
            options = options.with_theme(theme)?;
        }
        for font in &self.fonts {
            options = options.with_font(font);
        }
        if let Some(size) = self.font_size {
            options.font_size = size;
        }
        if let Some(scale) = self.scale {
            options.scale = scale;
        }
        Ok(options)
    }
}

/// A request, without its id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// The handshake: the client's protocol version.
    Hello {
        version: u32,
    },
    /// The session's name, pid, command, size and state.
    Info,
    /// Apply actions in order; with `wait`, the baseline is taken before the first.
    Send {
        #[serde(default)]
        actions: Vec<SendAction>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        #[serde(default)]
        capture: bool,
    },
    Wait {
        condition: WaitFor,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    Capture {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        wait: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        #[serde(default)]
        ansi: bool,
        #[serde(default)]
        scrollback: bool,
        /// Also render the screen to a PNG file.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        png: Option<PngRequest>,
    },
    Resize {
        cols: u16,
        rows: u16,
    },
    /// End the program's whole session, reply with its status, then stop the host.
    Exit {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
}

/// Parses one request line into its id (if it has one) and the request.
pub fn parse_request(line: &[u8]) -> (Option<u64>, Result<Request, HostError>) {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return (
                None,
                Err(HostError::bad_request(format!("the request is not JSON: {e}"))),
            );
        }
    };
    let Value::Object(mut object) = value else {
        return (
            None,
            Err(HostError::bad_request("the request must be a JSON object")),
        );
    };
    let id = match object.remove("id") {
        Some(Value::Number(n)) if n.as_u64().is_some() => n.as_u64(),
        Some(_) => {
            return (
                None,
                Err(HostError::bad_request("`id` must be a non-negative integer")),
            );
        }
        None => return (None, Err(HostError::bad_request("the request has no `id`"))),
    };
    let request = serde_json::from_value(Value::Object(object))
        .map_err(|e| HostError::bad_request(format!("invalid request: {e}")));
    (id, request)
}

/// A request line with its id.
pub fn request_line(id: u64, request: &Request) -> String {
    let mut value = serde_json::to_value(request).unwrap_or(Value::Null);
    if let Value::Object(object) = &mut value {
        object.insert("id".into(), json!(id));
    }
    value.to_string()
}

/// A success response line.
pub fn ok_line(id: Option<u64>, body: Value) -> String {
    json!({ "id": id, "ok": body }).to_string()
}

/// An error response line.
pub fn error_line(id: Option<u64>, error: &HostError) -> String {
    json!({ "id": id, "error": error }).to_string()
}

/// A parsed response.
#[derive(Debug, Deserialize)]
pub struct Response {
    pub id: Option<u64>,
    #[serde(default)]
    pub ok: Option<Value>,
    #[serde(default)]
    pub error: Option<HostError>,
}

/// The JSON form of a screen, shared by `capture` and `send --capture`.
pub fn screen_json(snap: &Snapshot, text: String) -> Value {
    let (cols, rows) = snap.size();
    let cursor = snap.cursor();
    let exit = snap.exit_status();
    json!({
        "text": text,
        "cols": cols,
        "rows": rows,
        "cursor": { "row": cursor.row, "col": cursor.col, "visible": cursor.visible },
        "title": snap.title(),
        "alternate_screen": snap.alternate_screen(),
        "exit_code": exit.and_then(|s| s.code()),
        "signal": exit.and_then(|s| s.signal()),
    })
}

/// One line read with a length limit.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    Complete(Vec<u8>),
    TooLong,
    Eof,
}

/// Reads up to and including `\n`, refusing lines longer than `max` bytes without
/// buffering them.
pub fn read_line_limited(reader: &mut impl BufRead, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::Eof
            } else {
                Line::Complete(line)
            });
        }
        let (chunk, done) = match memchr::memchr(b'\n', available) {
            Some(i) => (&available[..i], i + 1),
            None => (available, available.len()),
        };
        if line.len() + chunk.len() > max {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(chunk);
        let found_newline = done > chunk.len();
        reader.consume(done);
        if found_newline {
            return Ok(Line::Complete(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_parse() {
        let (id, req) = parse_request(br#"{"id":7,"op":"hello","version":1}"#);
        assert_eq!((id, req.unwrap()), (Some(7), Request::Hello { version: 1 }));
        let (_, req) = parse_request(
            br#"{"id":1,"op":"send","actions":[{"text":"ls"},{"keys":"Enter"},{"sleep_ms":5},{"paste":"x"}],"wait":"\\$","capture":true}"#,
        );
        assert_eq!(
            req.unwrap(),
            Request::Send {
                actions: vec![
                    SendAction::Text("ls".into()),
                    SendAction::Keys("Enter".into()),
                    SendAction::SleepMs(5),
                    SendAction::Paste("x".into())
                ],
                wait: Some("\\$".into()),
                timeout_ms: None,
                capture: true,
            }
        );
        let (_, req) = parse_request(br#"{"id":2,"op":"wait","condition":"exit"}"#);
        assert_eq!(
            req.unwrap(),
            Request::Wait {
                condition: WaitFor::Exit,
                timeout_ms: None
            }
        );
        let (_, req) =
            parse_request(br#"{"id":2,"op":"wait","condition":{"stable_ms":300},"timeout_ms":50}"#);
        assert_eq!(
            req.unwrap(),
            Request::Wait {
                condition: WaitFor::StableMs(300),
                timeout_ms: Some(50)
            }
        );
    }

    #[test]
    fn requests_round_trip() {
        let req = Request::Capture {
            wait: Some("x".into()),
            timeout_ms: Some(5),
            ansi: true,
            scrollback: false,
            png: Some(PngRequest {
                path: Some("/tmp/x.png".into()),
                theme: Some("light".into()),
                ..PngRequest::default()
            }),
        };
        let (id, back) = parse_request(request_line(9, &req).as_bytes());
        assert_eq!((id, back.unwrap()), (Some(9), req));
    }

    #[test]
    fn bad_requests_say_what_is_wrong() {
        let cases: [(&[u8], &str); 5] = [
            (b"not json", "not JSON"),
            (b"[1]", "must be a JSON object"),
            (br#"{"op":"info"}"#, "no `id`"),
            (br#"{"id":1,"op":"fly"}"#, "unknown variant `fly`"),
            (
                br#"{"id":1,"op":"resize","cols":"wide","rows":2}"#,
                "invalid request",
            ),
        ];
        for (line, expected) in cases {
            let err = parse_request(line).1.unwrap_err();
            assert_eq!(err.code, ErrorCode::BadRequest);
            assert!(
                err.message.contains(expected),
                "{}: {}",
                String::from_utf8_lossy(line),
                err.message
            );
        }
    }

    #[test]
    fn lines_are_limited() {
        let mut input = io::Cursor::new(b"short\n0123456789abcdef\nlast".to_vec());
        let mut reader = io::BufReader::with_capacity(4, &mut input);
        assert_eq!(
            read_line_limited(&mut reader, 10).unwrap(),
            Line::Complete(b"short".to_vec())
        );
        assert_eq!(read_line_limited(&mut reader, 10).unwrap(), Line::TooLong);
        let mut reader = io::BufReader::new(io::Cursor::new(b"last".to_vec()));
        assert_eq!(
            read_line_limited(&mut reader, 10).unwrap(),
            Line::Complete(b"last".to_vec())
        );
        assert_eq!(read_line_limited(&mut reader, 10).unwrap(), Line::Eof);
    }

    #[test]
    fn errors_serialize_with_codes() {
        let line = error_line(Some(3), &HostError::new(ErrorCode::NoSession, "gone"));
        assert_eq!(line, r#"{"error":{"code":"no_session","message":"gone"},"id":3}"#);
    }
}
