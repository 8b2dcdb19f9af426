//! The session commands: each one request to the session's host (`start` forks it).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::time::Duration;

use clap::ArgMatches;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tuipilot::operation::{Screen, Step, WaitFor};
use tuipilot::{Operation, StartSpec};

use super::{StartArgs, current_dir};
use crate::error::{ErrorCode, Failure};
use crate::host::client::Client;
use crate::host::paths::{NameLock, SessionPaths, ensure_runtime_dir, runtime_dir_from_env, session_names};
use crate::host::protocol::{self, HostInfo, Request};
use crate::host::server::{self, HostSpec};

/// The runtime directory and the paths of session `name`, checked.
pub(super) fn session_paths(name: &str) -> Result<SessionPaths, Failure> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    Ok(SessionPaths::new(&dir, name)?)
}

/// How long to wait for the host's answer: the request's own timeout plus a margin.
pub(super) fn reply_timeout(timeout_ms: Option<u64>) -> Duration {
    Duration::from_millis(timeout_ms.map_or(120_000, |ms| ms.saturating_add(15_000)))
}

pub(super) fn call(name: &str, operation: Operation, timeout_ms: Option<u64>) -> Result<Value, Failure> {
    let paths = session_paths(name)?;
    Client::request_once(&paths, &Request::Op(operation), reply_timeout(timeout_ms))
}

/// A reply's JSON as the typed reply it is.
pub(super) fn decode<T: DeserializeOwned>(value: Value) -> Result<T, Failure> {
    serde_json::from_value(value)
        .map_err(|e| Failure::internal(format!("unreadable reply from the host: {e}")))
}

/// The send steps in the order they appeared on the command line (each text typed a
/// character at a time when `--typing-ms` is given; text and keys one at a time, each
/// once the program read the last, with `--per-key`).
pub(super) fn send_steps(matches: &ArgMatches) -> Result<Vec<Step>, Failure> {
    let typing_ms = matches.get_one::<u64>("typing_ms").copied();
    let per_key = matches.get_flag("per_key");
    let mut ordered: Vec<(usize, Step)> = Vec::new();
    let mut collect = |id: &str, make: &dyn Fn(&str) -> Result<Step, Failure>| {
        if let (Some(indices), Some(values)) = (matches.indices_of(id), matches.get_raw(id)) {
            for (index, value) in indices.zip(values) {
                ordered.push((index, make(&value.to_string_lossy())?));
            }
        }
        Ok::<(), Failure>(())
    };
    collect("text", &|v| {
        Ok(match (typing_ms, per_key) {
            (_, true) => Step::TextPerKey(v.to_string()),
            (Some(pause_ms), false) => Step::Type {
                text: v.to_string(),
                pause_ms,
            },
            (None, false) => Step::Text(v.to_string()),
        })
    })?;
    collect("key", &|v| {
        Ok(match per_key {
            true => Step::KeysPerKey(v.to_string()),
            false => Step::Keys(v.to_string()),
        })
    })?;
    collect("paste", &|v| Ok(Step::Paste(v.to_string())))?;
    collect("mouse", &|v| Ok(Step::Mouse(v.to_string())))?;
    collect("focus", &|v| {
        v.parse()
            .map(Step::Focus)
            .map_err(|e: tuipilot::Error| Failure::bad_request(e.to_string()))
    })?;
    collect("sleep_ms", &|v| {
        v.parse()
            .map(Step::SleepMs)
            .map_err(|_| Failure::bad_request(format!("invalid --sleep-ms `{v}`: expected milliseconds")))
    })?;
    ordered.sort_by_key(|(index, _)| *index);
    Ok(ordered.into_iter().map(|(_, step)| step).collect())
}

