//! How every face reports a failure: one error type, one table of codes.
//!
//! The library classifies its errors ([`tuipilot::ErrorKind`]); this module is the one
//! place that maps a kind to the protocol's error code ([`ErrorCode::of`]), a code to the
//! command line's exit status ([`Failure::exit_code`]), and both to MCP's error result
//! (built from the same [`Failure`]). The CLI, the host and the MCP server all convert
//! through here, so the same mistake gets the same code on every face, and `describe`
//! lists the codes from [`ErrorCode::ALL`].

use serde::{Deserialize, Serialize};
use tuipilot::ErrorKind;
use tuipilot::live::protocol::wire_code;

/// Error classes on the wire (`{"error": {"code": "..."}}`) and in MCP error results.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The caller's mistake: malformed request, bad key, regex, size, name, render option.
    BadRequest,
    /// The program could not be started (not found, not executable).
    SpawnFailed,
    /// No session by that name (no socket, or nothing listening on it).
    NoSession,
    /// A wait's condition did not hold in time.
    Timeout,
    /// The program has exited (or the session was ended); with a report, it exited while
    /// a wait was still unmet.
    Exited,
    /// An image did not match its golden file.
    Mismatch,
    /// A protocol version or operation this build does not support.
    Unsupported,
    /// The session's host is serving as many requests as it takes; retry when one ends.
    Busy,
    /// The session's host died while the request was on its way or being answered.
    HostDied,
    /// A tape's expectation, wait or snapshot was not met (`tuipilot run`).
    TapeFailed,
    /// A tape did not parse or could not run: a missing program, an unwritable output.
    TapeError,
    /// Anything else: I/O failures, a host that does not answer.
    Internal,
}

impl ErrorCode {
    /// Every code with what it means, for `describe`.
    pub const ALL: [(ErrorCode, &'static str); 12] = [
        (
            ErrorCode::BadRequest,
            "the request was malformed or named something invalid",
        ),
        (ErrorCode::SpawnFailed, "the program could not be started"),
        (ErrorCode::NoSession, "no session by that name"),
        (ErrorCode::Timeout, "a wait's condition did not hold in time"),
        (
            ErrorCode::Exited,
            "the program has exited (or exited while a wait was unmet)",
        ),
        (ErrorCode::Mismatch, "an image did not match its golden file"),
        (
            ErrorCode::Unsupported,
            "a protocol version or operation this build does not support",
        ),
        (
            ErrorCode::Busy,
            "the session's host is serving as many requests as it takes; retry shortly",
        ),
        (
            ErrorCode::HostDied,
            "the session's host died before answering (its log's last lines are in the message)",
        ),
        (
            ErrorCode::TapeFailed,
            "a tape's expectation, wait or snapshot was not met",
        ),
        (ErrorCode::TapeError, "a tape did not parse or could not run"),
        (
            ErrorCode::Internal,
            "anything else: I/O failures, an unresponsive host",
        ),
    ];

    /// The code for a library error kind: the one mapping every face uses.
    ///
    /// The engine names a kind's code on the wire ([`wire_code`]): watch points answer
    /// with it, and this reads it back, so the two never differ.
    pub fn of(kind: ErrorKind) -> ErrorCode {
        serde_json::from_value(serde_json::Value::from(wire_code(kind))).unwrap_or(ErrorCode::Internal)
    }
}

/// A failed request: a code, a one-line message, and for failed waits the full report
/// (screen, closest line, unanswered queries).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The class.
    pub code: ErrorCode,
    /// One line: what was wrong and what to do.
    pub message: String,
    /// For failed waits: the report with the screen it last saw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
}

