//! What a session learns of its program's timers, and says: a chain of timers that never
//! drew is no longer waited out once learnt — and the reply says so —; a period that draws
//! nothing after input drawn at once ends nothing; a timer beyond the bound that fired
//! without drawing is named, not said pending; and the probe's limits are said, not hit
//! silently.

mod common;

use std::time::Duration;

use tuipilot::Session;
use tuipilot_testenv::needs;

/// The reason of a ready wait after `key`.
fn after(s: &Session, key: &str) -> String {
    s.send_text(key).unwrap();
    s.wait_ready().unwrap();
    s.last_waited().unwrap_or_default()
}

#[test]
fn a_silent_timer_after_each_key_is_waited_out_until_learnt_then_skipped_and_said() {
    // Each key is drawn at once; a 300 ms timer then fires and draws nothing (an idle
    // timer with nothing to do). Waited out three times, then skipped — and said, as what
    // the wait did not wait for (apart from what it saw pending).
    let s = common::fixture_session("deferred")
        .args(["--debounce", "300", "--silent"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for key in ["a", "b", "c"] {
        let why = after(&s, key);
        assert!(why.contains("after deferred's 300 ms timer"), "{key}: {why}");
        assert!(!why.contains("may not be drawn yet"), "{key}: {why}");
    }
    let why = after(&s, "d");
    let unwaited = tuipilot::operation::unwaited_in(&why).unwrap_or_default();
    assert!(
        unwaited.contains("was not waited for") && unwaited.contains("drew nothing the last 3 times"),
        "the skip was not said: {why}"
    );
    assert!(!why.contains("may not be drawn yet"), "said pending: {why}");
    assert_eq!(s.snapshot().row(1), Some("typed: abcd"));
}

#[test]
fn a_silent_timer_that_once_drew_is_always_waited_out() {
    // The same kind of key, a timer that drew once: never skipped after.
    let s = common::fixture_session("deferred")
        .args(["--debounce", "250"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for (round, key) in ["a", "b", "c", "d", "e"].into_iter().enumerate() {
        let why = after(&s, key);
        assert!(
            why.contains("after deferred's 250 ms timer"),
            "round {round}: {why}"
        );
        let typed = "abcde".get(..=round).unwrap();
        assert_eq!(s.snapshot().row(1), Some(format!("typed: {typed}").as_str()));
    }
}

#[test]
fn a_period_that_draws_nothing_after_keys_drawn_at_once_is_learnt_and_ends_nothing() {
    // A 400 ms tick that draws nothing (ranger's 2 s poll), keys drawn at once: the tick
    // is waited out until learnt silent, then the reply says it did not wait for it (not
    // as pending) and returns at once.
    let s = common::fixture_session("deferred")
        .args(["--tick", "400", "--silent"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    let mut reasons = Vec::new();
    for key in ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"] {
        reasons.push(after(&s, key));
        assert!(
            s.snapshot().text().contains("applied: "),
            "{key} not drawn: {}",
            s.snapshot()
        );
    }
    assert!(
        reasons[..3].iter().all(|why| why.contains("after deferred's")),
        "{reasons:#?}"
    );
    let learnt = reasons
        .iter()
        .filter(|why| tuipilot::operation::unwaited_in(why).is_some_and(|it| it.contains("its own period")))
        .count();
    assert!(learnt >= 4, "never learnt: {reasons:#?}");
    assert!(
        reasons.iter().all(|why| !why.contains("may not be drawn yet")),
        "{reasons:#?}"
    );
}

#[test]
fn a_timer_beyond_the_bound_that_fired_without_drawing_is_named_not_said_pending() {
    // A 300 ms idle timer under a bound of 100 ms: beyond it, so said pending the first
    // time. Seen firing without drawing (the screen quiet past its due time, no key in
    // between), it is named after the next key, not said pending.
    let s = common::fixture_session("deferred")
        .args(["--debounce", "300", "--silent"])
        .reaction_bound(Duration::from_millis(100))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    let why = after(&s, "a");
    assert!(why.contains("may not be drawn yet"), "{why}");
    // Quiet well past the timer's due time and the time its drawing is looked for.
    s.wait_stable(Duration::from_millis(900)).unwrap();
    let why = after(&s, "b");
    assert!(why.contains("is due in"), "{why}");
    assert!(!why.contains("may not be drawn yet"), "{why}");
    assert_eq!(s.snapshot().row(1), Some("typed: ab"));
}

#[needs(watch)]
#[test]
fn a_program_that_woke_and_left_the_input_unread_is_not_said_to_read_it_later() {
    // watch reads no input: the first key is said pending (it may read it when it wakes);
    // once it has woken and left it unread, the next key is not.
    let s = Session::builder("watch")
        .args(["-n", "2", "date", "+%s.%N"])
        .timeout(Duration::from_secs(10))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    let why = after(&s, "x");
    assert!(why.contains("may not be drawn yet"), "{why}");
    let before = s.snapshot().text();
    s.wait_for_timeout(move |snap| snap.text() != before, Duration::from_secs(5))
        .unwrap();
    let why = after(&s, "y");
    assert!(why.contains("it reads no input now"), "{why}");
    assert!(!why.contains("may not be drawn yet"), "{why}");
    // And at once after, before it wakes again: the earlier keys are still unread.
    let why = after(&s, "z");
    assert!(why.contains("it reads no input now"), "{why}");
    assert!(!why.contains("may not be drawn yet"), "{why}");
}

#[needs(top)]
#[test]
fn a_period_the_program_rested_with_before_its_last_rest_is_named_not_said_pending() {
    // top rests on its 3 s refresh; its help screen blocks with no timer; leaving it
    // re-arms the refresh — the program's own period, seen at an earlier rest, not a
    // reaction pending. (Said pending on every Esc before.)
    let home = common::TempDir::new("top-home");
    let s = Session::builder("top")
        .args(["-d", "3"])
        .env("HOME", home.0.to_str().unwrap())
        .timeout(Duration::from_secs(10))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for round in 1..=2 {
        after(&s, "h");
        assert!(s.snapshot().text().contains("Help for Interactive Commands"));
        let why = after(&s, "\x1b");
        assert!(!s.snapshot().text().contains("Help for Interactive Commands"));
        assert!(
            why.contains("is due in") && why.contains("as it was at its rest"),
            "round {round}: {why}"
        );
        assert!(!why.contains("may not be drawn yet"), "round {round}: {why}");
    }
}

#[needs(screen)]
#[test]
fn a_command_typed_into_gnu_screen_is_on_the_screen_when_the_ready_wait_returns() {
    // The front end sleeps in pause; the back end (a session of its own, started before
    // the input) and the shell inside it do the work: followed while they run.
    let dir = common::screen_dir();
    let s = Session::builder("screen")
        .args(["-q", "bash", "--norc", "--noprofile"])
        .env("SCREENDIR", dir.0.to_str().unwrap())
        .env("PS1", "$ ")
        .timeout(Duration::from_secs(10))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for n in 1..=5 {
        s.send_text(&format!("echo $(({n}*1111))\r")).unwrap();
        let screen = s.wait_ready().unwrap();
        let want = (n * 1111).to_string();
        assert!(
            screen.text().lines().any(|l| l.trim_end() == want),
            "round {n}: {}\n{screen}",
            s.last_waited().unwrap_or_default()
        );
    }
}

#[test]
fn a_program_of_more_processes_than_the_probe_follows_is_waited_on_by_its_screen_and_says_why() {
    // 2,100 children asleep: past the probe's limit, the wait watches the screen instead
    // and says why; the session ends every one of them.
    let script = "import os, signal, sys\nkids = []\nfor _ in range(2100):\n    pid = os.fork()\n    if pid == 0:\n        signal.pause()\n        os._exit(0)\n    kids.append(pid)\nprint('forked', len(kids), flush=True)\nsys.stdin.readline()\n";
    let s = Session::builder("python3")
        .args(["-c", script])
        .timeout(Duration::from_secs(60))
        .spawn()
        .unwrap();
    s.wait_for_text("^forked 2100$").unwrap();
    s.wait_ready().unwrap();
    let why = s.last_waited().unwrap_or_default();
    assert!(why.contains("too many to follow"), "{why}");
    let sid = s.pid();
    drop(s);
    common::assert_session_gone(sid);
}

#[needs(vim)]
#[test]
fn a_timer_the_program_rested_with_from_its_start_and_each_key_rearms_is_named_not_said_pending() {
    // vim's 4 s `updatetime`, re-armed by every key, beyond the 2 s bound: its rest, named
    // after each key — not a pending reaction on every one.
    let s = Session::builder("vim")
        .args(["--clean", "-n", "-i", "NONE"])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for key in ["i", "a", "b", "c"] {
        let why = after(&s, key);
        assert!(why.contains("is due in"), "{key}: {why}");
        assert!(!why.contains("may not be drawn yet"), "{key}: {why}");
    }
    assert!(s.snapshot().text().starts_with("abc"));
}

#[needs(nmon)]
#[test]
fn a_program_that_reads_its_input_when_it_wakes_is_said_pending_on_every_key() {
    // nmon checks for keys only when its 2 s sleep ends: each key's reaction is pending
    // until then, and said — also once it has woken since an earlier key (and read it).
    let s = Session::builder("nmon")
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for round in 1..=4 {
        let why = after(&s, "c");
        let shown = s.snapshot().text().contains("CPU Utilisation");
        let want = round % 2 == 1;
        assert!(
            shown == want || why.contains("may not be drawn yet"),
            "round {round}: stale without a word: {why}"
        );
        if want {
            s.wait_for_text_timeout("CPU Utilisation", Duration::from_secs(10))
                .unwrap();
        } else {
            s.wait_for_timeout(
                |snap| !snap.text().contains("CPU Utilisation"),
                Duration::from_secs(10),
            )
            .unwrap();
        }
    }
}

#[test]
fn a_shell_that_catches_sigalrm_but_never_draws_on_it_gets_no_note_of_a_signal_timer() {
    // bash catches SIGALRM (for TMOUT and `read -t`) from its start; a timer re-armed
    // under that handler would show nowhere in /proc, but one that drew would show on the
    // screen, and bash never draws unprompted: no note after its commands. (Said on every
    // command before.)
    let s = common::bash().spawn().unwrap();
    s.wait_ready().unwrap();
    // A first command: bash may install its handlers as it runs one (said pending then:
    // a handler installed after the input is seen), before the keys this test is about.
    after(&s, "true\r");
    for n in 1..=3 {
        let why = after(&s, &format!("echo $(({n}*7))\r"));
        assert!(
            s.snapshot()
                .text()
                .lines()
                .any(|l| l.trim_end() == (n * 7).to_string()),
            "{n}: {why}"
        );
        assert!(!why.contains("SIGALRM"), "{n}: {why}");
    }
}
