//! Writing a recording's frames where they were asked for: a GIF, an animated PNG, the
//! last frame as a PNG, or a folder of numbered PNGs — the one path `tuipilot render`
//! and a tape's `Output x.gif` share.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub use super::frame_image::frame_image;
use super::gif::{GifPalette, write_gif};
use super::{Image, PngCompression, RenderOptions};
use crate::error::{Error, Result};
use crate::files::{Access, Folder};
use crate::record::{Frame, FrameSource};

/// What a path asks for, by its extension (a trailing `/` or an existing folder: frames).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnimationTarget {
    /// `.gif`: an animated GIF.
    Gif(PathBuf),
    /// `.apng`: an animated PNG.
    Apng(PathBuf),
    /// `.png`: the last frame.
    LastFrame(PathBuf),
    /// A folder: `frame-00001.png`, … one per frame.
    Folder(PathBuf),
}

impl AnimationTarget {
    /// The target a path names; an unknown extension is an error that lists the known.
    pub fn from_path(path: &Path) -> Result<AnimationTarget> {
        let text = path.to_string_lossy();
        if text.ends_with('/') || path.is_dir() {
            return Ok(AnimationTarget::Folder(path.to_path_buf()));
        }
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        Ok(match extension.as_str() {
            "gif" => AnimationTarget::Gif(path.to_path_buf()),
            "apng" => AnimationTarget::Apng(path.to_path_buf()),
            "png" => AnimationTarget::LastFrame(path.to_path_buf()),
            _ => {
                return Err(Error::InvalidArgument {
                    message: format!(
                        "{}: write .gif, .apng, .png (the last frame) or a folder/ (a PNG per frame)",
                        path.display()
                    ),
                });
            }
        })
    }

    /// The file or folder written.
    pub fn path(&self) -> &Path {
        match self {
            AnimationTarget::Gif(p)
            | AnimationTarget::Apng(p)
            | AnimationTarget::LastFrame(p)
            | AnimationTarget::Folder(p) => p,
        }
    }
}

/// What was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    /// Frames in the output.
    pub frames: usize,
    /// Bytes written, all files together.
    pub bytes: u64,
    /// Bounds that applied, in words (an animated PNG that reached [`MAX_APNG_BYTES`]).
    pub notes: Vec<String>,
}

/// The most bytes an animated PNG is let grow to. Past it, the frames left keep their
/// times but repeat the last frame drawn (each a one-pixel region: the file stays valid
/// and its length right), and [`Written::notes`] says from which frame.
pub const MAX_APNG_BYTES: u64 = 256 << 20;

/// Writes the frames of `source` to `target`: a GIF or animated PNG is encoded while the
/// frames are made, one frame in memory at a time, into a temporary file renamed into
/// place when complete; a folder's frames are numbered from 1.
pub fn write_frames(
    source: &dyn FrameSource,
    options: &RenderOptions,
    target: &AnimationTarget,
    palette: GifPalette,
    repeat: bool,
    keys: bool,
) -> Result<Written> {
    let no_frames = || Error::InvalidArgument {
        message: "no frames to write: the recording has no events in the chosen range".into(),
    };
    match target {
        AnimationTarget::Gif(path) => {
            let (stats, bytes) =
                write_whole(path, |out| write_gif(source, options, palette, repeat, keys, out))?;
            Ok(Written {
                frames: stats.frames,
                bytes,
                notes: Vec::new(),
            })
        }
        AnimationTarget::Apng(path) => {
            // An animated PNG says how many frames it has before the first.
            let mut count = 0;
            for frame in source.pass()? {
                frame?;
                count += 1;
            }
            if count == 0 {
                return Err(no_frames());
            }
            let (notes, bytes) = write_whole(path, |out| apng(source, count, options, repeat, keys, out))?;
            Ok(Written {
                frames: count,
                bytes,
                notes,
            })
        }
        AnimationTarget::LastFrame(path) => {
            let mut last = None;
            for frame in source.pass()? {
                last = Some(frame?);
            }
            let last = last.ok_or_else(no_frames)?;
            let bytes = frame_image(&last, options, keys)?.to_png(options.compression)?;
            crate::files::write_file_atomically(path, &bytes)?;
            Ok(Written {
                frames: 1,
                bytes: bytes.len() as u64,
                notes: Vec::new(),
            })
        }
        AnimationTarget::Folder(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
            let folder = Folder::open(dir)?;
            let (mut frames, mut bytes) = (0, 0);
            for frame in source.pass()? {
                let png = frame_image(&frame?, options, keys)?.to_png(PngCompression::Fast)?;
                frames += 1;
                let name = format!("frame-{frames:05}.png");
                folder.write(std::ffi::OsStr::new(&name), &png, Access::Shared)?;
                bytes += png.len() as u64;
            }
            if frames == 0 {
                return Err(no_frames());
            }
            Ok(Written {
                frames,
                bytes,
                notes: Vec::new(),
            })
        }
    }
}

