//! The terminal: a `vt100` screen, the layer that closes its gaps, and the responder that
//! answers the program's queries.
//!
//! [`Terminal`] knows nothing of processes: it takes output bytes and keeps the screen.
//! A session feeds it from the PTY reader; tests and tools can feed it recorded streams.
//!
//! Synchronized output (mode 2026) is honoured as terminals that support it do: between
//! `CSI ? 2026 h` and `CSI ? 2026 l` the program draws its next frame, and the screen
//! shown — [`snapshot`](Terminal::snapshot), [`text`](Terminal::text), what waits read — is
//! the frame from before, until the update ends or [`SYNC_HOLD_LIMIT`] passes (a program
//! that never ends its update is shown as it is). A frame begun and ended within one batch
//! of output costs nothing; one that spans batches costs a copy of the screen.
//!
//! ```
//! use tuipilot::Terminal;
//!
//! let mut term = Terminal::new(80, 24).unwrap();
//! term.process(b"\x1b(0lqqk\x1b(B\r\n\x1b[6n");
//! assert_eq!(term.snapshot().row(0), Some("┌──┐"));
//! assert_eq!(term.take_replies(), b"\x1b[2;1R");
//! ```

mod capture;
mod clusters;
mod gaps;
pub(crate) mod graphics;
mod params;
mod respond;
mod sequence;
pub mod signals;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::OnceLock;

pub use graphics::{Image, ImageProtocol, MAX_IMAGE_MEMORY, MAX_IMAGE_PIXELS};
pub use respond::{CellSize, QueryRecord, escape_bytes};
pub use signals::{LastCommand, Link, Signals};

use crate::color::Theme;
use crate::error::{Error, Result};
use crate::keys::{InputModes, KeyModes};
use crate::snapshot::Snapshot;
use gaps::GapLayer;
use respond::Responder;

/// Smallest and largest accepted sizes: vt100 can panic on very narrow screens, and a
/// huge grid is a memory hazard rather than a terminal.
pub const MIN_COLS: u16 = 10;
/// The fewest rows a screen may have.
pub const MIN_ROWS: u16 = 2;
/// Columns when nobody says otherwise.
pub const DEFAULT_COLS: u16 = 80;
/// Rows when nobody says otherwise.
pub const DEFAULT_ROWS: u16 = 24;
/// The most columns or rows a screen may have.
pub const MAX_SIZE: u16 = 1000;

/// Default number of scrollback lines kept.
pub const DEFAULT_SCROLLBACK: usize = 1000;

/// The most scrollback lines a terminal may keep (more is an error): at the widest screen
/// that is about 4 GB of text already.
pub const MAX_SCROLLBACK: usize = 100_000;

/// The longest window title kept, in bytes; a longer one is cut at a character boundary.
/// The title is in every screen reply, so the program must not be able to make each of
/// them megabytes long.
pub const MAX_TITLE_BYTES: usize = 4096;

/// The most bytes of text one cell can hold (vt100 keeps a character and its combining
/// marks in 22 bytes): what bounds the size of a capture.
pub const MAX_CELL_BYTES: usize = 22;

pub(crate) type Parser = vt100::Parser<Events>;

/// How long a synchronized update may hold the last frame on show.
pub const SYNC_HOLD_LIMIT: std::time::Duration = std::time::Duration::from_millis(500);

const SYNC_BEGIN: &[u8] = b"\x1b[?2026h";
const SYNC_END: &[u8] = b"\x1b[?2026l";

/// Events vt100 reports only through callbacks.
#[derive(Default)]
pub(crate) struct Events {
    pub(crate) title: String,
    bells: u64,
    /// The start of a UTF-8 character whose remaining bytes have not arrived yet (see
    /// `gaps::give`).
    pub(crate) held_utf8: Vec<u8>,
}

impl vt100::Callbacks for Events {
    fn set_window_title(&mut self, _: &mut vt100::Screen, title: &[u8]) {
        let mut title = String::from_utf8_lossy(title).into_owned();
        if title.len() > MAX_TITLE_BYTES {
            let mut end = MAX_TITLE_BYTES;
            while !title.is_char_boundary(end) {
                end -= 1;
            }
            title.truncate(end);
        }
        self.title = title;
    }

    fn audible_bell(&mut self, _: &mut vt100::Screen) {
        self.bells += 1;
    }
}

/// Checks a size against the accepted range.
pub(crate) fn check_size(cols: u16, rows: u16) -> Result<()> {
    let ok = (MIN_COLS..=MAX_SIZE).contains(&cols) && (MIN_ROWS..=MAX_SIZE).contains(&rows);
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidSize { cols, rows })
    }
}

