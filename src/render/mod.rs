//! The rasteriser: a [`Snapshot`] → RGBA pixels → PNG.
//!
//! Cells are laid out on an integer grid measured from the bundled monospace font (no
//! fractional advance accumulates); text is drawn from cached fontdue glyphs, box drawing,
//! blocks, braille and Powerline from geometry (`procedural`), so the same screen gives
//! the same bytes on every machine. PNGs are encoded with the `png` crate directly.
//!
//! ```
//! use tuipilot::{Terminal, render::RenderOptions};
//!
//! let mut term = Terminal::new(20, 2).unwrap();
//! term.process(b"\x1b[1;32mhello\x1b[0m \xe2\x94\x8c\xe2\x94\x80\xe2\x94\x90");
//! let image = term.snapshot().render(&RenderOptions::default()).unwrap();
//! assert_eq!((image.width, image.height), (20 * 10 + 16, 2 * 19 + 16));
//! let png = image.to_png(tuipilot::render::PngCompression::Fast).unwrap();
//! assert!(png.starts_with(b"\x89PNG"));
//! ```

pub mod animation;
mod canvas;
mod chain;
pub mod compare;
mod draw;
mod faces;
mod fonts;
mod frame_image;
pub mod gif;
mod images;
mod lines;
mod outline;
mod procedural;
mod surface;
mod svg;

pub use svg::{SvgFrame, SvgParts, overlays, row_colors, row_key, row_pieces, svg_parts, text_style, to_svg};

use std::path::{Path, PathBuf};

use canvas::Canvas;
use chain::Chain;
use draw::Painter;

use crate::color::Color;
use crate::color::{Rgb, Theme};
use crate::error::{Error, Result};
use crate::snapshot::Snapshot;
use crate::terminal::CellSize;

/// How much effort PNG compression spends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PngCompression {
    /// Fast, reasonably small: the default for captures.
    #[default]
    Fast,
    /// Smaller files, several times slower.
    Small,
}

/// How to render a screen.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Font size in pixels before scaling ([`FONT_SIZES`]; default 16).
    pub font_size: f32,
    /// Pixel scale factor, 1 to 4 ([`SCALES`]; default 1): 2 looks like a HiDPI screen.
    pub scale: u32,
    /// Padding around the grid in pixels before scaling (default 8).
    pub padding: u32,
    /// Row height as a multiple of the font's line height ([`LINE_HEIGHTS`]; default 1).
    pub line_height: f32,
    /// Extra pixels between cells before scaling ([`LETTER_SPACINGS`]; default 0).
    pub letter_spacing: f32,
    /// Colours for default, indexed and cursor colours.
    pub theme: Theme,
    /// Extra fallback fonts, tried after the bundled faces and before the system's (e.g.
    /// a Nerd Font); every face of a collection is used.
    pub fonts: Vec<PathBuf>,
    /// Look for characters the bundled and named faces lack in the fonts installed on
    /// the machine (default on). Off, a render depends on nothing outside the process: for
    /// golden images shared between machines with different fonts.
    pub system_fonts: bool,
    /// Draw the cursor (when the program shows it).
    pub cursor: bool,
    /// Draw bold text in colours 0-7 in their bright versions 8-15, as xterm does by
    /// default (its `boldColors`; default on).
    pub bold_is_bright: bool,
    /// How hard PNG encoding works.
    pub compression: PngCompression,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            font_size: 16.0,
            scale: 1,
            padding: 8,
            line_height: 1.0,
            letter_spacing: 0.0,
            theme: Theme::default(),
            fonts: Vec::new(),
            system_fonts: true,
            cursor: true,
            bold_is_bright: true,
            compression: PngCompression::Fast,
        }
    }
}

impl RenderOptions {
    /// Options with the named theme (`dark` or `light`).
    pub fn with_theme(mut self, name: &str) -> Result<Self> {
        self.theme = Theme::by_name(name).ok_or_else(|| Error::UnknownTheme {
            name: name.to_string(),
        })?;
        Ok(self)
    }

    /// Adds a fallback font file.
    pub fn with_font(mut self, path: impl Into<PathBuf>) -> Self {
        self.fonts.push(path.into());
        self
    }

