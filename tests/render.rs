//! The rasteriser: golden images, exact pixels at cell joins, determinism, sizes,
//! real programs' highlighted rows, and bad input. Regenerate goldens with
//! `TUIPILOT_UPDATE=1 cargo test --test render` and look at them before committing.

use tuipilot_testenv::needs;
mod common;

use std::path::PathBuf;

use tuipilot::render::compare::{
    Tolerance, assert_png_matches, assert_screen_matches, compare_png_or_update, load_png,
};
use tuipilot::render::{Metrics, RenderOptions};
use tuipilot::{Rgb, Session, Snapshot, Terminal, Theme};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// The colour a cell's background should be painted in.
fn painted_bg(snap: &Snapshot, row: u16, col: u16, theme: &Theme) -> Rgb {
    let style = snap.style_at(row, col).unwrap();
    let resolve = |c: tuipilot::Color, default: Rgb| match c {
        tuipilot::Color::Indexed(i) => theme.indexed(i),
        tuipilot::Color::Rgb(r, g, b) => Rgb(r, g, b),
        tuipilot::Color::Default => default,
    };
    if style.inverse {
        resolve(style.fg, theme.foreground)
    } else {
        resolve(style.bg, theme.background)
    }
}

fn screen(cols: u16, rows: u16, bytes: &[u8]) -> Snapshot {
    let mut t = Terminal::new(cols, rows).unwrap();
    t.process(bytes);
    t.snapshot()
}

const SHEET: &str = concat!(
    "\x1b[?25l",
    "┌─┬─┐╔═╦═╗┏━┳━┓╭─╮\r\n",
    "│a│b│║a║b║┃a┃b┃│c│\r\n",
    "├─┼─┤╠═╬═╣┣━╋━┫╰─╯\r\n",
    "└─┴─┘╚═╩═╝┗━┻━┛╱╲╳\r\n",
    "▀▄█▌▐░▒▓▖▗▘▝▚▞▙▟\r\n",
    "⠁⠂⠄⡀⠈⠐⠠⢀⣿⡇⢸ ┄┈╌┆\r\n",
    "\x1b[32m\u{e0b0}\x1b[42;30m ok \x1b[0;32m\u{e0b2}\x1b[0m ╴╶╵╷",
);

#[test]
fn box_drawing_and_braille_sheet() {
    let snap = screen(20, 7, SHEET.as_bytes());
    let image = snap.render(&RenderOptions::default()).unwrap();
    assert_png_matches(&image, golden("sheet.png"), Tolerance::EXACT).unwrap();
}

#[test]
fn vertical_lines_continue_across_rows_without_gaps() {
    let snap = screen(20, 7, SHEET.as_bytes());
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let fg = Theme::dark().foreground;
    let (pad, cw, ch) = (m.padding, m.cell_width, m.cell_height);
    // Column 0 holds ┌ │ ├ └ in rows 0-3: the vertical stroke through its centre must be
    // unbroken from the middle of row 0 to the middle of row 3.
    let x = pad + cw / 2;
    for y in (pad + ch / 2)..(pad + 3 * ch + ch / 2) {
        assert_eq!(image.pixel(x, y), Some(fg), "gap in the vertical line at y={y}");
    }
    // Row 0 columns 0-4 hold ┌─┬─┐: the horizontal stroke is unbroken across the joins.
    let y = pad + ch / 2;
    for x in (pad + cw / 2)..(pad + 4 * cw + cw / 2) {
        assert_eq!(image.pixel(x, y), Some(fg), "gap in the horizontal line at x={x}");
    }
    // A full block fills its cell exactly, edge to edge.
    let (bx, by) = (pad + 2 * cw, pad + 4 * ch);
    for (x, y) in [
        (bx, by),
        (bx + cw - 1, by),
        (bx, by + ch - 1),
        (bx + cw - 1, by + ch - 1),
    ] {
        assert_eq!(image.pixel(x, y), Some(fg), "█ corner at ({x},{y})");
    }
    assert_ne!(
        image.pixel(bx - 1, by),
        Some(fg),
        "▄ left of █ leaves its top half empty"
    );
}

