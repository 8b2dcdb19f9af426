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
