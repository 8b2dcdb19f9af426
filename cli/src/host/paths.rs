//! Where sessions live: the runtime directory, its permissions, and per-session paths.
//!
//! The directory is `$TUIPILOT_DIR`, else `$XDG_RUNTIME_DIR/tuipilot`, else
//! `/tmp/tuipilot-$UID`. It is created with mode 0700 and refused if another user owns
//! it or others can enter it: the sockets in it accept any process that can reach them,
//! so the directory is the access control (with a peer-uid check on top).

use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::Failure;

/// The longest session name.
pub const MAX_NAME: usize = 64;

/// Unix socket paths must fit in `sockaddr_un.sun_path` (108 bytes with the NUL).
const MAX_SOCKET_PATH: usize = 107;

/// Checks a session name: 1–64 characters from `[A-Za-z0-9._-]`.
pub fn check_name(name: &str) -> Result<(), Failure> {
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
        Err(Failure::bad_request(format!(
            "invalid session name `{name}`: use 1 to {MAX_NAME} characters from A-Z a-z 0-9 . _ -"
        )))
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
pub fn ensure_runtime_dir(dir: &Path) -> Result<(), Failure> {
    match fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => {
            return Err(Failure::internal(format!(
                "cannot create the runtime directory {}: {e}; set TUIPILOT_DIR to a writable directory",
                dir.display()
            )));
        }
    }
    check_runtime_dir(dir)
}

/// Refuses a directory that is not ours or that others can enter.
pub fn check_runtime_dir(dir: &Path) -> Result<(), Failure> {
    let meta = fs::symlink_metadata(dir).map_err(|e| {
        Failure::internal(format!(
            "cannot read the runtime directory {}: {e}",
            dir.display()
        ))
    })?;
    // SAFETY: getuid cannot fail.
    let uid = unsafe { libc::getuid() };
    check_dir_metadata(dir, meta.is_dir(), meta.uid(), meta.permissions().mode(), uid)
}

/// The ownership and permission rules, separate from the filesystem so they can be tested.
pub(crate) fn check_dir_metadata(
    dir: &Path,
    is_dir: bool,
    owner: u32,
    mode: u32,
    uid: u32,
) -> Result<(), Failure> {
    if !is_dir {
        return Err(Failure::internal(format!(
            "the runtime directory {} is not a directory; remove it or set TUIPILOT_DIR",
            dir.display()
        )));
    }
    if owner != uid {
        return Err(Failure::internal(format!(
            "refusing the runtime directory {}: it belongs to uid {owner}, not {uid}; set TUIPILOT_DIR to a directory of your own",
            dir.display()
        )));
    }
    if mode & 0o077 != 0 {
        return Err(Failure::internal(format!(
            "refusing the runtime directory {}: others can access it (mode {:o}); run `chmod 700 {}`",
            dir.display(),
            mode & 0o777,
            dir.display()
        )));
    }
    Ok(())
}

/// The files of one session.
#[derive(Clone, Debug)]
pub struct SessionPaths {
    pub name: String,
    pub socket: PathBuf,
    pub log: PathBuf,
}

impl SessionPaths {
    /// The paths of session `name` in `dir`, checking the name and the socket path length.
    pub fn new(dir: &Path, name: &str) -> Result<SessionPaths, Failure> {
        check_name(name)?;
        let socket = dir.join(format!("{name}.sock"));
        if socket.as_os_str().len() > MAX_SOCKET_PATH {
            return Err(Failure::bad_request(format!(
                "the socket path {} is longer than {MAX_SOCKET_PATH} bytes; set TUIPILOT_DIR to a shorter directory",
                socket.display()
            )));
        }
        Ok(SessionPaths {
            name: name.to_string(),
            log: dir.join(format!("{name}.log")),
            socket,
        })
    }

    /// Removes the socket and log (a host that is gone, or one shutting down).
    pub fn remove(&self) {
        let _ = fs::remove_file(&self.socket);
        let _ = fs::remove_file(&self.log);
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
            assert!(
                err.message.contains("invalid session name"),
                "{bad}: {}",
                err.message
            );
        }
    }

    #[test]
    fn directory_rules() {
        let dir = Path::new("/run/x");
        assert!(check_dir_metadata(dir, true, 1000, 0o40700, 1000).is_ok());
        let err = check_dir_metadata(dir, true, 0, 0o40700, 1000).unwrap_err();
        assert!(err.message.contains("belongs to uid 0"), "{}", err.message);
        let err = check_dir_metadata(dir, true, 1000, 0o40755, 1000).unwrap_err();
        assert!(err.message.contains("chmod 700"), "{}", err.message);
        assert!(check_dir_metadata(dir, false, 1000, 0o100600, 1000).is_err());
    }

    #[test]
    fn long_socket_paths_are_refused() {
        let long = PathBuf::from(format!("/tmp/{}", "d".repeat(100)));
        let err = SessionPaths::new(&long, "default").unwrap_err();
        assert!(err.message.contains("set TUIPILOT_DIR to a shorter directory"));
    }
}
