//! The one vocabulary of operations on a session, and the one function that applies them.
//!
//! Every face — the session host's socket protocol, the MCP server, `tuipilot once`, and
//! the tape runner — translates its input into an [`Operation`] and hands it to
//! [`Session::apply`](crate::Session::apply); its result comes back as a typed [`Reply`]. No face calls
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
//! `render::FONT_SIZES`), the exit grace ([`DEFAULT_EXIT_GRACE`]) and the longest
//! timeout or pause ([`MAX_DURATION_MS`]).
//!
//! This file holds the operations; `wait` what a wait waits for ([`WaitFor`]), `reply`
//! their answers, `start` the [`StartSpec`], and `execute` the executor.

mod check;
mod log;
mod os_text;
mod reply;
mod start;
mod wait;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize};

use crate::error::Result;

pub(crate) use check::{Checked, CheckedPicture, CheckedStep, CheckedWait};
pub use log::{AfterInput, LoggedOperation, MAX_INPUT_BYTES, MAX_LOGGED, MAX_LOGGED_TEXT, MAX_SCREEN_BYTES};
pub(crate) use log::{OperationLog, Outcome, by_person_label};
pub use os_text::shown as shown_word;
pub use reply::{
    CursorReport, ExitReport, ImageReport, Info, Reply, RowChange, Screen, SignalReport, pending_in,
    pending_note, unwaited_in, unwaited_note, wait_notes,
};
pub(crate) use reply::{NOT_DRAWN_YET, NOT_READY, NOT_WAITED_FOR};
pub use start::{StartSpec, split_command};
pub use wait::{WaitFor, parse_span, region_words};

/// How long `exit` waits after each of SIGHUP and SIGTERM before escalating, unless the
/// session or the operation says otherwise.
pub const DEFAULT_EXIT_GRACE: Duration = Duration::from_secs(1);

/// The longest timeout or pause an operation may ask for: 24 hours. Longer is an error
/// ([`Error::DurationTooLong`](crate::Error::DurationTooLong)), not a silent clamp, so a
/// typo of a few digits cannot hold a session's host for ever.
pub const MAX_DURATION_MS: u64 = 24 * 60 * 60 * 1000;

/// `ms` as a duration, or the error naming `what` when it is over [`MAX_DURATION_MS`].
pub(crate) fn checked_duration(what: &'static str, ms: u64) -> Result<Duration> {
    if ms > MAX_DURATION_MS {
        return Err(crate::Error::DurationTooLong {
            what,
            ms,
            most_ms: MAX_DURATION_MS,
        });
    }
    Ok(Duration::from_millis(ms))
}

fn yes() -> bool {
    true
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One step of input, applied in order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// Literal text, sent as UTF-8 (a newline is LF: press `Enter` for CR).
    Text(String),
    /// Text typed as a person types it: one character at a time, each followed by a pause
    /// of `pause_ms` (a debounced search box or an autocompleting prompt sees every
    /// keystroke). Fed from the text as it goes, so a long text costs its own bytes only.
    Type {
        /// The text.
        text: String,
        /// The pause after each character, in milliseconds.
        pause_ms: u64,
    },
    /// Key names separated by spaces or commas (`"Down Down Enter"`), each encoded for
    /// the program's modes when it is sent, one write per key.
    Keys(String),
    /// Text typed a character at a time, each once the program has read the last and
    /// waits again (asked of the kernel): for a program that flushes input typed ahead
    /// (ranger's `flushinput`), which drops what arrives together.
    TextPerKey(String),
    /// Key names as in [`Step::Keys`], pressed one at a time, each once the program has
    /// read the last (see [`Step::TextPerKey`]).
    KeysPerKey(String),
    /// A paste, bracketed if the program enabled bracketed paste.
    Paste(String),
    /// Raw bytes, unchanged.
    Bytes(Vec<u8>),
    /// A pause in milliseconds (prefer a wait: it returns as soon as the screen is ready).
    SleepMs(u64),
    /// A mouse action (`click 12,3`, `drag 2,1..9,1`, `scroll-down /log/ 3`; see
    /// [`keys::mouse`](crate::keys::mouse)), refused when the program enabled no mouse.
    Mouse(String),
    /// A focus change (`in` or `out`), refused when the program did not enable focus events.
    Focus(crate::keys::Focus),
}

