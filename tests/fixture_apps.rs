//! The fixture programs: a DECCKM menu, a program that queries the terminal before
//! drawing, a colour chart, and a crossterm program's start-up and key events.

mod common;

use tuipilot::{Color, Condition, Input};

#[test]
fn menu_navigates_with_arrows_in_application_cursor_mode() {
    let s = common::fixture_session("menu").spawn().unwrap();
    let screen = s.wait_for_text("Pick a fruit").unwrap();
    assert!(screen.alternate_screen());
    assert!(screen.application_cursor());
    let screen = s
        .send_and_wait(
            &Input::keys("Down Down").unwrap(),
            &Condition::text("> Cherries").unwrap(),
        )
        .unwrap();
    // The highlighted row is drawn in inverse video.
    let m = &screen.find("> Cherries").unwrap()[0];
    assert!(screen.style_at(m.row, m.col).unwrap().inverse);
    assert!(!screen.style_at(m.row - 1, 2).unwrap().inverse);
    s.press("Up").unwrap();
    s.wait_for_text("> Bananas").unwrap();
    s.press("Enter").unwrap();
    assert!(s.wait_exit().unwrap().success());
    let screen = s.snapshot();
    assert!(!screen.alternate_screen());
    assert_eq!(screen.row(0), Some("selected: Bananas"));
}

#[test]
fn a_normal_mode_arrow_would_have_cancelled_the_menu() {
    // What a tool that ignores DECCKM sends: the menu reads ESC [ B as Escape.
    let s = common::fixture_session("menu").spawn().unwrap();
    s.wait_for_text("Pick a fruit").unwrap();
    s.send_bytes(b"\x1b[B").unwrap();
    assert_eq!(s.wait_exit().unwrap().code(), Some(1));
    assert_eq!(s.snapshot().row(0), Some("cancelled"));
}

#[test]
fn queries_before_drawing_are_answered() {
    let s = common::fixture_session("cpr").spawn().unwrap();
    s.wait_exit().unwrap();
    let screen = s.snapshot();
    assert_eq!(screen.row(0), Some("cursor: ESC[5;10R"), "{screen}");
    assert_eq!(screen.row(1), Some("attributes: ESC[?62;4;22c"));
    let bg = tuipilot::Theme::dark().background.x11();
    assert_eq!(
        screen.row(2),
        Some(format!("background: ESC]11;{bg}BEL").as_str())
    );
    let transcript = s.transcript();
    assert_eq!(transcript.len(), 3);
    assert!(transcript.iter().all(|q| q.reply.is_some()), "{transcript:?}");
}

#[test]
fn colour_chart_styles_reach_the_snapshot() {
    let s = common::fixture_session("colors").spawn().unwrap();
    s.wait_exit().unwrap();
    let snap = s.snapshot();
    assert_eq!(snap.row(0), Some("0123456789abcdef"));
    for i in 0..16u16 {
        assert_eq!(
            snap.style_at(0, i).unwrap().bg,
            Color::Indexed(i as u8),
            "background {i}"
        );
        assert_eq!(
            snap.style_at(1, i).unwrap().fg,
            Color::Indexed(i as u8),
            "foreground {i}"
        );
    }
    let cube: Vec<Color> = (0..9).map(|c| snap.style_at(2, c).unwrap().fg).collect();
    assert_eq!(cube[3], Color::Indexed(196));
    assert_eq!(cube[8], Color::Indexed(255));
    assert_eq!(snap.style_at(3, 0).unwrap().bg, Color::Rgb(0, 0, 255));
    assert_eq!(snap.style_at(3, 15).unwrap().bg, Color::Rgb(255, 0, 0));
    let attr = |word: &str| {
        let m = &snap.find(word).unwrap()[0];
        snap.style_at(m.row, m.col).unwrap()
    };
    assert!(attr("bold").bold);
    assert!(attr("dim").dim);
    assert!(attr("italic").italic);
    assert!(attr("underline").underline);
    assert!(attr("inverse").inverse);
    assert!(!attr("inverse").bold);
    let mixed = attr("rgb-on-indexed");
    assert_eq!(
        (mixed.fg, mixed.bg),
        (Color::Rgb(255, 128, 0), Color::Indexed(17))
    );
}