impl Failure {
    /// A failure with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            report: None,
        }
    }

    /// The caller's mistake.
    pub fn bad_request(message: impl Into<String>) -> Failure {
        Failure::new(ErrorCode::BadRequest, message)
    }

    /// Anything else.
    pub fn internal(message: impl Into<String>) -> Failure {
        Failure::new(ErrorCode::Internal, message)
    }

    /// An export whose replay failed its check (`export --verify`, MCP `verify`): `why`
    /// names the line and what failed there; `written` says where the export went.
    pub fn replay_fails(why: &str, written: &str) -> Failure {
        Failure::new(
            ErrorCode::TapeFailed,
            format!(
                "the export would fail when replayed, at {why} ({written}): wait for what the session established, or leave out what drifted, and export again"
            ),
        )
    }

    /// The command line's exit status: 1 when a wait or assertion was not met (a timeout,
    /// a wait the program's exit cut short, an image mismatch), 2 for every other error.
    pub fn exit_code(&self) -> u8 {
        match self.code {
            ErrorCode::Timeout | ErrorCode::Mismatch | ErrorCode::TapeFailed => 1,
            ErrorCode::Exited if self.report.is_some() => 1,
            _ => 2,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.report {
            Some(report) => f.write_str(report),
            None => f.write_str(&self.message),
        }
    }
}

impl From<tuipilot::Error> for Failure {
    fn from(e: tuipilot::Error) -> Failure {
        let kind = e.kind();
        let text = e.to_string();
        let report = matches!(kind, ErrorKind::Timeout | ErrorKind::ExitedWhileWaiting).then(|| text.clone());
        Failure {
            code: ErrorCode::of(kind),
            message: text.lines().next().unwrap_or_default().to_string(),
            report,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl ErrorCode {
        /// The name on the wire (`bad_request`).
        fn name(self) -> String {
            serde_json::to_value(self).unwrap().as_str().unwrap().to_string()
        }
    }

    /// One error of each kind the library produces, from real calls where that is cheap.
    fn one_of_each_kind() -> Vec<tuipilot::Error> {
        let bad_key = tuipilot::Key::parse("Ctl-q").unwrap_err();
        let bad_font_size = tuipilot::render::RenderOptions {
            font_size: 500.0,
            ..Default::default()
        }
        .check()
        .unwrap_err();
        let spawn = tuipilot::Session::builder("no-such-program-tuipilot")
            .spawn()
            .unwrap_err();
        vec![bad_key, bad_font_size, spawn]
    }

    #[test]
    fn every_error_kind_has_one_code_and_exit_status() {
        let expected = [
            (ErrorKind::BadInput, "bad_request", 2),
            (ErrorKind::BadInput, "bad_request", 2),
            (ErrorKind::Spawn, "spawn_failed", 2),
        ];
        for (error, (kind, code, exit)) in one_of_each_kind().into_iter().zip(expected) {
            assert_eq!(error.kind(), kind, "{error}");
            let failure = Failure::from(error);
            assert_eq!((failure.code.name().as_str(), failure.exit_code()), (code, exit));
        }
        assert_eq!(ErrorCode::of(ErrorKind::Timeout), ErrorCode::Timeout);
        assert_eq!(ErrorCode::of(ErrorKind::Mismatch).name(), "mismatch");
        assert_eq!(ErrorCode::of(ErrorKind::Internal), ErrorCode::Internal);
        assert_eq!(ErrorCode::of(ErrorKind::Unsupported), ErrorCode::Unsupported);
        let unmet = Failure {
            report: Some("screen…".into()),
            ..Failure::new(ErrorCode::Exited, "exited")
        };
        assert_eq!(unmet.exit_code(), 1);
        assert_eq!(Failure::new(ErrorCode::Exited, "exited").exit_code(), 2);
    }

    #[test]
    fn a_font_size_out_of_range_is_the_callers_mistake() {
        let failure = Failure::from(one_of_each_kind().remove(1));
        assert_eq!(failure.code, ErrorCode::BadRequest);
        assert!(
            failure.message.contains("font size 500 px is out of range"),
            "{}",
            failure.message
        );
    }

    #[test]
    fn every_code_is_listed_once() {
        let names: Vec<String> = ErrorCode::ALL.iter().map(|(c, _)| c.name()).collect();
        let mut unique = names.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(names.len(), unique.len());
        assert!(names.iter().all(|n| !n.is_empty()));
    }
}
