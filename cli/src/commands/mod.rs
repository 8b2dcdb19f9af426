//! The command line: clap definitions and thin handlers.
//!
//! Session commands are clients of a per-session host ([`crate::host`]); `once` uses
//! the library directly. Output is text for people or, with `--json`, one JSON value on
//! stdout; errors are one line (`tuipilot: …` on stderr, or `{"error":{…}}` with `--json`).
//! Exit codes: 0 success, 1 a wait or condition not met, 2 usage or operational error.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, ArgGroup, ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Value, json};

use serde::de::DeserializeOwned;
use tuipilot::operation::{ExitReport, PngRequest, Screen, Step, WaitFor};
use tuipilot::render::{FONT_SIZES, SCALES};
use tuipilot::terminal::{DEFAULT_COLS, DEFAULT_ROWS};
use tuipilot::{Operation, StartSpec};

use crate::error::{ErrorCode, Failure};
use crate::host::client::Client;
use crate::host::paths::{SessionPaths, ensure_runtime_dir, runtime_dir_from_env, session_names};
use crate::host::protocol::{self, HostInfo, Request};
use crate::host::server::{self, HostSpec};

const EXIT_CODES: &str =
    "Exit codes: 0 success; 1 a wait or condition was not met (timeout); 2 usage or operational error.";

#[derive(Parser)]
#[command(
    name = "tuipilot",
    version,
    about = "Drive terminal programs like a person at a keyboard, and see their screen",
    after_help = EXIT_CODES
)]
struct Cli {
    /// The session to act on ([A-Za-z0-9._-], up to 64 characters).
    #[arg(
        short = 's',
        long = "session",
        global = true,
        default_value = "default",
        value_name = "NAME"
    )]
    session: String,
    /// Print the result (or the error) as JSON on stdout.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Start a program in a new background session.
    Start(StartArgs),
    /// Send text, keys, pastes and pauses, in command-line order.
    Send {
        /// Literal text (repeatable).
        #[arg(short = 't', long = "text", value_name = "TEXT", action = ArgAction::Append)]
        text: Vec<String>,
        /// Keys by name, several separated by spaces or commas (repeatable).
        #[arg(short = 'k', long = "key", value_name = "KEYS", action = ArgAction::Append)]
        key: Vec<String>,
        /// Text to paste (bracketed if the program enabled bracketed paste).
        #[arg(long, value_name = "TEXT", action = ArgAction::Append)]
        paste: Vec<String>,
        /// Pause this many milliseconds (repeatable).
        #[arg(long = "sleep-ms", value_name = "N", action = ArgAction::Append)]
        sleep_ms: Vec<u64>,
        /// Then wait until this regex is on the screen (baseline taken before sending).
        #[arg(long, value_name = "REGEX")]
        wait: Option<String>,
        /// Timeout for --wait in milliseconds.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
        /// Print the screen afterwards.
        #[arg(long)]
        capture: bool,
    },
    /// Wait for text, its absence, output, a quiet screen or the program's exit.
    #[command(group(ArgGroup::new("condition").required(true).args(["text", "no_text", "output", "stable", "exit"])))]
    Wait {
        /// A regex on the visible screen.
        #[arg(long, value_name = "REGEX")]
        text: Option<String>,
        /// Until no row of the screen matches this regex.
        #[arg(long, value_name = "REGEX")]
        no_text: Option<String>,
        /// A regex on the program's output since the session started.
        #[arg(long, value_name = "REGEX")]
        output: Option<String>,
        /// No screen change for this many milliseconds, counted from now.
        #[arg(long, value_name = "MS")]
        stable: Option<u64>,
        /// The program's exit; prints its status.
        #[arg(long)]
        exit: bool,
        /// Give up after this many milliseconds.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
    },
    /// Print the screen.
    Capture {
        /// First wait until this regex is on the screen.
        #[arg(long, value_name = "REGEX")]
        wait: Option<String>,
        /// Timeout for --wait in milliseconds.
        #[arg(long, value_name = "N")]
        timeout_ms: Option<u64>,
        /// Keep colours and attributes as escape sequences.
        #[arg(long)]
        ansi: bool,
        /// Include the lines that scrolled off the top.
        #[arg(long)]
        scrollback: bool,
        /// Also write the screen as a PNG (default: a numbered file in the runtime
        /// directory); prints the path.
        #[arg(long, value_name = "PATH", num_args = 0..=1)]
        png: Option<Option<PathBuf>>,
        #[command(flatten)]
        render: RenderArgs,
    },
    /// End the program's whole process session and stop the session.
    Exit {
        /// Time allowed for a graceful end before SIGKILL, in milliseconds.
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
    /// List sessions.
    List,
    /// Print a JSON catalogue of commands, flags, key names and exit codes.
    Describe,
    /// Start a program, wait, press keys, print its screen and end it, in one call.
    Once(OnceArgs),
    /// Serve the `terminal` tool over MCP on stdin/stdout.
    Mcp {
        /// Only these programs may be started (name or path; repeatable). Default: any.
        #[arg(long = "allow", value_name = "CMD")]
        allow: Vec<String>,
        /// Most sessions at once.
        #[arg(long, default_value_t = 8, value_name = "N")]
        max_sessions: usize,
        /// Also save every captured PNG in this directory (otherwise no files are written).
        #[arg(long, value_name = "DIR")]
        artifact_dir: Option<PathBuf>,
    },
}

