//! The recorder: an observer of a session that streams asciicast v2 events to a writer.
//!
//! The threads that see events only queue them — output from the parser thread (stamped
//! by the reader thread when it arrived, handed over as read, without a copy or a UTF-8
//! check: the writer makes text of it), input and resizes
//! from the session, markers from the executor — and a writer thread of its own, at a
//! lower scheduling priority than the session's, turns them into JSON lines. Nothing on
//! the PTY's path ever waits for the disk: a push takes a short lock and returns.
//!
//! Under a flood the writer may fall behind. Queued output is bounded by
//! [`BACKLOG_BYTES`]: past it, the queued output is dropped and replaced by one redraw of
//! the screen as the parser has it then (vt100's formatted state), so a replay still ends
//! on the same screen while memory stays flat; the frames in between, which no viewer
//! could have seen at that rate, are what is lost, and the recording says so in a marker.
//! Output queued together within [`COALESCE`] of its first chunk is written as one event.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::error::{Error, Result};

/// Output queued for the writer, at most; past it the queue is replaced by a redraw.
pub(crate) const BACKLOG_BYTES: usize = 2 << 20;
/// How much lower the writer thread's priority is than the session's threads.
const WRITER_NICENESS: libc::c_int = 10;
/// Queued output chunks closer than this to the first of their run become one event.
const COALESCE: Duration = Duration::from_millis(5);

/// What the recording's first line says.
pub(crate) struct Header {
    pub cols: u16,
    pub rows: u16,
    pub title: Option<String>,
    pub env: Vec<(String, String)>,
    /// The recording's zero: the session's start, so the times of its events and of the
    /// session's operations (its log, a tape's steps) agree.
    pub started: Instant,
}

enum Pending {
    /// Output as read (the writer turns it into text: a character cut between two
    /// chunks waits for the next).
    Output(Instant, Vec<u8>),
    /// The screen redrawn in place of output dropped under a flood.
    Redraw(Instant, Vec<u8>),
    Input(Instant, String),
    Resize(Instant, u16, u16),
    Marker(Instant, String),
    /// An event of ours (see [`OPERATION_EVENT`](super::OPERATION_EVENT)): its code, its data.
    Custom(Instant, &'static str, String),
}

#[derive(Default)]
struct Queue {
    events: VecDeque<Pending>,
    /// Output bytes in `events`.
    backlog: usize,
    /// No more events: the session ended (or writing failed).
    done: bool,
    error: Option<String>,
    /// Output replaced by a redraw because the writer fell behind.
    resyncs: u64,
}

/// While alive, input is left out of the recording; see [`Recorder::hide_input`].
pub(crate) struct HiddenInput<'a>(&'a Recorder);

