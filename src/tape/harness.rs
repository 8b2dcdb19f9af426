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
//! Or, with the crate's own binary on the tapes' `PATH` and every tape hermetic:
//!
//! ```no_run
//! # const TODO: &str = "/path/to/todo";
//! // In a real tests/tapes.rs: .bin(env!("CARGO_BIN_EXE_todo"))
//! tuipilot::tape::Harness::new("tests/tapes").bin(TODO).isolated().run();
//! ```
//!
//! Each test is named by the tape's path under the folder (`vim/quit.tape`), so libtest's
//! filters, `--exact`, `--list`, `--ignored` (a tape whose first line is `# ignore` is an
//! ignored test) and `--format` work, and `cargo nextest run` schedules, retries,
//! partitions and reports tapes like any other test. A relative folder is taken from the
//! crate being tested (`CARGO_MANIFEST_DIR`).
//!
//! What a failure leaves — the bundle (`NAME.failure/`) and a changed snapshot's
//! `NAME.snap.new`, `NAME.actual.png`, `NAME.diff.png` — goes under cargo's target
//! directory (`target/tuipilot-tapes/`, the tapes' folders below it), never into the source
//! tree. Snapshots are accepted with `TUIPILOT_UPDATE=1 cargo test --test NAME`, the
//! command a failure prints (libtest takes no `--update`); never written when `CI` is set.

use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};

use super::{RunOptions, find_tapes, run_file};

/// A folder of tapes as tests, with the options a crate's test target needs.
#[derive(Clone, Debug)]
pub struct Harness {
    dir: PathBuf,
    bins: Vec<PathBuf>,
    isolated: bool,
    out_dir: Option<PathBuf>,
}

impl Harness {
    /// The tapes under `dir` (relative: from the crate being tested).
    pub fn new(dir: impl AsRef<Path>) -> Harness {
        Harness {
            dir: crate::render::compare::resolve_golden(dir.as_ref(), std::env::var_os("CARGO_MANIFEST_DIR")),
            bins: Vec::new(),
            isolated: false,
            out_dir: None,
        }
    }

    /// Puts the folder of `program` first on the tapes' `PATH`, so a tape runs the
    /// crate's own binary by name: `.bin(env!("CARGO_BIN_EXE_todo"))`.
    pub fn bin(mut self, program: impl AsRef<Path>) -> Harness {
        let program = program.as_ref();
        let folder = program
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(program);
        if !self.bins.iter().any(|b| b == folder) {
            self.bins.push(folder.to_path_buf());
        }
        self
    }

    /// Runs every tape hermetically: no inherited environment but `PATH`, and a fresh
    /// `HOME`, `TMPDIR` and XDG folders, removed when the tape ends.
    pub fn isolated(mut self) -> Harness {
        self.isolated = true;
        self
    }

    /// Where failures and changed snapshots go instead of `target/tuipilot-tapes/`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Harness {
        self.out_dir = Some(dir.into());
        self
    }

    /// One test per tape, for a harness of your own.
    pub fn trials(&self) -> Vec<Trial> {
        let tapes = match find_tapes(&self.dir) {
            Ok(t) => t,
            Err(e) => {
                let message = format!("cannot list tapes in {}: {e}", self.dir.display());
                return vec![Trial::test("tapes", move || Err(Failed::from(message)))];
            }
        };
        tapes
            .into_iter()
            .map(|path| {
                let name = path
                    .strip_prefix(&self.dir)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .into_owned();
                let ignored = std::fs::read_to_string(&path)
                    .map(|t| t.lines().next().is_some_and(|l| l.trim() == "# ignore"))
                    .unwrap_or(false);
                let options = self.options_for(&path);
                Trial::test(name, move || {
                    run_file(&path, &options)
                        .map(|_| ())
                        .map_err(|failure| Failed::from(format!("{failure:?}")))
                })
                .with_ignored_flag(ignored)
            })
            .collect()
    }

    /// How the harness runs the tape at `path` (one under its folder): the binaries on
    /// its PATH, whether it is isolated, where what a failure leaves goes (below the out
    /// folder as the tape is below the tapes' folder), and how to accept a change.
    pub fn options_for(&self, path: &Path) -> RunOptions {
        let relative = path.strip_prefix(&self.dir).unwrap_or(path);
        let out_base = self
            .out_dir
            .clone()
            .or_else(|| crate::artifacts::cargo_target_dir().map(|t| t.join("tuipilot-tapes")));
        RunOptions {
            out_dir: out_base.map(|base| base.join(relative.parent().unwrap_or(Path::new("")))),
            path: self.bins.clone(),
            isolated: self.isolated,
            update_hint: Some(update_command()),
            ..RunOptions::default()
        }
    }

    /// Runs the tapes with libtest's command line and exits the process with its status.
    /// Call it from `main` of a `harness = false` test.
    pub fn run(&self) -> ! {
        let args = Arguments::from_args();
        libtest_mimic::run(&args, self.trials()).exit()
    }
}

/// How to accept changed snapshots from this test target: `TUIPILOT_UPDATE=1 cargo test
/// --test NAME`, NAME from the executable cargo built (`tapes-1f2e3d…` → `tapes`).
fn update_command() -> String {
    let target = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .map(|stem| match stem.rsplit_once('-') {
            Some((name, hash)) if hash.chars().all(|c| c.is_ascii_hexdigit()) => name.to_string(),
            _ => stem,
        });
    match target {
        Some(name) => format!("TUIPILOT_UPDATE=1 cargo test --test {name}"),
        None => "TUIPILOT_UPDATE=1 and the test run again".to_string(),
    }
}

/// The tests for every tape under `dir`, for a harness of your own.
pub fn tests_in(dir: impl AsRef<Path>) -> Vec<Trial> {
    Harness::new(dir).trials()
}

/// Runs every tape under `dir` as one test each, with libtest's command line, and exits
/// the process with libtest's status. Call it from `main` of a `harness = false` test.
pub fn harness(dir: impl AsRef<Path>) -> ! {
    Harness::new(dir).run()
}
