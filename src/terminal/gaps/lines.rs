//! Double-width and double-height lines — DECDWL (`ESC # 6`), DECDHL (`ESC # 3` top half,
//! `ESC # 4` bottom half), DECSWL (`ESC # 5`) — which vt100 ignores: the size of each row
//! of each screen, kept here and moved with the rows when they scroll, are inserted or
//! deleted; a row fully erased, RIS, DECALN and a resize make rows single again. The text
//! grid is unchanged (one character a cell, as in xterm's); pictures draw the rows
//! double (see `render`).

pub use crate::snapshot::LineSize;

/// The row sizes of both screens.
#[derive(Clone, Debug, Default)]
pub(super) struct LineSizes {
    screens: [Vec<LineSize>; 2],
    /// Per screen, whether any row is not single size: asked before every run of text,
    /// so kept up to date by each change rather than found by a walk over the rows.
    doubled: [bool; 2],
}

impl LineSizes {
    fn rows(&mut self, alternate: bool) -> &mut Vec<LineSize> {
        &mut self.screens[usize::from(alternate)]
    }

    /// Whether any row of the current screen is not single size (then line feeds are
    /// watched, to move the sizes with the rows).
    pub(super) fn any(&self, alternate: bool) -> bool {
        self.doubled[usize::from(alternate)]
    }

    /// After a change to a screen's sizes: whether any row is still not single size.
    fn settle(&mut self, alternate: bool) {
        let screen = usize::from(alternate);
        self.doubled[screen] = self.screens[screen].iter().any(|s| *s != LineSize::Single);
    }

    /// The sizes of the current screen's `rows` rows.
    pub(crate) fn current(&self, alternate: bool, rows: u16) -> Vec<LineSize> {
        let mut sizes = self.screens[usize::from(alternate)].clone();
        sizes.resize(usize::from(rows), LineSize::Single);
        sizes
    }

    /// The screen has `rows` rows: on a change, every row single again.
    pub(super) fn sized(&mut self, rows: u16) {
        for (screen, doubled) in self.screens.iter_mut().zip(&mut self.doubled) {
            if screen.len() != usize::from(rows) {
                *screen = vec![LineSize::Single; usize::from(rows)];
                *doubled = false;
            }
        }
    }

    /// DECDWL, DECDHL or DECSWL on the cursor's row.
    pub(super) fn set(&mut self, alternate: bool, row: u16, size: LineSize) {
        if let Some(slot) = self.rows(alternate).get_mut(usize::from(row)) {
            *slot = size;
        }
        self.settle(alternate);
    }

    /// Rows `first..=last` erased whole (or brought in blank): single size.
    pub(super) fn clear(&mut self, alternate: bool, first: u16, last: u16) {
        let rows = self.rows(alternate);
        let end = usize::from(last).min(rows.len().saturating_sub(1));
        for slot in rows.iter_mut().take(end + 1).skip(usize::from(first)) {
            *slot = LineSize::Single;
        }
        self.settle(alternate);
    }

    /// Rows `top..=bottom` moved up `n` (scrolling up, a line deleted at `top`).
    pub(super) fn shift_up(&mut self, alternate: bool, top: u16, bottom: u16, n: u16) {
        if let Some((rows, n)) = self.region(alternate, top, bottom, n) {
            rows.rotate_left(n);
            let len = rows.len();
            rows[len - n..].fill(LineSize::Single);
        }
        self.settle(alternate);
    }

    /// Rows `top..=bottom` moved down `n` (scrolling down, a line inserted at `top`).
    pub(super) fn shift_down(&mut self, alternate: bool, top: u16, bottom: u16, n: u16) {
        if let Some((rows, n)) = self.region(alternate, top, bottom, n) {
            rows.rotate_right(n);
            rows[..n].fill(LineSize::Single);
        }
        self.settle(alternate);
    }

    /// The sizes of rows `top..=bottom` (clipped to the screen) and `n` clipped to them.
    fn region(&mut self, alternate: bool, top: u16, bottom: u16, n: u16) -> Option<(&mut [LineSize], usize)> {
        let rows = self.rows(alternate);
        let (top, bottom) = (
            usize::from(top),
            usize::from(bottom).min(rows.len().checked_sub(1)?),
        );
        let region = rows.get_mut(top..=bottom)?;
        let n = usize::from(n).min(region.len());
        Some((region, n))
    }

    /// RIS, DECALN, or entering the alternate screen with 1049: every row single.
    pub(super) fn reset(&mut self, alternate: bool) {
        self.rows(alternate).fill(LineSize::Single);
        self.doubled[usize::from(alternate)] = false;
    }
}
