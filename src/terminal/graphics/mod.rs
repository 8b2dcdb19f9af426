//! Terminal graphics: pictures a program draws with sixel (`DCS q`), the kitty graphics
//! protocol (`APC G`) or iTerm2's inline images (`OSC 1337 ; File=`), kept with the cells
//! they cover so a screenshot can show them where a terminal would.
//!
//! vt100 knows nothing of images, and moving them with the text is the hard part: text
//! scrolls, lines are inserted and deleted, screens are cleared. Rather than copying
//! vt100's grid logic, a placed image *writes into the grid*: every cell row it covers is
//! blanked and the row's first cell gets a zero-width *marker* (an unassigned,
//! default-ignorable code point, as the width stand-ins in `clusters` are) naming the
//! placement and the image row. The markers then move, scroll and erase exactly as text
//! does, and a capture finds each image by its markers. A row whose marker was overwritten
//! is found between the rows above and below it; cells a program writes text over (or
//! paints a background on) hide their part of a sixel or iTerm2 image, as in xterm, while
//! a kitty image stays above the text unless its z-index is negative.
//!
//! Memory is bounded: decoded pixels are capped at [`MAX_IMAGE_MEMORY`] for all images
//! together (the oldest go first), one image at [`MAX_IMAGE_PIXELS`], and the markers are
//! a fixed ring (a placement whose markers are reused is gone, as it long since scrolled
//! away in all likelihood).

mod iterm;
mod kitty;
mod sixel;
mod tiff;

use std::collections::HashMap;
use std::sync::Arc;

use crate::snapshot::CellSize;
pub(crate) use crate::snapshot::Picture;
pub use crate::snapshot::{Image, ImageProtocol};

/// What a kitty graphics command asks of the terminal. The answer is the caller's to
/// queue (the responder's), so this module knows nothing of replies.
#[derive(Default)]
pub(crate) struct KittyOutcome {
    /// The bytes to give the parser after the command (a placement's cells).
    pub(crate) placed: Option<Vec<u8>>,
    /// What the program is owed, unless nothing (no id, or silenced with `q`).
    pub(crate) answer: Option<Answer>,
}

/// An answer to a kitty graphics command.
pub(crate) struct Answer {
    /// The command as the query transcript names it (its payload left out).
    pub(crate) query: String,
    /// The reply the program reads.
    pub(crate) reply: String,
}

/// The most pixels one image may have (4096 × 4096): a bigger one is refused.
pub const MAX_IMAGE_PIXELS: usize = 4096 * 4096;

/// The most memory the decoded pixels of all images may take together (128 MiB); the
/// oldest images are dropped to make room for a new one.
pub const MAX_IMAGE_MEMORY: usize = 128 << 20;

/// The longest image string read (sixel data, a kitty transmission, an iTerm2 file in
/// base64); a longer one is dropped.
pub(crate) const MAX_IMAGE_STRING: usize = 64 << 20;

/// Zero-width markers: unassigned, default-ignorable code points (U+E01F0–U+E07FF).
const MARKERS: std::ops::RangeInclusive<u32> = 0xE01F0..=0xE07FF;
const MARKER_COUNT: usize = (0xE07FF - 0xE01F0 + 1) as usize;
/// The most cell rows one placement covers (fewer than the markers, so a placement never
/// reuses its own).
const MAX_PLACEMENT_ROWS: u16 = 1000;

/// Which marker `c` is, if it is one.
pub(crate) fn marker_index(c: char) -> Option<usize> {
    let c = u32::from(c);
    MARKERS.contains(&c).then(|| (c - MARKERS.start()) as usize)
}

fn marker_char(index: usize) -> char {
    char::from_u32(MARKERS.start() + index as u32).unwrap_or(' ')
}

impl Picture {
    /// A picture from 8-bit RGB (3 channels) or RGBA (4) samples, of which `data` holds
    /// at least `width * height * channels`.
    fn from_samples(width: u32, height: u32, channels: usize, mut data: Vec<u8>) -> Picture {
        let need = width as usize * height as usize * channels;
        let rgba = if channels == 4 {
            data.truncate(need);
            data
        } else {
            data[..need]
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect()
        };
        Picture::new(width, height, rgba)
    }

