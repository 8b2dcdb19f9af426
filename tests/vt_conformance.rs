//! Terminal conformance: each control function where the engine's screen differed from
//! xterm's (found by running vttest against xterm 379, see the guide's fidelity chapter),
//! driven through a session as a program would send it and checked against what xterm
//! shows. Tests are named for the control function.

use tuipilot_testenv::needs;
mod common;

use std::time::Duration;

use tuipilot::render::{Metrics, RenderOptions};
use tuipilot::{Color, LineSize, Session, Snapshot};

/// A shell that prints `bytes` (a `printf` format) at 80×24 and then waits for input;
/// the screen once it does.
fn after_printf(format: &str) -> (Session, Snapshot) {
    let s = Session::builder("sh")
        .args(["-c", &format!("printf '{format}'; read x")])
        .size(80, 24)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let screen = s.wait(&tuipilot::Condition::Ready).unwrap();
    (s, screen)
}

/// The reply the session gave to the query spelled `query` (as the transcript spells it).
fn reply_to(s: &Session, query: &str) -> Option<String> {
    s.transcript()
        .into_iter()
        .find(|q| q.query == query)
        .and_then(|q| q.reply)
}

#[test]
fn decrc_restores_the_character_sets_decsc_saved() {
    // Saved with G0 as ASCII, restored after line drawing was selected: `abc` is letters.
    let (_s, screen) = after_printf(r"\0337\033(0lqk\0338abc");
    assert_eq!(screen.row(0), Some("abc"));
}

#[test]
fn decrc_restores_strikethrough_and_blink_decsc_saved() {
    let (_s, screen) = after_printf(r"\033[9;5m\0337\033[0m\0338x\033[0m");
    let style = screen.cell(0, 0).unwrap().style;
    assert!(style.strikethrough && style.blink, "{style:?}");
}

#[test]
fn rep_repeats_only_a_graphic_character_written_just_before() {
    let (_s, screen) = after_printf(r"+\033[3b\033[2;1H\033[3b|\033[3;1Hx\n\033[2b");
    // Right after `+`: three more. After a cursor move, nothing; after a line feed, nothing.
    assert_eq!(screen.row(0), Some("++++"));
    assert_eq!(screen.row(1), Some("|"));
    assert_eq!(screen.row(2), Some("x"));
    assert_eq!(screen.row(3), Some(""));
}

#[test]
fn dsr_printer_keyboard_and_key_status_answer_as_a_vt220() {
    let (s, _) = after_printf(r"\033[?15n\033[?25n\033[?26n");
    assert_eq!(reply_to(&s, "ESC[?15n").as_deref(), Some("ESC[?13n"));
    assert_eq!(reply_to(&s, "ESC[?25n").as_deref(), Some("ESC[?20n"));
    assert_eq!(reply_to(&s, "ESC[?26n").as_deref(), Some("ESC[?27;1n"));
}

#[test]
fn cpr_counts_rows_from_the_top_margin_in_origin_mode() {
    let (s, _) = after_printf(r"\033[5;10r\033[?6h\033[2;3H\033[6n\033[?6l\033[2;3H\033[6n");
    let replies: Vec<Option<String>> = s
        .transcript()
        .into_iter()
        .filter(|q| q.query == "ESC[6n")
        .map(|q| q.reply)
        .collect();
    // In origin mode row 2 of the region is screen row 6; outside it, row 2 is row 2.
    assert_eq!(
        replies,
        [Some("ESC[2;3R".to_string()), Some("ESC[2;3R".to_string())]
    );
    let (s, screen) = after_printf(r"\033[5;10r\033[?6h\033[2;3H*\033[?6$p");
    assert_eq!(screen.find(r"\*").unwrap()[0].row, 5);
    assert_eq!(reply_to(&s, "ESC[?6$p").as_deref(), Some("ESC[?6;1$y"));
}

#[test]
fn decstbm_puts_the_cursor_home_outside_origin_mode() {
    // vt100 put it at the top margin (row 5).
    let (_s, screen) = after_printf(r"abc\033[5;10rX");
    assert_eq!(screen.row(0), Some("Xbc"));
    assert_eq!(screen.row(4), Some(""));
}

#[test]
fn il_and_dl_leave_the_cursor_in_column_1_inside_the_margins() {
    let (_s, screen) = after_printf(r"abc\033[1;5H\033[L*");
    assert_eq!((screen.row(0), screen.row(1)), (Some("*"), Some("abc")));
    let (_s, screen) = after_printf(r"abc\r\ndef\033[1;3H\033[M*");
    assert_eq!(screen.row(0), Some("*ef"));
    // Outside the margins IL does nothing, and the cursor stays where it was.
    let (_s, screen) = after_printf(r"\033[2;3r\033[5;4H\033[L*");
    assert_eq!(screen.row(4), Some("   *"));
}

