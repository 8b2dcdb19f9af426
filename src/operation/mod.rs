//! The one vocabulary of operations on a session, and the one function that applies them.
//!
//! Every face — the session host's socket protocol, the MCP server, `tuipilot once`, and
//! the tape runner — translates its input into an [`Operation`] and hands it to
//! [`Session::apply`]; its result comes back as a typed [`Reply`]. No face calls
//! `Session` methods in an order of its own, so the same request means the same thing
//! everywhere: the same checks before anything is sent, the same defaults, the same errors.
//!
//! The types serialise to the JSON of the host protocol (version 1): an operation is
//! `{"op": "send", "actions": [...], ...}`, a reply the object under `"ok"`. Making a
//! session is the one thing that is not an operation on a session: [`StartSpec`] says what
//! to start, the same way on every face.
//!
//! Defaults and limits are defined once, here and in the modules they belong to:
//! the wait timeout ([`crate::DEFAULT_TIMEOUT`], or `TUIPILOT_TIMEOUT_MS`, or the
//! session's own), the terminal size ([`crate::terminal::MIN_COLS`] …
//! [`crate::terminal::MAX_SIZE`]), the PNG scale and font size (`render::SCALES`,
//! `render::FONT_SIZES`) and the exit grace ([`DEFAULT_EXIT_GRACE`]).

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::{Error, Result};
use crate::keys::{Key, parse_key_list};
use crate::process::ExitStatus;
use crate::session::{Session, SessionBuilder};
use crate::snapshot::Snapshot;
use crate::wait::Condition;

/// How long `exit` waits after each of SIGHUP and SIGTERM before escalating, unless the
/// session or the operation says otherwise.
pub const DEFAULT_EXIT_GRACE: Duration = Duration::from_secs(1);

/// One step of input, applied in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Literal text, sent as UTF-8 (a newline is LF: press `Enter` for CR).
    Text(String),
    /// Key names separated by spaces or commas (`"Down Down Enter"`), each encoded for
    /// the program's modes when it is sent, one write per key.
    Keys(String),
    /// A paste, bracketed if the program enabled bracketed paste.
    Paste(String),
    /// Raw bytes, unchanged.
    Bytes(Vec<u8>),
    /// A pause in milliseconds (prefer a wait: it returns as soon as the screen is ready).
    SleepMs(u64),
}

/// What a wait waits for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WaitFor {
    /// A regex matching some row of the screen (trailing spaces trimmed).
    Text(String),
    /// No row of the screen matches the regex.
    NoText(String),
    /// A regex matching the program's output (escape sequences removed): since the session
    /// started for `wait`, since the input for `send`.
    Output(String),
    /// The screen unchanged for this many milliseconds, counted from the call.
    StableMs(u64),
    /// The program's exit.
    Exit,
}

impl WaitFor {
    /// The library condition, with its regex compiled.
    pub fn condition(&self) -> Result<Condition> {
        Ok(match self {
            WaitFor::Text(re) => Condition::text(re)?,
            WaitFor::NoText(re) => Condition::no_text(re)?,
            WaitFor::Output(re) => Condition::output(re)?,
            WaitFor::StableMs(ms) => Condition::Stable(Duration::from_millis(*ms)),
            WaitFor::Exit => Condition::Exit,
        })
    }
}

/// A wait attached to `send` or `capture`: a plain string is a screen regex (protocol
/// version 1's form), an object any [`WaitFor`].
fn wait_or_pattern<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> std::result::Result<Option<WaitFor>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        Pattern(String),
        Condition(WaitFor),
    }
    Ok(match Option::<Form>::deserialize(deserializer)? {
        None => None,
        Some(Form::Pattern(re)) => Some(WaitFor::Text(re)),
        Some(Form::Condition(c)) => Some(c),
    })
}

