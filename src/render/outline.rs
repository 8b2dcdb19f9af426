//! Drawing one glyph of an external face into its cells: outlines through tiny-skia,
//! colour bitmaps (CBDT/sbix PNG strikes) decoded and scaled to the cells, colour layers
//! (COLR) painted layer by layer; and the ligature lookup that makes a flag, a skin tone
//! or a ZWJ family one glyph.
//!
//! Each drawing is a sprite the size of the cells it covers, cached per face, glyph and
//! cell box for the life of the process, so a warm capture only composites.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use tiny_skia::{FillRule, FilterQuality, Paint, PathBuilder, Pixmap, PixmapPaint, Transform};
use ttf_parser::GlyphId;

use super::faces::ExternalFace;

/// A glyph drawn in its cell box: coverage to be tinted with the text colour, or colour
/// pixels (premultiplied) drawn as they are.
pub(crate) enum Sprite {
    /// 8-bit coverage, box-sized, row-major.
    Coverage(Vec<u8>),
    /// A colour image, box-sized.
    Color(Pixmap),
}

/// The box a glyph is drawn in: its size in pixels, the baseline from its top, the font
/// size in pixels, how a colour image is fitted, and the style a face without it fakes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct GlyphBox {
    pub width: u32,
    pub height: u32,
    pub baseline: f32,
    pub px: f32,
    /// Stretch a colour image across the box's width (a modifier sequence that took a
    /// cell pair per code point) instead of keeping its shape.
    pub fill: bool,
    /// Bold and italic the face lacks, drawn by emboldening and shearing its outlines.
    pub synthetic: Synthetic,
}

/// The styles an outline is given by drawing rather than by a styled face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub(crate) struct Synthetic {
    /// Outlines widened by [`EMBOLDEN`] of the font size (as FreeType's emboldening).
    pub bold: bool,
    /// Outlines slanted by [`SHEAR`] (as FreeType's oblique).
    pub italic: bool,
}

/// How much a synthetic bold widens a glyph: this share of the font size in all.
const EMBOLDEN: f32 = 1.0 / 24.0;
/// How far a synthetic italic leans: x moves by this share of the height above the
/// baseline (about 12°).
const SHEAR: f32 = 0.21;
/// The middle of a line of text above the baseline, as a share of the font size: where a
/// colour font's full-size emoji has its middle (it spans about 0.95 em above the
/// baseline to 0.25 below), so an emoji drawn smaller keeps to the line; and the height a
/// synthetic slant turns about, so a slanted letter stays centred in its cells.
pub(crate) const TEXT_MIDDLE: f32 = 0.35;

/// The glyph `face` draws for a cluster of characters: the cluster's glyphs joined by the
/// face's ligatures (a flag's two regional indicators, an emoji and its skin tone, a ZWJ
/// family), or the first character's glyph when they do not join.
pub(crate) fn cluster_glyph(face: &ExternalFace, cluster: &str) -> Option<GlyphId> {
    let mut chars = cluster.chars();
    let first = face.glyph_for(chars.next()?)?;
    let mut glyphs = vec![first];
    for c in chars {
        match face.face.glyph_index(c) {
            Some(g) => glyphs.push(g),
            // Variation selectors and joiners a face does not map take no part.
            None if is_ignorable(c) => {}
            None => return Some(first),
        }
    }
    // The first glyph is the ligature when the face joins the cluster (a selector it maps
    // may remain after it, drawing nothing).
    ligate(&face.face, &mut glyphs);
    Some(glyphs[0])
}

/// Characters that only modify the one before them.
fn is_ignorable(c: char) -> bool {
    matches!(c, '\u{200D}' | '\u{FE00}'..='\u{FE0F}' | '\u{E0100}'..='\u{E01EF}')
}

