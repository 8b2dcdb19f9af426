//! The typed program a tape parses into: commands with their place in the source.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// Where a command (or an error) is in a tape: file, 1-based line and column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The tape file (a `Source`d command names the file it came from).
    pub file: Arc<PathBuf>,
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.col)
    }
}

/// A parsed tape: its commands in order, `Source`d tapes inlined.
#[derive(Clone, Debug, PartialEq)]
pub struct Tape {
    /// The file it was read from (or the name given to [`Tape::parse_str`](super::Tape::parse_str)).
    pub path: PathBuf,
    /// Its commands.
    pub commands: Vec<Command>,
}

impl Tape {
    /// The tape's name for reports and test names: its path as given.
    pub fn name(&self) -> String {
        self.path.display().to_string()
    }

    /// The directory the tape is in (where its snapshots live).
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new(""))
    }
}

/// One command and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// Where it starts.
    pub location: Location,
    /// The command as written, from its keyword to its last argument.
    pub source: String,
    /// What it does.
    pub kind: CommandKind,
}

/// Which part of the screen a wait or expectation reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The cursor's row, trailing spaces trimmed (VHS's `Wait` default).
    Line,
    /// Every row of the screen.
    Screen,
    /// Every logical line of the screen: rows the terminal wrapped joined into the line the
    /// program wrote (`Wait+Wrapped`, `Expect+Wrapped`).
    Wrapped,
    /// A region: rows and columns, each the first and last, 0-based and inclusive (`None`:
    /// all) — `Expect+Rows 3-27`, `Expect+Cols 0-39`, `Expect+Rect 3-27 0-39`.
    Region {
        /// The first and last row.
        rows: Option<(u16, u16)>,
        /// The first and last column.
        cols: Option<(u16, u16)>,
    },
}

/// What a `Wait` waits for.
#[derive(Clone, Debug, PartialEq)]
pub enum WaitKind {
    /// `Wait`, `Wait+Line`, `Wait+Screen`: a regex (default: the `WaitPattern` setting).
    Pattern(Scope, Option<String>),
    /// `Wait+Stable 300ms`: the screen unchanged that long.
    Stable(Duration),
    /// `Wait+Exit`: the program ended.
    Exit,
    /// `Wait+Output /re/`: the program's output (escape sequences removed) matches.
    Output(String),
    /// `Wait+Command`: the next shell command finishes (OSC 133;D).
    Command,
    /// `Wait+Bell`: the program rings the bell.
    Bell,
    /// `Wait+Title /re/`: the window title matches.
    Title(String),
    /// `Wait+Cwd /re/`: the working directory the program reports (OSC 7) matches.
    Cwd(String),
    /// `Wait+Ready`: the program has finished reacting and waits for input (the kernel's
    /// answer; a quiet screen where it cannot tell).
    Ready,
    /// `Wait+Prompt`: the shell waits at its prompt.
    Prompt,
}

