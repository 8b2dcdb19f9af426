//! Fonts and the glyph cache.
//!
//! The bundled faces (DejaVu Sans Mono in four styles, DejaVu Sans as a symbol fallback)
//! are compiled into the binary. Their ASCII and core cuts, which draw nearly every cell
//! of nearly every screen, are parsed whole by fontdue once per process, when first
//! needed; the full faces, which only draw what the cuts lack (Greek, Cyrillic,
//! symbols), are drawn one glyph at a time from their outlines like the faces from files
//! (`faces`, `outline`): fontdue builds every outline of a face when it parses it, and the
//! full faces' 9,000 glyphs held 28 MB of a host's memory for the sake of a few
//! characters. Rasterised glyphs are cached per face, character and pixel size for the
//! life of the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use fontdue::{Font, FontSettings, Metrics};

use super::faces::ExternalFace;

const MONO: &[u8] = include_bytes!("../../fonts/DejaVuSansMono.ttf");
const MONO_BOLD: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Bold.ttf");
const MONO_OBLIQUE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Oblique.ttf");
const MONO_BOLD_OBLIQUE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-BoldOblique.ttf");
const SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");
// The same four faces cut down to Latin, punctuation, arrows, box drawing and blocks (see
// fonts/README.md): a fifth of the size, so a first render parses a fifth as much.
const MONO_CORE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Core.ttf");
const MONO_BOLD_CORE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Bold-Core.ttf");
const MONO_OBLIQUE_CORE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Oblique-Core.ttf");
const MONO_BOLD_OBLIQUE_CORE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-BoldOblique-Core.ttf");
// And cut down to printable ASCII: fontdue reads every outline of a face when it parses
// it, so the 96 glyphs most screens consist of parse in a fraction of the core's time.
const MONO_ASCII: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Ascii.ttf");
const MONO_BOLD_ASCII: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Bold-Ascii.ttf");
const MONO_OBLIQUE_ASCII: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Oblique-Ascii.ttf");
const MONO_BOLD_OBLIQUE_ASCII: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-BoldOblique-Ascii.ttf");

/// A loaded face: the parsed font, its underline metrics, and a stable id for caching.
pub(crate) struct Face {
    pub id: usize,
    pub font: Font,
    /// Underline position (below the baseline is negative) and thickness, in em units.
    pub underline: (f32, f32),
}

impl Face {
    fn parse(id: usize, bytes: &[u8]) -> std::result::Result<Face, String> {
        let settings = FontSettings {
            // Ligature and variant tables: a terminal draws one character per cell.
            load_substitutions: false,
            ..FontSettings::default()
        };
        let font = Font::from_bytes(bytes, settings).map_err(|e| e.to_string())?;
        let face = ttf_parser::Face::parse(bytes, 0).map_err(|e| e.to_string())?;
        let units = f32::from(face.units_per_em());
        let underline = face
            .underline_metrics()
            .map(|m| (f32::from(m.position) / units, f32::from(m.thickness) / units))
            .unwrap_or((-0.1, 0.05));
        Ok(Face { id, font, underline })
    }

    pub fn has(&self, c: char) -> bool {
        self.font.lookup_glyph_index(c) != 0
    }
}

/// The four monospace styles (each as a small core face and the full face) plus the
/// symbol fallback, each parsed the first time it is needed: parsing is most of a first
/// render's cost (and far more in a dependent's debug build), most screens need only the
/// core of one or two styles, and the full faces are parsed only for a character the core
/// lacks.
#[derive(Default)]
pub(crate) struct Bundled {
    /// The cuts, parsed by fontdue (the full faces' slots stay empty: see `outlines`).
    faces: [OnceLock<Face>; 13],
    /// The full faces (the four styles, then DejaVu Sans), read by their outlines.
    outlines: [OnceLock<Arc<ExternalFace>>; 5],
}

/// The glyph-cache ids of the full faces read by their outlines: above the cuts' ids,
/// below the ids of faces from files.
const FIRST_OUTLINE_ID: usize = 90;

/// Where DejaVu Sans and the first core face are in [`FACES`].
const SANS_ID: usize = 4;
const CORE: usize = 5;
const ASCII: usize = 9;

