//! Fonts and the glyph cache.
//!
//! The bundled faces (DejaVu Sans Mono in four styles, DejaVu Sans as a symbol fallback)
//! are compiled into the binary and parsed once per process; no system font is looked up.
//! A user may add fallback faces by path (also parsed once). Rasterised glyphs are cached
//! per face, character and pixel size for the life of the process.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use fontdue::{Font, FontSettings, Metrics};

use crate::error::{Error, Result};

const MONO: &[u8] = include_bytes!("../../fonts/DejaVuSansMono.ttf");
const MONO_BOLD: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Bold.ttf");
const MONO_OBLIQUE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-Oblique.ttf");
const MONO_BOLD_OBLIQUE: &[u8] = include_bytes!("../../fonts/DejaVuSansMono-BoldOblique.ttf");
const SANS: &[u8] = include_bytes!("../../fonts/DejaVuSans.ttf");

/// A loaded face: the parsed font, its underline metrics, and a stable id for caching.
pub(crate) struct Face {
    pub id: usize,
    pub font: Font,
    /// Underline position (below the baseline is negative) and thickness, in em units.
    pub underline: (f32, f32),
}

impl Face {
    fn parse(id: usize, bytes: &[u8]) -> std::result::Result<Face, String> {
        let font = Font::from_bytes(bytes, FontSettings::default()).map_err(|e| e.to_string())?;
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

/// The four monospace styles plus the symbol fallback.
pub(crate) struct Bundled {
    pub regular: Face,
    pub bold: Face,
    pub oblique: Face,
    pub bold_oblique: Face,
    pub sans: Face,
}

/// The bundled faces, parsed on first use.
pub(crate) fn bundled() -> &'static Bundled {
    static BUNDLED: OnceLock<Bundled> = OnceLock::new();
    BUNDLED.get_or_init(|| {
        // The bundled files are known-good; a failure here is a build defect.
        let parse =
            |id, bytes, name| Face::parse(id, bytes).unwrap_or_else(|e| panic!("bundled font {name}: {e}"));
        Bundled {
            regular: parse(0, MONO, "DejaVuSansMono"),
            bold: parse(1, MONO_BOLD, "DejaVuSansMono-Bold"),
            oblique: parse(2, MONO_OBLIQUE, "DejaVuSansMono-Oblique"),
            bold_oblique: parse(3, MONO_BOLD_OBLIQUE, "DejaVuSansMono-BoldOblique"),
            sans: parse(4, SANS, "DejaVuSans"),
        }
    })
}

/// User-supplied fallback faces, by path, parsed once per process.
pub(crate) fn user_face(path: &Path) -> Result<Arc<Face>> {
    type Loaded = Vec<(PathBuf, Arc<Face>)>;
    static USER: OnceLock<Mutex<Loaded>> = OnceLock::new();
    let faces = USER.get_or_init(|| Mutex::new(Vec::new()));
    let mut faces = faces.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, face)) = faces.iter().find(|(p, _)| p == path) {
        return Ok(face.clone());
    }
    let bytes = std::fs::read(path).map_err(|e| Error::InvalidFont {
        path: path.to_path_buf(),
        message: format!("cannot read it: {e}"),
    })?;
    let id = 100 + faces.len();
    let face = Face::parse(id, &bytes).map_err(|message| Error::InvalidFont {
        path: path.to_path_buf(),
        message: format!("not a TrueType/OpenType font ({message})"),
    })?;
    let face = Arc::new(face);
    faces.push((path.to_path_buf(), face.clone()));
    Ok(face)
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
