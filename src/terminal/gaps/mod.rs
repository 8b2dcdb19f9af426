//! The gap layer: a thin byte-stream layer in front of `vt100` that closes its gaps.
//!
//! `vt100` ignores or misreads a handful of sequences that real programs depend on. This
//! layer tokenizes the output stream just enough to find them (escape sequences, CSI,
//! and the bounds of OSC/DCS strings) and rewrites them into sequences `vt100` handles:
//!
//! - DEC special graphics (`ESC ( 0`, `ESC ) 0`, SO/SI) → Unicode line drawing;
//! - SGR read for what vt100 drops (58/59 underline colour, `4:n` and 21 underline
//!   styles, strikethrough, hidden, blink, overline), kept in the cells through
//!   stand-ins (`clusters`) and rewritten so vt100 misreads none of it;
//! - insert mode (`CSI 4 h`) → an insert-characters before each printed character;
//! - autowrap off (`CSI ? 7 l`) → characters past the margin overwrite the last column;
//! - `CSI s` / `CSI u` → `ESC 7` / `ESC 8`; `ESC D` → LF; `ESC E` → CR LF;
//! - `CSI ? 1047 h/l` and `CSI ? 1048 h/l` → their `?47` and `ESC 7/8` equivalents;
//! - REP (`CSI n b`) clipped to the cells it can change, so eight bytes of output cannot
//!   buy seconds of CPU (see [`GapLayer::repeat_count`]), and dropped unless a graphic
//!   character came just before it, as in xterm;
//! - DECSC/DECRC (`ESC 7`/`ESC 8`, `CSI s`/`CSI u`, 1048, 1049) save and restore the
//!   character sets and the SGR attributes vt100 drops, beside what vt100 saves;
//! - the scrolling margins and origin mode mirrored (`margins`): the cursor position report
//!   in origin mode, DECSTBM's cursor home, IL/DL ending in column 1, DECALN (`ESC # 8`);
//! - tab stops set and cleared (HTS, TBC) and used by HT, CHT and CBT; BS right after a
//!   character in the last column;
//! - background colour erase (`erase`) for the lines and cells that scrolling, IL/DL and
//!   ICH/DCH bring in, which vt100 leaves in the default background;
//! - double-width and double-height lines (`lines`), each row's size kept and moved with
//!   the rows;
//! - the input modes vt100 lacks are kept here (mouse 1015/1016 and every tracking mode,
//!   focus 1004, modifyOtherKeys, the kitty keyboard stacks, consumed so vt100 never
//!   reads them as colours or cursor moves), and the title stack (`CSI 22/23 t`);
//! - every OSC string is handed to [`Signals`] once what came before it is parsed;
//! - VS16 and the character after a zero-width joiner get `wcwidth`'s widths (or the
//!   cluster's, in mode 2027) through stand-ins (`clusters`).
//!
//! `decide` says what to do with each sequence, `text` rewrites printable text (line drawing, insert mode, autowrap off), `modes` keeps
//! the modes and the REP budget, `margins` mirrors the margins, `tabs` keeps the tab
//! stops, `cursor` what DECSC saves beyond vt100 and the controls vt100 moves wrong,
//! `erase` colours what scrolling brings in, `feed` hands bytes to vt100.
//!
//! Terminal queries are handed to the [`Responder`] at the exact point in the stream where
//! they occur, after everything before them has been parsed, so a cursor position report
//! is right. Bytes that need no change are passed to the parser in large runs.

mod cursor;
mod decide;
mod erase;
mod feed;
mod lines;
mod margins;
mod modes;
mod tabs;
mod text;

use super::Parser;
use super::clusters::Clusters;
use super::graphics::{Context, Graphics, MAX_IMAGE_STRING};
use super::params::ExtraStyle;
use super::respond::Responder;
use super::sequence::{Csi, EmulatedModes, StrKind};
use super::signals::Signals;
use cursor::Saved;
use erase::Scrolling;
use feed::{Run, give};
use lines::{LineSize, LineSizes};
use margins::ScreenMargins;
use tabs::{TabControl, TabStops};

const ESC: u8 = 0x1b;
const BS: u8 = 0x08;
const HT: u8 = 0x09;
const LF: u8 = 0x0a;
const VT: u8 = 0x0b;
const FF: u8 = 0x0c;
const BEL: u8 = 0x07;
const SO: u8 = 0x0e;
const SI: u8 = 0x0f;
const CAN: u8 = 0x18;
const SUB: u8 = 0x1a;

