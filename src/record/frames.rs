//! A recording's screens on an animation's clock: what `render` turns into a GIF, PNG
//! frames or the last screen.
//!
//! The recording is replayed through the [`Terminal`]; a frame is made only when the
//! screen changed, never closer than `1 / fps_cap` to the previous one (the screen as it
//! is when the frame is due), and the clock is the recording's cut to `from..to`, its
//! pauses capped at `idle_limit` and divided by `speed`.
//!
//! Without a `to`, a recording of a full-screen program that left the alternate screen
//! ends on its last screen before it left ([`alternate_screen_end`]): what is left after
//! it is the shell's screen coming back, which is not what a picture of vim or htop is
//! for. `to` says otherwise.

use std::borrow::Cow;
use std::collections::VecDeque;

use super::cast::{CastFile, Event, EventKind, Header, Recording};
use super::passes::{RecordingFrames, Replayed};
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;

/// Where a cut is: seconds into the recording, or the first marker with this label.
#[derive(Clone, Debug, PartialEq)]
pub enum Cut {
    /// Seconds from the recording's start.
    Time(f64),
    /// The first marker whose label is this (or, failing that, contains it).
    Marker(String),
}

impl Cut {
    /// `12.5` or `12.5s` is a time; anything else names a marker.
    pub fn parse(text: &str) -> Cut {
        match text.strip_suffix('s').unwrap_or(text).parse::<f64>() {
            Ok(seconds) if seconds.is_finite() && seconds >= 0.0 => Cut::Time(seconds),
            _ => Cut::Marker(text.to_string()),
        }
    }
}

/// How a recording becomes frames.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameOptions {
    /// Playback speed (2.0: twice as fast).
    pub speed: f64,
    /// Pauses longer than this many seconds are cut to it (as agg's `--idle-time-limit`).
    pub idle_limit: Option<f64>,
    /// At most this many frames a second.
    pub fps_cap: u32,
    /// Start here (default: the start).
    pub from: Option<Cut>,
    /// End here (default: the last event, or for a program that left the alternate
    /// screen, its last screen there; see the module's docs).
    pub to: Option<Cut>,
    /// Stretches of the recording (start, end in seconds) left out of the animation: the
    /// screen keeps changing underneath, but no time passes and no frame is made (a tape's
    /// `Hide`…`Show`).
    pub hidden: Vec<(f64, f64)>,
    /// Also make frames where a keystroke overlay changes — when input is sent and as its
    /// label fades ([`OVERLAY_FADE`]) — even if the screen did not.
    pub keys: bool,
}

/// When a keystroke label starts to fade, fades further, and is gone (seconds after
/// the input); its opacity before each: 1, 0.6, 0.3.
pub const OVERLAY_FADE: [f64; 3] = [0.6, 0.8, 1.0];

impl Default for FrameOptions {
    fn default() -> FrameOptions {
        FrameOptions {
            speed: 1.0,
            idle_limit: None,
            fps_cap: 30,
            from: None,
            to: None,
            hidden: Vec::new(),
            keys: false,
        }
    }
}

/// One frame: a screen and when it appears on the animation's clock.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Seconds from the animation's start.
    pub time: f64,
    /// How long it stays, in seconds.
    pub duration: f64,
    /// The screen.
    pub screen: Snapshot,
    /// Input sent in the second before this frame, oldest first, with how many seconds
    /// before the frame it was sent (for a keystroke overlay).
    pub keys: Vec<(f64, String)>,
}

/// How long the last frame stays when nothing follows it.
const LAST_FRAME_HOLD: f64 = 1.0;

impl Recording {
    /// The recording's frames (see the module's docs), all of them at once: for a long
    /// recording prefer [`Recording::frame_stream`], which holds one or two.
    pub fn frames(&self, options: &FrameOptions) -> Result<Vec<Frame>> {
        self.frame_stream(options)?.collect()
    }

