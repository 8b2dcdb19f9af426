//! A folder of tapes as a cargo test target, one test per tape, on `libtest-mimic`.
//!
//! ```toml
//! [[test]]
//! name = "tapes"
//! harness = false
//! ```
//!
//! ```no_run
//! // tests/tapes.rs: its `main` is this one line.
//! tuipilot::tape::harness("tests/tapes");
//! ```
//!
//! Each test is named by the tape's path under the folder (`vim/quit.tape`), so libtest's
//! filters, `--exact`, `--list`, `--ignored` (a tape whose first line is `# ignore` is an
//! ignored test) and `--format` work, and `cargo nextest run` schedules, retries,
//! partitions and reports tapes like any other test. A relative folder is taken from the
//! crate being tested (`CARGO_MANIFEST_DIR`). Snapshots update with `TUIPILOT_UPDATE=1`.

use std::path::Path;

use libtest_mimic::{Arguments, Failed, Trial};

use super::{RunOptions, find_tapes, run_file};

/// The tests for every tape under `dir`, for a harness of your own.
pub fn tests_in(dir: impl AsRef<Path>) -> Vec<Trial> {
    let dir = crate::render::compare::resolve_golden(dir.as_ref(), std::env::var_os("CARGO_MANIFEST_DIR"));
    let tapes = match find_tapes(&dir) {
        Ok(t) => t,
        Err(e) => {
            let message = format!("cannot list tapes in {}: {e}", dir.display());
            return vec![Trial::test("tapes", move || Err(Failed::from(message)))];
        }
    };
    tapes
        .into_iter()
        .map(|path| {
            let name = path
                .strip_prefix(&dir)
                .unwrap_or(&path)
                .to_string_lossy()
                .into_owned();
            let ignored = std::fs::read_to_string(&path)
                .map(|t| t.lines().next().is_some_and(|l| l.trim() == "# ignore"))
                .unwrap_or(false);
            Trial::test(name, move || {
                run_file(&path, &RunOptions::default())
                    .map(|_| ())
                    .map_err(|failure| Failed::from(format!("{failure:?}")))
            })
            .with_ignored_flag(ignored)
        })
        .collect()
}

/// Runs every tape under `dir` as one test each, with libtest's command line, and exits
/// the process with libtest's status. Call it from `main` of a `harness = false` test.
pub fn harness(dir: impl AsRef<Path>) -> ! {
    let args = Arguments::from_args();
    libtest_mimic::run(&args, tests_in(dir)).exit()
}
