//! Files the engine writes: created fresh, never through a planted link, and temporary
//! files and directories that go away with their owner — even when it is killed.
//!
//! Everything the tool writes (screenshots, recordings, exports, JUnit files, tape
//! outputs, failure bundles, temporary casts) is created here. The threat is another
//! local user who shares a directory with the writer (a sticky `/tmp`, a CI workspace)
//! and plants something at the name before the write: a symlink to a file of the
//! writer's, a hard link to one, a FIFO, or an empty 0666 file of their own to read the
//! result from. Two ways of writing defeat all of these:
//!
//! - **Whole files** ([`Folder::write`], [`Folder::create`] then [`NewFile::commit`]) are
//!   written to a temporary name with 64 random bits, created with
//!   `O_CREAT | O_EXCL | O_NOFOLLOW`, and renamed over the final name. `rename` replaces
//!   whatever entry is there — it never writes into it, never follows it.
//! - **Live files** that readers may watch as they grow (a recording) cannot be renamed
//!   at the end, so [`Folder::create_live`] refuses a name that holds a symlink, a FIFO, a
//!   directory, a file of another user or one with other hard links; it replaces only the
//!   caller's own plain file, and creates the new one with `O_EXCL | O_NOFOLLOW`, so a
//!   name planted between the check and the create fails instead of being written.
//!
//! Every operation goes through a [`Folder`]: a directory opened once, with names
//! created relative to its descriptor (`openat`, `renameat`). A server that writes only
//! inside one directory (MCP's `--artifact-dir`) opens it once, and no rename of a
//! directory above it, no `..` and no link can lead a write outside it.
//!
//! Temporary files and directories are listed while they exist, so that a command can
//! remove them when it is interrupted ([`remove_temporaries_on_signal`]): a killed `run`
//! must not leave a cast with what was typed in `/tmp`.

use std::ffi::{CStr, CString, OsStr, OsString};
use std::fs::File;
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::error::{Error, Result};

mod copy;
mod temporaries;
mod world;

pub(crate) use copy::KernelCopy;
pub use copy::{copy_file, copy_tree};
use temporaries::{Temporaries, Temporary};
pub use temporaries::{await_end_by_signal, on_signal_also, remove_temporaries_on_signal};
pub use world::{World, WorldLimits, WorldMap, WorldRefused, beside_source, refused_error};

/// Who may read a file the tool creates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// Only its owner (mode 0600): anything that can hold what was typed or shown —
    /// recordings, exports, failure bundles.
    Private,
    /// Everyone may read it (mode 0644): pictures, goldens, JUnit reports.
    Shared,
}

impl Access {
    fn mode(self) -> libc::mode_t {
        match self {
            Access::Private => 0o600,
            Access::Shared => 0o644,
        }
    }
}

/// A directory opened once; files are created relative to its descriptor.
#[derive(Clone, Debug)]
pub struct Folder {
    fd: Arc<OwnedFd>,
    path: PathBuf,
}

