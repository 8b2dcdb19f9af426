//! Byte-level tests of the layer and the responder.

use super::*;

fn term() -> Terminal {
    Terminal::new(20, 5).unwrap()
}

fn screen_after(bytes: &[u8]) -> Vec<String> {
    let mut t = term();
    t.process(bytes);
    t.snapshot().rows().to_vec()
}

/// Feeding the stream one byte at a time must give the same screen and replies as
/// feeding it whole: sequences split across reads are common.
fn same_when_split(bytes: &[u8]) -> (Vec<String>, Vec<u8>) {
    let mut whole = term();
    whole.process(bytes);
    let mut split = term();
    for b in bytes {
        split.process(std::slice::from_ref(b));
    }
    assert_eq!(whole.snapshot(), split.snapshot(), "screens differ for {bytes:?}");
    let replies = whole.take_replies();
    assert_eq!(replies, split.take_replies(), "replies differ for {bytes:?}");
    (whole.snapshot().rows().to_vec(), replies)
}

#[test]
fn dec_special_graphics_become_box_drawing() {
    let rows = screen_after(b"\x1b(0lqqk\x1b(B\r\nx\x1b(0x\x1b(Bx\r\n\x1b(0mqqj\x1b(B ok");
    assert_eq!(rows[0], "┌──┐");
    assert_eq!(rows[1], "x│x");
    assert_eq!(rows[2], "└──┘ ok");
}

#[test]
fn shift_out_selects_g1_graphics() {
    let rows = screen_after(b"\x1b)0a\x0elqk\x0fb");
    assert_eq!(rows[0], "a┌─┐b");
    same_when_split(b"\x1b)0a\x0elqk\x0fb");
}

#[test]
fn underline_colour_does_not_turn_into_bold_or_reset() {
    let mut t = term();
    // 58;5;1 would otherwise read as "5" (blink) and "1" (bold); 58;2;0;0;0 as reset.
    t.process(b"\x1b[31m\x1b[4;58;5;1mA\x1b[58;2;0;0;0mB");
    let snap = t.snapshot();
    for col in 0..2 {
        let style = snap.style_at(0, col).unwrap();
        assert!(!style.bold, "col {col} became bold");
        assert!(style.underline, "col {col} lost underline");
        assert_eq!(style.fg, crate::Color::Indexed(1), "col {col} lost its colour");
    }
}

#[test]
fn insert_mode_shifts_text_right() {
    let rows = screen_after(b"world\r\x1b[4hhello \x1b[4l!");
    assert_eq!(rows[0], "hello !orld");
    same_when_split(b"world\r\x1b[4hhello \x1b[4l!");
}

#[test]
fn autowrap_off_overwrites_the_last_column() {
    let rows = screen_after(b"\x1b[?7l0123456789abcdefghijXYZ\r\nnext");
    assert_eq!(rows[0], "0123456789abcdefghiZ");
    assert_eq!(rows[1], "next");
    let rows = screen_after(b"0123456789abcdefghijXYZ");
    assert_eq!(rows[1], "XYZ", "autowrap on by default");
    same_when_split(b"\x1b[?7l0123456789abcdefghijXYZ\r\n\x1b[?7hnext");
}

#[test]
fn save_and_restore_cursor_with_csi_s_u() {
    let rows = screen_after(b"ab\x1b[s\r\nxyz\x1b[uC");
    assert_eq!(rows[0], "abC");
    assert_eq!(rows[1], "xyz");
}

#[test]
fn index_and_next_line() {
    let rows = screen_after(b"ab\x1bDc\x1bEd");
    assert_eq!(rows[0], "ab");
    assert_eq!(rows[1], "  c");
    assert_eq!(rows[2], "d");
}

#[test]
fn mode_1047_and_1048() {
    let mut t = term();
    t.process(b"main\x1b[?1048h\x1b[?1047halt\x1b[?1047l\x1b[?1048lX");
    assert_eq!(t.snapshot().row(0), Some("mainX"));
    assert!(!t.snapshot().alternate_screen());
    t.process(b"\x1b[?1047h");
    assert!(t.snapshot().alternate_screen());
    assert_eq!(t.snapshot().row(0), Some(""), "the alternate screen starts clear");
}

#[test]
fn cursor_position_reports_the_position_at_the_query() {
    let (_, replies) = same_when_split(b"\x1b[3;7H\x1b[6nmore text");
    assert_eq!(replies, b"\x1b[3;7R");
    let (_, replies) = same_when_split(b"\x1b[2;4H\x1b[?6n");
    assert_eq!(replies, b"\x1b[?2;4;1R");
}

