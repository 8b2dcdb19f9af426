//! Links the `tuipilot` binary as a fixed-address (non-PIE) executable.
//!
//! Every CLI call starts the binary anew. As a position-independent executable it
//! applies ~19,000 relocations at start-up, copying every page of its relocation-read-only
//! data; linked at a fixed address it applies ~160, which cuts a few tenths of a
//! millisecond from each call. The code is still compiled position-independent, so the
//! library, the tests and proc-macros are unaffected; the executable alone gives up
//! address randomisation of its own image (its heap, stack and libraries keep theirs).

fn main() {
    // Nothing here depends on the sources: rerun only when this file changes.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
