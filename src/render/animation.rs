//! Writing a recording's frames where they were asked for: a GIF, an animated PNG, the
//! last frame as a PNG, or a folder of numbered PNGs — the one path `tuipilot render`
//! and a tape's `Output x.gif` share.

use std::path::{Path, PathBuf};

use super::gif::{GifPalette, write_gif};
use super::{Image, PngCompression, RenderOptions, render};
use crate::error::{Error, Result};
use crate::record::Frame;

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

/// Writes `frames` to `target` (files atomically; a folder's frames are numbered from 1).
pub fn write_frames(
    frames: &[Frame],
    options: &RenderOptions,
    target: &AnimationTarget,
    palette: GifPalette,
    repeat: bool,
) -> Result<Written> {
    let Some(last) = frames.last() else {
        return Err(Error::InvalidArgument {
            message: "no frames to write: the recording has no events in the chosen range".into(),
        });
    };
    let save = |path: &Path, bytes: &[u8]| {
        crate::files::write_file_atomically(path, bytes).map(|()| bytes.len() as u64)
    };
    match target {
        AnimationTarget::Gif(path) => {
            let mut bytes = Vec::new();
            let stats = write_gif(frames, options, palette, repeat, &mut bytes)?;
            Ok(Written {
                frames: stats.frames,
                bytes: save(path, &bytes)?,
            })
        }
        AnimationTarget::Apng(path) => {
            let images = frames
                .iter()
                .map(|f| render(&f.screen, options))
                .collect::<Result<Vec<Image>>>()?;
            let bytes = apng(&images, frames, repeat)?;
            Ok(Written {
                frames: images.len(),
                bytes: save(path, &bytes)?,
            })
        }
        AnimationTarget::LastFrame(path) => {
            let bytes = render(&last.screen, options)?.to_png(options.compression)?;
            Ok(Written {
                frames: 1,
                bytes: save(path, &bytes)?,
            })
        }
        AnimationTarget::Folder(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
            let mut bytes = 0;
            for (n, frame) in frames.iter().enumerate() {
                let png = render(&frame.screen, options)?.to_png(PngCompression::Fast)?;
                bytes += save(&dir.join(format!("frame-{:05}.png", n + 1)), &png)?;
            }
            Ok(Written {
                frames: frames.len(),
                bytes,
            })
        }
    }
}

/// An animated PNG of whole frames, each shown for its duration (in milliseconds).
fn apng(images: &[Image], frames: &[Frame], repeat: bool) -> Result<Vec<u8>> {
    let failed =
        |e: png::EncodingError| Error::io("encoding the animated PNG", std::io::Error::other(e.to_string()));
    let first = &images[0];
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, first.width, first.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        let frame_count = u32::try_from(images.len()).unwrap_or(u32::MAX);
        encoder
            .set_animated(frame_count, if repeat { 0 } else { 1 })
            .map_err(failed)?;
        let mut writer = encoder.write_header().map_err(failed)?;
        for (image, frame) in images.iter().zip(frames) {
            if (image.width, image.height) != (first.width, first.height) {
                return Err(Error::Unsupported {
                    what: "an animated PNG of a recording that changes size".into(),
                    fix: "write a GIF (its frames are drawn on the first frame's canvas) or a folder of PNGs"
                        .into(),
                });
            }
            let millis = (frame.duration * 1000.0).round().clamp(1.0, f64::from(u16::MAX)) as u16;
            writer.set_frame_delay(millis, 1000).map_err(failed)?;
            writer.write_image_data(&image.pixels).map_err(failed)?;
        }
        writer.finish().map_err(failed)?;
    }
    Ok(out)
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
}
