//! Real programs under the engine: bash, vim, less, dialog and prompt_toolkit.
//! Programs that may be missing (dialog, prompt_toolkit) skip with a message; CI
//! installs them.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::{Condition, Input, Session};

#[test]
fn bash_recalls_history_with_up() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    // Wait for the prompt after each output: keys sent before bash is back in readline
    // would be echoed by the terminal driver.
    s.send_and_wait(
        &Input::text("echo first\r"),
        &Condition::text(r"^first\n\$$").unwrap(),
    )
    .unwrap();
    s.send_and_wait(
        &Input::text("echo second\r"),
        &Condition::text(r"^second\n\$$").unwrap(),
    )
    .unwrap();
    s.press_all(["Up", "Up"]).unwrap();
    s.wait_for_text(r"^\$ echo first$").unwrap();
    s.press("Enter").unwrap();
    s.wait_for(|snap| snap.rows().iter().filter(|r| *r == "first").count() == 2)
        .unwrap();
}

#[test]
fn ctrl_c_interrupts_sleep_in_bash() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    // The job announces itself once it is the foreground process, then becomes sleep.
    s.send_text("sh -c 'echo started; exec sleep 100'; echo after-sleep\r")
        .unwrap();
    s.wait_for_text("^started$").unwrap();
    s.press("C-c").unwrap();
    let screen = s.wait_for_text(r"^\$$").unwrap();
    assert!(screen.contains("^C"), "{screen}");
    assert!(
        !screen.contains("\nafter-sleep"),
        "the whole command list was interrupted"
    );
    assert!(s.is_running(), "Ctrl-C reached sleep, not bash");
}

#[test]
fn vim_inserts_text_and_writes_the_file() {
    let dir = common::TempDir::new("vim");
    let file = dir.0.join("note.txt");
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n"])
        .arg(&file)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("note.txt").unwrap();
    s.press("i").unwrap();
    s.wait_for_text("-- INSERT --").unwrap();
    s.send_text("hello from tuipilot").unwrap();
    s.press("Enter").unwrap();
    s.send_text("second line").unwrap();
    s.press("Esc").unwrap();
    s.wait_for_no_text("-- INSERT --").unwrap();
    s.send_text(":wq").unwrap();
    s.press("Enter").unwrap();
    assert!(s.wait_exit().unwrap().success());
    let written = std::fs::read_to_string(&file).unwrap();
    assert_eq!(written, "hello from tuipilot\nsecond line\n");
    // vim must not have been provoked into probing with queries nobody answers.
    let unanswered: Vec<_> = s.transcript().into_iter().filter(|q| q.reply.is_none()).collect();
    assert!(unanswered.is_empty(), "{unanswered:?}");
}

#[test]
fn vim_arrow_keys_move_in_application_cursor_mode() {
    let dir = common::TempDir::new("vim-arrows");
    let file = dir.0.join("lines.txt");
    std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n"])
        .arg(&file)
        .spawn()
        .unwrap();
    s.wait_for_text("lines.txt").unwrap();
    s.press_all(["Down", "Down", "End"]).unwrap();
    s.send_text("rX").unwrap();
    s.wait_for_text("^threX$").unwrap();
    s.send_text(":q!\r").unwrap();
    s.wait_exit().unwrap();
}

#[test]
fn less_searches_with_slash() {
    let dir = common::TempDir::new("less");
    let file = dir.0.join("numbers.txt");
    let body: String = (1..=300).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let s = Session::builder("less")
        .arg(&file)
        .env("LESS", "")
        .spawn()
        .unwrap();
    s.wait_for_text("^line 1$").unwrap();
    s.send_text("/line 250").unwrap();
    s.press("Enter").unwrap();
    let screen = s.wait_for_text("^line 250$").unwrap();
    assert_eq!(screen.row(0), Some("line 250"), "{screen}");
    s.press("q").unwrap();
    assert!(s.wait_exit().unwrap().success());
}

#[needs(dialog)]
#[test]
fn dialog_menu_draws_box_borders_and_follows_down() {
    let s = Session::builder("sh")
        .args([
            "-c",
            "choice=$(dialog --stdout --menu 'Pick a fruit' 12 40 3 1 Apples 2 Bananas 3 Cherries); echo \"choice=$choice rc=$?\"",
        ])
        .spawn()
        .unwrap();
    let screen = s.wait_for_text("Pick a fruit").unwrap();
    // DEC special graphics arrive as box drawing, not as `lqqqk`.
    assert!(screen.contains("┌"), "{screen}");
    assert!(screen.contains("─"), "{screen}");
    assert!(screen.contains("│"), "{screen}");
    assert!(!screen.contains("lqqq"), "{screen}");
    s.press("Down").unwrap();
    s.press("Enter").unwrap();
    s.wait_exit().unwrap();
    assert!(s.snapshot().contains("choice=2 rc=0"), "{}", s.snapshot());
}

const PROMPT_TOOLKIT_SCRIPT: &str = "
from prompt_toolkit import PromptSession
session = PromptSession()
for _ in range(3):
    print('got:' + session.prompt('> '))
";

#[needs(prompt_toolkit)]
#[test]
fn prompt_toolkit_recalls_history_without_a_cpr_warning() {
    let s = Session::builder("python3")
        .args(["-c", PROMPT_TOOLKIT_SCRIPT])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    // Type only once each prompt is drawn: keys sent before prompt_toolkit puts the
    // terminal in raw mode are echoed by the line discipline (`^[[A` on screen).
    s.wait_for_text("^>$").unwrap();
    s.send_text("alpha").unwrap();
    s.press("Enter").unwrap();
    s.wait_for_text("^got:alpha$").unwrap();
    s.wait_for_text("^>$").unwrap();
    s.send_text("beta").unwrap();
    s.press("Enter").unwrap();
    s.wait_for_text("^got:beta$").unwrap();
    s.wait_for_text("^>$").unwrap();
    s.press_all(["Up", "Up"]).unwrap();
    s.wait_for_text("^> alpha$").unwrap();
    s.press("Enter").unwrap();
    s.wait_exit().unwrap();
    let screen = s.snapshot();
    assert_eq!(
        screen.rows().iter().filter(|r| *r == "got:alpha").count(),
        2,
        "{screen}"
    );
    assert!(!screen.contains("CPR"), "no cursor-position warning: {screen}");
    let cpr = s
        .transcript()
        .into_iter()
        .find(|q| q.query == "ESC[6n")
        .expect("prompt_toolkit asked for the cursor");
    assert!(cpr.reply.is_some());
}

#[test]
fn a_paste_cannot_leave_bracketed_paste_and_run_a_command_in_bash() {
    let dir = common::TempDir::new("paste");
    let planted = dir.0.join("ran");
    let s = common::bash().cwd(&dir.0).spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.wait_for(|snap| snap.bracketed_paste()).unwrap();
    // Removing the inner end marker once would assemble a new one before `; touch`.
    s.paste("echo x\x1b[20\x1b[201~1~; touch ran\r").unwrap();
    s.wait_for_text(r"touch ran").unwrap();
    // Still in the line editor: Ctrl-U clears the pasted line, then a marker command
    // shows that bash is reading keys again and ran nothing.
    s.press("C-u").unwrap();
    s.send_and_wait(
        &Input::text("echo done\r"),
        &Condition::text(r"^done\n\$$").unwrap(),
    )
    .unwrap();
    assert!(!planted.exists(), "the paste ran `touch ran`:\n{}", s.text());
}
