//! `tuipilot mcp`: the engine as one MCP tool, `terminal`, over stdio (rmcp).
//!
//! The server translates each tool call into the library's operations ([`Operation`],
//! applied by [`Session::apply`], the executor every face shares) and their replies into
//! MCP content; failures become error results with the same codes as the CLI's
//! ([`crate::error`]). Sessions belong to the server process and are all ended when the
//! client disconnects or stdin closes. A watchdog, forked before the runtime starts, ends
//! them too if the server itself is killed. Nothing but protocol messages is written to
//! stdout.
//!
//! One deliberate difference from the other faces: screens are capped at
//! [`MAX_COLS`]×[`MAX_ROWS`] cells (the library allows 1000×1000), because every capture
//! returns an image to a model.
//!
//! `args` holds the tool's arguments (the schema a model reads) and their translation;
//! `framing` the stdio layer that answers lines rmcp would drop.

mod args;
mod exports;
mod framing;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};

use tuipilot::files::{Access, Folder};
use tuipilot::operation::{PngRequest, Screen, WaitFor};
use tuipilot::{Operation, Reply, Session, StartSpec};

use args::{Action, CommandLine, TerminalArgs};

use crate::allow::AllowList;
use crate::error::{ErrorCode, Failure};
use crate::watchdog::Watchdog;

/// Widest screen the server will start or resize to (and so render).
pub const MAX_COLS: u16 = 400;
/// Tallest screen the server will start or resize to.
pub const MAX_ROWS: u16 = 200;

/// How the server was started.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// Programs `start` may run, and what a request may set around them; `None`: any.
    pub allow: Option<AllowList>,
    /// Most sessions at once.
    pub max_sessions: usize,
    /// Where captures are also saved; without it the server writes no files.
    pub artifact_dir: Option<PathBuf>,
}

/// The MCP server.
#[derive(Clone)]
pub struct TerminalServer {
    tool_router: ToolRouter<Self>,
    state: Arc<State>,
}

struct State {
    config: McpConfig,
    /// The artifact directory, opened once: every file is created relative to it, so no
    /// link, `..` or rename of a directory above it leads a write outside it.
    artifacts: Option<Folder>,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// How each session was started (what `export` replays).
    starts: Mutex<HashMap<String, StartSpec>>,
    watchdog: Option<Watchdog>,
    captures: std::sync::atomic::AtomicUsize,
    /// Sessions started with `attach`: watchable by name until they end.
    watch_points: Mutex<HashMap<String, tuipilot::live::point::WatchPoint>>,
}

fn fail<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure::bad_request(message))
}

/// How long a send with no wait of its own waits for the program to be ready, unless the
/// call gives `timeout_ms`: long enough for a program to answer a key, short enough that a
/// program that never rests (a flood) costs little.
const DEFAULT_READY_MS: u64 = 3000;

