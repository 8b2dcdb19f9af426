//! A person watching: how soon a change reaches `tuipilot attach`, and what a flood costs.
//!
//! 1. Latency: a session running `cat`, one watcher connected through the host's `watch`
//!    (as `attach` connects), and the agent's own connection. Each round the agent sends
//!    a marker with a wait for it on the screen; from the send, the agent's reply (its own
//!    capture of the change: the baseline) and the first frame holding the marker at the
//!    watcher are timed. Target: the watcher's median within one frame, 16 ms. Changes
//!    come 40 ms apart (an agent's turn is longer); the same rounds back to back show the
//!    coalescing: a change within 16 ms of the last frame waits for the next one.
//! 2. Flood: `seq` printing 2,000,000 lines, waited for to its last line, with no watcher
//!    and with one (in the same run): the session must not slow down, and the watcher gets
//!    at most ~60 frames a second.
//!
//! `cargo bench -p tuipilot-cli --bench attach_latency`

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

#[path = "../../benches/support/mod.rs"]
mod support;
use support::{median, ms};

const ROUNDS: usize = 200;
const FLOOD_LINES: u32 = 2_000_000;

fn tuipilot(dir: &str, args: &[&str]) {
    support::tuipilot_in(env!("CARGO_BIN_EXE_tuipilot"), dir, args).unwrap_or_else(|e| panic!("{e}"));
}

/// A protocol connection to session `name`, past its `hello`.
fn connect(dir: &str, name: &str) -> (BufReader<UnixStream>, UnixStream) {
    let stream = UnixStream::connect(format!("{dir}/{name}.sock")).expect("the session's socket");
    let mut writer = stream.try_clone().unwrap();
    let mut reader = BufReader::new(stream);
    writeln!(writer, "{}", json!({"id": 0, "op": "hello", "version": 1})).unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    (reader, writer)
}

/// A watcher of `name`: every frame's arrival time and text, sent on the channel.
fn watch(dir: &str, name: &str) -> mpsc::Receiver<(Instant, String)> {
    let (mut reader, mut writer) = connect(dir, name);
    writeln!(
        writer,
        "{}",
        json!({"id": 1, "op": "watch", "cols": 80, "rows": 24})
    )
    .unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    let (frames, received) = mpsc::channel();
    std::thread::spawn(move || {
        let _keep = writer;
        let mut line = String::new();
        while reader.read_line(&mut line).is_ok_and(|n| n > 0) {
            let arrived = Instant::now();
            if let Ok(value) = serde_json::from_str::<Value>(&line)
                && let Some(lines) = value["frame"]["lines"].as_array()
            {
                let text: Vec<&str> = lines.iter().filter_map(Value::as_str).collect();
                if frames.send((arrived, text.join("\n"))).is_err() {
                    return;
                }
            }
            line.clear();
        }
    });
    received
}

/// Sends a request and reads its reply.
fn request(reader: &mut BufReader<UnixStream>, writer: &mut UnixStream, request: &Value) -> Value {
    writeln!(writer, "{request}").unwrap();
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    serde_json::from_str(&line).unwrap()
}

/// Medians of the agent's reply and of the watcher's first frame with the change, over
/// `ROUNDS` changes `apart` from each other.
fn latency(dir: &str, name: &str, apart: Duration) -> (Duration, Duration) {
    tuipilot(dir, &["start", "-s", name, "--wait-ready", "--", "cat"]);
    let frames = watch(dir, name);
    let (mut reader, mut writer) = connect(dir, name);
    let (mut agent, mut watcher) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        std::thread::sleep(apart);
        let marker = format!("marker{round}x");
        while frames.try_recv().is_ok() {}
        let sent = Instant::now();
        let reply = request(
            &mut reader,
            &mut writer,
            &json!({"id": round + 10, "op": "send", "actions": [{"text": format!("{marker}\r")}], "wait": format!("^{marker}$")}),
        );
        let answered = sent.elapsed();
        assert!(reply["ok"].is_object(), "{reply}");
        let seen = loop {
            let (arrived, text) = frames
                .recv_timeout(Duration::from_secs(5))
                .expect("a frame within 5 s");
            if text.contains(&marker) {
                break arrived.duration_since(sent);
            }
        };
        agent.push(answered);
        watcher.push(seen);
        // The screen scrolls: clear it now and then so the marker is always a new row.
        if round % 20 == 19 {
            request(
                &mut reader,
                &mut writer,
                &json!({"id": 9, "op": "send", "actions": [{"keys": "C-l"}]}),
            );
        }
    }
    tuipilot(dir, &["-s", name, "exit"]);
    (median(agent), median(watcher))
}

/// Seconds for `seq` to print its lines and the session to show the last; with a watcher,
/// also the frames it got.
fn flood(dir: &str, name: &str, watched: bool) -> (Duration, usize) {
    let script = format!("read x; seq 1 {FLOOD_LINES}; read y");
    tuipilot(
        dir,
        &["start", "-s", name, "--wait-ready", "--", "sh", "-c", &script],
    );
    let frames = watched.then(|| watch(dir, name));
    let (mut reader, mut writer) = connect(dir, name);
    let started = Instant::now();
    let reply = request(
        &mut reader,
        &mut writer,
        &json!({"id": 1, "op": "send", "actions": [{"keys": "Enter"}], "wait": format!("^{FLOOD_LINES}$"), "timeout_ms": 300_000}),
    );
    let took = started.elapsed();
    assert!(reply["ok"].is_object(), "{reply}");
    let count = frames.map_or(0, |f| f.try_iter().count());
    tuipilot(dir, &["-s", name, "exit"]);
    (took, count)
}

fn main() {
    let dir = format!("/tmp/tpbench-attach-{}", std::process::id());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    println!("latency, {ROUNDS} changes (a marker typed into cat), from the send:");
    for (name, apart, what) in [
        ("paced", Duration::from_millis(40), "40 ms apart"),
        ("tight", Duration::ZERO, "back to back"),
    ] {
        let (agent, watcher) = latency(&dir, name, apart);
        println!("  changes {what}:");
        println!(
            "    agent's own capture (send with a wait): median {:.2} ms   (baseline)",
            ms(agent)
        );
        println!(
            "    first frame at the watcher:             median {:.2} ms   ratio {:.2}×   within one frame (16 ms): {}",
            ms(watcher),
            ms(watcher) / ms(agent),
            if watcher <= Duration::from_millis(16) {
                "yes"
            } else {
                "no"
            }
        );
    }
    let (alone, _) = flood(&dir, "alone", false);
    let (watched, frames) = flood(&dir, "watched", true);
    println!("flood, seq 1 {FLOOD_LINES}, to its last line on the screen:");
    println!("  no watcher:  {:.0} ms   (baseline)", ms(alone));
    println!(
        "  one watcher: {:.0} ms   ratio {:.2}×   frames {} ({:.0} a second)",
        ms(watched),
        ms(watched) / ms(alone),
        frames,
        frames as f64 / watched.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
