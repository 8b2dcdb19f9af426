//! Mouse actions sent to a raw-mode program that enables each tracking mode with each
//! encoding and prints the bytes it reads. The expected bytes are xterm's (ctlseqs, "Mouse
//! Tracking"), written out here from its rules, not computed by the encoder under test.

mod common;

use common::hex;
use tuipilot::{Condition, ErrorKind, Input, Session};

/// Starts `keyecho` with these mouse modes (`1000,1006`) on a screen of `cols` columns.
fn echo(modes: &str, cols: u16) -> Session {
    let s = common::fixture_session("keyecho")
        .args(["--mouse", modes])
        .size(cols, 60)
        .spawn()
        .unwrap();
    s.wait_for_text("^ready").unwrap();
    s
}

/// Sends mouse `action` and returns the bytes the program read for it, as hex.
fn received(s: &Session, action: &str) -> String {
    common::received_hex(s, &Input::mouse(action).unwrap())
}

/// xterm's report of button code `code` at 1-based `(x, y)`, press or release, in the
/// encoding selected by mode `encoding` (0: the default X10 bytes). A release outside
/// SGR is button 3; SGR keeps the button and ends in `m`.
fn report(encoding: u16, code: u32, x: u32, y: u32, release: bool) -> Vec<u8> {
    let released = if release { 3 } else { code } | (code & !3);
    match encoding {
        0 => vec![
            0x1b,
            b'[',
            b'M',
            (released + 32) as u8,
            (x + 32) as u8,
            (y + 32) as u8,
        ],
        1005 => {
            let mut out = b"\x1b[M".to_vec();
            for v in [released + 32, x + 32, y + 32] {
                out.extend_from_slice(char::from_u32(v).unwrap().to_string().as_bytes());
            }
            out
        }
        1006 => format!("\x1b[<{code};{x};{y}{}", if release { 'm' } else { 'M' }).into_bytes(),
        1015 => format!("\x1b[{};{x};{y}M", released + 32).into_bytes(),
        // SGR pixels: the middle of the 10x19 cell, 1-based.
        1016 => format!(
            "\x1b[<{code};{};{}{}",
            (x - 1) * 10 + 5 + 1,
            (y - 1) * 19 + 9 + 1,
            if release { 'm' } else { 'M' }
        )
        .into_bytes(),
        _ => unreachable!(),
    }
}

#[test]
fn every_tracking_mode_with_every_encoding_sends_xterms_bytes() {
    for tracking in [9u16, 1000, 1002, 1003] {
        for encoding in [0u16, 1005, 1006, 1015, 1016] {
            let modes = if encoding == 0 {
                tracking.to_string()
            } else {
                format!("{tracking},{encoding}")
            };
            let s = echo(&modes, 250);
            let at = |what: &str| format!("{what} (modes {modes})");
            let press = |code, x, y| report(encoding, code, x, y, false);
            let release = |code, x, y| report(encoding, code, x, y, true);
            let x10 = tracking == 9;
            let (mouse_tracking, mouse_encoding) = {
                let m = s.snapshot().input_modes().mouse;
                (m.tracking.mode(), m.encoding.mode())
            };
            assert_eq!((mouse_tracking, mouse_encoding), (tracking, encoding), "{modes}");

            // A click at column 4, row 2 (0-based) is reported at 5;3.
            let mut want = press(0, 5, 3);
            if !x10 {
                want.extend(release(0, 5, 3));
            }
            assert_eq!(received(&s, "click 4,2"), hex(&want), "{}", at("click"));

            let mut want = press(2, 5, 3);
            if !x10 {
                want.extend(release(2, 5, 3));
            }
            assert_eq!(
                received(&s, "right-click 4,2"),
                hex(&want),
                "{}",
                at("right-click")
            );

            // Modifiers: shift 4, meta 8, control 16 — none in mode 9.
            let mods = if x10 { 0 } else { 16 + 4 };
            let mut want = press(mods, 5, 3);
            if !x10 {
                want.extend(release(mods, 5, 3));
            }
            assert_eq!(received(&s, "C-S-click 4,2"), hex(&want), "{}", at("C-S-click"));

            // The wheel: presses only, button 64 up, 65 down.
            let mut want = press(65, 1, 1);
            want.extend(press(65, 1, 1));
            assert_eq!(received(&s, "scroll-down 0,0 2"), hex(&want), "{}", at("scroll"));

            // A drag: motion with the button held (32 + 0) only from mode 1002 on.
            let mut want = press(0, 2, 2);
            if tracking >= 1002 {
                want.extend(press(32, 3, 2));
                want.extend(press(32, 4, 2));
            }
            if !x10 {
                want.extend(release(0, 4, 2));
            }
            assert_eq!(received(&s, "drag 1,1..3,1"), hex(&want), "{}", at("drag"));

            // Motion with no button (32 + 3) only in mode 1003; elsewhere it is refused.
            if tracking == 1003 {
                assert_eq!(received(&s, "move 6,3"), hex(&press(35, 7, 4)), "{}", at("move"));
            } else {
                let err = s.send(&Input::mouse("move 6,3").unwrap()).unwrap_err();
                assert_eq!(err.kind(), ErrorKind::BadInput, "{}", at("move"));
                assert!(err.to_string().contains("does not report"), "{err}");
            }
            s.kill().unwrap();
        }
    }
}

