//! Readiness proved by mechanism, not by program: the reactions fixture (in Python,
//! `fixtures/reactions.py`, and in C, `fixtures/reactions.c`) draws its reaction
//! to a key after a delay, by each of the ways the kernel can wake a program (a relative or
//! absolute sleep, a futex, poll/select/epoll timeouts, a timerfd, a signal timer, a pipe or
//! a socket whose writer sleeps, a child, computing), in each of the places a program can
//! run it (the reading thread, another thread, a child in the same process group, in a
//! group or session of its own, a grandchild), with and without interference (a periodic
//! poll in the reading thread, a spinner drawing). Every combination must return the
//! reaction, or say that it may still be pending: never a stale screen without a word.

mod common;

use std::time::Duration;

use tuipilot::Session;

use common::reactions::{Fixture, MECHANISMS, PLACES};

/// One round: the key's reaction is on the screen when the ready wait returns, or the
/// wait said it may be pending. Returns what went wrong, if anything.
fn round(
    fixture: Fixture,
    mechanism: &str,
    place: &str,
    delay_ms: u64,
    interference: &[&str],
    bound: Duration,
) -> Option<String> {
    let mut command = fixture.command();
    command.extend([mechanism.to_string(), place.to_string(), delay_ms.to_string()]);
    command.extend(interference.iter().map(|a| a.to_string()));
    let case = format!(
        "{} {mechanism} in {place} after {delay_ms} ms {interference:?}",
        fixture.name()
    );
    let s = Session::builder(&command[0])
        .args(&command[1..])
        .reaction_bound(bound)
        .spawn()
        .unwrap();
    s.wait_for_text("^ready$").unwrap();
    s.wait_ready().unwrap();
    s.send_text("k").unwrap();
    let screen = match s.wait_ready() {
        Ok(screen) => screen,
        Err(e) => {
            return Some(format!("{case}: the wait failed: {e}"));
        }
    };
    let why = s.last_waited().unwrap_or_default();
    let drawn = screen.text().contains("reacted 1");
    let said = why.contains("may not be drawn yet");
    // It was not lost: drawn in the end either way.
    let later = s
        .wait_for_text_timeout("reacted 1", Duration::from_secs(20))
        .is_ok();
    let _ = s.send_text("q");
    if !later {
        return Some(format!("{case}: the reaction never came ({why}):\n{screen}"));
    }
    if !(drawn || said) {
        return Some(format!("{case}: stale without a word ({why}):\n{screen}"));
    }
    // Within the bound, a timer the kernel shows is waited out, not merely said: only a
    // signal timer's due time is hidden.
    let visible = !matches!(mechanism, "alarm" | "posix-timer");
    if visible && Duration::from_millis(delay_ms) < bound && !drawn {
        return Some(format!("{case}: said pending, not waited out ({why})"));
    }
    None
}

/// Every mechanism in every place, in both languages, `delay_ms` after the key, with
/// `interference`, under a reaction bound of `bound`: four rounds at a time (the fixture
/// mostly sleeps).
fn matrix(delay_ms: u64, interference: &[&str], bound: Duration) {
    let cases: Vec<(Fixture, &str, &str)> = Fixture::ALL
        .iter()
        .flat_map(|f| MECHANISMS.iter().map(move |m| (*f, *m)))
        .flat_map(|(f, m)| PLACES.iter().map(move |p| (f, m, *p)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some((fixture, mechanism, place)) =
                    cases.get(next.fetch_add(1, std::sync::atomic::Ordering::SeqCst))
                {
                    if let Some(failure) = round(*fixture, mechanism, place, delay_ms, interference, bound) {
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {} stale:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn every_mechanism_in_every_place_returns_a_reaction_due_in_400_ms() {
    matrix(400, &[], tuipilot::wait::REACTION_BOUND);
}

#[test]
fn every_mechanism_in_every_place_returns_a_reaction_due_in_30_ms() {
    matrix(30, &[], tuipilot::wait::REACTION_BOUND);
}

#[test]
fn every_mechanism_in_every_place_returns_a_reaction_due_in_1500_ms() {
    matrix(1500, &[], tuipilot::wait::REACTION_BOUND);
}

#[test]
fn a_reaction_due_beyond_the_bound_is_said_to_be_pending_whatever_its_mechanism_and_place() {
    // 400 ms under a bound of 250 ms: beyond it, as a 2.5 s reaction is beyond the default.
    matrix(400, &[], Duration::from_millis(250));
}

#[test]
fn a_periodic_poll_in_the_reading_thread_hides_no_reaction_in_another_place() {
    matrix(400, &["--poller", "100"], tuipilot::wait::REACTION_BOUND);
}

#[test]
fn a_spinner_drawing_in_another_thread_hides_no_reaction() {
    matrix(400, &["--spinner", "100"], tuipilot::wait::REACTION_BOUND);
}

#[test]
fn a_signal_timer_rearmed_under_a_handler_installed_before_is_said_on_every_key() {
    // The second key's setitimer runs under the SIGALRM handler the first installed:
    // nothing in /proc changes, so the reply must say that such a timer was not waited
    // for (the first key's, under a handler it installed, is seen and said pending).
    // And with a 100 ms poll in the reading thread, whose ticks draw nothing: it must not
    // be taken for what drew the alarm's reaction.
    for (fixture, poller) in Fixture::ALL.iter().flat_map(|f| [(*f, false), (*f, true)]) {
        for place in ["main", "thread"] {
            let mut command = fixture.command();
            command.extend(["alarm".into(), place.into(), "400".into()]);
            if poller {
                command.extend(["--poller".into(), "100".into()]);
            }
            let s = Session::builder(&command[0]).args(&command[1..]).spawn().unwrap();
            s.wait_for_text("^ready$").unwrap();
            s.wait_ready().unwrap();
            for n in 1..=3 {
                s.send_text("k").unwrap();
                let screen = s.wait_ready().unwrap();
                let why = s.last_waited().unwrap_or_default();
                let said = match n {
                    1 => why.contains("may not be drawn yet"),
                    _ => tuipilot::operation::unwaited_in(&why)
                        .is_some_and(|it| it.contains("catches SIGALRM")),
                };
                assert!(
                    screen.text().contains(&format!("reacted {n}")) || said,
                    "{} alarm in {place} (poller: {poller}), key {n}: stale without a word ({why})",
                    fixture.name()
                );
                s.wait_for_text(&format!("reacted {n}")).unwrap();
            }
            let _ = s.send_text("q");
        }
    }
}
