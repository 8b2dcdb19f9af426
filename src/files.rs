//! Files the engine writes: atomically, never through a planted symlink, and temporary
//! directories that go away with their owner.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Writes `bytes` to `path` through a temporary file in the same directory, so a failed
/// write never leaves a partial file and a reader never sees half a PNG.
///
/// The temporary file has an unpredictable name and is created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW`: another local user who plants a symlink or a file in
/// the directory cannot make the write land anywhere else. `rename` then replaces `path`
/// itself — a symlink at `path` is replaced, never followed.
#[cfg_attr(not(feature = "render"), allow(dead_code))]
pub(crate) fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;

    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let fail = |e: std::io::Error| Error::io(format!("cannot write {}", path.display()), e);
    if !dir.is_dir() {
        return Err(fail(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!("directory {} does not exist; create it first", dir.display()),
        )));
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut attempt = 0;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(".{name}.tmp-{:016x}", random_u64()));
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&tmp);
        match created {
            Ok(file) => break (tmp, file),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
            Err(e) => return Err(fail(e)),
        }
    };
    let result = file
        .write_all(bytes)
        .and_then(|()| file.flush())
        .and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(fail(e));
    }
    Ok(())
}

/// 64 bits from the kernel's random source (time and pid if it cannot answer): enough
/// that nobody can plant a file at a temporary name before it is made.
pub(crate) fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the live buffer.
    let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
    if n == bytes.len() as isize {
        return u64::from_ne_bytes(bytes);
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    nanos ^ (u64::from(std::process::id()) << 32)
}

/// A private directory (mode 0700) in the system's temporary directory, with an
/// unpredictable name, removed with everything in it when dropped.
#[derive(Debug)]
pub(crate) struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Creates `tuipilot-TAG-RANDOM` in the temporary directory.
    pub(crate) fn new(tag: &str) -> Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt;
        let base = std::env::temp_dir();
        let mut attempt = 0;
        loop {
            let path = base.join(format!("tuipilot-{tag}-{:016x}", random_u64()));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => return Ok(TempDir { path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                Err(e) => {
                    return Err(Error::io(
                        format!("creating a temporary directory in {}", base.display()),
                        e,
                    ));
                }
            }
        }
    }

    /// Where it is.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A directory of its own per test, removed on drop.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new(tag: &str) -> Scratch {
            let dir = std::env::temp_dir().join(format!("tp-write-{tag}-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Scratch(dir)
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_symlink_planted_at_the_temporary_name_is_not_followed() {
        let dir = Scratch::new("tmp");
        let victim = dir.0.join("victim");
        std::fs::write(&victim, "secret").unwrap();
        // Where a writer that names its temporary file after its pid would write.
        let planted = dir.0.join(format!(".shot.png.tmp-{}", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        write_file_atomically(&dir.0.join("shot.png"), b"png").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert_eq!(std::fs::read(dir.0.join("shot.png")).unwrap(), b"png");
        let leftovers: Vec<_> = std::fs::read_dir(&dir.0)
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().contains(".tmp-") && e.path() != planted)
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    #[test]
    fn a_symlink_at_the_final_path_is_replaced_not_followed() {
        let dir = Scratch::new("final");
        let victim = dir.0.join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let shot = dir.0.join("shot.png");
        std::os::unix::fs::symlink(&victim, &shot).unwrap();
        write_file_atomically(&shot, b"png").unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert!(!std::fs::symlink_metadata(&shot).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read(&shot).unwrap(), b"png");
    }
}