    /// The recording's frames made one at a time (see the module's docs): a screen is
    /// taken when its frame is due and let go once the frame is handed on, so memory does
    /// not grow with the number of frames. Bad options are refused here, before any frame
    /// is made.
    pub fn frame_stream(&self, options: &FrameOptions) -> Result<FrameStream<'_>> {
        let end = match options.to {
            Some(_) => None,
            None => alternate_screen_end(&self.header, self.events.iter().map(|e| Ok(Cow::Borrowed(e))))?,
        };
        let events = self.events.iter().map(|e| Ok(Cow::Borrowed(e)));
        FrameStream::new(&self.header, &self.markers(), Box::new(events), options, end)
    }

    /// The recording's frames as a [`FrameSource`](super::FrameSource); bad options are refused here.
    pub fn frame_source(&self, options: &FrameOptions) -> Result<RecordingFrames<'_>> {
        self.frame_stream(options)?;
        Ok(RecordingFrames {
            recording: Replayed::Memory(self),
            options: options.clone(),
        })
    }
}

impl CastFile {
    /// The recording's frames made one at a time as the file is read: neither its events
    /// nor its frames are held, so memory does not grow with the recording's length.
    pub fn frame_stream(&self, options: &FrameOptions) -> Result<FrameStream<'_>> {
        let end = match options.to {
            Some(_) => None,
            None => alternate_screen_end(self.header(), self.events()?.map(|e| e.map(Cow::Owned)))?,
        };
        let events = self.events()?.map(|e| e.map(Cow::Owned));
        FrameStream::new(self.header(), &self.markers(), Box::new(events), options, end)
    }

    /// The recording's frames as a [`FrameSource`](super::FrameSource), each pass reading the file again; bad
    /// options are refused here.
    pub fn frame_source(&self, options: &FrameOptions) -> Result<RecordingFrames<'_>> {
        self.frame_stream(options)?;
        Ok(RecordingFrames {
            recording: Replayed::File(self),
            options: options.clone(),
        })
    }
}

/// When a recording that left the alternate screen should end by default: just before
/// the event that left it (the last time it left, when it was not in it again at the
/// end). `None` when it never used the alternate screen or is still in it at the end.
/// What the main screen shows after — the shell's screen coming back, a program's exit
/// message — is not the program; `to` reaches it.
pub fn alternate_screen_end<'r>(
    header: &Header,
    events: impl Iterator<Item = Result<Cow<'r, Event>>>,
) -> Result<Option<f64>> {
    let mut terminal = Terminal::new(header.cols, header.rows)?;
    // The time of the last event seen in the alternate screen, once the program left it.
    let mut left: Option<f64> = None;
    let mut previous_time = 0.0;
    let mut was_alternate = false;
    for event in events {
        let event = event?;
        if !matches!(event.kind, EventKind::Output(_) | EventKind::Resize(..)) {
            continue;
        }
        event.draw(&mut terminal)?;
        let alternate = terminal.alternate_screen();
        if was_alternate && !alternate {
            left = Some(previous_time);
        } else if alternate {
            left = None;
        }
        was_alternate = alternate;
        previous_time = event.time;
    }
    Ok(left)
}

/// Where a cut is, in the recording's seconds, given its markers.
fn resolve(cut: &Cut, markers: &[(f64, &str)]) -> Result<f64> {
    match cut {
        Cut::Time(t) => Ok(*t),
        Cut::Marker(label) => markers
            .iter()
            .find(|(_, m)| *m == label)
            .or_else(|| markers.iter().find(|(_, m)| m.contains(label.as_str())))
            .map(|(t, _)| *t)
            .ok_or_else(|| {
                let some: Vec<&str> = markers.iter().take(5).map(|(_, m)| *m).collect();
                bad(if some.is_empty() {
                    format!(
                        "no marker `{label}`: the recording has no markers; cut at a time in seconds instead"
                    )
                } else {
                    format!("no marker `{label}`; the first markers are: {}", some.join(" | "))
                })
            }),
    }
}

/// The events a frame stream replays: borrowed from a recording in memory, or read from
/// a file as they are needed.
type EventsIn<'r> = Box<dyn Iterator<Item = Result<Cow<'r, Event>>> + 'r>;

