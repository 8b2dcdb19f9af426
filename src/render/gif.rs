//! Animated GIFs from a recording's frames.
//!
//! Each frame is rendered like a screenshot, then only the rectangle that changed since
//! the previous frame is written (frames with no visible change lengthen the one before).
//! GIF allows 256 colours a frame. Terminal text has few colours but antialiasing blends
//! them, so two palettes are offered: [`GifPalette::PerFrame`] takes the changed
//! rectangle's own colours (exact when they fit, which they usually do; otherwise colours
//! are merged into buckets that fit), [`GifPalette::Global`] one palette of the most used
//! colours of the whole animation, every pixel mapped to its nearest entry. The bench
//! `gif` measures both. Delays are in hundredths of a second, rounded without drift.

use std::collections::HashMap;
use std::io::Write;

use super::frame_image::frame_image;
use super::{Image, RenderOptions};
use crate::error::{Error, Result};
use crate::record::{Frame, FrameSource};

/// How a GIF's colours are chosen (see the module's docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GifPalette {
    /// A palette per frame, from the pixels that changed: exact unless a frame's change
    /// has more than 256 colours.
    #[default]
    PerFrame,
    /// One palette for the whole animation: the 256 most used colours.
    Global,
}

/// What was written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GifStats {
    /// Frames in the file (frames without a visible change are merged into the one before).
    pub frames: usize,
    /// Frames whose colours did not fit 256 and were merged.
    pub lossy_frames: usize,
}

/// A frame's pixels waiting to be written (its delay is known once the next one comes).
struct Pending {
    rect: Rect,
    indices: Vec<u8>,
    palette: Vec<u8>,
    /// The index of pixels left as the frame before showed them.
    transparent: Option<u8>,
    end: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rect {
    left: u32,
    top: u32,
    width: u32,
    height: u32,
}

/// Writes the frames of `source` as a GIF that loops forever (`repeat`: or plays once),
/// drawing and encoding one frame at a time.
pub fn write_gif(
    source: &dyn FrameSource,
    options: &RenderOptions,
    palette: GifPalette,
    repeat: bool,
    keys: bool,
    out: impl Write,
) -> Result<GifStats> {
    let failed = |e: gif::EncodingError| Error::io("encoding the GIF", std::io::Error::other(e.to_string()));
    let mut frames = source.pass()?;
    let Some(first) = frames.next().transpose()? else {
        return Err(Error::InvalidArgument {
            message: "no frames to write: the recording has no events in the chosen range".into(),
        });
    };
    let first_image = frame_image(&first, options, keys)?;
    let (width, height) = (first_image.width, first_image.height);
    let too_big = |what: u32| u16::try_from(what).is_err();
    if too_big(width) || too_big(height) {
        return Err(Error::InvalidRenderOption {
            message: format!(
                "{width}x{height} pixels is larger than a GIF can be (65535 a side); lower --scale or --font-size"
            ),
        });
    }
    let background = options.theme.background;
    let canvas = Canvas {
        options,
        keys,
        size: (width, height),
        background: [background.0, background.1, background.2, 255],
    };
    let global = match palette {
        GifPalette::Global => Some(global_palette(&canvas, source.pass()?)?),
        GifPalette::PerFrame => None,
    };
    let mut encoder = gif::Encoder::new(
        out,
        width as u16,
        height as u16,
        global.as_ref().map_or(&[][..], |g| &g.rgb),
    )
    .map_err(failed)?;
    encoder
        .set_repeat(if repeat {
            gif::Repeat::Infinite
        } else {
            gif::Repeat::Finite(0)
        })
        .map_err(failed)?;
    let mut stats = GifStats::default();
    let mut previous: Option<Vec<u8>> = None;
    let mut pending: Option<Pending> = None;
    // Hundredths of a second written so far, so rounding never drifts.
    let mut written_cs: u64 = 0;
    let flush = |encoder: &mut gif::Encoder<_>, frame: Pending, written_cs: &mut u64| -> Result<()> {
        let end_cs = (frame.end * 100.0).round() as u64;
        // Players treat delays under 2 as 10: never write one.
        let delay = end_cs.saturating_sub(*written_cs).max(2);
        *written_cs += delay;
        let gif_frame = gif::Frame {
            delay: u16::try_from(delay).unwrap_or(u16::MAX),
            left: frame.rect.left as u16,
            top: frame.rect.top as u16,
            width: frame.rect.width as u16,
            height: frame.rect.height as u16,
            palette: if frame.palette.is_empty() {
                None
            } else {
                Some(frame.palette)
            },
            buffer: frame.indices.into(),
            transparent: frame.transparent,
            dispose: gif::DisposalMethod::Keep,
            ..gif::Frame::default()
        };
        encoder.write_frame(&gif_frame).map_err(failed)
    };
    let mut first = Some((first, first_image));
    let mut next = || -> Option<Result<(Frame, Image)>> {
        if let Some(drawn) = first.take() {
            return Some(Ok(drawn));
        }
        Some(frames.next()?.and_then(|frame| {
            let image = canvas.draw(&frame)?;
            Ok((frame, image))
        }))
    };
    while let Some(drawn) = next() {
        let (frame, image) = drawn?;
        let end = frame.time + frame.duration;
        let Some(rect) = changed(previous.as_deref(), &image.pixels, width, height) else {
            if let Some(p) = &mut pending {
                p.end = end;
            }
            continue;
        };
        let before = previous.as_deref();
        let (indices, palette_bytes, lossy, transparent) = match &global {
            Some(global) => {
                let (indices, transparent) = global.indices(&image.pixels, before, width, rect);
                (indices, Vec::new(), false, transparent)
            }
            None => local_palette(&image.pixels, before, width, rect),
        };
        stats.lossy_frames += usize::from(lossy);
        if let Some(done) = pending.take() {
            flush(&mut encoder, done, &mut written_cs)?;
            stats.frames += 1;
        }
        pending = Some(Pending {
            rect,
            indices,
            palette: palette_bytes,
            transparent,
            end,
        });
        previous = Some(image.pixels);
    }
    if let Some(done) = pending.take() {
        flush(&mut encoder, done, &mut written_cs)?;
        stats.frames += 1;
    }
    encoder.into_inner().map_err(failed)?;
    Ok(stats)
}

/// How frames are drawn for one GIF: on a canvas of the first frame's size (a frame of
/// another size, after a resize, is drawn at the top left on the theme's background).
struct Canvas<'a> {
    options: &'a RenderOptions,
    keys: bool,
    size: (u32, u32),
    background: [u8; 4],
}

