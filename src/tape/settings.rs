//! What a tape's header sets up: the shell and how it starts (VHS's way), the terminal
//! size from pixels, the screenshot look, the typing speed and the wait defaults.
//!
//! VHS applies the `Set`s before the first action to the whole run and ignores a later
//! `Set` with a warning, except `TypingSpeed`; we do the same, and also let `WaitTimeout`
//! and `WaitPattern` change mid-tape (they only change how later commands wait). `Env`
//! applies wherever it is written, because the shell is started before the first action.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use super::program::{Setting, ThemeSpec};
use crate::color::Theme;
use crate::operation::{PngRequest, StartSpec};
use crate::render::{Metrics, RenderOptions};
use crate::terminal::{MAX_SIZE, MIN_COLS, MIN_ROWS};

/// VHS's defaults.
const DEFAULT_FONT_SIZE: f32 = 22.0;
const DEFAULT_WIDTH: u32 = 1200;
const DEFAULT_HEIGHT: u32 = 600;
const DEFAULT_PADDING: u32 = 60;
const DEFAULT_LETTER_SPACING: f32 = 1.0;
const DEFAULT_TYPING_SPEED: Duration = Duration::from_millis(50);
const DEFAULT_WAIT_TIMEOUT: Duration = Duration::from_secs(15);
/// How long a whole tape may run unless it says otherwise (`Set TapeTimeout`): far longer
/// than any tape meant as a test, short enough that a runaway one cannot hold a CI job.
pub const DEFAULT_TAPE_TIMEOUT: Duration = Duration::from_secs(10 * 60);
/// The pattern `Wait` looks for on the cursor's line when the tape names none: VHS's
/// prompt, `> `, with trailing spaces trimmed.
pub(super) const DEFAULT_WAIT_PATTERN: &str = ">$";

/// VHS's prompt colour (`#5A56E0`), as the shells are told to draw it.
const PROMPT_RGB: (u8, u8, u8) = (0x5a, 0x56, 0xe0);

/// VHS's frame rate for its GIFs.
const DEFAULT_FRAMERATE: u32 = 50;

/// The run's settings, after the header.
#[derive(Clone, Debug)]
pub(super) struct Setup {
    pub shell: String,
    pub font_size: f32,
    pub width: u32,
    pub height: u32,
    pub padding: u32,
    pub letter_spacing: f32,
    pub line_height: f32,
    pub theme: Option<String>,
    pub typing_speed: Duration,
    pub wait_timeout: Duration,
    pub wait_pattern: String,
    /// `Set Isolated true`: run hermetically (see `RunOptions::isolated`).
    pub isolated: bool,
    /// `Set ReactionBound`: the session's reaction bound, when the tape sets one.
    pub reaction_bound: Option<Duration>,
    pub tape_timeout: Duration,
    pub env: Vec<(OsString, OsString)>,
    /// `Set Columns` and `Set Rows`: the size in cells, in place of the pixels'.
    pub columns: Option<u16>,
    pub rows: Option<u16>,
    /// `Start`: the program and its folder, started in place of the shell.
    pub program: Option<(Vec<OsString>, Option<PathBuf>)>,
    /// `With`: what an isolated run copies into its fresh `HOME`.
    pub with: Vec<PathBuf>,
    /// `PlaybackSpeed`, `Framerate` and `LoopOffset`: how a GIF of the run plays.
    pub playback_speed: f64,
    pub framerate: u32,
    pub loop_offset: Option<String>,
}

impl Default for Setup {
    fn default() -> Setup {
        Setup {
            shell: "bash".into(),
            font_size: DEFAULT_FONT_SIZE,
            width: DEFAULT_WIDTH,
            height: DEFAULT_HEIGHT,
            padding: DEFAULT_PADDING,
            letter_spacing: DEFAULT_LETTER_SPACING,
            line_height: 1.0,
            theme: None,
            typing_speed: DEFAULT_TYPING_SPEED,
            wait_timeout: DEFAULT_WAIT_TIMEOUT,
            wait_pattern: DEFAULT_WAIT_PATTERN.into(),
            tape_timeout: DEFAULT_TAPE_TIMEOUT,
            isolated: false,
            reaction_bound: None,
            env: Vec::new(),
            columns: None,
            rows: None,
            program: None,
            with: Vec::new(),
            playback_speed: 1.0,
            framerate: DEFAULT_FRAMERATE,
            loop_offset: None,
        }
    }
}

