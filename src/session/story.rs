//! What a session did, kept small for a failed test's artefacts: the input it sent (as its
//! bytes in the recording, named by key in `keys.txt`; secret input by its length alone) and when each batch of
//! output arrived, so the raw output ring's bytes replay as an asciicast recording with
//! their times.
//!
//! Bounded like the ring it times: the newest [`MAX_INPUTS`] inputs, each by its first
//! [`MAX_INPUT_BYTES`], and [`MAX_MARKS`] batches; a recording of a ring that has dropped its start begins mid-stream, and says so.

use std::collections::VecDeque;
use std::time::Instant;

use super::OutputRing;
use crate::artifacts::WaitRecord;

/// The most inputs a story keeps.
const MAX_INPUTS: usize = 1000;
/// The most bytes of one input it keeps (a megabyte paste is kept by its start and length).
const MAX_INPUT_BYTES: usize = 256;

/// One input as kept: its first bytes and its length, or only the length of a secret.
enum Sent {
    Bytes(Vec<u8>, usize),
    Secret(usize),
}

impl Sent {
    /// The keys a person pressed (`describe_input`), or the secret's placeholder.
    fn words(&self) -> String {
        match self {
            Sent::Secret(len) => crate::operation::secret_placeholder(*len),
            Sent::Bytes(start, len) => {
                let keys = crate::keys::describe_input(&String::from_utf8_lossy(start)).join(" ");
                if *len > start.len() {
                    format!("{keys} ({len} bytes in all)")
                } else {
                    keys
                }
            }
        }
    }
}
/// The most output batches it keeps the times of.
const MAX_MARKS: usize = 20_000;

/// A resize: when (seconds since the start), to how many columns and rows.
type Resize = (f64, u16, u16);

/// The most waits a story keeps.
const MAX_WAITS: usize = 1000;

pub(crate) struct Story {
    started: Instant,
    /// The waits that held, newest last.
    waits: VecDeque<WaitRecord>,
    /// When (seconds since the start) and what was sent.
    inputs: VecDeque<(f64, Sent)>,
    /// For each batch of output: the ring offset it ended at, and when it was parsed.
    marks: VecDeque<(u64, f64)>,
    /// The size before the first resize, and each resize since.
    resizes: Option<((u16, u16), VecDeque<Resize>)>,
}

impl Story {
    /// An empty story whose times count from `started` (the session's zero, which its
    /// recording and operation log share).
    pub(crate) fn new(started: Instant) -> Story {
        Story {
            started,
            waits: VecDeque::new(),
            inputs: VecDeque::new(),
            marks: VecDeque::new(),
            resizes: None,
        }
    }

    /// When the story began: the zero of its times.
    pub(crate) fn started(&self) -> Instant {
        self.started
    }

