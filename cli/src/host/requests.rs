//! What a request does to a host: which lane may make it, the executor's answer with what
//! the host adds (the handshake, its name and pid, numbered PNG files), and its delivery
//! (after `exit`, the host's end). The worker threads and the control lane both answer
//! through here.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

use serde_json::{Value, json};
use tuipilot::operation::Step;
use tuipilot::{Cancel, Operation};

use super::protocol::{
    CAPABILITIES, HostInfo, MAX_LINE, PROTOCOL_VERSION, Request, error_line, ok_line, parse_request,
    unsupported_version,
};
use super::state::Host;
use crate::error::{ErrorCode, Failure};

/// Requests served at once; beyond this, connections go to the control lane.
pub const MAX_CONNECTIONS: usize = 32;

/// The answer to a request line over [`MAX_LINE`] bytes.
pub(super) fn too_long() -> Failure {
    Failure::bad_request(format!(
        "request line longer than {MAX_LINE} bytes: send smaller requests (split long text over several)"
    ))
}

pub(super) fn busy() -> Failure {
    Failure::new(
        ErrorCode::Busy,
        format!(
            "the session is busy: its host is serving {MAX_CONNECTIONS} requests already; retry when one has finished (`info` and `exit` are always served)"
        ),
    )
}

/// Which requests a connection may make: all of them, or (in the control lane, when the
/// host is full) only those that must always get through.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lane {
    /// A worker thread: every request.
    Worker,
    /// The control lane (see `control`): `hello`, `info` and `exit`.
    Control,
}

/// Whether a request can take long: it waits or pauses, so its client's hang-up is watched.
pub(super) fn can_wait(request: &Request) -> bool {
    match request {
        Request::Op(Operation::Send { steps, wait, .. }) => {
            wait.is_some()
                || steps
                    .iter()
                    .any(|s| matches!(s, Step::SleepMs(_) | Step::Type { .. }))
        }
        Request::Op(Operation::Wait { .. }) => true,
        Request::Op(Operation::Capture { wait, .. }) => wait.is_some(),
        _ => false,
    }
}

/// A request's reply, and whether the host stops once it is sent.
pub(super) struct Answer {
    reply: String,
    stopping: bool,
}

/// Serves one request line from connection `fd` in `lane`.
pub(super) fn answer(host: &Host, line: &[u8], lane: Lane, fd: std::os::fd::RawFd) -> Answer {
    *host.last_request.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    let (id, request) = parse_request(line);
    let stopping = matches!(request, Ok(Request::Op(Operation::Exit { .. })));
    let always_served = matches!(
        request,
        Ok(Request::Hello { .. } | Request::Op(Operation::Info | Operation::Exit { .. })) | Err(_)
    );
    let result = match request {
        Ok(_) if lane == Lane::Control && !always_served => Err(busy()),
        Ok(request) => {
            let cancel = host.session.canceller();
            let _watched = can_wait(&request).then(|| host.hangups.register(fd, cancel.clone()));
            handle(host, request, &cancel)
        }
        Err(e) => Err(e),
    };
    // An `exit` refused as bad input (a timeout too long) ended nothing: the host and its
    // program stay, and the caller can ask again.
    let stopping = stopping && !matches!(&result, Err(e) if e.code == ErrorCode::BadRequest);
    let reply = match result {
        Ok(body) => ok_line(id, &body),
        Err(e) => error_line(id, &e),
    };
    Answer { reply, stopping }
}

/// Sends an answer; whether the connection can go on. After an `exit` the host ends here.
pub(super) fn deliver(host: &Host, writer: &mut impl Write, answer: &Answer) -> bool {
    let line = format!("{}\n", answer.reply);
    if answer.stopping {
        // The name is free once the client has its answer, so a `start` right after an
        // `exit` never finds the old socket; and a client gone by now changes nothing.
        host.files.remove();
        let _ = writer.write_all(line.as_bytes());
        std::process::exit(0);
    }
    // One write per reply: `writeln!` on a socket sends the line and its newline as two
    // packets, and the client wakes for each.
    writer.write_all(line.as_bytes()).is_ok()
}

