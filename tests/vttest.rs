//! vttest, the conformance suite for VT100-family terminals, run through tuipilot: each
//! menu's screens stepped with Return as a person would, and each checked against what
//! vttest says on it a correct terminal shows ("the top line should be 'AB'").
//!
//! vttest repeats its cursor and VT102 tests at 132 columns (DECCOLM); tuipilot ignores
//! DECCOLM as xterm does with its default resources (see the fidelity chapter), so those
//! passes are stepped through, and only the rows an 80-column screen can hold are checked.

use tuipilot_testenv::needs;
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

/// Steps with Return until a screen shows `text` (at most ten screens), and returns it.
fn step_until(s: &Session, text: &str) -> Snapshot {
    let mut screen = next(s);
    for _ in 0..10 {
        if screen.contains(text) {
            break;
        }
        screen = next(s);
    }
    assert!(
        screen.contains(text),
        "no screen showed {text:?}; the last: {screen}"
    );
    screen
}

/// Asserts that `screen` shows `text` somewhere, printing the screen when it does not.
#[track_caller]
fn assert_shows(screen: &Snapshot, text: &str) {
    assert!(
        screen.contains(text),
        "expected {text:?} on the screen:\n{screen}"
    );
}

fn row(screen: &Snapshot, row: u16) -> &str {
    screen.row(row).unwrap_or("")
}

/// `c` repeated `n` times.
fn run(c: char, n: usize) -> String {
    c.to_string().repeat(n)
}

#[needs(vttest)]
#[test]
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
    assert_shows(&screen, "Enter choice number");
}

#[needs(vttest)]
#[test]
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
    step_until(&s, "Enter choice number");
}

/// The style of the first cell of the first match of `pattern`.
fn style_of(screen: &Snapshot, pattern: &str) -> tuipilot::Style {
    let found = &screen.find(pattern).unwrap()[0];
    screen.cell(found.row, found.col).unwrap().style
}

