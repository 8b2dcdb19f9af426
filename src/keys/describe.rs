//! What a person pressed, from the bytes a program was sent: the keys themselves
//! ([`decode_input`]: what an export writes for a person's raw keystrokes, `Key Down`
//! rather than an escape sequence) and the keystroke overlay's labels (`Ctrl+C`, `↓`,
//! `Enter`, typed text). Built by running the encoder backwards: every named key with
//! every modifier combination is encoded in both cursor modes, and input is matched
//! against those sequences, longest first.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{KEY_NAMES, Key, KeyCode, KeyModes, Modifiers, PASTE_END, PASTE_START};

/// The label a person would read for `key`.
fn label(key: Key) -> String {
    let mut out = String::new();
    for (held, name) in [
        (key.mods.ctrl, "Ctrl+"),
        (key.mods.alt, "Alt+"),
        (key.mods.shift, "Shift+"),
    ] {
        if held {
            out.push_str(name);
        }
    }
    let name = match key.code {
        KeyCode::Char(c) if key.mods.ctrl || key.mods.alt => c.to_ascii_uppercase().to_string(),
        KeyCode::Char(c) => c.to_string(),
        KeyCode::Up => "↑".into(),
        KeyCode::Down => "↓".into(),
        KeyCode::Left => "←".into(),
        KeyCode::Right => "→".into(),
        KeyCode::Escape => "Esc".into(),
        KeyCode::PageUp => "PgUp".into(),
        KeyCode::PageDown => "PgDn".into(),
        KeyCode::Delete => "Del".into(),
        KeyCode::Insert => "Ins".into(),
        KeyCode::F(n) => format!("F{n}"),
        other => format!("{other:?}"),
    };
    out.push_str(&name);
    out
}

/// Every encoded sequence of a named or control key, and the key.
fn table() -> &'static HashMap<Vec<u8>, Key> {
    static TABLE: OnceLock<HashMap<Vec<u8>, Key>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        let mut add = |key: Key| {
            for application_cursor in [false, true] {
                let bytes = key.encode(KeyModes {
                    application_cursor,
                    ..KeyModes::default()
                });
                // The first spelling wins: plain before modified, so ESC stays `Esc`.
                table.entry(bytes).or_insert(key);
            }
        };
        let all_mods = (0..8u8).map(|m| Modifiers {
            ctrl: m & 1 != 0,
            alt: m & 2 != 0,
            shift: m & 4 != 0,
        });
        for mods in all_mods {
            for name in KEY_NAMES {
                if let Ok(mut key) = name.parse::<Key>() {
                    key.mods = mods;
                    add(key);
                }
            }
            if mods.ctrl || mods.alt {
                for c in ('a'..='z').chain("[]\\^_@/".chars()) {
                    add(Key {
                        code: KeyCode::Char(c),
                        mods,
                        event: super::KeyEvent::Press,
                    });
                }
            }
        }
        table
    })
}

/// One part of the input a program was sent, as a person produced it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputPart {
    /// A run of printable text (spaces included).
    Text(String),
    /// A named or control key (`Enter`, `Down`, `C-c`, `M-x`), as encoded in either
    /// cursor mode.
    Key(Key),
    /// A bracketed paste's text.
    Paste(String),
    /// Bytes that are no key this library names: a mouse report, a sequence of another
    /// keyboard protocol, a control character without a name, bytes that are not UTF-8.
    Other(Vec<u8>),
}

/// What `input` (as sent to a program) types: runs of printable text, keys by name,
/// bracketed pastes, and the rest as it is. Concatenating the parts' encodings (a key's
/// in the cursor mode it was sent in) gives `input` back.
pub fn decode_input(input: &[u8]) -> Vec<InputPart> {
    let table = table();
    let longest = table.keys().map(Vec::len).max().unwrap_or(1);
    let start = PASTE_START.as_bytes();
    let end = PASTE_END.as_bytes();
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = input;
    let flush = |out: &mut Vec<InputPart>, text: &mut String| {
        if !text.is_empty() {
            out.push(InputPart::Text(std::mem::take(text)));
        }
    };
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(start)
            && let Some(at) = after.windows(end.len()).position(|w| w == end)
            && let Ok(pasted) = std::str::from_utf8(&after[..at])
        {
            flush(&mut out, &mut text);
            out.push(InputPart::Paste(pasted.to_string()));
            rest = &after[at + end.len()..];
            continue;
        }
        // The next character, if the bytes start with one.
        let valid = match std::str::from_utf8(&rest[..rest.len().min(4)]) {
            Ok(s) => s,
            Err(e) => std::str::from_utf8(&rest[..e.valid_up_to()]).unwrap_or(""),
        };
        if let Some(first) = valid.chars().next()
            && (!first.is_control() || first == ' ')
        {
            text.push(first);
            rest = &rest[first.len_utf8()..];
            continue;
        }
        flush(&mut out, &mut text);
        // A mouse report is one part of its own, not an Alt+[ followed by text.
        if let Some((_, length)) = super::mouse::MouseEvent::from_sgr(rest) {
            out.push(InputPart::Other(rest[..length].to_vec()));
            rest = &rest[length..];
            continue;
        }
        let matched = (1..=longest.min(rest.len()))
            .rev()
            .find_map(|n| table.get(&rest[..n]).map(|key| (n, *key)));
        match matched {
            Some((n, key)) => {
                out.push(InputPart::Key(key));
                rest = &rest[n..];
            }
            None => {
                let n = valid.chars().next().map_or(1, char::len_utf8);
                match out.last_mut() {
                    Some(InputPart::Other(bytes)) => bytes.extend_from_slice(&rest[..n]),
                    _ => out.push(InputPart::Other(rest[..n].to_vec())),
                }
                rest = &rest[n..];
            }
        }
    }
    flush(&mut out, &mut text);
    out
}

