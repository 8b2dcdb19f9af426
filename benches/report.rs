//! A report of a 100-step session on an 80×24 screen: how big `report.html` is and how
//! long making it takes (replaying the recording, drawing every frame's SVG pieces,
//! writing the HTML, the Markdown and the JSON). Goal: ≤ 1 MB, ≤ 50 ms. The baseline in
//! the same run: the same recording replayed and each of its frames drawn whole as a
//! standalone SVG (`to_svg`), what a report without shared rows would make and hold.
//!
//! `cargo bench --bench report`

use std::time::{Duration, Instant};

use tuipilot::operation::{Step, WaitFor};
use tuipilot::record::FrameOptions;
use tuipilot::render::{RenderOptions, SvgFrame};
use tuipilot::report::{ReportFormat, RunReport};
use tuipilot::{Operation, Session};

mod support;
use support::{median, ms};

const STEPS: usize = 100;

fn main() {
    let session = Session::builder("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .env("HISTFILE", "/dev/null")
        .size(80, 24)
        .timeout(Duration::from_secs(20))
        .spawn()
        .expect("starting bash");
    session.wait_for_text(r"^\$$").expect("the prompt");
    // A hundred steps that each change the screen: a command and its answer, the screen
    // scrolling once it is full, with colour.
    for i in 0..STEPS {
        let operation = Operation::Send {
            steps: vec![
                Step::Text(format!(
                    "printf '\\e[3{}mstep %03d\\e[0m of {STEPS}: %s\\n' {i} $(date +%N)",
                    i % 7 + 1
                )),
                Step::Keys("Enter".into()),
            ],
            wait: Some(WaitFor::Text(format!("^step {i:03} of"))),
            timeout_ms: None,
            capture: false,
            secret: false,
        };
        session.apply(&operation).expect("a step");
    }
    let report = RunReport::of_session(&session).expect("the report");
    session.exit().expect("ending bash");
    let timeline = report.timeline().expect("the timeline");
    let options = RenderOptions::default();
    // The baseline's screens: the same recording's frames at the timeline's 100 a second,
    // each a whole screen.
    let Some(tuipilot::record::Replayable::Held(recording)) = report.recording.as_ref() else {
        panic!("a session's report holds its recording");
    };
    let screens = recording
        .frames(&FrameOptions {
            fps_cap: 100,
            ..FrameOptions::default()
        })
        .expect("the frames");
    // Warm the glyph caches once, as any long-lived process has them.
    let _ = report.clone().text(ReportFormat::Html);

    let mut html_len = 0;
    let mut made = Vec::new();
    for _ in 0..10 {
        let mut copy = report.clone();
        let started = Instant::now();
        let html = copy.text(ReportFormat::Html).expect("html");
        let md = copy.markdown();
        let json = copy.json();
        made.push(started.elapsed());
        html_len = html.len();
        std::hint::black_box((md, json));
    }
    let mut whole = Vec::new();
    let mut whole_len = 0;
    for _ in 0..10 {
        let started = Instant::now();
        let svgs: Vec<String> = screens
            .iter()
            .map(|f| f.screen.to_svg(&options, SvgFrame::None).expect("svg"))
            .collect();
        whole.push(started.elapsed());
        whole_len = svgs.iter().map(String::len).sum();
    }
    let (made, whole) = (median(made), median(whole));
    let replay = support::time(10, || {
        std::hint::black_box(report.timeline().expect("the timeline"));
    });
    let drawing = support::time(10, || {
        std::hint::black_box(report.html(&timeline).expect("html"));
    });
    println!(
        "a report of {} steps, {} frames, 80x24 (median of 10):",
        report.steps.len(),
        timeline.frames.len()
    );
    println!(
        "  report.html + .md + .json:        {:>8.1} ms, report.html {:>7.1} KB (goal <= 50 ms, <= 1024 KB)",
        ms(made),
        html_len as f64 / 1024.0
    );
    println!(
        "    of which replaying the recording {:.1} ms, the HTML {:.1} ms",
        ms(replay),
        ms(drawing)
    );
    let baseline = replay + whole;
    println!(
        "  baseline, replayed and every frame a whole SVG: {:>7.1} ms, {:>7.1} KB",
        ms(baseline),
        whole_len as f64 / 1024.0
    );
    println!(
        "  ratio: {:.2}x the time, {:.3}x the size",
        ms(made) / ms(baseline),
        html_len as f64 / whole_len as f64
    );
}
