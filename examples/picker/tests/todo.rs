//! End-to-end tests of `todo`, a ratatui app whose frames leave its stdout buffer in
//! pieces: assertions on the live screen, which retry until the program has drawn what
//! they expect, and waits that hand back whole frames.

use tuipilot::{Session, StyleMatch};

fn todo(args: &[&str]) -> tuipilot::Result<Session> {
    let s = Session::builder(env!("CARGO_BIN_EXE_todo"))
        .args(args)
        .size(60, 20)
        .isolated()
        .spawn()?;
    s.locate("0 tasks, 0 done")?.assert_visible()?;
    Ok(s)
}

/// Adds `task` the way a person does: type it, press Enter.
#[track_caller]
fn add(s: &Session, task: &str) -> tuipilot::Result<()> {
    s.send_text(task)?;
    s.press("Enter")
}

#[test]
fn every_task_added_is_counted_in_the_status_bar() -> tuipilot::Result<()> {
    let s = todo(&[])?;
    for n in 1..=12 {
        add(&s, &format!("task {n}"))?;
        s.locate_row(19).assert_text(&format!("^{n} tasks, 0 done"))?;
    }
    // Newest first, selected: bold white on blue (ratatui's Color::White is palette 15).
    let selected = StyleMatch::new().bold().fg("White")?.bg("Blue")?;
    s.locate(r"12\. task 12")?.assert_style(&selected)?;
    Ok(())
}

#[test]
fn a_task_marked_done_is_struck_through_and_counted() -> tuipilot::Result<()> {
    let s = todo(&["--sync"])?;
    add(&s, "buy milk")?;
    s.locate("1 tasks, 0 done")?.assert_visible()?;
    s.press("Enter")?;
    s.locate("1 tasks, 1 done")?.assert_visible()?;
    s.locate("buy milk")?
        .assert_style(&StyleMatch::new().strikethrough())?;
    s.send_text("q")?;
    assert_eq!(s.wait_exit()?.code(), Some(0));
    Ok(())
}

#[test]
fn ctrl_c_exits_130() -> tuipilot::Result<()> {
    let s = todo(&[])?;
    s.press("C-c")?;
    assert_eq!(s.wait_exit()?.code(), Some(130));
    Ok(())
}
