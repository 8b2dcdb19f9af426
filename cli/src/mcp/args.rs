//! The `terminal` tool's arguments: their schema (what a model reads), and how they turn
//! into the library's steps, wait and size.

use std::collections::HashMap;

use rmcp::schemars;
use serde::Deserialize;
use tuipilot::operation::{Step, WaitFor};

use super::{MAX_COLS, MAX_ROWS, fail};
use crate::error::Failure;

#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Action {
    Start,
    Send,
    Capture,
    Wait,
    Exit,
    List,
    Resize,
    Export,
    Report,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(super) enum CommandLine {
    /// A command line, split into words like a shell would (quotes respected; no
    /// expansion, no pipes).
    Line(String),
    /// The program and its arguments.
    Argv(Vec<String>),
}

/// The `terminal` tool's arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(super) struct TerminalArgs {
    /// What to do: start | send | capture | wait | exit | list | resize | export | report.
    pub(super) action: Action,
    /// Session name (default "default"); several sessions can run at once.
    #[serde(default)]
    pub(super) session: Option<String>,
    /// start: the program to run, as a command line string or an argv list.
    #[serde(default)]
    pub(super) command: Option<CommandLine>,
    /// start/resize: terminal width in columns (default 80, at most 400).
    #[serde(default)]
    #[schemars(range(min = tuipilot::terminal::MIN_COLS, max = MAX_COLS))]
    pub(super) cols: Option<u16>,
    /// start/resize: terminal height in rows (default 24, at most 200).
    #[serde(default)]
    #[schemars(range(min = tuipilot::terminal::MIN_ROWS, max = MAX_ROWS))]
    pub(super) rows: Option<u16>,
    /// start: working directory (default: the server's).
    #[serde(default)]
    pub(super) cwd: Option<String>,
    /// start: extra environment variables. A null value passes the variable on from the
    /// server's own environment (`{"API_TOKEN": null}`): the secret then never appears in
    /// a request, a transcript or a log.
    #[serde(default)]
    pub(super) env: Option<HashMap<String, Option<String>>>,
    /// start: hermetic session — an empty environment (only TERM, COLORTERM, LANG, PATH,
    /// TUIPILOT and `env`) and a fresh temporary HOME removed when the session ends.
    #[serde(default)]
    pub(super) isolated: Option<bool>,
    /// start: false to inject no OSC 133 prompt marks into bash, zsh or fish (which
    /// wait_command and the last command's regions need). Default true.
    #[serde(default)]
    pub(super) shell_integration: Option<bool>,
    /// start: the longest timer of the program a ready wait waits out after input, in
    /// milliseconds (htop applies a key at its next refresh; vim ends insert mode 100 ms
    /// after Esc). A later timer is not waited for: the reply's `waited` says it is
    /// pending. Default 2000.
    #[serde(default)]
    #[schemars(range(max = tuipilot::operation::MAX_DURATION_MS))]
    pub(super) reaction_bound_ms: Option<u64>,
    /// capture: send only the rows that changed since this session's previous capture
    /// (`changed_rows`), each as `ROW | text`, under a one-line header.
    #[serde(default)]
    pub(super) changed_only: Option<bool>,
    /// export: a Rust #[test] using the library instead of a tape.
    #[serde(default)]
    pub(super) rust: Option<bool>,
    /// export: write the values of the session's environment, not only the names (an
    /// exported tape reads them from where it runs).
    #[serde(default)]
    pub(super) include_env: Option<bool>,
    /// export: regexes whose matches (in typed and pasted text, the command line, the
    /// environment's values, the screens) are written as `<redacted>`.
    #[serde(default)]
    pub(super) redact: Option<Vec<String>>,
    /// export: replay where the session ran, in its folder with the user's HOME, instead
    /// of hermetically (a fresh HOME of its own as the working folder, removed after).
    #[serde(default)]
    pub(super) in_place: Option<bool>,
    /// export: carry no copy of the session's world (its folder and the files its command
    /// named, as they were when it started; carried by default, written beside the export
    /// in the artifact directory as NAME.world/).
    #[serde(default)]
    pub(super) without_world: Option<bool>,
    /// export: files or folders (absolute paths) the hermetic replay starts with, copied
    /// into its fresh HOME.
    #[serde(default)]
    pub(super) with: Option<Vec<String>>,
    /// export: a recording's file name in the server's artifact directory (made by start's
    /// `record`) to export from instead of a live session — after the session ended.
    #[serde(default)]
    pub(super) from: Option<String>,
    /// export: true to replay the export once before returning it (the tape, or for rust
    /// the tape that spells the same steps), comparing its snapshots: an error naming the
    /// line that would fail.
    #[serde(default)]
    pub(super) verify: Option<bool>,
    /// start: true to let a person watch the session live by its name, from another
    /// terminal: `tuipilot -s NAME attach` (add `--control` to type into it). Default false.
    #[serde(default)]
    pub(super) attach: Option<bool>,
    /// start: record the session as asciicast v2 to this file name in the server's
    /// artifact directory (only when the server has one); complete when the session ends.
    #[serde(default)]
    pub(super) record: Option<String>,
    /// send: literal text, typed first. It does not press Enter: add "Enter" to keys.
    #[serde(default)]
    pub(super) text: Option<String>,
    /// send: the input is secret (a password): sent, but kept nowhere — not in the
    /// recording, its markers, the operation log or an export, which say
    /// `<secret input, N characters>` instead.
    #[serde(default)]
    pub(super) secret: Option<bool>,
    /// send: text pasted after `text` (bracketed if the program enabled bracketed paste,
    /// so editors and shells take it as one paste, not typing).
    #[serde(default)]
    pub(super) paste: Option<String>,
    /// send: key names pressed in order after the text and paste: a string of names
    /// separated by spaces ("Down Down Enter") or a list (["Down", "Down", "Enter"]).
    /// Names: Enter Tab Esc Space Backspace Up Down Left Right Home End PageUp PageDown
    /// Insert Delete F1-F12, any single character; modifiers C- (Ctrl), M- (Alt), S-
    /// (Shift), e.g. C-x, M-Enter, S-Tab, C-S-Up.
    #[serde(default)]
    pub(super) keys: Option<KeyList>,
    /// send: mouse actions, after the keys: one string or a list, each
    /// "[C-|M-|S-]*ACTION TARGET [N]" — ACTION click, double-click, right-click,
    /// middle-click, press, release, move, drag (TARGET "FROM..TO"), scroll-up,
    /// scroll-down, scroll-left, scroll-right (N notches); TARGET "COL,ROW" (0-based, as
    /// the cursor and find use) or "/REGEX/" (the centre of its first match), e.g.
    /// "click 12,3", "click /OK/", "scroll-down 40,10 3". Refused when the program has not
    /// enabled the mouse (see `mouse` in the screen reply).
    #[serde(default)]
    pub(super) mouse: Option<KeyList>,
    /// send: tell the program its window gained ("in") or lost ("out") focus, after the
    /// mouse actions; refused when it has not enabled focus events.
    #[serde(default)]
    pub(super) focus: Option<FocusArg>,
    /// send: type `text` as a person would, one character at a time with this many
    /// milliseconds after each (a debounced search box sees every keystroke).
    #[serde(default)]
    #[schemars(range(max = tuipilot::operation::MAX_DURATION_MS))]
    pub(super) typing_ms: Option<u64>,
    /// send: deliver `text` a character at a time and `keys` one at a time, each once the
    /// program has read the last and waits again (asked of the kernel): for a program that
    /// flushes keys typed ahead (ranger), which drops what arrives together.
    #[serde(default)]
    pub(super) per_key: Option<bool>,
    /// send: pause after the input, in milliseconds (prefer a wait).
    #[serde(default)]
    #[schemars(range(max = tuipilot::operation::MAX_DURATION_MS))]
    pub(super) sleep_ms: Option<u64>,
    /// A regex on the screen (rows matched separately; ^ and $ anchor to rows). send: wait
    /// for it after the input (the screen must change first). capture: wait for it before
    /// capturing. wait: wait for it.
    #[serde(default)]
    pub(super) wait_pattern: Option<String>,
    /// With wait_pattern: only matches in these rows count ("3-27": first and last,
    /// 0-based and inclusive), so a status bar repeating the text does not.
    #[serde(default)]
    pub(super) wait_in_rows: Option<String>,
    /// With wait_pattern: only matches in these columns count ("0-39").
    #[serde(default)]
    pub(super) wait_in_cols: Option<String>,
    /// Like wait_pattern, but wait until NO row matches the regex (a spinner or dialog gone).
    #[serde(default)]
    pub(super) wait_absent: Option<String>,
    /// Wait until the cursor's row matches this regex (a prompt, an input line; trailing
    /// spaces trimmed).
    #[serde(default)]
    pub(super) wait_line: Option<String>,
    /// Wait until a logical line matches this regex: rows the terminal wrapped joined into
    /// the line the program wrote (a path or command longer than the screen is wide).
    #[serde(default)]
    pub(super) wait_wrapped: Option<String>,
    /// Wait until the program's output (escape sequences removed) matches this regex: since
    /// the input for send, since the session started for wait/capture.
    #[serde(default)]
    pub(super) wait_output: Option<String>,
    /// Wait until the screen has not changed for this many milliseconds.
    #[serde(default)]
    #[schemars(range(max = tuipilot::operation::MAX_DURATION_MS))]
    pub(super) stable_ms: Option<u64>,
    /// wait/send: wait for the program to exit (wait returns its exit code or signal).
    #[serde(default)]
    pub(super) wait_exit: Option<bool>,
    /// wait/send: wait for the shell command to finish (its OSC 133;D mark after the
    /// call; bash, zsh and fish send them); the reply's `command_exit` is its exit code and
    /// `last_command` its prompt/command/output rows. send + wait_command is the atomic
    /// "run this and wait until it is done".
    #[serde(default)]
    pub(super) wait_command: Option<bool>,
    /// wait/send: wait for a bell.
    #[serde(default)]
    pub(super) wait_bell: Option<bool>,
    /// wait/send/capture: wait until the program has finished reacting and waits for input
    /// — every process of the terminal's foreground group asleep, one blocked reading the
    /// terminal — asked of the kernel (a 300 ms quiet screen where it cannot tell). No
    /// text to predict: the right wait after input when the answer's wording is unknown.
    /// A send with no other wait does this by default (up to 3 s or timeout_ms, then the
    /// screen as it is, with why); false sends and returns at once.
    #[serde(default)]
    pub(super) wait_ready: Option<bool>,
    /// wait/send/capture: wait until a shell waits at its prompt (ready for input, and at
    /// a prompt by its OSC 133 marks): a shell's first prompt, whatever it looks like.
    #[serde(default)]
    pub(super) wait_prompt: Option<bool>,
    /// wait/send: wait until the window title matches this regex.
    #[serde(default)]
    pub(super) wait_title: Option<String>,
    /// wait/send: wait until the working directory the program reports (OSC 7) matches
    /// this regex.
    #[serde(default)]
    pub(super) wait_cwd: Option<String>,
    /// Timeout for any wait in milliseconds (default: TUIPILOT_TIMEOUT_MS where the
    /// server started, else 10000; a send with no wait of its own waits for ready up to
    /// 3000). exit: the time allowed for a graceful end before SIGKILL (default: 2000,
    /// 1000 after SIGHUP and 1000 after SIGTERM).
    #[serde(default)]
    #[schemars(range(max = tuipilot::operation::MAX_DURATION_MS))]
    pub(super) timeout_ms: Option<u64>,
    /// capture: include a PNG screenshot (default true).
    #[serde(default)]
    pub(super) image: Option<bool>,
    /// capture: regexes whose matches are masked — clocks, timestamps, pids, temporary
    /// paths. In the text a match becomes `[masked]` whatever its length; in the image
    /// each matched cell is flat grey, keeping columns. export: text not to assert — every
    /// row the export expects matches anything there, every snapshot masks it (text
    /// chosen afresh on every run, which `verify` says a replay shows otherwise).
    #[serde(default)]
    pub(super) mask: Option<Vec<String>>,
    /// capture: screenshot theme, "dark" (default) or "light".
    #[serde(default)]
    pub(super) theme: Option<String>,
    /// capture: screenshot pixel scale, 1 (default) to 4.
    #[serde(default)]
    #[schemars(range(min = *tuipilot::render::SCALES.start(), max = *tuipilot::render::SCALES.end()))]
    pub(super) scale: Option<u32>,
    /// capture: screenshot font size in pixels, 4 to 128 (default 16).
    #[serde(default)]
    #[schemars(range(min = *tuipilot::render::FONT_SIZES.start(), max = *tuipilot::render::FONT_SIZES.end()))]
    pub(super) font_size: Option<f32>,
}

