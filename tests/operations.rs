//! The operation vocabulary and its executor (`Session::apply`) on real processes: the
//! one path every face (host, MCP, `once`, tapes) takes to a session.

mod common;

use std::time::Duration;

use tuipilot::operation::{PngRequest, Step, SvgRequest, WaitFor};
use tuipilot::{ErrorKind, Operation, Reply, StartSpec};

fn send(steps: Vec<Step>, wait: Option<WaitFor>, timeout_ms: Option<u64>) -> Operation {
    Operation::Send {
        steps,
        wait,
        timeout_ms,
        capture: true,
        secret: false,
    }
}

/// Every byte `keyecho` shows it read, in hex, whatever reads they came in.
fn received(reply: &Reply) -> String {
    let text = &reply.screen().expect("a screen").text;
    let bytes: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .flat_map(|l| l.split(' ').skip(1))
        .collect();
    bytes.join(" ")
}

fn keyecho() -> tuipilot::Session {
    let s = common::fixture_session("keyecho").spawn().unwrap();
    s.wait_for_text("^ready$").unwrap();
    s
}

#[test]
fn steps_are_sent_in_order_one_write_per_key_and_raw_bytes_unchanged() {
    let s = keyecho();
    let reply = s
        .apply(&send(
            vec![
                Step::Text("ab".into()),
                Step::Keys("Up C-c".into()),
                Step::Bytes(vec![0x1b, b'x']),
            ],
            Some(WaitFor::Text(" 1b 78$".into())),
            None,
        ))
        .unwrap();
    // Writes sent back to back may arrive in one read: compare the bytes, not the reads.
    assert_eq!(received(&reply), "61 62 1b 5b 41 03 1b 78");
}

#[test]
fn a_bad_key_anywhere_fails_the_operation_before_anything_is_sent() {
    let s = keyecho();
    let err = s
        .apply(&send(
            vec![Step::Text("sent?".into()), Step::Keys("Down Entr".into())],
            None,
            None,
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput);
    assert!(err.to_string().contains("unknown key `Entr`"), "{err}");
    // Nothing arrived: the screen stays quiet and shows no read.
    let snap = s.wait_stable(Duration::from_millis(150)).unwrap();
    assert!(!snap.text().contains("#1"), "{}", snap.text());
}

#[test]
fn render_options_out_of_range_are_bad_input_and_checked_before_waiting() {
    let s = keyecho();
    for (png, expected) in [
        (
            PngRequest {
                font_size: Some(500.0),
                ..PngRequest::default()
            },
            "font size 500 px is out of range: use 4 to 128 px",
        ),
        (
            PngRequest {
                scale: Some(0),
                ..PngRequest::default()
            },
            "scale 0 is out of range: use 1 to 4",
        ),
        (
            PngRequest {
                theme: Some("sepia".into()),
                ..PngRequest::default()
            },
            "unknown theme `sepia`",
        ),
        (
            PngRequest {
                fonts: vec!["/no/such/font.ttf".into()],
                ..PngRequest::default()
            },
            "font `/no/such/font.ttf` cannot be used",
        ),
        // Neither read to its end (it has none) nor opened and waited on.
        (
            PngRequest {
                fonts: vec!["/dev/zero".into()],
                ..PngRequest::default()
            },
            "font `/dev/zero` cannot be used: it is not a regular file",
        ),
    ] {
        let capture = Operation::Capture {
            // A wait that would time out: the bad option must fail first, at once.
            wait: Some(WaitFor::Text("never".into())),
            timeout_ms: Some(60_000),
            ansi: false,
            scrollback: false,
            png: Some(Box::new(png)),
            svg: None,
            text: true,
            mask: Vec::new(),
            scrolled_back: 0,
        };
        let err = s.apply(&capture).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
        assert!(err.to_string().contains(expected), "{err}");
    }
}

#[test]
fn an_svg_capture_needs_a_path_and_writes_the_svg_there() {
    let s = keyecho();
    let capture = |svg: SvgRequest| Operation::Capture {
        wait: None,
        timeout_ms: None,
        ansi: false,
        scrollback: false,
        png: None,
        svg: Some(Box::new(svg)),
        text: false,
        mask: Vec::new(),
        scrolled_back: 0,
    };
    let err = s.apply(&capture(SvgRequest::default())).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::BadInput, "{err}");
    assert!(err.to_string().contains("an SVG capture needs a path"), "{err}");
    let dir = common::TempDir::new("svg");
    let path = dir.0.join("screen.svg");
    let request = SvgRequest {
        drawing: PngRequest {
            path: Some(path.clone()),
            ..PngRequest::default()
        },
        window: false,
    };
    let reply = s.apply(&capture(request)).unwrap();
    assert_eq!(reply.screen().unwrap().svg.as_ref(), Some(&path));
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("<svg "));
}

#[test]
fn a_capture_without_a_path_returns_the_png_bytes() {
    let s = keyecho();
    let reply = s
        .apply(&Operation::Capture {
            wait: None,
            timeout_ms: None,
            ansi: false,
            scrollback: false,
            png: Some(Box::default()),
            svg: None,
            text: true,
            mask: Vec::new(),
            scrolled_back: 0,
        })
        .unwrap();
    let screen = reply.screen().unwrap();
    assert!(screen.png.is_none());
    assert_eq!(
        (screen.width, screen.height),
        (Some(80 * 10 + 16), Some(24 * 19 + 16))
    );
    assert!(screen.png_bytes.as_ref().unwrap().starts_with(b"\x89PNG"));
}

