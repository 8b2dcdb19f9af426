//! vttest, the conformance suite for VT100-family terminals, run through tuipilot: each
//! menu's screens stepped with Return as a person would, and each checked against what
//! vttest says on it a correct terminal shows ("the top line should be 'AB'").
//!
//! vttest repeats its cursor and VT102 tests at 132 columns (DECCOLM); tuipilot ignores
//! DECCOLM as xterm does with its default resources (see the fidelity chapter), so those
//! passes are stepped through, and only the rows an 80-column screen can hold are checked.

mod common;

use std::time::Duration;

use tuipilot::{Condition, Session, Snapshot};

/// vttest at 80×24, at its main menu.
fn vttest() -> Session {
    let s = Session::builder("vttest")
        .size(80, 24)
        .env("TERM", "xterm-256color")
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("Enter choice number").unwrap();
    s
}

/// Types `keys` then Return, and returns the screen once vttest waits for input again.
fn answer(s: &Session, text: &str) -> Snapshot {
    if !text.is_empty() {
        s.send_text(text).unwrap();
    }
    s.press("Enter").unwrap();
    s.wait(&Condition::Ready).unwrap()
}

/// The next screen of a test: Return, then the screen once vttest waits again.
fn next(s: &Session) -> Snapshot {
    answer(s, "")
}

fn row(screen: &Snapshot, row: u16) -> &str {
    screen.row(row).unwrap_or("")
}

/// `c` repeated `n` times.
fn run(c: char, n: usize) -> String {
    c.to_string().repeat(n)
}

#[test]
#[cfg_attr(not(have_vttest), ignore = "needs vttest (.ci/run installs it)")]
fn vttest_1_cursor_movements_show_what_vttest_asks_for() {
    let s = vttest();
    // "The screen should be cleared, and have an unbroken border of *'s and +'s around the
    // edge, and exactly in the middle there should be a frame of E's around this text with
    // one (1) free position around it."
    let screen = answer(&s, "1");
    assert!(
        row(&screen, 10).contains("The screen should be cleared"),
        "{screen}"
    );
    assert_eq!(row(&screen, 0), run('*', 80));
    assert_eq!(row(&screen, 23), run('*', 80));
    assert_eq!(row(&screen, 1), format!("*{}*", run('+', 78)));
    assert_eq!(row(&screen, 22), format!("*{}*", run('+', 78)));
    for r in 2..22 {
        let line = row(&screen, r);
        assert!(
            line.starts_with("*+") && line.ends_with("+*") && line.len() == 80,
            "row {r}: {line:?}"
        );
    }
    assert_eq!(&row(&screen, 8)[10..70], run('E', 60));
    assert_eq!(&row(&screen, 15)[10..70], run('E', 60));
    for r in 9..15 {
        let line = row(&screen, r);
        assert_eq!((&line[10..11], &line[69..70]), ("E", "E"), "row {r}: {line:?}");
        assert_eq!(
            (&line[11..12], &line[68..69]),
            (" ", " "),
            "one free position, row {r}"
        );
    }
    // The same at 132 columns, which is ignored here as in xterm.
    next(&s);
    // "Test of autowrap, mixing control and print characters. The left/right margins
    // should have letters in order".
    let screen = next(&s);
    for (i, r) in (2..20).enumerate() {
        let line = row(&screen, r);
        let upper = char::from(b'I' + i as u8);
        assert_eq!(line.chars().next(), Some(upper), "row {r}: {line:?}");
        assert_eq!(
            line.chars().nth(79),
            Some(upper.to_ascii_lowercase()),
            "row {r}: {line:?}"
        );
    }
    next(&s);
    // "Below should be four identical lines".
    let screen = next(&s);
    assert!(row(&screen, 1).contains("four identical lines"), "{screen}");
    for r in 3..7 {
        assert_eq!(row(&screen, r), "A B C D E F G H I", "row {r}");
    }
    // "Two lines below you should see the sentence "This is a correct sentence"".
    let screen = next(&s);
    assert!(row(&screen, 0).contains("leading zeros"), "{screen}");
    assert_eq!(row(&screen, 3), "This is a correct sentence");
    let screen = next(&s);
    assert!(
        screen.contains("Enter choice number"),
        "back at the menu: {screen}"
    );
}

#[test]
#[cfg_attr(not(have_vttest), ignore = "needs vttest (.ci/run installs it)")]
fn vttest_8_vt102_insert_and_delete_show_what_vttest_asks_for() {
    let s = vttest();
    let letters = |r: u16| char::from(b'A' + r as u8);
    // The accordion: lines inserted and deleted until A to X are back in order.
    let screen = answer(&s, "8");
    assert!(row(&screen, 3).starts_with("Screen accordion test"), "{screen}");
    for r in (0..24).filter(|r| *r != 3) {
        assert_eq!(row(&screen, r), run(letters(r), 80), "row {r}");
    }
    // "Top line: A's, bottom line: X's, this line, nothing more."
    let screen = next(&s);
    assert_eq!(row(&screen, 0), run('A', 80));
    assert!(row(&screen, 1).starts_with("Top line: A's, bottom line: X's"));
    assert_eq!(row(&screen, 23), run('X', 80));
    for r in 2..23 {
        assert_eq!(row(&screen, r), "", "nothing more, row {r}");
    }
    // "The top line should be 'A*** ... ***B'."
    let screen = next(&s);
    assert!(row(&screen, 3).starts_with("Test of 'Insert Mode'"), "{screen}");
    assert_eq!(row(&screen, 0), format!("A{}B", run('*', 78)));
    // "The top line should be 'AB'."
    let screen = next(&s);
    assert!(
        row(&screen, 3).starts_with("Test of 'Delete Character'"),
        "{screen}"
    );
    assert_eq!(row(&screen, 0), "AB");
    // "The right column should be staggered by one", twice (DCH, then DL with ICH).
    for widest in [79usize, 39] {
        let screen = next(&s);
        assert!(
            row(&screen, 3).starts_with("The right column should be staggered"),
            "{screen}"
        );
        for r in (0..24u16).filter(|r| !matches!(r, 3 | 4)) {
            let expected = run(letters(r), widest - usize::from(r));
            assert_eq!(row(&screen, r), expected, "row {r}");
        }
    }
    // "If your terminal has the ANSI 'Insert Character' function ... you should see a line
    // like this ... below".
    let screen = next(&s);
    assert!(row(&screen, 0).contains("'Insert Character'"), "{screen}");
    assert_eq!(row(&screen, 5), row(&screen, 2));
    // The same tests at 132 columns, stepped through, then the menu.
    let mut screen = next(&s);
    for _ in 0..10 {
        if screen.contains("Enter choice number") {
            break;
        }
        screen = next(&s);
    }
    assert!(
        screen.contains("Enter choice number"),
        "back at the menu: {screen}"
    );
}
