//! A session of this process made watchable by name: what MCP's `start` with
//! `attach: true`, `tuipilot record -s NAME`, a test's `Session::watch_point` and a kept
//! failing test ([`super::keep`]) open, so a person can run `tuipilot -s NAME attach` beside
//! whatever drives the session.
//!
//! A [`WatchPoint`] takes the name in the runtime directory the way a host does (the
//! name's lock, a private socket, removed on drop and on a signal, [`super::runtime`])
//! and answers the protocol's `hello`, `info` and `watch` there ([`super::protocol`]) —
//! the same `watch` the hosts serve, so `attach` cannot tell the two apart. Everything
//! else is refused with a note saying the session is driven by the process that owns it.
//!
//! The point serves a session it shares ([`WatchPoint::open`], an `Arc`), or one it
//! borrows for a while ([`serve_borrowed`]): the accepting and serving threads are
//! scoped to the borrow, so a session that is only borrowed (a test's, as it fails) is
//! served until the borrow ends, never after.

use std::io::{BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

use super::Watched;
use super::guards::{DeadlineReader, LINE_DEADLINE, check_connection};
use super::lines::{Line, MAX_LINE, read_line_limited};
use super::protocol::{
    HostInfo, PROTOCOL_VERSION, Request, error_line, ok_line, parse_request, unsupported_version,
};
use super::runtime::{FileId, NameLock, SessionPaths, ensure_runtime_dir, runtime_dir_from_env};
use super::serve::{Watcher, serve};
use crate::{Error, Operation, Result};

/// What a watch point answers besides the handshake.
const CAPABILITIES: &[&str] = &["info", "watch"];

/// How often the accepting thread looks whether the point was closed.
const LOOK_AGAIN: Duration = Duration::from_millis(200);

/// A session watchable by name until this is dropped.
pub struct WatchPoint {
    name: Arc<Name>,
    accepting: Option<std::thread::JoinHandle<()>>,
}

/// A name taken in the runtime directory and listened on: what a point serves through,
/// and what it removes when it closes.
struct Name {
    paths: SessionPaths,
    socket: Option<FileId>,
    lock: NameLock,
    listener: UnixListener,
    closed: AtomicBool,
    /// The connections taken, to end when the point closes (their watchers see the
    /// session end, as when a host stops), and how many were ever taken.
    connections: Mutex<Connections>,
}

/// The connections a point is serving, by a number of their own.
#[derive(Default)]
struct Connections {
    open: Vec<(u64, UnixStream)>,
    taken: u64,
}

/// Who drives a watched session, in words (`an MCP server`, `tuipilot record`): what the
/// note refusing other requests says.
pub type Owner = &'static str;

impl WatchPoint {
    /// Makes `session` watchable as `name` in the runtime directory (`TUIPILOT_DIR`, else
    /// the user's) until the point is dropped; an error when a session of that name runs
    /// there already. `owner` says in words who drives it, for the note that refuses other
    /// requests.
    pub fn open(name: &str, session: Arc<dyn Watched>, owner: Owner) -> Result<WatchPoint> {
        WatchPoint::open_in(&runtime_dir_from_env(), name, session, owner)
    }

    /// [`open`](Self::open) in runtime directory `dir` (created if need be, refused if
    /// others can enter it), whatever the environment says.
    pub fn open_in(dir: &Path, name: &str, session: Arc<dyn Watched>, owner: Owner) -> Result<WatchPoint> {
        let taken = Arc::new(Name::take(dir, name)?);
        let serving = taken.clone();
        let accepting = std::thread::Builder::new()
            .name("tuipilot-watch".into())
            .spawn(move || serving.accept(owner, &*session))
            .map_err(|e| Error::io("starting the watch thread", e))?;
        Ok(WatchPoint {
            name: taken,
            accepting: Some(accepting),
        })
    }

    /// The name it is watchable under.
    pub fn name(&self) -> &str {
        &self.name.paths.name
    }
}

impl std::fmt::Debug for WatchPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchPoint")
            .field("name", &self.name())
            .field("socket", &self.name.paths.socket)
            .finish_non_exhaustive()
    }
}

impl Drop for WatchPoint {
    fn drop(&mut self) {
        self.name.close();
        if let Some(thread) = self.accepting.take() {
            let _ = thread.join();
        }
    }
}

/// Makes a borrowed `session` watchable as `name` in runtime directory `dir` while
/// `until` says to go on: `until` is asked every 200 ms with how many watchers are
/// there now and how many came in all, and the point closes (its watchers told the
/// session ended) once it says stop. Nothing outlives the call.
pub fn serve_borrowed(
    dir: &Path,
    name: &str,
    session: &dyn Watched,
    owner: Owner,
    mut until: impl FnMut(Watchers) -> bool,
) -> Result<()> {
    let taken = Name::take(dir, name)?;
    std::thread::scope(|scope| {
        let accepting = std::thread::Builder::new()
            .name("tuipilot-watch".into())
            .spawn_scoped(scope, || taken.accept(owner, session))
            .map_err(|e| Error::io("starting the watch thread", e))?;
        while until(taken.watchers()) {
            std::thread::sleep(LOOK_AGAIN);
        }
        taken.close();
        let _ = accepting.join();
        Ok(())
    })
}

