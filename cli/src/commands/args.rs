//! What the command line accepts: the clap definitions of every command, its flags and
//! their help, the part `describe` reads back. Running them is `mod.rs`'s job.

use std::path::PathBuf;

use clap::{ArgAction, ArgGroup, Parser, Subcommand};
use tuipilot::StartSpec;
use tuipilot::operation::PngRequest;
use tuipilot::render::{FONT_SIZES, SCALES};
use tuipilot::terminal::{DEFAULT_COLS, DEFAULT_ROWS};

use super::current_dir;
use super::export::ExportArgs;
use super::manual::{CompletionsArgs, ManArgs};
use super::render::RenderRecordingArgs;
use super::report::ReportArgs;
use crate::error::Failure;

const EXIT_CODES: &str =
    "Exit codes: 0 success; 1 a wait or condition was not met (timeout); 2 usage or operational error.";

#[derive(Parser)]
#[command(
    name = "tuipilot",
    version,
    about = "Drive terminal programs like a person at a keyboard, and see their screen",
    after_help = EXIT_CODES
)]
pub(super) struct Cli {
    /// The session to act on ([A-Za-z0-9._-], up to 64 characters).
    #[arg(
        short = 's',
        long = "session",
        global = true,
        default_value = "default",
        value_name = "NAME"
    )]
    pub(super) session: String,
    /// Print the result (or the error) as JSON on stdout.
    #[arg(long, global = true)]
    pub(super) json: bool,
    #[command(subcommand)]
    pub(super) command: Command,
}

