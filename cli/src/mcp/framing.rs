//! The MCP server's stdio framing: what reaches rmcp, and what a bad line gets back.
//!
//! rmcp drops a line that is not JSON, or longer than its limit, without a word; a
//! client then waits for an answer that never comes. This layer sits between stdio and
//! rmcp and answers such lines itself, as JSON-RPC says: `-32700` for a line that is not
//! JSON, `-32600` for one that is JSON but not a JSON-RPC message or is longer than
//! [`MAX_REQUEST`] — carrying the request's `id` even then, read by [`IdScanner`] as the
//! line streams past without being kept, so the client's call completes and the server's
//! memory stays where it was. Everything else passes through unchanged, and rmcp's output and these
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

/// Finds a JSON object's top-level `id` in a stream of bytes without keeping them: a JSON
/// tokenizer of a few states, fed every byte of an over-long line as it is read and
/// dropped. An `id` that is a string or a number of at most [`IdScanner::MOST`] bytes is
/// kept; anything else (no `id`, an `id` too long or of another kind) gives `null`.
#[derive(Default)]
pub struct IdScanner {
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// At the top level, the next string is a key.
    key_next: bool,
    /// The key being read (its first bytes), while one is.
    key: Option<Vec<u8>>,
    /// The key just read was `id`: its value follows the colon.
    id_key: bool,
    /// After `"id":`, the value's first byte is next.
    value_next: bool,
    /// The value being read, and whether it is a string.
    value: Option<(Vec<u8>, bool)>,
    /// What was found (`Some(Null)` once it is known that nothing will be).
    found: Option<Value>,
}

impl IdScanner {
    /// The longest `id` kept, in bytes.
    pub const MOST: usize = 256;

    /// Reads `bytes`, the next part of the line.
    pub fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.found.is_some() {
                return;
            }
            self.byte(b);
        }
    }

    /// The `id` found, `null` when there is none.
    pub fn id(&self) -> Value {
        self.found.clone().unwrap_or(Value::Null)
    }

    fn byte(&mut self, b: u8) {
        if let Some((value, string)) = &mut self.value {
            let ends = match *string {
                true => {
                    value.push(b);
                    let end = !self.escaped && b == b'"' && value.len() > 1;
                    self.escaped = !self.escaped && b == b'\\';
                    end
                }
                false => match b {
                    b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' => true,
                    _ => {
                        value.push(b);
                        false
                    }
                },
            };
            if value.len() > Self::MOST {
                self.found = Some(Value::Null);
            } else if ends {
                let id = serde_json::from_slice::<Value>(value)
                    .ok()
                    .filter(|v| v.is_string() || v.is_number());
                self.found = Some(id.unwrap_or(Value::Null));
            }
            return;
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if let Some(key) = self.key.take() {
                    self.id_key = key == b"id";
                }
                return;
            }
            if let Some(key) = &mut self.key
                && key.len() < 4
            {
                key.push(b);
            }
            return;
        }
        if self.value_next && !b.is_ascii_whitespace() {
            self.value_next = false;
            match b {
                b'"' => self.value = Some((vec![b], true)),
                b'{' | b'[' => self.found = Some(Value::Null),
                _ => self.value = Some((vec![b], false)),
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && std::mem::take(&mut self.key_next) {
                    self.key = Some(Vec::new());
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.key_next = self.depth == 1 && b == b'{';
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b',' if self.depth == 1 => self.key_next = true,
            b':' if self.depth == 1 && std::mem::take(&mut self.id_key) => self.value_next = true,
            _ => {}
        }
    }
}

/// Judges one line (without its newline). A line longer than [`MAX_REQUEST`] comes as
/// `too_long`, with the `id` read from it as it streamed past.
pub fn judge(line: &[u8], too_long: Option<Value>) -> Verdict {
    if let Some(id) = too_long {
        return Verdict::Reject(error(
            id,
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
/// line is consumed to its end without being kept, its `id` read on the way, and reported
/// as `(_, Some(id))`.
async fn read_line(
    input: &mut (impl AsyncBufReadExt + Unpin),
) -> std::io::Result<Option<(Vec<u8>, Option<Value>)>> {
    let mut line = Vec::new();
    let mut too_long: Option<IdScanner> = None;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            let end = (!line.is_empty() || too_long.is_some()).then(|| (line, too_long.map(|s| s.id())));
            return Ok(end);
        }
        let (chunk, used, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1, true),
            None => (available, available.len(), false),
        };
        match &mut too_long {
            Some(scanner) => scanner.feed(chunk),
            None if line.len() + chunk.len() > MAX_REQUEST => {
                let mut scanner = IdScanner::default();
                scanner.feed(&line);
                scanner.feed(chunk);
                too_long = Some(scanner);
                line = Vec::new();
            }
            None => line.extend_from_slice(chunk),
        }
        input.consume(used);
        if done {
            return Ok(Some((line, too_long.map(|s| s.id()))));
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
        assert_eq!(code(judge(b"not json", None)), -32700);
        assert_eq!(code(judge(b"{\"id\":3}", None)), -32600);
        assert_eq!(code(judge(b"[1,2]", None)), -32600);
        assert_eq!(code(judge(b"", Some(Value::Null))), -32600);
        assert_eq!(judge(b"  ", None), Verdict::Skip);
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None),
            Verdict::Pass
        );
        match judge(b"{\"jsonrpc\":\"1.0\",\"id\":7}", None) {
            Verdict::Reject(reply) => assert_eq!(reply["id"], 7),
            other => panic!("{other:?}"),
        }
    }

    /// The id the scanner finds in `line` fed in pieces of `step` bytes.
    fn scanned(line: &str, step: usize) -> Value {
        let mut scanner = IdScanner::default();
        for piece in line.as_bytes().chunks(step) {
            scanner.feed(piece);
        }
        scanner.id()
    }

    #[test]
    fn the_id_of_a_line_is_found_as_it_streams_past_wherever_it_stands() {
        for step in [1, 3, 4096] {
            assert_eq!(
                scanned(r#"{"jsonrpc":"2.0","id":5,"method":"x","params":{}}"#, step),
                json!(5)
            );
            // After the huge part, nested ids and strings holding `"id":` ignored.
            assert_eq!(
                scanned(
                    r#"{"params":{"id":1,"t":"\"id\":2"},"x":["id",{"id":3}], "id" : "a\"b" }"#,
                    step
                ),
                json!("a\"b")
            );
            assert_eq!(scanned(r#"{"idx":1,"id":-2.5e3}"#, step), json!(-2500.0));
            assert_eq!(scanned(r#"{"method":"x"}"#, step), Value::Null);
            assert_eq!(scanned(r#"{"id":{"a":1}}"#, step), Value::Null);
            assert_eq!(scanned(r#"{"id":null}"#, step), Value::Null);
            assert_eq!(
                scanned(&format!(r#"{{"id":"{}"}}"#, "x".repeat(300)), step),
                Value::Null
            );
            assert_eq!(scanned(r#"[{"id":1}]"#, step), Value::Null);
        }
    }
}