pub(super) fn start(name: &str, json: bool, args: StartArgs) -> Result<(), Failure> {
    let StartArgs {
        cols,
        rows,
        cwd,
        env,
        env_clear,
        isolated,
        no_shell_integration,
        scrollback,
        reaction_bound,
        idle_timeout,
        wait_ready,
        timeout_ms,
        record,
        command,
    } = args;
    let misplaced = super::args::misplaced_note(&super::args::our_flags_among(
        "start",
        command.get(1..).unwrap_or_default(),
    ));
    if let Some(note) = &misplaced {
        eprintln!("tuipilot: note: {note}");
    }
    let paths = session_paths(name)?;
    // Whoever holds the name's lock owns it; of two racing starts exactly one gets it.
    let Some(lock) = NameLock::try_acquire(&paths)? else {
        let pid = Client::connect(&paths)
            .ok()
            .and_then(|(_, hello)| hello.get("pid").and_then(Value::as_i64))
            .map_or(String::new(), |pid| format!(" (pid {pid})"));
        return Err(Failure::bad_request(format!(
            "session `{name}` is already running{pid}: end it with `tuipilot exit -s {name}` or choose another name with -s"
        )));
    };
    // Anything still under the name was left by a host that is gone.
    paths.remove_leftovers(&lock);
    let env = env
        .iter()
        .map(|pair| env_pair(pair))
        .collect::<Result<Vec<_>, _>>()?;
    let here = current_dir()?;
    let mut start = StartSpec {
        cols,
        rows,
        // Absolute: the host resolves nothing against a directory of its own.
        cwd: Some(cwd.map(|d| here.join(d)).unwrap_or(here)),
        env,
        scrollback,
        env_clear,
        isolated,
        no_shell_integration,
        reaction_bound_ms: reaction_bound,
        ..StartSpec::new(command.clone())
    };
    record.apply(&mut start)?;
    let spec = HostSpec {
        start,
        idle_timeout_secs: idle_timeout,
    };
    let reply = launch_host(&paths, &spec, &lock)?;
    let pid = reply.get("pid").and_then(Value::as_i64).unwrap_or(0);
    // The words for a person to read (bytes that are not UTF-8 as `\xHH`).
    let shown: Vec<String> = command
        .iter()
        .map(|w| tuipilot::operation::shown_word(w))
        .collect();
    settle(name, &shown.join(" "), wait_ready.then_some(timeout_ms)).map_err(|mut e| {
        // A program that stopped at once over an option it did not know: probably ours.
        if let (ErrorCode::SpawnFailed, Some(note)) = (e.code, &misplaced) {
            e.message = format!("{note}. {}", e.message);
        }
        e
    })?;
    if json {
        say!(
            "{}",
            json!({ "session": name, "pid": pid, "cols": cols, "rows": rows, "command": shown })
        );
    } else {
        say!(
            "session {name} started: pid {pid}, {cols}x{rows}, {}",
            shown.join(" ")
        );
    }
    Ok(())
}

/// How long a plain `start` watches a new program for an early failure.
const START_WATCH_MS: u64 = 1000;

/// A new program's first moments: waits until it is ready for input, and fails the start
/// when it exits first with an error — a mistyped option, a missing file — instead of
/// leaving the next call to find out.
/// `ready_within` is `--wait-ready`'s bound (`Some(None)`: the default timeout); without
/// it the watch lasts [`START_WATCH_MS`], a program still busy then is fine, and one that
/// exits successfully at once (a command run for its output) is too.
fn settle(name: &str, command: &str, ready_within: Option<Option<u64>>) -> Result<(), Failure> {
    let timeout_ms = match ready_within {
        Some(timeout) => timeout,
        None => Some(START_WATCH_MS),
    };
    let wait = Operation::Wait {
        condition: WaitFor::Ready,
        timeout_ms,
    };
    let error = match call(name, wait, timeout_ms) {
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    match error.code {
        ErrorCode::Timeout if ready_within.is_none() => Ok(()),
        ErrorCode::Exited => {
            let reply = call(name, Operation::capture_text(), None)?;
            let screen: Screen = decode(reply.get("screen").cloned().unwrap_or_default())?;
            let succeeded = screen.exit.exit_code == Some(0) && ready_within.is_none();
            if succeeded {
                return Ok(());
            }
            // The session stays, as it does for any program that ended: its screen and
            // status can still be read, and `exit` frees the name.
            Err(Failure::new(
                ErrorCode::SpawnFailed,
                format!(
                    "`{}` {} before it was ready for input (the session stays for a look; `tuipilot exit -s {name}` ends it); its last screen:\n{}",
                    command,
                    screen.exit.words(),
                    screen.text.trim_end()
                ),
            ))
        }
        _ => Err(error),
    }
}

/// Starts the host in the background and waits for its ready (or error) line. The host
/// inherits `lock`; the caller's handle may go once this returns.
pub(super) fn launch_host(paths: &SessionPaths, spec: &HostSpec, lock: &NameLock) -> Result<Value, Failure> {
    let log = std::fs::File::create(&paths.log)
        .map_err(|e| Failure::internal(format!("creating the log {}: {e}", paths.log.display())))?;
    let dir = paths.socket.parent().unwrap_or(Path::new("."));
    // SAFETY: the command line runs on the main thread alone: nothing before this point
    // (argument parsing, runtime-directory checks) starts a thread.
    let (pid, ready) = unsafe { server::fork(dir, &paths.name, spec, log, lock) }?;
    let mut line = String::new();
    let _ = BufReader::new(std::fs::File::from(ready)).read_line(&mut line);
    let reap = || {
        // SAFETY: waitpid on our own child, writing only the status integer.
        unsafe { libc::waitpid(pid, std::ptr::null_mut(), 0) };
    };
    if line.trim().is_empty() {
        reap();
        let log = std::fs::read_to_string(&paths.log).unwrap_or_default();
        paths.remove(lock);
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
            paths.remove(lock);
            Err(error)
        }
        _ => Err(Failure::internal(
            "the host's handshake has neither `ok` nor `error`",
        )),
    }
}

