//! Key names and their encoding.
//!
//! This module owns the key-spec grammar (`Enter`, `C-c`, `M-x`, `S-Tab`, `C-S-Up`,
//! `Ctrl+C`, `^C`, single characters) and turns a parsed [`Key`] into the exact bytes
//! xterm sends for it, given the modes the program has set at that moment (application
//! cursor mode changes how arrows, Home and End are sent). It also encodes pastes.
//! A program that enables the kitty keyboard protocol or modifyOtherKeys gets its keys in
//! that encoding (`extended`), and `release:KEY` / `repeat:KEY` events when its flags ask
//! for them; mouse actions are in [`mouse`]. What an unknown key's error suggests (the closest names, and our spelling of other
//! tools' names) is in `suggest`.
//!
//! ```
//! use tuipilot::keys::{Key, KeyModes};
//!
//! let up: Key = "Up".parse().unwrap();
//! assert_eq!(up.encode(KeyModes::default()), b"\x1b[A");
//! let app = KeyModes { application_cursor: true, ..KeyModes::default() };
//! assert_eq!(up.encode(app), b"\x1bOA");
//! assert_eq!("C-c".parse::<Key>().unwrap().encode(app), b"\x03");
//! ```

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

mod describe;
pub mod extended;
mod input;
pub mod mouse;
pub(crate) mod suggest;
pub use describe::{InputPart, decode_input, describe_input};
pub use input::Input;
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

/// What happens to a key: a press (what a key name means), an auto-repeat, or a release.
/// Only a program that asked for event types (kitty flag 2) is told of repeats and
/// releases; for any other a repeat is a press and a release sends nothing, as on a real
/// keyboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum KeyEvent {
    /// The key goes down.
    #[default]
    Press,
    /// The key is held and repeats (`repeat:KEY`).
    Repeat,
    /// The key comes up (`release:KEY`).
    Release,
}

/// A key event: a key, the modifiers held with it, and whether it is pressed, repeated
/// or released.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    /// The key.
    pub code: KeyCode,
    /// The modifiers held with it.
    pub mods: Modifiers,
    /// Press (the default), repeat or release.
    pub event: KeyEvent,
}

/// The terminal modes that change how keys are encoded, read from the screen at the
/// moment a key is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct KeyModes {
    /// DECCKM (`CSI ? 1 h`): unmodified arrows, Home and End are sent as `ESC O x`.
    pub application_cursor: bool,
    /// The kitty keyboard protocol flags in force on the current screen (0: xterm keys).
    pub kitty_flags: u8,
    /// xterm's modifyOtherKeys level (0: off; 1 or 2).
    pub modify_other_keys: u8,
    /// Newline mode (LNM, `CSI 20 h`): Return sends CR LF.
    pub newline: bool,
}

/// A change of the terminal window's focus, as mode 1004 reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Focus {
    /// The window gained focus: `CSI I`.
    In,
    /// The window lost focus: `CSI O`.
    Out,
}

impl Focus {
    /// The bytes the terminal sends for it.
    pub fn encode(self) -> &'static [u8] {
        match self {
            Focus::In => b"\x1b[I",
            Focus::Out => b"\x1b[O",
        }
    }
}

impl fmt::Display for Focus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Focus::In => "in",
            Focus::Out => "out",
        })
    }
}

impl FromStr for Focus {
    type Err = Error;
    fn from_str(s: &str) -> Result<Focus, Error> {
        match s.to_ascii_lowercase().as_str() {
            "in" => Ok(Focus::In),
            "out" => Ok(Focus::Out),
            _ => Err(Error::InvalidArgument {
                message: format!("invalid focus `{s}`: use `in` or `out`"),
            }),
        }
    }
}

/// Everything the program asked of its input at one moment: how keys are encoded, which
/// mouse events it receives and how, focus events and bracketed paste.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InputModes {
    /// How keys are encoded.
    pub keys: KeyModes,
    /// Mouse tracking and encoding.
    pub mouse: mouse::MouseModes,
    /// Focus events (`CSI ? 1004 h`): focus in and out are reported as `CSI I` / `CSI O`.
    pub focus_events: bool,
    /// Bracketed paste (`CSI ? 2004 h`).
    pub bracketed_paste: bool,
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