/// A recording's frames, made one at a time; see [`Recording::frame_stream`].
pub struct FrameStream<'r> {
    events: EventsIn<'r>,
    terminal: Terminal,
    options: FrameOptions,
    from: f64,
    to: f64,
    /// The shortest time between two frames: `1 / fps_cap`.
    interval: f64,
    /// The animation's clock: recording time after `from`, pauses capped, sped up.
    clock: f64,
    /// When (in the recording) the last event in the cut happened.
    last_event: f64,
    /// Input on the animation's clock, from a second before the frame being handed on:
    /// older input labels no frame still to come.
    inputs: VecDeque<(f64, String)>,
    /// The screen's fingerprint when the last frame was made.
    shown: Option<u64>,
    /// Since when the screen differs from the last frame.
    dirty_since: Option<f64>,
    /// The earliest time the next frame may have.
    next_allowed: f64,
    /// Every event of the cut has been replayed and the last frame made.
    replayed: bool,
    /// The newest frame made: its duration (and the overlay's pieces of it) are known once
    /// the frame after it is made.
    held: Option<Frame>,
    /// The frame being handed on, piece by piece: its screen, the times its pieces start
    /// (more than one where the keystroke overlay changes), and when the last piece ends.
    handing: Option<(Frame, VecDeque<f64>, f64)>,
    /// An error ends the stream.
    failed: bool,
}

