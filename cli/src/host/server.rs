//! The host process: owns one session and serves it on a Unix socket.
//!
//! Forked by `tuipilot start` (see [`fork`]) into its own process group, with stdout a
//! pipe for the ready handshake and stderr the session's log. It answers
//! requests from connections whose peer has the host's uid, translating each protocol
//! request into calls on the [`Session`]. It outlives the program (the final screen and
//! exit status stay readable) and stops on `exit`, after the idle timeout, when its socket
//! is removed or replaced, or when it can no longer accept connections, removing the files
//! it made (checked by inode) and ending its program.
//!
//! No client can hold the host: a connection must send each request line within
//! [`LINE_DEADLINE`]; a client that hangs up while its request waits or pauses has that
//! request cancelled at once (a watcher thread polls waiting connections for hang-ups);
//! when [`MAX_CONNECTIONS`] requests are in progress, further connections are served by a
//! control lane that answers `hello`, `info` and `exit` and tells the rest the host is
//! busy, so a session can always be inspected and ended. Requests on one session are
//! serialised where it matters: each `send`'s input goes to the program as one unit, in
//! arrival order (the library's input turns).
//!
//! A watchdog process, forked from the host before it starts any thread, holds the read
//! end of a pipe from the host; when the host dies by any means, even SIGKILL, the pipe
//! closes and the watchdog ends every process left in the program's session, so nothing
//! outlives the host.

use std::io::{BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::guards::{DeadlineReader, HangupWatch, check_connection};
use super::paths::{FileId, NameLock, SessionPaths, ensure_runtime_dir};
use super::protocol::{
    Line, MAX_LINE, Request, error_line, max_reply_bytes, ok_line, parse_request, read_line_limited,
};
pub use super::requests::MAX_CONNECTIONS;
use super::requests::{Lane, answer, busy, deliver, too_long};
use super::state::{Host, HostFiles};
use crate::error::Failure;
use crate::watchdog::Watchdog;
use tuipilot::StartSpec;

pub use tuipilot::live::guards::LINE_DEADLINE;

/// Connections handed to the control lane and not yet taken in by it.
const CONTROL_QUEUE: usize = 64;

/// How long the host pauses accepting after running out of descriptors or memory, so
/// connections already open can finish and free theirs.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How often the host checks that its socket is still its own.
const SOCKET_CHECK: Duration = Duration::from_secs(1);

/// What `start` asks the host to run: the library's start spec plus the host's own
/// idle timeout.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HostSpec {
    /// The session to start.
    #[serde(flatten)]
    pub start: StartSpec,
    /// Stop after this many seconds without requests.
    pub idle_timeout_secs: u64,
}

/// Forks the host from the calling process and returns its pid and the read end of the
/// pipe on which it reports readiness (one protocol line: `ok` with the pid, or the error).
///
/// The child leaves the caller's process group (so it survives the caller and the
/// terminal's job control), takes `/dev/null` as stdin, the pipe as stdout and `log` as
/// stderr, names itself `tuipilot-host`, and runs [`run`]; it never returns. Forking
/// instead of executing the binary again saves a whole process start-up per `start`. The
/// host keeps `lock` (the session name) for its whole life.
///
/// # Safety
///
/// No other thread may exist in the calling process: the child runs ordinary Rust code
/// (allocation, locks) after `fork`.
pub unsafe fn fork(
    dir: &Path,
    name: &str,
    spec: &HostSpec,
    log: std::fs::File,
    lock: &NameLock,
) -> Result<(i32, OwnedFd), Failure> {
    let log_id = FileId::of_file(&log);
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(Failure::internal(format!(
            "creating the host's ready pipe: {}",
            std::io::Error::last_os_error()
        )));
    }
    // SAFETY: both descriptors are open and owned by nobody else.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // SAFETY: the caller guarantees no other thread exists (this function's contract).
    match unsafe { libc::fork() } {
        -1 => Err(Failure::internal(format!(
            "starting the session host: {}",
            std::io::Error::last_os_error()
        ))),
        0 => {
            drop(read);
            // SAFETY: plain system calls on descriptors this process owns; dup2 clears
            // close-on-exec on the copies, which the program the host starts must not
            // inherit anyway (the PTY replaces them).
            unsafe {
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_NAME, c"tuipilot-host".as_ptr());
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC);
                if null >= 0 {
                    libc::dup2(null, 0);
                    libc::close(null);
                }
                libc::dup2(write.as_raw_fd(), 1);
                libc::dup2(log.as_raw_fd(), 2);
            }
            drop(write);
            drop(log);
            // The CLI's arguments (its `--env KEY=VALUE`s among them) must not stay
            // readable in `ps` for the session's life; the watchdog inherits this title.
            crate::title::set(&format!("tuipilot-host {name}"));
            let code = match lock.try_clone() {
                Ok(lock) => run(dir, name, spec.clone(), lock, log_id),
                Err(e) => {
                    let _ = writeln!(std::io::stdout(), "{}", error_line(None, &Failure::from(e)));
                    2
                }
            };
            // SAFETY: leave without running the caller's exit handlers or flushing its
            // buffers a second time.
            unsafe { libc::_exit(code) }
        }
        pid => Ok((pid, read)),
    }
}

