//! Torn frames under load: end-to-end tests written the way the guide teaches (type, then
//! `send_keys_and_wait`, then assert on the screen the wait returned) against a ratatui
//! todo app (`examples/picker/src/bin/todo.rs`: newest task first, so every row moves and
//! a frame leaves stdout's 1 KiB buffer in pieces, the status bar last), and the same app
//! wrapping its frames in synchronized output (`--sync`). 100 tests per variant on 8 threads beside a
//! CPU hog (one spinning thread per core); each test adds twelve tasks and checks, after
//! each wait, that the status bar counts the new task. A test fails when the wait handed
//! back a frame whose list had the task and whose status bar did not yet.
//!
//! Baseline in the same run: the same tests with whole frames off (the wait returns on the
//! first screen that matches).
//!
//! `cargo bench --bench frames` (`TUIPILOT_FRAME_TESTS`, default 100)

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tuipilot::Session;

/// The ratatui todo app (`examples/picker/src/bin/todo.rs`), built for this profile.
fn fixture() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the bench's path");
    let profile = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let release = profile.ends_with("release");
    let mut build = std::process::Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    build.args(["build", "-q", "-p", "tuipilot-example-picker", "--bin", "todo"]);
    if release {
        build.arg("--release");
    }
    let built = build
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .is_ok_and(|s| s.success());
    assert!(built, "building the todo app failed");
    profile.join("todo")
}

/// One test, the guide's way; whether every wait handed back a whole frame.
fn one_test(program: &std::path::Path, sync: bool, whole_frames: bool) -> tuipilot::Result<bool> {
    let mut builder = Session::builder(program)
        .size(60, 20)
        .timeout(Duration::from_secs(20))
        .whole_frames(whole_frames);
    if sync {
        builder = builder.arg("--sync");
    }
    let s = builder.spawn()?;
    s.wait_for_text("0 tasks, 0 done")?;
    // Twelve tasks: once the list is long, adding one on top repaints a frame too big
    // for stdout's buffer.
    for n in 1..=12 {
        s.send_text(&format!("task {n}"))?;
        let screen = s.send_keys_and_wait("Enter", &format!(r"\d+\. task {n} "))?;
        if screen
            .locate_row(19)
            .assert_text(&format!("^{n} tasks, 0 done"))
            .is_err()
        {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Runs `tests` tests on 8 threads; (torn, failed otherwise, median ms per test).
fn run(program: &std::path::Path, tests: usize, sync: bool, whole_frames: bool) -> (usize, usize, f64) {
    let next = Arc::new(AtomicUsize::new(0));
    let torn = Arc::new(AtomicUsize::new(0));
    let failed = Arc::new(AtomicUsize::new(0));
    let times = Arc::new(std::sync::Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (next, torn, failed, times) = (next.clone(), torn.clone(), failed.clone(), times.clone());
            let program = program.to_path_buf();
            std::thread::spawn(move || {
                while next.fetch_add(1, Ordering::SeqCst) < tests {
                    let started = Instant::now();
                    match one_test(&program, sync, whole_frames) {
                        Ok(true) => {}
                        Ok(false) => {
                            torn.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(e) => {
                            eprintln!("a test failed: {}", e.to_string().lines().next().unwrap_or(""));
                            failed.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    let ms = started.elapsed().as_secs_f64() * 1e3;
                    times.lock().unwrap_or_else(|p| p.into_inner()).push(ms);
                }
            })
        })
        .collect();
    for worker in workers {
        let _ = worker.join();
    }
    let mut times = std::mem::take(&mut *times.lock().unwrap_or_else(|p| p.into_inner()));
    times.sort_by(f64::total_cmp);
    let median = times.get(times.len() / 2).copied().unwrap_or(0.0);
    (torn.load(Ordering::SeqCst), failed.load(Ordering::SeqCst), median)
}

fn main() {
    let tests: usize = std::env::var("TUIPILOT_FRAME_TESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100);
    let program = fixture();
    // The CPU hog: a spinning thread per core, for the whole run.
    let stop = Arc::new(AtomicBool::new(false));
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let hogs: Vec<_> = (0..cores)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut x = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                    std::hint::black_box(x);
                }
            })
        })
        .collect();
    println!(
        "{tests} tests each, 8 threads, {cores} spinning threads beside them; a test fails when a wait hands back a torn frame"
    );
    println!(
        "{:<44} {:>6} {:>8} {:>12}",
        "variant", "torn", "errors", "median ms"
    );
    for (name, sync, whole) in [
        ("ratatui, whole frames", false, true),
        ("ratatui, first match (baseline)", false, false),
        ("ratatui + synchronized output, whole frames", true, true),
        ("ratatui + synchronized output, first match", true, false),
    ] {
        let (torn, failed, median) = run(&program, tests, sync, whole);
        println!("{name:<44} {torn:>6} {failed:>8} {median:>12.1}");
    }
    stop.store(true, Ordering::Relaxed);
    for hog in hogs {
        let _ = hog.join();
    }
}