#[test]
fn crossterm_starts_without_a_stall_and_reads_the_right_keys() {
    let s = common::fixture_session("crossterm_keys").spawn().unwrap();
    let screen = s.wait_for_text("^ready").unwrap();
    // Without a cursor position reply crossterm reports an error after two seconds.
    assert_eq!(screen.row(0), Some("position: ok 0,0"), "{screen}");
    // The kitty query is answered (flags 0): crossterm knows at once that it may push them.
    assert_eq!(screen.row(1), Some("kitty keyboard: true"));
    let expect = [
        ("Enter", "Enter NONE"),
        ("Up", "Up NONE"),
        ("Down", "Down NONE"),
        ("Left", "Left NONE"),
        ("C-c", "Char('c') CONTROL"),
        ("C-a", "Char('a') CONTROL"),
        ("M-x", "Char('x') ALT"),
        ("S-Tab", "BackTab SHIFT"),
        ("C-Up", "Up CONTROL"),
        ("Esc", "Esc NONE"),
        ("F5", "F(5) NONE"),
        ("Backspace", "Backspace NONE"),
        ("PageDown", "PageDown NONE"),
        ("q", "Char('q') NONE"),
    ];
    for (key, event) in expect {
        let line = format!("event: {event}");
        s.send_and_wait(
            &Input::keys(key).unwrap(),
            &Condition::output(&regex::escape(&line)).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
}

/// Adds `task` to the todo fixture and waits for its row; the screen the wait returned.
fn add_task(s: &tuipilot::Session, task: &str) -> tuipilot::Snapshot {
    s.send_text(task).unwrap();
    s.send_and_wait(
        &Input::keys("Enter").unwrap(),
        &Condition::text(&format!(r"\d+\. {task}$")).unwrap(),
    )
    .unwrap()
}

#[test]
fn a_wait_hands_back_the_whole_frame_of_a_program_that_writes_it_in_pieces() {
    // The second half of every frame — the status bar among it — comes 10 ms after the
    // first: a wait for the new task's row matches on the first half.
    let s = common::fixture_session("todo")
        .args(["--gap-ms", "10"])
        .size(60, 16)
        .spawn()
        .unwrap();
    s.wait_for_text("0 tasks, 0 done").unwrap();
    for n in 1..=3 {
        let screen = add_task(&s, &format!("task {n}"));
        screen
            .locate_row(15)
            .assert_text(&format!("^{n} tasks, 0 done"))
            .unwrap();
    }
    // Without whole frames such a wait returns the torn frame: the row, the old count.
    // (Half a second between the halves: however loaded the machine, the wait has
    // returned before the second half comes.)
    let torn = common::fixture_session("todo")
        .args(["--gap-ms", "500"])
        .size(60, 16)
        .whole_frames(false)
        .spawn()
        .unwrap();
    torn.wait_for_text("0 tasks, 0 done").unwrap();
    let screen = add_task(&torn, "task 1");
    assert_eq!(screen.row(15).map(str::trim_end), Some("0 tasks, 0 done"));
}

#[test]
fn a_synchronized_update_is_seen_whole_however_long_it_takes() {
    // 100 ms between the halves, longer than any quiet period: the frame before is what
    // waits see until the update ends.
    let s = common::fixture_session("todo")
        .args(["--gap-ms", "100", "--sync"])
        .size(60, 16)
        .whole_frames(false)
        .spawn()
        .unwrap();
    s.wait_for_text("0 tasks, 0 done").unwrap();
    let screen = add_task(&s, "task 1");
    screen.locate_row(15).assert_text("^1 tasks, 0 done").unwrap();
    screen
        .locate("task 1")
        .unwrap()
        .assert_style(
            &tuipilot::StyleMatch::new()
                .bold()
                .fg("White")
                .unwrap()
                .bg("Blue")
                .unwrap(),
        )
        .unwrap();
    // Enter on an empty line marks it done: struck through.
    let screen = s
        .send_and_wait(
            &Input::keys("Enter").unwrap(),
            &Condition::text("1 done").unwrap(),
        )
        .unwrap();
    screen
        .locate("task 1")
        .unwrap()
        .assert_style(&tuipilot::StyleMatch::new().strikethrough())
        .unwrap();
}

#[test]
fn assertions_that_retry_hold_once_the_program_has_drawn_what_they_expect() {
    // Half of each frame comes 100 ms late and waits return on the first match: only an
    // assertion that retries sees the status bar catch up.
    let s = common::fixture_session("todo")
        .args(["--gap-ms", "100"])
        .size(60, 16)
        .whole_frames(false)
        .spawn()
        .unwrap();
    s.locate("0 tasks, 0 done").unwrap().assert_visible().unwrap();
    s.send_text("buy milk\r").unwrap();
    let screen = s.locate_row(15).assert_text("^1 tasks, 0 done").unwrap();
    screen.locate("buy milk").unwrap().assert_visible().unwrap();
    let selected = tuipilot::StyleMatch::new()
        .bold()
        .fg("White")
        .unwrap()
        .bg("Blue")
        .unwrap();
    s.locate("buy milk").unwrap().assert_style(&selected).unwrap();
    s.locate(r"\d\. ").unwrap().assert_count(1).unwrap();
    s.send_text("\r").unwrap();
    s.locate("buy milk")
        .unwrap()
        .assert_style(&tuipilot::StyleMatch::new().strikethrough())
        .unwrap();
    s.locate("0 done").unwrap().assert_gone().unwrap();
}

#[test]
fn an_assertion_that_retries_fails_after_its_time_with_the_locators_report() {
    let s = common::fixture_session("todo").size(60, 16).spawn().unwrap();
    s.locate("0 tasks").unwrap().assert_visible().unwrap();
    let durian = s
        .locate("Durian")
        .unwrap()
        .within(std::time::Duration::from_millis(200));
    let line = line!() + 1;
    let err = durian.assert_visible();
    let report = err.unwrap_err().to_string();
    assert!(
        report.starts_with(&format!(
            "tests/fixture_apps.rs:{line}: expected /Durian/ on the screen (retried for 0.20s), found nothing"
        )),
        "{report}"
    );
    assert!(report.contains("  15 | 0 tasks, 0 done"), "{report}");
    let err = s
        .locate_row(15)
        .within(std::time::Duration::from_millis(100))
        .assert_style(&tuipilot::StyleMatch::new().fg("White").unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), tuipilot::ErrorKind::Mismatch);
}

// Fails on the code before: the text arrived within crossterm's reading of the Esc and
// came out as Alt+`*` (the newcomer's csvlens filter that never happened).
#[test]
fn a_lone_esc_then_more_input_reaches_the_program_as_a_lone_esc() {
    let s = common::fixture_session("crossterm_keys").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    for round in 0..5 {
        // In one send, and as two calls.
        if round % 2 == 0 {
            s.send(&Input::Keys(tuipilot::keys::parse_key_list("Esc").unwrap()))
                .unwrap();
            s.send_text("*").unwrap();
        } else {
            s.apply(&tuipilot::Operation::Send {
                steps: vec![
                    tuipilot::operation::Step::Keys("Esc".into()),
                    tuipilot::operation::Step::Text("*".into()),
                ],
                wait: None,
                timeout_ms: None,
                capture: false,
                secret: false,
            })
            .unwrap();
        }
        // The star of this round, whatever it came out as.
        let stars = format!(r"(?s)(Char\('\*'\).*){{{}}}", round + 1);
        let text = s.wait_for_text(&stars).unwrap().text();
        assert!(!text.contains("ALT"), "round {round}: {text}");
        assert_eq!(
            text.matches("event: Esc NONE").count(),
            round + 1,
            "round {round}: {text}"
        );
    }
}