/// A PNG wanted from a capture, and how to draw it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PngRequest {
    /// Where to write it; without a path the PNG's bytes are returned in the reply only
    /// (a face decides where they go).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// `dark` (default) or `light`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<String>,
    /// Fallback font files for characters the bundled fonts lack.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fonts: Vec<PathBuf>,
    /// Font size in pixels before scaling (default 16).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub font_size: Option<f32>,
    /// Pixel scale factor (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<u32>,
}

impl PngRequest {
    /// The checked render options: a bad theme, size, scale or font is a bad-input error.
    #[cfg(feature = "render")]
    pub fn options(&self) -> Result<crate::render::RenderOptions> {
        let mut options = crate::render::RenderOptions::default();
        if let Some(theme) = &self.theme {
            options = options.with_theme(theme)?;
        }
        options.fonts = self.fonts.clone();
        if let Some(size) = self.font_size {
            options.font_size = size;
        }
        if let Some(scale) = self.scale {
            options.scale = scale;
        }
        options.check()?;
        Ok(options)
    }
}

/// An operation on a running session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    /// The session's pid, command, size, state and age.
    Info,
    /// Apply `steps` in order; with `wait`, the wait's baseline is taken before the first
    /// step, so a reply that arrives at once is not missed (and a screen wait needs the
    /// screen to change after the input).
    Send {
        /// The input, in order. (`actions` on the wire.)
        #[serde(default, rename = "actions")]
        steps: Vec<Step>,
        /// Then wait for this.
        #[serde(
            default,
            deserialize_with = "wait_or_pattern",
            skip_serializing_if = "Option::is_none"
        )]
        wait: Option<WaitFor>,
        /// The wait's timeout (default: the session's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        /// Reply with the screen afterwards.
        #[serde(default)]
        capture: bool,
    },
    /// Wait for a condition.
    Wait {
        /// What to wait for.
        condition: WaitFor,
        /// The timeout (default: the session's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
    /// The screen, after an optional wait.
    Capture {
        /// First wait for this.
        #[serde(
            default,
            deserialize_with = "wait_or_pattern",
            skip_serializing_if = "Option::is_none"
        )]
        wait: Option<WaitFor>,
        /// The wait's timeout (default: the session's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        /// Keep colours and attributes as escape sequences.
        #[serde(default)]
        ansi: bool,
        /// Put the lines that scrolled off the top before the screen.
        #[serde(default)]
        scrollback: bool,
        /// Also render the screen as a PNG.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        png: Option<PngRequest>,
    },
    /// Change the terminal size: the screen first, then the PTY (SIGWINCH).
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// End the program's whole process session (SIGHUP, SIGTERM, SIGKILL) and report how
    /// it ended. `timeout_ms` is the time allowed for a graceful end: half of it after each
    /// of SIGHUP and SIGTERM (default: the session's exit grace, 1 s, after each).
    Exit {
        /// The time allowed before SIGKILL.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
    },
}

/// How a program ended, as the protocol reports it: both fields null while it runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitReport {
    /// The exit code, if it exited normally.
    pub exit_code: Option<i32>,
    /// The signal's name (`SIGKILL`), if a signal ended it.
    pub signal: Option<String>,
}

impl From<Option<ExitStatus>> for ExitReport {
    fn from(status: Option<ExitStatus>) -> ExitReport {
        ExitReport {
            exit_code: status.and_then(|s| s.code()),
            signal: status.and_then(|s| s.signal()),
        }
    }
}

impl From<ExitStatus> for ExitReport {
    fn from(status: ExitStatus) -> ExitReport {
        Some(status).into()
    }
}

impl ExitReport {
    /// `exited with code N`, `killed by SIGNAME`, or `running`.
    pub fn words(&self) -> String {
        match (&self.exit_code, &self.signal) {
            (_, Some(signal)) => format!("killed by {signal}"),
            (Some(code), None) => format!("exited with code {code}"),
            (None, None) => "running".to_string(),
        }
    }
}

/// The cursor in a [`Screen`] reply (0-based).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CursorReport {
    /// Row, from the top.
    pub row: u16,
    /// Column, from the left.
    pub col: u16,
    /// Whether the program shows it.
    pub visible: bool,
}

