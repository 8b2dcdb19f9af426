//! A step from Python against the same step from the Rust library, and against
//! pexpect + pyte, on the same program in the same run: send a line to the `lineedit`
//! fixture, wait until its answer (`submitted: …`) is on the screen. The goals (issue 28):
//! Python ≤ 1.2× the library, ≤ 0.3× pexpect + pyte.
//!
//! The library takes the step three ways: the operations the Python package hands the
//! executor (the baseline of the 1.2× goal), the same with each operation on a thread of
//! its own (as the package runs them, so Ctrl-C can end a wait), and the session's
//! methods. Each with whole frames (the default) and without (the first screen that
//! matches: pexpect's rule).
//!
//! `cargo bench --bench python_step`. The Python side (`benches/python_step.py`) runs in
//! the interpreter `TUIPILOT_BENCH_PYTHON` names (default `target/pyvenv/bin/python`),
//! which needs the package, pexpect and pyte:
//! `python3 -m venv target/pyvenv && target/pyvenv/bin/pip install ./python pexpect pyte`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use tuipilot::operation::{Step, WaitFor};
use tuipilot::{Operation, Session};

mod support;
use support::median_p90;

const ROUNDS: u32 = 200;
const WARMUP: u32 = 20;

/// The `lineedit` fixture, built for the bench profile.
fn lineedit() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "build",
            "--release",
            "-q",
            "-p",
            "tuipilot",
            "--example",
            "lineedit",
        ])
        .current_dir(root)
        .status()
        .expect("running cargo build");
    assert!(status.success(), "building the lineedit fixture failed");
    root.join("target/release/examples/lineedit")
}

/// How the library takes the step.
#[derive(Clone, Copy)]
enum Via {
    /// The operations the Python package hands the executor: one `Send` (the text, then
    /// Enter), one `Wait`.
    Operations,
    /// The same operations, each on a thread of its own while the caller waits for its
    /// answer, as the Python package runs them (so Ctrl-C can interrupt a wait).
    OperationsThreaded,
    /// The session's methods: `send_text`, `press`, `wait_for_text`.
    Methods,
}

