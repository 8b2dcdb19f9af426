use std::time::Instant;
fn main() {
    let data = std::fs::read("/tmp/tp.txt").unwrap();
    for sb in [0usize, 1000] {
        let t = Instant::now();
        let mut p = vt100::Parser::new(
            std::num::NonZeroU16::new(40).unwrap(),
            std::num::NonZeroU16::new(120).unwrap(),
            sb,
        );
        for c in data.chunks(4095) {
            p.process(c);
        }
        println!("vt100 scrollback {sb}: {:?}", t.elapsed());
    }
    let plain = strip_ansi_escapes::strip(&data);
    let t = Instant::now();
    let mut p = vt100::Parser::new(
        std::num::NonZeroU16::new(40).unwrap(),
        std::num::NonZeroU16::new(120).unwrap(),
        1000,
    );
    for c in plain.chunks(4095) {
        p.process(c);
    }
    println!(
        "vt100 plain {} MB: {:?}",
        plain.len() / 1000000,
        t.elapsed()
    );
}