#[needs(vttest)]
#[test]
fn vttest_2_screen_features_show_what_vttest_asks_for() {
    let s = vttest();
    // "This should be three identical lines of *'s completely filling the top of the screen
    // without any empty lines between."
    let screen = answer(&s, "2");
    assert!(
        row(&screen, 4).starts_with("This should be three identical lines"),
        "{screen}"
    );
    for r in 0..3 {
        assert_eq!(row(&screen, r), run('*', 80), "row {r}");
    }
    assert_eq!(row(&screen, 3), "");
    // "Test of TAB setting/resetting. These two lines should look the same."
    let screen = next(&s);
    assert!(row(&screen, 3).starts_with("Test of TAB setting"), "{screen}");
    assert_eq!(row(&screen, 0), row(&screen, 1));
    assert_eq!(screen.find(r"\*").unwrap().len(), 2 * 13);
    // 132 and 80 columns, on a light background (DECSCNM) then a dark one.
    for light in [true, false] {
        let wide = next(&s);
        assert_eq!(wide.reverse_screen(), light);
        let screen = next(&s);
        assert_eq!(screen.reverse_screen(), light);
        let shade = if light { "light" } else { "dark" };
        for (i, r) in (2..20).enumerate() {
            let expected = format!("{}This is 80 column mode, {shade} background.", " ".repeat(2 + i));
            assert!(
                row(&screen, r).starts_with(&expected),
                "row {r}: {:?}",
                row(&screen, r)
            );
        }
    }
    // Soft and jump scrolling, in a two-line region and over the whole screen.
    for kind in ["Soft", "Jump"] {
        let screen = next(&s);
        assert_eq!(row(&screen, 11), "Push <RETURN>");
        assert_eq!(
            row(&screen, 12),
            format!("{kind} scroll down region [12..13] size 2 Line 29")
        );
        let screen = next(&s);
        assert_eq!(row(&screen, 0), "Push <RETURN>");
        for r in 1..24u16 {
            let line = format!("{kind} scroll down region [1..24] size 24 Line {}", 30 - r);
            assert_eq!(row(&screen, r), line, "row {r}");
        }
    }
    // "Origin mode test. This line should be at the bottom of the screen."
    let screen = next(&s);
    assert!(row(&screen, 22).starts_with("This line should be the one above the bottom"));
    assert_eq!(
        row(&screen, 23),
        "Origin mode test. This line should be at the bottom of the screen."
    );
    let screen = next(&s);
    assert!(row(&screen, 0).starts_with("This line should be at the top of the screen."));
    assert_eq!(
        row(&screen, 23),
        "Origin mode test. This line should be at the bottom of the screen."
    );
    // The graphic rendition test pattern, on a dark then a light background.
    for light in [false, true] {
        let screen = next(&s);
        assert!(
            row(&screen, 0).contains("Graphic rendition test pattern"),
            "{screen}"
        );
        assert_eq!(screen.reverse_screen(), light);
        let style = style_of(&screen, "bold underline blink negative");
        assert!(
            style.bold && style.underline && style.blink && style.inverse,
            "{style:?}"
        );
        let style = style_of(&screen, "^vanilla");
        assert!(
            !style.bold && !style.underline && !style.blink && !style.inverse,
            "{style:?}"
        );
        let style = style_of(&screen, "^ +underline negative");
        assert!(
            !style.bold && !style.underline,
            "the spaces before are plain: {style:?}"
        );
        let style = style_of(&screen, "underline negative");
        assert!(style.underline && style.inverse && !style.bold, "{style:?}");
    }
    // "Test of the SAVE/RESTORE CURSOR feature. There should be ten characters of each
    // flavour, and a rectangle of 5 x 4 A's filling the top left of the screen."
    let screen = next(&s);
    assert_shows(&screen, "Test of the SAVE/RESTORE CURSOR feature");
    for r in 0..4 {
        assert_eq!(row(&screen, r), "AAAAA", "row {r}");
    }
    for (label, flavour) in [
        ("stars:", '*'),
        ("line:", '─'),
        ("x'es:", 'x'),
        ("diamonds:", '◆'),
    ] {
        let line = screen
            .rows()
            .iter()
            .find(|l| l.starts_with(label))
            .unwrap()
            .clone();
        let groups: Vec<&str> = line[label.len()..].split_whitespace().collect();
        assert_eq!(groups, [run(flavour, 10).as_str(); 5], "{line}");
    }
    let stars = screen.find(r"^stars:").unwrap()[0].row;
    let at = |col: u16| screen.cell(stars, col).unwrap().style;
    let (normal, bold, underline, blink, reverse) = (at(11), at(23), at(35), at(47), at(59));
    assert!(!normal.bold && bold.bold && underline.underline && blink.blink && reverse.inverse);
    let screen = next(&s);
    assert_shows(&screen, "Enter choice number");
}

#[needs(vttest)]
#[test]
fn vttest_3_character_sets_show_what_vttest_asks_for() {
    let s = vttest();
    let menu = answer(&s, "3");
    assert_shows(&menu, "Menu 3: Character-Set Tests");
    // "These are the installed character sets": each set the same as G0 (with SI) and as
    // G1 (with SO); the DEC special graphics drawn as line drawing.
    let screen = answer(&s, "8");
    assert_shows(&screen, "These are the installed character sets");
    let ascii = "`abcdefghijklmnopqrstuvwxyz{|}~";
    let graphics = "◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·";
    let set = screen.find(r"^Character set 0 \(DEC Special graphics").unwrap()[0].row;
    for (r, line) in screen.rows().iter().enumerate() {
        if line.trim_start().starts_with('`') {
            assert_eq!(
                line.matches(ascii).count(),
                2,
                "row {r}: both columns ASCII: {line:?}"
            );
        }
    }
    let drawn = row(&screen, set + 3);
    assert_eq!(
        drawn.matches(graphics).count(),
        2,
        "G0 and G1 draw lines: {drawn:?}"
    );
    next(&s);
    // "These are the G0 and G1 character sets", selected with SI and SO.
    let screen = answer(&s, "9");
    assert_shows(&screen, "These are the G0 and G1 character sets");
    assert!(screen.contains(ascii), "{screen}");
    let menu = next(&s);
    assert_shows(&menu, "Menu 3: Character-Set Tests");
}

