//! The command line: clap definitions and thin handlers.
//!
//! Session commands are clients of a per-session host ([`crate::host`]); `once` uses
//! the library directly. Output is text for people or, with `--json`, one JSON value on
//! stdout; errors are one line (`tuipilot: …` on stderr, or `{"error":{…}}` with `--json`).
//! Exit codes: 0 success, 1 a wait or condition not met, 2 usage or operational error.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command as Process, ExitCode, Stdio};
use std::time::Duration;

use clap::{ArgAction, ArgGroup, ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use serde_json::{Value, json};

use crate::host::client::Client;
use crate::host::paths::{SessionPaths, ensure_runtime_dir, runtime_dir_from_env, session_names};
use crate::host::protocol::{self, ErrorCode, HostError, Request, SendAction, WaitFor};
use crate::host::server::{self, HostSpec};
use tuipilot::{Condition, Session};

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
    /// Wait for text, output, a quiet screen or the program's exit.
    #[command(group(ArgGroup::new("condition").required(true).args(["text", "output", "stable", "exit"])))]
    Wait {
        /// A regex on the visible screen.
        #[arg(long, value_name = "REGEX")]
        text: Option<String>,
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
    #[command(name = "__host", hide = true)]
    Host {
        #[arg(long)]
        dir: PathBuf,
        #[arg(long)]
        spec: String,
    },
}

/// `start`'s arguments.
#[derive(clap::Args)]
struct StartArgs {
    /// Terminal width in columns (10-1000).
    #[arg(long, default_value_t = 80)]
    cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = 24)]
    rows: u16,
    /// Working directory of the program (default: the current directory).
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Set an environment variable for the program (repeatable).
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Lines of scrollback to keep.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    scrollback: usize,
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
    #[arg(long, default_value_t = 80)]
    cols: u16,
    /// Terminal height in rows (2-1000).
    #[arg(long, default_value_t = 24)]
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
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    timeout_ms: u64,
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
    #[arg(long, value_name = "NAME")]
    theme: Option<String>,
    /// A fallback font file for characters the bundled fonts lack (repeatable).
    #[arg(long = "font", value_name = "PATH")]
    fonts: Vec<PathBuf>,
    /// Font size in pixels (default 16).
    #[arg(long, value_name = "PX")]
    font_size: Option<f32>,
    /// Pixel scale, 1 or 2 (default 1).
    #[arg(long, value_name = "N")]
    scale: Option<u32>,
}

impl RenderArgs {
    /// The protocol form, with paths made absolute against the caller's directory.
    fn request(&self, path: Option<PathBuf>) -> Result<protocol::PngRequest, HostError> {
        let here = std::env::current_dir()
            .map_err(|e| HostError::internal(format!("reading the current directory: {e}")))?;
        let request = protocol::PngRequest {
            path: path.map(|p| here.join(p).to_string_lossy().into_owned()),
            theme: self.theme.clone(),
            fonts: self
                .fonts
                .iter()
                .map(|f| here.join(f).to_string_lossy().into_owned())
                .collect(),
            font_size: self.font_size,
            scale: self.scale,
        };
        // Refuse a bad theme or font here, before anything is asked of the host.
        request.options()?;
        for font in &request.fonts {
            tuipilot::render::check_font(Path::new(font))?;
        }
        Ok(request)
    }
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
            let err = HostError::bad_request(format!("{message}; see `tuipilot --help`"));
            println!("{}", json!({ "error": err }));
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
                println!("{}", json!({ "error": e }));
            } else {
                eprintln!("tuipilot: {e}");
            }
            ExitCode::from(if e.is_unmet_condition() { 1 } else { 2 })
        }
    }
}

