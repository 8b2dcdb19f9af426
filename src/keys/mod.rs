//! Key names and their encoding.
//!
//! This module owns the key-spec grammar (`Enter`, `C-c`, `M-x`, `S-Tab`, `C-S-Up`,
//! `Ctrl+C`, `^C`, single characters) and turns a parsed [`Key`] into the exact bytes
//! xterm sends for it, given the modes the program has set at that moment (application
//! cursor mode changes how arrows, Home and End are sent). It also encodes pastes.
//! What an unknown key's error suggests (the closest names, and our spelling of other
//! tools' names) is in `suggest`.
//!
//! ```
//! use tuipilot::keys::{Key, KeyModes};
//!
//! let up: Key = "Up".parse().unwrap();
//! assert_eq!(up.encode(KeyModes::default()), b"\x1b[A");
//! let app = KeyModes { application_cursor: true };
//! assert_eq!(up.encode(app), b"\x1bOA");
//! assert_eq!("C-c".parse::<Key>().unwrap().encode(app), b"\x03");
//! ```

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

mod describe;
pub(crate) mod suggest;
pub use describe::describe_input;
use suggest::unknown_key;

/// A key without modifiers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeyCode {
    /// A printable character, typed as itself.
    Char(char),
    /// Return (sends CR).
    Enter,
    /// Tab.
    Tab,
    /// Escape.
    Escape,
    /// Space.
    Space,
    /// Backspace (sends DEL).
    Backspace,
    /// Arrow up.
    Up,
    /// Arrow down.
    Down,
    /// Arrow left.
    Left,
    /// Arrow right.
    Right,
    /// Home.
    Home,
    /// End.
    End,
    /// Page up.
    PageUp,
    /// Page down.
    PageDown,
    /// Insert.
    Insert,
    /// Delete (forward).
    Delete,
    /// A function key, `F(1)` to `F(12)`.
    F(u8),
}

/// Modifier keys held while a key is pressed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modifiers {
    /// Control held.
    pub ctrl: bool,
    /// Alt (Meta) held.
    pub alt: bool,
    /// Shift held.
    pub shift: bool,
}

impl Modifiers {
    fn is_empty(self) -> bool {
        !(self.ctrl || self.alt || self.shift)
    }

    /// The xterm modifier parameter: 1 + shift + 2·alt + 4·ctrl.
    fn xterm_param(self) -> u8 {
        1 + u8::from(self.shift) + 2 * u8::from(self.alt) + 4 * u8::from(self.ctrl)
    }
}

/// A key press: a key plus the modifiers held with it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// The modifiers held with it.
    pub mods: Modifiers,
}

/// The terminal modes that change how keys are encoded, read from the screen at the
/// moment a key is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyModes {
    /// DECCKM (`CSI ? 1 h`): unmodified arrows, Home and End are sent as `ESC O x`.
    pub application_cursor: bool,
}

/// Canonical key names, as listed in errors and documentation.
pub const KEY_NAMES: &[&str] = &[
    "Enter",
    "Tab",
    "Esc",
    "Space",
    "Backspace",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "Insert",
    "Delete",
    "F1",
    "F2",
    "F3",
    "F4",
    "F5",
    "F6",
    "F7",
    "F8",
    "F9",
    "F10",
    "F11",
    "F12",
];

/// Modifier prefixes accepted before a key name, as listed in documentation.
pub const MODIFIER_PREFIXES: &[&str] = &[
    "C-", "Ctrl+", "Ctrl-", "^", "M-", "A-", "Alt+", "Alt-", "Meta+", "S-", "Shift+", "Shift-",
];