#[test]
fn cursor_position_is_clamped_at_pending_wrap() {
    let (_, replies) = same_when_split(b"01234567890123456789\x1b[6n");
    assert_eq!(replies, b"\x1b[1;20R");
}

#[test]
fn device_attributes_and_status() {
    assert_eq!(same_when_split(b"\x1b[c").1, b"\x1b[?62;4;22c");
    assert_eq!(same_when_split(b"\x1b[0c").1, b"\x1b[?62;4;22c");
    assert_eq!(same_when_split(b"\x1b[>c").1, b"\x1b[>0;276;0c");
    assert_eq!(same_when_split(b"\x1b[5n").1, b"\x1b[0n");
    let version = same_when_split(b"\x1b[>q").1;
    assert!(version.starts_with(b"\x1bP>|tuipilot("), "{version:?}");
}

#[test]
fn colour_queries_use_the_theme() {
    let theme = Theme::default();
    // Each reply ends as its query did (emacs asks with ST and reads a BEL as C-g).
    let (_, replies) = same_when_split(b"\x1b]11;?\x07\x1b]10;?\x1b\\");
    let expected = format!(
        "\x1b]11;{}\x07\x1b]10;{}\x1b\\",
        theme.background.x11(),
        theme.foreground.x11()
    );
    assert_eq!(String::from_utf8(replies).unwrap(), expected);
    let (_, replies) = same_when_split(b"\x1b]4;196;?\x07");
    assert_eq!(replies, b"\x1b]4;196;rgb:ffff/0000/0000\x07");
}

#[test]
fn mode_reports() {
    assert_eq!(same_when_split(b"\x1b[?1$p").1, b"\x1b[?1;2$y");
    assert_eq!(same_when_split(b"\x1b[?1h\x1b[?1$p").1, b"\x1b[?1;1$y");
    assert_eq!(same_when_split(b"\x1b[?2004h\x1b[?2004$p").1, b"\x1b[?2004;1$y");
    assert_eq!(same_when_split(b"\x1b[?7l\x1b[?7$p").1, b"\x1b[?7;2$y");
    assert_eq!(same_when_split(b"\x1b[?2026$p").1, b"\x1b[?2026;2$y");
    assert_eq!(same_when_split(b"\x1b[?2026h\x1b[?2026$p").1, b"\x1b[?2026;1$y");
    assert_eq!(same_when_split(b"\x1b[4h\x1b[4$p").1, b"\x1b[4;1$y");
}

#[test]
fn size_reports_match_the_cell_size() {
    let cell = CellSize::default();
    let (_, replies) = same_when_split(b"\x1b[18t\x1b[16t\x1b[14t");
    let expected = format!(
        "\x1b[8;5;20t\x1b[6;{};{}t\x1b[4;{};{}t",
        cell.height,
        cell.width,
        5 * cell.height,
        20 * cell.width
    );
    assert_eq!(String::from_utf8(replies).unwrap(), expected);
}

#[test]
fn xtgettcap_is_answered_as_unknown() {
    let (rows, replies) = same_when_split(b"\x1bP+q544e\x1b\\ok");
    assert_eq!(replies, b"\x1bP0+r544e\x1b\\");
    assert_eq!(rows[0], "ok");
}

#[test]
fn the_kitty_keyboard_query_is_answered_with_the_current_screens_flags() {
    let mut t = term();
    t.process(b"\x1b[?u");
    assert_eq!(t.take_replies(), b"\x1b[?0u", "nothing pushed yet");
    // Push, push, set (add, remove), pop: what kitty's stack does.
    t.process(b"\x1b[>1u\x1b[>3u\x1b[=16;2u\x1b[?u");
    assert_eq!(t.take_replies(), b"\x1b[?19u");
    assert_eq!(t.key_modes().kitty_flags, 19);
    t.process(b"\x1b[=2;3u\x1b[?u\x1b[<u\x1b[?u");
    assert_eq!(t.take_replies(), b"\x1b[?17u\x1b[?1u");
    // The alternate screen has a stack of its own; leaving it restores the main one's.
    t.process(b"\x1b[?1049h\x1b[?u\x1b[>8u");
    assert_eq!(t.take_replies(), b"\x1b[?0u");
    assert_eq!(t.key_modes().kitty_flags, 8);
    t.process(b"\x1b[?1049l");
    assert_eq!(t.key_modes().kitty_flags, 1);
    // Popping more than was pushed resets; nothing of it reaches the screen.
    t.process(b"\x1b[<9u\x1b[?u");
    assert_eq!(t.take_replies(), b"\x1b[?0u");
    assert_eq!(t.snapshot().text().trim(), "");
    let transcript = t.transcript();
    assert_eq!(transcript[0].query, "ESC[?u");
    assert!(transcript[0].note.contains("kitty"));
}

