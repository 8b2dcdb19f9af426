use super::*;
use crate::Terminal;
use base64::Engine;

/// A sixel picture of `w` × `h` pixels (h a multiple of 6) in one RGB colour.
fn sixel(w: u32, h: u32) -> String {
    let band = format!("#1!{w}~");
    let bands = vec![band; (h / 6) as usize].join("-");
    format!("\x1bP0;1;0q\"1;1;{w};{h}#1;2;100;0;0{bands}\x1b\\")
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn term() -> Terminal {
    // Cells of 10 x 19 pixels (the default).
    Terminal::new(40, 10).unwrap()
}

#[test]
fn a_sixel_is_placed_at_the_cursor_and_the_cursor_goes_below_it() {
    let mut t = term();
    t.process(b"ab");
    t.process(sixel(25, 36).as_bytes());
    t.process(b"next");
    let snap = t.snapshot();
    let [image] = snap.images() else {
        panic!("{:?}", snap.images())
    };
    assert_eq!(image.protocol, ImageProtocol::Sixel);
    assert_eq!((image.row, image.col, image.cols, image.rows), (0, 2, 3, 2));
    assert_eq!((image.width, image.height), (25, 36));
    assert_eq!(image.visible_rows(), &[(0, 0), (1, 1)]);
    assert_eq!(snap.row(0), Some("ab"), "markers are not text");
    assert_eq!(snap.row(2), Some("  next"));
    let (w, h, rgba) = image.pixels();
    assert_eq!((w, h, &rgba[..4]), (25, 36, &[255, 0, 0, 255][..]));
}

#[test]
fn an_image_scrolls_with_the_text_and_leaves_with_a_clear() {
    let mut t = term();
    t.process(b"\r\n\r\n");
    t.process(sixel(10, 60).as_bytes());
    assert_eq!(t.snapshot().images()[0].row, 2);
    t.process(&b"\r\n".repeat(6));
    let snap = t.snapshot();
    let [image] = snap.images() else {
        panic!("scrolled away entirely?")
    };
    assert_eq!(image.row, -1, "its top scrolled off");
    assert_eq!(
        image.visible_rows().len() as i32,
        i32::from(image.rows) + image.row
    );
    t.process(b"\x1b[2J");
    assert!(t.snapshot().images().is_empty());
}

#[test]
fn text_over_the_first_cell_of_a_row_keeps_the_row_between_its_neighbours() {
    let mut t = term();
    t.process(sixel(30, 60).as_bytes()); // 4 rows
    t.process(b"\x1b[2;1Hxx");
    let snap = t.snapshot();
    assert_eq!(snap.images()[0].visible_rows(), &[(0, 0), (1, 1), (2, 2), (3, 3)]);
}

#[test]
fn da1_advertises_sixel_and_graphics_queries_are_answered() {
    let mut t = term();
    t.process(b"\x1b[c\x1b[?2;1;0S\x1b[?1;1;0S");
    assert_eq!(
        String::from_utf8(t.take_replies()).unwrap(),
        "\x1b[?62;4;22c\x1b[?2;0;400;190S\x1b[?1;0;1024S"
    );
}

#[test]
fn kitty_rgba_sent_in_chunks_is_answered_ok_and_placed_at_c_r_cells() {
    let mut t = term();
    let rgba: Vec<u8> = [0u8, 0, 255, 255].repeat(4 * 4);
    let data = b64(&rgba);
    let (first, second) = data.split_at(12);
    t.process(format!("\x1b_Ga=T,f=32,s=4,v=4,i=7,c=5,r=2,m=1;{first}\x1b\\").as_bytes());
    assert!(t.take_replies().is_empty(), "no reply before the last chunk");
    t.process(format!("\x1b_Gm=0;{second}\x1b\\").as_bytes());
    assert_eq!(t.take_replies(), b"\x1b_Gi=7;OK\x1b\\");
    t.process(b"X");
    let snap = t.snapshot();
    let [image] = snap.images() else { panic!() };
    assert_eq!(
        (image.protocol, image.id, image.cols, image.rows),
        (ImageProtocol::Kitty, 7, 5, 2)
    );
    assert_eq!(snap.cursor().col, 6, "after the image on its last row, then X");
    assert_eq!(snap.cursor().row, 1);
}

#[test]
fn kitty_query_checks_without_keeping_and_errors_name_the_problem() {
    let mut t = term();
    t.process(format!("\x1b_Ga=q,i=31,s=1,v=1,f=24;{}\x1b\\", b64(&[1, 2, 3])).as_bytes());
    assert_eq!(t.take_replies(), b"\x1b_Gi=31;OK\x1b\\");
    t.process(b"\x1b_Ga=p,i=31\x1b\\");
    let reply = String::from_utf8(t.take_replies()).unwrap();
    assert!(reply.starts_with("\x1b_Gi=31;ENOENT:"), "{reply:?}");
    t.process(b"\x1b_Ga=q,i=2,t=f;L3RtcC94\x1b\\");
    let reply = String::from_utf8(t.take_replies()).unwrap();
    assert!(reply.starts_with("\x1b_Gi=2;EINVAL:only direct"), "{reply:?}");
    t.process(b"\x1b_Ga=p,i=99,q=2\x1b\\\x1b_Ga=T,f=24,s=1,v=1;AAAA\x1b\\");
    assert!(
        t.take_replies().is_empty(),
        "q=2 and commands without an id get no reply"
    );
    assert!(t.snapshot().images().len() == 1, "the anonymous image is shown");
}

#[test]
fn kitty_placements_are_deleted_by_id_and_a_second_placement_of_an_id_replaces_it() {
    let mut t = term();
    let red = b64(&[255, 0, 0]);
    t.process(format!("\x1b_Ga=t,f=24,s=1,v=1,i=1,q=1;{red}\x1b\\").as_bytes());
    t.process(b"\x1b_Ga=p,i=1,p=3,q=1\x1b\\\x1b[5;5H\x1b_Ga=p,i=1,p=3,q=1\x1b\\");
    let snap = t.snapshot();
    let [image] = snap.images() else {
        panic!("{:?}", snap.images())
    };
    assert_eq!((image.row, image.col), (4, 4));
    t.process(b"\x1b_Ga=d,d=i,i=1\x1b\\");
    assert!(t.snapshot().images().is_empty());
    t.process(b"\x1b_Ga=p,i=1,q=1\x1b\\");
    assert_eq!(
        t.snapshot().images().len(),
        1,
        "lower-case d keeps the image data"
    );
    t.process(b"\x1b_Ga=d,d=I,i=1\x1b\\\x1b_Ga=p,i=1\x1b\\");
    assert!(String::from_utf8(t.take_replies()).unwrap().contains("ENOENT"));
}

#[test]
fn an_iterm2_inline_png_is_shown_at_its_width_in_cells() {
    let mut png_bytes = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png_bytes, 20, 10);
        encoder.set_color(png::ColorType::Rgb);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[0, 255, 0].repeat(200)).unwrap();
    }
    let mut t = term();
    t.process(
        format!(
            "\x1b]1337;File=name=eA==;inline=1;width=6:{}\x07",
            b64(&png_bytes)
        )
        .as_bytes(),
    );
    let snap = t.snapshot();
    let [image] = snap.images() else { panic!() };
    assert_eq!(
        (image.protocol, image.cols, image.rows),
        (ImageProtocol::Iterm2, 6, 2)
    );
    assert_eq!(image.display, (60, 30));
    t.process(format!("\x1b]1337;File=inline=0:{}\x07", b64(&png_bytes)).as_bytes());
    assert_eq!(t.snapshot().images().len(), 1, "a download is not shown");
}

