//! The key encodings a program opts into beyond xterm's defaults: the kitty keyboard
//! protocol (`CSI > flags u`) and xterm's modifyOtherKeys (`CSI > 4 ; n m`).
//!
//! Both exist so a program can tell apart keys the legacy bytes confuse (Ctrl-I and Tab,
//! Esc and the start of a sequence, Ctrl-Enter and Enter) and, with kitty's flags, see
//! key releases and repeats. [`Key::encode`](super::Key::encode) calls in here when the
//! program enabled either; the flags are the ones in force on the screen the program is
//! on (kitty keeps a stack per screen).
//!
//! The kitty flags: 1 disambiguate escape codes, 2 report event types, 4 report alternate
//! keys, 8 report all keys as escape codes, 16 report associated text.

use super::{Key, KeyCode, KeyEvent, Modifiers};

/// Disambiguate escape codes.
pub const DISAMBIGUATE: u8 = 1;
/// Report press, repeat and release.
pub const EVENT_TYPES: u8 = 2;
/// Report the shifted key alongside the key.
pub const ALTERNATE_KEYS: u8 = 4;
/// Report every key, text keys too, as an escape code.
pub const ALL_KEYS: u8 = 8;
/// Report the text a key types, as code points.
pub const ASSOCIATED_TEXT: u8 = 16;

/// The kitty modifier bits: shift 1, alt 2, ctrl 4 (sent plus one).
fn kitty_mods(mods: Modifiers) -> u32 {
    u32::from(mods.shift) + 2 * u32::from(mods.alt) + 4 * u32::from(mods.ctrl)
}

/// The key's number and final byte in the kitty protocol (`CSI number … final`).
fn kitty_number(code: KeyCode) -> (u32, u8) {
    match code {
        KeyCode::Char(c) => (c as u32, b'u'),
        KeyCode::Space => (32, b'u'),
        KeyCode::Enter => (13, b'u'),
        KeyCode::Tab => (9, b'u'),
        KeyCode::Backspace => (127, b'u'),
        KeyCode::Escape => (27, b'u'),
        KeyCode::Up => (1, b'A'),
        KeyCode::Down => (1, b'B'),
        KeyCode::Right => (1, b'C'),
        KeyCode::Left => (1, b'D'),
        KeyCode::Home => (1, b'H'),
        KeyCode::End => (1, b'F'),
        KeyCode::F(1) => (1, b'P'),
        KeyCode::F(2) => (1, b'Q'),
        KeyCode::F(3) => (13, b'~'),
        KeyCode::F(4) => (1, b'S'),
        KeyCode::Insert => (2, b'~'),
        KeyCode::Delete => (3, b'~'),
        KeyCode::PageUp => (5, b'~'),
        KeyCode::PageDown => (6, b'~'),
        KeyCode::F(n) => (
            u32::from([15u8, 17, 18, 19, 20, 21, 23, 24][usize::from(n.clamp(5, 12) - 5)]),
            b'~',
        ),
    }
}

/// A key as the kitty protocol sees it: an upper-case letter is its lower-case key with
/// shift held.
fn normalised(key: Key) -> Key {
    match key.code {
        KeyCode::Char(c) if c.is_uppercase() && c.to_lowercase().count() == 1 => Key {
            code: KeyCode::Char(c.to_lowercase().next().unwrap_or(c)),
            mods: Modifiers {
                shift: true,
                ..key.mods
            },
            event: key.event,
        },
        _ => key,
    }
}

/// The text a key types when only shift (or nothing) is held.
fn typed_text(key: Key) -> Option<char> {
    if key.mods.ctrl || key.mods.alt {
        return None;
    }
    match key.code {
        KeyCode::Char(c) if key.mods.shift => Some(c.to_uppercase().next().unwrap_or(c)),
        KeyCode::Char(c) => Some(c),
        KeyCode::Space => Some(' '),
        _ => None,
    }
}