/// Options for a [`Terminal`].
#[derive(Clone, Debug)]
pub struct TerminalOptions {
    /// Columns.
    pub cols: u16,
    /// Rows.
    pub rows: u16,
    /// Lines of scrollback kept (older lines are dropped).
    pub scrollback: usize,
    /// Colours reported to OSC 4/10/11/12 queries.
    pub theme: Theme,
    /// Cell size reported to `CSI 14 t` / `CSI 16 t`.
    pub cell_size: CellSize,
}

impl Default for TerminalOptions {
    fn default() -> Self {
        TerminalOptions {
            cols: DEFAULT_COLS,
            rows: DEFAULT_ROWS,
            scrollback: DEFAULT_SCROLLBACK,
            theme: Theme::default(),
            cell_size: CellSize::default(),
        }
    }
}

/// A terminal screen fed with program output.
pub struct Terminal {
    parser: Parser,
    layer: GapLayer,
    responder: Responder,
    fault: Option<String>,
    /// The start of a UTF-8 character whose remaining bytes have not arrived yet.
    utf8_hold: Vec<u8>,
    /// The screen shown while a synchronized update is drawn, and since when.
    frame: Option<(Snapshot, std::time::Instant)>,
    /// The live screen's snapshot, made at the first ask after the parser last changed:
    /// a wait's last look, the capture after it and every waiter one batch wakes share
    /// it. Everything that touches the parser drops it: the gap layer's work
    /// ([`Terminal::contained`]) and every other change ([`Terminal::parser_mut`]).
    live: OnceLock<Snapshot>,
}

impl Terminal {
    /// A terminal of `cols` × `rows` with default options.
    pub fn new(cols: u16, rows: u16) -> Result<Terminal> {
        Terminal::with_options(TerminalOptions {
            cols,
            rows,
            ..TerminalOptions::default()
        })
    }

    /// A terminal with the given options; fails if the size is out of range.
    pub fn with_options(options: TerminalOptions) -> Result<Terminal> {
        check_size(options.cols, options.rows)?;
        if options.scrollback > MAX_SCROLLBACK {
            return Err(crate::Error::InvalidArgument {
                message: format!(
                    "scrollback of {} lines is too many: keep at most {MAX_SCROLLBACK}",
                    options.scrollback
                ),
            });
        }
        Ok(Terminal::unchecked(options))
    }

    fn unchecked(options: TerminalOptions) -> Terminal {
        let rows = std::num::NonZeroU16::new(options.rows.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
        let cols = std::num::NonZeroU16::new(options.cols.max(1)).unwrap_or(std::num::NonZeroU16::MIN);
        Terminal {
            parser: vt100::Parser::new_with_callbacks(rows, cols, options.scrollback, Events::default()),
            layer: GapLayer::new(),
            responder: Responder::new(options.theme, options.cell_size),
            fault: None,
            utf8_hold: Vec::new(),
            frame: None,
            live: OnceLock::new(),
        }
    }

    /// Parses program output. Replies to any queries in it are queued for
    /// [`take_replies`](Self::take_replies). A panic inside the parser is contained: the
    /// terminal records a fault, keeps its last screen, and ignores further output.
    pub fn process(&mut self, bytes: &[u8]) {
        // vte 0.15 drops the character after a UTF-8 sequence split across two calls
        // (its partial-sequence path consumes every valid byte but prints only the first
        // character), so a chunk never ends inside a character here: an incomplete
        // trailing sequence waits for the next chunk.
        let held = std::mem::take(&mut self.utf8_hold);
        let joined;
        let input = if held.is_empty() {
            bytes
        } else {
            joined = [held.as_slice(), bytes].concat();
            &joined
        };
        let (now, later) = input.split_at(input.len() - incomplete_utf8_tail(input));
        self.utf8_hold = later.to_vec();
        // An update that begins here and does not end in this batch keeps the screen from
        // before it on show.
        let mut rest = now;
        while let Some(at) = memchr::memmem::find(rest, SYNC_BEGIN) {
            let (before, from) = rest.split_at(at + SYNC_BEGIN.len());
            let (before, begin) = before.split_at(at);
            self.feed(before);
            if self.frame.is_none()
                && !self.layer.modes.synchronized
                && memchr::memmem::find(from, SYNC_END).is_none()
            {
                self.frame = Some((self.live_snapshot(), std::time::Instant::now()));
            }
            self.feed(begin);
            rest = from;
        }
        self.feed(rest);
        if !self.layer.modes.synchronized {
            self.frame = None;
        }
    }

    fn feed(&mut self, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.contained(|layer, parser, responder| layer.process(bytes, parser, responder));
        }
    }

    /// The frame a synchronized update holds on show, while it may.
    fn held_frame(&self) -> Option<&Snapshot> {
        self.frame
            .as_ref()
            .filter(|(_, since)| since.elapsed() < SYNC_HOLD_LIMIT)
            .map(|(frame, _)| frame)
    }

