//! The log as a Rust `#[test]` that drives the program through the library: the same
//! walk of steps as the tape (see the parent module), spelled as calls.

use super::{ExportOptions, Step2, check_writable, hermetic_note, steps};
use crate::operation::{LoggedOperation, StartSpec, WaitFor};
use crate::tape::quote::{needs_escape, shown};

/// `text` as a Rust string literal that is exactly `text`: `\\`, `\"` and every control,
/// line separator and invisible or reordering character escaped, nothing else (a raw
/// literal's hashes can be outnumbered by the text; an escaped literal has no such limit).
pub fn rust_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str(r"\n"),
            '\r' => out.push_str(r"\r"),
            '\t' => out.push_str(r"\t"),
            '\0' => out.push_str(r"\0"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `word` (an argument, a folder, an environment name or value) as a Rust expression
/// that is exactly its bytes: a string literal when it is UTF-8, else an `OsStr` made from a
/// byte string literal.
fn rust_os(word: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    if let Some(text) = word.to_str() {
        return rust_string(text);
    }
    format!(
        "<std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes({})",
        rust_bytes(word.as_bytes())
    )
}

/// `bytes` as a Rust byte string literal: printable ASCII as it is, every other byte as
/// `\xHH`.
fn rust_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &byte in bytes {
        match byte {
            b'\\' => out.push_str(r"\\"),
            b'"' => out.push_str("\\\""),
            b' '..=b'~' => out.push(byte as char),
            _ => out.push_str(&format!("\\x{byte:02x}")),
        }
    }
    out.push('"');
    out
}

