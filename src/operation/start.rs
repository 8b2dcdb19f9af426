//! [`StartSpec`]: what to start, the one description of a session every face fills in.

use std::ffi::OsString;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// What to start: the one spec every face fills in to make a session.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartSpec {
    /// The program (found on `PATH` unless it has a `/`) and its arguments, any bytes but
    /// NUL (JSON: a string each, or `{"bytes": [...]}` for one that is not UTF-8).
    #[serde(with = "super::os_text::words")]
    pub command: Vec<OsString>,
    /// Columns (default 80).
    #[serde(default = "default_cols")]
    pub cols: u16,
    /// Rows (default 24).
    #[serde(default = "default_rows")]
    pub rows: u16,
    /// The working directory (default: the caller's).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::os_text::path"
    )]
    pub cwd: Option<PathBuf>,
    /// Environment variables set for the program, in order.
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        with = "super::os_text::pairs"
    )]
    pub env: Vec<(OsString, OsString)>,
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
    /// Start hermetically in a fresh `HOME` with these files copied into it
    /// ([`SessionBuilder::isolated_in_home`](crate::SessionBuilder::isolated_in_home)): an
    /// exported tape's replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub in_home: Option<Vec<PathBuf>>,
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
        S: Into<OsString>,
    {
        StartSpec {
            command: command.into_iter().map(Into::into).collect(),
            cols: default_cols(),
            rows: default_rows(),
            ..StartSpec::default()
        }
    }
}

/// How a recording says its program was started (its `tuipilot.start` event): the words
/// with every byte, the size and folder, and the environment by name only.
#[derive(Serialize, Deserialize)]
struct RecordedStart {
    #[serde(with = "super::os_text::words")]
    command: Vec<OsString>,
    cols: u16,
    rows: u16,
    #[serde(default, with = "super::os_text::path")]
    cwd: Option<PathBuf>,
    #[serde(default, with = "super::os_text::words")]
    env: Vec<OsString>,
}

impl StartSpec {
    /// The spec as a recording's start event holds it: the environment by name only.
    pub(crate) fn recorded(&self) -> String {
        let recorded = RecordedStart {
            command: self.command.clone(),
            cols: self.cols,
            rows: self.rows,
            cwd: self.cwd.clone(),
            env: self.env.iter().map(|(name, _)| name.clone()).collect(),
        };
        // Words, numbers and lists only: nothing in them can fail to serialise.
        serde_json::to_string(&recorded).unwrap_or_default()
    }

    /// The spec a recording's start event describes (the environment's values empty).
    pub(crate) fn from_recorded(event: &str) -> serde_json::Result<StartSpec> {
        let recorded: RecordedStart = serde_json::from_str(event)?;
        Ok(StartSpec {
            command: recorded.command,
            cols: recorded.cols,
            rows: recorded.rows,
            cwd: recorded.cwd,
            env: recorded
                .env
                .into_iter()
                .map(|name| (name, OsString::new()))
                .collect(),
            ..StartSpec::default()
        })
    }
}

/// A command given as one string, split into words the way every face splits one (MCP's
/// `command`, Python's `Session("python3 -q")`): whitespace separates, single and double
/// quotes group, a backslash escapes the next character (inside double quotes too). No
/// expansion of any kind: no variables, globs or `~`. An unclosed quote is an error that
/// says to close it or give the words as a list.
///
/// ```
/// use tuipilot::operation::split_command;
/// assert_eq!(split_command(r#"python3 -c "print('a b')""#).unwrap(), ["python3", "-c", "print('a b')"]);
/// ```
pub fn split_command(line: &str) -> crate::Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                    in_word = true;
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return Err(crate::Error::InvalidArgument {
            message: format!("unclosed quote in command `{line}`: close it or pass the command as a list"),
        });
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_lines_split_like_a_shell() {
        let words = |s: &str| super::split_command(s).ok().unwrap();
        assert_eq!(words("bash --norc"), ["bash", "--norc"]);
        assert_eq!(
            words(r#"python3 -c "print('a b')""#),
            ["python3", "-c", "print('a b')"]
        );
        assert_eq!(words(r"echo a\ b ''"), ["echo", "a b", ""]);
        assert_eq!(words("  "), Vec::<String>::new());
        assert!(super::split_command("sh -c 'unclosed").is_err());
    }

    #[test]
    fn a_start_spec_without_a_command_is_bad_input() {
        let err = StartSpec::default().spawn().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::BadInput);
        assert!(err.to_string().contains("no command given"), "{err}");
    }
}
