//! Where sessions live: the runtime directory, its permissions, and per-session paths —
//! the command line's hosts' and any watch point's ([`super::point`]), so a library or
//! Python session answers `tuipilot attach` under a name as a host does.
//!
//! The directory is `$TUIPILOT_DIR`, else `$XDG_RUNTIME_DIR/tuipilot`, else
//! `/tmp/tuipilot-$UID`. It is created with mode 0700 and refused if another user owns
//! it or others can enter it: the sockets in it accept any process that can reach them,
//! so the directory is the access control (with a peer-uid check on top).
//!
//! A name belongs to whoever holds the exclusive `flock` on `NAME.lock` ([`NameLock`]):
//! `start` takes it before anything else and the host inherits it for its whole life, so
//! exactly one of two racing `start`s wins and the loser touches nothing. Files are
//! removed by name only under that lock, and a host removes only the files it made
//! (checked by inode), so an old host can never delete a newer host's socket.

use std::fs;
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The longest session name.
pub const MAX_NAME: usize = 64;

/// Unix socket paths must fit in `sockaddr_un.sun_path` (108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Checks a session name: 1–64 characters from `[A-Za-z0-9._-]`.
pub fn check_name(name: &str) -> Result<()> {
    let valid = !name.is_empty()
        && name.len() <= MAX_NAME
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
        && name != "."
        && name != "..";
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidArgument {
            message: format!(
                "invalid session name `{name}`: use 1 to {MAX_NAME} characters from A-Z a-z 0-9 . _ -"
            ),
        })
    }
}

/// The runtime directory from the environment, before it is created or checked.
pub fn runtime_dir_from_env() -> PathBuf {
    if let Some(dir) = std::env::var_os("TUIPILOT_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("tuipilot");
    }
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    PathBuf::from(format!("/tmp/tuipilot-{uid}"))
}

/// Creates the runtime directory (mode 0700) if needed and checks that it is safe.
pub fn ensure_runtime_dir(dir: &Path) -> Result<()> {
    match fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(Error::io(
                format!(
                    "cannot create the runtime directory {} (set TUIPILOT_DIR to a writable directory)",
                    dir.display()
                ),
                e,
            ));
        }
    }
    check_runtime_dir(dir)
}

/// Refuses a directory that is not ours or that others can enter.
pub fn check_runtime_dir(dir: &Path) -> Result<()> {
    let meta = fs::symlink_metadata(dir)
        .map_err(|e| Error::io(format!("cannot read the runtime directory {}", dir.display()), e))?;
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    check_dir_metadata(dir, meta.is_dir(), meta.uid(), meta.permissions().mode(), uid)
}

/// The ownership and permission rules, separate from the filesystem so they can be tested.
pub(super) fn check_dir_metadata(dir: &Path, is_dir: bool, owner: u32, mode: u32, uid: u32) -> Result<()> {
    if !is_dir {
        return Err(refused(
            dir,
            "it is not a directory; remove it or set TUIPILOT_DIR".into(),
        ));
    }
    if owner != uid {
        return Err(refused(
            dir,
            format!("it belongs to uid {owner}, not {uid}; set TUIPILOT_DIR to a directory of your own"),
        ));
    }
    if mode & 0o077 != 0 {
        return Err(refused(
            dir,
            format!(
                "others can access it (mode {:o}); run `chmod 700 {}`",
                mode & 0o777,
                dir.display()
            ),
        ));
    }
    Ok(())
}

/// A runtime directory not used, and why.
fn refused(dir: &Path, why: String) -> Error {
    Error::io(
        format!("refusing the runtime directory {}", dir.display()),
        io::Error::new(io::ErrorKind::PermissionDenied, why),
    )
}

/// The files of one session.
#[derive(Clone, Debug)]
pub struct SessionPaths {
    /// The session's name.
    pub name: String,
    /// `NAME.sock`: where its host or watch point listens.
    pub socket: PathBuf,
    /// `NAME.log`: its host's log.
    pub log: PathBuf,
    /// Held (`flock`) by the session's host for its life: the name's owner.
    pub lock: PathBuf,
}

impl SessionPaths {
    /// The paths of session `name` in `dir`, checking the name and the socket path length.
    pub fn new(dir: &Path, name: &str) -> Result<SessionPaths> {
        check_name(name)?;
        let socket = dir.join(format!("{name}.sock"));
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(Error::InvalidArgument {
                message: format!(
                    "the socket path {} is longer than {MAX_SOCKET_PATH} bytes; set TUIPILOT_DIR to a shorter directory",
                    socket.display()
                ),
            });
        }
        Ok(SessionPaths {
            name: name.to_string(),
            log: dir.join(format!("{name}.log")),
            lock: dir.join(format!("{name}.lock")),
            socket,
        })
    }

    /// Removes a socket and log left by a host that is gone (the lock file stays: it is
    /// the caller's, held). Only the holder of the name's lock may do this.
    pub fn remove_leftovers(&self, _owner: &NameLock) {
        let _ = fs::remove_file(&self.socket);
        let _ = fs::remove_file(&self.log);
    }

    /// Removes the socket, log and lock file by name. Only the holder of the name's
    /// [`NameLock`] may do this (the files are its own, or left by a host that is gone);
    /// the lock file goes last, while still locked, so a waiting `start` never locks a
    /// file that is about to disappear.
    pub fn remove(&self, owner: &NameLock) {
        self.remove_leftovers(owner);
        let _ = fs::remove_file(&self.lock);
    }
}

