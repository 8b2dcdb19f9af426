//! A flood of output keeps memory bounded and the session responsive.

mod common;

use std::time::Duration;

use tuipilot::Session;

#[test]
fn twenty_megabytes_of_yes_stay_bounded() {
    let s = Session::builder("sh")
        .args([
            "-c",
            "yes tuipilot-flood | head -c 20000000; echo; echo flood-done; exec sleep 600",
        ])
        .scrollback(500)
        .timeout(Duration::from_secs(120))
        .spawn()
        .unwrap();
    s.wait_for_text("^flood-done$").unwrap();
    let (held, total) = s.output_log_usage();
    assert!(total >= 20_000_000, "all output was read: {total}");
    assert!(
        held <= tuipilot::DEFAULT_LOG_CAPACITY,
        "the raw log is a ring: {held}"
    );
    assert!(s.scrollback().len() <= 500, "scrollback is capped");
    assert_eq!(s.snapshot().row(22), Some("flood-done"));
}

#[test]
fn ctrl_c_stops_a_flood_and_the_prompt_comes_back() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.send_text("yes\r").unwrap();
    s.wait_for(|snap| snap.rows().iter().filter(|r| *r == "y").count() > 20)
        .unwrap();
    s.press("C-c").unwrap();
    let screen = s.wait_for_text(r"^\$$").unwrap();
    assert!(screen.contains("^C"), "{screen}");
    let (_, total) = s.output_log_usage();
    assert!(total > 0);
    s.send_and_wait(
        &tuipilot::Input::text("echo after-flood\r"),
        &tuipilot::Condition::text("^after-flood$").unwrap(),
    )
    .unwrap();
}
