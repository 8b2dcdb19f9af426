//! The library's layers, kept: each top-level module's imports are read from `src/` (its
//! `use crate::…` and `crate::…` paths, its unit tests and comments left out) and checked
//! against the table of layers in the guide's architecture chapter
//! (`docs/src/architecture.md`). A module imports only from the layers below its own; a
//! circle of imports, an import up or sideways, or a module the table does not place fails
//! here, so the rule holds without anyone remembering it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first, as the architecture chapter's table lists them: rows
/// `| N | `module`, `module` | … |`.
fn layers() -> BTreeMap<String, usize> {
    let chapter = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/architecture.md");
    let text = std::fs::read_to_string(&chapter).unwrap();
    let row = regex::Regex::new(r"^\| (\d+) \| ([^|]+) \|").unwrap();
    let name = regex::Regex::new(r"`([a-z_]+)`").unwrap();
    let mut placed = BTreeMap::new();
    for line in text.lines() {
        if let Some(c) = row.captures(line) {
            let layer: usize = c[1].parse().unwrap();
            for m in name.captures_iter(&c[2]) {
                let earlier = placed.insert(m[1].to_string(), layer);
                assert!(
                    earlier.is_none(),
                    "`{}` is placed twice in {}",
                    &m[1],
                    chapter.display()
                );
            }
        }
    }
    assert!(
        !placed.is_empty(),
        "no table of layers found in {}",
        chapter.display()
    );
    placed
}

/// The text of `source` without comments, string contents and `#[cfg(test)]` items.
fn code_of(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at..];
        // The item the attribute is on: up to its `;`, or its `{ … }` block.
        let brace = after.find('{');
        let semi = after.find(';');
        match (brace, semi) {
            (Some(b), Some(s)) if s < b => rest = &after[s + 1..],
            (Some(b), _) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (i, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + i + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            (None, Some(s)) => rest = &after[s + 1..],
            (None, None) => rest = "",
        }
    }
    out.push_str(rest);
    out.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The `.rs` files of a top-level module: `src/NAME.rs`, or everything under `src/NAME/`
/// but unit-test files.
fn files_of(src: &Path, module: &str) -> Vec<PathBuf> {
    let file = src.join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut files = Vec::new();
    let mut todo = vec![src.join(module)];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "tests") {
                    todo.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                files.push(path);
            }
        }
    }
    files
}

/// Each top-level module and the top-level modules it names.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules: BTreeSet<String> = std::fs::read_dir(&src)
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let name = name.strip_suffix(".rs").map(str::to_string).unwrap_or(name);
            (name != "lib").then_some(name)
        })
        .collect();
    let path = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    modules
        .iter()
        .map(|module| {
            let named: BTreeSet<String> = files_of(&src, module)
                .iter()
                .flat_map(|file| {
                    let code = code_of(&std::fs::read_to_string(file).unwrap());
                    path.captures_iter(&code)
                        .map(|c| c[1].to_string())
                        .collect::<Vec<_>>()
                })
                .filter(|m| m != module && modules.contains(m))
                .collect();
            (module.clone(), named)
        })
        .collect()
}

/// The circles: strongly connected groups of more than one module (Tarjan's algorithm).
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<BTreeSet<String>> {
    struct Walk<'g> {
        graph: &'g BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, v: &'g str) {
            let n = self.index.len();
            self.index.insert(v, n);
            self.low.insert(v, n);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.graph.get(v).into_iter().flatten() {
                let w = w.as_str();
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.low[v].min(self.low[w]);
                    self.low.insert(v, low);
                } else if self.on_stack.contains(w) {
                    let low = self.low[v].min(self.index[w]);
                    self.low.insert(v, low);
                }
            }
            if self.low[v] == self.index[v] {
                let mut group = BTreeSet::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    group.insert(w.to_string());
                    if w == v {
                        break;
                    }
                }
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in graph.keys() {
        if !walk.index.contains_key(module.as_str()) {
            walk.visit(module);
        }
    }
    walk.found
}

#[test]
fn the_library_has_no_circle_of_imports() {
    let graph = imports();
    let found = circles(&graph);
    let listing: Vec<String> = found
        .iter()
        .map(|group| {
            group
                .iter()
                .map(|m| format!("{m} -> {:?}", graph[m].intersection(group).collect::<Vec<_>>()))
                .collect::<Vec<_>>()
                .join("\n  ")
        })
        .collect();
    assert!(
        found.is_empty(),
        "circles of imports among the library's modules:\n  {}\nimport only from below (see the architecture chapter)",
        listing.join("\n\n  ")
    );
}

#[test]
fn every_module_imports_only_from_the_layers_below_its_own() {
    let graph = imports();
    let layer = layers();
    let unplaced: Vec<&String> = graph.keys().filter(|m| !layer.contains_key(*m)).collect();
    assert!(
        unplaced.is_empty(),
        "{unplaced:?} are not in the table of layers in docs/src/architecture.md: add each to the lowest layer above everything it imports"
    );
    let gone: Vec<&String> = layer.keys().filter(|m| !graph.contains_key(*m)).collect();
    assert!(
        gone.is_empty(),
        "{gone:?} are in the table of layers but not in src/: strike them"
    );
    let mut wrong = Vec::new();
    for (module, named) in &graph {
        for target in named {
            if layer[target] >= layer[module] {
                wrong.push(format!(
                    "{module} (layer {}) imports {target} (layer {})",
                    layer[module], layer[target]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports that go up or sideways:\n  {}\nmove what is shared down (the lower module owns the data, the higher one the behaviour), or change the layers in docs/src/architecture.md",
        wrong.join("\n  ")
    );
}

#[test]
fn the_reader_finds_a_circle_and_skips_unit_tests_and_comments() {
    let code = code_of(
        "use crate::a::X; // crate::b in a comment\n#[cfg(test)]\nmod tests {\n    use crate::c::Y;\n}\nfn f() { crate::d::g(); }\n",
    );
    assert!(code.contains("crate::a") && code.contains("crate::d"), "{code}");
    assert!(!code.contains("crate::b") && !code.contains("crate::c"), "{code}");
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, to)| (m.to_string(), to.into_iter().map(String::from).collect()))
    .collect();
    let found = circles(&graph);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0], ["a", "b", "c"].map(String::from).into_iter().collect());
}
