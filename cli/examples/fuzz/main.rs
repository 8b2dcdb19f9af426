//! The fuzz harness that stays: random and mutated inputs through everything that reads
//! what the outside world sends, on the stable toolchain.
//!
//! Targets:
//! - `terminal`: program output through [`Terminal`] at a random size — fragments of
//!   escape sequences, strings, UTF-8 and controls, huge parameters — fed whole, byte by
//!   byte, and split at every boundary (short inputs) or at random ones (long inputs); the
//!   screens and replies must be the same every way, and the parser must not fault;
//! - `keys`: the key grammar (`Key::parse`, `parse_key_list`) and every parsed key's
//!   encoding in both cursor modes;
//! - `protocol`: the host's request-line parser on mutated valid requests and noise;
//! - `tape`: the tape parser on mutated real tapes, on soups of the language's own
//!   tokens and on tapes typing megabytes; every error must be one line at a place inside
//!   the tape, every command's place and text must be the tape's, and parsing twice must
//!   give the same result;
//! - `paste`: pastes made of bracketed-paste markers, whole, nested and split: the
//!   encoded paste must hold no marker between its own;
//! - `export`: any text a session logged, exported as a tape, parses back into exactly
//!   the operations logged, and as a Rust test adds no line of its own;
//! - `masks`: a program's text whose changing parts (pids, counters, temporary folders)
//!   grow or shrink masks to the same golden text, with nothing the mask matched left;
//! - `typed`: any bytes a person types into a watched or recorded session, exported,
//!   parse back into tape commands that send exactly those bytes; mouse reports read back
//!   as the events that encode them.
//!
//! Zero panics and zero hangs: each input runs under a time bound ([`PER_INPUT`]); a
//! panic, a hang, a fault or a split that changes the screen stops the run, writes the
//! input to `fuzz-failure-TARGET.bin` and exits 1. Counts are printed per target.
//!
//! `cargo run --release -p tuipilot-cli --example fuzz -- [--seconds N] [--seed S]`
//!
//! Each target's inputs and checks are in a module of its own.

#![allow(dead_code, missing_docs)]

#[path = "../../src/error.rs"]
mod error;
mod export;
mod keys;
mod masks;
mod paste;
mod requests;
mod rng;
mod tapes;
mod terminal;
mod typed;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use export::{check_export, export_input};
use keys::{check_keys, keys_input};
use masks::{check_masks, masks_input};
use paste::{check_paste, paste_input};
use requests::{check_protocol, protocol_input};
use tapes::{check_tape, tape_input};
use terminal::{check_terminal, terminal_input};
use typed::{check_typed, typed_input};

/// The longest any one input may take.
const PER_INPUT: Duration = Duration::from_secs(5);

pub(crate) use rng::Rng;

/// Runs `check` on `input` with a panic guard; the watchdog catches hangs.
fn run_one(target: &str, input: &[u8], check: impl FnOnce() -> Result<(), String>) {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(check))
        .unwrap_or_else(|panic| Err(format!("panicked: {}", panic_message(&*panic))));
    if let Err(why) = outcome {
        fail(target, input, &why);
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic".into())
}

fn fail(target: &str, input: &[u8], why: &str) -> ! {
    let file = format!("fuzz-failure-{target}.bin");
    let _ = std::fs::write(&file, input);
    eprintln!(
        "fuzz: {target}: {why}; the input is in {file} ({} bytes)",
        input.len()
    );
    std::process::exit(1)
}

fn main() {
    let mut seconds = 10u64;
    let mut seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64);
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--seconds", Some(v)) => seconds = v,
            ("--seed", Some(v)) => seed = v,
            _ => {
                eprintln!("usage: fuzz [--seconds N] [--seed S]");
                std::process::exit(2);
            }
        }
    }
    // A hang is an input still running after PER_INPUT: the watchdog reports it.
    let current: Arc<Mutex<(&'static str, Vec<u8>, Instant)>> =
        Arc::new(Mutex::new(("none", Vec::new(), Instant::now())));
    let done = Arc::new(AtomicU64::new(0));
    {
        let current = current.clone();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(Duration::from_millis(250));
                let (target, input, started) = current.lock().unwrap_or_else(|p| p.into_inner()).clone();
                if started.elapsed() > PER_INPUT {
                    fail(
                        target,
                        &input,
                        &format!("one input ran over {} s", PER_INPUT.as_secs()),
                    );
                }
            }
        });
    }
    std::panic::set_hook(Box::new(|_| {}));
    println!("fuzz: seed {seed}, {seconds} s");
    let mut rng = Rng(seed);
    let mut counts = [0u64; 8];
    let mut bytes = 0u64;
    let deadline = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < deadline {
        for (i, target) in [
            "terminal", "keys", "protocol", "tape", "paste", "export", "typed", "masks",
        ]
        .into_iter()
        .enumerate()
        {
            let input = match i {
                0 => terminal_input(&mut rng),
                1 => keys_input(&mut rng).into_bytes(),
                2 => protocol_input(&mut rng),
                3 => tape_input(&mut rng),
                4 => paste_input(&mut rng).into_bytes(),
                5 => export_input(&mut rng),
                6 => typed_input(&mut rng),
                _ => masks_input(&mut rng),
            };
            *current.lock().unwrap_or_else(|p| p.into_inner()) = (target, input.clone(), Instant::now());
            bytes += input.len() as u64;
            let mut split_rng = Rng(rng.next());
            match i {
                0 => run_one(target, &input, || check_terminal(&mut split_rng, &input)),
                1 => run_one(target, &input, || check_keys(&String::from_utf8_lossy(&input))),
                2 => run_one(target, &input, || check_protocol(&input)),
                3 => run_one(target, &input, || check_tape(&String::from_utf8_lossy(&input))),
                4 => run_one(target, &input, || check_paste(&String::from_utf8_lossy(&input))),
                5 => run_one(target, &input, || check_export(&input)),
                6 => run_one(target, &input, || check_typed(&input)),
                _ => run_one(target, &input, || check_masks(&mut split_rng, &input)),
            }
            counts[i] += 1;
        }
        done.fetch_add(1, Ordering::Relaxed);
    }
    println!(
        "fuzz: no panics, hangs or faults in {} terminal streams (whole, split, byte by byte), {} key specs, {} protocol lines, {} tapes, {} pastes, {} exports round-tripped, {} typed inputs replayed, {} masked screens; {:.1} MB of input",
        counts[0],
        counts[1],
        counts[2],
        counts[3],
        counts[4],
        counts[5],
        counts[6],
        counts[7],
        bytes as f64 / 1e6
    );
}