/// `start`'s arguments.
#[derive(clap::Args)]
struct StartArgs {
    /// Terminal width in columns (10-1000).
    #[arg(long, default_value_t = DEFAULT_COLS)]
    cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = DEFAULT_ROWS)]
    rows: u16,
    /// Working directory of the program (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Set an environment variable for the program (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Lines of scrollback to keep (default 1000).
    #[arg(long, value_name = "N")]
    scrollback: Option<usize>,
    /// Stop the session after this many seconds without requests.
    #[arg(long, default_value_t = 1800, value_name = "SECS")]
    idle_timeout: u64,
    /// The program and its arguments.
    #[arg(required = true, last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// `once`'s arguments.
#[derive(clap::Args)]
struct OnceArgs {
    /// Terminal width in columns (10-1000).
    #[arg(long, default_value_t = DEFAULT_COLS)]
    cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = DEFAULT_ROWS)]
    rows: u16,
    /// Wait until this regex is on the screen before anything else.
    #[arg(long, value_name = "REGEX")]
    wait: Option<String>,
    /// Keys to press after the wait, in order.
    #[arg(short = 'k', long = "key", value_name = "KEYS")]
    keys: Vec<String>,
    /// Print the screen once it has been unchanged this long (milliseconds).
    #[arg(long, value_name = "MS", default_value_t = 300)]
    stable: u64,
    /// Give up waiting after this long (milliseconds).
    #[arg(long, value_name = "MS")]
    timeout_ms: Option<u64>,
    /// Keep colours and attributes as escape sequences.
    #[arg(long)]
    ansi: bool,
    /// Also write the screen as a PNG to this path.
    #[arg(long, value_name = "PATH")]
    png: Option<PathBuf>,
    #[command(flatten)]
    render: RenderArgs,
    /// The program and its arguments.
    #[arg(required = true, last = true, value_name = "CMD")]
    command: Vec<String>,
}

/// How PNGs are drawn.
#[derive(clap::Args, Clone, Debug, Default)]
struct RenderArgs {
    /// Colour theme for the PNG: dark or light.
    #[arg(long, value_name = "NAME", requires = "png")]
    theme: Option<String>,
    /// A fallback font file for characters the bundled fonts lack (repeatable).
    #[arg(long = "font", value_name = "PATH", requires = "png")]
    fonts: Vec<PathBuf>,
    /// Font size in pixels (default 16).
    #[arg(long, value_name = "PX", requires = "png", help = format!("Font size in pixels, {} to {} (default 16)", FONT_SIZES.start(), FONT_SIZES.end()))]
    font_size: Option<f32>,
    /// Pixel scale factor (default 1).
    #[arg(long, value_name = "N", requires = "png", help = format!("Pixel scale factor, {} to {} (default 1)", SCALES.start(), SCALES.end()))]
    scale: Option<u32>,
}

