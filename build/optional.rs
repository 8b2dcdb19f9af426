// Which optional programs, Python modules and fonts the tests can use, decided when the
// tests are built (included by the build scripts of both packages). Each one found sets
// `cfg(have_NAME)`, so a test that needs a missing one is compiled as ignored with the
// reason — `#[cfg_attr(not(have_zsh), ignore = "needs zsh")]` — and `cargo test` counts
// it as ignored, never as passed. `cfg(tuipilot_ci)` is set when `CI` is: there a test
// fails on anything missing (`tests/environment.rs`). Only `PATH`, a few font files and
// one `python3` call are looked at; nothing in the library itself uses these cfgs.

/// Programs the tests drive when they are installed: (cfg name, program names).
const PROGRAMS: &[(&str, &[&str])] = &[
    ("tmux", &["tmux"]),
    ("vim", &["vim"]),
    ("zsh", &["zsh"]),
    ("fish", &["fish"]),
    ("dialog", &["dialog"]),
    ("emacs", &["emacs"]),
    ("mc", &["mc"]),
    ("htop", &["htop"]),
    ("chafa", &["chafa"]),
    ("timg", &["timg"]),
    ("chromium", &["chromium", "chromium-browser"]),
    ("tabs", &["tabs"]),
    ("vttest", &["vttest"]),
];

/// Python modules: (cfg name, module).
const MODULES: &[(&str, &str)] = &[
    ("prompt_toolkit", "prompt_toolkit"),
    ("fonttools", "fontTools"),
    ("textual", "textual"),
];

/// Font files: (cfg name, the files that must all be there).
const FONTS: &[(&str, &[&str])] = &[
    (
        "noto",
        &[
            "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
            "/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf",
        ],
    ),
    ("noto_cjk_bold", &["/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc"]),
];

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

fn python_modules() -> Vec<String> {
    let wanted: Vec<&str> = MODULES.iter().map(|(_, m)| *m).collect();
    let script = format!(
        "import importlib.util as u\nfor m in {wanted:?}:\n    print(m if u.find_spec(m) else '')"
    );
    std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Sets the cfgs; `this_file` is this file's path from the package (for
/// `rerun-if-changed`: cargo tracks only the build script itself).
fn detect(this_file: &str) {
    println!("cargo::rerun-if-changed={this_file}");
    println!("cargo::rerun-if-env-changed=PATH");
    println!("cargo::rerun-if-env-changed=CI");
    // Installing a program or a font changes its folder: look again then.
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path).filter(|d| d.is_dir()) {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
    }
    for dir in ["/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/noto"] {
        if std::path::Path::new(dir).is_dir() {
            println!("cargo::rerun-if-changed={dir}");
        }
    }
    let found = |name: &str, present: bool| {
        println!("cargo::rustc-check-cfg=cfg(have_{name})");
        if present {
            println!("cargo::rustc-cfg=have_{name}");
        }
    };
    for (name, programs) in PROGRAMS {
        found(name, programs.iter().any(|p| on_path(p)));
    }
    let modules = python_modules();
    for (name, module) in MODULES {
        found(name, modules.iter().any(|m| m == module));
    }
    for (name, files) in FONTS {
        found(name, files.iter().all(|f| std::path::Path::new(f).is_file()));
    }
    println!("cargo::rustc-check-cfg=cfg(tuipilot_ci)");
    if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) {
        println!("cargo::rustc-cfg=tuipilot_ci");
    }
}