#[test]
fn a_pushed_stack_is_bounded() {
    let mut t = term();
    for flags in 0..100u8 {
        t.process(format!("\x1b[>{}u", flags % 32).as_bytes());
    }
    assert_eq!(t.key_modes().kitty_flags, 99 % 32);
    t.process(b"\x1b[<15u");
    assert_eq!(
        t.key_modes().kitty_flags,
        84 % 32,
        "the oldest entries were dropped"
    );
    t.process(b"\x1b[<1u");
    assert_eq!(t.key_modes().kitty_flags, 0, "sixteen entries deep at most");
}

#[test]
fn mouse_focus_and_modify_other_keys_modes_are_kept() {
    use crate::keys::mouse::{MouseEncoding, MouseTracking};
    let mut t = term();
    t.process(b"\x1b[?1002h\x1b[?1015h\x1b[?1004h\x1b[>4;2m");
    let modes = t.input_modes();
    assert_eq!(modes.mouse.tracking, MouseTracking::Button);
    assert_eq!(modes.mouse.encoding, MouseEncoding::Urxvt);
    assert!(modes.focus_events);
    assert_eq!(modes.keys.modify_other_keys, 2);
    t.process(b"\x1b[?1002$p\x1b[?1015$p\x1b[?1016$p\x1b[?1004$p");
    assert_eq!(
        t.take_replies(),
        b"\x1b[?1002;1$y\x1b[?1015;1$y\x1b[?1016;2$y\x1b[?1004;1$y"
    );
    // Resetting a mode that is not in force changes nothing; the one in force turns off.
    t.process(b"\x1b[?1000l\x1b[?1006l");
    assert_eq!(t.input_modes().mouse.tracking, MouseTracking::Button);
    assert_eq!(t.input_modes().mouse.encoding, MouseEncoding::Urxvt);
    t.process(b"\x1b[?1002l\x1b[?1015l\x1b[?1004l\x1b[>4m");
    assert_eq!(t.input_modes(), crate::keys::InputModes::default());
    // `CSI > 4 ; 2 m` is not a colour: the text after it stays plain.
    t.process(b"\x1b[>4;2mplain");
    assert_eq!(t.snapshot().style_at(0, 0), Some(crate::Style::default()));
}

#[test]
fn queries_do_not_draw() {
    let rows = screen_after(b"a\x1b[6n\x1b]11;?\x07\x1bP+q544e\x1b\\b");
    assert_eq!(rows[0], "ab");
}

#[test]
fn titles_still_reach_vt100() {
    let mut t = term();
    t.process(b"\x1b]2;my title\x07text");
    assert_eq!(t.snapshot().title(), "my title");
    let mut t = term();
    for b in b"\x1b]0;split title\x1b\\" {
        t.process(std::slice::from_ref(b));
    }
    assert_eq!(t.snapshot().title(), "split title");
}

#[test]
fn split_utf8_in_per_character_mode() {
    let (rows, _) = same_when_split("\x1b[4hé日x".as_bytes());
    assert_eq!(rows[0], "é日x");
}

#[test]
fn scrollback_keeps_old_lines() {
    let mut t = term();
    for i in 0..12 {
        t.process(format!("line {i}\r\n").as_bytes());
    }
    let history = t.scrollback();
    assert_eq!(history.first().map(String::as_str), Some("line 0"));
    assert_eq!(history.len(), 8);
    assert_eq!(t.snapshot().row(0), Some("line 8"));
}

#[test]
fn sizes_out_of_range_are_refused() {
    assert!(matches!(Terminal::new(9, 24), Err(Error::InvalidSize { .. })));
    assert!(matches!(Terminal::new(80, 1), Err(Error::InvalidSize { .. })));
    assert!(matches!(Terminal::new(1001, 24), Err(Error::InvalidSize { .. })));
    assert!(Terminal::new(10, 2).is_ok());
    assert!(Terminal::new(1000, 1000).is_ok());
    let mut t = term();
    assert!(t.resize(5, 5).is_err());
}

