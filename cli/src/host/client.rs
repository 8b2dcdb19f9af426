//! Connecting to a session host and making requests.
//!
//! How a failure reads decides what callers do with the session's files, so each is told
//! apart: only a socket that is missing or refuses connections is a session that is gone
//! ([`ErrorCode::NoSession`]); a full host is [`ErrorCode::Busy`]; a connection that
//! breaks before the answer is a host that died ([`ErrorCode::HostDied`], with the last
//! lines of its log).

use std::io::{BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use super::paths::SessionPaths;
use super::protocol::{Line, MAX_LINE, PROTOCOL_VERSION, Request, Response, read_line_limited, request_line};
use crate::error::{ErrorCode, Failure};

fn hello() -> Request {
    Request::Hello {
        version: PROTOCOL_VERSION,
    }
}

/// A connection to one session's host.
pub struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    name: String,
    log: PathBuf,
    socket: PathBuf,
    /// The longest reply accepted: [`MAX_LINE`] until the host's `hello` gives the bound
    /// its session can reach.
    reply_limit: usize,
}

impl Client {
    /// Connects and performs the `hello` handshake; returns the client and the hello reply.
    pub fn connect(paths: &SessionPaths) -> Result<(Client, Value), Failure> {
        let mut client = Client::open(paths)?;
        let hello = client.call(&hello(), Duration::from_secs(10))?;
        client.heard(&hello);
        Ok((client, hello))
    }

    /// Connects, says hello and makes one request, writing both at once so the call
    /// costs one round trip: what a one-shot CLI call needs.
    pub fn request_once(
        paths: &SessionPaths,
        request: &Request,
        timeout: Duration,
    ) -> Result<Value, Failure> {
        let mut client = Client::open(paths)?;
        let [hello_id, request_id] = client.send_all(&[&hello(), request])?;
        let hello = client.receive(hello_id, Duration::from_secs(10))?;
        client.heard(&hello);
        client.receive(request_id, timeout)
    }