/// Longest CSI sequence buffered; longer ones are passed through untouched.
const MAX_CSI: usize = 512;
/// How much of an OSC/DCS string is kept to recognise queries and signals: enough for a
/// clipboard write of 1 MiB in base64.
const MAX_CAPTURE: usize = (super::signals::MAX_CLIPBOARD_BYTES / 3 + 1) * 4 + 64;

/// Cells of REP allowed per byte of output once the burst allowance is spent.
const REP_CELLS_PER_BYTE: u64 = 256;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Ground,
    Escape,
    Csi,
    /// An over-long CSI being passed through until its final byte.
    CsiSkip,
    Str(StrKind),
    /// An ESC inside a string: either the start of ST or the end of the string.
    StrEsc(StrKind),
}

/// What to do with a completed escape sequence.
enum Action {
    Pass,
    Replace(Vec<u8>),
    Query,
    /// A kitty keyboard push, pop or set: consumed, applied to the stack of the screen
    /// that is current once everything before it is parsed.
    KittyKeyboard,
    /// `CSI 22 t` / `CSI 23 t`: push or pop the window title.
    TitleStack(bool),
    /// A control that brings in blank lines or cells, passed on as it came (or as these
    /// bytes: IND as LF, NEL as CR LF), then what it brought in coloured with the
    /// background (see `erase`).
    Scroll(Scrolling, Option<&'static [u8]>),
    /// HTS, TBC, CHT or CBT, on the tab stops kept here.
    Tab(TabControl),
    /// DECDWL, DECDHL or DECSWL: the cursor's row's size.
    LineSize(LineSize),
    /// ED (its mode) while a row is double size: passed on, then the rows it erased whole
    /// single again.
    EraseDisplay(u16),
}

/// The layer's state, carried across chunks of output.
pub(crate) struct GapLayer {
    state: State,
    /// The escape sequence being collected, from its ESC.
    seq: Vec<u8>,
    /// How many bytes of `seq` arrived in earlier chunks (and were not yet parsed).
    carried: usize,
    /// The start of an OSC/DCS string's content, for query detection.
    capture: Vec<u8>,
    /// Whether G0 / G1 are designated as DEC special graphics.
    graphics: [bool; 2],
    /// SO selected G1 into GL.
    shift_out: bool,
    pub(crate) modes: EmulatedModes,
    /// Shell marks, the working directory, clipboard writes, links, notifications.
    pub(crate) signals: Signals,
    /// The stand-ins that give clusters the widths programs expect.
    pub(crate) clusters: Clusters,
    /// Sixel, kitty and iTerm2 images and where they are.
    pub(crate) images: Graphics,
    /// The SGR attributes in force that vt100 drops.
    style: ExtraStyle,
    /// The screen's (rows, cols), as of the current chunk.
    size: (u16, u16),
    /// REP cells still allowed: two screens' worth at most, earned back with output.
    rep_budget: u64,
    /// Bytes of output before the current chunk, and the stream position at which the
    /// budget was last earned: the budget follows positions in the stream, not reads, so
    /// however the output is split into chunks the screen is the same.
    stream_offset: u64,
    rep_earned_at: u64,
    /// The stream position of the end of the sequence being decided.
    here: u64,
    /// What `ESC 7` saved beside what vt100 saves.
    saved: Saved,
    /// The scrolling margins and origin mode of both screens, as vt100 keeps them.
    margins: ScreenMargins,
    /// The tab stops, once a program sets its own.
    tabs: TabStops,
    /// Each row's size: double width or height.
    lines: LineSizes,
    /// Whether the current background is not the default (then line feeds are watched,
    /// see `erase`): followed through SGR, DECSC/DECRC and resets as vt100 follows it.
    coloured_background: bool,
    /// Whether the last thing in the stream was a graphic character: REP repeats one only
    /// then, as xterm does (any control or sequence in between, and it repeats nothing).
    last_graphic: bool,
}

impl GapLayer {
    pub(crate) fn new() -> GapLayer {
        GapLayer {
            state: State::Ground,
            seq: Vec::with_capacity(64),
            carried: 0,
            capture: Vec::new(),
            graphics: [false; 2],
            shift_out: false,
            modes: EmulatedModes::default(),
            signals: Signals::default(),
            clusters: Clusters::default(),
            images: Graphics::default(),
            style: ExtraStyle::default(),
            size: (0, 0),
            rep_budget: u64::MAX,
            stream_offset: 0,
            rep_earned_at: 0,
            here: 0,
            saved: Saved::default(),
            last_graphic: false,
            margins: ScreenMargins::new(),
            tabs: TabStops::default(),
            lines: LineSizes::default(),
            coloured_background: false,
        }
    }