/// Every spelling of a named key (lower case), with the key it means.
const NAMES: &[(&str, KeyCode)] = &[
    ("enter", KeyCode::Enter),
    ("return", KeyCode::Enter),
    ("ret", KeyCode::Enter),
    ("cr", KeyCode::Enter),
    ("tab", KeyCode::Tab),
    ("esc", KeyCode::Escape),
    ("escape", KeyCode::Escape),
    ("space", KeyCode::Space),
    ("spc", KeyCode::Space),
    ("backspace", KeyCode::Backspace),
    ("bspace", KeyCode::Backspace),
    ("bs", KeyCode::Backspace),
    ("up", KeyCode::Up),
    ("down", KeyCode::Down),
    ("left", KeyCode::Left),
    ("right", KeyCode::Right),
    ("home", KeyCode::Home),
    ("end", KeyCode::End),
    ("pageup", KeyCode::PageUp),
    ("pgup", KeyCode::PageUp),
    ("ppage", KeyCode::PageUp),
    ("pagedown", KeyCode::PageDown),
    ("pgdn", KeyCode::PageDown),
    ("npage", KeyCode::PageDown),
    ("insert", KeyCode::Insert),
    ("ins", KeyCode::Insert),
    ("delete", KeyCode::Delete),
    ("del", KeyCode::Delete),
    ("f1", KeyCode::F(1)),
    ("f2", KeyCode::F(2)),
    ("f3", KeyCode::F(3)),
    ("f4", KeyCode::F(4)),
    ("f5", KeyCode::F(5)),
    ("f6", KeyCode::F(6)),
    ("f7", KeyCode::F(7)),
    ("f8", KeyCode::F(8)),
    ("f9", KeyCode::F(9)),
    ("f10", KeyCode::F(10)),
    ("f11", KeyCode::F(11)),
    ("f12", KeyCode::F(12)),
];

#[derive(Clone, Copy)]
enum Modifier {
    Ctrl,
    Alt,
    Shift,
}

/// Modifier prefixes (lower case) and which modifier each sets.
const PREFIXES: &[(&str, Modifier)] = &[
    ("ctrl+", Modifier::Ctrl),
    ("ctrl-", Modifier::Ctrl),
    ("control+", Modifier::Ctrl),
    ("control-", Modifier::Ctrl),
    ("c-", Modifier::Ctrl),
    ("alt+", Modifier::Alt),
    ("alt-", Modifier::Alt),
    ("meta+", Modifier::Alt),
    ("meta-", Modifier::Alt),
    ("m-", Modifier::Alt),
    ("a-", Modifier::Alt),
    ("shift+", Modifier::Shift),
    ("shift-", Modifier::Shift),
    ("s-", Modifier::Shift),
];

impl Key {
    /// Parses a key spec such as `Enter`, `C-c`, `M-Enter`, `C-S-Up`, `Ctrl+C`, `^C` or `q`.
    ///
    /// Names are case-insensitive; a single character stands for itself.
    pub fn parse(spec: &str) -> Result<Key, Error> {
        let mut mods = Modifiers::default();
        let mut rest = spec;
        loop {
            if let Some(after) = rest.strip_prefix('^')
                && after.chars().count() == 1
            {
                mods.ctrl = true;
                rest = after;
                break;
            }
            let lower = rest.to_ascii_lowercase();
            let Some((prefix, modifier)) = PREFIXES
                .iter()
                .find(|(p, _)| lower.starts_with(p) && lower.len() > p.len())
            else {
                break;
            };
            match modifier {
                Modifier::Ctrl => mods.ctrl = true,
                Modifier::Alt => mods.alt = true,
                Modifier::Shift => mods.shift = true,
            }
            rest = &rest[prefix.len()..];
        }
        let code = parse_code(rest).ok_or_else(|| unknown_key(spec, rest))?;
        let key = Key { code, mods };
        key.check(spec)?;
        Ok(key)
    }

    /// Rejects combinations that have no encoding, so that `encode` never fails.
    fn check(&self, spec: &str) -> Result<(), Error> {
        if let KeyCode::Char(c) = self.code {
            if self.mods.ctrl && ctrl_byte(c).is_none() {
                return Err(Error::InvalidKey {
                    spec: spec.to_string(),
                    reason: format!(
                        "`{c}` has no control code (Ctrl works with letters, space and @[\\]^_/?2-8)"
                    ),
                });
            }
            if self.mods.shift && !c.is_alphabetic() {
                return Err(Error::InvalidKey {
                    spec: spec.to_string(),
                    reason: "Shift applies to letters and named keys; type the shifted character itself"
                        .into(),
                });
            }
        }
        Ok(())
    }

