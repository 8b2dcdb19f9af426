//! The walk: a session's operation log as the steps a replay takes, which the tape and the
//! Rust writers only spell. What the walk decides: where the replay waits (a logged wait,
//! the program found ready before the next input, rows that appeared after the last
//! wait), what a capture asserts (the rows it shows new, or the whole screen as a
//! snapshot with volatile parts masked), and how raw bytes read as keys.

use crate::operation::{AfterInput, LoggedOperation, Operation, StartSpec, Step, WaitFor};

/// Patterns for what changes from run to run, and what they are.
pub const VOLATILE: &[(&str, &str)] = &[
    (r"\d{4}-\d{2}-\d{2}", "a date"),
    (r"\b\d{1,2}:\d{2}(:\d{2})?\b", "a clock time"),
    (r"/tmp/[^\s'\x22]+", "a temporary path"),
    (r"(?i)\bpid[ :=]*\d+", "a process id"),
    (r"(?i)load averages?:?(?: *\d+[.,]\d+,?){1,3}", "a load average"),
];

/// [`VOLATILE`]'s patterns, compiled once.
fn volatile() -> &'static [regex::Regex] {
    static COMPILED: std::sync::OnceLock<Vec<regex::Regex>> = std::sync::OnceLock::new();
    COMPILED.get_or_init(|| {
        VOLATILE
            .iter()
            .filter_map(|(p, _)| regex::Regex::new(p).ok())
            .collect()
    })
}

/// A regex of the text a capture's mask put in its screen
/// ([`MASK_PLACEHOLDER`](crate::snapshot::MASK_PLACEHOLDER)).
fn placeholder() -> Option<regex::Regex> {
    regex::Regex::new(&regex::escape(crate::snapshot::MASK_PLACEHOLDER)).ok()
}

/// The most `Expect` rows one capture gives.
const EXPECTS_PER_CAPTURE: usize = 3;

/// One thing the replay does.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Step2 {
    Comment(String),
    Type(String),
    /// Secret input left out: its placeholder (`<secret input, N characters>`), and whether
    /// it was pasted.
    Secret {
        placeholder: String,
        paste: bool,
    },
    Keys(String),
    /// Text typed, and keys pressed, one at a time, each once the program read the last.
    TypePerKey(String),
    KeysPerKey(String),
    /// Input that is not UTF-8 text, sent as the bytes it was.
    Bytes(Vec<u8>),
    Paste(String),
    Mouse(String),
    Focus(crate::keys::Focus),
    Sleep(u64),
    Wait(WaitFor, Option<u64>),
    Expect(String),
    Resize(u16, u16),
    /// A snapshot: the masks that apply to it (an earlier snapshot's too, as a tape's
    /// masks hold from where they are written on) and the text they leave.
    Final {
        masks: Vec<String>,
        /// Rows masked whole (`Mask+Rows`): they drifted with little steady in them.
        row_masks: Vec<(u16, u16)>,
        text: String,
        /// The screen with its styles ([`styled_from_ansi`](crate::tape::snapshots::styled_from_ansi)),
        /// when the capture was a colour one (`capture --ansi`): a styled snapshot.
        styled: Option<String>,
    },
}
/// A regex matching `row` exactly, its volatile parts ([`VOLATILE`]: clock times, dates,
/// temporary paths, pids) matching anything: what an export expects of a row it saw.
pub fn row_pattern(row: &str) -> String {
    row_pattern_with(row, Vec::new(), &[])
}

/// [`row_pattern`] of a row a session whose world is `world` showed: its working folder,
/// absolute or from `~` (a prompt's `~/project`), matches anything too — a replay runs
/// inside the world's copy, and shows the copy's place there.
pub fn row_pattern_in(row: &str, world: Option<&crate::files::WorldMap>) -> String {
    let places: Vec<regex::Regex> = world
        .map(super::session_places)
        .unwrap_or_default()
        .iter()
        .filter_map(|place| regex::Regex::new(place).ok())
        .collect();
    row_pattern_with(row, Vec::new(), &places)
}

