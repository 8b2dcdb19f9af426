//! The tape parser: tokens to [`Command`]s, every error with its place and a way out.
//!
//! It accepts every command and setting VHS does, with VHS's syntax (a command's
//! arguments follow it on the same or later lines; several commands may share a line),
//! and the commands that are ours (`Key`, `Expect…`, `Snapshot`, `Mask`, `Resize`,
//! `Wait+Stable/Exit/Output`, and any tuipilot key name as a command). Like VHS it reads
//! the whole tape and reports every error, not just the first; unlike VHS each error names
//! `file:line:col`, the text it choked on, and the closest valid command or setting.
//!
//! Everything that can be checked without running is checked here: regexes compile, key
//! names exist, sizes are in range, `Source`d files exist and parse (a cycle is an
//! error). So a tape that parses fails at run time only for what the program does.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::lex::{Kind, Lexer, Token};
use super::program::{Command, CommandKind, Location, Scope, Setting, Tape, ThemeSpec, WaitKind};
use crate::keys::{Key, KeyCode};

/// One thing wrong in a tape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Where.
    pub location: Location,
    /// What was wrong and what to do, in one line.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.location, self.message)
    }
}

/// Everything wrong in a tape (never empty).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseErrors(pub Vec<ParseError>);

impl fmt::Display for ParseErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{e}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseErrors {}

/// The commands VHS has, as a tape spells them.
const VHS_COMMANDS: &[&str] = &[
    "Output",
    "Require",
    "Set",
    "Env",
    "Type",
    "Sleep",
    "Wait",
    "Hide",
    "Show",
    "Screenshot",
    "Copy",
    "Paste",
    "Source",
    "Subtitle",
    "Ctrl",
    "Alt",
    "Shift",
    "ScrollUp",
    "ScrollDown",
    "Backspace",
    "Delete",
    "Insert",
    "Enter",
    "Space",
    "Tab",
    "Escape",
    "Up",
    "Down",
    "Left",
    "Right",
    "PageUp",
    "PageDown",
    "Home",
    "End",
];

/// The commands that are ours.
const OUR_COMMANDS: &[&str] = &[
    "Key",
    "Expect",
    "ExpectNot",
    "ExpectExit",
    "Snapshot",
    "Mask",
    "Resize",
];

/// Every setting VHS has.
pub(super) const SETTINGS: &[&str] = &[
    "Shell",
    "FontSize",
    "FontFamily",
    "Width",
    "Height",
    "Padding",
    "LetterSpacing",
    "LineHeight",
    "TypingSpeed",
    "Theme",
    "WaitTimeout",
    "WaitPattern",
    "Framerate",
    "PlaybackSpeed",
    "LoopOffset",
    "CursorBlink",
    "Margin",
    "MarginFill",
    "WindowBar",
    "WindowBarSize",
    "BorderRadius",
    "SubtitleFontSize",
    "SubtitleFontFamily",
    "SubtitleColor",
    "SubtitleBackground",
    "SubtitlePosition",
    "SubtitlePadding",
    "SubtitleBorderRadius",
];

/// The shells `Set Shell` knows (VHS's list).
pub(super) const SHELLS: &[&str] = &[
    "bash",
    "zsh",
    "fish",
    "nu",
    "osh",
    "xonsh",
    "pwsh",
    "powershell",
    "cmd",
];

const WINDOW_BARS: &[&str] = &["Colorful", "ColorfulRight", "Rings", "RingsRight"];

/// How deep `Source` may nest.
const MAX_SOURCE_DEPTH: usize = 16;

/// `` `word`: did you mean `Closest`? `` when something is close.
pub(super) fn did_you_mean(word: &str, choices: &[&str]) -> String {
    if let Some(exact) = choices.iter().find(|c| c.eq_ignore_ascii_case(word)) {
        return format!(": did you mean `{exact}`? (names are case-sensitive)");
    }
    let lower = word.to_ascii_lowercase();
    choices
        .iter()
        .map(|c| {
            (
                crate::keys::suggest::edit_distance(&lower, &c.to_ascii_lowercase()),
                c,
            )
        })
        .filter(|(d, c)| *d <= 2.max(c.len() / 4))
        .min_by_key(|(d, _)| *d)
        .map_or_else(String::new, |(_, c)| format!(": did you mean `{c}`?"))
}