impl Operation {
    /// A short one-line label (a recording's marker, a log line): `send "ls" Enter, wait
    /// text /\$/`, `capture`, `resize 100x30`. Long text is cut with `…`.
    pub fn label(&self) -> String {
        let label = match self {
            Operation::Info => "info".to_string(),
            Operation::Send {
                steps, wait, secret, ..
            } => {
                let mut parts: Vec<String> = steps
                    .iter()
                    .map(|step| match step {
                        // A secret send's text is its placeholder already: no quotes.
                        Step::Text(text)
                        | Step::Paste(text)
                        | Step::Type { text, .. }
                        | Step::TextPerKey(text)
                            if *secret =>
                        {
                            text.clone()
                        }
                        Step::Text(text) => format!("{text:?}"),
                        Step::Type { text, pause_ms } => format!("type {text:?} {pause_ms}ms each"),
                        Step::TextPerKey(text) => format!("type {text:?} per key"),
                        Step::Keys(keys) => keys.clone(),
                        Step::KeysPerKey(keys) => format!("{keys} per key"),
                        Step::Paste(text) => format!("paste {text:?}"),
                        Step::Bytes(bytes) => match std::str::from_utf8(bytes) {
                            // Raw bytes a person typed read as the keys they were.
                            Ok(text) => crate::keys::describe_input(text).join(" "),
                            Err(_) => format!("{} bytes", bytes.len()),
                        },
                        Step::SleepMs(ms) => format!("sleep {ms}ms"),
                        Step::Mouse(action) => format!("mouse {action:?}"),
                        Step::Focus(focus) => format!("focus {focus}"),
                    })
                    .collect();
                if let Some(wait) = wait {
                    parts.push(format!("wait {}", wait.label()));
                }
                format!("send {}", parts.join(" "))
            }
            Operation::Wait { condition, .. } => format!("wait {}", condition.label()),
            Operation::Capture { wait: Some(wait), .. } => format!("capture after {}", wait.label()),
            Operation::Capture { .. } => "capture".to_string(),
            Operation::Resize { cols, rows } => format!("resize {cols}x{rows}"),
            Operation::Exit { .. } => "exit".to_string(),
        };
        const MOST: usize = 80;
        match label.char_indices().nth(MOST) {
            Some((cut, _)) => format!("{}…", &label[..cut]),
            None => label,
        }
    }
}

impl Operation {
    /// A plain capture: the screen's text as it is now, with no wait and no picture.
    pub fn capture_text() -> Operation {
        Operation::capture(false)
    }

    /// A colour capture: the screen as ANSI text, every cell's style in SGR
    /// (`capture --ansi`), with no wait and no picture.
    pub fn capture_ansi() -> Operation {
        Operation::capture(true)
    }

    fn capture(ansi: bool) -> Operation {
        Operation::Capture {
            wait: None,
            timeout_ms: None,
            ansi,
            scrollback: false,
            png: None,
            svg: None,
            text: true,
            mask: Vec::new(),
            scrolled_back: 0,
        }
    }

    /// Whether this is a send whose input is secret.
    pub fn is_secret(&self) -> bool {
        matches!(self, Operation::Send { secret: true, .. })
    }