    fn graphics_active(&self) -> bool {
        self.graphics[usize::from(self.shift_out)]
    }

    fn per_char_text(&self) -> bool {
        self.modes.insert || !self.modes.autowrap
    }

    fn reset(&mut self) {
        self.graphics = [false; 2];
        self.shift_out = false;
        self.modes = EmulatedModes::default();
        self.style = ExtraStyle::default();
        self.saved = Saved::default();
        self.coloured_background = false;
    }

    /// Feeds one chunk of program output through the layer into `parser`.
    pub(crate) fn process(&mut self, bytes: &[u8], parser: &mut Parser, responder: &mut Responder) {
        let (rows, cols) = parser.screen().size();
        self.size = (rows.get(), cols.get());
        self.margins.sized(self.size.0);
        self.lines.sized(self.size.0);
        let chunk_start = self.stream_offset;
        self.stream_offset += bytes.len() as u64;
        let mut run = Run {
            bytes,
            pass: 0,
            seq_start: None,
        };
        let mut i = 0;
        while i < bytes.len() {
            match self.state {
                State::Ground => {
                    let stop = memchr::memchr3(ESC, SO, SI, &bytes[i..]).map_or(bytes.len(), |p| i + p);
                    // BS and (with stops of the program's own) HT, which vt100 gets wrong,
                    // end a run of text too.
                    let next = self.fixed_control(&bytes[i..stop]).map_or(stop, |p| i + p);
                    if next > i {
                        // A control character ends what REP may repeat; UTF-8 bytes are
                        // parts of graphic characters.
                        self.last_graphic = bytes[next - 1] >= 0x20 && bytes[next - 1] != 0x7f;
                        if self.graphics_active() || self.per_char_text() {
                            run.flush_to(i, parser);
                            self.text(&bytes[i..next], parser);
                            run.pass = next;
                        } else if let Some(text) =
                            self.clusters
                                .rewrite(&bytes[i..next], self.modes.grapheme_clusters, &self.style)
                        {
                            run.flush_to(i, parser);
                            give(parser, &text);
                            run.pass = next;
                        }
                        i = next;
                        if i == bytes.len() {
                            break;
                        }
                    }
                    match bytes[i] {
                        ESC => self.start_escape(&mut run, i, State::Escape),
                        BS | HT | LF | VT | FF => {
                            run.flush_to(i, parser);
                            self.control(bytes[i], parser);
                            self.last_graphic = false;
                            run.pass = i + 1;
                        }
                        b => {
                            run.flush_to(i, parser);
                            self.shift_out = b == SO;
                            self.last_graphic = false;
                            run.pass = i + 1;
                        }
                    }
                    i += 1;
                }
                State::Escape => {
                    let b = bytes[i];
                    i += 1;
                    self.seq.push(b);
                    if (0x20..=0x2f).contains(&b) {
                        continue;
                    }
                    if self.seq.len() == 2 {
                        let string = match b {
                            b'[' => {
                                self.state = State::Csi;
                                continue;
                            }
                            b']' => Some(StrKind::Osc),
                            b'P' => Some(StrKind::Dcs),
                            b'_' => Some(StrKind::Apc),
                            b'X' | b'^' => Some(StrKind::Other),
                            _ => None,
                        };
                        if let Some(kind) = string {
                            self.finish(Action::Pass, &mut run, i, parser, responder);
                            self.capture.clear();
                            self.state = State::Str(kind);
                            continue;
                        }
                    }
                    let action = self.escape_action();
                    self.finish(action, &mut run, i, parser, responder);
                    self.state = State::Ground;
                }
                State::Csi => {
                    // Parameters and intermediates in one step: they are most of a CSI.
                    let body = bytes[i..]
                        .iter()
                        .position(|b| !(0x20..=0x3f).contains(b))
                        .unwrap_or(bytes.len() - i);
                    self.seq.extend_from_slice(&bytes[i..i + body]);
                    i += body;
                    if self.seq.len() > MAX_CSI {
                        self.finish(Action::Pass, &mut run, i, parser, responder);
                        self.state = State::CsiSkip;
                        continue;
                    }
                    if i == bytes.len() {
                        break;
                    }
                    let b = bytes[i];
                    if b == ESC {
                        // An interrupted CSI: vt100 drops it the same way; start afresh.
                        self.finish(Action::Pass, &mut run, i, parser, responder);
                        self.state = State::Ground;
                        continue;
                    }
                    i += 1;
                    self.seq.push(b);
                    if (0x40..=0x7e).contains(&b) || b == CAN || b == SUB {
                        let action = if b == CAN || b == SUB {
                            Action::Pass
                        } else {
                            self.here = chunk_start + i as u64;
                            self.csi_action()
                        };
                        self.finish(action, &mut run, i, parser, responder);
                        self.state = State::Ground;
                    }
                }
                State::CsiSkip => {
                    if (0x40..=0x7e).contains(&bytes[i]) {
                        self.state = State::Ground;
                    }
                    i += 1;
                }
                State::Str(kind) => {
                    let end = bytes[i..]
                        .iter()
                        .position(|&b| b == ESC || b == CAN || b == SUB || (b == BEL && kind == StrKind::Osc))
                        .map_or(bytes.len(), |p| i + p);
                    let limit = if Graphics::is_image_string(&self.capture) {
                        MAX_IMAGE_STRING
                    } else {
                        MAX_CAPTURE
                    };
                    let room = limit.saturating_sub(self.capture.len());
                    self.capture.extend_from_slice(&bytes[i..end.min(i + room)]);
                    i = end;
                    if i == bytes.len() {
                        break;
                    }
                    match bytes[i] {
                        ESC => self.start_escape(&mut run, i, State::StrEsc(kind)),
                        BEL => {
                            self.last_graphic = false;
                            // Signals read the cursor: everything before the end is parsed.
                            run.flush_to(i, parser);
                            if let Some(after) = self.string_done(kind, true, responder, parser) {
                                run.flush_to(i + 1, parser);
                                give(parser, &after);
                            }
                            self.state = State::Ground;
                        }
                        _ => self.state = State::Ground,
                    }
                    i += 1;
                }
                State::StrEsc(kind) => {
                    if let Some(start) = run.seq_start {
                        run.flush_to(start, parser);
                    }
                    let after = self.string_done(kind, false, responder, parser);
                    if bytes[i] == b'\\' {
                        self.seq.push(b'\\');
                        i += 1;
                        self.finish(Action::Pass, &mut run, i, parser, responder);
                        self.state = State::Ground;
                        if let Some(after) = after {
                            // An image's cells are written once the parser has left the string.
                            run.flush_to(i, parser);
                            give(parser, &after);
                        }
                    } else {
                        // The string ended without ST; this ESC starts a new sequence.
                        self.state = State::Escape;
                        if let Some(after) = after {
                            give(parser, b"\x1b\\");
                            give(parser, &after);
                        }
                    }
                }
            }
        }
        match self.state {
            State::Escape | State::Csi | State::StrEsc(_) => {
                if let Some(start) = run.seq_start {
                    run.flush_to(start, parser);
                }
                self.carried = self.seq.len();
            }
            _ => run.flush_to(bytes.len(), parser),
        }
    }