    fn bytes(&self) -> usize {
        self.rgba.len()
    }

    /// The part `(x, y, w, h)` of the picture (clipped to it; 0 means to the edge).
    fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Option<Picture> {
        let (x, y) = (x.min(self.width), y.min(self.height));
        let w = if w == 0 {
            self.width - x
        } else {
            w.min(self.width - x)
        };
        let h = if h == 0 {
            self.height - y
        } else {
            h.min(self.height - y)
        };
        if w == 0 || h == 0 {
            return None;
        }
        let mut rgba = Vec::with_capacity((w * h * 4) as usize);
        for row in y..y + h {
            let start = ((row * self.width + x) * 4) as usize;
            rgba.extend_from_slice(&self.rgba[start..start + (w * 4) as usize]);
        }
        Some(Picture::new(w, h, rgba))
    }
}

/// Decodes a PNG file to RGBA (palette, grey and 16-bit images are converted); refuses
/// one past [`MAX_IMAGE_PIXELS`] before decoding its pixels.
#[cfg(feature = "render")]
pub(crate) fn decode_png(bytes: &[u8]) -> Result<Picture, String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::normalize_to_color8() | png::Transformations::ALPHA);
    let mut reader = decoder.read_info().map_err(|e| format!("not a PNG image: {e}"))?;
    let (w, h) = (reader.info().width, reader.info().height);
    if (w as usize).saturating_mul(h as usize) > MAX_IMAGE_PIXELS {
        return Err(format!("a {w}x{h} image has more than {MAX_IMAGE_PIXELS} pixels"));
    }
    let size = reader.output_buffer_size().ok_or("the PNG image is too large")?;
    let mut buffer = vec![0; size];
    let info = reader
        .next_frame(&mut buffer)
        .map_err(|e| format!("broken PNG image: {e}"))?;
    let data = &buffer[..info.buffer_size()];
    let rgba = match info.color_type {
        png::ColorType::Rgba => data.to_vec(),
        png::ColorType::GrayscaleAlpha => data
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        other => return Err(format!("PNG colour type {other:?} after conversion")),
    };
    Ok(Picture::new(info.width, info.height, rgba))
}

/// Without the rasteriser there is no PNG decoder: PNG payloads are refused.
#[cfg(not(feature = "render"))]
pub(crate) fn decode_png(_: &[u8]) -> Result<Picture, String> {
    Err("PNG images need tuipilot's `render` feature".to_string())
}

/// Where the cursor goes once an image is placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CursorAfter {
    /// To the image's left column on the row below it (sixel, as xterm with DECSDM reset).
    Below,
    /// To the column after the image on its last row (kitty, iTerm2).
    Right,
    /// Back to where it was (kitty's `C=1`).
    Stay,
}

/// What a placement shows, where the cursor leaves it.
struct Shown {
    protocol: ImageProtocol,
    id: u32,
    /// kitty's placement id (0: none).
    placement_id: u32,
    picture: Arc<Picture>,
    /// Drawn size in the terminal's pixels.
    display: (u32, u32),
    cols: u16,
    rows: u16,
    above_text: bool,
    /// kitty's z-index (0 for the other protocols).
    z: i32,
}

impl Shown {
    /// A picture drawn `display` pixels large over the cells that takes, below the text.
    fn new(
        protocol: ImageProtocol,
        id: u32,
        picture: Arc<Picture>,
        display: (u32, u32),
        cell: CellSize,
    ) -> Shown {
        let (cols, rows) = cells_for(display, cell);
        Shown {
            protocol,
            id,
            placement_id: 0,
            picture,
            display,
            cols,
            rows,
            above_text: false,
            z: 0,
        }
    }
}

/// A picture placed on the screen, and the markers of its rows.
struct Placement {
    serial: u64,
    shown: Shown,
    markers: Vec<usize>,
}

/// The images of one terminal: placements, the marker ring, kitty's stored images.
#[derive(Default)]
pub(crate) struct Graphics {
    placements: HashMap<u64, Placement>,
    markers: Vec<Option<(u64, u16)>>,
    next_marker: usize,
    kitty: kitty::Store,
    next_serial: u64,
    /// Ids for sixel and iTerm2 images, counted.
    next_id: u32,
}