/// Applies every ligature substitution of the face's GSUB table, in lookup order.
fn ligate(face: &ttf_parser::Face, glyphs: &mut Vec<GlyphId>) {
    use ttf_parser::gsub::SubstitutionSubtable;
    let Some(gsub) = face.tables().gsub else {
        return;
    };
    for lookup in gsub.lookups {
        for subtable in lookup.subtables.into_iter::<SubstitutionSubtable>() {
            let SubstitutionSubtable::Ligature(table) = subtable else {
                continue;
            };
            let mut i = 0;
            while i < glyphs.len() {
                let replaced = table
                    .coverage
                    .get(glyphs[i])
                    .and_then(|set| table.ligature_sets.get(set))
                    .and_then(|set| {
                        set.into_iter().find(|lig| {
                            let n = usize::from(lig.components.len());
                            glyphs.len() > i + n
                                && lig
                                    .components
                                    .into_iter()
                                    .zip(&glyphs[i + 1..])
                                    .all(|(a, &b)| a == b)
                        })
                    });
                if let Some(lig) = replaced {
                    let n = usize::from(lig.components.len());
                    glyphs.splice(i..=i + n, [lig.glyph]);
                }
                i += 1;
            }
        }
    }
}

/// Draws (or fetches from the cache) glyph `id` of `face` in `cell`.
pub(crate) fn sprite(face: &ExternalFace, id: GlyphId, cell: GlyphBox) -> Option<Arc<Sprite>> {
    type Key = (usize, u16, u32, u32, u32, bool, Synthetic);
    static CACHE: OnceLock<Mutex<HashMap<Key, Option<Arc<Sprite>>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(Mutex::default);
    let key = (
        face.id,
        id.0,
        cell.width,
        cell.height,
        cell.px.to_bits(),
        cell.fill,
        cell.synthetic,
    );
    if let Some(sprite) = cache.lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return sprite.clone();
    }
    let drawn = draw(face, id, cell).map(Arc::new);
    cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(key, drawn.clone());
    drawn
}

fn draw(face: &ExternalFace, id: GlyphId, cell: GlyphBox) -> Option<Sprite> {
    if face.face.is_color_glyph(id) {
        return layers(face, id, cell);
    }
    if let Some(image) = face.face.glyph_raster_image(id, cell.px.ceil() as u16)
        && image.format == ttf_parser::RasterImageFormat::PNG
    {
        return bitmap(image.data, cell);
    }
    outline(face, id, cell)
}

/// Font units to box pixels: scaled to the font size, shrunk further when the glyph is
/// wider than the box, centred, y up turned to y down at the baseline; slanted when the
/// box asks for a synthetic italic (about the middle of the letters, so a slanted glyph
/// stays centred in its cells).
fn placement(face: &ttf_parser::Face, id: GlyphId, cell: GlyphBox) -> Transform {
    let units = f32::from(face.units_per_em().max(1));
    let advance = f32::from(face.glyph_hor_advance(id).unwrap_or(face.units_per_em()));
    let mut scale = cell.px / units;
    if advance * scale > cell.width as f32 {
        scale = cell.width as f32 / advance;
    }
    let left = (cell.width as f32 - advance * scale) / 2.0;
    let upright = Transform::from_row(scale, 0.0, 0.0, -scale, left, cell.baseline);
    if !cell.synthetic.italic {
        return upright;
    }
    // x' = x + SHEAR * (y - middle), in font units, y up.
    let middle = units * TEXT_MIDDLE;
    upright.pre_concat(Transform::from_row(1.0, 0.0, SHEAR, 1.0, -SHEAR * middle, 0.0))
}

/// A ttf-parser outline as a tiny-skia path, in font units.
#[derive(Default)]
struct PathSink(PathBuilder);

impl ttf_parser::OutlineBuilder for PathSink {
    fn move_to(&mut self, x: f32, y: f32) {
        self.0.move_to(x, y);
    }
    fn line_to(&mut self, x: f32, y: f32) {
        self.0.line_to(x, y);
    }
    fn quad_to(&mut self, x1: f32, y1: f32, x: f32, y: f32) {
        self.0.quad_to(x1, y1, x, y);
    }
    fn curve_to(&mut self, x1: f32, y1: f32, x2: f32, y2: f32, x: f32, y: f32) {
        self.0.cubic_to(x1, y1, x2, y2, x, y);
    }
    fn close(&mut self) {
        self.0.close();
    }
}

fn glyph_path(face: &ttf_parser::Face, id: GlyphId) -> Option<tiny_skia::Path> {
    let mut sink = PathSink::default();
    face.outline_glyph(id, &mut sink)?;
    sink.0.finish()
}

