//! The agent loop through the CLI against the same loop through tmux, in one run.
//!
//! Loop: start `bash --norc --noprofile` at 80x24; send `echo hello-N` + Enter and wait
//! for `hello-N`; capture; end. tuipilot: `start`, `send -t … -k Enter --wait`,
//! `capture`, `exit`. tmux: `new-session -d`, `send-keys`, `capture-pane -p` polled
//! until the text shows, `capture-pane -p`, `kill-session`. The same loop in the three
//! calls the guide shows (`start --wait-ready`, `send … --wait … --capture`, `exit`),
//! interleaved with the others, and through one `tuipilot mcp` server kept running (a
//! persistent client: no process started a call). Also: each step of our loop
//! on its own, the per-call cost of a trivial request (`capture` of an idle session,
//! against `tmux capture-pane` and a bare process spawn), `capture --png` (and, where
//! fonts-noto-cjk is installed, with two of its `.ttc` collections given as `--font`: the
//! first capture parses them, the host keeps them for the next), and the host's
//! resident memory before and after it has rendered. Last, a step whose answer's text the
//! agent cannot predict: `send --wait-ready --capture` against a 300 ms quiet period and
//! against tmux with a one-second sleep, with how often each saw the answer.
//!
//! `cargo bench -p tuipilot-cli --bench agent_loop`

use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{Tmux, median, ms, status_kib, time};

const LOOPS: usize = 30;
const CALLS: usize = 300;

/// `start`'s size and program, the same in both loops.
const BASH_80X24: [&str; 8] = [
    "--cols",
    "80",
    "--rows",
    "24",
    "--",
    "bash",
    "--norc",
    "--noprofile",
];

fn tuipilot(dir: &str, args: &[&str]) -> Output {
    support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), dir, args).unwrap_or_else(|e| panic!("{e}"))
}

/// One loop; returns the time of each step (start, send + wait, capture, exit).
fn tuipilot_loop(dir: &str, n: usize) -> [Duration; 4] {
    let marker = format!("hello-{n}");
    let echo = format!("echo {marker}");
    let start: Vec<&str> = std::iter::once("start").chain(BASH_80X24).collect();
    let steps: [&[&str]; 4] = [
        &start,
        &["send", "-t", &echo, "-k", "Enter", "--wait", &marker],
        &["capture"],
        &["exit"],
    ];
    steps.map(|args| {
        let start = Instant::now();
        tuipilot(dir, args);
        start.elapsed()
    })
}

/// The same loop in the three calls the guide shows: `start --wait-ready`, `send … --wait
/// … --capture` (the screen in the reply), `exit`; checks the reply holds the marker.
fn tuipilot_three_calls(dir: &str, n: usize) -> Duration {
    let marker = format!("hello-{n}");
    let echo = format!("echo {marker}");
    let start: Vec<&str> = ["start", "--wait-ready"].into_iter().chain(BASH_80X24).collect();
    let began = Instant::now();
    tuipilot(dir, &start);
    let reply = tuipilot(
        dir,
        &["send", "-t", &echo, "-k", "Enter", "--wait", &marker, "--capture"],
    );
    tuipilot(dir, &["exit"]);
    let took = began.elapsed();
    assert!(String::from_utf8_lossy(&reply.stdout).contains(&marker));
    took
}

/// A persistent client: one `tuipilot mcp` server for every loop, spoken to as an agent's
/// MCP client does (JSON-RPC lines on its stdin and stdout), its sessions in its own
/// process — no process started a call.
struct Mcp {
    server: std::process::Child,
    requests: std::process::ChildStdin,
    replies: std::io::BufReader<std::process::ChildStdout>,
    next_id: u64,
}

