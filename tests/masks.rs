//! A mask stands for text of any length: the fuzz harness's `masks` target over a fixed set
//! of its inputs, and two real programs whose pids differ masking to one golden text.

mod common;

#[allow(dead_code)]
#[path = "../cli/examples/fuzz/masks.rs"]
mod masks_fuzz;
#[allow(dead_code)]
#[path = "../cli/examples/fuzz/rng.rs"]
mod rng;
use rng::Rng;

#[test]
fn any_generated_text_masks_to_the_same_golden_whatever_the_length_of_what_changed() {
    let mut rng = Rng(0x6d61_736b);
    for _ in 0..500 {
        let input = masks_fuzz::masks_input(&mut rng);
        let mut fill = Rng(rng.next());
        if let Err(why) = masks_fuzz::check_masks(&mut fill, &input) {
            panic!("{:?}: {why}", String::from_utf8_lossy(&input));
        }
    }
}

#[test]
fn two_runs_whose_pid_and_counter_grew_a_digit_capture_the_same_masked_text() {
    let capture = |n: u32| {
        let s = common::sh(&format!(
            "echo \"pid $$ run {n} /tmp/pytest-{n}/app done\"; sleep 30"
        ));
        s.wait_for_text("done$").unwrap();
        let mut capture = tuipilot::Operation::capture_text();
        if let tuipilot::Operation::Capture { mask, .. } = &mut capture {
            *mask = vec![r"pid \d+".into(), r"run \d+".into(), r"pytest-\d+".into()];
        }
        let screen = s.apply(&capture).unwrap();
        let tuipilot::Reply::Screen { screen } = screen else {
            panic!("{screen:?}")
        };
        screen.text
    };
    let (nine, ten) = (capture(9), capture(10));
    assert_eq!(nine, ten);
    assert_eq!(
        nine.lines().next(),
        Some("[masked] [masked] /tmp/[masked]/app done")
    );
}