/// A `//` comment that stays one line whatever `text` holds.
fn rust_comment(indent: &str, text: &str) -> String {
    let mut out = format!("{indent}// ");
    shown(text, &mut out);
    out
}

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
///
/// Every text is an escaped string literal that is exactly the text, and every comment
/// one line, so nothing a program printed or a person typed becomes code. A log that
/// cannot be written faithfully is refused, as for [`to_tape`](super::to_tape); so is a
/// `test_name` that is not an identifier.
pub fn to_rust(
    start: &StartSpec,
    log: &[LoggedOperation],
    test_name: &str,
    options: &ExportOptions,
) -> crate::Result<String> {
    check_writable(start, log)?;
    let mut chars = test_name.chars();
    let identifier = chars.next().is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric());
    if !identifier {
        return Err(crate::Error::InvalidArgument {
            message: format!(
                "the test's name {test_name:?} is not a Rust identifier: use letters, digits and _ (test_name makes one)"
            ),
        });
    }
    let (start, log) = options.redacted(start, log);
    let start = super::replayed_start(&start, options);
    let (start, log) = (&start, &log[..]);
    let mut body = Vec::new();
    let (program, args) = start
        .command
        .split_first()
        .map_or((std::ffi::OsStr::new(""), &[][..]), |(p, a)| (p.as_os_str(), a));
    let mut builder = format!("    let s = Session::builder({})", rust_os(program));
    if args.iter().all(|a| a.to_str().is_some()) {
        if !args.is_empty() {
            let list: Vec<String> = args.iter().map(|a| rust_os(a)).collect();
            builder.push_str(&format!("\n        .args([{}])", list.join(", ")));
        }
    } else {
        // Words that are not all UTF-8 are of two types: one call each.
        for arg in args {
            builder.push_str(&format!("\n        .arg({})", rust_os(arg)));
        }
    }
    builder.push_str(&format!("\n        .size({}, {})", start.cols, start.rows));
    if let Some(ms) = start.reaction_bound_ms {
        builder.push_str(&format!(
            "\n        .reaction_bound(std::time::Duration::from_millis({ms}))"
        ));
    }
    for (k, v) in &start.env {
        if options.include_env {
            builder.push_str(&format!("\n        .env({}, {})", rust_os(k), rust_os(v)));
        } else {
            // By name: the value comes from where the test runs, never from the export.
            builder.push_str(&format!(
                "\n        .env({0}, std::env::var_os({0}).expect({1}))",
                rust_os(k),
                rust_string(&format!(
                    "set {}: the test passes it on to the program",
                    crate::operation::shown_word(k)
                ))
            ));
        }
    }
    if options.in_place {
        if let Some(dir) = &start.cwd {
            builder.push_str(&format!("\n        .cwd({})", rust_os(dir.as_os_str())));
        }
    } else {
        let mut files: Vec<String> = options
            .with
            .iter()
            .map(|f| format!("std::path::PathBuf::from({})", rust_os(f.as_os_str())))
            .collect();
        // The world beside the test's source file.
        if let Some((map, _)) = &options.world {
            let folder = super::world_name(test_name, options);
            files.push(format!(
                "tuipilot::files::beside_source(file!(), env!(\"CARGO_MANIFEST_DIR\"), {})",
                rust_string(&folder)
            ));
            builder.push_str(&format!(
                "\n        .cwd({})",
                rust_os(super::world_cwd(&folder, map).as_os_str())
            ));
        }
        builder.push_str(&format!(
            "\n        .isolated_in_home([{}] as [std::path::PathBuf; {}])",
            files.join(", "),
            files.len()
        ));
    }
    builder.push_str("\n        .spawn()?;");
    body.push(builder);
    let mut pending_start = false;
    let wait_call = |condition: &WaitFor, timeout: Option<u64>, since: bool| -> String {
        let condition = match condition {
            WaitFor::Text(re) => format!("Condition::text({})?", rust_string(re)),
            WaitFor::TextIn { pattern, rows, cols } => {
                format!(
                    "Condition::text_in({}, {rows:?}, {cols:?})?",
                    rust_string(pattern)
                )
            }
            WaitFor::NoText(re) => format!("Condition::no_text({})?", rust_string(re)),
            WaitFor::Line(re) => format!("Condition::line({})?", rust_string(re)),
            WaitFor::Wrapped(re) => format!("Condition::wrapped({})?", rust_string(re)),
            WaitFor::Output(re) => format!("Condition::output({})?", rust_string(re)),
            WaitFor::StableMs(ms) => format!("Condition::Stable(Duration::from_millis({ms}))"),
            WaitFor::Exit => "Condition::Exit".into(),
            WaitFor::Command => "Condition::CommandDone".into(),
            WaitFor::Bell => "Condition::Bell".into(),
            WaitFor::Title(re) => format!("Condition::title({})?", rust_string(re)),
            WaitFor::Cwd(re) => format!("Condition::cwd({})?", rust_string(re)),
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
    let all = steps(
        start,
        log,
        options.screen_now.as_deref(),
        &super::place_masks(test_name, options),
        &options.masks,
    );
    let is_input = |s: &Step2| {
        matches!(
            s,
            Step2::Type(_)
                | Step2::TypePerKey(_)
                | Step2::KeysPerKey(_)
                | Step2::Bytes(_)
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
            Step2::Comment(text) => rust_comment("    ", &text),
            Step2::Type(text) => format!("    s.send_text({})?;", rust_string(&text)),
            Step2::Bytes(bytes) => format!("    s.send_bytes({})?;", rust_bytes(&bytes)),
            Step2::Secret { placeholder, paste } => {
                secrets += 1;
                let var = format!("TUIPILOT_SECRET_{secrets}");
                let (what, call) = match paste {
                    true => ("pastes", "paste"),
                    false => ("types", "send_text"),
                };
                let detail = placeholder.trim_start_matches('<').trim_end_matches('>');
                let note = rust_comment(
                    "    ",
                    &format!("Secret input was left out ({detail}): the test reads it from {var}."),
                );
                format!(
                    "{note}\n    s.{call}(&std::env::var({}).expect({}))?;",
                    rust_string(&var),
                    rust_string(&format!("set {var} to the secret input this test {what}"))
                )
            }
            Step2::Keys(ref keys) | Step2::KeysPerKey(ref keys) => {
                let names: Vec<String> = crate::keys::parse_key_list(keys)?
                    .iter()
                    .map(|key| rust_string(&key.to_string()))
                    .collect();
                let call = match matches!(step, Step2::KeysPerKey(_)) {
                    true => "press_per_key",
                    false => "press_all",
                };
                format!("    s.{call}([{}])?;", names.join(", "))
            }
            Step2::TypePerKey(text) => format!("    s.send_text_per_key({})?;", rust_string(&text)),
            Step2::Paste(text) => format!("    s.paste({})?;", rust_string(&text)),
            Step2::Mouse(action) => format!("    s.mouse({})?;", rust_string(&action)),
            Step2::Focus(focus) => format!("    s.focus(tuipilot::keys::Focus::{focus:?})?;"),
            Step2::Sleep(ms) => format!("    std::thread::sleep(Duration::from_millis({ms}));"),
            Step2::Wait(condition, timeout) => {
                wait_call(&condition, timeout, std::mem::take(&mut pending_start))
            }
            Step2::Expect(re) => format!("    s.wait_for_text({})?;", rust_string(&re)),
            Step2::Resize(c, r) => format!("    s.resize({c}, {r})?;"),
            Step2::Final {
                masks,
                row_masks,
                text,
                styled,
            } => {
                let masks: Vec<String> = masks.iter().map(|m| rust_string(m)).collect();
                match styled {
                    // The text and its styles, masks keeping their length.
                    Some(styled) => format!(
                        "    let screen = s.snapshot().masked_all(&[{}])?.styled();\n    assert_eq!(screen.trim_end(), {});",
                        masks.join(", "),
                        rust_string(styled.trim_end())
                    ),
                    None if row_masks.is_empty() => format!(
                        "    let screen = s.snapshot().masked_text(&[{}])?;\n    assert_eq!(screen.trim_end(), {});",
                        masks.join(", "),
                        rust_string(text.trim_end())
                    ),
                    // Rows that drifted whole, masked as `Mask+Rows` masks them.
                    None => format!(
                        "    let screen = tuipilot::tape::snapshots::mask_whole_rows(&s.snapshot().masked_text(&[{}])?, &{row_masks:?});\n    assert_eq!(screen.trim_end(), {});",
                        masks.join(", "),
                        rust_string(text.trim_end())
                    ),
                }
            }
        };
        body.push(line);
    }
    body.push("    s.exit()?;".into());
    body.push("    Ok(())".into());
    let body = body.join("\n");
    // Only what the test uses: an unused import is a warning in the user's build. (Told
    // from the steps, not the text, which holds the session's strings.)
    let uses_duration = all.iter().any(|step| {
        matches!(
            step,
            Step2::Sleep(_) | Step2::Wait(WaitFor::StableMs(_), _) | Step2::Wait(_, Some(_))
        )
    });
    let uses_condition = all.iter().any(|step| matches!(step, Step2::Wait(..)));
    let duration = if uses_duration {
        "use std::time::Duration;\n\n"
    } else {
        ""
    };
    let library = if uses_condition {
        "use tuipilot::{Condition, Session};"
    } else {
        "use tuipilot::Session;"
    };
    let world = match (&options.world, options.in_place) {
        (Some((map, _)), false) => format!(
            "{}\n",
            rust_comment(
                "",
                &format!(
                    "The session's world, as it was when it started ({}), is {}/: keep it beside this file.",
                    map.summary,
                    super::world_name(test_name, options)
                )
            )
        ),
        _ => String::new(),
    };
    Ok(format!(
        "{}\n// {}\n{world}{duration}{library}\n\n#[test]\nfn {test_name}() -> tuipilot::Result<()> {{\n{body}\n}}\n",
        rust_comment(
            "",
            &format!(
                "Exported from a tuipilot session: {}",
                super::shown_command(start)
            )
        ),
        hermetic_note(options),
    ))
}
