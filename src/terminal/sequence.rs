//! What the gap layer and the query responder both speak: parsed CSI sequences, the
//! kinds of control strings, and the modes the layer emulates.
//!
//! Both [`super::gaps`] and [`super::respond`] import from here and not from each other,
//! so the tokenizer and the replies stay separate files with no cycle between them.

use crate::keys::mouse::MouseModes;

/// Terminal modes the gap layer emulates or keeps because `vt100` does not (the responder
/// reports them to DECRQM and the kitty keyboard query; key and mouse encoding read them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EmulatedModes {
    /// IRM, `CSI 4 h`.
    pub insert: bool,
    /// DECAWM, `CSI ? 7 h` (on by default).
    pub autowrap: bool,
    /// Mouse tracking (9, 1000, 1002, 1003) and encoding (1005, 1006, 1015, 1016).
    pub mouse: MouseModes,
    /// Focus events, `CSI ? 1004 h`.
    pub focus_events: bool,
    /// xterm's modifyOtherKeys level, `CSI > 4 ; n m`.
    pub modify_other_keys: u8,
    /// Grapheme-cluster widths, `CSI ? 2027 h` (see `clusters`).
    pub grapheme_clusters: bool,
    /// Synchronized output, `CSI ? 2026 h`: an update is being drawn (see
    /// [`Terminal`](crate::Terminal)'s frame hold).
    pub synchronized: bool,
    /// The kitty keyboard protocol's flag stacks.
    pub kitty: KittyStacks,
    /// Origin mode (DECOM), with the top margin rows are then counted from (0-based);
    /// `None` when it is off.
    pub origin: Option<u16>,
    /// Reverse video for the whole screen, DECSCNM (`CSI ? 5 h`; terminfo's `flash`).
    pub reverse_screen: bool,
    /// Newline mode, LNM (`CSI 20 h`): LF, VT and FF also return the carriage, and
    /// Return sends CR LF.
    pub newline: bool,
}

impl Default for EmulatedModes {
    fn default() -> Self {
        EmulatedModes {
            insert: false,
            autowrap: true,
            mouse: MouseModes::default(),
            focus_events: false,
            modify_other_keys: 0,
            grapheme_clusters: false,
            synchronized: false,
            kitty: KittyStacks::default(),
            origin: None,
            reverse_screen: false,
            newline: false,
        }
    }
}

/// How many kitty keyboard entries a screen's stack keeps; a push beyond drops the oldest,
/// as kitty does, so a program cannot grow it without bound.
const KITTY_DEPTH: usize = 16;

/// The kitty keyboard protocol's flags: one stack for the main screen and one for the
/// alternate screen, each with a bottom entry that `CSI = flags ; mode u` sets when
/// nothing was pushed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct KittyStacks {
    stacks: [KittyStack; 2],
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct KittyStack {
    entries: [u8; KITTY_DEPTH + 1],
    depth: usize,
}

/// The flags the protocol defines (disambiguate, event types, alternate keys, all keys as
/// escape codes, associated text); other bits are ignored.
const KITTY_FLAGS: u8 = 0b1_1111;

impl KittyStacks {
    fn stack(&mut self, alternate: bool) -> &mut KittyStack {
        &mut self.stacks[usize::from(alternate)]
    }

    /// The flags in force on the main or the alternate screen.
    pub(crate) fn flags(&self, alternate: bool) -> u8 {
        let stack = &self.stacks[usize::from(alternate)];
        stack.entries[stack.depth]
    }

    /// `CSI > flags u`.
    pub(crate) fn push(&mut self, alternate: bool, flags: u8) {
        let stack = self.stack(alternate);
        if stack.depth == KITTY_DEPTH {
            stack.entries.copy_within(2.., 1);
        } else {
            stack.depth += 1;
        }
        stack.entries[stack.depth] = flags & KITTY_FLAGS;
    }

    /// `CSI < n u`: popping everything resets the flags.
    pub(crate) fn pop(&mut self, alternate: bool, n: usize) {
        let stack = self.stack(alternate);
        if n >= stack.depth {
            *stack = KittyStack::default();
        } else {
            stack.depth -= n;
        }
    }

    /// `CSI = flags ; mode u`: mode 1 sets the flags, 2 adds them, 3 removes them.
    pub(crate) fn set(&mut self, alternate: bool, flags: u8, mode: u16) {
        let stack = self.stack(alternate);
        let top = &mut stack.entries[stack.depth];
        let flags = flags & KITTY_FLAGS;
        match mode {
            2 => *top |= flags,
            3 => *top &= !flags,
            _ => *top = flags,
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
    /// APC: `ESC _` (kitty graphics).
    Apc,
    /// SOS and PM: skipped.
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