impl Canvas<'_> {
    fn draw(&self, frame: &Frame) -> Result<Image> {
        let image = frame_image(frame, self.options, self.keys)?;
        let (width, height) = self.size;
        if (image.width, image.height) == (width, height) {
            return Ok(image);
        }
        let mut pixels: Vec<u8> = self.background.repeat((width * height) as usize);
        let (w, h) = (image.width.min(width) as usize, image.height.min(height) as usize);
        for y in 0..h {
            let from = y * image.width as usize * 4;
            let to = y * width as usize * 4;
            pixels[to..to + w * 4].copy_from_slice(&image.pixels[from..from + w * 4]);
        }
        Ok(Image {
            width,
            height,
            pixels,
            text: None,
        })
    }
}

/// The smallest rectangle holding every pixel that differs from `previous` (all of it for
/// the first frame), or `None` when nothing does.
fn changed(previous: Option<&[u8]>, pixels: &[u8], width: u32, height: u32) -> Option<Rect> {
    let Some(previous) = previous else {
        return Some(Rect {
            left: 0,
            top: 0,
            width,
            height,
        });
    };
    let row_bytes = width as usize * 4;
    let (mut top, mut bottom, mut left, mut right) = (u32::MAX, 0, u32::MAX, 0);
    for y in 0..height {
        let at = y as usize * row_bytes;
        let (old, new) = (&previous[at..at + row_bytes], &pixels[at..at + row_bytes]);
        if old == new {
            continue;
        }
        let first = old
            .chunks_exact(4)
            .zip(new.chunks_exact(4))
            .position(|(a, b)| a != b)?;
        let last = old
            .chunks_exact(4)
            .zip(new.chunks_exact(4))
            .rposition(|(a, b)| a != b)?;
        top = top.min(y);
        bottom = y;
        left = left.min(first as u32);
        right = right.max(last as u32);
    }
    (top != u32::MAX).then(|| Rect {
        left,
        top,
        width: right - left + 1,
        height: bottom - top + 1,
    })
}

fn rgb_at(pixels: &[u8], width: u32, x: u32, y: u32) -> u32 {
    let i = (y as usize * width as usize + x as usize) * 4;
    u32::from_be_bytes([0, pixels[i], pixels[i + 1], pixels[i + 2]])
}

fn rect_pixels(rect: Rect) -> impl Iterator<Item = (u32, u32)> {
    (rect.top..rect.top + rect.height)
        .flat_map(move |y| (rect.left..rect.left + rect.width).map(move |x| (x, y)))
}