/// The screen facts an image command needs.
#[derive(Clone, Copy)]
pub(crate) struct Context<'a> {
    pub screen: &'a vt100::Screen,
    pub cell: CellSize,
    /// The bytes of output that asked for the image (a string, or a transmission's
    /// chunks): what pays for rows past the screen's height.
    pub bytes: usize,
}

/// Bytes of output each cell row of an image past the screen's height costs: placing
/// a row writes a line of cells, so a tiny command must not place a thousand.
const BYTES_PER_EXTRA_ROW: usize = 16;

impl Graphics {
    /// Handles a DCS string; the bytes to give the parser after its terminator.
    pub(crate) fn dcs(&mut self, content: &[u8], ctx: &Context<'_>) -> Option<Vec<u8>> {
        let picture = sixel::decode(content)?;
        let display = (picture.width, picture.height);
        Some(self.place_new(ImageProtocol::Sixel, picture, display, CursorAfter::Below, ctx))
    }

    /// Handles an APC string (kitty graphics): the bytes to give the parser after it and
    /// the answer owed.
    pub(crate) fn apc(&mut self, content: &[u8], ctx: &Context<'_>) -> KittyOutcome {
        match content.strip_prefix(b"G") {
            Some(body) => kitty::command(self, body, ctx),
            None => KittyOutcome::default(),
        }
    }

    /// Handles an OSC string (iTerm2 `1337;File=`); the bytes to give the parser after it.
    pub(crate) fn osc(&mut self, content: &[u8], ctx: &Context<'_>) -> Option<Vec<u8>> {
        let file = content.strip_prefix(b"1337;File=")?;
        let (picture, display) = iterm::decode(file, ctx)?;
        Some(self.place_new(ImageProtocol::Iterm2, picture, display, CursorAfter::Right, ctx))
    }

    /// Whether an OSC/DCS/APC string that starts with `start` carries an image (and so may
    /// be longer than other strings).
    pub(crate) fn is_image_string(start: &[u8]) -> bool {
        start.starts_with(b"1337;File=")
            || start.starts_with(b"G")
            || start
                .iter()
                .position(|&b| b == b'q')
                .is_some_and(|q| start[..q].iter().all(|b| b.is_ascii_digit() || *b == b';'))
    }

    /// Places a picture of the sixel or iTerm2 protocol, `display` pixels large, under a
    /// new id.
    fn place_new(
        &mut self,
        protocol: ImageProtocol,
        picture: Picture,
        display: (u32, u32),
        cursor: CursorAfter,
        ctx: &Context<'_>,
    ) -> Vec<u8> {
        self.next_id += 1;
        self.make_room(picture.bytes());
        let shown = Shown::new(protocol, self.next_id, Arc::new(picture), display, ctx.cell);
        self.place(shown, cursor, ctx)
    }

