//! The rows of the readiness matrix: the wake-up mechanisms the reactions fixture draws a
//! reaction by, the places it runs them, and the fixture itself in its two languages
//! (`fixtures/reactions.py`, `fixtures/reactions.c`: the same arguments and screen).
//! `tests/readiness_matrix.rs` and the readiness benchmark's corpus share them.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The mechanisms, as the fixture names them.
pub const MECHANISMS: &[&str] = &[
    "sleep",
    "nanosleep",
    "event",
    "select",
    "poll",
    "epoll",
    "timerfd",
    "timerfd-read",
    "alarm",
    "posix-timer",
    "pipe",
    "socket",
    "child",
    "spin",
];

/// Where the fixture runs its reaction.
pub const PLACES: &[&str] = &["main", "thread", "child", "group", "session", "grandchild"];

/// The fixture in one of its languages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fixture {
    /// `fixtures/reactions.py` under `python3` (its interpreter's threads and sleeps).
    Python,
    /// `fixtures/reactions.c`, compiled by the system's C compiler (libc calls alone).
    C,
}

impl Fixture {
    /// Both languages.
    pub const ALL: [Fixture; 2] = [Fixture::Python, Fixture::C];

    /// The language's name in a case's title.
    pub fn name(self) -> &'static str {
        match self {
            Fixture::Python => "python",
            Fixture::C => "c",
        }
    }

    /// The command that starts the fixture, before its own arguments.
    pub fn command(self) -> Vec<String> {
        match self {
            Fixture::Python => vec!["python3".into(), SOURCE_PY.into()],
            Fixture::C => vec![compiled_c().to_string()],
        }
    }
}

const SOURCE_PY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/reactions.py");
const SOURCE_C: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/reactions.c");

/// The C fixture, compiled once a process into cargo's scratch folder for tests and
/// benchmarks: built under a name of this process's own, then renamed into place, so test
/// binaries running at once never see a half-written program.
fn compiled_c() -> &'static str {
    static BUILT: OnceLock<String> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
        let program = dir.join("reactions");
        let building = dir.join(format!("reactions.{}", std::process::id()));
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&compiler)
            .args(["-O2", "-Wall", "-pthread", "-o"])
            .arg(&building)
            .arg(SOURCE_C)
            .arg("-lrt")
            .output()
            .unwrap_or_else(|e| panic!("the C fixture needs a C compiler ({compiler}): {e}"));
        assert!(
            out.status.success(),
            "compiling {SOURCE_C} with {compiler} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::rename(&building, &program).expect("putting the compiled fixture in place");
        program.to_string_lossy().into_owned()
    })
}