/// A command's meaning.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandKind {
    /// `Output PATH`: write the run to this file (by extension) or directory.
    Output(PathBuf),
    /// `Require PROGRAM`: fail before starting when it is not on `PATH`.
    Require(String),
    /// `Set NAME VALUE`.
    Set(Setting),
    /// `Env NAME "value"`: set for the shell (or the `Start`ed program) when it starts;
    /// name and value may be any bytes but NUL.
    Env(std::ffi::OsString, std::ffi::OsString),
    /// `Start WORD…`, `Start+Dir "DIR" WORD…` (ours): start this program, by its argument
    /// vector, in place of the shell — what an exported session replays. Any bytes but NUL.
    Start {
        /// The program and its arguments.
        command: Vec<std::ffi::OsString>,
        /// The folder it starts in (default: the runner's, or the fresh `HOME` of an
        /// isolated run).
        dir: Option<PathBuf>,
    },
    /// `With "FILE"` (ours): in an isolated run, copy this file or folder into the fresh
    /// `HOME`, where a `Start`ed program then starts.
    With(PathBuf),
    /// `Bytes "…"` (ours): send these bytes to the program as they are (input that is not
    /// UTF-8 text; `\xHH` escapes in a `$"…"` string).
    Bytes(Vec<u8>),
    /// `Type+PerKey "text"` (ours): typed a character at a time, each once the program
    /// has read the last.
    TypePerKey(String),
    /// `Key+PerKey NAME…` (ours): the keys pressed one at a time, each once the program
    /// has read the last.
    KeysPerKey(String),
    /// `Type[@time] "text"`.
    Type {
        /// The text.
        text: String,
        /// The pause after each character (default: `TypingSpeed`).
        speed: Option<Duration>,
    },
    /// A key command (`Enter 3`, `Ctrl+C`, `Key C-S-Up F5`): the key names in tuipilot's
    /// grammar, pressed `count` times.
    Keys {
        /// Key names, separated by spaces.
        keys: String,
        /// The pause after each press (default: `TypingSpeed`).
        speed: Option<Duration>,
        /// How many times.
        count: u32,
    },
    /// `ScrollUp`/`ScrollDown`: move the viewport into the scrollback (no key is sent).
    Scroll {
        /// Rows up (negative: down).
        rows: i32,
        /// The pause after each row.
        speed: Option<Duration>,
    },
    /// `Sleep TIME`.
    Sleep(Duration),
    /// `Wait…`.
    Wait {
        /// What for.
        kind: WaitKind,
        /// `@timeout` (default: `WaitTimeout`).
        timeout: Option<Duration>,
    },
    /// `Hide`: stop writing frames.
    Hide,
    /// `Show`: write frames again.
    Show,
    /// `Screenshot PATH`: the screen as a PNG.
    Screenshot(PathBuf),
    /// `Copy "text"`: to the tape's own clipboard.
    Copy(String),
    /// `Paste`: the clipboard, as a paste.
    Paste,
    /// `Mouse "click 12,3"`: a mouse action in the CLI's grammar (checked when parsed).
    Mouse(String),
    /// `Focus in` / `Focus out`.
    Focus(crate::keys::Focus),
    /// `Subtitle "text"`: a caption in VHS's video; nothing a screen shows.
    Subtitle(String),
    /// `Expect /re/`, `Expect+Line`, `ExpectNot`: the screen has (or lacks) a match now or
    /// within the wait timeout.
    Expect {
        /// Which rows.
        scope: Scope,
        /// The regex.
        pattern: String,
        /// `ExpectNot`.
        negated: bool,
        /// `@timeout`.
        timeout: Option<Duration>,
    },
    /// `ExpectExit N`: the program exits with this code (waiting for it).
    ExpectExit {
        /// The exit code.
        code: i32,
        /// `@timeout`.
        timeout: Option<Duration>,
    },
    /// `Snapshot NAME` / `Snapshot NAME.png`: compare with a golden next to the tape.
    Snapshot(String),
    /// `Snapshot+Styled NAME`: compare the screen's text and styles — each styled row
    /// with a letter per cell and a legend ([`Snapshot::styled`](crate::Snapshot::styled),
    /// masks keeping their length) — with `NAME.snap` next to the tape.
    StyledSnapshot(String),
    /// `Mask /re/`: hide matches in everything written from here on.
    Mask(String),
    /// `Mask+Rows 3-27`: hide these rows (first and last, 0-based and inclusive) whole in
    /// the text snapshots from here on: rows that drifted with nothing steady in them (a
    /// process list, a random hint).
    MaskRows((u16, u16)),
    /// `Resize COLS ROWS`.
    Resize {
        /// Columns.
        cols: u16,
        /// Rows.
        rows: u16,
    },
}

impl CommandKind {
    /// Whether the command is part of the tape's header in VHS's sense (settings and
    /// outputs before the first action apply to the whole run).
    pub fn is_header(&self) -> bool {
        matches!(
            self,
            CommandKind::Set(_)
                | CommandKind::Output(_)
                | CommandKind::Require(_)
                | CommandKind::Env(..)
                | CommandKind::Start { .. }
                | CommandKind::With(_)
        )
    }
}

