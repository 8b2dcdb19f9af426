//! An rmcp client for `tuipilot mcp` over a child process's stdio, for the MCP tests.

#![allow(dead_code)]

use base64::Engine;
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub type Client = RunningService<RoleClient, ()>;

pub async fn connect(extra: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"));
    cmd.arg("mcp").args(extra);
    ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap()
}

/// A server whose sessions made watchable (`attach`) go into the runtime directory `dir`.
pub async fn connect_in(dir: &std::path::Path, extra: &[&str]) -> Client {
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_tuipilot"));
    cmd.arg("mcp").args(extra).env("TUIPILOT_DIR", dir);
    ().serve(TokioChildProcess::new(cmd).unwrap()).await.unwrap()
}

pub async fn call(client: &Client, args: Value) -> CallToolResult {
    let params = CallToolRequestParams::new("terminal").with_arguments(args.as_object().unwrap().clone());
    client.call_tool(params).await.unwrap()
}

pub fn texts(result: &CallToolResult) -> Vec<String> {
    result
        .content
        .iter()
        .filter_map(|c| match c {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

pub fn image(result: &CallToolResult) -> Option<Vec<u8>> {
    result.content.iter().find_map(|c| match c {
        ContentBlock::Image(i) => {
            assert_eq!(i.mime_type, "image/png");
            Some(base64::engine::general_purpose::STANDARD.decode(&i.data).unwrap())
        }
        _ => None,
    })
}

pub fn is_error(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
}

/// The error code of an error result (`bad_request`, `timeout`, …).
pub fn error_code(result: &CallToolResult) -> String {
    assert!(is_error(result), "not an error: {:?}", texts(result));
    result.structured_content.as_ref().expect("structured error")["error"]["code"]
        .as_str()
        .expect("an error code")
        .to_string()
}
