//! Readiness against oracles: after input, does `wait_ready` return a screen on which the
//! program's reaction is complete, and how soon after the reaction's last change?
//!
//! Each case is a real program (or a fixture that stands for a kind of program: a refresh
//! tick, a debounce), the input of each round, and an oracle: a predicate the screen must
//! satisfy once the reaction is complete (htop after `M`: the MEM% column non-increasing;
//! vim after `i x Esc`: normal mode, the text typed). A round sends the input as one send,
//! waits for ready, and checks the oracle on the screen the wait returned: a screen that
//! fails it is **stale** — unless the wait said the reaction may not be drawn yet (a timer
//! due beyond the reaction bound), which is counted apart as **said pending**, or said
//! what it did not wait for (`unwaited`: a chain skipped for what was learnt, a SIGALRM
//! handler installed before), counted apart again: on a complete screen the first is a
//! false alarm, the second a risk the session could not rule out. Every case
//! is first checked to reach its oracle at all (within 5 s), so a wrong oracle fails the
//! case instead of counting as stale.
//!
//! Latency is the wait's return minus the screen's last change before it. Periodic programs
//! (a clock, a spinner, refresh ticks) change the screen on their own; for them the column
//! that matters is how long the wait held after the input, in periods: released within one
//! period (plus the reaction) is the goal.
//!
//! Two busy loops run beside it the whole time (this machine has 2 cores). The baselines,
//! in the same run, replay each case with what agents use without tuipilot: a 300 ms quiet
//! period (`wait_stable`), and tmux `send-keys` + `sleep 1` + `capture-pane` (fewer rounds:
//! a second each).
//!
//! The cases new in readiness III need programs beyond the test suite's: Debian's
//! `neovim ranger micro gdu w3m calcurse bpython tig ipython3 gdb screen procps nmon
//! nodejs`, and `cargo install dua-cli`; a case whose program is missing is skipped, and
//! says so.
//!
//! With `TUIPILOT_READINESS_CLI=1`, each case is also run through the command line as an
//! agent runs it (`send … --wait-ready --capture --json`, a call a round): stale screens
//! not said pending, and whether stderr's note and the reply's `pending` agree.
//!
//! `cargo bench --bench readiness` (`TUIPILOT_READINESS_ROUNDS`, default 20;
//! `TUIPILOT_READINESS_BASELINE_ROUNDS`, default 3; `TUIPILOT_READINESS_NOTES=1` prints
//! every note with whether its screen was complete, and why each stale round's wait ended; `TUIPILOT_READINESS_ONLY=substring`
//! runs the cases whose name contains it (`a|b`: either), `TUIPILOT_READINESS_ONLY=new` those new to the
//! corpus in readiness III, `=programs` every case but the fixture's matrix).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tuipilot::{Input, Session};

mod support;
use support::median_p90;

#[path = "readiness/corpus.rs"]
mod corpus;
use corpus::{Case, Screen, Step, cases};

/// Whether `program` can run here (and, for Python, its module imports).
fn available(case: &Case) -> Result<(), String> {
    let program = &case.command[0];
    let on_path = program.contains('/') && Path::new(program).exists()
        || std::env::var_os("PATH")
            .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()));
    if !on_path {
        return Err(format!("{program} is not installed"));
    }
    for module in ["prompt_toolkit", "textual"] {
        if case.command.iter().any(|a| a.contains(&format!("from {module}"))) {
            let ok = Command::new("python3")
                .args(["-c", &format!("import {module}")])
                .output()
                .is_ok_and(|o| o.status.success());
            if !ok {
                return Err(format!("python3 cannot import {module}"));
            }
        }
    }
    Ok(())
}

fn screen_of(s: &Session) -> Screen {
    Screen::of(&s.snapshot())
}

fn input_of(step: &Step) -> Input {
    match step {
        Step::Keys(k) => Input::keys(k).expect("key names"),
        Step::Text(t) => Input::Text(t.clone()),
    }
}

