//! The fallback chain: which face draws a character, and what a cell's text draws as.
//!
//! A character is drawn by the first face that has it: the bundled monospace face in the
//! cell's style (its small core, then the whole face), the regular face, DejaVu Sans, the
//! faces the caller named (`--font`), then the faces installed on the system. A character
//! shown as emoji (one with emoji presentation, or followed by VS16) asks for a colour
//! face first — the caller's, then the system's — and VS15 keeps the text chain. A
//! character no face has is drawn as a box, and listed by [`super::missing_glyphs`].
//!
//! Bold and italic beyond the bundled monospace styles: the face that has the character
//! hands over to its family's bold or italic face where the caller or the system has one
//! (found by family name and weight); whatever style no such face gives is drawn on its
//! outline ([`Synthetic`]), so a fallback character never loses the cell's style.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use super::faces::{self, ExternalFace};
use super::fonts::{self, Bundled, Face};
use super::outline::{self, Synthetic};
use crate::error::Result;

/// The faces a render may use, in order.
pub(crate) struct Chain {
    bundled: &'static Bundled,
    user: Vec<Arc<ExternalFace>>,
    system: bool,
    /// The colour glyph found for each cluster during this render: a screen of emoji
    /// repeats a few clusters many times.
    colour_glyphs: RefCell<HashMap<String, FaceGlyph>>,
    /// The caller's or system face, and its glyph, found for each character during this
    /// render.
    external: RefCell<HashMap<char, FaceGlyph>>,
    /// The face, glyph and drawn-on styles found for each bold or italic character beyond
    /// the bundled faces during this render.
    styled: RefCell<HashMap<(char, bool, bool), Option<StyledGlyph>>>,
}

/// A face from a file, its glyph for a character, and the styles to draw on.
type StyledGlyph = (Arc<ExternalFace>, ttf_parser::GlyphId, Synthetic);

/// A face from a file and the glyph it draws for a character or cluster, if one does.
type FaceGlyph = Option<(Arc<ExternalFace>, ttf_parser::GlyphId)>;

/// Where a character's glyph comes from.
pub(crate) enum Source<'a> {
    /// A bundled face, rasterised by fontdue.
    Bundled(&'a Face),
    /// A caller's or system face, drawn glyph by glyph, with the character's glyph and
    /// the styles the face lacks, to be drawn by emboldening or slanting its outline.
    External(Arc<ExternalFace>, ttf_parser::GlyphId, Synthetic),
}

impl Chain {
    /// The chain for a render: the bundled faces, the files named by the caller (every
    /// face of a collection), and the system's faces when `system` is on.
    pub fn new(fonts: &[std::path::PathBuf], system: bool) -> Result<Chain> {
        let mut user = Vec::new();
        for path in fonts {
            user.extend(faces::user_faces(path)?);
        }
        Ok(Chain {
            bundled: fonts::bundled(),
            user,
            system,
            colour_glyphs: RefCell::default(),
            external: RefCell::default(),
            styled: RefCell::default(),
        })
    }