    /// Starts collecting an escape sequence at the ESC at `at`.
    fn start_escape(&mut self, run: &mut Run<'_>, at: usize, state: State) {
        self.seq.clear();
        self.seq.push(ESC);
        run.seq_start = Some(at);
        self.state = state;
    }

    /// Completes the sequence in `self.seq`, which ends just before `end` in this chunk.
    fn finish(
        &mut self,
        action: Action,
        run: &mut Run<'_>,
        end: usize,
        parser: &mut Parser,
        responder: &mut Responder,
    ) {
        if let Action::Pass = action {
            if self.carried > 0 {
                give(parser, &self.seq[..self.carried]);
            }
        } else {
            // The sequence is consumed, and acts on the screen as it stands at its place
            // in the stream: everything before it is parsed first.
            run.flush_to(run.seq_start.unwrap_or(run.pass), parser);
            self.consume(action, parser, responder);
            run.pass = end;
        }
        self.carried = 0;
        run.seq_start = None;
        self.last_graphic = false;
    }

    /// Acts on a consumed sequence (in `self.seq`) in place of passing it on.
    fn consume(&mut self, action: Action, parser: &mut Parser, responder: &mut Responder) {
        match action {
            Action::Pass => {}
            Action::Replace(bytes) => give(parser, &bytes),
            Action::Query => {
                if let Some(csi) = Csi::parse(&self.seq) {
                    let margins = self.margins.current();
                    let modes = EmulatedModes {
                        origin: margins.origin.then_some(margins.top),
                        ..self.modes
                    };
                    responder.answer_csi(&self.seq, &csi, parser.screen(), modes);
                }
            }
            Action::Tab(control) => {
                let cols = parser.screen().size().1.get();
                let col = parser.screen().cursor_position().1;
                if let Some(to) = self.tabs.apply(control, col, cols) {
                    give(parser, format!("\x1b[{}G", to + 1).as_bytes());
                }
            }
            Action::Scroll(what, instead) => {
                let seq = std::mem::take(&mut self.seq);
                self.scroll(what, instead.unwrap_or(&seq), parser);
                self.seq = seq;
            }
            Action::LineSize(size) => {
                let row = parser.screen().cursor_position().0;
                self.lines.set(self.margins.alternate(), row, size);
            }
            Action::EraseDisplay(mode) => {
                give(parser, &self.seq);
                let row = parser.screen().cursor_position().0;
                let last = parser.screen().size().0.get() - 1;
                let alternate = self.margins.alternate();
                match mode {
                    0 if row < last => self.lines.clear(alternate, row + 1, last),
                    1 if row > 0 => self.lines.clear(alternate, 0, row - 1),
                    2 | 3 => self.lines.clear(alternate, 0, last),
                    _ => {}
                }
            }
            Action::TitleStack(push) => {
                if push {
                    let title = parser.callbacks().title.clone();
                    self.signals.push_title(&title);
                } else if let Some(title) = self.signals.pop_title() {
                    parser.callbacks_mut().title = title;
                }
            }
            Action::KittyKeyboard => {
                if let Some(csi) = Csi::parse(&self.seq) {
                    let alternate = parser.screen().alternate_screen();
                    let numbers = csi.numbers();
                    let number =
                        |i: usize, default: u16| numbers.get(i).copied().flatten().unwrap_or(default);
                    let kitty = &mut self.modes.kitty;
                    match csi.marker {
                        Some(b'>') => kitty.push(alternate, number(0, 0) as u8),
                        Some(b'<') => kitty.pop(alternate, usize::from(number(0, 1))),
                        _ => kitty.set(alternate, number(0, 0) as u8, number(1, 1)),
                    }
                }
            }
        }
    }

