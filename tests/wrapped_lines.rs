//! Matching the logical line the terminal wrapped: a path or command longer than the screen
//! is wide is cut into rows, which text waits match one at a time; `Condition::Wrapped`
//! (`wait --wrapped`, `wait_wrapped`, `Wait+Wrapped` on the other faces; the tape corpus's
//! `waits.tape` and each face's tests drive them) joins the rows
//! the terminal wrapped back into the line the program wrote. Rows stay the default.

mod common;

use std::time::Duration;

use tuipilot::operation::WaitFor;
use tuipilot::{Condition, Reply, Session};

/// `sh -c SCRIPT` at `cols` columns.
fn sh_at(cols: u16, script: &str) -> Session {
    Session::builder("sh")
        .args(["-c", script])
        .size(cols, 10)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap()
}

const PATH: &str = "/srv/builds/2026/release-candidate/artifacts/linux/x86_64/tuipilot.tar.gz";

#[test]
fn a_path_longer_than_the_screen_matches_only_as_the_line_the_terminal_wrapped() {
    let s = sh_at(40, &format!("echo start; echo {PATH}; echo end; sleep 30"));
    s.wait_for_text("^end$").unwrap();
    let whole = format!("^{}$", regex::escape(PATH));
    // Row by row the path is cut at column 40: a text wait cannot see it whole.
    s.wait_for_text_timeout(&whole, Duration::from_millis(200))
        .expect_err("a text wait matches rows, and no row holds the whole path");
    let reply = s
        .apply(&common::wait_op(WaitFor::Wrapped(whole.clone())))
        .unwrap();
    let Reply::Screen { screen } = reply else {
        panic!("{reply:?}")
    };
    assert_eq!(
        screen.waited.as_deref(),
        Some(format!("matched /{whole}/ in the line wrapped over rows 1-2").as_str())
    );
    let snapshot = s.snapshot();
    assert!(snapshot.row_wraps(1) && !snapshot.row_wraps(2));
    assert_eq!(
        snapshot.logical_lines()[..3],
        [
            (0, "start".to_string()),
            (1, PATH.to_string()),
            (3, "end".to_string())
        ]
    );
}

#[test]
fn a_space_where_the_terminal_wrapped_stays_in_the_logical_line() {
    // 39 characters and a space fill row 0 exactly; the wrap keeps the space.
    let head = "x".repeat(39);
    let s = sh_at(40, &format!("printf '%s tail\\n' {head}; sleep 30"));
    s.wait(&Condition::wrapped(&format!("^{head} tail$")).unwrap())
        .unwrap();
}

#[test]
fn rows_the_program_ended_itself_are_not_joined() {
    // 40 characters, then the program's own line feed: the terminal did not wrap it.
    let full = "y".repeat(40);
    let s = sh_at(40, &format!("printf '%s\\nnext\\n' {full}; sleep 30"));
    s.wait_for_text("^next$").unwrap();
    let snapshot = s.snapshot();
    assert!(!snapshot.row_wraps(0));
    assert_eq!(
        snapshot.logical_lines()[..2],
        [(0, full), (1, "next".to_string())]
    );
    s.wait_timeout(
        &Condition::wrapped("y{40}next").unwrap(),
        Duration::from_millis(200),
    )
    .expect_err("the program's own line feed ends the line: nothing joins it to the next");
}

#[test]
fn a_failed_wrapped_wait_names_the_closest_line_by_the_row_it_starts_on() {
    // Two lines wrapped over two rows each: the second starts on row 2, though it is the
    // second logical line.
    let sums = "/srv/builds/2026/release-candidate/checksums/linux/SHA256SUMS";
    let s = sh_at(40, &format!("echo {PATH}; echo {sums}; sleep 30"));
    s.wait(&Condition::wrapped("SUMS$").unwrap()).unwrap();
    let err = s
        .wait_timeout(
            &Condition::wrapped("checksums/linux/SHA512SUMS").unwrap(),
            Duration::from_millis(200),
        )
        .unwrap_err();
    let report = err.to_string();
    assert!(
        report.contains("waiting for a line matching /checksums/linux/SHA512SUMS/, wrapped rows joined"),
        "{report}"
    );
    assert!(
        report.contains(&format!("closest line: row 2: \"{sums}\"")),
        "{report}"
    );
}