    /// Records a placement at the cursor and returns the bytes that blank its cells, mark
    /// its rows and move the cursor past it.
    fn place(&mut self, new: Shown, cursor: CursorAfter, ctx: &Context<'_>) -> Vec<u8> {
        use std::fmt::Write;
        let screen = ctx.screen;
        if self.markers.is_empty() {
            self.markers = vec![None; MARKER_COUNT];
        }
        if new.placement_id != 0 {
            let same: Vec<u64> = self
                .placements
                .values()
                .filter(|p| {
                    p.shown.protocol == new.protocol
                        && p.shown.id == new.id
                        && p.shown.placement_id == new.placement_id
                })
                .map(|p| p.serial)
                .collect();
            same.into_iter().for_each(|s| self.remove_placement(s));
        }
        self.next_serial += 1;
        let serial = self.next_serial;
        let affordable = usize::from(screen.size().0.get()).max(ctx.bytes / BYTES_PER_EXTRA_ROW);
        let rows = new.rows.clamp(
            1,
            MAX_PLACEMENT_ROWS.min(affordable.min(usize::from(u16::MAX)) as u16),
        );
        let screen_cols = screen.size().1.get();
        let (_, col) = screen.cursor_position();
        let col = col.min(screen_cols - 1);
        let blank = new.cols.clamp(1, screen_cols - col);
        let mut markers = Vec::with_capacity(usize::from(rows));
        let mut out = String::from("\x1b[0m");
        for row in 0..rows {
            let slot = self.next_marker;
            self.next_marker = (slot + 1) % MARKER_COUNT;
            if let Some((owner, _)) = self.markers[slot] {
                self.remove_placement(owner);
            }
            self.markers[slot] = Some((serial, row));
            markers.push(slot);
            if row > 0 {
                out.push('\n');
            }
            out.push('\r');
            if col > 0 {
                let _ = write!(out, "\x1b[{col}C");
            }
            out.push(' ');
            out.push(marker_char(slot));
            if blank > 1 {
                let _ = write!(out, "\x1b[{}X", blank - 1);
            }
        }
        out.push('\r');
        match cursor {
            CursorAfter::Below => out.push('\n'),
            CursorAfter::Right => {}
            CursorAfter::Stay if rows > 1 => {
                let _ = write!(out, "\x1b[{}A", rows - 1);
            }
            CursorAfter::Stay => {}
        }
        let to = match cursor {
            CursorAfter::Right => col.saturating_add(new.cols),
            _ => col,
        };
        if to > 0 {
            let _ = write!(out, "\x1b[{to}C");
        }
        out.push_str(&screen.attributes_formatted());
        self.placements.insert(
            serial,
            Placement {
                serial,
                shown: Shown { rows, ..new },
                markers,
            },
        );
        out.into_bytes()
    }

    fn remove_placement(&mut self, serial: u64) {
        if let Some(p) = self.placements.remove(&serial) {
            for slot in p.markers {
                if self.markers[slot].is_some_and(|(s, _)| s == serial) {
                    self.markers[slot] = None;
                }
            }
        }
    }

    /// Decoded bytes held: kitty's stored images and the pictures of the other protocols'
    /// placements (a kitty placement shares its image's).
    fn memory(&self) -> usize {
        let placed: usize = self
            .placements
            .values()
            .filter(|p| p.shown.protocol != ImageProtocol::Kitty)
            .map(|p| p.shown.picture.bytes())
            .sum();
        placed + self.kitty.memory()
    }

    /// Drops the oldest images until `bytes` more fit under [`MAX_IMAGE_MEMORY`].
    fn make_room(&mut self, bytes: usize) {
        while self.memory() + bytes > MAX_IMAGE_MEMORY {
            let oldest_placement = self
                .placements
                .values()
                .filter(|p| p.shown.protocol != ImageProtocol::Kitty)
                .map(|p| p.serial)
                .min();
            let oldest_kitty = self.kitty.oldest();
            match (oldest_placement, oldest_kitty) {
                (Some(p), Some((k, _))) if p < k => self.remove_placement(p),
                (Some(p), None) => self.remove_placement(p),
                (_, Some((_, id))) => self.delete_kitty_image(id),
                (None, None) => return,
            }
        }
    }

    /// Forgets a kitty image and its placements.
    fn delete_kitty_image(&mut self, id: u32) {
        self.kitty.forget(id);
        self.remove_where(|p| p.shown.protocol == ImageProtocol::Kitty && p.shown.id == id);
    }

    fn remove_where(&mut self, doomed: impl Fn(&Placement) -> bool) {
        let serials: Vec<u64> = self
            .placements
            .values()
            .filter(|p| doomed(p))
            .map(|p| p.serial)
            .collect();
        serials.into_iter().for_each(|s| self.remove_placement(s));
    }

