//! Every face speaks every operation: a walk over the vocabulary (`Step`, `WaitFor`,
//! `Operation`) that names, for each face, how it spells each item — or why it
//! deliberately has none — and checks that the spelling is in that face's source.
//!
//! The matches below are exhaustive: a new step, wait or operation does not compile here
//! until every face's spelling (or a documented reason) is written down; and a face that
//! loses one fails the check. The reasons are the deliberate differences the
//! architecture chapter lists.

use tuipilot::Operation;
use tuipilot::operation::{Step, WaitFor};

/// The faces and the files that hold their translation into the vocabulary.
const FACES: &[(&str, &[&str])] = &[
    (
        "cli",
        &[
            "cli/src/commands/args.rs",
            "cli/src/commands/client.rs",
            "cli/src/commands/mod.rs",
            "cli/src/commands/capture.rs",
        ],
    ),
    ("mcp", &["cli/src/mcp/args.rs", "cli/src/mcp/mod.rs"]),
    ("python", &["python/src/lib.rs"]),
    (
        "tape",
        &[
            "src/tape/parse.rs",
            "src/tape/parse/names.rs",
            "src/tape/parse/keys.rs",
            "src/tape/parse/waits.rs",
            "src/tape/run.rs",
            "src/tape/lex.rs",
        ],
    ),
];