/// Whether the pixel at (x, y) is what the frame before showed: it is then left
/// transparent, which costs almost nothing once compressed.
fn unchanged(previous: Option<&[u8]>, pixels: &[u8], width: u32, x: u32, y: u32) -> bool {
    previous.is_some_and(|before| {
        let i = (y as usize * width as usize + x as usize) * 4;
        before[i..i + 3] == pixels[i..i + 3]
    })
}

/// The rectangle's pixels as indices into a palette of its own (pixels that did not
/// change are transparent); whether colours had to be merged to fit; the transparent index.
fn local_palette(
    pixels: &[u8],
    previous: Option<&[u8]>,
    width: u32,
    rect: Rect,
) -> (Vec<u8>, Vec<u8>, bool, Option<u8>) {
    const CLEAR: u16 = u16::MAX;
    // Exact when the colours fit in 255 (one index is kept for transparency); else merge
    // colours sharing their top bits, fewer bits until they fit, each bucket drawn in its
    // average colour.
    for shift in 0..8u32 {
        let mut buckets: HashMap<u32, (u16, [u64; 4])> = HashMap::new();
        let mut indices: Vec<u16> = Vec::with_capacity((rect.width * rect.height) as usize);
        let mut fits = true;
        for (x, y) in rect_pixels(rect) {
            if unchanged(previous, pixels, width, x, y) {
                indices.push(CLEAR);
                continue;
            }
            let [_, r, g, b] = rgb_at(pixels, width, x, y).to_be_bytes();
            let key = u32::from_be_bytes([0, r >> shift, g >> shift, b >> shift]);
            let next = buckets.len() as u16;
            let entry = buckets.entry(key).or_insert((next, [0; 4]));
            if entry.0 > 254 {
                fits = false;
                break;
            }
            entry.1[0] += u64::from(r);
            entry.1[1] += u64::from(g);
            entry.1[2] += u64::from(b);
            entry.1[3] += 1;
            indices.push(entry.0);
        }
        if !fits {
            continue;
        }
        let colours = buckets.len();
        let any_clear = indices.contains(&CLEAR);
        let mut palette = vec![0u8; (colours + usize::from(any_clear)).max(1) * 3];
        for (index, [r, g, b, n]) in buckets.values() {
            let at = usize::from(*index) * 3;
            palette[at..at + 3].copy_from_slice(&[(r / n) as u8, (g / n) as u8, (b / n) as u8]);
        }
        let clear = colours as u8;
        let indices = indices
            .into_iter()
            .map(|i| if i == CLEAR { clear } else { i as u8 })
            .collect();
        return (indices, palette, shift > 0, any_clear.then_some(clear));
    }
    unreachable!("8 bits shifted away leave one colour, which fits")
}

/// One palette for every frame.
struct Global {
    rgb: Vec<u8>,
    colours: Vec<[u8; 3]>,
    nearest: std::cell::RefCell<HashMap<u32, u8>>,
}

/// The global palette's index for pixels left as they were.
const GLOBAL_CLEAR: u8 = 255;

impl Global {
    fn indices(
        &self,
        pixels: &[u8],
        previous: Option<&[u8]>,
        width: u32,
        rect: Rect,
    ) -> (Vec<u8>, Option<u8>) {
        let mut nearest = self.nearest.borrow_mut();
        let indices: Vec<u8> = rect_pixels(rect)
            .map(|(x, y)| {
                if unchanged(previous, pixels, width, x, y) {
                    return GLOBAL_CLEAR;
                }
                let rgb = rgb_at(pixels, width, x, y);
                *nearest.entry(rgb).or_insert_with(|| {
                    let [_, r, g, b] = rgb.to_be_bytes();
                    let distance = |c: &[u8; 3]| {
                        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
                        d(c[0], r) + d(c[1], g) + d(c[2], b)
                    };
                    (0..self.colours.len())
                        .min_by_key(|&i| distance(&self.colours[i]))
                        .unwrap_or(0) as u8
                })
            })
            .collect();
        let clear = indices.contains(&GLOBAL_CLEAR).then_some(GLOBAL_CLEAR);
        (indices, clear)
    }
}

