//! The host process: owns one session and serves it on a Unix socket.
//!
//! Started by `tuipilot start` as `tuipilot __host …` in its own process group, with
//! stdout a pipe for the ready handshake and stderr the session's log. It answers
//! requests from connections whose peer has the host's uid, translating each protocol
//! request into calls on the [`Session`]. It outlives the program (the final screen and
//! exit status stay readable) and stops on `exit`, after the idle timeout, or when it can
//! no longer accept connections, removing its socket and log.
//!
//! A watchdog process, forked from the host before it starts any thread, holds the read
//! end of a pipe from the host; when the host dies by any means, even SIGKILL, the pipe
//! closes and the watchdog ends every process left in the program's session, so nothing
//! outlives the host.

use std::io::{BufReader, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::paths::{SessionPaths, ensure_runtime_dir};
use super::protocol::{
    CAPABILITIES, ErrorCode, HostError, Line, MAX_LINE, PROTOCOL_VERSION, Request, SendAction, WaitFor,
    error_line, ok_line, parse_request, read_line_limited, screen_json,
};
use crate::watchdog::Watchdog;
use tuipilot::keys::parse_key_list;
use tuipilot::{Condition, Key, Session};

/// Connections served at once; more are told the host is busy.
const MAX_CONNECTIONS: usize = 32;

/// What `start` asks the host to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HostSpec {
    pub command: Vec<String>,
    pub cols: u16,
    pub rows: u16,
    pub cwd: Option<PathBuf>,
    pub env: Vec<(String, String)>,
    pub scrollback: usize,
    pub idle_timeout_secs: u64,
}

struct Host {
    paths: SessionPaths,
    session: Session,
    command: String,
    started: SystemTime,
    idle_timeout: Duration,
    last_request: Mutex<Instant>,
    connections: AtomicUsize,
    png_counter: AtomicUsize,
    /// Closing this pipe (when the host exits) sets the watchdog off.
    watchdog: Watchdog,
}

/// Runs the host: reports readiness (or the error) on stdout, then serves until it
/// stops. Returns the process exit code when start-up fails; otherwise never returns.
pub fn run(dir: &Path, name: &str, spec: HostSpec) -> i32 {
    let mut ready = std::io::stdout();
    match start(dir, name, &spec) {
        Err(error) => {
            let _ = writeln!(ready, "{}", error_line(None, &error));
            2
        }
        Ok((host, listener)) => {
            let reply = json!({ "pid": host.session.pid(), "cols": spec.cols, "rows": spec.rows });
            let _ = writeln!(ready, "{}", ok_line(None, reply));
            let _ = ready.flush();
            // The reader of the handshake is gone after this; stdout joins the log.
            // SAFETY: dup2 of our own stderr onto stdout.
            unsafe { libc::dup2(2, 1) };
            serve(Arc::new(host), listener)
        }
    }
}

fn start(dir: &Path, name: &str, spec: &HostSpec) -> Result<(Host, UnixListener), HostError> {
    ensure_runtime_dir(dir)?;
    let paths = SessionPaths::new(dir, name)?;
    // SAFETY: the host is a freshly executed process that has started no thread yet (the
    // session below starts the first ones).
    let watchdog = unsafe { Watchdog::fork() }.map_err(HostError::internal)?;
    let (program, args) = spec
        .command
        .split_first()
        .ok_or_else(|| HostError::bad_request("no command given: put it after `--`"))?;
    let listener = UnixListener::bind(&paths.socket)
        .map_err(|e| HostError::internal(format!("cannot listen on {}: {e}", paths.socket.display())))?;
    // From here on, a failure must not leave the socket behind.
    let cleanup = |e: HostError| {
        paths.remove();
        e
    };
    std::fs::set_permissions(&paths.socket, std::fs::Permissions::from_mode(0o600)).map_err(|e| {
        cleanup(HostError::internal(format!(
            "securing {}: {e}",
            paths.socket.display()
        )))
    })?;
    let mut builder = Session::builder(program)
        .args(args)
        .size(spec.cols, spec.rows)
        .scrollback(spec.scrollback);
    if let Some(cwd) = &spec.cwd {
        builder = builder.cwd(cwd);
    }
    for (key, value) in &spec.env {
        builder = builder.env(key, value);
    }
    let session = builder.spawn().map_err(|e| cleanup(e.into()))?;
    if let Err(e) = watchdog.arm(session.pid()) {
        let _ = session.kill();
        return Err(cleanup(HostError::internal(e)));
    }
    let host = Host {
        paths,
        command: spec.command.join(" "),
        session,
        started: SystemTime::now(),
        idle_timeout: Duration::from_secs(spec.idle_timeout_secs.max(1)),
        last_request: Mutex::new(Instant::now()),
        connections: AtomicUsize::new(0),
        png_counter: AtomicUsize::new(0),
        watchdog,
    };
    Ok((host, listener))
}

