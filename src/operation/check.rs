//! An operation checked whole before it runs: what the executor
//! ([`Session::apply`](crate::Session::apply), the session's) is handed.
//!
//! Checking first is what makes an operation one unit for every face: a bad key in the
//! last step, a regex that does not compile or a render option out of range fails the
//! operation before a byte is sent or a wait starts.

use std::time::Duration;

use super::{Operation, PngRequest, Step, SvgRequest, WaitFor};
use crate::error::Result;
use crate::keys::Input;
use crate::keys::parse_key_list;
use crate::wait::Condition;

/// Everything an operation needs, checked before anything is sent or waited for: a bad
/// key, regex or render option fails the whole operation with nothing done.
pub(crate) enum Checked {
    Info,
    Send {
        steps: Vec<CheckedStep>,
        wait: Option<CheckedWait>,
        timeout: Duration,
        capture: bool,
        secret: bool,
    },
    Wait {
        wait: CheckedWait,
        timeout: Duration,
    },
    Capture {
        wait: Option<CheckedWait>,
        timeout: Duration,
        ansi: bool,
        scrollback: bool,
        png: Option<Box<CheckedPicture>>,
        svg: Option<Box<CheckedPicture>>,
        text: bool,
        mask: Vec<regex::Regex>,
        scrolled_back: usize,
    },
    Resize {
        cols: u16,
        rows: u16,
    },
    Exit {
        grace: Option<Duration>,
    },
}

/// A wait ready to go: its condition, and whether it settles ([`WaitFor::Settle`]: the
/// time running out or the program exiting ends it without an error).
pub(crate) struct CheckedWait {
    pub(crate) condition: Condition,
    pub(crate) settle: bool,
}

impl CheckedWait {
    fn new(wait: &WaitFor) -> Result<CheckedWait> {
        Ok(CheckedWait {
            condition: wait.condition()?,
            settle: *wait == WaitFor::Settle,
        })
    }
}

/// A send step ready to go: input for [`Session::send`](crate::Session::send), or a pause.
pub(crate) enum CheckedStep {
    Input(Input),
    Sleep(Duration),
    /// Text typed a character at a time, each followed by the pause.
    Type(String, Duration),
    /// Inputs sent one at a time, each once the program has read the last.
    PerKey(Vec<Input>),
}

#[cfg(feature = "render")]
/// A PNG or SVG request, checked: where it goes and how it is drawn.
pub(crate) struct CheckedPicture {
    pub(crate) path: Option<std::path::PathBuf>,
    pub(crate) options: crate::render::RenderOptions,
    /// For an SVG: whether to frame it as a window.
    pub(crate) frame: crate::render::SvgFrame,
}

#[cfg(not(feature = "render"))]
pub(crate) enum CheckedPicture {}

/// An SVG request checked like a PNG's, with the path it must have.
fn check_svg(request: &SvgRequest) -> Result<CheckedPicture> {
    if request.drawing.path.is_none() {
        return Err(crate::error::Error::InvalidArgument {
            message: "an SVG capture needs a path to write to: give svg.path".into(),
        });
    }
    #[cfg_attr(not(feature = "render"), allow(unused_mut))]
    let mut checked = check_png(&request.drawing)?;
    #[cfg(feature = "render")]
    if request.window {
        checked.frame = crate::render::SvgFrame::Window;
    }
    Ok(checked)
}

fn check_png(request: &PngRequest) -> Result<CheckedPicture> {
    #[cfg(feature = "render")]
    {
        Ok(CheckedPicture {
            path: request.path.clone(),
            options: request.options()?,
            frame: crate::render::SvgFrame::None,
        })
    }
    #[cfg(not(feature = "render"))]
    {
        let _ = request;
        Err(crate::error::Error::Unsupported {
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

    pub(crate) fn checked(&self, default_timeout: Duration) -> Result<Checked> {
        let timeout = |ms: &Option<u64>| {
            ms.map_or(Ok(default_timeout), |ms| {
                super::checked_duration("timeout_ms", ms)
            })
        };
        let condition = |wait: &Option<WaitFor>| wait.as_ref().map(CheckedWait::new).transpose();
        Ok(match self {
            Operation::Info => Checked::Info,
            Operation::Send {
                steps,
                wait,
                timeout_ms,
                capture,
                secret,
            } => Checked::Send {
                secret: *secret,
                steps: steps
                    .iter()
                    .map(|step| {
                        Ok(match step {
                            Step::Text(text) => CheckedStep::Input(Input::Text(text.clone())),
                            Step::Type { text, pause_ms } => CheckedStep::Type(
                                text.clone(),
                                super::checked_duration("pause_ms", *pause_ms)?,
                            ),
                            Step::Keys(spec) => CheckedStep::Input(Input::Keys(parse_key_list(spec)?)),
                            Step::TextPerKey(text) => CheckedStep::PerKey(
                                text.chars().map(|c| Input::Text(c.to_string())).collect(),
                            ),
                            Step::KeysPerKey(spec) => CheckedStep::PerKey(
                                parse_key_list(spec)?
                                    .into_iter()
                                    .map(|key| Input::Keys(vec![key]))
                                    .collect(),
                            ),
                            Step::Paste(text) => CheckedStep::Input(Input::Paste(text.clone())),
                            Step::Bytes(bytes) => CheckedStep::Input(Input::Bytes(bytes.clone())),
                            Step::Mouse(spec) => CheckedStep::Input(Input::mouse(spec)?),
                            Step::Focus(focus) => CheckedStep::Input(Input::Focus(*focus)),
                            Step::SleepMs(ms) => {
                                CheckedStep::Sleep(super::checked_duration("sleep_ms", *ms)?)
                            }
                        })
                    })
                    .collect::<Result<_>>()?,
                wait: condition(wait)?,
                timeout: timeout(timeout_ms)?,
                capture: *capture,
            },
            Operation::Wait {
                condition,
                timeout_ms,
            } => Checked::Wait {
                wait: CheckedWait::new(condition)?,
                timeout: timeout(timeout_ms)?,
            },
            Operation::Capture {
                wait,
                timeout_ms,
                ansi,
                scrollback,
                png,
                svg,
                text,
                mask,
                scrolled_back,
            } => Checked::Capture {
                wait: condition(wait)?,
                timeout: timeout(timeout_ms)?,
                ansi: *ansi,
                scrollback: *scrollback,
                png: png.as_ref().map(|p| check_png(p).map(Box::new)).transpose()?,
                svg: svg.as_ref().map(|s| check_svg(s).map(Box::new)).transpose()?,
                text: *text,
                // Compiled now, like every regex: a bad mask fails before any wait.
                mask: mask
                    .iter()
                    .map(|pattern| crate::snapshot::compile(pattern))
                    .collect::<Result<_>>()?,
                scrolled_back: *scrolled_back as usize,
            },
            Operation::Resize { cols, rows } => {
                crate::terminal::check_size(*cols, *rows)?;
                Checked::Resize {
                    cols: *cols,
                    rows: *rows,
                }
            }
            Operation::Exit { timeout_ms } => Checked::Exit {
                grace: timeout_ms
                    .map(|ms| timeout(&Some(ms)).map(|t| t / 2))
                    .transpose()?,
            },
        })
    }
}
