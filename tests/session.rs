//! Session behaviour on real processes: environment, waits, atomic send-and-wait,
//! timeouts and their reports, exit statuses, and every bad input's error.

use tuipilot_testenv::needs;
mod common;
use common::sh;

use std::time::{Duration, Instant};

use tuipilot::{Condition, Error, ErrorKind, ExitStatus, Input, Session};

#[test]
fn child_environment_policy() {
    let s = Session::builder("sh")
        .args(["-c", "echo \"T=$TERM C=$COLORTERM L=${LINES-unset} W=${COLUMNS-unset} X=$EXTRA\"; locale charmap 2>/dev/null || echo nolocale; pwd"])
        .env("EXTRA", "yes")
        .env("LINES", "7")
        .env_remove("LINES")
        .spawn()
        .unwrap();
    s.wait_exit().unwrap();
    let text = s.snapshot().text();
    assert!(
        text.contains("T=xterm-256color C=truecolor L=unset W=unset X=yes"),
        "{text}"
    );
    assert!(
        text.contains("UTF-8"),
        "a UTF-8 locale is set when none is: {text}"
    );
    let here = std::env::current_dir().unwrap();
    assert!(
        text.contains(here.to_str().unwrap()),
        "cwd is the caller's, not $HOME: {text}"
    );
}

#[test]
fn cwd_can_be_set() {
    let dir = common::TempDir::new("cwd");
    let s = Session::builder("pwd").cwd(&dir.0).spawn().unwrap();
    s.wait_exit().unwrap();
    assert_eq!(s.snapshot().row(0), Some(dir.0.to_str().unwrap()));
}

#[test]
fn tput_sees_the_size() {
    for (cols, rows) in [(80, 24), (132, 40), (10, 2)] {
        let s = Session::builder("sh")
            .args(["-c", "echo $(tput cols) $(tput lines)"])
            .size(cols, rows)
            .spawn()
            .unwrap();
        s.wait_exit().unwrap();
        assert_eq!(s.snapshot().row(0), Some(format!("{cols} {rows}").as_str()));
    }
}

#[test]
fn resize_reaches_the_program() {
    let s =
        sh("trap 'echo winch $(tput cols)x$(tput lines)' WINCH; echo ready; while :; do sleep 0.05; done");
    s.wait_for_text("ready").unwrap();
    s.resize(100, 30).unwrap();
    s.wait_for_text("winch 100x30").unwrap();
    assert_eq!(s.size(), (100, 30));
    assert_eq!(s.snapshot().size(), (100, 30));
    assert!(matches!(s.resize(5, 30), Err(Error::InvalidSize { .. })));
}

#[test]
fn exit_codes_and_signals() {
    let s = sh("exit 3");
    assert_eq!(s.wait_exit().unwrap(), ExitStatus::Exited(3));
    let s = sh("kill -TERM $$");
    let status = s.wait_exit().unwrap();
    assert_eq!(status, ExitStatus::Signaled(15));
    assert_eq!(status.signal().as_deref(), Some("SIGTERM"));
    assert_eq!(status.to_string(), "was killed by SIGTERM");
    assert!(sh("true").wait_exit().unwrap().success());
}

#[test]
fn final_output_is_on_screen_when_exit_is_reported() {
    let s = sh("i=0; while [ $i -lt 200 ]; do echo line $i; i=$((i+1)); done; printf 'the end'");
    s.wait_exit().unwrap();
    assert_eq!(s.snapshot().row(23), Some("the end"));
    assert_eq!(s.scrollback().first().map(String::as_str), Some("line 0"));
}

#[test]
fn send_and_wait_never_mistakes_the_old_screen_for_the_reply() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    // The prompt is already on screen: a plain wait would return at once. The atomic
    // form requires a change after the input, so it returns the screen after `sleep`.
    let screen = s
        .send_and_wait(
            &Input::text("sleep 0.3; echo done\r"),
            &Condition::text(r"^\$$").unwrap(),
        )
        .unwrap();
    assert!(screen.contains("done"), "{screen}");
    s.exit().unwrap();
}

#[test]
fn send_and_wait_takes_a_reply_that_redraws_the_same_screen() {
    // No echo, and the answer to Enter is a clear and the very same prompt: the screen
    // after the input looks like the one before it, but the program did answer.
    let s = Session::builder("sh")
        .args([
            "-c",
            "stty -echo; printf '$ '; read x; printf '\\033[2J\\033[H$ '; sleep 30",
        ])
        .spawn()
        .unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    let screen = s
        .send_and_wait(&Input::keys("Enter").unwrap(), &Condition::text(r"^\$$").unwrap())
        .unwrap();
    assert_eq!(screen.text().trim_end(), "$");
    s.exit().unwrap();
}

