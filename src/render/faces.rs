//! Faces beyond the bundled ones: files a caller names (`--font`) and the fonts installed
//! on the machine, found once per process.
//!
//! These faces are read with ttf-parser and rasterised one glyph at a time (`outline`),
//! never parsed whole: a CJK collection holds 65 000 glyphs in 20 MB, and building every
//! outline up front (as the bundled faces' rasteriser does) took seconds. A file is read
//! the first time a character needs it and kept for the life of the process, so a host
//! serving many captures reads each font once.
//!
//! The system's fonts are listed (not read) on first use, from the standard directories
//! and the user's own, and ordered so the likeliest covering face is tried first:
//! monospace before proportional, sans before serif, regular before bold or italic. A
//! face is read only when a character the earlier faces lack asks for it, and which face
//! drew a character is remembered, so each character is looked up once per process.
//! A family's bold and italic faces are found the same way, by the family name and weight
//! each face declares, among the files whose names say they are styled.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};

/// One face of a font file: its bytes (kept for the process), its index in a collection,
/// and what kind of glyphs it has.
pub(crate) struct ExternalFace {
    /// Stable id for the glyph cache (distinct from the bundled faces' ids).
    pub id: usize,
    /// The parsed face; its bytes live as long as the process.
    pub face: ttf_parser::Face<'static>,
    /// Whether its glyphs are colour images or layers (CBDT, sbix, COLR).
    pub color: bool,
    /// Its family's name (the typographic family where the face names one), shared by
    /// the family's bold and italic faces.
    pub family: Option<String>,
    /// Its weight (400 regular, 700 bold).
    pub weight: u16,
    /// Whether it is an italic or oblique face.
    pub italic: bool,
}

impl ExternalFace {
    /// The glyph for `c`, if the face maps it and can draw it: a glyph with neither an
    /// outline, an image we decode nor colour layers is treated as absent, so a face is
    /// never chosen only to draw nothing.
    pub fn glyph_for(&self, c: char) -> Option<ttf_parser::GlyphId> {
        let id = self.face.glyph_index(c)?;
        self.can_draw(id).then_some(id)
    }

    /// Whether the glyph has something this renderer can draw.
    pub fn can_draw(&self, id: ttf_parser::GlyphId) -> bool {
        if self.face.is_color_glyph(id) {
            return true;
        }
        if let Some(image) = self.face.glyph_raster_image(id, u16::MAX) {
            return image.format == ttf_parser::RasterImageFormat::PNG;
        }
        // A blank glyph (a space) has no bounding box but is drawable as nothing.
        self.face.glyph_bounding_box(id).is_some() || self.face.glyph_hor_advance(id).is_some_and(|a| a > 0)
    }
}

/// First id given to an external face; the bundled faces use ids below it.
const FIRST_ID: usize = 100;

/// A face's file and index in its collection.
type FaceKey = (PathBuf, u32);

/// Every face this process has read (`None`: the file is not a font).
#[derive(Default)]
struct Loaded {
    faces: Vec<(FaceKey, Option<Arc<ExternalFace>>)>,
}

fn loaded() -> &'static Mutex<Loaded> {
    static LOADED: OnceLock<Mutex<Loaded>> = OnceLock::new();
    LOADED.get_or_init(Mutex::default)
}

/// Reads and parses the face at `index` of the font file at `path` (once per process).
pub(crate) fn load(path: &Path, index: u32) -> Result<Arc<ExternalFace>> {
    let mut loaded = loaded().lock().unwrap_or_else(|p| p.into_inner());
    let key = (path.to_path_buf(), index);
    if let Some((_, face)) = loaded.faces.iter().find(|(k, _)| *k == key) {
        return face
            .clone()
            .ok_or_else(|| invalid(path, "not a TrueType/OpenType font".into()));
    }
    let id = FIRST_ID + loaded.faces.len();
    let parsed = read_face(id, path, index);
    loaded.faces.push((key, parsed.as_ref().ok().cloned()));
    parsed
}

fn invalid(path: &Path, message: String) -> Error {
    Error::InvalidFont {
        path: path.to_path_buf(),
        message,
    }
}