impl Host {
    /// `NAME-0001.png`, `NAME-0002.png`, … in the runtime directory: the first unused.
    fn next_png_path(&self) -> PathBuf {
        let paths = &self.files.paths;
        let dir = paths.socket.parent().unwrap_or(Path::new("."));
        let mut n = self.png_counter.fetch_add(1, Ordering::SeqCst) + 1;
        loop {
            let path = dir.join(format!("{}-{n:04}.png", paths.name));
            if !path.exists() {
                return path;
            }
            n = self.png_counter.fetch_add(1, Ordering::SeqCst) + 1;
        }
    }
}

/// Translates one request into the library's executor; the host adds only what is its
/// own: the handshake, its name and pid in `info`, a numbered file for a PNG without a
/// path, and disarming the watchdog once the program has been ended.
fn handle(host: &Host, request: Request, cancel: &Cancel) -> Result<Value, Failure> {
    let session = &host.session;
    let operation = match request {
        Request::Hello { version } => {
            if version != PROTOCOL_VERSION {
                return Err(unsupported_version(version).into());
            }
            return Ok(json!({
                "version": PROTOCOL_VERSION,
                "capabilities": CAPABILITIES,
                "session": host.files.paths.name,
                "pid": session.pid(),
                "max_reply_bytes": host.max_reply,
                "idle_timeout_secs": host.idle_timeout.as_secs(),
            }));
        }
        Request::Log => {
            // The world the session's program found, for an export to carry: its map and
            // where its copy is (this host's private temporary folder), or why it is not.
            let world = match session.world() {
                Some(Ok(world)) => json!({ "map": world.map(), "root": world.root() }),
                Some(Err(refused)) => json!({ "refused": refused.to_string() }),
                None => Value::Null,
            };
            // The screen now, with no input since the last operation, once the program had
            // its chance to redraw by itself: what changed since the log's last screen
            // drifted (a clock, a meter), and an export masks it.
            let now = session.screen_for_export();
            return Ok(
                json!({ "start": host.start, "operations": session.operations(), "world": world, "screen": now }),
            );
        }
        Request::Report { path } => {
            let reply = {
                let mut report = tuipilot::report::RunReport::of_session(session)?;
                report.title = host.files.paths.name.clone();
                match path {
                    Some(path) => json!({ "written": report.write_to(&path)? }),
                    None => json!({ "markdown": report.text(tuipilot::report::ReportFormat::Markdown)? }),
                }
            };
            super::return_freed_memory();
            return Ok(reply);
        }
        Request::Watch { .. } => {
            return Err(Failure::bad_request(
                "`watch` turns a connection into a live view: send it on a connection of its own, right after `hello`",
            ));
        }
        Request::Op(Operation::Info) => {
            return to_json(&HostInfo {
                session: host.files.paths.name.clone(),
                host_pid: std::process::id(),
                info: session.info(),
            });
        }
        Request::Op(mut operation) => {
            if let Operation::Capture { png, svg, .. } = &mut operation {
                // The host's working directory is nobody's business: paths are absolute.
                let drawings = png
                    .as_deref()
                    .into_iter()
                    .chain(svg.iter().map(|svg| &svg.drawing));
                let relative = drawings
                    .flat_map(|d| d.path.iter().chain(&d.fonts))
                    .find(|p| p.is_relative());
                if let Some(path) = relative {
                    return Err(Failure::bad_request(format!(
                        "`{}` is a relative path: the protocol takes absolute paths (png.path, svg.path and their fonts)",
                        path.display()
                    )));
                }
                if let Some(png) = png
                    && png.path.is_none()
                {
                    png.path = Some(host.next_png_path());
                }
            }
            operation
        }
    };
    let reply = session.apply_cancellable(&operation, cancel)?;
    if let Operation::Exit { .. } = operation {
        let _ = host.watchdog.disarm(session.pid());
    }
    to_json(&reply)
}

fn to_json(reply: &impl serde::Serialize) -> Result<Value, Failure> {
    serde_json::to_value(reply).map_err(|e| Failure::internal(format!("encoding the reply: {e}")))
}