#[test]
fn stored_images_are_bounded_and_the_oldest_go_first() {
    let mut g = Graphics::default();
    let t = term();
    let ctx = Context {
        screen: t.parser.screen(),
        cell: CellSize::default(),
        bytes: 0,
    };
    let big = (MAX_IMAGE_MEMORY / 3) as u32 / 4;
    for _ in 0..5 {
        g.place_new(
            ImageProtocol::Sixel,
            Picture::new(big, 1, vec![0; big as usize * 4]),
            (big, 1),
            CursorAfter::Below,
            &ctx,
        );
        assert!(g.memory() <= MAX_IMAGE_MEMORY);
    }
    assert_eq!(g.placements.len(), 3);
    assert_eq!(g.placements.keys().min(), Some(&3), "the first two were dropped");
}

#[test]
fn kitty_chunks_each_padded_with_stray_low_bits_decode_as_chafa_sends_them() {
    // Two white RGB pixels in three padded chunks: `//9=` carries bits past its two
    // bytes that a strict decoder refuses; kitty, and so this, ignores them.
    let mut t = term();
    t.process(b"\x1b_Ga=T,f=24,s=2,v=1,i=3,q=1,m=1;//9=\x1b\\\x1b_Gm=1;//8=\x1b\\\x1b_Gm=0;//8=\x1b\\");
    let snap = t.snapshot();
    let [image] = snap.images() else {
        panic!("{:?}", snap.images())
    };
    assert_eq!(image.pixels().2, [255, 255, 255, 255, 255, 255, 255, 255]);
}