    /// The images on `screen`, found by their markers, oldest first.
    pub(crate) fn images(&self, screen: &vt100::Screen, cell: CellSize) -> Vec<Image> {
        if self.placements.is_empty() {
            return Vec::new();
        }
        let (rows, cols) = (screen.size().0.get(), screen.size().1.get());
        // serial → (screen row, image row, column), top to bottom.
        let mut found: HashMap<u64, Vec<(u16, u16, u16)>> = HashMap::new();
        for row in 0..rows {
            for col in 0..cols {
                let Some(cell) = screen.cell(row, col) else {
                    continue;
                };
                let contents = cell.contents();
                if !contents.bytes().any(|b| b == 0xF3) {
                    continue;
                }
                for c in contents.chars() {
                    if let Some((serial, image_row)) = marker_index(c).and_then(|i| self.markers[i])
                        && self.placements.contains_key(&serial)
                    {
                        found.entry(serial).or_default().push((row, image_row, col));
                    }
                }
            }
        }
        let mut images: Vec<(u64, Image)> = found
            .into_iter()
            .filter_map(|(serial, marks)| {
                let p = self.placements.get(&serial)?;
                let &(first_row, first_image_row, col) = marks.first()?;
                let mut strips = Vec::with_capacity(marks.len());
                for (i, &(row, image_row, _)) in marks.iter().enumerate() {
                    strips.push((row, image_row));
                    // A row between two marked rows lost its marker to text written over
                    // its first cell: it still shows the image row that belongs there.
                    if let Some(&(next_row, next_image_row, _)) = marks.get(i + 1) {
                        for gap in 1..next_row - row {
                            if image_row + gap < next_image_row {
                                strips.push((row + gap, image_row + gap));
                            }
                        }
                    }
                }
                let image = Image {
                    protocol: p.shown.protocol,
                    id: p.shown.id,
                    row: i32::from(first_row) - i32::from(first_image_row),
                    col,
                    cols: p.shown.cols,
                    rows: p.shown.rows,
                    width: p.shown.picture.width,
                    height: p.shown.picture.height,
                    display: p.shown.display,
                    cell,
                    above_text: p.shown.above_text,
                    strips,
                    picture: Arc::clone(&p.shown.picture),
                };
                Some((serial, image))
            })
            .collect();
        // Drawn in the order they were placed: a later image covers an earlier one.
        images.sort_by_key(|(serial, _)| *serial);
        images.into_iter().map(|(_, image)| image).collect()
    }
}

/// The cells a picture of `display` pixels covers.
fn cells_for(display: (u32, u32), cell: CellSize) -> (u16, u16) {
    let across = display.0.div_ceil(u32::from(cell.width.max(1)));
    let down = display.1.div_ceil(u32::from(cell.height.max(1)));
    (
        across.clamp(1, u32::from(u16::MAX)) as u16,
        down.clamp(1, u32::from(MAX_PLACEMENT_ROWS)) as u16,
    )
}

/// The size a `(width, height)` picture is drawn at, in the terminal's pixels: as asked,
/// a side not asked for in proportion to the other (or its own when not `keep_aspect`),
/// both asked for fitted inside them in proportion (or stretched when not `keep_aspect`).
fn drawn_size(
    (width, height): (u32, u32),
    asked: (Option<u32>, Option<u32>),
    keep_aspect: bool,
) -> (u32, u32) {
    let (pw, ph) = (width.max(1), height.max(1));
    let scale = |n: u32, num: u32, den: u32| (u64::from(n) * u64::from(num) / u64::from(den)) as u32;
    let size = match asked {
        (None, None) => (pw, ph),
        (Some(w), None) => (w, if keep_aspect { scale(ph, w, pw) } else { ph }),
        (None, Some(h)) => (if keep_aspect { scale(pw, h, ph) } else { pw }, h),
        (Some(w), Some(h)) if keep_aspect => {
            // Fit inside the box: the tighter side decides.
            if u64::from(w) * u64::from(ph) <= u64::from(h) * u64::from(pw) {
                (w, scale(ph, w, pw))
            } else {
                (scale(pw, h, ph), h)
            }
        }
        (Some(w), Some(h)) => (w, h),
    };
    (size.0.max(1), size.1.max(1))
}

/// Base64 as the protocols send it: padding optional, stray low bits in the last
/// character and line breaks ignored.
fn base64_decode(data: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        GeneralPurposeConfig::new()
            .with_decode_padding_mode(DecodePaddingMode::Indifferent)
            // chafa's chunks end in bits kitty ignores and strict decoders refuse.
            .with_decode_allow_trailing_bits(true),
    );
    let clean: Vec<u8> = data
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    LENIENT.decode(clean).ok()
}

#[cfg(test)]
mod tests;
