//! The writers' own cases: key names the lexer reads otherwise, and logs the export
//! refuses rather than writes.

use super::verify::verified_why;
use super::*;
use crate::tape::Tape;

fn logged(operation: Operation) -> LoggedOperation {
    LoggedOperation {
        operation,
        at_ms: 0,
        took_ms: 0,
        error: None,
        screen: None,
        waited: None,
        ready_before: None,
        cut_bytes: 0,
        ended_us: 0,
        by_person: false,
        source: None,
        failed_after_input: None,
    }
}

fn keys(spec: &str) -> Operation {
    Operation::Send {
        steps: vec![Step::Keys(spec.into())],
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    }
}

#[test]
fn keys_the_lexer_reads_otherwise_are_quoted_or_named_and_parse_back() {
    let spec = "# C-/ M-\" ' ` { $ comma M-comma repeat:C-a Space \u{a0} é F5";
    let written = key_names(spec).unwrap().join(" ");
    let tape = Tape::parse_str(&format!("Key {written}\n"), "k.tape").unwrap();
    let crate::tape::CommandKind::Keys { keys: read, .. } = &tape.commands[0].kind else {
        panic!("{:?}", tape.commands);
    };
    assert_eq!(
        crate::keys::parse_key_list(read).unwrap(),
        crate::keys::parse_key_list(spec).unwrap(),
        "written as {written}"
    );
}

#[test]
fn a_log_an_export_cannot_write_is_refused_with_the_operation_named() {
    let start = StartSpec::new(["sh"]);
    let refused = |start: &StartSpec, log: &[LoggedOperation]| {
        let e = to_tape(start, log, "x", &ExportOptions::default())
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\n'), "{e}");
        e
    };
    let e = refused(&start, &[logged(keys("Enter\nType 'x'"))]);
    assert!(
        e.contains("operation 1 of the log") && e.contains("was the recording edited"),
        "{e}"
    );
    let e = refused(
        &start,
        &[logged(Operation::Resize {
            cols: 60000,
            rows: 24,
        })],
    );
    assert!(e.contains("operation 1"), "{e}");
    let huge = StartSpec {
        cols: 0,
        ..start.clone()
    };
    assert!(refused(&huge, &[]).contains("size"));
    let named = StartSpec {
        env: vec![("A=B".into(), std::ffi::OsString::new())],
        ..start.clone()
    };
    assert!(refused(&named, &[]).contains("environment"));
    let sleepy = Operation::Send {
        steps: vec![Step::SleepMs(u64::MAX)],
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    };
    assert!(refused(&start, &[logged(sleepy)]).contains("operation 1"));
    // A failed operation is only a comment: kept, one line.
    let mut failed = logged(keys("Nope\nType 'x'"));
    failed.error = Some("unknown key\nEnter".into());
    let tape = to_tape(&start, &[failed], "x", &ExportOptions::default())
        .unwrap()
        .tape;
    assert!(
        tape.contains(r"# left out, it failed: send Nope\nType 'x' (unknown key\nEnter)"),
        "{tape}"
    );
}

#[test]
fn a_persons_raw_keystrokes_are_written_as_text_and_named_keys() {
    let start = StartSpec::new(["sh"]);
    let mut typed = logged(Operation::Send {
        steps: vec![Step::Bytes(
            b"ls -l\r\x1b[B\x1bOA\x03\x1b[200~two\nlines\x1b[201~".to_vec(),
        )],
        wait: Some(WaitFor::Ready),
        timeout_ms: None,
        capture: false,
        secret: false,
    });
    typed.by_person = true;
    let exported = to_tape(
        &start,
        &[logged(keys("Enter")), typed],
        "t",
        &ExportOptions::default(),
    )
    .unwrap();
    let tape = &exported.tape;
    let person = tape.find("# typed by a person:").expect(tape);
    assert!(tape.find("Key Enter").unwrap() < person, "{tape}");
    let after = &tape[person..];
    for line in [
        "Type \"ls -l\"",
        "Key Enter Down Up C-c",
        "Copy $\"two\\nlines\"",
        "Paste",
        "Wait+Ready",
    ] {
        assert!(after.contains(line), "{line} missing:\n{tape}");
    }
    Tape::parse_str(tape, "t.tape").unwrap();
}

#[test]
fn an_expected_rows_path_matches_a_path_of_another_length_and_the_fill_after_it() {
    let re = regex::Regex::new(&row_pattern("┌<─ /tmp/abc ──────.[^]>┐ 12:30   ok")).unwrap();
    assert!(re.is_match("┌<─ /tmp/abcdefgh ──.[^]>┐ 9:05    ok"), "{re}");
    assert!(!re.is_match("┌<─ /tmp/abc ──────.[v]>┐ 12:30   ok"), "{re}");
}

