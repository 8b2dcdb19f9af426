//! `Set Shell` starts each shell the way VHS does — no rc files, no history, VHS's `> `
//! prompt — so a tape's default `Wait` (the prompt on the cursor's line) works in all of
//! them, through `Env` and `Source` too. A shell not installed here makes its test
//! ignored, with the reason (`.ci/run` installs zsh and fish).

use tuipilot_testenv::needs;
mod common;

use tuipilot::tape::{RunOptions, run_file};

/// Runs a tape in `shell` that sets a variable, sources a tape, computes 6 × 7 with
/// `arithmetic` and waits for the prompt after each command; the final screen.
fn run_in(shell: &str, arithmetic: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tuipilot-shell-{}-{shell}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("sourced.tape"), "Type \"echo sourced\" Enter\nWait\n").unwrap();
    let tape = dir.join("shell.tape");
    std::fs::write(
        &tape,
        format!(
            "Set Shell {shell}\nSet TypingSpeed 0\nEnv GREETING \"hi\"\nSource sourced.tape\n\
             Type \"echo $GREETING {arithmetic}\" Enter\nWait\nExpect /^hi 42$/\n"
        ),
    )
    .unwrap();
    let options = RunOptions {
        out_dir: Some(dir.clone()),
        ..RunOptions::default()
    };
    let result = run_file(&tape, &options);
    let _ = std::fs::remove_dir_all(&dir);
    let screen = result.unwrap_or_else(|failure| panic!("{failure:?}")).screen;
    screen.trim_end().to_string()
}

fn expected(arithmetic: &str) -> String {
    format!("> echo sourced\nsourced\n> echo $GREETING {arithmetic}\nhi 42\n>")
}

#[test]
fn bash_runs_a_tape_under_the_vhs_prompt() {
    let arithmetic = "$((6*7))";
    assert_eq!(run_in("bash", arithmetic), expected(arithmetic));
}

#[needs(zsh)]
#[test]
fn zsh_runs_a_tape_under_the_vhs_prompt() {
    let arithmetic = "$((6*7))";
    assert_eq!(run_in("zsh", arithmetic), expected(arithmetic));
}

#[needs(fish)]
#[test]
fn fish_runs_a_tape_under_the_vhs_prompt_without_its_greeting() {
    let arithmetic = "(math 6 \\* 7)";
    assert_eq!(run_in("fish", arithmetic), expected(arithmetic));
}

#[test]
fn a_shell_that_is_not_installed_fails_at_the_start_with_its_name() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let installed = |name: &str| std::env::split_paths(&path).any(|d| d.join(name).is_file());
    let Some(missing) = ["xonsh", "pwsh", "osh", "nu"].into_iter().find(|s| !installed(s)) else {
        eprintln!("SKIPPED: every shell VHS knows is installed here; none is missing to test with");
        return;
    };
    let dir = std::env::temp_dir().join(format!("tuipilot-noshell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tape = dir.join("t.tape");
    std::fs::write(&tape, format!("Set Shell {missing}\nType \"x\"\n")).unwrap();
    let result = run_file(&tape, &RunOptions::default());
    let _ = std::fs::remove_dir_all(&dir);
    let failure = result.unwrap_err();
    assert_eq!(failure.exit_code(), 2, "{failure:?}");
    assert!(
        failure
            .to_string()
            .contains(&format!("starting the shell `{missing}`")),
        "{failure}"
    );
}