/// The screen as the faces report it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Screen {
    /// The rows as text (or with escape sequences, for an ANSI capture), scrollback first
    /// when asked for.
    pub text: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Where the cursor is.
    pub cursor: CursorReport,
    /// The window title the program set.
    pub title: String,
    /// Whether the program is on the alternate screen (full-screen programs are).
    pub alternate_screen: bool,
    /// How the program ended, if it has.
    #[serde(flatten)]
    pub exit: ExitReport,
    /// Where the PNG was written, if one was asked for with a path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub png: Option<PathBuf>,
    /// The PNG's width in pixels, if one was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<u32>,
    /// The PNG's height in pixels, if one was rendered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<u32>,
    /// The PNG itself, if one was rendered (not serialised: the protocol passes a path).
    #[serde(skip)]
    pub png_bytes: Option<Vec<u8>>,
}

impl Screen {
    /// A snapshot's fields with `text` as its text.
    pub fn of(snapshot: &Snapshot, text: String) -> Screen {
        let (cols, rows) = snapshot.size();
        let cursor = snapshot.cursor();
        Screen {
            text,
            cols,
            rows,
            cursor: CursorReport {
                row: cursor.row,
                col: cursor.col,
                visible: cursor.visible,
            },
            title: snapshot.title().to_string(),
            alternate_screen: snapshot.alternate_screen(),
            exit: snapshot.exit_status().copied().into(),
            png: None,
            width: None,
            height: None,
            png_bytes: None,
        }
    }
}

/// A session's identity and state.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    /// The program's pid (also its process session id).
    pub pid: i32,
    /// The program and its arguments, joined by spaces.
    pub command: String,
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Whether the program is still running.
    pub running: bool,
    /// How it ended, if it has.
    #[serde(flatten)]
    pub exit: ExitReport,
    /// When the session started, in seconds since the Unix epoch.
    pub started_unix: u64,
    /// Seconds since the session started.
    pub age_secs: u64,
}

/// The result of an operation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    /// `capture`, `wait` for the screen, and `send` with `capture`: `{"screen": {...}}`.
    Screen {
        /// The screen.
        screen: Screen,
    },
    /// `wait` for the exit, and `exit`: `{"exit_code": .., "signal": ..}`.
    Exit(ExitReport),
    /// `info`.
    Info(Info),
    /// `resize`: the new size.
    Resized {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
    /// `send` without `capture`: `{}`.
    Sent {},
}

impl Reply {
    /// The screen, for replies that carry one.
    pub fn screen(&self) -> Option<&Screen> {
        match self {
            Reply::Screen { screen } => Some(screen),
            _ => None,
        }
    }
}

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

    /// The builder this spec describes.
    pub fn builder(&self) -> Result<SessionBuilder> {
        let Some((program, args)) = self.command.split_first() else {
            return Err(Error::InvalidArgument {
                message: "no command given: name the program to start (and its arguments)".into(),
            });
        };
        let mut builder = Session::builder(program).args(args).size(self.cols, self.rows);
        if let Some(cwd) = &self.cwd {
            builder = builder.cwd(cwd);
        }
        for (key, value) in &self.env {
            builder = builder.env(key, value);
        }
        if let Some(lines) = self.scrollback {
            builder = builder.scrollback(lines);
        }
        if let Some(ms) = self.timeout_ms {
            builder = builder.timeout(Duration::from_millis(ms));
        }
        Ok(builder)
    }

    /// Starts the session.
    pub fn spawn(&self) -> Result<Session> {
        self.builder()?.spawn()
    }
}

/// Everything an operation needs, checked before anything is sent or waited for: a bad
/// key, regex or render option fails the whole operation with nothing done.
enum Checked {
    Info,
    Send {
        steps: Vec<CheckedStep>,
        wait: Option<Condition>,
        timeout: Duration,
        capture: bool,
    },
    Wait {
        condition: Condition,
        timeout: Duration,
    },
    Capture {
        wait: Option<Condition>,
        timeout: Duration,
        ansi: bool,
        scrollback: bool,
        png: Option<CheckedPng>,
    },
    Resize {
        cols: u16,
        rows: u16,
    },
    Exit {
        grace: Option<Duration>,
    },
}