    /// This operation as it may be kept when `secret` (or its own `secret` flag) says its
    /// input is secret: a send whose typed and pasted text become
    /// `<secret input, N characters>`, whose raw bytes are dropped, and whose keys stay
    /// only when none of them types a character (`Enter`, `Tab`, `C-c` stay; `a` goes).
    /// Anything else is returned as it is.
    pub fn redacted(&self, secret: bool) -> std::borrow::Cow<'_, Operation> {
        use std::borrow::Cow;
        let Operation::Send {
            steps,
            wait,
            timeout_ms,
            capture,
            secret: own,
        } = self
        else {
            return Cow::Borrowed(self);
        };
        if !(secret || *own) {
            return Cow::Borrowed(self);
        }
        // Redacting twice changes nothing: a placeholder stays as it is.
        let hide = |text: &String| match is_secret_placeholder(text) {
            true => text.clone(),
            false => secret_placeholder(text.chars().count()),
        };
        let steps = steps
            .iter()
            .map(|step| match step {
                Step::Text(text) => Step::Text(hide(text)),
                Step::Type { text, pause_ms } => Step::Type {
                    text: hide(text),
                    pause_ms: *pause_ms,
                },
                Step::Paste(text) => Step::Paste(hide(text)),
                Step::TextPerKey(text) => Step::TextPerKey(hide(text)),
                Step::Bytes(bytes) => Step::Text(secret_placeholder(bytes.len())),
                Step::Keys(keys) | Step::KeysPerKey(keys) if types_characters(keys) => {
                    let count = keys.split([' ', ',']).filter(|k| !k.is_empty()).count();
                    Step::Text(secret_placeholder(count))
                }
                other => other.clone(),
            })
            .collect();
        Cow::Owned(Operation::Send {
            steps,
            wait: wait.clone(),
            timeout_ms: *timeout_ms,
            capture: *capture,
            secret: true,
        })
    }
}

/// What stands in for `count` characters of secret input wherever input is kept.
pub fn secret_placeholder(count: usize) -> String {
    let unit = if count == 1 { "character" } else { "characters" };
    format!("<secret input, {count} {unit}>")
}

/// Whether `text` is a [`secret_placeholder`].
fn is_secret_placeholder(text: &str) -> bool {
    text.strip_prefix("<secret input, ")
        .and_then(|rest| {
            rest.strip_suffix(" characters>")
                .or_else(|| rest.strip_suffix(" character>"))
        })
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a key list types a character (a letter, a digit, a space) rather than only
/// naming keys that move, confirm or interrupt; a list that does not parse counts as typing.
fn types_characters(keys: &str) -> bool {
    crate::keys::parse_key_list(keys).map_or(true, |keys| {
        keys.iter()
            .any(|key| matches!(key.code, crate::keys::KeyCode::Char(_)) && !key.mods.ctrl && !key.mods.alt)
    })
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

/// Writes a `send` or `capture` wait so [`wait_or_pattern`] reads it back: a condition
/// without arguments (`exit`, `command`, `bell`) as `{"command": null}`, since a plain
/// string there is a screen regex.
fn wait_as_object<S: serde::Serializer>(
    wait: &Option<WaitFor>,
    serializer: S,
) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let name = match wait {
        Some(WaitFor::Exit) => "exit",
        Some(WaitFor::Command) => "command",
        Some(WaitFor::Bell) => "bell",
        Some(WaitFor::Ready) => "ready",
        Some(WaitFor::Prompt) => "prompt",
        Some(WaitFor::Settle) => "settle",
        other => return other.serialize(serializer),
    };
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(name, &())?;
    map.end()
}

/// A PNG wanted from a capture, and how to draw it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PngRequest {
    /// Where to write it; without a path the PNG's bytes are returned in the reply only
    /// (a face decides where they go).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<PathBuf>,
    /// A theme name (`dark`, the default; `light`; see `color::THEME_NAMES`) or a theme
    /// in VHS's JSON form.
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
    /// Padding around the grid in pixels before scaling (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub padding: Option<u32>,
    /// Row height as a multiple of the font's (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_height: Option<f32>,
    /// Extra pixels between cells before scaling (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub letter_spacing: Option<f32>,
    /// Whether the fonts installed on the machine may draw what the bundled and named
    /// fonts lack (default true; false for pictures that must match on every machine).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_fonts: Option<bool>,
    /// Whether bold text in colours 0-7 is drawn bright, as xterm does (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bold_is_bright: Option<bool>,
}

