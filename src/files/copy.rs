//! Copies: a plain file whole, a folder with everything in it, and a file into a folder
//! only this process writes in (a world's store). What is copied is opened without
//! following a link and without waiting on a FIFO, and refused when it is not a plain
//! file: something may have been put in its place since the caller looked.
//!
//! A tree or a world copied keeps what a program reads of a file besides its bytes
//! ([`keep_metadata`]): its permission bits (a script stays executable; a file manager
//! shows `drwxr-xr-x`, not the copy's `drwx------`) and its times (a listing's dates are
//! the session's, not the replay's day). A single file copied whole ([`copy_file`]: a
//! tape's recording) is the tool's own, private.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::{Access, Folder, component};
use crate::error::{Error, Result};

/// Copies the plain file `from` to `to` whole (a temporary file renamed into place). The
/// source is opened without following a link and without waiting on a FIFO, and refused
/// when it is not a plain file: something may have been put in its place since the caller
/// looked (a copied folder's entries, a program's world).
pub fn copy_file(from: &Path, to: &Path, access: Access) -> Result<PathBuf> {
    copy_whole(from, to, access, false)
}

/// [`copy_file`]; with `keep`, the copy takes the source's mode and times
/// ([`keep_metadata`]) before it takes its name.
fn copy_whole(from: &Path, to: &Path, access: Access, keep: bool) -> Result<PathBuf> {
    let (mut source, meta) = open_plain(from)?;
    let (folder, name) = Folder::containing(to)?;
    let mut file = folder.create(&name, access)?;
    let written = |e: std::io::Error| Error::io(format!("cannot write {}", to.display()), e);
    std::io::copy(&mut source, &mut file).map_err(written)?;
    if keep {
        keep_metadata(&file.file, &meta).map_err(written)?;
    }
    file.commit()
}