    /// A control string ended, by BEL (`bel`) or ST; what to give the parser after its
    /// end (the cells of an image it drew).
    fn string_done(
        &mut self,
        kind: StrKind,
        bel: bool,
        responder: &mut Responder,
        parser: &mut Parser,
    ) -> Option<Vec<u8>> {
        if kind == StrKind::Osc {
            self.signals.osc(&self.capture, parser.screen());
        }
        let ctx = Context {
            screen: parser.screen(),
            cell: responder.cell,
            bytes: self.capture.len(),
        };
        let after = match kind {
            StrKind::Osc => self.images.osc(&self.capture, &ctx),
            StrKind::Dcs => self.images.dcs(&self.capture, &ctx),
            StrKind::Apc => {
                let outcome = self.images.apc(&self.capture, &ctx);
                if let Some(answer) = outcome.answer {
                    responder.answer_graphics(answer.query.as_bytes(), answer.reply);
                }
                outcome.placed
            }
            StrKind::Other => None,
        };
        responder.answer_string(kind, &self.capture, bel);
        if self.capture.capacity() > MAX_CAPTURE {
            // An image's megabytes are not kept for the next string.
            self.capture = Vec::new();
        }
        self.capture.clear();
        after
    }

    /// The current screen's row sizes, for a snapshot of `rows` rows.
    pub(crate) fn line_sizes(&self, rows: u16) -> Vec<LineSize> {
        self.lines.current(self.margins.alternate(), rows)
    }
}