impl Iterator for FrameStream<'_> {
    type Item = Result<Frame>;

    fn next(&mut self) -> Option<Result<Frame>> {
        loop {
            if let Some(frame) = self.next_piece() {
                return Some(Ok(frame));
            }
            if self.failed {
                return None;
            }
            match self.hand_on_held() {
                Ok(true) => {}
                Ok(false) => return None,
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

impl<'r> FrameStream<'r> {
    /// A stream over `events` of a recording with this header and these markers.
    fn new(
        header: &Header,
        markers: &[(f64, &str)],
        events: EventsIn<'r>,
        options: &FrameOptions,
        default_end: Option<f64>,
    ) -> Result<FrameStream<'r>> {
        if !(options.speed.is_finite() && options.speed > 0.0) {
            return Err(bad(format!("speed {} must be a positive number", options.speed)));
        }
        if options.fps_cap == 0 {
            return Err(bad("fps cap 0: at least one frame a second is needed".into()));
        }
        if let Some(limit) = options.idle_limit
            && !(limit.is_finite() && limit > 0.0)
        {
            return Err(bad(format!(
                "idle limit {limit} must be a positive number of seconds"
            )));
        }
        let from = options.from.as_ref().map_or(Ok(0.0), |c| resolve(c, markers))?;
        let to = options.to.as_ref().map_or(
            Ok(default_end.filter(|end| *end >= from).unwrap_or(f64::INFINITY)),
            |c| resolve(c, markers),
        )?;
        if to < from {
            return Err(bad(format!("the end ({to} s) comes before the start ({from} s)")));
        }
        Ok(FrameStream {
            events,
            terminal: Terminal::new(header.cols, header.rows)?,
            options: options.clone(),
            from,
            to,
            interval: 1.0 / f64::from(options.fps_cap),
            clock: 0.0,
            last_event: from,
            inputs: VecDeque::new(),
            shown: None,
            dirty_since: None,
            next_allowed: 0.0,
            replayed: false,
            held: None,
            handing: None,
            failed: false,
        })
    }
}

impl FrameStream<'_> {
    /// The next piece of the frame being handed on, with its duration and the keys shown.
    fn next_piece(&mut self) -> Option<Frame> {
        let (frame, starts, until) = self.handing.as_mut()?;
        let time = starts.pop_front()?;
        let ends = starts.front().copied().unwrap_or(*until);
        let keys = keys_at(self.inputs.make_contiguous(), time);
        let piece = if starts.is_empty() {
            let (frame, _, _) = self.handing.take()?;
            frame.screen
        } else {
            frame.screen.clone()
        };
        Some(Frame {
            time,
            duration: ends - time,
            screen: piece,
            keys,
        })
    }

    /// Makes the frame after the held one and starts handing the held one on; false when
    /// no frame is left.
    fn hand_on_held(&mut self) -> Result<bool> {
        let held = match self.held.take() {
            Some(frame) => frame,
            None => match self.make_frame()? {
                Some(frame) => frame,
                None => return Ok(false),
            },
        };
        self.held = self.make_frame()?;
        let until = match &self.held {
            Some(next) => next.time,
            None => held.time.max(self.clock) + LAST_FRAME_HOLD,
        };
        // Older input can neither label this frame nor split it.
        while self
            .inputs
            .front()
            .is_some_and(|(t, _)| t + OVERLAY_FADE[2] < held.time)
        {
            self.inputs.pop_front();
        }
        let mut starts = VecDeque::from([held.time]);
        if self.options.keys {
            // The frame split where a keystroke label appears or fades, no piece shorter
            // than the interval.
            let mut points: Vec<f64> = self
                .inputs
                .iter()
                .flat_map(|(t, _)| std::iter::once(*t).chain(OVERLAY_FADE.iter().map(move |d| t + d)))
                .filter(|p| *p > held.time && *p < until)
                .collect();
            points.sort_by(f64::total_cmp);
            let mut start = held.time;
            for p in points {
                if p - start >= self.interval && until - p >= self.interval {
                    starts.push_back(p);
                    start = p;
                }
            }
        }
        self.handing = Some((held, starts, until));
        Ok(true)
    }

    /// Replays events until the next frame is due and makes it (its duration still 0);
    /// `None` once the cut has been replayed and its last frame made.
    fn make_frame(&mut self) -> Result<Option<Frame>> {
        if self.replayed {
            return Ok(None);
        }
        let snap = |terminal: &Terminal, time: f64| Frame {
            time,
            duration: 0.0,
            screen: terminal.snapshot(),
            keys: Vec::new(),
        };
        for event in self.events.by_ref() {
            let event = event?;
            if event.time > self.to {
                break;
            }
            let mut made = None;
            if event.time >= self.from {
                let mut gap = visible(self.last_event.max(self.from), event.time, &self.options.hidden);
                if let Some(limit) = self.options.idle_limit {
                    gap = gap.min(limit);
                }
                self.clock += gap / self.options.speed;
                self.last_event = event.time;
                if self.shown.is_none() {
                    // The screen as it was at `from` is the first frame.
                    self.shown = Some(self.terminal.fingerprint());
                    made = Some(snap(&self.terminal, 0.0));
                    self.next_allowed = self.interval;
                } else if let Some(since) = self.dirty_since {
                    // A frame due before a hidden stretch is still made; inside one the
                    // clock stands still, so none is.
                    let due = since.max(self.next_allowed);
                    if self.clock > due {
                        made = Some(snap(&self.terminal, due));
                        self.shown = Some(self.terminal.fingerprint());
                        self.next_allowed = due + self.interval;
                        self.dirty_since = None;
                    }
                }
            }
            event.draw(&mut self.terminal)?;
            if event.time >= self.from {
                if let EventKind::Input(keys) = &event.kind {
                    self.inputs.push_back((self.clock, keys.clone()));
                }
                if self.dirty_since.is_none() && self.shown != Some(self.terminal.fingerprint()) {
                    self.dirty_since = Some(self.clock);
                }
            }
            if made.is_some() {
                return Ok(made);
            }
        }
        self.replayed = true;
        Ok(if self.shown.is_none() {
            self.shown = Some(self.terminal.fingerprint());
            Some(snap(&self.terminal, 0.0))
        } else {
            self.dirty_since
                .take()
                .map(|since| snap(&self.terminal, since.max(self.next_allowed)))
        })
    }
}

/// The input of the second before `at` (until its label is gone), with how long ago.
fn keys_at(inputs: &[(f64, String)], at: f64) -> Vec<(f64, String)> {
    inputs
        .iter()
        .filter(|(t, _)| *t <= at && at - *t < OVERLAY_FADE[2])
        .map(|(t, k)| (at - t, k.clone()))
        .collect()
}

/// Seconds of `from..to` outside every hidden stretch.
fn visible(from: f64, to: f64, hidden: &[(f64, f64)]) -> f64 {
    let covered: f64 = hidden
        .iter()
        .map(|(a, b)| (b.min(to) - a.max(from)).max(0.0))
        .sum();
    (to - from - covered).max(0.0)
}

fn bad(message: String) -> Error {
    Error::InvalidArgument { message }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{FrameSource, LoopFrom, LoopOffset};

    fn recording(events: &str) -> Recording {
        let text = format!("{{\"version\":2,\"width\":10,\"height\":2}}\n{events}");
        Recording::read(text.as_bytes(), "t.cast").unwrap()
    }

    fn frame_texts(frames: &[Frame]) -> Vec<(f64, String)> {
        frames
            .iter()
            .map(|f| {
                (
                    (f.time * 1000.0).round() / 1000.0,
                    f.screen.text().trim_end().to_string(),
                )
            })
            .collect()
    }

    #[test]
    fn a_frame_is_made_only_when_the_screen_changed() {
        let r = recording("[0.5,\"o\",\"a\"]\n[1.0,\"m\",\"mark\"]\n[1.5,\"o\",\"\"]\n[2.0,\"o\",\"b\"]\n");
        let frames = r.frames(&FrameOptions::default()).unwrap();
        assert_eq!(
            frame_texts(&frames),
            [(0.0, String::new()), (0.5, "a".into()), (2.0, "ab".into())]
        );
        assert_eq!(
            frames.last().unwrap().duration,
            1.0,
            "the last frame is held a second"
        );
    }

    #[test]
    fn pauses_are_capped_and_the_clock_sped_up() {
        let r = recording("[1,\"o\",\"a\"]\n[11,\"o\",\"b\"]\n");
        let options = FrameOptions {
            idle_limit: Some(2.0),
            speed: 2.0,
            ..FrameOptions::default()
        };
        assert_eq!(
            frame_texts(&r.frames(&options).unwrap()),
            [(0.0, String::new()), (0.5, "a".into()), (1.5, "ab".into())]
        );
    }

    #[test]
    fn the_frame_rate_cap_shows_the_screen_as_it_is_when_a_frame_is_due() {
        let r = recording("[0.01,\"o\",\"a\"]\n[0.02,\"o\",\"b\"]\n[0.03,\"o\",\"c\"]\n[1,\"o\",\"d\"]\n");
        let options = FrameOptions {
            fps_cap: 10,
            ..FrameOptions::default()
        };
        assert_eq!(
            frame_texts(&r.frames(&options).unwrap()),
            [(0.0, String::new()), (0.1, "abc".into()), (1.0, "abcd".into())]
        );
    }

    #[test]
    fn cuts_at_markers_or_times_and_bad_cuts_say_why() {
        let r = recording("[1,\"o\",\"a\"]\n[2,\"m\",\"t.tape:3 Type\"]\n[3,\"o\",\"b\"]\n[4,\"o\",\"c\"]\n");
        let options = FrameOptions {
            from: Some(Cut::parse("Type")),
            to: Some(Cut::parse("3.5")),
            ..FrameOptions::default()
        };
        assert_eq!(
            frame_texts(&r.frames(&options).unwrap()),
            [(0.0, "a".into()), (1.0, "ab".into())]
        );
        let missing = FrameOptions {
            from: Some(Cut::parse("nope")),
            ..FrameOptions::default()
        };
        let error = r.frames(&missing).unwrap_err().to_string();
        assert!(
            error.contains("no marker `nope`; the first markers are: t.tape:3 Type"),
            "{error}"
        );
        let backwards = FrameOptions {
            from: Some(Cut::Time(3.0)),
            to: Some(Cut::Time(1.0)),
            ..FrameOptions::default()
        };
        assert!(r.frames(&backwards).is_err());
    }

    #[test]
    fn input_in_the_second_before_a_frame_rides_along_for_the_overlay() {
        let r = recording("[0.5,\"i\",\"\\u0003\"]\n[0.6,\"o\",\"^C\"]\n[3,\"o\",\"x\"]\n");
        let frames = r.frames(&FrameOptions::default()).unwrap();
        assert_eq!(frames[1].keys.len(), 1);
        assert!((frames[1].keys[0].0 - 0.1).abs() < 1e-9);
        assert!(frames[2].keys.is_empty(), "faded after a second");
    }

    #[test]
    fn hidden_stretches_take_no_time_and_make_no_frames() {
        let r = recording("[1,\"o\",\"a\"]\n[2,\"o\",\"b\"]\n[3,\"o\",\"c\"]\n[4,\"o\",\"d\"]\n");
        let options = FrameOptions {
            hidden: vec![(1.5, 3.5)],
            ..FrameOptions::default()
        };
        assert_eq!(
            frame_texts(&r.frames(&options).unwrap()),
            [
                (0.0, String::new()),
                (1.0, "a".into()),
                (1.5, "abc".into()),
                (2.0, "abcd".into())
            ],
            "b and c happen while hidden: the screen after Show is the next frame"
        );
    }

    #[test]
    fn a_loop_offset_starts_the_animation_later_and_wraps_around() {
        let r = recording("[1,\"o\",\"a\"]\n[2,\"o\",\"b\"]\n");
        let frames = r.frames(&FrameOptions::default()).unwrap();
        let looped = LoopFrom::new(&frames, LoopOffset::Seconds(1.5));
        let frames: Vec<Frame> = looped.pass().unwrap().map(Result::unwrap).collect();
        assert_eq!(
            frame_texts(&frames),
            [(0.0, "a".into()), (1.0, "ab".into()), (2.0, String::new())]
        );
    }

    #[test]
    fn the_overlay_makes_frames_where_a_label_appears_and_fades() {
        let r = recording("[1,\"o\",\"a\"]\n[2,\"i\",\"x\"]\n[5,\"o\",\"b\"]\n");
        let options = FrameOptions {
            keys: true,
            ..FrameOptions::default()
        };
        let frames = r.frames(&options).unwrap();
        let times: Vec<f64> = frames.iter().map(|f| (f.time * 100.0).round() / 100.0).collect();
        assert_eq!(times, [0.0, 1.0, 2.0, 2.6, 2.8, 3.0, 5.0]);
        let labels: Vec<usize> = frames.iter().map(|f| f.keys.len()).collect();
        assert_eq!(labels, [0, 0, 1, 1, 1, 0, 0]);
        assert_eq!(frames[3].screen.text().trim_end(), "a");
    }

    #[test]
    fn a_cast_file_streams_the_same_frames_as_the_recording_read_whole() {
        let text = "{\"version\":2,\"width\":10,\"height\":2}\n[0.5,\"o\",\"a\"]\n[0.7,\"i\",\"x\"]\n[1.0,\"m\",\"go\"]\n[1.5,\"o\",\"b\"]\n[2.0,\"o\",\"\\u001b[2Jc\"]\n";
        let dir = std::env::temp_dir().join(format!("tuipilot-frames-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.cast");
        std::fs::write(&path, text).unwrap();
        let whole = Recording::read(text.as_bytes(), "t.cast").unwrap();
        let file = CastFile::open(&path).unwrap();
        for options in [
            FrameOptions::default(),
            FrameOptions {
                from: Some(Cut::parse("go")),
                keys: true,
                ..FrameOptions::default()
            },
        ] {
            let streamed: Vec<Frame> = file.frame_stream(&options).unwrap().map(Result::unwrap).collect();
            let collected = whole.frames(&options).unwrap();
            assert_eq!(frame_texts(&streamed), frame_texts(&collected));
            let durations = |f: &[Frame]| f.iter().map(|f| f.duration).collect::<Vec<f64>>();
            assert_eq!(durations(&streamed), durations(&collected));
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