/// A theme for screenshots: a bundled name or VHS's inline JSON.
#[derive(Clone, Debug, PartialEq)]
pub enum ThemeSpec {
    /// A name (`dark`, `light`, or one of the few VHS names bundled).
    Name(String),
    /// VHS's inline JSON: the 16 colours, `background`, `foreground`, `cursor`.
    Json(String),
}

/// A `Set` command.
#[derive(Clone, Debug, PartialEq)]
pub enum Setting {
    /// `Shell`: which shell starts, and how (VHS's way).
    Shell(String),
    /// `FontSize` in pixels.
    FontSize(f32),
    /// `FontFamily`: recorded; screenshots use the bundled monospace font.
    FontFamily(String),
    /// `Width` in pixels (the terminal's columns follow from it).
    Width(u32),
    /// `Height` in pixels (the rows follow from it).
    Height(u32),
    /// `Padding` in pixels.
    Padding(u32),
    /// `LetterSpacing`: extra pixels between cells.
    LetterSpacing(f32),
    /// `LineHeight`: a multiple of the font's line height.
    LineHeight(f32),
    /// `TypingSpeed`: the pause after each typed character and key.
    TypingSpeed(Duration),
    /// `Theme`.
    Theme(ThemeSpec),
    /// `WaitTimeout`.
    WaitTimeout(Duration),
    /// `WaitPattern`.
    WaitPattern(String),
    /// `TapeTimeout` (ours, not VHS's): how long the whole run may take.
    TapeTimeout(Duration),
    /// `Isolated` (ours, not VHS's): run hermetically — no inherited environment but
    /// `PATH`, a fresh `HOME` (with `TMPDIR` and XDG folders) removed when the tape ends —
    /// as `tuipilot run --isolated` does for every tape.
    Isolated(bool),
    /// `Columns` (ours, not VHS's): the terminal's width in cells, in place of what
    /// `Width`, `Padding` and `FontSize` give.
    Columns(u16),
    /// `Rows` (ours, not VHS's): the terminal's height in cells, in place of what `Height`
    /// gives.
    Rows(u16),
    /// `ReactionBound` (ours, not VHS's): the longest timer of the program a `Wait+Ready`
    /// waits out after input
    /// ([`SessionBuilder::reaction_bound`](crate::SessionBuilder::reaction_bound)).
    ReactionBound(Duration),
    /// A setting only a video shows (`Framerate`, `PlaybackSpeed`, `LoopOffset`,
    /// `CursorBlink`, `Margin`, `MarginFill`, `WindowBar`, `WindowBarSize`,
    /// `BorderRadius`, `Subtitle…`): its name and value.
    Video(&'static str, String),
}

impl Setting {
    /// The setting's name as a tape writes it.
    pub fn name(&self) -> &'static str {
        match self {
            Setting::Shell(_) => "Shell",
            Setting::FontSize(_) => "FontSize",
            Setting::FontFamily(_) => "FontFamily",
            Setting::Width(_) => "Width",
            Setting::Height(_) => "Height",
            Setting::Padding(_) => "Padding",
            Setting::LetterSpacing(_) => "LetterSpacing",
            Setting::LineHeight(_) => "LineHeight",
            Setting::TypingSpeed(_) => "TypingSpeed",
            Setting::Theme(_) => "Theme",
            Setting::WaitTimeout(_) => "WaitTimeout",
            Setting::WaitPattern(_) => "WaitPattern",
            Setting::TapeTimeout(_) => "TapeTimeout",
            Setting::Isolated(_) => "Isolated",
            Setting::ReactionBound(_) => "ReactionBound",
            Setting::Columns(_) => "Columns",
            Setting::Rows(_) => "Rows",
            Setting::Video(name, _) => name,
        }
    }

    /// Whether a `Set` of it after the first action still takes effect (VHS ignores a
    /// late `Set` of anything else, with a warning; so do we).
    pub fn applies_late(&self) -> bool {
        matches!(
            self,
            Setting::TypingSpeed(_) | Setting::WaitTimeout(_) | Setting::WaitPattern(_)
        )
    }
}