#[test]
fn hostile_sizes_neither_fault_the_terminal_nor_allocate_beyond_the_caps() {
    let mut t = term();
    // Cell counts past any screen, a pixel size past any picture, a huge declared raster.
    t.process(b"\x1b_Ga=T,f=24,s=1,v=1,c=4294967295,r=4294967295;AAAA\x1b\\");
    t.process(b"\x1b]1337;File=inline=1;width=4000000000px;height=99999:AAAA\x07");
    t.process(b"\x1bP0;1;0q\"1;1;4096;4096#1~\x1b\\");
    assert!(t.fault().is_none(), "{:?}", t.fault());
    let snap = t.snapshot();
    let kitty = snap
        .images()
        .iter()
        .find(|i| i.protocol == ImageProtocol::Kitty)
        .unwrap();
    assert!(
        kitty.rows <= 10,
        "rows cut to the screen for a tiny command: {}",
        kitty.rows
    );
    let sixel = snap
        .images()
        .iter()
        .find(|i| i.protocol == ImageProtocol::Sixel)
        .unwrap();
    assert_eq!(
        (sixel.width, sixel.height),
        (1, 6),
        "a raster the data cannot pay for is not allocated"
    );
    // And the picture renders without allocating the asked-for size.
    let image = snap.render(&crate::render::RenderOptions::default()).unwrap();
    assert_eq!(image.width, 40 * 10 + 16);
}

#[test]
fn a_few_bytes_of_sixel_cannot_buy_megapixels() {
    // Found by the fuzzer: repeats of a million columns made 816 bytes take 630 ms.
    // Such a picture is refused before anything is allocated for it.
    let mut t = term();
    t.process(b"\x1bP0;1;0q!1636753s-!1636753~\x1b\\");
    assert!(t.snapshot().images().is_empty());
    // A real picture of the same width pays for itself.
    let row = format!("#1;2;100;0;0!{}~", 2000);
    t.process(format!("\x1bP0;1;0q{}{}\x1b\\", row, " ".repeat(2000 * 6 / 4096 + 1)).as_bytes());
    assert_eq!(t.snapshot().images().len(), 1);
    // Found by the fuzzer: a raster size 1 wide but tall, after a wide band, asked for
    // the product of the two (18 GB) though each alone was affordable.
    let padding = " ".repeat(110); // pays for the wide band, not for the product
    t.process(format!("\x1bP0;1;0qr-!35608w\"1;1;1;119991{padding}\x1b\\").as_bytes());
    assert_eq!(t.snapshot().images().len(), 2);
    assert_eq!(
        t.snapshot().images()[1].height,
        12,
        "the raster that could not be paid for is ignored"
    );
}

#[test]
fn kitty_deletes_by_column_leave_a_sixel_there_and_a_kitty_image_of_its_number_elsewhere() {
    // The sixel is image 1 of its protocol and the kitty image has id 1: deleting the
    // placements in the sixel's column must not reach the kitty image in another column.
    let mut t = term();
    t.process(sixel(10, 6).as_bytes());
    t.process(
        format!(
            "\x1b[1;20H\x1b_Ga=T,f=24,s=1,v=1,i=1,q=1;{}\x1b\\",
            b64(&[1, 2, 3])
        )
        .as_bytes(),
    );
    assert_eq!(t.snapshot().images().len(), 2);
    t.process(b"\x1b_Ga=d,d=x,x=1\x1b\\");
    let snap = t.snapshot();
    let kinds: Vec<_> = snap.images().iter().map(|i| (i.protocol, i.id)).collect();
    assert_eq!(kinds, [(ImageProtocol::Sixel, 1), (ImageProtocol::Kitty, 1)]);
    t.process(b"\x1b_Ga=d,d=x,x=20\x1b\\");
    assert_eq!(
        t.snapshot().images().len(),
        1,
        "the kitty image in column 20 goes"
    );
}

#[cfg(feature = "render")]
#[test]
fn compressed_kitty_data_is_inflated_no_further_than_the_size_it_claims() {
    use miniz_oxide::deflate::compress_to_vec_zlib;
    let mut t = term();
    // 8 MiB of zeros, sent as a 16×16 RGBA image (1,024 bytes): refused once inflating
    // passes 1,024 bytes, not after inflating all of it.
    let bomb = compress_to_vec_zlib(&vec![0u8; 8 << 20], 9);
    t.process(format!("\x1b_Ga=T,f=32,s=16,v=16,o=z,i=4;{}\x1b\\", b64(&bomb)).as_bytes());
    let reply = String::from_utf8(t.take_replies()).unwrap();
    assert_eq!(
        reply,
        "\x1b_Gi=4;EINVAL:the zlib data inflates to more than the 1024 bytes a 16x16 image holds\x1b\\"
    );
    assert!(t.snapshot().images().is_empty());
    // Data of the claimed size is shown; data that is not zlib says so.
    let red = compress_to_vec_zlib(&[255, 0, 0, 255].repeat(4), 6);
    t.process(format!("\x1b_Ga=T,f=32,s=2,v=2,o=z,i=5;{}\x1b\\", b64(&red)).as_bytes());
    assert_eq!(t.take_replies(), b"\x1b_Gi=5;OK\x1b\\");
    assert_eq!(t.snapshot().images().len(), 1);
    t.process(format!("\x1b_Ga=T,f=32,s=2,v=2,o=z,i=6;{}\x1b\\", b64(b"not zlib")).as_bytes());
    let reply = String::from_utf8(t.take_replies()).unwrap();
    assert_eq!(reply, "\x1b_Gi=6;EINVAL:the zlib data does not inflate\x1b\\");
}
