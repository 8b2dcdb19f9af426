//! What a tape compares and hides: `Snapshot[+Styled] NAME` (the screen's text, or its text
//! and styles, against `NAME.snap` beside the tape; an image with `NAME.png`), and `Mask
//! /re/` and `Mask+Rows 3-27` (matches, or whole rows, hidden from then on).

use std::path::Path;

use super::Parser;
use crate::tape::lex::Token;
use crate::tape::program::CommandKind;

impl Parser<'_> {
    /// `Snapshot[+Styled] NAME`, after its name.
    pub(super) fn snapshot(&mut self, token: &Token) -> Option<CommandKind> {
        let styled = match self.plus_word() {
            None => false,
            Some(w) if w.text == "Styled" => true,
            Some(w) => {
                self.error(
                    &w,
                    format!(
                        "`Snapshot+{}` is not a kind of snapshot: use `Snapshot NAME` (the text) or `Snapshot+Styled NAME` (the text and its styles)",
                        w.text
                    ),
                );
                return None;
            }
        };
        let name = self.argument(token, "a snapshot name")?;
        if styled && Path::new(&name.text).extension().is_some() {
            self.error(
                &name,
                format!(
                    "`Snapshot+Styled` compares text with NAME.snap: give the name without an extension, not `{}`",
                    name.text
                ),
            );
            return None;
        }
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
        Some(match styled {
            true => CommandKind::StyledSnapshot(name.text),
            false => CommandKind::Snapshot(name.text),
        })
    }

    /// `Mask /re/` or `Mask+Rows FIRST-LAST`, after its name.
    pub(super) fn mask(&mut self, token: &Token) -> Option<CommandKind> {
        match self.plus_word() {
            None => Some(CommandKind::Mask(self.regex(token, true)?)),
            Some(w) if w.text == "Rows" => Some(CommandKind::MaskRows(self.span(token, "rows")?)),
            Some(w) => {
                self.error(
                    &w,
                    format!(
                        "`Mask+{}` is not a mask: use `Mask /REGEX/` (its matches) or `Mask+Rows 3-27` (whole rows)",
                        w.text
                    ),
                );
                None
            }
        }
    }
}