#[test]
fn decaln_fills_the_screen_with_e_and_resets_margins_origin_and_attributes() {
    let (_s, screen) = after_printf(r"\033[31m\033[5;10r\033[?6h\033#8\033[3;3H\033[1J");
    // Origin mode and the margins are gone: row 3 column 3 is the screen's own.
    assert_eq!(screen.row(0), Some(""));
    assert_eq!(screen.row(1), Some(""));
    assert_eq!(screen.row(2), Some(&*format!("   {}", "E".repeat(77))));
    for row in 3..24 {
        assert_eq!(screen.row(row), Some(&*"E".repeat(80)), "row {row}");
    }
    assert_eq!(screen.cell(23, 79).unwrap().style.fg, tuipilot::Color::Default);
}

#[test]
fn cbt_moves_back_to_the_previous_tab_stop() {
    let (_s, screen) = after_printf(r"\033[1;20Hx\033[Zy\033[2;20H\033[2Zz");
    assert_eq!(screen.row(0), Some(&*format!("{}y  x", " ".repeat(16))));
    assert_eq!(screen.row(1), Some(&*format!("{}z", " ".repeat(8))));
}

#[test]
fn cht_moves_forward_over_tab_stops() {
    let (_s, screen) = after_printf(r"\033[2Ix");
    assert_eq!(screen.find("x").unwrap()[0].col, 16);
}

#[test]
fn hts_and_tbc_set_and_clear_the_stops_ht_uses() {
    // All stops cleared, one set at column 5: a tab from column 1 lands there.
    let (_s, screen) = after_printf(r"\033[3g\033[1;5H\033H\r\tA\r\n\tB\tC");
    assert_eq!(screen.row(0), Some("    A"));
    // From column 5 on there is no stop: to the last column (C overwrites B there).
    assert_eq!(screen.find("C").unwrap()[0].col, 79);
    // TBC 0 clears the stop under the cursor; the default ones come back with RIS.
    let (_s, screen) = after_printf(r"\033[1;9H\033[g\r\tA");
    assert_eq!(screen.find("A").unwrap()[0].col, 16);
    let (_s, screen) = after_printf(r"\033[3g\033c\tB");
    assert_eq!(screen.find("B").unwrap()[0].col, 8);
}

#[needs(tabs)]
#[test]
fn tabs_4_sets_stops_every_four_columns_for_the_programs_after_it() {
    let s = Session::builder("sh")
        .args([
            "-c",
            "TERM=xterm-256color tabs -4 && printf 'a\\tb\\tc\\n'; read x",
        ])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    let screen = s.wait_for_text("^a   b   c$").unwrap();
    assert_eq!(screen.find("c").unwrap()[0].col, 8);
}

#[test]
fn bs_after_a_character_in_the_last_column_moves_to_the_column_before_it() {
    let (_s, screen) = after_printf(r"\033[1;80HA\bBC");
    assert_eq!(screen.row(0), Some(&*format!("{}BC", " ".repeat(78))));
    assert_eq!(screen.row(1), Some(""));
}

/// Whether every cell of `row` has the background `bg`.
fn row_background_is(screen: &Snapshot, row: u16, bg: Color) -> bool {
    (0..80).all(|col| screen.cell(row, col).unwrap().style.bg == bg)
}

const BLUE: Color = Color::Indexed(4);

#[test]
fn bce_colours_the_lines_a_line_feed_scrolls_in_text_cells_and_picture() {
    let (_s, screen) = after_printf(r"\033[44m\033[2J\033[0mfirst\033[44m\033[24H\n\n\033[0m");
    // The two line feeds scrolled: `first` is gone, two blue lines came in.
    assert!(screen.find("first").unwrap().is_empty());
    for row in 0..24 {
        assert!(row_background_is(&screen, row, BLUE), "row {row}");
    }
    // And in the picture: the last row is painted the palette's blue.
    let options = RenderOptions::default();
    let image = screen.render(&options).unwrap();
    let m = Metrics::of(&options);
    let y = m.padding + 23 * m.cell_height + m.cell_height / 2;
    assert_eq!(
        image.pixel(m.padding + 40 * m.cell_width, y),
        Some(options.theme.indexed(4))
    );
}

