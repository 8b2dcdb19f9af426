//! The threads behind a session: reader, parser, writer and exit watcher.
//!
//! The reader thread only reads the PTY and hands chunks over, so reading and parsing run
//! on separate cores; the parser thread feeds the [`Terminal`](crate::Terminal), writes
//! query replies back at once and wakes waiters when output pauses; the writer thread
//! sends every key as one write and acknowledges it; the exit watcher reaps the child and
//! reports its status once its output has drained. Observers of the output (the raw ring,
//! a recording) hang off the parser thread; none changes how bytes reach the screen, and
//! none waits for anything but a short lock.

use std::io::{Read, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::thread;
use std::time::{Duration, Instant};

use super::shared::Shared;
use crate::error::{Error, Result};
use crate::process::{self, ExitStatus};
use crate::record::Recorder;

/// How long after the child exits its output may keep arriving before the exit is
/// reported anyway (only when background processes keep the PTY open).
const DRAIN_GRACE: Duration = Duration::from_millis(100);

/// Work for the writer thread.
pub(super) enum WriteJob {
    Bytes(Vec<u8>, Option<mpsc::SyncSender<std::io::Result<()>>>),
    Stop,
}

pub(super) fn spawn_thread(
    name: &str,
    body: impl FnOnce() + Send + 'static,
) -> Result<thread::JoinHandle<()>> {
    thread::Builder::new()
        .name(name.to_string())
        .spawn(body)
        .map_err(|e| Error::io(format!("starting the {name} thread"), e))
}

/// Writes each job to the PTY in order. Whoever queues a job notes its bytes as queued
/// ([`Shared::note_queued`]); they are noted written here, once the kernel has them.
pub(super) fn write_loop(mut writer: Box<dyn Write + Send>, jobs: Receiver<WriteJob>, shared: &Shared) {
    for job in jobs {
        match job {
            WriteJob::Bytes(bytes, ack) => {
                let result = writer.write_all(&bytes).and_then(|()| writer.flush());
                shared.note_written(bytes.len());
                if let Some(ack) = ack {
                    let _ = ack.send(result);
                }
            }
            WriteJob::Stop => break,
        }
    }
    // Dropping the writer types newline + EOF into the PTY; by now the program is gone.
}

/// Chunks queued between the reader and the parser (each at most 64 KiB).
pub(super) const CHUNK_QUEUE: usize = 64;

/// Output as read from the PTY, with when it arrived.
pub(super) type Chunk = (Instant, Vec<u8>);
/// Waiters are woken at most this often: when output pauses, or on this beat under a
/// flood, never once per chunk (a waiter re-reads the screen on each wake-up).
const NOTIFY_INTERVAL: Duration = Duration::from_millis(1);
/// Output parsed in one hold of the state lock, at most (plus one chunk).
const MAX_LOCKED_BYTES: usize = 128 * 1024;

/// Reads the PTY and hands chunks to the parser thread, so reading and parsing run on
/// separate cores.
pub(super) fn read_loop(mut reader: Box<dyn Read + Send>, chunks: SyncSender<Chunk>, shared: &Shared) {
    shared.note_reader_thread();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO once every holder of the PTY's slave side is gone.
            Err(_) => break,
        };
        // Stamped here, as it arrives: a recording's times are the program's, not the
        // parser's.
        shared.note_read(n);
        if chunks.send((Instant::now(), buf[..n].to_vec())).is_err() {
            break;
        }
    }
}

/// Parses chunks into the screen, sends query replies back at once, and wakes waiters
/// when the output pauses, or every [`NOTIFY_INTERVAL`] under a flood. The state lock is
/// held for [`MAX_LOCKED_BYTES`] of output at most, and readers blocked on it go first
/// before the next hold, so a capture or wait never queues behind a flood.
pub(super) fn parse_loop(
    chunks: Receiver<Chunk>,
    shared: &Shared,
    jobs: &Sender<WriteJob>,
    recorder: Option<&Recorder>,
) {
    // When waiters were last woken (none yet: the first output wakes them at once).
    let mut last_notify: Option<Instant> = None;
    let beat_due = |last: Option<Instant>| {
        last.map_or(Duration::ZERO, |t| {
            (t + NOTIFY_INTERVAL).saturating_duration_since(Instant::now())
        })
    };
    // Output parsed but not yet announced to waiters.
    let mut unannounced = false;
    loop {
        let chunk = if unannounced {
            let due = beat_due(last_notify);
            match chunks.recv_timeout(due) {
                Ok(chunk) => Some(chunk),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match chunks.recv() {
                Ok(chunk) => Some(chunk),
                Err(_) => break,
            }
        };
        if let Some(first) = chunk {
            // What is already queued is parsed under the same lock, up to a bound that
            // keeps the lock's hold short (about a millisecond of parsing).
            let mut batch = vec![first];
            let mut size = batch[0].1.len();
            while size < MAX_LOCKED_BYTES {
                match chunks.try_recv() {
                    Ok(chunk) => {
                        size += chunk.1.len();
                        batch.push(chunk);
                    }
                    Err(_) => break,
                }
            }
            let replies = {
                let mut state = shared.lock();
                for (_, chunk) in &batch {
                    state.log.push(chunk);
                    state.terminal.process(chunk);
                }
                // A recorder that fell behind a flood takes the screen instead of the
                // output it could not write in time (its queue is dropped first, so the
                // redraw comes after everything it replaces).
                if let Some(recorder) = recorder.filter(|r| r.behind()) {
                    recorder.resync(state.terminal.redraw());
                    batch.clear();
                }
                // Handed to the recorder (a push onto its queue) before the screen is let
                // go: whoever sees this screen and then ends the session finds it recorded.
                if let Some(recorder) = recorder {
                    for (arrived, chunk) in batch.drain(..) {
                        recorder.output(arrived, chunk);
                    }
                }
                state.note_screen();
                let end = state.log.total();
                state.story.note_output(end);
                state.generation += 1;
                let replies = state.terminal.take_replies();
                shared.note_queued(replies.len());
                shared.note_parsed(size);
                replies
            };
            shared.let_readers_in();
            if !replies.is_empty() && jobs.send(WriteJob::Bytes(replies, None)).is_err() {
                break;
            }
            unannounced = true;
        }
        // Output that pauses is announced at once, unless waiters were woken less than a
        // beat ago; then (and under a flood) on the next beat.
        if unannounced && beat_due(last_notify).is_zero() {
            shared.notify();
            last_notify = Some(Instant::now());
            unannounced = false;
        }
    }
    shared.lock().reader_done = true;
    shared.notify();
}

pub(super) fn watch_exit(pid: i32, shared: &Shared) {
    // If waitpid fails (something else reaped the child), the status is unknowable;
    // report the conventional "killed" status rather than hang every waiter.
    let status = process::wait_for_exit(pid).unwrap_or(ExitStatus::Signaled(libc::SIGKILL));
    let mut state = shared.lock();
    let deadline = std::time::Instant::now() + DRAIN_GRACE;
    while !state.reader_done {
        let now = std::time::Instant::now();
        if now >= deadline {
            break;
        }
        state = shared.sleep(state, deadline - now);
    }
    state.exit = Some(status);
    drop(state);
    shared.notify();
}