    /// Checks the options a caller chose: font size and scale in range, padding sane,
    /// every fallback font readable. Each failure is a bad-input error that names the
    /// range or the file.
    pub fn check(&self) -> Result<()> {
        in_range("font size", self.font_size, &FONT_SIZES, " px")?;
        in_range("scale", self.scale, &SCALES, "")?;
        in_range("line height", self.line_height, &LINE_HEIGHTS, "")?;
        in_range("letter spacing", self.letter_spacing, &LETTER_SPACINGS, " px")?;
        if self.padding > MAX_PADDING {
            return Err(Error::InvalidRenderOption {
                message: format!(
                    "padding {} px is too large: use at most {MAX_PADDING} px",
                    self.padding
                ),
            });
        }
        self.fonts.iter().try_for_each(|font| check_font(font))
    }
}

/// Font sizes the renderer accepts, in pixels before scaling.
pub const FONT_SIZES: std::ops::RangeInclusive<f32> = 4.0..=128.0;

/// A bad-input error naming the option and its range when `value` is outside it.
fn in_range<T: PartialOrd + std::fmt::Display>(
    what: &str,
    value: T,
    range: &std::ops::RangeInclusive<T>,
    unit: &str,
) -> Result<()> {
    if range.contains(&value) {
        return Ok(());
    }
    Err(Error::InvalidRenderOption {
        message: format!(
            "{what} {value}{unit} is out of range: use {} to {}{unit}",
            range.start(),
            range.end()
        ),
    })
}

/// Row heights the renderer accepts, as multiples of the font's line height.
pub const LINE_HEIGHTS: std::ops::RangeInclusive<f32> = 0.5..=4.0;

/// Extra pixels between cells the renderer accepts, before scaling.
pub const LETTER_SPACINGS: std::ops::RangeInclusive<f32> = 0.0..=100.0;

/// Pixel scale factors the renderer accepts.
pub const SCALES: std::ops::RangeInclusive<u32> = 1..=4;

/// The most padding around the grid, in pixels before scaling.
pub const MAX_PADDING: u32 = 256;

/// An opaque RGBA image.
#[derive(Clone, Debug)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Row-major RGBA, 4 bytes a pixel, alpha always 255.
    pub pixels: Vec<u8>,
    /// The text of the screen drawn, when the image is of one ([`Snapshot::render`]): what
    /// a golden comparison shows the changed rows of, beside the pixel counts. Not part of
    /// equality.
    pub text: Option<String>,
}

impl PartialEq for Image {
    fn eq(&self, other: &Image) -> bool {
        (self.width, self.height) == (other.width, other.height) && self.pixels == other.pixels
    }
}

impl Eq for Image {}

impl Image {
    /// The colour at (x, y).
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgb> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 4;
        Some(Rgb(self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]))
    }

    /// Encodes the image as PNG.
    pub fn to_png(&self, compression: PngCompression) -> Result<Vec<u8>> {
        encode_png(self.width, self.height, &self.pixels, compression)
    }

    /// Writes the image as a PNG file, atomically: to a temporary file beside `path`,
    /// then renamed, so a failed write never leaves half a file.
    pub fn save_png(&self, path: impl AsRef<Path>, compression: PngCompression) -> Result<()> {
        crate::files::write_file_atomically(path.as_ref(), &self.to_png(compression)?)
    }
}

/// Encodes opaque RGBA pixels as PNG with the given effort.
pub fn encode_png(width: u32, height: u32, rgba: &[u8], compression: PngCompression) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(rgba.len() / 8);
    let failed = |e: png::EncodingError| Error::io("encoding PNG", std::io::Error::other(e.to_string()));
    {
        let mut encoder = png::Encoder::new(&mut out, width, height);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(match compression {
            PngCompression::Fast => png::Compression::Fast,
            PngCompression::Small => png::Compression::High,
        });
        // A screen has few colours: as a palette image it is a quarter of the data to
        // compress, so it encodes faster and smaller than its RGBA.
        let indexed = palette(rgba);
        let data = match &indexed {
            Some((colours, indices)) => {
                encoder.set_color(png::ColorType::Indexed);
                encoder.set_palette(colours.as_slice());
                // Filters predict smooth gradients; palette indices are not (libpng's advice).
                encoder.set_filter(png::Filter::NoFilter);
                indices.as_slice()
            }
            None => {
                encoder.set_color(png::ColorType::Rgba);
                rgba
            }
        };
        let mut writer = encoder.write_header().map_err(failed)?;
        writer.write_image_data(data).map_err(failed)?;
        writer.finish().map_err(failed)?;
    }
    Ok(out)
}

