//! `tuipilot mcp` on raw pipes, for what an SDK client would never send: malformed
//! JSON-RPC lines, oversized requests and patterns.

use serde_json::{Value, json};

/// `tuipilot mcp` on raw pipes, for what an SDK client would never send.
struct RawServer {
    child: std::process::Child,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl RawServer {
    fn start() -> RawServer {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"))
            .arg("mcp")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        RawServer { child, lines }
    }

    fn send(&mut self, bytes: &[u8]) -> Value {
        use std::io::Write;
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
        let line = self.lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

#[test]
fn bad_json_rpc_lines_get_errors_not_silence() {
    let mut server = RawServer::start();
    let parse = server.send(b"this is not json\n");
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    let mut huge = br#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 5 << 20));
    huge.extend_from_slice(b"\"}}\n");
    let oversized = server.send(&huge);
    assert_eq!(oversized["error"]["code"], -32600, "{oversized}");
    assert!(oversized["error"]["message"].as_str().unwrap().contains("4 MiB"));
    // Fails on the code before: the reply had no id, and the client's call never ended.
    assert_eq!(
        oversized["id"], 5,
        "the reply carries the request's id: {oversized}"
    );
    // An id after the huge part is found too.
    let mut huge = br#"{"jsonrpc":"2.0","method":"ping","params":{"x":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 5 << 20));
    huge.extend_from_slice(b"\"},\"id\":\"late\"}\n");
    assert_eq!(server.send(&huge)["id"], "late");
    let init = server.send(
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
"#,
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "tuipilot", "{init}");
    assert_eq!(init["result"]["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
}

/// The most memory the process `pid` has held (its high-water mark), in MiB.
fn peak_mib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() >> 10
}

// Fails on the code before: the pattern was compiled, taking the server to a gigabyte for
// seconds before "invalid regex", and it kept most of it.
#[test]
fn a_pattern_of_megabytes_is_refused_at_once_and_the_server_stays_small() {
    let mut server = RawServer::start();
    let init = server.send(
        br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}
"#,
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "tuipilot", "{init}");
    {
        use std::io::Write;
        let stdin = server.child.stdin.as_mut().unwrap();
        stdin
            .write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n")
            .unwrap();
    }
    let call = |id: u64, arguments: Value| {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "terminal", "arguments": arguments}});
        format!("{request}\n").into_bytes()
    };
    let started = server.send(&call(
        2,
        json!({"action": "start", "session": "big", "command": "cat"}),
    ));
    assert_eq!(started["result"]["isError"], false, "{started}");
    let pattern = "(a|b)*c".repeat(3_900_000 / 7);
    let before = std::time::Instant::now();
    let refused = server.send(&call(
        3,
        json!({"action": "wait", "session": "big", "wait_pattern": pattern}),
    ));
    let took = before.elapsed();
    assert_eq!(
        refused["id"],
        3,
        "{}",
        &refused.to_string()[..300.min(refused.to_string().len())]
    );
    assert_eq!(refused["result"]["isError"], true);
    let said = refused["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        said.contains("the longest pattern taken is 65536 bytes"),
        "{said}"
    );
    assert!(
        said.len() < 600,
        "one line naming the pattern's start, not the pattern: {said}"
    );
    let peak = peak_mib(server.child.id());
    assert!(peak < 50, "the server's memory peaked at {peak} MiB");
    assert!(took < std::time::Duration::from_secs(5), "refused after {took:?}");
    let ended = server.send(&call(4, json!({"action": "exit", "session": "big"})));
    assert_eq!(ended["result"]["isError"], false, "{ended}");
}
