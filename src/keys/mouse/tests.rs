use super::*;

fn modes(tracking: MouseTracking, encoding: MouseEncoding) -> MouseModes {
    MouseModes { tracking, encoding }
}

/// Every write for `spec` aimed at cell `at`, in `modes`.
fn bytes(spec: &str, at: (u16, u16), modes: MouseModes) -> Vec<Vec<u8>> {
    MouseAction::parse(spec)
        .unwrap()
        .events(at)
        .iter()
        .filter_map(|e| e.encode(modes, (10, 19)))
        .collect()
}

#[test]
fn a_click_is_a_press_and_a_release_in_every_encoding() {
    use MouseEncoding::*;
    let normal = |e| modes(MouseTracking::Normal, e);
    // xterm's X10 bytes: button, column and row each plus 32, coordinates 1-based.
    assert_eq!(
        bytes("click 0,0", (0, 0), normal(X10)),
        [b"\x1b[M !!".to_vec(), b"\x1b[M#!!".to_vec()]
    );
    assert_eq!(
        bytes("click 11,23", (11, 23), normal(Sgr)),
        [b"\x1b[<0;12;24M".to_vec(), b"\x1b[<0;12;24m".to_vec()]
    );
    assert_eq!(
        bytes("right-click 4,2", (4, 2), normal(Urxvt)),
        [b"\x1b[34;5;3M".to_vec(), b"\x1b[35;5;3M".to_vec()]
    );
    // SGR pixels: the middle of the cell, 1-based, for a 10x19 cell.
    assert_eq!(
        bytes("middle-click 2,1", (2, 1), normal(SgrPixels)),
        [b"\x1b[<1;26;29M".to_vec(), b"\x1b[<1;26;29m".to_vec()]
    );
    // UTF-8: column 201 is 233, sent as U+00E9.
    assert_eq!(
        bytes("click 200,0", (200, 0), normal(Utf8))[0],
        "\x1b[M \u{e9}!".as_bytes()
    );
}

#[test]
fn x10_coordinates_are_capped_at_223() {
    let got = bytes(
        "click 300,0",
        (300, 0),
        modes(MouseTracking::Normal, MouseEncoding::X10),
    );
    assert_eq!(got[0], [0x1b, b'[', b'M', 32, 255, 33]);
}

#[test]
fn modifiers_go_into_the_button_bits_except_in_mode_9() {
    let sgr = modes(MouseTracking::Normal, MouseEncoding::Sgr);
    assert_eq!(bytes("S-click 0,0", (0, 0), sgr)[0], b"\x1b[<4;1;1M");
    assert_eq!(bytes("M-click 0,0", (0, 0), sgr)[0], b"\x1b[<8;1;1M");
    assert_eq!(bytes("C-click 0,0", (0, 0), sgr)[0], b"\x1b[<16;1;1M");
    assert_eq!(bytes("C-M-S-click 0,0", (0, 0), sgr)[0], b"\x1b[<28;1;1M");
    // Mode 9 reports presses only, without modifiers.
    let x10 = modes(MouseTracking::X10, MouseEncoding::X10);
    assert_eq!(bytes("C-click 0,0", (0, 0), x10), [b"\x1b[M !!".to_vec()]);
}

#[test]
fn the_wheel_sends_presses_only() {
    let sgr = modes(MouseTracking::Normal, MouseEncoding::Sgr);
    assert_eq!(
        bytes("scroll-up 1,1 2", (1, 1), sgr),
        [b"\x1b[<64;2;2M".to_vec(), b"\x1b[<64;2;2M".to_vec()]
    );
    assert_eq!(bytes("scroll-down 1,1", (1, 1), sgr), [b"\x1b[<65;2;2M".to_vec()]);
    assert_eq!(bytes("scroll-left 1,1", (1, 1), sgr), [b"\x1b[<66;2;2M".to_vec()]);
    assert_eq!(
        bytes("scroll-right 1,1", (1, 1), sgr),
        [b"\x1b[<67;2;2M".to_vec()]
    );
    let x10 = modes(MouseTracking::Normal, MouseEncoding::X10);
    assert_eq!(bytes("scroll-down 0,0", (0, 0), x10), [b"\x1b[Ma!!".to_vec()]);
}

