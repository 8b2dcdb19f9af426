//! Sixel (`DCS P1 ; P2 ; P3 q … ST`), decoded to RGBA as a VT340 or xterm would draw it.
//!
//! The data is a stream of bands six pixels tall: a character from `?` to `~` sets the
//! pixels of one column of the band in the current colour (bit 0 at the top), `!n`
//! repeats the next one `n` times, `$` returns to the band's left edge, `-` starts the
//! next band, `#n` selects colour register `n` and `#n;u;a;b;c` defines it (HLS when `u`
//! is 1, RGB in percent when 2), and `"pan;pad;ph;pv` gives the raster size. Pixels no
//! sixel sets stay transparent, so the cells' own background shows through them (the
//! same picture as a terminal filling them with its background, whatever `P2` says).

use super::{MAX_IMAGE_PIXELS, Picture};

/// Pixels each byte of a sixel string pays for: repeats and raster sizes make a few bytes
/// ask for millions of pixels, and a picture that needs more than this is refused (a
/// real one is far below it: a solid 800×600 picture takes 800 bytes, 600 pixels a byte).
const PIXELS_PER_BYTE: usize = 4096;

/// The colour registers a picture may use (xterm offers 1024).
const REGISTERS: usize = 1024;

/// The VT340's sixteen default colours, in percent of full intensity.
const VT340: [(u8, u8, u8); 16] = [
    (0, 0, 0),
    (20, 20, 80),
    (80, 13, 13),
    (20, 80, 20),
    (80, 20, 80),
    (20, 80, 80),
    (80, 80, 20),
    (53, 53, 53),
    (26, 26, 26),
    (33, 33, 60),
    (60, 26, 26),
    (33, 60, 33),
    (60, 33, 60),
    (33, 60, 60),
    (60, 60, 33),
    (80, 80, 80),
];

fn percent(p: u32) -> u8 {
    (p.min(100) * 255 / 100) as u8
}

/// HLS (hue in degrees with blue at 0, as DEC counts it; lightness and saturation in
/// percent) to RGB.
fn hls(h: u32, l: u32, s: u32) -> [u8; 3] {
    let (l, s) = (l.min(100) as f32 / 100.0, s.min(100) as f32 / 100.0);
    // DEC's hue 0 is blue; the usual formula has red at 0.
    // The hue is a program's number: reduced before the turn, so no value can overflow.
    let h = ((h % 360 + 240) % 360) as f32 / 360.0;
    if s == 0.0 {
        let v = (l * 255.0).round() as u8;
        return [v; 3];
    }
    let q = if l < 0.5 { l * (1.0 + s) } else { l + s - l * s };
    let p = 2.0 * l - q;
    let channel = |t: f32| {
        let t = t.rem_euclid(1.0);
        let v = if t < 1.0 / 6.0 {
            p + (q - p) * 6.0 * t
        } else if t < 0.5 {
            q
        } else if t < 2.0 / 3.0 {
            p + (q - p) * (2.0 / 3.0 - t) * 6.0
        } else {
            p
        };
        (v * 255.0).round() as u8
    };
    [channel(h + 1.0 / 3.0), channel(h), channel(h - 1.0 / 3.0)]
}

/// The picture being drawn: pixels as RGBA words (0: not set), grown as sixels land.
struct Sheet {
    /// The most pixels this string may draw (see [`PIXELS_PER_BYTE`]).
    limit: usize,
    width: usize,
    height: usize,
    pixels: Vec<u32>,
    /// The extent actually drawn or declared.
    used: (usize, usize),
}

impl Sheet {
    /// Makes room for `(w, h)`; false when that passes the pixel cap.
    fn reserve(&mut self, w: usize, h: usize) -> bool {
        if w <= self.width && h <= self.height {
            return true;
        }
        // What the sheet must become: the new size in both directions, not just the one.
        let (w, h) = (w.max(self.width), h.max(self.height));
        if w.saturating_mul(h) > self.limit {
            return false;
        }
        // Doubling keeps a tall picture, drawn band by band, from being copied per band.
        let grow = |need: usize, have: usize| {
            if need <= have {
                have
            } else {
                need.max(have.saturating_mul(2))
            }
        };
        let (mut nw, mut nh) = (grow(w, self.width), grow(h, self.height));
        if nw.saturating_mul(nh) > self.limit {
            (nw, nh) = (w.max(self.width), h.max(self.height));
        }
        let mut grown = vec![0u32; nw * nh];
        for y in 0..self.height {
            grown[y * nw..y * nw + self.width]
                .copy_from_slice(&self.pixels[y * self.width..(y + 1) * self.width]);
        }
        self.pixels = grown;
        self.width = nw;
        self.height = nh;
        true
    }
}

