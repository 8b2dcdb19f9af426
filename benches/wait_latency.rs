//! Wait latency: a child writes a marker stamped with CLOCK_MONOTONIC; the time from
//! that stamp until `wait` returns, median over many rounds. The floor in the same run:
//! the same child under a bare PTY, timed until a reader thread's `read` returns the
//! marker (no parsing, no waiting machinery). The same for a shell's end-of-command mark:
//! the child writes the marker inside `OSC 133;C … OSC 133;D;0` (what an integrated shell
//! sends) and `wait` waits for the command to finish.
//!
//! `cargo bench --bench wait_latency`

use std::io::{Read, Write};
use std::time::Duration;

use portable_pty::{CommandBuilder, PtySize, native_pty_system};
use tuipilot::{Condition, Session};

mod support;
use support::median_p90;

const ROUNDS: u32 = 300;

fn monotonic_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The child: for each byte read, pause 2 ms (so the parent is already waiting), then
/// print `MARK n t` with the monotonic time of the write.
fn child() -> std::io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    let mut out = std::io::stdout();
    write!(out, "ready\r\n")?;
    out.flush()?;
    let mut stdin = std::io::stdin();
    let mut byte = [0u8; 1];
    let mut n = 0u32;
    let command = std::env::var("TUIPILOT_BENCH_CHILD").as_deref() == Ok("command");
    while stdin.read(&mut byte)? == 1 {
        n += 1;
        std::thread::sleep(Duration::from_millis(2));
        if command {
            write!(
                out,
                "\x1b]133;C\x07MARK {n} {}\r\n\x1b]133;D;0\x07",
                monotonic_ns()
            )?;
        } else {
            write!(out, "MARK {n} {}\r\n", monotonic_ns())?;
        }
        out.flush()?;
    }
    Ok(())
}

fn stamp_in(text: &str, n: u32) -> Option<u64> {
    let tag = format!("MARK {n} ");
    let start = text.find(&tag)? + tag.len();
    text[start..].split_whitespace().next()?.parse().ok()
}

fn session_latencies(exe: &str, command: bool) -> Vec<f64> {
    let s = Session::builder(exe)
        .env("TUIPILOT_BENCH_CHILD", if command { "command" } else { "1" })
        .spawn()
        .unwrap();
    s.wait_for_text("^ready").unwrap();
    let mut lat = Vec::new();
    for n in 1..=ROUNDS {
        let cond = if command {
            Condition::CommandDone
        } else {
            Condition::text(&format!("^MARK {n} ")).unwrap()
        };
        // The command wait counts marks after its baseline, taken before the input.
        let start = s.wait_start();
        s.send_text("x").unwrap();
        let screen = s.wait_since(&start, &cond).unwrap();
        let now = monotonic_ns();
        let stamp = stamp_in(&screen.text(), n).unwrap();
        lat.push((now - stamp) as f64 / 1e3);
    }
    lat
}

fn bare_latencies(exe: &str) -> Vec<f64> {
    let pair = native_pty_system().openpty(PtySize::default()).unwrap();
    let mut cmd = CommandBuilder::new(exe);
    cmd.env("TUIPILOT_BENCH_CHILD", "1");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut writer = pair.master.take_writer().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<(u64, String)>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0
                || tx
                    .send((monotonic_ns(), String::from_utf8_lossy(&buf[..n]).into_owned()))
                    .is_err()
            {
                break;
            }
        }
    });
    let mut seen = String::new();
    while !seen.contains("ready") {
        seen.push_str(&rx.recv().unwrap().1);
    }
    let mut lat = Vec::new();
    for n in 1..=ROUNDS {
        writer.write_all(b"x").unwrap();
        let mut text = String::new();
        loop {
            let (at, chunk) = rx.recv().unwrap();
            text.push_str(&chunk);
            if let Some(stamp) = stamp_in(&text, n).filter(|_| text.ends_with('\n')) {
                lat.push((at - stamp) as f64 / 1e3);
                break;
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    lat
}

fn main() {
    if std::env::var_os("TUIPILOT_BENCH_CHILD").is_some() {
        child().unwrap();
        return;
    }
    let exe = std::env::current_exe().unwrap().to_string_lossy().into_owned();
    let (floor_med, floor_p90) = median_p90(bare_latencies(&exe));
    let (med, p90) = median_p90(session_latencies(&exe, false));
    let (cmd_med, cmd_p90) = median_p90(session_latencies(&exe, true));
    println!("wait latency: marker written -> wait returns, {ROUNDS} rounds");
    println!("  bare PTY reader thread (floor): median {floor_med:>7.1} us  p90 {floor_p90:>7.1} us");
    println!("  tuipilot wait (screen regex):   median {med:>7.1} us  p90 {p90:>7.1} us");
    println!("  tuipilot wait (command, 133;D): median {cmd_med:>7.1} us  p90 {cmd_p90:>7.1} us");
    println!(
        "  ratio: {:.2}x the floor (screen regex), {:.2}x (command); targets: median < 500 us, command < 1000 us",
        med / floor_med,
        cmd_med / floor_med
    );
}
