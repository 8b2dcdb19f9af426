//! Readiness on a corpus of real programs and situations: after a keystroke, how long
//! `wait_ready` takes past the program's last screen change (latency), and whether the
//! screen changes again within 500 ms with no new input (a false "ready"). The baseline in
//! the same run: a 300 ms quiet period (`wait_stable`) on the same bash, the usual
//! fallback, which cannot return sooner than its period.
//!
//! The rounds start once the program is ready and its screen quiet (a program still
//! loading, as fzf reading its list, redraws without input: that is its start, not a
//! reaction to a keystroke). Latency is measured from the last screen change, or from the input when it changed
//! nothing (a menu's last row pressed again). Programs that redraw on their own (htop,
//! top) change the screen without input; for them the false-ready column is not counted.
//! A program that must stay busy (it waits on a pipe, the terminal not watched) passes
//! when its ready wait times out. tmux is in the corpus as a known miss: its client hands
//! the terminal to its server, outside the foreground group, so it never reads as ready.
//!
//! `cargo bench --bench readiness` (`TUIPILOT_READINESS_ROUNDS`, default 20)

use std::time::{Duration, Instant};

use tuipilot::{Condition, Input, Session};

mod support;
use support::median_p90;

/// One situation: what runs, the input that makes it react, and what is expected.
struct Case {
    name: &'static str,
    program: &'static str,
    args: &'static [&'static str],
    /// Its environment, besides `PS1`.
    env: &'static [(&'static str, &'static str)],
    /// Sent each round, as keys (`-k` names) or text.
    input: Send,
    expect: Expect,
}