/// The image as a palette (RGB triples) and an index per pixel, if it is opaque and has
/// at most 256 colours. Runs of one colour (most of a screen) cost a comparison a pixel;
/// other pixels are found in a small open-addressed table.
fn palette(rgba: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    const SLOTS: usize = 1024;
    let mut colours: Vec<u32> = Vec::with_capacity(256);
    let mut table = [u16::MAX; SLOTS];
    let mut indices = Vec::with_capacity(rgba.len() / 4);
    let (mut last, mut last_index) = (None, 0u8);
    for pixel in rgba.chunks_exact(4) {
        if pixel[3] != 255 {
            return None;
        }
        let colour = u32::from_le_bytes([pixel[0], pixel[1], pixel[2], 0]);
        if last != Some(colour) {
            let mut slot = (colour.wrapping_mul(0x9E37_79B1) >> 22) as usize % SLOTS;
            loop {
                match table[slot] {
                    u16::MAX => {
                        if colours.len() == 256 {
                            return None;
                        }
                        table[slot] = colours.len() as u16;
                        last_index = colours.len() as u8;
                        colours.push(colour);
                        break;
                    }
                    i if colours[usize::from(i)] == colour => {
                        last_index = i as u8;
                        break;
                    }
                    _ => slot = (slot + 1) % SLOTS,
                }
            }
            last = Some(colour);
        }
        indices.push(last_index);
    }
    let rgb = colours
        .iter()
        .flat_map(|c| {
            let [r, g, b, _] = c.to_le_bytes();
            [r, g, b]
        })
        .collect();
    Some((rgb, indices))
}

/// Integer cell metrics for a font size and scale.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Metrics {
    /// Cell width in pixels.
    pub cell_width: u32,
    /// Cell height in pixels.
    pub cell_height: u32,
    /// Pixels from the top of a cell to the baseline.
    pub baseline: u32,
    /// Pixels from the baseline down to the top of the underline, and its thickness.
    pub underline_offset: i32,
    /// Underline thickness in pixels.
    pub underline_thickness: u32,
    /// Padding around the grid in pixels (scaled).
    pub padding: u32,
}

impl Metrics {
    /// Metrics of the bundled monospace font at the options' size and scale.
    pub fn of(options: &RenderOptions) -> Metrics {
        let scale = options.scale.max(1);
        let px = options.font_size * scale as f32;
        let face = fonts::bundled().regular_ascii();
        let line = face.font.horizontal_line_metrics(px);
        let (ascent, descent) = line.map_or((px * 0.8, -px * 0.2), |l| (l.ascent, l.descent));
        let advance = face.font.metrics('M', px).advance_width + options.letter_spacing * scale as f32;
        let (position, thickness) = face.underline;
        // Extra line height is shared above and below the text, as terminals do.
        let line = (ascent - descent) * options.line_height;
        let lead = (line - (ascent - descent)) / 2.0;
        Metrics {
            cell_width: advance.ceil().max(1.0) as u32,
            cell_height: line.ceil().max(1.0) as u32,
            baseline: (ascent + lead).round().max(0.0) as u32,
            underline_offset: (-position * px).round() as i32,
            underline_thickness: (thickness * px).round().max(1.0) as u32,
            padding: options.padding * scale,
        }
    }

    /// The cell size reported to programs (`CSI 16 t`) for these metrics.
    pub fn cell_size(&self) -> CellSize {
        CellSize {
            width: self.cell_width as u16,
            height: self.cell_height as u16,
        }
    }

    /// The top-left pixel of a cell.
    pub(crate) fn origin(&self, row: u16, col: u16) -> (i32, i32) {
        let pad = self.padding as i32;
        (
            pad + i32::from(col) * self.cell_width as i32,
            pad + i32::from(row) * self.cell_height as i32,
        )
    }

