//! The library's error type.
//!
//! Every error's `Display` is one line that says what was wrong and what to do about it,
//! except a wait timeout, whose report carries the screen it last saw. [`ErrorKind`]
//! groups errors for the faces that map them to exit codes and protocol error codes.

use std::fmt;
use std::io;
use std::path::PathBuf;

use crate::process::{ExitStatus, NotFound};

/// Everything that can go wrong while driving a program.
///
/// `Debug` prints the same as `Display`, so a failing `unwrap()` or a test returning
/// `Result` shows the readable report (with the screen) rather than a struct dump.
#[non_exhaustive]
pub enum Error {
    /// A terminal size outside what the engine accepts.
    InvalidSize {
        /// The columns asked for.
        cols: u16,
        /// The rows asked for.
        rows: u16,
    },
    /// The program could not be found on `PATH` (or at the given path).
    ProgramNotFound {
        /// The program as given.
        program: String,
        /// Where it was looked for.
        searched: String,
    },
    /// The working directory given for the program is not a directory.
    CwdNotDirectory {
        /// The directory as given.
        path: PathBuf,
    },
    /// The program was found but could not be started.
    Spawn {
        /// The program as given.
        program: String,
        /// Why it could not start.
        message: String,
    },
    /// A key name that is not in the grammar.
    UnknownKey {
        /// The key spec as given.
        spec: String,
        /// Known names close to it.
        suggestions: Vec<String>,
        /// Every key name the grammar knows ([`KEY_NAMES`](crate::keys::KEY_NAMES)).
        names: &'static [&'static str],
    },
    /// A key spec that parses but has no encoding (such as Ctrl with a digit 9).
    InvalidKey {
        /// The key spec as given.
        spec: String,
        /// Why it has no encoding.
        reason: String,
    },
    /// A mouse action that is not in the grammar (`[C-|M-|S-]*ACTION TARGET [N]`).
    InvalidMouse {
        /// The action as given.
        spec: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Input the program has not asked for and would ignore: a mouse action when it
    /// enabled no mouse reporting, a focus event when it did not enable focus events.
    NotListening {
        /// The input, in words (`mouse action \`click 3,4\``).
        input: String,
        /// Why it would be ignored and what to do.
        reason: String,
    },
    /// A regular expression that does not compile.
    InvalidRegex {
        /// The pattern as given.
        pattern: String,
        /// The regex engine's message.
        message: String,
    },
    /// An environment variable the engine reads holds a value it cannot use.
    InvalidEnv {
        /// The variable.
        name: &'static str,
        /// Its value.
        value: String,
        /// What it should hold.
        expected: &'static str,
    },
    /// The program has exited, so the requested action cannot happen.
    Exited {
        /// What was asked, in words (`send input`).
        action: &'static str,
        /// How the program ended.
        status: ExitStatus,
        /// Where the input was sent from, for a direct library call (the message starts
        /// with it).
        caller: Option<&'static std::panic::Location<'static>>,
    },
    /// The session was already ended with `exit()` or `kill()`.
    Closed {
        /// What was asked, in words.
        action: &'static str,
        /// Where the request came from, for a direct library call.
        caller: Option<&'static std::panic::Location<'static>>,
    },
    /// The caller cancelled the operation (see [`Cancel`](crate::Cancel)) before it
    /// finished; what was already sent stays sent.
    Cancelled {
        /// What was cancelled, in words.
        action: &'static str,
    },
    /// A duration beyond the documented maximum
    /// ([`MAX_DURATION_MS`](crate::operation::MAX_DURATION_MS)).
    DurationTooLong {
        /// Which duration (`timeout_ms`, `sleep_ms`).
        what: &'static str,
        /// The value given, in milliseconds.
        ms: u64,
        /// The most it may be, in milliseconds.
        most_ms: u64,
    },
    /// An assertion on a [`Locator`](crate::locate::Locator) failed; the report shows the
    /// screen with the located cells marked.
    Assertion(Box<AssertionError>),
    /// A wait's condition did not hold in time.
    Timeout(WaitReport),
    /// The program exited while a wait's condition had not yet held, so it never will.
    ExitedWhileWaiting(WaitReport),
    /// The terminal parser failed on the program's output; the screen is frozen as it was.
    TerminalFault {
        /// The parser's panic message.
        message: String,
    },
    /// A font file could not be used.
    InvalidFont {
        /// The font file.
        path: PathBuf,
        /// Why it cannot be used.
        message: String,
    },
    /// A theme name that does not exist.
    UnknownTheme {
        /// The name as given.
        name: String,
    },
    /// An image did not match its golden file.
    ImageMismatch {
        /// What differs and where the actual and diff images were written.
        report: String,
    },
    /// A render option out of range (font size, scale).
    InvalidRenderOption {
        /// Which option, its value and the range.
        message: String,
    },
    /// A request that is malformed as a whole (no command, conflicting options).
    InvalidArgument {
        /// What is wrong and what to do.
        message: String,
    },
    /// Something this build or this face cannot do.
    Unsupported {
        /// What was asked.
        what: String,
        /// How to get it.
        fix: String,
    },
    /// A file was not written because what is at its name could make the write land
    /// elsewhere or be read by someone else (see [`files`](crate::files)).
    RefusedPath {
        /// The file.
        path: PathBuf,
        /// What is at the name.
        why: String,
    },
    /// An operating-system call failed.
    Io {
        /// What was being done.
        context: String,
        /// The OS error.
        source: io::Error,
    },
}