#[test]
fn send_and_wait_catches_an_immediate_reply() {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    for i in 1..=50 {
        let out = s
            .send_and_wait(
                &Input::text("x"),
                &Condition::output(&format!("#{i} 78")).unwrap(),
            )
            .unwrap();
        assert!(out.contains(&format!("#{i} 78")));
    }
}

#[test]
fn output_waits_since_a_mark() {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_output("ready").unwrap();
    let mark = s.mark();
    s.send_text("a").unwrap();
    s.wait_for_output_since(mark, r"#1 61").unwrap();
    let later = s.mark();
    assert!(later > mark);
    // A wait since the later mark does not see the earlier echo; a whole-stream one does.
    let err = s
        .wait_for_output_since_timeout(later, "#1 61", Duration::from_millis(200))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(err.to_string().contains("last output:"), "{err}");
    s.wait_timeout(&Condition::output("#1 61").unwrap(), Duration::from_secs(5))
        .unwrap();
}

#[test]
fn wait_stable_waits_the_full_quiet_period_from_the_call() {
    let s = sh("echo hello; sleep 30");
    s.wait_for_text("hello").unwrap();
    let start = Instant::now();
    s.wait_stable(Duration::from_millis(300)).unwrap();
    assert!(
        start.elapsed() >= Duration::from_millis(300),
        "an already-quiet screen still waits"
    );
}

#[test]
fn wait_stable_restarts_the_period_on_every_change() {
    let s = sh("for i in 1 2 3 4 5; do echo tick $i; sleep 0.1; done; sleep 30");
    let screen = s.wait_stable(Duration::from_millis(400)).unwrap();
    assert!(
        screen.contains("tick 5"),
        "stable only after the last tick: {screen}"
    );
}

#[test]
fn wait_for_a_predicate_and_the_cursor() {
    let s = sh("printf 'abc'; sleep 30");
    let screen = s.wait_for(|snap| snap.cursor().col == 3).unwrap();
    assert_eq!(screen.row(0), Some("abc"));
    s.wait(&Condition::CursorAt(0, 3)).unwrap();
    s.wait(&Condition::no_text("zzz").unwrap()).unwrap();
}

#[test]
fn timeout_report_shows_screen_closest_line_and_unanswered_queries() {
    let s = sh("printf '\\033[=c'; echo 'Compiling tuipilot'; echo 'other line'; sleep 30");
    s.wait_for_text("other").unwrap();
    let line = line!() + 2;
    let err = s
        .wait_timeout(
            &Condition::text("Compiled tuipilot").unwrap(),
            Duration::from_millis(200),
        )
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    let report = err.to_string();
    // The report starts with the caller's line, so `?` in a test still says where.
    assert!(
        report.starts_with(&format!("tests/session.rs:{line}: timed out after 0.")),
        "{report}"
    );
    assert!(
        report.contains("waiting for text matching /Compiled tuipilot/"),
        "{report}"
    );
    assert!(report.contains("   0 | Compiling tuipilot"), "{report}");
    assert!(
        report.contains("closest line: row 0: \"Compiling tuipilot\""),
        "{report}"
    );
    assert!(report.contains("ESC[=c (tertiary device attributes"), "{report}");
    // Debug is the same readable report, so unwrap() failures are legible.
    assert_eq!(format!("{err:?}"), report);
}

#[test]
fn waiting_for_text_after_exit_fails_at_once_with_the_status() {
    let s = sh("echo bye; exit 4");
    s.wait_exit().unwrap();
    let start = Instant::now();
    let err = s.wait_for_text("never").unwrap_err();
    let line = line!() - 1;
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "did not wait for the timeout"
    );
    assert_eq!(err.kind(), ErrorKind::ExitedWhileWaiting);
    assert!(
        err.to_string().starts_with(&format!(
            "tests/session.rs:{line}: the program exited with code 4"
        )),
        "{err}"
    );
    assert!(
        err.to_string().contains("bye"),
        "the report shows the final screen: {err}"
    );
}

#[test]
fn input_to_an_exited_program_is_refused() {
    let s = sh("exit 0");
    s.wait_exit().unwrap();
    let line = line!() + 1;
    let err = s.send_text("hello").unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "tests/session.rs:{line}: cannot send input: the program exited with code 0; start a new session to continue"
        )
    );
    assert!(s.press("Enter").is_err());
    assert!(s.paste("x").is_err());
}

