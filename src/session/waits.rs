//! The session's waits: every public wait (with its `_timeout` twin), the cancellable
//! forms the executor uses, and the baselines they start from. All of them end in the
//! one waiting loop (`waiting::wait_until`); public ones record their caller's line.

use std::panic::Location;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::Duration;

use super::waiting::{Baseline, Satisfied, wait_until};
use super::{Cancel, Input, Mark, Session, WaitStart};
use crate::error::{Error, Result};
use crate::process::ExitStatus;
use crate::snapshot::Snapshot;
use crate::wait::Condition;

impl Session {
    /// A handle that cancels an [`apply_cancellable`](Self::apply_cancellable) of this
    /// session from another thread.
    pub fn canceller(&self) -> Cancel {
        Cancel {
            flag: Arc::new(AtomicBool::new(false)),
            shared: self.shared.clone(),
        }
    }

    /// Waits for `condition` from `baseline` unless cancelled; the screen when it holds.
    pub(crate) fn wait_screen(
        &self,
        condition: &Condition,
        baseline: Baseline,
        timeout: Duration,
        cancel: Option<&Cancel>,
        caller: Option<&'static Location<'static>>,
    ) -> Result<Snapshot> {
        self.wait_screen_why(condition, baseline, timeout, cancel, caller)
            .map(|(snapshot, _)| snapshot)
    }

    /// Like `wait_screen`, with why the wait ended, in words.
    pub(crate) fn wait_screen_why(
        &self,
        condition: &Condition,
        baseline: Baseline,
        timeout: Duration,
        cancel: Option<&Cancel>,
        caller: Option<&'static Location<'static>>,
    ) -> Result<(Snapshot, String)> {
        let cancelled = cancel.map(|c| &*c.flag);
        let began = std::time::Instant::now();
        let (snapshot, why) = match wait_until(&self.shared, condition, baseline, timeout, cancelled, caller)?
        {
            Satisfied::Screen(snap, why) => (snap, why),
            Satisfied::Exit(status) => (
                self.snapshot(),
                crate::operation::ExitReport::from(Some(status)).words(),
            ),
        };
        let mut state = self.shared.lock();
        state.last_waited = Some(why.clone());
        // A test's wait, kept for its failure's report (the executor's are in the log).
        if caller.is_some() {
            state
                .story
                .note_wait(baseline.at, began, format!("wait for {condition}"), why.clone());
        }
        drop(state);
        Ok((snapshot, why))
    }

    /// Why the last wait that held ended, in words, as every face's reply says it
    /// (`waited`): `matched /Saved/ at row 3`, `ready: htop (pid 4711) polling the terminal
    /// (poll), after htop's 1.5 s timer`. A readiness wait that returned before a timer of
    /// the program due beyond the session's
    /// [`reaction_bound`](crate::SessionBuilder::reaction_bound) says so here: `…; a timer
    /// of vim (pid 4713) is due in 4 s: its reaction may not be drawn yet`.
    pub fn last_waited(&self) -> Option<String> {
        self.shared.lock().last_waited.clone()
    }

    /// Waits for the program's exit unless cancelled.
    pub(crate) fn wait_exit_cancellable(
        &self,
        timeout: Duration,
        cancel: Option<&Cancel>,
        caller: Option<&'static Location<'static>>,
    ) -> Result<ExitStatus> {
        let cancelled = cancel.map(|c| &*c.flag);
        match wait_until(
            &self.shared,
            &Condition::Exit,
            self.baseline(false),
            timeout,
            cancelled,
            caller,
        )? {
            Satisfied::Exit(status) => Ok(status),
            Satisfied::Screen(..) => Err(Error::Closed {
                action: "wait for exit",
                caller: None,
            }),
        }
    }

    /// Pauses for `pause` unless cancelled first.
    pub(crate) fn pause(&self, pause: Duration, cancel: Option<&Cancel>) -> Result<()> {
        let Some(cancel) = cancel else {
            thread::sleep(pause);
            return Ok(());
        };
        let deadline = std::time::Instant::now() + pause;
        let mut state = self.shared.lock();
        loop {
            if cancel.is_cancelled() {
                return Err(Error::Cancelled { action: "the pause" });
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return Ok(());
            }
            state = self.shared.sleep(state, deadline - now);
        }
    }

    /// The baseline of a wait that may be satisfied by the screen as it is now.
    pub(crate) fn baseline_now(&self) -> Baseline {
        Baseline {
            output_offset: 0,
            ..self.baseline(false)
        }
    }

    fn baseline(&self, require_change: bool) -> Baseline {
        Baseline::now(&self.shared.lock(), require_change)
    }

    /// Waits for `condition` with the default timeout; returns the screen when it holds.
    #[track_caller]
    pub fn wait(&self, condition: &Condition) -> Result<Snapshot> {
        self.wait_timeout(condition, self.timeout)
    }

    /// Waits for `condition` with an explicit timeout.
    #[track_caller]
    pub fn wait_timeout(&self, condition: &Condition, timeout: Duration) -> Result<Snapshot> {
        self.wait_screen(
            condition,
            self.baseline_now(),
            timeout,
            None,
            Some(Location::caller()),
        )
    }

