//! The rule files of `rules/`, embedded in the binary when it is built (by `build.rs`), so
//! that the playground offers them wherever the binary is copied.

use serde::Serialize;

include!(concat!(env!("OUT_DIR"), "/examples.rs"));

/// One example as the page lists it.
#[derive(Serialize)]
pub struct Example {
    /// The path in the repository: `rules/sudoku-4x4-centre.graft`.
    pub path: &'static str,
    /// The path without `rules/` and `.graft`: `sudoku-4x4-centre`, `encodings/groups-4x4`.
    pub name: &'static str,
    /// The file's first comment line, without its `//`.
    pub about: String,
    pub text: &'static str,
}

/// Every example, in the order of their paths.
pub fn examples() -> Vec<Example> {
    EXAMPLES
        .iter()
        .map(|&(path, text)| Example {
            path,
            name: path
                .strip_prefix("rules/")
                .unwrap_or(path)
                .strip_suffix(".graft")
                .unwrap_or(path),
            about: text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .and_then(|l| l.strip_prefix("//"))
                .map_or_else(String::new, |l| l.trim().to_string()),
            text,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_file_is_embedded_as_it_is() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let list = examples();
        assert!(list
            .iter()
            .any(|e| e.path == "rules/sudoku-4x4-centre.graft"));
        assert!(list.iter().any(|e| e.name == "encodings/groups-4x4"));
        for e in &list {
            let on_disk = std::fs::read_to_string(root.join(e.path)).unwrap();
            assert_eq!(e.text, on_disk, "{}", e.path);
        }
        let mut count = 0;
        let mut dirs = vec![root.join("rules")];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "graft") {
                    count += 1;
                }
            }
        }
        assert_eq!(list.len(), count);
    }
}