/// Runs `write` on a buffered temporary file next to `path` and renames the file into
/// place once `write` succeeds (on failure it is removed); returns what `write` returned
/// and the file's size.
fn write_whole<T>(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<T>) -> Result<(T, u64)> {
    let (folder, name) = Folder::containing(path)?;
    let file = folder.create(&name, Access::Shared)?;
    let mut out = CountingWriter {
        inner: BufWriter::new(file),
        bytes: 0,
    };
    let result = write(&mut out)?;
    let file = out
        .inner
        .into_inner()
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e.into_error()))?;
    file.commit()?;
    Ok((result, out.bytes))
}

/// A writer that counts what went through it.
struct CountingWriter<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A writer that counts what went through it into a cell another owner can read.
struct Tally<'a> {
    inner: &'a mut dyn Write,
    bytes: std::rc::Rc<std::cell::Cell<u64>>,
}

impl Write for Tally<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The smallest rectangle `(x, y, width, height)` holding every pixel in which `now`
/// differs from `before` (same size), or `None` when they are the same.
fn changed_region(before: &Image, now: &Image) -> Option<(u32, u32, u32, u32)> {
    let row_bytes = now.width as usize * 4;
    let old: Vec<&[u8]> = before.pixels.chunks_exact(row_bytes).collect();
    let new: Vec<&[u8]> = now.pixels.chunks_exact(row_bytes).collect();
    let changed: Vec<usize> = (0..new.len()).filter(|&y| old[y] != new[y]).collect();
    let (&top, &bottom) = (changed.first()?, changed.last()?);
    let (mut left, mut right) = (usize::MAX, 0);
    for &y in &changed {
        let (a, b) = (old[y], new[y]);
        if let Some(first) = (0..now.width as usize).find(|&x| a[x * 4..x * 4 + 4] != b[x * 4..x * 4 + 4]) {
            let last = (first..now.width as usize)
                .rev()
                .find(|&x| a[x * 4..x * 4 + 4] != b[x * 4..x * 4 + 4])
                .unwrap_or(first);
            left = left.min(first);
            right = right.max(last);
        }
    }
    Some((
        left as u32,
        top as u32,
        (right - left + 1) as u32,
        (bottom - top + 1) as u32,
    ))
}

/// The pixels of a rectangle of `image`.
fn region_pixels(image: &Image, (x, y, width, height): (u32, u32, u32, u32)) -> Vec<u8> {
    let row_bytes = image.width as usize * 4;
    let mut out = Vec::with_capacity(width as usize * height as usize * 4);
    for row in y..y + height {
        let start = row as usize * row_bytes + x as usize * 4;
        out.extend_from_slice(&image.pixels[start..start + width as usize * 4]);
    }
    out
}