#[test]
fn bce_colours_what_ind_nel_ri_su_and_sd_scroll_in_and_nothing_else() {
    let (_s, screen) = after_printf(r"\033[24H\033[44m\033D\033E\033[0m");
    assert!(row_background_is(&screen, 23, BLUE));
    assert!(!row_background_is(&screen, 21, BLUE));
    let (_s, screen) = after_printf(r"\033[44m\033M\033[2S\033[0m");
    // RI at the top brought in row 0 (then SU moved it up and away); SU brought in 22-23.
    assert!(row_background_is(&screen, 22, BLUE) && row_background_is(&screen, 23, BLUE));
    assert!(!row_background_is(&screen, 0, BLUE) && !row_background_is(&screen, 21, BLUE));
    let (_s, screen) = after_printf(r"x\033[44m\033[T\033[0m");
    assert!(row_background_is(&screen, 0, BLUE));
    assert_eq!(screen.row(1), Some("x"));
    // Inside a scrolling region only the region's new line.
    let (_s, screen) = after_printf(r"\033[5;10r\033[44m\033[10;1H\n\033[0m");
    assert!(row_background_is(&screen, 9, BLUE));
    assert!(!row_background_is(&screen, 10, BLUE) && !row_background_is(&screen, 8, BLUE));
}

#[test]
fn bce_colours_the_lines_il_and_dl_bring_in() {
    let (_s, screen) = after_printf(r"a\r\nb\r\nc\033[44m\033[2;1H\033[L\033[0m");
    assert!(row_background_is(&screen, 1, BLUE));
    assert_eq!((screen.row(0), screen.row(2)), (Some("a"), Some("b")));
    assert!(!row_background_is(&screen, 2, BLUE));
    let (_s, screen) = after_printf(r"a\r\nb\r\nc\033[44m\033[1;1H\033[M\033[0m");
    assert_eq!((screen.row(0), screen.row(1)), (Some("b"), Some("c")));
    assert!(row_background_is(&screen, 23, BLUE));
    assert!(!row_background_is(&screen, 22, BLUE));
}

#[test]
fn bce_colours_the_cells_ich_and_dch_bring_in() {
    let (_s, screen) = after_printf(r"abc\033[44m\033[1;2H\033[2@\033[0m");
    assert_eq!(screen.row(0), Some("a  bc"));
    let bgs: Vec<Color> = (0..5).map(|c| screen.cell(0, c).unwrap().style.bg).collect();
    assert_eq!(bgs, [Color::Default, BLUE, BLUE, Color::Default, Color::Default]);
    let (_s, screen) = after_printf(r"abcdef\033[44m\033[1;2H\033[2P\033[0mX");
    // The cursor stayed where DCH left it.
    assert_eq!(screen.row(0), Some("aXef"));
    let bg = |c: u16| screen.cell(0, c).unwrap().style.bg;
    assert_eq!((bg(77), bg(78), bg(79)), (Color::Default, BLUE, BLUE));
}

#[needs(vim)]
#[test]
fn bce_keeps_a_vim_colour_scheme_s_background_when_vim_scrolls() {
    let dir = common::TempDir::new("vim-bce");
    let file = dir.0.join("lines.txt");
    let text: String = (1..=200).map(|n| format!("line {n}\n")).collect();
    std::fs::write(&file, text).unwrap();
    let s = Session::builder("vim")
        .args(["-u", "NONE", "-i", "NONE", "-N", "-n"])
        .args(["-c", "hi Normal ctermbg=4 ctermfg=7"])
        .arg(&file)
        .env("TERM", "xterm-256color")
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("^line 1 *$").unwrap();
    // Scroll a line at a time: vim scrolls the screen and draws only the line it brought in.
    for _ in 0..5 {
        s.press("C-e").unwrap();
    }
    let screen = s.wait_for_text("^line 6 *$").unwrap();
    let screen = s.wait(&tuipilot::Condition::Ready).map_or(screen, |ready| ready);
    // Every text row is blue to its end, the rows scrolled in included.
    for row in 0..22 {
        assert!(
            row_background_is(&screen, row, BLUE),
            "row {row}: {:?}",
            screen.row(row)
        );
    }
}

#[test]
fn decscnm_shows_the_whole_screen_in_reverse_video_in_pictures() {
    let (_s, screen) = after_printf(r"x\033[?5h");
    assert!(screen.reverse_screen());
    assert_eq!(screen.row(0), Some("x"), "the text is the same");
    let (s, _) = after_printf(r"\033[?5h\033[?5$p");
    assert_eq!(reply_to(&s, "ESC[?5$p").as_deref(), Some("ESC[?5;1$y"));
    // A blank cell is painted in the theme's foreground: the whole screen is light.
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let image = screen.render(&options).unwrap();
    let (x, y) = (
        m.padding + 40 * m.cell_width + 1,
        m.padding + 12 * m.cell_height + 1,
    );
    assert_eq!(image.pixel(x, y), Some(options.theme.foreground));
    let svg = screen.to_svg(&options, tuipilot::render::SvgFrame::None).unwrap();
    let light = format!(
        "{:02x}{:02x}{:02x}",
        options.theme.foreground.0, options.theme.foreground.1, options.theme.foreground.2
    );
    assert!(
        svg.to_lowercase().contains(&light),
        "the SVG's background is the light one"
    );
    // Reset, the screen is dark again.
    let (_s, screen) = after_printf(r"x\033[?5h\033[?5l");
    assert!(!screen.reverse_screen());
    let image = screen.render(&options).unwrap();
    assert_eq!(image.pixel(x, y), Some(options.theme.background));
}

