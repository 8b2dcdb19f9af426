//! A failing test's session kept for a person: `TUIPILOT_KEEP=1 cargo test` (pytest:
//! `--tuipilot-keep`) keeps the program of a test that fails alive, watchable by name
//! ([`super::point`]), so its author can run the `attach` command the test's stderr
//! shows, look at the screen the test gave up on, and take over with `--control`.
//!
//! What is kept, and for how long, is bounded: a session is kept only while its test
//! unwinds from a failure (a hang ends as a failure too, when its wait times out), until
//! the person who attached leaves, the program exits, or — with nobody attached — the
//! time `TUIPILOT_KEEP` gives passes (`1`: [`DEFAULT_KEEP`]; or a time with its unit,
//! `90s`, `15m`, at most [`MAX_KEEP`]). The test's thread waits meanwhile, so the test
//! run ends when the last kept session does. Nothing is kept where `CI` is set: nobody
//! there can attach.

use std::time::{Duration, Instant};

use super::Watched;
use super::point::{Watchers, serve_borrowed};
use crate::{Error, Result};

/// The variable that asks for failing tests' sessions to be kept.
pub const KEEP_ENV: &str = "TUIPILOT_KEEP";

/// How long a session is kept for a person to attach when `TUIPILOT_KEEP=1`.
pub const DEFAULT_KEEP: Duration = Duration::from_secs(10 * 60);

/// The longest a session is kept with nobody attached.
pub const MAX_KEEP: Duration = Duration::from_secs(60 * 60);

/// How long `TUIPILOT_KEEP` asks to keep a failing test's session: `None` when unset,
/// empty or off (`0`, `false`, `no`, `off`).
pub fn keep_from_env() -> Result<Option<Duration>> {
    match std::env::var(KEEP_ENV) {
        Ok(value) => parse_keep(&value),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(value)) => Err(bad_keep(&value.to_string_lossy())),
    }
}

/// [`keep_from_env`]'s reading of a value.
pub fn parse_keep(value: &str) -> Result<Option<Duration>> {
    let value = value.trim();
    match value.to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "no" | "off" => return Ok(None),
        "1" | "true" | "yes" | "on" => return Ok(Some(DEFAULT_KEEP)),
        _ => {}
    }
    let (number, unit) = value.split_at(value.find(|c: char| !c.is_ascii_digit()).unwrap_or(value.len()));
    let seconds_per = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        _ => return Err(bad_keep(value)),
    };
    let seconds = number
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(seconds_per))
        .ok_or_else(|| bad_keep(value))?;
    let kept = Duration::from_secs(seconds);
    if kept > MAX_KEEP {
        return Err(Error::InvalidEnv {
            name: KEEP_ENV,
            value: value.to_string(),
            expected: "at most 1h: a kept session waits for a person, and the test run waits for it",
        });
    }
    Ok(Some(kept))
}

fn bad_keep(value: &str) -> Error {
    Error::InvalidEnv {
        name: KEEP_ENV,
        value: value.to_string(),
        expected: "1 (keep a failing test's session 10 minutes), 0, or a time with its unit (90s, 15m, 1h)",
    }
}

/// Why a kept session stopped being kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeptUntil {
    /// Someone attached, and the last watcher left.
    WatcherLeft,
    /// The program exited.
    ProgramExited,
    /// Nobody attached in the time given.
    NobodyCame,
    /// The caller cancelled the keeping (Ctrl-C in pytest).
    Cancelled,
    /// Not kept at all: `CI` is set, and nobody there can attach.
    NotInCi,
}