enum Send {
    Text(&'static str),
    Keys(&'static str),
}

#[derive(PartialEq)]
enum Expect {
    /// Ready after each input; the screen then stays until the next.
    Ready,
    /// Ready after each input, but the program also redraws on its own.
    ReadyRedrawing,
    /// Never ready: the ready wait must time out.
    Busy,
}

const PY_CURSES: &str = "import curses\ndef main(w):\n    n=0\n    while True:\n        c=w.getch(); n+=1\n        w.addstr(0,0,'keys %d last %d   ' % (n,c)); w.refresh()\ncurses.wrapper(main)";
const PY_POLL: &str = "import sys,select,tty,os\ntty.setraw(0)\nn=0\nwhile True:\n    r,_,_=select.select([0],[],[],0.01)\n    if r:\n        os.read(0,64); n+=1\n        sys.stdout.write('\\rgot %d ' % n); sys.stdout.flush()";
const PY_COMPUTE: &str = "import time\nwhile True:\n    input('> ')\n    t=time.time()\n    while time.time()-t<0.3: pass\n    print('computed')";
const PY_THREADS: &str = "import threading,time\ndef tick():\n    while True: time.sleep(0.05)\nthreading.Thread(target=tick,daemon=True).start()\nwhile True:\n    s=input('> ')\n    print('echo', s)";
const PY_TOOLKIT: &str =
    "from prompt_toolkit import prompt\nwhile True:\n    print('you said', prompt('pt> '))";
const SH_SLOW_READ: &str = "while read l; do sleep 0.2; echo got $l; done";
const SH_PASSWORD: &str = "while true; do read -s -p 'Password: ' x; echo; echo got ${#x}; done";
const SH_PIPE_THEN_TTY: &str = "printf 'a\\nb\\n' | (cat; while read x < /dev/tty; do echo got $x; done)";
const SH_PIPE_BUSY: &str = "sleep 1000 | cat";

fn cases() -> Vec<Case> {
    use Expect::*;
    use Send::*;
    let case = |name, program, args, input, expect| Case {
        name,
        program,
        args,
        env: &[],
        input,
        expect,
    };
    vec![
        case(
            "bash",
            "bash",
            &["--norc", "--noprofile"],
            Text("echo hi\r"),
            Ready,
        ),
        case(
            "bash, a command of 0.2 s",
            "bash",
            &["--norc", "--noprofile"],
            Text("sleep 0.2; echo hi\r"),
            Ready,
        ),
        case("zsh", "zsh", &["-f"], Text("echo hi\r"), Ready),
        case("fish", "fish", &["--no-config"], Text("echo hi\r"), Ready),
        case("python3 REPL", "python3", &["-q"], Text("6*7\r"), Ready),
        case("cat (canonical)", "cat", &[], Text("line\r"), Ready),
        case(
            "vim, moving",
            "vim",
            &["-u", "NONE", "-N", "-n", "-i", "NONE", "/etc/services"],
            Keys("j"),
            Ready,
        ),
        case(
            "vim, typing",
            "vim",
            &["-u", "NONE", "-N", "-n", "-i", "NONE", "+startinsert"],
            Text("a"),
            Ready,
        ),
        case("less", "less", &["/etc/services"], Keys("Space"), Ready),
        case("nano", "nano", &["--ignorercfiles"], Text("x"), Ready),
        case("emacs", "emacs", &["-nw", "-Q"], Text("x"), Ready),
        case("mc", "mc", &["--nosubshell"], Keys("Down"), Ready),
        case(
            "dialog menu",
            "dialog",
            &["--menu", "pick", "12", "40", "4", "1", "a", "2", "b", "3", "c"],
            Keys("Down"),
            Ready,
        ),
        case("htop (redraws)", "htop", &[], Keys("Down"), ReadyRedrawing),
        case("top (redraws)", "top", &["-d", "1"], Text(" "), ReadyRedrawing),
        // A fixed list of 100,000 lines (fzf's own walk of the working folder would be a
        // list that grows, and redraws, while the rounds run).
        Case {
            name: "fzf, 100,000 lines",
            program: "fzf",
            args: &[],
            env: &[("FZF_DEFAULT_COMMAND", "seq 100000")],
            input: Text("1"),
            expect: Ready,
        },
        case("prompt_toolkit", "python3", &["-c", PY_TOOLKIT], Text("a"), Ready),
        case("curses app", "python3", &["-c", PY_CURSES], Text("a"), Ready),
        case(
            "reads, sleeps 0.2 s, answers",
            "sh",
            &["-c", SH_SLOW_READ],
            Text("x\r"),
            Ready,
        ),
        case(
            "computes 0.3 s, then prompts",
            "python3",
            &["-c", PY_COMPUTE],
            Text("\r"),
            Ready,
        ),
        case(
            "polls the terminal every 10 ms",
            "python3",
            &["-c", PY_POLL],
            Text("a"),
            Ready,
        ),
        case(
            "password prompt, echo off",
            "bash",
            &["--norc", "-c", SH_PASSWORD],
            Text("pw\r"),
            Ready,
        ),
        case(
            "multi-threaded, one thread reading",
            "python3",
            &["-c", PY_THREADS],
            Text("x\r"),
            Ready,
        ),
        case(
            "pipeline, last stage reads the terminal",
            "sh",
            &["-c", SH_PIPE_THEN_TTY],
            Text("y\r"),
            Ready,
        ),
        case(
            "pipeline on a pipe, terminal unwatched",
            "sh",
            &["-c", SH_PIPE_BUSY],
            Text("z"),
            Busy,
        ),
        case(
            "tmux",
            "tmux",
            &["-f", "/dev/null", "-L", "tuipilot-bench-readiness", "new-session"],
            Text("echo hi\r"),
            Ready,
        ),
    ]
}

/// A failed wait in one line: what timed out, and what the program was doing.
fn short(error: &tuipilot::Error) -> String {
    let report = error.to_string();
    let why = tuipilot::wait::still_true(&report).unwrap_or("");
    format!("{} ({why})", report.lines().next().unwrap_or(""))
}

/// A fresh folder, removed when dropped.
struct Folder(std::path::PathBuf);

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn work_folder(case: &str) -> Result<Folder, String> {
    let name: String = case.chars().filter(char::is_ascii_alphanumeric).collect();
    let dir = std::env::temp_dir().join(format!("tuipilot-readiness-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(Folder(dir))
}

fn installed(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join(program).is_file()))
}

/// Latencies (ms) and false readies over `rounds` inputs, or why the case did not run.
fn measure(case: &Case, rounds: usize) -> Result<(Vec<f64>, usize, usize), String> {
    let mut builder = Session::builder(case.program).args(case.args).env("PS1", "$ ");
    for (key, value) in case.env {
        builder = builder.env(*key, *value);
    }
    // A folder of its own: nano, ended by a hangup, saves its buffer where it runs.
    let work = work_folder(case.name)?;
    let s = builder
        .cwd(&work.0)
        .size(100, 30)
        .isolated()
        .spawn()
        .map_err(|e| e.to_string())?;
    let input = match case.input {
        Send::Text(text) => Input::Text(text.into()),
        Send::Keys(keys) => Input::keys(keys).map_err(|e| e.to_string())?,
    };
    if case.expect == Expect::Busy {
        s.wait_stable(Duration::from_millis(300))
            .map_err(|e| e.to_string())?;
        let held = (0..rounds.min(3))
            .filter(|_| s.send(&input).is_ok() && s.wait_ready_timeout(Duration::from_millis(500)).is_err())
            .count();
        return Ok((Vec::new(), 0, held));
    }
    s.wait_ready_timeout(Duration::from_secs(15))
        .map_err(|e| format!("never ready at start: {}", short(&e)))?;
    // The rounds measure reactions to input, not the start: a program still loading (a
    // list read in the background) has finished once its screen is quiet.
    if case.expect == Expect::Ready {
        s.wait_stable(Duration::from_millis(300))
            .map_err(|e| format!("never quiet at start: {}", short(&e)))?;
    }
    let mut latencies = Vec::new();
    let mut false_ready = 0;
    for _ in 0..rounds {
        let sent = Instant::now();
        s.send(&input).map_err(|e| e.to_string())?;
        s.wait_ready_timeout(Duration::from_secs(5))
            .map_err(|e| format!("not ready after input: {}", short(&e)))?;
        // Past the last change, or past the input when it changed nothing (a menu's last
        // row, pressed again).
        let since = s.settled().min(sent.elapsed());
        latencies.push(since.as_secs_f64() * 1e3);
        if case.expect == Expect::Ready {
            let before = s.snapshot();
            let watched = Instant::now();
            // The screen must not change in the next 500 ms: no input is sent.
            let changed = s
                .wait_timeout(
                    &Condition::predicate(move |now| {
                        now.text() != before.text() || now.cursor() != before.cursor()
                    }),
                    Duration::from_millis(500),
                )
                .is_ok();
            false_ready += usize::from(changed && watched.elapsed() < Duration::from_millis(500));
        }
    }
    Ok((latencies, false_ready, 0))
}

fn main() {
    let rounds: usize = std::env::var("TUIPILOT_READINESS_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(20);
    println!("readiness after a keystroke, {rounds} rounds each: wait return − last screen change (ms)");
    println!(
        "{:<42} {:>8} {:>8} {:>8}  false ready",
        "situation", "median", "p90", "max"
    );
    let mut all = Vec::new();
    let mut total_false = 0;
    for case in cases() {
        if !installed(case.program) {
            println!("{:<42} skipped: {} is not installed", case.name, case.program);
            continue;
        }
        let measured = measure(&case, rounds);
        if case.program == "tmux" {
            // Its server outlives the session (it left the session's process group).
            let _ = std::process::Command::new("tmux")
                .args(["-L", "tuipilot-bench-readiness", "kill-server"])
                .status();
        }
        match measured {
            Ok((_, _, held)) if case.expect == Expect::Busy => {
                println!(
                    "{:<42} stays busy in {held} of {} tries (a ready wait times out)",
                    case.name,
                    rounds.min(3)
                );
            }
            Ok((latencies, false_ready, _)) => {
                let max = latencies.iter().copied().fold(0.0, f64::max);
                let (median, p90) = median_p90(latencies.clone());
                let counted = if case.expect == Expect::ReadyRedrawing {
                    "n/a (redraws on its own)".to_string()
                } else {
                    total_false += false_ready;
                    format!("{false_ready} of {rounds}")
                };
                println!("{:<42} {median:>8.1} {p90:>8.1} {max:>8.1}  {counted}", case.name);
                all.extend(latencies);
            }
            Err(why) => println!("{:<42} failed: {why}", case.name),
        }
    }
    if !all.is_empty() {
        all.sort_by(f64::total_cmp);
        let (median, _) = median_p90(all.clone());
        let p99 = all[(all.len() * 99 / 100).min(all.len() - 1)];
        println!(
            "\nall situations: median {median:.1} ms, p99 {p99:.1} ms (goal: median ≤ 5, p99 ≤ 20); false ready {total_false}"
        );
    }
    // The baseline: a 300 ms quiet period after the same keystroke on bash.
    if let Ok(s) = Session::builder("bash")
        .args(["--norc", "--noprofile"])
        .env("PS1", "$ ")
        .spawn()
    {
        let _ = s.wait_ready();
        let quiet: Vec<f64> = (0..rounds.min(10))
            .filter_map(|_| {
                s.send(&Input::Text("echo hi\r".into())).ok()?;
                s.wait_stable(Duration::from_millis(300)).ok()?;
                Some(s.settled().as_secs_f64() * 1e3)
            })
            .collect();
        if !quiet.is_empty() {
            let (median, _) = median_p90(quiet);
            println!("baseline, bash + wait_stable(300 ms): median {median:.1} ms past the last change");
        }
    }
}