/// Which bundled face, with its file: the four full styles, DejaVu Sans, the four core
/// styles, then the four ASCII styles (ids stay stable: they key the glyph cache).
const FACES: [(&[u8], &str); 13] = [
    (MONO, "DejaVuSansMono"),
    (MONO_BOLD, "DejaVuSansMono-Bold"),
    (MONO_OBLIQUE, "DejaVuSansMono-Oblique"),
    (MONO_BOLD_OBLIQUE, "DejaVuSansMono-BoldOblique"),
    (SANS, "DejaVuSans"),
    (MONO_CORE, "DejaVuSansMono-Core"),
    (MONO_BOLD_CORE, "DejaVuSansMono-Bold-Core"),
    (MONO_OBLIQUE_CORE, "DejaVuSansMono-Oblique-Core"),
    (MONO_BOLD_OBLIQUE_CORE, "DejaVuSansMono-BoldOblique-Core"),
    (MONO_ASCII, "DejaVuSansMono-Ascii"),
    (MONO_BOLD_ASCII, "DejaVuSansMono-Bold-Ascii"),
    (MONO_OBLIQUE_ASCII, "DejaVuSansMono-Oblique-Ascii"),
    (MONO_BOLD_OBLIQUE_ASCII, "DejaVuSansMono-BoldOblique-Ascii"),
];

impl Bundled {
    fn face(&self, id: usize) -> &Face {
        self.faces[id].get_or_init(|| {
            let (bytes, name) = FACES[id];
            // The bundled files are known-good; a failure here is a build defect.
            Face::parse(id, bytes).unwrap_or_else(|e| panic!("bundled font {name}: {e}"))
        })
    }

    fn style_index(bold: bool, italic: bool) -> usize {
        usize::from(bold) + 2 * usize::from(italic)
    }

    /// The printable-ASCII cut of the monospace face for a bold/italic combination.
    pub fn styled_ascii(&self, bold: bool, italic: bool) -> &Face {
        self.face(ASCII + Self::style_index(bold, italic))
    }

    /// The core of the monospace face for a bold/italic combination.
    pub fn styled_core(&self, bold: bool, italic: bool) -> &Face {
        self.face(CORE + Self::style_index(bold, italic))
    }

    /// A full face (a monospace style, or DejaVu Sans at [`SANS_ID`]), drawn from its
    /// outlines one glyph at a time.
    fn outline_face(&self, index: usize) -> Arc<ExternalFace> {
        self.outlines[index]
            .get_or_init(|| {
                let (bytes, name) = FACES[index];
                // The bundled files are known-good; a failure here is a build defect.
                super::faces::bundled_face(FIRST_OUTLINE_ID + index, bytes)
                    .unwrap_or_else(|e| panic!("bundled font {name}: {e}"))
            })
            .clone()
    }

    /// The full monospace face for a bold/italic combination, by its outlines.
    pub fn styled(&self, bold: bool, italic: bool) -> Arc<ExternalFace> {
        self.outline_face(Self::style_index(bold, italic))
    }

    /// The ASCII cut of the regular monospace face: it sets the cell size (its metrics
    /// are the full face's).
    pub fn regular_ascii(&self) -> &Face {
        self.face(ASCII)
    }

    /// The full regular monospace face, by its outlines.
    pub fn regular(&self) -> Arc<ExternalFace> {
        self.outline_face(0)
    }

    /// Whether `face` is one of the monospace faces (core or full, any style), whose
    /// glyphs fill their cells exactly.
    pub fn is_monospace(&self, face: &Face) -> bool {
        face.id < FACES.len() && face.id != SANS_ID
    }

    /// DejaVu Sans, by its outlines: symbols the monospace face lacks.
    pub fn sans(&self) -> Arc<ExternalFace> {
        self.outline_face(SANS_ID)
    }
}

/// The bundled faces, each parsed on first use.
pub(crate) fn bundled() -> &'static Bundled {
    static BUNDLED: OnceLock<Bundled> = OnceLock::new();
    BUNDLED.get_or_init(Bundled::default)
}

/// A rasterised glyph: metrics and 8-bit coverage.
pub(crate) struct Glyph {
    pub metrics: Metrics,
    pub coverage: Vec<u8>,
}

/// Rasterises (or fetches from the cache) `c` in `face` at `px` pixels.
pub(crate) fn glyph(face: &Face, c: char, px: f32) -> Arc<Glyph> {
    type Cache = HashMap<(usize, char, u32), Arc<Glyph>>;
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    let key = (face.id, c, px.to_bits());
    if let Some(g) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return g.clone();
    }
    let (metrics, coverage) = face.font.rasterize(c, px);
    let g = Arc::new(Glyph { metrics, coverage });
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, g.clone());
    g
}
