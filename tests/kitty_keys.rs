//! Keys under the keyboard protocols a program can enable: each kitty keyboard flag and
//! xterm's modifyOtherKeys, sent to a raw-mode program that prints the bytes it reads, and
//! decoded by crossterm (what ratatui apps use). The expected bytes are the protocols'
//! documented ones, written out literally here.

mod common;

use common::hex;
use tuipilot::{Condition, Input, Session};

fn echo(args: &[&str]) -> Session {
    let s = common::fixture_session("keyecho")
        .args(args)
        .size(200, 60)
        .spawn()
        .unwrap();
    s.wait_for_text("^ready").unwrap();
    s
}

/// Each `(key, bytes)` sent to `keyecho` with `args`; an empty string means nothing is
/// sent (a release the program did not ask for).
fn check(args: &[&str], table: &[(&str, &str)]) {
    let s = echo(args);
    for (key, expected) in table {
        let got = common::received_hex(&s, &Input::keys(key).unwrap());
        assert_eq!(got, hex(expected.as_bytes()), "{key} with {args:?}");
    }
    s.kill().unwrap();
}

#[test]
fn disambiguate_flag_1_escapes_what_legacy_bytes_confuse() {
    check(
        &["--kitty", "1"],
        &[
            ("Esc", "\x1b[27u"),
            ("C-a", "\x1b[97;5u"),
            ("C-i", "\x1b[105;5u"),
            ("Tab", "\t"),
            ("S-Tab", "\x1b[9;2u"),
            ("M-a", "\x1b[97;3u"),
            ("C-M-a", "\x1b[97;7u"),
            ("a", "a"),
            ("S-a", "A"),
            ("Enter", "\r"),
            ("C-Enter", "\x1b[13;5u"),
            ("Backspace", "\x7f"),
            ("M-Backspace", "\x1b[127;3u"),
            ("Up", "\x1b[A"),
            ("C-Up", "\x1b[1;5A"),
            ("F1", "\x1b[P"),
            ("F3", "\x1b[13~"),
            ("F5", "\x1b[15~"),
            ("S-F5", "\x1b[15;2~"),
            ("Delete", "\x1b[3~"),
            ("release:a", ""),
            ("repeat:a", "a"),
        ],
    );
}

#[test]
fn event_types_flag_2_reports_repeats_and_releases() {
    check(
        &["--kitty", "3"],
        &[
            ("a", "a"),
            ("release:a", "\x1b[97;1:3u"),
            ("repeat:C-a", "\x1b[97;5:2u"),
            ("release:C-a", "\x1b[97;5:3u"),
            ("release:Esc", "\x1b[27;1:3u"),
            ("repeat:Up", "\x1b[1;1:2A"),
            ("release:F5", "\x1b[15;1:3~"),
            // Enter, Tab and Backspace report no release unless every key is escaped.
            ("release:Enter", ""),
        ],
    );
}

#[test]
fn alternate_keys_flag_4_adds_the_shifted_key() {
    check(
        &["--kitty", "12"],
        &[
            ("S-a", "\x1b[97:65;2u"),
            ("a", "\x1b[97u"),
            ("C-S-b", "\x1b[98:66;6u"),
        ],
    );
}

#[test]
fn all_keys_flag_8_escapes_text_and_enter_too() {
    check(
        &["--kitty", "8"],
        &[
            ("a", "\x1b[97u"),
            ("S-a", "\x1b[97;2u"),
            ("Enter", "\x1b[13u"),
            ("Tab", "\x1b[9u"),
            ("Backspace", "\x1b[127u"),
            ("Space", "\x1b[32u"),
            ("Up", "\x1b[A"),
        ],
    );
    check(&["--kitty", "10"], &[("release:Enter", "\x1b[13;1:3u")]);
}

#[test]
fn associated_text_flag_16_sends_the_typed_text() {
    check(
        &["--kitty", "24"],
        &[
            ("a", "\x1b[97;;97u"),
            ("S-a", "\x1b[97;2;65u"),
            ("C-a", "\x1b[97;5u"),
        ],
    );
    check(&["--kitty", "26"], &[("release:a", "\x1b[97;1:3u")]);
}

#[test]
fn modify_other_keys_sends_csi_27_for_modified_keys() {
    check(
        &["--modify-other-keys", "2"],
        &[
            ("C-Enter", "\x1b[27;5;13~"),
            ("S-Enter", "\x1b[27;2;13~"),
            ("C-Tab", "\x1b[27;5;9~"),
            ("C-a", "\x1b[27;5;97~"),
            ("M-x", "\x1b[27;3;120~"),
            ("a", "a"),
            ("S-a", "A"),
            ("Up", "\x1b[A"),
            ("C-Up", "\x1b[1;5A"),
        ],
    );
    check(
        &["--modify-other-keys", "1"],
        &[
            ("C-a", "\x01"),
            ("C-Enter", "\x1b[27;5;13~"),
            ("S-Tab", "\x1b[Z"),
            ("C-S-a", "\x1b[27;6;65~"),
        ],
    );
}

#[test]
fn crossterm_tells_ctrl_i_from_tab_and_sees_releases_under_kitty_flags() {
    // Disambiguate, report event types, report all keys: what helix and Textual push.
    let s = common::fixture_session("crossterm_keys")
        .args(["--kitty", "11"])
        .spawn()
        .unwrap();
    s.wait_for_text("^ready").unwrap();
    assert_eq!(s.snapshot().input_modes().keys.kitty_flags, 11);
    for (key, event) in [
        ("Tab", "Tab NONE Press"),
        ("C-i", "Char('i') CONTROL Press"),
        ("Esc", "Esc NONE Press"),
        ("M-[", "Char('[') ALT Press"),
        ("a", "Char('a') NONE Press"),
        ("repeat:a", "Char('a') NONE Repeat"),
        ("release:a", "Char('a') NONE Release"),
        ("C-Enter", "Enter CONTROL Press"),
        ("release:Up", "Up NONE Release"),
    ] {
        let line = format!("event: {event}");
        s.send_and_wait(
            &Input::keys(key).unwrap(),
            &Condition::output(&regex::escape(&line)).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    s.kill().unwrap();
}