// Each command's arguments are made only when it runs (or when the whole tree is built,
// for help, completions, the manual pages and `describe`): every call starts a process,
// and making all of them cost it ~0.5 ms of its start, most of it faulting in their code.
// So the argument structs carry plain comments, not doc comments: made after the
// command, a struct's doc comment would replace the command's own description (a test
// in cli/tests/describe.rs holds each command's help to it).
#[derive(Subcommand)]
#[command(defer = true)]
pub(super) enum Command {
    /// Start a program in a new background session.
    Start(StartArgs),
    /// Send text, keys, pastes and pauses, in command-line order.
    #[command(group = clap::ArgGroup::new("picture").args(["png", "svg"]).multiple(true))]
    Send {
        /// Literal text (repeatable); it may start with `-` (`-t -5`, `-t '- [ ] task'`).
        #[arg(
            short = 't',
            long = "text",
            value_name = "TEXT",
            action = ArgAction::Append,
            allow_hyphen_values = true
        )]
        text: Vec<String>,
        /// Keys by name, several separated by spaces or commas (repeatable).
        #[arg(short = 'k', long = "key", value_name = "KEYS", action = ArgAction::Append)]
        key: Vec<String>,
        /// Text to paste (bracketed if the program enabled bracketed paste); it may start
        /// with `-`.
        #[arg(long, value_name = "TEXT", action = ArgAction::Append, allow_hyphen_values = true)]
        paste: Vec<String>,
        /// Pause this many milliseconds (repeatable).
        #[arg(long = "sleep-ms", value_name = "N", action = ArgAction::Append)]
        sleep_ms: Vec<u64>,
        /// Type each --text as a person would: one character at a time, with this many
        /// milliseconds after each.
        #[arg(long, value_name = "N", conflicts_with = "per_key")]
        typing_ms: Option<u64>,
        /// Send each --text a character at a time and each --key alone, each once the
        /// program has read the last and waits again (asked of the kernel): for a program
        /// that flushes keys typed ahead (ranger), which drops what arrives together.
        #[arg(long)]
        per_key: bool,
        /// A mouse action: `[C-|M-|S-]*ACTION TARGET [N]`, ACTION one of click,
        /// double-click, right-click, middle-click, press, release, move, drag (TARGET
        /// FROM..TO), scroll-up/down/left/right (N notches); TARGET `COL,ROW` (0-based) or
        /// `/REGEX/` (the centre of its first match). Refused when the program has not
        /// enabled the mouse (repeatable).
        #[arg(long, value_name = "ACTION", action = ArgAction::Append)]
        mouse: Vec<String>,
        /// Tell the program its window gained (`in`) or lost (`out`) focus; refused when it
        /// has not enabled focus events (repeatable).
        #[arg(long, value_name = "in|out", action = ArgAction::Append)]
        focus: Vec<String>,
        /// Then wait until this regex is on the screen (baseline taken before sending).
        #[arg(long, value_name = "REGEX", conflicts_with_all = ["wait_command", "wait_ready"])]
        wait: Option<String>,
        /// Then wait until the program has finished reacting and waits for input (asked of
        /// the kernel; a quiet screen where it cannot tell).
        #[arg(long, conflicts_with = "wait_command")]
        wait_ready: bool,
        /// Then wait for the shell command to finish (its OSC 133;D mark after the input);
        /// prints its exit code and exits 0 whatever the code.
        #[arg(long)]
        wait_command: bool,
        /// Timeout for --wait, --wait-ready, --wait-command and --capture's wait, in
        /// milliseconds. Default: the session's timeout, TUIPILOT_TIMEOUT_MS where the session started, else 10000.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
        /// Print the screen afterwards: a capture after the send (and its wait), taking
        /// capture's options below, and the base the next `capture --changed` compares
        /// with. Any of those options implies it.
        #[arg(long)]
        capture: bool,
        /// The input is secret (a password): sent, but kept nowhere — not in the
        /// recording, its markers, the operation log or `export`, which say `<secret
        /// input, N characters>`. (This command's own arguments are visible to local
        /// users while it runs, as every command's are.)
        #[arg(long)]
        secret: bool,
        #[command(flatten)]
        view: ScreenView,
    },
    /// Wait for text, its absence, output, a quiet screen or the program's exit.
    #[command(group(ArgGroup::new("condition").required(true).args(["text", "no_text", "line", "wrapped", "output", "stable", "exit", "command", "bell", "title", "cwd", "ready", "prompt"])))]
    Wait {
        /// A regex on the visible screen.
        #[arg(long, value_name = "REGEX")]
        text: Option<String>,
        /// With --text: only matches in these rows count (FIRST-LAST, 0-based and
        /// inclusive: `3-27`), so a status bar repeating the text does not.
        #[arg(long, value_name = "FIRST-LAST", requires = "text")]
        in_rows: Option<String>,
        /// With --text: only matches in these columns count (`0-39`).
        #[arg(long, value_name = "FIRST-LAST", requires = "text")]
        in_cols: Option<String>,
        /// Until no row of the screen matches this regex.
        #[arg(long, value_name = "REGEX")]
        no_text: Option<String>,
        /// A regex on the cursor's line (a prompt, an input field), trailing spaces trimmed.
        #[arg(long, value_name = "REGEX")]
        line: Option<String>,
        /// A regex on a logical line: rows the terminal wrapped joined into the line the
        /// program wrote (a path longer than the screen is wide).
        #[arg(long, value_name = "REGEX")]
        wrapped: Option<String>,
        /// A regex on the program's output since the session started.
        #[arg(long, value_name = "REGEX")]
        output: Option<String>,
        /// No screen change for this many milliseconds, counted from now.
        #[arg(long, value_name = "MS")]
        stable: Option<u64>,
        /// The program's exit; prints its status.
        #[arg(long)]
        exit: bool,
        /// The next shell command to finish (its OSC 133;D mark after this call); prints its
        /// exit code (`command_exit` with --json) and exits 0 whatever the code.
        #[arg(long)]
        command: bool,
        /// A bell rung after this call.
        #[arg(long)]
        bell: bool,
        /// The program has finished reacting and waits for input: every process of the
        /// terminal's foreground group asleep, one blocked on the terminal (asked of the
        /// kernel; a quiet screen of 300 ms where it cannot tell).
        #[arg(long)]
        ready: bool,
        /// A shell waits at its prompt: ready for input, and at a prompt by its OSC 133
        /// marks when it sends them (the first prompt, whatever it looks like).
        #[arg(long)]
        prompt: bool,
        /// The window title matching this regex.
        #[arg(long, value_name = "REGEX")]
        title: Option<String>,
        /// The working directory the program reports (OSC 7) matching this regex.
        #[arg(long, value_name = "REGEX")]
        cwd: Option<String>,
        /// Give up after this many milliseconds. Default: the session's timeout, TUIPILOT_TIMEOUT_MS where the session started, else 10000.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
    },
    /// Print the screen.
    #[command(group = clap::ArgGroup::new("picture").args(["png", "svg"]).multiple(true))]
    Capture {
        /// First wait until this regex is on the screen.
        #[arg(long, value_name = "REGEX")]
        wait: Option<String>,
        /// Timeout for --wait in milliseconds. Default: the session's timeout, TUIPILOT_TIMEOUT_MS where the session started, else 10000.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
        #[command(flatten)]
        view: ScreenView,
    },
    /// End the program's whole process session and stop the session.
    Exit {
        /// Time allowed for a graceful end before SIGKILL, in milliseconds: half after
        /// SIGHUP, half after SIGTERM. Default: 2000 (1000 after each).
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
    },
    /// Change the terminal size.
    Resize {
        #[arg(long, required = true)]
        cols: u16,
        #[arg(long, required = true)]
        rows: u16,
    },
    /// Watch a session live in this terminal (the agent's session, as it happens): read-only
    /// unless --control; Ctrl-] leaves, and the session goes on.
    Attach {
        /// Send this terminal's keys (and mouse, when the program enabled it) to the
        /// program, interleaved with the agent's input; the session's log, reports and
        /// exports mark them typed by a person.
        #[arg(long)]
        control: bool,
    },
    /// Drive a program in this terminal and write what you did as a tape (and a Rust
    /// test): keys grouped as typed, waits for the program between groups, Ctrl-] for
    /// the recorder's menu (snapshot, expect the cursor's row, stop).
    Record(RecordCommandArgs),
    /// List sessions.
    List,
    /// Show one session: its program, pid, size, state, age and the mouse modes it enabled.
    Info,
    /// Print a JSON catalogue of commands, flags, key names and exit codes.
    Describe,
    /// Start a program, wait, press keys, print its screen and end it, in one call.
    Once(OnceArgs),
    /// Run VHS-style .tape files (or folders of them) headless, as tests.
    Run(RunArgs),
    /// Turn a recording (asciicast) into a GIF, an animated PNG, its last frame or frames.
    Render(RenderRecordingArgs),
    /// Turn what was done in a session into a tape (with its snapshot) or a Rust test.
    Export(ExportArgs),
    /// Write the report of a session (or of a recording): every step, the screen after
    /// each, why a step failed — HTML to open in a browser, Markdown, JSON.
    Report(ReportArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Write the manual pages (tuipilot.1 and one per command) into a folder.
    Man(ManArgs),
    /// Serve the `terminal` tool over MCP on stdin/stdout.
    Mcp {
        /// Only these programs may be started (name or absolute path; repeatable),
        /// resolved with this server's PATH. With a list, requests may not set variables
        /// that change what runs (PATH, LD_*, LESSOPEN, …) nor choose a working directory.
        /// Default: any program.
        #[arg(long = "allow", value_name = "CMD")]
        allow: Vec<String>,
        /// With --allow: the only environment variables a request may set (repeatable;
        /// replaces the built-in deny list). `--allow-env ''` allows none.
        #[arg(long = "allow-env", value_name = "KEY", requires = "allow")]
        allow_env: Option<Vec<String>>,
        /// With --allow: requests may choose a working directory inside this tree.
        #[arg(long = "allow-cwd", value_name = "DIR", requires = "allow")]
        allow_cwd: Option<PathBuf>,
        /// Most sessions at once.
        #[arg(long, default_value_t = 8, value_name = "N")]
        max_sessions: usize,
        /// Also save every captured PNG in this directory (otherwise no files are written).
        #[arg(long, value_name = "DIR")]
        artifact_dir: Option<PathBuf>,
    },
}