enum CheckedStep {
    Text(String),
    Keys(Vec<Key>),
    Paste(String),
    Bytes(Vec<u8>),
    Sleep(Duration),
}

#[cfg(feature = "render")]
struct CheckedPng {
    path: Option<PathBuf>,
    options: crate::render::RenderOptions,
}

#[cfg(not(feature = "render"))]
enum CheckedPng {}

fn check_png(request: &PngRequest) -> Result<CheckedPng> {
    #[cfg(feature = "render")]
    {
        Ok(CheckedPng {
            path: request.path.clone(),
            options: request.options()?,
        })
    }
    #[cfg(not(feature = "render"))]
    {
        let _ = request;
        Err(Error::Unsupported {
            what: "PNG capture".into(),
            fix: "build tuipilot with its `render` feature".into(),
        })
    }
}

impl Operation {
    /// Checks everything in the operation that can be wrong before it runs (key names,
    /// regexes, sizes, render options and fonts), so a face can refuse a bad request
    /// before it starts a program for it.
    pub fn check(&self) -> Result<()> {
        self.checked(crate::DEFAULT_TIMEOUT).map(|_| ())
    }

    fn checked(&self, default_timeout: Duration) -> Result<Checked> {
        let timeout = |ms: &Option<u64>| ms.map_or(default_timeout, Duration::from_millis);
        let condition = |wait: &Option<WaitFor>| wait.as_ref().map(WaitFor::condition).transpose();
        Ok(match self {
            Operation::Info => Checked::Info,
            Operation::Send {
                steps,
                wait,
                timeout_ms,
                capture,
            } => Checked::Send {
                steps: steps
                    .iter()
                    .map(|step| {
                        Ok(match step {
                            Step::Text(text) => CheckedStep::Text(text.clone()),
                            Step::Keys(spec) => CheckedStep::Keys(parse_key_list(spec)?),
                            Step::Paste(text) => CheckedStep::Paste(text.clone()),
                            Step::Bytes(bytes) => CheckedStep::Bytes(bytes.clone()),
                            Step::SleepMs(ms) => CheckedStep::Sleep(Duration::from_millis(*ms)),
                        })
                    })
                    .collect::<Result<_>>()?,
                wait: condition(wait)?,
                timeout: timeout(timeout_ms),
                capture: *capture,
            },
            Operation::Wait {
                condition,
                timeout_ms,
            } => Checked::Wait {
                condition: condition.condition()?,
                timeout: timeout(timeout_ms),
            },
            Operation::Capture {
                wait,
                timeout_ms,
                ansi,
                scrollback,
                png,
            } => Checked::Capture {
                wait: condition(wait)?,
                timeout: timeout(timeout_ms),
                ansi: *ansi,
                scrollback: *scrollback,
                png: png.as_ref().map(check_png).transpose()?,
            },
            Operation::Resize { cols, rows } => {
                crate::terminal::check_size(*cols, *rows)?;
                Checked::Resize {
                    cols: *cols,
                    rows: *rows,
                }
            }
            Operation::Exit { timeout_ms } => Checked::Exit {
                grace: timeout_ms.map(|ms| Duration::from_millis(ms / 2)),
            },
        })
    }
}

