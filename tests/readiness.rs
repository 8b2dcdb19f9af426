//! Readiness from the kernel on real programs: a program is ready when every process of
//! the terminal's foreground group sleeps and one is blocked on the terminal, and busy,
//! with the reason, otherwise; without the probe, readiness waits hold on a quiet screen.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::{ErrorKind, Readiness, Session};

/// Polls `readiness()` until `test` holds (a generous bound: never a fixed sleep).
fn eventually(s: &Session, test: impl Fn(&Readiness) -> bool) -> Readiness {
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let now = s.readiness();
        if test(&now) || std::time::Instant::now() > deadline {
            return now;
        }
        std::thread::yield_now();
    }
}

#[test]
fn bash_at_its_prompt_is_ready_and_a_command_it_runs_makes_it_busy_until_done() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$").unwrap();
    let ready = eventually(&s, Readiness::is_ready);
    assert!(ready.is_ready(), "{ready}");
    assert!(ready.to_string().contains("bash"), "{ready}");
    // A command that sleeps: the foreground is `sleep`, on a timer.
    s.send_text("sleep 30\r").unwrap();
    let busy = eventually(&s, |r| r.to_string().contains("timer"));
    assert!(busy.to_string().starts_with("busy: sleep (pid "), "{busy}");
    s.send(&tuipilot::Input::keys("C-c").unwrap()).unwrap();
    let ready = eventually(&s, Readiness::is_ready);
    assert!(ready.is_ready(), "{ready}");
}

#[test]
fn wait_ready_after_input_returns_once_the_command_has_finished_and_the_prompt_is_back() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$").unwrap();
    s.wait_ready().unwrap();
    s.send_text("sleep 0.3; echo done-$((6*7))\r").unwrap();
    let screen = s.wait_ready().unwrap();
    let text = screen.text();
    assert!(text.contains("\ndone-42\n$"), "{text}");
}

#[test]
fn a_password_prompt_reading_with_echo_off_is_ready() {
    let s = Session::builder("bash")
        .args([
            "--norc",
            "--noprofile",
            "-c",
            "read -s -p 'Password: ' x; echo; echo got ${#x}; read y",
        ])
        .spawn()
        .unwrap();
    let screen = s.wait_ready().unwrap();
    assert!(screen.text().contains("Password:"), "{}", screen.text());
    s.send_text("hunter2\r").unwrap();
    let screen = s.wait_ready().unwrap();
    assert!(screen.text().contains("got 7"), "{}", screen.text());
}

#[needs(vim)]
#[test]
fn python_vim_and_less_are_ready_at_their_first_screen() {
    for (program, args, shown) in [
        ("python3", vec!["-q"], ">>>"),
        ("vim", vec!["-u", "NONE", "-N", "-n", "-i", "NONE"], "~"),
        ("less", vec!["/etc/passwd"], "root"),
    ] {
        let s = Session::builder(program).args(&args).spawn().unwrap();
        let screen = s.wait_ready().unwrap();
        assert!(screen.text().contains(shown), "{program}: {}", screen.text());
        let now = s.readiness();
        assert!(now.is_ready(), "{program}: {now}");
    }
}

#[test]
fn a_program_computing_or_reading_a_pipe_is_busy_and_a_ready_wait_says_why_it_timed_out() {
    let s = Session::builder("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    let busy = eventually(&s, |r| r.to_string().contains("running"));
    assert!(busy.to_string().contains("running"), "{busy}");
    let error = s.wait_ready_timeout(Duration::from_millis(300)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout);
    assert!(error.to_string().contains("busy: sh (pid"), "{error}");

    // A pipeline whose stages wait on each other, the terminal not watched.
    let s = Session::builder("sh")
        .args(["-c", "sleep 30 | cat"])
        .spawn()
        .unwrap();
    let busy = eventually(&s, |r| {
        let r = r.to_string();
        r.contains("timer") || r.contains("pipe")
    });
    assert!(!busy.is_ready(), "{busy}");
    assert!(
        busy.to_string().contains("timer") || busy.to_string().contains("pipe"),
        "{busy}"
    );
    // And it stays so: no moment of the pipeline reads as ready.
    let error = s.wait_ready_timeout(Duration::from_millis(300)).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::Timeout, "{error}");
}

