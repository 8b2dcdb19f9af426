//! Reports of a run: the steps, the screen after each (replayed from the session's own
//! recording), the failure explained; as HTML that opens from disk with no network, as
//! Markdown and as JSON. The browser test opens the HTML in headless Chromium and reads
//! the DOM its script built.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::operation::WaitFor;
use tuipilot::record::Recording;
use tuipilot::report::{RunReport, Verdict};
use tuipilot::{Operation, Session};

use common::send_op as send;

fn shell() -> Session {
    Session::builder("sh")
        .env("PS1", "$ ")
        .size(60, 12)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap()
}

/// A shell session with three steps, the last a wait that fails.
fn failed_session() -> Session {
    let s = shell();
    s.apply(&Operation::Wait {
        condition: WaitFor::Text(r"^\$".into()),
        timeout_ms: None,
    })
    .unwrap();
    s.apply(&send(
        "echo first-answer",
        "Enter",
        Some(WaitFor::Text("^first-answer$".into())),
    ))
    .unwrap();
    s.apply(&send(
        "echo second-answer",
        "Enter",
        Some(WaitFor::Text("^second-answer$".into())),
    ))
    .unwrap();
    let failed = s.apply(&Operation::Wait {
        condition: WaitFor::Text("^second-answr!$".into()),
        timeout_ms: Some(300),
    });
    assert!(failed.is_err());
    s
}

#[test]
fn a_session_report_shows_the_screen_after_each_step_as_the_session_saw_it() {
    let s = failed_session();
    let report = RunReport::of_session(&s).unwrap();
    let timeline = report.timeline().unwrap();
    assert_eq!(report.steps.len(), 4, "{:#?}", report.steps);
    let screen = |step: usize| timeline.step_text(step).unwrap().to_string();
    assert!(screen(1).contains("first-answer"), "{}", screen(1));
    assert!(
        !screen(1).contains("second-answer"),
        "the first send's screen is from before the second:\n{}",
        screen(1)
    );
    assert!(screen(2).contains("second-answer"), "{}", screen(2));
    assert_eq!(
        report.steps[2].waited.as_deref(),
        Some("matched /^second-answer$/ at row 3")
    );
    // The frames run in time from the blank screen before any output.
    assert!(timeline.text(0).unwrap().trim().is_empty());
    assert!(timeline.frames.windows(2).all(|w| w[0].at_ms <= w[1].at_ms));
    s.exit().unwrap();
}

