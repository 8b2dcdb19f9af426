//! Reading asciicast recordings, v2 and v3, into one shape: a header and events with
//! absolute times; and replaying them through the engine.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

use serde_json::Value;

use crate::error::{Error, Result};
use crate::terminal::Terminal;

/// A recording's first line.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// 2 or 3.
    pub version: u8,
    /// Columns at the start.
    pub cols: u16,
    /// Rows at the start.
    pub rows: u16,
    /// When it started, in seconds since the Unix epoch, if it says.
    pub timestamp: Option<u64>,
    /// Its title, if it has one.
    pub title: Option<String>,
    /// The environment it names (`TERM`, `SHELL`).
    pub env: BTreeMap<String, String>,
}

/// One event of a recording.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Seconds since the recording started.
    pub time: f64,
    /// What happened.
    pub kind: EventKind,
}

impl Event {
    /// What the event does to a terminal showing the recording: output is drawn, a resize
    /// resizes it; other events leave it as it is.
    pub fn draw(&self, terminal: &mut Terminal) -> Result<()> {
        match &self.kind {
            EventKind::Output(data) => terminal.process(data.as_bytes()),
            EventKind::Resize(cols, rows) => terminal.resize(*cols, *rows)?,
            _ => {}
        }
        Ok(())
    }
}

/// What an event is.
#[derive(Clone, Debug, PartialEq)]
pub enum EventKind {
    /// `"o"`: the program's output.
    Output(String),
    /// `"i"`: what was sent to the program.
    Input(String),
    /// `"r"`: the terminal was resized to columns × rows.
    Resize(u16, u16),
    /// `"m"`: a marker with its label.
    Marker(String),
    /// `"x"` (v3): the program exited with this status.
    Exit(i32),
    /// Any other code, kept as it was.
    Other(String, String),
}

/// A whole recording.
#[derive(Clone, Debug, PartialEq)]
pub struct Recording {
    /// The first line.
    pub header: Header,
    /// The events in order, times never going back.
    pub events: Vec<Event>,
}

impl Recording {
    /// Reads a recording file.
    pub fn read_file(path: impl AsRef<Path>) -> Result<Recording> {
        let path = path.as_ref();
        let file = open_regular(path)?;
        Recording::read(std::io::BufReader::new(file), &path.display().to_string())
    }

    /// Reads a recording; `name` is what errors call it.
    pub fn read(reader: impl BufRead, name: &str) -> Result<Recording> {
        let mut events = CastEvents::new(reader, name)?;
        let header = events.header.clone();
        let events = events.by_ref().collect::<Result<Vec<Event>>>()?;
        Ok(Recording { header, events })
    }

    /// Its markers: when, and their labels.
    pub(crate) fn markers(&self) -> Vec<(f64, &str)> {
        self.events
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Marker(m) => Some((e.time, m.as_str())),
                _ => None,
            })
            .collect()
    }

    /// When the last event happened, in seconds.
    pub fn duration(&self) -> f64 {
        self.events.last().map_or(0.0, |e| e.time)
    }

    /// The screen at the end: every output and resize fed through a [`Terminal`].
    pub fn replay(&self) -> Result<Terminal> {
        self.replay_until(f64::INFINITY)
    }

    /// The screen after the events up to `time` seconds.
    pub fn replay_until(&self, time: f64) -> Result<Terminal> {
        let mut terminal = Terminal::new(self.header.cols, self.header.rows)?;
        for event in self.events.iter().take_while(|e| e.time <= time) {
            event.draw(&mut terminal)?;
        }
        Ok(terminal)
    }
}

/// A recording's events read one line at a time (the header first, when made), each
/// checked as it comes: what [`Recording::read`] collects and a [`CastFile`] replays.
pub struct CastEvents<R> {
    header: Header,
    lines: std::iter::Enumerate<std::io::Lines<R>>,
    name: String,
    /// The time of the event before, absolute.
    clock: f64,
}