#[test]
fn coordinates_past_223_are_capped_in_x10_bytes_and_carried_by_the_others() {
    let s = echo("1000", 300);
    // Column 250 is 251 1-based; X10 caps it at 223 (byte 255).
    assert_eq!(received(&s, "press 250,0"), "1b 5b 4d 20 ff 21");
    s.kill().unwrap();
    let s = echo("1000,1005", 300);
    // UTF-8 carries 251 + 32 = 283 as U+011B.
    assert_eq!(received(&s, "press 250,0"), hex("\x1b[M \u{11b}!".as_bytes()));
    s.kill().unwrap();
    let s = echo("1000,1006", 300);
    assert_eq!(received(&s, "press 250,0"), hex(b"\x1b[<0;251;1M"));
    s.kill().unwrap();
}

#[test]
fn a_regex_target_clicks_the_middle_of_the_first_match() {
    let s = echo("1000,1006", 250);
    // `ready (mouse 1000,1006)` is on row 0: `mouse` starts at column 7, its middle is 9.
    assert_eq!(received(&s, "press /mouse/"), hex(b"\x1b[<0;10;1M"));
    let err = s
        .send(&Input::mouse("click /no such text/").unwrap())
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(
        err.to_string().contains("/no such text/ matches nothing"),
        "{err}"
    );
    s.kill().unwrap();
}

#[test]
fn a_program_that_did_not_enable_the_mouse_gets_no_click_and_the_caller_an_error() {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    assert!(!s.snapshot().mouse_reporting());
    let err = s.mouse("click 1,1").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(
        err.to_string().contains("has not enabled mouse reporting"),
        "{err}"
    );
    let err = s.focus(tuipilot::keys::Focus::In).unwrap_err();
    assert!(err.to_string().contains("has not enabled focus events"), "{err}");
    // Nothing reached the program: the next thing it reads is the marker.
    let screen = s
        .send_and_wait(&Input::text("|"), &Condition::output(r"#1 7c").unwrap())
        .unwrap();
    assert_eq!(screen.row(1), Some("#1 7c"));
    s.kill().unwrap();
}

#[test]
fn focus_events_are_sent_when_the_program_enabled_them() {
    let s = common::fixture_session("keyecho").arg("--focus").spawn().unwrap();
    s.wait_for_text("^ready").unwrap();
    assert!(s.snapshot().input_modes().focus_events);
    s.focus(tuipilot::keys::Focus::In).unwrap();
    s.wait_for_text("^#1 1b 5b 49$").unwrap();
    s.focus(tuipilot::keys::Focus::Out).unwrap();
    s.wait_for_text("^#2 1b 5b 4f$").unwrap();
    s.kill().unwrap();
}
