//! iTerm2 inline images: `OSC 1337 ; File=key=value;… : base64 ST`.
//!
//! Only `inline=1` files are shown (others are downloads, which a terminal without a
//! user has nowhere to put). The file is decoded as PNG — the format `imgcat`, `viu`,
//! timg and the plotting backends send — or as uncompressed TIFF (chafa's); anything else
//! is left out. `width` and `height` are
//! read in every form iTerm2 accepts: `N` cells, `Npx`, `N%` of the screen, `auto`; with
//! `preserveAspectRatio=1` (the default) the picture fits inside the box they make.

use super::{Context, Picture, base64_decode, cells_for};

/// A decoded inline image and the box it takes.
pub(super) struct Inline {
    pub picture: Picture,
    /// Drawn size in the terminal's pixels.
    pub display: (u32, u32),
    pub cols: u16,
    pub rows: u16,
}

/// One of `width` / `height`: a size in the terminal's pixels, or `None` for `auto`.
fn length(value: &str, cell: u32, screen_cells: u32) -> Option<u32> {
    let value = value.trim();
    if let Some(px) = value.strip_suffix("px") {
        px.parse().ok()
    } else if let Some(percent) = value.strip_suffix('%') {
        percent
            .parse::<u32>()
            .ok()
            .map(|p| p.min(100) * screen_cells * cell / 100)
    } else if value == "auto" {
        None
    } else {
        value.parse::<u32>().ok().map(|n| n.saturating_mul(cell))
    }
}

/// Decodes the part after `File=`; `None` when it is not an inline image this can show.
pub(super) fn decode(file: &[u8], ctx: &Context<'_>) -> Option<Inline> {
    let colon = file.iter().position(|&b| b == b':')?;
    let args = std::str::from_utf8(&file[..colon]).ok()?;
    let (mut inline, mut width, mut height, mut keep_aspect) = (false, None, None, true);
    let (screen_rows, screen_cols) = (ctx.screen.size().0.get(), ctx.screen.size().1.get());
    let (cw, ch) = (
        u32::from(ctx.cell.width.max(1)),
        u32::from(ctx.cell.height.max(1)),
    );
    for arg in args.split(';') {
        let Some((key, value)) = arg.split_once('=') else {
            continue;
        };
        match key {
            "inline" => inline = value == "1",
            "width" => width = length(value, cw, u32::from(screen_cols)),
            "height" => height = length(value, ch, u32::from(screen_rows)),
            "preserveAspectRatio" => keep_aspect = value != "0",
            _ => {}
        }
    }
    if !inline {
        return None;
    }
    let bytes = base64_decode(&file[colon + 1..])?;
    let picture = if super::tiff::is_tiff(&bytes) {
        super::tiff::decode(&bytes)
    } else {
        super::decode_png(&bytes)
    }
    .ok()?;
    let (pw, ph) = (picture.width.max(1), picture.height.max(1));
    let scale = |n: u32, num: u32, den: u32| (u64::from(n) * u64::from(num) / u64::from(den)) as u32;
    let display = match (width, height) {
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
    let display = (display.0.max(1), display.1.max(1));
    let (cols, rows) = cells_for(display, ctx.cell);
    Some(Inline {
        picture,
        display,
        cols,
        rows,
    })
}
