//! The session's side of a live view: frames out, the person's input in.
//!
//! Three threads per watcher. The frame thread sleeps on the session
//! ([`Watched::wait_for_change`]) and puts a frame in the watcher's outbox when the
//! screen's version moves (a resize too), no sooner than [`FRAME_INTERVAL`] after the
//! last: under a flood the person sees the newest screen 60 times a second, and the
//! program's output is never held up (a frame takes the screen's lock for one copy of
//! the cells). The outbox holds state, not a queue: the newest frame replaces one not yet
//! written, so a watcher that stops reading (a stalled link) is never sent a backlog and
//! never holds the session; the writer thread writes whatever is newest whenever the
//! watcher takes it, and says when frames were skipped meanwhile ("behind"). The calling
//! thread reads the person's lines: a new view size redraws at once; input goes to the
//! program through the [`Person`]'s hooks, whether or not the frames are being read. The
//! watch ends only when the person hangs up; the session goes on.

use std::io::{BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;

use super::Watched;
use super::lines::{Line, MAX_LINE, read_line_limited};
use super::{Assertion, FRAME_INTERVAL, Frame, FromPerson, ToPerson};

/// How long the frame thread sleeps at most before looking whether the watch is over.
const LOOK_AGAIN: Duration = Duration::from_millis(250);

/// What the person's input does: the host's watchers send it to the program (with
/// control), the recorder also groups it and answers assertions.
pub trait Person: Sync {
    /// The person typed `bytes`.
    fn typed(&self, session: &dyn Watched, bytes: &[u8]) -> Result<(), String>;
    /// The person asked for an assertion on the screen; what was added, in words.
    fn assert(&self, session: &dyn Watched, assertion: Assertion) -> Result<String, String>;
}

/// A watcher of an agent's session (`tuipilot attach`): with control, what the person
/// types goes to the program as raw bytes, through the executor, marked typed by a
/// person; without, nothing does.
pub struct Watcher {
    /// Whether the person's keys are sent.
    pub control: bool,
}

/// Sends what a person typed to the program, as it came, through the executor marked
/// typed by a person; the error in the words a status line shows.
pub fn send_typed(session: &dyn Watched, bytes: &[u8]) -> Result<(), String> {
    let send = crate::Operation::Send {
        steps: vec![crate::operation::Step::Bytes(bytes.to_vec())],
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    };
    session
        .apply_by_person(&send)
        .map(drop)
        .map_err(|e| format!("not sent: {e}"))
}

impl Person for Watcher {
    fn typed(&self, session: &dyn Watched, bytes: &[u8]) -> Result<(), String> {
        if !self.control {
            return Err(format!(
                "read-only: keys are not sent (attach with --control to type); {} leaves",
                super::LEAVE_KEY_NAME
            ));
        }
        send_typed(session, bytes)
    }

    fn assert(&self, _: &dyn Watched, _: Assertion) -> Result<String, String> {
        Err("assertions are added while recording (`tuipilot record`), not while attached".into())
    }
}

/// The watcher's view size and the window into the session it last showed.
#[derive(Clone, Copy, Debug)]
struct Window {
    view: (u16, u16),
    first_col: u16,
    first_row: u16,
}

impl Window {
    /// The frame of `snapshot` for this view: the whole screen when it fits, else the
    /// part around the cursor (moved only as far as the cursor needs).
    fn frame(&mut self, snapshot: &crate::Snapshot) -> Frame {
        let (cols, rows) = snapshot.size();
        let cursor = snapshot.cursor();
        let follow = |first: u16, at: u16, size: u16, shown: u16| -> u16 {
            if size <= shown {
                return 0;
            }
            let first = first.min(size - shown);
            if at < first {
                at
            } else if at >= first + shown {
                at + 1 - shown
            } else {
                first
            }
        };
        let (view_cols, view_rows) = (self.view.0.max(1), self.view.1.max(1));
        self.first_col = follow(self.first_col, cursor.col, cols, view_cols);
        self.first_row = follow(self.first_row, cursor.row, rows, view_rows);
        let (width, height) = (cols.min(view_cols), rows.min(view_rows));
        let shown = |at: u16, first: u16, size: u16| at.checked_sub(first).filter(|&n| n < size);
        let modes = snapshot.input_modes();
        Frame {
            cols,
            rows,
            first_col: self.first_col,
            first_row: self.first_row,
            view: self.view,
            lines: snapshot.ansi_window(self.first_row..self.first_row + height, self.first_col, width),
            cursor: match (
                cursor.visible,
                shown(cursor.col, self.first_col, width),
                shown(cursor.row, self.first_row, height),
            ) {
                (true, Some(col), Some(row)) => Some((col, row)),
                _ => None,
            },
            title: snapshot.title().to_string(),
            application_cursor: modes.keys.application_cursor,
            bracketed_paste: modes.bracketed_paste,
            mouse: modes.mouse,
            exited: snapshot.exit_status().map(|status| format!("{status}")),
        }
    }
}

/// What waits to be written to the watcher: the newest frame (replacing one not yet
/// written) and the notes, in order.
#[derive(Default)]
struct Outbox {
    frame: Option<Frame>,
    notes: Vec<String>,
    /// Frames replaced before they were written since the last one written.
    skipped: usize,
    /// The watch is over: the writer stops.
    closed: bool,
}

/// At most this many notes wait; older ones go first (a watcher that reads nothing is
/// never owed an unbounded backlog).
const MAX_NOTES: usize = 16;

/// The outbox and its bell.
struct Mailbox {
    outbox: Mutex<Outbox>,
    ready: Condvar,
}

impl Mailbox {
    fn put_frame(&self, frame: Frame) {
        let mut outbox = self.outbox.lock().unwrap_or_else(|p| p.into_inner());
        if outbox.frame.replace(frame).is_some() {
            outbox.skipped += 1;
        }
        self.ready.notify_one();
    }

    fn put_note(&self, note: String) {
        let mut outbox = self.outbox.lock().unwrap_or_else(|p| p.into_inner());
        if outbox.notes.len() >= MAX_NOTES {
            outbox.notes.remove(0);
        }
        outbox.notes.push(note);
        self.ready.notify_one();
    }

    fn close(&self) {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner()).closed = true;
        self.ready.notify_one();
    }

    fn is_closed(&self) -> bool {
        self.outbox.lock().unwrap_or_else(|p| p.into_inner()).closed
    }

    /// Writes what the outbox holds to `writer` until the watch is over or the watcher
    /// is gone (a write fails: it hung up). A write blocks while the watcher does not
    /// read; what arrives meanwhile replaces the frame waiting, and the watcher is told,
    /// once it reads again, that it was behind.
    fn write_all(&self, mut writer: UnixStream) {
        let mut behind_since: Option<Instant> = None;
        loop {
            let (frame, notes, skipped) = {
                let mut outbox = self.outbox.lock().unwrap_or_else(|p| p.into_inner());
                while !outbox.closed && outbox.frame.is_none() && outbox.notes.is_empty() {
                    outbox = self.ready.wait(outbox).unwrap_or_else(|p| p.into_inner());
                }
                if outbox.closed {
                    return;
                }
                let skipped = std::mem::take(&mut outbox.skipped);
                (outbox.frame.take(), std::mem::take(&mut outbox.notes), skipped)
            };
            let mut lines: Vec<ToPerson> = notes.into_iter().map(ToPerson::Note).collect();
            if skipped > 0
                && let Some(since) = behind_since.take()
            {
                lines.push(ToPerson::Note(format!(
                    "behind: this view stopped reading for {:.1} s; {skipped} screens were skipped, this one is the session's now",
                    since.elapsed().as_secs_f64()
                )));
            }
            lines.extend(frame.map(ToPerson::Frame));
            for message in lines {
                let Ok(mut line) = serde_json::to_string(&message) else {
                    continue;
                };
                line.push('\n');
                let started = Instant::now();
                if writer.write_all(line.as_bytes()).is_err() {
                    self.close();
                    return;
                }
                // A write that waited on the watcher: it has fallen behind.
                if started.elapsed() >= BEHIND && behind_since.is_none() {
                    behind_since = Some(started);
                }
            }
        }
    }
}

