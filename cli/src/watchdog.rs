//! A watchdog process that ends a server's sessions when the server dies by any means.
//!
//! A server (a session host, the MCP server) forks the watchdog before it starts any
//! thread and keeps the write end of a pipe to it. The server arms the watchdog with each
//! program's session id as it starts one and disarms it when it ends one itself. When the
//! pipe closes — the server exited, crashed or was SIGKILLed — the watchdog ends every
//! process left in each armed session (SIGHUP, SIGTERM, SIGKILL), then removes the
//! session's temporary folders (its fresh `HOME`, its world's copy), which the session
//! would have removed had it been ended, and exits: no program and no copy outlives its
//! server.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

const ARM: u8 = 1;
const DISARM: u8 = 0;
/// A folder of an armed session, removed after it is ended: the message goes on with the
/// path's length (4 bytes) and the path.
const FOLDER: u8 = 2;

/// The server's end of the watchdog's pipe.
pub struct Watchdog {
    pipe: Mutex<std::fs::File>,
}

impl Watchdog {
    /// Forks the watchdog process.
    ///
    /// # Safety
    ///
    /// No other thread may exist in the calling process: the child runs ordinary Rust
    /// code (allocation, locks) after `fork`, which is undefined behaviour if another
    /// thread held an allocator or stdio lock at the moment of the fork.
    pub unsafe fn fork() -> Result<Watchdog, String> {
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors; close-on-exec keeps them out of programs.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
            return Err(format!(
                "creating the watchdog pipe: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: the caller guarantees no other thread exists (this function's contract),
        // so the child may run normal code.
        match unsafe { libc::fork() } {
            -1 => Err(format!(
                "starting the watchdog: {}",
                std::io::Error::last_os_error()
            )),
            0 => {
                // SAFETY: the child owns these descriptors. Its stdin/stdout become
                // /dev/null: stdout may be a pipe someone waits on (the host's handshake,
                // an MCP client), and the watchdog must not hold it open. Every other
                // inherited descriptor is closed too: above all a host's session-name
                // lock, which must end with the host, not with its watchdog.
                unsafe {
                    libc::close(fds[1]);
                    if fds[0] > 3 {
                        libc::syscall(libc::SYS_close_range, 3u32, (fds[0] - 1) as u32, 0u32);
                    }
                    libc::syscall(libc::SYS_close_range, (fds[0] + 1) as u32, u32::MAX, 0u32);
                    libc::setpgid(0, 0);
                    libc::prctl(libc::PR_SET_NAME, c"tuipilot-watch".as_ptr());
                    let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDWR);
                    if null >= 0 {
                        libc::dup2(null, 0);
                        libc::dup2(null, 1);
                    }
                }
                // SAFETY: fds[0] is this process's alone.
                let code = watch(unsafe { OwnedFd::from_raw_fd(fds[0]) });
                // SAFETY: leave without running the parent's exit handlers.
                unsafe { libc::_exit(code) }
            }
            _ => {
                // SAFETY: the read end belongs to the child now; the write end is ours.
                unsafe { libc::close(fds[0]) };
                // SAFETY: fds[1] is open, owned by nobody else, and closed once by the File.
                let file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fds[1]) });
                Ok(Watchdog {
                    pipe: Mutex::new(file),
                })
            }
        }
    }

    fn send(&self, op: u8, sid: i32) -> Result<(), String> {
        let mut message = [op, 0, 0, 0, 0];
        message[1..].copy_from_slice(&sid.to_le_bytes());
        let mut pipe = self.pipe.lock().unwrap_or_else(|p| p.into_inner());
        pipe.write_all(&message)
            .map_err(|e| format!("talking to the watchdog: {e}"))
    }

    /// Adds `session` to those ended if the server dies, its temporary folders to those
    /// then removed.
    pub fn arm(&self, session: &tuipilot::Session) -> Result<(), String> {
        self.send(ARM, session.pid())?;
        for folder in session.temporary_folders() {
            let path = folder.into_os_string().into_vec();
            let mut message = vec![FOLDER];
            message.extend_from_slice(&session.pid().to_le_bytes());
            message.extend_from_slice(&u32::try_from(path.len()).unwrap_or(u32::MAX).to_le_bytes());
            message.extend_from_slice(&path);
            let mut pipe = self.pipe.lock().unwrap_or_else(|p| p.into_inner());
            pipe.write_all(&message)
                .map_err(|e| format!("talking to the watchdog: {e}"))?;
        }
        Ok(())
    }

    /// Removes session `sid` (the server ended it itself).
    pub fn disarm(&self, sid: i32) -> Result<(), String> {
        self.send(DISARM, sid)
    }
}

/// The watchdog's life: track armed sessions until the pipe closes, then end them.
fn watch(pipe: OwnedFd) -> i32 {
    let mut pipe = std::fs::File::from(pipe);
    let mut armed = BTreeSet::new();
    let mut folders: BTreeMap<i32, Vec<PathBuf>> = BTreeMap::new();
    let mut message = [0u8; 5];
    while pipe.read_exact(&mut message).is_ok() {
        let sid = i32::from_le_bytes([message[1], message[2], message[3], message[4]]);
        match message[0] {
            ARM => {
                armed.insert(sid);
            }
            FOLDER => {
                let mut len = [0u8; 4];
                if pipe.read_exact(&mut len).is_err() {
                    break;
                }
                let mut path = vec![0u8; u32::from_le_bytes(len) as usize];
                if pipe.read_exact(&mut path).is_err() {
                    break;
                }
                folders
                    .entry(sid)
                    .or_default()
                    .push(PathBuf::from(std::ffi::OsString::from_vec(path)));
            }
            _ => {
                armed.remove(&sid);
                folders.remove(&sid);
            }
        }
    }
    let steps = [
        (libc::SIGHUP, Duration::from_millis(300)),
        (libc::SIGTERM, Duration::from_millis(300)),
        (libc::SIGKILL, Duration::from_secs(2)),
    ];
    let ended = tuipilot::process::end_sessions(armed, &steps);
    // Only absolute paths the server named: never the watchdog's own folder by accident.
    for folder in folders.into_values().flatten() {
        if folder.is_absolute() && folder.as_os_str().as_bytes() != b"/" {
            let _ = std::fs::remove_dir_all(&folder);
        }
    }
    if ended { 0 } else { 1 }
}