/// The 255 colours most used across the animation's changes.
fn global_palette(canvas: &Canvas<'_>, frames: impl Iterator<Item = Result<Frame>>) -> Result<Global> {
    let mut counts: HashMap<u32, u64> = HashMap::new();
    let mut previous: Option<Vec<u8>> = None;
    let (width, height) = canvas.size;
    for frame in frames {
        let image = canvas.draw(&frame?)?;
        if let Some(rect) = changed(previous.as_deref(), &image.pixels, width, height) {
            for (x, y) in rect_pixels(rect) {
                *counts.entry(rgb_at(&image.pixels, width, x, y)).or_default() += 1;
            }
        }
        previous = Some(image.pixels);
    }
    let mut by_use: Vec<(u32, u64)> = counts.into_iter().collect();
    by_use.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // 255 colours: the last index is kept for transparency.
    let colours: Vec<[u8; 3]> = by_use
        .iter()
        .take(usize::from(GLOBAL_CLEAR))
        .map(|(rgb, _)| {
            let [_, r, g, b] = rgb.to_be_bytes();
            [r, g, b]
        })
        .collect();
    let mut rgb: Vec<u8> = colours.iter().flatten().copied().collect();
    rgb.resize(256 * 3, 0);
    Ok(Global {
        rgb,
        colours,
        nearest: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{FrameOptions, Recording};
    use crate::render::render;

    fn frames() -> Vec<Frame> {
        let cast = "{\"version\":2,\"width\":20,\"height\":3}\n[0.1,\"o\",\"hello\"]\n[0.5,\"o\",\"\\r\\n\\u001b[31mred\\u001b[0m\"]\n[0.5,\"m\",\"same\"]\n[1.25,\"o\",\"\\u001b[2J\\u001b[Hbye\"]\n";
        Recording::read(cast.as_bytes(), "t.cast")
            .unwrap()
            .frames(&FrameOptions::default())
            .unwrap()
    }

    /// Every frame of a GIF composed onto a canvas, with its delay.
    fn decode(bytes: &[u8]) -> Vec<(u16, Vec<u8>)> {
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::RGBA);
        let mut decoder = options.read_info(bytes).unwrap();
        let (w, h) = (decoder.width() as usize, decoder.height() as usize);
        let mut canvas = vec![0u8; w * h * 4];
        let mut out = Vec::new();
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            for y in 0..frame.height as usize {
                for x in 0..frame.width as usize {
                    let from = (y * frame.width as usize + x) * 4;
                    let to = ((y + frame.top as usize) * w + x + frame.left as usize) * 4;
                    // A transparent pixel leaves what the frame before showed.
                    if frame.buffer[from + 3] != 0 {
                        canvas[to..to + 4].copy_from_slice(&frame.buffer[from..from + 4]);
                    }
                }
            }
            out.push((frame.delay, canvas.clone()));
        }
        out
    }

    #[test]
    fn a_gif_has_a_frame_per_change_with_exact_colours_and_drift_free_delays() {
        let frames = frames();
        let options = RenderOptions::default();
        let mut bytes = Vec::new();
        let stats = write_gif(&frames, &options, GifPalette::PerFrame, true, false, &mut bytes).unwrap();
        assert_eq!(
            stats,
            GifStats {
                frames: 4,
                lossy_frames: 0
            }
        );
        let decoded = decode(&bytes);
        assert_eq!(decoded.len(), 4);
        // 0 → 0.1 → 0.5 → 1.25, then the last frame held a second.
        let delays: Vec<u16> = decoded.iter().map(|(d, _)| *d).collect();
        assert_eq!(delays, [10, 40, 75, 100]);
        for (n, ((_, canvas), frame)) in decoded.iter().zip(&frames).enumerate() {
            let want = render(&frame.screen, &options).unwrap().pixels;
            let off = canvas.iter().zip(&want).filter(|(a, b)| a != b).count();
            assert_eq!(off, 0, "frame {n}: {off} bytes differ from the rendered screen");
        }
    }

    #[test]
    fn a_global_palette_gives_the_same_frames_within_its_colours() {
        let frames = frames();
        let options = RenderOptions::default();
        let mut bytes = Vec::new();
        let stats = write_gif(&frames, &options, GifPalette::Global, false, false, &mut bytes).unwrap();
        assert_eq!(stats.frames, 4);
        let last = &decode(&bytes)[3].1;
        let want = render(&frames[3].screen, &options).unwrap().pixels;
        let off = last
            .iter()
            .zip(&want)
            .filter(|(a, b)| a.abs_diff(**b) > 48)
            .count();
        assert!(off * 100 < want.len(), "{off} channels of {} far off", want.len());
    }

    #[test]
    fn no_frames_is_a_clear_error() {
        let error = write_gif(
            &Vec::new(),
            &RenderOptions::default(),
            GifPalette::PerFrame,
            true,
            false,
            Vec::new(),
        )
        .unwrap_err();
        assert!(error.to_string().contains("no frames"), "{error}");
    }
}
