//! Guards on the host's connections: how long a connection may hold a worker.
//!
//! Who may connect and how long a request line may take are the engine's
//! ([`tuipilot::live::guards`], shared with watch points); here, a request that waits or
//! pauses is cancelled as soon as its client hangs up ([`HangupWatch`]): a vanished
//! client frees what it held at once.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use tuipilot::Cancel;

use crate::error::Failure;

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

pub use tuipilot::live::guards::{DeadlineReader, check_connection};
