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
use super::program::{Command, CommandKind, Location, Tape};
use keys::key_command;

mod keys;
mod names;
mod set;
mod snapshots;
mod source;
mod start;
#[cfg(test)]
mod tests;
mod waits;

use names::{OUR_COMMANDS, VHS_COMMANDS, did_you_mean};
use source::Sourced;

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

/// The parser's state: tokens of one file, the errors so far, the `Source` stack.
struct Parser<'a> {
    lexer: Lexer<'a>,
    file: Arc<PathBuf>,
    peeked: Option<Token>,
    /// Where the last consumed token ended (for a command's source text).
    consumed_end: (u32, u32),
    errors: Vec<ParseError>,
    stack: Vec<PathBuf>,
    src: &'a str,
}

impl<'a> Parser<'a> {
    fn next(&mut self) -> Token {
        let token = self.peeked.take().unwrap_or_else(|| self.lexer.next_token());
        // Nothing past this token has been read: a peek comes after it.
        self.consumed_end = self.lexer.position();
        token
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
        // One line whatever it quotes: a JSON token may span lines.
        let message = message.into().replace('\r', "\\r").replace('\n', "\\n");
        self.errors.push(ParseError {
            location: self.at(token),
            message,
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
                if self.refuse_bytes(command, &next) {
                    return None;
                }
                Some(next)
            }
            Kind::Regex if what.contains("path") => {
                // `/tmp/x.gif` reads as the regex /tmp/ followed by a word.
                self.error(
                    &next,
                    format!(
                        "`{}` needs {what}: a path starting with / must be quoted, e.g. `{} \"/{}/…\"`",
                        command.text, command.text, next.text
                    ),
                );
                self.skip_arguments(command);
                None
            }
            _ => {
                self.error(
                    &next,
                    format!("`{}` needs {what}, found {}", command.text, describe(&next)),
                );
                self.skip_arguments(command);
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
        self.compiles(&next).then_some(next.text)
    }

    /// Whether the token's text compiles as a regex; records the error when it does not.
    fn compiles(&mut self, token: &Token) -> bool {
        // The one compiler every face uses, with its limits on length and size.
        let Err(e) = crate::error::compile_pattern(&token.text) else {
            return true;
        };
        let crate::Error::InvalidRegex { message, .. } = &e else {
            self.error(token, e.to_string());
            return false;
        };
        // The regex crate's message ends with the reason on its last line.
        let reason = message
            .lines()
            .last()
            .unwrap_or("")
            .trim()
            .trim_start_matches("error: ");
        let shown: String = token.text.chars().take(80).collect();
        let more = if shown.len() < token.text.len() { "…" } else { "" };
        self.error(token, format!("bad regex /{shown}{more}/: {reason}"));
        false
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

    /// The source text from `start` to the end of the last token consumed, as written
    /// (a command spread over lines is joined with single spaces).
    fn source_from(&self, start: &Token) -> String {
        let text = slice_between(self.src, (start.line, start.col), self.consumed_end);
        if !text.contains('\n') {
            return text;
        }
        // Its tokens as written, on one line: comments between them are dropped.
        let mut lexer = Lexer::new(&text);
        let mut out = String::new();
        loop {
            let token = lexer.next_token();
            if token.kind == Kind::End {
                return out;
            }
            if token.spaced && !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&slice_between(&text, (token.line, token.col), lexer.position()));
        }
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
                let name_token = self.peek().clone();
                let name = self.os_word(token, "a variable name")?;
                if name.is_empty() || name.as_encoded_bytes().contains(&b'=') {
                    self.error(
                        &name_token,
                        format!(
                            "`{}` is not a variable name: it is empty or holds `=`",
                            name_token.text
                        ),
                    );
                    self.skip_arguments(token);
                    return None;
                }
                // `Env NAME` alone passes the variable on from the environment the tape
                // runs in: an exported tape names its secrets without holding them.
                let next = self.peek().clone();
                if next.line != token.line || next.kind == Kind::End {
                    return match std::env::var_os(&name) {
                        Some(value) => one(CommandKind::Env(name, value)),
                        None => {
                            self.error(
                                &name_token,
                                format!(
                                    "`Env {0}` passes {0} on from the environment the tape runs in, and it is not set there: set it, or give the value: Env {0} \"value\"",
                                    name_token.text
                                ),
                            );
                            None
                        }
                    };
                }
                let value = self.os_word(token, "a value")?;
                one(CommandKind::Env(name, value))
            }
            "Start" => one(self.start(token)?),
            "With" => one(CommandKind::With(PathBuf::from(
                self.os_word(token, "a file or folder to copy into the fresh HOME")?,
            ))),
            "Bytes" => one(self.bytes(token)?),
            "Type" | "Key" if self.peek().kind == Kind::Punct('+') && !self.peek().spaced => {
                let plus = self.plus_word()?;
                if plus.text != "PerKey" {
                    self.error(
                        &plus,
                        format!(
                            "`{word}+{}` is not a form of {word}: use `{word}` or `{word}+PerKey` (each key once the program has read the last)",
                            plus.text
                        ),
                    );
                    return None;
                }
                match word {
                    "Type" => one(CommandKind::TypePerKey(self.strings(token)?)),
                    _ => one(CommandKind::KeysPerKey(self.key_list(token)?)),
                }
            }
            "Type" => {
                let speed = self.at_time(token);
                let text = self.strings(token)?;
                one(CommandKind::Type { text, speed })
            }
            "Copy" => one(CommandKind::Copy(self.strings(token)?)),
            "Subtitle" => one(CommandKind::Subtitle(self.strings(token)?)),
            "Paste" => one(CommandKind::Paste),
            "Mouse" => {
                let action = self.argument(token, "a mouse action (`Mouse \"click 12,3\"`)")?;
                if let Err(e) = crate::keys::mouse::MouseAction::parse(&action.text) {
                    self.error(&action, e.to_string());
                    return None;
                }
                one(CommandKind::Mouse(action.text))
            }
            "Focus" => {
                let focus = self.argument(token, "`in` or `out`")?;
                match focus.text.parse() {
                    Ok(focus) => one(CommandKind::Focus(focus)),
                    Err(e) => {
                        self.error(&focus, e.to_string());
                        None
                    }
                }
            }
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
            "Expect" | "ExpectNot" => self.expect(token, word).map(|k| vec![Sourced::Here(k)]),
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
            "Snapshot" => one(self.snapshot(token)?),
            "Mask" => one(self.mask(token)?),
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
                self.skip_arguments(token);
                None
            }
        }
    }

    /// After an unknown command or setting: its arguments are not commands of their own,
    /// so the rest of its line is skipped (not reported again) up to the next known command.
    fn skip_arguments(&mut self, token: &Token) {
        loop {
            let next = self.peek();
            let known = next.kind == Kind::Word
                && (VHS_COMMANDS.contains(&next.text.as_str())
                    || OUR_COMMANDS.contains(&next.text.as_str())
                    || key_command(&next.text).is_some());
            if next.line != token.line || next.kind == Kind::End || known {
                return;
            }
            self.next();
        }
    }

    /// One or more strings, joined by spaces (VHS's `Type "a" "b"`).
    fn strings(&mut self, command: &Token) -> Option<String> {
        let mut parts = Vec::new();
        for part in self.string_tokens(command, "a quoted string")? {
            if self.refuse_bytes(command, &part) {
                return None;
            }
            parts.push(part.text);
        }
        Some(parts.join(" "))
    }

    /// The string tokens that follow a command, at least one (`what` says what it needs
    /// when there is none).
    fn string_tokens(&mut self, command: &Token, what: &str) -> Option<Vec<Token>> {
        let mut parts = Vec::new();
        while self.peek().kind == Kind::Str {
            parts.push(self.next());
        }
        if parts.is_empty() {
            let next = self.peek().clone();
            self.error(
                &next,
                format!("`{}` needs {what}, found {}", command.text, describe(&next)),
            );
            return None;
        }
        Some(parts)
    }
}