/// [`row_pattern`], with the byte ranges `drifted` of `row` (cells that drifted while no
/// input was sent) and the matches of `places` (where the replay runs) matching anything
/// too. A volatile text and a place take the fill after them (spaces, a header's `─`):
/// a path of another length moves it.
pub(super) fn row_pattern_with(row: &str, drifted: Vec<(usize, usize)>, places: &[regex::Regex]) -> String {
    // Each range with what stands for it: a volatile text is there (`.+`), a drifted
    // cell may have become anything, or nothing at the row's end (`.*`).
    let mut spans: Vec<(usize, usize, &str)> = drifted.into_iter().map(|(a, b)| (a, b, ".*")).collect();
    for re in volatile().iter().chain(places) {
        spans.extend(re.find_iter(row).filter(|m| !m.is_empty()).map(|m| {
            let fill = row[m.end()..]
                .find(|c| !super::volatile::TRAILING_FILL.contains(c))
                .unwrap_or(row.len() - m.end());
            (m.start(), m.end() + fill, ".+")
        }));
    }
    spans.sort_unstable();
    let mut out = String::from("^");
    let mut at = 0;
    for (start, end, any) in spans {
        if end <= at {
            continue;
        }
        if start >= at {
            out.push_str(&regex::escape(&row[at..start]));
            out.push_str(any);
        }
        at = end;
    }
    out.push_str(&regex::escape(&row[at..]));
    out.push('$');
    out
}

/// The rows of `now` that differ from `before` and hold something that is the session's
/// (not a process of this machine: [`shows_process`](super::volatile::shows_process)),
/// first few, each with its index.
fn new_rows(before: &str, now: &str) -> Vec<(usize, String)> {
    let old: Vec<&str> = before.split('\n').collect();
    now.split('\n')
        .enumerate()
        .filter(|(i, row)| !row.trim().is_empty() && old.get(*i) != Some(row))
        .filter(|(_, row)| !super::volatile::shows_process(row))
        .map(|(i, row)| (i, row.to_string()))
        .take(EXPECTS_PER_CAPTURE)
        .collect()
}

/// The screen text as the runner's masked capture would give it: drawn on a terminal
/// of the same size and masked by the one masking code.
fn masked_screen(text: &str, cols: u16, rows: u16, masks: &[String]) -> String {
    let Some(snapshot) = crate::tape::snapshots::redrawn(text, cols, rows) else {
        return text.to_string();
    };
    let regexes: Vec<regex::Regex> = masks.iter().filter_map(|m| regex::Regex::new(m).ok()).collect();
    crate::snapshot::mask_rows(&snapshot.text(), &regexes)
}