#[needs(vttest)]
#[test]
fn vttest_6_terminal_reports_answer_as_vttest_expects() {
    let s = vttest();
    let menu = answer(&s, "6");
    assert_shows(&menu, "Menu 6: Terminal Reports/Responses");
    // The answerback message: empty, as xterm's is by default; Return ends the test.
    let screen = answer(&s, "1");
    assert_shows(&screen, "This is a test of the ANSWERBACK MESSAGE");
    let screen = next(&s);
    assert_shows(&screen, " <13>");
    next(&s);
    // Newline mode: Return sends CR LF while it is set, CR once it is reset.
    let screen = answer(&s, "2");
    assert_shows(&screen, "NewLine mode set. Push the RETURN key:");
    let screen = next(&s);
    assert_shows(&screen, "<13> <10>  -- OK");
    assert_shows(&screen, "NewLine mode reset. Push the RETURN key:");
    let screen = next(&s);
    assert_eq!(screen.find(r"-- OK").unwrap().len(), 2, "{screen}");
    next(&s);
    // Device status: "TERMINAL OK" and the cursor position, "-- OK".
    let screen = answer(&s, "3");
    assert!(
        screen.contains(r#"<27> [ 0 n  -- means "TERMINAL OK""#),
        "{screen}"
    );
    assert_eq!(screen.find(r"R  -- OK").unwrap().len(), 2, "{screen}");
    next(&s);
    // Primary and secondary device attributes.
    let screen = answer(&s, "4");
    assert_shows(&screen, "<27> [ ? 6 2 ; 4 ; 2 2 c  VT200 family");
    next(&s);
    let screen = answer(&s, "5");
    assert_shows(&screen, "<27> [ > 0 ; 2 7 6 ; 0 c");
    let menu = next(&s);
    assert_shows(&menu, "Menu 6: Terminal Reports/Responses");
}

#[needs(vttest)]
#[test]
fn vttest_4_double_sized_lines_are_kept_per_row() {
    use tuipilot::LineSize;
    let s = vttest();
    // "This is a normal-sized line", "This is a Double-width line", two rows of each
    // double-width-and-height line, and "This is not a double-width line".
    let screen = answer(&s, "4");
    let size_of = |screen: &Snapshot, text: &str| -> Vec<LineSize> {
        screen
            .find(text)
            .unwrap()
            .iter()
            .map(|m| screen.line_size(m.row))
            .collect()
    };
    assert_eq!(
        size_of(&screen, "This is a normal-sized line"),
        [LineSize::Single]
    );
    assert_eq!(
        size_of(&screen, "This is a Double-width line"),
        [LineSize::DoubleWidth]
    );
    assert_eq!(
        size_of(&screen, "This is a Double-width-and-height line"),
        [LineSize::DoubleTop, LineSize::DoubleBottom]
    );
    assert_eq!(
        size_of(&screen, "This is another such line"),
        [LineSize::DoubleTop, LineSize::DoubleBottom]
    );
    assert_eq!(
        size_of(&screen, "This is not a double-width line"),
        [LineSize::Single]
    );
    // The same line made double width in place.
    let screen = next(&s);
    assert_eq!(
        size_of(&screen, r"This \*\*is\*\* a double-width line"),
        [LineSize::DoubleWidth]
    );
    // The 132-column passes and the frame of double-size lines stepped through; then the
    // frame scrolled down by reverse index: "Exactly half of the box should remain", its
    // top half in the last five rows, each at its size.
    let screen = step_until(&s, "Exactly half of the box should remain");
    let box_rows: Vec<(LineSize, &str)> = (19..24).map(|r| (screen.line_size(r), row(&screen, r))).collect();
    assert_eq!(
        box_rows[0],
        (LineSize::DoubleTop, "┌──────────────────────────────────────┐")
    );
    assert_eq!(box_rows[1].0, LineSize::DoubleBottom);
    assert!(
        box_rows[4].1.contains("The mad programmer strikes again"),
        "{box_rows:?}"
    );
    assert!((1..19).all(|r| row(&screen, r).is_empty()), "{screen}");
    let screen = next(&s);
    assert_shows(&screen, "Enter choice number");
}
