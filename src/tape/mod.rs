//! Tapes: VHS's `.tape` scripts, run headless through the engine, as tests.
//!
//! A tape parses into a typed program ([`Tape`], every [`Command`] with its file, line and
//! column) and runs against a fresh session ([`run`], [`run_file`]): each line becomes
//! operations of the one vocabulary ([`crate::operation`]), applied by the one executor,
//! so a tape's `Type`, `Wait` or `Screenshot` means what the same request means on every
//! other face. The result is a [`Report`] or a [`Failure`] whose `Debug` is the readable
//! report, so a `#[test]` can simply unwrap it:
//!
//! ```no_run
//! # fn main() {
//! use tuipilot::tape::{RunOptions, run_file};
//!
//! run_file("tests/tapes/hello.tape", &RunOptions::default()).unwrap();
//! # }
//! ```
//!
//! With the `harness` feature, `harness` turns a folder of tapes into a cargo test
//! target, one test per tape (see its docs).
//!
//! The language is VHS's, all of it (`lex`, `parse`), plus commands that make a tape a
//! test: `Key`, `Wait+Stable|Exit|Output`, `Expect`, `ExpectNot`, `ExpectExit`,
//! `Snapshot`, `Mask`, `Resize`. The guide's chapter on tapes (`docs/src/tapes.md`) is the reference.

pub mod export;
#[cfg(feature = "harness")]
mod harness;
mod lex;
mod outcome;
mod parse;
mod program;
mod quote;
mod run;
mod settings;
pub mod snapshots;

#[cfg(feature = "harness")]
pub use harness::{Harness, harness, tests_in};
pub use outcome::{Failure, FailureKind, Report};
pub use parse::{ParseError, ParseErrors};
pub use program::{Command, CommandKind, Location, Scope, Setting, Tape, ThemeSpec, WaitKind};
pub use run::{RunOptions, run, run_file};
pub use settings::DEFAULT_TAPE_TIMEOUT;

/// The tape files under `dir` (recursively, `*.tape`), sorted by path: the order the
/// runner and the harness list them in.
pub fn find_tapes(dir: impl AsRef<std::path::Path>) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out = Vec::new();
    let mut stack = vec![dir.as_ref().to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "tape") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