/// A focus change.
#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum FocusArg {
    /// The window gained focus.
    In,
    /// The window lost focus.
    Out,
}

/// Key names (or mouse actions) as one string or a list; a string of key names may hold
/// several.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(super) enum KeyList {
    /// "Down Down Enter"
    Names(String),
    /// ["Down", "Down", "Enter"]
    List(Vec<String>),
}

/// Keeps `[A-Za-z0-9._-]`, replacing anything else with `_`.
impl TerminalArgs {
    /// The one wait these arguments ask for, if any; two at once is a mistake.
    pub(super) fn wait(&self) -> Result<Option<WaitFor>, Failure> {
        let mut waits = Vec::new();
        let span = |what, text: &Option<String>| {
            text.as_deref()
                .map(|t| tuipilot::operation::parse_span(what, t))
                .transpose()
                .map_err(|e| Failure::bad_request(e.to_string()))
        };
        let (rows, cols) = (
            span("wait_in_rows", &self.wait_in_rows)?,
            span("wait_in_cols", &self.wait_in_cols)?,
        );
        match (&self.wait_pattern, rows.is_some() || cols.is_some()) {
            (Some(re), false) => waits.push(WaitFor::Text(re.clone())),
            (Some(re), true) => waits.push(WaitFor::TextIn {
                pattern: re.clone(),
                rows,
                cols,
            }),
            (None, true) => {
                return fail("wait_in_rows and wait_in_cols limit wait_pattern: give the pattern too");
            }
            (None, false) => {}
        }
        if let Some(re) = &self.wait_absent {
            waits.push(WaitFor::NoText(re.clone()));
        }
        if let Some(re) = &self.wait_line {
            waits.push(WaitFor::Line(re.clone()));
        }
        if let Some(re) = &self.wait_wrapped {
            waits.push(WaitFor::Wrapped(re.clone()));
        }
        if let Some(re) = &self.wait_output {
            waits.push(WaitFor::Output(re.clone()));
        }
        if let Some(ms) = self.stable_ms {
            waits.push(WaitFor::StableMs(ms));
        }
        if self.wait_exit == Some(true) {
            waits.push(WaitFor::Exit);
        }
        if self.wait_command == Some(true) {
            waits.push(WaitFor::Command);
        }
        if self.wait_bell == Some(true) {
            waits.push(WaitFor::Bell);
        }
        if self.wait_ready == Some(true) {
            waits.push(WaitFor::Ready);
        }
        if self.wait_prompt == Some(true) {
            waits.push(WaitFor::Prompt);
        }
        if let Some(re) = &self.wait_title {
            waits.push(WaitFor::Title(re.clone()));
        }
        if let Some(re) = &self.wait_cwd {
            waits.push(WaitFor::Cwd(re.clone()));
        }
        match waits.len() {
            0 | 1 => Ok(waits.pop()),
            _ => fail(
                "give one wait at a time: wait_pattern, wait_absent, wait_line, wait_wrapped, wait_output, stable_ms, wait_exit, wait_command, wait_bell, wait_ready, wait_prompt, wait_title or wait_cwd",
            ),
        }
    }

