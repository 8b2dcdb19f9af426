#!/usr/bin/env bash
# What a user's debug `cargo test` sees: a fresh crate that depends on tuipilot renders an
# 80x24 screen (plain and bold text, box drawing) twice, built without and then with the
# profile stanza the guide recommends; prints the first and second render of each, and
# the clean `cargo test --no-run` time and crate count next to a vt100 + portable-pty
# baseline crate. Target: first render <= 100 ms without the stanza.
#
#   bash benches/dependent_debug.sh
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/tuipilot-dependent-XXXXXX)
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/dep/src" "$work/dep/tests" "$work/base/src" "$work/base/tests"
cat > "$work/dep/Cargo.toml" <<TOML
[package]
name = "dep"
version = "0.1.0"
edition = "2024"

[dev-dependencies]
tuipilot = { path = "$repo" }
TOML
: > "$work/dep/src/lib.rs"
cat > "$work/dep/tests/first_render.rs" <<'RS'
#[test]
fn first_render() {
    let mut t = tuipilot::Terminal::new(80, 24).unwrap();
    t.process("\x1b[1;31mhello\x1b[0m world ── ok".as_bytes());
    let snap = t.snapshot();
    let opts = tuipilot::render::RenderOptions::default();
    let start = std::time::Instant::now();
    snap.to_png(&opts).unwrap();
    let first = start.elapsed();
    let start = std::time::Instant::now();
    snap.to_png(&opts).unwrap();
    let second = start.elapsed();
    println!("RESULT first render {:.1} ms, then {:.1} ms", first.as_secs_f64() * 1e3, second.as_secs_f64() * 1e3);
}
RS
cat > "$work/base/Cargo.toml" <<'TOML'
[package]
name = "base"
version = "0.1.0"
edition = "2024"

[dev-dependencies]
vt100 = "0.18"
portable-pty = "0.9"
TOML
: > "$work/base/src/lib.rs"
echo '#[test] fn t() { let _ = vt100::Parser::default(); let _ = portable_pty::native_pty_system(); }' > "$work/base/tests/t.rs"

crates() { cargo tree -e normal,dev --prefix none 2>/dev/null | sed 's/ (\*)//; s/ (proc-macro)//' | sort -u | wc -l; }
build() {
  local start end
  start=$(date +%s%N)
  cargo test --no-run -q 2>/dev/null
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 )) ms"
}

cd "$work/base"
echo "baseline (vt100 + portable-pty): clean test build $(build), $(( $(crates) - 1 )) crates"
cd "$work/dep"
echo "tuipilot dependent:              clean test build $(build), $(( $(crates) - 1 )) crates"
echo "without the profile stanza: $(cargo test -q --test first_render -- --nocapture 2>/dev/null | grep RESULT | cut -d' ' -f2-)"
printf '\n[profile.dev.package."*"]\nopt-level = 2\n' >> Cargo.toml
echo "with the profile stanza:    $(cargo test -q --test first_render -- --nocapture 2>/dev/null | grep RESULT | cut -d' ' -f2-)"
echo "target: first render <= 100 ms without the stanza"