    /// The bytes xterm sends for this key in the given modes, always as one unit (send
    /// them in a single write: a lone Esc followed later by the rest reads as Escape).
    pub fn encode(&self, modes: KeyModes) -> Vec<u8> {
        let m = self.mods;
        let mut out = Vec::with_capacity(8);
        let cursor_letter = match self.code {
            KeyCode::Up => Some(b'A'),
            KeyCode::Down => Some(b'B'),
            KeyCode::Right => Some(b'C'),
            KeyCode::Left => Some(b'D'),
            KeyCode::Home => Some(b'H'),
            KeyCode::End => Some(b'F'),
            _ => None,
        };
        if let Some(letter) = cursor_letter {
            if m.is_empty() {
                out.extend_from_slice(if modes.application_cursor {
                    b"\x1bO"
                } else {
                    b"\x1b["
                });
                out.push(letter);
            } else {
                out.extend_from_slice(format!("\x1b[1;{}", m.xterm_param()).as_bytes());
                out.push(letter);
            }
            return out;
        }
        let tilde_number = match self.code {
            KeyCode::Insert => Some(2),
            KeyCode::Delete => Some(3),
            KeyCode::PageUp => Some(5),
            KeyCode::PageDown => Some(6),
            KeyCode::F(n @ 5..=12) => Some([15, 17, 18, 19, 20, 21, 23, 24][usize::from(n - 5)]),
            _ => None,
        };
        if let Some(n) = tilde_number {
            let seq = if m.is_empty() {
                format!("\x1b[{n}~")
            } else {
                format!("\x1b[{n};{}~", m.xterm_param())
            };
            return seq.into_bytes();
        }
        if let KeyCode::F(n @ 1..=4) = self.code {
            let letter = b"PQRS"[usize::from(n - 1)];
            if m.is_empty() {
                out.extend_from_slice(b"\x1bO");
            } else {
                out.extend_from_slice(format!("\x1b[1;{}", m.xterm_param()).as_bytes());
            }
            out.push(letter);
            return out;
        }
        if m.alt {
            out.push(0x1b);
        }
        match self.code {
            KeyCode::Enter => out.push(b'\r'),
            KeyCode::Tab if m.shift => out.extend_from_slice(b"\x1b[Z"),
            KeyCode::Tab => out.push(b'\t'),
            KeyCode::Escape => out.push(0x1b),
            KeyCode::Space if m.ctrl => out.push(0),
            KeyCode::Space => out.push(b' '),
            KeyCode::Backspace if m.ctrl => out.push(0x08),
            KeyCode::Backspace => out.push(0x7f),
            KeyCode::Char(c) => {
                let c = if m.shift {
                    c.to_uppercase().next().unwrap_or(c)
                } else {
                    c
                };
                match (m.ctrl, ctrl_byte(c)) {
                    (true, Some(b)) => out.push(b),
                    _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
                }
            }
            // Every other code returned above.
            _ => {}
        }
        out
    }
}

