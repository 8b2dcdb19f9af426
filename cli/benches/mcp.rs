//! Latency of a `capture` call with image through the MCP round trip (client → stdio →
//! `tuipilot mcp` → PNG → base64 → client), 80×24, against rendering the same kind of
//! screen to PNG in-process in the same run.
//!
//! `cargo bench --bench mcp`

use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::json;

#[path = "../../benches/support/mod.rs"]
mod support;
use support::median;

const CALLS: usize = 100;

fn main() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"));
        cmd.arg("mcp");
        let client = ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap();
        let call = |args: serde_json::Value| {
            let params =
                CallToolRequestParams::new("terminal").with_arguments(args.as_object().unwrap().clone());
            client.call_tool(params)
        };
        call(
            json!({"action": "start", "command": ["sh", "-c", "ls -l /usr/bin | head -40; exec sleep 600"]}),
        )
        .await
        .unwrap();
        call(json!({"action": "wait", "stable_ms": 200})).await.unwrap();
        let mut with_image = Vec::new();
        let mut text_only = Vec::new();
        for _ in 0..CALLS {
            let start = Instant::now();
            let result = call(json!({"action": "capture"})).await.unwrap();
            with_image.push(start.elapsed());
            assert_eq!(result.content.len(), 3);
            let start = Instant::now();
            call(json!({"action": "capture", "image": false})).await.unwrap();
            text_only.push(start.elapsed());
        }
        // The same screen rendered in-process: the floor for the image part.
        let mut term = tuipilot::Terminal::new(80, 24).unwrap();
        let listing = std::process::Command::new("sh")
            .args(["-c", "ls -l /usr/bin | head -40"])
            .output()
            .unwrap()
            .stdout;
        term.process(
            &String::from_utf8_lossy(&listing)
                .replace('\n', "\r\n")
                .into_bytes(),
        );
        let snap = term.snapshot();
        let options = tuipilot::render::RenderOptions::default();
        let mut local = Vec::new();
        for _ in 0..CALLS {
            let start = Instant::now();
            std::hint::black_box(snap.to_png(&options).unwrap());
            local.push(start.elapsed());
        }
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!("MCP capture, 80x24, median of {CALLS}:");
        println!(
            "  in-process snapshot -> PNG (floor for the image): {:>6.2} ms",
            ms(median(local))
        );
        println!(
            "  capture without image, MCP round trip:          {:>6.2} ms",
            ms(median(text_only))
        );
        println!(
            "  capture with image, MCP round trip:             {:>6.2} ms (target < 15 ms)",
            ms(median(with_image))
        );
        call(json!({"action": "exit"})).await.unwrap();
        client.cancel().await.unwrap();
    });
}
