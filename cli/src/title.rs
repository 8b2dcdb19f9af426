//! The process title a forked host shows in `ps`: its role and session name, never the
//! command line it was forked from.
//!
//! The host is forked from `tuipilot start …`, so without this its `/proc/PID/cmdline`
//! would be the CLI's — including every `--env KEY=VALUE`, readable by every local user
//! for the session's life. Linux reads the command line from the memory of the original
//! argument strings, so the host overwrites them (what `setproctitle` does). glibc hands
//! `argc`/`argv` to every `.init_array` function; [`capture`] keeps them.

use std::ffi::{c_char, c_int};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

static ARGC: AtomicUsize = AtomicUsize::new(0);
static ARGV: AtomicPtr<*mut c_char> = AtomicPtr::new(std::ptr::null_mut());

/// Runs before `main` (glibc passes `argc, argv, envp` to `.init_array` entries).
extern "C" fn capture(argc: c_int, argv: *mut *mut c_char, _envp: *mut *mut c_char) {
    ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

#[used]
#[unsafe(link_section = ".init_array")]
static CAPTURE: extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) = capture;

/// Replaces the process's command line with `title` (cut to the space the original
/// arguments took). Call it only where nothing reads the original arguments any more:
/// the standard library's `std::env::args` would see the new title.
pub fn set(title: &str) {
    let argc = ARGC.load(Ordering::Relaxed);
    let argv = ARGV.load(Ordering::Relaxed);
    if argc == 0 || argv.is_null() {
        return;
    }
    // SAFETY: `argv` is the array glibc passed to the init function: `argc` pointers to
    // NUL-terminated strings that the kernel laid out one after another, and that stay
    // valid (and writable) for the life of the process.
    unsafe {
        let first = *argv;
        let last = *argv.add(argc - 1);
        if first.is_null() || last.is_null() {
            return;
        }
        let end = last.add(libc::strlen(last));
        let Ok(span) = usize::try_from(end.offset_from(first)) else {
            return;
        };
        // Keep the final NUL where it was, so the kernel stops there.
        std::ptr::write_bytes(first, 0, span);
        let bytes = title.as_bytes();
        let n = bytes.len().min(span);
        std::ptr::copy_nonoverlapping(bytes.as_ptr().cast::<c_char>(), first, n);
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn arguments_are_captured_before_main() {
        assert!(super::ARGC.load(std::sync::atomic::Ordering::Relaxed) >= 1);
        assert!(!super::ARGV.load(std::sync::atomic::Ordering::Relaxed).is_null());
    }
}
