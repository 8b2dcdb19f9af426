//! What the keyboard protocols and mouse encoding cost a `send`: the round trip of one
//! input (send, then wait until the program has read it) for a plain key, a kitty-encoded
//! key, and mouse events, to the same raw-mode child (which enables the mouse with SGR
//! and kitty flag 1 and prints the running count of bytes it read). The baseline, in the
//! same run and the same session, is the plain key; the target is at most 1.05x.
//!
//! `cargo bench --bench input_encoding`

use std::io::{Read, Write};
use std::time::Instant;

use tuipilot::{Condition, Input, Session};

mod support;
use support::median_p90;

const ROUNDS: usize = 400;

fn child() -> std::io::Result<()> {
    crossterm::terminal::enable_raw_mode()?;
    let mut out = std::io::stdout();
    write!(out, "\x1b[?1002h\x1b[?1006h\x1b[>1uready\r\n")?;
    out.flush()?;
    let mut stdin = std::io::stdin();
    let mut buf = [0u8; 256];
    let mut total = 0usize;
    loop {
        let n = stdin.read(&mut buf)?;
        if n == 0 {
            return Ok(());
        }
        total += n;
        write!(out, "\rgot {total}\x1b[K")?;
        out.flush()?;
    }
}

/// The median and p90 round trip, in microseconds, of `input` (which the child reads
/// as `bytes` bytes), interleaved with the others so drift hits all alike.
fn measure(s: &Session, inputs: &[(&str, Input, usize)]) -> Vec<(f64, f64)> {
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); inputs.len()];
    let mut total = 0usize;
    for _ in 0..ROUNDS {
        for (k, (_, input, bytes)) in inputs.iter().enumerate() {
            total += bytes;
            let done = Condition::text(&format!("^got {total}$")).unwrap();
            let began = Instant::now();
            s.send_and_wait(input, &done).unwrap();
            samples[k].push(began.elapsed().as_secs_f64() * 1e6);
        }
    }
    samples.into_iter().map(median_p90).collect()
}

fn main() {
    if std::env::var_os("TUIPILOT_BENCH_CHILD").is_some() {
        child().unwrap();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let s = Session::builder(&exe)
        .env("TUIPILOT_BENCH_CHILD", "1")
        .spawn()
        .unwrap();
    s.wait_for_text("^ready").unwrap();
    let inputs = [
        ("plain key `x` (baseline)", Input::keys("x").unwrap(), 1),
        ("kitty key `C-a` (CSI 97;5u)", Input::keys("C-a").unwrap(), 7),
        ("mouse `press 3,3` (SGR)", Input::mouse("press 3,3").unwrap(), 9),
        (
            "plain keys `x y` (baseline for two)",
            Input::keys("x y").unwrap(),
            2,
        ),
        (
            "mouse `click /got/` (2 events)",
            Input::mouse("click /got/").unwrap(),
            18,
        ),
    ];
    let results = measure(&s, &inputs);
    println!("send round trip (send, then the program has read it), {ROUNDS} rounds each:");
    for ((name, ..), (med, p90)) in inputs.iter().zip(&results) {
        println!("  {name:<40} median {med:>7.1} us  p90 {p90:>7.1} us");
    }
    let (one, two) = (results[0].0, results[3].0);
    println!(
        "  ratios: kitty key {:.3}x, mouse press {:.3}x the plain key; click {:.3}x two plain keys (target <= 1.05x)",
        results[1].0 / one,
        results[2].0 / one,
        results[4].0 / two
    );
    s.kill().unwrap();
}
