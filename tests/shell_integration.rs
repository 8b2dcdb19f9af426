//! Shell integration on real shells: the OSC 133 marks tuipilot injects into bash, zsh and
//! fish, waiting for a command to finish, its exit code, and its output's rows. zsh and
//! fish are skipped with a message when missing; CI installs them.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::{Condition, Input, Session, SessionBuilder};

/// Runs `command` at the prompt and waits for it to finish; returns its exit code.
fn run(s: &Session, command: &str) -> Option<i32> {
    s.send_and_wait(&Input::text(format!("{command}\r")), &Condition::CommandDone)
        .unwrap_or_else(|e| panic!("{command}: {e}"));
    s.signal_report().command_exit
}

/// The rows of the last command's output, as text.
fn output_rows(s: &Session) -> Vec<String> {
    let report = s.signal_report();
    let output = report.last_command.unwrap().output.unwrap();
    let screen = s.snapshot();
    (output.start..output.end)
        .map(|r| screen.row(r).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn bash_reports_each_commands_end_exit_code_and_output_rows() {
    let s = common::bash().spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    assert_eq!(run(&s, "echo one; echo two; false"), Some(1));
    assert_eq!(output_rows(&s), ["one", "two"]);
    let report = s.signal_report();
    let last = report.last_command.unwrap();
    let command_row = last.command.unwrap().start;
    assert_eq!(s.snapshot().row(command_row), Some("$ echo one; echo two; false"));
    assert_eq!(run(&s, "(exit 7)"), Some(7));
    assert_eq!(run(&s, "true"), Some(0));
    // An empty line runs nothing and ends nothing: only the next real command counts.
    let before = s.signal_report();
    s.send_and_wait(&Input::text("\r"), &Condition::text(r"^\$\n\$$").unwrap())
        .unwrap();
    assert_eq!(run(&s, "echo after"), Some(0));
    assert_eq!(output_rows(&s), ["after"]);
    assert_eq!(before.command_exit, Some(0));
}

#[test]
fn a_long_output_that_scrolled_off_reports_where_it_is_left() {
    let s = common::bash().size(40, 10).spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    assert_eq!(run(&s, "seq 1 30"), Some(0));
    let last = s.signal_report().last_command.unwrap();
    assert!(last.scrolled_off);
    let rows = output_rows(&s);
    assert_eq!(rows.first().map(String::as_str), Some("22"));
    assert_eq!(rows.last().map(String::as_str), Some("30"));
}

#[test]
fn the_callers_prompt_command_still_runs_with_the_commands_status() {
    let s = common::bash()
        .env("PROMPT_COMMAND", "echo pc:$?")
        .spawn()
        .unwrap();
    s.wait_for_text(r"^pc:0\n\$$").unwrap();
    assert_eq!(run(&s, "false"), Some(1));
    s.wait_for_text(r"^pc:1\n\$$").unwrap();
}

#[test]
fn without_shell_integration_bash_sends_no_marks() {
    let s = common::bash().shell_integration(false).spawn().unwrap();
    s.wait_for_text(r"^\$$").unwrap();
    s.send_and_wait(&Input::text("echo hi\r"), &Condition::text(r"^hi\n\$$").unwrap())
        .unwrap();
    assert_eq!(s.signal_report().last_command, None);
    let err = s
        .wait_timeout(&Condition::CommandDone, Duration::from_millis(50))
        .unwrap_err();
    assert!(err.to_string().contains("no OSC 133 marks"), "{err}");
}

fn zsh_with_home(home: &std::path::Path) -> SessionBuilder {
    Session::builder("zsh")
        .env("HOME", home)
        .env_remove("ZDOTDIR")
        .timeout(Duration::from_secs(20))
}

#[needs(zsh)]
#[test]
fn zsh_gets_marks_and_still_reads_the_users_zshrc() {
    let home = common::TempDir::new("zsh-home");
    std::fs::write(
        home.0.join(".zshrc"),
        "PS1='zz> '\nalias hello='echo from-zshrc'\n",
    )
    .unwrap();
    let s = zsh_with_home(&home.0).spawn().unwrap();
    s.wait_for_text("^zz>$").unwrap();
    assert_eq!(run(&s, "hello; false"), Some(1));
    assert_eq!(output_rows(&s), ["from-zshrc"]);
    // ZDOTDIR is the user's again once the files are read.
    assert_eq!(run(&s, r#"[ "${ZDOTDIR:-$HOME}" = "$HOME" ]"#), Some(0));
}

#[needs(fish)]
#[test]
fn fish_reports_exit_codes() {
    let home = common::TempDir::new("fish-home");
    let s = Session::builder("fish")
        .env("HOME", &home.0)
        .env("XDG_CONFIG_HOME", home.0.join(".config"))
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    // fish's default prompt ends in `>` (or `#` for root).
    s.wait_for_text("[>#]$").unwrap();
    assert_eq!(run(&s, "echo fishy; false"), Some(1));
    assert_eq!(output_rows(&s), ["fishy"]);
    assert_eq!(run(&s, "true"), Some(0));
}
