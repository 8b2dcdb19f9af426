//! What to do with each complete escape sequence: pass it to vt100, rewrite it, answer it,
//! or act on it here (the decisions; `mod.rs` carries them out in stream order).

use super::lines::LineSize;
use super::tabs::TabControl;
use super::{Action, GapLayer, Scrolling};
use crate::terminal::params::{background_after, repeat_param, sgr};
use crate::terminal::sequence::Csi;

impl GapLayer {
    /// Decides what to do with a complete non-CSI escape sequence.
    pub(super) fn escape_action(&mut self) -> Action {
        match self.seq[1..] {
            [b'(', set] => {
                self.graphics[0] = set == b'0';
                Action::Replace(Vec::new())
            }
            [b')', set] => {
                self.graphics[1] = set == b'0';
                Action::Replace(Vec::new())
            }
            [b'7'] => {
                self.save_cursor();
                Action::Pass
            }
            [b'8'] => {
                self.restore_cursor();
                Action::Pass
            }
            [b'D'] => Action::Scroll(Scrolling::LineFeed, Some(b"\n")),
            [b'E'] => Action::Scroll(Scrolling::NextLine, Some(b"\r\n")),
            [b'M'] => Action::Scroll(Scrolling::ReverseIndex, None),
            [b'c'] => {
                self.reset();
                self.margins.reset();
                self.tabs.reset();
                self.lines.reset(false);
                self.lines.reset(true);
                Action::Pass
            }
            [b'#', b'3'] => Action::LineSize(LineSize::DoubleTop),
            [b'#', b'4'] => Action::LineSize(LineSize::DoubleBottom),
            [b'#', b'5'] => Action::LineSize(LineSize::Single),
            [b'#', b'6'] => Action::LineSize(LineSize::DoubleWidth),
            [b'H'] => Action::Tab(TabControl::Set),
            [b'#', b'8'] => Action::Replace(self.alignment_pattern()),
            _ => Action::Pass,
        }
    }

    /// Decides what to do with a complete CSI sequence.
    pub(super) fn csi_action(&mut self) -> Action {
        let seq = std::mem::take(&mut self.seq);
        let action = self.csi_action_for(&seq);
        self.seq = seq;
        action
    }

    fn csi_action_for(&mut self, seq: &[u8]) -> Action {
        let Some(csi) = Csi::parse(seq) else {
            return Action::Pass;
        };
        if crate::terminal::respond::is_query(&csi) {
            return Action::Query;
        }
        let set = csi.final_byte == b'h';
        match (csi.marker, csi.intermediates, csi.final_byte) {
            (None, [], b'm') => {
                self.coloured_background = background_after(csi.params, self.coloured_background);
                match sgr(csi.params, &mut self.style) {
                    None => Action::Pass,
                    Some(params) if params.is_empty() => Action::Replace(Vec::new()),
                    Some(params) => Action::Replace(format!("\x1b[{params}m").into_bytes()),
                }
            }
            (None, [], b'h' | b'l') => {
                let numbers = csi.numbers();
                if numbers.contains(&Some(4)) {
                    self.modes.insert = set;
                }
                if numbers.contains(&Some(20)) {
                    self.modes.newline = set;
                }
                Action::Pass
            }
            (Some(b'?'), [], b'h' | b'l') => self.private_modes(&csi, set),
            (Some(b'>' | b'<' | b'='), [], b'u') => Action::KittyKeyboard,
            (None, [], b't') if matches!(csi.numbers().first(), Some(Some(22 | 23))) => {
                Action::TitleStack(csi.numbers().first() == Some(&Some(22)))
            }
            // xterm's key modifier resources (`CSI > 4 ; 2 m` is modifyOtherKeys level 2):
            // kept here, never drawn; vt100 would read them as colours.
            (Some(b'>'), [], b'm') => {
                let numbers = csi.numbers();
                if numbers.first() == Some(&Some(4)) {
                    self.modes.modify_other_keys =
                        numbers.get(1).copied().flatten().unwrap_or(0).min(3) as u8;
                }
                Action::Replace(Vec::new())
            }
            (None, [], b'r') => {
                let numbers = csi.numbers();
                let number = |i: usize| numbers.get(i).copied().flatten();
                self.margins.set_region(number(0), number(1));
                // vt100 puts the cursor at the top margin; outside origin mode xterm puts it
                // at the screen's top-left corner.
                if self.margins.current().origin {
                    Action::Pass
                } else {
                    Action::Replace([seq, b"\x1b[H"].concat())
                }
            }
            (None, [], b'J') if self.lines.any(self.margins.alternate()) => {
                Action::EraseDisplay(csi.numbers().first().copied().flatten().unwrap_or(0))
            }
            // HPR and VPR move as CUF and CUD do in xterm; vt100 ignores them.
            (None, [], b'a') => Action::Replace([b"\x1b[", csi.params, b"C"].concat()),
            (None, [], b'e') => Action::Replace([b"\x1b[", csi.params, b"B"].concat()),
            (None, [], b'L' | b'M' | b'S' | b'T' | b'@' | b'P') => {
                let n = csi.numbers().first().copied().flatten().unwrap_or(1);
                let what = match csi.final_byte {
                    b'L' => Scrolling::InsertLines(n),
                    b'M' => Scrolling::DeleteLines(n),
                    b'S' => Scrolling::Up(n),
                    b'T' => Scrolling::Down(n),
                    b'@' => Scrolling::InsertChars(n),
                    _ => Scrolling::DeleteChars(n),
                };
                Action::Scroll(what, None)
            }
            (None, [], b'g') => match csi.numbers().first().copied().flatten().unwrap_or(0) {
                0 => Action::Tab(TabControl::Clear),
                3 => Action::Tab(TabControl::ClearAll),
                _ => Action::Replace(Vec::new()),
            },
            (None, [], b'I' | b'Z') => {
                let n = csi.numbers().first().copied().flatten().unwrap_or(1).max(1);
                Action::Tab(match csi.final_byte {
                    b'I' => TabControl::Forward(n),
                    _ => TabControl::Back(n),
                })
            }
            (None, [], b's') if csi.params.is_empty() => {
                self.save_cursor();
                Action::Replace(b"\x1b7".to_vec())
            }
            (None, [], b'u') if csi.params.is_empty() => {
                self.restore_cursor();
                Action::Replace(b"\x1b8".to_vec())
            }
            (None, [b'!'], b'p') => {
                self.reset();
                Action::Pass
            }
            // REP repeats a graphic character written just before it, nothing else.
            (None, [], b'b') if !self.last_graphic => Action::Replace(Vec::new()),
            (None, [], b'b') => {
                let asked = repeat_param(csi.params);
                match self.repeat_count(asked) {
                    count if count == asked => Action::Pass,
                    0 => Action::Replace(Vec::new()),
                    count => Action::Replace(format!("\x1b[{count}b").into_bytes()),
                }
            }
            _ => Action::Pass,
        }
    }
}
