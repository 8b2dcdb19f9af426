//! Handing bytes to vt100: never a call that ends inside a UTF-8 character, and the part
//! of a chunk that passes unchanged handed over in one run.

use super::Parser;

/// Hands bytes to vt100, never ending a call inside a UTF-8 character: an incomplete
/// character at the end is held (in the parser's callbacks, which travel with it) and
/// given with the next bytes. vt100 decodes a character split across calls differently
/// from the same character whole when invalid bytes follow, so without this the screen
/// would depend on how the program's output happened to be split into reads.
pub(super) fn give(parser: &mut Parser, bytes: &[u8]) {
    let held = std::mem::take(&mut parser.callbacks_mut().held_utf8);
    let joined;
    let bytes = if held.is_empty() {
        bytes
    } else {
        joined = [held.as_slice(), bytes].concat();
        joined.as_slice()
    };
    let cut = incomplete_tail(bytes);
    let mut rest = &bytes[..cut];
    // U+FE0F after a character in the last column would widen it off the row's end,
    // which vt100 mishandles on the bottom row (a wide cell with no room, then a panic on
    // later output). There the selector is dropped: the character stays one cell wide,
    // as tmux and wcwidth count it anyway.
    while let Some(at) = memchr::memmem::find(rest, VS16) {
        parser.process(&rest[..at]);
        let cols = parser.screen().size().1.get();
        if parser.screen().cursor_position().1 < cols {
            parser.process(VS16);
        }
        rest = &rest[at + VS16.len()..];
    }
    if !rest.is_empty() {
        parser.process(rest);
    }
    parser.callbacks_mut().held_utf8.extend_from_slice(&bytes[cut..]);
}

/// VARIATION SELECTOR-16 (emoji presentation), in UTF-8.
const VS16: &[u8] = "\u{fe0f}".as_bytes();

/// Where a UTF-8 character cut off at the end of `bytes` starts (`bytes.len()` if none).
fn incomplete_tail(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=3.min(len) {
        let b = bytes[len - back];
        let needed = match b {
            0x80..=0xbf => continue,
            0xc2..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf4 => 4,
            _ => return len,
        };
        return if back < needed { len - back } else { len };
    }
    len
}

/// The part of the current chunk not yet handed to the parser.
pub(super) struct Run<'a> {
    pub(super) bytes: &'a [u8],
    /// Start of the bytes that pass through unchanged but are not yet parsed.
    pub(super) pass: usize,
    /// Where the current escape sequence started, if it started in this chunk.
    pub(super) seq_start: Option<usize>,
}

impl Run<'_> {
    pub(super) fn flush_to(&mut self, end: usize, parser: &mut Parser) {
        if end > self.pass {
            give(parser, &self.bytes[self.pass..end]);
        }
        self.pass = self.pass.max(end);
    }
}
