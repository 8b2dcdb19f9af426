//! [`StartSpec`]: what to start, the one description of a session every face fills in.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What to start: the one spec every face fills in to make a session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartSpec {
    /// The program (found on `PATH` unless it has a `/`) and its arguments.
    pub command: Vec<String>,
    /// Columns (default 80).
    #[serde(default = "default_cols")]
    pub cols: u16,
    /// Rows (default 24).
    #[serde(default = "default_rows")]
    pub rows: u16,
    /// The working directory (default: the caller's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// Environment variables set for the program, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
    /// Lines of scrollback kept (default 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scrollback: Option<usize>,
    /// The default wait timeout (default: `TUIPILOT_TIMEOUT_MS`, else 10 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// Start from an empty environment ([`SessionBuilder::env_clear`](crate::SessionBuilder::env_clear)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub env_clear: bool,
    /// A hermetic session with a fresh temporary `HOME` ([`SessionBuilder::isolated`](crate::SessionBuilder::isolated)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub isolated: bool,
    /// Inject no OSC 133 prompt marks into bash, zsh or fish
    /// ([`SessionBuilder::shell_integration`](crate::SessionBuilder::shell_integration)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_shell_integration: bool,
    /// Let a wait return on the first screen that matches, which may be half drawn
    /// ([`SessionBuilder::whole_frames`](crate::SessionBuilder::whole_frames)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_whole_frames: bool,
    /// The longest timer a readiness wait waits out after input, in milliseconds (default
    /// 2000; [`SessionBuilder::reaction_bound`](crate::SessionBuilder::reaction_bound)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction_bound_ms: Option<u64>,
    /// Record the session to this asciicast file ([`SessionBuilder::record`](crate::SessionBuilder::record)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<PathBuf>,
    /// Leave input out of the recording ([`SessionBuilder::record_input`](crate::SessionBuilder::record_input)).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub record_no_input: bool,
    /// Treat all input as secret ([`SessionBuilder::secret_input`](crate::SessionBuilder::secret_input)); implied by
    /// `record_no_input`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub secret_input: bool,
    /// The recording's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record_title: Option<String>,
}

fn default_cols() -> u16 {
    crate::terminal::DEFAULT_COLS
}

fn default_rows() -> u16 {
    crate::terminal::DEFAULT_ROWS
}

impl StartSpec {
    /// A spec for `command` at the default size.
    pub fn new<I, S>(command: I) -> StartSpec
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        StartSpec {
            command: command.into_iter().map(Into::into).collect(),
            cols: default_cols(),
            rows: default_rows(),
            ..StartSpec::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_start_spec_without_a_command_is_bad_input() {
        let err = StartSpec::default().spawn().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::BadInput);
        assert!(err.to_string().contains("no command given"), "{err}");
    }
}
