//! Every glyph without flags: CJK, colour emoji (a flag, a skin tone, a ZWJ family),
//! combining marks and icons, drawn through the fallback chain from the fonts installed
//! on the machine (CI installs fonts-noto-cjk and fonts-noto-color-emoji). Checked by
//! pixels — colour in emoji cells, ink in every non-blank cell — and against a golden.
//! Regenerate with `TUIPILOT_UPDATE=1 cargo test --test glyphs`.

use tuipilot_testenv::needs;
mod common;

use std::path::{Path, PathBuf};

use tuipilot::render::compare::{Tolerance, assert_png_matches};
use tuipilot::render::{Image, Metrics, RenderOptions, missing_glyphs};
use tuipilot::{Rgb, Session, Snapshot, Theme};

const CJK_FONT: &str = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc";
const EMOJI_FONT: &str = "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf";

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The screen `printf` draws from `text` in a real terminal session.
fn printed(cols: u16, rows: u16, text: &str) -> Snapshot {
    let s = Session::builder("printf")
        .arg(text)
        .size(cols, rows)
        .spawn()
        .unwrap();
    s.wait_exit().unwrap();
    s.snapshot()
}

/// The pixels of the cells `cols` of `row`, as colours.
fn cell_pixels(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> Vec<Rgb> {
    let mut out = Vec::new();
    for y in 0..m.cell_height {
        for x in 0..m.cell_width * u32::from(cols.end - cols.start) {
            let px = m.padding + u32::from(cols.start) * m.cell_width + x;
            let py = m.padding + u32::from(row) * m.cell_height + y;
            out.extend(image.pixel(px, py));
        }
    }
    out
}

/// Pixels far from grey: a colour glyph.
fn colourful(pixels: &[Rgb]) -> usize {
    pixels
        .iter()
        .filter(|p| {
            let (hi, lo) = (p.0.max(p.1).max(p.2), p.0.min(p.1).min(p.2));
            hi - lo > 80
        })
        .count()
}

fn ink(pixels: &[Rgb], background: Rgb) -> usize {
    pixels.iter().filter(|p| **p != background).count()
}

/// The cells (start column, width) that hold something other than a space, on a row.
fn filled_cells(snap: &Snapshot, row: u16) -> Vec<(u16, u16)> {
    let (cols, _) = snap.size();
    (0..cols)
        .filter_map(|col| {
            let cell = snap.cell(row, col)?;
            let text = cell.text();
            (!cell.wide_continuation && !text.is_empty() && text != " ")
                .then_some((col, if cell.wide { 2 } else { 1 }))
        })
        .collect()
}

#[needs(noto)]
#[test]
fn cjk_emoji_flags_skin_tones_families_and_marks_draw_without_flags() {
    let snap = printed(
        40,
        4,
        "漢字かな한글\n😀 🇯🇵 👍🏽 👨‍👩‍👧 🏳️‍🌈 ❤️\ne\u{301} n\u{303} a\u{308}\n\u{2714}\u{FE0E} \u{2600}",
    );
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    assert_png_matches(
        &image,
        golden("glyphs.png"),
        Tolerance {
            channel: 8,
            max_share: 0.005,
        },
    )
    .unwrap();
    assert_eq!(missing_glyphs(&snap, &options).unwrap(), Vec::<char>::new());
    let m = Metrics::of(&options);
    let bg = Theme::dark().background;
    // CJK: ink in every cell, and no colour (a text face draws them).
    for (col, width) in filled_cells(&snap, 0) {
        let pixels = cell_pixels(&image, &m, 0, col..col + width);
        assert!(ink(&pixels, bg) > 20, "no ink in CJK cell {col}");
        assert_eq!(colourful(&pixels), 0, "CJK cell {col} is in colour");
    }
    // Emoji: colour in each, a flag's two regional indicators and an emoji with its skin
    // tone drawn as one glyph each (the second half is not a separate drawing).
    let emoji = filled_cells(&snap, 1);
    assert!(emoji.len() >= 5, "{emoji:?}");
    for (name, col) in [("😀", 0), ("🇯🇵", 3), ("👍🏽", 6)] {
        let pixels = cell_pixels(&image, &m, 1, col..col + 2);
        assert!(colourful(&pixels) > 40, "{name} is not in colour");
    }
    // A ZWJ family is one glyph in two cells (Noto draws it as grey silhouettes), the
    // rainbow flag (white flag, VS16, ZWJ, rainbow) one glyph in one cell, as tmux
    // places them.
    let family = snap.find("👨").unwrap()[0].col;
    let pixels = cell_pixels(&image, &m, 1, family..family + 2);
    assert!(ink(&pixels, bg) > 40, "the family is blank");
    let flag = snap.find("🏳").unwrap()[0].col;
    assert_eq!(flag, family + 3, "the family does not take two cells");
    assert!(
        colourful(&cell_pixels(&image, &m, 1, flag..flag + 1)) > 10,
        "🏳️‍🌈 is not in colour"
    );
    // Marks over their letters, nothing blank.
    for (col, width) in filled_cells(&snap, 2) {
        let pixels = cell_pixels(&image, &m, 2, col..col + width);
        assert!(ink(&pixels, bg) > 10, "no ink in cell {col} of the marks row");
    }
    // VS15 asks for text presentation: ✔︎ comes from a text face, in the text colour.
    let pixels = cell_pixels(&image, &m, 3, 0..1);
    assert!(ink(&pixels, bg) > 10);
    assert_eq!(colourful(&pixels), 0, "✔︎ (VS15) was drawn in colour");
}

#[needs(noto)]
#[test]
fn a_named_font_comes_before_the_systems_and_a_missing_glyph_is_reported() {
    // U+10FFFD is a private-use character no font draws.
    let snap = printed(20, 2, "a\u{10FFFD}b");
    let options = RenderOptions::default();
    assert_eq!(missing_glyphs(&snap, &options).unwrap(), vec!['\u{10FFFD}']);
    let hint = tuipilot::render::missing_glyphs_hint(&["U+10FFFD".to_string()]).unwrap();
    assert!(hint.contains("U+10FFFD") && hint.contains("--font"), "{hint}");
    // With the system's fonts off, 漢 is missing; named, its font draws it.
    let cjk = printed(20, 2, "漢");
    let bundled_only = RenderOptions {
        system_fonts: false,
        ..RenderOptions::default()
    };
    assert_eq!(missing_glyphs(&cjk, &bundled_only).unwrap(), vec!['漢']);
    let named = bundled_only.clone().with_font(CJK_FONT);
    assert_eq!(missing_glyphs(&cjk, &named).unwrap(), Vec::<char>::new());
    let m = Metrics::of(&named);
    let (with_font, system) = (
        cjk.render(&named).unwrap(),
        cjk.render(&RenderOptions::default()).unwrap(),
    );
    let bg = Theme::dark().background;
    assert!(ink(&cell_pixels(&with_font, &m, 0, 0..2), bg) > 20);
    // The system's first CJK face is the same file: the same picture.
    assert_eq!(with_font.pixels, system.pixels);
}

#[needs(noto)]
#[test]
fn the_emoji_font_named_first_does_not_blank_what_it_cannot_draw() {
    // A colour font named with --font has no 漢 and no plain letters worth drawing:
    // those still come from the chain, never as blank cells.
    let snap = printed(20, 2, "漢 x 😀");
    let options = RenderOptions::default().with_font(EMOJI_FONT);
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let bg = Theme::dark().background;
    for (col, width) in filled_cells(&snap, 0) {
        assert!(
            ink(&cell_pixels(&image, &m, 0, col..col + width), bg) > 10,
            "cell {col} is blank"
        );
    }
    assert!(
        colourful(&cell_pixels(&image, &m, 0, 5..7)) > 40,
        "😀 is not in colour"
    );
}

/// Writes a font with one glyph, a filled square, for each of `icons` (a stand-in for a
/// Nerd Font: none is packaged for Debian, and no registry carries one whose licence fits).
fn icon_font(dir: &Path, icons: &[char]) -> PathBuf {
    let path = dir.join("icons.ttf");
    let cmap: Vec<String> = icons
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}: 'icon{i}'", u32::from(*c)))
        .collect();
    let names: Vec<String> = (0..icons.len()).map(|i| format!("'icon{i}'")).collect();
    let script = format!(
        r#"
from fontTools.fontBuilder import FontBuilder
from fontTools.pens.ttGlyphPen import TTGlyphPen
names = [{names}]
fb = FontBuilder(1000, isTTF=True)
fb.setupGlyphOrder(['.notdef'] + names)
fb.setupCharacterMap({{{cmap}}})
def square():
    pen = TTGlyphPen(None)
    pen.moveTo((100, -100)); pen.lineTo((100, 700)); pen.lineTo((500, 700)); pen.lineTo((500, -100)); pen.closePath()
    return pen.glyph()
fb.setupGlyf({{n: square() for n in ['.notdef'] + names}})
fb.setupHorizontalMetrics({{n: (600, 100) for n in ['.notdef'] + names}})
fb.setupHorizontalHeader(ascent=800, descent=-200)
fb.setupNameTable({{'familyName': 'Icons', 'styleName': 'Regular'}})
fb.setupOS2(); fb.setupPost()
fb.save({path:?})
"#,
        names = names.join(", "),
        cmap = cmap.join(", "),
        path = path.to_str().unwrap(),
    );
    let status = std::process::Command::new("python3")
        .args(["-c", &script])
        .status()
        .unwrap();
    assert!(status.success(), "fontTools could not build the icon font");
    path
}

