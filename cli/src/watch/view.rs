//! The person's side of a live view: frames drawn in their terminal, their keys read.
//!
//! One thread polls three things — the person's keys, the session's lines, the resize
//! pipe — and draws after each round only the newest frame (frames that arrived together
//! cost one draw). A draw writes the rows that changed since the last one inside one
//! synchronized update, then the status line and the cursor; a change of geometry (the
//! person's terminal or the session resized, the window moved) clears and draws all.
//!
//! The keys: the leave key ([`LEAVE_KEY`]) always leaves `attach`; in `record` it opens
//! a menu (snapshot, expect the cursor's row, stop, or send the key itself). Any other
//! key is sent with control, and refused with a note in the status line without. Mouse
//! reports (the person's terminal reports in SGR form while the program has the mouse on)
//! are moved from the person's cells to the session's and encoded as the program asked.

use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;
use std::time::{Duration, Instant};

use base64::Engine;
use tuipilot::keys::mouse::{MouseEvent, MouseTracking};

use super::tty::PersonTerminal;
use super::{Assertion, Frame, FromPerson, LEAVE_KEY, LEAVE_KEY_NAME, ToPerson};
use crate::error::Failure;

/// How long a note stays in the status line.
const NOTE_FOR: Duration = Duration::from_secs(4);

/// The longest line accepted from the session's side.
const MAX_INCOMING_LINE: usize = 64 << 20;

/// What the view is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// `attach`: watching an agent's session, typing into it with control.
    Attach {
        /// Whether the person's keys are sent.
        control: bool,
    },
    /// `record`: the person drives the program; the leave key opens the recorder's menu.
    Record,
}

/// How a view ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ended {
    /// The person left (the leave key; in `record`, the menu's stop).
    Left,
    /// The session's side went away: the host stopped.
    SessionGone,
    /// `record`: the recorded program exited, which ends the recording (as `exit` ends
    /// `script`'s).
    ProgramExited,
    /// The person's terminal went away (a closed window, a dropped connection): nothing
    /// can be read from it or drawn in it.
    HungUp,
}

/// What was drawn last, to draw only what changed.
#[derive(Default)]
struct Drawn {
    geometry: Option<Geometry>,
    lines: Vec<String>,
    status: String,
    cursor_keys: Option<bool>,
    paste: Option<bool>,
    mouse: Option<MouseTracking>,
}

/// Where the session's window sits in the person's terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Geometry {
    person: (u16, u16),
    left: u16,
    top: u16,
    width: u16,
    height: u16,
}

/// The view a person's terminal of `person` (columns, rows) has for the session: all
/// but the status line.
pub(crate) fn view_of(person: (u16, u16)) -> (u16, u16) {
    (person.0, person.1.saturating_sub(1).max(1))
}

impl Geometry {
    fn of(frame: &Frame, person: (u16, u16)) -> Geometry {
        let view_rows = view_of(person).1;
        let width = frame.cols.min(person.0);
        let height = u16::try_from(frame.lines.len())
            .unwrap_or(u16::MAX)
            .min(view_rows);
        Geometry {
            person,
            left: (person.0 - width) / 2,
            top: (view_rows - height) / 2,
            width,
            height,
        }
    }
}

/// The view's own state across rounds.
struct View<'a> {
    name: &'a str,
    purpose: Purpose,
    frame: Option<Frame>,
    note: Option<(String, Instant)>,
    menu: bool,
    drawn: Drawn,
}

