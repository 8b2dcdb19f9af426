//! What the command-line tests share: a private runtime directory per test and ways to
//! run the real `tuipilot` binary in it.

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// A private runtime directory; on drop, every session in it is ended and it is removed.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new() -> Dir {
        static N: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // Short: socket paths must fit in 108 bytes.
        let dir = PathBuf::from(format!("/tmp/tpcli-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        Dir(dir)
    }

    /// Runs `tuipilot ARGS` with the signals a test sends at their default action: a host
    /// it starts keeps them so, even when the suite runs under `nohup` or as a background
    /// job (SIGHUP, or SIGINT and SIGQUIT, ignored).
    pub fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(args)
            .signals_at_default()
            .env("TUIPILOT_DIR", &self.0)
            .output()
            .expect("running tuipilot")
    }

    /// Runs and asserts the exit code; returns stdout.
    pub fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}{}",
            text(&out.stdout),
            text(&out.stderr)
        );
        text(&out.stdout)
    }

    pub fn json(&self, args: &[&str]) -> Value {
        serde_json::from_str(&self.ok(args)).expect("JSON output")
    }

    pub fn socket(&self, name: &str) -> PathBuf {
        self.0.join(format!("{name}.sock"))
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        for entry in std::fs::read_dir(&self.0).into_iter().flatten().flatten() {
            if let Some(name) = entry.file_name().to_str().and_then(|n| n.strip_suffix(".sock")) {
                let _ = self.run(&["exit", "-s", name, "--timeout-ms", "2000"]);
            }
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

pub fn start_bash(dir: &Dir, name: &str) {
    dir.ok(&[
        "start",
        "-s",
        name,
        "--env",
        "PS1=$ ",
        "--env",
        "HISTFILE=/dev/null",
        "--",
        "bash",
        "--norc",
        "--noprofile",
    ]);
    dir.ok(&["capture", "-s", name, "--wait", r"^\$$"]);
}

/// Starts session `name` with `--isolated` (a fresh temporary HOME) running a shell that
/// prints its HOME and waits; that HOME.
pub fn start_isolated(dir: &Dir, name: &str) -> PathBuf {
    dir.ok(&[
        "start",
        "-s",
        name,
        "--isolated",
        "--",
        "sh",
        "-c",
        "echo \"home=$HOME\"; read x",
    ]);
    let screen = dir.ok(&["capture", "-s", name, "--wait", "^home=/"]);
    let home = screen
        .lines()
        .find_map(|l| l.strip_prefix("home="))
        .map(|h| PathBuf::from(h.trim_end()))
        .expect("HOME printed");
    assert!(home.is_dir(), "{}", home.display());
    home
}

impl Dir {
    /// A folder for a test's own files inside the runtime directory (made private first,
    /// as the host demands of its runtime directory).
    pub fn work(&self) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let work = self.0.join("work");
        std::fs::create_dir_all(&work).unwrap();
        std::fs::set_permissions(&self.0, std::fs::Permissions::from_mode(0o700)).unwrap();
        work
    }

    /// Runs `tuipilot ARGS` from the folder `cwd`, with `CI` unset (tapes may write
    /// snapshots).
    pub fn run_in(&self, cwd: &std::path::Path, args: &[&str]) -> Output {
        self.run_in_with(cwd, &[], args)
    }

    /// [`run_in`](Self::run_in) with `env` set for tuipilot (and so for a session's host
    /// and its program).
    pub fn run_in_with(
        &self,
        cwd: &std::path::Path,
        env: &[(&str, &std::path::Path)],
        args: &[&str],
    ) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(args)
            .signals_at_default()
            .current_dir(cwd)
            .env("TUIPILOT_DIR", &self.0)
            .env_remove("CI")
            .envs(env.iter().copied())
            .output()
            .expect("running tuipilot")
    }

    /// Starts `tuipilot ARGS` in the background (a client that may be killed mid-request),
    /// with the signals a test sends at their default action.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(args)
            .signals_at_default()
            .env("TUIPILOT_DIR", &self.0)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("running tuipilot")
    }

    /// The session's row of `list --json` (its `info`).
    pub fn info(&self, name: &str) -> Value {
        let rows = self.json(&["list", "--json"]);
        rows.as_array()
            .and_then(|rows| rows.iter().find(|r| r["session"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("session {name} is not listed: {rows}"))
    }
}

/// Polls `condition` until it holds or `limit` passes; says whether it held. For
/// conditions outside any session (processes, files), checked every 20 ms.
pub fn eventually(limit: std::time::Duration, mut condition: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if condition() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Sends `signal` (`HUP`, `TERM`…) to a command and checks it died of it.
pub fn dies_of(mut child: std::process::Child, signal: &str) {
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let ended = child.wait().unwrap();
    assert!(
        std::os::unix::process::ExitStatusExt::signal(&ended).is_some(),
        "SIG{signal}: the command dies of the signal: {ended:?}"
    );
}

/// Runs the tape `name` from `work` and asserts that it passed and that `canary` was never
/// made (a command held in the program's arguments did not run); returns the tape's source.
pub fn replays_and_runs_nothing(
    dir: &Dir,
    work: &std::path::Path,
    name: &str,
    canary: &std::path::Path,
) -> String {
    let source = std::fs::read_to_string(work.join(name)).unwrap();
    let out = dir.run_in(work, &["run", name]);
    assert!(
        !canary.exists(),
        "the replay ran a command held in the program's argument:\n{source}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "the export replays:\n{source}\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    source
}

/// Starts `tuipilot ARGS` in `cwd` as the program of session `name`: a person's terminal
/// of `cols`×`rows`, in which `attach` or `record` runs.
pub fn person_in(dir: &Dir, cwd: &std::path::Path, name: &str, (cols, rows): (u16, u16), args: &[&str]) {
    let runtime = format!("TUIPILOT_DIR={}", dir.0.display());
    let size = [cols.to_string(), rows.to_string()];
    let mut command = vec![
        "start",
        "-s",
        name,
        "--cols",
        &size[0],
        "--rows",
        &size[1],
        "--env",
        &runtime,
        "--",
        env!("CARGO_BIN_EXE_tuipilot"),
    ];
    command.extend_from_slice(args);
    let out = dir.run_in(cwd, &command);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
}

/// Runs the tape three times from its folder, with nothing of the session's environment
/// (and `CI` unset); each run must pass.
pub fn replays_three_times(dir: &Dir, tape: &std::path::Path) {
    let source = std::fs::read_to_string(tape).unwrap();
    for run in 1..=3 {
        let out = dir.run_in(tape.parent().unwrap(), &["run", &tape.to_string_lossy()]);
        assert!(
            out.status.success(),
            "replay {run} of {}:\n{source}\n{}{}",
            tape.display(),
            text(&out.stdout),
            text(&out.stderr)
        );
    }
}

/// Starts session `name` running `sh -c SCRIPT`.
pub fn start_sh(dir: &Dir, name: &str, script: &str) {
    dir.ok(&["start", "-s", name, "--", "sh", "-c", script]);
}

/// Gives a child the default action for the signals a test sends it. A test run as a
/// background job (`cargo test &` in a script) inherits SIGINT and SIGQUIT ignored, and a
/// command keeps a signal ignored that it was started with (as a shell does): a test of
/// what a signal does must start its command with the signal's default, as a terminal's
/// foreground job has it.
pub trait SignalsAtDefault {
    /// SIGINT, SIGQUIT, SIGHUP and SIGTERM at their default action in the child.
    fn signals_at_default(&mut self) -> &mut Self;
}

impl SignalsAtDefault for Command {
    fn signals_at_default(&mut self) -> &mut Self {
        use std::os::unix::process::CommandExt;
        // SAFETY: between fork and exec the closure only calls signal(2), which is
        // async-signal-safe, on the child's own dispositions.
        unsafe {
            self.pre_exec(|| {
                for signal in [libc::SIGINT, libc::SIGQUIT, libc::SIGHUP, libc::SIGTERM] {
                    libc::signal(signal, libc::SIG_DFL);
                }
                Ok(())
            })
        }
    }
}

/// Starts `tuipilot ARGS` as the program of session `name` (the person's terminal),
/// `cols`×`rows`, in this test's folder.
pub fn person(dir: &Dir, name: &str, cols: u16, rows: u16, args: &[&str]) {
    person_in(dir, std::path::Path::new("."), name, (cols, rows), args);
}

/// The screen of session `name` as JSON, once `re` is on it.
pub fn screen_with(dir: &Dir, name: &str, re: &str) -> Value {
    dir.json(&["capture", "-s", name, "--wait", re, "--json"])
}

/// The status line: the last row of the person's terminal.
pub fn status(screen: &Value) -> String {
    screen["text"]
        .as_str()
        .unwrap_or("")
        .lines()
        .last()
        .unwrap_or("")
        .to_string()
}

/// bash without rc files, its prompt `$ `, keeping no history: what a recording records.
pub const BASH: &[&str] = &[
    "env",
    "PS1=$ ",
    "HISTFILE=/dev/null",
    "bash",
    "--norc",
    "--noprofile",
];