/// A write that waits this long on the watcher means it fell behind the session.
const BEHIND: Duration = Duration::from_millis(500);

/// Serves one watcher on `stream` until it hangs up: frames of `session` sized for
/// `view`, and its input through `person`. `read_ahead` is what was read from the stream
/// past the request that started the watch.
pub fn serve(
    session: &dyn Watched,
    stream: UnixStream,
    read_ahead: Vec<u8>,
    view: (u16, u16),
    person: &dyn Person,
) {
    let Ok(writer) = stream.try_clone() else {
        return;
    };
    let Ok(closer) = stream.try_clone() else {
        return;
    };
    let mailbox = Mailbox {
        outbox: Mutex::new(Outbox::default()),
        ready: Condvar::new(),
    };
    let window = Mutex::new(Window {
        view,
        first_col: 0,
        first_row: 0,
    });
    // Looked at, cut and queued under the window's lock: a frame of an older screen or
    // cut for an older view never follows a newer one into the mailbox.
    let frame_now = |window: &Mutex<Window>| {
        let mut window = window.lock().unwrap_or_else(|p| p.into_inner());
        let frame = window.frame(&session.snapshot());
        mailbox.put_frame(frame);
    };
    std::thread::scope(|scope| {
        scope.spawn(|| {
            mailbox.write_all(writer);
            // The watcher is gone: the reader below stops too.
            let _ = closer.shutdown(std::net::Shutdown::Both);
        });
        scope.spawn(|| {
            let mut seen = session.screen_version();
            let mut last_frame = Instant::now();
            frame_now(&window);
            while !mailbox.is_closed() {
                let version = session.wait_for_change(seen, LOOK_AGAIN);
                if version == seen {
                    continue;
                }
                // Coalesce: at most one frame per interval, and always the newest screen.
                let due = last_frame + FRAME_INTERVAL;
                let now = Instant::now();
                if now < due {
                    std::thread::sleep(due - now);
                }
                seen = session.screen_version();
                last_frame = Instant::now();
                frame_now(&window);
            }
        });
        let mut reader = BufReader::new(std::io::Cursor::new(read_ahead).chain(stream));
        while let Ok(Line::Complete(line)) = read_line_limited(&mut reader, MAX_LINE) {
            let note = match serde_json::from_slice::<FromPerson>(&line) {
                Ok(FromPerson::View { cols, rows }) => {
                    window.lock().unwrap_or_else(|p| p.into_inner()).view = (cols, rows);
                    frame_now(&window);
                    None
                }
                Ok(FromPerson::Input(encoded)) => {
                    match base64::engine::general_purpose::STANDARD.decode(encoded) {
                        Ok(bytes) => person.typed(session, &bytes).err(),
                        Err(e) => Some(format!("unreadable input ({e})")),
                    }
                }
                Ok(FromPerson::Assert(assertion)) => Some(match person.assert(session, assertion) {
                    Ok(added) | Err(added) => added,
                }),
                Err(e) => Some(format!("unreadable request from the view ({e})")),
            };
            if let Some(note) = note {
                mailbox.put_note(note);
            }
        }
        mailbox.close();
        let _ = closer.shutdown(std::net::Shutdown::Both);
    });
}
