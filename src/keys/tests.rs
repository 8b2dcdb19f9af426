use super::*;

fn enc(spec: &str, app: bool) -> Vec<u8> {
    Key::parse(spec).unwrap().encode(KeyModes {
        application_cursor: app,
        ..KeyModes::default()
    })
}

#[test]
fn named_keys_follow_xterm() {
    assert_eq!(enc("Enter", false), b"\r");
    assert_eq!(enc("Tab", false), b"\t");
    assert_eq!(enc("S-Tab", false), b"\x1b[Z");
    assert_eq!(enc("Shift+Tab", false), b"\x1b[Z");
    assert_eq!(enc("Esc", false), b"\x1b");
    assert_eq!(enc("Escape", false), b"\x1b");
    assert_eq!(enc("Space", false), b" ");
    assert_eq!(enc("Backspace", false), b"\x7f");
    assert_eq!(enc("F1", false), b"\x1bOP");
    assert_eq!(enc("F4", false), b"\x1bOS");
    assert_eq!(enc("F5", false), b"\x1b[15~");
    assert_eq!(enc("F6", false), b"\x1b[17~");
    assert_eq!(enc("F10", false), b"\x1b[21~");
    assert_eq!(enc("F11", false), b"\x1b[23~");
    assert_eq!(enc("F12", false), b"\x1b[24~");
    assert_eq!(enc("Insert", false), b"\x1b[2~");
    assert_eq!(enc("Delete", false), b"\x1b[3~");
    assert_eq!(enc("PageUp", false), b"\x1b[5~");
    assert_eq!(enc("PageDown", false), b"\x1b[6~");
}

#[test]
fn cursor_keys_depend_on_application_cursor_mode() {
    for (name, letter) in [
        ("Up", 'A'),
        ("Down", 'B'),
        ("Right", 'C'),
        ("Left", 'D'),
        ("Home", 'H'),
        ("End", 'F'),
    ] {
        assert_eq!(enc(name, false), format!("\x1b[{letter}").as_bytes());
        assert_eq!(enc(name, true), format!("\x1bO{letter}").as_bytes());
        // Modified cursor keys ignore the mode.
        assert_eq!(
            enc(&format!("C-{name}"), true),
            format!("\x1b[1;5{letter}").as_bytes()
        );
    }
}

#[test]
fn modifiers_use_xterm_parameters() {
    assert_eq!(enc("S-Up", false), b"\x1b[1;2A");
    assert_eq!(enc("M-Up", false), b"\x1b[1;3A");
    assert_eq!(enc("C-S-Up", false), b"\x1b[1;6A");
    assert_eq!(enc("C-M-S-Left", false), b"\x1b[1;8D");
    assert_eq!(enc("C-Delete", false), b"\x1b[3;5~");
    assert_eq!(enc("S-F5", false), b"\x1b[15;2~");
    assert_eq!(enc("C-F1", false), b"\x1b[1;5P");
    assert_eq!(enc("M-Enter", false), b"\x1b\r");
    assert_eq!(enc("M-x", false), b"\x1bx");
    assert_eq!(enc("Alt+x", false), b"\x1bx");
    assert_eq!(enc("A-x", false), b"\x1bx");
    assert_eq!(enc("C-M-a", false), b"\x1b\x01");
    assert_eq!(enc("M-Backspace", false), b"\x1b\x7f");
    assert_eq!(enc("C-Backspace", false), b"\x08");
}

#[test]
fn control_characters() {
    assert_eq!(enc("C-c", false), b"\x03");
    assert_eq!(enc("C-C", false), b"\x03");
    assert_eq!(enc("Ctrl+C", false), b"\x03");
    assert_eq!(enc("ctrl-a", false), b"\x01");
    assert_eq!(enc("^C", false), b"\x03");
    assert_eq!(enc("^[", false), b"\x1b");
    assert_eq!(enc("C-Space", false), b"\x00");
    assert_eq!(enc("C-@", false), b"\x00");
    assert_eq!(enc("C-[", false), b"\x1b");
    assert_eq!(enc("C-\\", false), b"\x1c");
    assert_eq!(enc("C-]", false), b"\x1d");
    assert_eq!(enc("C-^", false), b"\x1e");
    assert_eq!(enc("C-_", false), b"\x1f");
    assert_eq!(enc("C-?", false), b"\x7f");
}