#[test]
fn colour_and_attribute_chart() {
    let s = common::fixture_session("colors").spawn().unwrap();
    s.wait_exit().unwrap();
    let snap = s.snapshot();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    assert_png_matches(&image, golden("colors.png"), Tolerance::EXACT).unwrap();
    // Each of the 16 background cells shows its palette colour at its centre-left edge.
    let m = Metrics::of(&options);
    for i in 0..16u32 {
        let x = m.padding + i * m.cell_width;
        assert_eq!(
            image.pixel(x, m.padding + 1),
            Some(options.theme.indexed(i as u8)),
            "colour {i}"
        );
    }
    // The truecolor gradient's first and last cells.
    let y = m.padding + 3 * m.cell_height + 1;
    assert_eq!(image.pixel(m.padding, y), Some(Rgb(0, 0, 255)));
    assert_eq!(
        image.pixel(m.padding + 15 * m.cell_width, y),
        Some(Rgb(255, 0, 0))
    );
}

#[test]
fn light_theme() {
    let s = common::fixture_session("colors").spawn().unwrap();
    s.wait_exit().unwrap();
    let options = RenderOptions::default().with_theme("light").unwrap();
    let image = s.snapshot().render(&options).unwrap();
    assert_eq!(image.pixel(0, 0), Some(Theme::light().background));
    assert_png_matches(&image, golden("colors-light.png"), Tolerance::EXACT).unwrap();
}

#[test]
fn scale_two_doubles_everything() {
    let snap = screen(20, 7, SHEET.as_bytes());
    let one = snap.render(&RenderOptions::default()).unwrap();
    let two = snap
        .render(&RenderOptions {
            scale: 2,
            ..RenderOptions::default()
        })
        .unwrap();
    assert_eq!((two.width, two.height), (2 * one.width, 2 * one.height));
    assert_png_matches(&two, golden("sheet-scale2.png"), Tolerance::EXACT).unwrap();
}

#[test]
fn wide_characters_without_a_font_are_boxes_over_both_cells() {
    let snap = screen(12, 2, "a日本b".as_bytes());
    // Without the system's fonts nothing has 日 (a machine with a CJK font would draw it).
    let options = RenderOptions {
        system_fonts: false,
        ..RenderOptions::default()
    };
    let image = snap.render(&options).unwrap();
    assert_png_matches(&image, golden("wide.png"), Tolerance::EXACT).unwrap();
    let m = Metrics::of(&options);
    let fg = Theme::dark().foreground;
    // 日 covers columns 1-2: its box's top edge runs across both, its right edge is in
    // column 2, and `b` starts at column 5.
    let top = m.padding + 2;
    assert_eq!(image.pixel(m.padding + m.cell_width + 1, top), Some(fg));
    assert_eq!(image.pixel(m.padding + 3 * m.cell_width - 2, top), Some(fg));
    assert_eq!(snap.find("b").unwrap()[0].col, 5);
}

#[test]
fn cursor_styles_and_a_hidden_cursor() {
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let cursor = Theme::dark().cursor;
    let bg = Theme::dark().background;
    let (x, y) = (m.padding + 2 * m.cell_width, m.padding);
    let shapes: [(&str, &str, (u32, u32), bool); 4] = [
        ("block", "\x1b[2 q", (m.cell_width / 2, m.cell_height / 2), true),
        (
            "underline",
            "\x1b[4 q",
            (m.cell_width / 2, m.cell_height - 1),
            true,
        ),
        ("bar", "\x1b[6 q", (0, m.cell_height / 2), true),
        (
            "hidden",
            "\x1b[?25l",
            (m.cell_width / 2, m.cell_height / 2),
            false,
        ),
    ];
    for (name, seq, (dx, dy), shown) in shapes {
        let snap = screen(10, 2, format!("{seq}ab").as_bytes());
        let image = snap.render(&options).unwrap();
        let expected = if shown { cursor } else { bg };
        assert_eq!(image.pixel(x + dx, y + dy), Some(expected), "{name} cursor");
        assert_png_matches(&image, golden(&format!("cursor-{name}.png")), Tolerance::EXACT).unwrap();
    }
    // A cursor parked past the last column (pending wrap) is drawn in the last cell.
    let snap = screen(10, 2, b"0123456789");
    let image = snap.render(&options).unwrap();
    let last = m.padding + 9 * m.cell_width + m.cell_width / 2;
    assert_eq!(image.pixel(last, m.padding + 1), Some(cursor));
}

