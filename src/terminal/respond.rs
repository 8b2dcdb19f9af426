//! Answers to terminal queries, and the transcript of queries a program sent.
//!
//! `vt100` parses but never replies. Programs ask the terminal where the cursor is
//! (prompt_toolkit, crossterm, fzf), what it is (DA1/DA2, XTVERSION), its colours
//! (OSC 10/11/4), its size in pixels, and which modes are set; without answers they stall
//! for seconds or print warnings. The replies here are what xterm would send (colour
//! replies end as the query did, BEL or ST: emacs reads a BEL as C-g), except that DA2
//! claims a VT100-class terminal at xterm patch level 276: from 242 emacs asks for the
//! background colour (OSC 11) and so picks its dark or light faces, while vim starts as
//! fast as with no version at all (an xterm claim, model 41, starts probing that cost vim
//! 100 ms per start). The
//! kitty keyboard query is answered with the flags in force on the current screen: keys
//! are encoded by those flags (see `keys::kitty`), so a program that pushes them gets
//! what it asked for.

use std::collections::VecDeque;

use super::sequence::{Csi, EmulatedModes, StrKind};
use crate::color::Theme;
pub use crate::snapshot::CellSize;

/// The most recent queries kept per session.
const TRANSCRIPT_LEN: usize = 256;

/// One query a program sent and what the engine replied (`None`: deliberately unanswered).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryRecord {
    /// The query's bytes, with control characters spelled out (`ESC[6n`).
    pub query: String,
    /// The reply, spelled the same way, or `None` when it went unanswered.
    pub reply: Option<String>,
    /// What the query is, or why it was not answered.
    pub note: &'static str,
}

pub(crate) struct Responder {
    pub(crate) theme: Theme,
    pub(crate) cell: CellSize,
    replies: Vec<u8>,
    transcript: VecDeque<QueryRecord>,
}

/// Whether a CSI sequence asks the terminal something (and so is answered, not drawn).
pub(crate) fn is_query(csi: &Csi<'_>) -> bool {
    matches!(
        (csi.marker, csi.intermediates, csi.final_byte),
        (None | Some(b'?'), [], b'n')
            | (None | Some(b'>') | Some(b'='), [], b'c')
            | (None | Some(b'?'), [b'$'], b'p')
            | (Some(b'>'), [], b'q')
            | (Some(b'?'), [], b'u')
            | (Some(b'?'), [], b'S')
    ) || (csi.marker.is_none()
        && csi.intermediates.is_empty()
        && csi.final_byte == b't'
        && matches!(
            csi.numbers().first(),
            Some(Some(11 | 13 | 14 | 15 | 16 | 18 | 19 | 20 | 21))
        ))
}

impl Responder {
    pub(crate) fn new(theme: Theme, cell: CellSize) -> Responder {
        Responder {
            theme,
            cell,
            replies: Vec::new(),
            transcript: VecDeque::new(),
        }
    }

