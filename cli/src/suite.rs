//! `tuipilot run`: a suite of tapes, in parallel, sliced across machines, reported.
//!
//! The library runs each tape ([`tuipilot::tape::run_file`]); this module only chooses
//! which tapes (files and folders given, then the `--partition` slice), runs them on
//! `--jobs` threads, shows progress, prints each result, and writes JUnit XML. Slicing is
//! nextest's count partitioning: of the sorted tapes, tape `i` (from 0) belongs to slice
//! `i % N + 1`, so `--partition 1/3` … `3/3` on three machines run every tape once.
//!
//! Output: when stderr is a terminal, a progress line (done / failed / running); otherwise
//! one line per tape. A failure prints its one-line message and its report (unless `-q`).
//! The exit code is the worst tape's: 1 when an expectation or wait failed, 2 when a tape
//! did not parse or could not run.

// Tape failures are made once per tape; see the note in the library's tape runner.
#![allow(clippy::result_large_err)]

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tuipilot::tape::{Failure as TapeFailure, FailureKind, Report, RunOptions, find_tapes, run_file};

use crate::error::{ErrorCode, Failure};

/// What `tuipilot run` was asked.
pub struct SuiteArgs {
    pub tapes: Vec<PathBuf>,
    pub junit: Option<PathBuf>,
    pub jobs: Option<usize>,
    pub partition: Option<String>,
    pub update: bool,
    pub out: Option<PathBuf>,
    pub quiet: bool,
    pub verbose: bool,
    pub no_media: bool,
    pub isolated: bool,
    pub report: Option<PathBuf>,
}

type Outcome = Result<Report, TapeFailure>;

/// `K/N` as (K, N), 1 ≤ K ≤ N.
fn parse_partition(text: &str) -> Result<(usize, usize), Failure> {
    let bad = || {
        Failure::bad_request(format!(
            "--partition {text}: expected K/N with 1 <= K <= N, such as 2/4 (the second of four slices)"
        ))
    };
    let text = text.strip_prefix("count:").unwrap_or(text);
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n) = (
        k.parse::<usize>().map_err(|_| bad())?,
        n.parse::<usize>().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n {
        return Err(bad());
    }
    Ok((k, n))
}

/// The tapes named (folders searched for `*.tape`), sorted, without repeats.
fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, Failure> {
    let mut tapes = Vec::new();
    for path in paths {
        if path.is_dir() {
            let found = find_tapes(path)
                .map_err(|e| Failure::bad_request(format!("cannot list tapes in {}: {e}", path.display())))?;
            tapes.extend(found);
        } else if path.is_file() {
            tapes.push(path.clone());
        } else {
            return Err(Failure::bad_request(format!(
                "{}: no such tape or folder; give .tape files or folders holding them",
                path.display()
            )));
        }
    }
    tapes.sort();
    tapes.dedup();
    Ok(tapes)
}