impl RenderArgs {
    /// The PNG request, with paths made absolute against the caller's directory and every
    /// option checked here, before anything is asked of the host.
    fn request(&self, path: Option<PathBuf>) -> Result<PngRequest, Failure> {
        let here = current_dir()?;
        let request = PngRequest {
            path: path.map(|p| here.join(p)),
            theme: self.theme.clone(),
            fonts: self.fonts.iter().map(|f| here.join(f)).collect(),
            font_size: self.font_size,
            scale: self.scale,
        };
        request.options()?;
        Ok(request)
    }
}

fn current_dir() -> Result<PathBuf, Failure> {
    std::env::current_dir().map_err(|e| Failure::internal(format!("reading the current directory: {e}")))
}

/// Prints one line on stdout. A reader that has gone away (`tuipilot describe | head`) is
/// not an error: the rest of the output is dropped and the command finishes normally (a
/// `once` still ends its program).
fn say(line: impl std::fmt::Display) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{line}").and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(Failure::internal(format!("writing the output: {e}")))
        }
        _ => Ok(()),
    }
}

/// `println!` through [`say`], returning its error from the calling function.
macro_rules! say {
    ($($arg:tt)*) => {
        say(format_args!($($arg)*))?
    };
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let json_wanted = std::env::args().any(|a| a == "--json");
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) if json_wanted && e.use_stderr() => {
            let first = e
                .to_string()
                .lines()
                .next()
                .unwrap_or("invalid arguments")
                .to_string();
            let message = first.trim_start_matches("error: ").to_string();
            let err = Failure::bad_request(format!("{message}; see `tuipilot --help`"));
            let _ = say(json!({ "error": err }));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let json = cli.json;
    match run(cli, &matches) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if json {
                let _ = say(json!({ "error": e }));
            } else {
                eprintln!("tuipilot: {e}");
            }
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cli: Cli, matches: &ArgMatches) -> Result<(), Failure> {
    let name = cli.session.as_str();
    let json = cli.json;
    match cli.command {
        Command::Start(args) => start(name, json, args),
        Command::Send {
            wait,
            timeout_ms,
            capture,
            ..
        } => {
            let steps = send_steps(
                matches
                    .subcommand_matches("send")
                    .ok_or_else(|| Failure::internal("the send arguments went missing"))?,
            )?;
            if steps.is_empty() && wait.is_none() && !capture {
                return Err(Failure::bad_request(
                    "nothing to send: give -t TEXT, -k KEYS, --paste TEXT or --sleep-ms N",
                ));
            }
            let operation = Operation::Send {
                steps,
                wait: wait.map(WaitFor::Text),
                timeout_ms,
                capture,
            };
            let reply = call(name, operation, timeout_ms)?;
            match reply.get("screen") {
                Some(screen) => print_screen(name, json, &decode(screen.clone())?, capture),
                None if json => print_json(name, &serde_json::json!({})),
                None => Ok(()),
            }
        }
        Command::Wait {
            text,
            no_text,
            output,
            stable,
            exit,
            timeout_ms,
        } => {
            let condition = match (text, no_text, output, stable) {
                (Some(re), ..) => WaitFor::Text(re),
                (_, Some(re), ..) => WaitFor::NoText(re),
                (_, _, Some(re), _) => WaitFor::Output(re),
                (.., Some(ms)) => WaitFor::StableMs(ms),
                _ if exit => WaitFor::Exit,
                _ => {
                    return Err(Failure::bad_request(
                        "give one of --text, --no-text, --output, --stable, --exit",
                    ));
                }
            };
            let is_exit = condition == WaitFor::Exit;
            let reply = call(
                name,
                Operation::Wait {
                    condition,
                    timeout_ms,
                },
                timeout_ms,
            )?;
            if is_exit {
                return print_exit(name, json, decode(reply)?);
            }
            print_screen(name, json, &decode(reply["screen"].clone())?, false)
        }
        Command::Capture {
            wait,
            timeout_ms,
            ansi,
            scrollback,
            png,
            render,
        } => {
            let png = png.map(|path| render.request(path)).transpose()?;
            let wants_png = png.is_some();
            let operation = Operation::Capture {
                wait: wait.map(WaitFor::Text),
                timeout_ms,
                ansi,
                scrollback,
                png,
            };
            let screen: Screen = decode(call(name, operation, timeout_ms)?["screen"].clone())?;
            if wants_png && !json {
                if let Some(path) = &screen.png {
                    say!("{}", path.display());
                }
                return Ok(());
            }
            print_screen(name, json, &screen, true)
        }
        Command::Exit { timeout_ms } => {
            let reply = call(name, Operation::Exit { timeout_ms }, timeout_ms)?;
            print_exit(name, json, decode(reply)?)
        }
        Command::Resize { cols, rows } => {
            let reply = call(name, Operation::Resize { cols, rows }, None)?;
            if json {
                print_json(name, &reply)?;
            }
            Ok(())
        }
        Command::List => list(json),
        Command::Mcp {
            allow,
            max_sessions,
            artifact_dir,
        } => crate::mcp::run(crate::mcp::McpConfig {
            allow,
            max_sessions,
            artifact_dir,
        })
        .map_err(Failure::internal),
        Command::Describe => {
            say!(
                "{}",
                serde_json::to_string_pretty(&describe()).unwrap_or_default()
            );
            Ok(())
        }
        Command::Once(args) => once(args, json),
    }
}