// `start`'s arguments.
#[derive(clap::Args)]
pub(super) struct StartArgs {
    /// Terminal width in columns (10-1000).
    #[arg(long, default_value_t = DEFAULT_COLS)]
    pub(super) cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = DEFAULT_ROWS)]
    pub(super) rows: u16,
    /// Working directory of the program (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(super) cwd: Option<PathBuf>,
    /// Set an environment variable for the program (repeatable): `K=V`, or `K` alone to
    /// pass this environment's value on (a secret: no command line ever holds it).
    #[arg(long = "env", value_name = "K=V|K")]
    pub(super) env: Vec<std::ffi::OsString>,
    /// Start from an empty environment: only TERM, COLORTERM, TUIPILOT, LANG, PATH and --env.
    #[arg(long)]
    pub(super) env_clear: bool,
    /// Hermetic: --env-clear plus a fresh temporary HOME (and XDG dirs), removed at exit.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Inject no OSC 133 prompt marks into bash, zsh or fish (then `wait --command` and the
    /// last command's regions are unavailable).
    #[arg(long)]
    pub(super) no_shell_integration: bool,
    /// Lines of scrollback to keep (default 1000).
    #[arg(long, value_name = "N")]
    pub(super) scrollback: Option<usize>,
    /// The longest timer of the program a ready wait waits out after input, in
    /// milliseconds: htop applies a key at its next refresh, vim ends insert mode 100 ms
    /// after Esc. A later timer is not waited for; the reply says it is pending. Default:
    /// 2000.
    #[arg(long, value_name = "MS")]
    pub(super) reaction_bound: Option<u64>,
    /// Stop the session after this many seconds without requests.
    #[arg(long, default_value_t = 1800, value_name = "SECS")]
    pub(super) idle_timeout: u64,
    /// Return once the program waits for input (asked of the kernel), failing if it
    /// exits first or is not ready within --timeout-ms. Without it, `start` still watches
    /// the program's first second and fails if it exits with an error in it.
    #[arg(long)]
    pub(super) wait_ready: bool,
    /// The wait for --wait-ready, in milliseconds. Default: TUIPILOT_TIMEOUT_MS, else
    /// 10000.
    #[arg(long, value_name = "N", requires = "wait_ready")]
    pub(super) timeout_ms: Option<u64>,
    #[command(flatten)]
    pub(super) record: RecordArgs,
    /// The program and its arguments (any bytes: they reach the program as given).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub(super) command: Vec<std::ffi::OsString>,
}

