//! Shell integration: making bash, zsh and fish send OSC 133 prompt marks, without touching
//! the user's files, so a wait can know when a command has finished and how it ended.
//!
//! The marks: `133;A` the prompt starts, `133;B` the command line starts (the prompt
//! ends), `133;C` the command runs (its output starts), `133;D;STATUS` it finished. What
//! is injected, per shell (and said in the guide, `docs/src/shell-integration.md`):
//!
//! - **bash**, through the environment (read even with `--norc`): `PROMPT_COMMAND` sends
//!   `D` (only after a command ran) and `A`, then runs the caller's `PROMPT_COMMAND` with
//!   `$?` intact; `PS0` sends `C` (and notes that a command ran); `PS1` gets an invisible
//!   `B` at its end (bash's default prompt when none is set). An rc file that replaces
//!   `PROMPT_COMMAND` or `PS1` loses the marks.
//! - **zsh**: `ZDOTDIR` points at a private temporary directory whose `.zshenv`,
//!   `.zprofile` and `.zshrc` source the user's own (from the `ZDOTDIR` the caller had, or
//!   `HOME`), then add `precmd`/`preexec` hooks and put `ZDOTDIR` back. `zsh -f` reads no
//!   files and gets no marks. The directory is removed when the session ends.
//! - **fish**: fish 4 sends the marks itself; for older fish an `--init-command` defines
//!   `fish_prompt`/`fish_preexec`/`fish_postexec` handlers (no `B`: fish has no hook at
//!   the prompt's end).
//!
//! Nothing is injected into a shell started with `-c` (it runs no prompt), or when the
//! caller turned integration off.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use crate::error::{Error, Result};
use crate::files::TempDir;

/// What to add to a shell's start: environment, arguments, and a directory to remove
/// when the session ends.
#[derive(Default)]
pub(crate) struct Injection {
    pub env: Vec<(OsString, Option<OsString>)>,
    pub args: Vec<OsString>,
    pub dir: Option<TempDir>,
}

/// bash's prompt when none is set.
const BASH_DEFAULT_PS1: &str = r"\s-\v\$ ";

/// Runs before each bash prompt: `D` with the status when a command ran, then the
/// caller's `PROMPT_COMMAND` (`$?` restored for it), then `A`.
fn bash_prompt_command(user: Option<&str>) -> String {
    let mut out = String::from(
        r#"__tuipilot_status=$?; if [ -n "${__tuipilot_ran-}" ]; then printf '\033]133;D;%s\007' "$__tuipilot_status"; unset __tuipilot_ran; fi"#,
    );
    if let Some(user) = user.filter(|u| !u.trim().is_empty()) {
        out.push_str("; (exit \"$__tuipilot_status\")\n");
        out.push_str(user);
        out.push('\n');
    } else {
        out.push_str("; ");
    }
    out.push_str(r"printf '\033]133;A\007'");
    out
}

const ZSHENV: &str = r#"# tuipilot shell integration: read the user's own files, then add OSC 133 marks.
__tuipilot_zdotdir="$ZDOTDIR"
ZDOTDIR="${TUIPILOT_USER_ZDOTDIR:-$HOME}"
[[ -f "$ZDOTDIR/.zshenv" ]] && builtin source "$ZDOTDIR/.zshenv"
__tuipilot_user_zdotdir="$ZDOTDIR"
ZDOTDIR="$__tuipilot_zdotdir"
"#;

const ZPROFILE: &str = r#"ZDOTDIR="$__tuipilot_user_zdotdir"
[[ -f "$ZDOTDIR/.zprofile" ]] && builtin source "$ZDOTDIR/.zprofile"
ZDOTDIR="$__tuipilot_zdotdir"
"#;

const ZSHRC: &str = r#"ZDOTDIR="$__tuipilot_user_zdotdir"
[[ -f "$ZDOTDIR/.zshrc" ]] && builtin source "$ZDOTDIR/.zshrc"
unset TUIPILOT_USER_ZDOTDIR __tuipilot_zdotdir __tuipilot_user_zdotdir
__tuipilot_precmd() {
  local s=$?
  if [[ -n ${__tuipilot_ran-} ]]; then printf '\033]133;D;%s\007' "$s"; unset __tuipilot_ran; fi
  printf '\033]133;A\007'
}
__tuipilot_prompt_end() {
  [[ $PS1 == *'133;B'* ]] || PS1="$PS1"$'%{\033]133;B\007%}'
}
__tuipilot_preexec() { __tuipilot_ran=1; printf '\033]133;C\007'; }
precmd_functions=(__tuipilot_precmd $precmd_functions __tuipilot_prompt_end)
preexec_functions+=(__tuipilot_preexec)
"#;

