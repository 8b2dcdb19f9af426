//! Reading a stream of JSON lines, each bounded: what the live view and the command
//! line's protocol read with, so no peer can make the reader hold more than a line.

use std::io::{self, BufRead};

/// The longest line a peer may send (a request, a person's input, a reply before the
/// host's `hello` says its own bound): 1 MiB.
pub const MAX_LINE: usize = 1 << 20;

/// One line read with a length limit.
#[derive(Debug, PartialEq, Eq)]
pub enum Line {
    /// A whole line, without its `\n` (the last line may lack one).
    Complete(Vec<u8>),
    /// A line longer than the limit: not kept.
    TooLong,
    /// The end of the stream, with nothing left.
    Eof,
}

/// Reads up to and including `\n`, refusing lines longer than `max` bytes without
/// buffering them.
pub fn read_line_limited(reader: &mut impl BufRead, max: usize) -> io::Result<Line> {
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(if line.is_empty() {
                Line::Eof
            } else {
                Line::Complete(line)
            });
        }
        // A plain search: lines here are short, and the `memchr` crate's first call probes
        // the CPU (CPUID), which costs tens of microseconds in a VM on every CLI call.
        let (chunk, done) = match available.iter().position(|&b| b == b'\n') {
            Some(i) => (&available[..i], i + 1),
            None => (available, available.len()),
        };
        if line.len() + chunk.len() > max {
            return Ok(Line::TooLong);
        }
        line.extend_from_slice(chunk);
        let found_newline = done > chunk.len();
        reader.consume(done);
        if found_newline {
            return Ok(Line::Complete(line));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_limited() {
        let mut input = io::Cursor::new(b"short\n0123456789abcdef\nlast".to_vec());
        let mut reader = io::BufReader::with_capacity(4, &mut input);
        assert_eq!(
            read_line_limited(&mut reader, 10).unwrap(),
            Line::Complete(b"short".to_vec())
        );
        assert_eq!(read_line_limited(&mut reader, 10).unwrap(), Line::TooLong);
        let mut reader = io::BufReader::new(io::Cursor::new(b"last".to_vec()));
        assert_eq!(
            read_line_limited(&mut reader, 10).unwrap(),
            Line::Complete(b"last".to_vec())
        );
        assert_eq!(read_line_limited(&mut reader, 10).unwrap(), Line::Eof);
    }
}