#[test]
fn rendering_is_deterministic_and_sized_by_the_grid() {
    let snap = screen(80, 24, SHEET.as_bytes());
    let options = RenderOptions::default();
    let a = snap.to_png(&options).unwrap();
    let b = snap.to_png(&options).unwrap();
    assert_eq!(a, b, "same snapshot, same bytes");
    let dir = common::TempDir::new("png");
    let path = dir.0.join("s.png");
    let (w, h) = snap.save_png(&path, &options).unwrap();
    let m = Metrics::of(&options);
    assert_eq!(
        (w, h),
        (
            80 * m.cell_width + 2 * m.padding,
            24 * m.cell_height + 2 * m.padding
        )
    );
    assert_eq!((m.cell_width, m.cell_height), (10, 19));
    let decoded = load_png(&path).unwrap();
    assert_eq!((decoded.width, decoded.height), (w, h));
    assert_eq!(decoded, snap.render(&options).unwrap());
}

#[needs(dialog)]
#[test]
fn dialog_highlighted_item_is_drawn_in_its_colours() {
    let s = Session::builder("dialog")
        .args(common::DIALOG_MENU)
        .spawn()
        .unwrap();
    s.wait_for_text("Pick a fruit").unwrap();
    let snap = s
        .send_and_wait(
            &tuipilot::Input::keys("Down").unwrap(),
            &tuipilot::Condition::stable(std::time::Duration::from_millis(200)),
        )
        .unwrap();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let at = |row: u16, col: u16| {
        image
            .pixel(
                m.padding + u32::from(col) * m.cell_width + 1,
                m.padding + u32::from(row) * m.cell_height + 1,
            )
            .unwrap()
    };
    let selected = &snap.find("Bananas").unwrap()[0];
    let other = &snap.find("Cherries").unwrap()[0];
    let expected = painted_bg(&snap, selected.row, selected.col, &options.theme);
    assert_eq!(
        at(selected.row, selected.col),
        expected,
        "highlighted row background"
    );
    assert_ne!(
        at(selected.row, selected.col),
        at(other.row, other.col),
        "other rows are not highlighted"
    );
}

#[test]
fn vim_visual_selection_is_drawn_inverted() {
    let dir = common::TempDir::new("vim-png");
    let file = dir.0.join("t.txt");
    std::fs::write(&file, "first line\nsecond line\nthird line\n").unwrap();
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n"])
        .arg(&file)
        .spawn()
        .unwrap();
    s.wait_for_text("t.txt").unwrap();
    s.send_text("jV").unwrap();
    s.wait_for_text("-- VISUAL LINE --").unwrap();
    let snap = s.snapshot();
    let options = RenderOptions::default();
    let image = snap.render(&options).unwrap();
    let m = Metrics::of(&options);
    let theme = &options.theme;
    // Row 1 ("second line") is selected and drawn in the Visual highlight; row 2 is not.
    let px = |row: u32, col: u32| {
        image
            .pixel(
                m.padding + col * m.cell_width,
                m.padding + row * m.cell_height + 1,
            )
            .unwrap()
    };
    let selected = painted_bg(&snap, 1, 3, theme);
    assert_ne!(selected, theme.background, "vim highlights the selection");
    assert_eq!(px(1, 3), selected, "selected row");
    assert_eq!(px(2, 3), theme.background, "unselected row");
    s.send_text("\x1b:q!\r").unwrap();
}

#[test]
fn comparison_reports_and_writes_a_diff() {
    let dir = common::TempDir::new("compare");
    let golden_path = dir.0.join("g.png");
    let a = screen(12, 2, b"hello").render(&RenderOptions::default()).unwrap();
    let b = screen(12, 2, b"hellO").render(&RenderOptions::default()).unwrap();
    let err = compare_png_or_update(&a, &golden_path, Tolerance::EXACT, false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("does not exist: run the test with TUIPILOT_UPDATE=1"),
        "{err}"
    );
    a.save_png(&golden_path, tuipilot::render::PngCompression::Small)
        .unwrap();
    compare_png_or_update(&a, &golden_path, Tolerance::EXACT, false).unwrap();
    let err = compare_png_or_update(&b, &golden_path, Tolerance::EXACT, false)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pixels") && err.contains("g.actual.png") && err.contains("g.diff.png"),
        "{err}"
    );
    assert!(dir.0.join("g.actual.png").exists() && dir.0.join("g.diff.png").exists());
    let diff = load_png(dir.0.join("g.diff.png")).unwrap();
    assert!(
        diff.pixels.chunks_exact(4).any(|p| p == [255, 0, 0, 255]),
        "differences are red"
    );
    // A loose tolerance accepts the small change.
    compare_png_or_update(
        &b,
        &golden_path,
        Tolerance {
            channel: 0,
            max_share: 0.05,
        },
        false,
    )
    .unwrap();
}

