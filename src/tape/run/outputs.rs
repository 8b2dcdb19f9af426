//! What a tape writes as it runs: `Output` targets (the text golden, a frame folder, the
//! last screen as PNG), `Screenshot`s and `Snapshot` comparisons. Each capture is an
//! operation like any other; only the files are the runner's.

use std::path::{Path, PathBuf};

use super::{Runner, first_line};
use crate::operation::PngRequest;
use crate::record::{CastFile, LoopFrom};
use crate::render::animation::{AnimationTarget, write_frames};
use crate::render::gif::GifPalette;
use crate::tape::outcome::{Failure, FailureKind};
use crate::tape::program::Command;
use crate::tape::snapshots::compare_text;

/// The separator VHS writes after each screen of a text golden.
const FRAME_SEPARATOR: &str =
    "────────────────────────────────────────────────────────────────────────────────";

impl Runner<'_> {
    pub(super) fn output(&mut self, command: &Command, path: &Path) -> Result<(), Failure> {
        let text = path.to_string_lossy();
        let extension = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        match extension.as_str() {
            _ if text.ends_with('/') => {
                self.frame_dir = Some(path.to_path_buf());
                return Ok(());
            }
            "txt" | "ascii" | "test" => {
                self.text_golden = Some((path.to_path_buf(), String::new()));
                return Ok(());
            }
            "png" => {
                self.final_pngs.push(path.to_path_buf());
                return Ok(());
            }
            "cast" => {
                self.casts.push(path.to_path_buf());
                return Ok(());
            }
            _ => {}
        }
        let video = matches!(extension.as_str(), "mp4" | "webm");
        let media = if video {
            "video needs an encoder tuipilot does not have"
        } else {
            "a GIF"
        };
        if self.options.skip_media {
            self.notes.push(format!(
                "{}: `{}` skipped: {media}",
                command.location, command.source
            ));
            return Ok(());
        }
        if !video {
            // VHS writes a GIF whatever the extension; so do we, saying so.
            if extension != "gif" {
                self.notes.push(format!(
                    "{}: `{}`: written as a GIF, as VHS does for an extension it does not know",
                    command.location, command.source
                ));
            }
            self.gifs.push(path.to_path_buf());
            return Ok(());
        }
        Err(self.failure(
            FailureKind::Error,
            command,
            format!(
                "`{}`: {media}; run with --no-media to run the tape without it (or write .gif, .cast, .txt, .png or a folder/)",
                command.source
            ),
        ))
    }

    pub(super) fn screenshot(&mut self, command: &Command, path: &Path) -> Result<(), Failure> {
        make_parent(path).map_err(|e| self.failure(FailureKind::Error, command, e))?;
        let png = PngRequest {
            path: Some(absolute(path)),
            ..self.setup.png()
        };
        self.capture(Some(command), Some(png), false)?;
        self.written.push(path.to_path_buf());
        Ok(())
    }

    /// `Snapshot NAME` (the text), `Snapshot NAME.png` (the image) and, `styled`,
    /// `Snapshot+Styled NAME`: the text and its styles as the session's ANSI capture draws
    /// them again, masks keeping their length.
    pub(super) fn snapshot(&mut self, command: &Command, name: &str, styled: bool) -> Result<(), Failure> {
        let is_png = name.to_ascii_lowercase().ends_with(".png");
        let golden = if is_png || Path::new(name).extension().is_some() {
            self.tape.dir().join(name)
        } else {
            self.tape.dir().join(format!("{name}.snap"))
        };
        let result = if is_png {
            let screen = self.capture(Some(command), Some(self.setup.png()), false)?;
            let bytes = screen.png_bytes.unwrap_or_default();
            self.policy.compare_png(&bytes, &golden)
        } else if styled {
            let screen = self.capture_ansi(command)?;
            let masks: Vec<regex::Regex> = self
                .masks
                .iter()
                .filter_map(|m| crate::snapshot::compile(m).ok())
                .collect();
            let styled =
                crate::tape::snapshots::styled_from_ansi(&screen.text, screen.cols, screen.rows, &masks);
            compare_text(styled.trim_end(), &golden, &self.policy)
        } else {
            let screen = self.capture(Some(command), None, true)?;
            let text = crate::tape::snapshots::mask_whole_rows(&screen.text, &self.masked_rows);
            compare_text(&text, &golden, &self.policy)
        };
        match result {
            Ok(Some(note)) => {
                self.notes.push(format!("{}: {note}", command.location));
                self.written.push(golden);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(report) => {
                if is_png {
                    // The three pictures, for the report's side-by-side view.
                    let beside = |suffix| {
                        crate::render::compare::sibling(&golden, suffix, self.options.out_dir.as_deref())
                    };
                    let (actual, diff) = (beside("actual"), beside("diff"));
                    if golden.is_file() && actual.is_file() {
                        self.goldens.push(crate::report::Golden {
                            name: name.to_string(),
                            expected: golden.clone(),
                            actual,
                            diff: diff.is_file().then_some(diff),
                        });
                    }
                }
                let mut failure = self.failure(
                    FailureKind::Failed,
                    command,
                    format!("`{}`: {}", command.source, first_line(&report)),
                );
                failure.report = Some(report);
                Err(failure)
            }
        }
    }

    /// Adds a frame to the text golden and the frame folder.
    pub(super) fn frame(&mut self, command: &Command) -> Result<(), Failure> {
        if self.text_golden.is_none() && self.frame_dir.is_none() {
            return Ok(());
        }
        let png = match &self.frame_dir {
            Some(dir) => {
                self.frames += 1;
                std::fs::create_dir_all(dir).map_err(|e| {
                    self.failure(
                        FailureKind::Error,
                        command,
                        format!("creating {}: {e}", dir.display()),
                    )
                })?;
                Some(PngRequest {
                    path: Some(absolute(&dir.join(format!("frame-{:05}.png", self.frames)))),
                    ..self.setup.png()
                })
            }
            None => None,
        };
        let want_text = self.text_golden.is_some();
        let screen = self.capture(Some(command), png, want_text)?;
        if let Some((_, text)) = &mut self.text_golden {
            for row in screen.text.split('\n') {
                text.push_str(row);
                text.push('\n');
            }
            // Rows the capture trimmed away at the bottom are still rows of the screen.
            for _ in screen.text.split('\n').count()..usize::from(screen.rows) {
                text.push('\n');
            }
            text.push_str(FRAME_SEPARATOR);
            text.push('\n');
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) -> Result<(), Failure> {
        for path in self.final_pngs.clone() {
            make_parent(&path).map_err(|e| Failure::new(FailureKind::Error, &self.tape.path, None, e))?;
            let png = PngRequest {
                path: Some(absolute(&path)),
                ..self.setup.png()
            };
            self.capture(None, Some(png), false)?;
            self.written.push(path);
        }
        if let Some((path, text)) = self.text_golden.take() {
            make_parent(&path).map_err(|e| Failure::new(FailureKind::Error, &self.tape.path, None, e))?;
            crate::files::write_file_atomically(&path, text.as_bytes())
                .map_err(|e| Failure::new(FailureKind::Error, &self.tape.path, None, e.to_string()))?;
            self.written.push(path);
        }
        if let Some(dir) = &self.frame_dir {
            self.written.push(dir.clone());
        }
        Ok(())
    }
}

/// A path relative to the current directory made absolute (the executor refuses none,
/// but a host would; absolute paths also read better in reports).
pub(super) fn absolute(path: &Path) -> PathBuf {
    std::env::current_dir().map_or_else(|_| path.to_path_buf(), |d| d.join(path))
}

pub(super) fn make_parent(path: &Path) -> Result<(), String> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display())),
        None => Ok(()),
    }
}

