//! The temporary files and directories that exist now, listed so that an interrupted
//! command can remove them: every signal that ends a process by default and that a user
//! or a closing terminal sends — SIGINT, SIGTERM, SIGHUP (a terminal closed), SIGQUIT,
//! SIGPIPE — reaches a handler that only writes the signal's number into a pipe (all a
//! handler may safely do); a thread reads it, ends the programs the process started
//! (`process::end_live_sessions`: a program that ignores the hang-up would outlive it),
//! removes what is listed and lets the signal end the process as it would have. A signal
//! the process ignores stays ignored: Rust's runtime ignores SIGPIPE, so there a write to a
//! closed pipe fails instead, and the command ends the ordinary way, removing its files as
//! it goes.

use std::fs::File;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::Mutex;

use crate::error::{Error, Result};

/// Something temporary that an interrupted command removes.
#[derive(Debug)]
pub(super) enum Temporary {
    File(PathBuf),
    Dir(PathBuf),
}

/// The temporary files and directories that exist now, by a number of their own.
pub(super) struct Temporaries;

static TEMPORARIES: Mutex<Vec<(u64, Temporary)>> = Mutex::new(Vec::new());

impl Temporaries {
    pub(super) fn add(temporary: Temporary) -> u64 {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        TEMPORARIES
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((id, temporary));
        id
    }

    pub(super) fn remove(id: u64) {
        TEMPORARIES
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(i, _)| *i != id);
    }

    /// Removes every temporary that exists now.
    fn remove_all() {
        let all = std::mem::take(&mut *TEMPORARIES.lock().unwrap_or_else(|p| p.into_inner()));
        for (_, temporary) in all {
            let _ = match temporary {
                Temporary::File(path) => std::fs::remove_file(path),
                Temporary::Dir(path) => std::fs::remove_dir_all(path),
            };
        }
    }
}

/// What else runs when a signal ends the process, before the temporaries go: a program's
/// own files that are not temporaries of this module (a host's socket and lock).
type Hook = Box<dyn Fn() + Send>;
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

/// Runs `hook` when one of the signals [`remove_temporaries_on_signal`] handles ends the
/// process (once it is installed), before the temporaries are removed: for files a
/// program removes itself on a normal exit, which a signal would otherwise leave behind.
pub fn on_signal_also(hook: impl Fn() + Send + 'static) {
    HOOKS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push(Box::new(hook));
}

/// The write end of the pipe the signal handler writes the signal's number into.
static SIGNAL_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// The signals after which an interrupted command removes its temporaries.
const CLEANUP_SIGNALS: [libc::c_int; 5] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGPIPE,
];

/// Makes SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE end the programs this process
/// started and remove its temporary files and directories before it dies of the signal, as
/// it would have.
///
/// For programs (the command line): a library never takes over a process's signals on
/// its own. A signal the process ignores stays ignored. Starts a thread: call it after
/// any `fork` that must happen without threads. Calling it again does nothing.
pub fn remove_temporaries_on_signal() -> Result<()> {
    static INSTALLED: std::sync::OnceLock<std::result::Result<(), String>> = std::sync::OnceLock::new();
    INSTALLED
        .get_or_init(install_signal_cleanup)
        .clone()
        .map_err(|message| Error::io(message, std::io::Error::other("signal handling")))
}

fn install_signal_cleanup() -> std::result::Result<(), String> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills two descriptors; close-on-exec keeps them out of programs.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(format!(
            "creating the signal pipe: {}",
            std::io::Error::last_os_error()
        ));
    }
    // SAFETY: both descriptors were just created; the read end is owned by the thread.
    let reader = File::from(unsafe { OwnedFd::from_raw_fd(fds[0]) });
    SIGNAL_PIPE.store(fds[1], std::sync::atomic::Ordering::SeqCst);
    std::thread::Builder::new()
        .name("tuipilot-signals".into())
        .spawn(move || {
            use std::io::Read;
            let mut reader = reader;
            let mut signal = [0u8; 1];
            if reader.read_exact(&mut signal).is_ok() {
                // The programs first: a program ignoring the hang-up would outlive the
                // process, and an isolated one may still be using its temporary HOME.
                crate::process::end_live_sessions();
                for hook in HOOKS.lock().unwrap_or_else(|p| p.into_inner()).iter() {
                    hook();
                }
                Temporaries::remove_all();
                let signal = libc::c_int::from(signal[0]);
                // SAFETY: back to the default action, then the signal again: the process
                // ends as the signal would have ended it.
                unsafe {
                    libc::signal(signal, libc::SIG_DFL);
                    libc::raise(signal);
                }
            }
        })
        .map_err(|e| format!("starting the signal thread: {e}"))?;
    for signal in CLEANUP_SIGNALS {
        // SAFETY: `action` is plain data; sigaction reads the new and fills the old.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            if libc::sigaction(signal, std::ptr::null(), &mut old) == 0 && old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = on_signal as *const () as libc::sighandler_t;
            action.sa_flags = libc::SA_RESTART;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
    Ok(())
}

/// Set by the handler when a handled signal arrives: the process is ending by it.
static ENDING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// If a signal that [`remove_temporaries_on_signal`] handles has arrived, waits for its
/// cleanup to end the process by that signal (up to 30 s), and returns at once otherwise.
///
/// The cleanup ends the process's programs first, so a command waiting on one sees it end
/// and would report that as its own failure and exit with its own code, before the signal
/// could end it: a command calls this before it reports a failure and exits, so that it
/// dies of the signal, as its caller expects, and says nothing.
pub fn await_end_by_signal() {
    if !ENDING.load(std::sync::atomic::Ordering::SeqCst) {
        return;
    }
    // The cleanup thread raises the signal, which ends the process during this sleep.
    std::thread::sleep(std::time::Duration::from_secs(30));
}

/// The handler: an atomic store and `write`, both async-signal-safe; the thread does the
/// rest.
extern "C" fn on_signal(signal: libc::c_int) {
    ENDING.store(true, std::sync::atomic::Ordering::SeqCst);
    let fd = SIGNAL_PIPE.load(std::sync::atomic::Ordering::SeqCst);
    let byte = signal as u8;
    // SAFETY: writes one byte from a live stack variable to a descriptor or fails.
    unsafe { libc::write(fd, (&raw const byte).cast(), 1) };
}
