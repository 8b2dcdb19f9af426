//! Helpers shared by the integration tests: fixture paths and optional programs.

#![allow(dead_code)]

pub mod reactions;
pub mod rustc;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use tuipilot::{Session, SessionBuilder};

/// The path of a fixture program from `fixtures/` (built as a cargo example).
///
/// `cargo test` builds examples before running tests, but `cargo test --test NAME` does
/// not, and a stale fixture would test old code: so each test process brings them up
/// to date once (a no-op when nothing changed).
pub fn fixture(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    // target/<profile>/deps/<test> → target/<profile>/examples/<name>
    let examples = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("examples"))
        .expect("target directory layout");
    let path = examples.join(name);
    {
        static BUILT: OnceLock<()> = OnceLock::new();
        BUILT.get_or_init(|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = std::process::Command::new(cargo)
                .args(["build", "-p", "tuipilot", "--examples", "--quiet"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("running cargo build --examples");
            assert!(status.success(), "building the fixtures failed");
        });
    }
    assert!(path.exists(), "fixture {} missing at {}", name, path.display());
    path
}

/// A builder for a fixture program.
pub fn fixture_session(name: &str) -> SessionBuilder {
    Session::builder(fixture(name)).timeout(Duration::from_secs(20))
}

/// Whether `program` is on PATH. (A test that needs an optional program is built ignored
/// where it is missing: `#[needs(NAME)]` above `#[test]`, see `tests/testenv`.)
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// `sh -c SCRIPT`, started with a generous timeout.
pub fn sh(script: &str) -> Session {
    Session::builder("sh")
        .args(["-c", script])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap()
}

/// An interactive bash with no user configuration and a fixed prompt.
pub fn bash() -> SessionBuilder {
    Session::builder("bash")
        .args(["--norc", "--noprofile", "-i"])
        .env("PS1", "$ ")
        .env("HISTFILE", "/dev/null")
        .timeout(Duration::from_secs(20))
}

/// A fresh temporary directory, removed on drop.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("tuipilot-test-{tag}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("creating a temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A folder of this test's own for GNU screen's sockets (`SCREENDIR`, which screen wants
/// private: mode 0700), so tests never meet in the shared one.
pub fn screen_dir() -> TempDir {
    let dir = TempDir::new("screen-dir");
    std::fs::set_permissions(&dir.0, std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .expect("making the screen folder private");
    dir
}

/// Asserts that nothing is left of the session `sid` once its Session has ended.
pub fn assert_session_gone(sid: i32) {
    assert!(
        !tuipilot::process::session_alive(sid),
        "processes of session {sid} are still running"
    );
}

/// Waits (on a pidfd, no polling) until process `pid` has exited; false on timeout.
/// A pid that no longer exists counts as exited.
pub fn wait_for_pid_exit(pid: i32, timeout: Duration) -> bool {
    // SAFETY: pidfd_open takes a pid and flags and returns a descriptor or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as i32;
    if fd < 0 {
        return true;
    }
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd; the descriptor is closed right after.
    let ready = unsafe { libc::poll(&mut pfd, 1, timeout.as_millis() as i32) };
    // SAFETY: `fd` is the pidfd opened above, closed once.
    unsafe { libc::close(fd) };
    ready == 1
}

/// Whether a process with this pid exists and is not a zombie.
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

/// `dialog` arguments for the three-fruit menu several tests drive.
pub const DIALOG_MENU: &[&str] = &[
    "--menu",
    "Pick a fruit",
    "12",
    "40",
    "3",
    "1",
    "Apples",
    "2",
    "Bananas",
    "3",
    "Cherries",
];

/// Bytes as `keyecho` prints them: lower-case hex, space-separated.
pub fn hex(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Sends `input` to a `keyecho` session, then a `|` as a marker, and returns every byte
/// the program read after the previous marker and before this one, as hex (however the
/// reads were split). The screen must be wide enough that no read's line wraps.
pub fn received_hex(s: &Session, input: &tuipilot::Input) -> String {
    s.send(input).unwrap_or_else(|e| panic!("{input:?}: {e}"));
    let screen = s
        .send_and_wait(
            &tuipilot::Input::text("|"),
            &tuipilot::Condition::output(r"\b7c\b").unwrap(),
        )
        .unwrap();
    let stream: Vec<&str> = screen
        .rows()
        .iter()
        .filter_map(|r| r.strip_prefix('#'))
        .flat_map(|r| r.split(' ').skip(1))
        .collect();
    let segments: Vec<Vec<&str>> = stream.split(|b| *b == "7c").map(<[&str]>::to_vec).collect();
    segments[segments.len() - 2].join(" ")
}

/// An operation that types `text` (if any), presses `keys` (if any) and waits for `wait`.
pub fn send_op(text: &str, keys: &str, wait: Option<tuipilot::operation::WaitFor>) -> tuipilot::Operation {
    use tuipilot::operation::Step;
    let mut steps = Vec::new();
    if !text.is_empty() {
        steps.push(Step::Text(text.into()));
    }
    if !keys.is_empty() {
        steps.push(Step::Keys(keys.into()));
    }
    tuipilot::Operation::Send {
        steps,
        wait,
        timeout_ms: None,
        capture: false,
        secret: false,
    }
}

/// `operation` (a send, a wait or a capture) with its own timeout of `ms`.
pub fn with_timeout(operation: tuipilot::Operation, ms: u64) -> tuipilot::Operation {
    use tuipilot::Operation;
    match operation {
        Operation::Send {
            timeout_ms: _,
            steps,
            wait,
            capture,
            secret,
        } => Operation::Send {
            steps,
            wait,
            timeout_ms: Some(ms),
            capture,
            secret,
        },
        Operation::Wait { condition, .. } => Operation::Wait {
            condition,
            timeout_ms: Some(ms),
        },
        other => other,
    }
}

/// An operation that waits for `condition`, with the session's timeout.
pub fn wait_op(condition: tuipilot::operation::WaitFor) -> tuipilot::Operation {
    tuipilot::Operation::Wait {
        condition,
        timeout_ms: None,
    }
}

/// Debian's Chromium (`chromium`, or `chromium-browser` elsewhere), for the tests that
/// open pages in a browser; they are built ignored where it is missing (`#[needs(chromium)]`).
pub fn chromium() -> &'static str {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|name| on_path(name))
        .expect("chromium is not on PATH, though the tests were built where it was: rebuild them")
}