/// Broad classes of [`Error`], for mapping to exit codes and protocol error codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The caller passed something invalid (key, regex, size, path).
    BadInput,
    /// The program could not be started.
    Spawn,
    /// A wait timed out.
    Timeout,
    /// The program has exited or the session was closed, so the action cannot happen.
    Exited,
    /// A wait's condition can no longer hold: the program exited first.
    ExitedWhileWaiting,
    /// An image did not match its golden file.
    Mismatch,
    /// Something this build or face cannot do.
    Unsupported,
    /// The caller cancelled the operation.
    Cancelled,
    /// Anything else: I/O failures, parser faults.
    Internal,
}

impl Error {
    /// The class of this error.
    pub fn kind(&self) -> ErrorKind {
        match self {
            Error::InvalidSize { .. }
            | Error::UnknownKey { .. }
            | Error::InvalidKey { .. }
            | Error::InvalidMouse { .. }
            | Error::NotListening { .. }
            | Error::InvalidRegex { .. }
            | Error::InvalidEnv { .. }
            | Error::CwdNotDirectory { .. }
            | Error::InvalidFont { .. }
            | Error::UnknownTheme { .. }
            | Error::InvalidRenderOption { .. }
            | Error::InvalidArgument { .. }
            | Error::RefusedPath { .. }
            | Error::DurationTooLong { .. } => ErrorKind::BadInput,
            Error::Cancelled { .. } => ErrorKind::Cancelled,
            Error::Unsupported { .. } => ErrorKind::Unsupported,
            Error::ImageMismatch { .. } | Error::Assertion(_) => ErrorKind::Mismatch,
            Error::ProgramNotFound { .. } | Error::Spawn { .. } => ErrorKind::Spawn,
            Error::Timeout(_) => ErrorKind::Timeout,
            Error::Exited { .. } | Error::Closed { .. } => ErrorKind::Exited,
            Error::ExitedWhileWaiting(_) => ErrorKind::ExitedWhileWaiting,
            Error::TerminalFault { .. } | Error::Io { .. } => ErrorKind::Internal,
        }
    }

