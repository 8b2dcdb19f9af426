//! Printing replies: text for people, one JSON value with `--json`.

use std::io::Write;

use serde_json::{Value, json};
use tuipilot::operation::{ExitReport, Screen};

use crate::error::Failure;

/// Prints one line on stdout. A reader that has gone away (`tuipilot describe | head`) is
/// not an error: the rest of the output is dropped and the command finishes normally (a
/// `once` still ends its program).
pub(super) fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::internal(format!("writing the output: {e}")))
        }
        _ => Ok(()),
    }
}

/// `text` safe to print on the operator's terminal: control characters from tapes,
/// programs' command lines or session names (an escape sequence that sets the title, moves
/// the cursor or rewrites what was printed) are shown as escapes (`\e`, `\x07`, `\u{9b}`);
/// newlines and tabs stay.
pub(crate) fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\u{1b}' => out.push_str("\\e"),
            c if unsafe_char(c) && u32::from(c) < 0x80 => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Prints `value` as JSON with the session's name added.
pub(super) fn print_json(name: &str, value: &impl serde::Serialize) -> Result<(), Failure> {
    let mut value =
        serde_json::to_value(value).map_err(|e| Failure::internal(format!("encoding the output: {e}")))?;
    if let Value::Object(object) = &mut value {
        object.insert("session".into(), json!(name));
    }
    say!("{value}");
    Ok(())
}

/// Prints a screen: its text, or with `--json` its fields (`text`, `cols`, `rows`,
/// `cursor`, …) with the session's name.
pub(super) fn print_screen(name: &str, json: bool, screen: &Screen, print_text: bool) -> Result<(), Failure> {
    if json {
        print_json(name, screen)
    } else {
        if print_text {
            say!("{}", screen.text);
        }
        Ok(())
    }
}

/// Prints how the program ended: `exited with code N` / `killed by SIGNAME`, or the JSON.
pub(super) fn print_exit(name: &str, json: bool, exit: ExitReport) -> Result<(), Failure> {
    if json {
        print_json(name, &exit)
    } else {
        say!("{}", exit.words());
        Ok(())
    }
}

/// A reaction that may still be pending, and what the wait did not wait for, said on
/// stderr a line each whatever the output's form (`--json` carries them as `pending` and
/// `unwaited` too): a stale screen is never printed without a word.
pub(super) fn note_pending(pending: Option<&str>, unwaited: Option<&str>) {
    for note in tuipilot::operation::wait_notes(pending, unwaited) {
        eprintln!("tuipilot: note: {}", printable(&note));
    }
}

/// After a PNG was drawn: a one-line hint on stderr naming the font package that would
/// draw the characters shown as boxes, if any.
pub(super) fn hint_missing_glyphs(screen: &Screen) {
    if screen.width.is_some()
        && let Some(hint) = tuipilot::render::missing_glyphs_hint(&screen.missing_glyphs)
    {
        eprintln!("tuipilot: {hint}");
    }
}
