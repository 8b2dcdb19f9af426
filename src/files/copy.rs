//! Copies: a plain file whole, a folder with everything in it, and a file into a folder
//! only this process writes in (a world's store). What is copied is opened without
//! following a link and without waiting on a FIFO, and refused when it is not a plain
//! file: something may have been put in its place since the caller looked.

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
    let mut source = open_plain(from)?;
    let (folder, name) = Folder::containing(to)?;
    let mut file = folder.create(&name, access)?;
    std::io::copy(&mut source, &mut file)
        .map_err(|e| Error::io(format!("cannot write {}", to.display()), e))?;
    file.commit()
}

/// Opens the plain file `from` for reading, without following a link and without waiting
/// on a FIFO; refused when it is not a plain file.
fn open_plain(from: &Path) -> Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let source = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(from)
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    let plain = source
        .metadata()
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?
        .is_file();
    if !plain {
        return Err(Error::RefusedPath {
            path: from.to_path_buf(),
            why: "it is not a plain file".into(),
        });
    }
    Ok(source)
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
    /// put anything at the name — `O_EXCL` refuses the name if anything is there. What a
    /// failed copy wrote is removed.
    pub(crate) fn copy_in(&self, from: &Path, name: &OsStr, kernel: &KernelCopy) -> Result<u64> {
        let mut source = open_plain(from)?;
        let c_name = component(name)?;
        let mut file = self
            .open_new(&c_name, Access::Private)
            .map_err(|e| Error::io(format!("cannot write {}", self.path.join(name).display()), e))?;
        copy_contents(&mut source, &mut file, kernel).map_err(|e| {
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
/// not exist yet (the mode of each file is the user's alone). A link, FIFO or device
/// anywhere in it is refused by name: a copy follows nothing and waits on nothing.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let refused = |what: &str| Error::InvalidArgument {
        message: format!(
            "{} is {what}: only files and folders are copied; copy what it points to",
            from.display()
        ),
    };
    let meta = std::fs::symlink_metadata(from)
        .map_err(|e| Error::io(format!("cannot read {}", from.display()), e))?;
    if meta.is_file() {
        return copy_file(from, to, Access::Private).map(drop);
    }
    if meta.file_type().is_symlink() {
        return Err(refused("a symbolic link"));
    }
    if !meta.is_dir() {
        return Err(refused("neither a file nor a folder"));
    }
    Folder::make(to, Access::Private)?;
    let entries =
        std::fs::read_dir(from).map_err(|e| Error::io(format!("cannot list {}", from.display()), e))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(format!("cannot list {}", from.display()), e))?;
        copy_tree(&entry.path(), &to.join(entry.file_name()))?;
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
}
