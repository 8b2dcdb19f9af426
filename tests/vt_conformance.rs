//! Terminal conformance: each control function where the engine's screen differed from
//! xterm's (found by running vttest against xterm 379, see the guide's fidelity chapter),
//! driven through a session as a program would send it and checked against what xterm
//! shows. Tests are named for the control function.

mod common;

use std::time::Duration;

use tuipilot::{Session, Snapshot};

/// A shell that prints `bytes` (a `printf` format) at 80×24 and then waits for input;
/// the screen once it does.
fn after_printf(format: &str) -> (Session, Snapshot) {
    let s = Session::builder("sh")
        .args(["-c", &format!("printf '{format}'; read x")])
        .size(80, 24)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let screen = s.wait(&tuipilot::Condition::Ready).unwrap();
    (s, screen)
}

/// The reply the session gave to the query spelled `query` (as the transcript spells it).
fn reply_to(s: &Session, query: &str) -> Option<String> {
    s.transcript()
        .into_iter()
        .find(|q| q.query == query)
        .and_then(|q| q.reply)
}

#[test]
fn decrc_restores_the_character_sets_decsc_saved() {
    // Saved with G0 as ASCII, restored after line drawing was selected: `abc` is letters.
    let (_s, screen) = after_printf(r"\0337\033(0lqk\0338abc");
    assert_eq!(screen.row(0), Some("abc"));
}

#[test]
fn decrc_restores_strikethrough_and_blink_decsc_saved() {
    let (_s, screen) = after_printf(r"\033[9;5m\0337\033[0m\0338x\033[0m");
    let style = screen.cell(0, 0).unwrap().style;
    assert!(style.strikethrough && style.blink, "{style:?}");
}

#[test]
fn rep_repeats_only_a_graphic_character_written_just_before() {
    let (_s, screen) = after_printf(r"+\033[3b\033[2;1H\033[3b|\033[3;1Hx\n\033[2b");
    // Right after `+`: three more. After a cursor move, nothing; after a line feed, nothing.
    assert_eq!(screen.row(0), Some("++++"));
    assert_eq!(screen.row(1), Some("|"));
    assert_eq!(screen.row(2), Some("x"));
    assert_eq!(screen.row(3), Some(""));
}

#[test]
fn dsr_printer_keyboard_and_key_status_answer_as_a_vt220() {
    let (s, _) = after_printf(r"\033[?15n\033[?25n\033[?26n");
    assert_eq!(reply_to(&s, "ESC[?15n").as_deref(), Some("ESC[?13n"));
    assert_eq!(reply_to(&s, "ESC[?25n").as_deref(), Some("ESC[?20n"));
    assert_eq!(reply_to(&s, "ESC[?26n").as_deref(), Some("ESC[?27;1n"));
}

#[test]
fn cpr_counts_rows_from_the_top_margin_in_origin_mode() {
    let (s, _) = after_printf(r"\033[5;10r\033[?6h\033[2;3H\033[6n\033[?6l\033[2;3H\033[6n");
    let replies: Vec<Option<String>> = s
        .transcript()
        .into_iter()
        .filter(|q| q.query == "ESC[6n")
        .map(|q| q.reply)
        .collect();
    // In origin mode row 2 of the region is screen row 6; outside it, row 2 is row 2.
    assert_eq!(
        replies,
        [Some("ESC[2;3R".to_string()), Some("ESC[2;3R".to_string())]
    );
    let (s, screen) = after_printf(r"\033[5;10r\033[?6h\033[2;3H*\033[?6$p");
    assert_eq!(screen.find(r"\*").unwrap()[0].row, 5);
    assert_eq!(reply_to(&s, "ESC[?6$p").as_deref(), Some("ESC[?6;1$y"));
}

#[test]
fn decstbm_puts_the_cursor_home_outside_origin_mode() {
    // vt100 put it at the top margin (row 5).
    let (_s, screen) = after_printf(r"abc\033[5;10rX");
    assert_eq!(screen.row(0), Some("Xbc"));
    assert_eq!(screen.row(4), Some(""));
}

