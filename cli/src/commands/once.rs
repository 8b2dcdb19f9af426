//! `tuipilot once`: the operations of a session applied in one process, no host.

use std::io::Write;

use tuipilot::operation::{Step, WaitFor};
use tuipilot::{Operation, StartSpec};

use super::OnceArgs;
use crate::error::Failure;

/// `once`: the same operations as a session's, applied in one process — start, wait,
/// press keys, wait until the program is ready (or a quiet screen), capture, exit.
pub(super) fn once(args: OnceArgs, json: bool) -> Result<(), Failure> {
    let OnceArgs {
        cols,
        rows,
        wait,
        keys,
        stable,
        timeout_ms,
        ansi,
        reaction_bound,
        png,
        render,
        record,
        command,
    } = args;
    if let Some(note) = super::args::misplaced_note(&super::args::our_flags_among(
        "once",
        command.get(1..).unwrap_or_default(),
    )) {
        eprintln!("tuipilot: note: {note}");
    }
    let mut operations = Vec::new();
    if let Some(re) = wait {
        operations.push(Operation::Wait {
            condition: WaitFor::Text(re),
            timeout_ms,
        });
    }
    if !keys.is_empty() {
        operations.push(Operation::Send {
            steps: keys.into_iter().map(Step::Keys).collect(),
            wait: None,
            timeout_ms,
            capture: false,
            secret: false,
        });
    }
    // Settled: the program waits for input (a quiet screen where the kernel cannot
    // tell), or has exited; or, asked for, the screen has been quiet a while.
    let settle = operations.len();
    operations.push(Operation::Wait {
        condition: stable.map_or(WaitFor::Settle, WaitFor::StableMs),
        timeout_ms,
    });
    operations.push(Operation::Capture {
        wait: None,
        timeout_ms,
        ansi,
        scrollback: false,
        png: png.map(|p| render.request(Some(p)).map(Box::new)).transpose()?,
        svg: None,
        text: true,
        mask: Vec::new(),
        scrolled_back: 0,
    });
    // Check every operation before starting anything: a bad key or regex fails at once.
    for operation in &operations {
        operation.check()?;
    }
    let mut spec = StartSpec {
        cols,
        rows,
        reaction_bound_ms: reaction_bound,
        ..StartSpec::new(command)
    };
    record.apply(&mut spec)?;
    let session = spec.spawn()?;
    let mut screen = None;
    for (index, operation) in operations.iter().enumerate() {
        let reply = match session.apply(operation) {
            // A program that is done has settled as much as it will.
            Err(e) if index == settle && e.kind() == tuipilot::ErrorKind::ExitedWhileWaiting => continue,
            reply => reply?,
        };
        if let tuipilot::Reply::Screen { screen: s } = reply {
            if let Some(busy) = s.not_ready() {
                eprintln!(
                    "tuipilot: {}; the screen as it is now",
                    super::output::printable(busy)
                );
            }
            screen = Some(s);
        }
    }
    let screen = screen.ok_or_else(|| Failure::internal("the capture returned no screen"))?;
    super::output::hint_missing_glyphs(&screen);
    if json {
        let value = serde_json::to_value(&screen).map_err(|e| Failure::internal(e.to_string()))?;
        say!("{value}");
    } else {
        say!("{}", screen.text);
    }
    let _ = std::io::stdout().flush();
    session.apply(&Operation::Exit { timeout_ms: None })?;
    Ok(())
}