    pub(crate) fn take_replies(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.replies)
    }

    pub(crate) fn transcript(&self) -> impl Iterator<Item = &QueryRecord> {
        self.transcript.iter()
    }

    fn record(&mut self, query: &[u8], reply: Result<String, &'static str>, note: &'static str) {
        let (reply, note) = match reply {
            Ok(reply) => {
                self.replies.extend_from_slice(reply.as_bytes());
                (Some(escape_bytes(reply.as_bytes())), note)
            }
            Err(why) => (None, why),
        };
        if self.transcript.len() == TRANSCRIPT_LEN {
            self.transcript.pop_front();
        }
        self.transcript.push_back(QueryRecord {
            query: escape_bytes(query),
            reply,
            note,
        });
    }

    /// Answers a CSI query, reading the screen as it is at this point in the stream.
    pub(crate) fn answer_csi(
        &mut self,
        raw: &[u8],
        csi: &Csi<'_>,
        screen: &vt100::Screen,
        modes: EmulatedModes,
    ) {
        let numbers = csi.numbers();
        let first = numbers.first().copied().flatten();
        let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
        let (row, col) = screen.cursor_position();
        // In origin mode rows are counted from the top margin, as the program addresses them.
        let row = row.saturating_sub(modes.origin.unwrap_or(0));
        let (row, col) = (row.min(rows - 1) + 1, col.min(cols - 1) + 1);
        let (reply, note) = match (csi.marker, csi.intermediates, csi.final_byte) {
            (None, [], b'n') => match first {
                Some(6) => (Ok(format!("\x1b[{row};{col}R")), "cursor position report"),
                Some(5) => (Ok("\x1b[0n".to_string()), "device status report"),
                _ => (Err("unsupported device status report"), ""),
            },
            (Some(b'?'), [], b'n') => match first {
                Some(6) => (
                    Ok(format!("\x1b[?{row};{col};1R")),
                    "extended cursor position report",
                ),
                // As xterm answers at the VT220 level primary device attributes claim.
                Some(15) => (Ok("\x1b[?13n".to_string()), "printer status: no printer"),
                Some(25) => (Ok("\x1b[?20n".to_string()), "user-defined keys status: unlocked"),
                Some(26) => (Ok("\x1b[?27;1n".to_string()), "keyboard status: North American"),
                _ => (Err("unsupported private device status report"), ""),
            },
            (None, [], b'c') if first.unwrap_or(0) == 0 => (
                Ok("\x1b[?62;4;22c".to_string()),
                "primary device attributes: VT220 with sixel graphics and colour",
            ),
            (Some(b'>'), [], b'c') if first.unwrap_or(0) == 0 => (
                Ok("\x1b[>0;276;0c".to_string()),
                "secondary device attributes: a VT100-class terminal, xterm patch 276",
            ),
            (Some(b'='), [], b'c') => (Err("tertiary device attributes are not answered"), ""),
            (marker, [b'$'], b'p') => {
                let mode = first.unwrap_or(0);
                let state = match marker {
                    Some(b'?') => private_mode_state(mode, screen, modes),
                    _ => ansi_mode_state(mode, modes),
                };
                let question = if marker == Some(b'?') { "?" } else { "" };
                (
                    Ok(format!("\x1b[{question}{mode};{state}$y")),
                    "mode report (DECRQM)",
                )
            }
            (Some(b'>'), [], b'q') => (
                Ok(format!("\x1bP>|tuipilot({})\x1b\\", env!("CARGO_PKG_VERSION"))),
                "terminal name and version (XTVERSION)",
            ),
            (None, [], b't') => {
                let (cw, ch) = (u32::from(self.cell.width), u32::from(self.cell.height));
                let (r, c) = (u32::from(rows), u32::from(cols));
                match first {
                    Some(11) => (Ok("\x1b[1t".to_string()), "window state: not iconified"),
                    Some(13) => (Ok("\x1b[3;0;0t".to_string()), "window position"),
                    Some(14) => (
                        Ok(format!("\x1b[4;{};{}t", r * ch, c * cw)),
                        "text area size in pixels",
                    ),
                    Some(15) => (
                        Ok(format!("\x1b[5;{};{}t", r * ch, c * cw)),
                        "screen size in pixels",
                    ),
                    Some(16) => (Ok(format!("\x1b[6;{ch};{cw}t")), "cell size in pixels"),
                    Some(18) => (Ok(format!("\x1b[8;{r};{c}t")), "text area size in characters"),
                    Some(19) => (Ok(format!("\x1b[9;{r};{c}t")), "screen size in characters"),
                    _ => (Err("window title reports are not answered"), ""),
                }
            }
            (Some(b'?'), [], b'u') => (
                Ok(format!("\x1b[?{}u", modes.kitty.flags(screen.alternate_screen()))),
                "kitty keyboard flags",
            ),
            // XTSMGRAPHICS: only reads are answered (xterm's "read" and "read maximum").
            (Some(b'?'), [], b'S') => match (first, numbers.get(1).copied().flatten()) {
                (Some(1), Some(1 | 4)) => (Ok("\x1b[?1;0;1024S".to_string()), "sixel colour registers"),
                (Some(2), Some(1 | 4)) => {
                    let side = (super::graphics::MAX_IMAGE_PIXELS as f64).sqrt() as u32;
                    let (w, h) = (
                        (u32::from(cols) * u32::from(self.cell.width)).min(side),
                        (u32::from(rows) * u32::from(self.cell.height)).min(side),
                    );
                    (Ok(format!("\x1b[?2;0;{w};{h}S")), "sixel graphics size in pixels")
                }
                (Some(item), _) => (
                    Ok(format!("\x1b[?{item};1;0S")),
                    "graphics attribute: not changeable, answered as an error",
                ),
                (None, _) => (Err("graphics attribute request without an item"), ""),
            },
            _ => (Err("unsupported query"), ""),
        };
        self.record(raw, reply, note);
    }

    /// Answers OSC colour queries and DCS requests (XTGETTCAP, DECRQSS).
    pub(crate) fn answer_string(&mut self, kind: StrKind, content: &[u8], bel: bool) {
        match kind {
            StrKind::Osc => self.answer_osc(content, if bel { "\x07" } else { "\x1b\\" }),
            StrKind::Dcs => {
                let mut raw = b"\x1bP".to_vec();
                raw.extend_from_slice(content);
                raw.extend_from_slice(b"\x1b\\");
                if let Some(names) = content.strip_prefix(b"+q") {
                    let names = String::from_utf8_lossy(names);
                    let reply = format!("\x1bP0+r{names}\x1b\\");
                    self.record(&raw, Ok(reply), "termcap query (XTGETTCAP): answered as unknown");
                } else if content.starts_with(b"$q") {
                    self.record(
                        &raw,
                        Ok("\x1bP0$r\x1b\\".to_string()),
                        "setting query (DECRQSS): answered as invalid",
                    );
                }
            }
            StrKind::Apc | StrKind::Other => {}
        }
    }

    /// Queues the answer to a kitty graphics command (made by `graphics::kitty`).
    pub(crate) fn answer_graphics(&mut self, query: &[u8], reply: String) {
        self.record(query, Ok(reply), "kitty graphics command: answered as kitty does");
    }

    /// Answers a colour query, ended as the query was (BEL or ST), as xterm does: a
    /// program that asked with ST may read a BEL as C-g (emacs quits).
    fn answer_osc(&mut self, content: &[u8], end: &str) {
        let Ok(text) = std::str::from_utf8(content) else {
            return;
        };
        let items: Vec<&str> = text.split(';').collect();
        if !items.contains(&"?") {
            return;
        }
        let mut raw = b"\x1b]".to_vec();
        raw.extend_from_slice(content);
        raw.extend_from_slice(end.as_bytes());
        let mut reply = String::new();
        match items[0].parse::<u16>() {
            Ok(code @ 10..=19) => {
                for (offset, item) in items[1..].iter().enumerate() {
                    let code = code + offset as u16;
                    let colour = match code {
                        10 => self.theme.foreground,
                        11 => self.theme.background,
                        12 => self.theme.cursor,
                        _ => continue,
                    };
                    if *item == "?" {
                        reply.push_str(&format!("\x1b]{code};{}{end}", colour.x11()));
                    }
                }
            }
            Ok(4) => {
                for pair in items[1..].chunks(2) {
                    if let [index, "?"] = pair
                        && let Ok(index) = index.parse::<u8>()
                    {
                        reply.push_str(&format!(
                            "\x1b]4;{index};{}{end}",
                            self.theme.indexed(index).x11()
                        ));
                    }
                }
            }
            _ => {
                self.record(
                    &raw,
                    Err("this OSC query is not answered (clipboard and others)"),
                    "",
                );
                return;
            }
        }
        if reply.is_empty() {
            self.record(&raw, Err("malformed colour query"), "");
        } else {
            self.record(&raw, Ok(reply), "colour query");
        }
    }
}

