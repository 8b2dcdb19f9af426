//! Terminal graphics in the screen model and the PNG: a fixture that draws one image in
//! each protocol (sixel, kitty graphics, iTerm2 inline), and real image viewers (chafa,
//! timg) where installed. Regenerate the golden with `TUIPILOT_UPDATE=1 cargo test --test
//! images`.

use tuipilot_testenv::needs;
mod common;

use std::path::PathBuf;

use common::{TempDir, fixture_session};
use tuipilot::render::compare::{Tolerance, assert_png_matches};
use tuipilot::render::{Image, Metrics, RenderOptions};
use tuipilot::{ImageProtocol, Rgb, Session, Snapshot};

/// The colour at the middle of a cell.
fn middle(image: &Image, m: &Metrics, row: u16, col: u16) -> Rgb {
    let x = m.padding + u32::from(col) * m.cell_width + m.cell_width / 2;
    let y = m.padding + u32::from(row) * m.cell_height + m.cell_height / 2;
    image.pixel(x, y).unwrap()
}

fn close(a: Rgb, b: Rgb) -> bool {
    [(a.0, b.0), (a.1, b.1), (a.2, b.2)]
        .iter()
        .all(|&(x, y)| x.abs_diff(y) <= 24)
}

fn fixture_screen() -> (Session, Snapshot) {
    let s = fixture_session("images").size(40, 12).spawn().unwrap();
    let snap = s.wait_for_text("^done").unwrap();
    (s, snap)
}

#[test]
fn each_protocol_keeps_its_image_at_the_cursor_with_its_size_in_cells() {
    let (_s, snap) = fixture_screen();
    assert_eq!(snap.row(0), Some("sixel:"));
    assert_eq!(snap.row(3), Some("kitty:"));
    assert_eq!(
        snap.row(5),
        Some("kitty reply: OK"),
        "the kitty reply reached the program"
    );
    assert_eq!(snap.row(6), Some("iterm2:"));
    let found: Vec<_> = snap
        .images()
        .iter()
        .map(|i| (i.protocol, i.row, i.col, i.cols, i.rows, i.width, i.height))
        .collect();
    assert_eq!(
        found,
        [
            (ImageProtocol::Sixel, 0, 7, 4, 2, 40, 38),
            (ImageProtocol::Kitty, 3, 7, 8, 2, 4, 4),
            (ImageProtocol::Iterm2, 6, 8, 3, 2, 30, 20),
        ]
    );
    assert_eq!(snap.images()[1].id, 5);
}

#[test]
fn the_png_shows_each_image_where_the_screen_has_it() {
    let (_s, snap) = fixture_screen();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    assert_png_matches(
        &image,
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/images.png"),
        Tolerance::EXACT,
    )
    .unwrap();
    let m = Metrics::of(&options);
    assert!(
        close(middle(&image, &m, 0, 8), Rgb(255, 0, 0)),
        "sixel's red band"
    );
    assert!(
        close(middle(&image, &m, 1, 10), Rgb(0, 0, 255)),
        "sixel's blue band"
    );
    assert!(
        close(middle(&image, &m, 3, 14), Rgb(0, 200, 0)),
        "kitty's green, stretched to 8 cells"
    );
    assert!(close(middle(&image, &m, 4, 8), Rgb(0, 200, 0)));
    assert!(
        close(middle(&image, &m, 6, 9), Rgb(230, 200, 0)),
        "the iTerm2 PNG"
    );
    let background = options.theme.background;
    assert_eq!(
        middle(&image, &m, 3, 16),
        background,
        "nothing past the kitty image"
    );
    assert_eq!(middle(&image, &m, 9, 8), background);
}

