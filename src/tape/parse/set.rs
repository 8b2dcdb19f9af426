//! `Set NAME VALUE`: each of VHS's settings with the value it takes, checked as it is
//! parsed (ranges, regexes, theme JSON, shell names).

use std::time::Duration;

use super::names::{SETTINGS, SHELLS, WINDOW_BARS, did_you_mean};
use super::{Parser, describe};
use crate::tape::lex::{Kind, Token};
use crate::tape::program::{Setting, ThemeSpec};

impl Parser<'_> {
    pub(super) fn set(&mut self, token: &Token) -> Option<Setting> {
        let name = self.next();
        let Some(&known) = SETTINGS.iter().find(|s| **s == name.text) else {
            let hint = did_you_mean(&name.text, SETTINGS);
            self.error(&name, format!("unknown setting `{}`{hint}", name.text));
            self.skip_arguments(&name);
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
            "Columns" | "Rows" => match number(self) {
                Some(n) if n.fract() == 0.0 && (1.0..=f64::from(crate::terminal::MAX_SIZE)).contains(&n) => {
                    let n = n as u16;
                    let (min, setting) = match known {
                        "Columns" => (crate::terminal::MIN_COLS, Setting::Columns(n)),
                        _ => (crate::terminal::MIN_ROWS, Setting::Rows(n)),
                    };
                    if n < min {
                        return bad(
                            self,
                            &format!("a whole number from {min} to {}", crate::terminal::MAX_SIZE),
                        );
                    }
                    setting
                }
                _ => {
                    let min = if known == "Columns" {
                        crate::terminal::MIN_COLS
                    } else {
                        crate::terminal::MIN_ROWS
                    };
                    return bad(
                        self,
                        &format!("a whole number from {min} to {}", crate::terminal::MAX_SIZE),
                    );
                }
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
            "ReactionBound" => match self.time(&name)? {
                t if t.as_millis() > u128::from(crate::operation::MAX_DURATION_MS) => {
                    return bad(self, "a time of at most 24h");
                }
                t => Setting::ReactionBound(t),
            },
            "TapeTimeout" => match self.time(&name)? {
                Duration::ZERO => return bad(self, "a positive time"),
                t => Setting::TapeTimeout(t),
            },
            "Isolated" => match value.text.as_str() {
                "true" | "false" if value.kind == Kind::Word => {
                    self.next();
                    Setting::Isolated(value.text == "true")
                }
                _ => return bad(self, "true or false"),
            },
            "WaitPattern" => {
                let token = match value.kind {
                    Kind::Regex | Kind::Str | Kind::Word => self.next(),
                    _ => return bad(self, "a /regex/"),
                };
                if !self.compiles(&token) {
                    return None;
                }
                Setting::WaitPattern(token.text)
            }
            "Theme" => match value.kind {
                Kind::Json => {
                    self.next();
                    if let Err(e) = crate::Theme::from_json(&value.text) {
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
}