/// Event prefixes accepted before a key (`release:a`, `repeat:Down`).
const EVENTS: &[(&str, KeyEvent)] = &[
    ("press", KeyEvent::Press),
    ("repeat", KeyEvent::Repeat),
    ("release", KeyEvent::Release),
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
    // A comma separates key names in a list, so a comma as a key in a list is named.
    ("comma", KeyCode::Char(',')),
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
        let (event, rest) = spec
            .split_once(':')
            .and_then(|(prefix, key)| {
                let (_, event) = EVENTS.iter().find(|(p, _)| prefix.eq_ignore_ascii_case(p))?;
                (!key.is_empty()).then_some((*event, key))
            })
            .unwrap_or((KeyEvent::Press, spec));
        let (mods, rest) = take_modifiers(rest);
        let code = parse_code(rest).ok_or_else(|| unknown_key(spec, rest))?;
        let key = Key { code, mods, event };
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

    /// The bytes the terminal sends for this key in the given modes, always as one unit
    /// (send them in a single write: a lone Esc followed later by the rest reads as
    /// Escape): kitty-encoded when the program pushed kitty flags, `CSI 27;m;c~` for the
    /// keys modifyOtherKeys changes, xterm's bytes otherwise. Empty for a release the
    /// program did not ask to be told of.
    pub fn encode(&self, modes: KeyModes) -> Vec<u8> {
        if modes.kitty_flags != 0 {
            return extended::encode_kitty(*self, modes.kitty_flags, modes.application_cursor);
        }
        if self.event == KeyEvent::Release {
            return Vec::new();
        }
        if modes.modify_other_keys > 0
            && let Some(bytes) = extended::encode_modify_other(*self, modes.modify_other_keys)
        {
            return bytes;
        }
        let mut bytes = self.encode_legacy(modes.application_cursor);
        if modes.newline && bytes.last() == Some(&b'\r') && self.code == KeyCode::Enter {
            bytes.push(b'\n');
        }
        bytes
    }

    /// xterm's bytes with no keyboard protocol enabled.
    fn encode_legacy(&self, application_cursor: bool) -> Vec<u8> {
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
                out.extend_from_slice(if application_cursor { b"\x1bO" } else { b"\x1b[" });
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
        match self.event {
            KeyEvent::Press => {}
            KeyEvent::Repeat => f.write_str("repeat:")?,
            KeyEvent::Release => f.write_str("release:")?,
        }
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
/// enabled bracketed paste (with every paste marker removed, so pasted text can never end
/// the paste early), and with line endings sent as CR, as xterm does.
pub fn encode_paste(text: &str, bracketed: bool) -> Vec<u8> {
    let body = text.replace("\r\n", "\r").replace('\n', "\r");
    let mut out = Vec::with_capacity(body.len() + 12);
    if bracketed {
        out.extend_from_slice(PASTE_START.as_bytes());
        push_without_paste_markers(&mut out, body.as_bytes());
        out.extend_from_slice(PASTE_END.as_bytes());
    } else {
        out.extend_from_slice(body.as_bytes());
    }
    out
}

/// The marker a terminal sends before pasted text when bracketed paste is on.
pub(crate) const PASTE_START: &str = "\x1b[200~";
/// The marker after it: the program leaves paste mode here and reads keys again.
pub(crate) const PASTE_END: &str = "\x1b[201~";

/// Appends `body` to `out` with every paste marker taken out, including markers that
/// taking another out would assemble (`ESC[20` `ESC[201~` `1~` leaves `ESC[201~` after one
/// pass). Each byte is appended and the tail checked: a marker can only appear ending at
/// the newest byte, so one pass leaves none, in time linear in the body.
fn push_without_paste_markers(out: &mut Vec<u8>, body: &[u8]) {
    let floor = out.len();
    for &byte in body {
        out.push(byte);
        if byte == b'~' && out.len() - floor >= PASTE_END.len() {
            let tail = &out[out.len() - PASTE_END.len()..];
            if tail == PASTE_END.as_bytes() || tail == PASTE_START.as_bytes() {
                out.truncate(out.len() - PASTE_END.len());
            }
        }
    }
}

/// Splits modifier prefixes (`C-`, `Ctrl+`, `M-`, `Alt-`, `S-`, `^` before one character …)
/// off the front of `spec`: the modifiers they name, and what follows them. A prefix is
/// taken only when something follows it, so `C-` alone is not a modifier.
pub(crate) fn take_modifiers(spec: &str) -> (Modifiers, &str) {
    let mut mods = Modifiers::default();
    let mut rest = spec;
    loop {
        if let Some(after) = rest.strip_prefix('^')
            && after.chars().count() == 1
        {
            mods.ctrl = true;
            return (mods, after);
        }
        let lower = rest.to_ascii_lowercase();
        let Some((prefix, modifier)) = PREFIXES
            .iter()
            .find(|(p, _)| lower.starts_with(p) && lower.len() > p.len())
        else {
            return (mods, rest);
        };
        match modifier {
            Modifier::Ctrl => mods.ctrl = true,
            Modifier::Alt => mods.alt = true,
            Modifier::Shift => mods.shift = true,
        }
        rest = &rest[prefix.len()..];
    }
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
mod tests;
