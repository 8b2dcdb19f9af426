//! Reports on every face of the binary: `tuipilot run --report DIR` (a report per tape and
//! the suite's index), the report in a failed tape's bundle, `tuipilot report` for a live
//! session and for a recording, and the MCP server's `report` action.

#[path = "../../benches/support/mod.rs"]
mod bench_support;
mod support;

use support::{Dir, text};

#[test]
fn run_with_a_report_folder_writes_a_report_per_tape_and_an_index_linking_them() {
    let dir = Dir::new();
    let work = dir.work();
    std::fs::create_dir_all(work.join("tapes")).unwrap();
    std::fs::write(
        work.join("tapes/pass.tape"),
        "Set TypingSpeed 0\nType \"echo all-good\" Enter\nWait+Screen /^all-good$/\n",
    )
    .unwrap();
    std::fs::write(
        work.join("tapes/fail.tape"),
        "Set TypingSpeed 0\nMask /\\bshown\\b/\nType \"echo shown\" Enter\nWait\nExpect@300ms /not-shown/\n",
    )
    .unwrap();
    let out = dir.run_in(
        &work,
        &["run", "--report", "reports", "--out", "bundles", "-q", "tapes"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let reports = work.join("reports");
    let index = std::fs::read_to_string(reports.join("index.html")).unwrap();
    assert!(
        index.contains("tapes_fail/report.html") && index.contains("tapes_pass/report.html"),
        "{index}"
    );
    assert!(index.contains("1 of 2 passed"), "{index}");
    let md = std::fs::read_to_string(reports.join("tapes_fail/report.md")).unwrap();
    assert!(md.starts_with("# ✗ failed — `tapes/fail.tape`"), "{md}");
    assert!(
        md.contains("**Step 4** `Expect@300ms /not-shown/` (`tapes/fail.tape:5`)"),
        "{md}"
    );
    assert!(
        md.contains("- expected: `text matching /not-shown/ on the screen`"),
        "{md}"
    );
    assert!(
        md.contains("- masked cells: row 1, columns 0-4"),
        "the masked cells: {md}"
    );
    assert!(md.contains("- closest line: `row 0: \"> echo shown\"`"), "{md}");
    assert!(
        md.contains("| `Type \"echo shown\"` | `tapes/fail.tape:3` |"),
        "{md}"
    );
    let passed = std::fs::read_to_string(reports.join("tapes_pass/report.md")).unwrap();
    assert!(passed.starts_with("# ✓ passed — `tapes/pass.tape`"), "{passed}");
    assert!(passed.contains("all-good"), "the last screen is shown: {passed}");
    // The failure's bundle holds its own report, linking the files beside it.
    let bundle = work.join("bundles/fail.failure");
    let html = std::fs::read_to_string(bundle.join("report.html")).unwrap();
    for file in ["screen.png", "state.json", "recording.cast"] {
        assert!(html.contains(&format!("\"href\":\"{file}\"")), "{file} linked");
    }
}

#[test]
fn report_of_a_live_session_prints_markdown_or_writes_html() {
    let dir = Dir::new();
    support::start_bash(&dir, "rep");
    dir.ok(&[
        "-s",
        "rep",
        "send",
        "-t",
        "echo from-the-agent",
        "-k",
        "Enter",
        "--wait",
        "^from-the-agent$",
    ]);
    let md = dir.ok(&["-s", "rep", "report"]);
    assert!(md.starts_with("# • running — `rep`"), "{md}");
    assert!(md.contains("matched /^from-the-agent$/ at row"), "{md}");
    assert!(md.contains("from-the-agent"), "{md}");
    let html = dir.work().join("rep.html");
    let said = dir.ok(&["-s", "rep", "report", "-o", html.to_str().unwrap()]);
    assert!(said.contains("rep.html"), "{said}");
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("from-the-agent"));
    dir.ok(&["-s", "rep", "exit"]);
}

#[test]
fn report_of_a_recording_reads_its_steps_from_the_markers() {
    let dir = Dir::new();
    let cast = dir.work().join("session.cast");
    dir.ok(&[
        "-s",
        "rec",
        "start",
        "--record",
        cast.to_str().unwrap(),
        "--env",
        "PS1=$ ",
        "--",
        "sh",
    ]);
    dir.ok(&[
        "-s",
        "rec",
        "send",
        "-t",
        "echo recorded",
        "-k",
        "Enter",
        "--wait",
        "^recorded$",
    ]);
    dir.ok(&["-s", "rec", "exit"]);
    let md = dir.ok(&["report", cast.to_str().unwrap()]);
    assert!(
        md.contains("`send \"echo recorded\" Enter wait text /^recorded$/`"),
        "{md}"
    );
    assert!(md.contains("matched /^recorded$/ at row"), "{md}");
    let out = dir.run(&["report", dir.work().join("missing.cast").to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

// Fails on the code before: `a/b.tape` and `a_b.tape` shared the folder `a_b`, one report
// overwrote the other and the index linked both to it.
#[test]
fn tapes_whose_paths_come_to_one_name_get_reports_of_their_own() {
    let dir = Dir::new();
    let work = dir.work();
    std::fs::create_dir_all(work.join("t/a")).unwrap();
    let tape =
        |says: &str| format!("Set TypingSpeed 0\nType \"echo {says}\" Enter\nWait+Screen /^{says}$/\n");
    std::fs::write(work.join("t/a/b.tape"), tape("from-a-slash-b")).unwrap();
    std::fs::write(work.join("t/a_b.tape"), tape("from-a-underscore-b")).unwrap();
    let out = dir.run_in(&work, &["run", "--report", "reports", "-q", "t"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let reports = work.join("reports");
    let index = std::fs::read_to_string(reports.join("index.html")).unwrap();
    assert!(
        index.contains("t_a_b/report.html") && index.contains("t_a_b-2/report.html"),
        "{index}"
    );
    let first = std::fs::read_to_string(reports.join("t_a_b/report.md")).unwrap();
    let second = std::fs::read_to_string(reports.join("t_a_b-2/report.md")).unwrap();
    assert!(
        first.contains("`t/a/b.tape`") && first.contains("from-a-slash-b"),
        "{first}"
    );
    assert!(
        second.contains("`t/a_b.tape`") && second.contains("from-a-underscore-b"),
        "{second}"
    );
}

// Fails on the code before: the refusal went to the notes, shown only with -v, and `run`
// exited 0.
#[test]
fn a_report_that_cannot_be_written_is_an_error_line_and_a_non_zero_exit() {
    let dir = Dir::new();
    let work = dir.work();
    std::fs::write(
        work.join("pass.tape"),
        "Set TypingSpeed 0\nType \"echo fine\" Enter\nWait+Screen /^fine$/\n",
    )
    .unwrap();
    // A link planted where the tape's report folder goes: refused, never followed.
    let elsewhere = work.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::create_dir_all(work.join("reports")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, work.join("reports/pass")).unwrap();
    let out = dir.run_in(&work, &["run", "--report", "reports", "pass.tape"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("tuipilot: error: pass.tape: the report into")
                && l.contains("reports/pass")),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 passed, 0 failed, 0 could not run, 1 report not written"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "written through the link"
    );
}

/// A recording of `events` outputs of about 20 KB each on a 120×40 screen, each drawing
/// the same screen over itself: its pictures cost the report little, so what the report
/// holds is what it keeps of the recording.
fn large_recording(path: &std::path::Path, events: usize) -> u64 {
    use std::io::Write;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(out, r#"{{"version": 2, "width": 120, "height": 40}}"#).unwrap();
    for i in 0..events {
        let mut data = String::from("\\u001b[44m\\u001b[H");
        for row in 0..40 {
            data.push_str(&format!("\\u001b[{};1H", row + 1));
            // Drawn over itself: much output that leaves one screen.
            for _ in 0..25 {
                data.push_str(&format!("the same row {row} \\r"));
            }
        }
        writeln!(out, "[{:.3}, \"o\", \"{data}\"]", i as f64 * 0.02).unwrap();
    }
    out.flush().unwrap();
    std::fs::metadata(path).unwrap().len() >> 20
}

// Fails on the code before: the report held the whole recording, and its memory grew with
// it (212 MB for a 250 MB recording of a 500×400 screen); it is read from the file now.
#[test]
fn a_report_of_a_large_recording_keeps_within_its_budget_not_the_recordings_size() {
    let dir = Dir::new();
    let work = dir.work();
    let cast = work.join("large.cast");
    let size = large_recording(&cast, 4000);
    assert!(size >= 60, "the recording is {size} MiB");
    let (ok, peak, _) = bench_support::peak_memory_of(
        std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .args(["report", "large.cast", "-o", "out"])
            .current_dir(&work)
            .env("TUIPILOT_DIR", &dir.0)
            .stdout(std::process::Stdio::null()),
    );
    assert!(ok);
    let peak = peak >> 10;
    assert!(
        peak < size / 2,
        "report of a {size} MiB recording peaked at {peak} MiB"
    );
    let json = std::fs::read_to_string(work.join("out/report.json")).unwrap();
    assert!(
        json.contains("replayed from its file, one event at a time"),
        "the budget is said: {json}"
    );
}