#[test]
fn motion_is_reported_only_where_the_mode_wants_it() {
    let action = MouseAction::parse("drag 0,0..2,0").unwrap();
    let drag = |tracking| -> Vec<Vec<u8>> {
        action
            .events_between((0, 0), Some((2, 0)))
            .iter()
            .filter_map(|e| e.encode(modes(tracking, MouseEncoding::Sgr), (10, 19)))
            .collect()
    };
    let with_motion = [
        b"\x1b[<0;1;1M".to_vec(),
        b"\x1b[<32;2;1M".to_vec(),
        b"\x1b[<32;3;1M".to_vec(),
        b"\x1b[<0;3;1m".to_vec(),
    ];
    assert_eq!(drag(MouseTracking::Button), with_motion);
    assert_eq!(drag(MouseTracking::Any), with_motion);
    assert_eq!(
        drag(MouseTracking::Normal),
        [b"\x1b[<0;1;1M".to_vec(), b"\x1b[<0;3;1m".to_vec()]
    );
    let any = modes(MouseTracking::Any, MouseEncoding::Sgr);
    assert_eq!(bytes("move 4,4", (4, 4), any), [b"\x1b[<35;5;5M".to_vec()]);
    assert!(
        bytes(
            "move 4,4",
            (4, 4),
            modes(MouseTracking::Button, MouseEncoding::Sgr)
        )
        .is_empty()
    );
}

#[test]
fn the_grammar_names_what_is_wrong() {
    let err = |spec: &str| MouseAction::parse(spec).unwrap_err().to_string();
    assert!(
        err("tap 1,1").contains("unknown action `tap`"),
        "{}",
        err("tap 1,1")
    );
    assert!(err("click").contains("needs a target"));
    assert!(err("click 1;1").contains("COL,ROW"));
    assert!(err("click /(/").contains("invalid regex"));
    assert!(err("click /abc").contains("closing `/`"));
    assert!(err("drag 1,1").contains("FROM..TO"));
    assert!(err("click 1,1..2,2").contains("only `drag`"));
    assert!(err("click 1,1 0").contains("not a count"));
    assert!(err("move 1,1 3").contains("takes no count"));
    let action = MouseAction::parse("C-S-double-click /a\\/b/ 2").unwrap();
    assert_eq!(action.gesture, Gesture::DoubleClick);
    assert!(action.mods.ctrl && action.mods.shift && !action.mods.alt);
    assert_eq!(action.count, 2);
    assert_eq!(action.target.to_string(), "/a/b/");
    let drag = MouseAction::parse("drag /from/../to/").unwrap();
    assert_eq!(drag.to.unwrap().to_string(), "/to/");
}

#[test]
fn a_regex_target_is_the_centre_of_its_first_match() {
    let mut term = crate::Terminal::new(20, 3).unwrap();
    term.process(b"\r\n  [ Setup ] x");
    let screen = term.snapshot();
    let at = |spec: &str| MouseAction::parse(spec).unwrap().target.resolve(&screen);
    assert_eq!(at("click /\\[ Setup \\]/").unwrap(), (6, 1));
    assert_eq!(at("click /x/").unwrap(), (12, 1));
    let err = at("click /nowhere/").unwrap_err().to_string();
    assert!(err.contains("/nowhere/ matches nothing"), "{err}");
    let err = at("click 20,0").unwrap_err().to_string();
    assert!(err.contains("off the 20x3 screen"), "{err}");
}

#[test]
fn an_sgr_report_reads_back_as_the_event_that_was_encoded() {
    let modes = MouseModes {
        tracking: MouseTracking::Any,
        encoding: MouseEncoding::Sgr,
    };
    let buttons = [
        Button::Left,
        Button::Middle,
        Button::Right,
        Button::WheelUp,
        Button::WheelDown,
        Button::WheelLeft,
        Button::WheelRight,
    ];
    let mut kinds: Vec<EventKind> = buttons.iter().map(|&b| EventKind::Press(b)).collect();
    kinds.extend(
        buttons
            .iter()
            .filter(|b| !b.is_wheel())
            .map(|&b| EventKind::Release(b)),
    );
    kinds.extend(buttons.iter().map(|&b| EventKind::Motion(Some(b))));
    kinds.push(EventKind::Motion(None));
    for kind in kinds {
        for m in 0..8u8 {
            for (col, row) in [(0, 0), (79, 23), (500, 999)] {
                let event = MouseEvent {
                    kind,
                    col,
                    row,
                    mods: Modifiers {
                        ctrl: m & 1 != 0,
                        alt: m & 2 != 0,
                        shift: m & 4 != 0,
                    },
                };
                let mut bytes = event.encode(modes, (8, 16)).unwrap();
                let length = bytes.len();
                bytes.extend_from_slice(b"rest");
                assert_eq!(MouseEvent::from_sgr(&bytes), Some((event, length)), "{event:?}");
            }
        }
    }
    for not_one in [
        &b"\x1b[<0;1M"[..],
        b"\x1b[<0;0;1M",
        b"\x1b[<a;1;1M",
        b"\x1b[<0;1;1",
        b"\x1b[A",
    ] {
        assert_eq!(
            MouseEvent::from_sgr(not_one),
            None,
            "{:?}",
            String::from_utf8_lossy(not_one)
        );
    }
}
