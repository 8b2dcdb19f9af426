//! What the program tells the terminal besides the screen: shell-integration marks (OSC
//! 133), the working directory (OSC 7), clipboard writes (OSC 52), hyperlinks (OSC 8),
//! desktop notifications (OSC 9, OSC 777) and the title stack (`CSI 22 t` / `CSI 23 t`).
//!
//! A real terminal acts on these (copies to the clipboard, opens a notification); this one
//! keeps them for a test or an agent to read and wait on, and forwards nothing to the
//! machine it runs on. Everything kept is bounded: a program cannot grow it without limit.
//!
//! Rows of a shell command's regions are kept with the number of lines the screen had
//! scrolled when each mark arrived, so they can be read against the screen as it is later
//! (see [`Terminal::last_command`](super::Terminal::last_command)).

use std::collections::VecDeque;

use base64::Engine;
use serde::{Deserialize, Serialize};

/// The most bytes of decoded clipboard text kept.
pub const MAX_CLIPBOARD_BYTES: usize = 1 << 20;
/// Hyperlinks kept (the most recent).
const MAX_LINKS: usize = 256;
/// Notifications kept (the most recent).
const MAX_NOTIFICATIONS: usize = 32;
/// Titles the title stack holds, as xterm allows.
const MAX_TITLES: usize = 10;
/// The longest string kept from one OSC (a URI, a path, a notification).
const MAX_FIELD: usize = 4096;

/// A write to the clipboard (OSC 52), decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClipboardWrite {
    /// Which selections it was for (`c` clipboard, `p` primary, `s` …), as the program said.
    pub selection: String,
    /// The text, decoded from base64 (invalid UTF-8 replaced), cut at 1 MiB — or, in a
    /// reply, at [`REPLY_CLIPBOARD_BYTES`] (see `bytes`).
    pub text: String,
    /// How long the written text was, in bytes, whatever `text` holds of it.
    #[serde(default)]
    pub bytes: usize,
}

/// How much of a clipboard write a reply carries (the rest is counted in `bytes`; the
/// library's [`Session::clipboard`](crate::Session::clipboard) has all of it): a program
/// that writes a megabyte of control characters must not make every reply megabytes.
pub const REPLY_CLIPBOARD_BYTES: usize = 1024;
/// How much of a link's URI a reply carries.
pub const REPLY_LINK_URI_BYTES: usize = 1024;
/// How many of the screen's links a reply carries (the last written).
pub const REPLY_LINKS: usize = 64;

impl ClipboardWrite {
    /// This write as a reply carries it: its text cut at `most` bytes.
    pub fn cut_to(&self, most: usize) -> ClipboardWrite {
        ClipboardWrite {
            selection: self.selection.clone(),
            text: cut_at(&self.text, most),
            bytes: self.bytes,
        }
    }
}

/// A hyperlink (OSC 8) on the screen: the cells its text was written to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Where it points.
    pub uri: String,
    /// The text the program wrote under it.
    pub text: String,
    /// The row, 0-based.
    pub row: u16,
    /// The first column, 0-based.
    pub col: u16,
    /// One past the last column.
    pub end_col: u16,
}

/// A desktop notification (OSC 9 `body`, or OSC 777 `notify;title;body`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// The title (empty for OSC 9).
    pub title: String,
    /// The message.
    pub body: String,
}

/// Rows of the screen, `start..end` (0-based, `end` exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rows {
    /// The first row.
    pub start: u16,
    /// One past the last row.
    pub end: u16,
}

/// The last command a shell ran, as its OSC 133 marks described it, with its regions in
/// rows of the screen as it is now. A region that scrolled off the top starts at row 0
/// (and `scrolled_off` says so).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastCommand {
    /// The command's exit code, if the shell said.
    pub exit_code: Option<i32>,
    /// The prompt's rows (from `133;A` to `133;B`).
    pub prompt: Option<Rows>,
    /// The command line's rows (from `133;B` to `133;C`).
    pub command: Option<Rows>,
    /// The output's rows (from `133;C` to `133;D`).
    pub output: Option<Rows>,
    /// Part of a region is no longer on the screen.
    pub scrolled_off: bool,
}

/// Where a mark was: the cursor's row and how far the screen had scrolled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Place {
    row: u16,
    scrolled: u64,
}

/// The marks of one command, as they arrive.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Marks {
    prompt: Option<Place>,
    command: Option<Place>,
    output: Option<Place>,
    end: Option<Place>,
    exit_code: Option<i32>,
}

