//! `tuipilot mcp`: the engine as one MCP tool, `terminal`, over stdio (rmcp).
//!
//! The server translates tool calls into [`Session`] calls; sessions belong to the server
//! process and are all ended when the client disconnects or stdin closes. A watchdog,
//! forked before the runtime starts, ends them too if the server itself is killed.
//! Nothing but protocol messages is written to stdout.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{CallToolResult, ContentBlock, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData as McpError, ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::watchdog::Watchdog;
use tuipilot::render::RenderOptions;
use tuipilot::{Condition, Input, Session, Snapshot};

/// Largest screen the server will start or resize to (and so render).
const MAX_COLS: u16 = 400;
const MAX_ROWS: u16 = 200;

/// How the server was started.
#[derive(Clone, Debug)]
pub struct McpConfig {
    /// Programs `start` may run (by name or path); empty: any.
    pub allow: Vec<String>,
    pub max_sessions: usize,
    /// Where captures are also saved; without it the server writes no files.
    pub artifact_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, Deserialize, schemars::JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Action {
    Start,
    Send,
    Capture,
    Wait,
    Exit,
    List,
    Resize,
}

#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
enum CommandLine {
    /// A command line, split into words like a shell would (quotes respected; no
    /// expansion, no pipes).
    Line(String),
    /// The program and its arguments.
    Argv(Vec<String>),
}

/// The `terminal` tool's arguments.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
struct TerminalArgs {
    /// What to do: start | send | capture | wait | exit | list | resize.
    action: Action,
    /// Session name (default "default"); several sessions can run at once.
    #[serde(default)]
    session: Option<String>,
    /// start: the program to run, as a command line string or an argv list.
    #[serde(default)]
    command: Option<CommandLine>,
    /// start/resize: terminal width in columns (default 80, at most 400).
    #[serde(default)]
    cols: Option<u16>,
    /// start/resize: terminal height in rows (default 24, at most 200).
    #[serde(default)]
    rows: Option<u16>,
    /// start: working directory (default: the server's).
    #[serde(default)]
    cwd: Option<String>,
    /// start: extra environment variables.
    #[serde(default)]
    env: Option<HashMap<String, String>>,
    /// send: key names pressed in order after `text`, e.g. ["Down", "Down", "Enter"] or
    /// ["C-c"]. Names: Enter Tab Esc Space Backspace Up Down Left Right Home End PageUp
    /// PageDown Insert Delete F1-F12, any single character; modifiers C- (Ctrl), M- (Alt),
    /// S- (Shift), e.g. C-x, M-Enter, S-Tab, C-S-Up.
    #[serde(default)]
    keys: Option<Vec<String>>,
    /// send: literal text typed before the keys. It does not press Enter: add "Enter" to
    /// keys.
    #[serde(default)]
    text: Option<String>,
    /// send: pause after the text and keys, in milliseconds (prefer wait_pattern).
    #[serde(default)]
    sleep_ms: Option<u64>,
    /// A regex on the screen (rows matched separately; ^ and $ anchor to rows). send: wait
    /// for it after the input (the screen must change first). capture: wait for it before
    /// capturing. wait: wait for it.
    #[serde(default)]
    wait_pattern: Option<String>,
    /// wait/capture: wait until the screen has not changed for this many milliseconds.
    #[serde(default)]
    stable_ms: Option<u64>,
    /// Timeout for any wait in milliseconds (default 10000).
    #[serde(default)]
    timeout_ms: Option<u64>,
    /// capture: include a PNG screenshot (default true).
    #[serde(default)]
    image: Option<bool>,
    /// capture: screenshot theme, "dark" (default) or "light".
    #[serde(default)]
    theme: Option<String>,
    /// capture: screenshot pixel scale, 1 (default) or 2.
    #[serde(default)]
    scale: Option<u32>,
}

/// The MCP server.
#[derive(Clone)]
pub struct TerminalServer {
    tool_router: ToolRouter<Self>,
    state: Arc<State>,
}

struct State {
    config: McpConfig,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    watchdog: Option<Watchdog>,
    captures: std::sync::atomic::AtomicUsize,
}

/// A failed call: shown to the model as a tool error.
struct Failure(String);

impl From<tuipilot::Error> for Failure {
    fn from(e: tuipilot::Error) -> Failure {
        Failure(e.to_string())
    }
}

fn fail<T>(message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure(message.into()))
}

