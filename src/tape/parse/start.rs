//! `Start`, `With` and `Bytes`: the commands whose words may be any bytes — a program's
//! arguments, its folder, the files a hermetic run starts with, and input that is not
//! UTF-8 — read from strings, bare words and `$"…"` strings with `\xHH` escapes.
//!
//! `Start WORD…` starts the program by its argument vector in place of the tape's shell,
//! as the session it was exported from did: nothing is typed into a shell, so no
//! character of an argument can act as a line editor's key or a shell's syntax.
//! `Start+Dir "DIR" WORD…` starts it in DIR.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use super::{Parser, describe};
use crate::tape::lex::{Kind, Token};
use crate::tape::program::CommandKind;

impl Parser<'_> {
    /// One word that may be any bytes but NUL: a string, a bare word or a number.
    pub(super) fn os_word(&mut self, command: &Token, what: &str) -> Option<OsString> {
        let next = self.peek().clone();
        if !matches!(next.kind, Kind::Str | Kind::Word | Kind::Number) {
            self.error(
                &next,
                format!("`{}` needs {what}, found {}", command.text, describe(&next)),
            );
            self.skip_arguments(command);
            return None;
        }
        self.next();
        let bytes = next
            .bytes
            .clone()
            .unwrap_or_else(|| next.text.clone().into_bytes());
        if bytes.contains(&0) {
            self.error(
                &next,
                format!(
                    "`{}`: {what} cannot hold a NUL byte (\\0): no program can be given one",
                    command.text
                ),
            );
            return None;
        }
        Some(OsString::from_vec(bytes))
    }

    /// `Start[+Dir "DIR"] WORD…`: the words run to the end of the line.
    pub(super) fn start(&mut self, token: &Token) -> Option<CommandKind> {
        let dir = match self.plus_word() {
            None => None,
            Some(word) if word.text == "Dir" => Some(PathBuf::from(self.os_word(token, "a folder")?)),
            Some(word) => {
                self.error(
                    &word,
                    format!(
                        "`Start+{}` is not a form of Start: use `Start WORD…` or `Start+Dir \"DIR\" WORD…`",
                        word.text
                    ),
                );
                self.skip_arguments(token);
                return None;
            }
        };
        let mut command = Vec::new();
        while self.peek().line == token.line
            && matches!(self.peek().kind, Kind::Str | Kind::Word | Kind::Number)
        {
            command.push(self.os_word(token, "the program and its arguments")?);
        }
        if command.is_empty() {
            let next = self.peek().clone();
            self.error(
                &next,
                format!(
                    "`Start` needs the program and its arguments on its line (`Start \"less\" \"notes.txt\"`), found {}",
                    describe(&next)
                ),
            );
            return None;
        }
        Some(CommandKind::Start { command, dir })
    }

    /// `Bytes "…"`: one or more strings whose bytes are sent as they are.
    pub(super) fn bytes(&mut self, token: &Token) -> Option<CommandKind> {
        let parts = self.string_tokens(token, "a string of the bytes to send (`Bytes $\"\\xff\\xfe\"`)")?;
        let bytes = parts
            .into_iter()
            .flat_map(|part| part.bytes.unwrap_or_else(|| part.text.into_bytes()))
            .collect();
        Some(CommandKind::Bytes(bytes))
    }

    /// A string token that holds bytes that are not UTF-8, where a command takes text:
    /// refused, naming the commands that take bytes.
    pub(super) fn refuse_bytes(&mut self, command: &Token, token: &Token) -> bool {
        if token.bytes.is_none() {
            return false;
        }
        self.error(
            token,
            format!(
                "`{}` takes text, and this string holds bytes that are not UTF-8 ({}): only the words of `Start`, `Env` and `With` and the input of `Bytes` may",
                command.text, token.text
            ),
        );
        true
    }
}