/// Runs the suite; the error is the summary when any tape did not pass.
pub fn run_suite(args: SuiteArgs) -> Result<(), Failure> {
    let partition = args.partition.as_deref().map(parse_partition).transpose()?;
    if args.jobs == Some(0) {
        return Err(Failure::bad_request("--jobs 0: give at least 1"));
    }
    if let Some(out) = &args.out {
        std::fs::create_dir_all(out)
            .map_err(|e| Failure::bad_request(format!("--out {}: cannot create it: {e}", out.display())))?;
    }
    if let Some(dir) = &args.report {
        tuipilot::files::Folder::make(dir, tuipilot::files::Access::Private).map_err(|e| {
            Failure::bad_request(format!("--report {}: cannot create it: {e}", dir.display()))
        })?;
    }
    let all = collect(&args.tapes)?;
    let tapes: Vec<PathBuf> = match partition {
        Some((k, n)) => all
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k - 1)
            .map(|(_, t)| t)
            .collect(),
        None => all,
    };
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, tapes.len().max(1));
    let options = RunOptions {
        update: args.update,
        out_dir: args.out.clone(),
        skip_media: args.no_media,
        isolated: args.isolated,
        ..RunOptions::default()
    };
    let folders = report_folders(&tapes);
    let started = Instant::now();
    let progress = Progress::new(tapes.len(), args.quiet);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::with_capacity(tapes.len()));
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(tape) = tapes.get(i) else { break };
                    progress.started();
                    let options = RunOptions {
                        report: args.report.as_ref().map(|dir| dir.join(&folders[i])),
                        ..options.clone()
                    };
                    let outcome = run_file(tape, &options);
                    progress.finished(tape, &outcome, args.verbose);
                    if let Ok(mut results) = results.lock() {
                        results.push((i, outcome));
                    }
                }
            });
        }
    });
    progress.done();
    // Every tape reports (a panicking worker would have ended the scope with its panic).
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    let (tapes, results): (Vec<PathBuf>, Vec<Outcome>) = results
        .into_iter()
        .map(|(i, outcome)| (tapes[i].clone(), outcome))
        .unzip();
    if let Some(path) = &args.junit {
        write_junit(path, &tapes, &results, started.elapsed())?;
    }
    // Every index came back, in order: `folders` still lines up with `tapes`.
    if let Some(dir) = &args.report {
        write_index(dir, &tapes, &folders, &results)?;
    }
    // A report that was asked for and not written is an error, whatever the tape did.
    let unreported: Vec<(&PathBuf, &String)> = tapes
        .iter()
        .zip(&results)
        .filter_map(|(tape, outcome)| {
            let why = match outcome {
                Ok(report) => report.report_not_written.as_ref(),
                Err(failure) => failure.report_not_written.as_ref(),
            };
            why.map(|why| (tape, why))
        })
        .collect();
    for (tape, why) in &unreported {
        eprintln!("tuipilot: error: {}: {why}", tape.display());
    }
    let failed = results
        .iter()
        .filter(|r| matches!(r, Err(f) if f.kind == FailureKind::Failed))
        .count();
    let errors = results
        .iter()
        .filter(|r| matches!(r, Err(f) if f.kind != FailureKind::Failed))
        .count();
    let unreported_words = match unreported.len() {
        0 => String::new(),
        1 => ", 1 report not written".to_string(),
        n => format!(", {n} reports not written"),
    };
    let summary = format!(
        "{} tape{}: {} passed, {failed} failed, {errors} could not run{unreported_words} ({:.2} s)",
        tapes.len(),
        if tapes.len() == 1 { "" } else { "s" },
        tapes.len() - failed - errors,
        started.elapsed().as_secs_f64()
    );
    let errors = errors + unreported.len();
    match (failed, errors) {
        (0, 0) => {
            eprintln!("{summary}");
            Ok(())
        }
        (_, 0) => Err(Failure::new(ErrorCode::TapeFailed, summary)),
        _ => Err(Failure::new(ErrorCode::TapeError, summary)),
    }
}

/// The progress line (stderr a terminal) or one line per tape.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    quiet: bool,
    running: AtomicUsize,
    failed: AtomicUsize,
    lock: Mutex<()>,
}

