//! `tuipilot describe`: the machine-readable catalogue of commands, flags, key names, exit
//! codes and readiness, read by agents before their first call.

mod support;

use std::path::Path;

use support::Dir;

#[test]
fn describe_is_a_catalogue() {
    let dir = Dir::new();
    let catalogue = dir.json(&["describe"]);
    let commands: Vec<&str> = catalogue["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for expected in [
        "start", "send", "wait", "capture", "exit", "resize", "list", "describe",
    ] {
        assert!(
            commands.contains(&expected),
            "{expected} missing from {commands:?}"
        );
    }
    assert!(
        !commands.iter().any(|c| c.starts_with("__")),
        "hidden commands stay hidden"
    );
    let send = catalogue["commands"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "send")
        .unwrap();
    let longs: Vec<&str> = send["args"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["long"].as_str())
        .collect();
    for flag in [
        "--text",
        "--key",
        "--paste",
        "--sleep-ms",
        "--wait",
        "--timeout-ms",
        "--capture",
    ] {
        assert!(longs.contains(&flag), "{flag} missing from {longs:?}");
    }
    assert!(
        catalogue["keys"]["names"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "PageDown")
    );
    assert_eq!(catalogue["exit_codes"].as_object().unwrap().len(), 3);
    assert!(
        catalogue["readiness"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "wait --ready"),
        "{}",
        catalogue["readiness"]
    );
    let codes: Vec<&str> = catalogue["protocol"]["error_codes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["code"].as_str().unwrap())
        .collect();
    for code in [
        "bad_request",
        "spawn_failed",
        "no_session",
        "timeout",
        "exited",
        "internal",
    ] {
        assert!(codes.contains(&code), "{code} missing from {codes:?}");
    }
    assert_eq!(catalogue["global_args"].as_array().unwrap().len(), 2);
    assert!(Path::new(env!("CARGO_BIN_EXE_tuipilot")).exists());
}

/// A session named `default` showing ` green ` on a green background.

#[test]
fn describe_marks_switches_as_taking_no_value() {
    let dir = Dir::new();
    let catalogue = dir.json(&["describe"]);
    let arg = |command: &str, name: &str| -> serde_json::Value {
        catalogue["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == command)
            .and_then(|c| c["args"].as_array().unwrap().iter().find(|a| a["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("{command} {name} missing"))
    };
    for (command, name) in [
        ("capture", "ansi"),
        ("capture", "scrollback"),
        ("send", "capture"),
        ("wait", "exit"),
    ] {
        let a = arg(command, name);
        assert_eq!(
            (a["flag"].as_bool(), a["value"].is_null()),
            (Some(true), true),
            "{a}"
        );
    }
    let timeout = arg("wait", "timeout_ms");
    assert_eq!(
        (timeout["flag"].as_bool(), timeout["value"].as_str()),
        (Some(false), Some("N"))
    );
    let png = arg("capture", "png");
    assert_eq!(
        (png["value"].as_str(), png["value_optional"].as_bool()),
        (Some("PATH"), Some(true)),
        "{png}"
    );
}

/// The names of the commands `describe` lists: what completions and man pages must cover.
fn described_commands(dir: &Dir) -> Vec<String> {
    dir.json(&["describe"])["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn completions_name_every_command_for_each_shell() {
    let dir = Dir::new();
    let commands = described_commands(&dir);
    let bash = dir.ok(&["completions", "bash"]);
    assert!(bash.contains("complete -F _tuipilot"), "{bash}");
    let fish = dir.ok(&["completions", "fish"]);
    for command in &commands {
        assert!(
            fish.contains(&format!("-f -a \"{command}\"")),
            "{command} in the fish completions"
        );
    }
    assert!(dir.ok(&["completions", "zsh"]).starts_with("#compdef tuipilot"));
    let out = dir.run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2), "an unknown shell is a usage error");
}

#[test]
fn man_writes_a_page_for_tuipilot_and_each_command() {
    let dir = Dir::new();
    let pages = dir.work().join("man");
    let said = dir.ok(&["man", "-o", pages.to_str().unwrap()]);
    let commands = described_commands(&dir);
    assert!(
        said.contains(&format!("wrote {} pages", commands.len() + 1)),
        "{said}"
    );
    let main = std::fs::read_to_string(pages.join("tuipilot.1")).unwrap();
    assert!(main.contains(".TH tuipilot 1"), "{main}");
    for command in &commands {
        let page = std::fs::read_to_string(pages.join(format!("tuipilot-{command}.1")))
            .unwrap_or_else(|e| panic!("tuipilot-{command}.1: {e}"));
        assert!(page.contains(".SH NAME"), "{command}: {page}");
    }
    let report = std::fs::read_to_string(pages.join("tuipilot-report.1")).unwrap();
    assert!(
        report.contains("report.html") || report.contains("FILE.html"),
        "{report}"
    );
}

// Fails on the code before: every timeout's default was null in describe and unsaid in
// --help.
#[test]
fn every_timeout_states_its_default_in_describe_and_help() {
    let dir = Dir::new();
    let catalogue = dir.json(&["describe"]);
    let mut seen = 0;
    for command in catalogue["commands"].as_array().unwrap() {
        for arg in command["args"].as_array().unwrap() {
            if arg["long"].as_str().is_some_and(|l| l.contains("timeout")) {
                seen += 1;
                assert!(
                    arg["default"].as_str().is_some_and(|d| d.contains("00")),
                    "{} {}: {arg}",
                    command["name"],
                    arg["long"]
                );
            }
        }
    }
    assert!(seen >= 6, "{seen} timeouts");
    for command in ["send", "wait", "capture", "start", "once", "exit"] {
        let help = dir.ok(&[command, "--help"]);
        assert!(help.contains("Default:"), "{command} --help:\n{help}");
    }
    // The session's default is the engine's.
    let millis = tuipilot::DEFAULT_TIMEOUT.as_millis().to_string();
    assert!(dir.ok(&["wait", "--help"]).contains(&format!("else {millis}")));
}

#[test]
fn each_command_s_help_opens_with_what_the_catalogue_and_the_command_list_say_it_does() {
    // A command's arguments are made only when it runs; what they are made of must not
    // replace the command's own description (a struct's doc comment would).
    let dir = Dir::new();
    let catalogue = dir.json(&["describe"]);
    let listing = String::from_utf8(dir.run(&["--help"]).stdout).unwrap();
    for command in catalogue["commands"].as_array().unwrap() {
        let (name, about) = (
            command["name"].as_str().unwrap(),
            command["about"].as_str().unwrap(),
        );
        let help = String::from_utf8(dir.run(&[name, "--help"]).stdout).unwrap();
        assert_eq!(help.lines().next(), Some(about), "`{name} --help`");
        assert!(
            listing
                .lines()
                .any(|l| l.trim_start().starts_with(name) && l.trim_end().ends_with(about)),
            "`--help` lists {name} as {about:?}:\n{listing}"
        );
    }
}