    /// The width of a light line (box drawing, the cursor's bar) at this cell height.
    pub(crate) fn light(&self) -> i32 {
        ((self.cell_height as f32) / 18.0).round().max(1.0) as i32
    }
}

/// Checks that a file can be used as a fallback font (reading it once for the process).
pub fn check_font(path: &Path) -> Result<()> {
    faces::user_faces(path).map(|_| ())
}

/// `a` blended toward `b` by `alpha`/255.
pub(crate) fn mix(a: Rgb, b: Rgb, alpha: u8) -> Rgb {
    let m = |x: u8, y: u8| {
        ((u32::from(x) * (255 - u32::from(alpha)) + u32::from(y) * u32::from(alpha) + 127) / 255) as u8
    };
    Rgb(m(a.0, b.0), m(a.1, b.1), m(a.2, b.2))
}

fn resolve(color: Color, default: Rgb, theme: &Theme) -> Rgb {
    match color {
        Color::Default => default,
        Color::Indexed(i) => theme.indexed(i),
        Color::Rgb(r, g, b) => Rgb(r, g, b),
    }
}

/// The size in pixels of a `cols`×`rows` screen drawn with `options`, or a bad-input
/// error when it is over [`MAX_PIXELS`] — checked before anything is allocated, so no
/// request can make a host try to allocate gigabytes.
pub fn image_size(cols: u16, rows: u16, options: &RenderOptions) -> Result<(u32, u32)> {
    options.check()?;
    let m = Metrics::of(options);
    let width = u64::from(cols) * u64::from(m.cell_width) + 2 * u64::from(m.padding);
    let height = u64::from(rows) * u64::from(m.cell_height) + 2 * u64::from(m.padding);
    if width * height > MAX_PIXELS {
        return Err(Error::InvalidRenderOption {
            message: format!(
                "a {cols}x{rows} screen at {} px, scale {} would be {width}x{height} pixels, over the limit of {} megapixels: use a smaller font size or scale",
                options.font_size,
                options.scale,
                MAX_PIXELS / 1_000_000
            ),
        });
    }
    // Both fit: each is at most MAX_PIXELS.
    Ok((width as u32, height as u32))
}

/// The most pixels one image may have (64 million: 8000×8000, about 256 MB of RGBA).
pub const MAX_PIXELS: u64 = 64_000_000;

/// The options `snapshot` is drawn with: in reverse screen mode (DECSCNM) the theme's
/// default foreground and background swapped, as xterm swaps them; colours a cell names
/// itself stay.
pub(crate) fn shown_with<'a>(
    snapshot: &Snapshot,
    options: &'a RenderOptions,
) -> std::borrow::Cow<'a, RenderOptions> {
    if !snapshot.reverse_screen() {
        return std::borrow::Cow::Borrowed(options);
    }
    let mut reversed = options.clone();
    let theme = &mut reversed.theme;
    std::mem::swap(&mut theme.foreground, &mut theme.background);
    std::borrow::Cow::Owned(reversed)
}

/// Renders a snapshot to pixels.
pub fn render(snapshot: &Snapshot, options: &RenderOptions) -> Result<Image> {
    let options = &*shown_with(snapshot, options);
    let (cols, rows) = snapshot.size();
    // Checks the options and the pixel budget before anything is allocated.
    let (width, height) = image_size(cols, rows, options)?;
    let chain = Chain::new(&options.fonts, options.system_fonts)?;
    let mut canvas = Canvas::new(width, height, options.theme.background).ok_or_else(|| {
        Error::io(
            "rendering",
            std::io::Error::other(format!("cannot allocate a {width}x{height} image")),
        )
    })?;
    Painter {
        canvas: &mut canvas,
        options,
        metrics: Metrics::of(options),
        chain: &chain,
        px: options.font_size * options.scale.max(1) as f32,
    }
    .screen(snapshot);
    lines::double_rows(
        &mut canvas,
        snapshot,
        &Metrics::of(options),
        options.theme.background,
    );
    Ok(Image {
        width,
        height,
        pixels: canvas.pixmap.take(),
        text: Some(snapshot.text()),
    })
}

