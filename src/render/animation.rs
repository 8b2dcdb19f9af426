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
}

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
            let ((), bytes) = write_whole(path, |out| apng(source, count, options, repeat, keys, out))?;
            Ok(Written { frames: count, bytes })
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
            Ok(Written { frames, bytes })
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

/// An animated PNG of the `count` frames of `source`, each shown for its duration (in
/// milliseconds), encoded as they are drawn.
fn apng(
    source: &dyn FrameSource,
    count: usize,
    options: &RenderOptions,
    repeat: bool,
    keys: bool,
    out: &mut dyn Write,
) -> Result<()> {
    let failed =
        |e: png::EncodingError| Error::io("encoding the animated PNG", std::io::Error::other(e.to_string()));
    let mut frames = source.pass()?;
    let Some(first) = frames.next().transpose()? else {
        return Ok(());
    };
    let first_image = frame_image(&first, options, keys)?;
    let size = (first_image.width, first_image.height);
    let mut encoder = png::Encoder::new(out, size.0, size.1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::Fast);
    let frame_count = u32::try_from(count).unwrap_or(u32::MAX);
    encoder
        .set_animated(frame_count, if repeat { 0 } else { 1 })
        .map_err(failed)?;
    let mut writer = encoder.write_header().map_err(failed)?;
    let mut write = |image: &Image, frame: &Frame| -> Result<()> {
        if (image.width, image.height) != size {
            return Err(Error::Unsupported {
                what: "an animated PNG of a recording that changes size".into(),
                fix: "write a GIF (its frames are drawn on the first frame's canvas) or a folder of PNGs"
                    .into(),
            });
        }
        let millis = (frame.duration * 1000.0).round().clamp(1.0, f64::from(u16::MAX)) as u16;
        writer.set_frame_delay(millis, 1000).map_err(failed)?;
        writer.write_image_data(&image.pixels).map_err(failed)
    };
    write(&first_image, &first)?;
    drop(first_image);
    for frame in frames {
        let frame = frame?;
        write(&frame_image(&frame, options, keys)?, &frame)?;
    }
    writer.finish().map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

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