/// The bytes of each font file read so far, shared by the faces of a collection.
fn file_bytes(path: &Path) -> Result<&'static [u8]> {
    static FILES: OnceLock<Mutex<HashMap<PathBuf, &'static [u8]>>> = OnceLock::new();
    let files = FILES.get_or_init(Mutex::default);
    let mut files = files.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(bytes) = files.get(path) {
        return Ok(bytes);
    }
    let bytes = map_font_file(path)?;
    files.insert(path.to_path_buf(), bytes);
    Ok(bytes)
}

/// The largest font file read: the biggest CJK collections are about 30 MB.
const MAX_FONT_FILE_BYTES: u64 = 128 << 20;

/// A font file's bytes, memory-mapped read-only for the life of the process (a host
/// renders many captures with its faces, and the pages are the page cache's, shared with
/// every other process that maps the font). Only a regular file of at most
/// [`MAX_FONT_FILE_BYTES`] is opened: `--font /dev/zero` or a FIFO is refused before any
/// read, so it can neither fill memory nor block.
fn map_font_file(path: &Path) -> Result<&'static [u8]> {
    use std::os::fd::AsRawFd;
    let meta = std::fs::metadata(path).map_err(|e| invalid(path, format!("cannot read it: {e}")))?;
    if !meta.is_file() {
        return Err(invalid(path, "it is not a regular file".into()));
    }
    if meta.len() > MAX_FONT_FILE_BYTES {
        return Err(invalid(
            path,
            format!(
                "it is {} MB, more than any font ({} MB at most)",
                meta.len() >> 20,
                MAX_FONT_FILE_BYTES >> 20
            ),
        ));
    }
    if meta.len() == 0 {
        return Err(invalid(path, "it is empty".into()));
    }
    // Had the file been swapped for a FIFO since the check, a blocking open would wait.
    let file = crate::files::open_without_blocking(path)
        .map_err(|e| invalid(path, format!("cannot read it: {e}")))?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if !file.metadata().is_ok_and(|m| m.is_file()) || len == 0 || len > MAX_FONT_FILE_BYTES {
        return Err(invalid(path, "it changed while it was opened".into()));
    }
    let len = usize::try_from(len).map_err(|_| invalid(path, "it is too large".into()))?;
    // SAFETY: a private read-only mapping of `len` bytes of an open regular file; the
    // mapping outlives the descriptor and is never unmapped (faces live for the process).
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ,
            libc::MAP_PRIVATE,
            file.as_raw_fd(),
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return Err(invalid(
            path,
            format!("cannot map it: {}", std::io::Error::last_os_error()),
        ));
    }
    // SAFETY: the mapping is `len` readable bytes and stays mapped for the process's life.
    Ok(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) })
}

fn read_face(id: usize, path: &Path, index: u32) -> Result<Arc<ExternalFace>> {
    let bytes = file_bytes(path)?;
    parsed(id, bytes, index).map_err(|e| invalid(path, format!("not a TrueType/OpenType font ({e})")))
}

/// A face compiled into the binary, read like a file's: by its outlines, one glyph at a
/// time.
pub(crate) fn bundled_face(
    id: usize,
    bytes: &'static [u8],
) -> std::result::Result<Arc<ExternalFace>, String> {
    parsed(id, bytes, 0).map_err(|e| e.to_string())
}

fn parsed(
    id: usize,
    bytes: &'static [u8],
    index: u32,
) -> std::result::Result<Arc<ExternalFace>, ttf_parser::FaceParsingError> {
    let face = ttf_parser::Face::parse(bytes, index)?;
    let tables = face.tables();
    let color = tables.cbdt.is_some() || tables.sbix.is_some() || tables.colr.is_some();
    let name = |wanted: u16| {
        face.names()
            .into_iter()
            .filter(|n| n.name_id == wanted)
            .find_map(|n| n.to_string())
    };
    let family = name(ttf_parser::name_id::TYPOGRAPHIC_FAMILY).or_else(|| name(ttf_parser::name_id::FAMILY));
    let weight = face.weight().to_number();
    let italic = face.is_italic() || face.is_oblique();
    Ok(Arc::new(ExternalFace {
        id,
        face,
        color,
        family,
        weight,
        italic,
    }))
}