#[test]
fn an_ended_session_refuses_input_and_waits() {
    let s = sh("sleep 30");
    let status = s.exit().unwrap();
    assert_eq!(status, ExitStatus::Signaled(1), "SIGHUP ends it");
    assert!(matches!(s.send_text("x"), Err(Error::Closed { .. })));
    assert!(matches!(s.wait_for_text("x"), Err(Error::Closed { .. })));
    assert!(matches!(
        s.wait_stable(Duration::from_millis(10)),
        Err(Error::Closed { .. })
    ));
    assert_eq!(s.exit().unwrap(), status, "ending twice reports the same status");
}

#[test]
fn bad_inputs_get_one_line_errors() {
    let err = Session::builder("no-such-program-tuipilot").spawn().unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Spawn);
    let msg = err.to_string();
    assert!(
        msg.starts_with("program `no-such-program-tuipilot` not found: searched PATH="),
        "{msg}"
    );
    assert!(!msg.contains('\n'));

    let err = Session::builder("sh").cwd("/no/such/dir").spawn().unwrap_err();
    assert!(
        err.to_string().contains("`/no/such/dir` is not a directory"),
        "{err}"
    );

    for (cols, rows) in [(9, 24), (80, 1), (1001, 24), (80, 1001)] {
        let err = Session::builder("sh").size(cols, rows).spawn().unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput);
        assert!(err.to_string().contains("out of range"), "{err}");
    }

    let s = sh("sleep 30");
    let err = s.wait_for_text("(unclosed").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(err.to_string().starts_with("invalid regex `(unclosed`"), "{err}");
    assert!(!err.to_string().contains('\n'), "{err}");
    let err = s.press("Ctrl+Entr").unwrap_err();
    assert!(err.to_string().contains("did you mean Enter"), "{err}");
}

#[test]
fn a_bad_timeout_variable_is_reported() {
    // The variable is read only when the builder has no explicit timeout; run a child
    // test binary would be needed to set it safely, so check the parser directly.
    let err = tuipilot::session::parse_timeout_ms(Some("soon".into())).unwrap_err();
    assert!(
        err.to_string()
            .contains("TUIPILOT_TIMEOUT_MS=\"soon\" is invalid"),
        "{err}"
    );
    assert_eq!(
        tuipilot::session::parse_timeout_ms(None).unwrap(),
        tuipilot::DEFAULT_TIMEOUT
    );
    assert_eq!(
        tuipilot::session::parse_timeout_ms(Some("2500".into())).unwrap(),
        Duration::from_millis(2500)
    );
}

#[test]
fn paste_is_bracketed_when_the_program_asks() {
    let s = common::fixture_session("lineedit").spawn().unwrap();
    s.wait_for(|snap| snap.bracketed_paste()).unwrap();
    s.paste("hello\nworld").unwrap();
    s.wait_for_text(r"\[pasted 11 bytes\]").unwrap();
    s.press("Enter").unwrap();
    s.wait_for_text("submitted: helloworld").unwrap();
    s.press("C-d").unwrap();
    assert!(s.wait_exit().unwrap().success());
}

#[test]
fn line_editor_keys() {
    let s = common::fixture_session("lineedit").spawn().unwrap();
    s.wait_for_text("^>").unwrap();
    s.send_text("helo").unwrap();
    s.press_all([
        "Left",
        "l",
        "End",
        "!",
        "Home",
        "Backspace",
        "Right",
        "Backspace",
        "H",
    ])
    .unwrap();
    s.press("Enter").unwrap();
    s.wait_for_text("submitted: Hello!").unwrap();
}

#[test]
fn a_stable_wait_ends_at_once_when_the_program_has_exited() {
    let s = sh("echo bye");
    s.wait_exit().unwrap();
    // Ten minutes of quiet cannot come within twenty seconds, unless an exited program's
    // screen counts as stable — which it is: nothing can change it any more.
    let screen = s
        .wait_stable_timeout(Duration::from_secs(600), Duration::from_secs(20))
        .unwrap();
    assert!(screen.contains("bye"), "{screen}");
}

#[test]
fn a_failed_stable_wait_does_not_speak_of_a_pattern() {
    let s = sh("while :; do date +%N; sleep 0.02; done");
    let err = s
        .wait_stable_timeout(Duration::from_secs(5), Duration::from_millis(300))
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains("the screen to stay unchanged for 5000 ms"),
        "{report}"
    );
    assert!(!report.contains("closest line"), "{report}");
}