fn serve(host: Arc<Host>, listener: UnixListener) -> ! {
    {
        let host = host.clone();
        std::thread::spawn(move || idle_watch(&host));
    }
    // Connection threads are kept and reused: a CLI call is one short connection, and
    // starting a thread for each costs more than serving it. A stream is queued only for
    // a worker already reserved as idle, so no request waits behind another's long wait.
    let (queue, streams) = std::sync::mpsc::channel::<UnixStream>();
    let streams = Arc::new(Mutex::new(streams));
    let idle = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            eprintln!("tuipilot host: accepting connections failed; stopping");
            break;
        };
        if host.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            host.connections.fetch_sub(1, Ordering::SeqCst);
            let busy = HostError::internal(format!(
                "the host is serving {MAX_CONNECTIONS} connections already; retry shortly"
            ));
            let _ = writeln!(stream, "{}", error_line(None, &busy));
            continue;
        }
        if idle
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
            .is_ok()
        {
            if queue.send(stream).is_err() {
                break;
            }
            continue;
        }
        let (worker_host, streams, worker_idle) = (host.clone(), streams.clone(), idle.clone());
        let spawned = std::thread::Builder::new()
            .name("tuipilot-conn".into())
            .spawn(move || {
                let mut next = Some(stream);
                while let Some(stream) = next.take() {
                    connection(&worker_host, stream);
                    worker_host.connections.fetch_sub(1, Ordering::SeqCst);
                    worker_idle.fetch_add(1, Ordering::SeqCst);
                    next = streams.lock().unwrap_or_else(|p| p.into_inner()).recv().ok();
                }
            });
        if spawned.is_err() {
            eprintln!("tuipilot host: cannot start a connection thread");
            host.connections.fetch_sub(1, Ordering::SeqCst);
        }
    }
    shutdown(&host, 1)
}

/// Ends the program, removes the socket and log, and exits.
fn shutdown(host: &Host, code: i32) -> ! {
    if host.session.exit().is_ok() {
        let _ = host.watchdog.disarm(host.session.pid());
    }
    host.paths.remove();
    std::process::exit(code)
}

fn idle_watch(host: &Host) {
    loop {
        let last = *host.last_request.lock().unwrap_or_else(|p| p.into_inner());
        let deadline = last + host.idle_timeout;
        let now = Instant::now();
        if now >= deadline && host.connections.load(Ordering::SeqCst) == 0 {
            eprintln!(
                "tuipilot host: idle for {} s; stopping",
                host.idle_timeout.as_secs()
            );
            shutdown(host, 0);
        }
        std::thread::sleep(
            deadline
                .saturating_duration_since(now)
                .max(Duration::from_millis(200)),
        );
    }
}

