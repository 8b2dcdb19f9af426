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
#[cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]
extern "C" fn capture(argc: c_int, argv: *mut *mut c_char, _envp: *mut *mut c_char) {
    ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
    ARGV.store(argv, Ordering::Relaxed);
}

// glibc alone passes the arguments to `.init_array` functions; musl calls them with none, so
// elsewhere `capture` would read whatever its argument registers held. Elsewhere nothing is
// captured and the title and hidden values are left as they are (see the guide's "Other
// platforms").
#[cfg(all(target_os = "linux", target_env = "gnu"))]
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

/// Overwrites with `*` the value of every `--env KEY=VALUE` (and `--env=KEY=VALUE`) in
/// the process's command line, so that other local users reading `/proc/PID/cmdline`
/// see only the names. Call it once the arguments have been parsed (they are copies).
pub fn hide_env_values() {
    let argc = ARGC.load(Ordering::Relaxed);
    let argv = ARGV.load(Ordering::Relaxed);
    if argc == 0 || argv.is_null() {
        return;
    }
    let mut value_next = false;
    for i in 0..argc {
        // SAFETY: `argv` holds `argc` pointers to NUL-terminated strings that stay valid
        // and writable for the life of the process (see `set`).
        unsafe {
            let arg = *argv.add(i);
            if arg.is_null() {
                continue;
            }
            let len = libc::strlen(arg);
            let bytes = std::slice::from_raw_parts_mut(arg.cast::<u8>(), len);
            let value_at = if value_next {
                Some(0)
            } else {
                bytes.starts_with(b"--env=").then_some(b"--env=".len())
            };
            let (is_flag, is_end) = (bytes == b"--env", bytes == b"--");
            if let Some(at) = value_at
                && let Some(eq) = bytes[at..].iter().position(|&b| b == b'=')
            {
                bytes[at + eq + 1..].fill(b'*');
            }
            value_next = is_flag && !value_next;
            if is_end && !value_next {
                // The program's own arguments follow: not ours to change.
                break;
            }
        }
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    #[test]
    fn arguments_are_captured_before_main() {
        assert!(super::ARGC.load(std::sync::atomic::Ordering::Relaxed) >= 1);
        assert!(!super::ARGV.load(std::sync::atomic::Ordering::Relaxed).is_null());
    }
}