/// An animated PNG of the `count` frames of `source`, each shown for its duration (in
/// milliseconds), encoded as they are drawn. After the first, a frame holds only the
/// rectangle that changed since the frame before (APNG's frame regions, drawn over what
/// is there): a clock ticking in a corner costs its digits, not the screen. Returns the
/// bounds that applied ([`MAX_APNG_BYTES`]).
fn apng(
    source: &dyn FrameSource,
    count: usize,
    options: &RenderOptions,
    repeat: bool,
    keys: bool,
    out: &mut dyn Write,
) -> Result<Vec<String>> {
    let failed =
        |e: png::EncodingError| Error::io("encoding the animated PNG", std::io::Error::other(e.to_string()));
    let mut frames = source.pass()?;
    let Some(first) = frames.next().transpose()? else {
        return Ok(Vec::new());
    };
    let first_image = frame_image(&first, options, keys)?;
    let size = (first_image.width, first_image.height);
    let written = std::rc::Rc::new(std::cell::Cell::new(0u64));
    let tally = Tally {
        inner: out,
        bytes: written.clone(),
    };
    let mut encoder = png::Encoder::new(tally, size.0, size.1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let frame_count = u32::try_from(count).unwrap_or(u32::MAX);
    encoder
        .set_animated(frame_count, if repeat { 0 } else { 1 })
        .map_err(failed)?;
    let mut writer = encoder.write_header().map_err(failed)?;
    writer.set_blend_op(png::BlendOp::Source).map_err(failed)?;
    writer.set_dispose_op(png::DisposeOp::None).map_err(failed)?;
    let delay = |frame: &Frame| (frame.duration * 1000.0).round().clamp(1.0, f64::from(u16::MAX)) as u16;
    writer.set_frame_delay(delay(&first), 1000).map_err(failed)?;
    writer.write_image_data(&first_image.pixels).map_err(failed)?;
    let mut shown = first_image;
    let mut capped_at: Option<usize> = None;
    for (index, frame) in frames.enumerate() {
        let frame = frame?;
        if capped_at.is_none() && written.get() > MAX_APNG_BYTES {
            capped_at = Some(index + 2);
        }
        let region = if capped_at.is_some() {
            None
        } else {
            let image = frame_image(&frame, options, keys)?;
            if (image.width, image.height) != size {
                return Err(Error::Unsupported {
                    what: "an animated PNG of a recording that changes size".into(),
                    fix: "write a GIF (its frames are drawn on the first frame's canvas) or a folder of PNGs"
                        .into(),
                });
            }
            let region = changed_region(&shown, &image);
            shown = image;
            region
        };
        // A frame that changes nothing still takes its time: one pixel, drawn as it is.
        let region = region.unwrap_or((0, 0, 1, 1));
        writer.reset_frame_position().map_err(failed)?;
        writer.set_frame_dimension(region.2, region.3).map_err(failed)?;
        writer.set_frame_position(region.0, region.1).map_err(failed)?;
        writer.set_frame_delay(delay(&frame), 1000).map_err(failed)?;
        writer
            .write_image_data(&region_pixels(&shown, region))
            .map_err(failed)?;
    }
    writer.finish().map_err(failed)?;
    Ok(capped_at
        .map(|at| {
            format!(
                "the animated PNG reached {} MB at frame {at} of {count}: the frames after show the last one drawn (write a GIF, or render a shorter range)",
                MAX_APNG_BYTES >> 20
            )
        })
        .into_iter()
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Fails on the code before: every frame was the whole picture (60 frames of a
    // counter came to 60 full screens).
    #[test]
    fn an_animated_png_holds_only_what_changed_and_decodes_to_every_frame() {
        use std::fmt::Write as _;
        let mut cast = String::from(
            "{\"version\":2,\"width\":80,\"height\":24}\n[0.05,\"o\",\"a screen of text that stays\\r\\n$ \"]\n",
        );
        for n in 1..=60 {
            writeln!(
                cast,
                "[{:.2},\"o\",\"\\u001b[1;70H{n:05}\"]",
                0.05 + f64::from(n) * 0.1
            )
            .unwrap();
        }
        let recording = crate::record::Recording::read(cast.as_bytes(), "t.cast").unwrap();
        let frames = recording.frames(&crate::record::FrameOptions::default()).unwrap();
        let options = RenderOptions::default();
        let mut out = Vec::new();
        let notes = apng(&frames, frames.len(), &options, true, false, &mut out).unwrap();
        assert!(notes.is_empty());
        let whole = frame_image(&frames[0], &options, false).unwrap();
        let one_frame = whole.to_png(PngCompression::Fast).unwrap().len();
        assert!(
            out.len() < one_frame + frames.len() * 2048,
            "{} bytes for {} frames; one whole frame is {one_frame}",
            out.len(),
            frames.len()
        );
        // Decoded and drawn region over region, it is every frame.
        let mut reader = png::Decoder::new(std::io::Cursor::new(&out)).read_info().unwrap();
        let mut canvas = whole.clone();
        let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
        for (index, frame) in frames.iter().enumerate() {
            let info = reader.next_frame(&mut buffer).unwrap();
            let control = *reader.info().frame_control.as_ref().unwrap();
            let row = info.width as usize * 4;
            for y in 0..info.height as usize {
                let at =
                    ((control.y_offset as usize + y) * canvas.width as usize + control.x_offset as usize) * 4;
                canvas.pixels[at..at + row].copy_from_slice(&buffer[y * row..y * row + row]);
            }
            assert_eq!(
                canvas,
                frame_image(frame, &options, false).unwrap(),
                "frame {index}"
            );
        }
    }

    #[test]
    fn a_path_names_its_target_by_extension() {
        let target = |p: &str| AnimationTarget::from_path(Path::new(p));
        assert_eq!(target("a.gif").unwrap(), AnimationTarget::Gif("a.gif".into()));
        assert_eq!(target("a.APNG").unwrap(), AnimationTarget::Apng("a.APNG".into()));
        assert_eq!(
            target("a.png").unwrap(),
            AnimationTarget::LastFrame("a.png".into())
        );
        assert_eq!(
            target("frames/").unwrap(),
            AnimationTarget::Folder("frames/".into())
        );
        let error = target("a.mp4").unwrap_err().to_string();
        assert!(error.contains("a.mp4: write .gif, .apng, .png"), "{error}");
    }

    #[test]
    fn the_keystroke_overlay_draws_a_chip_bottom_right_that_fades() {
        let cast = "{\"version\":2,\"width\":40,\"height\":6}\n[0.1,\"o\",\"$ \"]\n[0.5,\"i\",\"\\u0003\"]\n[3,\"o\",\"x\"]\n";
        let recording = crate::record::Recording::read(cast.as_bytes(), "t.cast").unwrap();
        let frames = recording
            .frames(&crate::record::FrameOptions {
                keys: true,
                ..Default::default()
            })
            .unwrap();
        let options = RenderOptions::default();
        let at = |t: f64| frames.iter().rfind(|f| f.time <= t + 1e-9).unwrap();
        let plain = frame_image(at(0.5), &options, false).unwrap();
        let shown = frame_image(at(0.5), &options, true).unwrap();
        let fading = frame_image(at(1.35), &options, true).unwrap();
        let gone = frame_image(at(1.6), &options, true).unwrap();
        assert_ne!(plain, shown, "the chip is drawn");
        assert_ne!(shown, fading, "and fades");
        assert_eq!(
            gone,
            frame_image(at(1.6), &options, false).unwrap(),
            "and is gone after a second"
        );
        // Only the bottom-right corner changes.
        let differs = |y: u32, x: u32| plain.pixel(x, y) != shown.pixel(x, y);
        let changed: Vec<(u32, u32)> = (0..plain.height)
            .flat_map(|y| (0..plain.width).map(move |x| (y, x)))
            .filter(|&(y, x)| differs(y, x))
            .collect();
        assert!(
            changed
                .iter()
                .all(|&(y, x)| y > plain.height / 2 && x > plain.width / 2)
        );
    }
}
