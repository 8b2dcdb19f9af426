//! Frames gone through more than once: a [`FrameSource`] makes them afresh on each pass
//! (a recording's frame stream again, never kept), and [`LoopFrom`] starts an animation at
//! an offset and wraps around — what a GIF with one palette, an animated PNG's frame count
//! and VHS's `LoopOffset` need.

use super::cast::{CastFile, Recording};
use super::frames::{Frame, FrameOptions};
use crate::error::Result;

/// Frames that can be gone through more than once, made afresh on each pass: a GIF with
/// one palette for all frames looks at every frame before it writes the first, an animated
/// PNG counts them first, a loop offset finds where to start.
pub trait FrameSource {
    /// The frames from the first, one at a time.
    fn pass(&self) -> Result<Box<dyn Iterator<Item = Result<Frame>> + '_>>;
}

impl FrameSource for Vec<Frame> {
    fn pass(&self) -> Result<Box<dyn Iterator<Item = Result<Frame>> + '_>> {
        Ok(Box::new(self.iter().cloned().map(Ok)))
    }
}

/// A recording's frames made with the same options on every pass, each pass a
/// [`FrameStream`](super::FrameStream): nothing is kept between passes.
pub struct RecordingFrames<'r> {
    pub(super) recording: Replayed<'r>,
    pub(super) options: FrameOptions,
}

/// A recording in memory or on disk.
pub(super) enum Replayed<'r> {
    Memory(&'r Recording),
    File(&'r CastFile),
}

impl FrameSource for RecordingFrames<'_> {
    fn pass(&self) -> Result<Box<dyn Iterator<Item = Result<Frame>> + '_>> {
        Ok(Box::new(match self.recording {
            Replayed::Memory(recording) => recording.frame_stream(&self.options)?,
            Replayed::File(file) => file.frame_stream(&self.options)?,
        }))
    }
}

/// Where a looping animation starts (VHS's `LoopOffset`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LoopOffset {
    /// This many seconds in.
    Seconds(f64),
    /// This share of the animation's length in (0.5: halfway).
    Fraction(f64),
}

/// Frames rearranged so the animation starts at an offset and wraps around: the frame
/// showing at the offset comes first, those before it last.
pub struct LoopFrom<'s> {
    source: &'s dyn FrameSource,
    offset: LoopOffset,
}

impl<'s> LoopFrom<'s> {
    /// `source` started at `offset`.
    pub fn new(source: &'s dyn FrameSource, offset: LoopOffset) -> LoopFrom<'s> {
        LoopFrom { source, offset }
    }
}

impl FrameSource for LoopFrom<'_> {
    fn pass(&self) -> Result<Box<dyn Iterator<Item = Result<Frame>> + '_>> {
        if let LoopOffset::Seconds(at) | LoopOffset::Fraction(at) = self.offset
            && at <= 0.0
        {
            return self.source.pass();
        }
        // One pass over the frames' times: the animation's length, and where it starts.
        let mut times = Vec::new();
        let mut length = 0.0;
        for frame in self.source.pass()? {
            let frame = frame?;
            times.push(frame.time);
            length = frame.time + frame.duration;
        }
        let offset = match self.offset {
            LoopOffset::Seconds(seconds) => seconds,
            LoopOffset::Fraction(share) => share * length,
        };
        let first = times.iter().rposition(|t| *t <= offset).unwrap_or(0);
        if first == 0 {
            return self.source.pass();
        }
        let start = times[first];
        let shifted = |by: f64| {
            move |frame: Result<Frame>| {
                frame.map(|mut frame| {
                    frame.time += by;
                    frame
                })
            }
        };
        let head = self.source.pass()?.skip(first).map(shifted(-start));
        let tail = self.source.pass()?.take(first).map(shifted(length - start));
        Ok(Box::new(head.chain(tail)))
    }
}
