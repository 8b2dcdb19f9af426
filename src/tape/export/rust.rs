//! The log as a Rust `#[test]` that drives the program through the library: the same
//! walk of steps as the tape (see the parent module), spelled as calls.

use super::{ExportOptions, Step2, hermetic_note, steps};
use crate::operation::{LoggedOperation, StartSpec, WaitFor};

/// The test's name for a session's Rust export: `replays_` and the name, lower case,
/// anything but letters and digits as `_`.
pub fn test_name(session: &str) -> String {
    let name: String = session
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("replays_{name}")
}

/// The log as a Rust `#[test]` named `test_name`, using the library.
pub fn to_rust(
    start: &StartSpec,
    log: &[LoggedOperation],
    test_name: &str,
    options: &ExportOptions,
) -> String {
    let (start, log) = options.redacted(start, log);
    let (start, log) = (&start, &log[..]);
    let raw = |s: &str| {
        let hashes = "#".repeat(
            (0..8)
                .find(|n| !s.contains(&format!("\"{}", "#".repeat(*n))))
                .unwrap_or(8),
        );
        format!("r{hashes}\"{s}\"{hashes}")
    };
    let mut body = Vec::new();
    let (program, args) = start
        .command
        .split_first()
        .map_or(("", &[][..]), |(p, a)| (p.as_str(), a));
    let mut builder = format!("    let s = Session::builder({})", raw(program));
    if !args.is_empty() {
        let list: Vec<String> = args.iter().map(|a| raw(a)).collect();
        builder.push_str(&format!("\n        .args([{}])", list.join(", ")));
    }
    builder.push_str(&format!("\n        .size({}, {})", start.cols, start.rows));
    for (k, v) in &start.env {
        if options.include_env {
            builder.push_str(&format!("\n        .env({}, {})", raw(k), raw(v)));
        } else {
            // By name: the value comes from where the test runs, never from the export.
            builder.push_str(&format!(
                "\n        .env({0}, std::env::var({0}).expect({1}))",
                raw(k),
                raw(&format!("set {k}: the test passes it on to the program"))
            ));
        }
    }
    if options.in_place {
        if let Some(dir) = &start.cwd {
            builder.push_str(&format!("\n        .cwd({})", raw(&dir.to_string_lossy())));
        }
    } else {
        let files: Vec<String> = options.with.iter().map(|f| raw(&f.to_string_lossy())).collect();
        builder.push_str(&format!(
            "\n        .isolated_in_home([{}] as [&str; {}])",
            files.join(", "),
            files.len()
        ));
    }
    builder.push_str("\n        .spawn()?;");
    body.push(builder);
    let mut pending_start = false;
    let wait_call = |condition: &WaitFor, timeout: Option<u64>, since: bool| -> String {
        let condition = match condition {
            WaitFor::Text(re) => format!("Condition::text({})?", raw(re)),
            WaitFor::NoText(re) => format!("Condition::no_text({})?", raw(re)),
            WaitFor::Line(re) => format!("Condition::line({})?", raw(re)),
            WaitFor::Output(re) => format!("Condition::output({})?", raw(re)),
            WaitFor::StableMs(ms) => format!("Condition::Stable(Duration::from_millis({ms}))"),
            WaitFor::Exit => "Condition::Exit".into(),
            WaitFor::Command => "Condition::CommandDone".into(),
            WaitFor::Bell => "Condition::Bell".into(),
            WaitFor::Title(re) => format!("Condition::title({})?", raw(re)),
            WaitFor::Cwd(re) => format!("Condition::cwd({})?", raw(re)),
            WaitFor::Ready | WaitFor::Settle => "Condition::Ready".into(),
            WaitFor::Prompt => "Condition::Prompt".into(),
        };
        let timeout = timeout.map_or("s.timeout()".to_string(), |ms| {
            format!("Duration::from_millis({ms})")
        });
        if since {
            format!("    s.wait_since_timeout(&start, &{condition}, {timeout})?;")
        } else {
            format!("    s.wait_timeout(&{condition}, {timeout})?;")
        }
    };
    let all = steps(start, log);
    let is_input = |s: &Step2| {
        matches!(
            s,
            Step2::Type(_)
                | Step2::Secret { .. }
                | Step2::Keys(_)
                | Step2::Paste(_)
                | Step2::Mouse(_)
                | Step2::Focus(_)
        )
    };
    let mut secrets = 0;
    for (index, step) in all.iter().cloned().enumerate() {
        // Input followed by a wait: the wait's baseline is taken before the input.
        if is_input(&step) && !pending_start {
            let waits = all[index..]
                .iter()
                .find(|s| !is_input(s))
                .is_some_and(|s| matches!(s, Step2::Wait(..)));
            if waits {
                body.push("    let start = s.wait_start();".into());
                pending_start = true;
            }
        }
        let line = match step {
            Step2::Comment(text) => format!("    // {text}"),
            Step2::Type(text) => format!("    s.send_text({})?;", raw(&text)),
            Step2::Secret { placeholder, paste } => {
                secrets += 1;
                let var = format!("TUIPILOT_SECRET_{secrets}");
                let (what, call) = match paste {
                    true => ("pastes", "paste"),
                    false => ("types", "send_text"),
                };
                let detail = placeholder.trim_start_matches('<').trim_end_matches('>');
                format!(
                    "    // Secret input was left out ({detail}): the test reads it from {var}.\n    s.{call}(&std::env::var({}).expect({}))?;",
                    raw(&var),
                    raw(&format!("set {var} to the secret input this test {what}"))
                )
            }
            Step2::Keys(keys) => format!("    s.press_all({}.split(' '))?;", raw(&keys)),
            Step2::Paste(text) => format!("    s.paste({})?;", raw(&text)),
            Step2::Mouse(action) => format!("    s.mouse({})?;", raw(&action)),
            Step2::Focus(focus) => format!("    s.focus(tuipilot::keys::Focus::{focus:?})?;"),
            Step2::Sleep(ms) => format!("    std::thread::sleep(Duration::from_millis({ms}));"),
            Step2::Wait(condition, timeout) => {
                wait_call(&condition, timeout, std::mem::take(&mut pending_start))
            }
            Step2::Expect(re) => format!("    s.wait_for_text({})?;", raw(&re)),
            Step2::Resize(c, r) => format!("    s.resize({c}, {r})?;"),
            Step2::Final { masks, text } => {
                let masks: Vec<String> = masks.iter().map(|m| raw(m)).collect();
                format!(
                    "    let screen = s.snapshot().masked_all(&[{}])?;\n    assert_eq!(screen.text().trim_end(), {});",
                    masks.join(", "),
                    raw(text.trim_end())
                )
            }
        };
        body.push(line);
    }
    body.push("    s.exit()?;".into());
    body.push("    Ok(())".into());
    format!(
        "// Exported from a tuipilot session: {}\n// {}\nuse std::time::Duration;\n\nuse tuipilot::{{Condition, Session}};\n\n#[test]\nfn {test_name}() -> tuipilot::Result<()> {{\n{}\n}}\n",
        start.command.join(" "),
        hermetic_note(options),
        body.join("\n")
    )
}