/// The uid of the process at the other end of a Unix socket (SO_PEERCRED).
pub(crate) fn peer_uid(stream: &UnixStream) -> std::io::Result<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: getsockopt writes at most `len` bytes into `cred`.
    let r = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&mut cred as *mut libc::ucred).cast(),
            &mut len,
        )
    };
    if r == 0 {
        Ok(cred.uid)
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Only the host's own user may talk to it.
pub(crate) fn check_peer(peer: u32, own: u32) -> Result<(), HostError> {
    if peer == own {
        Ok(())
    } else {
        Err(HostError::new(
            ErrorCode::BadRequest,
            format!("connection refused: uid {peer} is not the session owner (uid {own})"),
        ))
    }
}

fn connection(host: &Host, stream: UnixStream) {
    // SAFETY: getuid cannot fail.
    let own = unsafe { libc::getuid() };
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let allowed = peer_uid(&stream)
        .map_err(|e| HostError::internal(format!("reading the peer's credentials: {e}")))
        .and_then(|uid| check_peer(uid, own));
    if let Err(e) = allowed {
        let _ = writeln!(writer, "{}", error_line(None, &e));
        return;
    }
    let _ = stream.set_read_timeout(Some(host.idle_timeout));
    let mut reader = BufReader::new(stream);
    loop {
        let line = match read_line_limited(&mut reader, MAX_LINE) {
            Ok(Line::Complete(line)) => line,
            Ok(Line::TooLong) => {
                let e = HostError::bad_request(format!(
                    "request line longer than {MAX_LINE} bytes: send smaller requests (split long text over several)"
                ));
                let _ = writeln!(writer, "{}", error_line(None, &e));
                return;
            }
            Ok(Line::Eof) | Err(_) => return,
        };
        *host.last_request.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        let (id, request) = parse_request(&line);
        let stopping = matches!(request, Ok(Request::Exit { .. }));
        let reply = match request.and_then(|r| handle(host, r)) {
            Ok(body) => ok_line(id, body),
            Err(e) => error_line(id, &e),
        };
        if writeln!(writer, "{reply}").and_then(|()| writer.flush()).is_err() {
            return;
        }
        if stopping {
            host.paths.remove();
            std::process::exit(0);
        }
    }
}

impl Host {
    /// `NAME-0001.png`, `NAME-0002.png`, … in the runtime directory: the first unused.
    fn next_png_path(&self) -> PathBuf {
        let dir = self.paths.socket.parent().unwrap_or(Path::new("."));
        let mut n = self.png_counter.fetch_add(1, Ordering::SeqCst) + 1;
        loop {
            let path = dir.join(format!("{}-{n:04}.png", self.paths.name));
            if !path.exists() {
                return path;
            }
            n = self.png_counter.fetch_add(1, Ordering::SeqCst) + 1;
        }
    }
}

fn timeout_of(ms: Option<u64>, host: &Host) -> Duration {
    ms.map_or(host.session.timeout(), Duration::from_millis)
}

/// Translates one request into session calls.
fn handle(host: &Host, request: Request) -> Result<Value, HostError> {
    let session = &host.session;
    match request {
        Request::Hello { version } => {
            if version != PROTOCOL_VERSION {
                return Err(HostError::new(
                    ErrorCode::Unsupported,
                    format!(
                        "protocol version {version} is not supported; this host speaks {PROTOCOL_VERSION}"
                    ),
                ));
            }
            Ok(json!({
                "version": PROTOCOL_VERSION,
                "capabilities": CAPABILITIES,
                "session": host.paths.name,
                "pid": session.pid(),
            }))
        }
        Request::Info => {
            let (cols, rows) = session.size();
            let exit = session.exit_status();
            let started = host.started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
            let age = host.started.elapsed().map_or(0, |d| d.as_secs());
            Ok(json!({
                "session": host.paths.name,
                "pid": session.pid(),
                "host_pid": std::process::id(),
                "command": host.command,
                "cols": cols,
                "rows": rows,
                "running": exit.is_none(),
                "exit_code": exit.and_then(|s| s.code()),
                "signal": exit.and_then(|s| s.signal()),
                "started_unix": started,
                "age_secs": age,
            }))
        }
        Request::Send {
            actions,
            wait,
            timeout_ms,
            capture,
        } => {
            // Check everything before sending anything.
            let condition = wait.as_deref().map(Condition::text).transpose()?;
            let steps = actions
                .into_iter()
                .map(|a| match a {
                    SendAction::Keys(spec) => parse_key_list(&spec).map(Step::Keys),
                    SendAction::Text(t) => Ok(Step::Text(t)),
                    SendAction::Paste(t) => Ok(Step::Paste(t)),
                    SendAction::SleepMs(ms) => Ok(Step::Sleep(Duration::from_millis(ms))),
                })
                .collect::<tuipilot::Result<Vec<Step>>>()?;
            let start = session.wait_start();
            for step in steps {
                match step {
                    Step::Text(t) => session.send_text(&t)?,
                    Step::Keys(keys) => keys.into_iter().try_for_each(|k| session.press_key(k))?,
                    Step::Paste(t) => session.paste(&t)?,
                    Step::Sleep(d) => std::thread::sleep(d),
                }
            }
            let screen = match condition {
                Some(c) => Some(session.wait_since(&start, &c, timeout_of(timeout_ms, host))?),
                None if capture => Some(session.snapshot()),
                None => None,
            };
            Ok(match screen {
                Some(snap) if capture => json!({ "screen": screen_json(&snap, snap.text()) }),
                _ => json!({}),
            })
        }
        Request::Wait {
            condition,
            timeout_ms,
        } => {
            let timeout = timeout_of(timeout_ms, host);
            let condition = match condition {
                WaitFor::Exit => {
                    let status = session.wait_exit_timeout(timeout)?;
                    return Ok(json!({ "exit_code": status.code(), "signal": status.signal() }));
                }
                WaitFor::Text(re) => Condition::text(&re)?,
                WaitFor::Output(re) => Condition::output(&re)?,
                WaitFor::StableMs(ms) => Condition::Stable(Duration::from_millis(ms)),
            };
            let snap = session.wait_timeout(&condition, timeout)?;
            Ok(json!({ "screen": screen_json(&snap, snap.text()) }))
        }
        Request::Capture {
            wait,
            timeout_ms,
            ansi,
            scrollback,
            png,
        } => {
            // Check the render options before waiting.
            let render = png.as_ref().map(|p| p.options().map(|o| (p, o))).transpose()?;
            let snap = match wait {
                Some(re) => session.wait_timeout(&Condition::text(&re)?, timeout_of(timeout_ms, host))?,
                None => session.snapshot(),
            };
            let screen = if ansi { snap.ansi() } else { snap.text() };
            let text = if scrollback {
                let mut lines = session.scrollback();
                lines.push(screen);
                lines.join("\n")
            } else {
                screen
            };
            let mut screen = screen_json(&snap, text);
            if let Some((request, options)) = render {
                let path = match &request.path {
                    Some(p) => PathBuf::from(p),
                    None => host.next_png_path(),
                };
                let (width, height) = snap.save_png(&path, &options)?;
                screen["png"] = json!(path);
                screen["width"] = json!(width);
                screen["height"] = json!(height);
            }
            Ok(json!({ "screen": screen }))
        }
        Request::Resize { cols, rows } => {
            session.resize(cols, rows)?;
            Ok(json!({ "cols": cols, "rows": rows }))
        }
        Request::Exit { timeout_ms } => {
            let status = match timeout_ms {
                Some(ms) => session.exit_within(Duration::from_millis(ms / 2)),
                None => session.exit(),
            }?;
            let _ = host.watchdog.disarm(session.pid());
            Ok(json!({ "exit_code": status.code(), "signal": status.signal() }))
        }
    }
}

enum Step {
    Text(String),
    Keys(Vec<Key>),
    Paste(String),
    Sleep(Duration),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_owner_may_connect() {
        assert!(check_peer(1000, 1000).is_ok());
        let err = check_peer(1001, 1000).unwrap_err();
        assert!(
            err.message.contains("uid 1001 is not the session owner"),
            "{}",
            err.message
        );
    }

    #[test]
    fn peer_credentials_are_read_from_the_socket() {
        let (a, _b) = UnixStream::pair().unwrap();
        // SAFETY: getuid cannot fail.
        let own = unsafe { libc::getuid() };
        assert_eq!(peer_uid(&a).unwrap(), own);
        assert!(check_peer(peer_uid(&a).unwrap(), own).is_ok());
    }
}
