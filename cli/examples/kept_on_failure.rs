//! A test that fails with its program still running, as `cargo test` runs one (on a thread
//! named after the test): run it with `TUIPILOT_KEEP=1` and its session is kept for a
//! person to attach to, as the line it prints on stderr says.
//!
//! ```sh
//! TUIPILOT_KEEP=1 cargo run -p tuipilot-cli --example kept_on_failure
//! ```
//!
//! The command line's tests run it to check what a person sees of a kept session.

use std::time::Duration;

use tuipilot::Session;

fn main() {
    let test = std::thread::Builder::new()
        .name("menus::a_menu_opens_on_f9".into())
        .spawn(|| {
            let session = Session::builder("bash")
                .args(["--norc", "--noprofile"])
                .env("PS1", "$ ")
                .timeout(Duration::from_secs(10))
                .spawn()
                .expect("bash starts");
            session
                .send_text("echo the screen the test left\n")
                .expect("typed");
            session
                .wait_for_text("^the screen the test left$")
                .expect("echoed");
            // The test's own failure, with the session alive: `TUIPILOT_KEEP` keeps it
            // while this panic unwinds.
            panic!("the menu did not open");
        })
        .expect("the test's thread starts");
    let failed = test.join().is_err();
    std::process::exit(if failed { 101 } else { 0 });
}