impl FromStr for Key {
    type Err = Error;
    fn from_str(s: &str) -> Result<Key, Error> {
        Key::parse(s)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.mods.ctrl {
            f.write_str("C-")?;
        }
        if self.mods.alt {
            f.write_str("M-")?;
        }
        if self.mods.shift {
            f.write_str("S-")?;
        }
        match self.code {
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::F(n) => write!(f, "F{n}"),
            KeyCode::Escape => f.write_str("Esc"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// Parses a list of keys separated by spaces or commas (`"Down Down Enter"`,
/// `"C-x,C-s"`). A spec that is a single character is that key, even `,` or ` `.
pub fn parse_key_list(specs: &str) -> Result<Vec<Key>, Error> {
    if specs.chars().count() == 1 {
        return Ok(vec![Key::parse(specs)?]);
    }
    let keys: Vec<Key> = specs
        .split([' ', ','])
        .filter(|s| !s.is_empty())
        .map(Key::parse)
        .collect::<Result<_, _>>()?;
    if keys.is_empty() {
        return Err(Error::InvalidKey {
            spec: specs.to_string(),
            reason: "no key names given".into(),
        });
    }
    Ok(keys)
}

/// The bytes for pasting `text`: wrapped in `ESC[200~ … ESC[201~` when the program
/// enabled bracketed paste (with any embedded end marker removed, so pasted text can
/// never end the paste early), and with line endings sent as CR, as xterm does.
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    let body = text.replace("\r\n", "\r").replace('\n', "\r");
    let mut out = Vec::with_capacity(body.len() + 12);
    if bracketed {
        let body = body.replace("\x1b[201~", "");
        out.extend_from_slice(b"\x1b[200~");
        out.extend_from_slice(body.as_bytes());
        out.extend_from_slice(b"\x1b[201~");
    } else {
        out.extend_from_slice(body.as_bytes());
    }
    out
}

fn parse_code(name: &str) -> Option<KeyCode> {
    let mut chars = name.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c == ' ' {
            return Some(KeyCode::Space);
        }
        return (!c.is_control()).then_some(KeyCode::Char(c));
    }
    let lower = name.to_ascii_lowercase();
    NAMES.iter().find(|(n, _)| *n == lower).map(|(_, code)| *code)
}

/// The control byte for Ctrl plus `c`, as xterm sends it.
fn ctrl_byte(c: char) -> Option<u8> {
    match c {
        'a'..='z' | 'A'..='Z' => Some(c.to_ascii_uppercase() as u8 & 0x1f),
        '@' | ' ' | '2' => Some(0),
        '[' | '3' => Some(0x1b),
        '\\' | '4' => Some(0x1c),
        ']' | '5' => Some(0x1d),
        '^' | '6' | '~' => Some(0x1e),
        '_' | '7' | '/' => Some(0x1f),
        '?' | '8' => Some(0x7f),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn enc(spec: &str, app: bool) -> Vec<u8> {
        Key::parse(spec).unwrap().encode(KeyModes {
            application_cursor: app,
        })
    }

    #[test]
    fn named_keys_follow_xterm() {
        assert_eq!(enc("Enter", false), b"\r");
        assert_eq!(enc("Tab", false), b"\t");
        assert_eq!(enc("S-Tab", false), b"\x1b[Z");
        assert_eq!(enc("Shift+Tab", false), b"\x1b[Z");
        assert_eq!(enc("Esc", false), b"\x1b");
        assert_eq!(enc("Escape", false), b"\x1b");
        assert_eq!(enc("Space", false), b" ");
        assert_eq!(enc("Backspace", false), b"\x7f");
        assert_eq!(enc("F1", false), b"\x1bOP");
        assert_eq!(enc("F4", false), b"\x1bOS");
        assert_eq!(enc("F5", false), b"\x1b[15~");
        assert_eq!(enc("F6", false), b"\x1b[17~");
        assert_eq!(enc("F10", false), b"\x1b[21~");
        assert_eq!(enc("F11", false), b"\x1b[23~");
        assert_eq!(enc("F12", false), b"\x1b[24~");
        assert_eq!(enc("Insert", false), b"\x1b[2~");
        assert_eq!(enc("Delete", false), b"\x1b[3~");
        assert_eq!(enc("PageUp", false), b"\x1b[5~");
        assert_eq!(enc("PageDown", false), b"\x1b[6~");
    }

    #[test]
    fn cursor_keys_depend_on_application_cursor_mode() {
        for (name, letter) in [
            ("Up", 'A'),
            ("Down", 'B'),
            ("Right", 'C'),
            ("Left", 'D'),
            ("Home", 'H'),
            ("End", 'F'),
        ] {
            assert_eq!(enc(name, false), format!("\x1b[{letter}").as_bytes());
            assert_eq!(enc(name, true), format!("\x1bO{letter}").as_bytes());
            // Modified cursor keys ignore the mode.
            assert_eq!(
                enc(&format!("C-{name}"), true),
                format!("\x1b[1;5{letter}").as_bytes()
            );
        }
    }

    #[test]
    fn modifiers_use_xterm_parameters() {
        assert_eq!(enc("S-Up", false), b"\x1b[1;2A");
        assert_eq!(enc("M-Up", false), b"\x1b[1;3A");
        assert_eq!(enc("C-S-Up", false), b"\x1b[1;6A");
        assert_eq!(enc("C-M-S-Left", false), b"\x1b[1;8D");
        assert_eq!(enc("C-Delete", false), b"\x1b[3;5~");
        assert_eq!(enc("S-F5", false), b"\x1b[15;2~");
        assert_eq!(enc("C-F1", false), b"\x1b[1;5P");
        assert_eq!(enc("M-Enter", false), b"\x1b\r");
        assert_eq!(enc("M-x", false), b"\x1bx");
        assert_eq!(enc("Alt+x", false), b"\x1bx");
        assert_eq!(enc("A-x", false), b"\x1bx");
        assert_eq!(enc("C-M-a", false), b"\x1b\x01");
        assert_eq!(enc("M-Backspace", false), b"\x1b\x7f");
        assert_eq!(enc("C-Backspace", false), b"\x08");
    }

    #[test]
    fn control_characters() {
        assert_eq!(enc("C-c", false), b"\x03");
        assert_eq!(enc("C-C", false), b"\x03");
        assert_eq!(enc("Ctrl+C", false), b"\x03");
        assert_eq!(enc("ctrl-a", false), b"\x01");
        assert_eq!(enc("^C", false), b"\x03");
        assert_eq!(enc("^[", false), b"\x1b");
        assert_eq!(enc("C-Space", false), b"\x00");
        assert_eq!(enc("C-@", false), b"\x00");
        assert_eq!(enc("C-[", false), b"\x1b");
        assert_eq!(enc("C-\\", false), b"\x1c");
        assert_eq!(enc("C-]", false), b"\x1d");
        assert_eq!(enc("C-^", false), b"\x1e");
        assert_eq!(enc("C-_", false), b"\x1f");
        assert_eq!(enc("C-?", false), b"\x7f");
    }

    #[test]
    fn characters_are_themselves() {
        assert_eq!(enc("a", false), b"a");
        assert_eq!(enc("A", false), b"A");
        assert_eq!(enc("S-a", false), b"A");
        assert_eq!(enc("-", false), b"-");
        assert_eq!(enc("+", false), b"+");
        assert_eq!(enc("^", false), b"^");
        assert_eq!(enc("é", false), "é".as_bytes());
        assert!(Key::parse("C--").is_err(), "Ctrl-minus has no control code");
    }

    #[test]
    fn names_are_case_insensitive() {
        assert_eq!(enc("ENTER", false), b"\r");
        assert_eq!(enc("pagedown", false), b"\x1b[6~");
        assert_eq!(enc("c-s-up", false), b"\x1b[1;6A");
    }

    #[test]
    fn unknown_names_suggest_the_closest() {
        let err = Key::parse("Entr").unwrap_err().to_string();
        assert!(err.contains("Entr") && err.contains("Enter"), "{err}");
        let err = Key::parse("PgDwn").unwrap_err().to_string();
        assert!(err.contains("PageDown"), "{err}");
        let err = Key::parse("C-é").unwrap_err().to_string();
        assert!(err.contains("no control code"), "{err}");
        assert!(Key::parse("").is_err());
        assert!(Key::parse("S-1").is_err());
    }

    #[test]
    fn other_tools_spellings_suggest_ours() {
        for (foreign, ours) in [
            ("Ctl-c", "C-c"),
            ("<C-c>", "C-c"),
            ("ArrowUp", "Up"),
            ("KEY_UP", "Up"),
            ("<CR>", "Enter"),
            ("BTab", "S-Tab"),
            ("Option-x", "M-x"),
            ("Ctrl-ArrowLeft", "C-Left"),
        ] {
            let err = Key::parse(foreign).unwrap_err().to_string();
            assert!(err.contains(&format!("did you mean {ours}?")), "{foreign}: {err}");
        }
        // `^C` is ours already.
        assert_eq!(Key::parse("^C").unwrap().to_string(), "C-C");
    }

    #[test]
    fn key_lists() {
        let keys = parse_key_list("Down Down,Enter").unwrap();
        assert_eq!(keys.len(), 3);
        assert_eq!(parse_key_list(",").unwrap()[0].code, KeyCode::Char(','));
        assert!(parse_key_list("Down Bogus").is_err());
    }

    #[test]
    fn paste_is_bracketed_only_when_enabled() {
        assert_eq!(encode_paste("a\nb", false), b"a\rb");
        assert_eq!(encode_paste("a\r\nb", true), b"\x1b[200~a\rb\x1b[201~");
        assert_eq!(
            encode_paste("x\x1b[201~rm -rf", true),
            b"\x1b[200~xrm -rf\x1b[201~"
        );
    }
}
