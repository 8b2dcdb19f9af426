//! What a host holds: the files it made (by identity, so it removes only its own) and the
//! lock on its name, its session, and the counters its threads share. The server, the
//! request handling and the control lane all work on one [`Host`].

use std::sync::Mutex;
use std::sync::atomic::AtomicUsize;
use std::time::{Duration, Instant};

use tuipilot::Session;

use super::guards::HangupWatch;
use super::paths::{FileId, NameLock, SessionPaths};
use crate::watchdog::Watchdog;

/// The files a host made, by identity, and the lock that makes the name its own.
pub(super) struct HostFiles {
    pub(super) paths: SessionPaths,
    pub(super) socket: Option<FileId>,
    pub(super) log: Option<FileId>,
    pub(super) lock: NameLock,
}

/// Removes a host's socket, log and lock file, each only if it is still the one the host
/// made; the lock file last, while still locked.
fn remove_host_files(
    paths: &SessionPaths,
    socket: Option<FileId>,
    log: Option<FileId>,
    lock: Option<FileId>,
) {
    for (id, path) in [(socket, &paths.socket), (log, &paths.log), (lock, &paths.lock)] {
        if let Some(id) = id {
            id.remove_if_at(path);
        }
    }
}

impl HostFiles {
    /// Removes the socket, log and lock file (see [`remove_host_files`]).
    pub(super) fn remove(&self) {
        remove_host_files(&self.paths, self.socket, self.log, self.lock.id());
    }

    /// Makes a signal that ends the host remove its files too (a host ended by SIGTERM
    /// left them until the next call found them stale).
    pub(super) fn remove_on_signal(&self) {
        let (paths, socket, log, lock) = (self.paths.clone(), self.socket, self.log, self.lock.id());
        tuipilot::files::on_signal_also(move || remove_host_files(&paths, socket, log, lock));
    }

    /// Whether the socket clients find under this name is still this host's.
    pub(super) fn socket_is_ours(&self) -> bool {
        self.socket.is_some() && FileId::of_path(&self.paths.socket) == self.socket
    }
}

/// One host: its files, its session, its timeouts and counters.
pub(super) struct Host {
    pub(super) files: HostFiles,
    pub(super) session: Session,
    pub(super) idle_timeout: Duration,
    pub(super) last_request: Mutex<Instant>,
    pub(super) connections: AtomicUsize,
    pub(super) png_counter: AtomicUsize,
    /// Closing this pipe (when the host exits) sets the watchdog off.
    pub(super) watchdog: Watchdog,
    pub(super) hangups: HangupWatch,
    /// The longest reply this host may send (reported by `hello`).
    pub(super) max_reply: usize,
    /// How the session was started (for `log`, which `export` replays).
    pub(super) start: tuipilot::StartSpec,
}
