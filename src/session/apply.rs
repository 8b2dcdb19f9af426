//! The one executor: [`Session::apply`] checks an [`Operation`] whole
//! (`operation::check`), then runs it. Every face — the CLI's session hosts, MCP, `once`,
//! tapes — hands its requests here, so one operation behaves the same on each.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Cancel, Input, Session};
use crate::error::Result;
use crate::operation::{Checked, CheckedPicture, CheckedStep, CheckedWait, Info, Operation, Reply, Screen};
use crate::snapshot::Snapshot;
use crate::wait::Condition;

impl Session {
    /// Applies one operation: the executor behind every face. Everything in the operation
    /// (keys, regexes, sizes, render options) is checked before anything is sent.
    ///
    /// ```
    /// use tuipilot::operation::{Operation, Step, WaitFor};
    /// use tuipilot::Session;
    ///
    /// # fn main() -> tuipilot::Result<()> {
    /// let s = Session::builder("sh").env("PS1", "$ ").spawn()?;
    /// s.apply(&Operation::Wait { condition: WaitFor::Text(r"^\$".into()), timeout_ms: None })?;
    /// let reply = s.apply(&Operation::Send {
    ///     steps: vec![Step::Text("echo $((6 * 7))".into()), Step::Keys("Enter".into())],
    ///     wait: Some(WaitFor::Text("^42$".into())),
    ///     timeout_ms: None,
    ///     capture: true,
    ///     secret: false,
    /// })?;
    /// assert!(reply.screen().unwrap().text.contains("42"));
    /// s.apply(&Operation::Exit { timeout_ms: None })?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn apply(&self, operation: &Operation) -> Result<Reply> {
        self.apply_inner(operation, None, false, None)
    }

    /// [`apply`](Self::apply), ended early with [`Error::Cancelled`](crate::Error::Cancelled)
    /// when `cancel` is cancelled from another thread while the operation waits or pauses.
    pub fn apply_cancellable(&self, operation: &Operation, cancel: &Cancel) -> Result<Reply> {
        self.apply_inner(operation, Some(cancel), false, None)
    }

    /// [`apply_cancellable`](Self::apply_cancellable) for a face that knows where in its
    /// caller's code the operation was asked for (Python's `file:line`): the operation log
    /// keeps `source` ([`LoggedOperation::source`](crate::operation::LoggedOperation::source)),
    /// and a report shows it beside the step, as it shows a Rust test's line.
    pub fn apply_from(&self, operation: &Operation, cancel: &Cancel, source: String) -> Result<Reply> {
        self.apply_inner(operation, Some(cancel), false, Some(source))
    }

    /// [`apply`](Self::apply) for what a person did rather than the program driving the
    /// session — keys typed while attached with control, a recording person's keys and
    /// assertions: the same executor, and the operation log, the recording's markers and
    /// so the reports and exports say `typed by a person` ([`LoggedOperation::by_person`](crate::operation::LoggedOperation::by_person)).
    pub fn apply_by_person(&self, operation: &Operation) -> Result<Reply> {
        self.apply_inner(operation, None, true, None)
    }

    fn apply_inner(
        &self,
        operation: &Operation,
        cancel: Option<&Cancel>,
        by_person: bool,
        source: Option<String>,
    ) -> Result<Reply> {
        let began = std::time::Instant::now();
        // What may be kept of the operation (a secret send as its placeholder): its label
        // marks the recording, and it goes into the log.
        let kept = operation.redacted(self.input_is_secret());
        // After input that waited on nothing: whether the program waits for input now. A
        // replay of the log waits for that before doing what this operation did (see
        // `tape::export`); the kernel is asked only where the export will look.
        let after_unwaited_input = self.operation_log().last_is_send_without_wait();
        let ready_before = match operation {
            Operation::Send { .. } | Operation::Capture { wait: None, .. } if after_unwaited_input => {
                match self.readiness() {
                    crate::Readiness::Ready { .. } => Some(true),
                    crate::Readiness::Busy { .. } => Some(false),
                    crate::Readiness::Unknown { .. } => None,
                }
            }
            _ => None,
        };
        let inputs_before = self.shared.lock().reaction.inputs;
        let result = self.execute(operation, &kept, cancel, by_person);
        // A send that failed after writing its input (its wait timed out, the program
        // exited): the input reached the program, and a replay must send it too.
        let failed_after_input = match &result {
            Err(e) if self.shared.lock().reaction.inputs > inputs_before => match e.kind() {
                crate::ErrorKind::Timeout => Some(crate::operation::AfterInput::TimedOut),
                crate::ErrorKind::Exited | crate::ErrorKind::ExitedWhileWaiting => {
                    Some(crate::operation::AfterInput::Exited)
                }
                _ => None,
            },
            _ => None,
        };
        let (error, screen, waited) = match &result {
            Ok(reply) => (
                None,
                match reply {
                    // A send that waited ended on the screen its wait returned: kept, so
                    // an export knows what the session saw when it went on.
                    Reply::Sent { waited: Some(_), .. } => self.shared.lock().last_send_screen.take(),
                    reply => reply.screen().map(|s| s.text.clone()),
                }
                .filter(|text| !text.is_empty()),
                reply.waited().map(str::to_string),
            ),
            Err(e) => (
                Some(e.to_string().lines().next().unwrap_or("").to_string()),
                // A wait that gave up, alone or after a send's input, keeps the screen the
                // session went on from: a replay waits for what it showed instead (a
                // program never ready at its start; the answer to input typed next).
                (e.kind() == crate::ErrorKind::Timeout
                    && (matches!(operation, Operation::Wait { .. })
                        || failed_after_input == Some(crate::operation::AfterInput::TimedOut)))
                .then(|| self.snapshot().text())
                .filter(|text| !text.trim().is_empty()),
                None,
            ),
        };
        // A secret send's error is left out too when it could quote the input (a key name).
        let error = match (&result, &error) {
            (Err(e), Some(_)) if kept.is_secret() && e.kind() == crate::ErrorKind::BadInput => {
                Some("bad input (left out: the input was secret)".to_string())
            }
            _ => error,
        };
        // How the operation ended marks the recording too, right after what it did: a
        // player's marker list then reads "send Enter +wait ready", "→ ready: vim …".
        if self.is_recording() {
            match (&waited, &error) {
                (Some(why), _) => self.add_marker(&format!("→ {why}")),
                (None, Some(error)) => self.add_marker(&format!("→ failed: {error}")),
                (None, None) => {}
            }
        }
        self.operation_log().push(
            &kept,
            began,
            crate::operation::Outcome {
                error,
                screen,
                waited,
                ready_before,
                by_person,
                source,
                failed_after_input,
            },
        );
        // The operation as logged goes into the recording too: an export can start there.
        if self.is_recording()
            && let Some(logged) = self.operation_log().last()
            && let Ok(json) = serde_json::to_string(&logged)
        {
            self.record_event(crate::record::OPERATION_EVENT, json);
        }
        result
    }

    fn execute(
        &self,
        operation: &Operation,
        kept: &Operation,
        cancel: Option<&Cancel>,
        by_person: bool,
    ) -> Result<Reply> {
        let checked = operation.checked(self.timeout())?;
        if self.is_recording() {
            self.add_marker(&crate::operation::by_person_label(kept, by_person));
        }
        match checked {
            Checked::Info => Ok(Reply::Info(self.info())),
            Checked::Send {
                steps,
                wait,
                timeout,
                capture,
                secret,
            } => {
                // The steps and the wait's baseline are one unit: no other request's input
                // lands between them, and requests are served in arrival order.
                let start = {
                    let _turn = self.input_turn();
                    let _hidden = self.hide_input_if(secret);
                    let start = self.wait_start();
                    for step in steps {
                        match step {
                            CheckedStep::Input(input) => self.send_from(&input, None)?,
                            CheckedStep::Sleep(pause) => self.pause(pause, cancel)?,
                            CheckedStep::PerKey(inputs) => self.send_per_key(inputs, None)?,
                            CheckedStep::Type(text, pause) => {
                                let mut buffer = [0u8; 4];
                                for c in text.chars() {
                                    let typed = c.encode_utf8(&mut buffer);
                                    self.send_from(&Input::Text(typed.to_string()), None)?;
                                    if !pause.is_zero() {
                                        self.pause(pause, cancel)?;
                                    }
                                }
                            }
                        }
                    }
                    start
                };
                let waited = match wait {
                    Some(wait) => Some(self.wait_why(&wait, start.baseline(), timeout, cancel)?),
                    None => None,
                };
                Ok(match (capture, waited) {
                    (false, waited) => {
                        if let Some((snapshot, _)) = &waited {
                            self.shared.lock().last_send_screen = Some(snapshot.text());
                        }
                        let why = waited.map(|(_, why)| why);
                        Reply::Sent {
                            pending: why.as_deref().and_then(crate::operation::pending_in),
                            unwaited: why.as_deref().and_then(crate::operation::unwaited_in),
                            waited: why,
                        }
                    }
                    (true, Some((snapshot, why))) => {
                        let mut screen = self.screen_of(&snapshot, snapshot.text());
                        screen.set_waited(Some(why));
                        Reply::Screen { screen }
                    }
                    (true, None) => {
                        let snapshot = self.snapshot();
                        Reply::Screen {
                            screen: self.screen_of(&snapshot, snapshot.text()),
                        }
                    }
                })
            }
            Checked::Wait {
                wait:
                    CheckedWait {
                        condition: Condition::Exit,
                        ..
                    },
                timeout,
            } => Ok(Reply::Exit(
                self.wait_exit_cancellable(timeout, cancel, None)?.into(),
            )),
            Checked::Wait { wait, timeout } => {
                let (snapshot, why) = self.wait_why(&wait, self.baseline_now(), timeout, cancel)?;
                let mut screen = self.screen_of(&snapshot, snapshot.text());
                screen.set_waited(Some(why));
                Ok(Reply::Screen { screen })
            }
            Checked::Capture {
                wait,
                timeout,
                ansi,
                scrollback,
                png,
                svg,
                text: with_text,
                mask,
                scrolled_back,
            } => {
                #[cfg(feature = "render")]
                for picture in png.iter().chain(&svg) {
                    // A picture too large to draw is refused before the wait, not after.
                    let (cols, rows) = self.size();
                    crate::render::image_size(cols, rows, &picture.options)?;
                }
                let (snapshot, waited) = match wait {
                    Some(wait) => {
                        let (live, why) = self.wait_why(&wait, self.baseline_now(), timeout, cancel)?;
                        // The wait reads the live screen; the picture is of the view asked for.
                        if scrolled_back == 0 {
                            (live, Some(why))
                        } else {
                            (self.snapshot_scrolled_back(scrolled_back), Some(why))
                        }
                    }
                    None => (self.snapshot_scrolled_back(scrolled_back), None),
                };
                // The text: a mask's match becomes one placeholder whatever its length
                // (`pytest-9`, `pytest-10`); the cells, so the picture and the ANSI text,
                // keep its width, so no column moves.
                let plain = (with_text && !ansi).then(|| crate::snapshot::mask_rows(&snapshot.text(), &mask));
                let snapshot = if mask.is_empty() {
                    snapshot
                } else {
                    snapshot.masked_regexes(&mask)
                };
                let mut text = match (with_text, ansi) {
                    (false, _) => String::new(),
                    (true, true) => snapshot.ansi(),
                    (true, false) => plain.unwrap_or_default(),
                };
                if with_text && scrollback {
                    let mut lines = self.scrollback();
                    lines.push(text);
                    text = lines.join("\n");
                }
                let mut screen = self.screen_of(&snapshot, text);
                screen.set_waited(waited);
                #[cfg(feature = "render")]
                {
                    let options = png.as_ref().map(|p| p.options.clone()).unwrap_or_default();
                    screen.missing_glyphs = crate::render::missing_glyphs(&snapshot, &options)?
                        .into_iter()
                        .map(|c| format!("U+{:04X}", u32::from(c)))
                        .collect();
                }
                if let Some(png) = png {
                    render_png(&snapshot, *png, &mut screen)?;
                }
                if let Some(svg) = svg {
                    write_svg(&snapshot, *svg, &mut screen)?;
                }
                self.remember_capture(snapshot);
                Ok(Reply::Screen { screen })
            }
            Checked::Resize { cols, rows } => {
                self.resize_from(cols, rows, None)?;
                Ok(Reply::Resized { cols, rows })
            }
            Checked::Exit { grace } => {
                let status = match grace {
                    Some(grace) => self.exit_within(grace)?,
                    None => self.exit()?,
                };
                Ok(Reply::Exit(status.into()))
            }
        }
    }

    /// Waits as `wait` says, from `baseline`: the screen it ended on and why. A settling
    /// wait turns the time running out into the screen as it is then, with what was still
    /// true, and the program's exit into the screen it left.
    fn wait_why(
        &self,
        wait: &CheckedWait,
        baseline: crate::session::Baseline,
        timeout: Duration,
        cancel: Option<&Cancel>,
    ) -> Result<(Snapshot, String)> {
        match self.wait_screen_why(&wait.condition, baseline, timeout, cancel, None) {
            Err(crate::Error::Timeout(report)) if wait.settle => {
                let report = report.to_string();
                let why = crate::wait::still_true(&report).unwrap_or("still busy");
                Ok((
                    self.snapshot(),
                    format!("{}{} ms: {why}", crate::operation::NOT_READY, timeout.as_millis()),
                ))
            }
            Err(crate::Error::ExitedWhileWaiting(_)) if wait.settle => {
                let snapshot = self.snapshot();
                let words = crate::operation::ExitReport::from(snapshot.exit_status().cloned()).words();
                Ok((snapshot, words))
            }
            result => result,
        }
    }

    /// A reply's screen: the snapshot's fields with `text`, the program's signals now, how
    /// settled it is, and the rows changed since the last capture.
    fn screen_of(&self, snapshot: &Snapshot, text: String) -> Screen {
        let mut screen = Screen::of(snapshot, text);
        screen.signals = Box::new(self.signal_report());
        screen.settled_ms = self.settled().as_millis() as u64;
        (screen.changed_rows, screen.changes) = self.changes_since_capture(snapshot);
        screen
    }

    /// The session's identity and state, as the `info` operation reports it.
    pub fn info(&self) -> Info {
        let (cols, rows) = self.size();
        let exit = self.exit_status();
        let started = self.started();
        Info {
            pid: self.pid(),
            command: self
                .command()
                .iter()
                .map(|a| a.to_string_lossy())
                .collect::<Vec<_>>()
                .join(" "),
            cols,
            rows,
            running: exit.is_none(),
            mouse: self.input_modes().mouse,
            exit: exit.into(),
            started_unix: started.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()),
            age_secs: SystemTime::now()
                .duration_since(started)
                .map_or(0, |d| d.as_secs()),
        }
    }
}