impl Runner<'_> {
    /// Writes the tape's GIFs from the finished recording at `recording`, the way
    /// `tuipilot render` would, with the tape's look, `PlaybackSpeed`, `Framerate` and
    /// `LoopOffset`, and the `Hide`…`Show` stretches left out.
    pub(super) fn write_gifs(&mut self, recording: &Path) -> Result<(), String> {
        if self.gifs.is_empty() {
            return Ok(());
        }
        let recording = CastFile::open(recording).map_err(|e| e.to_string())?;
        let mut hidden = Vec::new();
        let mut hid_at = None;
        for (time, label) in recording.markers() {
            match self.visibility.iter().position(|(l, _)| l == label) {
                Some(i) if self.visibility[i].1 => hid_at = hid_at.or(Some(time)),
                Some(_) => {
                    if let Some(start) = hid_at.take() {
                        hidden.push((start, time));
                    }
                }
                None => {}
            }
        }
        if let Some(start) = hid_at {
            hidden.push((start, f64::INFINITY));
        }
        let made = recording
            .frame_source(&self.setup.frame_options(hidden))
            .map_err(|e| e.to_string())?;
        let frames = LoopFrom::new(&made, self.setup.loop_offset());
        let options = self.setup.png().options().map_err(|e| e.to_string())?;
        for path in self.gifs.clone() {
            make_parent(&path)?;
            write_frames(
                &frames,
                &options,
                &AnimationTarget::Gif(path.clone()),
                GifPalette::PerFrame,
                true,
                false,
            )
            .map_err(|e| format!("writing {}: {e}", path.display()))?;
            self.written.push(path);
        }
        Ok(())
    }
}
