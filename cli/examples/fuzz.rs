//! The fuzz harness that stays: random and mutated inputs through everything that reads
//! what the outside world sends, on the stable toolchain.
//!
//! Targets:
//! - `terminal`: program output through [`Terminal`] at a random size — fragments of
//!   escape sequences, strings, UTF-8 and controls, huge parameters — fed whole, byte by
//!   byte, and split at every boundary (short inputs) or at random ones (long inputs); the
//!   screens and replies must be the same every way, and the parser must not fault;
//! - `keys`: the key grammar (`Key::parse`, `parse_key_list`) and every parsed key's
//!   encoding in both cursor modes;
//! - `protocol`: the host's request-line parser on mutated valid requests and noise;
//! - `tape`: the tape parser on mutated real tapes and on soups of the language's own
//!   tokens; every error must be one line at a place inside the tape, every command's
//!   place and text must be the tape's, and parsing twice must give the same result.
//!
//! Zero panics and zero hangs: each input runs under a time bound ([`PER_INPUT`]); a
//! panic, a hang, a fault or a split that changes the screen stops the run, writes the
//! input to `fuzz-failure-TARGET.bin` and exits 1. Counts are printed per target.
//!
//! `cargo run --release -p tuipilot-cli --example fuzz -- [--seconds N] [--seed S]`

#![allow(dead_code, missing_docs)]

#[path = "../src/error.rs"]
mod error;
#[path = "../src/host/protocol.rs"]
mod protocol;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tuipilot::keys::parse_key_list;
use tuipilot::tape::Tape;
use tuipilot::{Key, KeyModes, Terminal};

/// The longest any one input may take.
const PER_INPUT: Duration = Duration::from_secs(5);

/// splitmix64: small, fast, and reproducible from a seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// Pieces real programs' output is made of, and some it should never be.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b[",
    b"\x1b]",
    b"\x1bP",
    b"\x1b_",
    b"\x1b^",
    b"\x1bX",
    b"\x1b\\",
    b"\x07",
    b"\x1b",
    b"\x1b(0",
    b"\x1b)0",
    b"\x1b(B",
    b"\x0e",
    b"\x0f",
    b"\x1b7",
    b"\x1b8",
    b"\x1bD",
    b"\x1bE",
    b"\x1bM",
    b"\x1bc",
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1b[?7l",
    b"\x1b[?7h",
    b"\x1b[4h",
    b"\x1b[4l",
    b"\x1b[?1047h",
    b"\x1b[?1048l",
    b"\x1b[s",
    b"\x1b[u",
    b"\x1b[6n",
    b"\x1b[?6n",
    b"\x1b[c",
    b"\x1b[>c",
    b"\x1b[5n",
    b"\x1b]11;?\x07",
    b"\x1b]4;1;?\x1b\\",
    b"\x1b[?2004h",
    b"\x1b[?1u",
    b"\x1b[>q",
    b"\x1bP+q544e\x1b\\",
    b"\x1bP$qm\x1b\\",
    b"\x1b[?25$p",
    b"\x1b[14t",
    b"\x1b[18t",
    b"\x1b[38;5;208m",
    b"\x1b[48;2;1;2;3m",
    b"\x1b[58:2::1:2:3m",
    b"\x1b[4:3m",
    b"\x1b[0m",
    b"\x1b[1;31m",
    b"\x1b[65535b",
    b"\x1b[99999999999999999999b",
    b"\x1b[65535@",
    b"\x1b[65535L",
    b"\x1b[65535M",
    b"\x1b[65535S",
    b"\x1b[65535T",
    b"\x1b[65535X",
    b"\x1b[65535P",
    b"\x1b[65535;65535H",
    b"\x1b[0;0r",
    b"\x1b[5;2r",
    b"\x1b[2J",
    b"\x1b[3J",
    b"\x1b[K",
    b"\x1b[1K",
    b"\r\n",
    b"\n",
    b"\r",
    b"\t",
    b"\x08",
    b"\x7f",
    b"\x00",
    b"\x18",
    b"\x1a",
    b"\x9b",
    b"\xc2\x9b",
    b"\xe2\x94\x80",
    b"\xf0\x9f\x98\x80",
    b"\xe6\xbc\xa2",
    b"\xcc\x81",
    b"\xe2\x80\x8d",
    b"\xef\xb8\x8f",
    b"\xff",
    b"\xc3",
    b"\xe2\x94",
    b"hello world",
    b"x",
    b";",
    b":",
    b"?",
    b">",
    b"=",
    b"0",
    b"9",
    b"1000",
    b"65536",
    b"m",
    b"h",
    b"l",
    b"H",
];

