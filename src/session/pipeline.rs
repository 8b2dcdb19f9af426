//! The threads behind a session: reader, parser, writer and exit watcher.
//!
//! The reader thread only reads the PTY and hands chunks over, so reading and parsing run
//! on separate cores; the parser thread feeds the [`Terminal`](crate::Terminal), writes
//! query replies back at once and wakes waiters when output pauses; the writer thread
//! sends every key as one write and acknowledges it; the exit watcher reaps the child and
//! reports its status once its output has drained. Observers of the output (the raw ring
//! today) hang off the parser thread; none changes how bytes reach the screen.

use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::thread;
use std::time::Duration;

use super::shared::Shared;
use crate::error::{Error, Result};
use crate::process::{self, ExitStatus};
use crate::pty;

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

pub(super) fn write_loop(mut writer: Box<dyn Write + Send>, jobs: Receiver<WriteJob>) {
    for job in jobs {
        match job {
            WriteJob::Bytes(bytes, ack) => {
                let result = writer.write_all(&bytes).and_then(|()| writer.flush());
                if let Some(ack) = ack {
                    let _ = ack.send(result);
                }
            }
            WriteJob::Stop => break,
        }
    }
    // Dropping the writer types newline + EOF into the PTY; by now the program is gone.
}

/// One read from the PTY, and whether more output was already waiting after it.
pub(super) struct Chunk {
    bytes: Vec<u8>,
    more_pending: bool,
}

/// Chunks queued between the reader and the parser (each at most 64 KiB).
pub(super) const CHUNK_QUEUE: usize = 64;
/// Under a continuous flood, waiters are still woken after this much output.
const NOTIFY_EVERY: usize = 1 << 20;

/// Reads the PTY and hands chunks to the parser thread, so reading and parsing run on
/// separate cores. `pending_fd` is a private duplicate of the master descriptor, used
/// only to ask how much output is already waiting.
pub(super) fn read_loop(mut reader: Box<dyn Read + Send>, pending_fd: OwnedFd, chunks: SyncSender<Chunk>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // EIO once every holder of the PTY's slave side is gone.
            Err(_) => break,
        };
        let chunk = Chunk {
            bytes: buf[..n].to_vec(),
            more_pending: pty::bytes_waiting(pending_fd.as_raw_fd()) > 0,
        };
        if chunks.send(chunk).is_err() {
            break;
        }
    }
}

/// Parses chunks into the screen, sends query replies back at once, and wakes waiters
/// when the output has paused (or after [`NOTIFY_EVERY`] bytes of a flood), so a flood
/// does not make every waiter re-read the screen for every 4 KiB.
pub(super) fn parse_loop(chunks: Receiver<Chunk>, shared: &Shared, jobs: &Sender<WriteJob>) {
    let mut unnotified = 0usize;
    while let Ok(first) = chunks.recv() {
        let mut batch = vec![first];
        let mut size = batch[0].bytes.len();
        while size < NOTIFY_EVERY {
            match chunks.try_recv() {
                Ok(chunk) => {
                    size += chunk.bytes.len();
                    batch.push(chunk);
                }
                Err(_) => break,
            }
        }
        let paused = batch.last().is_some_and(|c| !c.more_pending);
        let replies = {
            let mut state = shared.lock();
            for chunk in &batch {
                state.log.push(&chunk.bytes);
                state.terminal.process(&chunk.bytes);
            }
            state.generation += 1;
            state.terminal.take_replies()
        };
        if !replies.is_empty() {
            let _ = jobs.send(WriteJob::Bytes(replies, None));
        }
        unnotified += size;
        if paused || unnotified >= NOTIFY_EVERY {
            shared.notify();
            unnotified = 0;
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