#[test]
fn a_parser_panic_is_contained() {
    // vt100 0.18.1 survives every input found to panic earlier versions, so provoke a
    // panic inside the same containment that `process` runs the parser in.
    let mut t = term();
    t.process(b"before");
    t.contained(|_, parser, _| {
        parser.process(b" during");
        panic!("simulated parser bug");
    });
    let fault = t.fault().expect("the panic is reported as a fault");
    assert!(fault.to_string().contains("simulated parser bug"), "{fault}");
    assert!(fault.to_string().contains("terminal parser failed"), "{fault}");
    t.process(b" ignored");
    assert_eq!(
        t.snapshot().row(0),
        Some("before during"),
        "the last screen is kept"
    );
}

/// Pieces of byte soup rich in escape-sequence material.
const ALPHABET: &[&[u8]] = &[
    b"\x1b",
    b"[",
    b"]",
    b"P",
    b"(",
    b")",
    b"0",
    b"B",
    b"?",
    b">",
    b"$",
    b"1",
    b"4",
    b"7",
    b"58",
    b";",
    b":",
    b"m",
    b"h",
    b"l",
    b"n",
    b"c",
    b"p",
    b"q",
    b"t",
    b"u",
    b"s",
    b"D",
    b"E",
    b"\x07",
    b"\x1b\\",
    b"\x0e",
    b"\x0f",
    b"\r",
    b"\n",
    b"a",
    b"x",
    b"q",
    "é".as_bytes(),
    "日".as_bytes(),
    b"\xe2\x94",
    b"\x18",
    // Whole sequences, so the mode-dependent paths (insert, no autowrap, graphics) run.
    b"\x1b[4h",
    b"\x1b[4l",
    b"\x1b[?7l",
    b"\x1b[?7h",
    b"\x1b(0",
    b"\x1b(B",
    b"\x1b)0",
    "\x1b]0;tïtle\x07".as_bytes(),
    b"\x1b[6n",
    b"\x1b[31;58;5;1m",
    b"\x1bP+q544e\x1b\\",
    b"\x1b[3;5H",
    "wörds ".as_bytes(),
    "\u{301}".as_bytes(),
];