/// Keeps `session` watchable as `name` for a person: says so through `say` (a line with
/// the `attach` command), then waits until the watcher who came has left, the program
/// exits, nobody has come for `bound`, or `stop` says to (Ctrl-C in pytest); says which,
/// and returns it. The runtime directory is the environment's (`TUIPILOT_DIR`, else the
/// user's); where `CI` is set nothing is kept, and that is said.
pub fn keep(
    session: &dyn Watched,
    name: &str,
    bound: Duration,
    stop: &dyn Fn() -> bool,
    say: &dyn Fn(&str),
) -> Result<KeptUntil> {
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        say("tuipilot: the failed test's session is not kept: CI is set, and nobody there can attach");
        return Ok(KeptUntil::NotInCi);
    }
    let started = Instant::now();
    let mut ended = KeptUntil::NobodyCame;
    let mut told = false;
    let dir = super::runtime::runtime_dir_from_env();
    serve_borrowed(
        &dir,
        name,
        session,
        "a failed test, kept",
        |watchers: Watchers| {
            if !told {
                told = true;
                say(&format!(
                    "tuipilot: the failed test's session `{name}` ({}, pid {}) is kept for {}: run `tuipilot -s {name} attach` to watch it (add --control to type); {} there lets the test end",
                    session.program(),
                    session.pid(),
                    words(bound),
                    super::LEAVE_KEY_NAME,
                ));
            }
            ended = if stop() {
                KeptUntil::Cancelled
            } else if session.snapshot().exit.is_some() {
                KeptUntil::ProgramExited
            } else if watchers.ever > 0 && watchers.now == 0 {
                KeptUntil::WatcherLeft
            } else if watchers.ever == 0 && started.elapsed() >= bound {
                KeptUntil::NobodyCame
            } else {
                return true;
            };
            false
        },
    )?;
    say(&format!(
        "tuipilot: kept session `{name}` let go: {}",
        match ended {
            KeptUntil::WatcherLeft => "the watcher left".to_string(),
            KeptUntil::ProgramExited => "the program exited".to_string(),
            KeptUntil::NobodyCame => format!("nobody attached within {}", words(bound)),
            KeptUntil::Cancelled => "interrupted".to_string(),
            KeptUntil::NotInCi => "CI is set".to_string(),
        }
    ));
    Ok(ended)
}

/// A failing test's name as a session name: the test thread's name (`module::test`)
/// with what a name cannot hold turned into `-`, its end kept when too long, and a number
/// after it when `taken` says the name is in use.
pub fn name_for_test(test: Option<&str>, taken: impl Fn(&str) -> bool) -> String {
    let base: String = match test.filter(|t| !t.is_empty() && *t != "main") {
        Some(test) => test
            .replace("::", ".")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "._-".contains(c) {
                    c
                } else {
                    '-'
                }
            })
            .collect(),
        None => format!("test-{}", std::process::id()),
    };
    let base = base.trim_matches('.').to_string();
    let fit = |name: &str, room: usize| -> String {
        let skip = name.len().saturating_sub(room);
        name[skip..].trim_start_matches('.').to_string()
    };
    let first = fit(&base, super::runtime::MAX_NAME);
    if !taken(&first) {
        return first;
    }
    (2..100)
        .map(|n| {
            let suffix = format!("-{n}");
            format!("{}{suffix}", fit(&base, super::runtime::MAX_NAME - suffix.len()))
        })
        .find(|name| !taken(name))
        .unwrap_or(first)
}

/// [`name_for_test`] free in the environment's runtime directory: what a kept session of
/// test `test` is named.
pub fn free_name_for_test(test: Option<&str>) -> String {
    let names = super::runtime::session_names(&super::runtime::runtime_dir_from_env());
    name_for_test(test, |name| names.iter().any(|n| n == name))
}

/// A bound in words (`10 min`, `90 s`).
fn words(bound: Duration) -> String {
    let seconds = bound.as_secs();
    if seconds >= 60 && seconds.is_multiple_of(60) {
        format!("{} min", seconds / 60)
    } else {
        format!("{seconds} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_takes_on_off_and_times_with_units() {
        assert_eq!(parse_keep("").unwrap(), None);
        assert_eq!(parse_keep("0").unwrap(), None);
        assert_eq!(parse_keep("1").unwrap(), Some(DEFAULT_KEEP));
        assert_eq!(parse_keep("90s").unwrap(), Some(Duration::from_secs(90)));
        assert_eq!(parse_keep("15m").unwrap(), Some(Duration::from_secs(900)));
        for bad in ["5", "ten", "0s", "2h", "-1m", "1.5m"] {
            let err = parse_keep(bad).unwrap_err().to_string();
            assert!(err.contains("TUIPILOT_KEEP"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_test_name_becomes_a_session_name_that_is_free() {
        let free = |_: &str| false;
        assert_eq!(name_for_test(Some("ui::a_menu_opens"), free), "ui.a_menu_opens");
        let long = format!("m::{}", "x".repeat(80));
        let name = name_for_test(Some(&long), free);
        assert_eq!(name.len(), 64);
        assert!(super::super::runtime::check_name(&name).is_ok());
        let taken = |n: &str| n == "ui.t";
        assert_eq!(name_for_test(Some("ui::t"), taken), "ui.t-2");
        assert!(name_for_test(None, free).starts_with("test-"));
    }
}
