//! A recording's frame as a picture: the screen rendered, and on request the keystroke
//! overlay drawn over it. The layer below the encoders: `gif` and `animation` (APNG, PNG
//! files) take frames as images from here and only encode them.

use super::{Image, RenderOptions, render};
use crate::error::Result;
use crate::keys::describe_input;
use crate::record::{Frame, OVERLAY_FADE};

/// A frame as a picture: the screen, and with `keys` the keystroke overlay — the labels
/// of the last second's input (`Ctrl+C`, `↓ ↓ Enter`, typed text) in a chip at the bottom
/// right, fading out from 0.6 s after the newest ([`OVERLAY_FADE`]).
pub fn frame_image(frame: &Frame, options: &RenderOptions, keys: bool) -> Result<Image> {
    let mut image = render(&frame.screen, options)?;
    let Some(newest) = frame.keys.iter().map(|(age, _)| *age).reduce(f64::min) else {
        return Ok(image);
    };
    if !keys {
        return Ok(image);
    }
    let opacity = match newest {
        age if age < OVERLAY_FADE[0] => 1.0,
        age if age < OVERLAY_FADE[1] => 0.6,
        _ => 0.3,
    };
    // All of the last second's input read as one: typed characters sent one at a time
    // still make one word.
    let sent: String = frame.keys.iter().map(|(_, input)| input.as_str()).collect();
    let labels = describe_input(&sent);
    let mut text = labels.join(" ");
    // The newest keys matter most: keep the end of a long run.
    let most = 40;
    if text.chars().count() > most {
        let skip = text.chars().count() - most;
        text = format!("…{}", text.chars().skip(skip).collect::<String>());
    }
    let chip = chip(&text, options)?;
    let margin = 8 * options.scale;
    if chip.width + margin > image.width || chip.height + margin > image.height {
        return Ok(image);
    }
    let (left, top) = (
        image.width - chip.width - margin,
        image.height - chip.height - margin,
    );
    for y in 0..chip.height {
        for x in 0..chip.width {
            let from = ((y * chip.width + x) * 4) as usize;
            let to = (((top + y) * image.width + left + x) * 4) as usize;
            for c in 0..3 {
                let (over, under) = (f64::from(chip.pixels[from + c]), f64::from(image.pixels[to + c]));
                image.pixels[to + c] = (over * opacity + under * (1.0 - opacity)).round() as u8;
            }
        }
    }
    Ok(image)
}

/// `text` drawn in the theme's colours reversed, one cell of margin each side, cut to
/// its size.
fn chip(text: &str, options: &RenderOptions) -> Result<Image> {
    use unicode_width::UnicodeWidthStr;
    let cells = text.width() as u16 + 2;
    let cols = cells.max(crate::terminal::MIN_COLS);
    let mut terminal = crate::terminal::Terminal::new(cols, crate::terminal::MIN_ROWS)?;
    terminal.process(format!("\x1b[7m {text} \x1b[0m\x1b[?25l").as_bytes());
    let padding = 0;
    let drawn = render(
        &terminal.snapshot(),
        &RenderOptions {
            padding,
            cursor: false,
            ..options.clone()
        },
    )?;
    let cell_width = drawn.width / u32::from(cols);
    let cell_height = drawn.height / u32::from(crate::terminal::MIN_ROWS);
    let (width, height) = (cell_width * u32::from(cells), cell_height);
    let mut pixels = Vec::with_capacity((width * height * 4) as usize);
    for y in 0..height {
        let at = (y * drawn.width * 4) as usize;
        pixels.extend_from_slice(&drawn.pixels[at..at + (width * 4) as usize]);
    }
    Ok(Image {
        width,
        height,
        pixels,
        text: None,
    })
}