/// The walk: the log as steps. `now`: the screen when the export was made, with no input
/// since the log's last operation (what changed since is volatile too); `place_masks`:
/// masks for where the replay runs (the session's folder, shown elsewhere in a replay
/// inside a copy of its world), used in a snapshot whose screen they match; `masks`: what
/// the export was asked not to assert (`export --mask`), as every capture's own masks.
pub(super) fn steps(
    start: &StartSpec,
    log: &[LoggedOperation],
    now: Option<&str>,
    place_masks: &[String],
    masks: &[String],
) -> Vec<Step2> {
    let drifted = super::volatile::drifted_cells(start, log, now);
    // Where the replay runs matches anything in the rows it asserts, as in its snapshot.
    // And so does what the export was asked not to assert.
    let places: Vec<regex::Regex> = place_masks
        .iter()
        .chain(masks)
        .filter_map(|m| regex::Regex::new(m).ok())
        .collect();
    let loose = Loose {
        drifted: &drifted,
        places: &places,
    };
    let mut out = Vec::new();
    // The masks and whole-row masks of the snapshots so far.
    let mut applied: (Vec<String>, Vec<(u16, u16)>) = Default::default();
    let (mut cols, mut rows) = (start.cols, start.rows);
    let mut seen = String::new();
    // The screen the last operation that returned one ended on (a wait's, a capture's).
    let mut last_screen: Option<String> = None;
    // Whether the last send was a person's (a comment marks where a person's input starts).
    let mut person_typing = false;
    let last_capture = log.iter().rposition(|e| {
        e.error.is_none() && matches!(e.operation, Operation::Capture { .. }) && e.screen.is_some()
    });
    // A ready wait that failed before the first input: the session went on without the
    // program ready (watch, a clock, screen's front end), and so does the replay.
    let first_send = log
        .iter()
        .position(|e| matches!(e.operation, Operation::Send { .. }))
        .unwrap_or(log.len());
    let unready_at_start = log[..first_send]
        .iter()
        .any(|e| e.error.is_some() && is_ready_wait(&e.operation));
    for (index, entry) in log.iter().enumerate() {
        if let Some(error) = &entry.error {
            // A send whose input reached the program before it failed is replayed: the
            // program read it. Its wait is not (below).
            let input_reached =
                entry.failed_after_input.is_some() && matches!(entry.operation, Operation::Send { .. });
            if !input_reached {
                let at_start = is_ready_wait(&entry.operation) && index < first_send;
                out.push(Step2::Comment(if at_start {
                    format!(
                        "the program was not found ready at its start ({error}): the session went on from the screen it showed, and so does the replay"
                    )
                } else {
                    format!("left out, it failed: {} ({error})", entry.operation.label())
                }));
                // What the session saw when it went on: waited for, before any input.
                if let (true, Some(screen)) = (at_start, &entry.screen) {
                    out.extend(catching_up(last_screen.as_deref().unwrap_or(""), screen, &loose));
                    last_screen = Some(screen.clone());
                }
                continue;
            }
        }
        if entry.cut_bytes > 0 {
            out.push(Step2::Comment(format!(
                "the session's log kept only the start of a long input here ({} bytes left out): the replay sends only that start",
                entry.cut_bytes
            )));
        }
        let next = log.get(index + 1);
        let next_waits = next.is_some_and(|n| {
            matches!(n.operation, Operation::Wait { .. })
                || matches!(&n.operation, Operation::Capture { wait: Some(_), .. })
        });
        // A person typing text waits for nothing between characters; after a key that is
        // not text (Enter, an arrow, Esc) the replay waits where the person saw the
        // program ready before going on.
        let typing_on = entry.by_person && types_only_text(&entry.operation);
        let ready_follows = !next_waits
            && !typing_on
            && next.is_some_and(|n| n.error.is_none() && n.ready_before == Some(true));
        let next_waits = next_waits || ready_follows;
        match &entry.operation {
            Operation::Info => {}
            Operation::Exit { .. } => out.push(Step2::Comment("the session was ended here".into())),
            Operation::Resize { cols: c, rows: r } => {
                (cols, rows) = (*c, *r);
                out.push(Step2::Resize(*c, *r));
            }
            Operation::Send {
                wait,
                timeout_ms,
                secret,
                ..
            } => {
                // A session whose input was all secret logged its sends redacted already;
                // this catches a log made by hand too.
                let kept = entry
                    .operation
                    .redacted(*secret || start.secret_input || start.record_no_input);
                let Operation::Send { steps, .. } = kept.as_ref() else {
                    continue;
                };
                let secret = kept.is_secret();
                if entry.by_person && !person_typing {
                    out.push(Step2::Comment("typed by a person:".into()));
                }
                person_typing = entry.by_person;
                for step in steps {
                    if let (Step::Bytes(bytes), false) = (step, secret) {
                        out.extend(typed_bytes(bytes));
                        continue;
                    }
                    out.push(match step {
                        Step::Text(text)
                        | Step::Paste(text)
                        | Step::Type { text, .. }
                        | Step::TextPerKey(text)
                            if secret =>
                        {
                            Step2::Secret {
                                placeholder: text.clone(),
                                paste: matches!(step, Step::Paste(_)),
                            }
                        }
                        // The export replays at full speed (`Set TypingSpeed 0`): typing's
                        // pauses were for the program's sake, and its waits follow.
                        Step::Text(text) | Step::Type { text, .. } => Step2::Type(text.clone()),
                        Step::Keys(keys) => Step2::Keys(keys.clone()),
                        Step::TextPerKey(text) => Step2::TypePerKey(text.clone()),
                        Step::KeysPerKey(keys) => Step2::KeysPerKey(keys.clone()),
                        Step::Paste(text) => Step2::Paste(text.clone()),
                        Step::Mouse(action) => Step2::Mouse(action.clone()),
                        Step::Focus(focus) => Step2::Focus(*focus),
                        Step::Bytes(_) => continue,
                        Step::SleepMs(ms) if wait.is_none() && !next_waits => Step2::Sleep(*ms),
                        Step::SleepMs(_) => continue,
                    });
                }
                match (entry.failed_after_input, &entry.error) {
                    (Some(AfterInput::Exited), _) => {
                        out.push(Step2::Wait(WaitFor::Exit, None));
                        continue;
                    }
                    (Some(AfterInput::TimedOut), Some(error)) => {
                        out.push(Step2::Comment(format!(
                            "its wait timed out in the session ({error}): the replay goes on from the screen the session saw then"
                        )));
                        // What the program drew by then (its answer to the input): waited
                        // for, so the next input is not typed before it (a terminal echoes
                        // typed text at once, ahead of the program's output).
                        if let Some(screen) = shown_text(entry, cols, rows) {
                            out.extend(catching_up(last_screen.as_deref().unwrap_or(""), &screen, &loose));
                            last_screen = Some(screen);
                        }
                        continue;
                    }
                    _ => {}
                }
                match wait {
                    Some(wait) => out.extend(replayed_wait(wait, entry, *timeout_ms)),
                    // Nothing waited here, and the next operation found the program waiting
                    // for input: the replay, faster than the agent, waits for that too.
                    None if ready_follows => out.push(Step2::Wait(WaitFor::Ready, None)),
                    None => {}
                }
            }
            // A row a person asked to expect (while recording) is an `Expect`.
            Operation::Wait {
                condition: WaitFor::Text(re),
                timeout_ms: None,
            } if entry.by_person => out.push(Step2::Expect(re.clone())),
            Operation::Wait {
                condition,
                timeout_ms,
            } => out.extend(replayed_wait(condition, entry, *timeout_ms)),
            Operation::Capture {
                wait,
                timeout_ms,
                ansi,
                mask,
                ..
            } => {
                // The capture's own masks (`capture --mask`): its screen holds their
                // placeholder, which stands for anything in the rows it asserts, and its
                // snapshot masks the same; the export's masks are every capture's.
                let own_places: Vec<regex::Regex> = places
                    .iter()
                    .cloned()
                    .chain(placeholder().filter(|_| !mask.is_empty()))
                    .collect();
                let mask: Vec<String> = mask.iter().chain(masks).cloned().collect();
                let loose = Loose {
                    drifted: &drifted,
                    places: &own_places,
                };
                if let Some(wait) = wait {
                    out.extend(replayed_wait(wait, entry, *timeout_ms));
                }
                // A colour capture's rows are asserted as their text, never as a regex of
                // escape codes; its styles, when it is the last screen, by a styled
                // snapshot.
                let (Some(logged), Some(screen)) = (&entry.screen, shown_text(entry, cols, rows)) else {
                    continue;
                };
                let screen = &screen;
                // A screen a person asked to keep (while recording) is a snapshot too.
                if Some(index) == last_capture || entry.by_person {
                    // The snapshot is a screen the session saw later than its last wait:
                    // the program went on reacting after it (a deferred redraw). The
                    // replay, faster than the agent, waits for what changed since.
                    // (Nothing seen before it: from the empty screen.)
                    // A settling wait (a person's snapshot) waited for the program, not
                    // for what it showed: a program never ready (watch) shows nothing yet.
                    if matches!(wait, None | Some(WaitFor::Settle))
                        && let Some(before) =
                            Some(last_screen.as_deref().unwrap_or("")).filter(|before| *before != screen)
                    {
                        out.extend(catching_up(before, screen, &loose));
                    }
                    // What is obviously volatile (a clock, a path), with the fill around it;
                    // then what changed while no input was sent (a meter, a spinner).
                    // Where the replay runs, when the screen shows the session's folder
                    // (every mask of it: the replay's place is only in the replay's screen).
                    let matching =
                        |mask: &String| regex::Regex::new(mask).is_ok_and(|re| re.is_match(screen));
                    let mut masks: Vec<String> = match place_masks.iter().any(matching) {
                        true => place_masks.to_vec(),
                        false => Vec::new(),
                    };
                    masks.extend(
                        mask.iter()
                            .filter(|m| !masks.contains(m))
                            .cloned()
                            .collect::<Vec<_>>(),
                    );
                    masks.extend(
                        volatile()
                            .iter()
                            .filter(|re| re.is_match(screen))
                            .map(|re| super::volatile::with_fill(re.as_str())),
                    );
                    // What drifted in the rows this screen shows.
                    let screen_drift = drifted.on(screen);
                    let mut row_masks = super::volatile::whole_rows(screen, &screen_drift);
                    for mask in super::volatile::span_masks(screen, &screen_drift, &row_masks) {
                        if !masks.contains(&mask) {
                            masks.push(mask);
                        }
                    }
                    // A tape's masks hold from where they are written on: an earlier
                    // snapshot's apply to this one too, so its text is what they leave.
                    let (masks, row_masks) = {
                        let mut all = applied.0.clone();
                        all.extend(masks.into_iter().filter(|m| !applied.0.contains(m)));
                        row_masks.extend(applied.1.iter().copied());
                        row_masks.sort_unstable();
                        row_masks.dedup();
                        applied = (all.clone(), row_masks.clone());
                        (all, row_masks)
                    };
                    let text = crate::tape::snapshots::mask_whole_rows(
                        &masked_screen(screen, cols, rows, &masks),
                        &row_masks,
                    );
                    let styled = ansi.then(|| {
                        let regexes: Vec<regex::Regex> =
                            masks.iter().filter_map(|m| regex::Regex::new(m).ok()).collect();
                        crate::tape::snapshots::styled_from_ansi(logged, cols, rows, &regexes)
                    });
                    out.push(Step2::Final {
                        masks,
                        row_masks,
                        text,
                        styled,
                    });
                } else {
                    out.extend(
                        new_rows(&seen, screen)
                            .iter()
                            .map(|row| Step2::Expect(loose.pattern(row))),
                    );
                }
                seen = screen.clone();
                last_screen = Some(screen.clone());
                continue;
            }
        }
        if let Some(screen) = shown_text(entry, cols, rows) {
            last_screen = Some(screen);
        }
    }
    if !unready_at_start {
        settle_after_launch(&mut out);
    }
    // Text typed in pieces with nothing between is one `Type` (a person's keystrokes).
    let mut merged: Vec<Step2> = Vec::with_capacity(out.len());
    for step in out {
        match (merged.last_mut(), step) {
            (Some(Step2::Type(before)), Step2::Type(text)) => before.push_str(&text),
            (_, step) => merged.push(step),
        }
    }
    merged
}