impl<R: BufRead> CastEvents<R> {
    /// Reads the header; `name` is what errors call the recording.
    pub fn new(reader: R, name: &str) -> Result<CastEvents<R>> {
        let mut lines = reader.lines().enumerate();
        let header = loop {
            match lines.next() {
                Some((index, line)) => {
                    let line = line.map_err(|e| Error::io(format!("reading {name}"), e))?;
                    if !line.trim().is_empty() {
                        break parse_header(&line).map_err(|what| bad_line(name, index + 1, what))?;
                    }
                }
                None => return Err(bad_line(name, 1, "empty: not an asciicast recording".into())),
            }
        };
        Ok(CastEvents {
            header,
            lines,
            name: name.to_string(),
            clock: 0.0,
        })
    }

    /// The recording's first line.
    pub fn header(&self) -> &Header {
        &self.header
    }
}

impl<R: BufRead> Iterator for CastEvents<R> {
    type Item = Result<Event>;

    fn next(&mut self) -> Option<Result<Event>> {
        loop {
            let (index, line) = self.lines.next()?;
            let no = index + 1;
            let line = match line {
                Ok(line) => line,
                Err(e) => return Some(Err(Error::io(format!("reading {}", self.name), e))),
            };
            let trimmed = line.trim();
            // v3 allows comment lines; blank lines are harmless in both.
            if trimmed.is_empty() || (self.header.version == 3 && trimmed.starts_with('#')) {
                continue;
            }
            let (time, kind) = match parse_event(trimmed) {
                Ok(event) => event,
                Err(what) => return Some(Err(bad_line(&self.name, no, what))),
            };
            let time = if self.header.version == 3 {
                self.clock + time
            } else {
                time
            };
            if time + 1e-9 < self.clock {
                let what = format!("time {time} goes back (the previous event was at {})", self.clock);
                return Some(Err(bad_line(&self.name, no, what)));
            }
            self.clock = time;
            return Some(Ok(Event { time, kind }));
        }
    }
}

/// A recording on disk, replayed from the file on every pass instead of held in memory:
/// `render` and a tape's GIFs use it, so a recording of any length costs the same.
#[derive(Clone, Debug)]
pub struct CastFile {
    path: std::path::PathBuf,
    header: Header,
    markers: Vec<(f64, String)>,
    /// The last event's time.
    duration: f64,
    /// How many events draw (output and resizes).
    drawn: usize,
}

impl CastFile {
    /// Opens a recording and reads it through once: every line is checked and the markers
    /// noted. Only a regular file is read (a FIFO would block, and could not be read twice).
    pub fn open(path: impl AsRef<Path>) -> Result<CastFile> {
        let path = path.as_ref().to_path_buf();
        let file = open_regular(&path)?;
        let mut events = CastEvents::new(std::io::BufReader::new(file), &path.display().to_string())?;
        let (mut markers, mut duration, mut drawn) = (Vec::new(), 0.0, 0);
        for event in events.by_ref() {
            let event = event?;
            duration = event.time;
            match event.kind {
                EventKind::Marker(label) => markers.push((event.time, label)),
                EventKind::Output(_) | EventKind::Resize(..) => drawn += 1,
                _ => {}
            }
        }
        Ok(CastFile {
            header: events.header,
            path,
            markers,
            duration,
            drawn,
        })
    }

    /// The last event's time, in seconds.
    pub fn duration(&self) -> f64 {
        self.duration
    }

    /// The recording's first line.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Its markers: when, and their labels.
    pub fn markers(&self) -> Vec<(f64, &str)> {
        self.markers.iter().map(|(t, m)| (*t, m.as_str())).collect()
    }

    /// Its events, read from the file again.
    pub fn events(&self) -> Result<CastEvents<std::io::BufReader<std::fs::File>>> {
        let file = open_regular(&self.path)?;
        CastEvents::new(std::io::BufReader::new(file), &self.path.display().to_string())
    }
}

