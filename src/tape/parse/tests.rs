//! The parser's promises about places and text: what a report quotes is what was written.

use crate::tape::Tape;

fn sources(src: &str) -> Vec<(u32, u32, String)> {
    let tape = Tape::parse_str(src, "t.tape").unwrap_or_else(|e| panic!("{e}"));
    tape.commands
        .into_iter()
        .map(|c| (c.location.line, c.location.col, c.source))
        .collect()
}

#[test]
fn a_commands_text_is_as_written_with_hashes_in_strings_kept_and_comments_dropped() {
    assert_eq!(
        sources("Type \"echo  #1\"   # a comment\nSleep 1s"),
        vec![
            (1, 1, "Type \"echo  #1\"".to_string()),
            (2, 1, "Sleep 1s".to_string()),
        ]
    );
}

#[test]
fn commands_sharing_a_line_each_quote_only_themselves() {
    assert_eq!(
        sources("Type \"x\" Enter 2 Sleep 100ms Wait+Line@2s /a\\/b/"),
        vec![
            (1, 1, "Type \"x\"".to_string()),
            (1, 10, "Enter 2".to_string()),
            (1, 18, "Sleep 100ms".to_string()),
            (1, 30, "Wait+Line@2s /a\\/b/".to_string()),
        ]
    );
}

#[test]
fn a_command_spread_over_lines_is_quoted_on_one() {
    assert_eq!(
        sources("Type # why\n  \"x\"\nEnter"),
        vec![(1, 1, "Type \"x\"".to_string()), (3, 1, "Enter".to_string())]
    );
}

#[test]
fn every_error_is_one_line_at_its_place() {
    let errors = Tape::parse_str("Tpye \"a\"\n  Wait /(/\nSet Nope 1\n", "t.tape").unwrap_err();
    let lines: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(
        lines[0].starts_with("t.tape:1:1: unknown command `Tpye`"),
        "{}",
        lines[0]
    );
    assert!(lines[1].starts_with("t.tape:2:8: "), "{}", lines[1]);
    assert!(lines[2].starts_with("t.tape:3:5: "), "{}", lines[2]);
    assert!(lines.iter().all(|l| !l.contains('\n')));
}

#[test]
fn a_file_too_big_or_not_text_is_refused_with_a_reason() {
    let dir = std::env::temp_dir().join(format!("tp-parse-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.tape");
    // Sparse: nothing is written, the read is what is bounded.
    std::fs::File::create(&big).unwrap().set_len(9 << 20).unwrap();
    let binary = dir.join("binary.tape");
    std::fs::write(&binary, b"Type \"\xff\"\n").unwrap();
    let big_error = Tape::parse_file(&big).unwrap_err().to_string();
    let binary_error = Tape::parse_file(&binary).unwrap_err().to_string();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(
        big_error.ends_with(":1:1: the tape is over 8 MiB; is it a tape? (split it with Source)"),
        "{big_error}"
    );
    assert!(
        binary_error.ends_with(":1:1: the tape is not UTF-8 text (at byte 6)"),
        "{binary_error}"
    );
}

#[test]
fn an_unquoted_absolute_path_says_to_quote_it_and_is_reported_once() {
    let errors = Tape::parse_str(
        "Output /tmp/x.gif\nScreenshot /tmp/y.png\nType \"ok\"\n",
        "t.tape",
    )
    .unwrap_err();
    let lines: Vec<String> = errors.0.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "t.tape:1:8: `Output` needs a file path: a path starting with / must be quoted, e.g. `Output \"/tmp/…\"`",
            "t.tape:2:12: `Screenshot` needs a .png path: a path starting with / must be quoted, e.g. `Screenshot \"/tmp/…\"`",
        ]
    );
}