const FISH: &str = r"if test (string split -f1 . $version) -lt 4
  function __tuipilot_prompt --on-event fish_prompt; printf '\e]133;A\a'; end
  function __tuipilot_preexec --on-event fish_preexec; printf '\e]133;C\a'; end
  function __tuipilot_postexec --on-event fish_postexec; printf '\e]133;D;%s\a' $status; end
end";

/// The value `key` will have in the program's environment: the caller's setting (the
/// last one wins), else inherited unless the environment is cleared.
fn value_of(key: &str, env: &[(OsString, Option<OsString>)], clear_env: bool) -> Option<String> {
    match env.iter().rev().find(|(k, _)| k == key) {
        Some((_, value)) => value.as_ref().map(|v| v.to_string_lossy().into_owned()),
        None if clear_env => None,
        None => std::env::var(key).ok(),
    }
}

/// What to inject for `program` started with `args` (nothing for a program that is not
/// bash, zsh or fish, or a shell that runs a command string).
pub(crate) fn inject(
    program: &OsStr,
    args: &[OsString],
    env: &[(OsString, Option<OsString>)],
    clear_env: bool,
) -> Result<Injection> {
    let name = Path::new(program)
        .file_name()
        .map(|n| n.to_string_lossy().trim_start_matches('-').to_string())
        .unwrap_or_default();
    let runs_a_command = args.iter().any(|a| {
        let a = a.to_string_lossy();
        a == "-c" || (a.starts_with('-') && !a.starts_with("--") && a.contains('c') && name != "fish")
    });
    if runs_a_command {
        return Ok(Injection::default());
    }
    let value = |key| value_of(key, env, clear_env);
    let set = |key: &str, value: String| (OsString::from(key), Some(OsString::from(value)));
    match name.as_str() {
        "bash" => {
            let ps1 = value("PS1").unwrap_or_else(|| BASH_DEFAULT_PS1.to_string());
            let ps0 = value("PS0").unwrap_or_default();
            Ok(Injection {
                env: vec![
                    set(
                        "PROMPT_COMMAND",
                        bash_prompt_command(value("PROMPT_COMMAND").as_deref()),
                    ),
                    set("PS0", format!(r"\[\e]133;C;${{__tuipilot_ran:=1}}\a\]{ps0}")),
                    set("PS1", format!(r"{ps1}\[\e]133;B\a\]")),
                ],
                ..Injection::default()
            })
        }
        "zsh" => {
            let dir = TempDir::new("zdotdir")?;
            for (file, text) in [(".zshenv", ZSHENV), (".zprofile", ZPROFILE), (".zshrc", ZSHRC)] {
                let path = dir.path().join(file);
                std::fs::write(&path, text)
                    .map_err(|e| Error::io(format!("writing {}", path.display()), e))?;
            }
            let mut env = vec![(
                OsString::from("ZDOTDIR"),
                Some(dir.path().as_os_str().to_os_string()),
            )];
            if let Some(user) = value("ZDOTDIR") {
                env.push(set("TUIPILOT_USER_ZDOTDIR", user));
            }
            Ok(Injection {
                env,
                args: Vec::new(),
                dir: Some(dir),
            })
        }
        "fish" => Ok(Injection {
            args: vec!["--init-command".into(), FISH.into()],
            ..Injection::default()
        }),
        _ => Ok(Injection::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_keeps_the_callers_prompt_command_after_its_own_marks() {
        let own = bash_prompt_command(None);
        assert!(own.ends_with(r"printf '\033]133;A\007'"), "{own}");
        assert!(
            !own.contains("(exit"),
            "no subshell when there is nothing to restore $? for"
        );
        let with = bash_prompt_command(Some("history -a"));
        let user = with.find("history -a").unwrap();
        assert!(with.find("133;D").unwrap() < user && user < with.find("133;A").unwrap());
        assert!(with.contains("(exit \"$__tuipilot_status\")\nhistory -a"));
    }

    #[test]
    fn shells_running_a_command_string_and_other_programs_get_nothing() {
        let none = |program: &str, args: &[&str]| {
            let args: Vec<OsString> = args.iter().map(OsString::from).collect();
            let injection = inject(OsStr::new(program), &args, &[], true).unwrap();
            injection.env.is_empty() && injection.args.is_empty() && injection.dir.is_none()
        };
        assert!(none("bash", &["-c", "ls"]));
        assert!(none("/bin/zsh", &["-ic", "ls"]));
        assert!(none("vim", &[]));
        assert!(!none("/usr/bin/bash", &["--norc"]));
        assert!(!none("fish", &["--no-config"]));
    }
}