impl Drop for HiddenInput<'_> {
    fn drop(&mut self) {
        self.0.hidden.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A session's recording in progress.
pub(crate) struct Recorder {
    start: Instant,
    input: bool,
    /// Secret sends under way ([`Recorder::hide_input`]): their input is not recorded.
    hidden: std::sync::atomic::AtomicUsize,
    queue: Mutex<Queue>,
    ready: Condvar,
    thread: Mutex<Option<JoinHandle<()>>>,
    /// Where the recording goes, for error messages.
    target: String,
}

impl Recorder {
    /// Writes the header and starts the writer thread. `input`: record what is sent too.
    pub(crate) fn start(
        mut out: Box<dyn Write + Send>,
        target: String,
        header: &Header,
        input: bool,
    ) -> Result<std::sync::Arc<Recorder>> {
        let mut env = serde_json::Map::new();
        for (k, v) in &header.env {
            env.insert(k.clone(), json!(v));
        }
        let mut first = json!({
            "version": 2,
            "width": header.cols,
            "height": header.rows,
            "timestamp": std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            "env": env,
        });
        if let Some(title) = &header.title {
            first["title"] = json!(title);
        }
        writeln!(out, "{first}")
            .and_then(|()| out.flush())
            .map_err(|e| Error::io(format!("writing the recording {target}"), e))?;
        let recorder = std::sync::Arc::new(Recorder {
            start: header.started,
            input,
            hidden: std::sync::atomic::AtomicUsize::new(0),
            queue: Mutex::new(Queue::default()),
            ready: Condvar::new(),
            thread: Mutex::new(None),
            target,
        });
        let handle = std::thread::Builder::new()
            .name("tuipilot-recorder".into())
            .spawn({
                let recorder = recorder.clone();
                move || recorder.write_loop(out)
            })
            .map_err(|e| Error::io("starting the recorder thread", e))?;
        *recorder.thread.lock().unwrap_or_else(|p| p.into_inner()) = Some(handle);
        Ok(recorder)
    }

    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn push(&self, mut queue: MutexGuard<'_, Queue>, event: Pending) {
        if queue.done {
            return;
        }
        if let Pending::Output(_, data) | Pending::Redraw(_, data) = &event {
            queue.backlog += data.len();
        }
        // Only an empty queue can have the writer asleep on it.
        let wake = queue.events.is_empty();
        queue.events.push_back(event);
        drop(queue);
        if wake {
            self.ready.notify_one();
        }
    }

    /// Output that arrived at `at`, as read: the writer makes text of it, off the
    /// parser's path.
    pub(crate) fn output(&self, at: Instant, bytes: Vec<u8>) {
        if !bytes.is_empty() {
            self.push(self.lock(), Pending::Output(at, bytes));
        }
    }

    /// Whether the queued output is past [`BACKLOG_BYTES`] (the parser then calls
    /// [`resync`](Self::resync) with the screen).
    pub(crate) fn behind(&self) -> bool {
        self.lock().backlog > BACKLOG_BYTES
    }

    /// Replaces the queued output with `redraw`, the screen as it is now.
    pub(crate) fn resync(&self, redraw: Vec<u8>) {
        let at = Instant::now();
        let mut queue = self.lock();
        queue
            .events
            .retain(|e| !matches!(e, Pending::Output(..) | Pending::Redraw(..)));
        queue.backlog = 0;
        queue.resyncs += 1;
        let note = format!(
            "recording fell {} MiB behind a flood: output replaced by a redraw of the screen",
            BACKLOG_BYTES >> 20
        );
        queue.events.push_back(Pending::Marker(at, note));
        self.push(queue, Pending::Redraw(at, redraw));
    }

    /// Leaves input out of the recording until the guard is dropped: a secret send.
    /// (Another thread's input sent meanwhile is left out too: the safe side.)
    pub(crate) fn hide_input(&self) -> HiddenInput<'_> {
        self.hidden.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        HiddenInput(self)
    }

    /// Input sent to the program (when input is recorded and not hidden).
    pub(crate) fn input(&self, bytes: &[u8]) {
        if self.input && self.hidden.load(std::sync::atomic::Ordering::SeqCst) == 0 {
            let text = String::from_utf8_lossy(bytes).into_owned();
            self.push(self.lock(), Pending::Input(Instant::now(), text));
        }
    }

    /// The terminal was resized.
    pub(crate) fn resize(&self, cols: u16, rows: u16) {
        self.push(self.lock(), Pending::Resize(Instant::now(), cols, rows));
    }

    /// A marker: an operation or a tape line.
    pub(crate) fn marker(&self, label: &str) {
        self.push(self.lock(), Pending::Marker(Instant::now(), label.to_string()));
    }

    /// An event of tuipilot's own, `code` with `data` (asciicast v2 leaves event types
    /// open; players skip the ones they do not know).
    pub(crate) fn custom(&self, code: &'static str, data: String) {
        self.push(self.lock(), Pending::Custom(Instant::now(), code, data));
    }

    /// Writes what is queued, ends the writer thread and says whether every event reached
    /// the writer. Later events are ignored.
    pub(crate) fn finish(&self) -> Result<()> {
        {
            let mut queue = self.lock();
            queue.done = true;
        }
        self.ready.notify_one();
        let handle = self.thread.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = handle {
            let _ = handle.join();
        }
        match self.lock().error.clone() {
            Some(why) => Err(Error::io(
                format!("writing the recording {}", self.target),
                std::io::Error::other(why),
            )),
            None => Ok(()),
        }
    }

    fn write_loop(&self, out: Box<dyn Write + Send>) {
        // The program's output comes first: on a busy machine the writer runs in the time
        // the session's own threads leave (and catches up, or resyncs, after a flood).
        let tid = crate::process::current_thread_id() as libc::id_t;
        // SAFETY: setpriority on this thread's own id changes only its scheduling priority.
        unsafe { libc::setpriority(libc::PRIO_PROCESS, tid, WRITER_NICENESS) };
        let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
        let mut clock = 0.0;
        // The start of a UTF-8 character cut at the end of the last output written.
        let mut carry = Vec::new();
        loop {
            let (batch, done) = {
                let mut queue = self.lock();
                while queue.events.is_empty() && !queue.done {
                    queue = self.ready.wait(queue).unwrap_or_else(|p| p.into_inner());
                }
                queue.backlog = 0;
                (std::mem::take(&mut queue.events), queue.done)
            };
            if let Err(e) = self
                .write_batch(&mut out, batch, &mut clock, &mut carry)
                .and_then(|()| out.flush())
            {
                let mut queue = self.lock();
                queue.error = Some(e.to_string());
                queue.done = true;
                queue.events.clear();
                return;
            }
            if done && self.lock().events.is_empty() {
                return;
            }
        }
    }

    fn write_batch(
        &self,
        out: &mut impl Write,
        batch: VecDeque<Pending>,
        clock: &mut f64,
        carry: &mut Vec<u8>,
    ) -> std::io::Result<()> {
        // Output is stamped when it was read, other events when they were queued, and the
        // parser queues output a little after reading it: a time never goes back in the
        // file (the format's rule), so an event stamped before the last one written takes
        // its time.
        let mut seconds = |at: Instant| {
            *clock = clock.max(round(at.saturating_duration_since(self.start).as_secs_f64()));
            *clock
        };
        let mut batch = batch.into_iter().peekable();
        while let Some(pending) = batch.next() {
            let (at, bytes) = match pending {
                Pending::Output(at, bytes) => (at, bytes),
                Pending::Redraw(at, bytes) => {
                    // What the cut character belonged to was dropped.
                    carry.clear();
                    (at, bytes)
                }
                Pending::Input(at, text) => {
                    write_event(out, seconds(at), "i", &text)?;
                    continue;
                }
                Pending::Resize(at, cols, rows) => {
                    write_event(out, seconds(at), "r", &format!("{cols}x{rows}"))?;
                    continue;
                }
                Pending::Marker(at, label) => {
                    write_event(out, seconds(at), "m", &label)?;
                    continue;
                }
                Pending::Custom(at, code, data) => {
                    write_event(out, seconds(at), code, &data)?;
                    continue;
                }
            };
            // A run of output close together is one event, each piece escaped straight
            // into the file (no joined copy).
            open_event(out, seconds(at), "o")?;
            write_output(out, carry, &bytes)?;
            while let Some(Pending::Output(next, more)) = batch.peek() {
                if next.saturating_duration_since(at) > COALESCE {
                    break;
                }
                write_output(out, carry, more)?;
                batch.next();
            }
            out.write_all(b"\"]\n")?;
        }
        Ok(())
    }
}