/// A recording a report replays: held in memory (a live session's, bounded by the session)
/// or read from its file on every pass, so that a recording of any length costs a report
/// the same memory.
#[derive(Clone, Debug)]
pub enum Replayable {
    /// In memory.
    Held(Recording),
    /// On disk.
    File(CastFile),
}

impl Replayable {
    /// The recording's first line.
    pub fn header(&self) -> &Header {
        match self {
            Replayable::Held(recording) => &recording.header,
            Replayable::File(file) => file.header(),
        }
    }

    /// The last event's time, in seconds.
    pub fn duration(&self) -> f64 {
        match self {
            Replayable::Held(recording) => recording.duration(),
            Replayable::File(file) => file.duration(),
        }
    }

    /// How many events draw (output and resizes).
    pub fn drawn(&self) -> usize {
        match self {
            Replayable::Held(recording) => recording
                .events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Output(_) | EventKind::Resize(..)))
                .count(),
            Replayable::File(file) => file.drawn,
        }
    }

    /// Its markers: when, and their labels.
    pub fn markers(&self) -> Vec<(f64, &str)> {
        match self {
            Replayable::Held(recording) => recording.markers(),
            Replayable::File(file) => file.markers(),
        }
    }

    /// Its events from the first, one at a time (from a file, read again).
    pub fn events(&self) -> Result<Box<dyn Iterator<Item = Result<Event>> + '_>> {
        Ok(match self {
            Replayable::Held(recording) => Box::new(recording.events.iter().cloned().map(Ok)),
            Replayable::File(file) => Box::new(file.events()?),
        })
    }
}

/// Opens `path` for reading if it is a regular file.
fn open_regular(path: &Path) -> Result<std::fs::File> {
    let file = crate::files::open_without_blocking(path)
        .map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    let regular = file
        .metadata()
        .map_err(|e| Error::io(format!("reading {}", path.display()), e))?
        .is_file();
    if !regular {
        return Err(Error::InvalidArgument {
            message: format!(
                "{} is not a regular file: give a recording (.cast) file",
                path.display()
            ),
        });
    }
    Ok(file)
}

fn bad_line(name: &str, line: usize, what: String) -> Error {
    Error::InvalidArgument {
        message: format!("{name}:{line}: {what}"),
    }
}

fn parse_header(line: &str) -> std::result::Result<Header, String> {
    let value: Value = serde_json::from_str(line)
        .map_err(|e| format!("the header is not JSON ({e}): not an asciicast recording"))?;
    let version = value["version"]
        .as_u64()
        .ok_or("the header has no `version`: not an asciicast recording")?;
    let size = |v: &Value, what: &str| -> std::result::Result<u16, String> {
        v.as_u64()
            .and_then(|n| u16::try_from(n).ok())
            .filter(|n| *n > 0)
            .ok_or(format!("the header's `{what}` is missing or not a size"))
    };
    let (cols, rows) = match version {
        2 => (size(&value["width"], "width")?, size(&value["height"], "height")?),
        3 => (
            size(&value["term"]["cols"], "term.cols")?,
            size(&value["term"]["rows"], "term.rows")?,
        ),
        other => return Err(format!("asciicast version {other}; versions 2 and 3 are read")),
    };
    let mut env: BTreeMap<String, String> = value["env"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                .collect()
        })
        .unwrap_or_default();
    if let Some(term) = value["term"]["type"].as_str() {
        env.entry("TERM".into()).or_insert_with(|| term.to_string());
    }
    Ok(Header {
        version: version as u8,
        cols,
        rows,
        timestamp: value["timestamp"].as_u64(),
        title: value["title"].as_str().map(str::to_string),
        env,
    })
}

