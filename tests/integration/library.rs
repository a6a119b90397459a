//! The constraint library's f-puzzles families in `rules/fpuzzles/`: each file's rule text is what the
//! importer writes for its recorded puzzle (so the two cannot drift), and each puzzle's
//! count is pinned and equals a brute force, every solution passing the independent check.

use serde_json::Value;

use crate::fpuzzles::{all_4x4, import, satisfies, values};
use std::path::PathBuf;

use crate::support::{grafter, root};

/// Each library file and its puzzle's number of solutions.
const LIBRARY: &[(&str, usize)] = &[
    ("little-killer-4x4", 3),
    ("sandwich-4x4", 4),
    ("arrow-4x4", 6),
    ("kropki-4x4", 1),
    ("xv-4x4", 2),
    ("between-4x4", 4),
    ("quadruple-4x4", 6),
    ("anti-king-5x5", 2),
    ("disjoint-groups-4x4", 5),
    ("palindrome-4x4", 6),
    ("x-sum-4x4", 6),
    ("clone-4x4", 6),
    ("indexers-4x4", 4),
    ("entropic-4x4", 6),
    ("modular-4x4", 6),
    ("zipper-4x4", 2),
    ("region-sum-4x4", 6),
    ("nabner-4x4", 4),
    ("double-arrow-4x4", 6),
    ("min-max-4x4", 2),
    ("slow-thermometer-4x4", 2),
];

/// A file of the library: `rules/fpuzzles/NAME.EXT`.
fn library_file(name: &str, ext: &str) -> PathBuf {
    root().join(format!("rules/fpuzzles/{name}.{ext}"))
}

/// The recorded f-puzzles JSON of each library file (`tests/data/fpuzzles/library.tsv`).
fn recorded() -> Vec<(String, Value)> {
    let path = root().join("tests/data/fpuzzles/library.tsv");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (name, json) = l.split_once('\t').expect("name<TAB>json");
            (name.to_string(), serde_json::from_str(json).unwrap())
        })
        .collect()
}

/// A rule file's text from its first line that is not a comment (the header differs: the
/// library's states the puzzle's rules in words).
fn body(text: &str) -> String {
    text.lines()
        .skip_while(|l| l.starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A puzzle file's lines without their `#` comments.
fn puzzle_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim_end().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

/// Every 5x5 Latin square, row-major (a size of 5 has boxes of one row: rows and columns).
fn all_latin_5x5() -> Vec<Vec<i64>> {
    fn fill(g: &mut Vec<i64>, out: &mut Vec<Vec<i64>>) {
        let i = g.len();
        if i == 25 {
            out.push(g.clone());
            return;
        }
        let (r, c) = (i / 5, i % 5);
        for x in 1..=5 {
            let clash = (0..c).any(|k| g[r * 5 + k] == x) || (0..r).any(|k| g[k * 5 + c] == x);
            if !clash {
                g.push(x);
                fill(g, out);
                g.pop();
            }
        }
    }
    let mut out = Vec::new();
    fill(&mut Vec::new(), &mut out);
    out
}

/// Whether `g` holds the givens of `doc`'s `grid`.
fn keeps_givens(doc: &Value, g: &[i64], n: usize) -> bool {
    let Some(rows) = doc.get("grid").and_then(Value::as_array) else {
        return true;
    };
    rows.iter().enumerate().all(|(r, row)| {
        row.as_array().unwrap().iter().enumerate().all(|(c, cell)| {
            cell.get("value")
                .and_then(Value::as_i64)
                .is_none_or(|x| g[r * n + c] == x)
        })
    })
}

#[test]
fn every_library_file_is_what_the_importer_writes_for_its_recorded_puzzle() {
    let recorded = recorded();
    assert_eq!(
        recorded.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
        LIBRARY.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    );
    for (name, doc) in &recorded {
        let (out, run, rows) = import(&format!("library-{name}"), &format!("{doc}\n"));
        run.ok();
        let written = std::fs::read_to_string(out.join(&rows[0][1])).unwrap();
        let library = std::fs::read_to_string(library_file(name, "graft")).unwrap();
        assert_eq!(
            body(&library),
            body(&written),
            "rules/fpuzzles/{name}.graft differs from the importer's rule file for its puzzle"
        );
        let written = std::fs::read_to_string(out.join(&rows[0][2])).unwrap();
        let library = std::fs::read_to_string(library_file(name, "txt")).unwrap();
        assert_eq!(
            puzzle_lines(&library),
            puzzle_lines(&written),
            "rules/fpuzzles/{name}.txt"
        );
    }
}

#[test]
fn every_library_puzzle_has_its_pinned_count_the_brute_force_count_and_checked_solutions() {
    let grids4 = all_4x4();
    let grids5 = all_latin_5x5();
    assert_eq!((grids4.len(), grids5.len()), (288, 161_280));
    let pinned: std::collections::BTreeMap<&str, usize> = LIBRARY.iter().copied().collect();
    for (name, doc) in recorded() {
        let n = doc["size"].as_u64().unwrap() as usize;
        let grids = if n == 4 { &grids4 } else { &grids5 };
        let brute = grids
            .iter()
            .filter(|g| keeps_givens(&doc, g, n) && satisfies(&doc, g, n))
            .count();
        let puzzles = library_file(&name, "txt");
        let run = grafter([
            "solve".as_ref(),
            library_file(&name, "graft").as_os_str(),
            "--puzzles".as_ref(),
            puzzles.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
        ]);
        run.ok();
        let found = run.puzzles().remove(0);
        assert_eq!(
            found.grids.len(),
            pinned[name.as_str()],
            "rules/fpuzzles/{name}"
        );
        assert_eq!(
            found.grids.len(),
            brute,
            "rules/fpuzzles/{name} against the brute force"
        );
        for g in &found.grids {
            let v = values(g);
            assert!(
                keeps_givens(&doc, &v, n) && satisfies(&doc, &v, n),
                "rules/fpuzzles/{name}: {g}"
            );
        }
    }
}
