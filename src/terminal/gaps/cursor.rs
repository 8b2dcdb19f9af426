//! The cursor's state where vt100 keeps it wrong or not at all: what DECSC saves beyond
//! vt100's own (the character sets, the SGR attributes vt100 drops, origin mode), BS right
//! after a character in the last column, HT with tab stops of the program's own, and line
//! feeds under a coloured background.

use super::erase::Scrolling;
use super::tabs::TabControl;
use super::{BS, FF, GapLayer, HT, LF, Parser, VT, give};
use crate::terminal::params::ExtraStyle;

/// What `ESC 7` (DECSC, and `CSI s`, mode 1048, mode 1049) saves beside the cursor and the
/// attributes vt100 saves itself: the character sets and the SGR attributes vt100 drops,
/// which `ESC 8` restores as xterm does.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Saved {
    graphics: [bool; 2],
    shift_out: bool,
    style: ExtraStyle,
    coloured_background: bool,
}

impl GapLayer {
    /// Where in `text` the first C0 control vt100 gets wrong is: BS always (after the
    /// last column), HT once the program set tab stops of its own.
    /// And under a coloured background, the line feeds (LF, VT, FF): at the bottom margin
    /// they bring in a line to colour (see `erase`); in newline mode they also return the
    /// carriage.
    pub(super) fn fixed_control(&self, text: &[u8]) -> Option<usize> {
        let custom_tabs = self.tabs.custom();
        if self.coloured_background || self.modes.newline || self.lines.any(self.margins.alternate()) {
            text.iter()
                .position(|&b| matches!(b, BS | LF | VT | FF) || (b == HT && custom_tabs))
        } else if custom_tabs {
            memchr::memchr2(BS, HT, text)
        } else {
            memchr::memchr(BS, text)
        }
    }

    /// BS or HT as xterm does them. BS right after a character in the last column (the
    /// cursor waiting to wrap, one past the edge in vt100) moves to the column before
    /// that character, where vt100 would stop on it; HT moves to the next of the tab
    /// stops kept here.
    pub(super) fn control(&mut self, byte: u8, parser: &mut Parser) {
        let cols = parser.screen().size().1.get();
        let col = parser.screen().cursor_position().1;
        match byte {
            BS if col >= cols => give(parser, b"\x08\x08"),
            LF | VT | FF if self.modes.newline => self.scroll(Scrolling::NextLine, &[b'\r', byte], parser),
            LF | VT | FF => self.scroll(Scrolling::LineFeed, &[byte], parser),
            HT => {
                if let Some(to) = self.tabs.apply(TabControl::Forward(1), col, cols) {
                    give(parser, format!("\x1b[{}G", to + 1).as_bytes());
                }
            }
            _ => give(parser, &[byte]),
        }
    }

    /// DECSC: what vt100 does not save itself.
    pub(super) fn save_cursor(&mut self) {
        self.margins.save();
        self.saved = Saved {
            graphics: self.graphics,
            shift_out: self.shift_out,
            style: self.style,
            coloured_background: self.coloured_background,
        };
    }

    /// DECRC: what [`save_cursor`](Self::save_cursor) saved.
    pub(super) fn restore_cursor(&mut self) {
        let Saved {
            graphics,
            shift_out,
            style,
            coloured_background,
        } = self.saved;
        self.coloured_background = coloured_background;
        self.margins.restore();
        (self.graphics, self.shift_out, self.style) = (graphics, shift_out, style);
    }
}
