//! The scrolling margins (DECSTBM) and origin mode (DECOM), which vt100 applies but does
//! not show, mirrored here from the stream the way vt100 keeps them: one set for each
//! screen, main and alternate; origin mode saved by DECSC and restored by DECRC; the
//! margins reset by a resize, everything by RIS and by entering the alternate screen with
//! 1049 (which clears it).
//!
//! What reads them: the cursor position report, which counts rows from the top margin in
//! origin mode; DECSTBM, after which the cursor is at the screen's top-left corner outside
//! origin mode (vt100 puts it at the top margin); line insert and delete, which end in
//! column 1 only inside the margins; and DECALN, which resets them.

/// One screen's margins and origin mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Margins {
    /// The top margin, 0-based.
    pub top: u16,
    /// The bottom margin, 0-based and inclusive.
    pub bottom: u16,
    /// Origin mode: rows are counted from the top margin, the cursor kept inside them.
    pub origin: bool,
    /// Origin mode as DECSC saved it.
    saved_origin: bool,
}

impl Margins {
    /// The whole screen of `rows` rows, origin mode off.
    fn full(rows: u16) -> Margins {
        Margins {
            top: 0,
            bottom: rows.saturating_sub(1),
            origin: false,
            saved_origin: false,
        }
    }

    /// Whether `row` (0-based) lies between the margins.
    pub(crate) fn holds(&self, row: u16) -> bool {
        (self.top..=self.bottom).contains(&row)
    }
}

/// The margins of both screens, and which screen is current.
#[derive(Clone, Copy, Debug)]
pub(super) struct ScreenMargins {
    screens: [Margins; 2],
    alternate: bool,
    rows: u16,
}

impl ScreenMargins {
    pub(super) fn new() -> ScreenMargins {
        ScreenMargins {
            screens: [Margins::full(0); 2],
            alternate: false,
            rows: 0,
        }
    }

    /// Whether the alternate screen is the current one.
    pub(super) fn alternate(&self) -> bool {
        self.alternate
    }

    /// The current screen's margins.
    pub(super) fn current(&self) -> Margins {
        self.screens[usize::from(self.alternate)]
    }

    fn current_mut(&mut self) -> &mut Margins {
        &mut self.screens[usize::from(self.alternate)]
    }

    /// The screen has `rows` rows: a change of height resets both screens' margins (origin
    /// mode stays), as vt100 and xterm do.
    pub(super) fn sized(&mut self, rows: u16) {
        if rows != self.rows {
            self.rows = rows;
            for margins in &mut self.screens {
                margins.top = 0;
                margins.bottom = rows.saturating_sub(1);
            }
        }
    }

    /// DECSTBM's parameters as vt100 reads them (1-based; 0 or missing: the defaults): a
    /// region of less than two rows resets the margins.
    pub(super) fn set_region(&mut self, top: Option<u16>, bottom: Option<u16>) {
        let rows = self.rows;
        let top = top.filter(|t| *t > 0).unwrap_or(1) - 1;
        let bottom = bottom
            .filter(|b| *b > 0)
            .unwrap_or(rows)
            .min(rows)
            .saturating_sub(1);
        let margins = self.current_mut();
        (margins.top, margins.bottom) = if top < bottom {
            (top, bottom)
        } else {
            (0, rows.saturating_sub(1))
        };
    }

    /// DECSET or DECRST of origin mode.
    pub(super) fn set_origin(&mut self, on: bool) {
        self.current_mut().origin = on;
    }

    /// DECSC.
    pub(super) fn save(&mut self) {
        let margins = self.current_mut();
        margins.saved_origin = margins.origin;
    }

    /// DECRC.
    pub(super) fn restore(&mut self) {
        let margins = self.current_mut();
        margins.origin = margins.saved_origin;
    }

    /// Mode 47, 1047 or 1049 set (`clear`: 1049, which clears the alternate screen) or
    /// reset.
    pub(super) fn switch(&mut self, alternate: bool, clear: bool) {
        self.alternate = alternate;
        if alternate && clear {
            self.screens[1] = Margins::full(self.rows);
        }
    }

    /// RIS.
    pub(super) fn reset(&mut self) {
        *self = ScreenMargins {
            rows: self.rows,
            ..ScreenMargins::new()
        };
        self.screens = [Margins::full(self.rows); 2];
    }
}