/// A folder of the case's own, removed when dropped.
struct Folder(PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn folder(case: &Case, tag: &str) -> Folder {
    let name: String = case.name.chars().filter(char::is_ascii_alphanumeric).collect();
    let dir = std::env::temp_dir().join(format!("tuipilot-oracle-{}-{tag}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("making the case's folder");
    if let Some(prepare) = case.prepare {
        prepare(&dir);
    }
    Folder(dir)
}

fn command_in(case: &Case, dir: &Path) -> Vec<String> {
    case.command
        .iter()
        .map(|a| a.replace("{dir}", &dir.to_string_lossy()))
        .collect()
}

fn start(case: &Case, dir: &Path) -> Result<Session, String> {
    let command = command_in(case, dir);
    let mut builder = Session::builder(&command[0])
        .args(&command[1..])
        .env("PS1", "$ ")
        .cwd(dir)
        .size(100, 30)
        .timeout(Duration::from_secs(10));
    for (k, v) in &case.env {
        builder = builder.env(k, v);
    }
    let s = builder.isolated().spawn().map_err(|e| e.to_string())?;
    s.wait_ready()
        .map_err(|e| format!("never ready at start: {}", first_line(&e)))?;
    for steps in &case.setup {
        send_all(&s, steps)?;
        s.wait_ready()
            .map_err(|e| format!("not ready after setup: {}", first_line(&e)))?;
    }
    Ok(s)
}

fn send_all(s: &Session, steps: &[Step]) -> Result<(), String> {
    for step in steps {
        s.send(&input_of(step)).map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn first_line(e: &tuipilot::Error) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}

/// One round's outcome.
struct Round {
    stale: bool,
    said_pending: bool,
    /// The reply said what it did not wait for (`unwaited`: a timer skipped for what was
    /// learnt, a SIGALRM handler installed before), nothing seen pending.
    said_unwaited: bool,
    /// The reply said the reaction may be pending, or what it did not wait for, and the
    /// screen did not hold the oracle.
    deferred: bool,
    /// Return minus the last screen change (ms).
    latency: f64,
    /// The wait waited out a timer of the program's own (its reason says `, after
    /// PROGRAM's … timer`): time past the last change spent on what could still draw.
    own_timer: bool,
    /// Return minus the input (ms).
    held: f64,
}

/// The case's rounds with tuipilot's ready wait.
fn measure(case: &Case, rounds: usize) -> Result<Vec<Round>, String> {
    let dir = folder(case, "ready");
    let s = start(case, &dir.0)?;
    // The oracle must be reachable: round 0 is given up to 5 s to come true.
    let mut out = Vec::new();
    for n in 0..rounds {
        let sent = Instant::now();
        send_all(&s, &(case.input)(n))?;
        s.wait_ready()
            .map_err(|e| format!("round {n}: {}", first_line(&e)))?;
        let held = sent.elapsed();
        let latency = s.settled().min(held);
        let screen = screen_of(&s);
        let waited = s.last_waited().unwrap_or_default();
        let holds = (case.oracle)(&screen, n);
        let said_pending = tuipilot::operation::pending_in(&waited).is_some();
        let said_unwaited = tuipilot::operation::unwaited_in(&waited).is_some();
        let said = said_pending || said_unwaited;
        let comes_true = |within: Duration| {
            let oracle = case.oracle.clone();
            s.wait_for_timeout(move |snap| oracle(&Screen::of(snap), n), within)
                .is_ok()
        };
        // A wrong oracle is not a stale screen: it must come true at all.
        if !holds && !said && !comes_true(Duration::from_secs(5)) {
            return Err(format!(
                "round {n}: the oracle never held (wrong oracle?); screen:\n{}",
                screen.text
            ));
        }
        if (said || !holds) && std::env::var_os("TUIPILOT_READINESS_NOTES").is_some() {
            let state = match (holds, said) {
                (true, _) => "complete",
                (false, true) => "incomplete",
                (false, false) => "STALE",
            };
            println!("  {} round {n} ({state}): {waited}", case.name);
        }
        if !holds && said {
            // Let the reaction finish before the next round.
            comes_true(Duration::from_secs(10));
        }
        out.push(Round {
            stale: !holds && !said,
            said_pending,
            said_unwaited,
            deferred: !holds && said,
            latency: latency.as_secs_f64() * 1e3,
            own_timer: waited_out_a_timer(&waited),
            held: held.as_secs_f64() * 1e3,
        });
    }
    Ok(out)
}

/// Whether a ready wait's reason says it waited out a timer of the program's (`, after
/// vim's escape timeout (100 ms)`, `, after htop's 1.5 s timer`, `, after X's timers (…)`).
fn waited_out_a_timer(waited: &str) -> bool {
    waited.split(", after ").skip(1).any(|after| {
        let what = after.split(':').next().unwrap_or(after);
        what.contains(" timer") || what.contains(" escape timeout")
    })
}

/// The release build of the `tuipilot` binary, built first.
fn cli_binary() -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let built = Command::new(cargo)
        .args(["build", "--release", "-q", "-p", "tuipilot-cli"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(built, "building the tuipilot binary failed");
    let exe = std::env::current_exe().expect("the bench's path");
    exe.parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("tuipilot"))
        .expect("target layout")
}

/// What the command line face returned over a case's rounds: stale screens not said
/// pending, rounds said pending, and rounds whose `--json` reply and stderr disagreed on
/// whether something was pending (the note missing from stderr, or there without cause).
struct CliRounds {
    stale: usize,
    said: usize,
    unsaid_on_stderr: usize,
}

/// The case's rounds through the command line, as an agent runs them: `start --wait-ready`,
/// then `send … --wait-ready --capture --json` a round.
fn measure_cli(case: &Case, rounds: usize, binary: &Path) -> Result<CliRounds, String> {
    let dir = folder(case, "cli");
    let command = command_in(case, &dir.0);
    let name = format!("readiness-{}", std::process::id());
    let run = |args: &[String]| {
        Command::new(binary)
            .arg("-s")
            .arg(&name)
            .args(args)
            .output()
            .map_err(|e| format!("running tuipilot: {e}"))
    };
    let mut start: Vec<String> = [
        "start",
        "--wait-ready",
        "--isolated",
        "--cols",
        "100",
        "--rows",
        "30",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    start.extend(["--cwd".into(), dir.0.to_string_lossy().into_owned()]);
    start.extend(["--env".into(), "PS1=$ ".into()]);
    for (k, v) in &case.env {
        start.extend(["--env".into(), format!("{k}={v}")]);
    }
    start.push("--".into());
    start.extend(command.iter().cloned());
    let started = run(&start)?;
    let outcome = (|| {
        if !started.status.success() {
            return Err(format!(
                "start failed: {}",
                String::from_utf8_lossy(&started.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
        let send_args = |steps: &[Step]| {
            let mut args = vec!["--json".to_string(), "send".to_string()];
            for step in steps {
                match step {
                    Step::Keys(k) => args.push(format!("--key={k}")),
                    Step::Text(t) => args.push(format!("--text={t}")),
                }
            }
            args
        };
        for steps in &case.setup {
            let mut args = send_args(steps);
            args.push("--wait-ready".into());
            run(&args)?;
        }
        let mut out = CliRounds {
            stale: 0,
            said: 0,
            unsaid_on_stderr: 0,
        };
        for n in 0..rounds {
            let mut args = send_args(&(case.input)(n));
            args.extend(["--wait-ready".into(), "--capture".into()]);
            let reply = run(&args)?;
            let json: serde_json::Value = serde_json::from_slice(&reply.stdout)
                .map_err(|e| format!("round {n}: the reply is not JSON ({e})"))?;
            let Some(text) = json["text"].as_str() else {
                return Err(format!("round {n}: {}", json["error"]));
            };
            let cursor = (
                json["cursor"]["row"].as_u64().unwrap_or(0) as u16,
                json["cursor"]["col"].as_u64().unwrap_or(0) as u16,
            );
            let screen = Screen {
                text: text.to_string(),
                cursor,
            };
            let pending = json["pending"].is_string() || json["unwaited"].is_string();
            let noted = String::from_utf8_lossy(&reply.stderr).contains("tuipilot: note:");
            out.said += usize::from(pending);
            out.unsaid_on_stderr += usize::from(pending != noted);
            if !(case.oracle)(&screen, n) && !pending {
                out.stale += 1;
            }
            if !(case.oracle)(&screen, n) {
                // Let the reaction finish before the next round.
                let mut wait = vec!["wait".to_string(), "--stable".into(), "1000".into()];
                wait.extend(["--timeout-ms".into(), "10000".into()]);
                let _ = run(&wait);
            }
        }
        Ok(out)
    })();
    let _ = run(&["exit".to_string()]);
    outcome
}

/// The case's rounds with a 300 ms quiet period instead: stale screens.
fn measure_quiet(case: &Case, rounds: usize) -> Result<usize, String> {
    let dir = folder(case, "quiet");
    let s = start(case, &dir.0)?;
    let mut stale = 0;
    for n in 0..rounds {
        send_all(&s, &(case.input)(n))?;
        s.wait_stable(Duration::from_millis(300))
            .map_err(|e| format!("round {n}: {}", first_line(&e)))?;
        if !(case.oracle)(&screen_of(&s), n) {
            stale += 1;
            // Let the reaction finish before the next round.
            let _ = s.wait_stable(Duration::from_secs(2));
        }
    }
    Ok(stale)
}

/// tmux's name for a tuipilot key name.
fn tmux_key(name: &str) -> String {
    match name {
        "Esc" => "Escape".into(),
        "Space" => "Space".into(),
        "BSpace" => "BSpace".into(),
        other => other.into(),
    }
}

/// The case's rounds with tmux + `sleep 1`: stale screens.
fn measure_tmux(case: &Case, rounds: usize, tmux: &support::Tmux) -> Result<usize, String> {
    let dir = folder(case, "tmux");
    let command = command_in(case, &dir.0);
    let quoted: Vec<String> = command
        .iter()
        .map(|a| format!("'{}'", a.replace('\'', "'\\''")))
        .collect();
    let env: Vec<String> = case.env.iter().map(|(k, v)| format!("{k}='{v}'")).collect();
    let line = format!(
        "cd '{}' && env PS1='$ ' {} {}",
        dir.0.display(),
        env.join(" "),
        quoted.join(" ")
    );
    let name = "oracle";
    tmux.run(&["new-session", "-d", "-x", "100", "-y", "30", "-s", name, &line]);
    std::thread::sleep(Duration::from_secs(2));
    let capture = || {
        let text =
            String::from_utf8_lossy(&tmux.run(&["capture-pane", "-p", "-t", name]).stdout).into_owned();
        let at = String::from_utf8_lossy(
            &tmux
                .run(&["display", "-p", "-t", name, "#{cursor_y} #{cursor_x}"])
                .stdout,
        )
        .into_owned();
        let mut it = at.split_whitespace().filter_map(|n| n.parse::<u16>().ok());
        Screen {
            text,
            cursor: (it.next().unwrap_or(0), it.next().unwrap_or(0)),
        }
    };
    let send = |steps: &[Step]| {
        for step in steps {
            match step {
                Step::Keys(k) => {
                    let names: Vec<String> = k.split_whitespace().map(tmux_key).collect();
                    let mut args = vec!["send-keys", "-t", name];
                    args.extend(names.iter().map(String::as_str));
                    tmux.run(&args);
                }
                Step::Text(t) => {
                    tmux.run(&["send-keys", "-t", name, "-l", t]);
                }
            }
        }
    };
    for steps in &case.setup {
        send(steps);
        std::thread::sleep(Duration::from_secs(1));
    }
    let mut stale = 0;
    for n in 0..rounds {
        send(&(case.input)(n));
        std::thread::sleep(Duration::from_secs(1));
        if !(case.oracle)(&capture(), n) {
            stale += 1;
            std::thread::sleep(Duration::from_secs(3));
        }
    }
    let _ = tmux.run(&["kill-session", "-t", name]);
    // tmux ends the pane's processes only: a back end in a session of its own (screen's)
    // outlives it, and is found by its working folder, the case's.
    end_processes_in(&dir.0);
    Ok(stale)
}

/// Kills every process whose working folder is `dir` (what a baseline left behind).
fn end_processes_in(dir: &Path) {
    let Ok(all) = std::fs::read_dir("/proc") else {
        return;
    };
    for pid in all
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
    {
        if std::fs::read_link(format!("/proc/{pid}/cwd")).is_ok_and(|cwd| cwd == dir) {
            // SAFETY: kill takes a pid and a signal.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// Two threads that spin until dropped: the load beside the run.
struct BusyLoops(Arc<AtomicBool>, Vec<std::thread::JoinHandle<()>>);

impl BusyLoops {
    fn start(n: usize) -> BusyLoops {
        let stop = Arc::new(AtomicBool::new(false));
        let handles = (0..n)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
                    }
                })
            })
            .collect();
        BusyLoops(stop, handles)
    }
}

impl Drop for BusyLoops {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
        for h in self.1.drain(..) {
            let _ = h.join();
        }
    }
}

fn main() {
    let env_number = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let rounds = env_number("TUIPILOT_READINESS_ROUNDS", 20);
    let baseline_rounds = env_number("TUIPILOT_READINESS_BASELINE_ROUNDS", 3);
    let only = std::env::var("TUIPILOT_READINESS_ONLY").unwrap_or_default();
    // The command line face beside the library's, a round per call as an agent runs it.
    let cli = (std::env::var("TUIPILOT_READINESS_CLI").as_deref() == Ok("1")).then(cli_binary);
    let (mut cli_stale, mut cli_said, mut cli_disagreed, mut cli_rounds) = (0, 0, 0, 0);
    let _load = BusyLoops::start(2);
    let tmux = support::Tmux::new("oracle");
    println!(
        "readiness against oracles: {rounds} rounds a case with two busy loops beside; baselines {baseline_rounds} rounds"
    );
    println!(
        "{:<44} {:>6} {:>7} {:>8} {:>8} {:>9}  {:>7} {:>7}",
        "case", "stale", "pending", "med ms", "p90 ms", "held/per", "quiet", "tmux 1s"
    );
    let (mut all, mut stale_total, mut cases_run, mut rounds_total) = (Vec::new(), 0, 0, 0);
    let (mut quiet_total, mut tmux_total, mut baseline_rounds_total) = (0, 0, 0);
    // Rounds that said pending on a screen that held the oracle, of the cases whose
    // reaction is not deferred on purpose; the worst latency past the reaction.
    let (mut false_pending, mut complete_rounds, mut worst) = (0, 0, 0.0f64);
    // The worst past the last change with no timer of the program's waited out (the goal's
    // "unless the program's own timer drew then": waiting on a timer that may draw is the
    // wait's job), and each worst's case.
    let (mut worst_untimed, mut worst_case, mut worst_untimed_case) = (0.0f64, String::new(), String::new());
    // Rounds whose complete screen came with a note of what was not waited for.
    let mut unwaited_complete = 0;
    // The same for the cases new to the corpus in readiness III.
    let (mut new_cases, mut new_rounds, mut new_stale, mut new_false, mut new_tmux, mut new_baseline) =
        (0, 0, 0, 0, 0, 0);
    let mut periodic_ok = true;
    for case in cases() {
        let chosen = match only.as_str() {
            "" => true,
            "new" => case.new,
            "programs" => !case.name.starts_with("matrix"),
            only => only.split('|').any(|part| case.name.contains(part)),
        };
        if !chosen {
            continue;
        }
        if let Err(why) = available(&case) {
            println!("{:<44} skipped: {why}", case.name);
            continue;
        }
        let measured = match measure(&case, rounds) {
            Ok(r) => r,
            Err(why) => {
                println!("{:<44} failed: {why}", case.name);
                continue;
            }
        };
        cases_run += 1;
        rounds_total += measured.len();
        let stale = measured.iter().filter(|r| r.stale).count();
        let pending = measured.iter().filter(|r| r.said_pending).count();
        stale_total += stale;
        let wolf = measured.iter().filter(|r| r.said_pending && !r.deferred).count();
        if !case.beyond_bound {
            false_pending += wolf;
            complete_rounds += measured.iter().filter(|r| !r.deferred).count();
            unwaited_complete += measured.iter().filter(|r| r.said_unwaited && !r.deferred).count();
        }
        // A round that said a timer was still pending but whose screen held the oracle
        // (vim's 4 s updatetime after every key) returned after a finished reaction: its
        // latency counts. One whose screen did not is the deferred case, apart.
        let latencies: Vec<f64> = measured
            .iter()
            .filter(|r| !r.stale && !r.deferred)
            .map(|r| r.latency)
            .collect();
        let held = match case.period {
            Some(period) => {
                let worst =
                    measured.iter().map(|r| r.held).fold(0.0, f64::max) / (period.as_secs_f64() * 1e3);
                // Released within one period after the reaction: the tick that applies the
                // key (up to one period) and the confirmation, so under two in all.
                periodic_ok &= worst < 2.0;
                format!("{worst:.2}")
            }
            None => "-".into(),
        };
        let (median, p90) = if latencies.is_empty() {
            (f64::NAN, f64::NAN)
        } else {
            median_p90(latencies.clone())
        };
        if case.period.is_none() && !case.beyond_bound {
            for r in measured.iter().filter(|r| !r.stale && !r.deferred) {
                if r.latency > worst {
                    (worst, worst_case) = (r.latency, case.name.to_string());
                }
                if !r.own_timer && r.latency > worst_untimed {
                    (worst_untimed, worst_untimed_case) = (r.latency, case.name.to_string());
                }
            }
            all.extend(latencies);
        }
        let quiet = measure_quiet(&case, baseline_rounds).map_or_else(
            |e| format!("({e})").chars().take(7).collect(),
            |n| {
                quiet_total += n;
                n.to_string()
            },
        );
        let tmuxed = measure_tmux(&case, baseline_rounds, &tmux).map_or_else(
            |e| e.chars().take(7).collect(),
            |n| {
                tmux_total += n;
                if case.new {
                    new_tmux += n;
                }
                n.to_string()
            },
        );
        baseline_rounds_total += baseline_rounds;
        let cli_column = match &cli {
            None => String::new(),
            Some(binary) => match measure_cli(&case, rounds, binary) {
                Ok(r) => {
                    cli_stale += r.stale;
                    cli_said += r.said;
                    cli_disagreed += r.unsaid_on_stderr;
                    cli_rounds += rounds;
                    format!("  cli {}/{rounds} said {}", r.stale, r.said)
                }
                Err(e) => format!("  cli failed: {}", e.chars().take(60).collect::<String>()),
            },
        };
        if case.new {
            new_cases += 1;
            new_rounds += measured.len();
            new_stale += stale;
            new_false += wolf;
            new_baseline += baseline_rounds;
        }
        println!(
            "{:<44} {:>6} {:>7} {median:>8.1} {p90:>8.1} {held:>9}  {quiet:>7} {tmuxed:>7}{cli_column}",
            case.name,
            format!("{stale}/{}", measured.len()),
            pending,
        );
    }
    if !all.is_empty() {
        let (median, _) = median_p90(all.clone());
        println!(
            "\n{cases_run} cases, {rounds_total} rounds: stale screens {stale_total} (goal 0); median {median:.1} ms past the reaction's last change (goal ≤ 10; periodic and deferred cases apart); periodic programs released within one period: {}",
            if periodic_ok { "yes" } else { "no" }
        );
        println!(
            "worst latency past the reaction's last change: {worst:.0} ms ({worst_case}); with no timer of the program's waited out: {worst_untimed:.0} ms ({worst_untimed_case}) (goal ≤ 500 unless the program's own timer drew then)"
        );
        println!(
            "pending said on a complete screen: {false_pending} of {complete_rounds} rounds ({:.1}%, goal ≤ 5%)",
            100.0 * false_pending as f64 / complete_rounds.max(1) as f64
        );
        println!(
            "not waited for (a learnt skip, a SIGALRM handler installed before), said on a complete screen: {unwaited_complete} of {complete_rounds} rounds ({:.1}%)",
            100.0 * unwaited_complete as f64 / complete_rounds.max(1) as f64
        );
        println!(
            "baselines, same run, {baseline_rounds_total} rounds each: a 300 ms quiet period: stale {quiet_total}; tmux send-keys + sleep 1 + capture-pane: stale {tmux_total}"
        );
        if cli.is_some() {
            println!(
                "the command line, {cli_rounds} rounds: stale screens not said pending {cli_stale}; said pending {cli_said}; the `--json` reply and stderr's note disagreed {cli_disagreed} times (goal 0, 0)"
            );
        }
        if new_cases > 0 {
            println!(
                "new in readiness III: {new_cases} cases, {new_rounds} rounds: stale {new_stale}, pending said on a complete screen {new_false}; tmux + sleep 1, {new_baseline} rounds: stale {new_tmux}"
            );
        }
    }
}