#[test]
fn a_failed_step_is_explained_in_markdown_with_the_closest_line_and_the_screen() {
    let s = failed_session();
    let mut report = RunReport::of_session(&s).unwrap();
    s.exit().unwrap();
    let timeline = report.timeline().unwrap();
    report.fill_screens(&timeline);
    let failure = report.failure.clone().unwrap();
    assert_eq!(failure.step, Some(3));
    let md = report.markdown();
    assert!(md.contains("## What failed"), "{md}");
    assert!(md.contains("**Step 4** `wait text /^second-answr!$/`"), "{md}");
    assert!(md.contains("timed out after"), "{md}");
    // The screen when it failed, numbered, and the steps as a table.
    assert!(md.contains("  3 | second-answer"), "{md}");
    assert!(
        md.contains("- closest line: `row 2: \"$ echo second-answer\"`"),
        "{md}"
    );
    assert!(
        md.contains("| 2 |") && md.contains("matched /^first-answer$/ at row 1"),
        "{md}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.json()).unwrap();
    assert_eq!(json["steps"].as_array().unwrap().len(), 4);
    assert!(
        json["steps"][2]["screen"]
            .as_str()
            .unwrap()
            .contains("second-answer")
    );
}

#[test]
fn the_html_report_is_one_file_that_asks_nothing_of_the_network() {
    let s = failed_session();
    let report = RunReport::of_session(&s).unwrap();
    s.exit().unwrap();
    let timeline = report.timeline().unwrap();
    let html = report.html(&timeline).unwrap();
    assert!(html.contains("Content-Security-Policy\" content=\"default-src 'none'"));
    for reference in ["http://", "https://", "src=\"//", "href=\"//", "@import", "url("] {
        assert!(!html.contains(reference), "the report refers to {reference}");
    }
    // The data cannot end its script element early, whatever the program printed.
    let data_start = html.find("id=\"report-data\">").unwrap();
    let data_end = data_start + html[data_start..].find("</script>").unwrap();
    assert!(
        !html[data_start..data_end].contains('<') || html[data_start..data_end].matches('<').count() == 0
    );
    // Each distinct row is kept once: twelve rows a frame, far fewer pieces than
    // frames × rows.
    let frames = timeline.frames.len();
    let pieces = html.matches("<text ").count();
    assert!(frames >= 4, "{frames} frames");
    assert!(pieces < frames * 12, "{pieces} text pieces for {frames} frames");
}

#[test]
fn the_html_report_marks_changed_rows_in_the_gutter_and_keeps_a_labels_spaces() {
    let s = failed_session();
    let report = RunReport::of_session(&s).unwrap();
    s.exit().unwrap();
    let html = report.html(&report.timeline().unwrap()).unwrap();
    // No fill across a changed row (it looked like the program's own selection): only
    // the bar in the gutter.
    assert!(!html.contains("class=\"band\""), "a full-width band is drawn");
    assert!(html.contains("class=\"changed\" x=\"0\""), "no gutter mark");
    // `/^  > Apples/` keeps its two spaces on the page.
    let label_rule = html
        .lines()
        .find(|l| l.starts_with("nav .label {"))
        .expect("the labels' style");
    assert!(label_rule.contains("white-space: pre-wrap"), "{label_rule}");
}

#[test]
fn a_report_of_a_script_printing_markup_keeps_it_as_text() {
    let s = Session::builder("sh")
        .args([
            "-c",
            "printf '</script><script>alert(1)</script><!--\\n'; sleep 30",
        ])
        .size(60, 6)
        .spawn()
        .unwrap();
    s.wait_for_text("alert").unwrap();
    let report = RunReport::of_session(&s).unwrap();
    s.exit().unwrap();
    let html = report.html(&report.timeline().unwrap()).unwrap();
    assert_eq!(
        html.matches("</script>").count(),
        2,
        "only the report's own scripts end"
    );
    assert_eq!(html.matches("<script").count(), 2);
}

#[test]
fn a_recording_report_takes_its_steps_and_failure_from_the_markers() {
    let dir = common::TempDir::new("report-cast");
    let cast = dir.0.join("session.cast");
    let s = Session::builder("sh")
        .env("PS1", "$ ")
        .size(60, 10)
        .record(&cast)
        .spawn()
        .unwrap();
    s.apply(&Operation::Wait {
        condition: WaitFor::Text(r"^\$".into()),
        timeout_ms: None,
    })
    .unwrap();
    s.apply(&send(
        "echo marked",
        "Enter",
        Some(WaitFor::Text("^marked$".into())),
    ))
    .unwrap();
    let _ = s.apply(&Operation::Wait {
        condition: WaitFor::Text("never".into()),
        timeout_ms: Some(200),
    });
    s.exit().unwrap();
    let recording = Recording::read_file(&cast).unwrap();
    let report = RunReport::of_recording(recording, "session.cast");
    let labels: Vec<&str> = report.steps.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(
        labels,
        [
            "wait text /^\\$/",
            "send \"echo marked\" Enter wait text /^marked$/",
            "wait text /never/"
        ],
        "{:#?}",
        report.steps
    );
    assert_eq!(
        report.steps[1].waited.as_deref(),
        Some("matched /^marked$/ at row 1")
    );
    assert_eq!(report.verdict, Verdict::Failed);
    assert_eq!(report.failure.as_ref().unwrap().step, Some(2));
    let timeline = report.timeline().unwrap();
    let after = timeline.step_text(1).unwrap();
    assert!(after.contains("\nmarked"), "{after}");
}

/// Headless Chromium on `page` with `what` (`--dump-dom`, `--screenshot=…`) and a profile
/// of its own in `dir`; its standard output.
fn chromium_on(browser: &str, page: &std::path::Path, dir: &std::path::Path, what: &str) -> String {
    let output = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            "--window-size=1280,800",
            "--virtual-time-budget=2000",
            what,
        ])
        .arg(format!("--user-data-dir={}", dir.join("profile").display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("running chromium");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Opens the report at `page` in Chromium and checks the DOM its script built against
/// `checks` (each a piece that must be there, and what it shows); on a miss keeps the DOM
/// and a screenshot of the page and names them.
fn check_in_browser(browser: &str, page: &std::path::Path, checks: &[(&str, &str)]) {
    let dir = page.parent().unwrap();
    let dom = chromium_on(browser, page, dir, "--dump-dom");
    let mut missing: Vec<&str> = checks
        .iter()
        .filter(|(piece, _)| !dom.contains(piece))
        .map(|(_, what)| *what)
        .collect();
    // Nothing was fetched, and nothing the page's policy had to block.
    if !dom.contains(r#"data-requests="0""#) {
        missing.push("no request leaves the file");
    }
    if !missing.is_empty() {
        let kept = std::env::temp_dir().join(format!(
            "tuipilot-report-{}-{}",
            std::process::id(),
            page.parent()
                .and_then(|p| p.file_name())
                .unwrap_or_default()
                .to_string_lossy()
        ));
        std::fs::create_dir_all(&kept).unwrap();
        std::fs::write(kept.join("dom.html"), &dom).unwrap();
        let shot = kept.join("report.png");
        chromium_on(browser, page, dir, &format!("--screenshot={}", shot.display()));
        panic!(
            "in the browser, missing: {}; the DOM and a screenshot are kept in {}",
            missing.join(", "),
            kept.display()
        );
    }
}

#[needs(chromium)]
#[test]
fn a_browser_opens_a_failed_sessions_report_on_the_failing_step_with_its_screen_and_every_step() {
    let browser = common::chromium();
    let dir = common::TempDir::new("report-browser");
    let s = failed_session();
    let mut report = RunReport::of_session(&s).unwrap();
    s.exit().unwrap();
    let page = report.write(&dir.0.join("session")).unwrap();
    for file in tuipilot::report::REPORT_FILES {
        assert!(dir.0.join("session").join(file).is_file(), "{file}");
    }
    check_in_browser(
        browser,
        &page,
        &[
            (r#"data-step="3""#, "every step listed"),
            (
                r#"<li class="failed picked" data-step="3">"#,
                "the failing step picked",
            ),
            (r#"id="explanation""#, "the failure explained"),
            ("second-answr!", "the expectation"),
            (">second-answer</text>", "the screen's text in the SVG"),
            (r#"class="verdict failed""#, "the verdict in the header"),
        ],
    );
}

#[needs(chromium)]
#[test]
fn a_browser_opens_a_passing_sessions_report_on_its_last_step() {
    let browser = common::chromium();
    let dir = common::TempDir::new("report-browser-pass");
    let s = shell();
    s.apply(&common::wait_op(WaitFor::Text(r"^\$".into()))).unwrap();
    s.apply(&send(
        "echo all-fine",
        "Enter",
        Some(WaitFor::Text("^all-fine$".into())),
    ))
    .unwrap();
    s.apply(&send("exit", "Enter", Some(WaitFor::Exit))).unwrap();
    let mut report = RunReport::of_session(&s).unwrap();
    assert_eq!(report.verdict, Verdict::Ended);
    let page = report.write(&dir.0.join("session")).unwrap();
    check_in_browser(
        browser,
        &page,
        &[
            (r#"data-step="2" class="picked""#, "the last step picked"),
            (">all-fine</text>", "its screen's text in the SVG"),
            (r#"class="verdict ended""#, "the verdict in the header"),
        ],
    );
    assert!(
        !std::fs::read_to_string(&page)
            .unwrap()
            .contains(r#"id="explanation""#)
    );
}

/// Runs a tape whose snapshot misses its golden, with its report in `dir/report`; checks
/// the Markdown and returns the HTML report's path.
fn golden_report(dir: &std::path::Path) -> std::path::PathBuf {
    let tape = dir.join("colours.tape");
    let colours = |word: &str, last: &str| {
        format!(
            "Set Shell bash\nSet TypingSpeed 0\nType \"printf '\\e[31m{word}\\e[0m\\n'\"\nEnter\nWait+Screen /^{word}$/\n{last}\n"
        )
    };
    // The golden is a screenshot of a first run (a snapshot is never created under CI).
    let golden = dir.join("colours.png");
    std::fs::write(
        &tape,
        colours("red", &format!("Screenshot \"{}\"", golden.display())),
    )
    .unwrap();
    tuipilot::tape::run_file(&tape, &tuipilot::tape::RunOptions::default())
        .expect("the first run draws the golden");
    assert!(golden.is_file());
    std::fs::write(&tape, colours("rose", "Snapshot colours.png")).unwrap();
    let options = tuipilot::tape::RunOptions {
        report: Some(dir.join("report")),
        ..Default::default()
    };
    let failure = tuipilot::tape::run_file(&tape, &options).unwrap_err();
    let bundle = failure.bundle.clone().expect("a bundle");
    let md = std::fs::read_to_string(bundle.join("report.md")).unwrap();
    assert!(md.contains("## Golden images that differ"), "{md}");
    assert!(
        md.contains("colours.actual.png") && md.contains("colours.diff.png"),
        "{md}"
    );
    dir.join("report").join("report.html")
}

#[test]
fn a_failing_tapes_report_shows_the_golden_it_missed_beside_what_was_drawn() {
    let dir = common::TempDir::new("report-tape");
    let page = golden_report(&dir.0);
    let html = std::fs::read_to_string(&page).unwrap();
    assert_eq!(
        html.matches("data:image/png;base64,").count(),
        3,
        "expected, actual, difference"
    );
}

#[needs(chromium)]
#[test]
fn a_browser_shows_a_failing_tapes_golden_beside_what_was_drawn_with_a_slider() {
    let dir = common::TempDir::new("report-tape-browser");
    let page = golden_report(&dir.0);
    check_in_browser(
        common::chromium(),
        &page,
        &[
            (r#"id="goldens""#, "the goldens"),
            (r#"alt="difference""#, "the difference image"),
            (r#"class="compare""#, "the slider over expected and actual"),
            (r#"class="verdict failed""#, "the verdict"),
            (">rose</text>", "the screen's text"),
        ],
    );
}

// Fails on the code before: the closest line, found, expected, the message, notes, the
// title and step errors were written outside code spans, so a program's text rendered as
// links, images and HTML.
#[test]
fn every_text_in_report_md_renders_as_text_whatever_it_holds() {
    use pulldown_cmark::{Event, Parser, Tag};
    use tuipilot::report::{Attachment, Explanation, Step};
    let hostile = [
        "[click](https://example.invalid/x)",
        "![pixel](https://example.invalid/p.png)",
        "<img src=x onerror=alert(1)>",
        "<script>alert(1)</script>",
        "`` ``` `a` ```` <b>bold</b> ``",
        "`",
        "a | b || c",
        "line one\n# a heading\n[x]: https://example.invalid",
        "<https://example.invalid>",
        "**bold** _em_ ~~gone~~",
    ];
    for text in hostile {
        let mut report = RunReport::new("tape", text, 80, 24);
        report.command = Some(text.into());
        report.term = text.into();
        report.exit = Some(text.into());
        let mut step = Step::new(text, 0, 1);
        step.source = Some(text.into());
        step.error = Some(text.into());
        let mut waited = Step::new(text, 1, 1);
        waited.waited = Some(text.into());
        report.steps = vec![waited, step];
        report.failure = Some(Explanation {
            step: Some(1),
            message: text.into(),
            expected: Some(text.into()),
            found: Some(text.into()),
            closest: Some(text.into()),
            unanswered: vec![text.into()],
            screen: Some(text.into()),
            details: format!("{text}\n{text}"),
            ..Explanation::default()
        });
        report.notes = vec![text.into()];
        report.attachments = vec![Attachment {
            label: text.into(),
            path: "screen.png".into(),
        }];
        let md = report.markdown();
        let (mut links, mut in_block) = (0, false);
        for event in Parser::new_ext(&md, pulldown_cmark::Options::ENABLE_TABLES) {
            match event {
                Event::Start(Tag::CodeBlock(_)) => in_block = true,
                Event::End(pulldown_cmark::TagEnd::CodeBlock) => in_block = false,
                Event::Html(html) | Event::InlineHtml(html) => {
                    // The report's own `<details>` wrapper is the only HTML.
                    assert!(
                        html.starts_with("<details>") || html.starts_with("</details>"),
                        "{text:?} rendered as HTML {html:?}:\n{md}"
                    );
                }
                Event::Start(Tag::Image { .. }) => panic!("{text:?} rendered as an image:\n{md}"),
                Event::Start(Tag::Link { dest_url, .. }) => {
                    assert_eq!(&*dest_url, "screen.png", "{text:?} rendered as a link:\n{md}");
                    links += 1;
                }
                // Outside code spans the report has only its own words.
                Event::Text(words) if !in_block => {
                    for fragment in [
                        "click",
                        "pixel",
                        "onerror",
                        "alert(1)",
                        "<b>",
                        "a heading",
                        "example.invalid",
                        "gone",
                        "bold",
                        "a | b",
                    ] {
                        assert!(
                            !words.contains(fragment),
                            "{text:?} left code as {words:?}:\n{md}"
                        );
                    }
                }
                _ => {}
            }
        }
        assert_eq!(links, 1, "{md}");
    }
}

// Fails on the code before: every frame was kept whole and drawn, with no bound and no
// word of one (this recording's pictures come to about twice the budget).
#[test]
fn a_recording_with_more_pictures_than_the_budget_is_thinned_and_the_report_says_so() {
    use std::fmt::Write as _;
    // 200×100, every cell its own colour, the whole screen drawn anew 25 times a second
    // for two seconds: 5,000 distinct rows of 200 coloured cells.
    let (cols, rows) = (200, 100);
    let mut cast = format!("{{\"version\":2,\"width\":{cols},\"height\":{rows}}}\n");
    let mut seed = 7u32;
    for frame in 0..50 {
        let mut data = String::from("\\u001b[H");
        for _ in 0..rows * cols {
            seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let (fg, bg, letter) = (
                seed >> 8 & 7,
                seed >> 12 & 7,
                (b'a' + (seed >> 16) as u8 % 26) as char,
            );
            write!(data, "\\u001b[3{fg};4{bg}m{letter}").unwrap();
        }
        writeln!(cast, "[{:.2},\"o\",\"{data}\"]", f64::from(frame + 1) * 0.04).unwrap();
    }
    let recording = tuipilot::record::Recording::read(cast.as_bytes(), "busy.cast").unwrap();
    let mut report = RunReport::of_recording(recording, "busy");
    let dir = common::TempDir::new("report-budget");
    report.write(&dir.0).unwrap();
    let html = std::fs::metadata(dir.0.join("report.html")).unwrap().len();
    assert!(html <= 64 << 20, "report.html is {html} bytes");
    let md = std::fs::read_to_string(dir.0.join("report.md")).unwrap();
    assert!(
        md.contains("frames thinned to keep the report's pictures within 48 MB"),
        "{md}"
    );
}