/// The bytes the kitty keyboard protocol sends for `key` under `flags` (not 0).
pub(super) fn encode_kitty(key: Key, flags: u8, application_cursor: bool) -> Vec<u8> {
    let key = normalised(key);
    let event_types = flags & EVENT_TYPES != 0;
    let all_keys = flags & ALL_KEYS != 0;
    let event = match key.event {
        KeyEvent::Release if !event_types => return Vec::new(),
        KeyEvent::Repeat if !event_types => KeyEvent::Press,
        event => event,
    };
    let text = typed_text(key);
    let lone = key.mods == Modifiers::default();
    let shift_only = !key.mods.ctrl && !key.mods.alt;
    if !all_keys && event != KeyEvent::Release {
        // What stays as legacy bytes: text typed with shift or nothing, and unmodified
        // Enter, Tab and Backspace (so a shell stays usable if the program dies in this mode).
        if let (Some(c), true) = (text, shift_only) {
            return c.to_string().into_bytes();
        }
        if lone && matches!(key.code, KeyCode::Enter | KeyCode::Tab | KeyCode::Backspace) {
            return Key {
                event: KeyEvent::Press,
                ..key
            }
            .encode_legacy(application_cursor);
        }
    }
    if !all_keys
        && event == KeyEvent::Release
        && matches!(key.code, KeyCode::Enter | KeyCode::Tab | KeyCode::Backspace)
    {
        return Vec::new();
    }
    let (number, final_byte) = kitty_number(key.code);
    let mut out = format!("\x1b[{number}");
    if flags & ALTERNATE_KEYS != 0
        && key.mods.shift
        && let KeyCode::Char(c) = key.code
        && let Some(shifted) = c.to_uppercase().next().filter(|s| *s != c)
    {
        out.push_str(&format!(":{}", shifted as u32));
    }
    let mods = kitty_mods(key.mods);
    let event_field = event_types && event != KeyEvent::Press;
    let text = text.filter(|_| all_keys && flags & ASSOCIATED_TEXT != 0 && event != KeyEvent::Release);
    if mods != 0 || event_field || text.is_some() {
        out.push(';');
        if mods != 0 || event_field {
            out.push_str(&(mods + 1).to_string());
        }
        if event_field {
            out.push_str(match event {
                KeyEvent::Repeat => ":2",
                _ => ":3",
            });
        }
    }
    if let Some(c) = text {
        out.push_str(&format!(";{}", c as u32));
    }
    if number == 1 && final_byte != b'u' && out == "\x1b[1" {
        // `CSI 1 A` with nothing after the number is spelled `CSI A`.
        out.truncate(2);
    }
    out.push(final_byte as char);
    out.into_bytes()
}

/// The bytes xterm sends for `key` with modifyOtherKeys at `level` (1 or 2), or `None`
/// when the key keeps its usual encoding: `CSI 27 ; mods ; code ~`.
pub(super) fn encode_modify_other(key: Key, level: u8) -> Option<Vec<u8>> {
    let mods = key.mods;
    if mods == Modifiers::default() {
        return None;
    }
    let code = match key.code {
        KeyCode::Enter => 13,
        KeyCode::Tab => 9,
        KeyCode::Backspace => 127,
        KeyCode::Escape => 27,
        KeyCode::Space => 32,
        KeyCode::Char(c) if mods.shift => c.to_uppercase().next().unwrap_or(c) as u32,
        KeyCode::Char(c) => c as u32,
        _ => return None,
    };
    let wanted = match key.code {
        // Printable keys with only shift type their shifted character at every level.
        KeyCode::Char(_) if !mods.ctrl && !mods.alt => false,
        // Level 1 changes only keys whose modified form is otherwise lost or ambiguous.
        KeyCode::Char(_) => level >= 2 || (mods.ctrl && mods.shift),
        KeyCode::Tab
            if mods
                == (Modifiers {
                    shift: true,
                    ..Modifiers::default()
                }) =>
        {
            level >= 2
        }
        _ => level >= 2 || mods.ctrl || mods.shift,
    };
    wanted.then(|| format!("\x1b[27;{};{code}~", mods.xterm_param()).into_bytes())
}