const TOOL_DESCRIPTION: &str = "Operate a terminal program like a person at a keyboard: start it in a real terminal, type text and press keys, wait for the screen to show something, and look at the screen as text plus a PNG screenshot.
Actions: start (command, optional cols/rows/cwd/env; attach=true lets a person watch the session live from another terminal with `tuipilot -s NAME attach`), send (text, then paste, then keys, then mouse actions, then focus, then sleep_ms; with no wait it waits until the program has reacted and reads input again — up to 3 s or timeout_ms, then the screen as it is with why — and returns the screen, or with wait_ready=false returns at once; with a wait — wait_pattern, wait_absent, wait_line, wait_output, stable_ms, wait_exit, wait_command (the shell command finished: command_exit and last_command rows in the reply), wait_bell, wait_ready (the program finished reacting and waits for input, asked of the kernel: no text to predict), wait_prompt (a shell at its prompt), wait_title or wait_cwd — it waits after the input and returns the screen, or fails with the screen it saw), capture (the screen as text without its trailing empty rows, or with changed_only=true only the rows changed since the previous reply under a one-line header; a PNG image unless image=false; cursor/size/title/exit status, settled_ms and changed_rows; after an optional wait), wait (one of wait_pattern, wait_absent, wait_line, wait_output, stable_ms, wait_exit, wait_command, wait_bell, wait_ready, wait_prompt, wait_title, wait_cwd), resize (cols, rows), exit (ends the program and everything it started; returns its exit status), list, export (what was done in the session as a replayable tape, or a Rust test with rust=true; hermetic by default — it replays in a fresh HOME of its own, inside a copy of the session's world (its folder and the files its command named, as they were when it started, written to the artifact directory as NAME.world/; without_world=true carries none), with the files named in with copied in, or where the session ran with in_place=true; from=NAME.cast exports a session recorded with start's record after it ended; verify=true replays it once first and fails naming the line that would fail; also written to the artifact directory when the server has one), report (the session's report in Markdown: every step with why its wait ended, the failing step explained with the screen as text; report.html, report.md and report.json also written to the artifact directory when the server has one).
Enter is not implied: to run a command send text \"ls\" with keys [\"Enter\"]. Key names: Enter Tab Esc Space Backspace Up Down Left Right Home End PageUp PageDown Insert Delete F1-F12, single characters, with C- (Ctrl), M- (Alt), S- (Shift): C-c, C-d, M-x, S-Tab.
Waiting on a pattern beats sleeping: it returns as soon as the text appears and fails with the screen it saw when it does not. Wait for a program's prompt before typing to it.";

#[tool_router]
impl TerminalServer {
    fn new(config: McpConfig, artifacts: Option<Folder>, watchdog: Option<Watchdog>) -> TerminalServer {
        TerminalServer {
            tool_router: Self::tool_router(),
            state: Arc::new(State {
                config,
                artifacts,
                sessions: Mutex::new(HashMap::new()),
                starts: Mutex::new(HashMap::new()),
                watchdog,
                captures: std::sync::atomic::AtomicUsize::new(0),
                watch_points: Mutex::new(HashMap::new()),
            }),
        }
    }

    #[tool(description = TOOL_DESCRIPTION)]
    async fn terminal(&self, Parameters(args): Parameters<TerminalArgs>) -> Result<CallToolResult, McpError> {
        let state = self.state.clone();
        let outcome = tokio::task::spawn_blocking(move || state.handle(args))
            .await
            .unwrap_or_else(|e| Err(Failure::internal(format!("the tool call failed: {e}"))));
        Ok(match outcome {
            Ok(result) => result,
            Err(failure) => error_result(&failure),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TerminalServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(rmcp::model::Implementation::new("tuipilot", env!("CARGO_PKG_VERSION")))
            .with_instructions(
            "tuipilot: drive terminal programs (TUIs, shells, REPLs) with the `terminal` tool and see their screen as text and PNG.",
        )
    }
}

fn sanitize(name: &str) -> String {
    let cleaned: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    cleaned.trim_start_matches('.').to_string()
}

/// An MCP error result: the message (for a failed wait, the report with the screen it
/// saw) as text, and the code as structured content, as the CLI's `--json` has it.
fn error_result(failure: &Failure) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(failure.to_string())]);
    result.structured_content =
        Some(json!({ "error": { "code": failure.code, "message": failure.message } }));
    result
}