/// Runs the host: reports readiness (or the error) on stdout, then serves until it
/// stops. Returns the process exit code when start-up fails; otherwise never returns.
fn run(dir: &Path, name: &str, spec: HostSpec, lock: NameLock, log: Option<FileId>) -> i32 {
    let mut ready = std::io::stdout();
    match start(dir, name, &spec, lock, log) {
        Err(error) => {
            let _ = writeln!(ready, "{}", error_line(None, &error));
            2
        }
        Ok((host, listener)) => {
            let (cols, rows) = host.session.size();
            let reply = json!({ "pid": host.session.pid(), "cols": cols, "rows": rows });
            let _ = writeln!(ready, "{}", ok_line(None, &reply));
            let _ = ready.flush();
            // The reader of the handshake is gone after this; stdout joins the log.
            // SAFETY: dup2 of our own stderr onto stdout.
            unsafe { libc::dup2(2, 1) };
            serve(Arc::new(host), listener)
        }
    }
}

fn start(
    dir: &Path,
    name: &str,
    spec: &HostSpec,
    lock: NameLock,
    log: Option<FileId>,
) -> Result<(Host, UnixListener), Failure> {
    ensure_runtime_dir(dir)?;
    let paths = SessionPaths::new(dir, name)?;
    // SAFETY: the host was just forked from the single-threaded CLI and has started no
    // thread yet (the session below starts the first ones).
    let watchdog = unsafe { Watchdog::fork() }.map_err(Failure::internal)?;
    // After the fork: the cleanup runs on a thread of its own.
    tuipilot::files::remove_temporaries_on_signal()?;
    // Check the spec before the socket exists: a bad one leaves nothing behind.
    // The world the program finds at its start is kept for an export to carry.
    let builder = spec
        .start
        .builder()?
        .capture_world(tuipilot::files::WorldLimits::default());
    let listener = UnixListener::bind(&paths.socket)
        .map_err(|e| Failure::internal(format!("cannot listen on {}: {e}", paths.socket.display())))?;
    let files = HostFiles {
        socket: FileId::of_path(&paths.socket),
        paths,
        log,
        lock,
    };
    files.remove_on_signal();
    // From here on, a failure must not leave the socket behind (`start` removes the rest).
    let cleanup = |e: Failure| {
        if let Some(id) = files.socket {
            id.remove_if_at(&files.paths.socket);
        }
        e
    };
    std::fs::set_permissions(&files.paths.socket, std::fs::Permissions::from_mode(0o600)).map_err(|e| {
        cleanup(Failure::internal(format!(
            "securing {}: {e}",
            files.paths.socket.display()
        )))
    })?;
    let session = builder.spawn().map_err(|e| cleanup(e.into()))?;
    if let Err(e) = watchdog.arm(&session) {
        let _ = session.kill();
        return Err(cleanup(Failure::internal(e)));
    }
    let hangups = HangupWatch::start().map_err(cleanup)?;
    let host = Host {
        files,
        session,
        idle_timeout: Duration::from_secs(spec.idle_timeout_secs.max(1)),
        last_request: Mutex::new(Instant::now()),
        connections: AtomicUsize::new(0),
        png_counter: AtomicUsize::new(0),
        watchdog,
        hangups,
        max_reply: max_reply_bytes(
            spec.start
                .scrollback
                .unwrap_or(tuipilot::terminal::DEFAULT_SCROLLBACK),
        ),
        start: spec.start.clone(),
    };
    Ok((host, listener))
}