/// A little generator of numbers (xorshift), the same every run.
fn numbers(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// 400 pieces of [`ALPHABET`], picked by `next`.
fn byte_soup(next: &mut impl FnMut() -> u64) -> Vec<u8> {
    let mut stream = Vec::new();
    for _ in 0..400 {
        stream.extend_from_slice(ALPHABET[(next() % ALPHABET.len() as u64) as usize]);
    }
    stream
}

/// Random byte soup: the layer must neither fault nor depend on how the stream is split
/// into chunks.
#[test]
fn random_streams_split_anywhere_give_the_same_screen() {
    let mut next = numbers(0x2545_f491_4f6c_dd1d);
    for round in 0..400 {
        let stream = byte_soup(&mut next);
        let mut whole = term();
        whole.process(&stream);
        let mut split = term();
        let mut rest = &stream[..];
        while !rest.is_empty() {
            let n = ((next() % 7) as usize + 1).min(rest.len());
            split.process(&rest[..n]);
            rest = &rest[n..];
        }
        assert!(whole.fault().is_none(), "round {round}: {:?}", whole.fault());
        assert_eq!(
            whole.snapshot(),
            split.snapshot(),
            "round {round}: {}",
            escape_bytes(&stream)
        );
        assert_eq!(whole.take_replies(), split.take_replies(), "round {round}");
    }
}

/// The live screen's snapshot is kept between asks (a wait's last look is the capture's
/// screen): output, a resize, a scrolled-back view or a read of the scrollback must never
/// leave an earlier one to be shown.
#[test]
fn a_kept_snapshot_is_never_shown_once_the_screen_changed() {
    let mut next = numbers(0x9e37_79b9_7f4a_7c15);
    for round in 0..150 {
        let stream = byte_soup(&mut next);
        let mut t = term();
        let mut rest = &stream[..];
        while !rest.is_empty() {
            let _ = t.live_snapshot();
            match next() % 8 {
                0 => t
                    .resize(10 + (next() % 20) as u16, 2 + (next() % 8) as u16)
                    .unwrap(),
                1 => {
                    let _ = t.snapshot_scrolled_back(1 + (next() % 6) as usize);
                }
                2 => {
                    let _ = t.scrollback();
                }
                3 => {
                    let _ = t.last_command();
                }
                _ => {
                    let n = ((next() % 9) as usize + 1).min(rest.len());
                    t.process(&rest[..n]);
                    rest = &rest[n..];
                }
            }
            assert_eq!(
                t.live_snapshot(),
                t.snapshot_now(),
                "round {round}: {}",
                escape_bytes(&stream)
            );
        }
    }
}

#[test]
fn a_character_split_across_reads_keeps_the_next_character() {
    // vte 0.15 alone prints "hé日c" here: the `t` after the split `é` is lost.
    let mut t = term();
    t.process(b"h\xc3");
    t.process("\u{a9}".as_bytes().get(1..).unwrap_or_default());
    t.process(b"t\xe6\x97");
    t.process(b"\xa5c");
    assert_eq!(t.snapshot().row(0), Some("hét日c"));
    let mut t = term();
    t.process(b"h\xc3");
    t.process(b"\xa9t\xe6\x97\xa5c");
    assert_eq!(t.snapshot().row(0), Some("hét日c"));
}

#[test]
fn a_huge_repeat_count_is_clipped_to_what_it_can_change() {
    // 20x5: past 100 cells, only the count modulo a row matters.
    let mut huge = term();
    huge.process(b"x\x1b[65535b");
    let mut small = term();
    small.process(format!("x\x1b[{}b", 100 + (65535 - 100) % 20).as_bytes());
    assert_eq!(huge.snapshot(), small.snapshot());
    let rows = huge.snapshot().rows().to_vec();
    assert!(rows[..4].iter().all(|r| r == &"x".repeat(20)), "{rows:?}");
    // Unclipped, 65535 repeats would have scrolled over 3000 lines into the scrollback.
    assert!(huge.scrollback().len() <= 10, "{}", huge.scrollback().len());
}

#[test]
fn a_stream_of_repeats_cannot_draw_more_than_its_budget() {
    let mut t = term();
    let mut hostile = b"x".to_vec();
    for _ in 0..5000 {
        hostile.extend_from_slice(b"\x1b[65535b");
    }
    t.process(&hostile);
    // 40 KB of output may draw at most 256 cells a byte plus a two-screen burst; the
    // screen is still what the repeats draw: `x` above the row being written.
    let rows = t.snapshot().rows().to_vec();
    assert!(rows[..4].iter().all(|r| r == &"x".repeat(20)), "{rows:?}");
    assert!(t.scrollback().len() <= 40_001 * 256 / 20 + 10);
}

#[test]
fn ordinary_repeats_are_untouched() {
    assert_eq!(screen_after(b"-\x1b[9b|")[0], "----------|");
    assert_eq!(same_when_split(b"ab\x1b[3bc").0[0], "abbbbc");
}

#[test]
fn scrollback_beyond_the_maximum_is_refused() {
    let options = |scrollback| TerminalOptions {
        scrollback,
        ..TerminalOptions::default()
    };
    assert!(Terminal::with_options(options(MAX_SCROLLBACK)).is_ok());
    let err = Terminal::with_options(options(MAX_SCROLLBACK + 1)).err().unwrap();
    assert!(err.to_string().contains("keep at most 100000"), "{err}");
}

#[test]
fn an_emoji_selector_in_the_last_column_of_the_bottom_row_does_not_break_the_screen() {
    let mut t = Terminal::new(10, 2).unwrap();
    t.process("\x1b[2;10H9\u{fe0f}\x1b[r9999999999".as_bytes());
    assert!(t.fault().is_none(), "{:?}", t.fault());
    assert_eq!(t.snapshot().rows()[0], "9999999999");
}

#[test]
fn utf8_split_across_reads_draws_the_same_as_whole() {
    // A character cut by a read, then invalid bytes: the screen must not depend on where
    // the read ended.
    let input = b"\xd6\x0e\xaf\x70\xff\x3f";
    let mut whole = Terminal::new(20, 5).unwrap();
    whole.process(input);
    for at in 1..input.len() {
        let mut split = Terminal::new(20, 5).unwrap();
        split.process(&input[..at]);
        split.process(&input[at..]);
        assert_eq!(split.snapshot(), whole.snapshot(), "split at {at}");
    }
}

#[test]
fn find_matches_what_a_wait_matches_even_across_rows() {
    let mut t = term();
    t.process(b"$ wc -l\r\n2\r\n$ ");
    let snap = t.snapshot();
    let found = snap.find(r"^2\n\$$").unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        (found[0].row, found[0].col, found[0].text.as_str()),
        (1, 0, "2\n$")
    );
    // Single-row patterns find what they always found, row and column included.
    let found = snap.find("wc").unwrap();
    assert_eq!((found[0].row, found[0].col), (0, 2));
    assert_eq!(snap.find(r"^\$").unwrap().len(), 2);
}