// `record`'s arguments.
#[derive(clap::Args)]
pub(super) struct RecordCommandArgs {
    /// The tape to write (its snapshots go beside it, `NAME.snap`).
    #[arg(short = 'o', long = "output", value_name = "FILE.tape", required = true)]
    pub(super) output: PathBuf,
    /// Also write the recording as a Rust `#[test]`.
    #[arg(long, value_name = "FILE.rs")]
    pub(super) rust: Option<PathBuf>,
    /// Also write what the screen showed as an asciicast (`tuipilot render` makes a GIF).
    #[arg(long, value_name = "FILE.cast")]
    pub(super) cast: Option<PathBuf>,
    /// The longest timer of the program a ready wait waits out after input, in
    /// milliseconds (as `start --reaction-bound`); written into the tape.
    #[arg(long, value_name = "MS")]
    pub(super) reaction_bound: Option<u64>,
    /// Once written, replay the tape once (as `export --verify`: in a private folder, with
    /// the recording's world, writing no snapshot): exit 1 naming the line that would
    /// fail. What was recorded is written either way.
    #[arg(long)]
    pub(super) verify: bool,
    /// The program and its arguments (any bytes: they reach the program as given).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub(super) command: Vec<std::ffi::OsString>,
}

// `run`'s arguments.
#[derive(clap::Args)]
pub(super) struct RunArgs {
    /// Tape files, or folders searched for *.tape.
    #[arg(required = true, value_name = "TAPE")]
    pub(super) tapes: Vec<PathBuf>,
    /// Write a JUnit XML report here (one testcase per tape).
    #[arg(long, value_name = "PATH")]
    pub(super) junit: Option<PathBuf>,
    /// Tapes run in parallel (default: the number of cores).
    #[arg(long, short = 'j', value_name = "N")]
    pub(super) jobs: Option<usize>,
    /// Run only the K-th of N slices of the sorted tapes (tape i is in slice i % N + 1).
    #[arg(long, value_name = "K/N")]
    pub(super) partition: Option<String>,
    /// Accept changed snapshots (never on CI unless TUIPILOT_UPDATE=force).
    #[arg(long)]
    pub(super) update: bool,
    /// Where failure bundles and changed snapshots' new files (.snap.new, .actual.png,
    /// .diff.png) go (default: next to each tape and its snapshots).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Run each tape hermetically: no inherited environment but PATH, a fresh HOME, TMPDIR
    /// and XDG folders, removed when the tape ends.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Print only failures and the summary.
    #[arg(long, short = 'q')]
    pub(super) quiet: bool,
    /// Also print each tape's notes (video-only settings, ignored late settings, new snapshots).
    #[arg(long, short = 'v')]
    pub(super) verbose: bool,
    /// Skip `Output` of GIFs and videos (with a note) instead of failing.
    #[arg(long)]
    pub(super) no_media: bool,
    /// Write each tape's report (report.html, report.md, report.json) into a folder of its
    /// own under DIR, and DIR/index.html listing them all.
    #[arg(long, value_name = "DIR")]
    pub(super) report: Option<PathBuf>,
}

