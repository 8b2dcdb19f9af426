//! Baseline TIFF, uncompressed, 8 bits a sample, RGB or RGBA: what chafa sends as an
//! iTerm2 inline image (iTerm2 takes any format macOS reads). Compressed and other
//! layouts are refused with a reason.

use super::{MAX_IMAGE_PIXELS, Picture};

/// Whether `bytes` start like a TIFF file.
pub(super) fn is_tiff(bytes: &[u8]) -> bool {
    bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*")
}

struct Reader<'a> {
    bytes: &'a [u8],
    little: bool,
}

impl Reader<'_> {
    fn u16(&self, at: usize) -> Option<u32> {
        let b = self.bytes.get(at..at + 2)?;
        let v = if self.little {
            u16::from_le_bytes([b[0], b[1]])
        } else {
            u16::from_be_bytes([b[0], b[1]])
        };
        Some(u32::from(v))
    }

    fn u32(&self, at: usize) -> Option<u32> {
        let b: [u8; 4] = self.bytes.get(at..at + 4)?.try_into().ok()?;
        Some(if self.little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    /// The values of the IFD entry at `at` (SHORT or LONG, inline or at an offset).
    fn values(&self, at: usize) -> Option<Vec<u32>> {
        let (kind, count) = (self.u16(at + 2)?, self.u32(at + 4)? as usize);
        let size = match kind {
            3 => 2,
            4 => 4,
            _ => return Some(Vec::new()),
        };
        if count > 1 << 20 {
            return None;
        }
        let start = if size * count <= 4 {
            at + 8
        } else {
            self.u32(at + 8)? as usize
        };
        (0..count)
            .map(|i| {
                if size == 2 {
                    self.u16(start + 2 * i)
                } else {
                    self.u32(start + 4 * i)
                }
            })
            .collect()
    }
}

/// Decodes the first image of a TIFF file.
pub(super) fn decode(bytes: &[u8]) -> Result<Picture, String> {
    let r = Reader {
        bytes,
        little: bytes.starts_with(b"II"),
    };
    let broken = || "broken TIFF file".to_string();
    let ifd = r.u32(4).ok_or_else(broken)? as usize;
    let entries = r.u16(ifd).ok_or_else(broken)? as usize;
    let (mut width, mut height, mut samples, mut bits, mut compression) = (0, 0, 1, 8, 1);
    let (mut offsets, mut counts, mut photometric) = (Vec::new(), Vec::new(), 2);
    for i in 0..entries {
        let at = ifd + 2 + 12 * i;
        let tag = r.u16(at).ok_or_else(broken)?;
        let values = r.values(at).ok_or_else(broken)?;
        let first = values.first().copied().unwrap_or(0);
        match tag {
            256 => width = first,
            257 => height = first,
            258 => bits = first,
            259 => compression = first,
            262 => photometric = first,
            273 => offsets = values,
            277 => samples = first,
            279 => counts = values,
            _ => {}
        }
    }
    if compression != 1 || bits != 8 || !(photometric == 2 && (3..=4).contains(&samples)) {
        return Err(format!(
            "only uncompressed 8-bit RGB(A) TIFF is read (compression {compression}, {bits} bits, {samples} samples)"
        ));
    }
    if width == 0 || height == 0 || (width as usize).saturating_mul(height as usize) > MAX_IMAGE_PIXELS {
        return Err(format!("a {width}x{height} TIFF image is empty or too large"));
    }
    let mut data = Vec::with_capacity(width as usize * height as usize * samples as usize);
    for (&offset, &count) in offsets.iter().zip(&counts) {
        let strip = bytes
            .get(offset as usize..(offset as usize).saturating_add(count as usize))
            .ok_or_else(broken)?;
        data.extend_from_slice(strip);
    }
    let need = width as usize * height as usize * samples as usize;
    if data.len() < need {
        return Err(broken());
    }
    Ok(Picture::from_samples(width, height, samples as usize, data))
}