/// The runtime directory and the paths of session `name`, checked.
fn session_paths(name: &str) -> Result<SessionPaths, Failure> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    SessionPaths::new(&dir, name)
}

/// How long to wait for the host's answer: the request's own timeout plus a margin.
fn reply_timeout(timeout_ms: Option<u64>) -> Duration {
    Duration::from_millis(timeout_ms.map_or(120_000, |ms| ms.saturating_add(15_000)))
}

fn call(name: &str, operation: Operation, timeout_ms: Option<u64>) -> Result<Value, Failure> {
    let paths = session_paths(name)?;
    Client::request_once(&paths, &Request::Op(operation), reply_timeout(timeout_ms))
}

/// A reply's JSON as the typed reply it is.
fn decode<T: DeserializeOwned>(value: Value) -> Result<T, Failure> {
    serde_json::from_value(value)
        .map_err(|e| Failure::internal(format!("unreadable reply from the host: {e}")))
}

/// Prints `value` as JSON with the session's name added.
fn print_json(name: &str, value: &impl serde::Serialize) -> Result<(), Failure> {
    let mut value =
        serde_json::to_value(value).map_err(|e| Failure::internal(format!("encoding the output: {e}")))?;
    if let Value::Object(object) = &mut value {
        object.insert("session".into(), json!(name));
    }
    say!("{value}");
    Ok(())
}

/// Prints a screen: its text, or with `--json` its fields (`text`, `cols`, `rows`,
/// `cursor`, …) with the session's name.
fn print_screen(name: &str, json: bool, screen: &Screen, print_text: bool) -> Result<(), Failure> {
    if json {
        print_json(name, screen)
    } else {
        if print_text {
            say!("{}", screen.text);
        }
        Ok(())
    }
}

/// Prints how the program ended: `exited with code N` / `killed by SIGNAME`, or the JSON.
fn print_exit(name: &str, json: bool, exit: ExitReport) -> Result<(), Failure> {
    if json {
        print_json(name, &exit)
    } else {
        say!("{}", exit.words());
        Ok(())
    }
}

/// The send steps in the order they appeared on the command line.
fn send_steps(matches: &ArgMatches) -> Result<Vec<Step>, Failure> {
    let mut ordered: Vec<(usize, Step)> = Vec::new();
    let mut collect = |id: &str, make: &dyn Fn(&str) -> Result<Step, Failure>| {
        if let (Some(indices), Some(values)) = (matches.indices_of(id), matches.get_raw(id)) {
            for (index, value) in indices.zip(values) {
                ordered.push((index, make(&value.to_string_lossy())?));
            }
        }
        Ok::<(), Failure>(())
    };
    collect("text", &|v| Ok(Step::Text(v.to_string())))?;
    collect("key", &|v| Ok(Step::Keys(v.to_string())))?;
    collect("paste", &|v| Ok(Step::Paste(v.to_string())))?;
    collect("sleep_ms", &|v| {
        v.parse()
            .map(Step::SleepMs)
            .map_err(|_| Failure::bad_request(format!("invalid --sleep-ms `{v}`: expected milliseconds")))
    })?;
    ordered.sort_by_key(|(index, _)| *index);
    Ok(ordered.into_iter().map(|(_, step)| step).collect())
}

