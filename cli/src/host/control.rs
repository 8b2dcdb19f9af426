//! The control lane: when the host is serving [`MAX_CONNECTIONS`] requests, `hello`,
//! `info` and `exit` still get through, so a full host can always be inspected and ended.
//!
//! One thread watches every waiting control connection at once with `poll(2)` and serves
//! each as soon as its request line is complete: a connection that sends nothing, or
//! trickles its bytes, delays no other. A connection gets at most [`CONTROL_ANSWERS`]
//! answers (`hello` and one request) and is closed; one whose next line is not complete
//! within [`CONTROL_LINE_DEADLINE`] is dropped, and beyond [`CONTROL_WAITING`] waiting
//! connections the newest is told the host is busy.
//!
//! [`MAX_CONNECTIONS`]: super::requests::MAX_CONNECTIONS

use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::guards::check_connection;
use super::protocol::{MAX_LINE, error_line};
use super::requests::{Lane, answer, busy, deliver, too_long};
use super::state::Host;
use crate::error::Failure;

/// How long a control connection may take to send its request line.
pub(super) const CONTROL_LINE_DEADLINE: Duration = Duration::from_secs(1);

/// Control connections waiting for their line at once; more are told the host is busy.
pub(super) const CONTROL_WAITING: usize = 64;

/// How often new connections are taken in while others wait for their lines.
const INTAKE: Duration = Duration::from_millis(20);

/// Requests a control connection may make before it is closed (`hello`, then one more).
const CONTROL_ANSWERS: usize = 2;

/// A control connection waiting for its request line.
struct Waiting {
    stream: UnixStream,
    line: Vec<u8>,
    deadline: Instant,
    /// Requests answered so far.
    answered: usize,
}

/// Serves the control connections handed over on `streams` until the host ends.
pub(super) fn serve(host: &Host, streams: &Receiver<UnixStream>) {
    let mut waiting: Vec<Waiting> = Vec::new();
    loop {
        // Take in new connections: wait for one when none is waiting, else only glance.
        let first = if waiting.is_empty() {
            match streams.recv() {
                Ok(stream) => Some(stream),
                Err(_) => return,
            }
        } else {
            match streams.recv_timeout(Duration::ZERO) {
                Ok(stream) => Some(stream),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        for stream in first
            .into_iter()
            .chain(std::iter::from_fn(|| streams.try_recv().ok()))
        {
            admit(&mut waiting, stream);
        }
        if waiting.is_empty() {
            continue;
        }
        let now = Instant::now();
        waiting.retain(|w| w.deadline > now);
        let wait = waiting
            .iter()
            .map(|w| w.deadline.saturating_duration_since(now))
            .min()
            .unwrap_or(INTAKE)
            .min(INTAKE);
        let mut fds: Vec<libc::pollfd> = waiting
            .iter()
            .map(|w| libc::pollfd {
                fd: w.stream.as_raw_fd(),
                events: libc::POLLIN,
                revents: 0,
            })
            .collect();
        // SAFETY: `fds` is a live array of `fds.len()` pollfd structures.
        let ready = unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                wait.as_millis() as i32,
            )
        };
        if ready <= 0 {
            continue;
        }
        let mut index = 0;
        waiting.retain_mut(|w| {
            let revents = fds[index].revents;
            index += 1;
            if revents == 0 {
                return true;
            }
            read_and_serve(host, w)
        });
    }
}

/// Adds a new connection to those waiting, or turns it away (not the host's user, or too
/// many waiting already).
fn admit(waiting: &mut Vec<Waiting>, mut stream: UnixStream) {
    let refused = match check_connection(&stream) {
        Err(e) => Some(Failure::from(e)),
        Ok(()) if waiting.len() >= CONTROL_WAITING => Some(busy()),
        Ok(()) => None,
    };
    if let Some(e) = refused {
        refuse(&mut stream, &e);
        return;
    }
    if stream.set_nonblocking(true).is_err() {
        return;
    }
    waiting.push(Waiting {
        stream,
        line: Vec::new(),
        deadline: Instant::now() + CONTROL_LINE_DEADLINE,
        answered: 0,
    });
}

/// Reads what `w` has sent and serves each complete line. Whether it stays open.
fn read_and_serve(host: &Host, w: &mut Waiting) -> bool {
    let mut buffer = [0u8; 4096];
    loop {
        while let Some(end) = w.line.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = w.line.drain(..=end).collect();
            if !serve_line(host, w, &line[..end]) {
                return false;
            }
        }
        if w.line.len() > MAX_LINE {
            refuse(&mut w.stream, &too_long());
            return false;
        }
        match w.stream.read(&mut buffer) {
            Ok(0) => {
                // A line cut off by the end of the connection is still a request.
                if !w.line.is_empty() {
                    let line = std::mem::take(&mut w.line);
                    serve_line(host, w, &line);
                }
                return false;
            }
            Ok(n) => w.line.extend_from_slice(&buffer[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return true,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => return false,
        }
    }
}

/// Answers one request line of `w`; whether the connection may send another (a client
/// says `hello` before its request).
fn serve_line(host: &Host, w: &mut Waiting, line: &[u8]) -> bool {
    let answer = answer(host, line, Lane::Control, w.stream.as_raw_fd());
    if !blocking(&w.stream)
        || !deliver(host, &mut w.stream, &answer)
        || w.stream.set_nonblocking(true).is_err()
    {
        return false;
    }
    w.answered += 1;
    w.deadline = Instant::now() + CONTROL_LINE_DEADLINE;
    w.answered < CONTROL_ANSWERS
}

/// Puts a connection back to blocking writes, each bounded by the deadline, to answer it.
fn blocking(stream: &UnixStream) -> bool {
    stream.set_nonblocking(false).is_ok() && stream.set_write_timeout(Some(CONTROL_LINE_DEADLINE)).is_ok()
}

/// Answers a connection with an error line (it is closed after).
fn refuse(stream: &mut UnixStream, e: &Failure) {
    if blocking(stream) {
        let _ = stream.write_all(format!("{}\n", error_line(None, e)).as_bytes());
    }
}