/// `text` with every control character made a space: titles and notes come from the
/// program or the session and must not reach the person's terminal as sequences.
fn plain(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

impl View<'_> {
    /// The status line for a terminal `width` columns wide.
    fn status(&self, width: usize) -> String {
        let mode = match self.purpose {
            Purpose::Attach { control: false } => "read-only",
            Purpose::Attach { control: true } => "control",
            Purpose::Record => "recording",
        };
        let leave = match self.purpose {
            Purpose::Attach { .. } => format!("{LEAVE_KEY_NAME} leaves"),
            Purpose::Record => format!("{LEAVE_KEY_NAME} menu"),
        };
        let mut parts = vec![format!("tuipilot {}", self.name)];
        if let Some(frame) = &self.frame {
            // The size, and how it fits: what a person needs first on a narrow terminal.
            let person = self.drawn.geometry.map_or((0, 0), |g| g.person);
            let view_rows = person.1.saturating_sub(1);
            let shown_rows = u16::try_from(frame.lines.len()).unwrap_or(0);
            let shown_cols = frame.cols.min(person.0);
            let fit = if frame.cols > person.0 || frame.rows > view_rows {
                format!(
                    " clipped to cols {}-{}, rows {}-{}",
                    frame.first_col + 1,
                    frame.first_col + shown_cols,
                    frame.first_row + 1,
                    frame.first_row + shown_rows.min(view_rows),
                )
            } else if frame.cols < person.0 || frame.rows < view_rows {
                " centred".into()
            } else {
                String::new()
            };
            parts.push(format!("{}×{}{fit}", frame.cols, frame.rows));
            if let Some(exited) = &frame.exited {
                parts.push(format!("the program {exited}"));
            }
        }
        parts.push(mode.to_string());
        parts.push(leave);
        let mut status = parts.join(" · ");
        if self.menu {
            // The longest wording that fits: every key stays on a narrow terminal.
            let wordings = [
                format!(
                    "recorder: s snapshot · c with colours · e expect the cursor's row · q stop and write the tape · {LEAVE_KEY_NAME} send {LEAVE_KEY_NAME} · Esc back"
                ),
                format!(
                    "recorder: s snapshot · c colours · e expect row · q stop · {LEAVE_KEY_NAME} send · Esc"
                ),
                format!("s snapshot · c colours · e row · q stop · {LEAVE_KEY_NAME} send · Esc"),
                "s snap · c colour · e row · q stop · Esc".to_string(),
                "s c e q Esc".to_string(),
            ];
            let fits = |w: &&String| w.chars().count() <= width;
            status = wordings.iter().find(fits).unwrap_or(&wordings[4]).clone();
        } else if let Some((note, _)) = &self.note {
            // A note is what the person needs now: it comes right after the name.
            status = format!("tuipilot {} · {note}", self.name);
        }
        plain(&status)
    }

    /// Draws the newest frame and the status line. A frame cut for another view (sent
    /// before the session heard of the person's resize) is not drawn: placed at the new
    /// size it would show a part of the screen as if it were all of it; the frame for the
    /// new view follows.
    fn draw(&mut self, out: &mut impl Write, person: (u16, u16)) -> std::io::Result<()> {
        let Some(frame) = self.frame.clone() else {
            return Ok(());
        };
        if frame.view != (0, 0) && frame.view != view_of(person) {
            return Ok(());
        }
        let geometry = Geometry::of(&frame, person);
        let mut bytes: Vec<u8> = b"\x1b[?2026h\x1b[?25l".to_vec();
        let full = self.drawn.geometry != Some(geometry);
        if full {
            bytes.extend_from_slice(b"\x1b[0m\x1b[2J");
            self.drawn.lines.clear();
            self.drawn.status.clear();
        }
        self.drawn.geometry = Some(geometry);
        for (row, line) in frame.lines.iter().take(usize::from(geometry.height)).enumerate() {
            if self.drawn.lines.get(row) == Some(line) {
                continue;
            }
            bytes.extend_from_slice(
                format!(
                    "\x1b[{};{}H{line}",
                    usize::from(geometry.top) + row + 1,
                    geometry.left + 1
                )
                .as_bytes(),
            );
        }
        self.drawn.lines = frame.lines.clone();
        let status = self.status(usize::from(person.0));
        if status != self.drawn.status {
            let width = usize::from(person.0);
            let mut shown: String = status.chars().take(width).collect();
            let used = shown.chars().count();
            shown.extend(std::iter::repeat_n(' ', width.saturating_sub(used)));
            bytes.extend_from_slice(format!("\x1b[{};1H\x1b[0;7m{shown}\x1b[0m", person.1).as_bytes());
            self.drawn.status = status;
        }
        // The person's terminal sends keys the way the program expects them.
        let control = matches!(self.purpose, Purpose::Attach { control: true } | Purpose::Record);
        if self.drawn.cursor_keys != Some(frame.application_cursor) {
            bytes.extend_from_slice(if frame.application_cursor {
                b"\x1b[?1h"
            } else {
                b"\x1b[?1l"
            });
            self.drawn.cursor_keys = Some(frame.application_cursor);
        }
        if self.drawn.paste != Some(frame.bracketed_paste) {
            bytes.extend_from_slice(if frame.bracketed_paste {
                b"\x1b[?2004h"
            } else {
                b"\x1b[?2004l"
            });
            self.drawn.paste = Some(frame.bracketed_paste);
        }
        let tracking = if control {
            frame.mouse.tracking
        } else {
            MouseTracking::Off
        };
        if self.drawn.mouse != Some(tracking) {
            bytes.extend_from_slice(b"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l");
            let mode = match tracking {
                MouseTracking::Off => None,
                MouseTracking::X10 | MouseTracking::Normal => Some(1000),
                MouseTracking::Button => Some(1002),
                MouseTracking::Any => Some(1003),
            };
            if let Some(mode) = mode {
                bytes.extend_from_slice(format!("\x1b[?{mode}h\x1b[?1006h").as_bytes());
            }
            self.drawn.mouse = Some(tracking);
        }
        if let Some((col, row)) = frame
            .cursor
            .filter(|&(c, r)| c < geometry.width && r < geometry.height)
        {
            bytes.extend_from_slice(
                format!(
                    "\x1b[{};{}H\x1b[?25h",
                    geometry.top + row + 1,
                    geometry.left + col + 1
                )
                .as_bytes(),
            );
        }
        bytes.extend_from_slice(b"\x1b[?2026l");
        out.write_all(&bytes)?;
        out.flush()
    }

    /// The person's bytes with each SGR mouse report moved to the session's cells and
    /// encoded as the program asked; a report outside the shown window is dropped.
    fn translate(&self, bytes: &[u8]) -> Vec<u8> {
        let (Some(frame), Some(geometry)) = (&self.frame, self.drawn.geometry) else {
            return bytes.to_vec();
        };
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        while !rest.is_empty() {
            if let Some((event, length)) = MouseEvent::from_sgr(rest) {
                let inside = event.col >= geometry.left
                    && event.col < geometry.left + geometry.width
                    && event.row >= geometry.top
                    && event.row < geometry.top + geometry.height;
                if inside {
                    let moved = MouseEvent {
                        col: event.col - geometry.left + frame.first_col,
                        row: event.row - geometry.top + frame.first_row,
                        ..event
                    };
                    if let Some(encoded) = moved.encode(frame.mouse, (8, 16)) {
                        out.extend_from_slice(&encoded);
                    }
                }
                rest = &rest[length..];
                continue;
            }
            out.push(rest[0]);
            rest = &rest[1..];
        }
        out
    }
}

