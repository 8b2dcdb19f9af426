//! SVG screenshots: parsed and rasterised (resvg, with the bundled fonts) and held against
//! the PNG of the same screen; text runs, backgrounds, box drawing, decorations, images
//! and the window frame checked in the document itself; and shown by headless Chromium, cell
//! by cell against the PNG, for emoji, flags, sequences, combining marks and CJK.

use tuipilot_testenv::needs;
mod common;

use tuipilot::render::{Image, Metrics, RenderOptions, SvgFrame};
use tuipilot::{Rgb, Snapshot, Terminal, Theme};

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
    for (cluster, col, cells) in [("👍🏽", 0, 4), ("🇯🇵", 5, 2), ("👨\u{200D}👩\u{200D}👧", 8, 2)]
    {
        let x = m.padding + col * m.cell_width;
        let line = svg
            .lines()
            .find(|l| l.ends_with(&format!(">{cluster}</text></svg>")))
            .unwrap_or_else(|| panic!("{cluster:?} is not one text element:\n{svg}"));
        // In a viewport of exactly its cells, which clips it.
        let viewport = format!(
            r#"<svg x="{x}" y="{}" width="{}" height="{}"><text "#,
            m.padding,
            cells * m.cell_width,
            m.cell_height
        );
        assert!(line.starts_with(&viewport), "{line}");
    }
}

/// A screenshot of the SVG as headless Chromium draws it, at one pixel per pixel: width,
/// height and RGB.
fn browser_screenshot(browser: &str, svg: &str) -> (u32, u32, Vec<u8>) {
    let dir = common::TempDir::new("svg-browser");
    let page = dir.0.join("screen.svg");
    let shot = dir.0.join("shot.png");
    std::fs::write(&page, svg).unwrap();
    let size = |name: &str| -> u32 {
        let at = svg.find(&format!(r#" {name}=""#)).unwrap() + name.len() + 3;
        svg[at..].split('"').next().unwrap().parse().unwrap()
    };
    let (width, height) = (size("width"), size("height"));
    let output = std::process::Command::new(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", dir.0.join("profile").display()))
        // The window is made larger than the picture: headless Chromium's page is the
        // window less a frame it does not draw; the picture is cut from its top left.
        .arg(format!("--window-size={},{}", width + 200, height + 200))
        .arg(format!("--screenshot={}", shot.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(
        shot.exists(),
        "{browser} wrote no screenshot:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&shot).unwrap()));
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let frame = reader.next_frame(&mut buf).unwrap();
    let channels = frame.color_type.samples();
    assert!(
        frame.width >= width && frame.height >= height,
        "the page ({}x{}) is smaller than the picture ({width}x{height})",
        frame.width,
        frame.height
    );
    let stride = frame.width as usize * channels;
    let rgb = (0..height as usize)
        .flat_map(|y| buf[y * stride..][..width as usize * channels].chunks_exact(channels))
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    (width, height, rgb)
}

/// What a cell shows, roughly: the share of its pixels that are ink (far from the
/// background) and the mean colour of that ink.
#[derive(Debug, Clone, Copy)]
struct CellInk {
    share: f32,
    mean: Rgb,
}

impl CellInk {
    /// Ink far from grey: a colour glyph rather than text.
    fn colourful(&self) -> bool {
        let Rgb(r, g, b) = self.mean;
        self.share > 0.04 && r.max(g).max(b) - r.min(g).min(b) > 50
    }
}

fn cell_ink(pixel: impl Fn(u32, u32) -> Rgb, m: &Metrics, row: u16, col: u16) -> CellInk {
    let bg = Theme::dark().background;
    let (mut count, mut sum) = (0u32, [0u32; 3]);
    for y in 0..m.cell_height {
        for x in 0..m.cell_width {
            let p = pixel(
                m.padding + u32::from(col) * m.cell_width + x,
                m.padding + u32::from(row) * m.cell_height + y,
            );
            let far = [(p.0, bg.0), (p.1, bg.1), (p.2, bg.2)]
                .iter()
                .any(|(a, b)| a.abs_diff(*b) > 40);
            if far {
                count += 1;
                sum[0] += u32::from(p.0);
                sum[1] += u32::from(p.1);
                sum[2] += u32::from(p.2);
            }
        }
    }
    let mean = |i: usize| (sum[i] / count.max(1)) as u8;
    CellInk {
        share: count as f32 / (m.cell_width * m.cell_height) as f32,
        mean: Rgb(mean(0), mean(1), mean(2)),
    }
}

#[needs(chromium, noto)]
#[test]
fn a_browser_draws_the_svg_of_emoji_flags_sequences_marks_and_cjk_in_the_cells_the_png_does() {
    let browser = common::chromium();
    let mut t = Terminal::new(36, 5).unwrap();
    t.process(
        "😀 ❤\u{FE0F} ✔\u{FE0F} ☺\u{FE0F} 🏳\u{FE0F}\u{200D}🌈 x\r\n\
         🇯🇵 🇫🇷 👍🏽 👨\u{200D}👩\u{200D}👧 |\r\n\
         e\u{301} n\u{303} a\u{336}b o\u{20DD} x\r\n\
         漢字かな한글 中文\r\n"
            .as_bytes(),
    );
    let snap = t.snapshot();
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let png = snap.render(&options).unwrap();
    let svg = snap.to_svg(&options, SvgFrame::None).unwrap();
    let (width, height, shot) = browser_screenshot(browser, &svg);
    assert_eq!((width, height), (png.width, png.height));
    let shot_pixel = |x: u32, y: u32| {
        let i = ((y * width + x) * 3) as usize;
        Rgb(shot[i], shot[i + 1], shot[i + 2])
    };
    let (cols, rows) = snap.size();
    let mut wrong = Vec::new();
    for row in 0..rows {
        for col in 0..cols {
            let drawn = cell_ink(|x, y| png.pixel(x, y).unwrap(), &m, row, col);
            let shown = cell_ink(shot_pixel, &m, row, col);
            let what = snap
                .cell(row, col)
                .map(|c| c.text().to_string())
                .unwrap_or_default();
            // Blank in the PNG: nothing spilled into it. Drawn: something there. Colour
            // where the PNG has colour (a flag, not the letters J P; a brown hand).
            let spilled = drawn.share < 0.01 && shown.share > 0.06;
            let missing = drawn.share > 0.08 && shown.share < 0.02;
            let uncoloured = drawn.colourful() && !shown.colourful();
            let far = drawn.colourful() && {
                let (a, b) = (drawn.mean, shown.mean);
                let d = |x: u8, y: u8| (i32::from(x) - i32::from(y)).pow(2);
                ((d(a.0, b.0) + d(a.1, b.1) + d(a.2, b.2)) as f32).sqrt() > 90.0
            };
            if spilled || missing || uncoloured || far {
                wrong.push(format!(
                    "row {row} col {col} {what:?}: png {drawn:?}, browser {shown:?}"
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "cells the browser draws otherwise:\n{}\n{svg}",
        wrong.join("\n")
    );
    // The reference itself, as a golden.
    tuipilot::render::compare::assert_png_matches(
        &png,
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/clusters.png"),
        tuipilot::render::compare::Tolerance {
            channel: 8,
            max_share: 0.005,
        },
    )
    .unwrap();
}
