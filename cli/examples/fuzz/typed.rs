//! The `typed` target: whatever bytes a person types into a watched or recorded session
//! (text, keys in either cursor mode, pastes, mouse reports, stray escapes, bytes that are
//! not UTF-8), logged as typed by a person and exported as a tape, parse back into tape
//! commands that send exactly those bytes again (`Bytes` for those that are not UTF-8) —
//! no command more, none lost; and the
//! mouse reports a person's terminal sends read back as the events that encode them.

use tuipilot::StartSpec;
use tuipilot::keys::mouse::{MouseEncoding, MouseEvent, MouseModes, MouseTracking};
use tuipilot::keys::{KeyModes, parse_key_list};
use tuipilot::operation::{Operation, Step};
use tuipilot::tape::export::{ExportOptions, to_tape};
use tuipilot::tape::{CommandKind, Tape};

use super::Rng;
use super::export::logged;

/// What a person's terminal sends, whole and in pieces.
const TYPED_PARTS: &[&[u8]] = &[
    b"a",
    b"ls -la",
    b" ",
    b"\r",
    b"\n",
    b"\t",
    b"\x7f",
    b"\x03",
    b"\x1b",
    b"\x1bx",
    b"\x1b[A",
    b"\x1bOB",
    b"\x1b[1;5C",
    b"\x1b[15~",
    b"\x1b[200~",
    b"\x1b[201~",
    b"\x1b[200~pasted\x1b[201~",
    b"\x1b[<0;12;3M",
    b"\x1b[<0;12;3m",
    b"\x1b[<64;1;1M",
    b"\x1b[<35;80;24M",
    b"\x1b[<",
    b"\x1b[M !!",
    b"\xff",
    b"\xc3",
    b"\xa9",
    "é漢😀".as_bytes(),
    b"#",
    b"\"",
    b"'",
    b"`",
    b"$",
    b"\\",
    b"Type \"x\"",
    b"\nSleep 1s\n",
    b"\x00",
    b"\x1b]0;title\x07",
    b"\x9b",
    b"~",
    b"[",
    b";",
];

pub(super) fn typed_input(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = Vec::new();
    for _ in 0..1 + rng.below(24) {
        if rng.chance(10) {
            bytes.push(rng.next() as u8);
        } else {
            bytes.extend_from_slice(rng.pick::<&[u8]>(TYPED_PARTS));
        }
    }
    bytes
}

/// The bytes a tape's commands send (the program starts by `Start`, nothing typed), a key
/// in whichever cursor mode spells the original at that point.
fn replayed(tape: &Tape, original: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut copied = String::new();
    for command in &tape.commands {
        match &command.kind {
            CommandKind::Type { text, .. } => out.extend_from_slice(text.as_bytes()),
            CommandKind::Bytes(bytes) => out.extend_from_slice(bytes),
            CommandKind::Keys { keys, .. } => {
                for key in parse_key_list(keys).map_err(|e| format!("a key line does not parse back: {e}"))? {
                    let plain = key.encode(KeyModes::default());
                    let application = key.encode(KeyModes {
                        application_cursor: true,
                        ..KeyModes::default()
                    });
                    let rest = original.get(out.len()..).unwrap_or_default();
                    out.extend_from_slice(if rest.starts_with(&application) && !rest.starts_with(&plain) {
                        &application
                    } else {
                        &plain
                    });
                }
            }
            CommandKind::Copy(text) => copied = text.clone(),
            CommandKind::Paste => out.extend_from_slice(format!("\x1b[200~{copied}\x1b[201~").as_bytes()),
            _ => {}
        }
    }
    Ok(out)
}

pub(super) fn check_typed(bytes: &[u8]) -> Result<(), String> {
    let mut entry = logged(
        Operation::Send {
            steps: vec![Step::Bytes(bytes.to_vec())],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        },
        None,
    );
    entry.by_person = true;
    let exported = to_tape(
        &StartSpec::new(["prog"]),
        &[entry],
        "typed",
        &ExportOptions::default(),
    )
    .map_err(|e| format!("refused: {e}"))?;
    let tape = Tape::parse_str(&exported.tape, "typed.tape")
        .map_err(|e| format!("the export does not parse: {e}\n{}", exported.tape))?;
    // Every byte comes back, those that are not UTF-8 by `Bytes`.
    let back = replayed(&tape, bytes)?;
    if back != bytes {
        return Err(format!(
            "the tape sends {:?}, not the {:?} typed\n{}",
            String::from_utf8_lossy(&back),
            String::from_utf8_lossy(bytes),
            exported.tape
        ));
    }
    // Every mouse report read back is the event that encodes to a report reading the same.
    let sgr = MouseModes {
        tracking: MouseTracking::Any,
        encoding: MouseEncoding::Sgr,
    };
    for start in 0..bytes.len() {
        if let Some((event, length)) = MouseEvent::from_sgr(&bytes[start..]) {
            if length == 0 || start + length > bytes.len() {
                return Err(format!("a mouse report of {length} bytes at {start}"));
            }
            let encoded = event.encode(sgr, (8, 16)).ok_or("a read event does not encode")?;
            if MouseEvent::from_sgr(&encoded).map(|(e, _)| e) != Some(event) {
                return Err(format!(
                    "{event:?} does not read back from {:?}",
                    String::from_utf8_lossy(&encoded)
                ));
            }
        }
    }
    Ok(())
}
