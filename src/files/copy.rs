//! Copies: a plain file whole, a folder with everything in it, and a file into a folder
//! only this process writes in (a world's store). What is copied is opened without
//! following a link and without waiting on a FIFO, and refused when it is not a plain
//! file: something may have been put in its place since the caller looked.

use std::ffi::OsStr;
use std::fs::File;
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

impl Folder {
    /// Copies the plain file `from` (as [`copy_file`] opens it) to `name` in this folder,
    /// private, written in place: for a folder only this process writes in (a fresh
    /// [`TempDir`] of its own), where no one can be looking at a half-written file or have
    /// put anything at the name — `O_EXCL` refuses the name if anything is there. What a
    /// failed copy wrote is removed.
    pub(crate) fn copy_in(&self, from: &Path, name: &OsStr) -> Result<u64> {
        let mut source = open_plain(from)?;
        let c_name = component(name)?;
        let mut file = self
            .open_new(&c_name, Access::Private)
            .map_err(|e| Error::io(format!("cannot write {}", self.path.join(name).display()), e))?;
        copy_contents(&mut source, &mut file).map_err(|e| {
            // SAFETY: a valid descriptor and C string.
            unsafe { libc::unlinkat(self.fd.as_raw_fd(), c_name.as_ptr(), 0) };
            Error::io(format!("cannot write {}", self.path.join(name).display()), e)
        })
    }
}

/// Copies what is left of `source` to `to`: in the kernel (`copy_file_range`) until the
/// source's end, by `std::io::copy` where the kernel cannot (another file system on an
/// old kernel, a file system without it). `std::io::copy` asks both files' metadata
/// first, two `statx` calls a file that a world of small files pays for in full. Made as a
/// system call, not through glibc's wrapper (2.27): the Python wheel promises glibc 2.17.
fn copy_contents(source: &mut File, to: &mut File) -> std::io::Result<u64> {
    let mut copied = 0u64;
    loop {
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
                return match e.raw_os_error() {
                    Some(libc::EXDEV | libc::ENOSYS | libc::EINVAL | libc::EOPNOTSUPP | libc::EPERM) => {
                        std::io::copy(source, to).map(|n| copied + n)
                    }
                    Some(libc::EINTR) => continue,
                    _ => Err(e),
                };
            }
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
