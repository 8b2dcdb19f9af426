//! Locators and style assertions on a live session: a menu drawn by a shell script, its
//! selection in inverse video, asserted on by text, style and count, and waited on as it
//! moves; every attribute a cell records, and what a miss says.

mod common;
use common::sh;

use std::time::Duration;

use tuipilot::operation::WaitFor;
use tuipilot::{Condition, ErrorKind, Reply, Session, StyleMatch, UnderlineStyle};

/// A menu whose selection is drawn in inverse video and moves with Down.
fn menu() -> Session {
    sh(
        "stty -echo -icanon; sel=0; while :; do printf '\\033[H\\033[2J'; i=0; for f in Apple Banana Cherry; do if [ $i = $sel ]; then printf '\\033[7;33m> %s\\033[0m\\n' $f; else printf '  %s\\n' $f; fi; i=$((i+1)); done; k=$(dd bs=3 count=1 2>/dev/null); case $k in *B) sel=$((sel+1));; esac; done",
    )
}

#[test]
fn locators_assert_text_style_and_count_in_words() {
    let s = menu();
    let screen = s.wait_for_text("Cherry").unwrap();
    let selected = StyleMatch::new().inverse().fg("yellow").unwrap();
    screen
        .locate("Apple")
        .unwrap()
        .assert_visible()
        .unwrap()
        .assert_style(&selected)
        .unwrap();
    screen.locate(r"^  \w+").unwrap().assert_count(2).unwrap();
    screen.locate_row(1).assert_text("Banana").unwrap();
    let banana = screen.locate("Banana").unwrap();
    let line = line!() + 1;
    let err = banana.assert_style(&selected).unwrap_err();
    let report = err.to_string();
    assert!(
        report.starts_with(&format!(
            "tests/locators.rs:{line}: expected /Banana/ inverse fg=yellow (3), found row 1 column 2 is default (not inverse)"
        )),
        "{report}"
    );
    assert!(report.contains("   1 |   Banana\n     |   ^^^^^^"), "{report}");
    assert!(
        report.contains("saved: ") || std::env::var_os("CARGO_MANIFEST_DIR").is_none(),
        "{report}"
    );
    assert_eq!(err.kind(), ErrorKind::Mismatch);
    assert!(screen.locate("Durian").unwrap().assert_visible().is_err());
}

#[test]
fn a_wait_on_a_style_waits_for_the_selection_to_move() {
    let s = menu();
    s.wait_for_text("Cherry").unwrap();
    let selected = StyleMatch::new().inverse();
    s.press("Down").unwrap();
    s.press("Down").unwrap();
    let screen = s.wait(&selected.on("Cherry").unwrap()).unwrap();
    screen.locate("Cherry").unwrap().assert_style(&selected).unwrap();
    let err = s
        .wait_timeout(&selected.on("Durian").unwrap(), Duration::from_millis(100))
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("waiting for text matching /Durian/ drawn inverse"),
        "{err}"
    );
}

#[test]
fn every_attribute_a_cell_records_can_be_asserted_and_a_miss_says_which() {
    let s = sh(
        "printf '\\033[2mdim\\033[0m \\033[3mital\\033[0m \\033[4:3;58;5;1mcurly\\033[0m \\033[9mdone\\033[0m \\033[5mblink\\033[0m \\033[8mhid\\033[0m \\033[53mover\\033[0m \\033[4mplain\\033[0m end'; sleep 60",
    );
    let screen = s.wait_for_text("end").unwrap();
    let located = |re: &str| screen.locate(re).unwrap();
    located("dim").assert_style(&StyleMatch::new().dim()).unwrap();
    located("ital").assert_style(&StyleMatch::new().italic()).unwrap();
    let curly = StyleMatch::new()
        .underline_style(UnderlineStyle::Curly)
        .underline_color("red")
        .unwrap();
    located("curly").assert_style(&curly).unwrap();
    located("done")
        .assert_style(&StyleMatch::new().strikethrough())
        .unwrap();
    located("blink").assert_style(&StyleMatch::new().blink()).unwrap();
    screen
        .locate_cells(0, 26..29)
        .assert_style(&StyleMatch::new().hidden())
        .unwrap();
    located("over")
        .assert_style(&StyleMatch::new().overline())
        .unwrap();
    // A plain SGR 4 is a single underline.
    located("plain")
        .assert_style(&StyleMatch::new().underline_style(UnderlineStyle::Single))
        .unwrap();
    let err = located("plain").assert_style(&curly).unwrap_err().to_string();
    assert!(
        err.contains("found row 0 column 35 is underline (underline single, not curly)"),
        "{err}"
    );
    let err = located("done")
        .assert_style(&StyleMatch::new().strikethrough().dim())
        .unwrap_err()
        .to_string();
    assert!(err.contains("is strikethrough (not dim)"), "{err}");
}