// How a screen is shown: `capture`'s options, which `send --capture` takes too.
#[derive(clap::Args, Clone, Debug, Default)]
pub(super) struct ScreenView {
    /// Keep colours and attributes as escape sequences.
    #[arg(long)]
    pub(super) ansi: bool,
    /// Include the lines that scrolled off the top.
    #[arg(long)]
    pub(super) scrollback: bool,
    /// Print only the rows that changed since this session's previous capture, each
    /// with its row number and, under it, the columns that
    /// changed and whether their text or only their style did (`^ cols 52-60: style
    /// (now inverse)`), under a one-line header (size, cursor, settled time, alt
    /// screen). With --png, the PNG's path follows.
    #[arg(long, conflicts_with_all = ["ansi", "scrollback"])]
    pub(super) changed: bool,
    /// Leave out the blank rows at the bottom of the screen, as MCP does (with --json,
    /// `empty_rows_below` says how many there were). The default prints every row.
    #[arg(long, conflicts_with_all = ["ansi", "changed"])]
    pub(super) trim: bool,
    /// Mask every match of this regex: clocks, timestamps, pids, temporary paths
    /// (repeatable). In the text a match becomes `[masked]` whatever its length; in the
    /// PNG, the SVG and --ansi each matched cell is flat grey, keeping columns.
    #[arg(long, value_name = "REGEX")]
    pub(super) mask: Vec<String>,
    /// Also write the screen as a PNG (default: a numbered file in the runtime
    /// directory); prints the path.
    #[arg(long, value_name = "PATH", num_args = 0..=1)]
    pub(super) png: Option<Option<PathBuf>>,
    /// Also write the screen as an SVG to this path (text selectable, crisp at any zoom);
    /// prints the path.
    #[arg(long, value_name = "PATH")]
    pub(super) svg: Option<PathBuf>,
    /// Frame the SVG as a window with the title in its title bar.
    #[arg(long, requires = "svg")]
    pub(super) window: bool,
    #[command(flatten)]
    pub(super) render: RenderArgs,
}

// `once`'s arguments.
#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("picture").args(["png"]))]
pub(super) struct OnceArgs {
    /// Terminal width in columns (10-1000).
    #[arg(long, default_value_t = DEFAULT_COLS)]
    pub(super) cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = DEFAULT_ROWS)]
    pub(super) rows: u16,
    /// Wait until this regex is on the screen before anything else.
    #[arg(long, value_name = "REGEX")]
    pub(super) wait: Option<String>,
    /// Keys to press after the wait, in order.
    #[arg(short = 'k', long = "key", value_name = "KEYS")]
    pub(super) keys: Vec<String>,
    /// Print the screen once it has been unchanged this long (milliseconds), instead of
    /// once the program is ready for input (or has exited), the default.
    #[arg(long, value_name = "MS")]
    pub(super) stable: Option<u64>,
    /// Give up waiting after this long (milliseconds). Default: TUIPILOT_TIMEOUT_MS, else
    /// 10000.
    #[arg(long, value_name = "MS")]
    pub(super) timeout_ms: Option<u64>,
    /// Keep colours and attributes as escape sequences.
    #[arg(long)]
    pub(super) ansi: bool,
    /// The longest timer of the program a ready wait waits out after input, in
    /// milliseconds: htop applies a key at its next refresh, vim ends insert mode 100 ms
    /// after Esc. A later timer is not waited for; the reply says it is pending. Default:
    /// 2000.
    #[arg(long, value_name = "MS")]
    pub(super) reaction_bound: Option<u64>,
    /// Also write the screen as a PNG to this path.
    #[arg(long, value_name = "PATH")]
    pub(super) png: Option<PathBuf>,
    #[command(flatten)]
    pub(super) render: RenderArgs,
    #[command(flatten)]
    pub(super) record: RecordArgs,
    /// The program and its arguments (any bytes: they reach the program as given).
    #[arg(required = true, last = true, value_name = "CMD")]
    pub(super) command: Vec<std::ffi::OsString>,
}

// Recording a session (`start` and `once`).
#[derive(clap::Args, Clone, Debug, Default)]
pub(super) struct RecordArgs {
    /// Record the session to this asciicast v2 file (output, input, resizes, a marker per
    /// operation), written as it happens; complete when the session ends.
    #[arg(long, value_name = "PATH")]
    pub(super) record: Option<PathBuf>,
    /// Leave what was sent out of the recording (passwords typed into the program).
    #[arg(long, requires = "record")]
    pub(super) record_no_input: bool,
    /// The recording's title.
    #[arg(long, value_name = "TEXT", requires = "record")]
    pub(super) record_title: Option<String>,
}

