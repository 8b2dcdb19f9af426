//! The MCP server's stdio framing: what reaches rmcp, and what a bad line gets back.
//!
//! rmcp drops a line that is not JSON, or longer than its limit, without a word; a
//! client then waits for an answer that never comes. This layer sits between stdio and
//! rmcp and answers such lines itself, as JSON-RPC says: `-32700` for a line that is not
//! JSON, `-32600` for one that is JSON but not a JSON-RPC message or is longer than
//! [`MAX_REQUEST`]. Everything else passes through unchanged, and rmcp's output and these
//! answers are written to stdout whole lines at a time, never interleaved.

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// The longest request line accepted (4 MiB); a longer one gets a `-32600` error.
pub const MAX_REQUEST: usize = 4 << 20;

/// What to do with one incoming line.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// A JSON-RPC message: hand it to rmcp.
    Pass,
    /// Nothing to answer (a blank line).
    Skip,
    /// Answer with this error instead.
    Reject(Value),
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

/// Judges one line (without its newline). `too_long` lines were cut at [`MAX_REQUEST`].
pub fn judge(line: &[u8], too_long: bool) -> Verdict {
    if too_long {
        return Verdict::Reject(error(
            Value::Null,
            -32600,
            format!(
                "request longer than {} MiB: send smaller requests (split long text over several sends)",
                MAX_REQUEST >> 20
            ),
        ));
    }
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return Verdict::Reject(error(Value::Null, -32700, format!("Parse error: {e}"))),
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let is_message = value.get("jsonrpc").and_then(Value::as_str) == Some("2.0")
        && ["method", "result", "error"]
            .iter()
            .any(|k| value.get(k).is_some());
    if is_message {
        Verdict::Pass
    } else {
        Verdict::Reject(error(
            id,
            -32600,
            "Invalid Request: expected a JSON-RPC 2.0 object with `jsonrpc` and `method` (or `result`/`error`)".into(),
        ))
    }
}

/// Reads one line of at most [`MAX_REQUEST`] bytes; `None` at end of input. An over-long
/// line is consumed to its end without being kept and reported as `(_, true)`.
async fn read_line(input: &mut (impl AsyncBufReadExt + Unpin)) -> std::io::Result<Option<(Vec<u8>, bool)>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok((!line.is_empty() || too_long).then_some((line, too_long)));
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        if !too_long {
            if line.len() + chunk.len() > MAX_REQUEST {
                too_long = true;
                line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        input.consume(used);
        if done {
            return Ok(Some((line, too_long)));
        }
    }
}

/// Puts the framing between `input`/`output` (stdio) and rmcp; returns the two ends rmcp
/// serves on. Runs on the current tokio runtime.
pub fn frame(
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
) -> (DuplexStream, DuplexStream) {
    let (mut to_rmcp, rmcp_reads) = tokio::io::duplex(1 << 16);
    let (rmcp_writes, from_rmcp) = tokio::io::duplex(1 << 16);
    let (answers, mut answered) = mpsc::unbounded_channel::<Value>();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Ok(Some((line, too_long))) = read_line(&mut input).await {
            match judge(&line, too_long) {
                Verdict::Pass => {
                    let mut framed = line;
                    framed.push(b'\n');
                    if to_rmcp.write_all(&framed).await.is_err() {
                        break;
                    }
                }
                Verdict::Skip => {}
                Verdict::Reject(reply) => {
                    let _ = answers.send(reply);
                }
            }
        }
        // Dropping `to_rmcp` is rmcp's end of input: the service stops.
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(from_rmcp).lines();
        loop {
            let line = tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                Some(reply) = answered.recv() => reply.to_string(),
            };
            let framed = format!("{line}\n");
            if output.write_all(framed.as_bytes()).await.is_err() || output.flush().await.is_err() {
                break;
            }
        }
    });
    (rmcp_reads, rmcp_writes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_get_json_rpc_errors() {
        let code = |v: Verdict| match v {
            Verdict::Reject(reply) => reply["error"]["code"].as_i64().unwrap(),
            other => panic!("{other:?}"),
        };
        assert_eq!(code(judge(b"not json", false)), -32700);
        assert_eq!(code(judge(b"{\"id\":3}", false)), -32600);
        assert_eq!(code(judge(b"[1,2]", false)), -32600);
        assert_eq!(code(judge(b"", true)), -32600);
        assert_eq!(judge(b"  ", false), Verdict::Skip);
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, false),
            Verdict::Pass
        );
        match judge(b"{\"jsonrpc\":\"1.0\",\"id\":7}", false) {
            Verdict::Reject(reply) => assert_eq!(reply["id"], 7),
            other => panic!("{other:?}"),
        }
    }
}
