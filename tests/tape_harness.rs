//! The tape harness's options for a crate's test target: its binaries on the tapes' PATH,
//! hermetic tapes, failures and new snapshots kept out of the source tree, and an update
//! instruction that works under cargo.

mod common;

use tuipilot::tape::Harness;

/// Runs the one tape under the harness's folder as the harness would; whether it passed
/// (without a nested test run printing the failure).
fn passes(harness: &Harness, tape: &std::path::Path) -> bool {
    tuipilot::tape::run_file(tape, &harness.options_for(tape)).is_ok()
}

#[test]
fn a_tape_runs_the_crates_binary_by_name_in_a_hermetic_shell() {
    let dir = common::TempDir::new("harness-bin");
    std::fs::write(
        dir.0.join("todo.tape"),
        "Set TypingSpeed 0\n\
         Set WaitTimeout 3s\n\
         Type \"echo made=$(mktemp -d) home=$HOME\" Enter\n\
         Wait+Screen /made=/\n\
         Expect /made=.+\\/tmp\\/tmp\\.\\w+ home=\\/.+$/\n\
         ExpectNot /home=\\/root$/\n\
         Type \"todo\" Enter\n\
         Wait+Screen /0 tasks, 0 done/\n",
    )
    .unwrap();
    let tape = dir.0.join("todo.tape");
    let harness = Harness::new(&dir.0).bin(common::fixture("todo")).isolated();
    assert_eq!(harness.trials().len(), 1);
    assert!(passes(&harness, &tape));
    // Without the binary on its PATH the same tape fails: `todo` is not found.
    let harness = Harness::new(&dir.0).isolated().out_dir(dir.0.join("out"));
    assert!(!passes(&harness, &tape));
}

#[test]
fn a_failing_tape_leaves_its_bundle_and_new_snapshot_in_the_out_dir_and_says_how_to_accept() {
    let dir = common::TempDir::new("harness-out");
    let tapes = dir.0.join("tapes");
    std::fs::create_dir_all(&tapes).unwrap();
    std::fs::write(
        tapes.join("hello.tape"),
        "Set TypingSpeed 0\nType \"echo hello\" Enter\nWait+Screen /^hello$/\nSnapshot hello\n",
    )
    .unwrap();
    // A snapshot the screen no longer matches.
    std::fs::write(tapes.join("hello.snap"), "something else\n").unwrap();
    let out = dir.0.join("out");
    let harness = Harness::new(&tapes).out_dir(&out);
    assert!(!passes(&harness, &tapes.join("hello.tape")));
    assert!(out.join("hello.failure/report.txt").is_file());
    assert!(out.join("hello.snap.new").is_file());
    let leftovers: Vec<_> = std::fs::read_dir(&tapes)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        leftovers.len(),
        2,
        "only the tape and its snapshot: {leftovers:?}"
    );
    let report = std::fs::read_to_string(out.join("hello.failure/report.txt")).unwrap();
    assert!(
        report.contains("accept it with TUIPILOT_UPDATE=1 cargo test --test tape_harness"),
        "{report}"
    );
}
