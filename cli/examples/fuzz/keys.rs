//! The `keys` target: the key grammar and every parsed key's encoding.

use tuipilot::keys::parse_key_list;
use tuipilot::{Key, KeyModes};

use super::Rng;

const KEY_PARTS: &[&str] = &[
    "C-",
    "M-",
    "S-",
    "A-",
    "Ctrl+",
    "Alt+",
    "Shift+",
    "ctrl-",
    "^",
    "Enter",
    "Tab",
    "Esc",
    "Up",
    "Down",
    "F1",
    "F12",
    "F13",
    "F99",
    "PageUp",
    "Home",
    "Space",
    "Backspace",
    "Delete",
    "a",
    "Z",
    "1",
    "9",
    "@",
    "[",
    "?",
    "é",
    "漢",
    "😀",
    " ",
    ",",
    ", ",
    "-",
    "+",
    "",
    "\t",
    "\n",
    "\u{0}",
];

pub(super) fn keys_input(rng: &mut Rng) -> String {
    let mut s = String::new();
    for _ in 0..1 + rng.below(8) {
        if rng.chance(10) {
            s.push(char::from_u32(rng.below(0x3000) as u32).unwrap_or('x'));
        } else {
            s.push_str(rng.pick::<&str>(KEY_PARTS));
        }
    }
    s
}

pub(super) fn check_keys(input: &str) -> Result<(), String> {
    for modes in [
        KeyModes::default(),
        KeyModes {
            application_cursor: true,
            ..KeyModes::default()
        },
        KeyModes {
            kitty_flags: 31,
            ..KeyModes::default()
        },
        KeyModes {
            kitty_flags: 1,
            modify_other_keys: 2,
            ..KeyModes::default()
        },
        KeyModes {
            modify_other_keys: 2,
            ..KeyModes::default()
        },
    ] {
        if let Ok(key) = Key::parse(input) {
            let _ = key.encode(modes);
        }
        if let Ok(keys) = parse_key_list(input) {
            for key in keys {
                let _ = key.encode(modes);
            }
        }
    }
    Ok(())
}