/// An SVG wanted from a capture: where it goes (`drawing.path`, required), how to draw it
/// (the PNG's options: theme, fonts, sizes), and whether to frame it as a window.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SvgRequest {
    /// The drawing options, as for a PNG; `path` is where the SVG is written.
    #[serde(flatten)]
    pub drawing: PngRequest,
    /// Draw a window around the screen: rounded corners, a title bar with the title.
    #[serde(default, skip_serializing_if = "is_false")]
    pub window: bool,
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
        if let Some(padding) = self.padding {
            options.padding = padding;
        }
        if let Some(line_height) = self.line_height {
            options.line_height = line_height;
        }
        if let Some(letter_spacing) = self.letter_spacing {
            options.letter_spacing = letter_spacing;
        }
        if let Some(system_fonts) = self.system_fonts {
            options.system_fonts = system_fonts;
        }
        if let Some(bold_is_bright) = self.bold_is_bright {
            options.bold_is_bright = bold_is_bright;
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
            serialize_with = "wait_as_object",
            skip_serializing_if = "Option::is_none"
        )]
        wait: Option<WaitFor>,
        /// The wait's timeout (default: the session's).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout_ms: Option<u64>,
        /// Reply with the screen afterwards.
        #[serde(default)]
        capture: bool,
        /// The input is secret (a password): it is sent, but never kept — not in the
        /// recording, its markers, the operation log or an export, which show
        /// `<secret input, N characters>` instead.
        #[serde(default, skip_serializing_if = "is_false")]
        secret: bool,
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
            serialize_with = "wait_as_object",
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
        png: Option<Box<PngRequest>>,
        /// Also write the screen as an SVG.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        svg: Option<Box<SvgRequest>>,
        /// Put the screen's text in the reply (default). A PNG capture that wants only
        /// the picture sets this false, and its reply stays small whatever the screen holds.
        #[serde(default = "yes", skip_serializing_if = "is_true")]
        text: bool,
        /// Regexes whose matches are masked: clocks, timestamps, pids, temporary paths. In
        /// the text each match becomes [`MASK_PLACEHOLDER`](crate::snapshot::MASK_PLACEHOLDER)
        /// whatever its length ([`Snapshot::masked_text`](crate::Snapshot::masked_text));
        /// in the PNG, the SVG and the ANSI text each matched cell is painted flat, its
        /// width kept ([`Snapshot::masked`](crate::Snapshot::masked)).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        mask: Vec<String>,
        /// Show the screen scrolled back this many lines into the scrollback, the way a
        /// person scrolling the terminal's view sees it (0, the default: the live screen).
        #[serde(default, skip_serializing_if = "is_zero")]
        scrolled_back: u32,
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
                secret: false,
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
                secret: false,
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
                png: Some(Box::new(PngRequest {
                    path: Some("/tmp/x.png".into()),
                    theme: Some("light".into()),
                    ..PngRequest::default()
                })),
                svg: Some(Box::new(SvgRequest {
                    drawing: PngRequest {
                        path: Some("/tmp/x.svg".into()),
                        ..PngRequest::default()
                    },
                    window: true,
                })),
                text: false,
                mask: vec![r"\d+".into()],
                scrolled_back: 3,
            },
            Operation::Send {
                steps: vec![Step::Bytes(vec![0, 255])],
                wait: Some(WaitFor::Text("a".into())),
                timeout_ms: None,
                capture: false,
                secret: false,
            },
            Operation::Send {
                steps: vec![
                    Step::Mouse("click 1,2".into()),
                    Step::Focus(crate::keys::Focus::In),
                ],
                wait: Some(WaitFor::Command),
                timeout_ms: None,
                capture: true,
                secret: false,
            },
            Operation::Capture {
                wait: Some(WaitFor::Bell),
                timeout_ms: None,
                ansi: false,
                scrollback: false,
                png: None,
                svg: None,
                text: true,
                mask: Vec::new(),
                scrolled_back: 0,
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
}
