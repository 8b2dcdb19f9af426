//! Waits and expectations: `Wait[+Scope][@time] …` and `Expect[+Scope][@time] /re/`, with
//! their scopes — the cursor's line, the screen, a wrapped line, a region of rows and
//! columns (`+Rows 3-27`, `+Cols 40-79`, `+Rect 3-27 40-79`) — and the other waits.

use std::time::Duration;

use super::names::did_you_mean;
use super::{Parser, describe};
use crate::tape::lex::{Kind, Token};
use crate::tape::program::{CommandKind, Scope, WaitKind};

/// The plus words that scope a wait or an expectation to a region.
const REGIONS: &[&str] = &["Rows", "Cols", "Rect"];

impl Parser<'_> {
    /// `Expect` or `ExpectNot` (`word`), after its name.
    pub(super) fn expect(&mut self, token: &Token, word: &str) -> Option<CommandKind> {
        let plus = self.plus_word();
        let timeout = self.at_time(token);
        let scope = match plus {
            None => Scope::Screen,
            Some(w) if w.text == "Screen" => Scope::Screen,
            Some(w) if w.text == "Line" => Scope::Line,
            Some(w) if w.text == "Wrapped" => Scope::Wrapped,
            Some(w) if REGIONS.contains(&w.text.as_str()) => {
                if word == "ExpectNot" {
                    self.error(
                        &w,
                        format!(
                            "`ExpectNot+{}` is not supported: ExpectNot looks at the whole screen; expect the text where it should be instead (`Expect+{}`)",
                            w.text, w.text
                        ),
                    );
                    return None;
                }
                self.region(token, &w)?
            }
            Some(w) => {
                self.error(
                    &w,
                    format!(
                        "`{word}+{}` is not a scope: use `{word}+Line`, `{word}+Screen`, `{word}+Wrapped`, `{word}+Rows`, `{word}+Cols` or `{word}+Rect`",
                        w.text
                    ),
                );
                return None;
            }
        };
        let pattern = self.regex(token, true)?;
        Some(CommandKind::Expect {
            scope,
            pattern,
            negated: word == "ExpectNot",
            timeout,
        })
    }

    /// `Wait[+KIND][@time] …`, after its name.
    pub(super) fn wait(&mut self, token: &Token) -> Option<CommandKind> {
        let scope = self.plus_word();
        let timeout = self.at_time(token);
        if timeout == Some(Duration::ZERO) {
            self.error(token, "`Wait@0` never waits: give a positive timeout");
            return None;
        }
        let kind = match scope {
            None => WaitKind::Pattern(Scope::Line, self.regex(token, false)),
            Some(word) => match word.text.as_str() {
                "Line" => WaitKind::Pattern(Scope::Line, self.regex(token, false)),
                "Screen" => WaitKind::Pattern(Scope::Screen, self.regex(token, false)),
                "Wrapped" => WaitKind::Pattern(Scope::Wrapped, self.regex(token, false)),
                region if REGIONS.contains(&region) => {
                    WaitKind::Pattern(self.region(token, &word)?, self.regex(token, false))
                }
                "Stable" => WaitKind::Stable(self.time(token)?),
                "Exit" => WaitKind::Exit,
                "Output" => WaitKind::Output(self.regex(token, true)?),
                "Command" => WaitKind::Command,
                "Bell" => WaitKind::Bell,
                "Title" => WaitKind::Title(self.regex(token, true)?),
                "Cwd" => WaitKind::Cwd(self.regex(token, true)?),
                "Ready" => WaitKind::Ready,
                "Prompt" => WaitKind::Prompt,
                other => {
                    const WAITS: &[&str] = &[
                        "Line", "Screen", "Wrapped", "Rows", "Cols", "Rect", "Stable", "Exit", "Output",
                        "Command", "Bell", "Title", "Cwd", "Ready", "Prompt",
                    ];
                    let hint = did_you_mean(other, WAITS);
                    let message = format!("`Wait+{other}` is not a wait{hint} ({})", WAITS.join(", "));
                    self.error(&word, message);
                    return None;
                }
            },
        };
        Some(CommandKind::Wait { kind, timeout })
    }

    /// The spans after `+Rows`, `+Cols` or `+Rect` (`3-27`; `Rect` takes rows, then
    /// columns) as a region scope.
    fn region(&mut self, command: &Token, plus: &Token) -> Option<Scope> {
        let rows = match plus.text.as_str() {
            "Rows" | "Rect" => Some(self.span(command, "rows")?),
            _ => None,
        };
        let cols = match plus.text.as_str() {
            "Cols" | "Rect" => Some(self.span(command, "columns")?),
            _ => None,
        };
        Some(Scope::Region { rows, cols })
    }

    /// A span of rows or columns: `3-27` (first and last, inclusive) or one number.
    pub(super) fn span(&mut self, command: &Token, what: &str) -> Option<(u16, u16)> {
        let first = self.peek().clone();
        if first.kind != Kind::Number {
            self.error(
                &first,
                format!(
                    "`{}` needs the {what} here (FIRST-LAST, 0-based and inclusive: `3-27`), found {}",
                    command.text,
                    describe(&first)
                ),
            );
            return None;
        }
        self.next();
        let mut text = first.text.clone();
        let dash = self.peek().clone();
        if dash.kind == Kind::Punct('-') && !dash.spaced {
            self.next();
            let last = self.next();
            text = format!("{text}-{}", last.text);
        }
        match crate::operation::parse_span(what, &text) {
            Ok(span) => Some(span),
            Err(e) => {
                self.error(&first, e.to_string());
                None
            }
        }
    }
}