    /// [`wait_timeout`](Self::wait_timeout) that `cancel` can end early (with
    /// [`Error::Cancelled`](crate::Error)): for a caller that waits on another thread (a
    /// binding whose user may press Ctrl-C, and whose own traceback names the line).
    pub fn wait_timeout_cancellable(
        &self,
        condition: &Condition,
        timeout: Duration,
        cancel: &Cancel,
    ) -> Result<Snapshot> {
        self.wait_screen(condition, self.baseline_now(), timeout, Some(cancel), None)
    }

    /// Waits until a row of the screen matches the regex `pattern`.
    #[track_caller]
    pub fn wait_for_text(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_text_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_text`](Self::wait_for_text) with an explicit timeout.
    #[track_caller]
    pub fn wait_for_text_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::text(pattern)?, timeout)
    }

    /// Waits until no row of the screen matches `pattern`.
    #[track_caller]
    pub fn wait_for_no_text(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_no_text_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_no_text`](Self::wait_for_no_text) with an explicit timeout.
    #[track_caller]
    pub fn wait_for_no_text_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::no_text(pattern)?, timeout)
    }

    /// Waits until the output since the session started (as much as the log keeps)
    /// matches `pattern`, with escape sequences removed.
    #[track_caller]
    pub fn wait_for_output(&self, pattern: &str) -> Result<Snapshot> {
        self.wait_for_output_timeout(pattern, self.timeout)
    }

    /// Like [`wait_for_output`](Self::wait_for_output) with an explicit timeout.
    #[track_caller]
    pub fn wait_for_output_timeout(&self, pattern: &str, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::output(pattern)?, timeout)
    }

    /// The current position in the output stream.
    pub fn mark(&self) -> Mark {
        Mark(self.shared.lock().log.total())
    }

    /// Waits until the output after `mark` matches `pattern`.
    #[track_caller]
    pub fn wait_for_output_since(&self, mark: Mark, pattern: &str) -> Result<Snapshot> {
        self.wait_for_output_since_timeout(mark, pattern, self.timeout)
    }

    /// Like [`wait_for_output_since`](Self::wait_for_output_since) with an explicit timeout.
    #[track_caller]
    pub fn wait_for_output_since_timeout(
        &self,
        mark: Mark,
        pattern: &str,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let condition = Condition::output(pattern)?;
        let baseline = Baseline {
            output_offset: mark.0,
            ..self.baseline(false)
        };
        self.wait_screen(&condition, baseline, timeout, None, Some(Location::caller()))
    }

    /// Waits until the screen has not changed for `quiet`, counted from this call: a
    /// screen that was already quiet still waits the full period.
    #[track_caller]
    pub fn wait_stable(&self, quiet: Duration) -> Result<Snapshot> {
        self.wait_stable_timeout(quiet, self.timeout)
    }

    /// Like [`wait_stable`](Self::wait_stable) with an explicit timeout.
    #[track_caller]
    pub fn wait_stable_timeout(&self, quiet: Duration, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::Stable(quiet), timeout)
    }

    /// Whether the program waits for input now, as the kernel sees it, with the reason
    /// (see [`readiness`](crate::readiness)): `ready: vim (pid 4711) reading the
    /// terminal`, `busy: sleep (pid 88) sleeping on a timer (clock_nanosleep)`.
    pub fn readiness(&self) -> crate::Readiness {
        super::waiting::readiness(&self.shared)
    }

    /// The screen an export compares with the log's last one to find what drifted (a
    /// clock, a meter, a process list), read once the program has had its chance to
    /// redraw without input. While it runs and may wake by itself before the reaction
    /// bound ([`SessionBuilder::reaction_bound`](crate::SessionBuilder::reaction_bound)) —
    /// a ready program's own timer (htop's refresh), a busy one's sleep (watch's), work
    /// the kernel shows in flight, a signal timer it cannot see, a program it cannot look
    /// at — the screen is watched until it changes, for at most twice the time until it
    /// wakes and half a second more (a loaded machine runs it late), within that bound,
    /// and read once the redraw is whole. A program at rest with nothing due, or ended,
    /// is read at once: an export waits only where drift can show.
    pub fn screen_for_export(&self) -> String {
        let bound = self.shared.lock().reaction_bound;
        let due = |wakes_in: Option<Duration>| {
            wakes_in
                .filter(|due| *due <= bound)
                .map(|due| (due * 2 + Duration::from_millis(500)).min(bound))
        };
        let watch = match self.exit_status() {
            Some(_) => None,
            None => match self.readiness() {
                crate::Readiness::Ready {
                    wakes_in,
                    in_flight,
                    unseen,
                    hidden,
                    ..
                } => match in_flight.is_empty() && unseen.is_empty() && hidden.is_empty() {
                    true => due(wakes_in),
                    false => Some(bound),
                },
                crate::Readiness::Busy { wakes_in, .. } => Some(due(wakes_in).unwrap_or(bound)),
                crate::Readiness::Unknown { .. } => Some(bound),
            },
        };
        if let Some(watch) = watch {
            let seen = self.screen_version();
            if self.wait_for_change(seen, watch) != seen {
                // The rest of the redraw: a frame comes in more than one write.
                let _ = self.wait_timeout(
                    &Condition::Stable(Duration::from_millis(100)),
                    Duration::from_secs(1),
                );
            }
        }
        self.snapshot().text()
    }

    /// Waits until the program has finished reacting and waits for input
    /// ([`Condition::Ready`]); where the kernel cannot tell, until the screen is quiet for
    /// [`READY_FALLBACK_QUIET`](crate::wait::READY_FALLBACK_QUIET).
    #[track_caller]
    pub fn wait_ready(&self) -> Result<Snapshot> {
        self.wait_ready_timeout(self.timeout)
    }

    /// Like [`wait_ready`](Self::wait_ready) with an explicit timeout.
    #[track_caller]
    pub fn wait_ready_timeout(&self, timeout: Duration) -> Result<Snapshot> {
        self.wait_timeout(&Condition::Ready, timeout)
    }

    /// Waits until a shell waits at its prompt ([`Condition::Prompt`]): its first prompt
    /// after start, or the next after a command.
    #[track_caller]
    pub fn wait_prompt(&self) -> Result<Snapshot> {
        self.wait_timeout(&Condition::Prompt, self.timeout)
    }

    /// Waits until a test on the screen passes.
    #[track_caller]
    pub fn wait_for(&self, test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static) -> Result<Snapshot> {
        self.wait_for_timeout(test, self.timeout)
    }

    /// Like [`wait_for`](Self::wait_for) with an explicit timeout.
    #[track_caller]
    pub fn wait_for_timeout(
        &self,
        test: impl Fn(&Snapshot) -> bool + Send + Sync + 'static,
        timeout: Duration,
    ) -> Result<Snapshot> {
        self.wait_timeout(&Condition::predicate(test), timeout)
    }

    /// Waits for the program to exit and returns how it ended.
    #[track_caller]
    pub fn wait_exit(&self) -> Result<ExitStatus> {
        self.wait_exit_timeout(self.timeout)
    }

    /// Like [`wait_exit`](Self::wait_exit) with an explicit timeout.
    #[track_caller]
    pub fn wait_exit_timeout(&self, timeout: Duration) -> Result<ExitStatus> {
        self.wait_exit_cancellable(timeout, None, Some(Location::caller()))
    }

    /// The common pair in one call: presses `keys` (one or several names, as in
    /// [`Input::keys`]) and waits for `pattern` on the screen, with the baseline taken
    /// before the first key — so the old screen never counts as the answer.
    ///
    /// ```
    /// # use tuipilot::Session;
    /// # fn main() -> tuipilot::Result<()> {
    /// let s = Session::builder("sh").env("PS1", "$ ").spawn()?;
    /// s.wait_for_text(r"^\$$")?;
    /// s.send_text("echo ready")?;
    /// s.send_keys_and_wait("Enter", "^ready$")?;
    /// # Ok(())
    /// # }
    /// ```
    #[track_caller]
    pub fn send_keys_and_wait(&self, keys: &str, pattern: &str) -> Result<Snapshot> {
        self.send_and_wait(&Input::keys(keys)?, &Condition::text(pattern)?)
    }

    /// Sends `input` and waits for `condition`, with the baseline taken before writing:
    /// a reply that arrives at once is not missed, and for a text or line condition the screen
    /// must change (or the program print something) after the input before a match counts. Output conditions look only at
    /// output after the input; quiet periods start at the input.
    #[track_caller]
    pub fn send_and_wait(&self, input: &Input, condition: &Condition) -> Result<Snapshot> {
        self.send_and_wait_timeout(input, condition, self.timeout)
    }

    /// Takes the baseline for a later [`wait_since`](Self::wait_since): call it before
    /// sending input, send any number of inputs, then wait. `send_and_wait` in steps.
    pub fn wait_start(&self) -> WaitStart {
        WaitStart(self.baseline(true))
    }

    /// Waits for `condition` measured from `start`: output conditions see only output
    /// after it, text and line conditions need the screen to have changed since it.
    #[track_caller]
    pub fn wait_since(&self, start: &WaitStart, condition: &Condition) -> Result<Snapshot> {
        self.wait_since_timeout(start, condition, self.timeout)
    }

    /// Like [`wait_since`](Self::wait_since) with an explicit timeout.
    #[track_caller]
    pub fn wait_since_timeout(
        &self,
        start: &WaitStart,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<Snapshot> {
        self.wait_screen(condition, start.0, timeout, None, Some(Location::caller()))
    }

    /// Like [`send_and_wait`](Self::send_and_wait) with an explicit timeout.
    #[track_caller]
    pub fn send_and_wait_timeout(
        &self,
        input: &Input,
        condition: &Condition,
        timeout: Duration,
    ) -> Result<Snapshot> {
        let start = {
            let _turn = self.input_turn();
            let start = self.wait_start();
            self.send(input)?;
            start
        };
        self.wait_since_timeout(&start, condition, timeout)
    }
}
