//! Each gap the layer in front of vt100 closes, end to end: real programs write the
//! sequences to a real PTY and the session's screen must show what xterm would.

mod common;

use std::time::Duration;

use tuipilot::{Color, Session, Snapshot};

/// Runs `printf FORMAT` under the engine and returns the final screen.
fn printf_screen(format: &str) -> Snapshot {
    let s = Session::builder("printf")
        .arg(format)
        .size(20, 5)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_exit().unwrap();
    s.snapshot()
}

#[test]
fn dec_special_graphics() {
    let screen = printf_screen("\\033(0lqqk\\033(B\\r\\n\\033)0\\016x\\017ok\\016x\\017");
    assert_eq!(screen.row(0), Some("┌──┐"));
    assert_eq!(screen.row(1), Some("│ok│"));
}

#[test]
fn insert_mode() {
    let screen = printf_screen("world\\r\\033[4hhello \\033[4l");
    assert_eq!(screen.row(0), Some("hello world"));
}

#[test]
fn autowrap_off() {
    let screen = printf_screen("\\033[?7l0123456789abcdefghijKLM\\033[?7h");
    assert_eq!(screen.row(0), Some("0123456789abcdefghiM"));
    assert_eq!(screen.row(1), Some(""));
}

#[test]
fn save_and_restore_cursor_with_csi_s_and_u() {
    let screen = printf_screen("ab\\033[s\\r\\nxyz\\033[uC");
    assert_eq!(screen.row(0), Some("abC"));
}

#[test]
fn index_and_next_line() {
    let screen = printf_screen("ab\\033Dc\\033Ed");
    assert_eq!(screen.rows()[..3], ["ab", "  c", "d"]);
}

#[test]
fn underline_colour_from_crossterm_is_not_read_as_bold() {
    // The crossterm fixture prints a word with an underline colour, as ratatui does.
    let s = common::fixture_session("crossterm_keys").spawn().unwrap();
    let screen = s.wait_for_text("^ready").unwrap();
    let m = &screen.find("styled").unwrap()[0];
    let style = screen.style_at(m.row, m.col).unwrap();
    assert!(style.underline, "{style:?}");
    assert!(!style.bold, "58;5;n must not turn into bold: {style:?}");
    assert_eq!(style.fg, Color::Indexed(2), "{style:?}");
}

#[test]
fn snapshots_work_with_insta() {
    insta::assert_snapshot!(printf_screen("one\\r\\ntwo\\033[1;31m red\\033[0m"), @r"
    one
    two red
    ");
}
