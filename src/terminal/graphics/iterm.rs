//! iTerm2 inline images: `OSC 1337 ; File=key=value;… : base64 ST`.
//!
//! Only `inline=1` files are shown (others are downloads, which a terminal without a
//! user has nowhere to put). The file is decoded as PNG — the format `imgcat`, `viu`,
//! timg and the plotting backends send — or as uncompressed TIFF (chafa's); anything else
//! is left out. `width` and `height` are read in every form iTerm2 accepts: `N` cells,
//! `Npx`, `N%` of the screen, `auto`; with `preserveAspectRatio=1` (the default) the
//! picture fits inside the box they make.

use super::{Context, Picture, base64_decode, drawn_size};

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

/// Decodes the part after `File=` into the picture and the size it is drawn at in the
/// terminal's pixels; `None` when it is not an inline image this can show.
pub(super) fn decode(file: &[u8], ctx: &Context<'_>) -> Option<(Picture, (u32, u32))> {
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
    let display = drawn_size((picture.width, picture.height), (width, height), keep_aspect);
    Some((picture, display))
}