#[test]
fn the_styled_snapshot_shows_text_with_a_style_layer() {
    let mut t = Terminal::new(20, 4).unwrap();
    t.process(b"\x1b[1;32mbuild ok\x1b[0m  \x1b[33;44m12:00\x1b[0m\r\nplain\r\n\x1b[1;32mok\x1b[0m");
    assert_eq!(
        t.snapshot().styled(),
        " 0 |build ok  12:00\n   |aaaaaaaa  bbbbb\n 1 |plain\n 2 |ok\n   |aa\na: bold fg=green (2)\nb: fg=yellow (3) bg=blue (4)\n"
    );
}

#[test]
fn grapheme_mode_2027_gives_clusters_their_widths_and_is_reported() {
    assert_eq!(same_when_split(b"\x1b[?2027$p").1, b"\x1b[?2027;2$y");
    let (rows, replies) = same_when_split("\x1b[?2027h\x1b[?2027$p🇯🇵|✔\u{FE0F}|👍🏽|".as_bytes());
    assert_eq!(replies, b"\x1b[?2027;1$y");
    // Flag 2 cells, ✔️ 2 cells, 👍🏽 2 cells: the bars at columns 2, 5 and 8.
    assert_eq!(rows[0], "🇯🇵|✔\u{FE0F}|👍🏽|");
    let mut t = term();
    t.process("\x1b[?2027h🇯🇵|✔\u{FE0F}|👍🏽|".as_bytes());
    let bars: Vec<u16> = t.snapshot().find(r"\|").unwrap().iter().map(|m| m.col).collect();
    assert_eq!(bars, [2, 5, 8]);
    // Off again, wcwidth's widths: 1 + 1, 1, 2 + 2.
    let mut t = term();
    t.process("🇯🇵|✔\u{FE0F}|👍🏽|".as_bytes());
    let bars: Vec<u16> = t.snapshot().find(r"\|").unwrap().iter().map(|m| m.col).collect();
    assert_eq!(bars, [2, 4, 9]);
}

#[test]
fn attributes_vt100_drops_are_kept_in_the_cells_and_out_of_the_text() {
    let mut t = term();
    t.process(b"\x1b[9mab\x1b[0m \x1b[4:3;58;5;1mc\x1b[0m");
    let snap = t.snapshot();
    assert_eq!(snap.text().lines().next(), Some("ab c"));
    assert_eq!(t.text().lines().next(), Some("ab c"));
    assert!(snap.cell(0, 0).unwrap().style.strikethrough);
    assert!(!snap.cell(0, 2).unwrap().style.strikethrough);
    let curly = snap.cell(0, 3).unwrap().style;
    assert_eq!(curly.underline_style, crate::UnderlineStyle::Curly);
    assert_eq!(curly.underline_color, crate::Color::Indexed(1));
    assert!(!curly.italic, "4:3 was read as italic");
}

#[test]
fn a_synchronized_update_shows_the_frame_before_it_until_it_ends() {
    let mut t = term();
    t.process(b"old frame\r\nstatus: old");
    // The next frame arrives in pieces inside an update.
    t.process(b"\x1b[?2026h\x1b[H\x1b[2Jnew frame");
    assert!(t.synchronized());
    assert_eq!(t.snapshot().rows()[..2], ["old frame", "status: old"]);
    assert_eq!(t.text().lines().next(), Some("old frame"));
    assert_eq!(t.cursor_row_text(), "status: old");
    t.process(b"\r\nstatus: new\x1b[?2026l");
    assert!(!t.synchronized());
    assert_eq!(t.snapshot().rows()[..2], ["new frame", "status: new"]);
    // Begun and ended in one batch: the finished frame, nothing held.
    t.process(b"\x1b[?2026h\x1b[Hnext frame\x1b[?2026l");
    assert_eq!(t.snapshot().row(0), Some("next frame"));
    // A resize shows the live screen.
    t.process(b"\x1b[?2026h\x1b[Hlive");
    t.resize(60, 10).unwrap();
    assert_eq!(t.snapshot().row(0), Some("live frame"));
}
