//! Links the `tuipilot` binary as a fixed-address (non-PIE) executable.
//!
//! Every CLI call starts the binary anew. As a position-independent executable it
//! applies thousands of relocations at start-up, copying every page of its
//! relocation-read-only data; linked at a fixed address it applies a few hundred. Measured
//! after the library/binary split, release build with LTO, `capture` of an idle session:
//! 1.44 ms and 145 page faults without PIE, 1.57 ms and 191 with it (`perf stat -r 300`;
//! interleaved medians of 600: 1.50 vs 1.67 ms, `/bin/true` 0.85 ms). The code is still
//! compiled position-independent, so the library, the tests and proc-macros are
//! unaffected; the executable alone gives up address randomisation of its own image (its
//! heap, stack and libraries keep theirs).

fn main() {
    // Nothing here depends on the sources: rerun only when this file changes.
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