#[needs(fonttools)]
#[test]
fn nerd_font_icons_draw_from_a_named_font_and_are_reported_missing_without_one() {
    let dir = common::TempDir::new("icons");
    // nf-fa-home, nf-dev-git_branch, nf-md-folder (Nerd Fonts 3 code points).
    let icons = ['\u{F015}', '\u{E725}', '\u{F024B}'];
    let font = icon_font(&dir.0, &icons);
    let snap = printed(20, 2, &format!("{} {} {}", icons[0], icons[1], icons[2]));
    let bundled_only = RenderOptions {
        system_fonts: false,
        ..RenderOptions::default()
    };
    assert_eq!(missing_glyphs(&snap, &bundled_only).unwrap(), icons.to_vec());
    let hint = tuipilot::render::missing_glyphs_hint(&["U+F015".to_string()]).unwrap();
    assert!(hint.contains("Nerd Font"), "{hint}");
    let named = bundled_only.with_font(&font);
    assert_eq!(missing_glyphs(&snap, &named).unwrap(), Vec::<char>::new());
    let image = snap.render(&named).unwrap();
    let m = Metrics::of(&named);
    let bg = Theme::dark().background;
    for col in [0, 2, 4] {
        assert!(
            ink(&cell_pixels(&image, &m, 0, col..col + 1), bg) > 40,
            "icon in column {col}"
        );
    }
}

