//! Helpers every benchmark shares: medians, timing loops, resident memory, and a tmux
//! runner for the baselines. The CLI's benches include this file by path.

#![allow(dead_code)]

use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// The median of some durations.
pub fn median(mut v: Vec<Duration>) -> Duration {
    assert!(!v.is_empty(), "no samples");
    v.sort();
    v[v.len() / 2]
}

/// The median and the 90th percentile of some numbers.
pub fn median_p90(mut v: Vec<f64>) -> (f64, f64) {
    assert!(!v.is_empty(), "no samples");
    v.sort_by(|a, b| a.total_cmp(b));
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

/// The median time of `runs` calls of `f`.
pub fn time(runs: usize, mut f: impl FnMut()) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect(),
    )
}

/// Milliseconds, for printing.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A `/proc/PID/status` field in KiB (`VmRSS`, `VmHWM`); `pid` `None` for this process.
pub fn status_kib(pid: Option<i64>, field: &str) -> u64 {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/status"),
        None => "/proc/self/status".to_string(),
    };
    let status = std::fs::read_to_string(path).unwrap_or_default();
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(field)?
                .trim_start_matches(':')
                .trim()
                .strip_suffix(" kB")?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

/// tmux on a private server socket with no configuration: the baseline for the agent loop.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A tmux server named after this process, so parallel runs do not meet.
    pub fn new(tag: &str) -> Tmux {
        Tmux {
            socket: format!("tp{tag}-{}", std::process::id()),
        }
    }

    /// The arguments that select this server (for timing a bare command).
    pub fn args(&self) -> [&str; 2] {
        ["-L", &self.socket]
    }

    /// Starts `command` in a detached 80x24 session called `name`.
    pub fn new_session(&self, name: &str, command: &str) -> Output {
        self.run(&["new-session", "-d", "-x", "80", "-y", "24", "-s", name, command])
    }

    /// Runs a tmux command on this server and asserts it succeeded.
    pub fn run(&self, args: &[&str]) -> Output {
        let out = Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("running tmux");
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

/// Runs the `tuipilot` binary at `bin` with `TUIPILOT_DIR=dir`; its output, or the
/// command and its stderr when it fails. The CLI's benches pass
/// `env!("CARGO_BIN_EXE_tuipilot")`.
pub fn tuipilot_in(bin: &str, dir: &str, args: &[&str]) -> Result<Output, String> {
    let out = Command::new(bin)
        .args(args)
        .env("TUIPILOT_DIR", dir)
        .output()
        .map_err(|e| format!("running {bin}: {e}"))?;
    if out.status.success() {
        Ok(out)
    } else {
        Err(format!(
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Runs `command` to its end and returns whether it succeeded, its peak resident memory
/// (KiB, the kernel's `ru_maxrss` for that one child) and how long it took.
///
/// A child spawned by `vfork` shares this process's memory until it execs, and the kernel
/// carries that memory's high-water mark into the child's `ru_maxrss`: this process's own
/// peak (a large cast it built, say) would be counted as the child's. The mark is reset to
/// the current size first, so the child's figure includes only what this process holds
/// now (a few MB, the same for every measurement).
pub fn peak_memory_of(command: &mut Command) -> (bool, u64, Duration) {
    std::fs::write("/proc/self/clear_refs", "5").expect("resetting this process's peak memory");
    let start = Instant::now();
    let child = command.spawn().expect("the command starts");
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our child, not yet waited for; the pointers are to live locals.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "waiting for {command:?}");
    let elapsed = start.elapsed();
    // The child is reaped: dropping the handle must not wait again.
    std::mem::forget(child);
    let success = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (success, usage.ru_maxrss as u64, elapsed)
}

/// Writes `total` bytes (about) of 120-column lines with four colour changes each — bold
/// red numbers, green, a 256-colour and a true-colour background — to `path`: the stream
/// the throughput and parse benchmarks read.
pub fn write_sgr_lines(path: &std::path::Path, total: usize) {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let mut written = 0;
    let mut n = 0u64;
    while written < total {
        let line = format!(
            "\x1b[1;31m{n:>10}\x1b[0m \x1b[32m{:<49}\x1b[0m \x1b[38;5;208m{:<29}\x1b[0m \x1b[48;2;20;40;80m{:<28}\x1b[0m\r\n",
            "the quick brown fox jumps over the lazy dog",
            "0123456789abcdefghijklmnopq",
            "colour and attributes",
        );
        out.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    out.flush().unwrap();
}