    /// Whether the program is drawing a synchronized update (mode 2026) right now.
    pub fn synchronized(&self) -> bool {
        self.layer.modes.synchronized
    }

    /// The parser, to change: the live screen's snapshot made before is dropped.
    fn parser_mut(&mut self) -> &mut Parser {
        self.live.take();
        &mut self.parser
    }

    /// Runs `work` on the parser, turning a panic into a recorded fault.
    fn contained(&mut self, work: impl FnOnce(&mut GapLayer, &mut Parser, &mut Responder)) {
        if self.fault.is_some() {
            return;
        }
        self.live.take();
        let (layer, parser, responder) = (&mut self.layer, &mut self.parser, &mut self.responder);
        let result = catch_unwind(AssertUnwindSafe(|| work(layer, parser, responder)));
        if let Err(panic) = result {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            self.fault = Some(message);
        }
    }

    /// The bytes to write back to the program (answers to its queries), in order.
    pub fn take_replies(&mut self) -> Vec<u8> {
        self.responder.take_replies()
    }

    /// The parser fault, if the parser panicked on some output.
    pub fn fault(&self) -> Option<Error> {
        self.fault
            .as_ref()
            .map(|m| Error::TerminalFault { message: m.clone() })
    }

    /// A copy of the visible screen (during a synchronized update, the frame before it).
    pub fn snapshot(&self) -> Snapshot {
        match self.held_frame() {
            Some(frame) => frame.clone(),
            None => self.live_snapshot(),
        }
    }

    fn live_snapshot(&self) -> Snapshot {
        self.live.get_or_init(|| self.snapshot_now()).clone()
    }

    /// The parser's visible screen as it is now, made afresh (a scrolled-back view too).
    fn snapshot_now(&self) -> Snapshot {
        let screen = self.parser.screen();
        capture::snapshot_of(
            screen,
            &self.parser.callbacks().title,
            self.input_modes(),
            &self.layer.clusters,
            self.layer.images.images(screen, self.responder.cell),
            self.layer.modes.reverse_screen,
            self.layer.line_sizes(screen.size().0.get()),
        )
    }

    /// The visible screen as text, the same as `snapshot().text()` but cheaper.
    pub fn text(&self) -> String {
        if let Some(frame) = self.held_frame() {
            return frame.text();
        }
        let screen = self.parser.screen();
        let cols = screen.size().1.get();
        let text = screen
            .rows(0, cols)
            .map(|mut r| {
                r.truncate(r.trim_end_matches(' ').len());
                r
            })
            .collect::<Vec<_>>()
            .join("\n");
        self.layer.clusters.decode(&text).into_owned()
    }

    /// The cursor's row as text, trailing spaces trimmed.
    pub fn cursor_row_text(&self) -> String {
        if let Some(frame) = self.held_frame() {
            let row = frame.cursor().row;
            return frame
                .row(row)
                .unwrap_or_default()
                .trim_end_matches(' ')
                .to_string();
        }
        let screen = self.parser.screen();
        let row = self.cursor_position().0;
        let text = screen
            .rows(0, screen.size().1.get())
            .nth(usize::from(row))
            .unwrap_or_default();
        self.layer
            .clusters
            .decode(text.trim_end_matches(' '))
            .into_owned()
    }

    /// Where the cursor is, `(row, col)`, 0-based (during a synchronized update, in the
    /// frame before it), without taking a snapshot.
    pub fn cursor_position(&self) -> (u16, u16) {
        if let Some(frame) = self.held_frame() {
            let cursor = frame.cursor();
            return (cursor.row, cursor.col);
        }
        let screen = self.parser.screen();
        let (row, col) = screen.cursor_position();
        (row.min(screen.size().0.get().saturating_sub(1)), col)
    }

    /// The screen as someone scrolled back `rows` lines into the scrollback sees it
    /// (0: the live screen; more than the scrollback holds stops at its top).
    pub fn snapshot_scrolled_back(&mut self, rows: usize) -> Snapshot {
        if rows == 0 {
            return self.snapshot();
        }
        self.parser_mut().screen_mut().set_scrollback(rows);
        let snapshot = match self.held_frame() {
            Some(frame) => frame.clone(),
            None => self.snapshot_now(),
        };
        self.parser_mut().screen_mut().set_scrollback(0);
        snapshot
    }