/// The parser's state: tokens of one file, the errors so far, the `Source` stack.
struct Parser<'a> {
    lexer: Lexer<'a>,
    file: Arc<PathBuf>,
    peeked: Option<Token>,
    /// Where the last consumed token ended (for a command's source text).
    errors: Vec<ParseError>,
    stack: Vec<PathBuf>,
    src: &'a str,
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Token {
        self.peeked.take().unwrap_or_else(|| self.lexer.next_token())
    }

    fn peek(&mut self) -> &Token {
        if self.peeked.is_none() {
            self.peeked = Some(self.lexer.next_token());
        }
        self.peeked.as_ref().expect("just filled")
    }

    fn at(&self, token: &Token) -> Location {
        Location {
            file: self.file.clone(),
            line: token.line,
            col: token.col,
        }
    }

    fn error(&mut self, token: &Token, message: impl Into<String>) {
        self.errors.push(ParseError {
            location: self.at(token),
            message: message.into(),
        });
    }

    /// The next token if it is `@` right after the command word: a speed or timeout.
    fn at_time(&mut self, command: &Token) -> Option<Duration> {
        let next = self.peek();
        if next.kind == Kind::Punct('@') && !next.spaced {
            self.next();
            return self.time(command);
        }
        None
    }

    /// A time: a number with an optional unit (`ms`, `s`, `m`; none means seconds).
    fn time(&mut self, command: &Token) -> Option<Duration> {
        let number = self.peek().clone();
        if number.kind != Kind::Number {
            self.error(
                &number,
                format!(
                    "`{}` needs a time such as 500ms, 2s or 1m here, found {}",
                    command.text,
                    describe(&number)
                ),
            );
            return None;
        }
        self.next();
        let Ok(value) = number.text.parse::<f64>() else {
            self.error(&number, format!("`{}` is not a number", number.text));
            return None;
        };
        let unit = self.peek().clone();
        let seconds = match (unit.kind == Kind::Word, unit.text.as_str()) {
            (true, "ms") => value / 1000.0,
            (true, "s") => value,
            (true, "m") => value * 60.0,
            _ => return Some(Duration::from_secs_f64(value.min(1e9))),
        };
        self.next();
        Some(Duration::from_secs_f64(seconds.min(1e9)))
    }

    /// An optional repeat count.
    fn count(&mut self) -> u32 {
        let next = self.peek().clone();
        if next.kind != Kind::Number {
            return 1;
        }
        self.next();
        match next.text.parse::<u32>() {
            Ok(n) if n <= 10_000 => n,
            _ => {
                self.error(
                    &next,
                    format!("repeat count `{}` must be a whole number up to 10000", next.text),
                );
                1
            }
        }
    }

    /// One argument: a string, a word or a number (what VHS takes for paths and values).
    fn argument(&mut self, command: &Token, what: &str) -> Option<Token> {
        let next = self.peek().clone();
        match next.kind {
            Kind::Str | Kind::Word | Kind::Number => {
                self.next();
                Some(next)
            }
            _ => {
                self.error(
                    &next,
                    format!("`{}` needs {what}, found {}", command.text, describe(&next)),
                );
                None
            }
        }
    }

    /// A `/regex/` that compiles.
    fn regex(&mut self, command: &Token, required: bool) -> Option<String> {
        let next = self.peek().clone();
        if next.kind != Kind::Regex {
            if required {
                self.error(
                    &next,
                    format!(
                        "`{}` needs a /regex/ here, found {}",
                        command.text,
                        describe(&next)
                    ),
                );
            }
            return None;
        }
        self.next();
        match regex::Regex::new(&next.text) {
            Ok(_) => Some(next.text),
            Err(e) => {
                let first = e.to_string();
                let reason = first
                    .lines()
                    .last()
                    .unwrap_or("")
                    .trim()
                    .trim_start_matches("error: ")
                    .to_string();
                self.error(&next, format!("bad regex /{}/: {reason}", next.text));
                None
            }
        }
    }

    /// `+Word` right after a command word (`Wait+Screen`).
    fn plus_word(&mut self) -> Option<Token> {
        let next = self.peek();
        if next.kind == Kind::Punct('+') && !next.spaced {
            self.next();
            let word = self.next();
            return Some(word);
        }
        None
    }

    /// The source text from `start` to the current position.
    fn source_from(&self, start: &Token) -> String {
        let (line, col) = match &self.peeked {
            Some(t) => (t.line, t.col),
            None => self.lexer.position(),
        };
        let text = slice_between(self.src, (start.line, start.col), (line, col));
        let text = text.split('#').next().unwrap_or("");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn parse_all(&mut self) -> Vec<Command> {
        let mut commands = Vec::new();
        loop {
            let token = self.next();
            if token.kind == Kind::End {
                return commands;
            }
            let location = self.at(&token);
            if let Some(kinds) = self.command(&token) {
                let source = self.source_from(&token);
                for kind in kinds {
                    match kind {
                        Sourced::Here(kind) => commands.push(Command {
                            location: location.clone(),
                            source: source.clone(),
                            kind,
                        }),
                        Sourced::From(mut inner) => commands.append(&mut inner),
                    }
                }
            }
        }
    }

    /// Parses the command starting with `token`; `None` when it was wrong (and the error
    /// recorded).
    fn command(&mut self, token: &Token) -> Option<Vec<Sourced>> {
        if token.kind != Kind::Word {
            let message = match token.kind {
                Kind::Str => format!(
                    "a string {:?} where a command should be: did you mean `Type {:?}`?",
                    token.text, token.text
                ),
                _ => format!("{} where a command should be", describe(token)),
            };
            self.error(token, message);
            return None;
        }
        let one = |kind| Some(vec![Sourced::Here(kind)]);
        let word = token.text.as_str();
        match word {
            "Output" => {
                let path = self.argument(token, "a file path")?;
                let text = path.text.clone();
                if Path::new(&text).extension().is_none() && !text.ends_with('/') {
                    self.error(
                        &path,
                        format!("`Output {text}` has no extension: name a file (.txt, .ascii, .png, .gif …) or a folder with a trailing slash"),
                    );
                    return None;
                }
                one(CommandKind::Output(PathBuf::from(text)))
            }
            "Require" => {
                let program = self.argument(token, "a program name")?;
                one(CommandKind::Require(program.text))
            }
            "Set" => self.set(token).map(|s| vec![Sourced::Here(CommandKind::Set(s))]),
            "Env" => {
                let name = self.argument(token, "a variable name")?;
                let value = self.argument(token, "a value")?;
                if name.text.is_empty() || name.text.contains('=') {
                    self.error(&name, format!("`{}` is not a variable name", name.text));
                    return None;
                }
                one(CommandKind::Env(name.text, value.text))
            }
            "Type" => {
                let speed = self.at_time(token);
                let text = self.strings(token)?;
                one(CommandKind::Type { text, speed })
            }
            "Copy" => one(CommandKind::Copy(self.strings(token)?)),
            "Subtitle" => one(CommandKind::Subtitle(self.strings(token)?)),
            "Paste" => one(CommandKind::Paste),
            "Hide" => one(CommandKind::Hide),
            "Show" => one(CommandKind::Show),
            "Sleep" => one(CommandKind::Sleep(self.time(token)?)),
            "Screenshot" => {
                let path = self.argument(token, "a .png path")?;
                one(CommandKind::Screenshot(PathBuf::from(path.text)))
            }
            "ScrollUp" | "ScrollDown" => {
                let speed = self.at_time(token);
                let count = self.count() as i32;
                let rows = if word == "ScrollUp" { count } else { -count };
                one(CommandKind::Scroll { rows, speed })
            }
            "Ctrl" | "Alt" | "Shift" => {
                let keys = self.modified_key(token)?;
                one(CommandKind::Keys {
                    keys,
                    speed: None,
                    count: 1,
                })
            }
            "Wait" => self.wait(token).map(|k| vec![Sourced::Here(k)]),
            "Source" => self.source(token),
            "Key" => {
                let speed = self.at_time(token);
                let keys = self.key_list(token)?;
                one(CommandKind::Keys {
                    keys,
                    speed,
                    count: 1,
                })
            }
            "Expect" | "ExpectNot" => {
                let scope = match self.plus_word() {
                    None => Scope::Screen,
                    Some(w) if w.text == "Screen" => Scope::Screen,
                    Some(w) if w.text == "Line" => Scope::Line,
                    Some(w) => {
                        self.error(
                            &w,
                            format!(
                                "`{word}+{}` is not a scope: use `{word}+Line` or `{word}+Screen`",
                                w.text
                            ),
                        );
                        return None;
                    }
                };
                let timeout = self.at_time(token);
                let pattern = self.regex(token, true)?;
                one(CommandKind::Expect {
                    scope,
                    pattern,
                    negated: word == "ExpectNot",
                    timeout,
                })
            }
            "ExpectExit" => {
                let timeout = self.at_time(token);
                let code = self.peek().clone();
                let parsed = (code.kind == Kind::Number)
                    .then(|| code.text.parse::<i32>().ok())
                    .flatten()
                    .filter(|c| (0..=255).contains(c));
                match parsed {
                    Some(c) => {
                        self.next();
                        one(CommandKind::ExpectExit { code: c, timeout })
                    }
                    None => {
                        self.error(
                            &code,
                            format!("`ExpectExit` needs an exit code 0-255, found {}", describe(&code)),
                        );
                        None
                    }
                }
            }
            "Snapshot" => {
                let name = self.argument(token, "a snapshot name")?;
                if name.text.is_empty()
                    || Path::new(&name.text).is_absolute()
                    || name.text.split('/').any(|p| p == "..")
                {
                    self.error(
                        &name,
                        format!(
                            "snapshot name `{}` must be a relative path inside the tape's folder",
                            name.text
                        ),
                    );
                    return None;
                }
                one(CommandKind::Snapshot(name.text))
            }
            "Mask" => one(CommandKind::Mask(self.regex(token, true)?)),
            "Resize" => {
                let cols = self.argument(token, "columns and rows (`Resize 100 30`)")?;
                let rows = self.argument(token, "columns and rows (`Resize 100 30`)")?;
                let (Ok(c), Ok(r)) = (cols.text.parse::<u16>(), rows.text.parse::<u16>()) else {
                    self.error(
                        &cols,
                        format!("`Resize {} {}` needs two whole numbers", cols.text, rows.text),
                    );
                    return None;
                };
                if let Err(e) = crate::terminal::check_size(c, r) {
                    self.error(&cols, e.to_string());
                    return None;
                }
                one(CommandKind::Resize { cols: c, rows: r })
            }
            _ => {
                if let Some(keys) = key_command(word) {
                    let speed = self.at_time(token);
                    let count = self.count();
                    return one(CommandKind::Keys { keys, speed, count });
                }
                let mut all: Vec<&str> = VHS_COMMANDS.to_vec();
                all.extend_from_slice(OUR_COMMANDS);
                let hint = did_you_mean(word, &all);
                self.error(token, format!("unknown command `{word}`{hint}"));
                // Its arguments are not commands of their own: skip them, not report them.
                while self.peek().line == token.line && !matches!(self.peek().kind, Kind::Word | Kind::End) {
                    self.next();
                }
                None
            }
        }
    }

    /// One or more strings, joined by spaces (VHS's `Type "a" "b"`).
    fn strings(&mut self, command: &Token) -> Option<String> {
        let mut parts = Vec::new();
        while self.peek().kind == Kind::Str {
            parts.push(self.next().text);
        }
        if parts.is_empty() {
            let next = self.peek().clone();
            self.error(
                &next,
                format!(
                    "`{}` needs a quoted string, found {}",
                    command.text,
                    describe(&next)
                ),
            );
            return None;
        }
        Some(parts.join(" "))
    }

    /// `Ctrl+Alt+X`, `Alt+Enter`, `Shift+Tab`: the combination as one key name.
    fn modified_key(&mut self, command: &Token) -> Option<String> {
        let mut spec = command.text.clone();
        let mut parts = 0;
        while self.peek().kind == Kind::Punct('+') && !self.peek().spaced {
            self.next();
            let part = self.next();
            if part.kind == Kind::End || part.spaced {
                self.error(&part, format!("`{spec}+` needs a key after the `+`"));
                return None;
            }
            spec.push('+');
            spec.push_str(&part.text);
            parts += 1;
        }
        if parts == 0 {
            self.error(
                command,
                format!("`{}` needs a key: `{}+C`", command.text, command.text),
            );
            return None;
        }
        match Key::parse(&spec) {
            Ok(_) => Some(spec),
            Err(e) => {
                self.error(command, e.to_string());
                None
            }
        }
    }

    /// `Key`'s key names: the rest of the line, split at spaces.
    fn key_list(&mut self, command: &Token) -> Option<String> {
        let mut specs: Vec<String> = Vec::new();
        loop {
            let next = self.peek().clone();
            if next.kind == Kind::End || next.line != command.line {
                break;
            }
            self.next();
            match specs.last_mut() {
                Some(last) if !next.spaced => last.push_str(&next.text),
                _ => specs.push(next.text),
            }
        }
        if specs.is_empty() {
            self.error(
                command,
                "`Key` needs key names on the same line: `Key C-x F5 M-Up`",
            );
            return None;
        }
        for spec in &specs {
            if let Err(e) = Key::parse(spec) {
                self.error(command, e.to_string());
                return None;
            }
        }
        Some(specs.join(" "))
    }

    fn wait(&mut self, token: &Token) -> Option<CommandKind> {
        let scope = self.plus_word();
        let timeout = self.at_time(token);
        if timeout == Some(Duration::ZERO) {
            self.error(token, "`Wait@0` never waits: give a positive timeout");
            return None;
        }
        let kind = match scope.as_ref().map(|w| w.text.as_str()) {
            None | Some("Line") => WaitKind::Pattern(Scope::Line, self.regex(token, false)),
            Some("Screen") => WaitKind::Pattern(Scope::Screen, self.regex(token, false)),
            Some("Stable") => WaitKind::Stable(self.time(token)?),
            Some("Exit") => WaitKind::Exit,
            Some("Output") => WaitKind::Output(self.regex(token, true)?),
            Some(other) => {
                let hint = did_you_mean(other, &["Line", "Screen", "Stable", "Exit", "Output"]);
                let w = scope.clone().expect("matched Some");
                self.error(
                    &w,
                    format!("`Wait+{other}` is not a wait{hint} (Line, Screen, Stable, Exit or Output)"),
                );
                return None;
            }
        };
        Some(CommandKind::Wait { kind, timeout })
    }

    fn set(&mut self, token: &Token) -> Option<Setting> {
        let name = self.next();
        let Some(&known) = SETTINGS.iter().find(|s| **s == name.text) else {
            let hint = did_you_mean(&name.text, SETTINGS);
            self.error(&name, format!("unknown setting `{}`{hint}", name.text));
            return None;
        };
        let value = self.peek().clone();
        let bad = |p: &mut Self, what: &str| {
            p.error(
                &value,
                format!("`Set {known}` needs {what}, found {}", describe(&value)),
            );
            None
        };
        let number = |p: &mut Self| -> Option<f64> {
            if value.kind != Kind::Number {
                return None;
            }
            p.next();
            value.text.parse::<f64>().ok()
        };
        Some(match known {
            "Shell" => {
                let arg = self.argument(token, "a shell name")?;
                if !SHELLS.contains(&arg.text.as_str()) {
                    let hint = did_you_mean(&arg.text, SHELLS);
                    self.error(
                        &arg,
                        format!(
                            "unknown shell `{}`{hint} (one of {})",
                            arg.text,
                            SHELLS.join(", ")
                        ),
                    );
                    return None;
                }
                Setting::Shell(arg.text)
            }
            "FontSize" => match number(self) {
                Some(n) if crate::render::FONT_SIZES.contains(&(n as f32)) => Setting::FontSize(n as f32),
                _ => return bad(self, "a font size from 4 to 128"),
            },
            "Width" | "Height" | "Padding" => match number(self) {
                Some(n) if (0.0..=20_000.0).contains(&n) && n.fract() == 0.0 => {
                    let n = n as u32;
                    match known {
                        "Width" => Setting::Width(n),
                        "Height" => Setting::Height(n),
                        _ => Setting::Padding(n),
                    }
                }
                _ => return bad(self, "a whole number of pixels"),
            },
            "LetterSpacing" => match number(self) {
                Some(n) if (0.0..=100.0).contains(&n) => Setting::LetterSpacing(n as f32),
                _ => return bad(self, "pixels between letters, 0 to 100"),
            },
            "LineHeight" => match number(self) {
                Some(n) if (0.5..=4.0).contains(&n) => Setting::LineHeight(n as f32),
                _ => return bad(self, "a line height from 0.5 to 4"),
            },
            "TypingSpeed" => Setting::TypingSpeed(self.time(&name)?),
            "WaitTimeout" => match self.time(&name)? {
                Duration::ZERO => return bad(self, "a positive time"),
                t => Setting::WaitTimeout(t),
            },
            "WaitPattern" => {
                let token = match value.kind {
                    Kind::Regex | Kind::Str | Kind::Word => self.next(),
                    _ => return bad(self, "a /regex/"),
                };
                if let Err(e) = regex::Regex::new(&token.text) {
                    let reason = e
                        .to_string()
                        .lines()
                        .last()
                        .unwrap_or("")
                        .trim()
                        .trim_start_matches("error: ")
                        .to_string();
                    self.error(&token, format!("bad regex /{}/: {reason}", token.text));
                    return None;
                }
                Setting::WaitPattern(token.text)
            }
            "Theme" => match value.kind {
                Kind::Json => {
                    self.next();
                    if let Err(e) = super::settings::theme_from_json(&value.text) {
                        self.error(&value, e);
                        return None;
                    }
                    Setting::Theme(ThemeSpec::Json(value.text))
                }
                Kind::Str | Kind::Word => {
                    self.next();
                    Setting::Theme(ThemeSpec::Name(value.text))
                }
                _ => return bad(self, "a theme name or {JSON}"),
            },
            "FontFamily" => Setting::FontFamily(self.argument(&name, "a font family")?.text),
            "LoopOffset" => {
                let n = number(self);
                if n.is_none() {
                    return bad(self, "a number of frames or a percentage");
                }
                let mut text = value.text.clone();
                if self.peek().kind == Kind::Punct('%') {
                    self.next();
                    text.push('%');
                }
                Setting::Video("LoopOffset", text)
            }
            "CursorBlink" => match value.text.as_str() {
                "true" | "false" => {
                    self.next();
                    Setting::Video("CursorBlink", value.text)
                }
                _ => return bad(self, "true or false"),
            },
            "WindowBar" => {
                let arg = self.argument(&name, "a window bar style")?;
                if !WINDOW_BARS.contains(&arg.text.as_str()) {
                    self.error(
                        &arg,
                        format!(
                            "`{}` is not a window bar style (one of {})",
                            arg.text,
                            WINDOW_BARS.join(", ")
                        ),
                    );
                    return None;
                }
                Setting::Video("WindowBar", arg.text)
            }
            "Framerate" | "PlaybackSpeed" | "Margin" | "WindowBarSize" | "BorderRadius" => {
                match number(self) {
                    Some(n) if n >= 0.0 && (known == "PlaybackSpeed" || n.fract() == 0.0) => {
                        Setting::Video(known, value.text)
                    }
                    _ => return bad(self, "a non-negative number"),
                }
            }
            _ => Setting::Video(known, self.argument(&name, "a value")?.text),
        })
    }

    /// `Source FILE`: the other tape's commands, in place (its `Output`s dropped, as VHS
    /// does).
    fn source(&mut self, token: &Token) -> Option<Vec<Sourced>> {
        let arg = self.argument(token, "a tape path")?;
        let tried = source_candidates(&arg.text, &self.file);
        let Some(path) = tried.iter().find(|p| p.is_file()).cloned() else {
            let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
            self.error(
                &arg,
                format!(
                    "`Source {}`: no such tape (looked for {})",
                    arg.text,
                    list.join(" and ")
                ),
            );
            return None;
        };
        let canonical = path.canonicalize().unwrap_or_else(|_| path.clone());
        if self.stack.contains(&canonical) {
            self.error(
                &arg,
                format!(
                    "`Source {}` includes itself (a cycle of Source commands)",
                    arg.text
                ),
            );
            return None;
        }
        if self.stack.len() >= MAX_SOURCE_DEPTH {
            self.error(
                &arg,
                format!("`Source {}` nests deeper than {MAX_SOURCE_DEPTH} tapes", arg.text),
            );
            return None;
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) => {
                self.error(
                    &arg,
                    format!("`Source {}`: cannot read {}: {e}", arg.text, path.display()),
                );
                return None;
            }
        };
        let mut stack = self.stack.clone();
        stack.push(canonical);
        match parse_with_stack(&text, &path, stack) {
            Ok(inner) => Some(vec![Sourced::From(
                inner
                    .into_iter()
                    .filter(|c| !matches!(c.kind, CommandKind::Output(_)))
                    .collect(),
            )]),
            Err(mut errors) => {
                self.errors.append(&mut errors);
                None
            }
        }
    }
}

