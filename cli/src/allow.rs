//! What `tuipilot mcp --allow` confines, and how.
//!
//! An allow-list is only worth something if a client cannot step around it, and each way
//! around it is a way to choose *which file runs* or *what code a permitted program
//! loads*. So when a list is active:
//!
//! - the program is resolved with the server's own `PATH` (never the request's) to an
//!   absolute path, and both it and the allowed names are compared after resolving
//!   symlinks; a relative path (`./cat`) is refused, and the session runs the resolved path;
//! - environment variables that change what runs are refused: `PATH`, `LD_*`, `*OPEN`
//!   (`LESSOPEN`), pagers and editors, shell start-up files (`BASH_ENV`, `ENV`,
//!   `BASH_FUNC_*`), interpreters' start-up and library paths, and the like
//!   ([`DENIED_ENV`]); or, with `--allow-env`, only the keys the operator listed are
//!   accepted;
//! - the working directory must lie inside `--allow-cwd` (without it, a request may not
//!   choose one).
//!
//! What it cannot prevent: an allowed program that can itself run other programs (`less`
//! with `!`, `vim` with `:!`, any shell) runs whatever its user types. The deny list is a
//! list of known ways, not a proof; `--allow-env` is the closed form.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use crate::error::Failure;

/// Environment variables a request may not set while an allow-list is active (a trailing
/// `*` matches any suffix, a leading one any prefix).
pub const DENIED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "SHELL",
    "ENV",
    "BASH_ENV",
    "BASH_FUNC_*",
    "IFS",
    "PROMPT_COMMAND",
    "LD_*",
    "*OPEN",
    "LESSCLOSE",
    "LESSSECURE*",
    "LESSKEY*",
    "*PAGER",
    "EDITOR",
    "VISUAL",
    "PYTHON*",
    "PERL5*",
    "PERLLIB",
    "RUBY*",
    "NODE_*",
    "*_OPTIONS",
    "VIMINIT",
    "EXINIT",
    "MYVIMRC",
    "GVIMINIT",
    "ZDOTDIR",
    "XDG_CONFIG_*",
    "XDG_DATA_*",
    "GIT_*",
    "GCONV_PATH",
    "TERMINFO*",
    "INPUTRC",
    "FZF_DEFAULT_COMMAND",
];

/// An active allow-list: the programs, and what a request may set around them.
#[derive(Clone, Debug)]
pub struct AllowList {
    /// As the operator wrote them, for messages.
    names: Vec<String>,
    /// Each allowed program resolved and with symlinks resolved.
    programs: Vec<PathBuf>,
    /// With `--allow-env`: the only keys a request may set.
    env_keys: Option<Vec<String>>,
    /// With `--allow-cwd`: the directory a working directory must lie in (resolved).
    cwd_root: Option<PathBuf>,
}

/// `program` found the way `execvp` would with `path` (the server's `PATH`), searching
/// only its absolute directories: a relative one would depend on the server's cwd.
fn find_on_path(program: &str, path: Option<&OsStr>) -> Option<PathBuf> {
    let absolute = std::env::join_paths(std::env::split_paths(path?).filter(|dir| dir.is_absolute())).ok()?;
    tuipilot::process::find_program(OsStr::new(program), Some(&absolute), Path::new("/")).ok()
}

/// Whether `key` is on the deny list.
pub fn env_denied(key: &str) -> bool {
    DENIED_ENV.iter().any(|pattern| {
        if let Some(prefix) = pattern.strip_suffix('*') {
            key.starts_with(prefix)
        } else if let Some(suffix) = pattern.strip_prefix('*') {
            key.ends_with(suffix)
        } else {
            key == *pattern
        }
    })
}

