//! Mouse actions: their grammar (`click 12,3`, `C-drag 2,1..9,1`, `scroll-down /log/ 3`),
//! the modes a program enables to receive them, and the bytes xterm sends for each event.
//!
//! A program asks for mouse reports with a tracking mode (9 presses only; 1000 presses and
//! releases; 1002 also motion while a button is held; 1003 all motion) and an encoding
//! (the default X10 bytes, 1005 UTF-8, 1006 SGR, 1015 urxvt, 1016 SGR in pixels). An
//! action becomes the events a real mouse would make — a click is a press and a release —
//! and each event is encoded, or left out, exactly as xterm would for those modes. A
//! program that enabled no tracking gets nothing: sending is refused, so a caller never
//! believes it clicked.
//!
//! ```
//! use tuipilot::keys::mouse::{MouseAction, MouseEncoding, MouseModes, MouseTracking};
//!
//! let click: MouseAction = "click 11,23".parse().unwrap();
//! let modes = MouseModes { tracking: MouseTracking::Normal, encoding: MouseEncoding::Sgr };
//! let bytes: Vec<Vec<u8>> = click
//!     .events((11, 23))
//!     .iter()
//!     .filter_map(|e| e.encode(modes, (10, 19)))
//!     .collect();
//! assert_eq!(bytes, [b"\x1b[<0;12;24M".to_vec(), b"\x1b[<0;12;24m".to_vec()]);
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Modifiers, take_modifiers};
use crate::error::{Error, Result};

mod target;

use target::take_scoped_target;
pub use target::{RELATIONS, Relation, ScreenText, Target, TargetScope};

/// Which mouse events the program asked to receive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MouseTracking {
    /// No mouse reports (the program did not ask).
    #[default]
    Off,
    /// Mode 9 (X10): button presses only, without modifiers.
    X10,
    /// Mode 1000: presses and releases, and the wheel.
    Normal,
    /// Mode 1002: also motion while a button is held.
    Button,
    /// Mode 1003: also motion with no button held.
    Any,
}

impl MouseTracking {
    /// The DEC private mode number that selects it (0 for `Off`).
    pub fn mode(self) -> u16 {
        match self {
            MouseTracking::Off => 0,
            MouseTracking::X10 => 9,
            MouseTracking::Normal => 1000,
            MouseTracking::Button => 1002,
            MouseTracking::Any => 1003,
        }
    }

    /// The tracking a DEC private mode number selects.
    pub fn from_mode(mode: u16) -> Option<MouseTracking> {
        Some(match mode {
            9 => MouseTracking::X10,
            1000 => MouseTracking::Normal,
            1002 => MouseTracking::Button,
            1003 => MouseTracking::Any,
            _ => return None,
        })
    }
}

/// How the program asked for mouse reports to be spelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MouseEncoding {
    /// `CSI M` and three bytes, each value plus 32 (coordinates up to 223).
    #[default]
    X10,
    /// Mode 1005: like X10, values above 95 sent as UTF-8 (coordinates up to 2015).
    Utf8,
    /// Mode 1006: `CSI < b ; x ; y M` for a press, `m` for a release.
    Sgr,
    /// Mode 1015: `CSI b+32 ; x ; y M`.
    Urxvt,
    /// Mode 1016: SGR with pixel coordinates.
    SgrPixels,
}

impl MouseEncoding {
    /// The DEC private mode number that selects it (0 for the default).
    pub fn mode(self) -> u16 {
        match self {
            MouseEncoding::X10 => 0,
            MouseEncoding::Utf8 => 1005,
            MouseEncoding::Sgr => 1006,
            MouseEncoding::Urxvt => 1015,
            MouseEncoding::SgrPixels => 1016,
        }
    }

    /// The encoding a DEC private mode number selects.
    pub fn from_mode(mode: u16) -> Option<MouseEncoding> {
        Some(match mode {
            1005 => MouseEncoding::Utf8,
            1006 => MouseEncoding::Sgr,
            1015 => MouseEncoding::Urxvt,
            1016 => MouseEncoding::SgrPixels,
            _ => return None,
        })
    }
}

