//! Guards on a session's connections, a host's or a watch point's: who may connect, and
//! how long a connection may take to send a request line.
//!
//! Only the session's own user may talk to it (`SO_PEERCRED`, on top of the runtime
//! directory's permissions, [`super::runtime`]). A request line must arrive whole within
//! a deadline however its bytes trickle in ([`DeadlineReader`]): a slow client frees what
//! it held.

use std::io::Read;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use crate::{Error, Result};

/// How long a connection may take to send one whole request line, counted from when it
/// connected or got its previous answer. A slower connection is closed.
pub const LINE_DEADLINE: Duration = Duration::from_secs(5);

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
pub fn check_connection(stream: &UnixStream) -> Result<()> {
    // SAFETY: getuid cannot fail.
    let own = unsafe { libc::getuid() };
    let peer = peer_uid(stream).map_err(|e| Error::io("reading the peer's credentials", e))?;
    check_peer(peer, own)
}

/// Only the host's own user may talk to it.
pub fn check_peer(peer: u32, own: u32) -> Result<()> {
    if peer == own {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            message: format!("connection refused: uid {peer} is not the session owner (uid {own})"),
        })
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
            err.to_string().contains("uid 1001 is not the session owner"),
            "{err}"
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