    fn open(paths: &SessionPaths) -> Result<Client, Failure> {
        let name = &paths.name;
        let stream = UnixStream::connect(&paths.socket).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => Failure::new(
                ErrorCode::NoSession,
                format!(
                    "no session named `{name}` ({}): start one with `tuipilot start -s {name} -- CMD`",
                    running_sessions(paths)
                ),
            ),
            std::io::ErrorKind::ConnectionRefused => Failure::new(
                ErrorCode::NoSession,
                format!("session `{name}` is gone (its host is not running): start it again with `tuipilot start -s {name} -- CMD`"),
            ),
            // The host's queue of connections not yet accepted is full.
            std::io::ErrorKind::WouldBlock => Failure::new(
                ErrorCode::Busy,
                format!("session `{name}` is busy: its host has more connections waiting than it queues; retry shortly"),
            ),
            _ => Failure::internal(format!(
                "cannot reach session `{name}` at {}: {e}",
                paths.socket.display()
            )),
        })?;
        let writer = stream
            .try_clone()
            .map_err(|e| Failure::internal(format!("cloning the connection to session `{name}`: {e}")))?;
        Ok(Client {
            reader: BufReader::new(stream),
            writer,
            next_id: 1,
            name: name.clone(),
            log: paths.log.clone(),
            socket: paths.socket.clone(),
            reply_limit: MAX_LINE,
        })
    }

    /// Makes one request and hands the connection over for what follows its answer (a
    /// `watch`'s live view): the answer, the stream and the bytes already read past it.
    pub fn into_stream(
        mut self,
        request: &Request,
        timeout: Duration,
    ) -> Result<(Value, UnixStream, Vec<u8>), Failure> {
        let answer = self.call(request, timeout)?;
        let read_ahead = self.reader.buffer().to_vec();
        Ok((answer, self.reader.into_inner(), read_ahead))
    }

    /// Takes what the host's `hello` says about its replies.
    fn heard(&mut self, hello: &Value) {
        if let Some(limit) = hello.get("max_reply_bytes").and_then(Value::as_u64) {
            self.reply_limit = usize::try_from(limit).unwrap_or(usize::MAX).max(MAX_LINE);
        }
    }

    /// Sends one request and reads its response, waiting at most `timeout` for it.
    pub fn call(&mut self, request: &Request, timeout: Duration) -> Result<Value, Failure> {
        let id = self.send(request)?;
        self.receive(id, timeout)
    }

    /// The connection broke before the answer came: the host died (or was killed) — or,
    /// when its socket still takes connections, it is alive and dropped this one (out of
    /// descriptors or memory), which is no reason to start the session again.
    fn host_died(&self, e: &std::io::Error) -> Failure {
        // A host being killed can still take a connection for a moment while its process
        // winds down: alive only if it keeps taking them over a few tenths of a second.
        let alive = (0..4).all(|attempt| {
            if attempt > 0 {
                std::thread::sleep(Duration::from_millis(100));
            }
            UnixStream::connect(&self.socket).is_ok()
        });
        if alive {
            return Failure::new(
                ErrorCode::Busy,
                format!(
                    "session `{}`'s host is running but dropped the connection before answering ({e}); {}; it may be out of file descriptors or memory: retry shortly",
                    self.name,
                    log_tail(&self.log)
                ),
            );
        }
        host_died(&self.name, &self.log, e)
    }

    /// Writes a request line; returns its id.
    fn send(&mut self, request: &Request) -> Result<u64, Failure> {
        let [id] = self.send_all(&[request])?;
        Ok(id)
    }

    /// Writes several request lines in one write (one wake-up of the host); returns
    /// their ids.
    fn send_all<const N: usize>(&mut self, requests: &[&Request; N]) -> Result<[u64; N], Failure> {
        let mut ids = [0; N];
        let mut lines = String::new();
        for (slot, request) in ids.iter_mut().zip(requests) {
            *slot = self.next_id;
            self.next_id += 1;
            lines.push_str(&request_line(*slot, request));
            lines.push('\n');
        }
        self.writer
            .write_all(lines.as_bytes())
            .map_err(|e| self.host_died(&e))?;
        Ok(ids)
    }

    /// Reads the response to request `id`.
    fn receive(&mut self, id: u64, timeout: Duration) -> Result<Value, Failure> {
        self.reader
            .get_ref()
            .set_read_timeout(Some(timeout))
            .map_err(|e| self.host_died(&e))?;
        let reply = match read_line_limited(&mut self.reader, self.reply_limit) {
            Ok(Line::Complete(bytes)) => bytes,
            Ok(Line::Eof) => {
                return Err(self.host_died(&std::io::Error::other("it closed the connection")));
            }
            Ok(Line::TooLong) => {
                return Err(Failure::internal(format!(
                    "the host's reply is longer than the {} bytes its session can produce; the host is broken",
                    self.reply_limit
                )));
            }
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Err(Failure::internal(format!(
                    "session `{}` did not answer within {} ms; its host may be stuck (see its log)",
                    self.name,
                    timeout.as_millis()
                )));
            }
            Err(e) => return Err(self.host_died(&e)),
        };
        let response: Response = serde_json::from_slice(&reply)
            .map_err(|e| Failure::internal(format!("unreadable reply from the host: {e}")))?;
        if response.id != Some(id) {
            return Err(Failure::internal(format!(
                "the host answered request {:?} instead of {id}",
                response.id
            )));
        }
        match (response.ok, response.error) {
            (_, Some(error)) => Err(error),
            (Some(ok), None) => Ok(ok),
            (None, None) => Err(Failure::internal("the host's reply has neither `ok` nor `error`")),
        }
    }
}

/// The sessions whose hosts answer in the runtime directory of `paths`, in words
/// (`running: a, b` or `none is running`): what a mistyped name was probably meant to be.
fn running_sessions(paths: &SessionPaths) -> String {
    let Some(dir) = paths.socket.parent() else {
        return "none is running".into();
    };
    let live: Vec<String> = super::paths::session_names(dir)
        .into_iter()
        .filter(|name| {
            SessionPaths::new(dir, name).is_ok_and(|other| UnixStream::connect(other.socket).is_ok())
        })
        .collect();
    match live.is_empty() {
        true => "none is running".into(),
        false => format!("running: {}", live.join(", ")),
    }
}

/// The last lines of a host's log, in words.
fn log_tail(log: &std::path::Path) -> String {
    match std::fs::read_to_string(log) {
        Ok(text) => {
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            match &lines[lines.len().saturating_sub(3)..] {
                [] => "its log is empty".to_string(),
                last => format!("its log ends: {}", last.join(" | ")),
            }
        }
        Err(_) => "its log is gone".to_string(),
    }
}

/// The error for a host that died mid-request, with the last lines of its log: what it
/// said before it went is the best clue to why.
fn host_died(name: &str, log: &std::path::Path, e: &std::io::Error) -> Failure {
    let tail = log_tail(log);
    Failure::new(
        ErrorCode::HostDied,
        format!(
            "the session's host died before answering (session `{name}`: {e}); {tail}; start the session again"
        ),
    )
}