    /// The bundled faces.
    pub fn bundled(&self) -> &'static Bundled {
        self.bundled
    }

    /// A colour face that has `c`: the caller's first, then the system's.
    pub fn color_face(&self, c: char) -> Option<Arc<ExternalFace>> {
        if let Some(face) = self.user.iter().find(|f| f.color && f.glyph_for(c).is_some()) {
            return Some(face.clone());
        }
        self.system
            .then(|| faces::system_face(c, true))
            .flatten()
            .filter(|f| f.color)
    }

    /// The first face in the text chain that has `c`.
    pub fn face(&self, c: char, bold: bool, italic: bool) -> Option<Source<'_>> {
        let bundled = self.bundled;
        // Lazily: a face is parsed only when a character needs it.
        let ascii = (' '..='~').contains(&c);
        let found = ascii
            .then(|| bundled.styled_ascii(bold, italic))
            .into_iter()
            .chain(std::iter::once_with(|| bundled.styled_core(bold, italic)))
            .find(|f| f.has(c));
        if let Some(face) = found {
            return Some(Source::Bundled(face));
        }
        // Beyond the cuts, the full faces, drawn from their outlines: the monospace face in
        // the style asked for, then the regular faces with the style drawn on.
        let asked = Synthetic { bold, italic };
        let styled = bundled.styled(bold, italic);
        if let Some(glyph) = styled.glyph_for(c) {
            return Some(Source::External(styled, glyph, Synthetic::default()));
        }
        if let Some((face, glyph)) = [bundled.regular(), bundled.sans()].into_iter().find_map(|f| {
            let glyph = f.glyph_for(c)?;
            Some((f, glyph))
        }) {
            return Some(Source::External(face, glyph, asked));
        }
        if !bold && !italic {
            let (face, glyph) = self.external_face(c)?;
            return Some(Source::External(face, glyph, Synthetic::default()));
        }
        let key = (c, bold, italic);
        if let Some(found) = self.styled.borrow().get(&key) {
            return found
                .clone()
                .map(|(face, glyph, synthetic)| Source::External(face, glyph, synthetic));
        }
        let found = self.external_face(c).map(|(face, glyph)| {
            // The family's bold or italic face where there is one with the character; what
            // it does not give is drawn on.
            match self.styled_sibling(&face, bold, italic).and_then(|styled| {
                let glyph = styled.glyph_for(c)?;
                Some((styled, glyph))
            }) {
                Some((styled, glyph)) => {
                    let synthetic = Synthetic {
                        bold: bold && !styled.is_bold(),
                        italic: italic && !styled.italic,
                    };
                    (styled, glyph, synthetic)
                }
                None => (face, glyph, asked),
            }
        });
        self.styled.borrow_mut().insert(key, found.clone());
        found.map(|(face, glyph, synthetic)| Source::External(face, glyph, synthetic))
    }

    /// The first caller's or system face that has `c` (in its regular style), and the
    /// glyph; remembered for the render.
    fn external_face(&self, c: char) -> FaceGlyph {
        if let Some(found) = self.external.borrow().get(&c) {
            return found.clone();
        }
        let found = self
            .user
            .iter()
            .find_map(|f| Some((f.clone(), f.glyph_for(c)?)))
            .or_else(|| {
                let face = self.system.then(|| faces::system_face(c, false)).flatten()?;
                let glyph = face.glyph_for(c)?;
                Some((face, glyph))
            });
        self.external.borrow_mut().insert(c, found.clone());
        found
    }

    /// The bold and/or italic face of `face`'s family: among the caller's faces first,
    /// then the system's (a `.ttc` collection's faces included).
    fn styled_sibling(&self, face: &ExternalFace, bold: bool, italic: bool) -> Option<Arc<ExternalFace>> {
        let family = face.family.as_deref()?;
        faces::best_styled(&self.user, family, bold, italic).or_else(|| {
            self.system
                .then(|| faces::system_styled(family, bold, italic))
                .flatten()
        })
    }

    /// Whether some face can draw `c` (characters drawn from geometry, controls and
    /// zero-width marks need none).
    pub fn can_draw(&self, c: char) -> bool {
        needs_no_face(c)
            || self.face(c, false, false).is_some()
            || (wants_color(&c.to_string()) && self.color_face(c).is_some())
    }
}

/// Characters that need no glyph from a face: drawn from geometry, controls, spaces and
/// zero-width marks a face without them simply leaves out.
pub(crate) fn needs_no_face(c: char) -> bool {
    super::procedural::is_procedural(c)
        || c.is_control()
        || c == ' '
        || unicode_width::UnicodeWidthChar::width(c) == Some(0)
}

/// Regional indicators: two make a flag.
pub(crate) fn is_regional_indicator(c: char) -> bool {
    ('\u{1F1E6}'..='\u{1F1FF}').contains(&c)
}

/// Emoji skin-tone modifiers.
pub(crate) fn is_skin_tone(c: char) -> bool {
    ('\u{1F3FB}'..='\u{1F3FF}').contains(&c)
}

/// Whether a cluster is shown as emoji (in colour): VS16 asks for it and VS15 refuses it;
/// otherwise a character with emoji presentation (every such character is wide, in the
/// symbol and pictograph blocks), a flag, a skin tone or a ZWJ sequence.
pub(crate) fn wants_color(cluster: &str) -> bool {
    if cluster.contains('\u{FE0F}') {
        return true;
    }
    if cluster.contains('\u{FE0E}') {
        return false;
    }
    let Some(first) = cluster.chars().next() else {
        return false;
    };
    let pictographic =
        matches!(u32::from(first), 0x1F000..=0x1FAFF | 0x2300..=0x23FF | 0x2600..=0x27BF | 0x2B00..=0x2BFF);
    (pictographic && unicode_width::UnicodeWidthChar::width(first) == Some(2))
        || is_regional_indicator(first)
        || cluster.contains('\u{200D}')
        || cluster.chars().any(is_skin_tone)
}

/// The glyph a colour face draws for a whole cluster, with the face.
pub(crate) fn color_cluster(chain: &Chain, cluster: &str) -> FaceGlyph {
    if let Some(found) = chain.colour_glyphs.borrow().get(cluster) {
        return found.clone();
    }
    let found = chain.color_face(cluster.chars().next()?).and_then(|face| {
        let glyph = outline::cluster_glyph(&face, cluster)?;
        Some((face, glyph))
    });
    chain
        .colour_glyphs
        .borrow_mut()
        .insert(cluster.to_string(), found.clone());
    found
}
