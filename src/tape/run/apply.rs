//! How a tape command becomes operations on the session, and how their errors become the
//! tape's failures: input that folds in the `Wait` after it, waits, captures, every
//! operation applied and logged (under the run's `TapeTimeout`), and a failure with its
//! screen and bundle.

use std::time::{Duration, Instant};

use super::bundle::{LOGGED_OPERATIONS, Logged};
use super::{Runner, first_line, millis};
use crate::operation::{Operation, PngRequest, Reply, Screen, Step, WaitFor};
use crate::tape::outcome::{Failure, FailureKind};
use crate::tape::program::{Command, CommandKind, WaitKind};
use crate::{Error, ErrorKind};

impl Runner<'_> {
    /// Sends input. When the next command is a pattern or output `Wait`, the two run as one
    /// send-and-wait, whose baseline is taken before the first byte: the wait then needs
    /// the screen to change after the input (or sees only output after it), so the prompt
    /// from before a fast `Type … Enter` is never taken for the next one.
    pub(super) fn send_input(
        &mut self,
        command: &Command,
        steps: Vec<Step>,
        next: Option<&Command>,
    ) -> Result<bool, Failure> {
        let Some((wait_command, kind, timeout)) = next.and_then(|next| match &next.kind {
            CommandKind::Wait { kind, timeout }
                if matches!(
                    kind,
                    WaitKind::Pattern(..)
                        | WaitKind::Output(_)
                        | WaitKind::Command
                        | WaitKind::Bell
                        | WaitKind::Ready
                        | WaitKind::Prompt
                ) =>
            {
                Some((next, kind, timeout))
            }
            _ => None,
        }) else {
            return self.send(command, steps);
        };
        self.mark_line(wait_command);
        let operation = Operation::Send {
            steps,
            wait: Some(self.wait_condition(kind)),
            timeout_ms: Some(millis(timeout.unwrap_or(self.setup.wait_timeout))),
            capture: false,
            secret: self.hidden,
        };
        self.apply_logged(&operation, Some(command)).map_err(|error| {
            // A wait that failed is the Wait line's failure; anything else is the input's.
            let blamed = match error.kind() {
                ErrorKind::Timeout | ErrorKind::ExitedWhileWaiting => wait_command,
                _ => command,
            };
            self.command_failure(blamed, error)
        })?;
        self.folded = true;
        Ok(true)
    }

    pub(super) fn send(&mut self, command: &Command, steps: Vec<Step>) -> Result<bool, Failure> {
        self.apply(
            command,
            &Operation::Send {
                steps,
                wait: None,
                timeout_ms: None,
                capture: false,
                secret: self.hidden,
            },
        )?;
        Ok(true)
    }

    pub(super) fn wait(
        &mut self,
        command: &Command,
        condition: WaitFor,
        timeout: Option<Duration>,
    ) -> Result<Reply, Failure> {
        let timeout = timeout.unwrap_or(self.setup.wait_timeout);
        self.apply(
            command,
            &Operation::Wait {
                condition,
                timeout_ms: Some(millis(timeout)),
            },
        )
    }

    /// A capture of the screen as the tape shows it now (masked, scrolled back).
    pub(super) fn capture(
        &mut self,
        command: Option<&Command>,
        png: Option<PngRequest>,
        text: bool,
    ) -> Result<Screen, Failure> {
        let operation = Operation::Capture {
            wait: None,
            timeout_ms: None,
            ansi: false,
            scrollback: false,
            png: png.map(Box::new),
            svg: None,
            text,
            mask: self.masks.clone(),
            scrolled_back: self.scrolled_back,
        };
        let reply = match command {
            Some(command) => self.apply(command, &operation)?,
            None => self
                .apply_logged(&operation, None)
                .map_err(|e| Failure::new(FailureKind::Error, &self.tape.path, None, e.to_string()))?,
        };
        match reply {
            Reply::Screen { screen } => Ok(screen),
            other => Err(Failure::new(
                FailureKind::Error,
                &self.tape.path,
                None,
                format!("a capture answered {other:?}"),
            )),
        }
    }

    /// The screen as ANSI text (every cell's style in SGR), for a styled snapshot.
    pub(super) fn capture_ansi(&mut self, command: &Command) -> Result<Screen, Failure> {
        let mut operation = Operation::capture_ansi();
        if let Operation::Capture { scrolled_back, .. } = &mut operation {
            *scrolled_back = self.scrolled_back;
        }
        match self.apply(command, &operation)? {
            Reply::Screen { screen } => Ok(screen),
            other => Err(self.failure(
                FailureKind::Error,
                command,
                format!("a capture answered {other:?}"),
            )),
        }
    }

    /// Applies an operation for a tape command; a failure names the command's line and
    /// leaves the bundle.
    pub(super) fn apply(&mut self, command: &Command, operation: &Operation) -> Result<Reply, Failure> {
        self.apply_logged(operation, Some(command))
            .map_err(|error| self.command_failure(command, error))
    }

    /// The failure of `command` whose operation returned `error`.
    pub(super) fn command_failure(&self, command: &Command, error: Error) -> Failure {
        let kind = match error.kind() {
            ErrorKind::Timeout | ErrorKind::ExitedWhileWaiting | ErrorKind::Exited | ErrorKind::Mismatch => {
                FailureKind::Failed
            }
            _ => FailureKind::Error,
        };
        let stopped = match &self.deadline {
            Some((deadline, _)) if error.kind() == ErrorKind::Cancelled && deadline.passed() => {
                Some(deadline.message())
            }
            _ => None,
        };
        let (kind, why, report) = match stopped {
            Some(why) => (FailureKind::Failed, why.clone(), why),
            None => (kind, summary(&error), error.to_string()),
        };
        let message = format!("`{}`: {why}", self.source(command));
        let mut failure = self.failure(kind, command, message);
        failure.report = Some(report);
        failure.explanation = Some(crate::report::Explanation::of_error(&error));
        failure
    }

    pub(super) fn apply_logged(
        &mut self,
        operation: &Operation,
        command: Option<&Command>,
    ) -> Result<Reply, Error> {
        let session = self.session.as_ref().ok_or(Error::Closed {
            action: "run the tape",
            caller: None,
        })?;
        let started = Instant::now();
        let at = session.uptime();
        let result = match &self.deadline {
            Some((_, cancel)) => session.apply_cancellable(operation, cancel),
            None => session.apply(operation),
        };
        if self.steps.len() == super::REPORT_STEPS {
            self.steps.pop_front();
        }
        self.steps.push_back(crate::report::Step {
            label: command.map_or_else(
                || operation.redacted(session.input_is_secret()).label(),
                |c| self.source(c).into_owned(),
            ),
            source: command.map(|c| format!("{}:{}", c.location.file.display(), c.location.line)),
            at_ms: millis(at),
            took_ms: millis(started.elapsed()),
            waited: result.as_ref().ok().and_then(Reply::waited).map(str::to_string),
            error: result.as_ref().err().map(|e| first_line(&e.to_string())),
            screen: None,
            ended_us: u64::try_from(session.uptime().as_micros()).ok(),
        });
        if let (Ok(reply), Some(command)) = (&result, command) {
            for note in reply.notes() {
                if self.pending.len() < super::REPORT_STEPS {
                    self.pending.push(format!("{}: {note}", command.location));
                }
            }
        }
        if self.log.len() == LOGGED_OPERATIONS {
            self.log.pop_front();
        }
        self.log.push_back(Logged {
            line: command.map_or(0, |c| c.location.line),
            command: command.map_or_else(|| "(runner)".to_string(), |c| self.source(c).into_owned()),
            operation: operation_name(operation).to_string(),
            millis: started.elapsed().as_secs_f64() * 1000.0,
            ok: result.is_ok(),
            waited: result.as_ref().ok().and_then(Reply::waited).map(str::to_string),
        });
        result
    }

    /// A failure at `command`, with the screen and the bundle when a session is running.
    pub(super) fn failure(&self, kind: FailureKind, command: &Command, message: String) -> Failure {
        let mut failure = Failure::new(kind, &self.tape.path, Some(command.location.clone()), message);
        failure.command = Some(self.source(command).into_owned());
        if let Some(session) = &self.session {
            let snapshot = session.snapshot();
            failure.screen = Some(snapshot.text());
            failure.bundle = self.write_bundle(&snapshot, command, &failure);
        }
        failure
    }
}

/// An error's one-line summary, with the cursor's line for a line wait (what VHS calls
/// "the last value").
fn summary(error: &Error) -> String {
    let line = first_line(&error.to_string());
    if let Some(report) = error.wait_error()
        && let Some((row, text)) = &report.closest
    {
        return format!("{line}; closest line: row {row}: {text:?}");
    }
    line
}

fn operation_name(operation: &Operation) -> &'static str {
    match operation {
        Operation::Info => "info",
        Operation::Send { .. } => "send",
        Operation::Wait { .. } => "wait",
        Operation::Capture { .. } => "capture",
        Operation::Resize { .. } => "resize",
        Operation::Exit { .. } => "exit",
    }
}
