//! Comparing a rendered image with a golden PNG, for image tests.
//!
//! A pixel differs when any channel differs by more than `channel` (0–255); the images
//! match when at most `max_share` of the pixels differ. On a mismatch the actual image and
//! a diff image (differing pixels red, the rest a faint grey copy) are written next to the
//! golden as `NAME.actual.png` and `NAME.diff.png` (git-ignore `*.actual.png` and
//! `*.diff.png`). A relative golden path is resolved from the crate being tested
//! (`CARGO_MANIFEST_DIR`, which `cargo test` sets), not from wherever the test runs.
//!
//! Updating works the way insta's does: `TUIPILOT_UPDATE=1` writes (or overwrites) the
//! golden instead of comparing — except when `CI` is set, where goldens are never written
//! and a missing or different golden fails, so a CI run cannot bless its own output.
//! `TUIPILOT_UPDATE=force` writes even on CI. A missing golden is an error that says how
//! to create it.
//!
//! ```no_run
//! use tuipilot::render::{RenderOptions, compare::{Tolerance, assert_png_matches}};
//! # let snapshot = tuipilot::Terminal::new(80, 24).unwrap().snapshot();
//! let image = snapshot.render(&RenderOptions::default()).unwrap();
//! assert_png_matches(&image, "tests/golden/empty.png", Tolerance::EXACT);
//! ```

use std::path::{Path, PathBuf};

use super::{Image, PngCompression};
use crate::error::{Error, Result};
use crate::files::write_file_atomically;

/// How different two images may be and still match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Largest per-channel difference that still counts as the same pixel.
    pub channel: u8,
    /// Largest share of differing pixels (0.0–1.0) that still counts as a match.
    pub max_share: f64,
}

impl Tolerance {
    /// Every pixel identical.
    pub const EXACT: Tolerance = Tolerance {
        channel: 0,
        max_share: 0.0,
    };
}

/// What a comparison found.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// The images match within the tolerance.
    Matched {
        /// Pixels that differ within the tolerance.
        differing: usize,
    },
    /// `TUIPILOT_UPDATE=1` was set: the golden was written.
    Updated,
}

/// Decodes a PNG file into an [`Image`].
pub fn load_png(path: impl AsRef<Path>) -> Result<Image> {
    let path = path.as_ref();
    let bytes = std::fs::read(path).map_err(|e| Error::io(format!("opening {}", path.display()), e))?;
    decode_png(&bytes, &path.display().to_string())
}

/// Decodes PNG bytes into an [`Image`]; `name` says what they are in an error.
pub fn decode_png(bytes: &[u8], name: &str) -> Result<Image> {
    let bad =
        |e: png::DecodingError| Error::io(format!("decoding {name}"), std::io::Error::other(e.to_string()));
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(bad)?;
    let mut buf = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader.next_frame(&mut buf).map_err(bad)?;
    let bytes = &buf[..info.buffer_size()];
    let pixels: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => bytes.to_vec(),
        png::ColorType::Rgb => bytes
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::Grayscale => bytes.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::GrayscaleAlpha => bytes
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Indexed => return Err(bad(png::DecodingError::LimitsExceeded)),
    };
    Ok(Image {
        width: info.width,
        height: info.height,
        pixels,
        text: None,
    })
}

/// Where a mismatch's `NAME.SUFFIX.png` goes: in `dir` when given, else beside the golden.
pub(crate) fn sibling(golden: &Path, suffix: &str, dir: Option<&Path>) -> PathBuf {
    let stem = golden
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = format!("{stem}.{suffix}.png");
    match dir {
        Some(dir) => dir.join(name),
        None => golden.with_file_name(name),
    }
}

/// Compares `actual` with the golden PNG at `golden` (relative paths from the crate's
/// manifest directory); with `TUIPILOT_UPDATE=1` and no `CI`, or `TUIPILOT_UPDATE=force`,
/// writes the golden instead.
pub fn compare_png(actual: &Image, golden: impl AsRef<Path>, tolerance: Tolerance) -> Result<Outcome> {
    let update = update_wanted(
        std::env::var("TUIPILOT_UPDATE").ok().as_deref(),
        std::env::var("CI").ok().as_deref(),
    );
    let golden = resolve_golden(golden.as_ref(), std::env::var_os("CARGO_MANIFEST_DIR"));
    compare_png_or_update(actual, golden, tolerance, update)
}

