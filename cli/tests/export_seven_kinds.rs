//! The seven kinds of session an export must carry (a project folder, an edited input, a
//! clock beside stable text, a colour capture, a program ended by a key, bash with its own
//! prompt, a program that never reads the terminal), each done twice with a real program:
//! by an agent through the command line, exported as the guide says (`export -o` and
//! `export --rust`), and by a person with `tuipilot record` (`-o` and `--rust`). Every tape
//! replays three times as written, and every Rust test compiles with warnings denied and
//! passes.

use tuipilot_testenv::needs;
#[path = "../../tests/common/mod.rs"]
mod common;
mod support;

use std::path::{Path, PathBuf};

use support::{Dir, text};

/// One piece of input, in order.
#[derive(Clone, Copy)]
enum Input {
    Text(&'static str),
    Key(&'static str),
}

/// One thing done in the session, by the agent or the person.
#[derive(Clone, Copy)]
enum Step {
    /// Input, then a wait for the regex on the screen.
    Send(&'static [Input], &'static str),
    /// The screen kept: its text, or (`true`) its colours too.
    Capture(bool),
    /// No input: a wait for the regex, which the program draws by itself (a clock moved on).
    Watch(&'static str),
    /// Input that ends the program.
    End(&'static [Input]),
}

/// A kind of session: the files of its folder, its program, what shows it started, and
/// what was done.
struct Kind {
    name: &'static str,
    files: &'static [(&'static str, &'static str)],
    command: &'static [&'static str],
    started: &'static str,
    steps: &'static [Step],
}

use Input::{Key, Text};
use Step::{Capture, End, Send, Watch};

/// The kinds, each with the real program the issue met it with (or its nearest in CI).
fn kind(name: &str) -> Kind {
    match name {
        // fzf lists the files of its folder: the replay must list the same ones.
        "project" => Kind {
            name: "project",
            files: &[
                ("notes/plan-for-monday.txt", "plan\n"),
                ("notes/todo.txt", "todo\n"),
                ("src/main.rs", "fn main() {}\n"),
                ("README", "read me\n"),
            ],
            command: &["fzf"],
            started: r"4/4",
            steps: &[Send(&[Text("note")], r"2/4"), Capture(false)],
        },
        // vim saves the file it was given: every replay edits the file as it was.
        "edited" => Kind {
            name: "edited",
            files: &[("notes.txt", "first line\n")],
            command: &["vim", "-u", "DEFAULTS", "-i", "NONE", "notes.txt"],
            started: "first line",
            steps: &[
                Send(&[Text("Goadded"), Key("Escape")], "^added"),
                Send(&[Text(":w"), Key("Enter")], "written"),
                Capture(false),
            ],
        },
        // dialog counts down beside its steady words.
        "clock" => Kind {
            name: "clock",
            files: &[],
            command: &["dialog", "--pause", "Steady words", "10", "40", "90"],
            started: "Steady words",
            steps: &[
                Watch(r"│ +8[0-8] +│"),
                Capture(false),
                Watch(r"│ +(7[0-9]|8[0-6]) +│"),
            ],
        },
        "colour" => Kind {
            name: "colour",
            files: &[],
            command: &[
                "dialog", "--menu", "Pick one", "12", "40", "3", "1", "Apples", "2", "Bananas", "3",
                "Cherries",
            ],
            started: "Cherries",
            steps: &[Send(&[Key("Down")], "Bananas"), Capture(true)],
        },
        // less ends on `q`: the last screen is the one after it.
        "ended" => Kind {
            name: "ended",
            files: &[("story.txt", "once upon a time\nthe end\n")],
            command: &["less", "-X", "story.txt"],
            started: "the end",
            steps: &[End(&[Text("q")]), Capture(false)],
        },
        // bash's prompt from the rc file the session gave it, folder and all.
        "prompt" => Kind {
            name: "prompt",
            files: &[("prompt.rc", "PS1='\\u in \\W\\$ '\nHISTFILE=/dev/null\n")],
            command: &["bash", "--rcfile", "prompt.rc", "-i"],
            started: r" in .*[$#] ?$",
            steps: &[
                Send(&[Text("echo hi"), Key("Enter")], r"^hi\n.* in .*[$#] ?$"),
                Capture(false),
            ],
        },
        // watch reads no key: it is never ready; its header has a clock.
        "unread" => Kind {
            name: "unread",
            files: &[("status.txt", "building\nall green\n")],
            command: &["watch", "-n", "1", "cat", "status.txt"],
            started: "all green",
            steps: &[Capture(false)],
        },
        _ => unreachable!("no kind {name}"),
    }
}

/// A folder of the kind's files, under `work`.
fn project(work: &Path, kind: &Kind) -> PathBuf {
    let folder = work.join(format!("{}-project", kind.name));
    std::fs::create_dir_all(&folder).unwrap();
    for (path, content) in kind.files {
        let path = folder.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }
    folder
}

/// The `send` arguments for `inputs`.
fn input_args(inputs: &[Input]) -> Vec<&'static str> {
    inputs
        .iter()
        .flat_map(|input| match input {
            Text(text) => ["-t", *text],
            Key(key) => ["-k", *key],
        })
        .collect()
}

/// `tuipilot send` of `inputs` to session `name`, waiting for `wait` if given.
fn send(dir: &Dir, name: &str, inputs: &[Input], wait: Option<&str>) {
    let mut args = vec!["send", "-s", name];
    args.extend(input_args(inputs));
    if let Some(wait) = wait {
        args.extend(["--wait", wait]);
    }
    dir.ok(&args);
}

/// `tuipilot wait` for `wait` on session `name`'s screen, with no input.
fn watch(dir: &Dir, name: &str, wait: &str) {
    dir.ok(&["wait", "-s", name, "--text", wait]);
}

/// Runs `tuipilot ARGS` in `cwd`, asserting it succeeds.
fn ok_in(dir: &Dir, cwd: &Path, args: &[&str]) -> String {
    let out = dir.run_in(cwd, args);
    assert!(
        out.status.success(),
        "{args:?}: {}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The kind done by an agent through the command line and exported as the guide says:
/// the tape's and the Rust test's paths.
fn by_an_agent(dir: &Dir, work: &Path, kind: &Kind) -> (PathBuf, PathBuf) {
    let folder = project(work, kind);
    let name = format!("{}-agent", kind.name);
    let mut start = vec!["start", "-s", &name, "--cols", "80", "--rows", "24", "--"];
    start.extend_from_slice(kind.command);
    ok_in(dir, &folder, &start);
    dir.ok(&["wait", "-s", &name, "--text", kind.started]);
    for step in kind.steps {
        match step {
            Send(inputs, wait) => send(dir, &name, inputs, Some(wait)),
            Capture(colours) => {
                let mut args = vec!["capture", "-s", &name];
                if *colours {
                    args.push("--ansi");
                }
                dir.ok(&args);
            }
            Watch(wait) => watch(dir, &name, wait),
            End(inputs) => send(dir, &name, inputs, None),
        }
    }
    let tape = work.join("agent").join(format!("{name}.tape"));
    let rust = work.join("agent-rust").join(format!("{name}.rs"));
    for (path, extra) in [(&tape, None), (&rust, Some("--rust"))] {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut args = vec!["export", "-s", &name, "-o", path.to_str().unwrap()];
        args.extend(extra);
        dir.ok(&args);
    }
    dir.ok(&["exit", "-s", &name]);
    (tape, rust)
}

/// The kind done by a person in `tuipilot record` (itself run in a session: the person's
/// terminal): the tape's and the Rust test's paths.
fn by_a_person(dir: &Dir, work: &Path, kind: &Kind) -> (PathBuf, PathBuf) {
    let folder = project(work, kind);
    let name = format!("{}-person", kind.name);
    let written = work.join("person");
    std::fs::create_dir_all(&written).unwrap();
    let tape = written.join(format!("{name}.tape"));
    let rust = written.join(format!("{name}.rs"));
    let mut record = vec![
        "record",
        "-o",
        tape.to_str().unwrap(),
        "--rust",
        rust.to_str().unwrap(),
        "--",
    ];
    record.extend_from_slice(kind.command);
    support::person_in(dir, &folder, &name, (80, 25), &record);
    dir.ok(&["wait", "-s", &name, "--text", kind.started]);
    let mut snapshots = 0;
    let mut ended = false;
    for step in kind.steps {
        match step {
            Send(inputs, wait) => send(dir, &name, inputs, Some(wait)),
            Capture(_) if ended => {}
            Capture(colours) => {
                let key = if *colours { "c" } else { "s" };
                dir.ok(&["send", "-s", &name, "-k", "C-]", "-t", key]);
                snapshots += 1;
                let said = format!("added snapshot {snapshots} of");
                dir.ok(&["wait", "-s", &name, "--text", &said]);
            }
            Watch(wait) => watch(dir, &name, wait),
            End(inputs) => {
                send(dir, &name, inputs, None);
                ended = true;
            }
        }
    }
    // The program's exit ends the recording; otherwise the person stops it.
    if !ended {
        dir.ok(&["send", "-s", &name, "-k", "C-]", "-t", "q"]);
    }
    dir.ok(&["wait", "-s", &name, "--exit"]);
    // The person's terminal wraps the line anywhere: read it without its spaces.
    let said: String = dir.ok(&["capture", "-s", &name]).split_whitespace().collect();
    assert!(said.contains("replayitwith"), "{said}");
    dir.ok(&["exit", "-s", &name]);
    // The Rust test beside its tape uses the tape's world: one copy, not two.
    let worlds: Vec<String> = std::fs::read_dir(&written)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".world"))
        .collect();
    assert_eq!(worlds, vec![format!("{name}.world")], "{worlds:?}");
    (tape, rust)
}

/// Asserts `out` ended well, showing `what` and its output otherwise.
fn passed(out: &std::process::Output, what: &str) {
    assert!(
        out.status.success(),
        "{what}\n{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

/// Compiles the Rust test with warnings denied, against the library beside this test, and
/// runs it: it must pass. Built beside its source, where a world it carries is found.
fn rust_test_compiles_clean_and_passes(rust: &Path) {
    let code = std::fs::read_to_string(rust).unwrap();
    let stem = rust.file_stem().unwrap().to_string_lossy().replace('-', "_");
    let out = common::rustc::run_as_test(rust.parent().unwrap(), &stem, &code);
    passed(&out, &format!("{}:\n{code}", rust.display()));
}

/// The kind, by an agent and by a person: both tapes replay three times, both Rust tests
/// compile clean and pass.
fn exported_and_recorded_replay(name: &str) {
    let kind = kind(name);
    let dir = Dir::new();
    let work = dir.work();
    for (tape, rust) in [by_an_agent(&dir, &work, &kind), by_a_person(&dir, &work, &kind)] {
        support::replays_three_times(&dir, &tape);
        rust_test_compiles_clean_and_passes(&rust);
    }
}

#[needs(fzf)]
#[test]
fn a_project_folder_listed_by_fzf_replays_as_written() {
    exported_and_recorded_replay("project");
}

#[needs(vim)]
#[test]
fn an_input_vim_saved_replays_as_written_against_the_file_as_it_was() {
    exported_and_recorded_replay("edited");
}

#[needs(dialog)]
#[test]
fn a_countdown_beside_steady_words_replays_as_written() {
    exported_and_recorded_replay("clock");
}

#[needs(dialog)]
#[test]
fn a_colour_capture_of_a_dialog_menu_replays_as_written() {
    exported_and_recorded_replay("colour");
}

#[needs(less)]
#[test]
fn less_ended_by_q_replays_as_written() {
    exported_and_recorded_replay("ended");
}

#[test]
fn bash_with_its_own_prompt_replays_as_written() {
    exported_and_recorded_replay("prompt");
}

#[needs(watch)]
#[test]
fn watch_which_never_reads_the_terminal_replays_as_written() {
    exported_and_recorded_replay("unread");
}
