//! Tapes: how fast a tape runs alone and in a suite, against the same operations issued
//! through the library directly, in the same run.
//!
//! The tape: 20 commands after its settings — six rounds of `Type "echo $((N*7))"`,
//! `Enter`, `Wait` (the prompt on the cursor's line), then `Expect /^42$/` and
//! `ExpectNot /error/` — in VHS's bash with `TypingSpeed 0` and no `Sleep`.
//!
//! - One tape, end to end: `tuipilot run -q T.tape` (process start, parse, shell start,
//!   every step, the shell's exit) and `tape::run_file` in this process. Baseline: the same
//!   operations through `Session::apply` — the shell started the runner's way, its prompt
//!   awaited, each `Type` a send, each `Enter` + `Wait` one send-and-wait, the two checks as
//!   waits, then exit. The ratio runner / library is the runner's overhead (target ≤ 1.2×).
//! - A suite: 100 copies with `tuipilot run --jobs 2` (target < 5 s), the per-tape median
//!   read from its JUnit report; baseline: the same operations for 100 sessions on two
//!   threads.
//!
//! `cargo bench -p tuipilot-cli --bench tapes` (`TUIPILOT_TAPE_RUNS` single-tape samples,
//! default 30; `TUIPILOT_TAPE_SUITE` tapes in the suite, default 100)

use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tuipilot::Session;
use tuipilot::operation::{Operation, Step, WaitFor};
use tuipilot::tape::{RunOptions, run_file};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{median, ms};

const ROUNDS: u32 = 6;
const TIMEOUT_MS: u64 = 15_000;
/// VHS's prompt, as the runner sets it for bash.
const PS1: &str = "\\[\\e[38;2;90;86;224m\\]> \\[\\e[0m\\]";

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn tape_text() -> String {
    let mut tape = String::from("Set Shell bash\nSet TypingSpeed 0\n");
    for n in 1..=ROUNDS {
        tape.push_str(&format!("Type \"echo $(({n}*7))\"\nEnter\nWait\n"));
    }
    tape.push_str("Expect /^42$/\nExpectNot /error/\n");
    tape
}

/// The terminal size the runner gives VHS's default 1200x600 window, read from the shell.
fn runner_size(dir: &Path) -> (u16, u16) {
    let probe = dir.join("size.tape");
    std::fs::write(&probe, "Set TypingSpeed 0\nType \"stty size\" Enter\nWait\n").expect("write probe");
    let report = run_file(&probe, &RunOptions::default()).expect("the size probe runs");
    let line = report
        .screen
        .lines()
        .find(|l| l.split(' ').count() == 2 && l.split(' ').all(|w| w.parse::<u16>().is_ok()))
        .expect("stty size printed rows and columns");
    let mut words = line.split(' ').map(|w| w.parse::<u16>().unwrap_or(0));
    let rows = words.next().unwrap_or(24);
    let cols = words.next().unwrap_or(80);
    (cols, rows)
}

/// The tape's operations through the library, with no tape in between.
fn direct(cols: u16, rows: u16) {
    let session = Session::builder("bash")
        .args(["--noprofile", "--norc", "--login", "+o", "history"])
        .env("PS1", PS1)
        .env("BASH_SILENCE_DEPRECATION_WARNING", "1")
        .size(cols, rows)
        .spawn()
        .expect("bash starts");
    let wait = |condition: WaitFor| Operation::Wait {
        condition,
        timeout_ms: Some(TIMEOUT_MS),
    };
    let prompt = || WaitFor::Line(">$".into());
    session.apply(&wait(prompt())).expect("the first prompt");
    for n in 1..=ROUNDS {
        let send = |steps, wait| Operation::Send {
            steps,
            wait,
            timeout_ms: Some(TIMEOUT_MS),
            capture: false,
            secret: false,
        };
        session
            .apply(&send(vec![Step::Text(format!("echo $(({n}*7))"))], None))
            .expect("type");
        session
            .apply(&send(vec![Step::Keys("Enter".into())], Some(prompt())))
            .expect("enter and the next prompt");
    }
    session.apply(&wait(WaitFor::Text("^42$".into()))).expect("42");
    session
        .apply(&wait(WaitFor::NoText("error".into())))
        .expect("no error");
    session
        .apply(&Operation::Exit {
            timeout_ms: Some(1000),
        })
        .expect("exit");
}