/// The program's mouse modes: what it receives and how it is spelled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct MouseModes {
    /// Which events are reported.
    pub tracking: MouseTracking,
    /// How they are spelled.
    pub encoding: MouseEncoding,
}

impl fmt::Display for MouseModes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.tracking {
            MouseTracking::Off => f.write_str("off"),
            tracking => write!(
                f,
                "mode {} ({:?}), {:?} encoding",
                tracking.mode(),
                tracking,
                self.encoding
            ),
        }
    }
}

/// A mouse button.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Button {
    /// The left button.
    Left,
    /// The middle button.
    Middle,
    /// The right button.
    Right,
    /// The wheel rolled up.
    WheelUp,
    /// The wheel rolled down.
    WheelDown,
    /// The wheel tilted left.
    WheelLeft,
    /// The wheel tilted right.
    WheelRight,
}

impl Button {
    /// xterm's button number before modifiers and motion.
    fn code(self) -> u32 {
        match self {
            Button::Left => 0,
            Button::Middle => 1,
            Button::Right => 2,
            Button::WheelUp => 64,
            Button::WheelDown => 65,
            Button::WheelLeft => 66,
            Button::WheelRight => 67,
        }
    }

    fn is_wheel(self) -> bool {
        self.code() >= 64
    }
}

/// What happened to the mouse.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A button went down (or the wheel moved).
    Press(Button),
    /// A button came up.
    Release(Button),
    /// The pointer moved, with this button held (or none).
    Motion(Option<Button>),
}

/// One mouse event at a cell (0-based column and row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MouseEvent {
    /// What happened.
    pub kind: EventKind,
    /// Column, 0-based.
    pub col: u16,
    /// Row, 0-based.
    pub row: u16,
    /// Modifier keys held.
    pub mods: Modifiers,
}

/// The largest value the X10 encoding can carry in one byte (255 - 32).
const X10_MAX: u32 = 223;
/// The largest value the UTF-8 encoding can carry (two-byte UTF-8, minus 32).
const UTF8_MAX: u32 = 2015;