/// A command parsed in place, or the commands of a `Source`d tape.
enum Sourced {
    Here(CommandKind),
    From(Vec<Command>),
}

/// Where `Source PATH` may be: from the current directory (VHS's way), then from the
/// including tape's folder.
fn source_candidates(path: &str, including: &Path) -> Vec<PathBuf> {
    let path = PathBuf::from(path);
    if path.is_absolute() {
        return vec![path];
    }
    let mut out = vec![path.clone()];
    if let Some(dir) = including.parent().filter(|d| !d.as_os_str().is_empty()) {
        out.push(dir.join(&path));
    }
    out
}

/// A word that is a key command: a VHS key keyword or any tuipilot key name that is not
/// a lone character (`Home`, `F5`, `C-x`, `M-Enter`).
fn key_command(word: &str) -> Option<String> {
    let key = Key::parse(word).ok()?;
    let is_char = matches!(key.code, KeyCode::Char(_)) && key.mods == crate::keys::Modifiers::default();
    (!is_char).then(|| word.to_string())
}

/// A token described for an error message.
fn describe(token: &Token) -> String {
    match token.kind {
        Kind::End => "the end of the tape".to_string(),
        Kind::Str => format!("the string {:?}", token.text),
        Kind::Regex => format!("the regex /{}/", token.text),
        Kind::Json => "a JSON object".to_string(),
        _ => format!("`{}`", token.text),
    }
}