/// Parses the bundled faces and rasterises printable ASCII and box drawing in the four
/// styles at the default size, so the first capture of a process costs what a later one
/// does. A host calls it on a background thread when it starts, while the program is
/// still starting up.
pub fn warm_up() {
    let mut sample = String::new();
    for sgr in ["0", "1", "3", "1;3"] {
        sample.push_str(&format!("\x1b[{sgr}m"));
        sample.extend((0x21u8..0x7f).map(char::from));
        sample.push_str("\r\n");
    }
    sample.push_str("\x1b[0m┌─┬─┐│├┼┤└┴┘");
    if let Ok(mut terminal) = crate::Terminal::new(100, 6) {
        terminal.process(sample.as_bytes());
        let _ = terminal.snapshot().to_png(&RenderOptions::default());
    }
}

/// The characters on the screen that no face in the chain can draw (each once, in
/// order): they are drawn as boxes. Characters drawn from geometry, spaces and zero-width
/// marks are never missing.
pub fn missing_glyphs(snapshot: &Snapshot, options: &RenderOptions) -> Result<Vec<char>> {
    let chain = Chain::new(&options.fonts, options.system_fonts)?;
    let mut missing: Vec<char> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for cell in snapshot.cells.iter() {
        for c in cell.text().chars() {
            if (c.is_ascii() && !c.is_ascii_control()) || !seen.insert(c) {
                continue;
            }
            if !chain.can_draw(c) {
                missing.push(c);
            }
        }
    }
    Ok(missing)
}

/// A one-line hint for characters no font could draw: which Debian package (or kind of
/// font) covers them, or `None` when nothing is missing. `missing` holds `U+XXXX` code
/// points as [`missing_glyphs`] reports them to the faces.
pub fn missing_glyphs_hint(missing: &[String]) -> Option<String> {
    let chars: Vec<char> = missing
        .iter()
        .filter_map(|m| u32::from_str_radix(m.trim_start_matches("U+"), 16).ok())
        .filter_map(char::from_u32)
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut packages: Vec<&str> = Vec::new();
    for &c in &chars {
        let package = font_package(c);
        if !packages.contains(&package) {
            packages.push(package);
        }
    }
    let shown: Vec<String> = missing.iter().take(4).cloned().collect();
    let more = if missing.len() > 4 {
        format!(" and {} more", missing.len() - 4)
    } else {
        String::new()
    };
    Some(format!(
        "no installed font draws {}{more} (drawn as boxes): install {} or pass --font FILE",
        shown.join(", "),
        packages.join(" and ")
    ))
}

/// What to install for a character no face has.
fn font_package(c: char) -> &'static str {
    match u32::from(c) {
        0xE0A0..=0xE0D7 => "fonts-powerline",
        0xE000..=0xF8FF | 0xF0000..=0x10FFFF => "a Nerd Font (into ~/.local/share/fonts)",
        0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0x2B00..=0x2BFF | 0xFE0F => "fonts-noto-color-emoji",
        0x1100..=0x11FF
        | 0x2E80..=0x303F
        | 0x3040..=0x9FFF
        | 0xA960..=0xA97F
        | 0xAC00..=0xD7FF
        | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F
        | 0xFF00..=0xFFEF
        | 0x20000..=0x3FFFF => "fonts-noto-cjk",
        0x2000..=0x2BFF => "fonts-symbola",
        _ => "fonts-noto-core",
    }
}

impl Snapshot {
    /// Renders the screen to pixels.
    pub fn render(&self, options: &RenderOptions) -> Result<Image> {
        render(self, options)
    }

    /// Renders the screen as PNG bytes.
    pub fn to_png(&self, options: &RenderOptions) -> Result<Vec<u8>> {
        self.render(options)?.to_png(options.compression)
    }

    /// The screen as an SVG document (see [`to_svg`]).
    pub fn to_svg(&self, options: &RenderOptions, frame: SvgFrame) -> Result<String> {
        to_svg(self, options, frame)
    }

    /// Renders the screen to a PNG file (written atomically); returns the image size.
    pub fn save_png(&self, path: impl AsRef<Path>, options: &RenderOptions) -> Result<(u32, u32)> {
        let image = self.render(options)?;
        image.save_png(path, options.compression)?;
        Ok((image.width, image.height))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reported_cell_size_matches_the_renderer() {
        assert_eq!(
            Metrics::of(&RenderOptions::default()).cell_size(),
            CellSize::default()
        );
    }
}
