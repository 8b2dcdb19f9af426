//! Every key in the grammar, sent to a raw-mode program that prints the bytes it reads,
//! in normal and in application cursor mode. The expected bytes are xterm's, written
//! out literally here.

mod common;

use tuipilot::{Condition, Input};

/// (key spec, bytes in normal mode, bytes in application cursor mode)
const KEYS: &[(&str, &str, &str)] = &[
    ("Enter", "0d", "0d"),
    ("Return", "0d", "0d"),
    ("Tab", "09", "09"),
    ("S-Tab", "1b 5b 5a", "1b 5b 5a"),
    ("Shift+Tab", "1b 5b 5a", "1b 5b 5a"),
    ("Esc", "1b", "1b"),
    ("Escape", "1b", "1b"),
    ("Space", "20", "20"),
    ("Backspace", "7f", "7f"),
    ("C-Backspace", "08", "08"),
    ("M-Backspace", "1b 7f", "1b 7f"),
    ("Up", "1b 5b 41", "1b 4f 41"),
    ("Down", "1b 5b 42", "1b 4f 42"),
    ("Right", "1b 5b 43", "1b 4f 43"),
    ("Left", "1b 5b 44", "1b 4f 44"),
    ("Home", "1b 5b 48", "1b 4f 48"),
    ("End", "1b 5b 46", "1b 4f 46"),
    ("PageUp", "1b 5b 35 7e", "1b 5b 35 7e"),
    ("PageDown", "1b 5b 36 7e", "1b 5b 36 7e"),
    ("Insert", "1b 5b 32 7e", "1b 5b 32 7e"),
    ("Delete", "1b 5b 33 7e", "1b 5b 33 7e"),
    ("F1", "1b 4f 50", "1b 4f 50"),
    ("F2", "1b 4f 51", "1b 4f 51"),
    ("F3", "1b 4f 52", "1b 4f 52"),
    ("F4", "1b 4f 53", "1b 4f 53"),
    ("F5", "1b 5b 31 35 7e", "1b 5b 31 35 7e"),
    ("F6", "1b 5b 31 37 7e", "1b 5b 31 37 7e"),
    ("F7", "1b 5b 31 38 7e", "1b 5b 31 38 7e"),
    ("F8", "1b 5b 31 39 7e", "1b 5b 31 39 7e"),
    ("F9", "1b 5b 32 30 7e", "1b 5b 32 30 7e"),
    ("F10", "1b 5b 32 31 7e", "1b 5b 32 31 7e"),
    ("F11", "1b 5b 32 33 7e", "1b 5b 32 33 7e"),
    ("F12", "1b 5b 32 34 7e", "1b 5b 32 34 7e"),
    ("S-Up", "1b 5b 31 3b 32 41", "1b 5b 31 3b 32 41"),
    ("M-Down", "1b 5b 31 3b 33 42", "1b 5b 31 3b 33 42"),
    ("C-Right", "1b 5b 31 3b 35 43", "1b 5b 31 3b 35 43"),
    ("C-S-Up", "1b 5b 31 3b 36 41", "1b 5b 31 3b 36 41"),
    ("Ctrl+Shift+Left", "1b 5b 31 3b 36 44", "1b 5b 31 3b 36 44"),
    ("C-M-S-Left", "1b 5b 31 3b 38 44", "1b 5b 31 3b 38 44"),
    ("S-Home", "1b 5b 31 3b 32 48", "1b 5b 31 3b 32 48"),
    ("C-End", "1b 5b 31 3b 35 46", "1b 5b 31 3b 35 46"),
    ("C-Delete", "1b 5b 33 3b 35 7e", "1b 5b 33 3b 35 7e"),
    ("S-PageUp", "1b 5b 35 3b 32 7e", "1b 5b 35 3b 32 7e"),
    ("M-Insert", "1b 5b 32 3b 33 7e", "1b 5b 32 3b 33 7e"),
    ("C-F1", "1b 5b 31 3b 35 50", "1b 5b 31 3b 35 50"),
    ("S-F5", "1b 5b 31 35 3b 32 7e", "1b 5b 31 35 3b 32 7e"),
    ("M-F12", "1b 5b 32 34 3b 33 7e", "1b 5b 32 34 3b 33 7e"),
    ("C-a", "01", "01"),
    ("C-c", "03", "03"),
    ("Ctrl+C", "03", "03"),
    ("ctrl-c", "03", "03"),
    ("^C", "03", "03"),
    ("C-d", "04", "04"),
    ("C-q", "11", "11"),
    ("C-s", "13", "13"),
    ("C-z", "1a", "1a"),
    ("C-Space", "00", "00"),
    ("C-@", "00", "00"),
    ("C-[", "1b", "1b"),
    ("^[", "1b", "1b"),
    ("C-\\", "1c", "1c"),
    ("C-]", "1d", "1d"),
    ("C-^", "1e", "1e"),
    ("C-_", "1f", "1f"),
    ("C-?", "7f", "7f"),
    ("M-x", "1b 78", "1b 78"),
    ("Alt+x", "1b 78", "1b 78"),
    ("A-x", "1b 78", "1b 78"),
    ("M-X", "1b 58", "1b 58"),
    ("M-Enter", "1b 0d", "1b 0d"),
    ("M-Esc", "1b 1b", "1b 1b"),
    ("C-M-a", "1b 01", "1b 01"),
    ("a", "61", "61"),
    ("Z", "5a", "5a"),
    ("S-a", "41", "41"),
    ("1", "31", "31"),
    ("~", "7e", "7e"),
    ("-", "2d", "2d"),
    ("+", "2b", "2b"),
    ("^", "5e", "5e"),
    ("é", "c3 a9", "c3 a9"),
];

