//! The modes and limits the gap layer keeps for vt100: DECSET/DECRST of the modes it
//! emulates or tracks itself (autowrap, 1047/1048, mouse, focus, modes 2026 and 2027), and the
//! budget that bounds REP.

use super::{Action, GapLayer, REP_CELLS_PER_BYTE};
use crate::terminal::params::ExtraStyle;
use crate::terminal::sequence::Csi;

impl GapLayer {
    pub(super) fn area(&self) -> u64 {
        u64::from(self.size.0) * u64::from(self.size.1)
    }

    /// How many times REP may repeat: past a full screen, only the remainder modulo a row
    /// matters (the screen is all that character and the cursor ends in the same column),
    /// as xterm clips it; and a stream of REPs may not draw more than
    /// [`REP_CELLS_PER_BYTE`] cells per byte of output beyond a two-screen burst. Only
    /// output built to burn CPU ever meets the second limit: a program's REP covers at most
    /// one row per sequence.
    pub(super) fn repeat_count(&mut self, asked: u64) -> u64 {
        let (area, cols) = (self.area(), u64::from(self.size.1.max(1)));
        let earned = REP_CELLS_PER_BYTE.saturating_mul(self.here - self.rep_earned_at);
        self.rep_earned_at = self.here;
        self.rep_budget = self.rep_budget.saturating_add(earned).min(2 * area);
        let clipped = if asked > area {
            area + (asked - area) % cols
        } else {
            asked
        };
        let allowed = clipped.min(self.rep_budget);
        self.rep_budget -= allowed;
        allowed
    }

    /// DECALN (`ESC # 8`) as xterm does it: origin mode off, the SGR attributes reset, the
    /// margins reset, the screen filled with `E` and the cursor home. The fill is bounded
    /// by REP's budget: three bytes may not buy a screenful of work over and over.
    pub(super) fn alignment_pattern(&mut self) -> Vec<u8> {
        let (rows, cols) = (self.size.0, u64::from(self.size.1));
        self.style = ExtraStyle::default();
        self.coloured_background = false;
        self.margins.set_origin(false);
        self.margins.set_region(None, None);
        self.lines.reset(self.margins.alternate());
        let mut left = self.repeat_count(self.area());
        let mut out = b"\x1b[?6l\x1b[0m\x1b[r".to_vec();
        for row in 1..=rows {
            if left == 0 {
                break;
            }
            let cells = left.min(cols);
            out.extend_from_slice(format!("\x1b[{row};1H").as_bytes());
            out.resize(out.len() + cells as usize, b'E');
            left -= cells;
        }
        out.extend_from_slice(b"\x1b[H");
        out
    }

    /// DECSET/DECRST: emulates 7, 1047 and 1048; keeps the mouse and focus modes (which
    /// vt100 tracks only in part: not 1004, 1015 or 1016); passes the rest on to vt100.
    pub(super) fn private_modes(&mut self, csi: &Csi<'_>, set: bool) -> Action {
        use crate::keys::mouse::{MouseEncoding, MouseTracking};
        let mut out = Vec::new();
        let mut kept = Vec::new();
        for number in csi.numbers() {
            let mouse = &mut self.modes.mouse;
            if let Some(tracking) = number.and_then(MouseTracking::from_mode) {
                // One tracking mode at a time; resetting the one in force turns it off.
                if set {
                    mouse.tracking = tracking;
                } else if mouse.tracking == tracking {
                    mouse.tracking = MouseTracking::Off;
                }
            } else if let Some(encoding) = number.and_then(MouseEncoding::from_mode) {
                if set {
                    mouse.encoding = encoding;
                } else if mouse.encoding == encoding {
                    mouse.encoding = MouseEncoding::X10;
                }
            } else if number == Some(5) {
                self.modes.reverse_screen = set;
            } else if number == Some(1004) {
                self.modes.focus_events = set;
            } else if number == Some(2027) {
                self.modes.grapheme_clusters = set;
            } else if number == Some(2026) {
                self.modes.synchronized = set;
            }
            // 1049 saves and restores the cursor as DECSC and DECRC do (vt100 does its part),
            // on the main screen: saved before switching, restored after.
            match (number, set) {
                (Some(6), _) => self.margins.set_origin(set),
                (Some(47 | 1047), _) => self.margins.switch(set, false),
                (Some(1048), true) => self.save_cursor(),
                (Some(1048), false) => self.restore_cursor(),
                (Some(1049), true) => {
                    self.save_cursor();
                    self.margins.switch(true, true);
                    self.lines.reset(true);
                }
                (Some(1049), false) => {
                    self.margins.switch(false, false);
                    self.restore_cursor();
                }
                _ => {}
            }
            match (number, set) {
                (Some(7), _) => self.modes.autowrap = set,
                // vt100 has no reverse screen: kept here only.
                (Some(5), _) => {}
                (Some(1047), true) => out.extend_from_slice(b"\x1b[?47h\x1b[2J"),
                (Some(1047), false) => out.extend_from_slice(b"\x1b[?47l"),
                (Some(1048), true) => out.extend_from_slice(b"\x1b7"),
                (Some(1048), false) => out.extend_from_slice(b"\x1b8"),
                (n, _) => kept.push(n.unwrap_or(0).to_string()),
            }
        }
        if kept.len() == csi.numbers().len() {
            return Action::Pass;
        }
        if !kept.is_empty() {
            out.extend_from_slice(
                format!("\x1b[?{}{}", kept.join(";"), if set { 'h' } else { 'l' }).as_bytes(),
            );
        }
        Action::Replace(out)
    }
}