    /// What an `export` may hold: the environment's values, and what to redact; where it
    /// replays and the files it starts with.
    pub(super) fn export_options(&self) -> Result<tuipilot::tape::export::ExportOptions, Failure> {
        let redact = self.redact.as_deref().unwrap_or_default();
        let mut options = tuipilot::tape::export::ExportOptions::new(self.include_env == Some(true), redact)?
            .mask(self.mask.as_deref().unwrap_or_default())?;
        options.in_place = self.in_place == Some(true);
        for file in self.with.iter().flatten() {
            let path = std::path::PathBuf::from(file);
            if !path.is_absolute() {
                return Err(Failure::bad_request(format!(
                    "with: `{file}` is a relative path; give absolute paths (the server's folder is not the agent's)"
                )));
            }
            options.with.push(path);
        }
        Ok(options)
    }

    /// The input of a `send`, in its documented order: text, paste, keys, mouse, focus,
    /// pause.
    pub(super) fn steps(&self) -> Vec<Step> {
        let mut steps = Vec::new();
        let per_key = self.per_key == Some(true);
        match (&self.text, self.typing_ms, per_key) {
            (Some(text), _, true) => steps.push(Step::TextPerKey(text.clone())),
            (Some(text), Some(pause_ms), false) => steps.push(Step::Type {
                text: text.clone(),
                pause_ms,
            }),
            (Some(text), None, false) => steps.push(Step::Text(text.clone())),
            (None, ..) => {}
        }
        if let Some(paste) = &self.paste {
            steps.push(Step::Paste(paste.clone()));
        }
        let keys = |names: String| match per_key {
            true => Step::KeysPerKey(names),
            false => Step::Keys(names),
        };
        match &self.keys {
            Some(KeyList::Names(names)) => steps.push(keys(names.clone())),
            Some(KeyList::List(list)) => steps.extend(list.iter().cloned().map(keys)),
            None => {}
        }
        match &self.mouse {
            Some(KeyList::Names(action)) => steps.push(Step::Mouse(action.clone())),
            Some(KeyList::List(list)) => steps.extend(list.iter().cloned().map(Step::Mouse)),
            None => {}
        }
        match self.focus {
            Some(FocusArg::In) => steps.push(Step::Focus(tuipilot::keys::Focus::In)),
            Some(FocusArg::Out) => steps.push(Step::Focus(tuipilot::keys::Focus::Out)),
            None => {}
        }
        if let Some(ms) = self.sleep_ms {
            steps.push(Step::SleepMs(ms));
        }
        steps
    }

    /// The requested size, within this server's cap.
    pub(super) fn size(&self) -> Result<(u16, u16), Failure> {
        let (cols, rows) = (
            self.cols.unwrap_or(tuipilot::terminal::DEFAULT_COLS),
            self.rows.unwrap_or(tuipilot::terminal::DEFAULT_ROWS),
        );
        if cols > MAX_COLS || rows > MAX_ROWS {
            return fail(format!(
                "{cols}x{rows} is larger than this server renders ({MAX_COLS}x{MAX_ROWS} cells at most)"
            ));
        }
        Ok((cols, rows))
    }
}