fn white() -> Paint<'static> {
    let mut paint = Paint::default();
    paint.set_color_rgba8(255, 255, 255, 255);
    paint.anti_alias = true;
    paint
}

/// A monochrome outline as coverage; a blank glyph (a space) as empty coverage.
fn outline(face: &ExternalFace, id: GlyphId, cell: GlyphBox) -> Option<Sprite> {
    let mut pixmap = Pixmap::new(cell.width, cell.height)?;
    if let Some(path) = glyph_path(&face.face, id) {
        let transform = placement(&face.face, id, cell);
        pixmap.fill_path(&path, &white(), FillRule::Winding, transform, None);
        if cell.synthetic.bold {
            // A stroke of the outline widens every stem by half its width on each side;
            // the width is in font units, as the transform scales it with the glyph.
            let units_per_px = f32::from(face.face.units_per_em().max(1)) / cell.px;
            let stroke = tiny_skia::Stroke {
                width: cell.px * EMBOLDEN * units_per_px,
                line_join: tiny_skia::LineJoin::Round,
                ..tiny_skia::Stroke::default()
            };
            pixmap.stroke_path(&path, &white(), &stroke, transform, None);
        }
    }
    Some(Sprite::Coverage(
        pixmap.pixels().iter().map(|p| p.alpha()).collect(),
    ))
}

/// A PNG strike decoded, trimmed to what it draws (a strike's transparent margins would
/// only make the emoji smaller) and fitted to the box (see [`fit`]).
fn bitmap(png_bytes: &[u8], cell: GlyphBox) -> Option<Sprite> {
    let picture = crate::terminal::graphics::decode_png(png_bytes).ok()?;
    let (w, h) = (picture.width, picture.height);
    let image = super::images::pixmap(w, h, &picture.rgba)?;
    let drawn = drawn_area(&image)?;
    let mut out = Pixmap::new(cell.width, cell.height)?;
    let paint = PixmapPaint {
        quality: FilterQuality::Bicubic,
        ..PixmapPaint::default()
    };
    let (sx, sy, dx, dy) = fit(drawn.width() as f32, drawn.height() as f32, cell);
    out.draw_pixmap(
        0,
        0,
        image.as_ref(),
        &paint,
        Transform::from_row(
            sx,
            0.0,
            0.0,
            sy,
            dx - drawn.x() as f32 * sx,
            dy - drawn.y() as f32 * sy,
        ),
        None,
    );
    Some(Sprite::Color(out))
}

/// The smallest rectangle holding every pixel of `image` that is not transparent.
fn drawn_area(image: &Pixmap) -> Option<tiny_skia::IntRect> {
    let (w, h) = (image.width() as usize, image.height() as usize);
    let pixels = image.pixels();
    let opaque = |x: usize, y: usize| pixels[y * w + x].alpha() > 0;
    let rows: Vec<usize> = (0..h).filter(|&y| (0..w).any(|x| opaque(x, y))).collect();
    let cols: Vec<usize> = (0..w).filter(|&x| (0..h).any(|y| opaque(x, y))).collect();
    let (top, bottom) = (*rows.first()?, *rows.last()?);
    let (left, right) = (*cols.first()?, *cols.last()?);
    tiny_skia::IntRect::from_xywh(
        left as i32,
        top as i32,
        (right - left + 1) as u32,
        (bottom - top + 1) as u32,
    )
}

/// How a colour picture `w` × `h` is placed in its box: the scale on each axis and the
/// picture's top-left corner. At the largest size the box allows, keeping its shape,
/// centred across; up and down its middle sits where a full-size emoji's would, on the
/// line of text, moved only as far as it must to stay in the box. A box that asks to be
/// filled is covered by the picture, stretched.
fn fit(w: f32, h: f32, cell: GlyphBox) -> (f32, f32, f32, f32) {
    let (bw, bh) = (cell.width as f32, cell.height as f32);
    let (sx, sy) = if cell.fill {
        (bw / w, bh / h)
    } else {
        let s = (bw / w).min(bh / h);
        (s, s)
    };
    let (dw, dh) = (w * sx, h * sy);
    let middle = cell.baseline - TEXT_MIDDLE * cell.px;
    let top = (middle - dh / 2.0).clamp(0.0, (bh - dh).max(0.0));
    (sx, sy, (bw - dw) / 2.0, top)
}