    pub(crate) fn io(context: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidSize { cols, rows } => write!(
                f,
                "terminal size {cols}x{rows} is out of range: use 10 to 1000 columns and 2 to 1000 rows"
            ),
            Error::ProgramNotFound { program, searched } => {
                crate::process::write_not_found(f, program, searched)
            }
            Error::CwdNotDirectory { path } => write!(
                f,
                "working directory `{}` is not a directory: create it or pass an existing one",
                path.display()
            ),
            Error::Spawn { program, message } => {
                write!(f, "could not start `{program}`: {message}")
            }
            Error::UnknownKey {
                spec,
                suggestions,
                names,
            } => {
                write!(f, "unknown key `{spec}`: ")?;
                if !suggestions.is_empty() {
                    write!(f, "did you mean {}? ", suggestions.join(", "))?;
                }
                write!(
                    f,
                    "valid names: {}, with C-/M-/S- modifiers, or one character (literal text is sent as text, not keys)",
                    names.join(" ")
                )
            }
            Error::InvalidKey { spec, reason } => write!(f, "invalid key `{spec}`: {reason}"),
            Error::InvalidMouse { spec, reason } => write!(
                f,
                "invalid mouse action `{spec}`: {reason} (grammar: [C-|M-|S-]*ACTION TARGET [N], e.g. `click 12,3`, `drag 2,1..9,1`, `scroll-down /log/ 3`)"
            ),
            Error::NotListening { input, reason } => write!(f, "cannot send {input}: {reason}"),
            Error::InvalidRegex { pattern, message } => {
                let first = message.lines().last().unwrap_or(message).trim();
                // A pattern of megabytes is named by its start and its length.
                let shown = match pattern.char_indices().nth(80) {
                    Some((cut, _)) => format!("{}…[{} bytes]", &pattern[..cut], pattern.len()),
                    None => pattern.clone(),
                };
                let hint = match message.contains("bytes") {
                    true => "",
                    false => "; escape special characters with \\ to match them literally",
                };
                write!(f, "invalid regex `{shown}`: {first}{hint}")
            }
            Error::InvalidEnv {
                name,
                value,
                expected,
            } => write!(f, "{name}={value:?} is invalid: expected {expected}"),
            Error::Exited {
                action,
                status,
                caller,
            } => write!(
                f,
                "{}cannot {action}: the program {status}; start a new session to continue",
                at(*caller)
            ),
            Error::Closed { action, caller } => write!(
                f,
                "{}cannot {action}: the session was already ended; start a new session",
                at(*caller)
            ),
            Error::Cancelled { action } => write!(f, "{action} was cancelled before it finished"),
            Error::DurationTooLong { what, ms, most_ms } => write!(
                f,
                "{what} {ms} is too long: the most is {most_ms} ms ({} hours); wait in several steps for longer",
                most_ms / 3_600_000
            ),
            Error::Timeout(report) | Error::ExitedWhileWaiting(report) => write!(f, "{report}"),
            Error::TerminalFault { message } => write!(
                f,
                "the terminal parser failed on the program's output ({message}); the screen is frozen as it last was; report the program's output as a bug"
            ),
            Error::InvalidFont { path, message } => write!(
                f,
                "font `{}` cannot be used: {message}; pass a .ttf or .otf file",
                path.display()
            ),
            Error::UnknownTheme { name } => write!(
                f,
                "unknown theme `{name}`: use one of {}, or a theme in VHS's JSON form with #rrggbb colours",
                crate::color::THEME_NAMES.join(", ")
            ),
            Error::ImageMismatch { report } => f.write_str(report),
            Error::Assertion(report) => write!(f, "{report}"),
            Error::InvalidRenderOption { message } | Error::InvalidArgument { message } => {
                f.write_str(message)
            }
            Error::Unsupported { what, fix } => write!(f, "{what} is not supported here: {fix}"),
            Error::RefusedPath { path, why } => write!(
                f,
                "refusing to write {}: {why}; remove it or choose another name",
                path.display()
            ),
            Error::Io { context, source } => write!(f, "{context}: {source}"),
        }
    }
}

/// `file:line: ` for a caller, or nothing.
fn at(caller: Option<&'static std::panic::Location<'static>>) -> String {
    caller.map_or_else(String::new, |c| format!("{}:{}: ", c.file(), c.line()))
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<NotFound> for Error {
    fn from(missing: NotFound) -> Error {
        Error::ProgramNotFound {
            program: missing.program,
            searched: missing.searched,
        }
    }
}

/// A failed assertion on a [`Locator`](crate::locate::Locator): where, what was expected, what was found, and the
/// screen with the located cells marked.
#[derive(Debug)]
pub struct AssertionError {
    /// The assertion's caller.
    pub caller: &'static std::panic::Location<'static>,
    /// What was expected, in words.
    pub expected: String,
    /// What was found instead.
    pub found: String,
    /// The screen, located cells marked with `^`.
    pub screen: String,
    /// The located cells: row, first column and the column after the last.
    pub cells: Vec<(u16, u16, u16)>,
    /// Where the screen was saved (in a test; see the failure artefacts of waits).
    pub artifacts: Option<std::path::PathBuf>,
    /// How long a retrying assertion retried, and its timeout (`None`: it looked once).
    pub retried: Option<(std::time::Duration, std::time::Duration)>,
    /// For a pattern that located nothing: the row (0-based) and text most like it.
    pub closest: Option<(usize, String)>,
}

impl fmt::Display for AssertionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}:{}: expected {}, found {}",
            self.caller.file(),
            self.caller.line(),
            self.expected,
            self.found
        )?;
        f.write_str(self.screen.trim_end())?;
        if let Some((row, line)) = &self.closest {
            write!(f, "\nclosest line: row {row}: {line:?}")?;
        }
        if let Some(dir) = &self.artifacts {
            write!(f, "\nsaved: {}", saved_files(dir))?;
        }
        Ok(())
    }
}

