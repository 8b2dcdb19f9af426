//! `tuipilot describe`: every command, flag, key name, exit code and error code, read
//! from the clap definitions and the error table themselves.

use clap::ArgAction;
use serde_json::{Value, json};

use crate::error::{ErrorCode, Failure};
use crate::host::paths::runtime_dir_from_env;
use crate::host::protocol;

/// A default that is not clap's own (it depends on the session or the environment), as
/// the argument's help states it: the words after `Default: ` up to the sentence's end.
fn stated_default(arg: &clap::Arg) -> Option<String> {
    let help = arg.get_help()?.to_string();
    let (_, after) = help.split_once("Default: ")?;
    let end = after.find(". ").map_or(after.trim_end_matches('.').len(), |i| i);
    Some(after[..end].to_string())
}

/// The machine-readable catalogue behind `describe`.
pub(super) fn describe() -> Value {
    let command = super::args::whole_tree();
    let arg_json = |arg: &clap::Arg| {
        // An on/off switch takes no value; clap still names one after the argument.
        let flag = matches!(
            arg.get_action(),
            ArgAction::SetTrue | ArgAction::SetFalse | ArgAction::Count
        );
        let value_optional = arg
            .get_num_args()
            .is_some_and(|n| n.min_values() == 0 && n.max_values() > 0);
        json!({
            "name": arg.get_id().as_str(),
            "long": arg.get_long().map(|l| format!("--{l}")),
            "short": arg.get_short().map(|s| format!("-{s}")),
            "flag": flag,
            "value": if flag { None } else { arg.get_value_names().and_then(|v| v.first()).map(|v| v.to_string()) },
            "value_optional": value_optional,
            "help": arg.get_help().map(|h| h.to_string()),
            "required": arg.is_required_set(),
            "repeatable": matches!(arg.get_action(), ArgAction::Append),
            // A switch's off state is no default to state (building the tree gives it one).
            "default": match flag {
                true => stated_default(arg),
                false => arg
                    .get_default_values()
                    .first()
                    .map(|v| v.to_string_lossy().into_owned())
                    .or_else(|| stated_default(arg)),
            },
            "positional": arg.is_positional(),
        })
    };
    let skip = |arg: &&clap::Arg| !matches!(arg.get_id().as_str(), "help" | "version" | "session" | "json");
    let commands: Vec<Value> = command
        .get_subcommands()
        // `help` is clap's, added by building the tree.
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
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
            "events": "release:KEY and repeat:KEY are sent when the program's kitty keyboard flags ask for event types (a release is otherwise nothing, a repeat a press)",
            "protocols": "keys are encoded as the program asked: xterm's bytes, kitty keyboard protocol flags (CSI > flags u), or modifyOtherKeys (CSI > 4 ; n m); `keys` in capture --json shows which",
        },
        "mouse": {
            "grammar": "[C-|M-|S-]*ACTION TARGET [N]",
            "actions": tuipilot::keys::mouse::ACTIONS.iter().map(|(name, _)| *name).collect::<Vec<_>>(),
            "target": "COL,ROW (0-based, as the cursor and find use) or /REGEX/ (the centre of its first match); drag takes FROM..TO",
            "count": format!("N clicks or wheel notches, 1 to {}", tuipilot::keys::mouse::MAX_COUNT),
            "examples": ["click 12,3", "double-click /README/", "right-click 5,5", "C-click /OK/", "drag 2,1..9,1", "scroll-down /log/ 3"],
            "modes": "encoded for the program's tracking mode (9, 1000, 1002, 1003) and encoding (X10, 1005, 1006, 1015, 1016); refused with exit 2 when it enabled none; `mouse` in capture --json and info shows them",
        },
        "focus": "send --focus in|out sends CSI I / CSI O when the program enabled focus events (mode 1004); refused otherwise",
        "readiness": {
            "what": "ready: the program has finished reacting and waits for input — every process of the terminal's foreground group asleep and one blocked reading the terminal (read, or poll/select/epoll watching it), no output unread and no input unread — asked of the kernel, confirmed a few milliseconds later (after a timer due within 50 ms)",
            "where": "Linux on x86_64 and aarch64, from /proc; elsewhere, or where /proc cannot be read, a quiet screen stands in and the reply says so",
            "fallback_quiet_ms": tuipilot::wait::READY_FALLBACK_QUIET.as_millis(),
            "commands": ["wait --ready", "wait --prompt", "send --wait-ready", "send --capture (ready, then the screen as it is with why)", "start --wait-ready", "once (settles on ready)"],
            "protocol": "{\"ready\":null}, {\"prompt\":null}, {\"settle\":null} as a wait",
            "reasons": ["ready: vim (pid 4711) reading the terminal", "busy: sleep (pid 88) sleeping on a timer (clock_nanosleep)", "not ready within 3000 ms: busy: …"],
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