#[test]
fn a_send_whose_wait_times_out_is_a_timeout_with_the_screen() {
    let s = keyecho();
    let err = s
        .apply(&send(
            vec![Step::Keys("x".into())],
            Some(WaitFor::Text("never".into())),
            Some(200),
        ))
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout);
    assert!(err.to_string().contains("   0 | ready"), "{err}");
}

#[test]
fn waits_cover_absence_output_and_exit() {
    let s = StartSpec::new(["sh", "-c", "echo busy; read x; clear; echo done; read y; exit 5"])
        .spawn()
        .unwrap();
    let wait = |condition| Operation::Wait {
        condition,
        timeout_ms: None,
    };
    s.apply(&wait(WaitFor::Output("busy".into()))).unwrap();
    let reply = s
        .apply(&send(
            vec![Step::Keys("Enter".into())],
            Some(WaitFor::NoText("busy".into())),
            None,
        ))
        .unwrap();
    assert!(!reply.screen().unwrap().text.contains("busy"));
    s.apply(&wait(WaitFor::Text("^done$".into()))).unwrap();
    s.apply(&Operation::Send {
        steps: vec![Step::Keys("Enter".into())],
        wait: None,
        timeout_ms: None,
        capture: false,
        secret: false,
    })
    .unwrap();
    match s.apply(&wait(WaitFor::Exit)).unwrap() {
        Reply::Exit(exit) => assert_eq!((exit.exit_code, exit.signal), (Some(5), None)),
        other => panic!("{other:?}"),
    }
}

#[test]
fn info_resize_and_exit_report_the_session() {
    let s = StartSpec {
        cols: 100,
        rows: 30,
        ..StartSpec::new(["sh", "-c", "echo up; exec sleep 600"])
    }
    .spawn()
    .unwrap();
    let Reply::Info(info) = s.apply(&Operation::Info).unwrap() else {
        panic!("not info")
    };
    assert_eq!(
        (info.command.as_str(), info.cols, info.rows, info.running),
        ("sh -c echo up; exec sleep 600", 100, 30, true)
    );
    assert_eq!(
        s.apply(&Operation::Resize { cols: 5, rows: 5 })
            .unwrap_err()
            .kind(),
        ErrorKind::BadInput
    );
    assert_eq!(
        s.apply(&Operation::Resize { cols: 90, rows: 20 }).unwrap(),
        Reply::Resized { cols: 90, rows: 20 }
    );
    let Reply::Exit(exit) = s
        .apply(&Operation::Exit {
            timeout_ms: Some(400),
        })
        .unwrap()
    else {
        panic!("not an exit")
    };
    assert_eq!(exit.signal.as_deref(), Some("SIGHUP"));
    common::assert_session_gone(s.pid());
}

#[test]
fn a_png_capture_that_does_not_ask_for_text_carries_none() {
    let s = keyecho();
    s.send_text("visible").unwrap();
    s.wait_for_text("^#1 76").unwrap();
    let capture = |text| Operation::Capture {
        wait: None,
        timeout_ms: None,
        ansi: false,
        scrollback: true,
        png: Some(Box::default()),
        svg: None,
        text,
        mask: Vec::new(),
        scrolled_back: 0,
    };
    let without = s.apply(&capture(false)).unwrap();
    let without = without.screen().unwrap();
    assert_eq!(without.text, "");
    assert!(without.png_bytes.as_ref().unwrap().starts_with(b"\x89PNG"));
    let with = s.apply(&capture(true)).unwrap();
    assert!(with.screen().unwrap().text.contains("#1 76 69 73"));
}

#[test]
fn typed_text_goes_one_character_at_a_time_with_the_pause_after_each() {
    let dir = common::TempDir::new("typed");
    let path = dir.0.join("typed.cast");
    let s = common::fixture_session("keyecho").record(&path).spawn().unwrap();
    s.wait_for_text("^ready$").unwrap();
    let reply = s
        .apply(&send(
            vec![Step::Type {
                text: "aé€".into(),
                pause_ms: 100,
            }],
            Some(WaitFor::Text(" e2 82 ac$".into())),
            None,
        ))
        .unwrap();
    assert_eq!(received(&reply), "61 c3 a9 e2 82 ac");
    s.apply(&Operation::Exit { timeout_ms: None }).unwrap();
    // The recording holds one input per character (whole characters, never split bytes),
    // each at least the pause after the one before.
    let inputs: Vec<(f64, String)> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|event| event[1] == "i")
        .map(|event| (event[0].as_f64().unwrap(), event[2].as_str().unwrap().to_string()))
        .collect();
    let typed: Vec<&str> = inputs.iter().map(|(_, text)| text.as_str()).collect();
    assert_eq!(typed, ["a", "é", "€"]);
    for pair in inputs.windows(2) {
        assert!(pair[1].0 - pair[0].0 >= 0.099, "{inputs:?}");
    }
}