/// Font units to box pixels for a colour glyph: its bounding box fitted like a colour
/// picture (see [`fit`]); by its advance, like an outline, when it declares no box.
fn colour_placement(face: &ttf_parser::Face, id: GlyphId, cell: GlyphBox) -> Transform {
    let Some(bbox) = face
        .glyph_bounding_box(id)
        .filter(|b| b.width() > 0 && b.height() > 0)
    else {
        return placement(
            face,
            id,
            GlyphBox {
                synthetic: Synthetic::default(),
                ..cell
            },
        );
    };
    let (w, h) = (f32::from(bbox.width()), f32::from(bbox.height()));
    let (sx, sy, dx, dy) = fit(w, h, cell);
    let (left, top) = (f32::from(bbox.x_min), f32::from(bbox.y_max));
    Transform::from_row(sx, 0.0, 0.0, -sy, dx - left * sx, dy + top * sy)
}

/// COLR layers painted with their palette colours (gradients by their first stop: the
/// emoji fonts that use them stay recognisable at cell size).
fn layers(face: &ExternalFace, id: GlyphId, cell: GlyphBox) -> Option<Sprite> {
    let mut painter = LayerPainter {
        face: &face.face,
        pixmap: Pixmap::new(cell.width, cell.height)?,
        base: colour_placement(&face.face, id, cell),
        transforms: Vec::new(),
        path: None,
    };
    let black = ttf_parser::RgbaColor::new(0, 0, 0, 255);
    face.face.paint_color_glyph(id, 0, black, &mut painter)?;
    Some(Sprite::Color(painter.pixmap))
}

struct LayerPainter<'f, 'a> {
    face: &'f ttf_parser::Face<'a>,
    pixmap: Pixmap,
    base: Transform,
    transforms: Vec<Transform>,
    path: Option<tiny_skia::Path>,
}

impl LayerPainter<'_, '_> {
    fn transform(&self) -> Transform {
        self.transforms
            .iter()
            .fold(self.base, |acc, t| acc.pre_concat(*t))
    }
}

impl<'a> ttf_parser::colr::Painter<'a> for LayerPainter<'_, 'a> {
    fn outline_glyph(&mut self, glyph_id: GlyphId) {
        self.path = glyph_path(self.face, glyph_id);
    }

    fn paint(&mut self, paint: ttf_parser::colr::Paint<'a>) {
        use ttf_parser::colr::Paint as P;
        let color = match paint {
            P::Solid(c) => c,
            P::LinearGradient(g) => g
                .stops(0, &[])
                .next()
                .map(|s| s.color)
                .unwrap_or(ttf_parser::RgbaColor::new(0, 0, 0, 255)),
            P::RadialGradient(g) => g
                .stops(0, &[])
                .next()
                .map(|s| s.color)
                .unwrap_or(ttf_parser::RgbaColor::new(0, 0, 0, 255)),
            P::SweepGradient(g) => g
                .stops(0, &[])
                .next()
                .map(|s| s.color)
                .unwrap_or(ttf_parser::RgbaColor::new(0, 0, 0, 255)),
        };
        let Some(path) = self.path.clone() else {
            return;
        };
        let mut fill = Paint::default();
        fill.set_color_rgba8(color.red, color.green, color.blue, color.alpha);
        fill.anti_alias = true;
        let transform = self.transform();
        self.pixmap
            .fill_path(&path, &fill, FillRule::Winding, transform, None);
    }

    fn push_clip(&mut self) {}
    fn push_clip_box(&mut self, _clipbox: ttf_parser::colr::ClipBox) {}
    fn pop_clip(&mut self) {}
    fn push_layer(&mut self, _mode: ttf_parser::colr::CompositeMode) {}
    fn pop_layer(&mut self) {}

    fn push_transform(&mut self, t: ttf_parser::Transform) {
        self.transforms
            .push(Transform::from_row(t.a, t.b, t.c, t.d, t.e, t.f));
    }

    fn pop_transform(&mut self) {
        self.transforms.pop();
    }
}