/// Whether `CI` says this is a CI run (set, not empty, not `0` or `false`).
pub(crate) fn on_ci(ci: Option<&str>) -> bool {
    ci.is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// Whether goldens are written: `TUIPILOT_UPDATE=1` outside CI, `force` anywhere.
pub(crate) fn update_wanted(update: Option<&str>, ci: Option<&str>) -> bool {
    let on_ci = on_ci(ci);
    match update {
        Some("force") => true,
        Some("1") => !on_ci,
        _ => false,
    }
}

/// A relative path (a golden, a tape folder) taken from the crate under test, when cargo
/// says which it is.
pub(crate) fn resolve_golden(golden: &Path, manifest_dir: Option<std::ffi::OsString>) -> PathBuf {
    match manifest_dir {
        Some(dir) if golden.is_relative() => PathBuf::from(dir).join(golden),
        _ => golden.to_path_buf(),
    }
}

/// [`compare_png`] with the update decision made by the caller.
pub fn compare_png_or_update(
    actual: &Image,
    golden: impl AsRef<Path>,
    tolerance: Tolerance,
    update: bool,
) -> Result<Outcome> {
    compare_png_reporting(actual, golden.as_ref(), tolerance, update, None)
}

/// [`compare_png_or_update`], writing a mismatch's actual and diff images into
/// `report_dir` (created) when given, instead of beside the golden.
pub(crate) fn compare_png_reporting(
    actual: &Image,
    golden: &Path,
    tolerance: Tolerance,
    update: bool,
    report_dir: Option<&Path>,
) -> Result<Outcome> {
    if update {
        if let Some(dir) = golden.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
        }
        actual.save_png(golden, PngCompression::Small)?;
        return Ok(Outcome::Updated);
    }
    if !golden.exists() {
        return Err(Error::ImageMismatch {
            report: format!(
                "golden image {} does not exist: run the test with TUIPILOT_UPDATE=1 to create it (not on CI), check it, and commit it",
                golden.display()
            ),
        });
    }
    let expected = load_png(golden)?;
    let actual_path = sibling(golden, "actual", report_dir);
    let diff_path = sibling(golden, "diff", report_dir);
    if let Some(dir) = report_dir {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(format!("creating {}", dir.display()), e))?;
    }
    if (expected.width, expected.height) != (actual.width, actual.height) {
        actual.save_png(&actual_path, PngCompression::Fast)?;
        return Err(Error::ImageMismatch {
            report: format!(
                "image size {}x{} differs from the golden's {}x{} ({}); actual written to {}",
                actual.width,
                actual.height,
                expected.width,
                expected.height,
                golden.display(),
                actual_path.display()
            ),
        });
    }
    let mut differing = 0usize;
    let mut diff = Vec::with_capacity(actual.pixels.len());
    for (a, e) in actual.pixels.chunks_exact(4).zip(expected.pixels.chunks_exact(4)) {
        let differs = a
            .iter()
            .zip(e)
            .take(3)
            .any(|(x, y)| x.abs_diff(*y) > tolerance.channel);
        if differs {
            differing += 1;
            diff.extend_from_slice(&[255, 0, 0, 255]);
        } else {
            let grey = ((u32::from(a[0]) + u32::from(a[1]) + u32::from(a[2])) / 12 + 160) as u8;
            diff.extend_from_slice(&[grey, grey, grey, 255]);
        }
    }
    let total = (actual.width as usize * actual.height as usize).max(1);
    if differing as f64 / total as f64 <= tolerance.max_share {
        // A stale report from an earlier failure would mislead.
        let _ = std::fs::remove_file(&actual_path);
        let _ = std::fs::remove_file(&diff_path);
        return Ok(Outcome::Matched { differing });
    }
    actual.save_png(&actual_path, PngCompression::Fast)?;
    write_file_atomically(
        &diff_path,
        &super::encode_png(actual.width, actual.height, &diff, PngCompression::Fast)?,
    )?;
    Err(Error::ImageMismatch {
        report: format!(
            "{differing} of {total} pixels ({:.3}%) differ from {} beyond ±{} per channel (allowed {:.3}%); actual: {}, diff: {}; if the change is intended, rerun with TUIPILOT_UPDATE=1",
            100.0 * differing as f64 / total as f64,
            golden.display(),
            tolerance.channel,
            100.0 * tolerance.max_share,
            actual_path.display(),
            diff_path.display()
        ),
    })
}