impl Folder {
    /// Opens the directory at `path` (which must exist).
    pub fn open(path: &Path) -> Result<Folder> {
        // For messages and for the paths reported; the descriptor is what is written to.
        let path = path
            .canonicalize()
            .or_else(|_| std::path::absolute(path))
            .unwrap_or_else(|_| path.to_path_buf());
        let fail = |e: std::io::Error| {
            let e = match e.kind() {
                std::io::ErrorKind::NotFound => std::io::Error::new(
                    e.kind(),
                    format!("directory {} does not exist; create it first", path.display()),
                ),
                _ => e,
            };
            Error::io(format!("cannot write into {}", path.display()), e)
        };
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| fail(std::io::Error::from(std::io::ErrorKind::InvalidInput)))?;
        // SAFETY: a valid C string; the descriptor returned is owned below.
        let fd = unsafe {
            libc::open(
                c_path.as_ptr(),
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return Err(fail(std::io::Error::last_os_error()));
        }
        // SAFETY: `fd` was just opened and belongs to nobody else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        Ok(Folder {
            fd: Arc::new(fd),
            path,
        })
    }

    /// Makes the directory `path` (and its parents) unless it exists, and opens it.
    ///
    /// For a folder of the tool's own (a failure bundle): an existing `path` must be a
    /// real directory of the caller's, not a link to one or another user's, or files
    /// written into it could be read or swapped by whoever put it there.
    pub fn make(path: &Path, access: Access) -> Result<Folder> {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)
                .map_err(|e| Error::io(format!("cannot create the directory {}", parent.display()), e))?;
        }
        let mode = match access {
            Access::Private => 0o700,
            Access::Shared => 0o755,
        };
        match std::fs::DirBuilder::new().mode(mode).create(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                let refuse = |why: &str| Error::RefusedPath {
                    path: path.to_path_buf(),
                    why: why.to_string(),
                };
                let meta = std::fs::symlink_metadata(path)
                    .map_err(|e| Error::io(format!("cannot inspect {}", path.display()), e))?;
                if meta.file_type().is_symlink() {
                    return Err(refuse("it is a symbolic link"));
                }
                if !meta.is_dir() {
                    return Err(refuse("it is not a directory"));
                }
                // SAFETY: geteuid cannot fail.
                if meta.uid() != unsafe { libc::geteuid() } {
                    return Err(refuse("it belongs to another user"));
                }
            }
            Err(e) => {
                return Err(Error::io(
                    format!("cannot create the directory {}", path.display()),
                    e,
                ));
            }
        }
        Folder::open(path)
    }

    /// The directory that holds `file`, opened, and the file's name in it.
    pub fn containing(file: &Path) -> Result<(Folder, OsString)> {
        let name = file.file_name().ok_or_else(|| Error::InvalidArgument {
            message: format!("`{}` names no file; give a file name", file.display()),
        })?;
        let dir = match file.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Ok((Folder::open(dir)?, name.to_os_string()))
    }

    /// Where the directory is.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `bytes` as the file `name` in this directory, whole or not at all (see the
    /// module docs); returns its path.
    pub fn write(&self, name: &OsStr, bytes: &[u8], access: Access) -> Result<PathBuf> {
        let mut file = self.create(name, access)?;
        file.write_all(bytes)
            .map_err(|e| Error::io(format!("cannot write {}", file.final_path().display()), e))?;
        file.commit()
    }

    /// Starts the file `name` in this directory at a temporary name; it takes `name` when
    /// [`NewFile::commit`] is called and is removed if the `NewFile` is dropped first.
    pub fn create(&self, name: &OsStr, access: Access) -> Result<NewFile> {
        let final_name = component(name)?;
        let mut attempt = 0;
        loop {
            // `component` refused a NUL in the name, so the C string always builds.
            let mut temp = [b".", name.as_bytes()].concat();
            temp.extend_from_slice(format!(".tmp-{:016x}", random_u64()).as_bytes());
            let temp = CString::new(temp).unwrap_or_default();
            match self.open_new(&temp, access) {
                Ok(file) => {
                    let temp_path = self.path.join(OsStr::from_bytes(temp.as_bytes()));
                    return Ok(NewFile {
                        file,
                        folder: self.clone(),
                        temp,
                        final_name,
                        listed: Temporaries::add(Temporary::File(temp_path)),
                        committed: false,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                Err(e) => {
                    let path = self.path.join(name);
                    return Err(Error::io(format!("cannot write {}", path.display()), e));
                }
            }
        }
    }

    /// Creates the file `name` to be written while others may read it (a recording).
    ///
    /// Refuses a name that holds anything but the caller's own plain file with no other
    /// link: a symlink, a FIFO, a directory, another user's file, a hard link. The
    /// caller's own file is replaced, not truncated.
    pub fn create_live(&self, name: &OsStr, access: Access) -> Result<File> {
        let c_name = component(name)?;
        let path = self.path.join(name);
        let refuse = |why: &str| Error::RefusedPath {
            path: path.clone(),
            why: why.to_string(),
        };
        // SAFETY: `stat` is plain data, filled by the call before it is read.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: a valid descriptor, C string and out-pointer.
        let found = unsafe {
            libc::fstatat(
                self.fd.as_raw_fd(),
                c_name.as_ptr(),
                &mut stat,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        } == 0;
        if found {
            match stat.st_mode & libc::S_IFMT {
                libc::S_IFREG => {}
                libc::S_IFLNK => return Err(refuse("it is a symbolic link")),
                libc::S_IFIFO => return Err(refuse("it is a FIFO")),
                libc::S_IFDIR => return Err(refuse("it is a directory")),
                _ => return Err(refuse("it is not a regular file")),
            }
            // SAFETY: geteuid cannot fail.
            if stat.st_uid != unsafe { libc::geteuid() } {
                return Err(refuse("it belongs to another user"));
            }
            if stat.st_nlink > 1 {
                return Err(refuse(
                    "it has other hard links, so writing it would write them too",
                ));
            }
            // SAFETY: a valid descriptor and C string.
            if unsafe { libc::unlinkat(self.fd.as_raw_fd(), c_name.as_ptr(), 0) } != 0 {
                let e = std::io::Error::last_os_error();
                return Err(Error::io(format!("cannot replace {}", path.display()), e));
            }
        }
        self.open_new(&c_name, access).map_err(|e| match e.kind() {
            std::io::ErrorKind::AlreadyExists => refuse("something was put there while it was being created"),
            _ => Error::io(format!("cannot create {}", path.display()), e),
        })
    }

    /// `openat(O_CREAT | O_EXCL | O_NOFOLLOW)`: a new file or an error, never an old one.
    fn open_new(&self, name: &CStr, access: Access) -> std::io::Result<File> {
        // SAFETY: a valid descriptor and C string; the descriptor returned is owned below.
        let fd = unsafe {
            libc::openat(
                self.fd.as_raw_fd(),
                name.as_ptr(),
                libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                libc::c_uint::from(access.mode()),
            )
        };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` was just opened and belongs to nobody else.
        Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
    }
}

/// A file being written at a temporary name; see [`Folder::create`].
#[derive(Debug)]
pub struct NewFile {
    file: File,
    folder: Folder,
    temp: CString,
    final_name: CString,
    listed: u64,
    committed: bool,
}

impl NewFile {
    /// Where the file goes when committed.
    pub fn final_path(&self) -> PathBuf {
        self.folder
            .path
            .join(OsStr::from_bytes(self.final_name.as_bytes()))
    }

    /// Flushes the file and gives it its name, replacing (never following) whatever
    /// entry had it; returns its path.
    pub fn commit(mut self) -> Result<PathBuf> {
        let path = self.final_path();
        let fail = |e: std::io::Error| Error::io(format!("cannot write {}", path.display()), e);
        self.file.flush().map_err(fail)?;
        // SAFETY: a valid descriptor and C strings, both in the same directory.
        let renamed = unsafe {
            libc::renameat(
                self.folder.fd.as_raw_fd(),
                self.temp.as_ptr(),
                self.folder.fd.as_raw_fd(),
                self.final_name.as_ptr(),
            )
        };
        if renamed != 0 {
            return Err(fail(std::io::Error::last_os_error()));
        }
        self.committed = true;
        Ok(path)
    }
}

impl Write for NewFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.file.flush()
    }
}

impl Drop for NewFile {
    fn drop(&mut self) {
        if !self.committed {
            // SAFETY: a valid descriptor and C string.
            unsafe { libc::unlinkat(self.folder.fd.as_raw_fd(), self.temp.as_ptr(), 0) };
        }
        Temporaries::remove(self.listed);
    }
}

/// `name` as one path component: not empty, no `/`, not `.` or `..`, no NUL.
fn component(name: &OsStr) -> Result<CString> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.contains(&b'/') || bytes == b"." || bytes == b".." {
        return Err(Error::InvalidArgument {
            message: format!(
                "`{}` is not a file name: give a name without `/` (not `.` or `..`)",
                name.to_string_lossy()
            ),
        });
    }
    CString::new(bytes).map_err(|_| Error::InvalidArgument {
        message: format!(
            "`{}` holds a NUL byte: give another file name",
            name.to_string_lossy()
        ),
    })
}

/// Opens `path` for reading without waiting: a FIFO (or a file swapped for one) opens at
/// once instead of blocking until a writer comes, so the caller can refuse what is not a
/// regular file.
pub(crate) fn open_without_blocking(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

/// Writes `bytes` to `path` whole (through a temporary file in the same directory, then
/// renamed), readable by everyone; see the module docs.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_file(path, bytes, Access::Shared).map(drop)
}

/// Writes `bytes` to `path` whole, with the given access; returns the path written.
pub fn write_file(path: &Path, bytes: &[u8], access: Access) -> Result<PathBuf> {
    let (folder, name) = Folder::containing(path)?;
    folder.write(&name, bytes, access)
}

/// Creates `path` as a file to be written while others may read it; see
/// [`Folder::create_live`].
pub fn create_live_file(path: &Path, access: Access) -> Result<File> {
    let (folder, name) = Folder::containing(path)?;
    folder.create_live(&name, access)
}

/// 64 bits from the kernel's random source (time and pid if it cannot answer): enough
/// that nobody can plant a file at a temporary name before it is made. A system call, not
/// glibc's `getrandom` wrapper (new in glibc 2.25; the Python wheel is linked for 2.17).
pub(crate) fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    // SAFETY: getrandom writes at most `bytes.len()` bytes into the live buffer.
    let n = unsafe { libc::syscall(libc::SYS_getrandom, bytes.as_mut_ptr(), bytes.len(), 0) };
    if n == bytes.len() as libc::c_long {
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
    listed: u64,
}

impl TempDir {
    /// Creates `tuipilot-TAG-RANDOM` in the temporary directory.
    pub(crate) fn new(tag: &str) -> Result<TempDir> {
        Self::new_in(&std::env::temp_dir(), tag)
    }

    /// Creates `tuipilot-TAG-RANDOM` in folder `base`.
    pub(crate) fn new_in(base: &Path, tag: &str) -> Result<TempDir> {
        use std::os::unix::fs::DirBuilderExt;
        let mut attempt = 0;
        loop {
            let path = base.join(format!("tuipilot-{tag}-{:016x}", random_u64()));
            match std::fs::DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let listed = Temporaries::add(Temporary::Dir(path.clone()));
                    return Ok(TempDir { path, listed });
                }
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
        Temporaries::remove(self.listed);
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

    #[test]
    fn a_whole_file_over_a_hard_link_leaves_the_linked_file_alone() {
        let dir = Scratch::new("hard");
        let victim = dir.0.join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let out = dir.0.join("out.tape");
        std::fs::hard_link(&victim, &out).unwrap();
        write_file(&out, b"exported", Access::Private).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        assert_eq!(std::fs::read(&out).unwrap(), b"exported");
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&out).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }

    #[test]
    fn a_live_file_refuses_links_fifos_and_directories_and_replaces_its_own_file() {
        let dir = Scratch::new("live");
        let victim = dir.0.join("victim");
        std::fs::write(&victim, "secret").unwrap();
        let folder = Folder::open(&dir.0).unwrap();
        let refused = |name: &str, why: &str| {
            let err = folder.create_live(name.as_ref(), Access::Private).unwrap_err();
            assert_eq!(err.kind(), crate::ErrorKind::BadInput, "{err}");
            let text = err.to_string();
            assert!(text.contains(why) && text.contains("refusing to write"), "{text}");
        };
        std::os::unix::fs::symlink(&victim, dir.0.join("sym.cast")).unwrap();
        refused("sym.cast", "symbolic link");
        std::fs::hard_link(&victim, dir.0.join("hard.cast")).unwrap();
        refused("hard.cast", "hard links");
        let fifo = CString::new(dir.0.join("fifo.cast").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid C string.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o666) }, 0);
        refused("fifo.cast", "FIFO");
        std::fs::create_dir(dir.0.join("dir.cast")).unwrap();
        refused("dir.cast", "directory");
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "secret");
        let err = folder
            .create_live("../escape.cast".as_ref(), Access::Private)
            .unwrap_err();
        assert!(err.to_string().contains("not a file name"), "{err}");

        let own = dir.0.join("own.cast");
        std::fs::write(&own, "old recording").unwrap();
        let mut before = File::open(&own).unwrap();
        let mut file = folder.create_live("own.cast".as_ref(), Access::Private).unwrap();
        file.write_all(b"new").unwrap();
        let mut old = String::new();
        std::io::Read::read_to_string(&mut before, &mut old).unwrap();
        assert_eq!(old, "old recording", "replaced, not truncated");
        assert_eq!(std::fs::read(&own).unwrap(), b"new");
    }

    #[test]
    fn a_live_file_refuses_another_users_file() {
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("SKIPPED: only root can make a file of another user's here (CI runs as root)");
            return;
        }
        let dir = Scratch::new("other");
        let planted = dir.0.join("r.cast");
        std::fs::write(&planted, "").unwrap();
        std::os::unix::fs::chown(&planted, Some(65534), Some(65534)).unwrap();
        let err = create_live_file(&planted, Access::Private).unwrap_err();
        assert!(err.to_string().contains("another user"), "{err}");
    }

    #[test]
    fn a_file_not_committed_leaves_nothing_behind() {
        let dir = Scratch::new("drop");
        let folder = Folder::open(&dir.0).unwrap();
        let mut file = folder.create("half.cast".as_ref(), Access::Private).unwrap();
        file.write_all(b"partial").unwrap();
        drop(file);
        assert_eq!(std::fs::read_dir(&dir.0).unwrap().count(), 0);
    }

    #[test]
    fn a_bundle_folder_that_is_a_link_is_refused() {
        let dir = Scratch::new("bundle");
        let elsewhere = dir.0.join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.0.join("t.failure")).unwrap();
        let err = Folder::make(&dir.0.join("t.failure"), Access::Private).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let made = Folder::make(&dir.0.join("u.failure"), Access::Private).unwrap();
        assert!(made.path().is_dir());
    }
}