/// A token described for an error message.
fn describe(token: &Token) -> String {
    match token.kind {
        Kind::End => "the end of the tape".to_string(),
        Kind::Str => format!("the string {:?}", token.text),
        Kind::BadStr => format!("a $-string that cannot be read ({})", token.text),
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
        consumed_end: (1, 1),
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
        let src = read_tape(path).map_err(|message| {
            ParseErrors(vec![ParseError {
                location: Location {
                    file: Arc::new(path.to_path_buf()),
                    line: 1,
                    col: 1,
                },
                message,
            }])
        })?;
        Tape::parse_str(&src, path)
    }
}

/// The most a tape (or a tape it sources) may hold: far beyond any script, and a
/// `/dev/zero` given by mistake ends in an error instead of eating the memory.
const MAX_TAPE_BYTES: u64 = 8 << 20;

/// A tape's text, or why it cannot be read (one line).
fn read_tape(path: &Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read the tape: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_TAPE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read the tape: {e}"))?;
    if bytes.len() as u64 > MAX_TAPE_BYTES {
        return Err(format!(
            "the tape is over {} MiB; is it a tape? (split it with Source)",
            MAX_TAPE_BYTES >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the tape is not UTF-8 text (at byte {})",
            e.utf8_error().valid_up_to()
        )
    })
}