impl State {
    fn session(&self, name: &str) -> Result<Arc<Session>, Failure> {
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        match sessions.get(name) {
            Some(s) => Ok(s.clone()),
            None => Err(Failure::new(
                ErrorCode::NoSession,
                format!(
                    "no session named `{name}`: start one with action \"start\" (sessions: {})",
                    if sessions.is_empty() {
                        "none".to_string()
                    } else {
                        sessions.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ),
            )),
        }
    }

    fn handle(&self, args: TerminalArgs) -> Result<CallToolResult, Failure> {
        let name = args.session.clone().unwrap_or_else(|| "default".to_string());
        match args.action {
            Action::Start => self.start(&name, &args),
            Action::Send => {
                let steps = args.steps();
                let wait = args.wait()?;
                if steps.is_empty() && wait.is_none() {
                    return fail("send needs text, paste, keys, mouse, focus or sleep_ms");
                }
                // Input with no wait of its own waits until the program has reacted and
                // reads again (`wait_ready: false` sends and returns at once).
                let ready_by_default = wait.is_none() && args.wait_ready != Some(false);
                let wait = if ready_by_default {
                    Some(WaitFor::Settle)
                } else {
                    wait
                };
                let timeout_ms = match ready_by_default {
                    true => Some(args.timeout_ms.unwrap_or(DEFAULT_READY_MS)),
                    false => args.timeout_ms,
                };
                let capture = wait.is_some();
                let operation = Operation::Send {
                    steps,
                    wait,
                    timeout_ms,
                    capture,
                    secret: args.secret == Some(true),
                };
                match self.session(&name)?.apply(&operation)? {
                    Reply::Screen { screen } => {
                        // Still busy when the time was up: the screen as it is, and why.
                        let busy = screen.not_ready().map(str::to_string);
                        let mut result = screen_result(&name, screen, false);
                        result.content.extend(busy.map(ContentBlock::text));
                        Ok(result)
                    }
                    _ => Ok(CallToolResult::success(vec![ContentBlock::text("sent")])),
                }
            }
            Action::Capture => {
                let png = match args.image.unwrap_or(true) {
                    false => None,
                    true => Some(PngRequest {
                        path: None,
                        theme: args.theme.clone(),
                        fonts: Vec::new(),
                        font_size: args.font_size,
                        scale: args.scale,
                        ..PngRequest::default()
                    }),
                };
                let operation = Operation::Capture {
                    wait: args.wait()?,
                    timeout_ms: args.timeout_ms,
                    ansi: false,
                    scrollback: false,
                    png: png.map(Box::new),
                    svg: None,
                    text: true,
                    mask: args.mask.clone().unwrap_or_default(),
                    scrolled_back: 0,
                };
                match self.session(&name)?.apply(&operation)? {
                    Reply::Screen { mut screen } => {
                        self.save_capture(&name, &mut screen)?;
                        Ok(screen_result(&name, screen, args.changed_only == Some(true)))
                    }
                    other => Err(unexpected(&other)),
                }
            }
            Action::Wait => {
                let Some(condition) = args.wait()? else {
                    return fail(
                        "wait needs one of wait_pattern, wait_absent, wait_line, wait_output, stable_ms, wait_exit, wait_command, wait_bell, wait_ready, wait_prompt, wait_title, wait_cwd",
                    );
                };
                let operation = Operation::Wait {
                    condition,
                    timeout_ms: args.timeout_ms,
                };
                match self.session(&name)?.apply(&operation)? {
                    Reply::Screen { screen } => Ok(screen_result(&name, screen, false)),
                    Reply::Exit(exit) => Ok(exit_result(&name, exit)),
                    other => Err(unexpected(&other)),
                }
            }
            Action::Resize => {
                let (cols, rows) = args.size()?;
                self.session(&name)?.apply(&Operation::Resize { cols, rows })?;
                Ok(structured(
                    format!("resized `{name}` to {cols}x{rows}"),
                    json!({ "session": name, "cols": cols, "rows": rows }),
                ))
            }
            Action::Exit => {
                let operation = Operation::Exit {
                    timeout_ms: args.timeout_ms,
                };
                // Checked before the session is touched: a refused request ends nothing.
                operation.check()?;
                let session = self.session(&name)?;
                // Forgotten whatever the outcome: an ended session cannot be ended again.
                self.sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&name);
                self.watch_points
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&name);
                self.starts
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&name);
                let reply = session.apply(&operation)?;
                if let Some(w) = &self.watchdog {
                    let _ = w.disarm(session.pid());
                }
                match reply {
                    Reply::Exit(exit) => Ok(exit_result(&name, exit)),
                    other => Err(unexpected(&other)),
                }
            }
            Action::Export => self.export(&name, &args),
            Action::Report => self.report(&name),
            Action::List => {
                let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
                let mut list = Vec::new();
                for (name, session) in sessions.iter() {
                    let mut entry = serde_json::to_value(session.info()).unwrap_or_default();
                    entry["session"] = json!(name);
                    list.push(entry);
                }
                list.sort_by(|a, b| a["session"].as_str().cmp(&b["session"].as_str()));
                let text = if list.is_empty() {
                    "no sessions".to_string()
                } else {
                    Value::Array(list.clone()).to_string()
                };
                Ok(structured(text, json!({ "sessions": list })))
            }
        }
    }

    /// Saves a capture's PNG as a numbered file in the artifact directory, if the server
    /// has one, and notes its path in the screen.
    fn save_capture(&self, name: &str, screen: &mut Screen) -> Result<(), Failure> {
        let (Some(dir), Some(png)) = (&self.artifacts, &screen.png_bytes) else {
            return Ok(());
        };
        let n = self.captures.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        let file = artifact_name(&format!("{name}-{n:04}.png"))?;
        screen.png = Some(dir.write(file.as_ref(), png, Access::Shared)?);
        Ok(())
    }

    fn start(&self, name: &str, args: &TerminalArgs) -> Result<CallToolResult, Failure> {
        crate::host::paths::check_name(name)?;
        let mut argv = match &args.command {
            Some(CommandLine::Line(line)) => tuipilot::operation::split_command(line)?,
            Some(CommandLine::Argv(argv)) => argv.clone(),
            None => Vec::new(),
        };
        let Some(program) = argv.first() else {
            return fail("start needs a command, e.g. \"bash\" or [\"python3\", \"app.py\"]");
        };
        let env: Vec<(String, String)> = args
            .env
            .iter()
            .flatten()
            .map(|(k, v)| match v {
                Some(v) => Ok((k.clone(), v.clone())),
                // By name: the value is the server's, as `start --env NAME` takes the caller's.
                None => std::env::var(k).map(|v| (k.clone(), v)).map_err(|_| {
                    Failure::bad_request(format!(
                        "env {k}: null passes {k} on from the MCP server's environment, and it is not set there: set it where the server starts, or give the value"
                    ))
                }),
            })
            .collect::<Result<_, Failure>>()?;
        let cwd = args.cwd.as_ref().map(PathBuf::from);
        if let Some(allow) = &self.config.allow {
            // Run exactly the file that was checked, whatever PATH the session gets.
            let resolved = allow.check(program, &env, cwd.as_deref())?;
            argv[0] = resolved.to_string_lossy().into_owned();
            // (The allow-list resolved a UTF-8 name to its file; a path that is not UTF-8
            // is refused by the check before this.)
        }
        let (cols, rows) = args.size()?;
        let record = match (&args.record, &self.artifacts) {
            (None, _) => None,
            (Some(file), Some(dir)) => Some((dir, artifact_name(file)?)),
            (Some(_), None) => {
                return fail(
                    "record needs the server to have an artifact directory (start it with --artifact-dir DIR); recordings are written only there",
                );
            }
        };
        let spec = StartSpec {
            cols,
            rows,
            cwd,
            env: env.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
            isolated: args.isolated.unwrap_or(false),
            no_shell_integration: args.shell_integration == Some(false),
            reaction_bound_ms: args.reaction_bound_ms,
            ..StartSpec::new(argv.clone())
        };
        let mut builder = spec.builder()?;
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = sessions.get(name) {
            if existing.is_running() {
                return fail(format!(
                    "session `{name}` is already running (pid {}): exit it first or use another session name",
                    existing.pid()
                ));
            }
            if let Some(old) = sessions.remove(name) {
                self.watch_points
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(name);
                let _ = old.exit();
            }
        }
        if sessions.len() >= self.config.max_sessions {
            return fail(format!(
                "{} sessions are running, the most this server allows: exit one first",
                sessions.len()
            ));
        }
        // Only now, every check passed: a refused start leaves no file behind.
        let mut recording = None;
        if let Some((dir, file)) = &record {
            // Created in the artifact directory by its descriptor; a link, FIFO or another
            // user's file at the name is refused, not opened.
            builder = builder.record_to(dir.create_live(file.as_ref(), Access::Private)?);
            recording = Some(dir.path().join(file));
        }
        // The world the program finds at its start is kept for an export to carry.
        let session = builder
            .capture_world(tuipilot::files::WorldLimits::default())
            .spawn()?;
        if let Some(w) = &self.watchdog
            && let Err(e) = w.arm(&session)
        {
            let _ = session.kill();
            return Err(Failure::internal(e));
        }
        let pid = session.pid();
        let session = Arc::new(session);
        if args.attach == Some(true) {
            match tuipilot::live::point::WatchPoint::open(name, session.clone(), "an MCP server") {
                Ok(point) => {
                    self.watch_points
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(name.to_string(), point);
                }
                Err(e) => {
                    // Nothing half-started stays: the program ends with the refusal.
                    if session.exit_within(Duration::from_millis(300)).is_ok()
                        && let Some(w) = &self.watchdog
                    {
                        let _ = w.disarm(pid);
                    }
                    return Err(e.into());
                }
            }
        }
        sessions.insert(name.to_string(), session);
        self.starts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(name.to_string(), spec);
        let recording = recording.as_ref().map(|p| p.display().to_string());
        let mut note = recording
            .as_ref()
            .map_or(String::new(), |p| format!(", recording to {p}"));
        let attach = (args.attach == Some(true)).then(|| format!("tuipilot -s {name} attach"));
        if let Some(command) = &attach {
            note.push_str(&format!("; a person can watch it live with `{command}`"));
        }
        Ok(structured(
            format!(
                "started session `{name}`: pid {pid}, {cols}x{rows}, {}{note}",
                argv.join(" ")
            ),
            json!({ "session": name, "pid": pid, "cols": cols, "rows": rows, "command": argv, "recording": recording, "attach": attach }),
        ))
    }
}

