//! The agent loop through the CLI against the same loop through tmux, in one run.
//!
//! Loop: start `bash --norc --noprofile` at 80x24; send `echo hello-N` + Enter and wait
//! for `hello-N`; capture; end. tuipilot: `start`, `send -t … -k Enter --wait`,
//! `capture`, `exit`. tmux: `new-session -d`, `send-keys`, `capture-pane -p` polled
//! until the text shows, `capture-pane -p`, `kill-session`. Also: the per-call cost of a
//! trivial request (`capture` of an idle session, against `tmux capture-pane` and a
//! bare process spawn), and the host's idle resident memory.
//!
//! `cargo bench --bench agent_loop`

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const LOOPS: usize = 20;
const CALLS: usize = 200;

fn tuipilot(dir: &str, args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_tuipilot"))
        .args(args)
        .env("TUIPILOT_DIR", dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn tmux(socket: &str, args: &[&str]) -> Output {
    let out = Command::new("tmux")
        .args(["-L", socket, "-f", "/dev/null"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "tmux {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn tuipilot_loop(dir: &str, n: usize) -> Duration {
    let start = Instant::now();
    let marker = format!("hello-{n}");
    tuipilot(
        dir,
        &[
            "start",
            "--cols",
            "80",
            "--rows",
            "24",
            "--",
            "bash",
            "--norc",
            "--noprofile",
        ],
    );
    tuipilot(
        dir,
        &[
            "send",
            "-t",
            &format!("echo {marker}"),
            "-k",
            "Enter",
            "--wait",
            &marker,
        ],
    );
    tuipilot(dir, &["capture"]);
    tuipilot(dir, &["exit"]);
    start.elapsed()
}

fn tmux_loop(socket: &str, n: usize) -> Duration {
    let start = Instant::now();
    let marker = format!("hello-{n}");
    tmux(
        socket,
        &[
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "24",
            "-s",
            "bench",
            "bash --norc --noprofile",
        ],
    );
    tmux(
        socket,
        &["send-keys", "-t", "bench", &format!("echo {marker}"), "Enter"],
    );
    while !String::from_utf8_lossy(&tmux(socket, &["capture-pane", "-p", "-t", "bench"]).stdout)
        .contains(&marker)
    {}
    tmux(socket, &["capture-pane", "-p", "-t", "bench"]);
    tmux(socket, &["kill-session", "-t", "bench"]);
    start.elapsed()
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn rss_kib(pid: i64) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:")?.trim().strip_suffix(" kB")?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let dir = format!("/tmp/tpbench-{}", std::process::id());
    let socket = format!("tpbench-{}", std::process::id());
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for n in 0..LOOPS {
        ours.push(tuipilot_loop(&dir, n));
        theirs.push(tmux_loop(&socket, n));
    }
    let (o, t) = (median(ours), median(theirs));
    println!("agent loop (start bash, send + wait, capture, exit), median of {LOOPS}:");
    println!("  tmux (send-keys, polled capture-pane): {:>7.1} ms", ms(t));
    println!("  tuipilot CLI:                          {:>7.1} ms", ms(o));
    println!(
        "  ratio: {:.2}x tmux (target <= 0.5x)",
        o.as_secs_f64() / t.as_secs_f64()
    );

    // Per-call cost of a trivial request on an idle session.
    tuipilot(&dir, &["start", "--", "bash", "--norc", "--noprofile"]);
    tuipilot(&dir, &["wait", "--stable", "200"]);
    tmux(
        &socket,
        &[
            "new-session",
            "-d",
            "-x",
            "80",
            "-y",
            "24",
            "-s",
            "idle",
            "bash --norc --noprofile",
        ],
    );
    let time = |f: &dyn Fn()| {
        let mut v = Vec::new();
        for _ in 0..CALLS {
            let start = Instant::now();
            f();
            v.push(start.elapsed());
        }
        median(v)
    };
    // Each call as a shell tool makes it: run the command, output to a file, wait.
    let quiet = |cmd: &mut Command| {
        let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
        assert!(status.success());
    };
    let spawn = time(&|| quiet(&mut Command::new("true")));
    let capture = time(&|| {
        quiet(
            Command::new(env!("CARGO_BIN_EXE_tuipilot"))
                .arg("capture")
                .env("TUIPILOT_DIR", &dir),
        )
    });
    let tmux_capture =
        time(&|| quiet(Command::new("tmux").args(["-L", &socket, "capture-pane", "-p", "-t", "idle"])));
    println!("per-call cost of a trivial request, median of {CALLS}:");
    println!("  spawning `true` (process floor):  {:>6.2} ms", ms(spawn));
    println!("  tmux capture-pane -p:             {:>6.2} ms", ms(tmux_capture));
    println!(
        "  tuipilot capture (idle session):  {:>6.2} ms  (target < 2 ms)",
        ms(capture)
    );
    let png = format!("{dir}/bench.png");
    let capture_png = time(&|| {
        quiet(
            Command::new(env!("CARGO_BIN_EXE_tuipilot"))
                .args(["capture", "--png", &png])
                .env("TUIPILOT_DIR", &dir),
        )
    });
    println!(
        "  tuipilot capture --png:           {:>6.2} ms  (target < 10 ms)",
        ms(capture_png)
    );

    let list: serde_json::Value =
        serde_json::from_slice(&tuipilot(&dir, &["list", "--json"]).stdout).unwrap();
    let host = list[0]["host_pid"].as_i64().unwrap_or(0);
    println!(
        "host idle resident memory: {} KiB (target <= 15 MB)",
        rss_kib(host)
    );

    tuipilot(&dir, &["exit"]);
    tmux(&socket, &["kill-server"]);
    let _ = std::fs::remove_dir_all(&dir);
}