impl Progress {
    fn new(total: usize, quiet: bool) -> Progress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(total as u64);
            let style = indicatif::ProgressStyle::with_template("{pos}/{len} done · {msg} [{elapsed}]")
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            quiet,
            running: AtomicUsize::new(0),
            failed: AtomicUsize::new(0),
            lock: Mutex::new(()),
        }
    }

    fn message(&self) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!(
                "{} failed · {} running",
                self.failed.load(Ordering::SeqCst),
                self.running.load(Ordering::SeqCst)
            ));
        }
    }

    fn started(&self) {
        self.running.fetch_add(1, Ordering::SeqCst);
        self.message();
    }

    fn finished(&self, tape: &Path, outcome: &Outcome, verbose: bool) {
        self.running.fetch_sub(1, Ordering::SeqCst);
        let mut text = String::new();
        match outcome {
            Ok(report) => {
                if !self.quiet && self.bar.is_none() {
                    text.push_str(&format!(
                        "PASS {} ({:.0} ms)\n",
                        tape.display(),
                        report.elapsed.as_secs_f64() * 1000.0
                    ));
                }
                // A screen that may not show the whole reaction is said on every run.
                for pending in &report.pending {
                    text.push_str(&format!(
                        "     note: at {}\n",
                        crate::commands::printable(pending)
                    ));
                }
                if verbose {
                    for note in &report.notes {
                        text.push_str(&format!("     note: {note}\n"));
                    }
                }
            }
            Err(failure) => {
                self.failed.fetch_add(1, Ordering::SeqCst);
                let label = if failure.kind == FailureKind::Failed {
                    "FAIL"
                } else {
                    "ERROR"
                };
                text.push_str(&format!("{label} {failure}\n"));
                if !self.quiet {
                    let report = format!("{failure:?}");
                    for line in report.lines().skip(1) {
                        text.push_str(&format!("     {line}\n"));
                    }
                }
            }
        }
        // Tapes and the programs they run are not the operator's terminal's to control.
        let text = crate::commands::printable(&text);
        let _guard = self.lock.lock();
        match &self.bar {
            Some(bar) if !text.is_empty() => bar.suspend(|| eprint!("{text}")),
            Some(_) => {}
            None => eprint!("{text}"),
        }
        if let Some(bar) = &self.bar {
            bar.inc(1);
        }
        self.message();
    }

    fn done(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The folders under `--report DIR` the tapes' reports go in, one each: a tape's path
/// with separators and other characters as `_` and `..` as `up` (`a/b.tape` → `a_b`),
/// and where two paths come to the same name (`a/b.tape` and `a_b.tape`), the later
/// tape's numbered (`a_b-2`): no report overwrites another, and the index links each tape
/// to its own.
fn report_folders(tapes: &[PathBuf]) -> Vec<String> {
    let mut taken = std::collections::HashSet::new();
    tapes
        .iter()
        .map(|tape| {
            let base = folder_name(tape);
            let mut name = base.clone();
            let mut n = 1;
            while !taken.insert(name.to_lowercase()) {
                n += 1;
                name = format!("{base}-{n}");
            }
            name
        })
        .collect()
}

/// A tape's path as one folder name (see [`report_folders`]).
fn folder_name(tape: &Path) -> String {
    let path = tape.with_extension("");
    let parts: Vec<String> = path
        .components()
        .filter_map(|part| match part {
            std::path::Component::Normal(name) => Some(
                name.to_string_lossy()
                    .chars()
                    .map(|c| {
                        if c.is_alphanumeric() || "-_.".contains(c) {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect::<String>()
                    .trim_start_matches('.')
                    .to_string(),
            ),
            std::path::Component::ParentDir => Some("up".into()),
            _ => None,
        })
        .filter(|part| !part.is_empty())
        .collect();
    match parts.join("_") {
        name if name.is_empty() => "tape".into(),
        name => name,
    }
}

/// `--report DIR/index.html`: every tape with its result, linking its report.
fn write_index(
    dir: &Path,
    tapes: &[PathBuf],
    folders: &[String],
    results: &[Outcome],
) -> Result<(), Failure> {
    use tuipilot::report::{SuiteEntry, Verdict};
    let runs: Vec<SuiteEntry> = tapes
        .iter()
        .zip(folders)
        .zip(results)
        .map(|((tape, folder), outcome)| {
            let has_report = dir.join(folder).join("report.html").is_file();
            SuiteEntry {
                name: tape.display().to_string(),
                verdict: if outcome.is_ok() {
                    Verdict::Passed
                } else {
                    Verdict::Failed
                },
                duration_ms: match outcome {
                    Ok(report) => report.elapsed.as_millis() as u64,
                    Err(failure) => failure.elapsed.as_millis() as u64,
                },
                message: outcome.as_ref().err().map(|f| f.to_string()),
                report: has_report.then(|| format!("{folder}/report.html")),
            }
        })
        .collect();
    let page = tuipilot::report::suite_index("tuipilot run", &runs);
    tuipilot::files::write_file(
        &dir.join("index.html"),
        page.as_bytes(),
        tuipilot::files::Access::Private,
    )
    .map(drop)
    .map_err(|e| Failure::bad_request(format!("--report {}: {e}", dir.display())))
}

fn write_junit(
    path: &Path,
    tapes: &[PathBuf],
    results: &[Outcome],
    elapsed: Duration,
) -> Result<(), Failure> {
    use quick_junit::{NonSuccessKind, Report as Junit, TestCase, TestCaseStatus, TestSuite};
    let mut suite = TestSuite::new("tapes");
    for (tape, result) in tapes.iter().zip(results) {
        let name = tape.display().to_string();
        let case = match result {
            Ok(report) => {
                let mut case = TestCase::new(name, TestCaseStatus::success());
                case.set_time(report.elapsed);
                case
            }
            Err(failure) => {
                let kind = if failure.kind == FailureKind::Failed {
                    NonSuccessKind::Failure
                } else {
                    NonSuccessKind::Error
                };
                let mut status = TestCaseStatus::non_success(kind);
                status.set_message(failure.to_string());
                status.set_description(format!("{failure:?}"));
                let mut case = TestCase::new(name, status);
                case.set_time(failure.elapsed);
                if let Some(screen) = &failure.screen {
                    case.set_system_out(screen.clone());
                }
                case
            }
        };
        suite.add_test_case(case);
    }
    let mut report = Junit::new("tuipilot run");
    report.set_time(elapsed);
    report.add_test_suite(suite);
    let xml = report
        .to_string()
        .map_err(|e| Failure::internal(format!("writing JUnit XML: {e}")))?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| {
            Failure::bad_request(format!(
                "--junit {}: cannot create its folder: {e}",
                path.display()
            ))
        })?;
    }
    tuipilot::files::write_file(path, xml.as_bytes(), tuipilot::files::Access::Shared)
        .map(drop)
        .map_err(|e| Failure::bad_request(format!("--junit {}: {e}", path.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_k_of_n_with_k_from_one() {
        assert_eq!(parse_partition("2/4").unwrap(), (2, 4));
        assert_eq!(parse_partition("count:1/1").unwrap(), (1, 1));
        for bad in ["0/3", "4/3", "x", "1/0", "1-2"] {
            let e = parse_partition(bad).unwrap_err();
            assert!(e.message.contains("K/N"), "{bad}: {}", e.message);
        }
    }
}