/// The text of the screen an operation ended on, as the log keeps it: a colour capture's
/// drawn again as plain text.
pub(super) fn shown_text(entry: &LoggedOperation, cols: u16, rows: u16) -> Option<String> {
    let screen = entry.screen.as_ref()?;
    Some(match entry.operation {
        Operation::Capture { ansi: true, .. } => crate::tape::snapshots::plain_from_ansi(screen, cols, rows),
        _ => screen.clone(),
    })
}

/// Whether `operation` is a wait for the program to be ready (`Wait+Ready`, a settle).
fn is_ready_wait(operation: &Operation) -> bool {
    matches!(
        operation,
        Operation::Wait {
            condition: WaitFor::Ready | WaitFor::Settle,
            ..
        }
    )
}

/// Whether `operation` is a send of printable text only (a person typing a word).
fn types_only_text(operation: &Operation) -> bool {
    let Operation::Send { steps, .. } = operation else {
        return false;
    };
    steps.iter().all(|step| match step {
        Step::Text(text) | Step::Type { text, .. } => !text.chars().any(char::is_control),
        Step::Bytes(bytes) => crate::keys::decode_input(bytes)
            .iter()
            .all(|part| matches!(part, crate::keys::InputPart::Text(_))),
        _ => false,
    })
}

/// Raw bytes sent to the program (a person's keystrokes, an agent's `bytes` step) as the
/// tape's commands that send them: text as `Type`, each key the bytes encode as `Key` (in
/// whichever cursor mode they were sent; the replay encodes for the program's mode then),
/// a bracketed paste as `Paste`, and the rest as typed text when it is UTF-8, else as the
/// bytes it was (`Bytes`).
fn typed_bytes(bytes: &[u8]) -> Vec<Step2> {
    use crate::keys::InputPart;
    let mut steps: Vec<Step2> = Vec::new();
    for part in crate::keys::decode_input(bytes) {
        // Keys in a row are one `Key` line.
        if let (InputPart::Key(key), Some(Step2::Keys(keys))) = (&part, steps.last_mut()) {
            keys.push(' ');
            keys.push_str(&key.to_string());
            continue;
        }
        steps.push(match part {
            InputPart::Text(text) => Step2::Type(text),
            InputPart::Key(key) => Step2::Keys(key.to_string()),
            InputPart::Paste(text) => Step2::Paste(text),
            InputPart::Other(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Step2::Type(text),
                Err(e) => Step2::Bytes(e.into_bytes()),
            },
        });
    }
    steps
}

