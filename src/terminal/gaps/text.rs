//! Printable text vt100 would draw wrong, rewritten before it reaches it: DEC special
//! graphics (line drawing) turned into Unicode, and — a character at a time — insert mode
//! and autowrap off.

use unicode_width::UnicodeWidthChar;

use super::{GapLayer, Parser, give};

/// The DEC special graphics set for bytes 0x5f–0x7e.
const DEC_GRAPHICS: [char; 32] = [
    '\u{a0}', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼', '⎺', '⎻', '─', '⎼',
    '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
];

impl GapLayer {
    /// Printable text that needs rewriting: DEC graphics, insert mode or autowrap off.
    /// A run never ends inside a character at a chunk's end (`Terminal::process` holds an
    /// incomplete one back), so an incomplete tail here is invalid and goes to the parser.
    pub(super) fn text(&mut self, run: &[u8], parser: &mut Parser) {
        let rewritten = self
            .clusters
            .rewrite(run, self.modes.grapheme_clusters, &self.style);
        let run = rewritten.as_deref().unwrap_or(run);
        if !self.per_char_text() {
            let mut out = Vec::with_capacity(run.len() * 3);
            for &b in run {
                match b {
                    0x5f..=0x7e => {
                        let c = DEC_GRAPHICS[usize::from(b - 0x5f)];
                        out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                    }
                    _ => out.push(b),
                }
            }
            give(parser, &out);
            return;
        }
        let mut rest = run;
        while !rest.is_empty() {
            match std::str::from_utf8(rest) {
                Ok(s) => {
                    self.chars(s, parser);
                    break;
                }
                Err(e) => {
                    let (valid, after) = rest.split_at(e.valid_up_to());
                    // `valid` is valid UTF-8 by construction.
                    self.chars(std::str::from_utf8(valid).unwrap_or_default(), parser);
                    match e.error_len() {
                        Some(n) => {
                            give(parser, &after[..n]);
                            rest = &after[n..];
                        }
                        None => {
                            give(parser, after);
                            break;
                        }
                    }
                }
            }
        }
    }

    /// Prints characters one at a time, emulating insert mode and autowrap off.
    fn chars(&mut self, s: &str, parser: &mut Parser) {
        let graphics = self.graphics_active();
        let mut buf = [0u8; 4];
        for c in s.chars() {
            let c = match c {
                '\u{5f}'..='\u{7e}' if graphics => DEC_GRAPHICS[c as usize - 0x5f],
                c => c,
            };
            let width = if c.is_control() {
                0
            } else {
                c.width().unwrap_or(0).min(2) as u16
            };
            if width > 0 {
                let cols = parser.screen().size().1.get();
                let (_, col) = parser.screen().cursor_position();
                if !self.modes.autowrap && col + width > cols {
                    give(parser, format!("\x1b[{}G", cols - width + 1).as_bytes());
                }
                let (_, col) = parser.screen().cursor_position();
                if self.modes.insert && col < cols {
                    give(parser, format!("\x1b[{width}@").as_bytes());
                }
            }
            give(parser, c.encode_utf8(&mut buf).as_bytes());
        }
    }
}
