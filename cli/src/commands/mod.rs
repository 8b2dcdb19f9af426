//! The command line: `main` and the dispatch to thin handlers.
//!
//! Session commands are clients of a per-session host ([`crate::host`]); `once` uses
//! the library directly. Output is text for people or, with `--json`, one JSON value on
//! stdout; errors are one line (`tuipilot: …` on stderr, or `{"error":{…}}` with `--json`).
//! Exit codes: 0 success, 1 a wait or condition not met, 2 usage or operational error.
//!
//! - `args`: the arguments (clap);
//! - this file: [`main`], which maps every failure to its exit code in one place, and the
//!   dispatch;
//! - `client`: the session commands, each a request to the session's host;
//! - `output`: printing replies as text or JSON;
//! - `once`: start, wait, keys, capture and exit in one process;
//! - `describe`: the machine-readable catalogue.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{ArgMatches, CommandFactory, FromArgMatches};
use serde_json::json;
use tuipilot::Operation;
use tuipilot::operation::{Screen, WaitFor};

use crate::error::Failure;

/// `println!` through [`output::say`], returning its error from the calling function.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::commands::output::say(format_args!($($arg)*))?
    };
}

mod args;
mod attach;
mod capture;
mod client;
mod describe;
mod export;
mod once;
mod output;
pub(crate) use output::printable;
mod manual;
mod record;
mod render;
mod report;

use args::{Cli, Command};
use args::{OnceArgs, StartArgs};
use capture::show_capture;
use client::{call, decode, list, send_steps, start};
use describe::describe;
use export::export;
use once::once;
use output::{print_exit, print_json, print_screen};
use render::render;

fn current_dir() -> Result<PathBuf, Failure> {
    std::env::current_dir().map_err(|e| Failure::internal(format!("reading the current directory: {e}")))
}

/// Parses the command line and runs it.
pub fn main() -> ExitCode {
    let json_wanted = std::env::args_os().any(|a| a == "--json");
    let mut command_line = Cli::command();
    let matches = match command_line.try_get_matches_from_mut(std::env::args_os()) {
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
            let _ = output::say(json!({ "error": err }));
            return ExitCode::from(2);
        }
        Err(e) => e.exit(),
    };
    // Kept for what reads the tree again (the flags of `start` and `once` a program was
    // given by mistake): building it is most of the cost of a call's own start.
    let _ = args::COMMAND_LINE.set(command_line);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    // The arguments are parsed into copies: `--env` values leave the command line now.
    crate::title::hide_env_values();
    let json = cli.json;
    let outcome = run(cli, &matches);
    // A signal's cleanup may have ended the program this command waited on: the command
    // dies of the signal then, instead of reporting the program's end as its failure.
    tuipilot::files::await_end_by_signal();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if json {
                let _ = output::say(json!({ "error": e }));
            } else {
                eprintln!("tuipilot: {}", output::printable(&e.to_string()));
            }
            ExitCode::from(e.exit_code())
        }
    }
}

