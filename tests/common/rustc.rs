//! Building Rust that an export wrote, with the toolchain's rustc, against the library
//! this test was built with: what shows an exported or recorded test compiles and runs.
//! Shared by the library's tests and the command line's (`#[path]`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The folder of the test binaries' dependencies and the tuipilot rlib in it (the newest,
/// where several builds of it sit side by side).
pub fn library_beside_this_test() -> (PathBuf, PathBuf) {
    let deps = std::env::current_exe().unwrap().parent().unwrap().to_path_buf();
    let rlib = std::fs::read_dir(&deps)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().is_some_and(|n| {
                n.to_string_lossy().starts_with("libtuipilot-") && n.to_string_lossy().ends_with(".rlib")
            })
        })
        .max_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok())
        .expect("the tuipilot rlib beside this test");
    (deps, rlib)
}

/// The arguments that link a crate against [`library_beside_this_test`].
pub fn against_the_library() -> Vec<String> {
    let (deps, rlib) = library_beside_this_test();
    vec![
        "-L".into(),
        format!("dependency={}", deps.display()),
        "--extern".into(),
        format!("tuipilot={}", rlib.display()),
    ]
}

/// Compiles `source` with the toolchain's rustc into `dir`; panics with rustc's words.
pub fn compile(dir: &Path, name: &str, source: &str, extra: &[&str]) -> PathBuf {
    let file = dir.join(format!("{name}.rs"));
    std::fs::write(&file, source).unwrap();
    let out_file = dir.join(name);
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc)
        .args(["--edition", "2024", "-o"])
        .arg(&out_file)
        .args(extra)
        .arg(&file)
        .output()
        .expect("rustc runs");
    assert!(
        out.status.success(),
        "rustc refused the generated code:\n{}\n{source}",
        String::from_utf8_lossy(&out.stderr)
    );
    out_file
}

/// Compiles `source` (a test file an export or a recording wrote) as a test crate against
/// [`library_beside_this_test`], warnings denied (a warning in the user's build is a
/// defect), into `dir`, runs it and returns what it printed and how it ended.
pub fn run_as_test(dir: &Path, name: &str, source: &str) -> std::process::Output {
    let mut extra = vec!["--test".to_string(), "-D".into(), "warnings".into()];
    extra.extend(against_the_library());
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let binary = compile(dir, name, source, &extra);
    std::process::Command::new(&binary)
        .output()
        .expect("the compiled test runs")
}