#[test]
fn a_send_wait_for_text_that_was_already_there_says_so() {
    let s = sh("stty -echo; echo ready; cat > /dev/null");
    s.wait_for_text("^ready$").unwrap();
    let err = s
        .send_and_wait_timeout(
            &Input::text("x\n"),
            &Condition::text("ready").unwrap(),
            Duration::from_millis(300),
        )
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains(
            "/ready/ already matched before the input was sent, and the screen has not changed since"
        ),
        "{report}"
    );
}

#[test]
fn a_prompt_s_trailing_space_matches_where_the_cursor_stands_after_it() {
    let s = sh("printf '>>> '; sleep 30");
    let screen = s.wait_for_text("^>>> $").unwrap();
    assert_eq!(screen.row(0), Some(">>>"), "the row itself stays trimmed");
    s.wait(&tuipilot::Condition::line("^>>> ").unwrap()).unwrap();
    s.wait_for_no_text_timeout("^>>> ", Duration::from_millis(200))
        .expect_err("the prompt is there, spaces and all: a wait for it to go must not hold");
}

#[test]
fn a_pattern_ending_in_a_space_is_told_that_rows_are_trimmed() {
    // The space is not before the cursor (which moved to the next row): trimmed away.
    let s = sh("printf '> \\n'; sleep 30");
    s.wait_for_text("^>").unwrap();
    let err = s
        .wait_for_text_timeout("^> $", Duration::from_millis(200))
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains("rows are matched with trailing spaces removed"),
        "{report}"
    );
}

/// The program's environment, one `KEY=VALUE` per row.
fn env_of(builder: tuipilot::SessionBuilder) -> (Session, String) {
    let s = builder
        .args(["-c", "env | sort; echo END-OF-ENV; sleep 30"])
        .size(200, 60)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let screen = s.wait_for_text("^END-OF-ENV$").unwrap();
    let text = screen.text();
    (s, text)
}

#[test]
fn a_cleared_environment_keeps_only_what_tuipilot_sets_and_path() {
    // cargo sets CARGO_MANIFEST_DIR for every test process; a cleared child must not see it.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let (_s, env) = env_of(Session::builder("sh").env_clear().env("ADDED", "yes"));
    let keys: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    for expected in [
        "TERM",
        "COLORTERM",
        "COLORFGBG",
        "TUIPILOT",
        "LANG",
        "PATH",
        "ADDED",
    ] {
        assert!(keys.contains(&expected), "{expected} missing: {keys:?}");
    }
    for absent in ["CARGO_MANIFEST_DIR", "HOME", "LINES", "COLUMNS"] {
        assert!(!keys.contains(&absent), "{absent} leaked: {keys:?}");
    }
}

#[test]
fn an_isolated_session_has_a_fresh_home_that_goes_away_with_it() {
    let (s, env) = env_of(Session::builder("sh").isolated());
    let home = env
        .lines()
        .find_map(|l| l.strip_prefix("HOME="))
        .expect("HOME is set")
        .trim()
        .to_string();
    assert_ne!(Some(home.as_str()), std::env::var("HOME").ok().as_deref());
    let home = std::path::PathBuf::from(home);
    assert!(home.is_dir(), "{}", home.display());
    assert!(
        env.contains(&format!("XDG_CONFIG_HOME={}/.config", home.display())),
        "{env}"
    );
    assert!(home.join(".config").is_dir());
    assert!(!env.contains("CARGO_MANIFEST_DIR"));
    s.exit().unwrap();
    drop(s);
    assert!(!home.exists(), "{} outlived its session", home.display());
}

#[test]
fn a_failed_wait_in_a_test_leaves_the_screen_behind() {
    let s = sh("printf '\\033[1;31mred alert\\033[0m\\n'; sleep 30");
    s.wait_for_text("red alert").unwrap();
    let err = s
        .wait_for_text_timeout("green", Duration::from_millis(100))
        .unwrap_err();
    let report = err.to_string();
    // Under cargo the folder is target/tuipilot-artifacts/<this test's name>.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/tuipilot-artifacts/a_failed_wait_in_a_test_leaves_the_screen_behind");
    if std::env::var_os("TUIPILOT_ARTIFACTS").is_some() || std::env::var_os("CARGO_TARGET_DIR").is_some() {
        eprintln!("skipping the folder check: TUIPILOT_ARTIFACTS or CARGO_TARGET_DIR moves it");
        assert!(report.contains("saved: "), "{report}");
        return;
    }
    assert!(report.contains(&format!("saved: {}", dir.display())), "{report}");
    assert_eq!(
        std::fs::read_to_string(dir.join("screen.txt"))
            .unwrap()
            .lines()
            .next(),
        Some("red alert")
    );
    assert!(
        std::fs::read_to_string(dir.join("screen.ansi"))
            .unwrap()
            .contains("\x1b[0;1;38;5;1mred alert")
    );
    assert!(
        std::fs::read(dir.join("screen.png"))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["condition"], "text matching /green/ on the screen");
    assert_eq!(
        (state["cols"].as_u64(), state["rows"].as_u64()),
        (Some(80), Some(24))
    );
}