/// The labels of what `input` (as sent to a program) types: keys by name, runs of
/// printable text as the text, a bracketed paste as `paste …`.
pub fn describe_input(input: &str) -> Vec<String> {
    decode_input(input.as_bytes())
        .into_iter()
        .flat_map(|part| match part {
            InputPart::Text(text) => vec![shorten(&text)],
            InputPart::Key(key) => vec![label(key)],
            InputPart::Paste(text) => vec![format!("paste {}", shorten(&text))],
            InputPart::Other(bytes) if let Some((event, _)) = super::mouse::MouseEvent::from_sgr(&bytes) => {
                vec![format!("mouse {:?} at {},{}", event.kind, event.col, event.row)]
            }
            InputPart::Other(bytes) => String::from_utf8_lossy(&bytes)
                .chars()
                .map(|c| format!("{c:?}").trim_matches('\'').to_string())
                .collect(),
        })
        .collect()
}

/// At most 24 characters, with `…` when cut.
fn shorten(text: &str) -> String {
    match text.char_indices().nth(24) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::describe_input;

    #[test]
    fn input_reads_back_as_the_keys_a_person_pressed() {
        assert_eq!(describe_input("ls -la\r"), ["ls -la", "Enter"]);
        assert_eq!(describe_input("\x03"), ["Ctrl+C"]);
        assert_eq!(describe_input("\x1b[B\x1b[B\r"), ["↓", "↓", "Enter"]);
        assert_eq!(describe_input("\x1bOA"), ["↑"]);
        assert_eq!(describe_input("\x1b"), ["Esc"]);
        assert_eq!(describe_input("\x1bx"), ["Alt+X"]);
        assert_eq!(describe_input("\x1b[1;5A"), ["Ctrl+↑"]);
        assert_eq!(describe_input("\x1b[15~\t\x7f"), ["F5", "Tab", "Backspace"]);
        assert_eq!(describe_input("\x1b[200~hello\x1b[201~"), ["paste hello"]);
        assert_eq!(describe_input("é漢😀"), ["é漢😀"]);
        assert_eq!(describe_input("\x1b[200~unfinished"), ["Alt+[", "200~unfinished"]);
        assert_eq!(describe_input("\x1b[<0;6;4Mx"), ["mouse Press(Left) at 5,3", "x"]);
    }

    #[test]
    fn decoded_input_encodes_back_to_the_same_bytes() {
        use super::{InputPart, decode_input};
        use crate::keys::KeyModes;
        // Generated input: text, every kind of key in both cursor modes, pastes, mouse
        // reports, stray bytes, in a pseudo-random order.
        let pieces: &[&[u8]] = &[
            b"ls -la",
            b"\r",
            b"\x1b[B",
            b"\x1bOA",
            b"\x03",
            b"\x1b",
            b"\x1bx",
            b"\x1b[1;5A",
            b"\x7f",
            b"\t",
            b"\x1b[200~pasted\x1b[201~",
            b"\x1b[<0;12;3M",
            b"\xff",
            "é漢".as_bytes(),
            b"\x1b[15~",
            b"\x00",
            b" ",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..500 {
            let mut input = Vec::new();
            for _ in 0..(seed % 12) {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                input.extend_from_slice(pieces[(seed % pieces.len() as u64) as usize]);
            }
            let mut back = Vec::new();
            for part in decode_input(&input) {
                match part {
                    InputPart::Text(text) => back.extend_from_slice(text.as_bytes()),
                    InputPart::Paste(text) => {
                        back.extend_from_slice(format!("\x1b[200~{text}\x1b[201~").as_bytes())
                    }
                    InputPart::Other(bytes) => back.extend_from_slice(&bytes),
                    InputPart::Key(key) => {
                        let plain = key.encode(KeyModes::default());
                        let application = key.encode(KeyModes {
                            application_cursor: true,
                            ..KeyModes::default()
                        });
                        let rest = &input[back.len()..];
                        back.extend_from_slice(if rest.starts_with(&plain) {
                            &plain
                        } else {
                            &application
                        });
                    }
                }
            }
            assert_eq!(back, input, "{:?}", String::from_utf8_lossy(&input));
        }
    }
}
