//! The `protocol` target: the request-line parser of hosts and watch points on mutated valid requests.

use super::Rng;
use tuipilot::live::{lines, protocol};

const VALID_REQUESTS: &[&str] = &[
    r#"{"id":1,"op":"hello","version":1}"#,
    r#"{"id":2,"op":"send","actions":[{"text":"ls"},{"keys":"Enter"},{"sleep_ms":50},{"paste":"x"},{"bytes":[27,91,65]}],"wait":"\\$$","timeout_ms":5000,"capture":true}"#,
    r#"{"id":3,"op":"wait","condition":{"text":"done"},"timeout_ms":1000}"#,
    r#"{"id":3,"op":"wait","condition":"exit"}"#,
    r#"{"id":4,"op":"capture","wait":{"stable_ms":5},"ansi":true,"scrollback":false,"png":{"path":"/tmp/s.png","theme":"light","scale":2,"font_size":12.5,"fonts":["/a.ttf"]},"text":false}"#,
    r#"{"id":5,"op":"resize","cols":100,"rows":30}"#,
    r#"{"id":6,"op":"info"}"#,
    r#"{"id":7,"op":"exit","timeout_ms":2000}"#,
];

pub(super) fn protocol_input(rng: &mut Rng) -> Vec<u8> {
    let mut line = rng.pick::<&str>(VALID_REQUESTS).as_bytes().to_vec();
    for _ in 0..rng.below(6) {
        if line.is_empty() {
            break;
        }
        let at = rng.below(line.len());
        match rng.below(5) {
            0 => line[at] = rng.next() as u8,
            1 => {
                line.remove(at);
            }
            2 => line.insert(at, *rng.pick(b"{}[]\",:0123456789-eE.tfn\\u")),
            3 => {
                let piece = rng.pick::<&str>(VALID_REQUESTS).as_bytes();
                let from = rng.below(piece.len());
                let to = from + rng.below(piece.len() - from);
                line.splice(at..at, piece[from..to].iter().copied());
            }
            _ => line.truncate(at),
        }
    }
    line
}

pub(super) fn check_protocol(input: &[u8]) -> Result<(), String> {
    let (_, request) = protocol::parse_request(input);
    if let Ok(protocol::Request::Op(op)) = request {
        // A parsed operation must check without panicking, and round-trip.
        let _ = op.check();
        let line = protocol::request_line(1, &protocol::Request::Op(op.clone()));
        match protocol::parse_request(line.as_bytes()).1 {
            Ok(protocol::Request::Op(back)) if back == op => {}
            other => return Err(format!("{line} does not round-trip: {other:?}")),
        }
    }
    let mut reader = std::io::BufReader::with_capacity(7, input);
    while let Ok(lines::Line::Complete(_) | lines::Line::TooLong) = lines::read_line_limited(&mut reader, 64)
    {
    }
    Ok(())
}