/// The library's step times, in milliseconds.
fn rust_steps(program: &Path, whole_frames: bool, via: Via) -> tuipilot::Result<Vec<f64>> {
    let s = Session::builder(program)
        .size(80, 24)
        .whole_frames(whole_frames)
        .spawn()?;
    s.wait_for_text("^>")?;
    let mut times = Vec::new();
    for n in 0..WARMUP + ROUNDS {
        let start = Instant::now();
        let answer = format!("^submitted: step {n}$");
        let send = Operation::Send {
            steps: vec![Step::Text(format!("step {n}")), Step::Keys("Enter".into())],
            wait: None,
            timeout_ms: None,
            capture: false,
            secret: false,
        };
        let wait = Operation::Wait {
            condition: WaitFor::Text(answer.clone()),
            timeout_ms: None,
        };
        match via {
            Via::Operations => {
                s.apply(&send)?;
                s.apply(&wait)?;
            }
            Via::OperationsThreaded => {
                for operation in [&send, &wait] {
                    std::thread::scope(|scope| scope.spawn(|| s.apply(operation)).join())
                        .expect("the operation's thread")?;
                }
            }
            Via::Methods => {
                s.send_text(&format!("step {n}"))?;
                s.press("Enter")?;
                s.wait_for_text(&answer)?;
            }
        }
        if n >= WARMUP {
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
    }
    s.exit()?;
    Ok(times)
}

fn main() {
    let program = lineedit();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = std::env::var_os("TUIPILOT_BENCH_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/pyvenv/bin/python"));
    let steps =
        |whole_frames, via| median_p90(rust_steps(&program, whole_frames, via).expect("the library's steps"));
    let (rust, rust_p90) = steps(true, Via::Operations);
    let (rust_first, rust_first_p90) = steps(false, Via::Operations);
    let (threaded, threaded_p90) = steps(true, Via::OperationsThreaded);
    let (threaded_first, threaded_first_p90) = steps(false, Via::OperationsThreaded);
    let (methods, methods_p90) = steps(true, Via::Methods);
    let (methods_first, methods_first_p90) = steps(false, Via::Methods);
    let out = Command::new(&python)
        .arg(root.join("benches/python_step.py"))
        .args(["--program".as_ref(), program.as_os_str()])
        .args(["--rounds", &ROUNDS.to_string(), "--warmup", &WARMUP.to_string()])
        .output();
    let out = match out {
        Ok(out) if out.status.success() => out,
        Ok(out) => {
            eprintln!(
                "the Python side failed ({}):\n{}\ninstall it: python3 -m venv target/pyvenv && target/pyvenv/bin/pip install ./python pexpect pyte (or set TUIPILOT_BENCH_PYTHON)",
                python.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            std::process::exit(1);
        }
        Err(e) => {
            eprintln!(
                "cannot run {}: {e}; install it: python3 -m venv target/pyvenv && target/pyvenv/bin/pip install ./python pexpect pyte (or set TUIPILOT_BENCH_PYTHON)",
                python.display()
            );
            std::process::exit(1);
        }
    };
    let result: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("the Python side prints one JSON line");
    let figure = |tool: &str, what: &str| result[tool][what].as_f64().unwrap_or(f64::NAN);
    let (py, py_p90) = (figure("tuipilot", "median_ms"), figure("tuipilot", "p90_ms"));
    let (py_first, py_first_p90) = (
        figure("tuipilot_first_match", "median_ms"),
        figure("tuipilot_first_match", "p90_ms"),
    );
    let (pexpect, pexpect_p90) = (
        figure("pexpect_pyte", "median_ms"),
        figure("pexpect_pyte", "p90_ms"),
    );
    let (bare, bare_p90) = (
        figure("pexpect_pyte_no_delay", "median_ms"),
        figure("pexpect_pyte_no_delay", "p90_ms"),
    );
    let row = |who: &str, median: f64, p90: f64, note: &str| {
        println!("  {who:<34} median {median:7.3} ms  p90 {p90:7.3} ms  {note}");
    };
    println!(
        "one step (send a line, wait for the answer on the screen), {ROUNDS} rounds after {WARMUP} warm-up:"
    );
    row(
        "Rust, the same operations",
        rust,
        rust_p90,
        "(whole frames: the default)",
    );
    row(
        "Rust, the same on a thread each",
        threaded,
        threaded_p90,
        "(whole frames)",
    );
    row(
        "Rust, the session's methods",
        methods,
        methods_p90,
        "(whole frames)",
    );
    row("Python", py, py_p90, "(whole frames)");
    row(
        "Rust, the same operations",
        rust_first,
        rust_first_p90,
        "(whole_frames off: the first match)",
    );
    row(
        "Rust, the same on a thread each",
        threaded_first,
        threaded_first_p90,
        "(whole_frames off)",
    );
    row(
        "Rust, the session's methods",
        methods_first,
        methods_first_p90,
        "(whole_frames off)",
    );
    row("Python", py_first, py_first_p90, "(whole_frames off)");
    row(
        "pexpect + pyte",
        pexpect,
        pexpect_p90,
        "(pexpect's default 50 ms delaybeforesend)",
    );
    row("pexpect + pyte", bare, bare_p90, "(delaybeforesend = None)");
    println!(
        "  Python / Rust (the same operations): {:.2}x with whole frames, {:.2}x without (goal <= 1.2x)",
        py / rust,
        py_first / rust_first
    );
    println!(
        "  Python / pexpect + pyte: {:.2}x as pexpect ships, {:.2}x without its delay; with whole frames off (pexpect's rule: the first match) {:.2}x and {:.2}x (goal <= 0.3x)",
        py / pexpect,
        py / bare,
        py_first / pexpect,
        py_first / bare
    );
}
