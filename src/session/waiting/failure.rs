//! A failed wait's report, made from the session's state as the wait ended: the screen,
//! the notes on why, the closest line, the queries left unanswered, and the failure
//! artefacts written for a direct library call.

use std::sync::MutexGuard;
use std::time::{Duration, Instant};

use super::super::State;
use super::OutputScan;
use crate::error::Error;
use crate::process::ExitStatus;
use crate::terminal::QueryRecord;
use crate::wait::report::{closest_line, notes};
use crate::wait::{Condition, WaitError};

/// A wait as it was asked for: when, for how long, and from where.
pub(super) struct Attempt {
    pub(super) start: Instant,
    pub(super) timeout: Duration,
    pub(super) caller: Option<&'static std::panic::Location<'static>>,
}

pub(super) fn failure(
    state: &mut MutexGuard<'_, State>,
    condition: &Condition,
    attempt: &Attempt,
    exited: Option<ExitStatus>,
    scan: &OutputScan,
    unchanged_since_input: bool,
) -> Error {
    let screen = state.snapshot();
    let mut notes = notes(condition, &screen, unchanged_since_input);
    let signals = state.terminal.signals();
    match condition {
        Condition::CommandDone if !signals.shell_integration => notes.push(
            "the program has sent no OSC 133 marks: it is not a shell with shell integration (bash, zsh and fish get it unless started with --no-shell-integration; an rc file that replaces PROMPT_COMMAND removes bash's)".into(),
        ),
        Condition::Title(_) => notes.push(format!("the title is {:?}", screen.title)),
        Condition::Explained(_, _, explain) => notes.extend(explain(&screen)),
        Condition::Cwd(_) => notes.push(match &signals.cwd {
            Some(cwd) => format!("the working directory reported last is {cwd:?}"),
            None => "the program has reported no working directory (OSC 7)".into(),
        }),
        _ => {}
    }
    let elapsed = attempt.start.elapsed();
    let session = attempt.caller.map(|_| state.story_files());
    let artifacts = session.as_ref().and_then(|session| {
        crate::artifacts::write(
            &screen,
            &condition.to_string(),
            elapsed.as_millis(),
            attempt.timeout.as_millis(),
            Some(session),
        )
    });
    let (closest, output_tail) = match condition {
        Condition::Text(re) | Condition::NoText(re) => (closest_line(screen.rows(), re.as_str()), None),
        Condition::Line(re) => {
            let row = usize::from(screen.cursor().row);
            let line = screen.rows().get(row).cloned().unwrap_or_default();
            // The cursor's line is the only candidate: report it whatever it holds.
            let _ = re;
            (Some((row, line)), None)
        }
        Condition::Wrapped(re) => {
            let lines: Vec<(u16, String)> = screen.logical_lines();
            let texts: Vec<String> = lines.iter().map(|(_, line)| line.clone()).collect();
            // The closest logical line, named by the row it starts on.
            let closest = closest_line(&texts, re.as_str()).map(|(i, line)| (usize::from(lines[i].0), line));
            (closest, None)
        }
        Condition::Output(re) => {
            let tail = scan.tail(8);
            let lines: Vec<String> = tail.lines().map(str::to_string).collect();
            (closest_line(&lines, re.as_str()), Some(tail))
        }
        _ => (None, None),
    };
    let mut unanswered: Vec<QueryRecord> = Vec::new();
    for q in state.terminal.transcript() {
        if q.reply.is_none() && !unanswered.iter().any(|u| u.query == q.query) {
            unanswered.push(q);
        }
    }
    let report = WaitError {
        condition: condition.to_string(),
        elapsed,
        timeout: attempt.timeout,
        exited,
        screen,
        closest,
        output_tail,
        unanswered,
        has_pattern: matches!(
            condition,
            Condition::Text(_)
                | Condition::NoText(_)
                | Condition::Line(_)
                | Condition::Wrapped(_)
                | Condition::Output(_)
        ),
        notes,
        caller: attempt.caller,
        artifacts,
    };
    let error = if exited.is_some() {
        Error::ExitedWhileWaiting(Box::new(report))
    } else {
        Error::Timeout(Box::new(report))
    };
    #[cfg(feature = "render")]
    if let Some(report) = error.wait_error()
        && let Some(dir) = &report.artifacts
    {
        crate::artifacts::write_report(dir, &error, &report.screen, session.as_ref());
    }
    #[cfg(not(feature = "render"))]
    let _ = session;
    error
}
