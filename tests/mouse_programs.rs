//! Mouse actions on real mouse-driven programs: htop, Midnight Commander and vim with
//! `mouse=a`. Each is skipped with a message when the program is missing; CI installs them.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::{Condition, Input, Session};

#[needs(htop)]
#[test]
fn clicking_htops_setup_label_opens_its_setup_screen() {
    let s = Session::builder("htop")
        .isolated()
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("F10Quit").unwrap();
    s.wait_for(|screen| screen.mouse_reporting()).unwrap();
    let screen = s
        .send_and_wait(
            &Input::mouse("click /Setup/").unwrap(),
            &Condition::text("Display options").unwrap(),
        )
        .unwrap();
    assert!(screen.contains("[Setup]"), "{screen}");
    s.exit().unwrap();
}

#[needs(mc)]
#[test]
fn clicking_a_button_in_midnight_commander_closes_its_dialog() {
    let s = Session::builder("mc")
        .isolated()
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("10Quit").unwrap();
    s.wait_for(|screen| screen.mouse_reporting()).unwrap();
    // The function-key bar is clickable: 7Mkdir opens the dialog.
    let screen = s
        .send_and_wait(
            &Input::mouse("click /Mkdir/").unwrap(),
            &Condition::text("Create a new Directory").unwrap(),
        )
        .unwrap();
    assert!(screen.contains("[ Cancel ]"), "{screen}");
    s.send_and_wait(
        &Input::mouse("click /\\[ Cancel \\]/").unwrap(),
        &Condition::no_text("Create a new Directory").unwrap(),
    )
    .unwrap();
    // And 10Quit ends mc.
    s.mouse("click /10Quit/").unwrap();
    assert!(s.wait_exit().unwrap().success());
}

#[test]
fn a_click_moves_vims_cursor_with_mouse_a() {
    let dir = common::TempDir::new("vim-mouse");
    let file = dir.0.join("words.txt");
    std::fs::write(&file, "one\ntwo\nthree four five\n").unwrap();
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n", "-c", "set mouse=a"])
        .arg(&file)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("^three four five$").unwrap();
    s.wait_for(|screen| screen.mouse_reporting()).unwrap();
    // `four` is at columns 6-9 of row 2: the click lands on its middle, the `o`.
    s.mouse("click /four/").unwrap();
    s.wait_for(|screen| (screen.cursor().row, screen.cursor().col) == (2, 7))
        .unwrap();
    s.send_and_wait(&Input::text("x"), &Condition::text("^three fur five$").unwrap())
        .unwrap();
    s.send_text(":q!\r").unwrap();
    assert!(s.wait_exit().unwrap().success());
}