/// Decodes a sixel string's content (after `DCS`, up to `ST`): `None` when it is not a
/// sixel string, or draws nothing, or would pass the pixel cap.
pub(crate) fn decode(content: &[u8]) -> Option<Picture> {
    let q = content.iter().position(|&b| b == b'q')?;
    if !content[..q].iter().all(|b| b.is_ascii_digit() || *b == b';') {
        return None;
    }
    let data = &content[q + 1..];
    let mut palette = [0u32; REGISTERS];
    for (i, &(r, g, b)) in VT340.iter().enumerate() {
        palette[i] = rgba([percent(r.into()), percent(g.into()), percent(b.into())]);
    }
    let mut sheet = Sheet {
        limit: content
            .len()
            .saturating_mul(PIXELS_PER_BYTE)
            .min(MAX_IMAGE_PIXELS),
        width: 0,
        height: 0,
        pixels: Vec::new(),
        used: (0, 0),
    };
    let (mut x, mut band, mut colour, mut repeat) = (0usize, 0usize, palette[0], 1usize);
    let mut i = 0;
    while i < data.len() {
        let b = data[i];
        i += 1;
        match b {
            b'?'..=b'~' => {
                let bits = b - b'?';
                let end = x.saturating_add(repeat);
                if bits != 0 {
                    if !sheet.reserve(end, band + 6) {
                        return None;
                    }
                    for bit in 0..6 {
                        if bits & (1 << bit) != 0 {
                            let row = (band + bit) * sheet.width;
                            sheet.pixels[row + x..row + end].fill(colour);
                        }
                    }
                    // The picture ends at its lowest set pixel, not its band's bottom.
                    sheet.used.1 = sheet.used.1.max(band + 8 - bits.leading_zeros() as usize);
                }
                sheet.used.0 = sheet.used.0.max(end);
                x = end;
                repeat = 1;
            }
            b'!' => {
                let mut count = [0u32; 1];
                let (n, next) = numbers(data, i, &mut count);
                repeat = (n.first().copied().unwrap_or(1) as usize).clamp(1, MAX_IMAGE_PIXELS);
                i = next;
            }
            b'#' => {
                let mut values = [0u32; 5];
                let (n, next) = numbers(data, i, &mut values);
                i = next;
                let register = n.first().copied().unwrap_or(0) as usize % REGISTERS;
                if n.len() >= 5 {
                    palette[register] = match n[1] {
                        1 => rgba(hls(n[2], n[3], n[4])),
                        _ => rgba([percent(n[2]), percent(n[3]), percent(n[4])]),
                    };
                }
                colour = palette[register];
            }
            b'"' => {
                let mut values = [0u32; 4];
                let (n, next) = numbers(data, i, &mut values);
                i = next;
                // A declared size the data could not have paid for (a few bytes asking
                // for millions of pixels) is ignored: the drawn extent stands.
                if n.len() >= 4 {
                    let (w, h) = (n[2] as usize, n[3] as usize);
                    if sheet.reserve(w, h) {
                        sheet.used = (sheet.used.0.max(w), sheet.used.1.max(h));
                    }
                }
            }
            b'$' => x = 0,
            b'-' => {
                x = 0;
                band += 6;
            }
            _ => {}
        }
    }
    let (w, h) = sheet.used;
    if w == 0 || h == 0 {
        return None;
    }
    sheet.reserve(w, h).then_some(())?;
    let mut rgba_bytes = Vec::with_capacity(w * h * 4);
    for y in 0..h {
        for &p in &sheet.pixels[y * sheet.width..y * sheet.width + w] {
            rgba_bytes.extend_from_slice(&p.to_be_bytes());
        }
    }
    Some(Picture::new(w as u32, h as u32, rgba_bytes))
}

