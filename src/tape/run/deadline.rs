//! `Set TapeTimeout`: the whole run's time limit. A timer thread cancels the session's
//! operations when the time is up, so a wait, a pause or a long `Type` ends at once rather
//! than when its own timeout comes; between commands the runner checks the time itself.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::session::Cancel;

/// A run's time limit, armed once its session is running; dropping it stops the timer.
pub(super) struct Deadline {
    limit: Duration,
    at: Instant,
    /// Dropped to wake the timer before its time: the run ended.
    stop: Option<mpsc::Sender<()>>,
    timer: Option<JoinHandle<()>>,
}

impl Deadline {
    /// A limit of `limit` from `started`, cancelling `cancel` when it passes.
    pub(super) fn arm(started: Instant, limit: Duration, cancel: Cancel) -> Deadline {
        let at = started + limit;
        let (stop, stopped) = mpsc::channel::<()>();
        // Without a thread (none could be made) the checks between commands still hold.
        let timer = std::thread::Builder::new()
            .name("tape-timeout".into())
            .spawn(move || {
                if let Err(RecvTimeoutError::Timeout) =
                    stopped.recv_timeout(at.saturating_duration_since(Instant::now()))
                {
                    cancel.cancel();
                }
            })
            .ok();
        Deadline {
            limit,
            at,
            stop: Some(stop),
            timer,
        }
    }

    /// Whether the time is up.
    pub(super) fn passed(&self) -> bool {
        Instant::now() >= self.at
    }

    /// What a command the limit stopped failed with.
    pub(super) fn message(&self) -> String {
        let limit = humanize(self.limit);
        format!(
            "the tape ran past its TapeTimeout of {limit}; if it needs longer, raise it with `Set TapeTimeout <time>` at the top"
        )
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(timer) = self.timer.take() {
            let _ = timer.join();
        }
    }
}

/// `90s` as `1m30s`, `600s` as `10m`, `1.5s` as `1.5s`.
fn humanize(limit: Duration) -> String {
    let seconds = limit.as_secs_f64();
    let minutes = (seconds / 60.0).floor();
    let rest = seconds - minutes * 60.0;
    match (minutes as u64, rest) {
        (0, rest) => format!("{rest}s"),
        (m, rest) if rest < 1e-9 => format!("{m}m"),
        (m, rest) => format!("{m}m{rest}s"),
    }
}

#[cfg(test)]
mod tests {
    use super::humanize;
    use std::time::Duration;

    #[test]
    fn limits_read_as_a_tape_writes_them() {
        assert_eq!(humanize(Duration::from_secs(600)), "10m");
        assert_eq!(humanize(Duration::from_secs(90)), "1m30s");
        assert_eq!(humanize(Duration::from_millis(1500)), "1.5s");
    }
}