#[test]
fn bad_render_inputs_are_clear_errors() {
    let snap = screen(10, 2, b"x");
    let dir = common::TempDir::new("bad-render");
    let not_font = dir.0.join("fake.ttf");
    std::fs::write(&not_font, b"this is not a font").unwrap();
    let err = snap
        .render(&RenderOptions::default().with_font(&not_font))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(not_font.to_str().unwrap()) && err.contains("not a TrueType/OpenType font"),
        "{err}"
    );
    let err = RenderOptions::default()
        .with_theme("neon")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "unknown theme `neon`: use one of dark, light, Dracula, Nord, Catppuccin Mocha, or a theme in VHS's JSON form with #rrggbb colours"
    );
    let missing = dir.0.join("no/such/dir/out.png");
    let err = snap
        .save_png(&missing, &RenderOptions::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("does not exist"), "{err}");
    assert!(
        std::fs::read_dir(&dir.0).unwrap().count() == 1,
        "nothing half-written"
    );
}

#[test]
fn an_image_over_the_pixel_budget_is_refused_before_anything_is_allocated() {
    let snapshot = Terminal::new(1000, 1000).unwrap().snapshot();
    let huge = RenderOptions {
        font_size: 128.0,
        scale: 4,
        ..RenderOptions::default()
    };
    let started = std::time::Instant::now();
    let err = snapshot.render(&huge).unwrap_err();
    assert_eq!(err.kind(), tuipilot::ErrorKind::BadInput);
    assert!(
        err.to_string().contains("over the limit of 64 megapixels"),
        "{err}"
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "it tried to draw"
    );
    // The largest screen MCP allows fits at the default size.
    let (w, h) = tuipilot::render::image_size(400, 200, &RenderOptions::default()).unwrap();
    assert!(u64::from(w) * u64::from(h) <= tuipilot::render::MAX_PIXELS);
}

#[test]
fn a_masked_clock_renders_the_same_at_any_time() {
    let at = |clock: &str| {
        screen(
            40,
            3,
            format!("\x1b[1;32mbuild ok\x1b[0m  {clock}  \x1b[7m漢字\x1b[0m|").as_bytes(),
        )
    };
    let (morning, evening) = (at("09:15:02"), at("23:59:59"));
    assert_ne!(morning.text(), evening.text());
    let clock = r"\d\d:\d\d:\d\d";
    let (morning, evening) = (morning.masked(clock).unwrap(), evening.masked(clock).unwrap());
    // Same text, same columns: the mask keeps every character's width.
    assert_eq!(morning.row(0), Some("build ok  ********  漢字|"));
    assert_eq!(morning.text(), evening.text());
    let options = RenderOptions::default();
    assert_eq!(
        morning.render(&options).unwrap().pixels,
        evening.render(&options).unwrap().pixels,
        "a masked clock changed the image"
    );
    // A wide character masked is two mask cells: nothing after it moves.
    let wide = at("09:15:02").masked_all(&[clock, "漢"]).unwrap();
    assert_eq!(wide.row(0), Some("build ok  ********  **字|"));
    assert!(at("x").masked("(").is_err());
}

#[test]
fn a_screen_that_no_longer_matches_its_golden_says_which_rows_of_text_changed() {
    let dir = std::env::temp_dir().join(format!("tuipilot-golden-text-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let golden_path = dir.join("menu.png");
    let before = screen(20, 3, b"Open\r\nSave\r\nQuit");
    let options = RenderOptions::default();
    compare_png_or_update(
        &before.render(&options).unwrap(),
        &golden_path,
        Tolerance::EXACT,
        true,
    )
    .unwrap();
    // Without the golden's text, the report says how to get it.
    let after = screen(20, 3, b"Open\r\nSave as\r\nQuit");
    let err = assert_screen_matches(&after, &options, &golden_path, Tolerance::EXACT).unwrap_err();
    assert!(err.to_string().contains("menu.txt beside the golden"), "{err}");
    std::fs::write(dir.join("menu.txt"), format!("{}\n", before.text())).unwrap();
    let err = assert_screen_matches(&after, &options, &golden_path, Tolerance::EXACT).unwrap_err();
    let report = err.to_string();
    assert!(report.contains("pixels"), "{report}");
    assert!(
        report.contains("the text, golden (-) and this screen (+):\n   1 - Save\n   1 + Save as"),
        "{report}"
    );
    assert!(assert_screen_matches(&before, &options, &golden_path, Tolerance::EXACT).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}