const CJK_BOLD_FONT: &str = "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc";

/// The pixels of a run of cells that are not the background, as (x, y) from the run's
/// top-left corner.
fn inked(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> Vec<(u32, u32)> {
    let bg = Theme::dark().background;
    let width = m.cell_width * u32::from(cols.end - cols.start);
    let (left, top) = (
        m.padding + u32::from(cols.start) * m.cell_width,
        m.padding + u32::from(row) * m.cell_height,
    );
    (0..m.cell_height)
        .flat_map(|y| (0..width).map(move |x| (x, y)))
        .filter(|&(x, y)| image.pixel(left + x, top + y) != Some(bg))
        .collect()
}

/// How the ink of a run of cells lies: how many pixels differ from the background, and
/// the mean x of those pixels in the top half of the letters less that in the bottom
/// half: how far the letters lean.
fn ink_shape(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> (usize, f32) {
    let ink = inked(image, m, row, cols);
    let mean_x = |upper: bool| {
        let xs: Vec<f32> = ink
            .iter()
            .filter(|(_, y)| (*y < m.baseline / 2 + 2) == upper)
            .map(|(x, _)| *x as f32)
            .collect();
        xs.iter().sum::<f32>() / (xs.len().max(1) as f32)
    };
    (ink.len(), mean_x(true) - mean_x(false))
}

/// Regular, bold, italic and bold italic runs of `text`, side by side, with the column
/// each starts at (a run is `width` cells).
fn styled_runs(text: &str, width: u16) -> (Snapshot, [u16; 4]) {
    let snap = printed(
        40,
        2,
        &format!("{text} \x1b[1m{text}\x1b[0m \x1b[3m{text}\x1b[0m \x1b[1;3m{text}\x1b[0m"),
    );
    let step = width + 1;
    (snap, [0, step, 2 * step, 3 * step])
}

#[test]
fn bold_and_italic_in_a_fallback_face_without_them_are_emboldened_and_slanted() {
    // Georgian capitals are only in DejaVu Sans, bundled in its regular style alone.
    // Large, so a slant moves the letters' tops by a few pixels.
    let options = RenderOptions {
        system_fonts: false,
        font_size: 32.0,
        ..RenderOptions::default()
    };
    let (snap, [plain, bold, italic, both]) = styled_runs("\u{10A0}\u{10A1}", 2);
    assert_eq!(missing_glyphs(&snap, &options).unwrap(), Vec::<char>::new());
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let shape = |col: u16| ink_shape(&image, &m, 0, col..col + 2);
    let (plain, bold, italic, both) = (shape(plain), shape(bold), shape(italic), shape(both));
    assert!(
        bold.0 * 100 > plain.0 * 115,
        "bold is not heavier: {bold:?} vs {plain:?}"
    );
    assert!(
        both.0 * 100 > italic.0 * 115,
        "bold italic is not heavier: {both:?} vs {italic:?}"
    );
    assert!(
        italic.1 > plain.1 + 1.0,
        "italic does not lean: {italic:?} vs {plain:?}"
    );
    assert!(
        both.1 > bold.1 + 1.0,
        "bold italic does not lean: {both:?} vs {bold:?}"
    );
    assert!(
        (bold.1 - plain.1).abs() < 1.0,
        "bold leans: {bold:?} vs {plain:?}"
    );
}

#[needs(noto, noto_cjk_bold)]
#[test]
fn bold_cjk_comes_from_the_familys_bold_face_in_its_collection_and_italic_is_slanted() {
    let (snap, [plain, bold, italic, both]) = styled_runs("漢字", 4);
    let named = |fonts: &[&str]| {
        let mut options = RenderOptions {
            system_fonts: false,
            ..RenderOptions::default()
        };
        for font in fonts {
            options = options.with_font(font);
        }
        options
    };
    // The family's Bold collection named beside the Regular one, as a caller would.
    let family = named(&[CJK_FONT, CJK_BOLD_FONT]);
    let image = snap.render(&family).unwrap();
    let m = Metrics::of(&family);
    let shape = |image: &Image, col: u16| ink_shape(image, &m, 0, col..col + 4);
    let (p, b, i, bi) = (
        shape(&image, plain),
        shape(&image, bold),
        shape(&image, italic),
        shape(&image, both),
    );
    assert!(b.0 * 100 > p.0 * 115, "bold is not heavier: {b:?} vs {p:?}");
    assert!(i.1 > p.1 + 1.0, "italic does not lean: {i:?} vs {p:?}");
    assert!(bi.1 > b.1 + 1.0 && bi.0 * 100 > i.0 * 115, "bold italic: {bi:?}");
    // The Bold face draws it, not the Regular emboldened: with the Regular alone, the bold
    // cells differ.
    let regular_only = snap.render(&named(&[CJK_FONT])).unwrap();
    let cells = |image: &Image, col: u16| cell_pixels(image, &m, 0, col..col + 4);
    assert_ne!(cells(&image, bold), cells(&regular_only, bold));
    assert_eq!(cells(&image, plain), cells(&regular_only, plain));
    let synthetic = shape(&regular_only, bold);
    assert!(
        synthetic.0 * 100 > p.0 * 115,
        "emboldened is not heavier: {synthetic:?}"
    );
    // The system's fonts find the same Bold face by its family.
    let system = snap.render(&RenderOptions::default()).unwrap();
    assert_eq!(cells(&system, bold), cells(&image, bold));
    assert_png_matches(
        &image,
        golden("styled-fallback.png"),
        Tolerance {
            channel: 8,
            max_share: 0.005,
        },
    )
    .unwrap();
}

/// The rows holding ink in a run of cells: (first, last) from the top of the cells.
fn ink_rows(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> (u32, u32) {
    let ink = inked(image, m, row, cols);
    let rows = ink.iter().map(|(_, y)| *y);
    (rows.clone().min().unwrap(), rows.max().unwrap())
}

/// The columns of pixels holding ink in a run of cells, counted.
fn ink_columns(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> u32 {
    let mut columns: Vec<u32> = inked(image, m, row, cols).into_iter().map(|(x, _)| x).collect();
    columns.sort_unstable();
    columns.dedup();
    columns.len() as u32
}

#[needs(noto)]
#[test]
fn one_cell_emoji_fill_their_cell_on_the_line_of_text_and_skin_tones_cover_their_cells() {
    // ❤️ ✔️ ☺️ with VS16 and 🏳️‍🌈 take one cell each (as tmux places them); 😀 two; 👍🏽
    // four (two per code point).
    let snap = printed(
        30,
        2,
        "\u{2764}\u{FE0F} \u{2714}\u{FE0F} \u{263A}\u{FE0F} \u{1F3F3}\u{FE0F}\u{200D}\u{1F308} \u{1F600} \u{1F44D}\u{1F3FD}|",
    );
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let grin = snap.find("😀").unwrap()[0].col;
    let (grin_top, grin_bottom) = ink_rows(&image, &m, 0, grin..grin + 2);
    for col in [0, 2, 4, 6] {
        let cell = col..col + 1;
        // (Noto draws ✔️ in dark grey: ink, not colour.)
        let pixels = cell_pixels(&image, &m, 0, cell.clone());
        assert!(ink(&pixels, Theme::dark().background) > 20, "cell {col} is empty");
        // As wide as the cell allows.
        let wide = ink_columns(&image, &m, 0, cell.clone());
        assert!(
            wide + 1 >= m.cell_width,
            "cell {col}: {wide} of {} pixels wide",
            m.cell_width
        );
        // Its middle where a two-cell emoji's is, not at the top or bottom of the cell.
        let (top, bottom) = ink_rows(&image, &m, 0, cell);
        let (middle, grin_middle) = ((top + bottom) as f32 / 2.0, (grin_top + grin_bottom) as f32 / 2.0);
        assert!(
            (middle - grin_middle).abs() <= 1.5,
            "cell {col}: middle at {middle}, a two-cell emoji's at {grin_middle}"
        );
        // Nothing spills into the blank cell after it.
        let after = cell_pixels(&image, &m, 0, col + 1..col + 2);
        assert_eq!(ink(&after, Theme::dark().background), 0, "cell {col} spills");
    }
    // 👍🏽: one glyph over all four of its cells, no gap that reads as a space.
    let thumb = snap.find("👍").unwrap()[0].col;
    assert_eq!(snap.find(r"\|").unwrap()[0].col, thumb + 4);
    for col in thumb..thumb + 4 {
        let pixels = cell_pixels(&image, &m, 0, col..col + 1);
        assert!(colourful(&pixels) > 20, "cell {col} of 👍🏽 is empty");
    }
    assert_png_matches(
        &image,
        golden("emoji-sizes.png"),
        Tolerance {
            channel: 8,
            max_share: 0.005,
        },
    )
    .unwrap();
}