impl Session {
    /// Applies one operation: the executor behind every face. Everything in the operation
    /// (keys, regexes, sizes, render options) is checked before anything is sent.
    ///
    /// ```
    /// use tuipilot::operation::{Operation, Step, WaitFor};
    /// use tuipilot::Session;
    ///
    /// # fn main() -> tuipilot::Result<()> {
    /// let s = Session::builder("sh").env("PS1", "$ ").spawn()?;
    /// s.apply(&Operation::Wait { condition: WaitFor::Text(r"^\$".into()), timeout_ms: None })?;
    /// let reply = s.apply(&Operation::Send {
    ///     steps: vec![Step::Text("echo $((6 * 7))".into()), Step::Keys("Enter".into())],
    ///     wait: Some(WaitFor::Text("^42$".into())),
    ///     timeout_ms: None,
    ///     capture: true,
    /// })?;
    /// assert!(reply.screen().unwrap().text.contains("42"));
    /// s.apply(&Operation::Exit { timeout_ms: None })?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply(&self, operation: &Operation) -> Result<Reply> {
        match operation.checked(self.timeout())? {
            Checked::Info => Ok(Reply::Info(self.info())),
            Checked::Send {
                steps,
                wait,
                timeout,
                capture,
            } => {
                let start = self.wait_start();
                for step in steps {
                    match step {
                        CheckedStep::Text(text) => self.send_text(&text)?,
                        CheckedStep::Keys(keys) => keys.into_iter().try_for_each(|k| self.press_key(k))?,
                        CheckedStep::Paste(text) => self.paste(&text)?,
                        CheckedStep::Bytes(bytes) => self.send_bytes(&bytes)?,
                        CheckedStep::Sleep(pause) => std::thread::sleep(pause),
                    }
                }
                let snapshot = match wait {
                    Some(condition) => Some(self.wait_since_timeout(&start, &condition, timeout)?),
                    None => None,
                };
                Ok(match (capture, snapshot) {
                    (false, _) => Reply::Sent {},
                    (true, snapshot) => {
                        let snapshot = snapshot.unwrap_or_else(|| self.snapshot());
                        Reply::Screen {
                            screen: Screen::of(&snapshot, snapshot.text()),
                        }
                    }
                })
            }
            Checked::Wait {
                condition: Condition::Exit,
                timeout,
            } => Ok(Reply::Exit(self.wait_exit_timeout(timeout)?.into())),
            Checked::Wait { condition, timeout } => {
                let snapshot = self.wait_timeout(&condition, timeout)?;
                Ok(Reply::Screen {
                    screen: Screen::of(&snapshot, snapshot.text()),
                })
            }
            Checked::Capture {
                wait,
                timeout,
                ansi,
                scrollback,
                png,
            } => {
                #[cfg(feature = "render")]
                if let Some(png) = &png {
                    // A picture too large to draw is refused before the wait, not after.
                    let (cols, rows) = self.size();
                    crate::render::image_size(cols, rows, &png.options)?;
                }
                let snapshot = match wait {
                    Some(condition) => self.wait_timeout(&condition, timeout)?,
                    None => self.snapshot(),
                };
                let mut text = if ansi { snapshot.ansi() } else { snapshot.text() };
                if scrollback {
                    let mut lines = self.scrollback();
                    lines.push(text);
                    text = lines.join("\n");
                }
                let mut screen = Screen::of(&snapshot, text);
                if let Some(png) = png {
                    render_png(&snapshot, png, &mut screen)?;
                }
                Ok(Reply::Screen { screen })
            }
            Checked::Resize { cols, rows } => {
                self.resize(cols, rows)?;
                Ok(Reply::Resized { cols, rows })
            }
            Checked::Exit { grace } => {
                let status = match grace {
                    Some(grace) => self.exit_within(grace)?,
                    None => self.exit()?,
                };
                Ok(Reply::Exit(status.into()))
            }
        }
    }

    /// The session's identity and state, as the `info` operation reports it.
    pub fn info(&self) -> Info {
        let (cols, rows) = self.size();
        let exit = self.exit_status();
        let started = self.started();
        Info {
            pid: self.pid(),
            command: self
                .command()
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            cols,
            rows,
            running: exit.is_none(),
            exit: exit.into(),
            started_unix: started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            age_secs: SystemTime::now()
                .duration_since(started)
                .map_or(0, |d| d.as_secs()),
        }
    }
}