/// The world of a session started in `/home/me/proj`, its `HOME` `/home/me`.
fn project_under_home() -> crate::files::WorldMap {
    crate::files::WorldMap {
        base: "/home/me".into(),
        cwd: "/home/me/proj".into(),
        roots: vec!["/home/me/proj".into()],
        home: Some("/home/me".into()),
        summary: String::new(),
    }
}

#[test]
fn the_sessions_folder_shown_from_home_matches_the_copys_place_in_an_expected_row() {
    let map = project_under_home();
    for row in ["me@host:~/proj$ ls", "in /home/me/proj$ ls"] {
        let re = regex::Regex::new(&row_pattern_in(row, Some(&map))).unwrap();
        let (before, _) = row.split_once(['~', '/']).unwrap();
        assert!(re.is_match(&format!("{before}~/pa.world/proj$ ls")), "{re}");
        assert!(
            re.is_match(&format!("{before}/tmp/home-1/pa.world/proj$ ls")),
            "{re}"
        );
        assert!(!re.is_match(&format!("{before}~/proj$ rm")), "{re}");
    }
    // Without a world, the folder is text like any other.
    let re = regex::Regex::new(&row_pattern_in("me@host:~/proj$ ls", None)).unwrap();
    assert!(!re.is_match("me@host:~/pa.world/proj$ ls"), "{re}");
}

#[test]
fn a_failed_verifying_replay_is_told_by_the_first_row_that_differs() {
    let why = verified_why(
        "v.tape:9:1: `Snapshot v`: the screen differs from v.snap (new screen written to v.snap.new; accept it with --update):",
        "the screen differs from v.snap (…):\n        3 - token 12\n        4 - kept\n        3 + token 99\n",
    );
    assert_eq!(
        why,
        "v.tape:9:1: `Snapshot v`: the screen differs from v.snap: row 3 was `token 12` in the session and `token 99` in the replay"
    );
    let why = verified_why("v.tape:4:1: `Expect /x/`: timed out", "");
    assert_eq!(why, "v.tape:4:1: `Expect /x/`: timed out");
}

#[test]
fn a_later_snapshots_text_is_what_the_earlier_snapshots_masks_leave_and_each_mask_is_written_once() {
    // Fails on the code before: a tape's masks hold from where they are written on, so
    // the runner compares the second snapshot after the first one's mask too, and the
    // export wrote the second snapshot's text without it.
    let start = StartSpec::new(["sh"]);
    let snapshot = |screen: &str, mask: &[&str]| {
        let mut capture = Operation::capture_text();
        if let Operation::Capture { mask: masks, .. } = &mut capture {
            *masks = mask.iter().map(|m| m.to_string()).collect();
        }
        LoggedOperation {
            screen: Some(screen.to_string()),
            by_person: true,
            ..logged(capture)
        }
    };
    let log = [
        snapshot("count [masked]\nfirst", &["[0-9]+"]),
        logged(keys("Enter")),
        snapshot("total 34\nsecond", &["[0-9]+"]),
        logged(keys("Enter")),
        snapshot("total 56\nthird", &[]),
    ];
    let tape = to_tape(&start, &log, "m", &ExportOptions::default()).unwrap();
    let masks: Vec<&str> = tape.tape.lines().filter(|l| l.starts_with("Mask ")).collect();
    assert_eq!(masks, ["Mask /[0-9]+/"], "{}", tape.tape);
    let (_, last) = tape.snapshot.expect("a last snapshot");
    assert!(last.starts_with("total [masked]\nthird"), "{last}");
}

#[test]
fn every_rows_expected_pattern_matches_the_row_it_was_made_from() {
    // Over generated rows of paths, clocks, fills and the session's folder: an `Expect`
    // the export writes holds on the session's own screen.
    let map = project_under_home();
    let pieces = [
        "/tmp/",
        "~/proj",
        "/home/me/proj",
        "─",
        "━",
        " ",
        "12:30",
        "2026-11-29",
        "pid 42",
        "ab",
        "é",
        "[",
        "]",
        "$",
        "\\",
        ".*",
        "load average: 0.5",
        "#",
        "│",
        "x",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for _ in 0..2000 {
        let mut row = String::new();
        for _ in 0..(seed % 9) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            row.push_str(pieces[(seed % pieces.len() as u64) as usize]);
        }
        let row = row.trim_end().to_string();
        for pattern in [row_pattern(&row), row_pattern_in(&row, Some(&map))] {
            let re = regex::Regex::new(&pattern).unwrap();
            assert!(re.is_match(&row), "{pattern} on {row:?}");
        }
        seed = seed.wrapping_add(1);
    }
}