/// The watchers of a point at one moment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watchers {
    /// Connected now (asking, or watching).
    pub now: usize,
    /// Connected since the point opened.
    pub ever: u64,
}

impl Name {
    /// Takes `name` in runtime directory `dir` and listens there.
    fn take(dir: &Path, name: &str) -> Result<Name> {
        ensure_runtime_dir(dir)?;
        let paths = SessionPaths::new(dir, name)?;
        let lock = NameLock::try_acquire(&paths)?.ok_or_else(|| Error::InvalidArgument {
            message: format!(
                "a session named `{name}` already runs in {} (a command line session, or another process's): watch this one under another name",
                dir.display()
            ),
        })?;
        paths.remove_leftovers(&lock);
        let listener = UnixListener::bind(&paths.socket)
            .map_err(|e| Error::io(format!("cannot listen on {}", paths.socket.display()), e))?;
        let taken = Name {
            socket: FileId::of_path(&paths.socket),
            paths,
            lock,
            listener,
            closed: AtomicBool::new(false),
            connections: Mutex::default(),
        };
        // From here on, dropping the name removes what it made.
        std::fs::set_permissions(&taken.paths.socket, std::fs::Permissions::from_mode(0o600))
            .and_then(|()| taken.listener.set_nonblocking(true))
            .map_err(|e| Error::io(format!("securing {}", taken.paths.socket.display()), e))?;
        let (paths, socket, lock_id) = (taken.paths.clone(), taken.socket, taken.lock.id());
        crate::files::on_signal_also(move || {
            for (id, path) in [(socket, &paths.socket), (lock_id, &paths.lock)] {
                if let Some(id) = id {
                    id.remove_if_at(path);
                }
            }
        });
        Ok(taken)
    }

    fn watchers(&self) -> Watchers {
        let connections = self.connections.lock().unwrap_or_else(|p| p.into_inner());
        Watchers {
            now: connections.open.len(),
            ever: connections.taken,
        }
    }

    /// Drops connection `id` from those open: it was served, or could not be.
    fn forget(&self, id: u64) {
        self.connections
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .open
            .retain(|(other, _)| *other != id);
    }

    /// Stops taking connections and ends those taken.
    fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        for (_, stream) in self
            .connections
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .open
            .drain(..)
        {
            let _ = stream.shutdown(std::net::Shutdown::Both);
        }
    }

    /// Takes connections until the point is closed; each is served on a thread of its
    /// own, all ended before this returns.
    fn accept(&self, owner: Owner, session: &dyn Watched) {
        std::thread::scope(|scope| {
            while !self.closed.load(Ordering::SeqCst) {
                let mut fd = libc::pollfd {
                    fd: self.listener.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: polls one live descriptor.
                unsafe { libc::poll(&mut fd, 1, LOOK_AGAIN.as_millis() as i32) };
                let Ok((stream, _)) = self.listener.accept() else {
                    continue;
                };
                let _ = stream.set_nonblocking(false);
                let Ok(copy) = stream.try_clone() else {
                    continue;
                };
                let id = {
                    let mut connections = self.connections.lock().unwrap_or_else(|p| p.into_inner());
                    connections.taken += 1;
                    let id = connections.taken;
                    connections.open.push((id, copy));
                    id
                };
                let name = self.paths.name.as_str();
                let served = std::thread::Builder::new()
                    .name("tuipilot-watcher".into())
                    .spawn_scoped(scope, move || {
                        connection(stream, (name, owner), session);
                        self.forget(id);
                    });
                if served.is_err() {
                    self.forget(id);
                }
            }
            // A connection taken while closing: ended with the others.
            self.close();
        });
    }
}

impl Drop for Name {
    fn drop(&mut self) {
        self.close();
        if let Some(id) = self.socket {
            id.remove_if_at(&self.paths.socket);
        }
        if let Some(id) = self.lock.id() {
            id.remove_if_at(&self.paths.lock);
        }
    }
}

/// Serves one connection: requests until a `watch`, which it then serves to the end.
fn connection(stream: UnixStream, (name, owner): (&str, &str), session: &dyn Watched) {
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
                hand_over(session, name, id, reader, writer, (cols, rows), control);
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
            .map_err(|e| Error::io("encoding the reply", e.into())),
            Ok(_) => Err(Error::Unsupported {
                what: format!("driving session `{name}` through its socket"),
                fix: format!(
                    "it belongs to another process ({owner}), which drives it; watch it with `tuipilot -s {name} attach`"
                ),
            }),
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

/// Turns a protocol connection that asked to `watch` session `name` into a live view: the
/// request's `ok` (request `id`), then [`serve`] until the watcher hangs up. Whatever the
/// reader holds past the request is the view's first input; the watcher's lines have no
/// deadline (it sends only when the person acts).
pub fn hand_over(
    session: &dyn Watched,
    name: &str,
    id: Option<u64>,
    reader: BufReader<DeadlineReader>,
    mut writer: UnixStream,
    view: (u16, u16),
    control: bool,
) {
    let hello = json!({ "watching": name, "control": control });
    let line = format!("{}\n", ok_line(id, &hello));
    if writer.write_all(line.as_bytes()).is_err() {
        return;
    }
    let read_ahead = reader.buffer().to_vec();
    let stream = reader.into_inner().stream;
    let _ = stream.set_read_timeout(None);
    serve(session, stream, read_ahead, view, &Watcher { control });
}
