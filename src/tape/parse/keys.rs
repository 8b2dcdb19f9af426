//! Key commands: VHS's key words and every tuipilot key name as a command (`Home`, `F5`,
//! `C-x`), `Ctrl+…`/`Alt+…`/`Shift+…` combinations, and `Key`'s list of names — each
//! checked with the key grammar as it is parsed.

use super::Parser;
use crate::keys::{Key, KeyCode};
use crate::tape::lex::{Kind, Token};

impl Parser<'_> {
    /// `Ctrl+Alt+X`, `Alt+Enter`, `Shift+Tab`: the combination as one key name.
    pub(super) fn modified_key(&mut self, command: &Token) -> Option<String> {
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
    pub(super) fn key_list(&mut self, command: &Token) -> Option<String> {
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
}

/// A word that is a key command: a VHS key keyword or any tuipilot key name that is not
/// a lone character (`Home`, `F5`, `C-x`, `M-Enter`).
pub(super) fn key_command(word: &str) -> Option<String> {
    let key = Key::parse(word).ok()?;
    let is_char = matches!(key.code, KeyCode::Char(_)) && key.mods == crate::keys::Modifiers::default();
    (!is_char).then(|| word.to_string())
}