impl RecordArgs {
    /// Sets the recording in `spec`, its path made absolute against the caller's
    /// directory (a host resolves nothing against a directory of its own).
    pub(super) fn apply(self, spec: &mut StartSpec) -> Result<(), Failure> {
        if let Some(path) = self.record {
            spec.record = Some(current_dir()?.join(path));
        }
        spec.record_no_input = self.record_no_input;
        spec.record_title = self.record_title;
        Ok(())
    }
}

// How PNGs and SVGs are drawn.
#[derive(clap::Args, Clone, Debug, Default)]
pub(super) struct RenderArgs {
    /// Colour theme for the PNG or SVG: dark or light.
    #[arg(long, value_name = "NAME", requires = "picture")]
    pub(super) theme: Option<String>,
    /// A fallback font file for characters the bundled fonts lack (repeatable).
    #[arg(long = "font", value_name = "PATH", requires = "picture")]
    pub(super) fonts: Vec<PathBuf>,
    /// Draw only with the bundled fonts and --font files, not the machine's own: the same
    /// picture on every machine.
    #[arg(long, requires = "picture")]
    pub(super) no_system_fonts: bool,
    /// Draw bold text in colours 0-7 as it is, not bright (xterm's boldColors off).
    #[arg(long, requires = "picture")]
    pub(super) no_bold_bright: bool,
    /// Font size in pixels (default 16).
    #[arg(long, value_name = "PX", requires = "picture", help = format!("Font size in pixels, {} to {} (default 16)", FONT_SIZES.start(), FONT_SIZES.end()))]
    pub(super) font_size: Option<f32>,
    /// Pixel scale factor (default 1).
    #[arg(long, value_name = "N", requires = "picture", help = format!("Pixel scale factor, {} to {} (default 1)", SCALES.start(), SCALES.end()))]
    pub(super) scale: Option<u32>,
}

impl RenderArgs {
    /// The PNG request, with paths made absolute against the caller's directory and every
    /// option checked here, before anything is asked of the host.
    pub(super) fn request(&self, path: Option<PathBuf>) -> Result<PngRequest, Failure> {
        let here = current_dir()?;
        let request = PngRequest {
            path: path.map(|p| here.join(p)),
            theme: self.theme.clone(),
            fonts: self.fonts.iter().map(|f| here.join(f)).collect(),
            font_size: self.font_size,
            scale: self.scale,
            system_fonts: self.no_system_fonts.then_some(false),
            bold_is_bright: self.no_bold_bright.then_some(false),
            ..PngRequest::default()
        };
        request.options()?;
        Ok(request)
    }
}

/// The words among a program's arguments (what came after `--`) that are long flags of
/// `subcommand` or tuipilot's global ones (`--cols`, `--env=X`): written after `--`, they
/// went to the program, which is rarely what was meant. Short flags are left alone (`-s`
/// is as likely the program's own).
pub(super) fn our_flags_among(subcommand: &str, program_args: &[std::ffi::OsString]) -> Vec<String> {
    // The tree the arguments were parsed with has `subcommand`'s arguments made: it is
    // the command that runs.
    let cli = COMMAND_LINE.get_or_init(whole_tree);
    let mut longs: Vec<String> = cli
        .get_arguments()
        .filter_map(|a| a.get_long().map(str::to_string))
        .collect();
    if let Some(sub) = cli.find_subcommand(subcommand) {
        longs.extend(
            sub.get_arguments()
                .filter_map(|a| a.get_long().map(str::to_string)),
        );
    }
    let mut found: Vec<String> = program_args
        .iter()
        .filter_map(|word| {
            let flag = word.to_str()?.strip_prefix("--")?;
            let name = flag.split_once('=').map_or(flag, |(name, _)| name);
            longs.iter().any(|long| long == name).then(|| format!("--{name}"))
        })
        .collect();
    found.dedup();
    found
}

/// The command-line tree the arguments were parsed with ([`super::main`] keeps it).
pub(super) static COMMAND_LINE: std::sync::OnceLock<clap::Command> = std::sync::OnceLock::new();

/// The command-line tree with every command's arguments made (they are otherwise made
/// only for the command that runs): what help, `describe` and the like read.
pub(super) fn whole_tree() -> clap::Command {
    use clap::CommandFactory;
    let mut tree = Cli::command();
    tree.build();
    tree
}

/// What [`our_flags_among`] found, said to the user: `--cols went to the program;
/// tuipilot's flags go before --`.
pub(super) fn misplaced_note(flags: &[String]) -> Option<String> {
    (!flags.is_empty()).then(|| {
        format!(
            "{} went to the program; tuipilot's flags go before --",
            flags.join(", ")
        )
    })
}