/// The weight from which a face counts as bold.
const BOLD_WEIGHT: u16 = 600;

impl ExternalFace {
    /// Whether the face is a bold one.
    pub fn is_bold(&self) -> bool {
        self.weight >= BOLD_WEIGHT
    }

    /// How well the face serves a bold/italic request as a styled face of `family`: `None`
    /// when it is of another family or gives none of the styles asked for; otherwise the
    /// lower the better (both styles before one, a weight near 700 before a heavier one).
    fn style_distance(&self, family: &str, bold: bool, italic: bool) -> Option<u32> {
        if self.color || self.family.as_deref() != Some(family) {
            return None;
        }
        let gives_bold = bold && self.is_bold();
        let gives_italic = italic && self.italic;
        // A style not asked for is one it must not add.
        if (!bold && self.is_bold()) || (!italic && self.italic) || !(gives_bold || gives_italic) {
            return None;
        }
        let missing = u32::from(bold && !gives_bold) + u32::from(italic && !gives_italic);
        let weight_off = if gives_bold {
            u32::from(self.weight.abs_diff(700))
        } else {
            0
        };
        Some(missing * 10_000 + weight_off)
    }
}

/// The best styled face of `family` among `faces` for a bold/italic request.
pub(crate) fn best_styled<'a>(
    faces: impl IntoIterator<Item = &'a Arc<ExternalFace>>,
    family: &str,
    bold: bool,
    italic: bool,
) -> Option<Arc<ExternalFace>> {
    faces
        .into_iter()
        .filter_map(|f| Some((f.style_distance(family, bold, italic)?, f)))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, f)| f.clone())
}

/// The system's face of `family` that is bold and/or italic as asked (the nearest there
/// is; see [`ExternalFace::style_distance`]), read only from the files whose names say
/// they are styled, and remembered for the process.
pub(crate) fn system_styled(family: &str, bold: bool, italic: bool) -> Option<Arc<ExternalFace>> {
    type Found = HashMap<(String, bool, bool), Option<Arc<ExternalFace>>>;
    static FOUND: OnceLock<Mutex<Found>> = OnceLock::new();
    let found = FOUND.get_or_init(Mutex::default);
    let key = (family.to_string(), bold, italic);
    if let Some(face) = found.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return face.clone();
    }
    let mut styled = Vec::new();
    for file in system_files().iter().filter(|f| f.rank > STYLED_RANK) {
        for index in 0..face_count(&file.path).unwrap_or(0) {
            if let Ok(face) = load(&file.path, index) {
                styled.push(face);
            }
        }
    }
    let best = best_styled(&styled, family, bold, italic);
    found
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, best.clone());
    best
}

/// How many faces a font file holds (one, unless it is a collection).
fn face_count(path: &Path) -> Result<u32> {
    Ok(ttf_parser::fonts_in_collection(file_bytes(path)?).unwrap_or(1))
}

/// The faces of a font file a caller named: every face of a collection, in order.
pub(crate) fn user_faces(path: &Path) -> Result<Vec<Arc<ExternalFace>>> {
    (0..face_count(path)?).map(|index| load(path, index)).collect()
}

/// A font file on the system, with the rank that orders the search.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    rank: u8,
    path: PathBuf,
}

/// The directories fonts are installed in, for this user and the whole machine.
fn font_dirs() -> Vec<PathBuf> {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let mut dirs = Vec::new();
    match std::env::var_os("XDG_DATA_HOME") {
        Some(data) => dirs.push(PathBuf::from(data).join("fonts")),
        None => dirs.extend(home.iter().map(|h| h.join(".local/share/fonts"))),
    }
    dirs.extend(home.iter().map(|h| h.join(".fonts")));
    let data_dirs = std::env::var("XDG_DATA_DIRS").unwrap_or_else(|_| "/usr/local/share:/usr/share".into());
    dirs.extend(
        data_dirs
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| Path::new(d).join("fonts")),
    );
    // macOS keeps its fonts elsewhere.
    dirs.extend(["/System/Library/Fonts", "/Library/Fonts"].map(PathBuf::from));
    dirs.extend(home.iter().map(|h| h.join("Library/Fonts")));
    dirs.dedup();
    dirs
}