impl Setup {
    /// Applies a `Set`; returns a note when the setting only shows in a video or the
    /// theme is not bundled.
    pub fn apply(&mut self, setting: &Setting) -> Option<String> {
        match setting {
            Setting::Shell(shell) => self.shell = shell.clone(),
            Setting::FontSize(size) => self.font_size = *size,
            Setting::FontFamily(family) => {
                return Some(format!(
                    "Set FontFamily {family:?}: screenshots use the bundled DejaVu Sans Mono"
                ));
            }
            Setting::Width(px) => self.width = *px,
            Setting::Height(px) => self.height = *px,
            Setting::Padding(px) => self.padding = *px,
            Setting::LetterSpacing(px) => self.letter_spacing = *px,
            Setting::LineHeight(h) => self.line_height = *h,
            Setting::TypingSpeed(t) => self.typing_speed = *t,
            Setting::WaitTimeout(t) => self.wait_timeout = *t,
            Setting::WaitPattern(p) => self.wait_pattern = p.clone(),
            Setting::TapeTimeout(t) => self.tape_timeout = *t,
            Setting::Isolated(on) => self.isolated = *on,
            Setting::ReactionBound(t) => self.reaction_bound = Some(*t),
            Setting::Columns(n) => self.columns = Some(*n),
            Setting::Rows(n) => self.rows = Some(*n),
            Setting::Theme(ThemeSpec::Json(json)) => self.theme = Some(json.clone()),
            Setting::Theme(ThemeSpec::Name(name)) => match Theme::by_name(name) {
                Some(_) => self.theme = Some(name.clone()),
                None => {
                    return Some(format!(
                        "Set Theme {name:?}: not one of the bundled themes ({}); screenshots use the dark theme (give VHS's theme JSON to use its colours)",
                        crate::color::THEME_NAMES.join(", ")
                    ));
                }
            },
            Setting::Video("PlaybackSpeed", value) => {
                self.playback_speed = value.parse().unwrap_or(1.0);
            }
            Setting::Video("Framerate", value) => {
                self.framerate = value.parse().unwrap_or(DEFAULT_FRAMERATE);
            }
            Setting::Video("LoopOffset", value) => self.loop_offset = Some(value.clone()),
            Setting::Video(name, value) => {
                return Some(format!(
                    "Set {name} {value}: a video setting, no effect on text or PNG output"
                ));
            }
        }
        None
    }

    /// How a GIF of the run is made: VHS's `PlaybackSpeed` and `Framerate`, and the
    /// `Hide`…`Show` stretches (recording seconds) left out.
    pub fn frame_options(&self, hidden: Vec<(f64, f64)>) -> crate::record::FrameOptions {
        crate::record::FrameOptions {
            speed: self.playback_speed,
            fps_cap: self.framerate.max(1),
            hidden,
            ..crate::record::FrameOptions::default()
        }
    }

    /// Where `LoopOffset` starts the animation: `20%` of its length, or a number of frames
    /// at the frame rate.
    pub fn loop_offset(&self) -> crate::record::LoopOffset {
        use crate::record::LoopOffset;
        match &self.loop_offset {
            None => LoopOffset::Seconds(0.0),
            Some(text) => match text.strip_suffix('%') {
                Some(percent) => LoopOffset::Fraction(percent.parse::<f64>().unwrap_or(0.0) / 100.0),
                None => {
                    LoopOffset::Seconds(text.parse::<f64>().unwrap_or(0.0) / f64::from(self.framerate.max(1)))
                }
            },
        }
    }

    /// The screenshot look these settings give.
    pub fn png(&self) -> PngRequest {
        PngRequest {
            theme: self.theme.clone(),
            font_size: Some(self.font_size),
            padding: Some(self.padding),
            line_height: Some(self.line_height),
            letter_spacing: Some(self.letter_spacing),
            ..PngRequest::default()
        }
    }

    /// Columns and rows: the pixels inside the padding divided by the renderer's cell,
    /// kept within the engine's limits (a note says when they were not).
    pub fn size(&self) -> Result<((u16, u16), Option<String>), crate::Error> {
        let options: RenderOptions = self.png().options()?;
        let m = Metrics::of(&options);
        let inner = |px: u32| px.saturating_sub(2 * self.padding);
        let cols = inner(self.width) / m.cell_width.max(1);
        let rows = inner(self.height) / m.cell_height.max(1);
        let clamp = |n: u32, min: u16| n.clamp(u32::from(min), u32::from(MAX_SIZE)) as u16;
        let size = (clamp(cols, MIN_COLS), clamp(rows, MIN_ROWS));
        if let (Some(cols), Some(rows)) = (self.columns, self.rows) {
            return Ok(((cols, rows), None));
        }
        let note = ((u32::from(size.0), u32::from(size.1)) != (cols, rows)).then(|| {
            format!(
                "Width {} x Height {} with padding {} at font size {} gives {cols}x{rows} cells; using {}x{} (the engine's limits are {MIN_COLS}x{MIN_ROWS} to {MAX_SIZE}x{MAX_SIZE})",
                self.width, self.height, self.padding, self.font_size, size.0, size.1
            )
        });
        // `Set Columns` or `Set Rows` alone keeps the pixels' other side.
        let size = (self.columns.unwrap_or(size.0), self.rows.unwrap_or(size.1));
        Ok((
            size,
            note.filter(|_| self.columns.is_none() && self.rows.is_none()),
        ))
    }