#[test]
fn a_region_scope_reads_its_spans_and_refuses_what_it_cannot_mean() {
    use crate::tape::{CommandKind, Scope};
    let tape = Tape::parse_str(
        "Expect+Rows 3-27 /Tokyo/\nExpect+Cols@2s 40-79 /x/\nExpect+Rect 0-2 5 /y/\nWait+Rows 1-1",
        "t.tape",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let scopes: Vec<Scope> = tape
        .commands
        .iter()
        .map(|c| match &c.kind {
            CommandKind::Expect { scope, .. } => *scope,
            CommandKind::Wait {
                kind: crate::tape::WaitKind::Pattern(scope, _),
                ..
            } => *scope,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        scopes,
        [
            Scope::Region {
                rows: Some((3, 27)),
                cols: None
            },
            Scope::Region {
                rows: None,
                cols: Some((40, 79))
            },
            Scope::Region {
                rows: Some((0, 2)),
                cols: Some((5, 5))
            },
            Scope::Region {
                rows: Some((1, 1)),
                cols: None
            },
        ]
    );
    for (src, says) in [
        (
            "Expect+Rows /x/",
            "t.tape:1:13: `Expect` needs the rows here (FIRST-LAST, 0-based and inclusive: `3-27`), found the regex /x/",
        ),
        (
            "Expect+Rows 9-2 /x/",
            "t.tape:1:13: rows `9-2` runs backwards: give the first, then the last (2-9)",
        ),
        (
            "ExpectNot+Rows 1-2 /x/",
            "t.tape:1:11: `ExpectNot+Rows` is not supported: ExpectNot looks at the whole screen",
        ),
    ] {
        let error = Tape::parse_str(src, "t.tape").unwrap_err().to_string();
        assert!(error.starts_with(says), "{src}: {error}");
    }
}

fn kinds(src: &str) -> Vec<crate::tape::CommandKind> {
    let tape = Tape::parse_str(src, "t.tape").unwrap_or_else(|e| panic!("{e}"));
    tape.commands.into_iter().map(|c| c.kind).collect()
}

fn error(src: &str) -> String {
    Tape::parse_str(src, "t.tape").unwrap_err().to_string()
}

#[test]
fn start_takes_its_words_to_the_end_of_its_line_as_any_bytes() {
    use crate::tape::CommandKind;
    use std::os::unix::ffi::OsStringExt;
    assert_eq!(
        kinds("Start less \"my notes.txt\" $\"caf\\xe9\\u{15}\" 42\nEnter"),
        vec![
            CommandKind::Start {
                command: vec![
                    "less".into(),
                    "my notes.txt".into(),
                    std::ffi::OsString::from_vec(b"caf\xe9\x15".to_vec()),
                    "42".into(),
                ],
                dir: None,
            },
            CommandKind::Keys {
                keys: "Enter".into(),
                speed: None,
                count: 1
            },
        ]
    );
    assert_eq!(
        kinds(
            "Start+Dir \"/srv/x\" vim\nWith \"/tmp/a b\"\nBytes $\"\\xff\" \"a\"\nEnv $\"K\\x80\" $\"\\xfe\""
        ),
        vec![
            CommandKind::Start {
                command: vec!["vim".into()],
                dir: Some("/srv/x".into()),
            },
            CommandKind::With("/tmp/a b".into()),
            CommandKind::Bytes(vec![0xff, b'a']),
            CommandKind::Env(
                std::ffi::OsString::from_vec(b"K\x80".to_vec()),
                std::ffi::OsString::from_vec(vec![0xfe])
            ),
        ]
    );
}

#[test]
fn bytes_that_are_not_utf8_are_refused_where_a_command_takes_text() {
    let e = error("Type $\"a\\xff\"");
    assert!(
        e.contains("`Type` takes text") && e.contains(r"a\xff") && e.contains("`Start`"),
        "{e}"
    );
    assert!(error("Copy $\"\\xc3\"").contains("`Copy` takes text"));
    assert!(error("Screenshot $\"x\\xff.png\"").contains("takes text"));
    assert!(error("Start").contains("`Start` needs the program and its arguments on its line"));
    assert!(error("Start+Cwd \"/x\" ls").contains("`Start+Cwd` is not a form of Start"));
    assert!(error("Start ls $\"a\\0b\"").contains("cannot hold a NUL byte"));
    assert!(error("Bytes").contains("`Bytes` needs a string"));
    assert!(error("Type $\"\\xf\"").contains("two hex digits"));
    assert!(error("Set Columns 5").contains("a whole number from 10 to 1000"));
    assert!(error("Set Rows 1001").contains("a whole number from 2 to 1000"));
    assert!(error("Env $\"A=B\" x").contains("is not a variable name"));
}

#[test]
fn a_styled_snapshot_takes_a_name_without_an_extension_and_no_other_kind() {
    use crate::tape::CommandKind;
    assert_eq!(
        kinds("Snapshot+Styled menu"),
        vec![CommandKind::StyledSnapshot("menu".into())]
    );
    assert_eq!(kinds("Snapshot menu"), vec![CommandKind::Snapshot("menu".into())]);
    let e = error("Snapshot+Colour menu");
    assert!(e.contains("`Snapshot+Colour` is not a kind of snapshot"), "{e}");
    let e = error("Snapshot+Styled menu.png");
    assert!(e.contains("without an extension"), "{e}");
}

#[test]
fn mask_rows_takes_a_span_of_rows_and_no_other_mask_kind() {
    use crate::tape::CommandKind;
    assert_eq!(kinds("Mask+Rows 3-27"), vec![CommandKind::MaskRows((3, 27))]);
    assert_eq!(kinds("Mask+Rows 4"), vec![CommandKind::MaskRows((4, 4))]);
    let e = error("Mask+Cols 3-4");
    assert!(e.contains("`Mask+Cols` is not a mask"), "{e}");
    let e = error("Mask+Rows /x/");
    assert!(e.contains("needs the rows here"), "{e}");
}

#[test]
fn type_and_key_per_key_parse_and_another_form_is_refused_naming_per_key() {
    assert_eq!(
        kinds("Type+PerKey \"zf\"\nKey+PerKey Down z"),
        vec![
            crate::tape::CommandKind::TypePerKey("zf".into()),
            crate::tape::CommandKind::KeysPerKey("Down z".into())
        ]
    );
    let e = error("Type+Slowly \"zf\"");
    assert!(e.contains("`Type+PerKey`"), "{e}");
}