impl MouseEvent {
    /// The bytes xterm sends for this event in `modes`, or `None` when the mode does not
    /// report it (a release in mode 9, motion below 1002, motion with no button below
    /// 1003). `cell` is the cell size in pixels, for mode 1016.
    pub fn encode(&self, modes: MouseModes, cell: (u16, u16)) -> Option<Vec<u8>> {
        let tracking = modes.tracking;
        let reported = match self.kind {
            EventKind::Press(_) => tracking != MouseTracking::Off,
            EventKind::Release(button) => {
                !button.is_wheel() && !matches!(tracking, MouseTracking::Off | MouseTracking::X10)
            }
            EventKind::Motion(Some(_)) => matches!(tracking, MouseTracking::Button | MouseTracking::Any),
            EventKind::Motion(None) => tracking == MouseTracking::Any,
        };
        if !reported {
            return None;
        }
        let sgr = matches!(modes.encoding, MouseEncoding::Sgr | MouseEncoding::SgrPixels);
        let mut code = match self.kind {
            EventKind::Press(button) => button.code(),
            // Only SGR says which button came up; the others send "released" (3).
            EventKind::Release(button) if sgr => button.code(),
            EventKind::Release(_) => 3,
            EventKind::Motion(button) => 32 + button.map_or(3, Button::code),
        };
        // X10 mode reports no modifiers; the others add shift 4, meta 8, control 16.
        if tracking != MouseTracking::X10 {
            code += 4 * u32::from(self.mods.shift)
                + 8 * u32::from(self.mods.alt)
                + 16 * u32::from(self.mods.ctrl);
        }
        let (mut x, mut y) = (u32::from(self.col) + 1, u32::from(self.row) + 1);
        if modes.encoding == MouseEncoding::SgrPixels {
            // The pointer at the middle of the cell, in 1-based pixels.
            let (w, h) = (u32::from(cell.0.max(1)), u32::from(cell.1.max(1)));
            x = u32::from(self.col) * w + w / 2 + 1;
            y = u32::from(self.row) * h + h / 2 + 1;
        }
        let release = matches!(self.kind, EventKind::Release(_));
        Some(match modes.encoding {
            MouseEncoding::Sgr | MouseEncoding::SgrPixels => {
                format!("\x1b[<{code};{x};{y}{}", if release { 'm' } else { 'M' }).into_bytes()
            }
            MouseEncoding::Urxvt => format!("\x1b[{};{x};{y}M", code + 32).into_bytes(),
            MouseEncoding::X10 => {
                let byte = |v: u32| (v.min(X10_MAX) + 32) as u8;
                vec![0x1b, b'[', b'M', byte(code), byte(x), byte(y)]
            }
            MouseEncoding::Utf8 => {
                let mut out = b"\x1b[M".to_vec();
                for v in [code, x.min(UTF8_MAX), y.min(UTF8_MAX)] {
                    let c = char::from_u32(v + 32).unwrap_or(' ');
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                out
            }
        })
    }
}

impl MouseEvent {
    /// Reads an SGR mouse report (`ESC [ < b ; x ; y M` or `m`, what a terminal sends in
    /// mode 1006) at the start of `bytes`: the event and the report's length, or `None`
    /// when `bytes` does not start with a whole one. What a live view reads from the
    /// person's terminal before moving the event to the session's cells.
    pub fn from_sgr(bytes: &[u8]) -> Option<(MouseEvent, usize)> {
        let body = bytes.strip_prefix(b"\x1b[<")?;
        let end = body.iter().position(|b| matches!(b, b'M' | b'm'))?;
        let text = std::str::from_utf8(&body[..end]).ok()?;
        let mut fields = text.split(';').map(|f| f.parse::<u32>().ok());
        let (code, x, y) = (fields.next()??, fields.next()??, fields.next()??);
        if fields.next().is_some() || x == 0 || y == 0 {
            return None;
        }
        let released = body[end] == b'm';
        let button = match (code & 0b11, code & 64 != 0) {
            (0, false) => Some(Button::Left),
            (1, false) => Some(Button::Middle),
            (2, false) => Some(Button::Right),
            (0, true) => Some(Button::WheelUp),
            (1, true) => Some(Button::WheelDown),
            (2, true) => Some(Button::WheelLeft),
            (3, true) => Some(Button::WheelRight),
            _ => None,
        };
        let kind = match (code & 32 != 0, released, button) {
            (true, _, button) => EventKind::Motion(button),
            (false, true, Some(button)) => EventKind::Release(button),
            (false, false, Some(button)) => EventKind::Press(button),
            (false, _, None) => return None,
        };
        let event = MouseEvent {
            kind,
            col: u16::try_from(x - 1).ok()?,
            row: u16::try_from(y - 1).ok()?,
            mods: Modifiers {
                shift: code & 4 != 0,
                alt: code & 8 != 0,
                ctrl: code & 16 != 0,
            },
        };
        Some((event, 3 + end + 1))
    }
}

/// What the mouse does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Gesture {
    /// Press and release a button, `count` times.
    Click(Button),
    /// Two left clicks in a row.
    DoubleClick,
    /// Press the left button and hold it.
    Press,
    /// Release the left button.
    Release,
    /// Move the pointer with no button held.
    Move,
    /// Press the left button, move with it held, release it at the second target.
    Drag,
    /// Roll or tilt the wheel, `count` notches.
    Scroll(Button),
}

/// The action words of the grammar, with what each does.
pub const ACTIONS: &[(&str, Gesture)] = &[
    ("click", Gesture::Click(Button::Left)),
    ("double-click", Gesture::DoubleClick),
    ("right-click", Gesture::Click(Button::Right)),
    ("middle-click", Gesture::Click(Button::Middle)),
    ("press", Gesture::Press),
    ("release", Gesture::Release),
    ("move", Gesture::Move),
    ("drag", Gesture::Drag),
    ("scroll-up", Gesture::Scroll(Button::WheelUp)),
    ("scroll-down", Gesture::Scroll(Button::WheelDown)),
    ("scroll-left", Gesture::Scroll(Button::WheelLeft)),
    ("scroll-right", Gesture::Scroll(Button::WheelRight)),
];

