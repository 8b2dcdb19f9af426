//! The raw output log: a bounded ring of the bytes the program wrote.
//!
//! Offsets are absolute (bytes since the program started), so a mark taken before some
//! input stays meaningful after the ring has wrapped; bytes older than the ring's
//! capacity are gone, which is what keeps a `yes` flood from growing memory.

use std::collections::VecDeque;

/// Default capacity of the raw output log (1 MiB).
pub const DEFAULT_LOG_CAPACITY: usize = 1 << 20;

pub(crate) struct OutputRing {
    buf: VecDeque<u8>,
    capacity: usize,
    total: u64,
}

impl OutputRing {
    pub(crate) fn new(capacity: usize) -> OutputRing {
        OutputRing {
            buf: VecDeque::with_capacity(capacity.min(64 * 1024)),
            capacity: capacity.max(1),
            total: 0,
        }
    }

    pub(crate) fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let keep = &bytes[bytes.len().saturating_sub(self.capacity)..];
        let overflow = (self.buf.len() + keep.len()).saturating_sub(self.capacity);
        self.buf.drain(..overflow);
        self.buf.extend(keep);
    }

    /// Bytes written since the program started (the offset of the next byte).
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The retained bytes from `offset` on, with the offset they actually start at
    /// (later than `offset` if the ring has dropped some of them).
    pub(crate) fn since(&self, offset: u64) -> (u64, Vec<u8>) {
        let first = self.total - self.buf.len() as u64;
        let start = offset.clamp(first, self.total);
        let skip = usize::try_from(start - first).unwrap_or(usize::MAX);
        (start, self.buf.iter().skip(skip).copied().collect())
    }

    /// How many bytes are held (never more than the capacity).
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_stays_bounded_and_offsets_stay_absolute() {
        let mut log = OutputRing::new(8);
        log.push(b"hello ");
        log.push(b"world!");
        assert_eq!(log.len(), 8);
        assert_eq!(log.total(), 12);
        assert_eq!(log.since(0), (4, b"o world!".to_vec()));
        assert_eq!(log.since(10), (10, b"d!".to_vec()));
        log.push(b"a much longer chunk than the ring");
        assert_eq!(log.len(), 8);
        assert_eq!(log.since(0).1, b"the ring".to_vec());
    }
}
