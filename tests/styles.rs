//! Every SGR attribute a terminal keeps: strikethrough, hidden, blink, underline styles and
//! colour, overline — kept in the cells, written back by an ANSI capture, drawn in the
//! PNG — and xterm's bold-is-bright. Regenerate the golden with
//! `TUIPILOT_UPDATE=1 cargo test --test styles`.

use std::path::PathBuf;

use tuipilot::render::compare::{Tolerance, assert_png_matches};
use tuipilot::render::{Image, Metrics, RenderOptions};
use tuipilot::{Color, Rgb, Session, Snapshot, Terminal, Theme, UnderlineStyle};

const SAMPLE: &str = "\x1b[9mstrike\x1b[0m \x1b[4:3;58;5;1mcurl\x1b[0m \x1b[21mdbl\x1b[0m \x1b[4:4mdot\x1b[0m \
                      \x1b[4:5mdash\x1b[0m \x1b[53mover\x1b[0m \x1b[8mhidden\x1b[0m \x1b[5mblink\x1b[0m \
                      \x1b[4;58;2;0;200;0mgreen\x1b[0m\r\n\x1b[1;30mbold-black\x1b[0m \x1b[1;37;47mframe\x1b[0m";

fn printed() -> Snapshot {
    let s = Session::builder("printf")
        .arg(SAMPLE)
        .size(60, 3)
        .spawn()
        .unwrap();
    s.wait_exit().unwrap();
    s.snapshot()
}

fn col_of(snap: &Snapshot, text: &str) -> u16 {
    snap.find(text).unwrap()[0].col
}

/// The pixels of a row's cells `cols`, as colours.
fn pixels(image: &Image, m: &Metrics, row: u16, cols: std::ops::Range<u16>) -> Vec<Rgb> {
    let mut out = Vec::new();
    for y in 0..m.cell_height {
        for x in u32::from(cols.start) * m.cell_width..u32::from(cols.end) * m.cell_width {
            out.extend(image.pixel(m.padding + x, m.padding + u32::from(row) * m.cell_height + y));
        }
    }
    out
}

#[test]
fn the_attributes_vt100_drops_are_kept_per_cell() {
    let snap = printed();
    assert_eq!(
        snap.row(0),
        Some("strike curl dbl dot dash over hidden blink green")
    );
    let style = |text: &str| snap.cell(0, col_of(&snap, text)).unwrap().style;
    assert!(style("strike").strikethrough);
    assert_eq!(style("curl").underline_style, UnderlineStyle::Curly);
    assert_eq!(style("curl").underline_color, Color::Indexed(1));
    assert!(style("curl").underline && !style("curl").italic);
    assert_eq!(style("dbl").underline_style, UnderlineStyle::Double);
    assert_eq!(style("dot").underline_style, UnderlineStyle::Dotted);
    assert_eq!(style("dash").underline_style, UnderlineStyle::Dashed);
    assert!(style("over").overline);
    assert!(style("hidden").hidden);
    assert!(style("blink").blink);
    assert_eq!(style("green").underline_style, UnderlineStyle::Single);
    assert_eq!(style("green").underline_color, Color::Rgb(0, 200, 0));
    // The spaces between were printed with no attribute.
    assert_eq!(snap.cell(0, 6).unwrap().style, tuipilot::Style::default());
}

#[test]
fn an_ansi_capture_writes_them_back_in_tmux_spelling() {
    let snap = printed();
    let ansi = snap.ansi();
    for code in [
        "\x1b[0;9m",
        "4:3;58;5;1m",
        "\x1b[0;4:2m",
        "\x1b[0;4:4m",
        "\x1b[0;4:5m",
        "\x1b[0;53m",
        "\x1b[0;8m",
        "\x1b[0;5m",
        "4;58;2;0;200;0m",
    ] {
        assert!(ansi.contains(code), "{code:?} missing from {ansi:?}");
    }
    // Replayed, the capture gives the same cells.
    let mut again = Terminal::new(60, 3).unwrap();
    again.process(ansi.replace('\n', "\r\n").as_bytes());
    let replayed = again.snapshot();
    for row in 0..2 {
        for col in 0..60 {
            assert_eq!(
                replayed.cell(row, col).map(|c| c.style),
                snap.cell(row, col).map(|c| c.style),
                "cell {row},{col}"
            );
        }
    }
}