fn parse_event(line: &str) -> std::result::Result<(f64, EventKind), String> {
    let value: Value = serde_json::from_str(line).map_err(|e| format!("not a JSON event ({e})"))?;
    let [time, code, data] = value
        .as_array()
        .and_then(|a| <&[Value; 3]>::try_from(a.as_slice()).ok())
        .ok_or("an event is an array of [time, code, data]")?;
    let time = time
        .as_f64()
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or("an event's time must be a number of seconds, not negative")?;
    let code = code.as_str().ok_or("an event's code must be a string")?;
    let text = || {
        data.as_str()
            .map(str::to_string)
            .ok_or(format!("a `{code}` event's data must be a string"))
    };
    let kind = match code {
        "o" => EventKind::Output(text()?),
        "i" => EventKind::Input(text()?),
        "m" => EventKind::Marker(text()?),
        "r" => {
            let size = text()?;
            let parsed = size
                .split_once('x')
                .and_then(|(c, r)| Some((c.parse::<u16>().ok()?, r.parse::<u16>().ok()?)))
                .filter(|(c, r)| *c > 0 && *r > 0);
            let (cols, rows) = parsed.ok_or(format!("a resize is \"COLSxROWS\", not {size:?}"))?;
            EventKind::Resize(cols, rows)
        }
        "x" => {
            let status = match data {
                Value::String(s) => s.parse().ok(),
                other => other.as_i64().and_then(|n| i32::try_from(n).ok()),
            };
            EventKind::Exit(status.ok_or("an exit event's data must be a status number")?)
        }
        other => EventKind::Other(other.to_string(), data.as_str().unwrap_or_default().to_string()),
    };
    Ok((time, kind))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Recording> {
        Recording::read(text.as_bytes(), "t.cast")
    }

    #[test]
    fn version_2_and_3_read_into_the_same_events() {
        let v2 = read(
            "{\"version\":2,\"width\":10,\"height\":3,\"env\":{\"TERM\":\"xterm\"}}\n[0.5,\"o\",\"hi\"]\n[1.25,\"r\",\"20x4\"]\n[2,\"m\",\"end\"]\n",
        )
        .unwrap();
        let v3 = read(
            "{\"version\":3,\"term\":{\"cols\":10,\"rows\":3,\"type\":\"xterm\"}}\n# a comment\n[0.5,\"o\",\"hi\"]\n[0.75,\"r\",\"20x4\"]\n[0.75,\"m\",\"end\"]\n",
        )
        .unwrap();
        assert_eq!(v2.events, v3.events);
        assert_eq!((v3.header.cols, v3.header.rows), (10, 3));
        assert_eq!(v3.header.env["TERM"], "xterm");
        assert_eq!(v2.replay().unwrap().size(), (20, 4));
    }

    #[test]
    fn bad_recordings_say_which_line_and_what() {
        let cases = [
            ("", "t.cast:1: empty"),
            ("hello\n", "t.cast:1: the header is not JSON"),
            (
                "{\"version\":1,\"width\":1,\"height\":1}\n",
                "t.cast:1: asciicast version 1",
            ),
            (
                "{\"version\":2,\"width\":0,\"height\":1}\n",
                "t.cast:1: the header's `width`",
            ),
            (
                "{\"version\":2,\"width\":5,\"height\":1}\n[1,\"o\"]\n",
                "t.cast:2: an event is an array",
            ),
            (
                "{\"version\":2,\"width\":5,\"height\":1}\n[2,\"o\",\"a\"]\n[1,\"o\",\"b\"]\n",
                "t.cast:3: time 1 goes back",
            ),
            (
                "{\"version\":2,\"width\":5,\"height\":1}\n[1,\"r\",\"big\"]\n",
                "t.cast:2: a resize is",
            ),
        ];
        for (text, want) in cases {
            let error = read(text).unwrap_err().to_string();
            assert!(error.starts_with(want), "{error:?} should start with {want:?}");
            assert!(!error.contains('\n'), "{error:?}");
        }
    }
}
