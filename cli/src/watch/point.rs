//! A session of another process made watchable by name: what MCP's `start` with
//! `attach: true` opens, so a person can run `tuipilot -s NAME attach` beside the agent.
//!
//! A [`WatchPoint`] takes the name in the runtime directory the way a host does (the
//! name's lock, a private socket, removed on drop and on a signal) and answers the host
//! protocol's `hello`, `info` and `watch` there — the same `watch` the hosts serve, so
//! `attach` cannot tell the two apart. Everything else is refused with a note saying the
//! session is driven by the process that owns it.

use std::io::{BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;
use tuipilot::{Operation, Session};

use crate::error::{ErrorCode, Failure};
use crate::host::guards::{DeadlineReader, check_connection};
use crate::host::paths::{FileId, NameLock, SessionPaths, ensure_runtime_dir, runtime_dir_from_env};
use crate::host::protocol::{
    HostInfo, Line, MAX_LINE, PROTOCOL_VERSION, Request, error_line, ok_line, parse_request,
    read_line_limited, unsupported_version,
};
use crate::host::server::LINE_DEADLINE;

/// What a watch point answers besides the handshake.
const CAPABILITIES: &[&str] = &["info", "watch"];

/// How often the accepting thread looks whether the point was closed.
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// A session watchable by name until this is dropped.
pub struct WatchPoint {
    paths: SessionPaths,
    socket: Option<FileId>,
    lock: NameLock,
    closed: Arc<AtomicBool>,
    accepting: Option<std::thread::JoinHandle<()>>,
    /// The connections taken, to end when the point closes (their watchers see the
    /// session end, as when a host stops).
    connections: Arc<Connections>,
}

/// The connections a point is serving, by a number of their own.
type Connections = std::sync::Mutex<Vec<(u64, UnixStream)>>;

impl WatchPoint {
    /// Makes `session` watchable as `name` in the runtime directory (`TUIPILOT_DIR`, else
    /// the user's); an error when a session of that name runs there already.
    /// `owner` says in words who drives it (`an MCP server`, `tuipilot record`), for the
    /// note that refuses other requests.
    pub fn open(name: &str, session: Arc<Session>, owner: &'static str) -> Result<WatchPoint, Failure> {
        let dir = runtime_dir_from_env();
        ensure_runtime_dir(&dir)?;
        let paths = SessionPaths::new(&dir, name)?;
        let lock = NameLock::try_acquire(&paths)?.ok_or_else(|| {
            Failure::bad_request(format!(
                "attach: a session named `{name}` already runs in {} (a CLI session or another server's): start this one under another name",
                dir.display()
            ))
        })?;
        paths.remove_leftovers(&lock);
        let listener = UnixListener::bind(&paths.socket)
            .map_err(|e| Failure::internal(format!("cannot listen on {}: {e}", paths.socket.display())))?;
        let socket = FileId::of_path(&paths.socket);
        let mut point = WatchPoint {
            paths,
            socket,
            lock,
            closed: Arc::new(AtomicBool::new(false)),
            accepting: None,
            connections: Arc::default(),
        };
        // From here on, dropping the point removes what it made.
        std::fs::set_permissions(&point.paths.socket, std::fs::Permissions::from_mode(0o600))
            .and_then(|()| listener.set_nonblocking(true))
            .map_err(|e| Failure::internal(format!("securing {}: {e}", point.paths.socket.display())))?;
        let (paths, socket, lock_id) = (point.paths.clone(), point.socket, point.lock.id());
        tuipilot::files::on_signal_also(move || {
            for (id, path) in [(socket, &paths.socket), (lock_id, &paths.lock)] {
                if let Some(id) = id {
                    id.remove_if_at(path);
                }
            }
        });
        let (closed, connections) = (point.closed.clone(), point.connections.clone());
        let name = name.to_string();
        let accepting = std::thread::Builder::new()
            .name("tuipilot-watch".into())
            .spawn(move || accept(&listener, &closed, &connections, (&name, owner), &session))
            .map_err(|e| Failure::internal(format!("starting the watch thread: {e}")))?;
        point.accepting = Some(accepting);
        Ok(point)
    }
}

impl Drop for WatchPoint {
    fn drop(&mut self) {
        self.closed.store(true, Ordering::SeqCst);
        if let Some(id) = self.socket {
            id.remove_if_at(&self.paths.socket);
        }
        if let Some(id) = self.lock.id() {
            id.remove_if_at(&self.paths.lock);
        }
        if let Some(thread) = self.accepting.take() {
            let _ = thread.join();
        }
        for (_, stream) in self
            .connections
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain(..)
        {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// Takes connections until the point is closed; each is served on a thread of its own.
fn accept(
    listener: &UnixListener,
    closed: &AtomicBool,
    connections: &Arc<Connections>,
    (name, owner): (&str, &'static str),
    session: &Arc<Session>,
) {
    let mut next = 0u64;
    while !closed.load(Ordering::SeqCst) {
        let mut fd = libc::pollfd {
            fd: listener.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: polls one live descriptor.
        unsafe { libc::poll(&mut fd, 1, LOOK_AGAIN.as_millis() as i32) };
        let Ok((stream, _)) = listener.accept() else {
            continue;
        };
        let _ = stream.set_nonblocking(false);
        next += 1;
        let id = next;
        if let Ok(copy) = stream.try_clone() {
            connections
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((id, copy));
        }
        let (name, session, connections) = (name.to_string(), session.clone(), connections.clone());
        let _ = std::thread::Builder::new()
            .name("tuipilot-watcher".into())
            .spawn(move || {
                connection(stream, (&name, owner), &session);
                connections
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .retain(|(other, _)| *other != id);
            });
    }
}

/// Serves one connection: requests until a `watch`, which it then serves to the end.
fn connection(stream: UnixStream, (name, owner): (&str, &str), session: &Session) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    if let Err(e) = check_connection(&stream) {
        let _ = writeln!(writer, "{}", error_line(None, &e));
        return;
    }
    let mut reader = BufReader::new(DeadlineReader {
        stream,
        deadline: Instant::now() + LINE_DEADLINE,
    });
    loop {
        reader.get_mut().deadline = Instant::now() + LINE_DEADLINE;
        let Ok(Line::Complete(line)) = read_line_limited(&mut reader, MAX_LINE) else {
            return;
        };
        let (id, request) = parse_request(&line);
        let reply = match request {
            Ok(Request::Watch { control, cols, rows }) => {
                super::serve::hand_over(session, name, id, reader, writer, (cols, rows), control);
                return;
            }
            Ok(Request::Hello { version }) if version == PROTOCOL_VERSION => Ok(json!({
                "version": PROTOCOL_VERSION,
                "capabilities": CAPABILITIES,
                "session": name,
                "pid": session.pid(),
                "max_reply_bytes": MAX_LINE,
            })),
            Ok(Request::Hello { version }) => Err(unsupported_version(version)),
            Ok(Request::Op(Operation::Info)) => serde_json::to_value(HostInfo {
                session: name.to_string(),
                host_pid: std::process::id(),
                info: session.info(),
            })
            .map_err(|e| Failure::internal(format!("encoding the reply: {e}"))),
            Ok(_) => Err(Failure::new(
                ErrorCode::Unsupported,
                format!(
                    "session `{name}` belongs to another process ({owner}): it can be watched here (`tuipilot -s {name} attach`), and is driven there"
                ),
            )),
            Err(e) => Err(e),
        };
        let line = match reply {
            Ok(body) => ok_line(id, &body),
            Err(e) => error_line(id, &e),
        };
        if writer.write_all(format!("{line}\n").as_bytes()).is_err() {
            return;
        }
    }
}