#[test]
fn without_the_kernel_probe_a_ready_wait_holds_on_a_quiet_screen() {
    let s = common::bash().kernel_readiness(false).spawn().unwrap();
    s.wait_for_text(r"^\$").unwrap();
    assert!(
        matches!(s.readiness(), Readiness::Unknown { .. }),
        "{}",
        s.readiness()
    );
    s.send_text("echo quiet-$((2+3))\r").unwrap();
    let screen = s.wait_ready().unwrap();
    assert!(screen.text().contains("quiet-5"), "{}", screen.text());
}

#[test]
fn wait_prompt_holds_at_a_shells_prompt_whatever_it_looks_like_and_not_during_a_command() {
    let s = Session::builder("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "λ> ")
        .spawn()
        .unwrap();
    let screen = s.wait_prompt().unwrap();
    assert!(screen.text().starts_with("λ>"), "{}", screen.text());
    // During a command the shell has no prompt: the wait holds once the next is drawn.
    s.send_text("sleep 0.3; echo after\r").unwrap();
    let screen = s.wait_prompt().unwrap();
    assert!(screen.text().contains("\nafter\nλ>"), "{}", screen.text());
    // A program that is not a shell: its prompt is its being ready.
    let py = Session::builder("python3").args(["-q"]).spawn().unwrap();
    let screen = py.wait_prompt().unwrap();
    assert!(screen.text().starts_with(">>>"), "{}", screen.text());
}

#[test]
fn the_operation_log_keeps_why_each_wait_ended() {
    use tuipilot::operation::WaitFor;
    let s = common::bash().spawn().unwrap();
    s.apply(&tuipilot::Operation::Wait {
        condition: WaitFor::Ready,
        timeout_ms: None,
    })
    .unwrap();
    s.apply(&tuipilot::Operation::Wait {
        condition: WaitFor::Text(r"^\$".into()),
        timeout_ms: None,
    })
    .unwrap();
    let log = s.operations();
    let waited: Vec<&str> = log.iter().filter_map(|e| e.waited.as_deref()).collect();
    assert_eq!(waited.len(), 2, "{log:?}");
    assert!(waited[0].starts_with("ready: bash (pid "), "{waited:?}");
    assert_eq!(waited[1], r"matched /^\$/ at row 0");
}

/// The number after `label` on the row that starts with it (`tick 7` → 7).
fn count(screen: &tuipilot::Snapshot, label: &str) -> u64 {
    let text = screen.text();
    text.lines()
        .find_map(|row| row.strip_prefix(label))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `{label}N` row on\n{text}"))
}

#[test]
fn a_key_applied_at_the_next_refresh_tick_is_on_the_screen_when_the_ready_wait_returns() {
    // Like htop applying a sort: the key is read at once, drawn at the next tick (400 ms
    // apart), the program waiting in poll with the tick's timer meanwhile. With the old
    // rule (only timers within 50 ms waited out) the wait returned before the tick.
    let s = common::fixture_session("deferred")
        .args(["--tick", "400"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for (round, key) in ["a", "b", "c"].into_iter().enumerate() {
        s.send_text(key).unwrap();
        let screen = s.wait_ready().unwrap();
        let want = &"abc"[..=round];
        assert_eq!(
            screen.row(1),
            Some(format!("applied: {want}").as_str()),
            "{screen}"
        );
        let why = s.last_waited().unwrap();
        assert!(
            why.contains(", after deferred's ") && why.contains(" timer"),
            "{why}"
        );
    }
}

#[test]
fn a_periodic_program_holds_a_ready_wait_about_one_period_after_its_reaction() {
    // A tick every 150 ms forever: the wait waits out the tick that applies the key and
    // then returns, rather than following the ticks for its whole timeout. The tick count
    // says how many periods went by (timing-free: at most the tick that applied the key
    // and the one the wait saw re-armed, and a third for a slow machine).
    let s = common::fixture_session("deferred")
        .args(["--tick", "150"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for key in ["x", "y", "z"] {
        let before = count(&s.snapshot(), "tick ");
        s.send_text(key).unwrap();
        let screen = s.wait_ready().unwrap();
        assert!(screen.text().contains("applied: "), "{screen}");
        let after = count(&screen, "tick ");
        assert!(
            after > before,
            "the tick that applies {key} was not waited out: {screen}"
        );
        assert!(after <= before + 3, "{} ticks went by: {screen}", after - before);
    }
}

#[test]
fn a_debounced_redraw_is_waited_out_and_one_beyond_the_bound_is_said_to_be_pending() {
    // A 300 ms debounce, within the default bound: the redraw is on the screen.
    let s = common::fixture_session("deferred")
        .args(["--debounce", "300"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    s.send_text("hi").unwrap();
    let screen = s.wait_ready().unwrap();
    assert_eq!(screen.row(1), Some("typed: hi"), "{screen}");
    assert!(
        s.last_waited().unwrap().contains("after deferred's 300 ms timer"),
        "{:?}",
        s.last_waited()
    );
    // The same with a bound of 100 ms: the wait returns at once, and says why the screen
    // may not show the reaction yet.
    let s = common::fixture_session("deferred")
        .args(["--debounce", "300"])
        .reaction_bound(Duration::from_millis(100))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    s.send_text("hi").unwrap();
    let screen = s.wait_ready().unwrap();
    assert_eq!(screen.row(1), Some("nothing yet"), "{screen}");
    assert_eq!(screen.row(2), Some("read: 2"), "{screen}");
    let why = s.last_waited().unwrap();
    let pid = s.pid();
    // What is left of the 300 ms, counted from when the timer was first seen.
    let said = regex::Regex::new(&format!(
        r"; a timer of deferred \(pid {pid}\) is due in (\d+) ms: its reaction may not be drawn yet$"
    ))
    .unwrap();
    let left: u64 = said.captures(&why).expect(&why)[1].parse().unwrap();
    assert!((200..=300).contains(&left), "{why}");
    // It was not lost: the typed text is drawn later.
    s.wait_for_text("typed: hi").unwrap();
    // And it is said every time, though the program then waits with the same timer it
    // waited with after the last key (the one suppression that would make it silent).
    for (round, typed) in ["hi!", "hi!!", "hi!!!"].into_iter().enumerate() {
        s.send_text("!").unwrap();
        let screen = s.wait_ready().unwrap();
        let why = s.last_waited().unwrap();
        assert!(
            why.contains("its reaction may not be drawn yet"),
            "round {round} said nothing with {screen}: {why}"
        );
        s.wait_for_text(&format!("typed: {typed}$")).unwrap();
    }
}

#[needs(vim)]
#[test]
fn vim_has_left_insert_mode_when_a_ready_wait_after_esc_returns() {
    // vim after a lone Esc waits 25 ms (showing `^[`), then its 100 ms `ttimeoutlen`,
    // then leaves insert mode; the old rule returned with `-- INSERT --` and `^[` shown.
    let s = Session::builder("vim")
        .args(["--clean", "-n", "-i", "NONE"])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for round in 0..3 {
        s.send(&tuipilot::Input::keys("i").unwrap()).unwrap();
        s.send_text(&format!("x{round}")).unwrap();
        s.send(&tuipilot::Input::keys("Esc").unwrap()).unwrap();
        let screen = s.wait_ready().unwrap();
        let text = screen.text();
        assert!(
            !text.contains("-- INSERT --") && !text.contains("^["),
            "round {round}:\n{text}"
        );
        // Both of vim's timers when the wait saw both (`escape timeout (25 ms, 100 ms)`),
        // only the 100 ms one when the 25 ms had fired before it first looked (a loaded
        // machine): either way the escape timeout was waited out.
        let why = s.last_waited().unwrap();
        assert!(
            why.contains(", after vim's escape timeout (")
                || why.contains(", after vim's 100 ms escape timeout"),
            "{why}"
        );
    }
}

#[needs(emacs)]
#[test]
fn emacs_has_echoed_a_prefix_key_when_the_ready_wait_returns_however_often_its_timers_were_silent() {
    // emacs fires the same timers after a typed key (drawing nothing) and after C-x, where
    // the third echoes `C-x-` a second after the key. Silent timers after typing must not
    // teach the session to skip them after C-x.
    let s = Session::builder("emacs")
        .args(["-nw", "-Q"])
        .size(100, 30)
        .timeout(Duration::from_secs(20))
        .isolated()
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for _ in 0..3 {
        s.send_text("x").unwrap();
        s.wait_ready().unwrap();
    }
    for round in 0..3 {
        s.send(&tuipilot::Input::keys("C-x").unwrap()).unwrap();
        let screen = s.wait_ready().unwrap();
        let last = screen.text().lines().last().unwrap_or("").to_string();
        assert!(
            last.starts_with("C-x-"),
            "round {round}: the echo area is {last:?}"
        );
        s.send(&tuipilot::Input::keys("C-g").unwrap()).unwrap();
        s.wait_ready().unwrap();
    }
}

#[needs(prompt_toolkit)]
#[test]
fn a_timer_that_never_draws_after_typing_stops_being_waited_out() {
    // prompt_toolkit fires a timer 0.5 s after every typed key that draws nothing: after it
    // has been seen silent twice, typing is ready as soon as the key is drawn.
    let s = Session::builder("python3")
        .args([
            "-c",
            "from prompt_toolkit import prompt\nwhile True: print('you said', prompt('pt> '))",
        ])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    let mut reasons = Vec::new();
    for (round, key) in ["a", "b", "c", "d"].into_iter().enumerate() {
        s.send_text(key).unwrap();
        let screen = s.wait_ready().unwrap();
        assert!(
            screen.text().contains(&format!("pt> {}", &"abcd"[..=round])),
            "{screen}"
        );
        reasons.push(s.last_waited().unwrap());
    }
    assert!(reasons[0].contains("after python3's"), "{reasons:#?}");
    assert!(!reasons[3].contains("after python3's"), "{reasons:#?}");
}

#[test]
fn less_following_a_file_is_a_polling_loop_taken_as_waiting_and_said_so() {
    // less in follow mode never blocks on the terminal: it polls it without a timeout and
    // sleeps 2 ms between checks of the file. Before, a ready wait timed out on it.
    let s = Session::builder("less")
        .args(["/etc/passwd"])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    s.send_text("F").unwrap();
    let screen = s.wait_ready().unwrap();
    assert!(screen.text().contains("Waiting for data"), "{screen}");
    let why = s.last_waited().unwrap();
    assert!(why.contains("a polling loop taken as waiting for input"), "{why}");
    // It still reacts: C-c ends following, and it reads the terminal again.
    s.send(&tuipilot::Input::keys("C-c").unwrap()).unwrap();
    let screen = s.wait_ready().unwrap();
    assert!(!screen.text().contains("Waiting for data"), "{screen}");
    assert!(
        s.last_waited().unwrap().contains("reading the terminal"),
        "{:?}",
        s.last_waited()
    );
}

#[test]
fn a_program_asleep_on_its_own_timers_is_idle_and_one_reading_a_pipe_is_not() {
    // Idle: nothing but its own timers can wake it (a frame it printed is whole at once).
    let s = common::sh("echo printed; sleep 30");
    let idle = eventually(&s, |r| r.idle_for(Duration::from_secs(1)));
    assert!(idle.idle_for(Duration::from_secs(1)), "{idle:?}");
    // Not idle: `cat` reads a pipe the world (here `sleep`'s end) can fill at any time.
    let s = common::sh("sleep 30 | cat");
    let busy = eventually(&s, |r| {
        r.to_string().contains("timer") || r.to_string().contains("pipe")
    });
    let now = s.readiness();
    assert!(!now.idle_for(Duration::from_secs(1)), "{busy} / {now:?}");
}

#[needs(textual)]
#[test]
fn a_textual_apps_key_is_drawn_by_its_event_loop_before_the_ready_wait_returns() {
    // Textual reads keys in a thread blocked on the terminal and draws from its asyncio
    // loop's timers after: output came 29-412 ms after "ready" in 6 of 8 tries before.
    let app = "from textual.app import App\nfrom textual.widgets import Static\nclass Counter(App):\n    n = 0\n    def compose(self):\n        yield Static('count: 0', id='c')\n    def on_key(self, event):\n        if event.character == '+':\n            self.n += 1\n            self.query_one('#c').update('count: %d' % self.n)\nCounter().run()";
    let s = Session::builder("python3")
        .args(["-c", app])
        .timeout(Duration::from_secs(30))
        .isolated()
        .spawn()
        .unwrap();
    s.wait_for_text("count: 0").unwrap();
    s.wait_ready().unwrap();
    for n in 1..=10 {
        s.send_text("+").unwrap();
        let screen = s.wait_ready().unwrap();
        assert!(
            screen.text().contains(&format!("count: {n}\n"))
                || screen.text().ends_with(&format!("count: {n}")),
            "key {n}: {}\n{screen}",
            s.last_waited().unwrap_or_default()
        );
    }
}

#[test]
fn a_timer_kept_in_a_timerfd_beside_the_terminal_is_waited_out() {
    // The program polls the terminal and a timerfd with no timeout of its own: the timer
    // is seen only in the timerfd's fdinfo. Without it the wait returned before the redraw.
    let s = common::fixture_session("deferred")
        .args(["--debounce", "300", "--timerfd"])
        .spawn()
        .unwrap();
    s.wait_ready().unwrap();
    for (round, typed) in ["a", "ab", "abc"].into_iter().enumerate() {
        s.send_text(&typed[round..]).unwrap();
        let screen = s.wait_ready().unwrap();
        assert_eq!(
            screen.row(1),
            Some(format!("typed: {typed}").as_str()),
            "{screen}"
        );
        let why = s.last_waited().unwrap();
        assert!(
            why.contains(", after deferred's ") && why.contains(" timer"),
            "{why}"
        );
    }
}

/// Starts `program` and sends a key with a ready wait after each; the reasons, in order
/// (the start's first). Fails if a wait times out (5 s, far past its first second).
fn rest_reasons(program: &str, args: &[&str]) -> Vec<String> {
    let s = Session::builder(program)
        .args(args)
        .timeout(Duration::from_secs(5))
        .spawn()
        .unwrap();
    let mut reasons = Vec::new();
    s.wait_ready()
        .unwrap_or_else(|e| panic!("{program} never ready at its start: {e}"));
    reasons.push(s.last_waited().unwrap_or_default());
    for key in ["j", "k"] {
        s.send_text(key).unwrap();
        s.wait_ready()
            .unwrap_or_else(|e| panic!("{program} never ready after {key}: {e}"));
        reasons.push(s.last_waited().unwrap_or_default());
    }
    reasons
}

// Fails on the code before: every ready wait timed out — watch never reads the terminal,
// nmon checks for keys only when its sleep ends, screen's front end sleeps in pause while
// its back end, in a session of its own, reads the terminal.
#[needs(watch)]
#[test]
fn watch_resting_on_its_period_is_ready_and_says_it_has_not_read_the_input() {
    for why in rest_reasons("watch", &["-n", "2", "date"]) {
        assert!(
            why.contains("resting on its own timer, reading no terminal"),
            "{why}"
        );
    }
}

#[needs(nmon)]
#[test]
fn nmon_asleep_between_key_checks_is_ready_and_says_the_key_is_read_when_it_wakes() {
    let reasons = rest_reasons("nmon", &[]);
    for why in &reasons[1..] {
        assert!(
            why.contains("nmon reads the input when it wakes in") && why.contains("may not be drawn yet"),
            "{why}"
        );
    }
}

#[needs(screen)]
#[test]
fn screens_front_end_asleep_in_pause_is_ready() {
    for why in rest_reasons("screen", &["-q"]) {
        assert!(
            why.contains("asleep in pause") && why.contains("resting with nothing at work"),
            "{why}"
        );
    }
}
