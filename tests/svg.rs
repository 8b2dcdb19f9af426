//! SVG screenshots: parsed and rasterised (resvg, with the bundled fonts) and held against
//! the PNG of the same screen; text runs, backgrounds, box drawing, decorations, images
//! and the window frame checked in the document itself.

use tuipilot::render::{Image, Metrics, RenderOptions, SvgFrame};
use tuipilot::{Snapshot, Terminal};

const SCREEN: &str = "\x1b[1;34mbold blue\x1b[0m plain \x1b[3mitalic\x1b[0m \x1b[42;30m on green \x1b[0m\r\n\
                      ┌──────┐ \x1b[4:3;58;5;1mcurly\x1b[0m \x1b[9mstrike\x1b[0m ▀▄█ ⣿ <&> \r\n\
                      │ 漢字 │ e\u{301} \x1b[7minverse\x1b[0m\r\n\
                      └──────┘ $ ";

fn screen() -> Snapshot {
    let mut t = Terminal::new(40, 5).unwrap();
    t.process(SCREEN.as_bytes());
    t.snapshot()
}

fn options() -> RenderOptions {
    RenderOptions {
        system_fonts: false,
        ..RenderOptions::default()
    }
}

/// The SVG drawn by resvg with the bundled fonts, as RGBA.
fn rasterise(svg: &str) -> (u32, u32, Vec<u8>) {
    let mut opt = resvg::usvg::Options::default();
    let fonts = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fonts");
    for entry in std::fs::read_dir(fonts).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "ttf") {
            opt.fontdb_mut().load_font_data(std::fs::read(path).unwrap());
        }
    }
    let tree = resvg::usvg::Tree::from_str(svg, &opt).expect("the SVG parses");
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).unwrap();
    resvg::render(
        &tree,
        resvg::tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    (size.width(), size.height(), pixmap.data().to_vec())
}

/// The share of pixels whose channels differ by more than `channel`.
fn differing(png: &Image, svg: &(u32, u32, Vec<u8>), channel: u8) -> f64 {
    assert_eq!((png.width, png.height), (svg.0, svg.1), "the same size");
    let off = png
        .pixels
        .chunks_exact(4)
        .zip(svg.2.chunks_exact(4))
        .filter(|(a, b)| a[..3].iter().zip(&b[..3]).any(|(x, y)| x.abs_diff(*y) > channel))
        .count();
    off as f64 / (png.width * png.height) as f64
}

