//! The `terminal` target: program output, from fragments of real output, random CSI
//! sequences, control strings and image commands, fed whole, split and byte by byte.

use tuipilot::Terminal;

use super::Rng;

/// Pieces real programs' output is made of, and some it should never be.
const FRAGMENTS: &[&[u8]] = &[
    b"\x1b[",
    b"\x1b]",
    b"\x1bP",
    b"\x1b_",
    b"\x1b^",
    b"\x1bX",
    b"\x1b\\",
    b"\x07",
    b"\x1b",
    b"\x1b(0",
    b"\x1b)0",
    b"\x1b(B",
    b"\x0e",
    b"\x0f",
    b"\x1b7",
    b"\x1b8",
    b"\x1bD",
    b"\x1bE",
    b"\x1bM",
    b"\x1bc",
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1b[?7l",
    b"\x1b[?7h",
    b"\x1b[4h",
    b"\x1b[4l",
    b"\x1b[?1047h",
    b"\x1b[?1048l",
    b"\x1b[s",
    b"\x1b[u",
    b"\x1b[6n",
    b"\x1b[?6n",
    b"\x1b[c",
    b"\x1b[>c",
    b"\x1b[5n",
    b"\x1b]11;?\x07",
    b"\x1b]4;1;?\x1b\\",
    b"\x1b[?2004h",
    b"\x1b[?1u",
    b"\x1b[>q",
    b"\x1bP+q544e\x1b\\",
    b"\x1bP$qm\x1b\\",
    b"\x1b[?25$p",
    b"\x1b[14t",
    b"\x1b[18t",
    b"\x1b[38;5;208m",
    b"\x1b[48;2;1;2;3m",
    b"\x1b[58:2::1:2:3m",
    b"\x1b[4:3m",
    b"\x1b[0m",
    b"\x1b[1;31m",
    b"\x1b[65535b",
    b"\x1b[99999999999999999999b",
    b"\x1b[65535@",
    b"\x1b[65535L",
    b"\x1b[65535M",
    b"\x1b[65535S",
    b"\x1b[65535T",
    b"\x1b[65535X",
    b"\x1b[65535P",
    b"\x1b[65535;65535H",
    b"\x1b[0;0r",
    b"\x1b[5;2r",
    b"\x1b[3;20r",
    b"\x1b[?6h",
    b"\x1b[?6l",
    b"\x1b#8",
    b"\x1b#3",
    b"\x1b#4",
    b"\x1b#5",
    b"\x1b#6",
    b"\x1b[J",
    b"\x1b[1J",
    b"\x1bH",
    b"\x1b[g",
    b"\x1b[3g",
    b"\x1b[Z",
    b"\x1b[65535Z",
    b"\x1b[65535I",
    b"\x08",
    b"\x1b[?15n",
    b"\x1b[?26n",
    b"\x1b[2J",
    b"\x1b[3J",
    b"\x1b[K",
    b"\x1b[1K",
    b"\r\n",
    b"\n",
    b"\r",
    b"\t",
    b"\x08",
    b"\x7f",
    b"\x00",
    b"\x18",
    b"\x1a",
    b"\x9b",
    b"\xc2\x9b",
    b"\xe2\x94\x80",
    b"\xf0\x9f\x98\x80",
    b"\xe6\xbc\xa2",
    b"\xcc\x81",
    b"\xe2\x80\x8d",
    b"\xef\xb8\x8f",
    b"\xff",
    b"\xc3",
    b"\xe2\x94",
    b"hello world",
    b"x",
    b";",
    b":",
    b"?",
    b">",
    b"=",
    b"0",
    b"9",
    b"1000",
    b"65536",
    b"m",
    b"h",
    b"l",
    b"H",
];

pub(super) fn terminal_input(rng: &mut Rng) -> Vec<u8> {
    let mut out = Vec::new();
    let most = if rng.chance(10) { 400 } else { 40 };
    let pieces = 1 + rng.below(most);
    for _ in 0..pieces {
        match rng.below(10) {
            0 => out.extend((0..rng.below(16)).map(|_| rng.next() as u8)),
            1 => {
                // A CSI with random parameters, intermediates and final.
                out.extend_from_slice(b"\x1b[");
                if rng.chance(30) {
                    out.push(*rng.pick(b"?<=>"));
                }
                for i in 0..rng.below(6) {
                    if i > 0 {
                        out.push(*rng.pick(b";:"));
                    }
                    let digits = rng.next().to_string();
                    let len = (1 + rng.below(8)).min(digits.len());
                    out.extend_from_slice(&digits.as_bytes()[..len]);
                }
                if rng.chance(10) {
                    out.push(*rng.pick(b" !\"$'"));
                }
                out.push(0x40 + rng.below(0x3f) as u8);
            }
            2 => {
                // An OSC or DCS string, long or short, terminated or not.
                let opener: &[u8] = rng.pick::<&[u8]>(&[&b"\x1b]"[..], b"\x1bP", b"\x1b_"]);
                out.extend_from_slice(opener);
                let most = if rng.chance(5) { 5000 } else { 40 };
                let len = rng.below(most);
                out.extend((0..len).map(|_| 0x20 + rng.below(0x5f) as u8));
                if rng.chance(80) {
                    let end: &[u8] = rng.pick::<&[u8]>(&[&b"\x07"[..], b"\x1b\\"]);
                    out.extend_from_slice(end);
                }
            }
            3 => image_command(rng, &mut out),
            _ => {
                let fragment: &[u8] = rng.pick::<&[u8]>(FRAGMENTS);
                out.extend_from_slice(fragment);
            }
        }
    }
    out
}

/// The screen and replies after feeding `chunks` in order. The screen is also looked at
/// between chunks (at the split, every 64 bytes when fed byte by byte): the terminal keeps
/// the snapshot it made, and one kept past later output would show as a screen that
/// differs from the whole stream's.
pub(super) fn feed(cols: u16, rows: u16, chunks: &[&[u8]]) -> Result<(tuipilot::Snapshot, Vec<u8>), String> {
    let mut t = Terminal::new(cols, rows).map_err(|e| e.to_string())?;
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 && (chunks.len() == 2 || i % 64 == 0) {
            let _ = t.snapshot();
        }
        t.process(chunk);
    }
    if let Some(fault) = t.fault() {
        return Err(format!("the parser faulted: {fault}"));
    }
    let replies = t.take_replies();
    Ok((t.snapshot(), replies))
}