fn terminal_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let most = if rng.chance(10) { 400 } else { 40 };
    let pieces = 1 + rng.below(most);
    for _ in 0..pieces {
        match rng.below(10) {
            0 => out.extend((0..rng.below(16)).map(|_| rng.next() as u8)),
            1 => {
                // A CSI with random parameters, intermediates and final.
                out.extend_from_slice(b"\x1b[");
                if rng.chance(30) {
                    out.push(*rng.pick(b"?<=>"));
                }
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(*rng.pick(b";:"));
                    }
                    let digits = rng.next().to_string();
                    let len = (1 + rng.below(8)).min(digits.len());
                    out.extend_from_slice(&digits.as_bytes()[..len]);
                }
                if rng.chance(10) {
                    out.push(*rng.pick(b" !\"$'"));
                }
                out.push(0x40 + rng.below(0x3f) as u8);
            }
            2 => {
                // An OSC or DCS string, long or short, terminated or not.
                let opener: &[u8] = rng.pick::<&[u8]>(&[&b"\x1b]"[..], b"\x1bP", b"\x1b_"]);
                out.extend_from_slice(opener);
                let most = if rng.chance(5) { 5000 } else { 40 };
                let len = rng.below(most);
                out.extend((0..len).map(|_| 0x20 + rng.below(0x5f) as u8));
                if rng.chance(80) {
                    let end: &[u8] = rng.pick::<&[u8]>(&[&b"\x07"[..], b"\x1b\\"]);
                    out.extend_from_slice(end);
                }
            }
            3 => {
                // An image command: kitty keys with random numbers (huge ones too), a
                // sixel with random bands, registers, repeats and raster size, or an
                // iTerm2 file with random sizes; base64 payloads of random length.
                let number = |rng: &mut Rng| {
                    let digits = rng.next().to_string();
                    digits[..(1 + rng.below(12)).min(digits.len())].to_string()
                };
                match rng.below(3) {
                    0 => {
                        out.extend_from_slice(b"\x1b_G");
                        for i in 0..rng.below(8) {
                            if i > 0 {
                                out.push(b',');
                            }
                            out.push(*rng.pick(b"afstvoiIpmqcrxywhCzdSO"));
                            out.push(b'=');
                            if rng.chance(30) {
                                out.push(*rng.pick(b"tTpdqaAiIcCzZxXyYfd"));
                            } else {
                                out.extend_from_slice(number(rng).as_bytes());
                            }
                        }
                        out.push(b';');
                        out.extend((0..rng.below(64)).map(|_| *rng.pick(b"AQgw/+=ABCD")));
                    }
                    1 => {
                        out.extend_from_slice(b"\x1bP0;1;0q");
                        for _ in 0..rng.below(30) {
                            match rng.below(5) {
                                0 => out.extend_from_slice(
                                    format!("\"1;1;{};{}", number(rng), number(rng)).as_bytes(),
                                ),
                                1 => out.extend_from_slice(
                                    format!(
                                        "#{};{};{};{};{}",
                                        number(rng),
                                        rng.below(3),
                                        number(rng),
                                        number(rng),
                                        number(rng)
                                    )
                                    .as_bytes(),
                                ),
                                2 => out.extend_from_slice(format!("!{}", number(rng)).as_bytes()),
                                3 => out.push(*rng.pick(b"$-")),
                                _ => out.push(0x3f + rng.below(0x40) as u8),
                            }
                        }
                    }
                    _ => {
                        let size = format!("{}{}", number(rng), rng.pick(&["", "px", "%"]));
                        out.extend_from_slice(
                            format!("\x1b]1337;File=inline=1;width={size};height={size}:").as_bytes(),
                        );
                        out.extend((0..rng.below(64)).map(|_| *rng.pick(b"iVBORw0KGgoAAAA")));
                    }
                }
                let end: &[u8] = rng.pick::<&[u8]>(&[&b"\x07"[..], b"\x1b\\"]);
                out.extend_from_slice(end);
            }
            _ => {
                let fragment: &[u8] = rng.pick::<&[u8]>(FRAGMENTS);
                out.extend_from_slice(fragment);
            }
        }
    }
    out
}

