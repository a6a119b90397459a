//! Embeds the rule files of `rules/` in the binary, so that `grafter serve` offers them as
//! examples wherever the binary is copied: writes `$OUT_DIR/examples.rs`, a sorted list of
//! (path, text) pairs read with `include_str!`.

use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let rules = root.join("rules");
    // A directory: cargo rebuilds when any file under it changes, appears or goes.
    println!("cargo:rerun-if-changed=rules");
    let mut files = Vec::new();
    collect(&rules, &mut files);
    files.sort();
    let mut out = String::from(
        "/// The rule files of `rules/` as (path from the repository's root, text), sorted.\n\
         pub const EXAMPLES: &[(&str, &str)] = &[\n",
    );
    for file in &files {
        let rel = file
            .strip_prefix(&root)
            .expect("under the root")
            .to_string_lossy()
            .replace('\\', "/");
        out.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            file.to_string_lossy()
        ));
    }
    out.push_str("];\n");
    let dest =
        PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("examples.rs");
    fs::write(dest, out).expect("OUT_DIR is writable");
}

/// Every `.graft` file under `dir`, at any depth.
fn collect(dir: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, files);
        } else if path.extension().is_some_and(|e| e == "graft") {
            files.push(path);
        }
    }
}
