//! Parse-only cost of a recorded stream: `vt100` alone, or through the engine's layer.
//! `parse_speed FILE [vt100|terminal]`; run under `valgrind --tool=callgrind` for
//! instruction counts that do not depend on machine load.
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).expect("FILE");
    let mode = std::env::args().nth(2).unwrap_or_else(|| "terminal".into());
    let data = std::fs::read(&path).unwrap();
    let t = Instant::now();
    if mode == "vt100" {
        let mut p = vt100::Parser::new(
            std::num::NonZeroU16::new(40).unwrap(),
            std::num::NonZeroU16::new(120).unwrap(),
            1000,
        );
        for c in data.chunks(4095) {
            p.process(c);
        }
    } else {
        let mut term = tuipilot::Terminal::new(120, 40).unwrap();
        for c in data.chunks(4095) {
            term.process(c);
        }
    }
    println!("{mode}: {:?}", t.elapsed());
}
