//! What a readiness wait costs the waiting process while the program never becomes ready:
//! CPU seconds per second of waiting, for a program of 2,000 sleeping threads (each asked
//! about with a file read or two) against the same wait on a program of one thread in
//! the same run. Goal: under 0.3 s of CPU a second for the 2,000 threads (1.5 s over the
//! 5 s wait). And how long a ready wait takes to answer "ready" on a program of 3,000
//! threads (all asleep, the main one reading the terminal) against one of one thread.
//! Goal: at most 0.7 s.
//!
//! `cargo bench --bench probe_cost`

use std::time::{Duration, Instant};

use tuipilot::{Condition, Session};

/// This process's CPU time (user and system).
fn cpu() -> Duration {
    // SAFETY: an all-zero rusage is valid; getrusage fills it for this process.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: a live local for the kernel to fill.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let time = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    time(usage.ru_utime) + time(usage.ru_stime)
}

/// CPU seconds a second of a never-ready wait on a python3 of `threads` sleeping threads,
/// its main thread blocked on a pipe nobody writes (busy: it waits for the world, not for
/// the terminal).
fn cost(threads: usize, wait: Duration) -> (f64, String) {
    let script = format!(
        "import os, threading, time, sys\nfor _ in range({threads} - 1):\n    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\nprint('threads', threading.active_count(), flush=True)\nos.read(os.pipe()[0], 1)\n"
    );
    let session = Session::builder("python3")
        .args(["-c", &script])
        .spawn()
        .expect("python3 starts");
    session
        .wait_for_text(&format!("^threads {threads}$"))
        .expect("the threads start");
    let (cpu_before, started) = (cpu(), Instant::now());
    let outcome = session.wait_timeout(&Condition::Ready, wait);
    let (spent, waited) = (cpu() - cpu_before, started.elapsed());
    session.kill().ok();
    let why = match outcome {
        Ok(_) => "ready (it should not be)".to_string(),
        Err(_) => "busy to the end, as it should be".to_string(),
    };
    (spent.as_secs_f64() / waited.as_secs_f64(), why)
}

/// How long a ready wait takes on a python3 of `threads` threads asleep on an event, its
/// main thread reading the terminal: the median of three.
fn ready_in(threads: usize) -> Duration {
    let script = format!(
        "import threading, sys\ne = threading.Event()\nfor _ in range({threads} - 1):\n    threading.Thread(target=e.wait, daemon=True).start()\nprint('threads', threading.active_count(), flush=True)\nsys.stdin.readline()\n"
    );
    let mut took = Vec::new();
    for _ in 0..3 {
        let session = Session::builder("python3")
            .args(["-c", &script])
            .timeout(Duration::from_secs(30))
            .spawn()
            .expect("python3 starts");
        session
            .wait_for_text(&format!("^threads {threads}$"))
            .expect("the threads start");
        let started = Instant::now();
        session.wait_ready().expect("ready");
        took.push(started.elapsed());
        session.kill().ok();
    }
    took.sort();
    took[1]
}

fn main() {
    let wait = Duration::from_secs(5);
    let (one, one_why) = cost(1, wait);
    let (many, many_why) = cost(2000, wait);
    println!(
        "a never-ready wait of {} s, CPU seconds per second of waiting:",
        wait.as_secs()
    );
    println!("    baseline: python3, 1 thread          {one:>7.3}  ({one_why})");
    println!("    python3, 2,000 sleeping threads      {many:>7.3}  ({many_why}; goal < 0.3)");
    println!("    ratio: {:.1}x the one-thread wait", many / one.max(1e-9));
    let (one, many) = (ready_in(1), ready_in(3000));
    println!("a ready wait, from the call to \"ready\" (median of 3):");
    println!(
        "    baseline: python3, 1 thread          {:>7.3} s",
        one.as_secs_f64()
    );
    println!(
        "    python3, 3,000 threads               {:>7.3} s  (goal <= 0.7; {:.0}x the one-thread wait)",
        many.as_secs_f64(),
        many.as_secs_f64() / one.as_secs_f64().max(1e-9)
    );
}