#[test]
fn colour_names_are_ratatuis_and_a_normal_for_bright_miss_says_which_name_is_which() {
    // ratatui's Color::White is palette 15 (SGR 97), its Gray 7 (SGR 37).
    let s = sh("printf '\\033[37mgray\\033[0m \\033[97mwhite\\033[0m \\033[90mdark\\033[0m'; sleep 60");
    let screen = s.wait_for_text("dark").unwrap();
    let fg = |name: &str| StyleMatch::new().fg(name).unwrap();
    screen.locate("gray").unwrap().assert_style(&fg("Gray")).unwrap();
    screen.locate("gray").unwrap().assert_style(&fg("7")).unwrap();
    screen
        .locate("white")
        .unwrap()
        .assert_style(&fg("White"))
        .unwrap();
    screen
        .locate("white")
        .unwrap()
        .assert_style(&fg("bright-white"))
        .unwrap();
    screen
        .locate("dark")
        .unwrap()
        .assert_style(&fg("DarkGray"))
        .unwrap();
    let err = screen
        .locate("gray")
        .unwrap()
        .assert_style(&fg("White"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("fg is gray (7), not white (15) — `white` is palette 15 and `gray` palette 7"),
        "{err}"
    );
}

#[test]
fn a_timed_out_style_wait_says_the_style_it_found() {
    let s = sh("printf '\\033[1;37mCherry\\033[0m'; sleep 60");
    s.wait_for_text("Cherry").unwrap();
    let err = s
        .wait_timeout(
            &StyleMatch::new()
                .bold()
                .fg("White")
                .unwrap()
                .on("Cherry")
                .unwrap(),
            Duration::from_millis(100),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(
            "note: the first match, at row 0 col 0, is drawn bold fg=gray (7): fg is gray (7), not white (15)"
        ),
        "{err}"
    );
    let err = s
        .wait_timeout(
            &StyleMatch::new().on("Durian").unwrap(),
            Duration::from_millis(100),
        )
        .unwrap_err()
        .to_string();
    assert!(err.contains("note: no text matches /Durian/"), "{err}");
}

/// A results table whose status bar repeats the search term, as csvlens's does: `Tokyo`
/// in red at row 2, and again, plain, in the status bar on the last row.
fn search_results() -> Session {
    sh(
        "printf 'city      people\\n--------  ------\\n\\033[31mTokyo\\033[0m     37.4\\nOsaka     19.1\\n'; printf '\\033[24;1Hsearch: Tokyo (1 match)'; sleep 60",
    )
}

#[test]
fn a_locator_limited_to_rows_asserts_on_the_table_and_not_the_status_bar_that_repeats_the_term() {
    let s = search_results();
    s.wait_for_text("search: Tokyo").unwrap();
    let red = StyleMatch::new().fg("red").unwrap();
    // Unscoped, the status bar's plain `Tokyo` fails the style.
    let unscoped = s
        .locate("Tokyo")
        .unwrap()
        .within(Duration::from_millis(200))
        .assert_style(&red)
        .unwrap_err()
        .to_string();
    assert!(unscoped.contains("row 23"), "{unscoped}");
    // Scoped to the table, it holds: on the live screen and on a snapshot.
    s.locate("Tokyo")
        .unwrap()
        .in_rows(0..23)
        .assert_style(&red)
        .unwrap();
    s.locate("Tokyo")
        .unwrap()
        .in_rect(2..3, 0..10)
        .assert_visible()
        .unwrap();
    let screen = s.snapshot();
    screen
        .locate("Tokyo")
        .unwrap()
        .in_rows(..23)
        .assert_style(&red)
        .unwrap();
    screen
        .locate("Tokyo")
        .unwrap()
        .in_cols(0..6)
        .assert_count(1)
        .unwrap();
}

#[test]
fn a_scoped_locator_that_finds_its_text_only_outside_its_region_says_where_it_was() {
    let s = search_results();
    s.wait_for_text("search: Tokyo").unwrap();
    let err = s
        .locate("search")
        .unwrap()
        .in_rows(3..23)
        .within(Duration::from_millis(200))
        .assert_visible()
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains("expected /search/ in rows 3-22 on the screen (retried for 0.20s), found only at row 23 column 0, outside the region (in rows 3-22)"),
        "{report}"
    );
    assert!(
        !report.contains("closest line"),
        "the text is there, only elsewhere: {report}"
    );
}