fn rgba([r, g, b]: [u8; 3]) -> u32 {
    u32::from_be_bytes([r, g, b, 255])
}

/// Reads up to `into.len()` numbers separated by `;` from `data[at..]`; the numbers read
/// and where reading stopped.
fn numbers<'a>(data: &[u8], mut at: usize, into: &'a mut [u32]) -> (&'a [u32], usize) {
    let mut count = 0;
    let mut current: Option<u32> = None;
    while at < data.len() {
        match data[at] {
            d @ b'0'..=b'9' => {
                current = Some(
                    current
                        .unwrap_or(0)
                        .saturating_mul(10)
                        .saturating_add(u32::from(d - b'0')),
                );
            }
            b';' => {
                if count < into.len() {
                    into[count] = current.unwrap_or(0);
                    count += 1;
                }
                current = None;
            }
            _ => break,
        }
        at += 1;
    }
    if current.is_some() && count < into.len() {
        into[count] = current.unwrap_or(0);
        count += 1;
    }
    (&into[..count], at)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(p: &Picture, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * p.width + x) * 4) as usize;
        p.rgba[i..i + 4].try_into().unwrap()
    }

    #[test]
    fn a_band_of_red_and_a_band_of_blue_in_rgb_registers() {
        // Register 1 red, register 2 blue; 4 columns of full sixels each; raster 4x12.
        let p = decode(b"0;1;0q\"1;1;4;12#1;2;100;0;0#2;2;0;0;100#1!4~-#2~~~~").unwrap();
        assert_eq!((p.width, p.height), (4, 12));
        assert_eq!(pixel(&p, 0, 0), [255, 0, 0, 255]);
        assert_eq!(pixel(&p, 3, 5), [255, 0, 0, 255]);
        assert_eq!(pixel(&p, 2, 6), [0, 0, 255, 255]);
        assert_eq!(pixel(&p, 3, 11), [0, 0, 255, 255]);
    }

    #[test]
    fn unset_pixels_are_transparent_and_carriage_return_overdraws_the_band() {
        // `@` sets only the top pixel of both columns in black; after `$`, `?` sets nothing
        // and `A` sets the second pixel of column 1 in register 3.
        let p = decode(b"q#3;2;0;100;0#0@@$#3?A").unwrap();
        assert_eq!((p.width, p.height), (2, 2), "as tall as its lowest set pixel");
        assert_eq!(pixel(&p, 0, 0), [0, 0, 0, 255]);
        assert_eq!(pixel(&p, 1, 1), [0, 255, 0, 255]);
        assert_eq!(pixel(&p, 0, 1)[3], 0);
    }

    #[test]
    fn hls_register_zero_hue_is_blue() {
        let p = decode(b"q#5;1;0;50;100#5~").unwrap();
        assert_eq!(pixel(&p, 0, 0), [0, 0, 255, 255]);
    }

    // Panicked with "attempt to add with overflow" in a debug build (every `cargo test`
    // of a user's) on the code before: the hue was turned before it was reduced.
    #[test]
    fn an_hls_hue_at_the_top_of_the_number_range_is_taken_modulo_a_turn() {
        // 4294967295 is 255 more than a multiple of 360: the same colour as hue 255.
        let p = decode(b"q#5;1;4294967295;50;100#5~").unwrap();
        let q = decode(b"q#5;1;255;50;100#5~").unwrap();
        assert_eq!(pixel(&p, 0, 0), pixel(&q, 0, 0));
    }

    #[test]
    fn a_huge_repeat_or_raster_is_refused_not_allocated() {
        assert!(decode(b"q!999999999~").is_none());
        assert!(decode(b"q!90000~").is_none(), "540000 pixels from 9 bytes");
        assert_eq!(
            decode(b"q\"1;1;100000;100000~").map(|p| (p.width, p.height)),
            Some((1, 6))
        );
        assert!(decode(b"q").is_none());
        assert!(decode(b"1$q").is_none(), "DECRQSS is not sixel");
    }
}