/// DECRQM state for a DEC private mode: 1 set, 2 reset, 0 not recognised.
fn private_mode_state(mode: u16, screen: &vt100::Screen, modes: EmulatedModes) -> u8 {
    use crate::keys::mouse::{MouseEncoding, MouseTracking};
    let flag = |on: bool| if on { 1 } else { 2 };
    match mode {
        1 => flag(screen.application_cursor()),
        5 => flag(modes.reverse_screen),
        6 => flag(modes.origin.is_some()),
        7 => flag(modes.autowrap),
        25 => flag(!screen.hide_cursor()),
        47 | 1047 | 1049 => flag(screen.alternate_screen()),
        66 => flag(screen.application_keypad()),
        9 | 1000 | 1002 | 1003 => flag(MouseTracking::from_mode(mode) == Some(modes.mouse.tracking)),
        1005 | 1006 | 1015 | 1016 => flag(MouseEncoding::from_mode(mode) == Some(modes.mouse.encoding)),
        1004 => flag(modes.focus_events),
        2026 => flag(modes.synchronized),
        2027 => flag(modes.grapheme_clusters),
        2004 => flag(screen.bracketed_paste()),
        _ => 0,
    }
}

/// DECRQM state for an ANSI mode.
fn ansi_mode_state(mode: u16, modes: EmulatedModes) -> u8 {
    match mode {
        4 => {
            if modes.insert {
                1
            } else {
                2
            }
        }
        20 => {
            if modes.newline {
                1
            } else {
                2
            }
        }
        _ => 0,
    }
}

/// Spells control characters out (`ESC`, `BEL`, `^X`) so a byte sequence reads on one line.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\x1b' => out.push_str("ESC"),
            '\x07' => out.push_str("BEL"),
            '\x7f' => out.push_str("DEL"),
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push((b'@' + c as u8) as char);
            }
            c => out.push(c),
        }
    }
    out
}
