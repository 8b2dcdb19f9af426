//! What a person pressed, from the bytes a program was sent: the keystroke overlay's
//! labels (`Ctrl+C`, `↓`, `Enter`, typed text). Built by running the encoder backwards:
//! every named key with every modifier combination is encoded in both cursor modes, and
//! input is matched against those sequences, longest first.

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

/// Every encoded sequence of a named or control key, and its label.
fn table() -> &'static HashMap<Vec<u8>, String> {
    static TABLE: OnceLock<HashMap<Vec<u8>, String>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        let mut add = |key: Key| {
            for application_cursor in [false, true] {
                let bytes = key.encode(KeyModes {
                    application_cursor,
                    ..KeyModes::default()
                });
                // The first spelling wins: plain before modified, so ESC stays `Esc`.
                table.entry(bytes).or_insert_with(|| label(key));
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

/// The labels of what `input` (as sent to a program) types: keys by name, runs of
/// printable text as the text, a bracketed paste as `paste …`.
pub fn describe_input(input: &str) -> Vec<String> {
    let table = table();
    let longest = table.keys().map(Vec::len).max().unwrap_or(1);
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = input;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix(PASTE_START) {
            let (pasted, tail) = after.split_once(PASTE_END).unwrap_or((after, ""));
            flush(&mut out, &mut text);
            out.push(format!("paste {}", shorten(pasted)));
            rest = tail;
            continue;
        }
        let first = rest.chars().next().unwrap_or(' ');
        if !first.is_control() || first == ' ' {
            text.push(first);
            rest = &rest[first.len_utf8()..];
            continue;
        }
        let bytes = rest.as_bytes();
        let matched = (1..=longest.min(bytes.len()))
            .rev()
            .filter(|n| rest.is_char_boundary(*n))
            .find_map(|n| table.get(&bytes[..n]).map(|name| (n, name.clone())));
        flush(&mut out, &mut text);
        match matched {
            Some((n, name)) => {
                out.push(name);
                rest = &rest[n..];
            }
            None => {
                out.push(format!("{:?}", first).trim_matches('\'').to_string());
                rest = &rest[first.len_utf8()..];
            }
        }
    }
    flush(&mut out, &mut text);
    out
}

fn flush(out: &mut Vec<String>, text: &mut String) {
    if !text.is_empty() {
        out.push(shorten(text));
        text.clear();
    }
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
    }
}
