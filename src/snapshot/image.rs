//! The pictures on a screen, as data: what a capture holds of the images a program drew
//! (sixel, kitty graphics, iTerm2) and the cell size they were placed with. The terminal
//! decodes and places them (`terminal::graphics`); a snapshot carries them; the renderer
//! draws them. Here, below all three, so each can name them without naming the others.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

/// Pixel size of one character cell, reported for `CSI 14 t` / `CSI 16 t` queries and
/// used by the renderer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellSize {
    /// Width in pixels.
    pub width: u16,
    /// Height in pixels.
    pub height: u16,
}

impl Default for CellSize {
    /// The cell of the bundled monospace font at the default 16 px size.
    fn default() -> Self {
        CellSize {
            width: 10,
            height: 19,
        }
    }
}

/// Decoded pixels: RGBA, 8 bits a channel, not premultiplied, row by row.
#[derive(Clone, PartialEq, Eq)]
pub struct Picture {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) rgba: Vec<u8>,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Picture({}x{})", self.width, self.height)
    }
}

impl Picture {
    pub(crate) fn new(width: u32, height: u32, rgba: Vec<u8>) -> Picture {
        Picture { width, height, rgba }
    }
}

/// Which protocol drew an image.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ImageProtocol {
    /// Sixel (`DCS q`).
    Sixel,
    /// The kitty graphics protocol (`APC G`).
    Kitty,
    /// iTerm2 inline images (`OSC 1337 ; File=…;inline=1`).
    Iterm2,
}

/// An image on the screen where the program placed it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// The protocol that drew it.
    pub protocol: ImageProtocol,
    /// Its id: the kitty image id, or a number counting the images of the other protocols.
    pub id: u32,
    /// The screen row of its top edge (negative when its top has scrolled off).
    pub row: i32,
    /// The screen column of its left edge.
    pub col: u16,
    /// Cells it covers across.
    pub cols: u16,
    /// Cells it covers down.
    pub rows: u16,
    /// The picture's width in pixels.
    pub width: u32,
    /// The picture's height in pixels.
    pub height: u32,
    /// The size it is drawn at, in the terminal's pixels, and that cell size (a renderer
    /// with other cells scales it by theirs).
    pub(crate) display: (u32, u32),
    pub(crate) cell: CellSize,
    /// Whether it stays above text written over it (kitty, z ≥ 0) or cells with text
    /// hide their part of it (sixel, iTerm2, kitty below text).
    pub(crate) above_text: bool,
    /// `(screen row, image cell row)` for each screen row that shows part of it.
    pub(crate) strips: Vec<(u16, u16)>,
    pub(crate) picture: Arc<Picture>,
}

impl Image {
    /// The decoded picture: `(width, height, RGBA bytes)`, not premultiplied.
    pub fn pixels(&self) -> (u32, u32, &[u8]) {
        (self.picture.width, self.picture.height, &self.picture.rgba)
    }

    /// The screen rows showing it, each with the cell row of the image it shows.
    pub fn visible_rows(&self) -> &[(u16, u16)] {
        &self.strips
    }
}
