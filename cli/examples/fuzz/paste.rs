//! The `paste` target: pasted text made of bracketed-paste markers, whole, nested and in
//! pieces, must never end the paste early: the bytes between the start and end markers
//! hold neither marker, however removing one assembles another.

use tuipilot::keys::encode_paste;

use super::Rng;

/// Markers, their pieces and what sits around them.
const PASTE_PARTS: &[&str] = &[
    "\x1b[200~",
    "\x1b[201~",
    "\x1b[20",
    "\x1b[2",
    "\x1b[",
    "\x1b",
    "[",
    "20",
    "200",
    "201",
    "0~",
    "1~",
    "~",
    "2",
    "0",
    "1",
    "echo x",
    "; touch F",
    "\r",
    "\n",
    "\r\n",
    "\u{9b}200~",
    "漢",
];

pub(super) fn paste_input(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..1 + rng.below(40) {
        text.push_str(rng.pick::<&str>(PASTE_PARTS));
    }
    text
}

pub(super) fn check_paste(text: &str) -> Result<(), String> {
    const START: &[u8] = b"\x1b[200~";
    const END: &[u8] = b"\x1b[201~";
    let holds = |bytes: &[u8], marker: &[u8]| bytes.windows(marker.len()).any(|w| w == marker);
    let bracketed = encode_paste(text, true);
    let Some(inner) = bracketed
        .strip_prefix(START)
        .and_then(|rest| rest.strip_suffix(END))
    else {
        return Err("a bracketed paste does not start and end with its markers".into());
    };
    if holds(inner, START) || holds(inner, END) {
        return Err(format!(
            "a marker is left inside the paste: {:?}",
            String::from_utf8_lossy(inner)
        ));
    }
    if holds(inner, b"\n") {
        return Err("a newline is sent as LF, not CR".into());
    }
    let plain = encode_paste(text, false);
    if holds(&plain, b"\n") {
        return Err("an unbracketed paste sends LF".into());
    }
    Ok(())
}