#[test]
fn a_described_condition_names_itself_when_it_fails() {
    let s = sh("printf 'plain\\n'; sleep 30");
    s.wait_for_text("plain").unwrap();
    let bold = Condition::described("the first row to be bold", |snap| {
        snap.style_at(0, 0).is_some_and(|style| style.bold)
    });
    let err = s.wait_timeout(&bold, Duration::from_millis(100)).unwrap_err();
    assert!(
        err.to_string().contains("waiting for the first row to be bold"),
        "{err}"
    );
}

#[test]
fn a_send_to_an_exited_program_names_the_line_that_sent_it() {
    let s = sh("exit 0");
    s.wait_exit().unwrap();
    let line = line!() + 1;
    let err = s.press("Enter").unwrap_err();
    assert!(
        err.to_string().starts_with(&format!(
            "tests/session.rs:{line}: cannot send input: the program exited"
        )),
        "{err}"
    );
}

#[test]
fn colorfgbg_tells_programs_the_themes_background_unless_the_caller_sets_it() {
    let fgbg = |builder: tuipilot::SessionBuilder| {
        let s = builder
            .args(["-c", "echo \"fgbg=[$COLORFGBG]\""])
            .spawn()
            .unwrap();
        s.wait_exit().unwrap();
        s.snapshot().text()
    };
    assert!(fgbg(Session::builder("sh")).contains("fgbg=[15;0]"));
    let light = Session::builder("sh").theme(tuipilot::Theme::light());
    assert!(fgbg(light).contains("fgbg=[0;15]"));
    let own = Session::builder("sh").env("COLORFGBG", "7;4");
    assert!(fgbg(own).contains("fgbg=[7;4]"));
}

#[needs(emacs)]
#[test]
fn emacs_picks_its_dark_faces_on_the_dark_theme_and_light_ones_on_the_light() {
    let mode = |theme: tuipilot::Theme| {
        let s = Session::builder("emacs")
            .args(["-nw", "-Q", "--eval"])
            .arg("(run-with-timer 0.2 nil (lambda () (message \"mode=%s\" (frame-parameter nil 'background-mode))))")
            .theme(theme)
            .isolated()
            .spawn()
            .unwrap();
        let found = s.wait_for_text(r"mode=\w+").unwrap();
        let mode = found.find(r"mode=\w+").unwrap()[0].text.clone();
        s.send_text("\x18\x03").unwrap();
        mode
    };
    assert_eq!(mode(tuipilot::Theme::dark()), "mode=dark");
    assert_eq!(mode(tuipilot::Theme::light()), "mode=light");
}

/// Where this test's failure artefacts go (as the library finds its folder).
fn artefacts_of(test: &str) -> std::path::PathBuf {
    let base = match std::env::var_os("TUIPILOT_ARTIFACTS").filter(|v| !v.is_empty()) {
        Some(dir) => std::path::PathBuf::from(dir),
        None => std::env::var_os("CARGO_TARGET_DIR")
            .filter(|v| !v.is_empty())
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::env::current_exe()
                    .unwrap()
                    .ancestors()
                    .find(|d| d.join("CACHEDIR.TAG").is_file())
                    .unwrap()
                    .to_path_buf()
            })
            .join("tuipilot-artifacts"),
    };
    base.join(test)
}

