//! The tests' optional programs as cfgs (see `build/optional.rs`).

include!("build/optional.rs");

fn main() {
    detect("build/optional.rs");
}
