//! What the published packages hold, read from the manifests: a registry page that renders
//! (no link or image into the repository, which a registry cannot resolve), and every file
//! the library's doctests include is in its package (the downloaded crate's `cargo test`
//! compiles them).

use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// A manifest's string value of `key` (`readme = "…"`), and its `include` list.
fn manifest(path: &Path) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(path).unwrap();
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key} = ")))
            .unwrap_or_else(|| panic!("{} has no {key}", path.display()))
            .to_string()
    };
    let readme = value("readme").trim_matches('"').to_string();
    let include = value("include")
        .trim_matches(['[', ']'])
        .split(',')
        .map(|p| p.trim().trim_matches('"').to_string())
        .filter(|p| !p.is_empty())
        .collect();
    (readme, include)
}

/// Whether `path` (relative to the package) is matched by one of `include`'s patterns
/// (`dir/**`, `dir/*.md`, or a file).
fn included(path: &str, include: &[String]) -> bool {
    include.iter().any(|pattern| match pattern.split_once('*') {
        None => pattern == path,
        Some((prefix, "*")) => path.starts_with(prefix),
        Some((prefix, suffix)) => {
            path.starts_with(prefix) && path.ends_with(suffix) && !path[prefix.len()..].contains('/')
        }
    })
}

#[test]
fn each_packages_registry_page_links_nothing_inside_the_repository() {
    let link = regex::Regex::new(r"\]\(([^)\s]+)\)").unwrap();
    for dir in [PathBuf::from(ROOT), Path::new(ROOT).join("cli")] {
        let (readme, include) = manifest(&dir.join("Cargo.toml"));
        assert!(
            included(&readme, &include),
            "{readme} is not in {}'s package",
            dir.display()
        );
        let text = std::fs::read_to_string(dir.join(&readme)).unwrap();
        for target in link.captures_iter(&text).map(|c| c[1].to_string()) {
            assert!(
                target.starts_with("https://") || target.starts_with('#'),
                "{}/{readme} links to `{target}`, which a registry cannot resolve",
                dir.display()
            );
        }
    }
}

#[test]
fn every_file_the_librarys_doctests_include_is_in_its_package() {
    let (_, include) = manifest(&Path::new(ROOT).join("Cargo.toml"));
    let lib = std::fs::read_to_string(Path::new(ROOT).join("src/lib.rs")).unwrap();
    let included_file = regex::Regex::new(r#"include_str!\("\.\./([^"]+)"\)"#).unwrap();
    let files: Vec<String> = included_file
        .captures_iter(&lib)
        .map(|c| c[1].to_string())
        .collect();
    assert!(files.len() > 10, "{files:?}");
    for file in files {
        assert!(
            included(&file, &include),
            "src/lib.rs includes {file}, which the package leaves out"
        );
    }
}