/// One line to the session's side.
fn tell(stream: &mut UnixStream, message: &FromPerson) -> Result<(), Failure> {
    let mut line =
        serde_json::to_string(message).map_err(|e| Failure::internal(format!("encoding a request: {e}")))?;
    line.push('\n');
    stream
        .write_all(line.as_bytes())
        .map_err(|e| Failure::internal(format!("writing to the session: {e}")))
}

/// Runs a view of the session at the other end of `stream` in the person's terminal
/// until they leave or the session ends. `read_ahead` is what was read from the stream
/// already; `name` names the session in the status line.
pub fn run(
    terminal: &PersonTerminal,
    mut stream: UnixStream,
    read_ahead: Vec<u8>,
    name: &str,
    purpose: Purpose,
) -> Result<Ended, Failure> {
    let mut view = View {
        name,
        purpose,
        frame: None,
        note: None,
        menu: false,
        drawn: Drawn::default(),
    };
    let mut incoming = read_ahead;
    let mut person = terminal.size();
    let mut out = std::io::stdout().lock();
    let mut stdin = std::io::stdin().lock();
    let view_size = |person: (u16, u16)| {
        let (cols, rows) = view_of(person);
        FromPerson::View { cols, rows }
    };
    tell(&mut stream, &view_size(person))?;
    let mut reader = stream
        .try_clone()
        .map_err(|e| Failure::internal(format!("cloning the connection: {e}")))?;
    let mut fds = [
        libc::pollfd {
            fd: 0,
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: reader.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
        libc::pollfd {
            fd: terminal.resize_fd(),
            events: libc::POLLIN,
            revents: 0,
        },
    ];
    loop {
        // Lines already here are handled before waiting for more.
        let mut ended = false;
        if !incoming.contains(&b'\n') {
            let timeout = view.note.as_ref().map_or(-1, |(_, at)| {
                NOTE_FOR.saturating_sub(at.elapsed()).as_millis() as i32 + 1
            });
            // SAFETY: polls three live descriptors.
            let ready = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
            if ready < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() != std::io::ErrorKind::Interrupted {
                    return Err(Failure::internal(format!("waiting for the terminal: {e}")));
                }
                continue;
            }
            if fds[2].revents & libc::POLLIN != 0 {
                terminal.take_resizes();
                person = terminal.size();
                view.drawn.geometry = None;
                tell(&mut stream, &view_size(person))?;
            }
            if fds[0].revents & (libc::POLLIN | libc::POLLHUP) != 0 {
                let mut buf = [0u8; 4096];
                // End of input or an error on a terminal in raw mode: it hung up.
                let n = match stdin.read(&mut buf) {
                    Ok(0) => return Ok(Ended::HungUp),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => return Ok(Ended::HungUp),
                    Ok(n) => n,
                };
                if let Some(ended) = keys(&mut view, &mut stream, &buf[..n])? {
                    return Ok(ended);
                }
            }
            if fds[1].revents & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
                let mut buf = vec![0u8; 1 << 16];
                match reader.read(&mut buf) {
                    Ok(0) | Err(_) => ended = true,
                    Ok(n) => incoming.extend_from_slice(&buf[..n]),
                }
            }
        }
        // Every whole line; the newest frame wins.
        while let Some(at) = incoming.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = incoming.drain(..=at).collect();
            match serde_json::from_slice::<ToPerson>(&line) {
                Ok(ToPerson::Frame(frame)) => view.frame = Some(frame),
                Ok(ToPerson::Note(note)) => view.note = Some((note, Instant::now())),
                Err(e) => view.note = Some((format!("unreadable frame ({e})"), Instant::now())),
            }
        }
        if incoming.len() > MAX_INCOMING_LINE {
            return Err(Failure::internal("the session sent a line longer than any frame"));
        }
        if view.note.as_ref().is_some_and(|(_, at)| at.elapsed() >= NOTE_FOR) {
            view.note = None;
        }
        if view.draw(&mut out, person).is_err() {
            return Ok(Ended::HungUp);
        }
        if ended {
            return Ok(Ended::SessionGone);
        }
        if view.purpose == Purpose::Record && view.frame.as_ref().is_some_and(|f| f.exited.is_some()) {
            return Ok(Ended::ProgramExited);
        }
    }
}

