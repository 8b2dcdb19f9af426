//! The four tapes from VHS's repository (`../shared/vhs-tapes`, copied into
//! `tests/vhs-tapes` with their licence) run unchanged, their GIF outputs skipped, and end
//! on the screen VHS shows: the prompt `> `, the command typed, its output.

use std::path::PathBuf;

use tuipilot::tape::{RunOptions, run_file};

fn run(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vhs-tapes");
    let scratch = std::env::temp_dir().join(format!("tuipilot-vhs-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let options = RunOptions {
        skip_media: true,
        out_dir: Some(scratch.clone()),
        ..RunOptions::default()
    };
    // (screenshot.tape writes a PNG relative to the current directory, as VHS does: the
    // CLI's tests run it from a scratch folder.)
    let report = run_file(dir.join(name), &options).unwrap();
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(
        report.notes.iter().any(|n| n.contains(".gif` skipped")),
        "the GIF output is skipped with a note: {:?}",
        report.notes
    );
    report.screen.trim_end().to_string()
}

#[test]
fn demo_tape_types_its_command_and_shows_the_output_under_the_vhs_prompt() {
    assert_eq!(run("demo.tape"), "> echo 'Welcome to VHS!'\nWelcome to VHS!\n>");
}

#[test]
fn env_tape_sets_the_variable_for_the_shell() {
    assert_eq!(run("env.tape"), "> echo $HELLO\nWORLD\n>");
}

#[test]
fn type_tape_clears_the_line_with_ctrl_u_and_types_slowly() {
    assert_eq!(run("type.tape"), "> Slow down there, partner.");
}
