//! The `export` target: any text a session logged — typed, pasted, pressed as keys, waited
//! for, an environment value, a program's argument, an error — exported as a tape parses
//! back into exactly the operations logged, nothing more and nothing lost; and exported
//! as a Rust test it adds no line of its own. The program's argument vector, folder and
//! environment (names and values) are any bytes but NUL — controls, ESC, quotes, line
//! breaks, bytes that are not UTF-8 — and come back as exactly those bytes in the tape's
//! `Start`, `Start+Dir` and `Env`, which the runner hands to the program as they are (no
//! shell reads them). The same check runs over generated texts in `tests/export.rs`, which
//! also replays some and reads what the program received.

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::PathBuf;

use tuipilot::StartSpec;
use tuipilot::keys::parse_key_list;
use tuipilot::operation::{LoggedOperation, Operation, Step, WaitFor};
use tuipilot::tape::export::{ExportOptions, row_pattern, row_pattern_in, to_rust, to_tape};
use tuipilot::tape::{CommandKind, Scope, Tape, WaitKind};

use super::Rng;

/// What the lexer, the shell and a terminal treat specially, and ordinary text.
const EXPORT_PARTS: &[&str] = &[
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\x1b",
    "\0",
    "\x7f",
    "\x15",
    "\x17",
    "\x16",
    "\x04",
    "\u{85}",
    "\u{2028}",
    "\u{2029}",
    "\u{202e}",
    "\u{200b}",
    "\u{feff}",
    "\u{a0}",
    "\"",
    "'",
    "`",
    "$\"",
    "$",
    "\\",
    "\\\"",
    "\\n",
    "\\u{41}",
    "#",
    "/",
    "\\/",
    "{",
    "}",
    "@",
    "+",
    ",",
    " ",
    "  ",
    "Type ",
    "Enter",
    "Key C-d",
    "Env X y",
    "Copy",
    "Paste",
    "Output /tmp/x.gif",
    "Ctrl+C",
    "touch PWN",
    "; touch PWN #",
    "\"########",
    "r#\"",
    "*/",
    "// ",
    "\"); std::process::exit(3); (\"",
    "a",
    "echo",
    "漢字",
    "😀",
    "é",
];

/// Bytes that are not UTF-8 on their own: a lone continuation byte, a lead byte cut short,
/// bytes never in UTF-8, and an overlong slash.
const RAW_PARTS: &[&[u8]] = &[b"\xff", b"\x80", b"\xc3", b"\xe2\x80", b"\xfe\xfe", b"\xc0\xaf"];

/// Input built from [`EXPORT_PARTS`] and, now and then, [`RAW_PARTS`].
pub(crate) fn export_input(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..rng.below(24) {
        if rng.below(6) == 0 {
            bytes.extend_from_slice(rng.pick::<&[u8]>(RAW_PARTS));
        } else {
            bytes.extend_from_slice(rng.pick::<&str>(EXPORT_PARTS).as_bytes());
        }
    }
    bytes
}

/// `input` as a word a program can be given (an argument, a folder, an environment name
/// or value): every byte but NUL, which no word can hold; an environment name has no `=`
/// either and is never empty.
pub fn start_word(input: &[u8]) -> OsString {
    OsString::from_vec(input.iter().copied().filter(|b| *b != 0).collect())
}

/// `input` as an environment variable's name.
pub fn env_name(input: &[u8]) -> OsString {
    let mut name: Vec<u8> = input.iter().copied().filter(|b| *b != 0 && *b != b'=').collect();
    name.splice(0..0, *b"TPN_");
    OsString::from_vec(name)
}

/// The keys a text's characters name, one by one (a space as `Space`, a comma as `comma`),
/// as one list; `None` when no character is a key.
fn keys_of(text: &str) -> Option<String> {
    let names: Vec<String> = text
        .chars()
        .filter_map(|c| match c {
            ',' => Some("comma".to_string()),
            ' ' => Some("Space".to_string()),
            c => tuipilot::keys::Key::parse(&c.to_string())
                .ok()
                .map(|k| k.to_string()),
        })
        .collect();
    (!names.is_empty()).then(|| names.join(" "))
}

/// A logged operation that took a millisecond at the session's start, failed with `error`
/// where one is given.
pub(crate) fn logged(operation: Operation, error: Option<&str>) -> LoggedOperation {
    LoggedOperation {
        operation,
        at_ms: 0,
        took_ms: 1,
        error: error.map(str::to_string),
        screen: None,
        waited: None,
        ready_before: None,
        cut_bytes: 0,
        ended_us: 0,
        by_person: false,
        source: None,
        failed_after_input: None,
    }
}

fn send(steps: Vec<Step>) -> Operation {
    Operation::Send {
        steps,
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    }
}

/// A session's start and log carrying `input` in every place an export writes text: as
/// its bytes in the start's words, as text elsewhere.
fn session_with(input: &[u8], keys: Option<&str>) -> (StartSpec, Vec<LoggedOperation>) {
    let text = &*String::from_utf8_lossy(input);
    let mut start = StartSpec::new(["prog".into(), start_word(input)]);
    start.cwd = Some(PathBuf::from(start_word(input)));
    start.env = vec![("TEXT".into(), start_word(input)), (env_name(input), "v".into())];
    let mut log = vec![
        logged(send(vec![Step::Text(text.into())]), None),
        logged(send(vec![Step::Paste(text.into())]), None),
        logged(
            Operation::Wait {
                condition: WaitFor::Text(regex::escape(text)),
                timeout_ms: Some(1500),
            },
            None,
        ),
        logged(send(vec![Step::Text(text.into())]), Some(text)),
    ];
    if let Some(keys) = keys {
        log.push(logged(send(vec![Step::Keys(keys.into())]), None));
    }
    log.push(logged(send(vec![Step::TextPerKey(text.into())]), None));
    (start, log)
}