#[test]
fn relative_locators_find_text_below_above_beside_and_inside_a_box_around_another() {
    let s = sh("printf 'Name: Bob\\nCity: Bob\\n┌──────┐\\n│ Bob  │\\n└──────┘\\nBob\\n'; sleep 60");
    s.wait_for_text("^Bob$").unwrap();
    let city = s.locate("City:").unwrap();
    let bob = || s.locate("Bob").unwrap();
    bob().right_of(&city).assert_count(1).unwrap();
    assert_eq!(
        s.snapshot()
            .locate("Bob")
            .unwrap()
            .right_of(&s.snapshot().locate("City:").unwrap())
            .text(),
        "Bob"
    );
    bob().below(&city).assert_count(2).unwrap();
    bob().above(&city).assert_count(1).unwrap();
    bob().left_of(&city).assert_gone().unwrap();
    // Inside the box drawn around the boxed `Bob`: only that one.
    let boxed = bob().nth(2);
    bob().inside(&boxed).assert_count(1).unwrap();
    // No box around the name: the locator says so.
    let err = bob()
        .inside(&s.locate("Name:").unwrap())
        .within(Duration::from_millis(200))
        .assert_visible()
        .unwrap_err()
        .to_string();
    assert!(err.contains("no box is drawn around /Name:/"), "{err}");
}

#[test]
fn inside_a_titled_pane_finds_what_the_pane_holds_wherever_its_title_sits() {
    // Fails on the code before: a title at the box's left edge, or with spaces around it
    // (how ratatui draws a pane), had no box around it.
    let panes = concat!(
        "┌Help──────┐┌ Files ───┐┌──Log─────┐\n",
        "│ item     ││ item     ││ item     │\n",
        "│ item     │└──────────┘│ item     │\n",
        "└──────────┘ item       └──────────┘\n",
    );
    let s = sh(&format!("printf '{panes}'; sleep 60"));
    s.wait_for_text("Log").unwrap();
    for (title, count) in [("Help", 2), ("Files", 1), ("Log", 2)] {
        let pane = s.locate(title).unwrap();
        s.locate("item")
            .unwrap()
            .inside(&pane)
            .assert_count(count)
            .unwrap_or_else(|e| panic!("inside {title}: {e}"));
    }
}

#[test]
fn nth_first_and_last_pick_one_match_and_say_how_many_there_were() {
    let s = sh("printf 'item one\\nitem two\\nitem three\\n'; sleep 60");
    s.wait_for_text("item three").unwrap();
    s.locate("item \\w+")
        .unwrap()
        .nth(1)
        .assert_text("^item two$")
        .unwrap();
    s.locate("item \\w+").unwrap().first().assert_text("one").unwrap();
    s.locate("item \\w+")
        .unwrap()
        .last()
        .assert_text("three")
        .unwrap();
    let err = s
        .locate("item")
        .unwrap()
        .nth(5)
        .within(Duration::from_millis(200))
        .assert_visible()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("expected /item/ (the 6th match) on the screen"),
        "{err}"
    );
    assert!(err.contains("found only 3 matches"), "{err}");
}

#[test]
fn a_text_wait_in_a_region_waits_for_the_table_and_says_where_the_text_was_instead() {
    let s = search_results();
    s.wait_for_text("search: Tokyo").unwrap();
    // In the table's rows the wait holds; limited to rows the status bar is not in.
    let held = s
        .apply(&common::wait_op(WaitFor::TextIn {
            pattern: "^Tokyo".into(),
            rows: Some((2, 22)),
            cols: None,
        }))
        .unwrap();
    let Reply::Screen { screen } = held else {
        panic!("{held:?}")
    };
    assert_eq!(
        screen.waited.as_deref(),
        Some("text matching /^Tokyo/ in rows 2-22 on the screen: held")
    );
    // `search` is only in the status bar: a wait limited to the table fails and says so.
    let err = s
        .wait_timeout(
            &Condition::text_in("search", Some((0, 22)), Some((0, 79))).unwrap(),
            Duration::from_millis(200),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("waiting for text matching /search/ in rows 0-22, columns 0-79 on the screen"),
        "{err}"
    );
    assert!(
        err.contains("found only at row 23 column 0, outside the region (in rows 0-22, columns 0-79)"),
        "{err}"
    );
}