/// A reply of the wrong shape for its operation: the executor broke its contract.
fn unexpected(reply: &Reply) -> Failure {
    Failure::internal(format!("unexpected reply {reply:?}"))
}

/// How a program ended, as text and structured content.
fn exit_result(name: &str, exit: tuipilot::operation::ExitReport) -> CallToolResult {
    structured(
        format!("session `{name}`: the program {}", exit.words()),
        json!({ "session": name, "exit_code": exit.exit_code, "signal": exit.signal }),
    )
}

/// A screen as MCP content: its text (without trailing empty rows: their count is in
/// `empty_rows_below`), or only its changed rows under a header; the PNG if one was
/// rendered; and the other fields (size, cursor, title, exit status, settled time, changed
/// rows, the saved PNG's path) as structured content.
fn screen_result(name: &str, mut screen: Screen, changed_only: bool) -> CallToolResult {
    let (trimmed, empty_below) = screen.trimmed_text();
    let text = if changed_only {
        screen.changed_view()
    } else {
        trimmed.to_string()
    };
    screen.text = String::new();
    let png = screen.png_bytes.take();
    let mut info = serde_json::to_value(&screen).unwrap_or_default();
    if let Value::Object(fields) = &mut info {
        fields.remove("text");
        fields.insert("session".into(), json!(name));
        fields.insert("empty_rows_below".into(), json!(empty_below));
    }
    let mut content = vec![ContentBlock::text(text)];
    // Right after the screen, in words: a stale screen is never returned without a word.
    for note in screen.notes() {
        content.push(ContentBlock::text(format!("note: {note}")));
    }
    if let Some(png) = png {
        content.push(ContentBlock::image(
            base64::engine::general_purpose::STANDARD.encode(&png),
            "image/png",
        ));
    }
    // The same fields as text, for clients that read no structured content — but the
    // clipboard, links and notifications only once, in the structured content: they are
    // the bulky part (up to 32 notifications, each with its text). A screen's signals
    // are flattened into its fields.
    let mut text_info = info.clone();
    if let Value::Object(fields) = &mut text_info {
        for bulky in ["clipboard", "links", "notifications"] {
            fields.remove(bulky);
        }
    }
    content.push(ContentBlock::text(text_info.to_string()));
    let mut result = CallToolResult::success(content);
    result.structured_content = Some(info);
    result
}