/// What an exported tape must give back: the texts, in order, of the commands that carry
/// them (`Env`, `Start`, `Type`, `Copy`, a key list, a screen pattern).
#[derive(Debug, PartialEq)]
enum Carried {
    Env(OsString, OsString),
    Start(Vec<OsString>, Option<PathBuf>),
    Type(String),
    TypePerKey(String),
    Copy(String),
    Paste,
    Keys(Vec<tuipilot::keys::Key>),
    Screen(String),
}

/// The commands of a parsed export that carry text, and how many commands there are.
fn carried(tape: &Tape) -> Result<(Vec<Carried>, usize), String> {
    let mut out = Vec::new();
    let mut launched = false;
    for command in &tape.commands {
        match &command.kind {
            CommandKind::Env(name, value) => out.push(Carried::Env(name.clone(), value.clone())),
            CommandKind::Start { command, dir } => {
                launched = true;
                out.push(Carried::Start(command.clone(), dir.clone()));
            }
            CommandKind::Type { text, .. } => out.push(Carried::Type(text.clone())),
            CommandKind::TypePerKey(text) => out.push(Carried::TypePerKey(text.clone())),
            CommandKind::Copy(text) => out.push(Carried::Copy(text.clone())),
            CommandKind::Paste => out.push(Carried::Paste),
            CommandKind::Keys { keys, .. } if launched => out.push(Carried::Keys(
                parse_key_list(keys).map_err(|e| format!("a key line does not parse back: {e}"))?,
            )),
            CommandKind::Wait {
                kind: WaitKind::Pattern(Scope::Screen, Some(pattern)),
                ..
            } => out.push(Carried::Screen(pattern.clone())),
            _ => {}
        }
    }
    Ok((out, tape.commands.len()))
}

/// Exports, parses back and compares; the Rust export must have the lines it has for a
/// plain text.
pub(crate) fn check_export(input: &[u8]) -> Result<(), String> {
    let text = &*String::from_utf8_lossy(input);
    let keys = keys_of(text);
    let options = ExportOptions {
        include_env: true,
        in_place: true,
        ..ExportOptions::default()
    };
    let (start, log) = session_with(input, keys.as_deref());
    let exported = to_tape(&start, &log, "export", &options).map_err(|e| format!("refused: {e}"))?;
    let tape = Tape::parse_str(&exported.tape, "export.tape")
        .map_err(|e| format!("the export does not parse: {e}\n{}", exported.tape))?;
    let (got, count) = carried(&tape)?;
    let mut want = vec![
        Carried::Env("TEXT".into(), start_word(input)),
        Carried::Env(env_name(input), "v".into()),
        Carried::Start(start.command.clone(), start.cwd.clone()),
        Carried::Type(text.into()),
        Carried::Copy(text.into()),
        Carried::Paste,
    ];
    let screen_pattern = match got.get(6) {
        Some(Carried::Screen(pattern)) => pattern.clone(),
        other => return Err(format!("the screen wait came back as {other:?}")),
    };
    let whole = regex::Regex::new(&format!("^(?:{screen_pattern})$")).map_err(|e| e.to_string())?;
    if !whole.is_match(text) {
        return Err(format!(
            "the screen wait /{screen_pattern}/ no longer matches {text:?}"
        ));
    }
    want.push(Carried::Screen(screen_pattern));
    if let Some(keys) = &keys {
        want.push(Carried::Keys(parse_key_list(keys).map_err(|e| e.to_string())?));
    }
    want.push(Carried::TypePerKey(text.into()));
    if got != want {
        return Err(format!(
            "export then parse gave {got:?}, not {want:?}\n{}",
            exported.tape
        ));
    }
    // Nothing more: a plain text's export has as many commands and Rust lines.
    let plain_keys = keys.as_ref().map(|k| vec!["x"; k.split(' ').count()].join(" "));
    let (plain_start, plain_log) = session_with(b"x", plain_keys.as_deref());
    let plain = to_tape(&plain_start, &plain_log, "export", &options).map_err(|e| e.to_string())?;
    let plain_count = Tape::parse_str(&plain.tape, "plain.tape")
        .map_err(|e| e.to_string())?
        .commands
        .len();
    if count != plain_count {
        return Err(format!(
            "the export has {count} commands where a plain text's has {plain_count}\n{}",
            exported.tape
        ));
    }
    let rust = to_rust(&start, &log, "replays", &options).map_err(|e| format!("refused: {e}"))?;
    let plain_rust = to_rust(&plain_start, &plain_log, "replays", &options).map_err(|e| e.to_string())?;
    if rust.lines().count() != plain_rust.lines().count() {
        return Err(format!(
            "the Rust export has lines a plain text's has not:\n{rust}"
        ));
    }
    // An expected row holds on the row it was made from, with the session's folder (the
    // text's own first word, as a path) matching anything in it.
    let folder = PathBuf::from("/home/me").join(start_word(input).to_string_lossy().replace('/', "_"));
    let map = tuipilot::files::WorldMap {
        base: "/home/me".into(),
        cwd: folder.clone(),
        roots: vec![folder],
        home: Some("/home/me".into()),
        summary: String::new(),
    };
    for row in text.split('\n') {
        for pattern in [row_pattern(row), row_pattern_in(row, Some(&map))] {
            let re = regex::Regex::new(&pattern).map_err(|e| format!("/{pattern}/ is not a regex: {e}"))?;
            if !re.is_match(row) {
                return Err(format!("the expected row /{pattern}/ does not match {row:?}"));
            }
        }
    }
    Ok(())
}