/// How a face spells an item: text found in its files, or why it has none.
enum Spelling {
    Is(&'static str),
    Without(&'static str),
}
use Spelling::{Is, Without};

/// Each face's spelling of a step, in `FACES` order.
fn step(step: &Step) -> [Spelling; 4] {
    match step {
        Step::Text(_) => [
            Is("long = \"text\""),
            Is("pub(super) text"),
            Is("text=None"),
            Is("\"Type\""),
        ],
        Step::Type { .. } => [
            Is("typing_ms"),
            Is("pub(super) typing_ms"),
            Is("typing=None"),
            Is("Step::Type"),
        ],
        Step::Keys(_) => [
            Is("long = \"key\""),
            Is("pub(super) keys"),
            Is("keys=None"),
            Is("\"Key\""),
        ],
        Step::TextPerKey(_) => [
            Is("Step::TextPerKey"),
            Is("pub(super) per_key"),
            Is("Step::TextPerKey"),
            Is("CommandKind::TypePerKey"),
        ],
        Step::KeysPerKey(_) => [
            Is("Step::KeysPerKey"),
            Is("Step::KeysPerKey"),
            Is("Step::KeysPerKey"),
            Is("CommandKind::KeysPerKey"),
        ],
        Step::Paste(_) => [
            Is("paste"),
            Is("pub(super) paste"),
            Is("paste=None"),
            Is("\"Paste\""),
        ],
        Step::Bytes(_) => [
            Without(
                "the command line types text and names keys; raw bytes come from a person (attach --control)",
            ),
            Without("a model types text and names keys; raw bytes are the library's and Python's"),
            Is("raw=None"),
            Without("a tape types text and names keys"),
        ],
        Step::SleepMs(_) => [
            Is("sleep_ms"),
            Is("pub(super) sleep_ms"),
            Is("pause=None"),
            Is("\"Sleep\""),
        ],
        Step::Mouse(_) => [
            Is("Step::Mouse"),
            Is("pub(super) mouse"),
            Is("mouse=None"),
            Is("\"Mouse\""),
        ],
        Step::Focus(_) => [
            Is("Step::Focus"),
            Is("pub(super) focus"),
            Is("focus=None"),
            Is("\"Focus\""),
        ],
    }
}

/// Each face's spelling of a wait.
fn wait(wait: &WaitFor) -> [Spelling; 4] {
    match wait {
        WaitFor::Text(_) => [
            Is("WaitFor::Text"),
            Is("pub(super) wait_pattern"),
            Is("fn wait_text"),
            Is("\"Screen\""),
        ],
        WaitFor::TextIn { .. } => [
            Is("WaitFor::TextIn"),
            Is("pub(super) wait_in_rows"),
            Is("in_rows=None"),
            Is("\"Rows\""),
        ],
        WaitFor::NoText(_) => [
            Is("WaitFor::NoText"),
            Is("pub(super) wait_absent"),
            Is("fn wait_absent"),
            Is("\"ExpectNot\""),
        ],
        WaitFor::Line(_) => [
            Is("WaitFor::Line"),
            Is("pub(super) wait_line"),
            Is("fn wait_line"),
            Is("\"Line\""),
        ],
        WaitFor::Wrapped(_) => [
            Is("WaitFor::Wrapped"),
            Is("pub(super) wait_wrapped"),
            Is("fn wait_wrapped"),
            Is("\"Wrapped\""),
        ],
        WaitFor::Output(_) => [
            Is("WaitFor::Output"),
            Is("pub(super) wait_output"),
            Is("fn wait_output"),
            Is("\"Output\""),
        ],
        WaitFor::StableMs(_) => [
            Is("WaitFor::StableMs"),
            Is("pub(super) stable_ms"),
            Is("fn wait_stable"),
            Is("\"Stable\""),
        ],
        WaitFor::Exit => [
            Is("WaitFor::Exit"),
            Is("pub(super) wait_exit"),
            Is("fn wait_exit"),
            Is("\"Exit\""),
        ],
        WaitFor::Command => [
            Is("WaitFor::Command"),
            Is("pub(super) wait_command"),
            Is("fn wait_command"),
            Is("\"Command\""),
        ],
        WaitFor::Bell => [
            Is("WaitFor::Bell"),
            Is("pub(super) wait_bell"),
            Is("fn wait_bell"),
            Is("\"Bell\""),
        ],
        WaitFor::Title(_) => [
            Is("WaitFor::Title"),
            Is("pub(super) wait_title"),
            Is("fn wait_title"),
            Is("\"Title\""),
        ],
        WaitFor::Cwd(_) => [
            Is("WaitFor::Cwd"),
            Is("pub(super) wait_cwd"),
            Is("fn wait_cwd"),
            Is("\"Cwd\""),
        ],
        WaitFor::Ready => [
            Is("WaitFor::Ready"),
            Is("pub(super) wait_ready"),
            Is("fn wait_ready"),
            Is("\"Ready\""),
        ],
        WaitFor::Prompt => [
            Is("WaitFor::Prompt"),
            Is("pub(super) wait_prompt"),
            Is("fn wait_prompt"),
            Is("\"Prompt\""),
        ],
        WaitFor::Settle => [
            Is("WaitFor::Settle"),
            Is("WaitFor::Settle"),
            Without(
                "what a face waits for when input has no wait of its own and the screen comes back; Python's send returns nothing, and wait_ready() says why it stopped",
            ),
            Without("a tape's input never returns a screen; Wait+Ready is the tape's wait"),
        ],
    }
}

/// Each face's spelling of an operation.
fn operation(operation: &Operation) -> [Spelling; 4] {
    match operation {
        Operation::Info => [
            Is("Operation::Info"),
            Is("Action::List"),
            Is("fn pid"),
            Without("a tape reads no state but the screen"),
        ],
        Operation::Send { .. } => [
            Is("Operation::Send"),
            Is("Operation::Send"),
            Is("fn send"),
            Is("Step::"),
        ],
        Operation::Wait { .. } => [
            Is("Operation::Wait"),
            Is("Operation::Wait"),
            Is("fn wait("),
            Is("Wait"),
        ],
        Operation::Capture { .. } => [
            Is("Operation::Capture"),
            Is("Operation::Capture"),
            Is("fn png"),
            Is("\"Screenshot\""),
        ],
        Operation::Resize { .. } => [
            Is("Operation::Resize"),
            Is("Operation::Resize"),
            Is("fn resize"),
            Is("\"Resize\""),
        ],
        Operation::Exit { .. } => [
            Is("Operation::Exit"),
            Is("Operation::Exit"),
            Is("fn exit"),
            Without("a tape's session ends with the tape"),
        ],
    }
}

#[test]
fn every_face_spells_every_step_wait_and_operation_or_says_why_not() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources: Vec<(&str, String)> = FACES
        .iter()
        .map(|(face, files)| {
            let text = files
                .iter()
                .map(|f| std::fs::read_to_string(root.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
                .collect::<Vec<_>>()
                .join("\n");
            (*face, text)
        })
        .collect();
    let steps = [
        Step::Text(String::new()),
        Step::Type {
            text: String::new(),
            pause_ms: 0,
        },
        Step::Keys(String::new()),
        Step::Paste(String::new()),
        Step::Bytes(Vec::new()),
        Step::SleepMs(0),
        Step::Mouse(String::new()),
        Step::Focus(tuipilot::keys::Focus::In),
    ];
    let waits = [
        WaitFor::Text(String::new()),
        WaitFor::NoText(String::new()),
        WaitFor::Line(String::new()),
        WaitFor::Wrapped(String::new()),
        WaitFor::TextIn {
            pattern: String::new(),
            rows: None,
            cols: None,
        },
        WaitFor::Output(String::new()),
        WaitFor::StableMs(0),
        WaitFor::Exit,
        WaitFor::Command,
        WaitFor::Bell,
        WaitFor::Title(String::new()),
        WaitFor::Cwd(String::new()),
        WaitFor::Ready,
        WaitFor::Prompt,
        WaitFor::Settle,
    ];
    let operations = [
        Operation::Info,
        Operation::Send {
            steps: Vec::new(),
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        },
        Operation::Wait {
            condition: WaitFor::Exit,
            timeout_ms: None,
        },
        Operation::capture_text(),
        Operation::Resize { cols: 80, rows: 24 },
        Operation::Exit { timeout_ms: None },
    ];
    let mut items: Vec<(String, [Spelling; 4])> = Vec::new();
    items.extend(steps.iter().map(|s| (format!("step {s:?}"), step(s))));
    items.extend(waits.iter().map(|w| (format!("wait {}", w.label()), wait(w))));
    items.extend(
        operations
            .iter()
            .map(|o| (format!("operation {}", o.label()), operation(o))),
    );
    let mut missing = Vec::new();
    for (item, spellings) in &items {
        for ((face, source), spelling) in sources.iter().zip(spellings) {
            match spelling {
                Is(text) if !source.contains(text) => {
                    missing.push(format!("{face} lacks {item} (no `{text}` in its files)"))
                }
                Without(why) if why.trim().is_empty() => {
                    missing.push(format!("{face} lacks {item} with no reason"))
                }
                _ => {}
            }
        }
    }
    assert!(
        missing.is_empty(),
        "faces out of step with the vocabulary:\n{}",
        missing.join("\n")
    );
}