/// `file_name` as a name directly inside the artifact directory: characters other than
/// letters, digits, `.`, `_` and `-` become `_`, and leading dots go, so it can neither
/// climb out nor hide.
fn artifact_name(file_name: &str) -> Result<String, Failure> {
    let name = sanitize(file_name);
    if name.is_empty() {
        return fail(format!("`{file_name}` is not a usable file name"));
    }
    Ok(name)
}

fn structured(text: String, value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// Runs the server on stdio until the client goes away, then ends every session.
pub fn run(config: McpConfig) -> Result<(), String> {
    let artifacts = match &config.artifact_dir {
        Some(dir) if !dir.is_dir() => {
            return Err(format!(
                "artifact directory {} does not exist; create it first",
                dir.display()
            ));
        }
        Some(dir) => Some(Folder::open(dir).map_err(|e| e.to_string())?),
        None => None,
    };
    // SAFETY: called from `main` before the runtime (or anything else) starts a thread.
    let watchdog = unsafe { Watchdog::fork() }.map_err(|e| e.to_string())?;
    let server = TerminalServer::new(config, artifacts, Some(watchdog));
    // After the fork: the cleanup runs on a thread of its own.
    tuipilot::files::remove_temporaries_on_signal().map_err(|e| e.to_string())?;
    let state = server.state.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let service = server
            .serve(framing::frame(tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|e| format!("starting the MCP server: {e}"))?;
        service.waiting().await.map_err(|e| format!("serving: {e}"))?;
        Ok::<(), String>(())
    });
    // The client is gone: no session outlives the server, nor its name.
    state
        .watch_points
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .clear();
    let sessions: Vec<Arc<Session>> = state
        .sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .drain()
        .map(|(_, s)| s)
        .collect();
    for session in sessions {
        if session.exit_within(Duration::from_millis(300)).is_ok()
            && let Some(w) = &state.watchdog
        {
            let _ = w.disarm(session.pid());
        }
    }
    runtime.shutdown_timeout(Duration::from_millis(100));
    served
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn artifact_names_stay_inside_the_directory() {
        assert_eq!(sanitize("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(sanitize("ok-1.png"), "ok-1.png");
        assert_eq!(artifact_name("../escape.png").ok().unwrap(), "_escape.png");
        assert!(artifact_name("...").is_err());
    }
}