pub(super) fn list(json: bool) -> Result<(), Failure> {
    let dir = runtime_dir_from_env();
    ensure_runtime_dir(&dir)?;
    let mut rows = Vec::new();
    for name in session_names(&dir) {
        let paths = SessionPaths::new(&dir, &name)?;
        let info = Client::connect(&paths)
            .and_then(|(mut c, _)| c.call(&Request::Op(Operation::Info), Duration::from_secs(5)));
        match info.and_then(decode::<HostInfo>) {
            Ok(info) => rows.push(info),
            // Nobody listens on the socket: if nobody holds the name either, its host is
            // gone and its files are litter. (Held, it is a host still starting.)
            Err(e) if e.code == ErrorCode::NoSession => {
                if let Some(lock) = NameLock::try_acquire(&paths)? {
                    paths.remove(&lock);
                }
            }
            Err(e) if matches!(e.code, ErrorCode::Busy | ErrorCode::HostDied) => {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "tuipilot: not listing session `{}`: {}",
                    super::output::printable(&name),
                    super::output::printable(&e.message)
                );
            }
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
        let row = format!(
            "{:<16} {:>8}  {:<9} {:<18} {:>6}s  {}",
            r.session,
            r.info.pid,
            format!("{}x{}", r.info.cols, r.info.rows),
            r.info.exit.words(),
            r.info.age_secs,
            r.info.command
        );
        say!("{}", super::output::printable(&row));
    }
    Ok(())
}

/// One `--env`: `KEY=VALUE` (any bytes), or `KEY` alone for this environment's value, so no
/// command line holds it.
fn env_pair(pair: &std::ffi::OsStr) -> Result<(std::ffi::OsString, std::ffi::OsString), Failure> {
    use std::os::unix::ffi::OsStrExt;
    let bytes = pair.as_bytes();
    let shown = tuipilot::operation::shown_word(pair);
    match bytes.iter().position(|b| *b == b'=') {
        Some(at) if at > 0 => Ok((
            std::ffi::OsStr::from_bytes(&bytes[..at]).to_os_string(),
            std::ffi::OsStr::from_bytes(&bytes[at + 1..]).to_os_string(),
        )),
        None if !bytes.is_empty() => match std::env::var_os(pair) {
            Some(value) => Ok((pair.to_os_string(), value)),
            None => Err(Failure::bad_request(format!(
                "--env {shown}: {shown} is not set here; set it first (it is passed on without appearing on any command line) or give {shown}=VALUE"
            ))),
        },
        _ => Err(Failure::bad_request(format!(
            "invalid --env `{shown}`: expected KEY=VALUE, or KEY to pass this environment's value on"
        ))),
    }
}