fn serve(host: Arc<Host>, listener: UnixListener) -> ! {
    // Fonts parsed and common glyphs rasterised while the host has nothing else to do, so
    // the first screenshot costs what later ones do: at the idle scheduling class, the
    // warm-up never takes a core from the program's start or a reply.
    std::thread::spawn(|| {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: sets this thread's own scheduling class from a live parameter.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) };
        tuipilot::render::warm_up();
    });
    {
        let host = host.clone();
        std::thread::spawn(move || idle_watch(&host));
    }
    {
        let host = host.clone();
        std::thread::spawn(move || host.hangups.watch());
    }
    let control = {
        let (queue, streams) = std::sync::mpsc::sync_channel::<UnixStream>(CONTROL_QUEUE);
        let host = host.clone();
        std::thread::Builder::new()
            .name("tuipilot-control".into())
            .spawn(move || super::control::serve(&host, &streams))
            .map(|_| queue)
            .ok()
    };
    // Connection threads are kept and reused: a CLI call is one short connection, and
    // starting a thread for each costs more than serving it. A stream is queued only for
    // a worker already reserved as idle, so no request waits behind another's long wait.
    let (queue, streams) = std::sync::mpsc::channel::<UnixStream>();
    let streams = Arc::new(Mutex::new(streams));
    let idle = Arc::new(AtomicUsize::new(0));
    let mut starved = false;
    for stream in listener.incoming() {
        let stream = match stream {
            Ok(stream) => {
                starved = false;
                stream
            }
            // Out of descriptors or memory (a low `ulimit -n`, many clients at once): the
            // connections being served will free theirs, and the one waiting is accepted
            // then. The program is never ended for it.
            Err(e) if is_transient(&e) => {
                if !std::mem::replace(&mut starved, true) {
                    eprintln!("tuipilot host: cannot accept a connection ({e}); retrying");
                }
                std::thread::sleep(ACCEPT_BACKOFF);
                continue;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => {
                eprintln!("tuipilot host: accepting connections failed ({e}); stopping");
                break;
            }
        };
        if host.connections.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            host.connections.fetch_sub(1, Ordering::SeqCst);
            // Full: `hello`, `info` and `exit` still get through, one connection at a time.
            if let Some(control) = &control
                && let Err(std::sync::mpsc::TrySendError::Full(stream)) = control.try_send(stream)
            {
                let mut stream = stream;
                let _ = writeln!(stream, "{}", error_line(None, &busy()));
            }
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

/// Whether an `accept` error passes: the host ran short of descriptors or memory, or the
/// connection was gone before it was taken.
fn is_transient(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EMFILE | libc::ENFILE | libc::ENOBUFS | libc::ENOMEM | libc::ECONNABORTED | libc::EPROTO)
    )
}

/// Removes the host's files, ends the program, and exits. The files go first: a client
/// that connected while the program was ending was served a session about to vanish
/// (the idle-timeout test's `capture` once got its last screen instead of "no session").
fn shutdown(host: &Host, code: i32) -> ! {
    host.files.remove();
    if host.session.exit().is_ok() {
        let _ = host.watchdog.disarm(host.session.pid());
    }
    std::process::exit(code)
}

/// Stops the host after its idle timeout, or within [`SOCKET_CHECK`] of its socket being
/// removed or replaced: a host nobody can reach any more only holds its program.
fn idle_watch(host: &Host) {
    loop {
        if !host.files.socket_is_ours() {
            eprintln!(
                "tuipilot host: {} was removed or replaced; stopping",
                host.files.paths.socket.display()
            );
            shutdown(host, 1);
        }
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
                .clamp(Duration::from_millis(200), SOCKET_CHECK),
        );
    }
}

/// Serves a worker's connection, request after request, until it hangs up or is slow.
fn connection(host: &Host, stream: UnixStream) {
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    if let Err(e) = check_connection(&stream) {
        let _ = writeln!(writer, "{}", error_line(None, &Failure::from(e)));
        return;
    }
    let fd = stream.as_raw_fd();
    let mut reader = BufReader::new(DeadlineReader {
        stream,
        deadline: Instant::now() + LINE_DEADLINE,
    });
    loop {
        reader.get_mut().deadline = Instant::now() + LINE_DEADLINE;
        let line = match read_line_limited(&mut reader, MAX_LINE) {
            Ok(Line::Complete(line)) => line,
            Ok(Line::TooLong) => {
                let _ = writeln!(writer, "{}", error_line(None, &too_long()));
                return;
            }
            Ok(Line::Eof) | Err(_) => return,
        };
        if let (id, Ok(Request::Watch { control, cols, rows })) = parse_request(&line) {
            watch(host, id, reader, writer, (cols, rows), control);
            return;
        }
        let answer = answer(host, &line, Lane::Worker, fd);
        if !deliver(host, &mut writer, &answer) {
            return;
        }
    }
}

/// Serves a watcher (`tuipilot attach`) on this connection until it hangs up (see
/// `crate::watch::serve::hand_over`). The connection counts as one in progress, so the
/// host does not stop for idleness while watched.
fn watch(
    host: &Host,
    id: Option<u64>,
    reader: BufReader<DeadlineReader>,
    writer: UnixStream,
    view: (u16, u16),
    control: bool,
) {
    let name = &host.files.paths.name;
    crate::watch::serve::hand_over(&host.session, name, id, reader, writer, view, control);
    // The idle clock starts again when a watcher leaves: a person who watched for longer
    // than the idle timeout, then left, must not find the session stopped a moment later.
    *host.last_request.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
}