/// Runs `job` for `count` items on `threads` threads; the wall time.
fn on_threads(count: usize, threads: usize, job: impl Fn() + Sync) -> Duration {
    let next = AtomicUsize::new(0);
    let start = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while next.fetch_add(1, Ordering::SeqCst) < count {
                    job();
                }
            });
        }
    });
    start.elapsed()
}

/// The `time` of every `<testcase>` in a JUnit report.
fn testcase_times(xml: &str) -> Vec<Duration> {
    xml.split("<testcase ")
        .skip(1)
        .filter_map(|case| {
            let head = case.split('>').next()?;
            let time = head.split("time=\"").nth(1)?.split('"').next()?;
            time.parse::<f64>().ok().map(Duration::from_secs_f64)
        })
        .collect()
}

fn main() {
    let runs = setting("TUIPILOT_TAPE_RUNS", 30);
    let suite_size = setting("TUIPILOT_TAPE_SUITE", 100);
    let bin = env!("CARGO_BIN_EXE_tuipilot");
    let dir = std::env::temp_dir().join(format!("tptapes-{}", std::process::id()));
    let suite = dir.join("suite");
    std::fs::create_dir_all(&suite).expect("temp dir");
    let one = dir.join("one.tape");
    std::fs::write(&one, tape_text()).expect("write tape");
    let (cols, rows) = runner_size(&dir);

    // Warm up every path once (page cache, the binary, bash).
    direct(cols, rows);
    run_file(&one, &RunOptions::default()).expect("the tape passes");
    let cli = |args: &[&str]| {
        let out = Command::new(bin).args(args).output().expect("tuipilot runs");
        assert!(
            out.status.success(),
            "tuipilot {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let one_arg = one.to_str().expect("utf-8 temp path");
    cli(&["run", "-q", one_arg]);

    // Interleaved, so drift in the machine's load hits all three alike.
    let (mut via_cli, mut via_library, mut baseline) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        let start = Instant::now();
        cli(&["run", "-q", one_arg]);
        via_cli.push(start.elapsed());
        let start = Instant::now();
        run_file(&one, &RunOptions::default()).expect("the tape passes");
        via_library.push(start.elapsed());
        let start = Instant::now();
        direct(cols, rows);
        baseline.push(start.elapsed());
    }
    let (via_cli, via_library, baseline) = (median(via_cli), median(via_library), median(baseline));
    println!("one tape of 20 commands with waits, no Sleep ({cols}x{rows}), median of {runs}:");
    println!(
        "  tuipilot run (end to end)          {:7.1} ms   {:.2}x the library",
        ms(via_cli),
        ms(via_cli) / ms(baseline)
    );
    println!(
        "  tape::run_file (in process)        {:7.1} ms   {:.2}x the library (runner overhead; target <= 1.2x)",
        ms(via_library),
        ms(via_library) / ms(baseline)
    );
    println!(
        "  the same operations, Session::apply {:6.1} ms   (baseline)",
        ms(baseline)
    );

    let text = tape_text();
    for i in 0..suite_size {
        std::fs::write(suite.join(format!("t{i:03}.tape")), &text).expect("write suite");
    }
    let junit = dir.join("junit.xml");
    let (junit_arg, suite_arg) = (
        junit.to_str().expect("utf-8 temp path"),
        suite.to_str().expect("utf-8 temp path"),
    );
    let (mut walls, mut per_tape, mut direct_walls) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..3 {
        let start = Instant::now();
        cli(&["run", "-q", "--jobs", "2", "--junit", junit_arg, suite_arg]);
        walls.push(start.elapsed());
        let times = testcase_times(&std::fs::read_to_string(&junit).expect("read junit"));
        assert_eq!(times.len(), suite_size, "one testcase per tape");
        per_tape.extend(times);
        direct_walls.push(on_threads(suite_size, 2, || direct(cols, rows)));
    }
    let (wall, per_tape, direct_wall) = (median(walls), median(per_tape), median(direct_walls));
    println!("a suite of {suite_size} such tapes, median of 3:");
    println!(
        "  tuipilot run --jobs 2              {:7.0} ms   (target < 5000 ms), per tape median {:.1} ms",
        ms(wall),
        ms(per_tape)
    );
    println!(
        "  the same operations on 2 threads   {:7.0} ms   (baseline); runner / library {:.2}x",
        ms(direct_wall),
        ms(wall) / ms(direct_wall)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
