//! A run's screens in time: its recording replayed through the engine's terminal, a frame
//! wherever the screen changed — at most one every [`FRAME_MS`] (what is drawn faster is
//! not seen at real speed) and at most [`MAX_FRAMES`] (evenly spread when the program drew
//! more often) — and, for each step, the frame it ended on: the screen after every output
//! that arrived before the step returned, always kept.

use crate::error::Result;
use crate::record::EventKind;
use crate::snapshot::Snapshot;
use crate::terminal::Terminal;

use super::RunReport;

/// The most frames a timeline keeps between steps; a program that drew more often keeps
/// one every `duration / MAX_FRAMES` (the screens after steps are always kept).
pub const MAX_FRAMES: usize = 2000;

/// The shortest time between two frames of the program's own drawing, in milliseconds
/// (100 frames a second; the screens after steps are kept however close).
pub const FRAME_MS: u64 = 10;

/// One screen of the timeline.
#[derive(Clone, Debug)]
pub struct Frame {
    /// When it was on the screen from, in milliseconds since the run started.
    pub at_ms: u64,
    /// The screen.
    pub screen: Snapshot,
}

/// The frames, and for each step the index of the frame it ended on.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// The frames in time order; the first is the screen before any output.
    pub frames: Vec<Frame>,
    /// For each of the report's steps, the frame it ended on.
    pub step_frames: Vec<usize>,
}

impl Timeline {
    /// The timeline of a report's recording; without one, its last screen is the only
    /// frame and every step shows it.
    pub fn build(report: &RunReport) -> Result<Timeline> {
        let steps = report.steps.len();
        let Some(recording) = &report.recording else {
            let screen = match &report.last_screen {
                Some(screen) => screen.clone(),
                None => Terminal::new(report.cols.max(1), report.rows.max(1))?.snapshot(),
            };
            return Ok(Timeline {
                frames: vec![Frame {
                    at_ms: report.duration_ms,
                    screen,
                }],
                step_frames: vec![0; steps],
            });
        };
        let mut terminal = Terminal::new(recording.header.cols, recording.header.rows)?;
        let drawn = recording
            .events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Output(_) | EventKind::Resize(..)))
            .count();
        let duration = super::seconds_to_ms(recording.duration());
        let spacing = if drawn > MAX_FRAMES {
            (duration / MAX_FRAMES as u64).max(FRAME_MS)
        } else {
            FRAME_MS
        };
        // Steps by the time they ended (a log is in order; a merged one may not be).
        let mut order: Vec<usize> = (0..steps).collect();
        order.sort_by_key(|&i| report.steps[i].end_us());
        let mut timeline = Timeline {
            frames: vec![Frame {
                at_ms: 0,
                screen: terminal.snapshot(),
            }],
            step_frames: vec![0; steps],
        };
        let mut next = 0;
        // Whether the terminal holds a change no frame shows yet.
        let mut pending = false;
        for event in &recording.events {
            let at_ms = super::seconds_to_ms(event.time);
            let at_us = super::seconds_to_us(event.time);
            // Steps that returned before this event ended on the screen as it is now.
            while next < order.len() && report.steps[order[next]].end_us() < at_us {
                if pending {
                    timeline.push(at_ms.min(report.steps[order[next]].end_ms()), terminal.snapshot());
                    pending = false;
                }
                timeline.step_frames[order[next]] = timeline.frames.len() - 1;
                next += 1;
            }
            if !matches!(event.kind, EventKind::Output(_) | EventKind::Resize(..)) {
                continue;
            }
            event.draw(&mut terminal)?;
            pending = true;
            let last = timeline.frames.last().map_or(0, |f| f.at_ms);
            if at_ms >= last.saturating_add(spacing) {
                timeline.push(at_ms, terminal.snapshot());
                pending = false;
            }
        }
        if pending {
            timeline.push(duration, terminal.snapshot());
        }
        let last = timeline.frames.len() - 1;
        for &step in &order[next..] {
            timeline.step_frames[step] = last;
        }
        Ok(timeline)
    }

    /// Adds a frame unless it shows what the last one does.
    fn push(&mut self, at_ms: u64, screen: Snapshot) {
        if self.frames.last().is_some_and(|f| f.screen == screen) {
            return;
        }
        self.frames.push(Frame { at_ms, screen });
    }
}