/// Gives the copy open at `copy` the mode and times of the file or folder `source`
/// describes. The permission bits are kept (no set-user or set-group bit: the copy is
/// the caller's); the owner keeps reading a file and entering, listing and writing a
/// folder, so a later copy can read it and its removal can empty it (a folder of mode
/// 0555 is copied as 0755). Times are set last, after the entries a folder's copy was
/// given, which change them.
pub(crate) fn keep_metadata(copy: &impl AsRawFd, source: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let owner = match source.is_dir() {
        true => 0o700,
        false => 0o400,
    };
    let mode = (source.mode() & 0o777) | owner;
    // SAFETY: an open descriptor.
    if unsafe { libc::fchmod(copy.as_raw_fd(), mode as libc::mode_t) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    keep_times(copy, source)
}

/// Opens the plain file `from` for reading, without following a link and without waiting
/// on a FIFO; refused when it is not a plain file. Its metadata is the open file's.
fn open_plain(from: &Path) -> Result<(File, std::fs::Metadata)> {
    use std::os::unix::fs::OpenOptionsExt;
    let source = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(from)
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    let meta = source
        .metadata()
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    if !meta.is_file() {
        return Err(Error::RefusedPath {
            path: from.to_path_buf(),
            why: "it is not a plain file".into(),
        });
    }
    Ok((source, meta))
}

/// Whether the kernel copies the files of one tree copy (`copy_file_range`). Its first
/// refusal — between two file systems (a world copied into `/dev/shm`), on an old kernel,
/// on a file system without it — holds for the rest of the tree, whose files then go
/// straight to reads and writes instead of asking again, one refused call a file.
#[derive(Default)]
pub(crate) struct KernelCopy {
    refused: std::cell::Cell<bool>,
}

impl Folder {
    /// Copies the plain file `from` (as [`copy_file`] opens it) to `name` in this folder,
    /// private, written in place: for a folder only this process writes in (a fresh
    /// [`TempDir`] of its own), where no one can be looking at a half-written file or have
    /// put anything at the name — `O_EXCL` refuses the name if anything is there. The
    /// copy keeps the source's mode and times ([`keep_metadata`]). What a failed copy
    /// wrote is removed.
    pub(crate) fn copy_in(&self, from: &Path, name: &OsStr, kernel: &KernelCopy) -> Result<u64> {
        let (mut source, meta) = open_plain(from)?;
        let c_name = component(name)?;
        let mut file = self
            .open_new(&c_name, Access::Private)
            .map_err(|e| Error::io(format!("cannot write {}", self.path.join(name).display()), e))?;
        copy_contents(&mut source, &mut file, kernel)
            .and_then(|copied| keep_metadata(&file, &meta).map(|()| copied))
            .map_err(|e| {
                // SAFETY: a valid descriptor and C string.
                unsafe { libc::unlinkat(self.fd.as_raw_fd(), c_name.as_ptr(), 0) };
                Error::io(format!("cannot write {}", self.path.join(name).display()), e)
            })
    }
}

/// Copies what is left of `source` to `to`: in the kernel (`copy_file_range`) until the
/// source's end, unless `kernel` was refused, then by reads and writes. Not
/// `std::io::copy`: it asks both files' metadata first, two `statx` calls a file that a
/// world of small files pays for in full, and asks the kernel again for every file. The
/// kernel copy is made as a system call, not through glibc's wrapper (2.27): the Python
/// wheel promises glibc 2.17.
fn copy_contents(source: &mut File, to: &mut File, kernel: &KernelCopy) -> std::io::Result<u64> {
    let mut copied = 0u64;
    while !kernel.refused.get() {
        // SAFETY: two open descriptors; null offsets use and advance the files' own.
        let n = unsafe {
            libc::syscall(
                libc::SYS_copy_file_range,
                source.as_raw_fd(),
                std::ptr::null_mut::<libc::loff_t>(),
                to.as_raw_fd(),
                std::ptr::null_mut::<libc::loff_t>(),
                1usize << 30,
                0u32,
            )
        };
        match n {
            0 => return Ok(copied),
            n if n > 0 => copied += n as u64,
            _ => {
                let e = std::io::Error::last_os_error();
                match e.raw_os_error() {
                    Some(libc::EXDEV | libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP | libc::EPERM) => {
                        kernel.refused.set(true)
                    }
                    Some(libc::EINTR) => continue,
                    _ => return Err(e),
                }
            }
        }
    }
    let mut buffer = [0u8; 16 * 1024];
    loop {
        match source.read(&mut buffer) {
            Ok(0) => return Ok(copied),
            Ok(n) => {
                to.write_all(&buffer[..n])?;
                copied += n as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
}

/// Copies `from` — a regular file, or a folder with everything in it — to `to`, which must
/// not exist yet, each file and folder with its permission bits (no set-user bit; the
/// owner can always read a file and empty a folder) and its times; `to` itself, when a
/// folder, is private (0700) whatever `from`'s mode, as what it holds may
/// be the user's alone. A link, FIFO or device anywhere in it is refused by name: a copy
/// follows nothing and waits on nothing.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    copy_tree_keeping(from, to, true)
}

/// [`copy_tree`]; `top`: `to` is the copy's top, kept private.
fn copy_tree_keeping(from: &Path, to: &Path, top: bool) -> Result<()> {
    let refused = |what: &str| Error::InvalidArgument {
        message: format!(
            "{} is {what}: only files and folders are copied; copy what it points to",
            from.display()
        ),
    };
    let meta = std::fs::symlink_metadata(from)
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    let kept = |e: std::io::Error| Error::io(format!("cannot write {}", to.display()), e);
    if meta.is_file() {
        return copy_whole(from, to, Access::Private, true).map(drop);
    }
    if meta.file_type().is_symlink() {
        return Err(refused("a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refused("neither a file nor a folder"));
    }
    let folder = Folder::make(to, Access::Private)?;
    let entries =
        std::fs::read_dir(from).map_err(|e| Error::io(format!("cannot list {}", from.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("cannot list {}", from.display()), e))?;
        copy_tree_keeping(&entry.path(), &to.join(entry.file_name()), false)?;
    }
    match top {
        true => keep_times(&*folder.fd, &meta).map_err(kept),
        false => keep_metadata(&*folder.fd, &meta).map_err(kept),
    }
}

/// Gives the copy open at `copy` the access and modification times of `source`.
pub(crate) fn keep_times(copy: &impl AsRawFd, source: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let time = |secs: i64, nanos: i64| libc::timespec {
        tv_sec: secs as libc::time_t,
        tv_nsec: nanos as _,
    };
    let times = [
        time(source.atime(), source.atime_nsec()),
        time(source.mtime(), source.mtime_nsec()),
    ];
    // SAFETY: an open descriptor and two timespecs.
    if unsafe { libc::futimens(copy.as_raw_fd(), times.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::TempDir;

    /// Bytes of every value, in an order that repeats at no power of two.
    fn contents(len: usize) -> Vec<u8> {
        (0..len).map(|i| (i * 7 + i / 251) as u8).collect()
    }

    #[test]
    fn a_file_copied_into_a_private_folder_is_the_same_bytes_by_the_kernel_or_by_reads() {
        let dir = TempDir::new("copy-test").unwrap();
        let sizes = [0, 1, 4095, 16 * 1024 - 1, 16 * 1024, 16 * 1024 + 1, 100_003];
        for (i, &len) in sizes.iter().enumerate() {
            let from = dir.path().join(format!("source-{i}"));
            std::fs::write(&from, contents(len)).unwrap();
            for refused in [false, true] {
                let to = dir.path().join(format!("copies-{i}-{refused}"));
                std::fs::create_dir(&to).unwrap();
                let kernel = KernelCopy::default();
                kernel.refused.set(refused);
                let copied = Folder::open(&to)
                    .unwrap()
                    .copy_in(&from, OsStr::new("copy"), &kernel)
                    .unwrap();
                assert_eq!(copied, len as u64, "{len} bytes, kernel refused: {refused}");
                let read = std::fs::read(to.join("copy")).unwrap();
                assert!(read == contents(len), "{len} bytes, kernel refused: {refused}");
            }
        }
    }

    #[test]
    fn a_name_already_taken_in_the_private_folder_is_refused_and_left_alone() {
        let dir = TempDir::new("copy-test").unwrap();
        let from = dir.path().join("source");
        std::fs::write(&from, b"new").unwrap();
        let to = dir.path().join("copies");
        std::fs::create_dir(&to).unwrap();
        std::fs::write(to.join("copy"), b"there before").unwrap();
        let copied = Folder::open(&to)
            .unwrap()
            .copy_in(&from, OsStr::new("copy"), &KernelCopy::default());
        assert!(copied.is_err());
        assert_eq!(std::fs::read(to.join("copy")).unwrap(), b"there before");
    }

    /// Sets `path`'s modification (and access) time to `secs` after the epoch.
    fn dated(path: &Path, secs: u64) {
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let times = std::fs::FileTimes::new().set_accessed(when).set_modified(when);
        File::open(path).unwrap().set_times(times).unwrap();
    }

    fn mode_and_mtime(path: &Path) -> (u32, i64) {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::symlink_metadata(path).unwrap();
        (meta.mode() & 0o7777, meta.mtime())
    }

    #[test]
    fn a_copied_tree_keeps_each_entrys_mode_and_times_and_its_top_stays_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("copy-test").unwrap();
        let from = dir.path().join("project");
        std::fs::create_dir_all(from.join("docs")).unwrap();
        std::fs::write(from.join("run.sh"), "echo hi\n").unwrap();
        std::fs::write(from.join("docs/old.txt"), "old\n").unwrap();
        let set = |path: &str, mode: u32| {
            std::fs::set_permissions(from.join(path), std::fs::Permissions::from_mode(mode)).unwrap()
        };
        set("run.sh", 0o755);
        set("docs/old.txt", 0o444);
        dated(&from.join("run.sh"), 981_158_400);
        dated(&from.join("docs/old.txt"), 981_244_800);
        dated(&from.join("docs"), 981_331_200);
        set("docs", 0o555);
        set(".", 0o755);
        dated(&from, 981_417_600);
        let to = dir.path().join("copy");
        copy_tree(&from, &to).unwrap();
        assert_eq!(mode_and_mtime(&to.join("run.sh")), (0o755, 981_158_400));
        assert_eq!(mode_and_mtime(&to.join("docs/old.txt")), (0o444, 981_244_800));
        // A folder the owner could not write in stays one the owner can empty.
        assert_eq!(mode_and_mtime(&to.join("docs")), (0o755, 981_331_200));
        // The top holds what may be the user's alone: private, with the source's times.
        assert_eq!(mode_and_mtime(&to), (0o700, 981_417_600));
        set("docs", 0o755);
        // A set-user bit is not carried; a file the owner could not read is readable.
        set("run.sh", 0o4711);
        set("docs/old.txt", 0o044);
        let again = dir.path().join("again");
        copy_tree(&from, &again).unwrap();
        assert_eq!(mode_and_mtime(&again.join("run.sh")).0, 0o711);
        assert_eq!(mode_and_mtime(&again.join("docs/old.txt")).0, 0o444);
    }

    #[test]
    fn a_file_copied_into_a_private_folder_keeps_its_mode_and_times() {
        use std::os::unix::fs::PermissionsExt;
        let dir = TempDir::new("copy-test").unwrap();
        let from = dir.path().join("tool");
        std::fs::write(&from, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&from, std::fs::Permissions::from_mode(0o750)).unwrap();
        dated(&from, 981_158_400);
        let to = dir.path().join("store");
        std::fs::create_dir(&to).unwrap();
        Folder::open(&to)
            .unwrap()
            .copy_in(&from, OsStr::new("tool"), &KernelCopy::default())
            .unwrap();
        assert_eq!(mode_and_mtime(&to.join("tool")), (0o750, 981_158_400));
    }
}