/// Everything kept from the program's signals.
#[derive(Clone, Debug, Default)]
pub struct Signals {
    /// Commands the shell reported finished (`133;D`).
    pub commands_finished: u64,
    /// Whether any OSC 133 mark has arrived (the shell speaks shell integration).
    pub shell_integration: bool,
    /// The working directory the program reported (OSC 7), as a path.
    pub cwd: Option<String>,
    /// How many times OSC 7 arrived.
    pub cwd_changes: u64,
    /// The last clipboard write.
    pub clipboard: Option<ClipboardWrite>,
    /// How many clipboard writes arrived.
    pub clipboard_writes: u64,
    /// Notifications, the most recent last.
    pub notifications: VecDeque<Notification>,
    /// Titles pushed with `CSI 22 t`, the most recent last.
    pub title_stack: Vec<String>,
    links: VecDeque<Link>,
    /// The link being written: its URI and the cell (row, column) it starts at.
    open_link: Option<(String, u16, u16)>,
    current: Marks,
    finished: Option<Marks>,
}

/// Lines scrolled so far, when the screen can tell: the scrollback's length (which stops
/// growing at its cap).
pub(crate) fn scrolled(screen: &vt100::Screen) -> u64 {
    screen.scrollback_len() as u64
}

fn place(screen: &vt100::Screen) -> Place {
    let rows = screen.size().0.get();
    Place {
        row: screen.cursor_position().0.min(rows.saturating_sub(1)),
        scrolled: scrolled(screen),
    }
}

fn cut(text: &str) -> String {
    cut_at(text, MAX_FIELD)
}