/// The most repeats one action may ask for.
pub const MAX_COUNT: u32 = 1000;

/// A parsed mouse action: `[C-|M-|S-]*ACTION TARGET [N]`, with `TARGET` `COL,ROW` or
/// `/REGEX/`, and `FROM..TO` for `drag`.
#[derive(Clone, Debug)]
pub struct MouseAction {
    /// The action as written.
    pub spec: String,
    /// What the mouse does.
    pub gesture: Gesture,
    /// Modifier keys held throughout.
    pub mods: Modifiers,
    /// Where (where a drag starts).
    pub target: Target,
    /// Where a drag ends.
    pub to: Option<Target>,
    /// How many clicks or wheel notches.
    pub count: u32,
}

fn invalid(spec: &str, reason: impl Into<String>) -> Error {
    Error::InvalidMouse {
        spec: spec.to_string(),
        reason: reason.into(),
    }
}

impl MouseAction {
    /// Parses `[C-|M-|S-]*ACTION TARGET [SCOPE…] [N]`.
    pub fn parse(spec: &str) -> Result<MouseAction> {
        let text = spec.trim();
        let (word, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
        let (mods, action) = take_modifiers(word);
        let lower = action.to_ascii_lowercase();
        let Some(&(_, gesture)) = ACTIONS.iter().find(|(name, _)| *name == lower) else {
            let names: Vec<&str> = ACTIONS.iter().map(|(name, _)| *name).collect();
            return Err(invalid(
                spec,
                format!("unknown action `{action}`: use one of {}", names.join(", ")),
            ));
        };
        let rest = rest.trim_start();
        if rest.is_empty() {
            return Err(invalid(
                spec,
                format!("`{action}` needs a target: COL,ROW or /REGEX/"),
            ));
        }
        let (target, mut rest) = take_scoped_target(spec, rest)?;
        let mut to = None;
        if let Some(after) = rest.trim_start().strip_prefix("..") {
            if gesture != Gesture::Drag {
                return Err(invalid(spec, "only `drag` takes FROM..TO"));
            }
            let (end, after) = take_scoped_target(spec, after)?;
            to = Some(end);
            rest = after;
        } else if gesture == Gesture::Drag {
            return Err(invalid(spec, "`drag` needs FROM..TO, like `drag 2,1..9,1`"));
        }
        let rest = rest.trim();
        let count = if rest.is_empty() {
            1
        } else {
            match rest.parse::<u32>() {
                Ok(n @ 1..=MAX_COUNT) => n,
                _ => {
                    return Err(invalid(
                        spec,
                        format!(
                            "`{rest}` is not a count or a scope: after the target give a number from 1 to {MAX_COUNT}, or a scope of a /REGEX/ target (in-rows A-B, in-cols A-B, inside|below|above|right-of|left-of /REGEX/, nth N)"
                        ),
                    ));
                }
            }
        };
        if count > 1
            && matches!(
                gesture,
                Gesture::Press | Gesture::Release | Gesture::Move | Gesture::Drag
            )
        {
            return Err(invalid(spec, format!("`{action}` takes no count")));
        }
        Ok(MouseAction {
            spec: text.to_string(),
            gesture,
            mods,
            target,
            to,
            count,
        })
    }

    /// The events this action makes, from its first target at `at` (and, for a drag, to
    /// `end`): each cell of a drag's path is a motion event, as a real pointer makes them.
    pub fn events_between(&self, at: (u16, u16), end: Option<(u16, u16)>) -> Vec<MouseEvent> {
        let event = |kind, (col, row): (u16, u16)| MouseEvent {
            kind,
            col,
            row,
            mods: self.mods,
        };
        let mut events = Vec::new();
        match self.gesture {
            Gesture::Click(button) => {
                for _ in 0..self.count {
                    events.push(event(EventKind::Press(button), at));
                    events.push(event(EventKind::Release(button), at));
                }
            }
            Gesture::DoubleClick => {
                for _ in 0..2 * self.count {
                    events.push(event(EventKind::Press(Button::Left), at));
                    events.push(event(EventKind::Release(Button::Left), at));
                }
            }
            Gesture::Press => events.push(event(EventKind::Press(Button::Left), at)),
            Gesture::Release => events.push(event(EventKind::Release(Button::Left), at)),
            Gesture::Move => events.push(event(EventKind::Motion(None), at)),
            Gesture::Scroll(button) => {
                events.extend((0..self.count).map(|_| event(EventKind::Press(button), at)));
            }
            Gesture::Drag => {
                let end = end.unwrap_or(at);
                events.push(event(EventKind::Press(Button::Left), at));
                let (dx, dy) = (
                    i32::from(end.0) - i32::from(at.0),
                    i32::from(end.1) - i32::from(at.1),
                );
                let steps = dx.abs().max(dy.abs());
                for step in 1..=steps {
                    let col = i32::from(at.0) + dx * step / steps;
                    let row = i32::from(at.1) + dy * step / steps;
                    events.push(event(
                        EventKind::Motion(Some(Button::Left)),
                        (col as u16, row as u16),
                    ));
                }
                events.push(event(EventKind::Release(Button::Left), end));
            }
        }
        events
    }

    /// The events of an action with a single target at `at`.
    pub fn events(&self, at: (u16, u16)) -> Vec<MouseEvent> {
        self.events_between(at, None)
    }

    /// The writes to send, one per event, for the program's modes and the screen as it
    /// is: an error when the program enabled no mouse reporting, when a target is not on
    /// the screen, or when the mode reports none of this action's events (a `move` to a
    /// program that asked only for clicks).
    pub fn encode_for(
        &self,
        screen: &impl ScreenText,
        modes: MouseModes,
        cell: (u16, u16),
    ) -> Result<Vec<MouseWrite>> {
        if modes.tracking == MouseTracking::Off {
            return Err(Error::NotListening {
                input: format!("mouse action `{}`", self.spec),
                reason: "the program has not enabled mouse reporting (it sent no CSI ?1000h, ?1002h, ?1003h or ?9h), so it would ignore the mouse; use keys, or wait until it enables the mouse".into(),
            });
        }
        let at = self.target.resolve(screen)?;
        let end = self.to.as_ref().map(|t| t.resolve(screen)).transpose()?;
        let writes: Vec<MouseWrite> = self
            .events_between(at, end)
            .iter()
            .filter_map(|e| {
                e.encode(modes, cell).map(|bytes| MouseWrite {
                    bytes,
                    press: matches!(e.kind, EventKind::Press(b) if !b.is_wheel()),
                })
            })
            .collect();
        if writes.is_empty() {
            return Err(Error::NotListening {
                input: format!("mouse action `{}`", self.spec),
                reason: format!(
                    "the program's mouse mode {} does not report this (motion needs 1003, or 1002 with a button held)",
                    modes.tracking.mode()
                ),
            });
        }
        Ok(writes)
    }
}

/// One write of a mouse action: an event's bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MouseWrite {
    /// The bytes, as the program's encoding has them.
    pub bytes: Vec<u8>,
    /// A button press (not the wheel): a hand's button stays down until the program has
    /// read it, and what follows (the release, a drag's moves) is written only then.
    /// Written together, an ncurses program reads the press and the release in one go
    /// and merges them into one "clicked" event, which a program acting on the press
    /// (ranger, with `mouseinterval(0)`) never sees as a press.
    pub press: bool,
}

impl FromStr for MouseAction {
    type Err = Error;
    fn from_str(s: &str) -> Result<MouseAction> {
        MouseAction::parse(s)
    }
}

#[cfg(test)]
mod tests;