#[cfg(feature = "render")]
fn render_png(snapshot: &Snapshot, png: CheckedPicture, screen: &mut Screen) -> Result<()> {
    let image = snapshot.render(&png.options)?;
    let bytes = image.to_png(png.options.compression)?;
    if let Some(path) = &png.path {
        crate::files::write_file_atomically(path, &bytes)?;
        screen.png = Some(path.clone());
    }
    screen.width = Some(image.width);
    screen.height = Some(image.height);
    screen.png_bytes = Some(bytes);
    Ok(())
}

#[cfg(not(feature = "render"))]
fn render_png(_: &Snapshot, png: CheckedPicture, _: &mut Screen) -> Result<()> {
    match png {}
}

#[cfg(feature = "render")]
fn write_svg(snapshot: &Snapshot, svg: CheckedPicture, screen: &mut Screen) -> Result<()> {
    let text = crate::render::to_svg(snapshot, &svg.options, svg.frame)?;
    if let Some(path) = &svg.path {
        crate::files::write_file_atomically(path, text.as_bytes())?;
        screen.svg = Some(path.clone());
    }
    Ok(())
}

#[cfg(not(feature = "render"))]
fn write_svg(_: &Snapshot, svg: CheckedPicture, _: &mut Screen) -> Result<()> {
    match svg {}
}