    /// What to start: the tape's `Start` program by its argument vector — in its
    /// `Start+Dir` folder, or in an isolated run in the fresh `HOME` with the `With` files
    /// — or else the shell the way VHS starts it, with its `> ` prompt, in the current
    /// directory; with the tape's `Env` either way.
    pub fn start_spec(&self, cols: u16, rows: u16, isolated: bool) -> StartSpec {
        let base = StartSpec {
            cols,
            rows,
            isolated,
            timeout_ms: Some(self.wait_timeout.as_millis() as u64),
            reaction_bound_ms: self.reaction_bound.map(|t| t.as_millis() as u64),
            ..StartSpec::default()
        };
        if let Some((command, dir)) = &self.program {
            // Isolated, a program started in no folder or a relative one starts in the
            // fresh HOME (or that folder inside it: an export's world copied in).
            let in_home =
                (isolated && dir.as_ref().is_none_or(|d| d.is_relative())).then(|| self.with.clone());
            return StartSpec {
                command: command.clone(),
                cwd: dir.clone(),
                env: self.env.clone(),
                in_home,
                ..base
            };
        }
        let (r, g, b) = PROMPT_RGB;
        let mut env: Vec<(OsString, OsString)> = Vec::new();
        let command: Vec<OsString> = match self.shell.as_str() {
            "bash" | "osh" => {
                env.push((
                    "PS1".into(),
                    format!("\\[\\e[38;2;{r};{g};{b}m\\]> \\[\\e[0m\\]").into(),
                ));
                env.push(("BASH_SILENCE_DEPRECATION_WARNING".into(), "1".into()));
                if self.shell == "bash" {
                    words(&["bash", "--noprofile", "--norc", "--login", "+o", "history"])
                } else {
                    words(&["osh", "--norc"])
                }
            }
            "zsh" => {
                env.push((
                    "PROMPT".into(),
                    format!("%F{{#{r:02X}{g:02X}{b:02X}}}> %f").into(),
                ));
                words(&["zsh", "--histnostore", "--no-rcs"])
            }
            "fish" => words(&[
                "fish",
                "--login",
                "--no-config",
                "--private",
                "-C",
                "function fish_greeting; end",
                "-C",
                &format!(
                    "function fish_prompt; set_color {r:02X}{g:02X}{b:02X}; echo -n '> '; set_color normal; end"
                ),
            ]),
            "nu" => words(&[
                "nu",
                "--execute",
                &format!(
                    "$env.PROMPT_COMMAND = {{|| \"\\e[38;2;{r};{g};{b}m>\\e[0m \" }}; $env.PROMPT_COMMAND_RIGHT = {{|| '' }}; $env.PROMPT_INDICATOR = ''"
                ),
            ]),
            "xonsh" => words(&["xonsh", "--no-rc", "-D", "PROMPT=> "]),
            name @ ("pwsh" | "powershell") => words(&[
                name,
                "-Login",
                "-NoLogo",
                "-NoExit",
                "-NoProfile",
                "-Command",
                "Set-PSReadLineOption -HistorySaveStyle SaveNothing; function prompt { '> ' }",
            ]),
            other => words(&[other]),
        };
        env.extend(self.env.iter().cloned());
        StartSpec { command, env, ..base }
    }

    /// Whether the tape's `Env` replaces the prompt VHS gives its shell (then the runner
    /// cannot wait for `> ` before the first action).
    pub fn own_prompt(&self) -> bool {
        self.env
            .iter()
            .any(|(k, _)| k == "PS1" || k == "PROMPT" || k == "PROMPT_COMMAND")
    }
}

fn words(list: &[&str]) -> Vec<OsString> {
    list.iter().map(OsString::from).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vhs_default_pixels_give_a_terminal_of_sensible_size() {
        let ((cols, rows), note) = Setup::default().size().unwrap();
        assert!(note.is_none());
        assert!((65..=85).contains(&cols), "{cols}");
        assert!((14..=22).contains(&rows), "{rows}");
    }

    #[test]
    fn a_tiny_height_is_clamped_to_the_engines_minimum_with_a_note() {
        // Padding takes all 100 pixels: no row fits inside.
        let setup = Setup {
            height: 100,
            padding: 50,
            ..Setup::default()
        };
        let ((_, rows), note) = setup.size().unwrap();
        assert_eq!(rows, MIN_ROWS);
        assert!(note.is_some_and(|n| n.contains("gives") && n.contains("using")));
    }

    #[test]
    fn bash_starts_without_rc_files_or_history_and_with_the_vhs_prompt() {
        let spec = Setup::default().start_spec(80, 24, false);
        assert_eq!(spec.command[..4], ["bash", "--noprofile", "--norc", "--login"]);
        assert!(spec.command.ends_with(&["+o".into(), "history".into()]));
        assert!(
            spec.env
                .iter()
                .any(|(k, v)| k == "PS1" && v.to_string_lossy().contains("> "))
        );
    }
}
