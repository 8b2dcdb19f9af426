//! A recording's screens on an animation's clock: what `render` turns into a GIF, PNG
//! frames or the last screen.
//!
//! The recording is replayed through the [`Terminal`]; a frame is made only when the
//! screen changed, never closer than `1 / fps_cap` to the previous one (the screen as it
//! is when the frame is due), and the clock is the recording's cut to `from..to`, its
//! pauses capped at `idle_limit` and divided by `speed`.

use super::cast::{EventKind, Recording};
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
    /// End here (default: the last event).
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
    /// The recording's frames (see the module's docs).
    pub fn frames(&self, options: &FrameOptions) -> Result<Vec<Frame>> {
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
        let from = options.from.as_ref().map_or(Ok(0.0), |c| self.resolve(c))?;
        let to = options
            .to
            .as_ref()
            .map_or(Ok(f64::INFINITY), |c| self.resolve(c))?;
        if to < from {
            return Err(bad(format!("the end ({to} s) comes before the start ({from} s)")));
        }
        let interval = 1.0 / f64::from(options.fps_cap);
        let mut terminal = Terminal::new(self.header.cols, self.header.rows)?;
        let mut frames: Vec<Frame> = Vec::new();
        // The animation's clock: recording time after `from`, pauses capped, sped up.
        let mut clock = 0.0;
        let mut last_event = from;
        let mut inputs: Vec<(f64, String)> = Vec::new();
        let mut shown = None;
        let mut dirty_since: Option<f64> = None;
        let mut next_allowed = 0.0;
        let emit = |frames: &mut Vec<Frame>, terminal: &Terminal, at: f64, inputs: &[(f64, String)]| {
            frames.push(Frame {
                time: at,
                duration: 0.0,
                screen: terminal.snapshot(),
                keys: keys_at(inputs, at),
            });
        };
        for event in &self.events {
            if event.time > to {
                break;
            }
            if event.time >= from {
                let mut gap = visible(last_event.max(from), event.time, &options.hidden);
                if let Some(limit) = options.idle_limit {
                    gap = gap.min(limit);
                }
                clock += gap / options.speed;
                last_event = event.time;
                if shown.is_none() {
                    // The screen as it was at `from` is the first frame.
                    shown = Some(terminal.fingerprint());
                    emit(&mut frames, &terminal, 0.0, &inputs);
                    next_allowed = interval;
                }
                // A frame due before a hidden stretch is still made; inside one the clock
                // stands still, so none is.
                if let Some(since) = dirty_since {
                    let due = since.max(next_allowed);
                    if clock > due {
                        emit(&mut frames, &terminal, due, &inputs);
                        shown = Some(terminal.fingerprint());
                        next_allowed = due + interval;
                        dirty_since = None;
                    }
                }
            }
            event.draw(&mut terminal)?;
            if let EventKind::Input(keys) = &event.kind
                && event.time >= from
            {
                inputs.push((clock, keys.clone()));
            }
            if event.time >= from && dirty_since.is_none() && shown != Some(terminal.fingerprint()) {
                dirty_since = Some(clock);
            }
        }
        if shown.is_none() {
            emit(&mut frames, &terminal, 0.0, &inputs);
        } else if let Some(since) = dirty_since {
            emit(&mut frames, &terminal, since.max(next_allowed), &inputs);
        }
        let end = frames.last().map_or(0.0, |f| f.time).max(clock) + LAST_FRAME_HOLD;
        if options.keys {
            frames = overlay_frames(frames, &inputs, interval, end);
        }
        let starts: Vec<f64> = frames.iter().skip(1).map(|f| f.time).chain([end]).collect();
        for (frame, next) in frames.iter_mut().zip(starts) {
            frame.duration = next - frame.time;
        }
        Ok(frames)
    }

    /// A cut's time in the recording.
    fn resolve(&self, cut: &Cut) -> Result<f64> {
        match cut {
            Cut::Time(t) => Ok(*t),
            Cut::Marker(label) => {
                let markers: Vec<(f64, &str)> = self
                    .events
                    .iter()
                    .filter_map(|e| match &e.kind {
                        EventKind::Marker(m) => Some((e.time, m.as_str())),
                        _ => None,
                    })
                    .collect();
                markers
                    .iter()
                    .find(|(_, m)| *m == label)
                    .or_else(|| markers.iter().find(|(_, m)| m.contains(label.as_str())))
                    .map(|(t, _)| *t)
                    .ok_or_else(|| {
                        let some: Vec<&str> = markers.iter().take(5).map(|(_, m)| *m).collect();
                        bad(if some.is_empty() {
                            format!("no marker `{label}`: the recording has no markers; cut at a time in seconds instead")
                        } else {
                            format!("no marker `{label}`; the first markers are: {}", some.join(" | "))
                        })
                    })
            }
        }
    }
}

/// The frames split where a keystroke overlay changes (each input, and its fade steps),
/// no piece shorter than `interval`; every frame's keys recomputed for its time.
fn overlay_frames(frames: Vec<Frame>, inputs: &[(f64, String)], interval: f64, end: f64) -> Vec<Frame> {
    let mut points: Vec<f64> = inputs
        .iter()
        .flat_map(|(t, _)| std::iter::once(*t).chain(OVERLAY_FADE.iter().map(move |d| t + d)))
        .filter(|p| *p < end)
        .collect();
    points.sort_by(f64::total_cmp);
    let mut out: Vec<Frame> = Vec::with_capacity(frames.len() + points.len());
    let mut frames = frames.into_iter().peekable();
    while let Some(frame) = frames.next() {
        let until = frames.peek().map_or(end, |f| f.time);
        let mut start = frame.time;
        out.push(frame.clone());
        for &p in points.iter().filter(|p| **p > frame.time && **p < until) {
            if p - start >= interval && until - p >= interval {
                out.push(Frame {
                    time: p,
                    ..frame.clone()
                });
                start = p;
            }
        }
    }
    for frame in &mut out {
        frame.keys = keys_at(inputs, frame.time);
    }
    out
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

/// The frames rearranged so the animation starts `offset` seconds in and wraps around
/// (VHS's `LoopOffset`): the frame showing at `offset` comes first, those before it last.
pub fn loop_from(frames: Vec<Frame>, offset: f64) -> Vec<Frame> {
    let at = frames.iter().rposition(|f| f.time <= offset).unwrap_or(0);
    if at == 0 {
        return frames;
    }
    let mut frames = frames;
    frames.rotate_left(at);
    let mut clock = 0.0;
    for frame in &mut frames {
        frame.time = clock;
        clock += frame.duration;
    }
    frames
}

fn bad(message: String) -> Error {
    Error::InvalidArgument { message }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let frames = loop_from(r.frames(&FrameOptions::default()).unwrap(), 1.5);
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
}