fn run(cli: Cli, matches: &ArgMatches) -> Result<(), Failure> {
    let name = cli.session.as_str();
    let json = cli.json;
    // Commands that write temporary files (a tape run's cast, isolated homes) remove them
    // when interrupted. `start` and `mcp` fork first and install it after their fork.
    if matches!(
        cli.command,
        Command::Run(_) | Command::Render(_) | Command::Export(_) | Command::Once(_) | Command::Report(_)
    ) {
        tuipilot::files::remove_temporaries_on_signal()?;
    }
    match cli.command {
        Command::Start(args) => start(name, json, args),
        Command::Send {
            wait,
            wait_command,
            timeout_ms,
            capture,
            secret,
            wait_ready,
            view,
            ..
        } => {
            let steps = send_steps(
                matches
                    .subcommand_matches("send")
                    .ok_or_else(|| Failure::internal("the send arguments went missing"))?,
            )?;
            let capture = capture || view.asked();
            if steps.is_empty() && wait.is_none() && !wait_command && !wait_ready && !capture {
                return Err(Failure::bad_request(
                    "nothing to send: give -t TEXT, -k KEYS, --paste TEXT, --mouse ACTION, --focus in|out or --sleep-ms N",
                ));
            }
            // A capture with no wait of its own shows the screen once the program has
            // reacted: it waits for ready, and a program still busy when the time is up
            // is shown as it is then, with a note (the capture was asked for, not a wait).
            let ready_by_default = capture && wait.is_none() && !wait_command && !wait_ready;
            let operation = Operation::Send {
                steps,
                wait: if wait_command {
                    Some(WaitFor::Command)
                } else if wait_ready {
                    Some(WaitFor::Ready)
                } else if ready_by_default {
                    Some(WaitFor::Settle)
                } else {
                    wait.map(WaitFor::Text)
                },
                timeout_ms,
                // The command's exit code is read from the screen's signals.
                capture: wait_command,
                secret,
            };
            let reply = call(name, operation, timeout_ms)?;
            let waited = reply["waited"]
                .as_str()
                .or_else(|| reply["screen"]["waited"].as_str())
                .map(str::to_string);
            if let Some(screen) = reply.get("screen") {
                let screen: Screen = decode(screen.clone())?;
                if wait_command && !json {
                    say!("{}", command_words(&screen));
                }
                if !capture {
                    output::note_pending(screen.pending.as_deref(), screen.unwaited.as_deref());
                    return print_screen(name, json, &screen, false);
                }
            }
            if !capture {
                output::note_pending(reply["pending"].as_str(), reply["unwaited"].as_str());
                return if json { print_json(name, &reply) } else { Ok(()) };
            }
            // The screen is a capture of its own, with capture's options, after the
            // send's wait: it is what the next `capture --changed` compares with.
            show_capture(name, json, None, timeout_ms, view, waited)
        }
        Command::Wait {
            text,
            in_rows,
            in_cols,
            no_text,
            line,
            wrapped,
            output,
            stable,
            exit,
            command,
            bell,
            ready,
            prompt,
            title,
            cwd,
            timeout_ms,
        } => {
            let condition = match (text, no_text, output, stable) {
                _ if ready => WaitFor::Ready,
                _ if prompt => WaitFor::Prompt,
                _ if command => WaitFor::Command,
                _ if bell => WaitFor::Bell,
                _ if title.is_some() => WaitFor::Title(title.unwrap_or_default()),
                _ if cwd.is_some() => WaitFor::Cwd(cwd.unwrap_or_default()),
                _ if line.is_some() => WaitFor::Line(line.unwrap_or_default()),
                _ if wrapped.is_some() => WaitFor::Wrapped(wrapped.unwrap_or_default()),
                (Some(pattern), ..) if in_rows.is_some() || in_cols.is_some() => {
                    let span = |what, text: Option<String>| {
                        text.map(|t| tuipilot::operation::parse_span(what, &t))
                            .transpose()
                    };
                    WaitFor::TextIn {
                        pattern,
                        rows: span("--in-rows", in_rows)?,
                        cols: span("--in-cols", in_cols)?,
                    }
                }
                (Some(re), ..) => WaitFor::Text(re),
                (_, Some(re), ..) => WaitFor::NoText(re),
                (_, _, Some(re), _) => WaitFor::Output(re),
                (.., Some(ms)) => WaitFor::StableMs(ms),
                _ if exit => WaitFor::Exit,
                _ => {
                    return Err(Failure::bad_request(
                        "give one of --text, --no-text, --line, --wrapped, --output, --stable, --exit, --command, --bell, --ready, --prompt, --title, --cwd",
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
            let screen: Screen = decode(reply["screen"].clone())?;
            if command && !json {
                say!("{}", command_words(&screen));
            }
            output::note_pending(screen.pending.as_deref(), screen.unwaited.as_deref());
            print_screen(name, json, &screen, false)
        }
        Command::Capture {
            wait,
            timeout_ms,
            view,
        } => show_capture(name, json, wait.map(WaitFor::Text), timeout_ms, view, None),
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
        Command::Attach { control } => attach::attach(name, control),
        Command::Record(args) => {
            // Named by -s when given, else by its tape: watchable under that name.
            let explicit = matches.value_source("session") == Some(clap::parser::ValueSource::CommandLine);
            record::record(args, explicit.then(|| name.to_string()))
        }
        Command::List => list(json),
        Command::Info => {
            let info: crate::host::protocol::HostInfo = decode(call(name, Operation::Info, None)?)?;
            if json {
                return print_json(name, &info);
            }
            let i = &info.info;
            say!("session   {}", output::printable(&info.session));
            say!("command   {}", output::printable(&i.command));
            say!("pid       {}", i.pid);
            say!("size      {}x{}", i.cols, i.rows);
            say!("status    {}", i.exit.words());
            say!("age       {}s", i.age_secs);
            say!("mouse     {}", i.mouse);
            Ok(())
        }
        Command::Run(args) => crate::suite::run_suite(crate::suite::SuiteArgs {
            tapes: args.tapes,
            junit: args.junit,
            jobs: args.jobs,
            partition: args.partition,
            update: args.update,
            out: args.out,
            quiet: args.quiet,
            verbose: args.verbose,
            no_media: args.no_media,
            isolated: args.isolated,
            report: args.report,
        }),
        Command::Mcp {
            allow,
            allow_env,
            allow_cwd,
            max_sessions,
            artifact_dir,
        } => {
            let allow_env = allow_env.map(|keys| keys.into_iter().filter(|k| !k.is_empty()).collect());
            let allow = crate::allow::AllowList::new(&allow, allow_env, allow_cwd.as_deref())
                .map_err(Failure::bad_request)?;
            crate::mcp::run(crate::mcp::McpConfig {
                allow,
                max_sessions,
                artifact_dir,
            })
            .map_err(Failure::internal)
        }
        Command::Describe => {
            say!(
                "{}",
                serde_json::to_string_pretty(&describe()).unwrap_or_default()
            );
            Ok(())
        }
        Command::Once(args) => once(args, json),
        Command::Render(args) => render(args, json),
        Command::Export(args) => export(name, args),
        Command::Report(args) => report::report(name, args),
        Command::Completions(args) => manual::completions(args),
        Command::Man(args) => manual::man(args),
    }
}

/// How the last shell command ended, in words: `command exited with code 2`.
fn command_words(screen: &Screen) -> String {
    match screen.signals.command_exit {
        Some(code) => format!("command exited with code {code}"),
        None => "command finished (the shell gave no exit code)".to_string(),
    }
}
