//! `export --verify` (and `record --verify`): the export replayed once before the agent
//! leaves the session, in a private folder with the session's world and environment
//! values, writing no snapshot, and what would fail told in one line.

use super::{ExportOptions, to_tape, write_world};
use crate::operation::{LoggedOperation, StartSpec};

/// `export --verify`: replays the tape exported from `start` and `log` once, as `tuipilot
/// run` would, in a private temporary folder holding only the tape and its snapshots
/// (removed after), comparing every snapshot and writing none — with the session's
/// environment values, which the written tape may name only (its lines are numbered the
/// same). `Ok(None)` when it passes; `Ok(Some(why))` names the line that would fail and
/// why, in one line (`session.tape:12:1: `Snapshot session`: the screen differs …`), so
/// the agent can fix its session before leaving it.
pub fn verify(
    start: &StartSpec,
    log: &[LoggedOperation],
    name: &str,
    options: &ExportOptions,
) -> crate::Result<Option<String>> {
    let with_values = ExportOptions {
        include_env: true,
        ..options.clone()
    };
    let exported = to_tape(start, log, name, &with_values)?;
    let dir = crate::files::TempDir::new("verify")?;
    let write = |file: &str, text: &str| {
        let path = dir.path().join(file);
        std::fs::write(&path, text).map_err(|e| crate::Error::io(format!("writing {}", path.display()), e))
    };
    let tape = format!("{name}.tape");
    write(&tape, &exported.tape)?;
    write_world(options, name, dir.path())?;
    for (file, text) in exported.snapshot.iter().chain(&exported.earlier_snapshots) {
        write(file, text)?;
    }
    let options = crate::tape::RunOptions {
        check_only: true,
        ..crate::tape::RunOptions::default()
    };
    Ok(crate::tape::run_file(dir.path().join(&tape), &options)
        .err()
        .map(|failure| {
            // Said of the tape by its name, not of the folder it ran in.
            let within = format!("{}/", dir.path().display());
            let line = failure.to_string().replace(&within, "");
            let mut why = verified_why(&line, failure.report.as_deref().unwrap_or(""));
            if !start.isolated {
                why.push_str(
                    "; the session ran with your HOME, the replay in a fresh one: a program that keeps state there (a last position, a history) starts otherwise in it — start the session with --isolated, or export --with that state",
                );
            }
            why
        }))
}

/// The one line a failed verifying replay is told in, from the runner's `line` and its
/// `report` behind it: the line without what a replay that writes snapshots would have
/// written, and for a screen that differs the first row that does, as the session and
/// the replay showed it.
pub(super) fn verified_why(line: &str, report: &str) -> String {
    let mut why = line
        .lines()
        .next()
        .unwrap_or("")
        .trim_end_matches(':')
        .to_string();
    if let Some(at) = why.find(" (new screen written to ") {
        why.truncate(at);
    }
    // `   12 - row` then `   12 + row`: the snapshot's diff, the session's row first.
    let row = |line: &str, sign: char| {
        let line = line.trim_start();
        let (number, rest) = line.split_once(' ')?;
        let text = rest.strip_prefix(sign)?.strip_prefix(' ').unwrap_or("");
        Some((number.parse::<usize>().ok()?, text.trim().to_string()))
    };
    let shown = |text: &str| match text.chars().count() > 60 {
        true => format!("`{}…`", text.chars().take(60).collect::<String>()),
        false => format!("`{text}`"),
    };
    let rows: Vec<&str> = report.lines().collect();
    if let Some((number, session)) = rows.iter().find_map(|line| row(line, '-')) {
        let replay = rows
            .iter()
            .filter_map(|line| row(line, '+'))
            .find(|(n, _)| *n == number)
            .map_or_else(|| "nothing".to_string(), |(_, text)| shown(&text));
        why.push_str(&format!(
            ": row {number} was {} in the session and {replay} in the replay",
            shown(&session)
        ));
    }
    why
}
