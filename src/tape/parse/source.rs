//! `Source FILE`: another tape's commands in place, looked for from the current
//! directory (VHS's way) and then beside the including tape; nesting is allowed, a cycle
//! is an error.

use std::path::{Path, PathBuf};

use super::names::MAX_SOURCE_DEPTH;
use super::{Parser, parse_with_stack, read_tape};
use crate::tape::lex::Token;
use crate::tape::program::{Command, CommandKind};

impl Parser<'_> {
    /// `Source FILE`: the other tape's commands, in place (its `Output`s dropped, as VHS
    /// does).
    pub(super) fn source(&mut self, token: &Token) -> Option<Vec<Sourced>> {
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
        let text = match read_tape(&path) {
            Ok(t) => t,
            Err(why) => {
                self.error(&arg, format!("`Source {}` ({}): {why}", arg.text, path.display()));
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
pub(super) enum Sourced {
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