/// Handles a chunk of the person's keys; `Some` when the view ends.
fn keys(view: &mut View, stream: &mut UnixStream, bytes: &[u8]) -> Result<Option<Ended>, Failure> {
    let mut pending: Vec<u8> = Vec::new();
    let send = |view: &mut View, stream: &mut UnixStream, pending: &mut Vec<u8>| -> Result<(), Failure> {
        if pending.is_empty() {
            return Ok(());
        }
        match view.purpose {
            Purpose::Attach { control: false } => {
                view.note = Some((
                    format!(
                        "read-only: keys are not sent (attach --control sends them) · {LEAVE_KEY_NAME} leaves"
                    ),
                    Instant::now(),
                ));
            }
            _ => {
                let bytes = view.translate(pending);
                if !bytes.is_empty() {
                    let encoded = base64::engine::general_purpose::STANDARD.encode(bytes);
                    tell(stream, &FromPerson::Input(encoded))?;
                }
            }
        }
        pending.clear();
        Ok(())
    };
    for &byte in bytes {
        if view.menu {
            view.menu = false;
            match byte {
                b's' | b'S' => tell(stream, &FromPerson::Assert(Assertion::Snapshot))?,
                b'c' | b'C' => tell(stream, &FromPerson::Assert(Assertion::StyledSnapshot))?,
                b'e' | b'E' => tell(stream, &FromPerson::Assert(Assertion::CursorRow))?,
                b'q' | b'Q' => return Ok(Some(Ended::Left)),
                LEAVE_KEY => pending.push(LEAVE_KEY),
                _ => {}
            }
            continue;
        }
        if byte == LEAVE_KEY {
            send(view, stream, &mut pending)?;
            match view.purpose {
                Purpose::Attach { .. } => return Ok(Some(Ended::Left)),
                Purpose::Record => view.menu = true,
            }
            continue;
        }
        pending.push(byte);
    }
    send(view, stream, &mut pending)?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view_of_frame(frame: Frame) -> View<'static> {
        View {
            name: "agent",
            purpose: Purpose::Attach { control: false },
            frame: Some(frame),
            note: None,
            menu: false,
            drawn: Drawn::default(),
        }
    }

    /// The last rows of a 100×30 screen, clipped for a 60×16 terminal.
    fn clipped() -> Frame {
        Frame {
            cols: 100,
            rows: 30,
            first_col: 32,
            first_row: 15,
            view: (60, 15),
            lines: vec!["bottom right".to_string(); 15],
            ..Frame::default()
        }
    }

    #[test]
    fn a_frame_cut_for_the_view_before_the_persons_resize_is_not_drawn() {
        let mut out = Vec::new();
        view_of_frame(clipped()).draw(&mut out, (120, 40)).unwrap();
        assert!(out.is_empty(), "{}", String::from_utf8_lossy(&out));
        view_of_frame(clipped()).draw(&mut out, (60, 16)).unwrap();
        let drawn = String::from_utf8_lossy(&out);
        assert!(
            drawn.contains("bottom right") && drawn.contains("clipped to cols 33-92"),
            "{drawn}"
        );
    }

    #[test]
    fn a_frame_from_a_host_that_names_no_view_is_drawn() {
        let line = r#"{"cols":100,"rows":30,"first_col":32,"first_row":15,"lines":["bottom right"],"cursor":null,"title":"","application_cursor":false,"bracketed_paste":false,"mouse":{"tracking":"off","encoding":"x10"}}"#;
        let frame: Frame = serde_json::from_str(line).unwrap();
        assert_eq!(frame.view, (0, 0));
        let mut out = Vec::new();
        view_of_frame(frame).draw(&mut out, (120, 40)).unwrap();
        assert!(String::from_utf8_lossy(&out).contains("bottom right"));
    }
}