const TOOL_DESCRIPTION: &str = "Operate a terminal program like a person at a keyboard: start it in a real terminal, type text and press keys, wait for the screen to show something, and look at the screen as text plus a PNG screenshot.
Actions: start (command, optional cols/rows/cwd/env), send (text then keys then sleep_ms; with wait_pattern it waits for that regex on the screen after the input and returns whether it matched plus the screen text), capture (the screen as text, a PNG image unless image=false, and cursor/size/title/exit status; wait_pattern or stable_ms first), wait (wait_pattern or stable_ms), resize (cols, rows), exit (ends the program and everything it started; returns its exit status), list.
Enter is not implied: to run a command send text \"ls\" with keys [\"Enter\"]. Key names: Enter Tab Esc Space Backspace Up Down Left Right Home End PageUp PageDown Insert Delete F1-F12, single characters, with C- (Ctrl), M- (Alt), S- (Shift): C-c, C-d, M-x, S-Tab.
Waiting on a pattern beats sleeping: it returns as soon as the text appears and fails with the screen it saw when it does not. Wait for a program's prompt before typing to it.";

#[tool_router]
impl TerminalServer {
    fn new(config: McpConfig, watchdog: Option<Watchdog>) -> TerminalServer {
        TerminalServer {
            tool_router: Self::tool_router(),
            state: Arc::new(State {
                config,
                sessions: Mutex::new(HashMap::new()),
                watchdog,
                captures: std::sync::atomic::AtomicUsize::new(0),
            }),
        }
    }

    #[tool(description = TOOL_DESCRIPTION)]
    async fn terminal(&self, Parameters(args): Parameters<TerminalArgs>) -> Result<CallToolResult, McpError> {
        let state = self.state.clone();
        let outcome = tokio::task::spawn_blocking(move || state.handle(args))
            .await
            .unwrap_or_else(|e| fail(format!("the tool call failed: {e}")));
        Ok(match outcome {
            Ok(result) => result,
            Err(Failure(message)) => CallToolResult::error(vec![ContentBlock::text(message)]),
        })
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TerminalServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build()).with_instructions(
            "tuipilot: drive terminal programs (TUIs, shells, REPLs) with the `terminal` tool and see their screen as text and PNG.",
        )
    }
}

/// Splits a command line into words: whitespace separates, quotes group, backslash
/// escapes. No expansion of any kind.
fn split_words(line: &str) -> Result<Vec<String>, Failure> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') | (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                    in_word = true;
                }
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        return fail(format!("unclosed quote in command `{line}`"));
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

/// Keeps `[A-Za-z0-9._-]`, replacing anything else with `_`.
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

impl State {
    fn session(&self, name: &str) -> Result<Arc<Session>, Failure> {
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        match sessions.get(name) {
            Some(s) => Ok(s.clone()),
            None => fail(format!(
                "no session named `{name}`: start one with action \"start\" (sessions: {})",
                if sessions.is_empty() {
                    "none".to_string()
                } else {
                    sessions.keys().cloned().collect::<Vec<_>>().join(", ")
                }
            )),
        }
    }