#[test]
fn a_failed_wait_keeps_the_keys_sent_and_a_recording_of_the_session() {
    let s = sh("read x; echo got $x; sleep 60");
    s.send_text("hello").unwrap();
    s.press("Enter").unwrap();
    s.wait_for_text("^got hello$").unwrap();
    let report = s
        .wait_timeout(&Condition::text("never").unwrap(), Duration::from_millis(100))
        .unwrap_err()
        .to_string();
    let dir = artefacts_of("a_failed_wait_keeps_the_keys_sent_and_a_recording_of_the_session");
    assert!(
        report.contains(&format!(
            "saved: {} (keys.txt, recording.cast, report.html, report.json, report.md, screen.ansi, screen.png, screen.txt, state.json)",
            dir.display()
        )),
        "{report}"
    );
    let keys = std::fs::read_to_string(dir.join("keys.txt")).unwrap();
    let lines: Vec<&str> = keys.lines().map(|l| l.split_once("s  ").unwrap().1).collect();
    assert_eq!(lines, ["hello", "Enter"], "{keys}");
    let recording = tuipilot::record::Recording::read_file(dir.join("recording.cast")).unwrap();
    let replayed = recording.replay().unwrap().snapshot().text();
    assert!(replayed.contains("hello\ngot hello"), "{replayed}");
    // The report: the keys as steps, the failed wait last, at the test's line, explained.
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(
        md.starts_with("# ✗ failed — `a_failed_wait_keeps_the_keys_sent"),
        "{md}"
    );
    assert!(md.contains("`send hello`") && md.contains("`send Enter`"), "{md}");
    // The wait that held is a step too, saying why it ended.
    assert!(
        md.contains("`wait for text matching /^got hello$/ on the screen`"),
        "{md}"
    );
    assert!(
        md.contains("**Step 4** `wait for text matching /never/ on the screen` (`tests/session.rs:"),
        "{md}"
    );
    assert!(md.contains("[`the recording`](<recording.cast>)"), "{md}");
}

#[test]
fn a_test_that_passes_now_leaves_no_artefacts_of_an_earlier_failure() {
    let dir = artefacts_of("a_test_that_passes_now_leaves_no_artefacts_of_an_earlier_failure");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("screen.txt"), "from a run that failed").unwrap();
    let s = sh("echo fine; sleep 60");
    s.wait_for_text("^fine$").unwrap();
    assert!(!dir.exists(), "{} is left", dir.display());
}

#[test]
fn a_failed_live_locator_records_how_long_it_retried_and_names_the_closest_line() {
    let s = sh("echo 'weather in Tokio'; sleep 30");
    s.wait_for_text("Tokio").unwrap();
    let err = s
        .locate("Tokyo")
        .unwrap()
        .within(Duration::from_millis(300))
        .assert_visible()
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains("closest line: row 0: \"weather in Tokio\""),
        "{report}"
    );
    assert!(
        report.trim_end().lines().last().unwrap().starts_with("saved: "),
        "saved: comes last: {report}"
    );
    let dir = artefacts_of("a_failed_live_locator_records_how_long_it_retried_and_names_the_closest_line");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["timeout_ms"], 300, "{state}");
    assert!(state["elapsed_ms"].as_u64().unwrap() >= 300, "{state}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let failed = json["steps"].as_array().unwrap().last().unwrap().clone();
    assert!(failed["took_ms"].as_u64().unwrap() >= 300, "{failed}");
    assert_eq!(
        json["failure"]["closest"], "row 0: \"weather in Tokio\"",
        "{}",
        json["failure"]
    );
    // A failed wait's report ends with where its files are, too.
    let waited = s
        .wait_for_text_timeout("Tokyo", Duration::from_millis(100))
        .unwrap_err()
        .to_string();
    assert!(
        waited.trim_end().lines().last().unwrap().starts_with("saved: "),
        "{waited}"
    );
}

#[test]
fn a_failed_tests_report_shows_a_send_and_its_wait_as_one_step_with_why_it_ended() {
    let s = sh("read x; echo got $x; read y; sleep 30");
    s.send_text("hello").unwrap();
    s.send_keys_and_wait("Enter", "^got hello$").unwrap();
    s.send_text("more\r").unwrap();
    let _ = s
        .wait_for_text_timeout("never", Duration::from_millis(100))
        .unwrap_err();
    let dir = artefacts_of("a_failed_tests_report_shows_a_send_and_its_wait_as_one_step_with_why_it_ended");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let labels: Vec<String> = json["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["label"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        labels,
        [
            "send hello",
            "send Enter, wait for text matching /^got hello$/ on the screen",
            "send more Enter",
            "wait for text matching /never/ on the screen",
        ],
        "{labels:?}"
    );
    let joined = &json["steps"][1];
    assert!(
        joined["waited"]
            .as_str()
            .unwrap()
            .starts_with("matched /^got hello$/"),
        "{joined}"
    );
}
