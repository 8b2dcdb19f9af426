//! The `tape` target: the tape parser on mutated real tapes and soups of its tokens.

use tuipilot::tape::Tape;

use super::Rng;

/// Real tapes, the seeds the mutations start from.
const TAPES: &[&str] = &[
    include_str!("../../../tests/tapes/shell.tape"),
    include_str!("../../../tests/tapes/keys.tape"),
    include_str!("../../../tests/tapes/waits.tape"),
    include_str!("../../../tests/tapes/session.tape"),
    include_str!("../../../tests/tapes/settings.tape"),
    include_str!("../../../tests/tapes/vim.tape"),
    include_str!("../../../tests/vhs-tapes/demo.tape"),
    include_str!("../../../tests/vhs-tapes/type.tape"),
];

/// The tape language's own pieces, in and out of place.
const TAPE_PARTS: &[&str] = &[
    "Type",
    "Type@",
    "Sleep",
    "Wait",
    "Wait+Line",
    "Wait+Screen",
    "Wait+Stable",
    "Wait+Exit",
    "Wait+Output",
    "Wait@",
    "Expect",
    "Expect+Line",
    "ExpectNot",
    "ExpectExit",
    "Snapshot",
    "Mask",
    "Resize",
    "Key",
    "Set",
    "Shell",
    "FontSize",
    "Width",
    "Height",
    "Theme",
    "TypingSpeed",
    "WaitPattern",
    "WaitTimeout",
    "Padding",
    "LineHeight",
    "LetterSpacing",
    "Framerate",
    "PlaybackSpeed",
    "WindowBar",
    "Output",
    "Require",
    "Source",
    "Env",
    "Hide",
    "Show",
    "Screenshot",
    "Copy",
    "Paste",
    "Subtitle",
    "Enter",
    "Backspace",
    "Up",
    "PageDown",
    "ScrollUp",
    "ScrollDown",
    "Ctrl+",
    "Alt+",
    "Shift+",
    "C-x",
    "F5",
    "Home",
    "Tpye",
    "type",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "#",
    "# comment\n",
    "@",
    "+",
    "\"",
    "'",
    "`",
    "\\",
    "/",
    "/(/",
    "/>$/",
    "/a\\/b/",
    "\"text\"",
    "'it''s'",
    "`b`",
    "{\"background\": \"#000\"}",
    "{",
    "}",
    "0",
    "1",
    "-1",
    "3.5",
    ".5",
    "500ms",
    "2s",
    "1m",
    "1h",
    "ms",
    "99999999999999999999",
    "1e9",
    "x.png",
    "x.txt",
    "x.gif",
    "dir/",
    "missing.tape",
    "bash",
    "Dracula",
    "漢",
    "😀",
    "\u{0}",
    "\u{feff}",
    ",",
    ";",
];

pub(super) fn tape_input(rng: &mut Rng) -> Vec<u8> {
    if rng.chance(2) {
        // A `Type` of up to 4 MiB, at a person's speed or at once, amid other lines.
        let piece = rng.pick::<&str>(&["a", "漢", "é1", "\\\"", "😀x"]);
        let text = piece.repeat(1 + rng.below(4 << 20) / piece.len());
        let speed = rng.pick::<&str>(&["", "@1ms", "@0"]);
        return format!("Set TypingSpeed 10ms\nType{speed} \"{text}\"\nEnter\n").into_bytes();
    }
    if rng.chance(50) {
        let mut tape = rng.pick::<&str>(TAPES).as_bytes().to_vec();
        for _ in 0..1 + rng.below(8) {
            let at = rng.below(tape.len() + 1);
            match rng.below(4) {
                0 if at < tape.len() => {
                    tape.remove(at);
                }
                1 => tape
                    .splice(at..at, rng.pick::<&str>(TAPE_PARTS).bytes())
                    .for_each(drop),
                2 if at < tape.len() => tape[at] = rng.next() as u8,
                _ => {
                    let end = (at + rng.below(40)).min(tape.len());
                    tape.drain(at..end);
                }
            }
        }
        tape
    } else {
        let mut tape = String::new();
        for _ in 0..1 + rng.below(60) {
            tape.push_str(rng.pick::<&str>(TAPE_PARTS));
            if rng.chance(40) {
                tape.push(' ');
            }
        }
        tape.into_bytes()
    }
}

pub(super) fn check_tape(input: &str) -> Result<(), String> {
    // A folder that does not exist: `Source` finds nothing beside it.
    let path = std::path::Path::new("/nonexistent-fuzz/t.tape");
    let lines = input.split('\n').count() as u32;
    let parsed = Tape::parse_str(input, path);
    if parsed != Tape::parse_str(input, path) {
        return Err("parsing twice gives two results".into());
    }
    match parsed {
        Ok(tape) => {
            for command in tape.commands.iter().filter(|c| c.location.file.as_path() == path) {
                let place = &command.location;
                if place.line == 0 || place.line > lines || place.col == 0 {
                    return Err(format!("{place} is outside the tape's {lines} lines"));
                }
                // A command spread over lines is quoted on one, token by token.
                if command.source.is_empty() || !command.source.split(' ').all(|piece| input.contains(piece))
                {
                    return Err(format!("{place}: `{}` is not in the tape", command.source));
                }
            }
        }
        Err(errors) => {
            if errors.0.is_empty() {
                return Err("a parse error with no errors".into());
            }
            for error in &errors.0 {
                let place = &error.location;
                if place.line == 0 || place.line > lines || place.col == 0 {
                    return Err(format!("error at {place}, outside the tape's {lines} lines"));
                }
                if error.message.is_empty() || error.message.contains('\n') {
                    return Err(format!("{place}: not a one-line message: {:?}", error.message));
                }
            }
        }
    }
    Ok(())
}
