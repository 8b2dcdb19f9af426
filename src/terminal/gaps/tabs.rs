//! Tab stops, which vt100 fixes at every eighth column: set by HTS (`ESC H`), cleared by
//! TBC (`CSI g`, `CSI 3 g`) — what `tabs -4` and `tput init` send — and used by HT, CHT
//! (`CSI n I`) forward and CBT (`CSI n Z`, back-tab, which vt100 ignores) back.
//!
//! While the stops are the default ones, HT goes to vt100 untouched; once a program sets
//! its own, each HT in the output becomes a move to the next of them.

use std::collections::BTreeSet;

/// Columns past which no stop is kept: the widest screen.
const MAX_COLS: u16 = crate::terminal::MAX_SIZE;

/// What a tab control does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TabControl {
    /// HTS: a stop at the cursor's column.
    Set,
    /// TBC 0: no stop at the cursor's column.
    Clear,
    /// TBC 3: no stops at all.
    ClearAll,
    /// CHT: to the n-th stop after the cursor (HT is one).
    Forward(u16),
    /// CBT: to the n-th stop before the cursor.
    Back(u16),
}

/// The stops: `None` while they are the default ones, every eighth column.
#[derive(Clone, Debug, Default)]
pub(super) struct TabStops {
    custom: Option<BTreeSet<u16>>,
}

impl TabStops {
    /// Whether HT needs moving by hand (vt100 knows only the default stops).
    pub(super) fn custom(&self) -> bool {
        self.custom.is_some()
    }

    /// RIS.
    pub(super) fn reset(&mut self) {
        self.custom = None;
    }

    fn defaults() -> BTreeSet<u16> {
        (8..MAX_COLS).step_by(8).collect()
    }

    fn is_stop(&self, col: u16) -> bool {
        match &self.custom {
            None => col > 0 && col.is_multiple_of(8),
            Some(stops) => stops.contains(&col),
        }
    }

    /// Applies `control` with the cursor at `col` of a row `cols` wide; the column to move
    /// the cursor to, if it moves.
    pub(super) fn apply(&mut self, control: TabControl, col: u16, cols: u16) -> Option<u16> {
        let last = cols.saturating_sub(1);
        let col = col.min(last);
        match control {
            TabControl::Set | TabControl::Clear | TabControl::ClearAll => {
                let stops = self.custom.get_or_insert_with(TabStops::defaults);
                match control {
                    TabControl::Set => stops.insert(col),
                    TabControl::Clear => stops.remove(&col),
                    _ => {
                        stops.clear();
                        true
                    }
                };
                if *stops == TabStops::defaults() {
                    self.custom = None;
                }
                None
            }
            TabControl::Forward(n) => {
                let mut to = col;
                // At the last column there is nowhere further: a count of 65535 costs no
                // more than the stops on one row.
                for _ in 0..n.max(1) {
                    if to == last {
                        break;
                    }
                    to = (to + 1..last).find(|c| self.is_stop(*c)).unwrap_or(last);
                }
                Some(to)
            }
            TabControl::Back(n) => {
                let mut to = col;
                for _ in 0..n.max(1) {
                    if to == 0 {
                        break;
                    }
                    to = (1..to).rev().find(|c| self.is_stop(*c)).unwrap_or(0);
                }
                Some(to)
            }
        }
    }
}