/// What may differ in a replay's rows: the cells that drifted in the session (by row),
/// and where the replay runs.
struct Loose<'a> {
    drifted: &'a super::volatile::DriftLog,
    places: &'a [regex::Regex],
}

impl Loose<'_> {
    /// The pattern a replay's row at `index` must match to be the session's `row`.
    fn pattern(&self, (index, row): &(usize, String)) -> String {
        super::volatile::steady_pattern(row, self.drifted.spans_for(*index, row).as_ref(), self.places)
    }
}

/// The waits that bring a replay from the screen `before` (where the session's last wait
/// or capture left it) to `now` (a later capture): one for each row of `now` that `before`
/// did not have (the first few; not a clock's or a pid's alone, its drifted cells matching
/// anything); else, where rows only went away, the absence of one of them (`ExpectNot`,
/// which retries).
fn catching_up(before: &str, now: &str, loose: &Loose) -> Vec<Step2> {
    let telling = |pattern: &String| {
        // A row that is all volatile matches anything.
        pattern
            .trim_start_matches('^')
            .trim_end_matches('$')
            .replace(".+", "")
            .replace(".*", "")
            .trim()
            .len()
            > 1
    };
    let waits: Vec<Step2> = new_rows(before, now)
        .iter()
        .map(|row| loose.pattern(row))
        .filter(telling)
        .map(|pattern| Step2::Wait(WaitFor::Text(pattern), None))
        .collect();
    if !waits.is_empty() {
        return waits;
    }
    let kept: std::collections::HashSet<&str> = now.split('\n').collect();
    before
        .split('\n')
        .map(str::to_string)
        .filter(|row| !row.trim().is_empty() && !kept.contains(row.as_str()))
        .find(telling)
        .map(|row| {
            Step2::Wait(
                WaitFor::NoText(row_pattern_with(&row, Vec::new(), loose.places)),
                None,
            )
        })
        .into_iter()
        .collect()
}