#[test]
fn il_and_dl_leave_the_cursor_in_column_1_inside_the_margins() {
    let (_s, screen) = after_printf(r"abc\033[1;5H\033[L*");
    assert_eq!((screen.row(0), screen.row(1)), (Some("*"), Some("abc")));
    let (_s, screen) = after_printf(r"abc\r\ndef\033[1;3H\033[M*");
    assert_eq!(screen.row(0), Some("*ef"));
    // Outside the margins IL does nothing, and the cursor stays where it was.
    let (_s, screen) = after_printf(r"\033[2;3r\033[5;4H\033[L*");
    assert_eq!(screen.row(4), Some("   *"));
}

#[test]
fn decaln_fills_the_screen_with_e_and_resets_margins_origin_and_attributes() {
    let (_s, screen) = after_printf(r"\033[31m\033[5;10r\033[?6h\033#8\033[3;3H\033[1J");
    // Origin mode and the margins are gone: row 3 column 3 is the screen's own.
    assert_eq!(screen.row(0), Some(""));
    assert_eq!(screen.row(1), Some(""));
    assert_eq!(screen.row(2), Some(&*format!("   {}", "E".repeat(77))));
    for row in 3..24 {
        assert_eq!(screen.row(row), Some(&*"E".repeat(80)), "row {row}");
    }
    assert_eq!(screen.cell(23, 79).unwrap().style.fg, tuipilot::Color::Default);
}

#[test]
fn cbt_moves_back_to_the_previous_tab_stop() {
    let (_s, screen) = after_printf(r"\033[1;20Hx\033[Zy\033[2;20H\033[2Zz");
    assert_eq!(screen.row(0), Some(&*format!("{}y  x", " ".repeat(16))));
    assert_eq!(screen.row(1), Some(&*format!("{}z", " ".repeat(8))));
}

#[test]
fn cht_moves_forward_over_tab_stops() {
    let (_s, screen) = after_printf(r"\033[2Ix");
    assert_eq!(screen.find("x").unwrap()[0].col, 16);
}

#[test]
fn hts_and_tbc_set_and_clear_the_stops_ht_uses() {
    // All stops cleared, one set at column 5: a tab from column 1 lands there.
    let (_s, screen) = after_printf(r"\033[3g\033[1;5H\033H\r\tA\r\n\tB\tC");
    assert_eq!(screen.row(0), Some("    A"));
    // From column 5 on there is no stop: to the last column (C overwrites B there).
    assert_eq!(screen.find("C").unwrap()[0].col, 79);
    // TBC 0 clears the stop under the cursor; the default ones come back with RIS.
    let (_s, screen) = after_printf(r"\033[1;9H\033[g\r\tA");
    assert_eq!(screen.find("A").unwrap()[0].col, 16);
    let (_s, screen) = after_printf(r"\033[3g\033c\tB");
    assert_eq!(screen.find("B").unwrap()[0].col, 8);
}

#[test]
#[cfg_attr(not(have_tabs), ignore = "needs tabs from ncurses-bin (.ci/run installs it)")]
fn tabs_4_sets_stops_every_four_columns_for_the_programs_after_it() {
    let s = Session::builder("sh")
        .args([
            "-c",
            "TERM=xterm-256color tabs -4 && printf 'a\\tb\\tc\\n'; read x",
        ])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let screen = s.wait_for_text("^a   b   c$").unwrap();
    assert_eq!(screen.find("c").unwrap()[0].col, 8);
}

#[test]
fn bs_after_a_character_in_the_last_column_moves_to_the_column_before_it() {
    let (_s, screen) = after_printf(r"\033[1;80HA\bBC");
    assert_eq!(screen.row(0), Some(&*format!("{}BC", " ".repeat(78))));
    assert_eq!(screen.row(1), Some(""));
}