impl AllowList {
    /// The list for `programs` (empty: no list, anything may run), resolved now with the
    /// server's `PATH`; an allowed name that is not found is the operator's mistake.
    pub fn new(
        programs: &[String],
        env_keys: Option<Vec<String>>,
        cwd_root: Option<&Path>,
    ) -> Result<Option<AllowList>, String> {
        if programs.is_empty() {
            if env_keys.is_some() || cwd_root.is_some() {
                return Err(
                    "--allow-env and --allow-cwd need --allow: without an allow-list anything may run".into(),
                );
            }
            return Ok(None);
        }
        let path = std::env::var_os("PATH");
        let resolved = programs
            .iter()
            .map(|name| {
                if name.contains('/') && !name.starts_with('/') {
                    return Err(format!(
                        "--allow {name}: give a program's name or its absolute path"
                    ));
                }
                find_on_path(name, path.as_deref())
                    .and_then(|p| p.canonicalize().ok())
                    .ok_or_else(|| format!("--allow {name}: no such executable on this server's PATH"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let cwd_root = cwd_root
            .map(|root| {
                root.canonicalize()
                    .map_err(|e| format!("--allow-cwd {}: {e}", root.display()))
            })
            .transpose()?;
        Ok(Some(AllowList {
            names: programs.to_vec(),
            programs: resolved,
            env_keys,
            cwd_root,
        }))
    }

    /// Checks a start request; returns the absolute path of the program to run.
    pub fn check(
        &self,
        program: &str,
        env: &[(String, String)],
        cwd: Option<&Path>,
    ) -> Result<PathBuf, Failure> {
        let refuse = |why: String| Err(Failure::bad_request(why));
        let allowed = self.names.join(", ");
        if program.contains('/') && !program.starts_with('/') {
            return refuse(format!(
                "`{program}` is a relative path, which this server does not run: name an allowed program ({allowed})"
            ));
        }
        let Some(found) = find_on_path(program, std::env::var_os("PATH").as_deref()) else {
            return refuse(format!(
                "`{program}` is not allowed: this server only starts {allowed}"
            ));
        };
        let real = found.canonicalize().unwrap_or_else(|_| found.clone());
        if !self.programs.contains(&real) {
            return refuse(format!(
                "`{program}` is not allowed: this server only starts {allowed}"
            ));
        }
        for (key, _) in env {
            // `LD_PRELOAD=/x` as a *key* would reach the program as `LD_PRELOAD=/x=…`.
            if key.is_empty() || key.contains(['=', '\0']) {
                return refuse(format!(
                    "`{key}` is not a variable name: a name may not be empty or hold `=`"
                ));
            }
            let denied = match &self.env_keys {
                Some(keys) => !keys.contains(key),
                None => env_denied(key),
            };
            if denied {
                return refuse(match &self.env_keys {
                    Some(keys) if keys.is_empty() => format!(
                        "`{key}` may not be set: this server lets requests set no environment variables"
                    ),
                    Some(keys) => format!(
                        "`{key}` may not be set: this server only lets requests set {}",
                        keys.join(", ")
                    ),
                    None => format!(
                        "`{key}` may not be set: it can change what an allowed program runs (the operator can allow keys with --allow-env)"
                    ),
                });
            }
        }
        if let Some(cwd) = cwd {
            let inside = self
                .cwd_root
                .as_ref()
                .is_some_and(|root| cwd.canonicalize().is_ok_and(|real| real.starts_with(root)));
            if !inside {
                return refuse(match &self.cwd_root {
                    Some(root) => format!(
                        "working directory {} is outside {}, the only place this server runs programs",
                        cwd.display(),
                        root.display()
                    ),
                    None => format!(
                        "working directory {} may not be chosen: this server runs programs in its own (the operator can allow a tree with --allow-cwd)",
                        cwd.display()
                    ),
                });
            }
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_deny_list_matches_prefixes_and_suffixes() {
        for key in [
            "PATH",
            "LD_PRELOAD",
            "LESSOPEN",
            "GIT_PAGER",
            "PYTHONSTARTUP",
            "BASH_FUNC_x%%",
            "NODE_OPTIONS",
            "LESSSECURE",
            // less 633+ lets LESSSECURE_ALLOW turn its secure mode's features back on.
            "LESSSECURE_ALLOW",
        ] {
            assert!(env_denied(key), "{key}");
        }
        for key in ["TERM", "LANG", "FOO", "MY_PATHS", "COLUMNS_X"] {
            assert!(!env_denied(key), "{key}");
        }
    }
}
