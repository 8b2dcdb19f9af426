//! A session's operation log turned back into something that replays it: a tape (with
//! the final screen as a snapshot) or a Rust `#[test]`. One walk over the log makes a
//! list of steps; the tape and the Rust writers only spell them.
//!
//! The translation: the start spec becomes a `Start` line — the program by its argument
//! vector, never a command line typed into a shell, where a line editor would act on an
//! argument's control characters and the shell on its syntax — after `Set Columns`/`Set
//! Rows` for its size, `Env` for its variables and `With` for the files a hermetic replay
//! starts with; every byte of its words is kept (`\xHH` where they are not UTF-8), sends become `Type`/`Key`/`Paste` lines in order, waits
//! become `Wait` lines with the same patterns and timeouts, a pause stays a `Sleep` only
//! where no wait followed it, each capture becomes `Expect` lines for the rows that
//! changed since the capture before (what the agent saw appear), and the last capture
//! becomes a `Snapshot` of the whole screen with `Mask` lines for what is obviously
//! volatile (clock times, dates, temporary paths, pids). Failed operations are left out,
//! with a comment.
//!
//! An export holds no secret unless asked to ([`ExportOptions`]): the program's
//! environment is written by name only (`Env NAME`, which the runner fills from its own
//! environment; `std::env::var` in a test), secret input (a send marked secret, or every
//! send of a session whose input is secret) is a placeholder the user fills in, and
//! `redact` patterns replace whatever else they match with `<redacted>`.

mod rust;
#[cfg(test)]
mod tests;
mod verify;
mod volatile;
mod walk;

pub use rust::{rust_string, test_name, to_rust};
pub use verify::verify;
use walk::{Step2, steps};
pub use walk::{VOLATILE, row_pattern, row_pattern_in};

use super::quote::{self, needs_escape, tape_bytes, tape_comment, tape_os_word, tape_regex, tape_string};

use crate::operation::{LoggedOperation, Operation, StartSpec, Step, WaitFor};

/// What an export may hold besides the operations.
#[derive(Clone, Debug, Default)]
pub struct ExportOptions {
    /// Write the values of the program's environment (`--env`), not only the names.
    pub include_env: bool,
    /// Text matching any of these — in typed and pasted text, the command line, the
    /// environment's values, the screens, the wait patterns — is written as `<redacted>`.
    pub redact: Vec<regex::Regex>,
    /// Replay where the session ran, in its folder and with the user's HOME. By default
    /// an export is hermetic: it replays in a fresh HOME of its own, removed after, as its
    /// working folder — so it meets none of the files the session left (a file vim saved
    /// is `[New]` again) — with only the files in [`with`](Self::with) copied in.
    pub in_place: bool,
    /// Files or folders the replay starts with, copied into its fresh HOME (absolute
    /// paths; the files the program was started on, as the session had them).
    pub with: Vec<std::path::PathBuf>,
    /// The session's world ([`World`](crate::files::World)) — its map, and where its copy
    /// is — carried beside the export as `NAME.world/`: the replay starts inside the copy
    /// of the session's folder, with the command's absolute paths into the world made
    /// relative to it. Not with [`in_place`](Self::in_place).
    pub world: Option<(crate::files::WorldMap, std::path::PathBuf)>,
    /// The session's screen when the export is made, with no input since its last
    /// operation: cells that changed since the last screen the log kept (a clock, a meter)
    /// drifted, and are masked rather than asserted.
    pub screen_now: Option<String>,
    /// The name of the world's folder beside the export (default: `NAME.world`): a Rust
    /// test written beside its tape names the tape's, so one copy serves both.
    pub world_name: Option<String>,
    /// Regexes of text not to assert (`export --mask`): what the session showed but a
    /// replay shows otherwise — text chosen afresh on every run that held still while
    /// the session watched. Every row the export asserts matches anything where one
    /// matched, and every snapshot masks them, as a capture's own masks do.
    pub masks: Vec<String>,
}

impl ExportOptions {
    /// Options from a face's arguments: whether to write the environment's values, and
    /// the patterns to redact (an error names a pattern that is not a regex).
    pub fn new(include_env: bool, redact: &[String]) -> crate::Result<ExportOptions> {
        let redact = redact
            .iter()
            .map(|pattern| crate::snapshot::compile(pattern))
            .collect::<crate::Result<_>>()?;
        Ok(ExportOptions {
            include_env,
            redact,
            ..ExportOptions::default()
        })
    }