#[test]
fn text_written_over_a_sixel_hides_its_cells_and_a_clear_removes_every_image() {
    let mut t = tuipilot::Terminal::new(40, 12).unwrap();
    t.process(b"\x1bP0;1;0q\"1;1;40;38#1;2;100;0;0#1!40~-!40~-!40~-!40~-!40~-!40~-!40A\x1b\\");
    t.process(b"\x1b[1;2HXY");
    let snap = t.snapshot();
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let image = snap.render(&options).unwrap();
    assert!(
        !close(middle(&image, &m, 0, 1), Rgb(255, 0, 0)),
        "X hides the red under it"
    );
    assert!(close(middle(&image, &m, 0, 0), Rgb(255, 0, 0)), "the rest stays");
    assert!(close(middle(&image, &m, 1, 1), Rgb(255, 0, 0)));
    t.process(b"\x1b[2J");
    assert!(t.snapshot().images().is_empty());
}

/// A 64x48 PNG: left half magenta, right half cyan.
fn test_png(dir: &TempDir) -> PathBuf {
    let path = dir.0.join("picture.png");
    let mut data = Vec::new();
    for _ in 0..48 {
        for x in 0..64 {
            data.extend_from_slice(if x < 32 { &[255, 0, 255] } else { &[0, 255, 255] });
        }
    }
    let file = std::fs::File::create(&path).unwrap();
    let mut encoder = png::Encoder::new(file, 64, 48);
    encoder.set_color(png::ColorType::Rgb);
    encoder.write_header().unwrap().write_image_data(&data).unwrap();
    path
}

/// Runs a viewer on the test picture and returns the screen once it exits.
fn view(program: &str, args: &[&str]) -> Snapshot {
    let dir = TempDir::new("images");
    let picture = test_png(&dir);
    let s = Session::builder(program)
        .args(args)
        .arg(&picture)
        .size(60, 20)
        .env("TERM", "xterm-256color")
        .spawn()
        .unwrap();
    let status = s.wait_exit().unwrap();
    assert!(status.success(), "{program} {args:?} failed: {}", s.snapshot());
    s.snapshot()
}

/// The image's colours as drawn: the left and right quarter of its middle row.
fn sides(snap: &Snapshot) -> (Rgb, Rgb) {
    let [image] = snap.images() else {
        panic!("one image expected: {:?}", snap.images())
    };
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let png = snap.render(&options).unwrap();
    let row = (image.row + i32::from(image.rows) / 2) as u16;
    (
        middle(&png, &m, row, image.col + image.cols / 4),
        middle(&png, &m, row, image.col + image.cols * 3 / 4),
    )
}

#[needs(chafa)]
#[test]
fn chafa_draws_a_picture_in_sixel_kitty_and_iterm2_and_each_shows_in_the_png() {
    for (format, protocol) in [
        ("sixels", ImageProtocol::Sixel),
        ("kitty", ImageProtocol::Kitty),
        ("iterm", ImageProtocol::Iterm2),
    ] {
        let snap = view("chafa", &["-f", format, "-s", "16x6", "--animate=off"]);
        assert_eq!(snap.images().len(), 1, "{format}: {:?}", snap.images());
        assert_eq!(snap.images()[0].protocol, protocol);
        let (left, right) = sides(&snap);
        assert!(
            close(left, Rgb(255, 0, 255)),
            "{format}: left is magenta, got {left:?}"
        );
        assert!(
            close(right, Rgb(0, 255, 255)),
            "{format}: right is cyan, got {right:?}"
        );
    }
}

#[needs(timg)]
#[test]
fn timg_draws_a_picture_with_kitty_graphics_and_iterm2() {
    // Debian's timg is built without sixel (`-ps` falls back to blocks).
    for (pixelation, protocol) in [("k", ImageProtocol::Kitty), ("i", ImageProtocol::Iterm2)] {
        let snap = view("timg", &[&format!("-p{pixelation}"), "-g", "16x6"]);
        assert_eq!(snap.images().len(), 1, "-p{pixelation}: {:?}", snap.images());
        assert_eq!(snap.images()[0].protocol, protocol);
        let (left, right) = sides(&snap);
        assert!(
            close(left, Rgb(255, 0, 255)),
            "-p{pixelation}: left, got {left:?}"
        );
        assert!(
            close(right, Rgb(0, 255, 255)),
            "-p{pixelation}: right, got {right:?}"
        );
    }
}