fn run(cli: Cli, matches: &ArgMatches) -> Result<(), HostError> {
    let name = cli.session.as_str();
    let json = cli.json;
    match cli.command {
        Command::Host { dir, spec } => {
            let spec: HostSpec = serde_json::from_str(&spec)
                .map_err(|e| HostError::bad_request(format!("bad host spec: {e}")))?;
            std::process::exit(server::run(&dir, name, spec));
        }
        Command::Start(args) => start(name, json, args),
        Command::Send {
            wait,
            timeout_ms,
            capture,
            ..
        } => {
            let actions = send_actions(
                matches
                    .subcommand_matches("send")
                    .ok_or_else(|| HostError::internal("the send arguments went missing"))?,
            );
            if actions.is_empty() && wait.is_none() && !capture {
                return Err(HostError::bad_request(
                    "nothing to send: give -t TEXT, -k KEYS, --paste TEXT or --sleep-ms N",
                ));
            }
            let request = Request::Send {
                actions,
                wait,
                timeout_ms,
                capture,
            };
            let reply = call(name, &request, timeout_ms)?;
            print_screen_reply(name, json, &reply, capture)
        }
        Command::Wait {
            text,
            output,
            stable,
            exit,
            timeout_ms,
        } => {
            let condition = match (text, output, stable) {
                (Some(re), _, _) => WaitFor::Text(re),
                (_, Some(re), _) => WaitFor::Output(re),
                (_, _, Some(ms)) => WaitFor::StableMs(ms),
                _ if exit => WaitFor::Exit,
                _ => {
                    return Err(HostError::bad_request(
                        "give one of --text, --output, --stable, --exit",
                    ));
                }
            };
            let is_exit = condition == WaitFor::Exit;
            let reply = call(
                name,
                &Request::Wait {
                    condition,
                    timeout_ms,
                },
                timeout_ms,
            )?;
            if !is_exit {
                return print_screen_reply(name, json, &reply, false);
            }
            if json {
                println!("{}", with_session(name, reply));
            } else {
                println!("{}", status_words(&reply));
            }
            Ok(())
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
            let request = Request::Capture {
                wait,
                timeout_ms,
                ansi,
                scrollback,
                png,
            };
            let reply = call(name, &request, timeout_ms)?;
            if wants_png && !json {
                if let Some(path) = reply.pointer("/screen/png").and_then(Value::as_str) {
                    println!("{path}");
                }
                return Ok(());
            }
            print_screen_reply(name, json, &reply, true)
        }
        Command::Exit { timeout_ms } => {
            let reply = call(name, &Request::Exit { timeout_ms }, timeout_ms)?;
            if json {
                println!("{}", with_session(name, reply));
            } else {
                println!("{}", status_words(&reply));
            }
            Ok(())
        }
        Command::Resize { cols, rows } => {
            let reply = call(name, &Request::Resize { cols, rows }, None)?;
            if json {
                println!("{}", with_session(name, reply));
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
        .map_err(HostError::internal),
        Command::Describe => {
            println!(
                "{}",
                serde_json::to_string_pretty(&describe()).unwrap_or_default()
            );
            Ok(())
        }
        Command::Once(args) => once(args, json),
    }
}

/// The runtime directory and the paths of session `name`, checked.
fn session_paths(name: &str) -> Result<SessionPaths, HostError> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    SessionPaths::new(&dir, name)
}

/// How long to wait for the host's answer: the request's own timeout plus a margin.
fn reply_timeout(timeout_ms: Option<u64>) -> Duration {
    Duration::from_millis(timeout_ms.map_or(120_000, |ms| ms.saturating_add(15_000)))
}

fn call(name: &str, request: &Request, timeout_ms: Option<u64>) -> Result<Value, HostError> {
    let paths = session_paths(name)?;
    Client::request_once(&paths, request, reply_timeout(timeout_ms))
}

fn with_session(name: &str, mut reply: Value) -> Value {
    if let Value::Object(object) = &mut reply {
        object.insert("session".into(), json!(name));
    }
    reply
}

/// Prints a reply that may carry a screen: its text, or with `--json` the screen's
/// fields (`text`, `cols`, `rows`, `cursor`, …) at the top level with the session name.
fn print_screen_reply(name: &str, json: bool, reply: &Value, print_text: bool) -> Result<(), HostError> {
    let screen = reply.get("screen").cloned().unwrap_or_else(|| json!({}));
    if json {
        println!("{}", with_session(name, screen));
    } else if print_text && let Some(text) = screen.get("text").and_then(Value::as_str) {
        println!("{text}");
    }
    Ok(())
}

/// `exited with code N` / `killed by SIGNAME`.
fn status_words(reply: &Value) -> String {
    match (
        reply.get("exit_code").and_then(Value::as_i64),
        reply.get("signal").and_then(Value::as_str),
    ) {
        (_, Some(signal)) => format!("killed by {signal}"),
        (Some(code), _) => format!("exited with code {code}"),
        _ => "running".to_string(),
    }
}

/// The send actions in the order they appeared on the command line.
fn send_actions(matches: &ArgMatches) -> Vec<SendAction> {
    let mut ordered: Vec<(usize, SendAction)> = Vec::new();
    let mut collect = |id: &str, make: &dyn Fn(&str) -> SendAction| {
        if let (Some(indices), Some(values)) = (matches.indices_of(id), matches.get_raw(id)) {
            for (index, value) in indices.zip(values) {
                ordered.push((index, make(&value.to_string_lossy())));
            }
        }
    };
    collect("text", &|v| SendAction::Text(v.to_string()));
    collect("key", &|v| SendAction::Keys(v.to_string()));
    collect("paste", &|v| SendAction::Paste(v.to_string()));
    collect("sleep_ms", &|v| SendAction::SleepMs(v.parse().unwrap_or(0)));
    ordered.sort_by_key(|(index, _)| *index);
    ordered.into_iter().map(|(_, action)| action).collect()
}

fn start(name: &str, json: bool, args: StartArgs) -> Result<(), HostError> {
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
                return Err(HostError::bad_request(format!(
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
            _ => Err(HostError::bad_request(format!(
                "invalid --env `{pair}`: expected KEY=VALUE"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let here = std::env::current_dir()
        .map_err(|e| HostError::internal(format!("reading the current directory: {e}")))?;
    let cwd = cwd.map(|d| here.join(d)).unwrap_or(here);
    if !cwd.is_dir() {
        return Err(HostError::bad_request(format!(
            "working directory `{}` is not a directory: create it or pass an existing one",
            cwd.display()
        )));
    }
    let spec = HostSpec {
        command: command.clone(),
        cols,
        rows,
        cwd: Some(cwd),
        env,
        scrollback,
        idle_timeout_secs: idle_timeout,
    };
    let reply = launch_host(&paths, &spec)?;
    let pid = reply.get("pid").and_then(Value::as_i64).unwrap_or(0);
    if json {
        println!(
            "{}",
            json!({ "session": name, "pid": pid, "cols": cols, "rows": rows, "command": command })
        );
    } else {
        println!(
            "session {name} started: pid {pid}, {cols}x{rows}, {}",
            command.join(" ")
        );
    }
    Ok(())
}

/// Starts the host in the background and waits for its ready (or error) line.
fn launch_host(paths: &SessionPaths, spec: &HostSpec) -> Result<Value, HostError> {
    let exe = std::env::current_exe()
        .map_err(|e| HostError::internal(format!("finding the tuipilot binary: {e}")))?;
    let log = std::fs::File::create(&paths.log)
        .map_err(|e| HostError::internal(format!("creating the log {}: {e}", paths.log.display())))?;
    let dir = paths.socket.parent().unwrap_or(Path::new("."));
    let spec_json = serde_json::to_string(spec).map_err(|e| HostError::internal(e.to_string()))?;
    let mut host = Process::new(exe)
        .arg("__host")
        .arg("--dir")
        .arg(dir)
        .args(["-s", &paths.name, "--spec", &spec_json])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(log)
        .process_group(0)
        .spawn()
        .map_err(|e| HostError::internal(format!("starting the session host: {e}")))?;
    let mut line = String::new();
    if let Some(stdout) = host.stdout.take() {
        let _ = BufReader::new(stdout).read_line(&mut line);
    }
    if line.trim().is_empty() {
        let _ = host.wait();
        let log = std::fs::read_to_string(&paths.log).unwrap_or_default();
        paths.remove();
        return Err(HostError::internal(format!(
            "the session host stopped before it was ready: {}",
            log.lines().last().unwrap_or("no message")
        )));
    }
    let response: protocol::Response = serde_json::from_str(&line)
        .map_err(|e| HostError::internal(format!("unreadable host handshake: {e}")))?;
    match (response.ok, response.error) {
        (Some(ok), None) => Ok(ok),
        (_, Some(error)) => {
            let _ = host.wait();
            paths.remove();
            Err(error)
        }
        _ => Err(HostError::internal(
            "the host's handshake has neither `ok` nor `error`",
        )),
    }
}

fn list(json: bool) -> Result<(), HostError> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    let mut rows = Vec::new();
    for name in session_names(&dir) {
        let paths = SessionPaths::new(&dir, &name)?;
        let info =
            Client::connect(&paths).and_then(|(mut c, _)| c.call(&Request::Info, Duration::from_secs(5)));
        match info {
            Ok(info) => rows.push(info),
            // A socket nobody answers on belongs to a host that is gone.
            Err(e) if e.code == ErrorCode::NoSession => paths.remove(),
            Err(e) => return Err(e),
        }
    }
    if json {
        println!("{}", Value::Array(rows));
        return Ok(());
    }
    if rows.is_empty() {
        println!("no sessions");
        return Ok(());
    }
    println!(
        "{:<16} {:>8}  {:<9} {:<18} {:>7}  COMMAND",
        "NAME", "PID", "SIZE", "STATUS", "AGE"
    );
    let cell = |v: Value| match v {
        Value::String(s) => s,
        other => other.to_string(),
    };
    for r in &rows {
        let get = |k: &str| r.get(k).cloned().unwrap_or(Value::Null);
        let status = if get("running") == json!(true) {
            "running".to_string()
        } else {
            status_words(r)
        };
        println!(
            "{:<16} {:>8}  {:<9} {:<18} {:>6}s  {}",
            cell(get("session")),
            cell(get("pid")),
            format!("{}x{}", cell(get("cols")), cell(get("rows"))),
            status,
            cell(get("age_secs")),
            cell(get("command"))
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
            "error_codes": ["bad_request", "no_session", "timeout", "exited", "unsupported", "internal"],
        },
        "runtime_dir": runtime_dir_from_env(),
    })
}

fn once(args: OnceArgs, json: bool) -> Result<(), HostError> {
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
    let png = png.map(|p| render.request(Some(p))).transpose()?;
    // Check every key name before starting anything.
    let keys = keys
        .iter()
        .map(|spec| tuipilot::keys::parse_key_list(spec))
        .collect::<tuipilot::Result<Vec<_>>>()?;
    let condition = wait.as_deref().map(Condition::text).transpose()?;
    let session = Session::builder(&command[0])
        .args(&command[1..])
        .size(cols, rows)
        .timeout(Duration::from_millis(timeout_ms))
        .spawn()?;
    if let Some(condition) = condition {
        session.wait(&condition)?;
    }
    for key in keys.into_iter().flatten() {
        session.press_key(key)?;
    }
    let screen = session.wait_stable(Duration::from_millis(stable))?;
    let text = if ansi { screen.ansi() } else { screen.text() };
    let mut out = protocol::screen_json(&screen, text.clone());
    if let Some(request) = png {
        let path = PathBuf::from(request.path.clone().unwrap_or_default());
        let (width, height) = screen.save_png(&path, &request.options()?)?;
        out["png"] = json!(path);
        out["width"] = json!(width);
        out["height"] = json!(height);
    }
    if json {
        println!("{out}");
    } else {
        println!("{text}");
    }
    let _ = std::io::stdout().flush();
    session.exit()?;
    Ok(())
}