/// The replay's wait for a logged one: the same, except that a settling wait
/// ([`WaitFor::Settle`]) replays as `Wait+Ready` only where the program was ready (a
/// replay must not fail where the session went on without it), and as `Wait+Exit` where
/// it ended on the program's exit (less after `q`: the last screen is the one after it).
fn replayed_wait(wait: &WaitFor, entry: &LoggedOperation, timeout_ms: Option<u64>) -> Option<Step2> {
    match wait {
        WaitFor::Settle
            if entry
                .waited
                .as_deref()
                .is_some_and(|why| why.starts_with("exited")) =>
        {
            Some(Step2::Wait(WaitFor::Exit, timeout_ms))
        }
        WaitFor::Settle => {
            let held = entry
                .waited
                .as_deref()
                .is_some_and(|why| why.starts_with("ready") || why.starts_with("quiet"));
            held.then_some(Step2::Wait(WaitFor::Ready, timeout_ms))
        }
        wait => Some(Step2::Wait(wait.clone(), timeout_ms)),
    }
}

/// Makes the replay wait, after the launch's first wait, until the program reads the
/// terminal (`Wait+Ready`): its first screen can be up before it has set the terminal's
/// modes, and keys a replay types at once would then be echoed twice. The agent's
/// session never met that moment, its calls being slower than a program's start. Only
/// before input: a session that only looked (a clock) never asked for ready, and its
/// replay does not either.
fn settle_after_launch(steps: &mut Vec<Step2>) {
    let any_input = steps.iter().any(|s| {
        matches!(
            s,
            Step2::Type(_)
                | Step2::TypePerKey(_)
                | Step2::KeysPerKey(_)
                | Step2::Secret { .. }
                | Step2::Keys(_)
                | Step2::Bytes(_)
                | Step2::Paste(_)
                | Step2::Mouse(_)
                | Step2::Focus(_)
        )
    });
    if !any_input {
        return;
    }
    let first_input = steps
        .iter()
        .position(|s| !matches!(s, Step2::Comment(_) | Step2::Wait(..)))
        .unwrap_or(steps.len());
    let waits_for_ready = steps[..first_input]
        .iter()
        .any(|s| matches!(s, Step2::Wait(WaitFor::Ready, _)));
    if !waits_for_ready {
        steps.insert(first_input, Step2::Wait(WaitFor::Ready, None));
    }
}