pub(super) fn check_terminal(rng: &mut Rng, input: &[u8]) -> Result<(), String> {
    let (cols, rows) = (10 + rng.below(190) as u16, 2 + rng.below(58) as u16);
    let whole = feed(cols, rows, &[input])?;
    let splits: Vec<usize> = if input.len() <= 64 {
        (1..input.len()).collect()
    } else {
        (0..8).map(|_| 1 + rng.below(input.len() - 1)).collect()
    };
    for at in splits {
        let (a, b) = input.split_at(at);
        if feed(cols, rows, &[a, b])? != whole {
            return Err(format!(
                "{cols}x{rows}: split at byte {at} gives another screen or replies"
            ));
        }
    }
    if input.len() <= 512 {
        let bytes: Vec<&[u8]> = input.chunks(1).collect();
        if feed(cols, rows, &bytes)? != whole {
            return Err(format!(
                "{cols}x{rows}: byte-by-byte gives another screen or replies"
            ));
        }
    }
    Ok(())
}

/// An image command: kitty keys with random numbers (huge ones too), a sixel with random
/// bands, registers, repeats and raster size, or an iTerm2 file with random sizes; base64
/// payloads of random length.
fn image_command(rng: &mut Rng, out: &mut Vec<u8>) {
    let number = |rng: &mut Rng| {
        let digits = rng.next().to_string();
        digits[..(1 + rng.below(12)).min(digits.len())].to_string()
    };
    match rng.below(3) {
        0 => {
            out.extend_from_slice(b"\x1b_G");
            for i in 0..rng.below(8) {
                if i > 0 {
                    out.push(b',');
                }
                out.push(*rng.pick(b"afstvoiIpmqcrxywhCzdSO"));
                out.push(b'=');
                if rng.chance(30) {
                    out.push(*rng.pick(b"tTpdqaAiIcCzZxXyYfd"));
                } else {
                    out.extend_from_slice(number(rng).as_bytes());
                }
            }
            out.push(b';');
            out.extend((0..rng.below(64)).map(|_| *rng.pick(b"AQgw/+=ABCD")));
        }
        1 => {
            out.extend_from_slice(b"\x1bP0;1;0q");
            for _ in 0..rng.below(30) {
                match rng.below(5) {
                    0 => out.extend_from_slice(format!("\"1;1;{};{}", number(rng), number(rng)).as_bytes()),
                    1 => out.extend_from_slice(
                        format!(
                            "#{};{};{};{};{}",
                            number(rng),
                            rng.below(3),
                            number(rng),
                            number(rng),
                            number(rng)
                        )
                        .as_bytes(),
                    ),
                    2 => out.extend_from_slice(format!("!{}", number(rng)).as_bytes()),
                    3 => out.push(*rng.pick(b"$-")),
                    _ => out.push(0x3f + rng.below(0x40) as u8),
                }
            }
        }
        _ => {
            let size = format!("{}{}", number(rng), rng.pick(&["", "px", "%"]));
            out.extend_from_slice(format!("\x1b]1337;File=inline=1;width={size};height={size}:").as_bytes());
            out.extend((0..rng.below(64)).map(|_| *rng.pick(b"iVBORw0KGgoAAAA")));
        }
    }
    let end: &[u8] = rng.pick::<&[u8]>(&[&b"\x07"[..], b"\x1b\\"]);
    out.extend_from_slice(end);
}