#[cfg(feature = "render")]
fn render_png(snapshot: &Snapshot, png: CheckedPng, screen: &mut Screen) -> Result<()> {
    let image = snapshot.render(&png.options)?;
    let bytes = image.to_png(png.options.compression)?;
    if let Some(path) = &png.path {
        crate::render::write_file_atomically(path, &bytes)?;
        screen.png = Some(path.clone());
    }
    screen.width = Some(image.width);
    screen.height = Some(image.height);
    screen.png_bytes = Some(bytes);
    Ok(())
}

#[cfg(not(feature = "render"))]
fn render_png(_: &Snapshot, png: CheckedPng, _: &mut Screen) -> Result<()> {
    match png {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(json: &str) -> Operation {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn version_1_requests_parse_into_operations() {
        assert_eq!(
            op(
                r#"{"op":"send","actions":[{"text":"ls"},{"keys":"Enter"},{"sleep_ms":5},{"paste":"x"}],"wait":"\\$","capture":true}"#
            ),
            Operation::Send {
                steps: vec![
                    Step::Text("ls".into()),
                    Step::Keys("Enter".into()),
                    Step::SleepMs(5),
                    Step::Paste("x".into())
                ],
                wait: Some(WaitFor::Text("\\$".into())),
                timeout_ms: None,
                capture: true,
            }
        );
        assert_eq!(
            op(r#"{"op":"wait","condition":"exit"}"#),
            Operation::Wait {
                condition: WaitFor::Exit,
                timeout_ms: None
            }
        );
        assert_eq!(
            op(r#"{"op":"wait","condition":{"stable_ms":300},"timeout_ms":50}"#),
            Operation::Wait {
                condition: WaitFor::StableMs(300),
                timeout_ms: Some(50)
            }
        );
    }

    #[test]
    fn a_send_may_wait_for_any_condition_and_send_raw_bytes() {
        assert_eq!(
            op(r#"{"op":"send","actions":[{"bytes":[27,91,65]}],"wait":{"output":"done"}}"#),
            Operation::Send {
                steps: vec![Step::Bytes(vec![27, 91, 65])],
                wait: Some(WaitFor::Output("done".into())),
                timeout_ms: None,
                capture: false,
            }
        );
    }

    #[test]
    fn operations_round_trip_through_json() {
        let ops = [
            Operation::Capture {
                wait: Some(WaitFor::NoText("x".into())),
                timeout_ms: Some(5),
                ansi: true,
                scrollback: false,
                png: Some(PngRequest {
                    path: Some("/tmp/x.png".into()),
                    theme: Some("light".into()),
                    ..PngRequest::default()
                }),
            },
            Operation::Send {
                steps: vec![Step::Bytes(vec![0, 255])],
                wait: Some(WaitFor::Text("a".into())),
                timeout_ms: None,
                capture: false,
            },
            Operation::Exit { timeout_ms: Some(9) },
            Operation::Resize { cols: 90, rows: 30 },
            Operation::Info,
        ];
        for operation in ops {
            let json = serde_json::to_string(&operation).unwrap();
            assert_eq!(op(&json), operation, "{json}");
        }
    }

    #[test]
    fn replies_serialise_to_the_protocols_json() {
        let exit = Reply::Exit(ExitStatus::Signaled(9).into());
        assert_eq!(
            serde_json::to_string(&exit).unwrap(),
            r#"{"exit_code":null,"signal":"SIGKILL"}"#
        );
        assert_eq!(serde_json::to_string(&Reply::Sent {}).unwrap(), "{}");
        let screen = Screen {
            text: "hi".into(),
            cols: 80,
            rows: 24,
            ..Screen::default()
        };
        let json = serde_json::to_value(Reply::Screen { screen }).unwrap();
        assert_eq!(json["screen"]["text"], "hi");
        assert_eq!(json["screen"]["exit_code"], serde_json::Value::Null);
        assert_eq!(json["screen"]["cursor"]["visible"], false);
        assert!(json["screen"].get("png").is_none());
    }

    #[test]
    fn a_start_spec_without_a_command_is_bad_input() {
        let err = StartSpec::default().spawn().unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::BadInput);
        assert!(err.to_string().contains("no command given"), "{err}");
    }
}