/// Writes `[time,"code","` — an event up to its data's first character.
fn open_event(out: &mut impl Write, time: f64, code: &str) -> std::io::Result<()> {
    out.write_all(b"[")?;
    // serde_json writes the float as JSON does (the shortest form that reads back the same).
    serde_json::to_writer(&mut *out, &time)?;
    write!(out, ",\"{code}\",\"")
}

/// Output bytes as text inside an event: a character cut at the end waits in `carry`
/// for the next piece; invalid UTF-8 becomes U+FFFD.
fn write_output(out: &mut impl Write, carry: &mut Vec<u8>, bytes: &[u8]) -> std::io::Result<()> {
    let joined;
    let data: &[u8] = if carry.is_empty() {
        bytes
    } else {
        joined = [std::mem::take(carry).as_slice(), bytes].concat();
        &joined
    };
    let whole = complete_utf8(data);
    write_escaped(out, &String::from_utf8_lossy(&data[..whole]))?;
    carry.extend_from_slice(&data[whole..]);
    Ok(())
}

/// A whole event line.
fn write_event(out: &mut impl Write, time: f64, code: &str, data: &str) -> std::io::Result<()> {
    open_event(out, time, code)?;
    write_escaped(out, data)?;
    out.write_all(b"\"]\n")
}

/// `text` as the inside of a JSON string: `"`, `\` and control characters escaped, runs
/// of everything else copied as they are.
fn write_escaped(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = text.as_bytes();
    let mut run = 0;
    for (at, &b) in bytes.iter().enumerate() {
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0..=0x1f => &[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[usize::from(b >> 4)],
                HEX[usize::from(b & 0xf)],
            ],
            _ => continue,
        };
        out.write_all(&bytes[run..at])?;
        out.write_all(escape)?;
        run = at + 1;
    }
    out.write_all(&bytes[run..])
}

/// Microseconds are what asciinema writes; more digits would only grow the file.
fn round(seconds: f64) -> f64 {
    (seconds * 1e6).round() / 1e6
}

/// How many leading bytes of `bytes` end on a character boundary: an incomplete
/// character at the very end (at most 3 bytes) waits for the next chunk.
pub(crate) fn complete_utf8(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let b = bytes[n - back];
        if b & 0xC0 == 0x80 {
            continue;
        }
        let need = match b {
            0xF0..=0xF7 => 4,
            0xE0..=0xEF => 3,
            0xC0..=0xDF => 2,
            _ => 1,
        };
        return if back < need { n - back } else { n };
    }
    n
}

#[cfg(test)]
mod tests {
    use super::{complete_utf8, write_escaped};

    #[test]
    fn escaped_text_reads_back_as_json_the_same() {
        let samples = [
            "plain",
            "\x1b[1;31mred\x1b[0m\r\n",
            "quote \" back \\ tab\t",
            "\u{0}\u{1f}\u{7f}é€😀",
            "",
        ];
        for text in samples {
            let mut out = b"\"".to_vec();
            write_escaped(&mut out, text).unwrap();
            out.push(b'"');
            let back: String = serde_json::from_slice(&out).unwrap();
            assert_eq!(back, text);
        }
    }

    #[test]
    fn a_character_cut_at_the_end_waits_for_the_rest() {
        let euro = "€".as_bytes();
        assert_eq!(complete_utf8(b"abc"), 3);
        assert_eq!(complete_utf8(&[b'a', euro[0]]), 1);
        assert_eq!(complete_utf8(&[b'a', euro[0], euro[1]]), 1);
        assert_eq!(complete_utf8(&[b'a', euro[0], euro[1], euro[2]]), 4);
        let smile = "😀".as_bytes();
        assert_eq!(complete_utf8(&smile[..3]), 0);
        // Invalid bytes are not held back forever: they pass (and become U+FFFD).
        assert_eq!(complete_utf8(&[0xff, 0xfe]), 2);
        assert_eq!(complete_utf8(&[0x80, 0x80, 0x80, 0x80]), 4);
    }
}