/// How early a file is tried: emoji fonts (so a search for a colour face reads only
/// them), then monospace, sans, the rest, serif; regular before bold, italic or other
/// weights.
fn rank(name: &str) -> u8 {
    let name = name.to_ascii_lowercase();
    if name.contains("emoji") {
        return EMOJI_RANK;
    }
    let styled = [
        "bold",
        "italic",
        "oblique",
        "light",
        "thin",
        "black",
        "medium",
        "semibold",
        "extra",
        "condensed",
    ]
    .iter()
    .any(|w| name.contains(w));
    let family = if name.contains("mono") {
        0
    } else if name.contains("sans") {
        1
    } else if name.contains("serif") {
        3
    } else {
        2
    };
    1 + family + if styled { STYLED_RANK } else { 0 }
}

/// What a file named as bold, italic or another weight adds to its rank.
const STYLED_RANK: u8 = 10;

/// The rank of a file named as an emoji font.
const EMOJI_RANK: u8 = 0;

/// Font files under `dir`, at most a few levels deep (symlinks are followed once).
fn scan(dir: &Path, depth: u8, out: &mut Vec<Candidate>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if depth < 4 {
                scan(&path, depth + 1, out);
            }
            continue;
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let lower = name.to_ascii_lowercase();
        if [".ttf", ".otf", ".ttc", ".otc"]
            .iter()
            .any(|e| lower.ends_with(e))
        {
            out.push(Candidate {
                rank: rank(name),
                path,
            });
        }
    }
}

/// The system's font files, best first, listed once per process.
fn system_files() -> &'static [Candidate] {
    static FILES: OnceLock<Vec<Candidate>> = OnceLock::new();
    FILES.get_or_init(|| {
        let mut files = Vec::new();
        for dir in font_dirs() {
            scan(&dir, 0, &mut files);
        }
        files.sort();
        files.dedup_by(|a, b| a.path == b.path);
        files
    })
}

/// The system faces read so far, in search order, and how far the search has got.
#[derive(Default)]
struct SystemFaces {
    faces: Vec<Arc<ExternalFace>>,
    next_file: usize,
    /// Which face (an index in `faces`) drew a character, or `None` for none; keyed by
    /// character and whether a colour face was asked for.
    chosen: HashMap<(char, bool), Option<usize>>,
}

/// The first system face that can draw `c`, preferring a colour face when `emoji`; read
/// from disk only as far as needed, remembered for the process.
pub(crate) fn system_face(c: char, emoji: bool) -> Option<Arc<ExternalFace>> {
    static SYSTEM: OnceLock<Mutex<SystemFaces>> = OnceLock::new();
    let system = SYSTEM.get_or_init(Mutex::default);
    let mut system = system.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(chosen) = system.chosen.get(&(c, emoji)) {
        return chosen.map(|i| system.faces[i].clone());
    }
    let pick = |faces: &[Arc<ExternalFace>]| {
        let covers = |f: &&Arc<ExternalFace>| f.glyph_for(c).is_some();
        let colour = || faces.iter().position(|f| f.color && covers(&f));
        emoji
            .then(colour)
            .flatten()
            .or_else(|| faces.iter().position(|f| covers(&f)))
    };
    let mut found = pick(&system.faces);
    // Read further files until one covers it; when a colour face is asked for, until one
    // does among the emoji fonts, which are listed first.
    let files = system_files();
    let wanting = |found: Option<usize>, faces: &[Arc<ExternalFace>], next: Option<&Candidate>| match found {
        None => next.is_some(),
        Some(i) => emoji && !faces[i].color && next.is_some_and(|f| f.rank == EMOJI_RANK),
    };
    while wanting(found, &system.faces, files.get(system.next_file)) {
        let path = &files[system.next_file].path;
        system.next_file += 1;
        // An unreadable file, or a face that does not parse, is passed over.
        for index in 0..face_count(path).unwrap_or(0) {
            if let Ok(face) = load(path, index) {
                system.faces.push(face);
            }
        }
        found = pick(&system.faces);
    }
    system.chosen.insert((c, emoji), found);
    found.map(|i| system.faces[i].clone())
}