/// [`compare_png`] as a test's assertion: `Ok` when the image matches, else the report as
/// the error — the differing pixels, where the actual and diff images went, and, for an
/// image of a screen ([`Snapshot::render`](crate::Snapshot::render)), which rows of its
/// text changed. Writing a golden (`TUIPILOT_UPDATE=1`) also writes the screen's text beside
/// it (`NAME.txt`), the text a later mismatch is held against, and says so on stderr.
pub fn assert_png_matches(actual: &Image, golden: impl AsRef<Path>, tolerance: Tolerance) -> Result<()> {
    let path = resolve_golden(golden.as_ref(), std::env::var_os("CARGO_MANIFEST_DIR"));
    let text_path = path.with_extension("txt");
    match compare_png(actual, &path, tolerance) {
        Ok(Outcome::Updated) => {
            match &actual.text {
                Some(text) => {
                    write_file_atomically(&text_path, format!("{text}\n").as_bytes())?;
                    eprintln!(
                        "tuipilot: golden image {} and its text {} written: check them and commit them",
                        path.display(),
                        text_path.display()
                    );
                }
                None => eprintln!(
                    "tuipilot: golden image {} written: check it and commit it",
                    path.display()
                ),
            }
            Ok(())
        }
        Ok(Outcome::Matched { .. }) => Ok(()),
        Err(Error::ImageMismatch { report }) => {
            let Some(text) = &actual.text else {
                return Err(Error::ImageMismatch { report });
            };
            let text_report = match std::fs::read_to_string(&text_path) {
                Ok(golden_text) => match line_diff(golden_text.trim_end_matches('\n'), text) {
                    diff if diff.is_empty() => {
                        "the text is the same; only colours, styles or pictures differ".to_string()
                    }
                    diff => format!("the text, golden (-) and this screen (+):\n{diff}"),
                },
                Err(_) => format!(
                    "no {} beside the golden to hold the text against (it is written with the golden: TUIPILOT_UPDATE=1)",
                    text_path.display()
                ),
            };
            Err(Error::ImageMismatch {
                report: format!("{report}\n{text_report}"),
            })
        }
        Err(e) => Err(e),
    }
}

/// Renders `screen` and holds it against the golden PNG at `golden`: [`assert_png_matches`]
/// of `screen.render(options)`.
pub fn assert_screen_matches(
    screen: &crate::Snapshot,
    options: &super::RenderOptions,
    golden: impl AsRef<Path>,
    tolerance: Tolerance,
) -> Result<()> {
    assert_png_matches(&screen.render(options)?, golden, tolerance)
}

/// A line diff: `-` expected, `+` actual, with row numbers; equal rows are left out.
pub(crate) fn line_diff(expected: &str, actual: &str) -> String {
    let old: Vec<&str> = expected.lines().collect();
    let new: Vec<&str> = actual.lines().collect();
    let mut out = String::new();
    for row in 0..old.len().max(new.len()) {
        let (a, b) = (old.get(row), new.get(row));
        if a == b {
            continue;
        }
        if let Some(a) = a {
            out.push_str(&format!("{row:>4} - {a}\n"));
        }
        if let Some(b) = b {
            out.push_str(&format!("{row:>4} + {b}\n"));
        }
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goldens_are_never_written_on_ci_unless_forced() {
        assert!(update_wanted(Some("1"), None));
        assert!(update_wanted(Some("1"), Some("")));
        assert!(update_wanted(Some("1"), Some("false")));
        assert!(!update_wanted(Some("1"), Some("true")));
        assert!(!update_wanted(Some("1"), Some("1")));
        assert!(update_wanted(Some("force"), Some("true")));
        assert!(!update_wanted(None, None));
        assert!(!update_wanted(Some("yes"), None));
    }

    #[test]
    fn relative_goldens_resolve_from_the_manifest_dir() {
        let dir = Some(std::ffi::OsString::from("/crate"));
        assert_eq!(
            resolve_golden(Path::new("tests/golden/a.png"), dir.clone()),
            PathBuf::from("/crate/tests/golden/a.png")
        );
        assert_eq!(
            resolve_golden(Path::new("/abs/a.png"), dir),
            PathBuf::from("/abs/a.png")
        );
        assert_eq!(resolve_golden(Path::new("a.png"), None), PathBuf::from("a.png"));
    }
}