impl Mcp {
    fn start(dir: &str) -> Mcp {
        let mut server = Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .arg("mcp")
            .env("TUIPILOT_DIR", dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let requests = server.stdin.take().unwrap();
        let replies = std::io::BufReader::new(server.stdout.take().unwrap());
        let mut mcp = Mcp {
            server,
            requests,
            replies,
            next_id: 0,
        };
        mcp.request(
            "initialize",
            serde_json::json!({"protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "agent_loop", "version": "0"}}),
        );
        mcp.send(serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: serde_json::Value) {
        use std::io::Write;
        writeln!(self.requests, "{message}").unwrap();
        self.requests.flush().unwrap();
    }

    /// One request; its result (the replies before it are notifications).
    fn request(&mut self, method: &str, params: serde_json::Value) -> serde_json::Value {
        use std::io::BufRead;
        self.next_id += 1;
        let id = self.next_id;
        self.send(serde_json::json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let mut line = String::new();
            assert!(
                self.replies.read_line(&mut line).unwrap() > 0,
                "the MCP server ended"
            );
            let reply: serde_json::Value = serde_json::from_str(&line).unwrap();
            if reply["id"] == id {
                assert!(reply.get("error").is_none(), "{reply}");
                return reply["result"].clone();
            }
        }
    }

    /// One call of the `terminal` tool; its text.
    fn terminal(&mut self, arguments: serde_json::Value) -> String {
        let result = self.request(
            "tools/call",
            serde_json::json!({"name": "terminal", "arguments": arguments}),
        );
        assert_ne!(result["isError"], true, "{result}");
        result["content"].to_string()
    }

    /// The loop in three calls: `start`, `send` with the text and Enter waiting for the
    /// marker (the screen in the reply), `exit`.
    fn three_calls(&mut self, n: usize) -> Duration {
        let marker = format!("hello-{n}");
        let began = Instant::now();
        self.terminal(serde_json::json!({"action": "start", "command": ["bash", "--norc", "--noprofile"], "cols": 80, "rows": 24}));
        let screen = self.terminal(serde_json::json!({"action": "send", "text": format!("echo {marker}"), "keys": "Enter", "wait_pattern": marker}));
        self.terminal(serde_json::json!({"action": "exit"}));
        let took = began.elapsed();
        assert!(screen.contains(&marker), "{screen}");
        took
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

fn tmux_loop(tmux: &Tmux, n: usize) -> Duration {
    let start = Instant::now();
    let marker = format!("hello-{n}");
    tmux.new_session("bench", "bash --norc --noprofile");
    tmux.run(&["send-keys", "-t", "bench", &format!("echo {marker}"), "Enter"]);
    while !String::from_utf8_lossy(&tmux.run(&["capture-pane", "-p", "-t", "bench"]).stdout).contains(&marker)
    {
    }
    tmux.run(&["capture-pane", "-p", "-t", "bench"]);
    tmux.run(&["kill-session", "-t", "bench"]);
    start.elapsed()
}

fn main() {
    let dir = format!("/tmp/tpbench-{}", std::process::id());
    let tmux = Tmux::new("bench");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let mut per_step: [Vec<Duration>; 4] = Default::default();
    let mut three = Vec::new();
    let mut mcp = Mcp::start(&dir);
    let mut through_mcp = Vec::new();
    for n in 0..LOOPS {
        let steps = tuipilot_loop(&dir, n);
        ours.push(steps.iter().sum::<Duration>());
        for (all, step) in per_step.iter_mut().zip(steps) {
            all.push(step);
        }
        theirs.push(tmux_loop(&tmux, n));
        three.push(tuipilot_three_calls(&dir, n));
        through_mcp.push(mcp.three_calls(n));
    }
    drop(mcp);
    let (o, t) = (median(ours), median(theirs));
    println!("agent loop (start bash, send + wait, capture, exit), median of {LOOPS}:");
    println!("  tmux (send-keys, polled capture-pane): {:>7.1} ms", ms(t));
    println!("  tuipilot CLI:                          {:>7.1} ms", ms(o));
    for (name, all) in ["start", "send + wait", "capture", "exit"].iter().zip(per_step) {
        println!("    {name:<12} {:>6.2} ms", ms(median(all)));
    }
    println!(
        "  ratio: {:.2}x tmux (target <= 0.8x)",
        o.as_secs_f64() / t.as_secs_f64()
    );
    let three = median(three);
    println!(
        "  tuipilot in three calls (start --wait-ready, send --wait --capture, exit): {:.1} ms, {:.2}x tmux (target <= 0.6x)",
        ms(three),
        three.as_secs_f64() / t.as_secs_f64()
    );
    let through_mcp = median(through_mcp);
    println!(
        "  the same three calls to one `tuipilot mcp` server (a persistent client): {:.1} ms, {:.2}x tmux, {:.2}x the CLI's",
        ms(through_mcp),
        through_mcp.as_secs_f64() / t.as_secs_f64(),
        through_mcp.as_secs_f64() / three.as_secs_f64()
    );

    // Per-call cost of a trivial request on an idle session.
    tuipilot(&dir, &["start", "--", "bash", "--norc", "--noprofile"]);
    tuipilot(&dir, &["wait", "--stable", "200"]);
    tmux.new_session("idle", "bash --norc --noprofile");
    // Each call as a shell tool makes it: run the command, output to a file, wait.
    let quiet = |cmd: &mut Command| {
        let status = cmd.stdout(Stdio::null()).stderr(Stdio::null()).status().unwrap();
        assert!(status.success());
    };
    let list: serde_json::Value =
        serde_json::from_slice(&tuipilot(&dir, &["list", "--json"]).stdout).unwrap();
    let host = list[0]["host_pid"].as_i64();
    let idle_rss = status_kib(host, "VmRSS");
    let (mut spawn, mut capture, mut tmux_capture) = (Vec::new(), Vec::new(), Vec::new());
    // Interleaved, so a slow moment of the machine hits all three alike.
    for _ in 0..CALLS {
        spawn.push(time(1, || quiet(&mut Command::new("true"))));
        capture.push(time(1, || {
            quiet(
                Command::new(env!("CARGO_BIN_EXE_tuipilot"))
                    .arg("capture")
                    .env("TUIPILOT_DIR", &dir),
            )
        }));
        tmux_capture.push(time(1, || {
            quiet(
                Command::new("tmux")
                    .args(tmux.args())
                    .args(["capture-pane", "-p", "-t", "idle"]),
            )
        }));
    }
    let (spawn, capture, tmux_capture) = (median(spawn), median(capture), median(tmux_capture));
    println!("per-call cost of a trivial request, median of {CALLS}:");
    println!("  spawning `true` (process floor):  {:>6.2} ms", ms(spawn));
    println!("  tmux capture-pane -p:             {:>6.2} ms", ms(tmux_capture));
    println!("  tuipilot capture (idle session):  {:>6.2} ms", ms(capture));
    println!(
        "  ratio: {:.2}x `true` (target <= 2x)",
        capture.as_secs_f64() / spawn.as_secs_f64()
    );
    let png = format!("{dir}/bench.png");
    let capture_png = time(50, || {
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
    let collections = [
        "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
        "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",
    ];
    if collections.iter().all(|f| std::path::Path::new(f).is_file()) {
        let with_fonts = || {
            let started = Instant::now();
            quiet(
                Command::new(env!("CARGO_BIN_EXE_tuipilot"))
                    .args([
                        "capture",
                        "--png",
                        &png,
                        "--font",
                        collections[0],
                        "--font",
                        collections[1],
                    ])
                    .env("TUIPILOT_DIR", &dir),
            );
            started.elapsed()
        };
        let first = with_fonts();
        let again = median((0..20).map(|_| with_fonts()).collect());
        println!(
            "  capture --png with two --font .ttc:  {:>6.2} ms the first time, then {:.2} ms ({:.2}x without them)",
            ms(first),
            ms(again),
            again.as_secs_f64() / capture_png.as_secs_f64()
        );
    }
    println!(
        "host resident memory: {idle_rss} KiB idle (target <= 15 MB); {} KiB once it has rendered PNGs (fonts and glyph cache loaded)",
        status_kib(host, "VmRSS")
    );

    tuipilot(&dir, &["exit"]);
    unknown_answer_step(&dir, &tmux);
    let _ = std::fs::remove_dir_all(&dir);
}

/// An agent's step when it cannot predict the answer's text: a command that answers after
/// half a second, then the screen. Ours waits for ready; the same step with a 300 ms
/// quiet period; tmux with the one-second sleep an agent would guess. Each time, and
/// whether the screen it returned held the answer.
fn unknown_answer_step(dir: &str, tmux: &Tmux) {
    const STEPS: usize = 10;
    let command = |n: usize| format!("sleep 0.5; echo answer-{n}");
    tuipilot(
        dir,
        &[
            "start",
            "--wait-ready",
            "--env",
            "PS1=$ ",
            "--",
            "bash",
            "--norc",
            "--noprofile",
        ],
    );
    tmux.new_session("step", "bash --norc --noprofile");
    let (mut ready, mut quiet, mut slept) = (Vec::new(), Vec::new(), Vec::new());
    let (mut ready_ok, mut quiet_ok, mut slept_ok) = (0, 0, 0);
    for n in 0..STEPS {
        let started = Instant::now();
        let out = tuipilot(
            dir,
            &[
                "send",
                "-t",
                &command(n),
                "-k",
                "Enter",
                "--wait-ready",
                "--capture",
            ],
        );
        ready.push(started.elapsed());
        ready_ok += usize::from(String::from_utf8_lossy(&out.stdout).contains(&format!("\nanswer-{n}\n")));

        let n = n + STEPS;
        let started = Instant::now();
        tuipilot(dir, &["send", "-t", &command(n), "-k", "Enter"]);
        tuipilot(dir, &["wait", "--stable", "300"]);
        let out = tuipilot(dir, &["capture"]);
        quiet.push(started.elapsed());
        quiet_ok += usize::from(String::from_utf8_lossy(&out.stdout).contains(&format!("\nanswer-{n}\n")));
        // Let the missed answer arrive before the next step.
        tuipilot(dir, &["wait", "--ready"]);

        let n = n + STEPS;
        let started = Instant::now();
        tmux.run(&["send-keys", "-t", "step", &command(n), "Enter"]);
        std::thread::sleep(Duration::from_secs(1));
        let out = tmux.run(&["capture-pane", "-p", "-t", "step"]);
        slept.push(started.elapsed());
        slept_ok += usize::from(String::from_utf8_lossy(&out.stdout).contains(&format!("\nanswer-{n}\n")));
    }
    tuipilot(dir, &["exit"]);
    tmux.run(&["kill-session", "-t", "step"]);
    println!("a step whose answer's text is unknown (the program answers after 0.5 s), median of {STEPS}:");
    println!(
        "  tuipilot send --wait-ready --capture:      {:>7.1} ms, answer on the screen {ready_ok} of {STEPS}",
        ms(median(ready))
    );
    println!(
        "  tuipilot send; wait --stable 300; capture: {:>7.1} ms, answer on the screen {quiet_ok} of {STEPS}",
        ms(median(quiet))
    );
    println!(
        "  tmux send-keys; sleep 1; capture-pane:     {:>7.1} ms, answer on the screen {slept_ok} of {STEPS}",
        ms(median(slept))
    );
}