#[test]
fn lnm_returns_the_carriage_on_line_feeds_and_makes_return_send_cr_lf() {
    // VT, not LF: the terminal driver already turns a program's LF into CR LF (onlcr).
    let (_s, screen) = after_printf(r"\033[20hab\013cd\033[20lef\013gh");
    assert_eq!(screen.row(0), Some("ab"));
    assert_eq!(screen.row(1), Some("cdef"));
    assert_eq!(screen.row(2), Some("    gh"));
    let keyecho = common::fixture("keyecho");
    let s = Session::builder("sh")
        .args(["-c", &format!("printf '\\033[20h'; exec {}", keyecho.display())])
        .size(120, 24)
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("ready").unwrap();
    assert_eq!(
        common::received_hex(&s, &tuipilot::Input::keys("Enter").unwrap()),
        "0d 0a"
    );
}

#[test]
fn decdwl_and_decdhl_are_kept_per_row_and_move_with_the_rows() {
    let (_s, screen) = after_printf(r"\033#6wide\r\n\033#3tall\r\n\033#4tall\r\nplain");
    let sizes: Vec<LineSize> = (0..4).map(|r| screen.line_size(r)).collect();
    assert_eq!(
        sizes,
        [
            LineSize::DoubleWidth,
            LineSize::DoubleTop,
            LineSize::DoubleBottom,
            LineSize::Single
        ]
    );
    // The text keeps one character a cell, as xterm's does.
    assert_eq!((screen.row(0), screen.row(3)), (Some("wide"), Some("plain")));
    // A line feed at the bottom scrolls the sizes with the rows; IL moves them down; a
    // clear makes every row single again.
    let (_s, screen) = after_printf(r"\033[2H\033#6x\033[24H\n");
    assert_eq!(
        (screen.line_size(0), screen.line_size(1)),
        (LineSize::DoubleWidth, LineSize::Single)
    );
    let (_s, screen) = after_printf(r"\033#6x\033[H\033[2L");
    assert_eq!(
        (screen.line_size(0), screen.line_size(2)),
        (LineSize::Single, LineSize::DoubleWidth)
    );
    let (_s, screen) = after_printf(r"\033#6x\033[2J");
    assert_eq!(screen.line_size(0), LineSize::Single);
}

#[test]
fn decdwl_and_decdhl_rows_are_drawn_double_in_the_png_and_the_svg() {
    // A full block, an upper half block twice as tall (top, then bottom half), and a
    // single-size full block for comparison.
    // (The cursor hidden, so that it is not the cell after the last block.)
    let (_s, screen) = after_printf(r"\033[?25l\033#6█\r\n\033#3▀\r\n\033#4▀\r\n█");
    let options = RenderOptions::default();
    let m = Metrics::of(&options);
    let image = screen.render(&options).unwrap();
    let fg = options.theme.foreground;
    let bg = options.theme.background;
    let at = |row: u32, col: u32, down: u32| {
        image.pixel(
            m.padding + col * m.cell_width + m.cell_width / 2,
            m.padding + row * m.cell_height + down,
        )
    };
    let middle = m.cell_height / 2;
    // Double width: the block covers the second cell too; single size it does not.
    assert_eq!(at(0, 1, middle), Some(fg));
    assert_eq!(at(3, 1, middle), Some(bg));
    // The top half of a doubled upper half block fills the row; its bottom half is empty.
    assert_eq!(at(1, 1, m.cell_height - 2), Some(fg));
    assert_eq!(at(2, 0, middle), Some(bg));
    let svg = screen.to_svg(&options, tuipilot::render::SvgFrame::None).unwrap();
    // Each double row's text is drawn in a viewport of the row, scaled.
    assert_eq!(svg.matches(r#"overflow="hidden""#).count(), 3, "{svg}");
    assert!(svg.contains("<g transform=\"matrix(2 0 0 1 "), "{svg}");
    assert!(svg.contains("<g transform=\"matrix(2 0 0 2 "), "{svg}");
}

#[test]
fn hpr_and_vpr_move_right_and_down_as_cuf_and_cud() {
    let (_s, screen) = after_printf(r"a\033[3ab\033[2ec");
    assert_eq!(screen.row(0), Some("a   b"));
    assert_eq!(screen.row(2), Some(&*format!("{}c", " ".repeat(5))));
}
