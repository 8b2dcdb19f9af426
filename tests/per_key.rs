//! Keys sent one at a time, each once the program has read the last, to a program that
//! flushes input typed ahead after every key (`fixtures/flushes.py`, as ranger's
//! `flushinput` does): all of them reach it, where keys sent together lose all but the
//! first. Through the library, the one vocabulary (`Step::TextPerKey`,
//! `Step::KeysPerKey`), a tape (`Type+PerKey`, `Key+PerKey`) and an export of it.

mod common;

use std::time::Duration;

use tuipilot::operation::{Operation, Step};
use tuipilot::tape::{RunOptions, run_file};
use tuipilot::{Session, StartSpec};

const FLUSHES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/flushes.py");

fn flushes() -> Session {
    let s = Session::builder("python3")
        .args([FLUSHES])
        .timeout(Duration::from_secs(20))
        .spawn()
        .unwrap();
    s.wait_for_text("^keys: q quits").unwrap();
    s.wait_ready().unwrap();
    s
}

#[test]
fn keys_sent_together_lose_all_but_the_first_and_keys_sent_per_key_all_arrive() {
    let s = flushes();
    // The program's own behaviour, as with ranger: `zf` typed ahead runs `z` alone.
    s.send_text("zf").unwrap();
    s.wait_for_text("^got: z$").unwrap();
    s.wait_ready().unwrap();
    s.send_text_per_key("zf").unwrap();
    s.press_per_key(["Down", "a"]).unwrap();
    s.wait_for_text("^got: zzf<down>a$").unwrap();
    s.exit().unwrap();
}

#[test]
fn the_vocabulary_s_per_key_steps_deliver_every_key_and_export_as_per_key_lines() {
    let dir = common::TempDir::new("per-key");
    let spec = StartSpec::new(["python3".to_string(), FLUSHES.to_string()]);
    let s = spec.spawn().unwrap();
    s.wait_for_text("^keys: q quits").unwrap();
    s.wait_ready().unwrap();
    let send = Operation::Send {
        steps: vec![Step::TextPerKey("ab".into()), Step::KeysPerKey("Down c".into())],
        wait: Some(tuipilot::operation::WaitFor::Text("^got: ab<down>c$".into())),
        timeout_ms: None,
        capture: false,
        secret: false,
    };
    s.apply(&send).unwrap();
    s.apply(&Operation::capture_text()).unwrap();
    let log = s.operations();
    s.exit().unwrap();
    let exported = tuipilot::tape::export::to_tape(&spec, &log, "perkey", &Default::default()).unwrap();
    assert!(
        exported.tape.contains("Type+PerKey \"ab\"\nKey+PerKey Down c\n"),
        "{}",
        exported.tape
    );
    std::fs::write(dir.0.join("perkey.tape"), &exported.tape).unwrap();
    let (snap, text) = exported.snapshot.unwrap();
    std::fs::write(dir.0.join(snap), text).unwrap();
    for run in 1..=3 {
        let report = run_file(dir.0.join("perkey.tape"), &RunOptions::default());
        assert!(report.is_ok(), "replay {run}:\n{}\n{report:?}", exported.tape);
    }
    let rust = tuipilot::tape::export::to_rust(&spec, &log, "per_key", &Default::default()).unwrap();
    assert!(
        rust.contains("s.send_text_per_key(\"ab\")?;")
            && rust.contains("s.press_per_key([\"Down\", \"c\"])?;"),
        "{rust}"
    );
}