    /// Adds `masks` to [`masks`](Self::masks), each checked as every face checks a
    /// pattern (an error names one that is not a regex, or too large).
    pub fn mask(mut self, masks: &[String]) -> crate::Result<ExportOptions> {
        for mask in masks {
            crate::snapshot::compile(mask)?;
            self.masks.push(mask.clone());
        }
        Ok(self)
    }

    /// `text` with every match of [`redact`](Self::redact) replaced.
    fn clean(&self, text: &str) -> String {
        self.redact.iter().fold(text.to_string(), |text, re| {
            re.replace_all(&text, "<redacted>").into_owned()
        })
    }

    /// `bytes` with every match replaced, whether or not they are UTF-8 (the same patterns
    /// over bytes: a secret inside input that is not text is found too).
    fn clean_bytes(&self, bytes: &[u8]) -> Vec<u8> {
        self.redact.iter().fold(bytes.to_vec(), |bytes, re| {
            match regex::bytes::Regex::new(re.as_str()) {
                Ok(re) => re.replace_all(&bytes, &b"<redacted>"[..]).into_owned(),
                Err(_) => bytes,
            }
        })
    }

    /// A word of the start (an argument, the folder, an environment value), cleaned.
    fn clean_word(&self, word: &std::ffi::OsStr) -> std::ffi::OsString {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        std::ffi::OsString::from_vec(self.clean_bytes(word.as_bytes()))
    }

    /// `start` and `log` with every match of [`redact`](Self::redact) replaced — in every
    /// text an export writes: the command line, the folder, the environment, what was typed,
    /// pasted or sent as bytes, the screens, the wait patterns, and the failed operations'
    /// error messages and the other notes that become comments.
    fn redacted(&self, start: &StartSpec, log: &[LoggedOperation]) -> (StartSpec, Vec<LoggedOperation>) {
        let clean = |text: &str| self.clean(text);
        let mut start = start.clone();
        start.command = start.command.iter().map(|w| self.clean_word(w)).collect();
        start.env = start
            .env
            .iter()
            .map(|(k, v)| (self.clean_word(k), self.clean_word(v)))
            .collect();
        start.cwd = start.cwd.as_ref().map(|d| self.clean_word(d.as_os_str()).into());
        let log = log
            .iter()
            .map(|entry| {
                let mut entry = entry.clone();
                // A pattern that names a redacted text would carry it: redacted too (the
                // replay then fails there, and says so, rather than leak it).
                let wait = match &mut entry.operation {
                    Operation::Send { wait, .. } | Operation::Capture { wait, .. } => wait.as_mut(),
                    Operation::Wait { condition, .. } => Some(condition),
                    _ => None,
                };
                if let Some(
                    WaitFor::Text(re)
                    | WaitFor::TextIn { pattern: re, .. }
                    | WaitFor::NoText(re)
                    | WaitFor::Line(re)
                    | WaitFor::Wrapped(re)
                    | WaitFor::Output(re)
                    | WaitFor::Title(re)
                    | WaitFor::Cwd(re),
                ) = wait
                {
                    *re = clean(re);
                }
                if let Operation::Send { steps, .. } = &mut entry.operation {
                    for step in steps {
                        match step {
                            Step::Text(text)
                            | Step::Paste(text)
                            | Step::Type { text, .. }
                            | Step::TextPerKey(text) => *text = clean(text),
                            Step::Bytes(bytes) => *bytes = self.clean_bytes(bytes),
                            _ => {}
                        }
                    }
                }
                entry.screen = entry.screen.as_deref().map(clean);
                entry.error = entry.error.as_deref().map(clean);
                entry.waited = entry.waited.as_deref().map(clean);
                entry.source = entry.source.as_deref().map(clean);
                entry
            })
            .collect();
        (start, log)
    }
}

/// An exported tape and the snapshot its last line compares with.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedTape {
    /// The tape's text.
    pub tape: String,
    /// The snapshot's file name (next to the tape) and contents, if the session had a
    /// capture.
    pub snapshot: Option<(String, String)>,
    /// Snapshots a person asked for before the last screen (`tuipilot record`'s
    /// snapshot key), in order: `NAME-1.snap`, `NAME-2.snap`, … and their contents.
    pub earlier_snapshots: Vec<(String, String)>,
}