/// The screen and replies after feeding `chunks` in order.
fn feed(cols: u16, rows: u16, chunks: &[&[u8]]) -> Result<(tuipilot::Snapshot, Vec<u8>), String> {
    let mut t = Terminal::new(cols, rows).map_err(|e| e.to_string())?;
    for chunk in chunks {
        t.process(chunk);
    }
    if let Some(fault) = t.fault() {
        return Err(format!("the parser faulted: {fault}"));
    }
    let replies = t.take_replies();
    Ok((t.snapshot(), replies))
}

fn check_terminal(rng: &mut Rng, input: &[u8]) -> Result<(), String> {
    let (cols, rows) = (10 + rng.below(190) as u16, 2 + rng.below(58) as u16);
    let whole = feed(cols, rows, &[input])?;
    let splits: Vec<usize> = if input.len() <= 64 {
        (1..input.len()).collect()
    } else {
        (0..8).map(|_| 1 + rng.below(input.len() - 1)).collect()
    };
    for at in splits {
        let (a, b) = input.split_at(at);
        if feed(cols, rows, &[a, b])? != whole {
            return Err(format!(
                "{cols}x{rows}: split at byte {at} gives another screen or replies"
            ));
        }
    }
    if input.len() <= 512 {
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        if feed(cols, rows, &bytes)? != whole {
            return Err(format!(
                "{cols}x{rows}: byte-by-byte gives another screen or replies"
            ));
        }
    }
    Ok(())
}

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

fn keys_input(rng: &mut Rng) -> String {
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

fn check_keys(input: &str) -> Result<(), String> {
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

const VALID_REQUESTS: &[&str] = &[
    r#"{"id":1,"op":"hello","version":1}"#,
    r#"{"id":2,"op":"send","actions":[{"text":"ls"},{"keys":"Enter"},{"sleep_ms":50},{"paste":"x"},{"bytes":[27,91,65]}],"wait":"\\$$","timeout_ms":5000,"capture":true}"#,
    r#"{"id":3,"op":"wait","condition":{"text":"done"},"timeout_ms":1000}"#,
    r#"{"id":3,"op":"wait","condition":"exit"}"#,
    r#"{"id":4,"op":"capture","wait":{"stable_ms":5},"ansi":true,"scrollback":false,"png":{"path":"/tmp/s.png","theme":"light","scale":2,"font_size":12.5,"fonts":["/a.ttf"]},"text":false}"#,
    r#"{"id":5,"op":"resize","cols":100,"rows":30}"#,
    r#"{"id":6,"op":"info"}"#,
    r#"{"id":7,"op":"exit","timeout_ms":2000}"#,
];

fn protocol_input(rng: &mut Rng) -> Vec<u8> {
    let mut line = rng.pick::<&str>(VALID_REQUESTS).as_bytes().to_vec();
    for _ in 0..rng.below(6) {
        if line.is_empty() {
            break;
        }
        let at = rng.below(line.len());
        match rng.below(5) {
            0 => line[at] = rng.next() as u8,
            1 => {
                line.remove(at);
            }
            2 => line.insert(at, *rng.pick(b"{}[]\",:0123456789-eE.tfn\\u")),
            3 => {
                let piece = rng.pick::<&str>(VALID_REQUESTS).as_bytes();
                let from = rng.below(piece.len());
                let to = from + rng.below(piece.len() - from);
                line.splice(at..at, piece[from..to].iter().copied());
            }
            _ => line.truncate(at),
        }
    }
    line
}

fn check_protocol(input: &[u8]) -> Result<(), String> {
    let (_, request) = protocol::parse_request(input);
    if let Ok(protocol::Request::Op(op)) = request {
        // A parsed operation must check without panicking, and round-trip.
        let _ = op.check();
        let line = protocol::request_line(1, &protocol::Request::Op(op.clone()));
        match protocol::parse_request(line.as_bytes()).1 {
            Ok(protocol::Request::Op(back)) if back == op => {}
            other => return Err(format!("{line} does not round-trip: {other:?}")),
        }
    }
    let mut reader = std::io::BufReader::with_capacity(7, input);
    while let Ok(protocol::Line::Complete(_) | protocol::Line::TooLong) =
        protocol::read_line_limited(&mut reader, 64)
    {}
    Ok(())
}

/// Real tapes, the seeds the mutations start from.
const TAPES: &[&str] = &[
    include_str!("../../tests/tapes/shell.tape"),
    include_str!("../../tests/tapes/keys.tape"),
    include_str!("../../tests/tapes/waits.tape"),
    include_str!("../../tests/tapes/session.tape"),
    include_str!("../../tests/tapes/settings.tape"),
    include_str!("../../tests/tapes/vim.tape"),
    include_str!("../../tests/vhs-tapes/demo.tape"),
    include_str!("../../tests/vhs-tapes/type.tape"),
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

fn tape_input(rng: &mut Rng) -> Vec<u8> {
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

fn check_tape(input: &str) -> Result<(), String> {
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

/// Runs `check` on `input` with a panic guard; the watchdog catches hangs.
fn run_one(target: &str, input: &[u8], check: impl FnOnce() -> Result<(), String>) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check))
        .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&*panic))));
    if let Err(why) = outcome {
        fail(target, input, &why);
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".into())
}