    /// A cheap fingerprint of everything visible (cells, attributes, cursor), to tell
    /// whether the screen changed.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let screen = self.parser.screen();
        let mut h = std::collections::hash_map::DefaultHasher::new();
        screen.contents_formatted().hash(&mut h);
        // A resize is a new screen even where no cell changed: a live view redraws it.
        screen.size().hash(&mut h);
        screen.cursor_position().hash(&mut h);
        screen.hide_cursor().hash(&mut h);
        self.parser.callbacks().title.hash(&mut h);
        h.finish()
    }

    /// Bytes that draw this screen on a fresh terminal of the same size: its cells,
    /// cursor, input modes and title, on the alternate screen if it is there (what a
    /// recording writes in place of output it had to drop).
    pub fn redraw(&self) -> Vec<u8> {
        let screen = self.parser.screen();
        let mut out = Vec::new();
        if screen.alternate_screen() {
            out.extend_from_slice(b"\x1b[?1049h");
        }
        let formatted = screen.state_formatted();
        out.extend_from_slice(self.layer.clusters.decode(&formatted).as_bytes());
        out
    }

    /// `(cols, rows)`.
    pub fn size(&self) -> (u16, u16) {
        let (rows, cols) = self.parser.screen().size();
        (cols.get(), rows.get())
    }

    /// Changes the grid size (rows are cut or padded; there is no reflow).
    pub fn resize(&mut self, cols: u16, rows: u16) -> Result<()> {
        check_size(cols, rows)?;
        // A frame held from before is of the old size: show the live screen.
        self.frame = None;
        if let (Some(r), Some(c)) = (std::num::NonZeroU16::new(rows), std::num::NonZeroU16::new(cols)) {
            self.parser_mut().set_size(r, c);
        }
        Ok(())
    }

    /// The modes that decide how keys are encoded right now.
    pub fn key_modes(&self) -> KeyModes {
        let screen = self.parser.screen();
        let modes = &self.layer.modes;
        KeyModes {
            application_cursor: screen.application_cursor(),
            kitty_flags: modes.kitty.flags(screen.alternate_screen()),
            modify_other_keys: modes.modify_other_keys,
            newline: modes.newline,
        }
    }

    /// Everything the program asked of its input right now: keys, mouse, focus, paste.
    pub fn input_modes(&self) -> InputModes {
        InputModes {
            keys: self.key_modes(),
            mouse: self.layer.modes.mouse,
            focus_events: self.layer.modes.focus_events,
            bracketed_paste: self.bracketed_paste(),
        }
    }

    /// The pixel size of a cell this terminal reports (and mouse mode 1016 counts in).
    pub fn cell_size(&self) -> CellSize {
        self.responder.cell
    }

    /// Whether the program enabled bracketed paste.
    pub fn bracketed_paste(&self) -> bool {
        self.parser.screen().bracketed_paste()
    }

    /// Whether the alternate screen is shown (a full-screen program's).
    pub fn alternate_screen(&self) -> bool {
        self.parser.screen().alternate_screen()
    }

    /// The window title the program set (OSC 0/2).
    pub fn title(&self) -> &str {
        &self.parser.callbacks().title
    }

    /// How many times the program rang the bell.
    pub fn bells(&self) -> u64 {
        self.parser.callbacks().bells
    }

    /// What the program signalled besides the screen: shell marks, working directory,
    /// clipboard writes, notifications, the title stack.
    pub fn signals(&self) -> &Signals {
        &self.layer.signals
    }

    /// The hyperlinks (OSC 8) whose text is still on the screen where it was written.
    pub fn links(&self) -> Vec<Link> {
        self.layer.signals.links(self.parser.screen())
    }

    /// The last command the shell finished, with its prompt, command and output rows on
    /// the screen as it is now (needs a shell that sends OSC 133 marks).
    pub fn last_command(&self) -> Option<LastCommand> {
        let rows = self.size().1;
        let scrolled = signals::scrolled(self.parser.screen());
        self.layer.signals.last_command(scrolled, rows)
    }

    /// The queries the program sent (most recent last, up to 256) and the replies.
    pub fn transcript(&self) -> Vec<QueryRecord> {
        self.responder.transcript().cloned().collect()
    }

    /// Lines that scrolled off the top, oldest first (up to the scrollback limit).
    pub fn scrollback(&mut self) -> Vec<String> {
        let screen = self.parser_mut().screen_mut();
        let (rows, cols) = (usize::from(screen.size().0.get()), screen.size().1.get());
        screen.set_scrollback(usize::MAX);
        let len = screen.scrollback();
        let mut lines = Vec::with_capacity(len);
        let mut k = 0;
        while k < len {
            screen.set_scrollback(len - k);
            let take = rows.min(len - k);
            lines.extend(screen.rows(0, cols).take(take).map(|mut r| {
                r.truncate(r.trim_end_matches(' ').len());
                r
            }));
            k += take;
        }
        screen.set_scrollback(0);
        let clusters = &self.layer.clusters;
        lines
            .into_iter()
            .map(|l| clusters.decode(&l).into_owned())
            .collect()
    }
}

/// How many bytes at the end of `bytes` begin a UTF-8 character that is not complete.
fn incomplete_utf8_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let needed = match b {
            0xF0.. => 4,
            0xE0.. => 3,
            0xC0.. => 2,
            _ => 1,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests;