/// `DIR (a, b, c)`: the folder and the files in it, for a report's `saved:` line.
pub(crate) fn saved_files(dir: &std::path::Path) -> String {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    format!("{} ({})", dir.display(), names.join(", "))
}

/// A failed wait's report, boxed so the error type names nothing above it: a
/// [`WaitError`](crate::wait::WaitError) (the condition, the screen it last saw, the closest
/// line), read with [`Error::wait_error`].
pub type WaitReport = Box<dyn std::error::Error + Send + Sync>;

/// Shorthand for results in this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The longest pattern taken, in bytes: far past any text a screen can show (a 1000×1000
/// screen is 4 MB of text, but a pattern is what to look for in it), and small enough that
/// parsing it costs a few megabytes at most. Longer is refused before anything is parsed.
pub const MAX_PATTERN_BYTES: usize = 64 << 10;

/// The most memory a pattern's compiled program may take (the regex crate's size limit),
/// and its lazy DFA's cache: a short pattern that expands (`(a{1000}){1000}`) is refused
/// when it passes the first, instead of taking the memory.
pub const MAX_PATTERN_PROGRAM_BYTES: usize = 4 << 20;

/// Compiles a user-supplied pattern, with an error that names it. `^` and `$` match at
/// the start and end of every row (multi-line mode), since screens are read row by row.
/// A pattern over [`MAX_PATTERN_BYTES`] is refused at once, one that compiles past
/// [`MAX_PATTERN_PROGRAM_BYTES`] when it does: every face compiles its patterns here.
pub(crate) fn compile_pattern(pattern: &str) -> Result<regex::Regex> {
    check_pattern_length(pattern)?;
    regex::RegexBuilder::new(pattern)
        .multi_line(true)
        .size_limit(MAX_PATTERN_PROGRAM_BYTES)
        .dfa_size_limit(MAX_PATTERN_PROGRAM_BYTES)
        .build()
        .map_err(|e| Error::InvalidRegex {
            pattern: pattern.to_string(),
            message: match e {
                regex::Error::CompiledTooBig(limit) => format!(
                    "it compiles to more than {} MiB (the most a pattern may take is {limit} bytes); use a shorter pattern or fewer repetitions",
                    limit >> 20
                ),
                e => e.to_string(),
            },
        })
}

/// Refuses a pattern longer than [`MAX_PATTERN_BYTES`] before any of it is read.
pub(crate) fn check_pattern_length(pattern: &str) -> Result<()> {
    if pattern.len() > MAX_PATTERN_BYTES {
        return Err(Error::InvalidRegex {
            pattern: pattern.to_string(),
            message: format!(
                "it is {} bytes long, and the longest pattern taken is {MAX_PATTERN_BYTES} bytes (64 KiB); match a shorter, telling part of the text",
                pattern.len()
            ),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fails on the code before: a pattern of megabytes was parsed (a gigabyte, seconds).
    #[test]
    fn a_pattern_past_the_cap_is_refused_before_it_is_parsed_in_one_short_line() {
        let long = "(".repeat(MAX_PATTERN_BYTES + 1);
        let started = std::time::Instant::now();
        let e = compile_pattern(&long).unwrap_err().to_string();
        assert!(
            started.elapsed() < std::time::Duration::from_millis(50),
            "{:?}",
            started.elapsed()
        );
        assert!(
            e.contains("65537 bytes long") && e.contains("65536 bytes (64 KiB)"),
            "{e}"
        );
        assert!(e.len() < 400 && !e.contains('\n'), "{e}");
        assert!(compile_pattern(&"a".repeat(MAX_PATTERN_BYTES)).is_ok());
    }

    #[test]
    fn a_short_pattern_that_compiles_too_big_is_refused_saying_so() {
        let e = compile_pattern("(a{1000}){1000}").unwrap_err().to_string();
        assert!(e.contains("compiles to more than 4 MiB"), "{e}");
        assert!(!e.contains("escape special characters"), "{e}");
        let e = compile_pattern("a(").unwrap_err().to_string();
        assert!(e.contains("escape special characters"), "{e}");
    }
}