fn check_all(app_cursor: bool) {
    let mut builder = common::fixture_session("keyecho");
    if app_cursor {
        builder = builder.arg("--app-cursor");
    }
    let s = builder.spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    assert_eq!(s.snapshot().application_cursor(), app_cursor);
    for (n, (spec, normal, app)) in KEYS.iter().enumerate() {
        let tag = format!("#{} ", n + 1);
        let screen = s
            .send_and_wait(
                &Input::keys(spec).unwrap(),
                &Condition::text(&format!("^{tag}")).unwrap(),
            )
            .unwrap_or_else(|e| panic!("key {spec}: {e}"));
        let row = screen.rows().iter().find(|r| r.starts_with(&tag)).unwrap();
        let expected = if app_cursor { app } else { normal };
        assert_eq!(
            &row[tag.len()..],
            *expected,
            "key {spec} (application cursor: {app_cursor})"
        );
    }
}

#[test]
fn every_key_in_normal_cursor_mode() {
    check_all(false);
}

#[test]
fn every_key_in_application_cursor_mode() {
    check_all(true);
}

#[test]
fn press_all_sends_the_keys_in_order() {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    s.press_all(["Down", "Esc", "Enter"]).unwrap();
    // Keys sent back to back may be read together; each key's own bytes are never split.
    let screen = s.wait_for_output("0d").unwrap();
    let received: Vec<&str> = screen
        .rows()
        .iter()
        .filter_map(|r| r.strip_prefix('#'))
        .map(|r| r.split_once(' ').map_or("", |(_, hex)| hex))
        .collect();
    assert_eq!(received.join(" "), "1b 5b 42 1b 0d");
}

#[test]
fn a_bad_key_name_sends_nothing() {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    let err = s.press_all(["Down", "Dwon"]).unwrap_err();
    assert!(err.to_string().contains("unknown key `Dwon`"), "{err}");
    assert!(err.to_string().contains("Down"), "suggests Down: {err}");
    s.press("x").unwrap();
    let screen = s.wait_for_text("^#1 ").unwrap();
    assert_eq!(
        screen.row(1),
        Some("#1 78"),
        "the valid Down before the bad name was not sent"
    );
}