/// `text` cut at `most` bytes, on a character boundary.
pub(crate) fn cut_at(text: &str, most: usize) -> String {
    let mut end = text.len().min(most);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The path of an OSC 7 `file://host/path` URI, percent-decoded.
fn file_uri_path(uri: &str) -> String {
    let rest = uri.strip_prefix("file://").unwrap_or(uri);
    let path = rest.find('/').map_or(rest, |at| &rest[at..]);
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(hi), Some(lo)) = (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            )
        {
            out.push((hi * 16 + lo) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    cut(&String::from_utf8_lossy(&out))
}

impl Signals {
    /// Takes one OSC string's content (what is between `ESC ]` and its terminator), with
    /// the screen as it is at that point of the stream.
    pub(crate) fn osc(&mut self, content: &[u8], screen: &vt100::Screen) {
        let text = String::from_utf8_lossy(content);
        let (code, rest) = text.split_once(';').unwrap_or((&text, ""));
        match code {
            "133" => self.shell_mark(rest, screen),
            "7" => {
                self.cwd = Some(file_uri_path(rest));
                self.cwd_changes += 1;
            }
            "52" => {
                let (selection, data) = rest.split_once(';').unwrap_or(("", rest));
                // `?` asks to read the clipboard: never answered, nothing is kept.
                if data == "?" {
                    return;
                }
                let decoded = base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .unwrap_or_default();
                let mut text =
                    String::from_utf8_lossy(&decoded[..decoded.len().min(MAX_CLIPBOARD_BYTES)]).into_owned();
                if text.ends_with('\u{fffd}') && decoded.len() > MAX_CLIPBOARD_BYTES {
                    text.pop();
                }
                self.clipboard = Some(ClipboardWrite {
                    selection: cut(if selection.is_empty() { "s 0" } else { selection }),
                    text,
                    bytes: decoded.len(),
                });
                self.clipboard_writes += 1;
            }
            "8" => self.hyperlink(rest, screen),
            "9" if !rest.starts_with("4;") => self.notify(String::new(), rest),
            "777" => {
                let mut fields = rest.splitn(3, ';');
                if fields.next() == Some("notify") {
                    let title = fields.next().unwrap_or("").to_string();
                    self.notify(title, fields.next().unwrap_or(""));
                }
            }
            _ => {}
        }
    }

    fn notify(&mut self, title: String, body: &str) {
        if self.notifications.len() == MAX_NOTIFICATIONS {
            self.notifications.pop_front();
        }
        self.notifications.push_back(Notification {
            title: cut(&title),
            body: cut(body),
        });
    }

    /// The exit code the shell reported for its last finished command (`133;D;N`).
    pub fn last_exit_code(&self) -> Option<i32> {
        self.finished.and_then(|marks| marks.exit_code)
    }

    /// Whether the shell shows a prompt and runs no command: its last OSC 133 marks are a
    /// prompt (`A`, perhaps `B`) with no command output (`C`) after them.
    pub fn at_prompt(&self) -> bool {
        self.current.prompt.is_some() && self.current.output.is_none()
    }

    fn shell_mark(&mut self, rest: &str, screen: &vt100::Screen) {
        self.shell_integration = true;
        let mut fields = rest.split(';');
        let here = place(screen);
        match fields.next() {
            Some("A") => {
                self.current = Marks {
                    prompt: Some(here),
                    ..Marks::default()
                }
            }
            Some("B") => self.current.command = Some(here),
            Some("C") => self.current.output = Some(here),
            Some("D") => {
                // A `D` with no command run (a prompt redrawn, Ctrl-C at the prompt) has no
                // `C` before it: it ends nothing.
                if self.current.output.is_none() {
                    return;
                }
                self.current.end = Some(here);
                self.current.exit_code = fields.next().and_then(|code| code.trim().parse().ok());
                self.finished = Some(self.current);
                self.commands_finished += 1;
                self.current = Marks::default();
            }
            _ => {}
        }
    }

    fn hyperlink(&mut self, rest: &str, screen: &vt100::Screen) {
        // `8;params;URI`: an empty URI closes the link that is open.
        let uri = rest.split_once(';').map_or("", |(_, uri)| uri);
        let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
        let (row, col) = screen.cursor_position();
        let (row, col) = (row.min(rows.saturating_sub(1)), col.min(cols));
        if let Some((open_uri, start_row, start_col)) = self.open_link.take()
            && row == start_row
            && col > start_col
        {
            let text: String = screen
                .rows(start_col, col - start_col)
                .nth(usize::from(row))
                .unwrap_or_default();
            if self.links.len() == MAX_LINKS {
                self.links.pop_front();
            }
            self.links.push_back(Link {
                uri: open_uri,
                text: text.trim_end().to_string(),
                row,
                col: start_col,
                end_col: col,
            });
        }
        if !uri.is_empty() {
            self.open_link = Some((cut(uri), row, col));
        }
    }

    /// The hyperlinks whose text is still on the screen where it was written.
    pub(crate) fn links(&self, screen: &vt100::Screen) -> Vec<Link> {
        let cols = screen.size().1.get();
        let mut links: Vec<Link> = self
            .links
            .iter()
            .filter(|link| {
                link.end_col <= cols
                    && screen
                        .rows(link.col, link.end_col - link.col)
                        .nth(usize::from(link.row))
                        .is_some_and(|text| text.trim_end() == link.text)
            })
            .cloned()
            .collect();
        // A cell rewritten with another link replaces the older one.
        links.reverse();
        let mut seen = Vec::new();
        links.retain(|l| {
            let key = (l.row, l.col);
            let new = !seen.contains(&key);
            seen.push(key);
            new
        });
        links.reverse();
        links
    }

    /// The last finished command's regions on the screen as it is now (`scrolled` lines
    /// scrolled so far; `rows` the screen's height).
    pub(crate) fn last_command(&self, scrolled_now: u64, rows: u16) -> Option<LastCommand> {
        let marks = self.finished?;
        let mut scrolled_off = false;
        let mut at = |place: Option<Place>| {
            place.map(|p| {
                let moved = scrolled_now.saturating_sub(p.scrolled);
                let row = i64::from(p.row) - moved as i64;
                if row < 0 {
                    scrolled_off = true;
                }
                row.clamp(0, i64::from(rows)) as u16
            })
        };
        let prompt = at(marks.prompt);
        let command = at(marks.command);
        let output = at(marks.output);
        let end = at(marks.end);
        let span = |from: Option<u16>, to: Option<u16>, last_row_included: bool| {
            let (from, to) = (from?, to?);
            let end = if last_row_included { to + 1 } else { to.max(from) };
            Some(Rows {
                start: from,
                end: end.min(rows).max(from),
            })
        };
        Some(LastCommand {
            exit_code: marks.exit_code,
            // The prompt and the command line share the prompt's last row; with no `B`
            // mark (fish, or a prompt an rc file replaced) the prompt runs to the output.
            prompt: match command {
                Some(_) => span(prompt, command, true),
                None => span(prompt, output, false),
            },
            command: span(command, output, false).map(|r| Rows {
                end: r.end.max(r.start + 1).min(rows),
                ..r
            }),
            output: span(output, end, false),
            scrolled_off,
        })
    }

    /// `CSI 22 t`: pushes the title.
    pub(crate) fn push_title(&mut self, title: &str) {
        if self.title_stack.len() == MAX_TITLES {
            self.title_stack.remove(0);
        }
        self.title_stack.push(title.to_string());
    }

    /// `CSI 23 t`: pops a title, if any was pushed.
    pub(crate) fn pop_title(&mut self) -> Option<String> {
        self.title_stack.pop()
    }
}

#[cfg(test)]
mod tests;
