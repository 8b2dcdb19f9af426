//! End-to-end tests of `picker`, the way to test a TUI with tuipilot: a hermetic session
//! of the real binary under a real terminal, keys and waits as one step, locators and style
//! assertions, an insta snapshot of the styled screen and a PNG golden, both with the clock
//! masked. A failed wait or assertion names its line here and leaves the screen in
//! `target/tuipilot-artifacts/<test>/`.

use tuipilot::render::RenderOptions;
use tuipilot::render::compare::{Tolerance, assert_screen_matches};
use tuipilot::{Session, StyleMatch};

/// The clock in the title bar: masked wherever a screen is compared with a golden.
const CLOCK: &str = r"\d\d:\d\d:\d\d";

fn picker() -> tuipilot::Result<Session> {
    let s = Session::builder(env!("CARGO_BIN_EXE_picker"))
        .size(50, 12)
        .isolated()
        .spawn()?;
    s.wait_for_text("Fruit picker")?;
    Ok(s)
}

fn selected() -> StyleMatch {
    StyleMatch::new().inverse().bold()
}

#[test]
fn down_moves_the_selection() -> tuipilot::Result<()> {
    let s = picker()?;
    let screen = s.wait(&selected().on("Apple")?)?;
    screen
        .locate("Banana")?
        .assert_visible()?
        .assert_style(&StyleMatch {
            inverse: Some(false),
            ..StyleMatch::new()
        })?;
    s.press("Down")?;
    let screen = s.wait(&selected().on("Banana")?)?;
    screen.locate("Banana")?.assert_style(&selected().fg("yellow")?)?;
    screen.locate(r"^│  \w")?.assert_count(5)?;
    Ok(())
}

#[test]
fn the_styled_screen_matches_its_snapshot() -> tuipilot::Result<()> {
    let s = picker()?;
    s.press("Down")?;
    let screen = s.wait(&selected().on("Banana")?)?;
    insta::assert_snapshot!(screen.masked(CLOCK)?.styled());
    Ok(())
}

#[test]
fn the_screen_matches_its_golden_image_whatever_the_time() -> tuipilot::Result<()> {
    let s = picker()?;
    let screen = s.wait(&selected().on("Apple")?)?;
    // A mismatch reports the differing pixels and, from picker.txt beside the golden,
    // which rows of text changed.
    assert_screen_matches(
        &screen.masked(CLOCK)?,
        &RenderOptions::default(),
        "tests/golden/picker.png",
        Tolerance {
            channel: 8,
            max_share: 0.001,
        },
    )
}

#[test]
fn the_filter_popup_takes_text_input() -> tuipilot::Result<()> {
    let s = picker()?;
    s.send_keys_and_wait("/", "Filter")?;
    s.send_text("err")?;
    let screen = s.send_keys_and_wait("Enter", r"^│> Cherry")?;
    screen.locate("Elderberry")?.assert_visible()?;
    screen.locate("Apple")?.assert_count(0)?;
    screen.locate("Filter")?.assert_count(0)?;
    Ok(())
}

#[test]
fn enter_picks_and_exits_zero() -> tuipilot::Result<()> {
    let s = picker()?;
    s.press_all(["Down", "Down"])?;
    s.wait(&selected().on("Cherry")?)?;
    s.send_keys_and_wait("Enter", "^picked Cherry$")?;
    assert_eq!(s.wait_exit()?.code(), Some(0));
    Ok(())
}

#[test]
fn ctrl_c_exits_130_and_q_exits_1() -> tuipilot::Result<()> {
    let s = picker()?;
    s.press("C-c")?;
    assert_eq!(s.wait_exit()?.code(), Some(130));
    let s = picker()?;
    s.press("q")?;
    assert_eq!(s.wait_exit()?.code(), Some(1));
    Ok(())
}

#[test]
fn a_resize_redraws_at_the_new_size() -> tuipilot::Result<()> {
    let s = picker()?;
    s.resize(70, 16)?;
    let screen = s.wait_for_text(r"^└─{68}┘$")?;
    screen.locate_row(15).assert_text("Enter pick")?;
    Ok(())
}

#[test]
fn a_failed_wait_says_where_and_keeps_the_screen() -> tuipilot::Result<()> {
    let s = picker()?;
    let quick = std::time::Duration::from_millis(200);
    let line = line!() + 1;
    let err = s.wait_for_text_timeout("Mango", quick).unwrap_err();
    let report = err.to_string();
    assert!(
        report.starts_with(&format!("examples/picker/tests/e2e.rs:{line}:"))
            || report.starts_with(&format!("tests/e2e.rs:{line}:")),
        "{report}"
    );
    assert!(report.contains("saved: "), "{report}");
    Ok(())
}