/// Writes the world an export carries ([`ExportOptions::world`]) into `folder` as
/// `NAME.world/`, replacing one an earlier export of the name left there; returns the
/// path written, or `None` when the export carries none.
pub fn write_world(
    options: &ExportOptions,
    name: &str,
    folder: &std::path::Path,
) -> crate::Result<Option<std::path::PathBuf>> {
    let Some((_, root)) = options.world.as_ref().filter(|_| !options.in_place) else {
        return Ok(None);
    };
    let to = folder.join(world_name(name, options));
    match std::fs::symlink_metadata(&to) {
        // Ours to replace only when it is a real folder (not a link planted at the name).
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(&to)
            .map_err(|e| crate::Error::io(format!("replacing {}", to.display()), e))?,
        Ok(_) => {
            return Err(crate::Error::RefusedPath {
                path: to,
                why: "it is not a folder: the world an export carries is written there".into(),
            });
        }
        Err(_) => {}
    }
    crate::files::copy_tree(root, &to)?;
    Ok(Some(to))
}

/// Masks for where a replay of `name` runs: inside the copy of the world, the session's
/// folder shows as the copy's place (a shell's prompt: `~/NAME.world` where the session
/// showed `/home/me/project`): each masked to the end of its word and the fill after it,
/// so the session's screen and the replay's read the same.
fn place_masks(name: &str, options: &ExportOptions) -> Vec<String> {
    match (&options.world, options.in_place) {
        (Some((map, _)), false) => {
            // A path to the copy, from `~` or `/` (not the `user@host:` before it).
            let copy = volatile::with_fill(&format!(
                r"~?[^\s:~]*/{}\S*",
                regex::escape(&world_name(name, options))
            ));
            std::iter::once(copy).chain(session_places(map)).collect()
        }
        _ => Vec::new(),
    }
}

/// Masks for the session's folder as its screens show it — absolute, or from `~` (a
/// prompt's `~/project`) — to the end of its word and the fill after it.
fn session_places(map: &crate::files::WorldMap) -> Vec<String> {
    map.cwd_spellings()
        .iter()
        .map(|cwd| volatile::with_fill(&format!(r"{}\S*", regex::escape(cwd))))
        .collect()
}

/// The folder beside an export named `name` that carries the session's world.
pub fn world_folder(name: &str) -> String {
    format!("{name}.world")
}

/// The world's folder an export named `name` writes and names: the one `options` names,
/// else [`world_folder`].
fn world_name(name: &str, options: &ExportOptions) -> String {
    options.world_name.clone().unwrap_or_else(|| world_folder(name))
}

/// Where a hermetic replay with the world `map` in the folder `world` starts, inside its
/// fresh HOME.
fn world_cwd(world: &str, map: &crate::files::WorldMap) -> std::path::PathBuf {
    map.cwd_under(std::path::Path::new(world))
}

/// `start` as a replay inside the world's copy runs it: every word of the command that is
/// an absolute path into the world made relative to the working folder.
fn replayed_start(start: &StartSpec, options: &ExportOptions) -> StartSpec {
    let mut start = start.clone();
    if let (Some((map, _)), false) = (&options.world, options.in_place) {
        start.command = start.command.iter().map(|w| map.replayed_word(w)).collect();
    }
    start
}

/// The tape's lines that start the program as the session did: by its argument vector
/// (`Start`), never as a command line typed into a shell, where a line editor would act on
/// its control characters and the shell on its syntax. A hermetic export starts it in the
/// fresh HOME with the named files copied in (`With`) — inside the copy of the session's
/// world (`With "NAME.world"`, `Start+Dir "NAME.world"`) when it carries
/// one; an in-place one in its folder (`Start+Dir`).
fn start_lines(start: &StartSpec, name: &str, options: &ExportOptions) -> Vec<String> {
    let words: Vec<String> = start.command.iter().map(|w| tape_os_word(w)).collect();
    let mut lines = Vec::new();
    if !options.in_place {
        lines.extend(
            options
                .with
                .iter()
                .map(|file| format!("With {}", tape_os_word(file.as_os_str()))),
        );
        match &options.world {
            Some((map, _)) => {
                let world = world_name(name, options);
                lines.push(tape_comment(&format!(
                    "The session's world, as it was when it started ({}), is {world}/ beside this tape.",
                    map.summary,
                )));
                lines.push(format!("With {}", tape_string(&world)));
                lines.push(format!(
                    "Start+Dir {} {}",
                    tape_os_word(world_cwd(&world, map).as_os_str()),
                    words.join(" ")
                ));
            }
            None => lines.push(format!("Start {}", words.join(" "))),
        }
        return lines;
    }
    match &start.cwd {
        Some(dir) => lines.push(format!(
            "Start+Dir {} {}",
            tape_os_word(dir.as_os_str()),
            words.join(" ")
        )),
        None => lines.push(format!("Start {}", words.join(" "))),
    }
    lines
}