#[test]
fn the_png_draws_each_attribute_and_hides_hidden_text() {
    let snap = printed();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    assert_png_matches(
        &image,
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/styles.png"),
        Tolerance::EXACT,
    )
    .unwrap();
    let m = Metrics::of(&options);
    let theme = Theme::dark();
    let ink = |row: u16, text: &str| {
        let col = col_of(&snap, text);
        pixels(&image, &m, row, col..col + text.chars().count() as u16)
    };
    // Hidden: nothing but background.
    assert!(
        ink(0, "hidden").iter().all(|p| *p == theme.background),
        "hidden text was drawn"
    );
    // The curly underline in palette red, the plain one in its own green.
    // (The wave is anti-aliased: reddish pixels, not necessarily the exact colour.)
    let red = theme.indexed(1);
    assert!(
        ink(0, "curl")
            .iter()
            .any(|p| p.0 > 100 && u16::from(p.0) > 2 * u16::from(p.1) && red.0 > red.1),
        "no red underline"
    );
    assert!(ink(0, "green").contains(&Rgb(0, 200, 0)), "no green underline");
    // Strikethrough crosses the space inside each letter's cell: the bottom rows of
    // `strike` are as plain as `blink`'s (no underline), but its middle has a full line.
    let row_has_line = |pixels: &[Rgb], y: u32| {
        let w = m.cell_width as usize * 6;
        let line = &pixels[y as usize * w..(y as usize + 1) * w];
        line.iter().all(|p| *p != theme.background)
    };
    let strike = ink(0, "strike");
    assert!(
        (0..m.cell_height).any(|y| row_has_line(&strike, y)),
        "no line through `strike`"
    );
    let over = ink(0, "over");
    let w = m.cell_width as usize * 4;
    assert!(
        over[..w].iter().all(|p| *p == theme.foreground),
        "no overline at the top"
    );
    // Bold black is drawn as bright black (8), visible on the dark background; bold 7 on
    // 7 (dialog's frames) as white on grey.
    assert!(ink(1, "bold-black").contains(&theme.indexed(8)));
    assert!(ink(1, "frame").contains(&theme.indexed(15)));
    let plain = snap
        .render(&RenderOptions {
            bold_is_bright: false,
            ..RenderOptions::default()
        })
        .unwrap();
    let frame_col = col_of(&snap, "frame");
    let dull = pixels(&plain, &m, 1, frame_col..frame_col + 5);
    assert!(
        !dull.contains(&theme.indexed(15)),
        "bold_is_bright: false still brightened"
    );
}

#[test]
fn dim_and_inverse_draw_a_dimmed_bar_with_background_coloured_text_as_xterm_does() {
    let mut t = Terminal::new(20, 2).unwrap();
    t.process(b"\x1b[2;7mdim-rev\x1b[0m \x1b[7mrev\x1b[0m");
    let snap = t.snapshot();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let theme = Theme::dark();
    // The foreground dimmed towards the background, then swapped: the bar.
    let blend = |f: u8, b: u8| ((u16::from(f) * 155 + u16::from(b) * 100 + 127) / 255) as u8;
    let (f, b) = (theme.foreground, theme.background);
    let bar = Rgb(blend(f.0, b.0), blend(f.1, b.1), blend(f.2, b.2));
    let cells = |cols: std::ops::Range<u16>| pixels(&image, &m, 0, cols);
    let dim_rev = cells(0..7);
    let counts = |v: &[Rgb], c: Rgb| v.iter().filter(|p| **p == c).count();
    assert!(
        counts(&dim_rev, bar) > dim_rev.len() / 2,
        "the bar is the dimmed foreground {bar:?}"
    );
    assert!(dim_rev.contains(&b), "the text is in the background colour");
    // Plain inverse: a full-strength bar.
    let rev = cells(8..11);
    assert!(counts(&rev, f) > rev.len() / 2, "inverse alone is the foreground");
}

#[test]
fn dim_blends_any_colour_towards_its_own_background_before_inverse_as_xterm_does() {
    let mut t = Terminal::new(24, 3).unwrap();
    // Red on blue (16 colours), 208 on 17 (256), truecolor orange on the default, each
    // dim; then the truecolor one dim and inverse.
    t.process(
        b"\x1b[2;31;44mMMMM\x1b[0m \x1b[2;38;5;208;48;5;17mMMMM\x1b[0m \x1b[2;38;2;200;100;0mMMMM\x1b[0m\r\n\
          \x1b[2;7;38;2;200;100;0mMMMM\x1b[0m \x1b[7;38;2;200;100;0mMMMM\x1b[0m",
    );
    let snap = t.snapshot();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let theme = Theme::dark();
    let blend = |f: Rgb, b: Rgb| {
        let c = |f: u8, b: u8| ((u16::from(f) * 155 + u16::from(b) * 100 + 127) / 255) as u8;
        Rgb(c(f.0, b.0), c(f.1, b.1), c(f.2, b.2))
    };
    let orange = Rgb(200, 100, 0);
    let counts = |v: &[Rgb], c: Rgb| v.iter().filter(|p| **p == c).count();
    for (what, row, cols, fg, bg) in [
        ("red on blue", 0, 0..4, theme.indexed(1), theme.indexed(4)),
        ("208 on 17", 0, 5..9, theme.indexed(208), theme.indexed(17)),
        ("orange on the default", 0, 10..14, orange, theme.background),
    ] {
        let cells = pixels(&image, &m, row, cols);
        let dimmed = blend(fg, bg);
        // The letters (the most common colour after the background) are the blend.
        assert!(
            counts(&cells, dimmed) > 20,
            "{what}: no pixel in the dimmed {dimmed:?}"
        );
        assert_eq!(counts(&cells, fg), 0, "{what}: drawn at full strength");
        assert!(
            counts(&cells, bg) > cells.len() / 2,
            "{what}: the background is not dimmed"
        );
    }
    // Dim and inverse: the bar is the dimmed orange; plain inverse the full orange.
    let dim_rev = pixels(&image, &m, 1, 0..4);
    let bar = blend(orange, theme.background);
    assert!(counts(&dim_rev, bar) > dim_rev.len() / 2, "the bar is {bar:?}");
    let rev = pixels(&image, &m, 1, 5..9);
    assert!(counts(&rev, orange) > rev.len() / 2);
    tuipilot::render::compare::assert_png_matches(
        &image,
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/dim.png"),
        tuipilot::render::compare::Tolerance {
            channel: 8,
            max_share: 0.005,
        },
    )
    .unwrap();
}
