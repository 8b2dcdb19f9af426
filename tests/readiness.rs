//! Readiness from the kernel on real programs: a program is ready when every process of
//! the terminal's foreground group sleeps and one is blocked on the terminal, and busy,
//! with the reason, otherwise; without the probe, readiness waits hold on a quiet screen.

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

#[test]
#[cfg_attr(not(have_vim), ignore = "needs vim (.ci/run installs it)")]
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
