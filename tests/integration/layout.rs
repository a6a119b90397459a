//! The library's folders depend one way: the `use crate::` and `use super::` lines of src/
//! drawn as a graph between top-level modules have no cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level modules named by the `use` statements of one file's text, outside its
/// `#[cfg(test)]` part (tests may reach up the layers). `own` is the file's own module and
/// `at_root` says whether `super::` names the crate root (a folder's mod.rs).
fn imports(text: &str, own: &str, at_root: bool) -> BTreeSet<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    let mut found = BTreeSet::new();
    let mut statement = String::new();
    for line in code.lines() {
        let line = line.trim();
        if statement.is_empty() && !(line.starts_with("use ") || line.starts_with("pub use ")) {
            continue;
        }
        statement.push_str(line);
        if !line.ends_with(';') {
            continue;
        }
        let path = statement
            .trim_start_matches("pub ")
            .trim_start_matches("use ");
        let rest = if let Some(rest) = path.strip_prefix("crate::") {
            Some(rest)
        } else if at_root {
            path.strip_prefix("super::")
        } else {
            None
        };
        if let Some(rest) = rest {
            // `crate::{a::X, b}` names several modules; `crate::a::...` one.
            let names = match rest.strip_prefix('{') {
                Some(group) => group.split(',').map(str::to_string).collect(),
                None => vec![rest.to_string()],
            };
            for name in names {
                let name: String = name
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != own && name != "self" {
                    found.insert(name);
                }
            }
        }
        statement.clear();
    }
    found
}

/// A cycle in `graph`, as the list of its nodes with the first repeated at the end.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut cycle = path[at..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

/// The folder-level import graph of src/ (main.rs, the binary, left out).
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src).unwrap();
        let parts: Vec<_> = relative
            .iter()
            .map(|p| p.to_string_lossy().to_string())
            .collect();
        if parts.len() == 1 && (parts[0] == "main.rs" || parts[0] == "lib.rs") {
            continue;
        }
        let own = parts[0].trim_end_matches(".rs").to_string();
        let at_root = parts.len() == 1 || (parts.len() == 2 && parts[1] == "mod.rs");
        let text = std::fs::read_to_string(&file).unwrap();
        graph
            .entry(own.clone())
            .or_default()
            .extend(imports(&text, &own, at_root));
    }
    graph
}

#[test]
fn folders_import_without_cycles() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    assert!(graph["engine"].contains("slot") && graph["slot"].contains("explore"));
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "the modules of src/ import in a cycle: {}",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn a_cycle_is_found() {
    let graph = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_string(), BTreeSet::from([to.to_string()])))
        .collect();
    assert_eq!(find_cycle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let text = "use crate::{slot::Mask, output};\nuse super::x;\n#[cfg(test)]\nuse crate::engine;";
    assert_eq!(
        imports(text, "explore", true),
        BTreeSet::from(["output", "slot", "x"].map(String::from))
    );
}