/// The source text between two (line, col) positions.
fn slice_between(src: &str, from: (u32, u32), to: (u32, u32)) -> String {
    let mut out = String::new();
    let (mut line, mut col) = (1u32, 1u32);
    for c in src.strip_prefix('\u{feff}').unwrap_or(src).chars() {
        if (line, col) >= to {
            break;
        }
        if (line, col) >= from {
            out.push(c);
        }
        if c == '\n' {
            line += 1;
            col = 1;
        } else {
            col += 1;
        }
    }
    out
}

fn parse_with_stack(src: &str, path: &Path, stack: Vec<PathBuf>) -> Result<Vec<Command>, Vec<ParseError>> {
    let mut parser = Parser {
        lexer: Lexer::new(src),
        file: Arc::new(path.to_path_buf()),
        peeked: None,
        errors: Vec::new(),
        stack,
        src,
    };
    let commands = parser.parse_all();
    if parser.errors.is_empty() {
        Ok(commands)
    } else {
        Err(parser.errors)
    }
}

impl Tape {
    /// Parses tape source; `path` names it in errors and is where `Source` and snapshots
    /// are looked for.
    pub fn parse_str(src: &str, path: impl AsRef<Path>) -> Result<Tape, ParseErrors> {
        let path = path.as_ref();
        let canonical = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        let commands = parse_with_stack(src, path, vec![canonical]).map_err(ParseErrors)?;
        Ok(Tape {
            path: path.to_path_buf(),
            commands,
        })
    }

    /// Reads and parses a tape file.
    pub fn parse_file(path: impl AsRef<Path>) -> Result<Tape, ParseErrors> {
        let path = path.as_ref();
        let src = std::fs::read_to_string(path).map_err(|e| {
            ParseErrors(vec![ParseError {
                location: Location {
                    file: Arc::new(path.to_path_buf()),
                    line: 1,
                    col: 1,
                },
                message: format!("cannot read the tape: {e}"),
            }])
        })?;
        Tape::parse_str(&src, path)
    }
}
