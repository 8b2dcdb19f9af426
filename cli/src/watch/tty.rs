//! The person's terminal while a live view runs in it: raw mode, the alternate screen,
//! its size and resizes, and putting everything back.
//!
//! [`PersonTerminal::take`] saves the terminal's settings, switches to raw mode and the
//! alternate screen, and arranges for them to be restored on every way out: dropping it,
//! and any signal that ends the process (through the library's signal cleanup, which runs
//! hooks before letting the signal end the process). Resizes arrive as SIGWINCH, which a
//! handler turns into a byte on a pipe the view polls.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::sync::atomic::{AtomicI32, Ordering};

use crate::error::Failure;

/// What leaving writes: every mode a view may have set, off; the style reset; the cursor
/// shown; the alternate screen left (the person's own screen comes back as it was).
const RESTORE: &[u8] =
    b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[0m\x1b[?25h\x1b[?1049l";

/// The settings to restore, for the signal hook (which cannot reach the view's value).
static SAVED: Mutex<Option<libc::termios>> = Mutex::new(None);

/// The write end of the resize pipe.
static RESIZE_PIPE: AtomicI32 = AtomicI32::new(-1);

/// The person's terminal, in raw mode and on the alternate screen while this lives.
pub struct PersonTerminal {
    /// Readable (one byte per SIGWINCH) when the terminal was resized.
    resized: OwnedFd,
}

fn restore(saved: &libc::termios) {
    // SAFETY: writes a static buffer to stdout and sets stdin's saved settings back.
    unsafe {
        libc::write(1, RESTORE.as_ptr().cast(), RESTORE.len());
        libc::tcsetattr(0, libc::TCSAFLUSH, saved);
    }
}

impl PersonTerminal {
    /// Takes over the terminal on stdin and stdout; an error when either is not one.
    pub fn take() -> Result<PersonTerminal, Failure> {
        // SAFETY: isatty only reads the descriptors.
        if unsafe { libc::isatty(0) != 1 || libc::isatty(1) != 1 } {
            return Err(Failure::bad_request(
                "a live view needs a terminal: run it in one (stdin and stdout must both be a terminal)",
            ));
        }
        // SAFETY: termios is plain data; all zeroes is a valid value to fill.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: tcgetattr fills `saved`.
        if unsafe { libc::tcgetattr(0, &mut saved) } != 0 {
            return Err(Failure::internal(format!(
                "reading the terminal's settings: {}",
                std::io::Error::last_os_error()
            )));
        }
        let mut fds = [0; 2];
        // SAFETY: pipe2 fills two descriptors.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC | libc::O_NONBLOCK) } != 0 {
            return Err(Failure::internal(format!(
                "creating the resize pipe: {}",
                std::io::Error::last_os_error()
            )));
        }
        // SAFETY: both were just created and are owned here (the write end for the life of
        // the process: a handler may still write to it).
        let resized = unsafe { OwnedFd::from_raw_fd(fds[0]) };
        RESIZE_PIPE.store(fds[1], Ordering::SeqCst);
        *SAVED.lock().unwrap_or_else(|p| p.into_inner()) = Some(saved);
        tuipilot::files::remove_temporaries_on_signal()?;
        tuipilot::files::on_signal_also(|| {
            if let Some(saved) = SAVED.lock().unwrap_or_else(|p| p.into_inner()).take() {
                restore(&saved);
            }
        });
        // SAFETY: the handler only writes one byte; the structure is plain data.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_resize as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGWINCH, &action, std::ptr::null_mut());
        }
        let mut raw = saved;
        // SAFETY: cfmakeraw edits the copy; tcsetattr applies it.
        unsafe {
            libc::cfmakeraw(&mut raw);
            libc::tcsetattr(0, libc::TCSAFLUSH, &raw);
        }
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(b"\x1b[?1049h\x1b[?25l\x1b[0m\x1b[2J");
        let _ = out.flush();
        Ok(PersonTerminal { resized })
    }

    /// The terminal's size, `(cols, rows)` (80×24 where it cannot be read).
    pub fn size(&self) -> (u16, u16) {
        // SAFETY: winsize is plain data; all zeroes is a valid value to fill.
        let mut size: libc::winsize = unsafe { std::mem::zeroed() };
        // SAFETY: TIOCGWINSZ fills `size`.
        let ok = unsafe { libc::ioctl(1, libc::TIOCGWINSZ, &mut size) } == 0;
        match ok && size.ws_col > 0 && size.ws_row > 0 {
            true => (size.ws_col, size.ws_row),
            false => (80, 24),
        }
    }

    /// The descriptor that is readable after a resize.
    pub fn resize_fd(&self) -> RawFd {
        self.resized.as_raw_fd()
    }

    /// Empties the resize pipe after a resize was seen.
    pub fn take_resizes(&self) {
        let mut buf = [0u8; 64];
        // SAFETY: reads into a live buffer from a non-blocking pipe until it is empty.
        while unsafe { libc::read(self.resized.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) } > 0 {}
    }
}

impl Drop for PersonTerminal {
    fn drop(&mut self) {
        if let Some(saved) = SAVED.lock().unwrap_or_else(|p| p.into_inner()).take() {
            restore(&saved);
        }
        // SAFETY: back to the default action for SIGWINCH.
        unsafe { libc::signal(libc::SIGWINCH, libc::SIG_DFL) };
    }
}

/// SIGWINCH: one byte on the resize pipe (all a handler may safely do).
extern "C" fn on_resize(_: libc::c_int) {
    let fd = RESIZE_PIPE.load(Ordering::SeqCst);
    let byte = 1u8;
    // SAFETY: writes one byte from a live stack variable, or fails (a full pipe is fine).
    unsafe { libc::write(fd, (&raw const byte).cast(), 1) };
}
