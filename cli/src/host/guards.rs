//! Guards on the host's connections: who may connect, and how long a connection may hold
//! a worker.
//!
//! Only the host's own user may talk to it (`SO_PEERCRED`, on top of the runtime
//! directory's permissions). A request line must arrive whole within a deadline however
//! its bytes trickle in ([`DeadlineReader`]), and a request that waits or pauses is
//! cancelled as soon as its client hangs up ([`HangupWatch`]): a vanished or slow client
//! frees what it held at once.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use tuipilot::Cancel;

use crate::error::{ErrorCode, Failure};

/// Watches the connections of requests that wait or pause, and cancels a request whose
/// client hangs up: nobody is left to read its answer, and it must not hold a worker
/// until its timeout.
pub struct HangupWatch {
    watched: Mutex<Vec<(u64, RawFd, Cancel)>>,
    next_key: AtomicU64,
    /// Written to wake the watcher when the set changes; the watcher reads `wake_read`.
    wake_write: OwnedFd,
    wake_read: OwnedFd,
}

/// Removes its connection from the watch when the request ends.
pub struct Watched<'a> {
    watch: &'a HangupWatch,
    key: u64,
}

impl HangupWatch {
    /// A watch with nothing to watch yet; [`watch`](Self::watch) runs it.
    pub fn start() -> Result<HangupWatch, Failure> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(Failure::internal(format!(
                "creating the hang-up watch pipe: {}",
                std::io::Error::last_os_error()
            )));
        }
        // SAFETY: both descriptors are open and owned by nobody else.
        let (wake_read, wake_write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        Ok(HangupWatch {
            watched: Mutex::new(Vec::new()),
            next_key: AtomicU64::new(0),
            wake_write,
            wake_read,
        })
    }

    fn wake(&self) {
        // SAFETY: a one-byte write from a live buffer; a full pipe already means "wake".
        unsafe { libc::write(self.wake_write.as_raw_fd(), [0u8].as_ptr().cast(), 1) };
    }

    /// Cancels `cancel` if the peer of `fd` hangs up before the guard is dropped.
    pub fn register(&self, fd: RawFd, cancel: Cancel) -> Watched<'_> {
        let key = self.next_key.fetch_add(1, Ordering::SeqCst);
        self.watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((key, fd, cancel));
        self.wake();
        Watched { watch: self, key }
    }

    /// The watcher thread's loop.
    pub fn watch(&self) {
        loop {
            let watched: Vec<(u64, RawFd, Cancel)> =
                self.watched.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let mut fds: Vec<libc::pollfd> = std::iter::once(self.wake_read.as_raw_fd())
                .map(|fd| libc::pollfd {
                    fd,
                    events: libc::POLLIN,
                    revents: 0,
                })
                .chain(watched.iter().map(|(_, fd, _)| libc::pollfd {
                    fd: *fd,
                    events: libc::POLLRDHUP,
                    revents: 0,
                }))
                .collect();
            // SAFETY: `fds` is a live array of `fds.len()` pollfd structures.
            let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, -1) };
            if n < 0 {
                continue;
            }
            if fds[0].revents != 0 {
                let mut sink = [0u8; 64];
                // SAFETY: reads into a live buffer of its length; the pipe is non-blocking.
                while unsafe { libc::read(self.wake_read.as_raw_fd(), sink.as_mut_ptr().cast(), sink.len()) }
                    > 0
                {}
            }
            let mut hung_up = Vec::new();
            for (poll, (key, _, cancel)) in fds[1..].iter().zip(&watched) {
                if poll.revents & (libc::POLLRDHUP | libc::POLLHUP | libc::POLLERR) != 0 {
                    cancel.cancel();
                    hung_up.push(*key);
                }
            }
            if !hung_up.is_empty() {
                self.watched
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .retain(|(key, _, _)| !hung_up.contains(key));
            }
        }
    }
}

impl Drop for Watched<'_> {
    fn drop(&mut self) {
        self.watch
            .watched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(key, _, _)| *key != self.key);
        self.watch.wake();
    }
}

/// Reads a socket with one deadline for a whole line, however the bytes trickle in.
pub struct DeadlineReader {
    /// The connection.
    pub stream: UnixStream,
    /// When the line must be complete.
    pub deadline: Instant,
}

impl Read for DeadlineReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        self.stream.read(buf)
    }
}

/// The uid of the process at the other end of a Unix socket (SO_PEERCRED).
pub fn peer_uid(stream: &UnixStream) -> std::io::Result<u32> {
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

/// Whether the process at the other end of `stream` may talk to a session of this
/// process: only the same user ([`check_peer`] on its [`peer_uid`]).
pub fn check_connection(stream: &UnixStream) -> Result<(), Failure> {
    // SAFETY: getuid cannot fail.
    let own = unsafe { libc::getuid() };
    let peer =
        peer_uid(stream).map_err(|e| Failure::internal(format!("reading the peer's credentials: {e}")))?;
    check_peer(peer, own)
}

/// Only the host's own user may talk to it.
pub fn check_peer(peer: u32, own: u32) -> Result<(), Failure> {
    if peer == own {
        Ok(())
    } else {
        Err(Failure::new(
            ErrorCode::BadRequest,
            format!("connection refused: uid {peer} is not the session owner (uid {own})"),
        ))
    }
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
