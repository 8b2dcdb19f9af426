//! Spawning a program under a pseudo-terminal.
//!
//! The child becomes a session leader with the PTY as its controlling terminal. Its
//! environment is set here (TERM, COLORTERM, a UTF-8 locale, no inherited LINES/COLUMNS)
//! and its cwd is the caller's, not `$HOME`. Waiting for it and ending it belong to
//! [`crate::process`].

use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::path::PathBuf;

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

use crate::error::{Error, Result};

/// What to start and how.
pub(crate) struct SpawnSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Environment changes in order: `Some` sets, `None` removes.
    pub env: Vec<(OsString, Option<OsString>)>,
    /// Start from an empty environment (keeping only `PATH`) instead of the caller's.
    pub clear_env: bool,
    pub cwd: Option<PathBuf>,
    pub cols: u16,
    pub rows: u16,
    pub pixel_width: u16,
    pub pixel_height: u16,
}

/// A running child and the master side of its PTY.
pub(crate) struct Spawned {
    pub master: Box<dyn MasterPty + Send>,
    pub reader: Box<dyn Read + Send>,
    pub writer: Box<dyn Write + Send>,
    /// Kept so portable-pty's handle lives as long as the session; the exit is collected
    /// with `waitpid` directly, which reports signals by number.
    pub child: Box<dyn portable_pty::Child + Send + Sync>,
    pub pid: i32,
}

/// Environment variables removed from the inherited environment: a stale `COLUMNS=40`
/// would make `tput cols` disagree with the PTY's real size.
const REMOVED_VARS: &[&str] = &["LINES", "COLUMNS"];

/// The `TERM` every program gets unless the caller sets another.
pub(crate) const DEFAULT_TERM: &str = "xterm-256color";

/// The child's environment: inherited (or, cleared, only `PATH`, so programs can still
/// be found), minus [`REMOVED_VARS`], plus the terminal's identity, then the caller's
/// changes.
fn child_env(changes: &[(OsString, Option<OsString>)], clear: bool) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = std::env::vars_os()
        .filter(|(k, _)| !clear || k == "PATH")
        .filter(|(k, _)| !REMOVED_VARS.iter().any(|r| OsStr::new(r) == k))
        .collect();
    let set = |env: &mut Vec<(OsString, OsString)>, key: &OsStr, value: Option<&OsStr>| {
        env.retain(|(k, _)| k != key);
        if let Some(v) = value {
            env.push((key.to_os_string(), v.to_os_string()));
        }
    };
    set(&mut env, OsStr::new("TERM"), Some(OsStr::new(DEFAULT_TERM)));
    set(&mut env, OsStr::new("COLORTERM"), Some(OsStr::new("truecolor")));
    set(&mut env, OsStr::new("TUIPILOT"), Some(OsStr::new("1")));
    for (key, value) in changes {
        set(&mut env, key, value.as_deref());
    }
    let has_locale = ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .any(|name| env.iter().any(|(k, v)| k == name && !v.is_empty()));
    if !has_locale {
        env.push(("LANG".into(), "C.UTF-8".into()));
    }
    env
}

/// Starts the program under a new PTY of the requested size.
pub(crate) fn spawn(spec: &SpawnSpec) -> Result<Spawned> {
    let cwd = match &spec.cwd {
        Some(dir) if dir.is_dir() => dir.clone(),
        Some(dir) => return Err(Error::CwdNotDirectory { path: dir.clone() }),
        None => std::env::current_dir().map_err(|e| Error::io("reading the current directory", e))?,
    };
    let env = child_env(&spec.env, spec.clear_env);
    let path_var = env.iter().find(|(k, _)| k == "PATH").map(|(_, v)| v.as_os_str());
    let resolved = crate::process::find_program(&spec.program, path_var, &cwd)?;
    // portable-pty looks up every relative name on PATH, so a relative path with a
    // slash (`./tool`, `target/debug/x`) is passed resolved; bare names keep their argv[0].
    let program = if spec.program.to_string_lossy().contains('/') {
        resolved.into_os_string()
    } else {
        spec.program.clone()
    };
    let mut cmd = CommandBuilder::new(&program);
    cmd.args(&spec.args);
    cmd.env_clear();
    for (k, v) in &env {
        cmd.env(k, v);
    }
    cmd.cwd(&cwd);

    let program = spec.program.to_string_lossy().into_owned();
    let spawn_error = |message: String| Error::Spawn {
        program: program.clone(),
        message,
    };
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: spec.rows,
            cols: spec.cols,
            pixel_width: spec.pixel_width,
            pixel_height: spec.pixel_height,
        })
        .map_err(|e| spawn_error(format!("opening a pseudo-terminal failed: {e:#}")))?;
    let child = pair
        .slave
        .spawn_command(cmd)
        .map_err(|e| spawn_error(format!("{e:#}")))?;
    // The parent's copy of the slave must go, or the reader never sees end of file.
    drop(pair.slave);
    let pid = child
        .process_id()
        .and_then(|p| i32::try_from(p).ok())
        .ok_or_else(|| spawn_error("the child has no process id".into()))?;
    let reader = pair
        .master
        .try_clone_reader()
        .map_err(|e| spawn_error(format!("reading the pseudo-terminal: {e:#}")))?;
    let writer = pair
        .master
        .take_writer()
        .map_err(|e| spawn_error(format!("writing the pseudo-terminal: {e:#}")))?;
    Ok(Spawned {
        master: pair.master,
        reader,
        writer,
        child,
        pid,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn environment_policy() {
        let env = child_env(
            &[("FOO".into(), Some("bar".into())), ("HOME".into(), None)],
            false,
        );
        let get = |k: &str| env.iter().find(|(key, _)| key == k).map(|(_, v)| v.clone());
        assert_eq!(get("TERM").as_deref(), Some(OsStr::new("xterm-256color")));
        assert_eq!(get("COLORTERM").as_deref(), Some(OsStr::new("truecolor")));
        assert_eq!(get("FOO").as_deref(), Some(OsStr::new("bar")));
        assert_eq!(get("HOME"), None);
        assert_eq!(get("LINES"), None);
        assert_eq!(get("COLUMNS"), None);
        let overridden = child_env(&[("TERM".into(), Some("dumb".into()))], false);
        assert!(overridden.iter().any(|(k, v)| k == "TERM" && v == "dumb"));
    }
}