#[test]
fn characters_are_themselves() {
    assert_eq!(enc("a", false), b"a");
    assert_eq!(enc("A", false), b"A");
    assert_eq!(enc("S-a", false), b"A");
    assert_eq!(enc("-", false), b"-");
    assert_eq!(enc("+", false), b"+");
    assert_eq!(enc("^", false), b"^");
    assert_eq!(enc("é", false), "é".as_bytes());
    assert!(Key::parse("C--").is_err(), "Ctrl-minus has no control code");
}

#[test]
fn names_are_case_insensitive() {
    assert_eq!(enc("ENTER", false), b"\r");
    assert_eq!(enc("pagedown", false), b"\x1b[6~");
    assert_eq!(enc("c-s-up", false), b"\x1b[1;6A");
}

#[test]
fn unknown_names_suggest_the_closest() {
    let err = Key::parse("Entr").unwrap_err().to_string();
    assert!(err.contains("Entr") && err.contains("Enter"), "{err}");
    let err = Key::parse("PgDwn").unwrap_err().to_string();
    assert!(err.contains("PageDown"), "{err}");
    let err = Key::parse("C-é").unwrap_err().to_string();
    assert!(err.contains("no control code"), "{err}");
    assert!(Key::parse("").is_err());
    assert!(Key::parse("S-1").is_err());
}

#[test]
fn other_tools_spellings_suggest_ours() {
    for (foreign, ours) in [
        ("Ctl-c", "C-c"),
        ("<C-c>", "C-c"),
        ("ArrowUp", "Up"),
        ("KEY_UP", "Up"),
        ("<CR>", "Enter"),
        ("BTab", "S-Tab"),
        ("Option-x", "M-x"),
        ("Ctrl-ArrowLeft", "C-Left"),
    ] {
        let err = Key::parse(foreign).unwrap_err().to_string();
        assert!(err.contains(&format!("did you mean {ours}?")), "{foreign}: {err}");
    }
    // `^C` is ours already.
    assert_eq!(Key::parse("^C").unwrap().to_string(), "C-C");
}

#[test]
fn key_lists() {
    let keys = parse_key_list("Down Down,Enter").unwrap();
    assert_eq!(keys.len(), 3);
    assert_eq!(parse_key_list(",").unwrap()[0].code, KeyCode::Char(','));
    assert!(parse_key_list("Down Bogus").is_err());
}

#[test]
fn paste_is_bracketed_only_when_enabled() {
    assert_eq!(encode_paste("a\nb", false), b"a\rb");
    assert_eq!(encode_paste("a\r\nb", true), b"\x1b[200~a\rb\x1b[201~");
    assert_eq!(
        encode_paste("x\x1b[201~rm -rf", true),
        b"\x1b[200~xrm -rf\x1b[201~"
    );
}

#[test]
fn a_paste_marker_assembled_by_removing_another_is_removed_too() {
    let body = |pasted: &str| {
        let bytes = encode_paste(pasted, true);
        bytes[6..bytes.len() - 6].to_vec()
    };
    // Taking the inner end marker out once leaves `ESC[201~` behind.
    assert_eq!(body("echo x\x1b[20\x1b[201~1~; touch F\r"), b"echo x; touch F\r");
    // Nested three deep, and start markers among them.
    assert_eq!(body("a\x1b[2\x1b[20\x1b[201~1~01~b"), b"ab");
    assert_eq!(body("a\x1b[20\x1b[200~1~b\x1b[200~c"), b"abc");
    // Split by a line ending that becomes CR: no marker appears, nothing is removed.
    assert_eq!(body("\x1b[20\n1~"), b"\x1b[20\r1~");
    // Nothing of the body that is not a marker goes.
    assert_eq!(body("~~\x1b[201\x1b[~"), b"~~\x1b[201\x1b[~");
    for pasted in ["\x1b[201~", "\x1b[2\x1b[201~01~", "x\x1b[200~\x1b[201~"] {
        let bytes = encode_paste(pasted, true);
        let inner = &bytes[6..bytes.len() - 6];
        assert!(
            !inner.windows(6).any(|w| w == b"\x1b[201~" || w == b"\x1b[200~"),
            "{pasted:?}"
        );
    }
}
