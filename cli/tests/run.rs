//! `tuipilot run`: tapes through the real binary — exit codes and one-line errors for every
//! way a tape can be wrong, failure bundles, JUnit XML, partitions, and VHS's
//! screenshot tape run from a scratch folder.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{Dir, text};

/// A scratch folder for tapes; runs `tuipilot run` inside it.
struct Suite {
    dir: Dir,
}

impl Suite {
    fn new() -> Suite {
        let dir = Dir::new();
        std::fs::create_dir_all(dir.0.join("work")).unwrap();
        Suite { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.0.join("work").join(name)
    }

    fn tape(&self, name: &str, source: &str) -> &Suite {
        let path = self.path(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source).unwrap();
        self
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .arg("run")
            .args(args)
            .current_dir(self.dir.0.join("work"))
            .env("TUIPILOT_DIR", &self.dir.0)
            .env_remove("CI")
            .env_remove("TUIPILOT_UPDATE")
            .output()
            .expect("running tuipilot")
    }
}

/// Runs one tape; checks the exit code and that stderr holds every piece.
fn check(source: &str, code: i32, pieces: &[&str]) -> String {
    let suite = Suite::new();
    suite.tape("t.tape", source);
    let out = suite.run(&["t.tape"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{source}\n{stderr}");
    for piece in pieces {
        assert!(stderr.contains(piece), "missing {piece:?} in:\n{stderr}");
    }
    stderr
}

#[test]
fn an_unknown_command_names_its_line_and_column_and_the_closest_command() {
    check(
        "Set TypingSpeed 0\n  Tpye \"ls\"\n",
        2,
        &["t.tape:2:3: unknown command `Tpye`: did you mean `Type`?"],
    );
    check(
        "type \"ls\"\n",
        2,
        &["did you mean `Type`? (names are case-sensitive)"],
    );
    check(
        "Set FontSzie 20\n",
        2,
        &["t.tape:1:5: unknown setting `FontSzie`: did you mean `FontSize`?"],
    );
}

#[test]
fn every_error_in_a_tape_is_listed_before_anything_runs() {
    let stderr = check(
        "Tpye \"a\"\nWait /(/\nEnter\nKey Nope\n",
        2,
        &["and 2 more errors"],
    );
    assert!(stderr.contains("t.tape:2:6: bad regex /(/"), "{stderr}");
    assert!(stderr.contains("t.tape:4:1:"), "{stderr}");
}

#[test]
fn a_missing_source_file_and_a_missing_program_are_operational_errors() {
    check(
        "Source \"nope.tape\"\n",
        2,
        &["t.tape:1:8: `Source nope.tape`: no such tape"],
    );
    check(
        "Require tuipilot-no-such-program\nType \"x\"\n",
        2,
        &["t.tape:1:1: `Require tuipilot-no-such-program`: tuipilot-no-such-program is not on PATH"],
    );
    check(
        "Output demo.mp4\nType \"x\"\n",
        2,
        &["video needs an encoder", "run with --no-media"],
    );
}

#[test]
fn a_failed_expect_exits_1_and_leaves_a_bundle_named_after_the_tape() {
    let suite = Suite::new();
    suite.tape(
        "fails.tape",
        "Set TypingSpeed 0\nType \"echo visible\" Enter\nWait\nExpect@300ms /invisible/\n",
    );
    let out = suite.run(&["fails.tape"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("FAIL fails.tape:4:1: `Expect@300ms /invisible/`: timed out"),
        "{stderr}"
    );
    assert!(
        stderr.contains("| visible"),
        "the report shows the screen: {stderr}"
    );
    let bundle = suite.path("fails.failure");
    for file in [
        "screen.txt",
        "screen.ansi",
        "screen.png",
        "state.json",
        "report.txt",
    ] {
        assert!(
            bundle.join(file).is_file(),
            "{file} missing in {}",
            bundle.display()
        );
    }
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(bundle.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["failed"]["line"], 4);
    assert!(state["operations"].as_array().unwrap().len() >= 3, "{state}");
    assert!(
        std::fs::read_to_string(bundle.join("screen.txt"))
            .unwrap()
            .contains("visible")
    );
}

#[test]
fn a_timed_out_wait_says_what_the_cursors_line_held() {
    check(
        "Set TypingSpeed 0\nWait@200ms /never/\n",
        1,
        &[
            "t.tape:2:1: `Wait@200ms /never/`: timed out",
            "closest line: row 0: \">\"",
        ],
    );
}

#[test]
fn a_wait_right_after_input_fails_on_its_own_line() {
    // The input and the wait run as one send-and-wait; a timeout is still the Wait's.
    check(
        "Set TypingSpeed 0\nType \"echo hi\" Enter\nWait@300ms /never/\n",
        1,
        &[
            "t.tape:3:1: `Wait@300ms /never/`: timed out",
            "closest line: row 2: \">\"",
        ],
    );
}

#[test]
fn junit_xml_has_one_testcase_per_tape_and_parses() {
    let suite = Suite::new();
    suite
        .tape("a/pass.tape", "Set TypingSpeed 0\nType \"true\" Enter\nWait\n")
        .tape("b/fail.tape", "Set TypingSpeed 0\nExpect@100ms /nothing-here/\n");
    let out = suite.run(&["--junit", "report/junit.xml", "--out", "bundles", "-q", "a", "b"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let xml = std::fs::read_to_string(suite.path("report/junit.xml")).unwrap();
    let mut reader = quick_xml::Reader::from_str(&xml);
    let (mut cases, mut failures) = (Vec::new(), 0);
    loop {
        match reader.read_event().expect("well-formed XML") {
            quick_xml::events::Event::Start(e) | quick_xml::events::Event::Empty(e) => {
                if e.name().as_ref() == b"testcase" {
                    let name = e
                        .attributes()
                        .flatten()
                        .find(|a| a.key.as_ref() == b"name")
                        .map(|a| String::from_utf8_lossy(&a.value).into_owned());
                    cases.push(name.unwrap_or_default());
                }
                if e.name().as_ref() == b"failure" {
                    failures += 1;
                }
            }
            quick_xml::events::Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(cases, ["a/pass.tape", "b/fail.tape"], "{xml}");
    assert_eq!(failures, 1, "{xml}");
    assert!(
        xml.contains("b/fail.tape:2:1"),
        "the failure message names the line: {xml}"
    );
    assert!(suite.path("bundles/fail.failure/state.json").is_file());
}

#[test]
fn partitions_split_a_suite_so_every_tape_runs_exactly_once() {
    let suite = Suite::new();
    for i in 0..5 {
        suite.tape(
            &format!("t{i}.tape"),
            "Set TypingSpeed 0\nType \"true\" Enter\nWait\n",
        );
    }
    let mut seen = Vec::new();
    for k in 1..=2 {
        let out = suite.run(&["--partition", &format!("{k}/2"), "--jobs", "2", "."]);
        assert_eq!(out.status.code(), Some(0));
        let stderr = text(&out.stderr);
        seen.extend(
            stderr
                .lines()
                .filter_map(|l| l.strip_prefix("PASS "))
                .map(|l| l.split(' ').next().unwrap().to_string()),
        );
    }
    seen.sort();
    assert_eq!(
        seen,
        ["./t0.tape", "./t1.tape", "./t2.tape", "./t3.tape", "./t4.tape"]
    );
    let out = suite.run(&["--partition", "3/2", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("K/N"));
}

#[test]
fn vhs_screenshot_tape_runs_unchanged_and_writes_its_png() {
    let suite = Suite::new();
    let source = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vhs-tapes/screenshot.tape"),
    )
    .unwrap();
    suite.tape("screenshot.tape", &source);
    let out = suite.run(&["--no-media", "-v", "screenshot.tape"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let png = std::fs::read(suite.path("examples/hello_world.png")).unwrap();
    assert!(png.starts_with(b"\x89PNG"));
}

#[test]
fn a_new_snapshot_is_created_then_a_change_fails_until_updated() {
    let suite = Suite::new();
    suite.tape(
        "s.tape",
        "Set TypingSpeed 0\nType \"echo one\" Enter\nExpect /^one\\n>$/\nSnapshot shot\n",
    );
    assert_eq!(suite.run(&["s.tape"]).status.code(), Some(0));
    assert!(
        std::fs::read_to_string(suite.path("shot.snap"))
            .unwrap()
            .contains("one")
    );
    suite.tape(
        "s.tape",
        "Set TypingSpeed 0\nType \"echo two\" Enter\nExpect /^two\\n>$/\nSnapshot shot\n",
    );
    let out = suite.run(&["s.tape"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("+ two") && stderr.contains("- one"), "{stderr}");
    assert!(suite.path("shot.snap.new").is_file());
    assert_eq!(suite.run(&["--update", "s.tape"]).status.code(), Some(0));
    assert!(
        std::fs::read_to_string(suite.path("shot.snap"))
            .unwrap()
            .contains("two")
    );
    assert!(!suite.path("shot.snap.new").exists());
}

#[test]
fn a_tape_past_its_tape_timeout_fails_at_the_command_it_was_on() {
    // A long Type at a person's pace is stopped mid-word, not after its 60 s.
    let long = "a".repeat(300);
    let stderr = check(
        &format!("Set TapeTimeout 1s\nSet Shell bash\nType@200ms \"{long}\"\n"),
        1,
        &[
            "t.tape:3",
            "the tape ran past its TapeTimeout of 1s",
            "Set TapeTimeout",
        ],
    );
    assert!(!stderr.contains("cancelled"), "{stderr}");
    assert!(
        stderr.contains("…[313 characters]"),
        "a long line is cut: {stderr}"
    );
    // So is a Sleep, and a Wait whose own timeout is longer.
    check(
        "Set TapeTimeout 1.5s\nSet Shell bash\nSleep 60s\n",
        1,
        &["t.tape:3", "TapeTimeout of 1.5s"],
    );
    check(
        "Set TapeTimeout 1s\nSet Shell bash\nWait@60s /never/\n",
        1,
        &["t.tape:3", "TapeTimeout of 1s"],
    );
    check(
        "Set TapeTimeout 0\n",
        2,
        &["t.tape:1:17: `Set TapeTimeout` needs a positive time"],
    );
}

#[test]
fn wait_ready_in_a_tape_waits_for_the_command_to_finish_without_a_pattern() {
    check(
        "Set Shell bash\nType \"sleep 0.3; echo r-$((1+1))\"\nEnter\nWait+Ready\nExpect /^r-2$/\nType \"sleep 0.2; echo p-3\"\nEnter\nWait+Prompt\nExpect /^p-3$/\n",
        0,
        &[],
    );
    check(
        "Set Shell bash\nWait+Raedy\n",
        2,
        &["t.tape:2:6: `Wait+Raedy` is not a wait: did you mean `Ready`?"],
    );
}