/// A file's identity (device and inode): what a host checks before removing a path, so it
/// removes only what it created.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of what `path` names now (not following a symlink), if anything.
    pub fn of_path(path: &Path) -> Option<FileId> {
        fs::symlink_metadata(path).ok().map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    /// The identity of an open file.
    pub fn of_file(file: &fs::File) -> Option<FileId> {
        file.metadata().ok().map(|m| FileId {
            dev: m.dev(),
            ino: m.ino(),
        })
    }

    /// Removes `path` if it is still this file; says whether it was.
    pub fn remove_if_at(self, path: &Path) -> bool {
        FileId::of_path(path) == Some(self) && fs::remove_file(path).is_ok()
    }
}

/// The exclusive right to a session name: `flock(LOCK_EX)` on `NAME.lock`. Forked hosts
/// share the open file (and so the lock) with the `start` that made them; the lock ends
/// when the last process holding it exits, however it exits.
#[derive(Debug)]
pub struct NameLock {
    file: fs::File,
}

impl NameLock {
    /// Takes the lock on `paths.lock` without blocking: `Ok(None)` when another process
    /// holds it (the session is running, or starting).
    pub fn try_acquire(paths: &SessionPaths) -> Result<Option<NameLock>> {
        // A lock file unlinked by a host that is shutting down may be locked by us after
        // that host let go; then the name's lock file is a new one, so try again on it.
        for _ in 0..100 {
            let file = fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&paths.lock)
                .map_err(|e| {
                    Error::io(
                        format!("cannot open the session lock {}", paths.lock.display()),
                        e,
                    )
                })?;
            // SAFETY: flock on a descriptor this function owns.
            if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::WouldBlock {
                    return Ok(None);
                }
                return Err(Error::io(format!("cannot lock {}", paths.lock.display()), e));
            }
            if FileId::of_file(&file).is_some() && FileId::of_file(&file) == FileId::of_path(&paths.lock) {
                return Ok(Some(NameLock { file }));
            }
        }
        Err(Error::io(
            format!("the session lock {} keeps changing", paths.lock.display()),
            io::Error::other("is another program removing it?"),
        ))
    }

    /// The lock file's identity.
    pub fn id(&self) -> Option<FileId> {
        FileId::of_file(&self.file)
    }

    /// Another handle on the same lock (the same open file, so the same `flock`): what a
    /// forked host keeps while the `start` that forked it lets its own handle go.
    pub fn try_clone(&self) -> Result<NameLock> {
        let file = self
            .file
            .try_clone()
            .map_err(|e| Error::io("duplicating the session lock", e))?;
        Ok(NameLock { file })
    }
}

/// The names of the sessions whose sockets are in `dir`, sorted.
pub fn session_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.strip_suffix(".sock").map(str::to_string))
        .filter(|n| check_name(n).is_ok())
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for good in ["default", "a", "build-1.2_x", &"x".repeat(64)] {
            assert!(check_name(good).is_ok(), "{good}");
        }
        for bad in ["", "..", ".", "a/b", "a b", "ünï", &"x".repeat(65)] {
            let err = check_name(bad).unwrap_err();
            assert!(err.to_string().contains("invalid session name"), "{bad}: {err}");
        }
    }

    #[test]
    fn directory_rules() {
        let dir = Path::new("/run/x");
        assert!(check_dir_metadata(dir, true, 1000, 0o40700, 1000).is_ok());
        let err = check_dir_metadata(dir, true, 0, 0o40700, 1000).unwrap_err();
        assert!(err.to_string().contains("belongs to uid 0"), "{err}");
        let err = check_dir_metadata(dir, true, 1000, 0o40755, 1000).unwrap_err();
        assert!(err.to_string().contains("chmod 700"), "{err}");
        assert!(check_dir_metadata(dir, false, 1000, 0o100600, 1000).is_err());
    }

    #[test]
    fn a_name_has_one_owner_at_a_time() {
        let dir = std::env::temp_dir().join(format!("tp-lock-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let paths = SessionPaths::new(&dir, "x").unwrap();
        let first = NameLock::try_acquire(&paths)
            .unwrap()
            .expect("the first takes the name");
        assert!(NameLock::try_acquire(&paths).unwrap().is_none());
        paths.remove(&first);
        drop(first);
        let again = NameLock::try_acquire(&paths).unwrap().expect("free again");
        paths.remove(&again);
        drop(again);
        fs::remove_dir(&dir).unwrap();
    }

    #[test]
    fn long_socket_paths_are_refused() {
        let long = PathBuf::from(format!("/tmp/{}", "d".repeat(100)));
        let err = SessionPaths::new(&long, "default").unwrap_err();
        assert!(
            err.to_string()
                .contains("set TUIPILOT_DIR to a shorter directory")
        );
    }
}