    fn handle(&self, args: TerminalArgs) -> Result<CallToolResult, Failure> {
        let name = args.session.clone().unwrap_or_else(|| "default".to_string());
        let timeout = Duration::from_millis(args.timeout_ms.unwrap_or(10_000));
        match args.action {
            Action::Start => self.start(&name, &args),
            Action::Send => self.send(&name, &args, timeout),
            Action::Capture => self.capture(&name, &args, timeout),
            Action::Wait => {
                let session = self.session(&name)?;
                let condition = match (&args.wait_pattern, args.stable_ms) {
                    (Some(p), _) => Condition::text(p)?,
                    (None, Some(ms)) => Condition::stable(Duration::from_millis(ms)),
                    (None, None) => return fail("wait needs wait_pattern (a regex) or stable_ms"),
                };
                let snap = session.wait_timeout(&condition, timeout)?;
                Ok(CallToolResult::success(vec![ContentBlock::text(snap.text())]))
            }
            Action::Resize => {
                let session = self.session(&name)?;
                let (cols, rows) = (args.cols.unwrap_or(80), args.rows.unwrap_or(24));
                check_size(cols, rows)?;
                session.resize(cols, rows)?;
                Ok(structured(
                    format!("resized `{name}` to {cols}x{rows}"),
                    json!({ "session": name, "cols": cols, "rows": rows }),
                ))
            }
            Action::Exit => {
                let session = self
                    .sessions
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&name);
                let Some(session) = session else {
                    return fail(format!("no session named `{name}`"));
                };
                let status = session.exit()?;
                if let Some(w) = &self.watchdog {
                    let _ = w.disarm(session.pid());
                }
                Ok(structured(
                    format!("session `{name}`: the program {status}"),
                    json!({ "session": name, "exit_code": status.code(), "signal": status.signal() }),
                ))
            }
            Action::List => {
                let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
                let mut list: Vec<Value> = sessions
                    .iter()
                    .map(|(name, s)| {
                        let (cols, rows) = s.size();
                        let exit = s.exit_status();
                        json!({
                            "session": name, "pid": s.pid(), "command": s.program(), "cols": cols, "rows": rows,
                            "running": exit.is_none(), "exit_code": exit.and_then(|e| e.code()), "signal": exit.and_then(|e| e.signal()),
                        })
                    })
                    .collect();
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

    fn start(&self, name: &str, args: &TerminalArgs) -> Result<CallToolResult, Failure> {
        crate::host::paths::check_name(name).map_err(|e| Failure(e.message))?;
        let argv = match &args.command {
            Some(CommandLine::Line(line)) => split_words(line)?,
            Some(CommandLine::Argv(argv)) => argv.clone(),
            None => Vec::new(),
        };
        let Some((program, rest)) = argv.split_first() else {
            return fail("start needs a command, e.g. \"bash\" or [\"python3\", \"app.py\"]");
        };
        if !self.config.allow.is_empty() {
            let base = Path::new(program)
                .file_name()
                .map(|b| b.to_string_lossy().into_owned())
                .unwrap_or_default();
            if !self.config.allow.iter().any(|a| a == program || *a == base) {
                return fail(format!(
                    "`{program}` is not allowed: this server only starts {}",
                    self.config.allow.join(", ")
                ));
            }
        }
        let (cols, rows) = (args.cols.unwrap_or(80), args.rows.unwrap_or(24));
        check_size(cols, rows)?;
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(existing) = sessions.get(name) {
            if existing.is_running() {
                return fail(format!(
                    "session `{name}` is already running (pid {}): exit it first or use another session name",
                    existing.pid()
                ));
            }
            if let Some(old) = sessions.remove(name) {
                let _ = old.exit();
            }
        }
        if sessions.len() >= self.config.max_sessions {
            return fail(format!(
                "{} sessions are running, the most this server allows: exit one first",
                sessions.len()
            ));
        }
        let mut builder = Session::builder(program)
            .args(rest)
            .size(cols, rows)
            .timeout(Duration::from_secs(10));
        if let Some(cwd) = &args.cwd {
            builder = builder.cwd(cwd);
        }
        for (k, v) in args.env.iter().flatten() {
            builder = builder.env(k, v);
        }
        let session = builder.spawn()?;
        if let Some(w) = &self.watchdog
            && let Err(e) = w.arm(session.pid())
        {
            let _ = session.kill();
            return fail(e);
        }
        let pid = session.pid();
        sessions.insert(name.to_string(), Arc::new(session));
        Ok(structured(
            format!(
                "started session `{name}`: pid {pid}, {cols}x{rows}, {}",
                argv.join(" ")
            ),
            json!({ "session": name, "pid": pid, "cols": cols, "rows": rows, "command": argv }),
        ))
    }

    fn send(&self, name: &str, args: &TerminalArgs, timeout: Duration) -> Result<CallToolResult, Failure> {
        let session = self.session(name)?;
        let keys = args
            .keys
            .iter()
            .flatten()
            .map(|k| tuipilot::Key::parse(k))
            .collect::<tuipilot::Result<Vec<_>>>()?;
        let condition = args.wait_pattern.as_deref().map(Condition::text).transpose()?;
        if args.text.is_none() && keys.is_empty() && args.sleep_ms.is_none() {
            return fail("send needs text, keys or sleep_ms");
        }
        let start = session.wait_start();
        if let Some(text) = &args.text {
            session.send(&Input::text(text.clone()))?;
        }
        if !keys.is_empty() {
            session.send(&Input::Keys(keys))?;
        }
        if let Some(ms) = args.sleep_ms {
            std::thread::sleep(Duration::from_millis(ms));
        }
        let Some(condition) = condition else {
            return Ok(CallToolResult::success(vec![ContentBlock::text("sent")]));
        };
        match session.wait_since(&start, &condition, timeout) {
            Ok(snap) => Ok(structured(
                snap.text(),
                json!({ "matched": true, "screen": snap.text() }),
            )),
            Err(e @ (tuipilot::Error::Timeout(_) | tuipilot::Error::ExitedWhileWaiting(_))) => {
                let screen = session.snapshot().text();
                Ok(structured(
                    e.to_string(),
                    json!({ "matched": false, "screen": screen }),
                ))
            }
            Err(e) => Err(e.into()),
        }
    }

    fn capture(&self, name: &str, args: &TerminalArgs, timeout: Duration) -> Result<CallToolResult, Failure> {
        let session = self.session(name)?;
        let mut options = RenderOptions::default();
        if let Some(theme) = &args.theme {
            options = options.with_theme(theme)?;
        }
        if let Some(scale) = args.scale {
            if !(1..=2).contains(&scale) {
                return fail(format!("scale {scale} is not supported: use 1 or 2"));
            }
            options.scale = scale;
        }
        let snap = match (&args.wait_pattern, args.stable_ms) {
            (Some(p), _) => session.wait_timeout(&Condition::text(p)?, timeout)?,
            (None, Some(ms)) => {
                session.wait_timeout(&Condition::stable(Duration::from_millis(ms)), timeout)?
            }
            (None, None) => session.snapshot(),
        };
        let mut info = screen_info(name, &snap);
        let mut content = vec![ContentBlock::text(snap.text())];
        if args.image.unwrap_or(true) {
            let png = snap.to_png(&options)?;
            if let Some(dir) = &self.config.artifact_dir {
                let n = self.captures.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                let path = artifact_path(dir, &format!("{name}-{n:04}.png"))?;
                tuipilot::render::write_file_atomically(&path, &png)?;
                info["png"] = json!(path);
            }
            content.push(ContentBlock::image(
                base64::engine::general_purpose::STANDARD.encode(&png),
                "image/png",
            ));
        }
        content.push(ContentBlock::text(info.to_string()));
        let mut result = CallToolResult::success(content);
        result.structured_content = Some(info);
        Ok(result)
    }
}

/// A path for `file_name` inside the artifact directory, refusing anything that would
/// land elsewhere (traversal, or a symlink in the way).
fn artifact_path(dir: &Path, file_name: &str) -> Result<PathBuf, Failure> {
    let name = sanitize(file_name);
    if name.is_empty() {
        return fail(format!("`{file_name}` is not a usable file name"));
    }
    let dir = dir
        .canonicalize()
        .map_err(|e| Failure(format!("artifact directory {}: {e}", dir.display())))?;
    let path = dir.join(&name);
    if path.parent() != Some(dir.as_path()) {
        return fail(format!("`{file_name}` would leave the artifact directory"));
    }
    if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
        return fail(format!(
            "{} is a symbolic link; refusing to write through it",
            path.display()
        ));
    }
    Ok(path)
}

fn check_size(cols: u16, rows: u16) -> Result<(), Failure> {
    if cols > MAX_COLS || rows > MAX_ROWS {
        return fail(format!(
            "{cols}x{rows} is larger than this server renders ({MAX_COLS}x{MAX_ROWS} cells at most)"
        ));
    }
    Ok(())
}

/// The screen's fields as the CLI's `capture --json` has them, minus the text (which is
/// its own content block), plus the session name.
fn screen_info(name: &str, snap: &Snapshot) -> Value {
    let mut info = crate::host::protocol::screen_json(snap, String::new());
    if let Value::Object(fields) = &mut info {
        fields.remove("text");
        fields.insert("session".into(), json!(name));
    }
    info
}

fn structured(text: String, value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// Runs the server on stdio until the client goes away, then ends every session.
pub fn run(config: McpConfig) -> Result<(), String> {
    if let Some(dir) = &config.artifact_dir
        && !dir.is_dir()
    {
        return Err(format!(
            "artifact directory {} does not exist; create it first",
            dir.display()
        ));
    }
    // SAFETY: called from `main` before the runtime (or anything else) starts a thread.
    let watchdog = unsafe { Watchdog::fork() }?;
    let server = TerminalServer::new(config, Some(watchdog));
    let state = server.state.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let served = runtime.block_on(async move {
        let service = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| format!("starting the MCP server: {e}"))?;
        service.waiting().await.map_err(|e| format!("serving: {e}"))?;
        Ok::<(), String>(())
    });
    // The client is gone: no session outlives the server.
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
    fn command_lines_split_like_a_shell() {
        let words = |s: &str| split_words(s).ok().unwrap();
        assert_eq!(words("bash --norc"), ["bash", "--norc"]);
        assert_eq!(
            words(r#"python3 -c "print('a b')""#),
            ["python3", "-c", "print('a b')"]
        );
        assert_eq!(words(r"echo a\ b ''"), ["echo", "a b", ""]);
        assert!(split_words("sh -c 'unclosed").is_err());
    }

    #[test]
    fn artifact_names_stay_inside_the_directory() {
        assert_eq!(sanitize("../../etc/passwd"), "_.._etc_passwd");
        assert_eq!(sanitize("ok-1.png"), "ok-1.png");
        let dir = std::env::temp_dir().join(format!("tp-art-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = artifact_path(&dir, "../escape.png").ok().unwrap();
        assert_eq!(path.parent().unwrap(), dir.canonicalize().unwrap());
        std::os::unix::fs::symlink("/tmp/elsewhere.png", dir.join("link.png")).unwrap();
        assert!(artifact_path(&dir, "link.png").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
