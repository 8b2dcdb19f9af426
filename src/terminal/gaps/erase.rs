//! Background colour erase for what scrolling and inserting bring in. `TERM=xterm-256color`
//! advertises `bce`, so a program with a coloured background (a vim colour scheme, mc,
//! htop) counts on every blank a terminal makes taking the current background, as xterm
//! does. vt100 colours the blanks of ED, EL and ECH, but makes the lines and cells that
//! scrolling (LF, IND, NEL at the bottom margin; RI at the top; SU, SD), line insert and
//! delete (IL, DL) and character insert and delete (ICH, DCH) bring in with the default
//! background. Here each of those is passed on and, when the background is not the
//! default, followed by an erase of exactly what it brought in — with EL or ECH, which
//! vt100 colours — and the cursor put back. The same controls move the rows' sizes
//! (`lines`) with the rows.

use super::margins::Margins;
use super::{GapLayer, Parser, give};

/// A control that brings in blank lines or cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scrolling {
    /// SU: the region scrolls up n lines.
    Up(u16),
    /// SD: the region scrolls down n lines.
    Down(u16),
    /// IL: n lines inserted at the cursor's row.
    InsertLines(u16),
    /// DL: n lines deleted at the cursor's row.
    DeleteLines(u16),
    /// ICH: n blanks inserted at the cursor.
    InsertChars(u16),
    /// DCH: n characters deleted at the cursor.
    DeleteChars(u16),
    /// RI (`ESC M`).
    ReverseIndex,
    /// LF, VT or FF, and IND (`ESC D`, passed as LF).
    LineFeed,
    /// NEL (`ESC E`, passed as CR LF).
    NextLine,
}

impl GapLayer {
    /// Passes `seq` (the control as vt100 takes it) and colours what it brought in;
    /// IL and DL also end in column 1 inside the margins, as xterm's do.
    pub(super) fn scroll(&mut self, what: Scrolling, seq: &[u8], parser: &mut Parser) {
        let margins = self.margins.current();
        let (row, col) = parser.screen().cursor_position();
        let cols = parser.screen().size().1.get();
        let inside = margins.holds(row);
        give(parser, seq);
        let line_edit = matches!(what, Scrolling::InsertLines(_) | Scrolling::DeleteLines(_));
        if line_edit && inside {
            give(parser, b"\r");
        }
        let Margins { top, bottom, .. } = margins;
        // Double-size rows move with the rows.
        let alternate = self.margins.alternate();
        if self.lines.any(alternate) {
            let lines = &mut self.lines;
            match what {
                Scrolling::Up(n) => lines.shift_up(alternate, top, bottom, n.max(1)),
                Scrolling::Down(n) => lines.shift_down(alternate, top, bottom, n.max(1)),
                Scrolling::InsertLines(n) if inside => lines.shift_down(alternate, row, bottom, n.max(1)),
                Scrolling::DeleteLines(n) if inside => lines.shift_up(alternate, row, bottom, n.max(1)),
                Scrolling::ReverseIndex if row == top => lines.shift_down(alternate, top, bottom, 1),
                Scrolling::LineFeed | Scrolling::NextLine if row == bottom => {
                    lines.shift_up(alternate, top, bottom, 1)
                }
                _ => {}
            }
        }
        if parser.screen().bgcolor() == vt100::Color::Default {
            return;
        }
        let lines = |first: u16, last: u16| Some((first.max(top), last.min(bottom)));
        let brought = match what {
            Scrolling::Up(n) => lines(bottom.saturating_sub(n.max(1) - 1), bottom),
            Scrolling::Down(n) => lines(top, top.saturating_add(n.max(1) - 1)),
            Scrolling::InsertLines(n) if inside => lines(row, row.saturating_add(n.max(1) - 1)),
            Scrolling::DeleteLines(n) if inside => {
                lines(bottom.saturating_sub(n.max(1) - 1).max(row), bottom)
            }
            Scrolling::ReverseIndex if row == top => lines(top, top),
            Scrolling::LineFeed | Scrolling::NextLine if row == bottom => lines(bottom, bottom),
            Scrolling::InsertChars(n) if col < cols => {
                // The blanks are at the cursor, which did not move.
                give(parser, format!("\x1b[{}X", n.max(1).min(cols - col)).as_bytes());
                None
            }
            Scrolling::DeleteChars(n) if col < cols => {
                let n = n.max(1).min(cols - col);
                let at = cols - n;
                give(
                    parser,
                    format!("\x1b[{}G\x1b[{n}X\x1b[{}G", at + 1, col + 1).as_bytes(),
                );
                None
            }
            _ => None,
        };
        let Some((first, last)) = brought else {
            return;
        };
        // Each line brought in erased (EL 2 takes the background), then the cursor back
        // where the control left it; rows are counted from the top margin in origin mode.
        let (after_row, after_col) = parser.screen().cursor_position();
        let origin = if margins.origin { top } else { 0 };
        let mut out = Vec::new();
        for line in first..=last {
            out.extend_from_slice(format!("\x1b[{};1H\x1b[2K", line - origin + 1).as_bytes());
        }
        out.extend_from_slice(
            format!("\x1b[{};{}H", after_row - origin + 1, after_col.min(cols - 1) + 1).as_bytes(),
        );
        give(parser, &out);
    }
}
