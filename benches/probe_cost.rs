//! What a readiness wait costs the waiting process while the program never becomes ready:
//! CPU seconds per second of waiting, for a program of 2,000 sleeping threads (each asked
//! about with a file read or two) against the same wait on a program of one thread in
//! the same run. Goal: under 0.3 s of CPU a second for the 2,000 threads.
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

/// CPU seconds a second of a never-ready wait on a python3 of `threads` sleeping threads.
fn cost(threads: usize, wait: Duration) -> (f64, String) {
    let script = format!(
        "import threading, time, sys\nfor _ in range({threads} - 1):\n    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()\nprint('threads', threading.active_count(), flush=True)\ntime.sleep(3600)\n"
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
}