/// The program and its arguments, one line for a comment or a message.
fn shown_command(start: &StartSpec) -> String {
    start
        .command
        .iter()
        .map(|w| crate::operation::shown_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What an export's opening comment says of where it replays.
fn hermetic_note(options: &ExportOptions) -> &'static str {
    if options.in_place {
        "Replays where the session ran (export --in-place): what the session left there is still there."
    } else {
        "Hermetic: replays in a fresh HOME of its own, removed after — inside the copy of the session's world when it carries one — so it meets none of the files the session left (export --with FILE copies a file in; --in-place replays where the session ran)."
    }
}

/// A key list as a `Key` line's names: each key as its canonical name, a character the
/// lexer reads otherwise (`#`, a quote, `/`, `{`, a space-like or invisible character) as a
/// string, and a comma by its name (a comma separates names in a list).
fn key_names(spec: &str) -> crate::Result<Vec<String>> {
    let keys = crate::keys::parse_key_list(spec)?;
    Ok(keys
        .iter()
        .map(|key| {
            let name = key.to_string();
            let crate::keys::KeyCode::Char(c) = key.code else {
                return name;
            };
            let prefix = &name[..name.len() - c.len_utf8()];
            if c == ',' {
                format!("{prefix}comma")
            } else if c.is_whitespace() || needs_escape(c) || "#\"'`/{$".contains(c) {
                format!("{prefix}{}", tape_string(&c.to_string()))
            } else {
                name
            }
        })
        .collect())
}

fn at_timeout(timeout: Option<u64>) -> String {
    timeout.map_or(String::new(), |ms| format!("@{ms}ms"))
}

/// Refuses a log the export cannot write faithfully: a program size out of range, an
/// environment name no environment can hold, and — in an operation that succeeded — a
/// key list, mouse action, regex, size or duration that the operation's own check
/// refuses. A live session's log always passes; a recording given to `export --from` is
/// text from outside, and an edited one is refused here rather than written.
fn check_writable(start: &StartSpec, log: &[LoggedOperation]) -> crate::Result<()> {
    let refuse = |message: String| crate::Error::InvalidArgument {
        message: {
            let mut one_line = String::new();
            quote::shown(&message, &mut one_line);
            one_line
        },
    };
    if start.command.is_empty() {
        return Err(refuse(
            "the session names no program to start: was the recording edited?".into(),
        ));
    }
    crate::terminal::check_size(start.cols, start.rows).map_err(|e| {
        refuse(format!(
            "the session's size cannot be replayed ({e}): was the recording edited?"
        ))
    })?;
    let nul = |word: &std::ffi::OsStr| word.as_encoded_bytes().contains(&0);
    for (name, value) in &start.env {
        if name.is_empty() || name.as_encoded_bytes().contains(&b'=') || nul(name) || nul(value) {
            return Err(refuse(format!(
                "the session's environment names {}, which no environment can hold: was the recording edited?",
                crate::operation::shown_word(name)
            )));
        }
    }
    if start.command.iter().any(|w| nul(w)) || start.cwd.as_ref().is_some_and(|d| nul(d.as_os_str())) {
        return Err(refuse(
            "the session's command line or folder holds a NUL byte, which no program can be given: was the recording edited?".into(),
        ));
    }
    for (index, entry) in log.iter().enumerate() {
        if entry.error.is_some() {
            continue;
        }
        // Pictures are not replayed, and checking one would load fonts.
        let mut operation = entry.operation.clone();
        if let Operation::Capture { png, svg, .. } = &mut operation {
            (*png, *svg) = (None, None);
        }
        operation.check().map_err(|e| {
            refuse(format!(
                "operation {} of the log ({}) cannot be exported: {e}; was the recording edited?",
                index + 1,
                entry.operation.label()
            ))
        })?;
    }
    Ok(())
}

/// The log as a tape; `name` names the snapshot (`NAME.snap` next to the tape).
///
/// Every text is written so that the tape reads back as exactly the operations logged:
/// strings, words, regexes and comments through one writer (`tape::quote`). A log that
/// cannot be written that way is refused with an error naming the operation.
pub fn to_tape(
    start: &StartSpec,
    log: &[LoggedOperation],
    name: &str,
    options: &ExportOptions,
) -> crate::Result<ExportedTape> {
    check_writable(start, log)?;
    let (start, log) = options.redacted(start, log);
    let start = replayed_start(&start, options);
    let (start, log) = (&start, &log[..]);
    let mut lines = vec![
        tape_comment(&format!(
            "Exported from a tuipilot session: {}",
            shown_command(start)
        )),
        "# Replay it with `tuipilot run`; the last screen is compared with the snapshot.".into(),
        format!("# {}", hermetic_note(options)),
        "Set TypingSpeed 0".into(),
    ];
    // A setting, so before the first action.
    if !options.in_place {
        lines.push("Set Isolated true".into());
    }
    if let Some(ms) = start.reaction_bound_ms {
        lines.push(format!("Set ReactionBound {ms}ms"));
    }
    // The program starts at the session's size, as it did there.
    lines.push(format!("Set Columns {}", start.cols));
    lines.push(format!("Set Rows {}", start.rows));
    // A line either way, so that a tape with the values (`verify`'s) numbers its lines as
    // the one without.
    if !start.env.is_empty() {
        lines.push(match options.include_env {
            false => "# The environment is passed on by name: set these where the tape runs (`export --include-env` writes the values).".into(),
            true => "# The environment's values, as the session had them (export --include-env).".into(),
        });
    }
    for (key, value) in &start.env {
        if options.include_env {
            lines.push(format!("Env {} {}", tape_os_word(key), tape_os_word(value)));
        } else {
            lines.push(format!("Env {}", tape_os_word(key)));
        }
    }
    lines.extend(start_lines(start, name, options));
    let mut snapshot = None;
    let mut earlier_snapshots = Vec::new();
    let steps = steps(
        start,
        log,
        options.screen_now.as_deref(),
        &place_masks(name, options),
        &options.masks,
    );
    let snapshots = steps.iter().filter(|s| matches!(s, Step2::Final { .. })).count();
    let (mut written_masks, mut written_rows): (Vec<String>, Vec<(u16, u16)>) = Default::default();
    for step in steps {
        match step {
            Step2::Comment(text) => lines.push(tape_comment(&text)),
            Step2::Secret { placeholder, paste } => {
                lines.push(
                    "# Secret input was left out here: put it in place of the placeholder below.".into(),
                );
                if paste {
                    lines.push(format!("Copy {}", tape_string(&placeholder)));
                    lines.push("Paste".into());
                } else {
                    lines.push(format!("Type {}", tape_string(&placeholder)));
                }
            }
            Step2::Type(text) => lines.push(format!("Type {}", tape_string(&text))),
            Step2::Bytes(bytes) => lines.push(format!("Bytes {}", tape_bytes(&bytes))),
            Step2::Keys(keys) => lines.push(format!("Key {}", key_names(&keys)?.join(" "))),
            Step2::TypePerKey(text) => lines.push(format!("Type+PerKey {}", tape_string(&text))),
            Step2::KeysPerKey(keys) => lines.push(format!("Key+PerKey {}", key_names(&keys)?.join(" "))),
            Step2::Paste(text) => {
                lines.push(format!("Copy {}", tape_string(&text)));
                lines.push("Paste".into());
            }
            Step2::Mouse(action) => lines.push(format!("Mouse {}", tape_string(&action))),
            Step2::Focus(focus) => lines.push(format!("Focus {focus}")),
            Step2::Sleep(ms) => lines.push(format!("Sleep {ms}ms")),
            Step2::Wait(condition, timeout) => {
                let at = at_timeout(timeout);
                lines.push(match condition {
                    WaitFor::Text(re) => format!("Wait+Screen{at} {}", tape_regex(&re)),
                    WaitFor::Line(re) => format!("Wait+Line{at} {}", tape_regex(&re)),
                    WaitFor::TextIn { pattern, rows, cols } => {
                        let span = |(a, b): (u16, u16)| format!("{a}-{b}");
                        let region = match (rows, cols) {
                            (Some(r), Some(c)) => format!("Rect{at} {} {}", span(r), span(c)),
                            (Some(r), None) => format!("Rows{at} {}", span(r)),
                            (None, Some(c)) => format!("Cols{at} {}", span(c)),
                            (None, None) => format!("Screen{at}"),
                        };
                        format!("Expect+{region} {}", tape_regex(&pattern))
                    }
                    WaitFor::Wrapped(re) => format!("Wait+Wrapped{at} {}", tape_regex(&re)),
                    WaitFor::NoText(re) => format!("ExpectNot{at} {}", tape_regex(&re)),
                    WaitFor::Output(re) => format!("Wait+Output{at} {}", tape_regex(&re)),
                    WaitFor::StableMs(ms) => format!("Wait+Stable{at} {ms}ms"),
                    WaitFor::Exit => format!("Wait+Exit{at}"),
                    WaitFor::Command => format!("Wait+Command{at}"),
                    WaitFor::Bell => format!("Wait+Bell{at}"),
                    WaitFor::Title(re) => format!("Wait+Title{at} {}", tape_regex(&re)),
                    WaitFor::Cwd(re) => format!("Wait+Cwd{at} {}", tape_regex(&re)),
                    WaitFor::Ready | WaitFor::Settle => format!("Wait+Ready{at}"),
                    WaitFor::Prompt => format!("Wait+Prompt{at}"),
                });
            }
            Step2::Expect(re) => lines.push(format!("Expect {}", tape_regex(&re))),
            Step2::Resize(c, r) => lines.push(format!("Resize {c} {r}")),
            Step2::Final {
                masks,
                row_masks,
                text,
                styled,
            } => {
                // Each mask once: written, it holds for the snapshots after it too.
                for mask in masks {
                    if !written_masks.contains(&mask) {
                        lines.push(format!("Mask {}", tape_regex(&mask)));
                        written_masks.push(mask);
                    }
                }
                // Rows masked whole apply to the text snapshot (a styled one keeps them).
                if styled.is_none() {
                    for (first, last) in row_masks {
                        if !written_rows.contains(&(first, last)) {
                            lines.push(format!("Mask+Rows {first}-{last}"));
                            written_rows.push((first, last));
                        }
                    }
                }
                // The last screen is NAME; screens a person asked for before it NAME-1, ….
                let file = match earlier_snapshots.len() + 1 == snapshots {
                    true => name.to_string(),
                    false => format!("{name}-{}", earlier_snapshots.len() + 1),
                };
                let (command, golden) = match styled {
                    Some(styled) => ("Snapshot+Styled", styled.trim_end().to_string()),
                    None => ("Snapshot", text),
                };
                lines.push(format!("{command} {}", quote::tape_word(&file)));
                let written = (format!("{file}.snap"), format!("{golden}\n"));
                match earlier_snapshots.len() + 1 == snapshots {
                    true => snapshot = Some(written),
                    false => earlier_snapshots.push(written),
                }
            }
        }
    }
    Ok(ExportedTape {
        tape: lines.join("\n") + "\n",
        snapshot,
        earlier_snapshots,
    })
}

/// How a recorded session was started and its operations, read back from the events a
/// session's recording carries ([`START_EVENT`](crate::record::START_EVENT),
/// [`OPERATION_EVENT`](crate::record::OPERATION_EVENT)): what [`to_tape`] and [`to_rust`]
/// take, after the session has ended. The environment comes back by name only.
pub fn from_recording(
    recording: &crate::record::Recording,
) -> crate::Result<(StartSpec, Vec<LoggedOperation>)> {
    use crate::record::{EventKind, OPERATION_EVENT, START_EVENT};
    let unreadable = |what: &str, e: serde_json::Error| crate::Error::InvalidArgument {
        message: format!("the recording's {what} cannot be read ({e}); was it edited?"),
    };
    let mut start: Option<StartSpec> = None;
    let mut log = Vec::new();
    for event in &recording.events {
        let EventKind::Other(code, data) = &event.kind else {
            continue;
        };
        if code == START_EVENT {
            // The words as the session had them, every byte; the environment by name.
            start = Some(StartSpec::from_recorded(data).map_err(|e| unreadable("start", e))?);
        } else if code == OPERATION_EVENT {
            log.push(serde_json::from_str(data).map_err(|e| unreadable("operations", e))?);
        }
    }
    let start = start.ok_or_else(|| crate::Error::InvalidArgument {
        message: "the recording says nothing of how its program was started: only a recording made by a tuipilot session (start --record, SessionBuilder::record) can be exported".into(),
    })?;
    Ok((start, log))
}
