//! Looks, when the tests are built, for the optional programs, Python modules and fonts they
//! can use, and writes what it found for the `needs` attribute (`src/lib.rs`).
//!
//! This is the whole of the tests' environment detection, and it lives in this unpublished
//! crate so that nothing in a user's build scans `PATH` or runs `python3`: the published
//! packages (the library, the CLI) have no build script, and they reach this crate only as a
//! path-only dev-dependency, which cargo leaves out of a package.
//!
//! Only `PATH`, a few font files and one `python3` call are looked at. Installing a program
//! or a font changes its folder, which makes cargo run this again (and rebuild the tests).

use std::path::Path;

/// How one requirement is found.
enum Look {
    /// Any of these programs on `PATH`.
    Program(&'static [&'static str]),
    /// A module `python3` can import.
    Module(&'static str),
    /// All of these files.
    Files(&'static [&'static str]),
}

/// Every optional requirement: (the name tests write in `#[needs(…)]`, what a reader is told
/// is missing, how it is found).
const OPTIONAL: &[(&str, &str, Look)] = &[
    ("tmux", "tmux", Look::Program(&["tmux"])),
    ("vim", "vim", Look::Program(&["vim"])),
    ("zsh", "zsh", Look::Program(&["zsh"])),
    ("fish", "fish", Look::Program(&["fish"])),
    ("dialog", "dialog", Look::Program(&["dialog"])),
    ("emacs", "emacs", Look::Program(&["emacs"])),
    ("mc", "mc", Look::Program(&["mc"])),
    ("htop", "htop", Look::Program(&["htop"])),
    ("chafa", "chafa", Look::Program(&["chafa"])),
    ("timg", "timg", Look::Program(&["timg"])),
    (
        "chromium",
        "chromium",
        Look::Program(&["chromium", "chromium-browser"]),
    ),
    ("tabs", "tabs from ncurses-bin", Look::Program(&["tabs"])),
    ("vttest", "vttest", Look::Program(&["vttest"])),
    ("screen", "GNU screen", Look::Program(&["screen"])),
    ("watch", "watch from procps", Look::Program(&["watch"])),
    ("top", "top from procps", Look::Program(&["top"])),
    ("nmon", "nmon", Look::Program(&["nmon"])),
    ("fzf", "fzf", Look::Program(&["fzf"])),
    ("less", "less", Look::Program(&["less"])),
    ("ranger", "ranger", Look::Program(&["ranger"])),
    (
        "prompt_toolkit",
        "Python's prompt_toolkit",
        Look::Module("prompt_toolkit"),
    ),
    ("fonttools", "Python's fontTools", Look::Module("fontTools")),
    ("textual", "Python's Textual", Look::Module("textual")),
    (
        "noto",
        "the Noto fonts (fonts-noto-cjk, fonts-noto-color-emoji)",
        Look::Files(&[
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
            "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
        ]),
    ),
    (
        "noto_cjk_bold",
        "Noto Sans CJK Bold (fonts-noto-cjk)",
        Look::Files(&["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"]),
    ),
];

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// The modules of [`OPTIONAL`] that `python3` can import (none without a `python3`).
fn importable_modules() -> Vec<String> {
    let wanted: Vec<&str> = OPTIONAL
        .iter()
        .filter_map(|(_, _, look)| match look {
            Look::Module(module) => Some(*module),
            _ => None,
        })
        .collect();
    let script =
        format!("import importlib.util as u\nfor m in {wanted:?}:\n    print(m if u.find_spec(m) else '')");
    std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| {
            String::from_utf8_lossy(&out.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path).filter(|dir| dir.is_dir()) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    for (_, _, look) in OPTIONAL {
        if let Look::Files(files) = look {
            for dir in files.iter().filter_map(|file| Path::new(file).parent()) {
                if dir.is_dir() {
                    println!("cargo::rerun-if-changed={}", dir.display());
                }
            }
        }
    }
    let modules = importable_modules();
    let mut found = String::from("/// (name, what a reader is told, found).\n");
    found.push_str("const OPTIONAL: &[(&str, &str, bool)] = &[\n");
    for (name, what, look) in OPTIONAL {
        let present = match look {
            Look::Program(programs) => programs.iter().any(|program| on_path(program)),
            Look::Module(module) => modules.iter().any(|m| m == module),
            Look::Files(files) => files.iter().all(|file| Path::new(file).is_file()),
        };
        found.push_str(&format!("    ({name:?}, {what:?}, {present}),\n"));
    }
    found.push_str("];\n");
    let ci = std::env::var_os("CI").is_some_and(|value| !value.is_empty());
    found.push_str(&format!(
        "/// Whether `CI` was set when the tests were built.\nconst CI: bool = {ci};\n"
    ));
    let out = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
    let path = Path::new(&out).join("found.rs");
    if let Err(error) = std::fs::write(&path, found) {
        panic!("writing {}: {error}", path.display());
    }
}