#[test]
fn the_svg_is_one_text_run_per_style_with_every_character_at_its_cell() {
    let svg = screen().to_svg(&options(), SvgFrame::None).unwrap();
    let m = Metrics::of(&options());
    let x = |col: u32| m.padding + col * m.cell_width;
    let baseline = m.padding + m.baseline;
    // "bold blue" at columns 0-8 without its space, in one bold run of colour 12 (bright
    // blue: bold is bright).
    let xs: Vec<String> = [0, 1, 2, 3, 5, 6, 7, 8]
        .iter()
        .map(|&c| x(c).to_string())
        .collect();
    let start = format!(r##"<text x="{}" y="{baseline}" fill="#"##, xs.join(" "));
    let line = svg
        .lines()
        .find(|l| l.starts_with(&start))
        .unwrap_or_else(|| panic!("no {start} in\n{svg}"));
    assert!(line.ends_with(r#" class="b">boldblue</text>"#), "{line}");
    assert!(svg.contains(r#"class="i">italic</text>"#));
    assert!(svg.contains("&lt;&amp;&gt;"), "markup is escaped");
    assert!(
        svg.contains(">漢字</text>") || svg.contains(">漢</text>"),
        "CJK as text"
    );
    assert!(
        svg.contains(">e\u{301}</text>"),
        "a letter and its mark stay one cluster"
    );
    assert!(!svg.contains(">─"), "box drawing is paths, not text");
    assert!(
        svg.contains("fill=\"none\" stroke=\"#"),
        "the curly underline is a stroked path"
    );
    // The green background of " on green " is one rectangle of ten cells.
    let w = 10 * m.cell_width;
    assert!(svg.contains(&format!("h{w}v{}h-{w}z", m.cell_height)), "{svg}");
}

#[test]
fn the_svg_rasterised_matches_the_png_of_the_same_screen() {
    let snap = screen();
    let png = snap.render(&options()).unwrap();
    let svg = rasterise(&snap.to_svg(&options(), SvgFrame::None).unwrap());
    // Backgrounds, box drawing, blocks and decorations are the same shapes; glyphs come
    // from two rasterisers, so their edges differ.
    let share = differing(&png, &svg, 64);
    eprintln!(
        "{:.2}% of pixels differ by more than 64 in a channel",
        share * 100.0
    );
    assert!(share < 0.01, "{:.2}% of pixels differ", share * 100.0);
}

#[test]
fn images_are_embedded_where_the_screen_has_them_and_clipped_where_text_covers_them() {
    let mut t = Terminal::new(20, 4).unwrap();
    t.process(b"ab\x1bP0;1;0q\"1;1;40;38#1;2;100;0;0#1!40~-!40~-!40~-!40~-!40~-!40~-!40A\x1b\\");
    t.process(b"\x1b[1;4HX");
    let snap = t.snapshot();
    let svg = snap.to_svg(&options(), SvgFrame::None).unwrap();
    assert_eq!(svg.matches("<image ").count(), 1);
    let png = snap.render(&options()).unwrap();
    let raster = rasterise(&svg);
    let m = Metrics::of(&options());
    let at = |col: u32, row: u32| {
        let (x, y) = (
            m.padding + col * m.cell_width + 5,
            m.padding + row * m.cell_height + 9,
        );
        let i = ((y * raster.0 + x) * 4) as usize;
        (
            [raster.2[i], raster.2[i + 1], raster.2[i + 2]],
            png.pixel(x, y).unwrap(),
        )
    };
    let (svg_red, png_red) = at(2, 1);
    assert_eq!(svg_red, [255, 0, 0]);
    assert_eq!((png_red.0, png_red.1, png_red.2), (255, 0, 0));
    let (under_x, _) = at(3, 0);
    assert_ne!(under_x, [255, 0, 0], "the X hides the image under it");
}

#[test]
fn a_window_frame_adds_a_title_bar_with_the_title() {
    let mut t = Terminal::new(20, 3).unwrap();
    t.process(b"\x1b]2;my <app>\x07hi");
    let snap = t.snapshot();
    let plain = snap.to_svg(&options(), SvgFrame::None).unwrap();
    let framed = snap.to_svg(&options(), SvgFrame::Window).unwrap();
    assert!(framed.contains(">my &lt;app&gt;</text>"));
    assert!(!plain.contains("my &lt;app&gt;"));
    let (pw, ph, _) = rasterise(&plain);
    let (fw, fh, _) = rasterise(&framed);
    assert_eq!((fw, fh), (pw, ph + 28));
}

#[test]
fn an_emoji_sequence_is_one_piece_of_text_at_one_x() {
    // Without grapheme mode each of these takes cells of its own; a browser given an x per
    // code point would draw a hand and a brown square, the letters J and P.
    let mut t = Terminal::new(30, 2).unwrap();
    t.process("👍🏽 🇯🇵 👨‍👩‍👧 ok".as_bytes());
    let svg = t.snapshot().to_svg(&options(), SvgFrame::None).unwrap();
    let m = Metrics::of(&options());
    for (cluster, col) in [("👍🏽", 0), ("🇯🇵", 5), ("👨\u{200D}👩\u{200D}👧", 8)] {
        let x = m.padding + col * m.cell_width;
        let line = svg
            .lines()
            .find(|l| l.ends_with(&format!(">{cluster}</text>")))
            .unwrap_or_else(|| panic!("{cluster:?} is not one text element:\n{svg}"));
        assert!(line.starts_with(&format!(r#"<text x="{x}" y="#)), "{line}");
    }
}