fn start(name: &str, json: bool, args: StartArgs) -> Result<(), Failure> {
    let StartArgs {
        cols,
        rows,
        cwd,
        env,
        scrollback,
        idle_timeout,
        command,
    } = args;
    let paths = session_paths(name)?;
    if paths.socket.exists() {
        match Client::connect(&paths) {
            Ok((_, hello)) => {
                let pid = hello.get("pid").and_then(Value::as_i64).unwrap_or(0);
                return Err(Failure::bad_request(format!(
                    "session `{name}` is already running (pid {pid}): end it with `tuipilot exit -s {name}` or choose another name with -s"
                )));
            }
            // Its host is gone: clean up and reuse the name.
            Err(e) if e.code == ErrorCode::NoSession => paths.remove(),
            Err(e) => return Err(e),
        }
    }
    let env = env
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
            _ => Err(Failure::bad_request(format!(
                "invalid --env `{pair}`: expected KEY=VALUE"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let here = current_dir()?;
    let spec = HostSpec {
        start: StartSpec {
            command: command.clone(),
            cols,
            rows,
            // Absolute: the host resolves nothing against a directory of its own.
            cwd: Some(cwd.map(|d| here.join(d)).unwrap_or(here)),
            env,
            scrollback,
            timeout_ms: None,
        },
        idle_timeout_secs: idle_timeout,
    };
    let reply = launch_host(&paths, &spec)?;
    let pid = reply.get("pid").and_then(Value::as_i64).unwrap_or(0);
    if json {
        say!(
            "{}",
            json!({ "session": name, "pid": pid, "cols": cols, "rows": rows, "command": command })
        );
    } else {
        say!(
            "session {name} started: pid {pid}, {cols}x{rows}, {}",
            command.join(" ")
        );
    }
    Ok(())
}

/// Starts the host in the background and waits for its ready (or error) line.
fn launch_host(paths: &SessionPaths, spec: &HostSpec) -> Result<Value, Failure> {
    let log = std::fs::File::create(&paths.log)
        .map_err(|e| Failure::internal(format!("creating the log {}: {e}", paths.log.display())))?;
    let dir = paths.socket.parent().unwrap_or(Path::new("."));
    // SAFETY: the command line runs on the main thread alone: nothing before this point
    // (argument parsing, runtime-directory checks) starts a thread.
    let (pid, ready) = unsafe { server::fork(dir, &paths.name, spec, log) }?;
    let mut line = String::new();
    let _ = BufReader::new(std::fs::File::from(ready)).read_line(&mut line);
    let reap = || {
        // SAFETY: waitpid on our own child, writing only the status integer.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    };
    if line.trim().is_empty() {
        reap();
        let log = std::fs::read_to_string(&paths.log).unwrap_or_default();
        paths.remove();
        return Err(Failure::internal(format!(
            "the session host stopped before it was ready: {}",
            log.lines().last().unwrap_or("no message")
        )));
    }
    let response: protocol::Response = serde_json::from_str(&line)
        .map_err(|e| Failure::internal(format!("unreadable host handshake: {e}")))?;
    match (response.ok, response.error) {
        (Some(ok), None) => Ok(ok),
        (_, Some(error)) => {
            reap();
            paths.remove();
            Err(error)
        }
        _ => Err(Failure::internal(
            "the host's handshake has neither `ok` nor `error`",
        )),
    }
}

fn list(json: bool) -> Result<(), Failure> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    let mut rows = Vec::new();
    for name in session_names(&dir) {
        let paths = SessionPaths::new(&dir, &name)?;
        let info = Client::connect(&paths)
            .and_then(|(mut c, _)| c.call(&Request::Op(Operation::Info), Duration::from_secs(5)));
        match info.and_then(decode::<HostInfo>) {
            Ok(info) => rows.push(info),
            // A socket nobody answers on belongs to a host that is gone.
            Err(e) if e.code == ErrorCode::NoSession => paths.remove(),
            Err(e) => return Err(e),
        }
    }
    if json {
        let rows = serde_json::to_value(&rows).map_err(|e| Failure::internal(e.to_string()))?;
        say!("{rows}");
        return Ok(());
    }
    if rows.is_empty() {
        say!("no sessions");
        return Ok(());
    }
    say!(
        "{:<16} {:>8}  {:<9} {:<18} {:>7}  COMMAND",
        "NAME",
        "PID",
        "SIZE",
        "STATUS",
        "AGE"
    );
    for r in &rows {
        say!(
            "{:<16} {:>8}  {:<9} {:<18} {:>6}s  {}",
            r.session,
            r.info.pid,
            format!("{}x{}", r.info.cols, r.info.rows),
            r.info.exit.words(),
            r.info.age_secs,
            r.info.command
        );
    }
    Ok(())
}

/// The machine-readable catalogue behind `describe`.
fn describe() -> Value {
    let command = Cli::command();
    let arg_json = |arg: &clap::Arg| {
        json!({
            "name": arg.get_id().as_str(),
            "long": arg.get_long().map(|l| format!("--{l}")),
            "short": arg.get_short().map(|s| format!("-{s}")),
            "value": arg.get_value_names().and_then(|v| v.first()).map(|v| v.to_string()),
            "help": arg.get_help().map(|h| h.to_string()),
            "required": arg.is_required_set(),
            "repeatable": matches!(arg.get_action(), ArgAction::Append),
            "default": arg.get_default_values().first().map(|v| v.to_string_lossy().into_owned()),
            "positional": arg.is_positional(),
        })
    };
    let skip = |arg: &&clap::Arg| !matches!(arg.get_id().as_str(), "help" | "version" | "session" | "json");
    let commands: Vec<Value> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| {
            json!({
                "name": c.get_name(),
                "about": c.get_about().map(|a| a.to_string()),
                "args": c.get_arguments().filter(skip).map(arg_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    let globals: Vec<Value> = command
        .get_arguments()
        .filter(|a| matches!(a.get_id().as_str(), "session" | "json"))
        .map(arg_json)
        .collect();
    json!({
        "name": "tuipilot",
        "version": env!("CARGO_PKG_VERSION"),
        "global_args": globals,
        "commands": commands,
        "keys": {
            "names": tuipilot::keys::KEY_NAMES,
            "modifiers": tuipilot::keys::MODIFIER_PREFIXES,
            "single_characters": "any one printable character is itself",
            "lists": "several keys separated by spaces or commas: 'Down Down Enter'",
            "examples": ["Enter", "C-c", "M-x", "S-Tab", "C-S-Up", "Ctrl+C", "^C", "F5", "q"],
        },
        "exit_codes": {
            "0": "success",
            "1": "a wait or condition was not met (timeout, or the program exited first)",
            "2": "usage or operational error (unknown key, bad regex, no such session, program not found, host unreachable)",
        },
        "protocol": {
            "version": protocol::PROTOCOL_VERSION,
            "transport": "Unix socket NAME.sock in the runtime directory; one JSON object per line",
            "max_line_bytes": protocol::MAX_LINE,
            "operations": protocol::CAPABILITIES,
            "error_codes": ErrorCode::ALL
                .iter()
                .map(|(code, meaning)| json!({ "code": code, "meaning": meaning, "exit_status": Failure::new(*code, "").exit_code() }))
                .collect::<Vec<_>>(),
        },
        "runtime_dir": runtime_dir_from_env(),
    })
}

/// `once`: the same operations as a session's, applied in one process — start, wait,
/// press keys, wait for a quiet screen, capture, exit.
fn once(args: OnceArgs, json: bool) -> Result<(), Failure> {
    let OnceArgs {
        cols,
        rows,
        wait,
        keys,
        stable,
        timeout_ms,
        ansi,
        png,
        render,
        command,
    } = args;
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
        });
    }
    operations.push(Operation::Wait {
        condition: WaitFor::StableMs(stable),
        timeout_ms,
    });
    operations.push(Operation::Capture {
        wait: None,
        timeout_ms,
        ansi,
        scrollback: false,
        png: png.map(|p| render.request(Some(p))).transpose()?,
    });
    // Check every operation before starting anything: a bad key or regex fails at once.
    for operation in &operations {
        operation.check()?;
    }
    let session = StartSpec {
        cols,
        rows,
        ..StartSpec::new(command)
    }
    .spawn()?;
    let mut screen = None;
    for operation in &operations {
        if let tuipilot::Reply::Screen { screen: s } = session.apply(operation)? {
            screen = Some(s);
        }
    }
    let screen = screen.ok_or_else(|| Failure::internal("the capture returned no screen"))?;
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
