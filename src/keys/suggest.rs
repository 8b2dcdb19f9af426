//! What an unknown key name's error suggests: our spelling of another tool's name
//! (`Ctl-c`, `<C-c>`, `ArrowUp`, `KEY_UP`), else the closest names by edit distance.

use super::{KEY_NAMES, Key, KeyCode, NAMES, parse_code};
use crate::error::Error;

/// Modifier spellings other tools use, and ours, longest first.
const FOREIGN_MODIFIERS: &[(&str, &str)] = &[
    ("control-", "C-"),
    ("control+", "C-"),
    ("option-", "M-"),
    ("option+", "M-"),
    ("shift-", "S-"),
    ("shift+", "S-"),
    ("ctrl-", "C-"),
    ("ctrl+", "C-"),
    ("meta-", "M-"),
    ("meta+", "M-"),
    ("ctl-", "C-"),
    ("ctl+", "C-"),
    ("alt-", "M-"),
    ("alt+", "M-"),
    ("opt-", "M-"),
    ("opt+", "M-"),
    ("c-", "C-"),
    ("m-", "M-"),
    ("a-", "M-"),
    ("s-", "S-"),
];

/// Key names other tools use (JavaScript's `ArrowUp`, curses' `KEY_UP`, tmux's `BTab`,
/// vim's `<CR>` once its brackets are off), lower-cased without `_`, `-` or spaces.
const FOREIGN_NAMES: &[(&str, &str)] = &[
    ("arrowup", "Up"),
    ("arrowdown", "Down"),
    ("arrowleft", "Left"),
    ("arrowright", "Right"),
    ("keyup", "Up"),
    ("keydown", "Down"),
    ("keyleft", "Left"),
    ("keyright", "Right"),
    ("keyhome", "Home"),
    ("keyend", "End"),
    ("keyenter", "Enter"),
    ("keybackspace", "Backspace"),
    ("keydc", "Delete"),
    ("keyic", "Insert"),
    ("keyppage", "PageUp"),
    ("keynpage", "PageDown"),
    ("btab", "S-Tab"),
    ("backtab", "S-Tab"),
    ("prior", "PageUp"),
    ("next", "PageDown"),
    ("pagedn", "PageDown"),
    ("newline", "Enter"),
    ("linefeed", "Enter"),
    ("lf", "Enter"),
    ("nl", "Enter"),
    ("bksp", "Backspace"),
    ("back", "Backspace"),
    ("leftarrow", "Left"),
    ("rightarrow", "Right"),
    ("uparrow", "Up"),
    ("downarrow", "Down"),
];

/// `spec` rewritten from another tool's spelling into ours (`Ctl-c` → `C-c`, `<C-c>` →
/// `C-c`, `ArrowUp` → `Up`), if that gives a key this grammar knows.
fn translate_foreign(spec: &str) -> Option<String> {
    let mut rest = spec.trim();
    if let Some(inner) = rest.strip_prefix('<').and_then(|r| r.strip_suffix('>')) {
        rest = inner;
    }
    let mut mods = String::new();
    loop {
        let lower = rest.to_ascii_lowercase();
        let Some((prefix, ours)) = FOREIGN_MODIFIERS
            .iter()
            .find(|(p, _)| lower.starts_with(p) && lower.len() > p.len())
        else {
            break;
        };
        mods.push_str(ours);
        rest = &rest[prefix.len()..];
    }
    let squashed: String = rest
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    let name = FOREIGN_NAMES
        .iter()
        .find(|(foreign, _)| *foreign == squashed)
        .map_or(rest, |(_, ours)| ours);
    let candidate = format!("{mods}{name}");
    if candidate == spec {
        return None;
    }
    // Said back in the canonical spelling: `<CR>` suggests `Enter`, not `CR`.
    Key::parse(&candidate).ok().map(|key| key.to_string())
}

/// The error for `spec`, whose key name `name` is not in the grammar.
pub(super) fn unknown_key(spec: &str, name: &str) -> Error {
    if let Some(ours) = translate_foreign(spec) {
        return Error::UnknownKey {
            spec: spec.to_string(),
            suggestions: vec![ours],
            names: super::KEY_NAMES,
        };
    }
    let lower = name.to_ascii_lowercase();
    let mut scored: Vec<(usize, &str)> = NAMES
        .iter()
        .map(|(n, code)| (edit_distance(&lower, n), canonical_name(*code)))
        .filter(|(d, _)| *d <= 2.max(lower.len() / 3))
        .collect();
    scored.sort();
    let mut suggestions: Vec<String> = Vec::new();
    for (_, name) in scored {
        if !suggestions.iter().any(|s| s == name) && suggestions.len() < 3 {
            suggestions.push(name.to_string());
        }
    }
    Error::UnknownKey {
        spec: spec.to_string(),
        suggestions,
        names: super::KEY_NAMES,
    }
}

fn canonical_name(code: KeyCode) -> &'static str {
    KEY_NAMES
        .iter()
        .copied()
        .find(|n| parse_code(n) == Some(code))
        .unwrap_or("Enter")
}

/// Levenshtein distance, for suggesting the closest key names.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}
