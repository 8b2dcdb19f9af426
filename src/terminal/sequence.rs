//! What the gap layer and the query responder both speak: parsed CSI sequences, the
//! kinds of control strings, and the modes the layer emulates.
//!
//! Both [`super::gaps`] and [`super::respond`] import from here and not from each other,
//! so the tokenizer and the replies stay separate files with no cycle between them.

/// Terminal modes the gap layer emulates because `vt100` does not (the responder reports
/// them to DECRQM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EmulatedModes {
    /// IRM, `CSI 4 h`.
    pub insert: bool,
    /// DECAWM, `CSI ? 7 h` (on by default).
    pub autowrap: bool,
}

impl Default for EmulatedModes {
    fn default() -> Self {
        EmulatedModes {
            insert: false,
            autowrap: true,
        }
    }
}

/// The kind of a control string (`ESC ] … ST`, `ESC P … ST`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StrKind {
    /// OSC: `ESC ]`.
    Osc,
    /// DCS: `ESC P`.
    Dcs,
    /// SOS, PM and APC: skipped.
    Other,
}

/// A parsed CSI sequence (`ESC [ marker? params intermediates final`).
pub(crate) struct Csi<'a> {
    pub marker: Option<u8>,
    pub params: &'a [u8],
    pub intermediates: &'a [u8],
    pub final_byte: u8,
}

impl<'a> Csi<'a> {
    pub(crate) fn parse(seq: &'a [u8]) -> Option<Csi<'a>> {
        let body = seq.strip_prefix(b"\x1b[")?;
        let (&final_byte, body) = body.split_last()?;
        if !(0x40..=0x7e).contains(&final_byte) {
            return None;
        }
        let (marker, body) = match body.first() {
            Some(&m @ (b'<' | b'=' | b'>' | b'?')) => (Some(m), &body[1..]),
            _ => (None, body),
        };
        let split = body
            .iter()
            .position(|b| (0x20..=0x2f).contains(b))
            .unwrap_or(body.len());
        let (params, intermediates) = body.split_at(split);
        let valid = params.iter().all(|b| (0x30..=0x3f).contains(b))
            && intermediates.iter().all(|b| (0x20..=0x2f).contains(b));
        valid.then_some(Csi {
            marker,
            params,
            intermediates,
            final_byte,
        })
    }

    /// The numeric parameters (first sub-parameter of each); `None` for an empty one.
    pub(crate) fn numbers(&self) -> Vec<Option<u16>> {
        if self.params.is_empty() {
            return Vec::new();
        }
        self.params
            .split(|&b| b == b';')
            .map(|p| {
                let first = p.split(|&b| b == b':').next().unwrap_or_default();
                std::str::from_utf8(first).ok().and_then(|s| s.parse().ok())
            })
            .collect()
    }
}