fn fail(target: &str, input: &[u8], why: &str) -> ! {
    let file = format!("fuzz-failure-{target}.bin");
    let _ = std::fs::write(&file, input);
    eprintln!(
        "fuzz: {target}: {why}; the input is in {file} ({} bytes)",
        input.len()
    );
    std::process::exit(1)
}

fn main() {
    let mut seconds = 10u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--seconds", Some(v)) => seconds = v,
            ("--seed", Some(v)) => seed = v,
            _ => {
                eprintln!("usage: fuzz [--seconds N] [--seed S]");
                std::process::exit(2);
            }
        }
    }
    // A hang is an input still running after PER_INPUT: the watchdog reports it.
    let current: Arc<Mutex<(&'static str, Vec<u8>, Instant)>> =
        Arc::new(Mutex::new(("none", Vec::new(), Instant::now())));
    let done = Arc::new(AtomicU64::new(0));
    {
        let current = current.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(250));
                let (target, input, started) = current.lock().unwrap_or_else(|p| p.into_inner()).clone();
                if started.elapsed() > PER_INPUT {
                    fail(
                        target,
                        &input,
                        &format!("one input ran over {} s", PER_INPUT.as_secs()),
                    );
                }
            }
        });
    }
    std::panic::set_hook(Box::new(|_| {}));
    println!("fuzz: seed {seed}, {seconds} s");
    let mut rng = Rng(seed);
    let mut counts = [0u64; 4];
    let mut bytes = 0u64;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < deadline {
        for (i, target) in ["terminal", "keys", "protocol", "tape"].into_iter().enumerate() {
            let input = match i {
                0 => terminal_input(&mut rng),
                1 => keys_input(&mut rng).into_bytes(),
                2 => protocol_input(&mut rng),
                _ => tape_input(&mut rng),
            };
            *current.lock().unwrap_or_else(|p| p.into_inner()) = (target, input.clone(), Instant::now());
            bytes += input.len() as u64;
            let mut split_rng = Rng(rng.next());
            match i {
                0 => run_one(target, &input, || check_terminal(&mut split_rng, &input)),
                1 => run_one(target, &input, || check_keys(&String::from_utf8_lossy(&input))),
                2 => run_one(target, &input, || check_protocol(&input)),
                _ => run_one(target, &input, || check_tape(&String::from_utf8_lossy(&input))),
            }
            counts[i] += 1;
        }
        done.fetch_add(1, Ordering::Relaxed);
    }
    println!(
        "fuzz: no panics, hangs or faults in {} terminal streams (whole, split, byte by byte), {} key specs, {} protocol lines, {} tapes; {:.1} MB of input",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        bytes as f64 / 1e6
    );
}