    fn now(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Notes input sent: its first bytes (named as keys only when a test fails), or, for a
    /// secret, its length alone.
    pub(crate) fn note_input(&mut self, bytes: &[u8], secret: bool) {
        if self.inputs.len() == MAX_INPUTS {
            self.inputs.pop_front();
        }
        let sent = match secret {
            true => Sent::Secret(bytes.len()),
            false => Sent::Bytes(bytes[..bytes.len().min(MAX_INPUT_BYTES)].to_vec(), bytes.len()),
        };
        let now = self.now();
        self.inputs.push_back((now, sent));
    }

    /// Notes a wait that held: its baseline's time, when it began, what and why.
    pub(crate) fn note_wait(&mut self, since: Instant, began: Instant, label: String, why: String) {
        if self.waits.len() == MAX_WAITS {
            self.waits.pop_front();
        }
        let at = |t: Instant| t.saturating_duration_since(self.started).as_secs_f64();
        let record = WaitRecord {
            since: at(since),
            began: at(began),
            ended: self.now(),
            label,
            why,
        };
        self.waits.push_back(record);
    }

    /// The waits that held.
    pub(crate) fn waits(&self) -> Vec<WaitRecord> {
        self.waits.iter().cloned().collect()
    }

    /// Notes that output up to ring offset `end` is on the screen now.
    pub(crate) fn note_output(&mut self, end: u64) {
        if self.marks.len() == MAX_MARKS {
            self.marks.pop_front();
        }
        let now = self.now();
        self.marks.push_back((end, now));
    }

    /// Notes that the screen was resized from `before` to `after` (columns, rows).
    pub(crate) fn note_resize(&mut self, before: (u16, u16), after: (u16, u16)) {
        let now = self.now();
        let (_, resizes) = self.resizes.get_or_insert_with(|| (before, VecDeque::new()));
        if resizes.len() == MAX_INPUTS {
            resizes.pop_front();
        }
        resizes.push_back((now, after.0, after.1));
    }

    /// Each input's time (seconds since the start) and keys, as `keys.txt` names them.
    pub(crate) fn inputs(&self) -> Vec<(f64, String)> {
        self.inputs.iter().map(|(at, sent)| (*at, sent.words())).collect()
    }

    /// `keys.txt`: one input a line, with its time.
    pub(crate) fn keys(&self) -> String {
        if self.inputs.is_empty() {
            return "(no input was sent)\n".to_string();
        }
        let dropped = if self.inputs.len() == MAX_INPUTS {
            format!("(only the last {MAX_INPUTS} inputs are kept)\n")
        } else {
            String::new()
        };
        let lines: String = self
            .inputs
            .iter()
            .map(|(at, sent)| format!("{at:>9.3}s  {}\n", sent.words()))
            .collect();
        dropped + &lines
    }

    /// `recording.cast`: the output the ring holds, at the times it arrived, the input
    /// and the resizes, as asciicast v2 for a screen of `cols` × `rows` now.
    pub(crate) fn cast(&self, ring: &OutputRing, cols: u16, rows: u16) -> String {
        let (first, bytes) = ring.since(0);
        let title = if first > 0 {
            format!(
                "the session's last {} bytes of output (the first {first} were dropped)",
                bytes.len()
            )
        } else {
            "the session's output".to_string()
        };
        // The size it started at: the one before the first resize, if it was resized.
        let (width, height) = self.resizes.as_ref().map_or((cols, rows), |(first, _)| *first);
        let header = serde_json::json!({"version": 2, "width": width, "height": height, "title": title});
        let mut events: Vec<(f64, &str, String)> = Vec::new();
        let mut from = 0usize;
        for &(end, at) in &self.marks {
            let Some(end) = end.checked_sub(first).and_then(|e| usize::try_from(e).ok()) else {
                continue;
            };
            // Split where a character starts, so none is cut in two.
            let mut end = end.min(bytes.len());
            while end > from && end < bytes.len() && bytes[end] & 0xC0 == 0x80 {
                end -= 1;
            }
            if end > from {
                events.push((at, "o", String::from_utf8_lossy(&bytes[from..end]).into_owned()));
                from = end;
            }
        }
        if from < bytes.len() {
            let at = self.marks.back().map_or(0.0, |m| m.1);
            events.push((at, "o", String::from_utf8_lossy(&bytes[from..]).into_owned()));
        }
        // Input as the bytes sent (a player's keystroke overlay names the keys from them);
        // a secret as its placeholder only.
        events.extend(self.inputs.iter().map(|(at, sent)| {
            let data = match sent {
                Sent::Bytes(start, _) => String::from_utf8_lossy(start).into_owned(),
                Sent::Secret(_) => sent.words(),
            };
            (*at, "i", data)
        }));
        if let Some((_, resizes)) = &self.resizes {
            events.extend(resizes.iter().map(|&(at, c, r)| (at, "r", format!("{c}x{r}"))));
        }
        events.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut out = format!("{header}\n");
        for (at, code, data) in events {
            out.push_str(&serde_json::json!([(at * 1e6).round() / 1e6, code, data]).to_string());
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_input_is_kept_by_its_start_and_length_and_a_secret_by_its_length() {
        let mut story = Story::new(Instant::now());
        story.note_input(&vec![b'y'; 1 << 20], false);
        story.note_input(b"hunter2", true);
        story.note_input(b"\r", false);
        let keys = story.keys();
        let lines: Vec<&str> = keys.lines().map(|l| l.split_once("s  ").unwrap().1).collect();
        assert!(
            lines[0].starts_with("yyyy") && lines[0].ends_with(" (1048576 bytes in all)"),
            "{keys}"
        );
        assert_eq!(
            lines[1..],
            [crate::operation::secret_placeholder(7), "Enter".to_string()]
        );
        assert!(!keys.contains("hunter2"));
        assert!(matches!(&story.inputs[0].1, Sent::Bytes(kept, _) if kept.len() == MAX_INPUT_BYTES));
    }

    #[test]
    fn the_recording_holds_the_bytes_sent_and_keys_txt_their_names() {
        let mut story = Story::new(Instant::now());
        story.note_input(b"\x1b[A\x03", false);
        story.note_input(b"pw", true);
        let ring = OutputRing::new(1024);
        let cast = story.cast(&ring, 80, 24);
        let inputs: Vec<serde_json::Value> = cast
            .lines()
            .skip(1)
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|e: &serde_json::Value| e[1] == "i")
            .collect();
        assert_eq!(inputs[0][2], "\u{1b}[A\u{3}");
        assert_eq!(inputs[1][2], crate::operation::secret_placeholder(2));
        assert!(story.keys().contains("↑ Ctrl+C"), "{}", story.keys());
    }
}
