#!/usr/bin/env bash
# What a user's debug `cargo test` sees: a fresh crate that depends on tuipilot renders an
# 80x24 screen (plain and bold text, box drawing) twice, built with no profile stanza, with
# the narrow one the guide recommends (only the rendering crates optimised) and with every
# dependency optimised (`"*"`), each from a clean target directory; prints the clean
# `cargo test --no-run` time, the crate count and the first and second render of each,
# next to a vt100 + portable-pty baseline crate; and whether the `harness` feature brings
# clap. Target: first render <= 100 ms without the stanza.
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
render() { cargo test -q --test first_render -- --nocapture 2>/dev/null | grep RESULT | cut -d' ' -f2-; }

# The smallest stanza that keeps rendering fast: the crates the renderer spends its time
# in (rasterising, blending, PNG encoding), and tuipilot itself.
narrow() {
  for crate in tuipilot fontdue ttf-parser hashbrown tiny-skia tiny-skia-path arrayvec arrayref bytemuck png fdeflate flate2 miniz_oxide adler2 simd-adler32 crc32fast; do
    printf '\n[profile.dev.package.%s]\nopt-level = 2\n' "$crate"
  done
}

cd "$work/base"
echo "baseline (vt100 + portable-pty): clean test build $(build), $(( $(crates) - 1 )) crates"
cd "$work/dep"
cp Cargo.toml Cargo.toml.plain
for variant in none narrow all; do
  cp Cargo.toml.plain Cargo.toml
  case $variant in
    narrow) narrow >> Cargo.toml ;;
    all) printf '\n[profile.dev.package."*"]\nopt-level = 2\n' >> Cargo.toml ;;
  esac
  export CARGO_TARGET_DIR="$work/target-$variant"
  echo "stanza $variant: clean test build $(build), $(( $(crates) - 1 )) crates; $(render)"
done
unset CARGO_TARGET_DIR
cp Cargo.toml.plain Cargo.toml
sed -i 's|tuipilot = { path = "\([^"]*\)" }|tuipilot = { path = "\1", features = ["harness"] }|' Cargo.toml
echo "with the harness feature: $(( $(crates) - 1 )) crates; clap among them: $(cargo tree -e normal,dev --prefix none 2>/dev/null | grep -c '^clap ' || true)"
echo "target: first render <= 100 ms without the stanza"
