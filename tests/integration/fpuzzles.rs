//! f-puzzles import: small puzzles of each constraint family counted against a brute force
//! over every 4x4 Sudoku, the 72 anti-king anti-knight non-consecutive grids, bad lines,
//! and (opt-in) the nine samples of `../shared/data/fpuzzles` solved exactly.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::support::{external_data, grafter, Puzzle, Run};

/// A fresh folder under the target directory for one test's import.
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("fpuzzles-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports `lines` (one puzzle a line) into a scratch folder: the run and the manifest's
/// rows (id, rule, puzzles, line).
pub fn import(name: &str, lines: &str) -> (PathBuf, Run, Vec<Vec<String>>) {
    let dir = scratch(name);
    let input = dir.join("in.txt");
    std::fs::write(&input, lines).unwrap();
    let out = dir.join("out");
    let run = grafter([
        "import".as_ref(),
        "fpuzzles".as_ref(),
        input.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    let manifest = std::fs::read_to_string(out.join("manifest.tsv")).unwrap_or_default();
    let rows = manifest
        .lines()
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    (out, run, rows)
}

/// Solves manifest row `row` of an import in `out`: that puzzle's part of the JSON output.
pub fn solve(out: &Path, row: &[String]) -> Puzzle {
    let run = grafter([
        "solve".as_ref(),
        out.join(&row[1]).as_os_str(),
        "--puzzles".as_ref(),
        out.join(&row[2]).as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    run.ok();
    let line: u64 = row[3].parse().unwrap();
    run.puzzles()
        .into_iter()
        .find(|p| p.number == line)
        .expect("the manifest's line is a puzzle of the output")
}

/// Grid values, row-major, from a JSON solution's compact grid line.
pub fn values(grid: &str) -> Vec<i64> {
    if grid.contains(' ') {
        return grid.split(' ').map(|x| x.parse().unwrap()).collect();
    }
    grid.chars()
        .map(|c| c.to_digit(36).unwrap() as i64)
        .collect()
}

/// The box shape f-puzzles draws for a size, rows by columns: as many rows as the largest
/// divisor whose square does not exceed the size (6: 2x3, 8: 2x4, 5: 1x5).
pub fn box_shape(n: usize) -> (usize, usize) {
    let h = (1..=n)
        .filter(|&d| d * d <= n && n.is_multiple_of(d))
        .max()
        .unwrap();
    (h, n / h)
}

/// A mark between two cells: the cells, its number and its text.
type Mark = ((usize, usize), (usize, usize), Option<i64>, Option<String>);

fn cell(name: &str) -> (usize, usize) {
    let upper = name.to_ascii_uppercase();
    let (r, c) = upper[1..].split_once('C').unwrap();
    (r.parse().unwrap(), c.parse().unwrap())
}

/// An independent statement of each constraint of `doc` on a filled `n` x `n` grid
/// (`g[r][c]`, 1-based through `at`), written from the families' published rules.
pub fn satisfies(doc: &Value, g: &[i64], n: usize) -> bool {
    let at = |name: &str| {
        let (r, c) = cell(name);
        g[(r - 1) * n + c - 1]
    };
    let list = |key: &str| {
        doc.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let num = |v: &Value| -> Option<i64> {
        v.as_i64()
            .or_else(|| v.as_str().and_then(|s| s.parse().ok()))
    };
    let lines = |key: &str| -> Vec<Vec<i64>> {
        list(key)
            .iter()
            .flat_map(|e| e["lines"].as_array().cloned().unwrap_or_default())
            .map(|l| {
                l.as_array()
                    .unwrap()
                    .iter()
                    .map(|c| at(c.as_str().unwrap()))
                    .collect()
            })
            .collect()
    };
    let distinct = |v: &[i64]| {
        let mut s = v.to_vec();
        s.sort();
        s.dedup();
        s.len() == v.len()
    };
    for cage in list("killercage").iter().chain(&list("extraregion")) {
        let v: Vec<i64> = cage["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| at(c.as_str().unwrap()))
            .collect();
        if !distinct(&v)
            || cage
                .get("value")
                .and_then(num)
                .is_some_and(|s| v.iter().sum::<i64>() != s)
        {
            return false;
        }
    }
    for clue in list("littlekillersum") {
        let (r, c) = cell(clue["cell"].as_str().unwrap());
        let (dr, dc): (i64, i64) = match clue["direction"].as_str().unwrap() {
            "UL" => (-1, -1),
            "UR" => (-1, 1),
            "DL" => (1, -1),
            _ => (1, 1),
        };
        let (mut r, mut c) = (r as i64 + dr, c as i64 + dc);
        let mut total = 0;
        while (1..=n as i64).contains(&r) && (1..=n as i64).contains(&c) {
            total += g[(r as usize - 1) * n + c as usize - 1];
            r += dr;
            c += dc;
        }
        if Some(total) != num(&clue["value"]) {
            return false;
        }
    }
    for (key, rem) in [("odd", 1), ("even", 0)] {
        if list(key)
            .iter()
            .any(|m| at(m["cell"].as_str().unwrap()) % 2 != rem)
        {
            return false;
        }
    }
    let pairs = |key: &str| -> Vec<Mark> {
        list(key)
            .iter()
            .map(|d| {
                let cs = d["cells"].as_array().unwrap();
                (
                    cell(cs[0].as_str().unwrap()),
                    cell(cs[1].as_str().unwrap()),
                    d.get("value").and_then(num),
                    d.get("value").and_then(Value::as_str).map(str::to_string),
                )
            })
            .collect()
    };
    let v = |p: (usize, usize)| g[(p.0 - 1) * n + p.1 - 1];
    for (a, b, k, _) in pairs("difference") {
        if (v(a) - v(b)).abs() != k.unwrap_or(1) {
            return false;
        }
    }
    for (a, b, k, _) in pairs("ratio") {
        let k = k.unwrap_or(2);
        if v(a) != v(b) * k && v(b) != v(a) * k {
            return false;
        }
    }
    for (a, b, _, s) in pairs("xv") {
        let t = if s.as_deref() == Some("X") { 10 } else { 5 };
        if v(a) + v(b) != t {
            return false;
        }
    }
    let negative: Vec<String> = list("negative")
        .iter()
        .filter_map(|x| x.as_str().map(str::to_string))
        .collect();
    let marked = |key: &str, a: (usize, usize), b: (usize, usize)| {
        pairs(key)
            .iter()
            .any(|&(p, q, _, _)| (p, q) == (a, b) || (p, q) == (b, a))
    };
    // Non-consecutive forbids a difference of 1 between unmarked neighbours; a negative
    // difference constraint, every difference a white dot shows (1 when none is shown).
    let mut forbidden_gaps: Vec<i64> = Vec::new();
    if doc.get("nonconsecutive") == Some(&json!(true)) {
        forbidden_gaps.push(1);
    }
    if negative.iter().any(|x| x == "difference") {
        let shown = pairs("difference");
        forbidden_gaps.extend(shown.iter().map(|d| d.2.unwrap_or(1)));
        if shown.is_empty() {
            forbidden_gaps.push(1);
        }
    }
    for r in 1..=n {
        for c in 1..=n {
            for (dr, dc) in [(0, 1), (1, 0)] {
                let (a, b) = ((r, c), (r + dr, c + dc));
                if b.0 > n || b.1 > n {
                    continue;
                }
                if !marked("difference", a, b) && forbidden_gaps.contains(&(v(a) - v(b)).abs()) {
                    return false;
                }
                if negative.iter().any(|x| x == "ratio")
                    && !marked("ratio", a, b)
                    && (v(a) == 2 * v(b) || v(b) == 2 * v(a))
                {
                    return false;
                }
                if negative.iter().any(|x| x == "xv")
                    && !marked("xv", a, b)
                    && (v(a) + v(b) == 5 || v(a) + v(b) == 10)
                {
                    return false;
                }
            }
        }
    }
    for l in lines("thermometer") {
        if l.windows(2).any(|w| w[0] >= w[1]) {
            return false;
        }
    }
    for l in lines("slowthermometer") {
        if l.windows(2).any(|w| w[0] > w[1]) {
            return false;
        }
    }
    for l in lines("palindrome") {
        if l.iter().ne(l.iter().rev()) {
            return false;
        }
    }
    for e in list("whispers") {
        let gap = e.get("value").and_then(num).unwrap_or((n as i64 + 1) / 2);
        for l in e["lines"].as_array().unwrap() {
            let l: Vec<i64> = l
                .as_array()
                .unwrap()
                .iter()
                .map(|c| at(c.as_str().unwrap()))
                .collect();
            if l.windows(2).any(|w| (w[0] - w[1]).abs() < gap) {
                return false;
            }
        }
    }
    for l in lines("renban") {
        if !distinct(&l) || l.iter().max().unwrap() - l.iter().min().unwrap() + 1 != l.len() as i64
        {
            return false;
        }
    }
    for l in lines("nabner") {
        let far = l
            .iter()
            .enumerate()
            .all(|(i, a)| l[i + 1..].iter().all(|b| (a - b).abs() > 1));
        if !far {
            return false;
        }
    }
    let third = |x: i64| (x - 1) * 3 / n as i64;
    for l in lines("entropicline") {
        if l.windows(3).any(|w| {
            third(w[0]) == third(w[1]) || third(w[1]) == third(w[2]) || third(w[0]) == third(w[2])
        }) || l.windows(2).any(|w| third(w[0]) == third(w[1]))
        {
            return false;
        }
    }
    for l in lines("modularline") {
        if l.windows(3)
            .any(|w| w[0] % 3 == w[1] % 3 || w[1] % 3 == w[2] % 3 || w[0] % 3 == w[2] % 3)
            || l.windows(2).any(|w| w[0] % 3 == w[1] % 3)
        {
            return false;
        }
    }
    for l in lines("zipperline") {
        let k = l.len();
        let total = if k % 2 == 1 {
            l[k / 2]
        } else {
            l[k / 2 - 1] + l[k / 2]
        };
        if (0..k / 2).any(|i| l[i] + l[k - 1 - i] != total) {
            return false;
        }
    }
    for l in lines("doublearrow") {
        if l[0] + l[l.len() - 1] != l[1..l.len() - 1].iter().sum::<i64>() {
            return false;
        }
    }
    let (h, w) = box_shape(n);
    // A cell's box and its place in the box (1 to n, row by row), 0-based coordinates.
    let box_of = |r: usize, c: usize| (r / h, c / w);
    let place_of = |r: usize, c: usize| (r % h) * w + c % w + 1;
    for e in list("regionsumline") {
        for line in e["lines"].as_array().unwrap() {
            let mut sums = std::collections::BTreeMap::new();
            for c in line.as_array().unwrap() {
                let (r, col) = cell(c.as_str().unwrap());
                let b = ((r - 1) / h, (col - 1) / w);
                *sums.entry(b).or_insert(0) += at(c.as_str().unwrap());
            }
            let mut totals: Vec<i64> = sums.into_values().collect();
            totals.dedup();
            if totals.len() > 1 {
                return false;
            }
        }
    }
    let neighbours = |r: usize, c: usize| -> Vec<i64> {
        [(0i64, 1i64), (1, 0), (0, -1), (-1, 0)]
            .iter()
            .map(|&(dr, dc)| (r as i64 + dr, c as i64 + dc))
            .filter(|&(a, b)| (1..=n as i64).contains(&a) && (1..=n as i64).contains(&b))
            .map(|(a, b)| g[(a as usize - 1) * n + b as usize - 1])
            .collect()
    };
    for (key, less) in [("minimum", true), ("maximum", false)] {
        for m in list(key) {
            let (r, c) = cell(m["cell"].as_str().unwrap());
            let x = g[(r - 1) * n + c - 1];
            if neighbours(r, c)
                .iter()
                .any(|&y| if less { y <= x } else { y >= x })
            {
                return false;
            }
        }
    }
    for (key, kind) in [("rowindexer", 0), ("columnindexer", 1)] {
        for e in list(key) {
            for c in e["cells"].as_array().unwrap() {
                let (r, col) = cell(c.as_str().unwrap());
                let x = g[(r - 1) * n + col - 1] as usize;
                let ok = if kind == 0 {
                    g[(x - 1) * n + col - 1] == r as i64
                } else {
                    g[(r - 1) * n + x - 1] == col as i64
                };
                if !ok {
                    return false;
                }
            }
        }
    }
    if doc.get("disjointgroups") == Some(&json!(true)) {
        for place in 1..=n {
            let v: Vec<i64> = (0..n * n)
                .filter(|i| place_of(i / n, i % n) == place)
                .map(|i| g[i])
                .collect();
            if !distinct(&v) {
                return false;
            }
        }
    }
    for e in list("boxindexer") {
        for c in e["cells"].as_array().unwrap() {
            let (r, col) = cell(c.as_str().unwrap());
            let (r, col) = (r - 1, col - 1);
            let x = g[r * n + col] as usize;
            let pointed = (0..n * n)
                .find(|i| box_of(i / n, i % n) == box_of(r, col) && place_of(i / n, i % n) == x);
            if pointed.is_none_or(|i| g[i] != place_of(r, col) as i64) {
                return false;
            }
        }
    }
    for l in lines("betweenline") {
        let (lo, hi) = (l[0].min(l[l.len() - 1]), l[0].max(l[l.len() - 1]));
        if l[1..l.len() - 1].iter().any(|&x| x <= lo || x >= hi) {
            return false;
        }
    }
    for a in list("arrow") {
        let circle: Vec<String> = a["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap().to_string())
            .collect();
        let total = circle.iter().fold(0, |acc, c| acc * 10 + at(c));
        for l in a["lines"].as_array().unwrap() {
            let shaft: i64 = l
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .filter(|c| !circle.iter().any(|o| o == c))
                .map(at)
                .sum();
            if shaft != total {
                return false;
            }
        }
    }
    for c in list("clone") {
        let a = c["cells"].as_array().unwrap();
        let b = c["cloneCells"].as_array().unwrap();
        if a.iter()
            .zip(b)
            .any(|(p, q)| at(p.as_str().unwrap()) != at(q.as_str().unwrap()))
        {
            return false;
        }
    }
    for q in list("quadruple") {
        let held: Vec<i64> = q["cells"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| at(c.as_str().unwrap()))
            .collect();
        let want: Vec<i64> = q["values"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(num)
            .collect();
        for &d in &want {
            if held.iter().filter(|&&x| x == d).count() < want.iter().filter(|&&x| x == d).count() {
                return false;
            }
        }
    }
    let diagonal = |up: bool| -> Vec<i64> {
        (1..=n)
            .map(|r| g[(r - 1) * n + if up { n - r } else { r - 1 }])
            .collect()
    };
    if doc.get("diagonal-") == Some(&json!(true)) && !distinct(&diagonal(false)) {
        return false;
    }
    if doc.get("diagonal+") == Some(&json!(true)) && !distinct(&diagonal(true)) {
        return false;
    }
    let near = |king: bool| {
        (0..n * n).all(|i| {
            (0..n * n).all(|j| {
                let (dr, dc) = ((i / n).abs_diff(j / n), (i % n).abs_diff(j % n));
                let hit = if king {
                    dr <= 1 && dc <= 1 && i != j
                } else {
                    dr * dc == 2
                };
                !hit || g[i] != g[j]
            })
        })
    };
    if doc.get("antiking") == Some(&json!(true)) && !near(true) {
        return false;
    }
    if doc.get("antiknight") == Some(&json!(true)) && !near(false) {
        return false;
    }
    for clue in list("sandwichsum") {
        let (r, c) = cell(clue["cell"].as_str().unwrap());
        let line: Vec<i64> = if r == 0 || r == n + 1 {
            (1..=n).map(|k| g[(k - 1) * n + c - 1]).collect()
        } else {
            (1..=n).map(|k| g[(r - 1) * n + k - 1]).collect()
        };
        let i = line.iter().position(|&x| x == 1).unwrap();
        let j = line.iter().position(|&x| x == n as i64).unwrap();
        let between: i64 = line[i.min(j) + 1..i.max(j)].iter().sum();
        if Some(between) != num(&clue["value"]) {
            return false;
        }
    }
    for (key, sky) in [("skyscraper", true), ("xsum", false)] {
        for clue in list(key) {
            let (r, c) = cell(clue["cell"].as_str().unwrap());
            let mut line: Vec<i64> = if r == 0 || r == n + 1 {
                (1..=n).map(|k| g[(k - 1) * n + c - 1]).collect()
            } else {
                (1..=n).map(|k| g[(r - 1) * n + k - 1]).collect()
            };
            if r == n + 1 || c == n + 1 {
                line.reverse();
            }
            let seen = if sky {
                let mut top = 0;
                line.iter()
                    .filter(|&&x| {
                        let up = x > top;
                        top = top.max(x);
                        up
                    })
                    .count() as i64
            } else {
                line[..line[0] as usize].iter().sum()
            };
            if Some(seen) != num(&clue["value"]) {
                return false;
            }
        }
    }
    true
}

/// Every 4x4 Sudoku, row-major.
pub fn all_4x4() -> Vec<Vec<i64>> {
    let mut perms = Vec::new();
    for a in 1..=4 {
        for b in 1..=4 {
            for c in 1..=4 {
                for d in 1..=4 {
                    let p = vec![a, b, c, d];
                    let mut s = p.clone();
                    s.sort();
                    if s == [1, 2, 3, 4] {
                        perms.push(p);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for r1 in &perms {
        for r2 in &perms {
            for r3 in &perms {
                for r4 in &perms {
                    let g: Vec<i64> = [r1, r2, r3, r4]
                        .iter()
                        .flat_map(|r| r.iter().copied())
                        .collect();
                    let cols = (0..4).all(|c| {
                        let mut v: Vec<i64> = (0..4).map(|r| g[r * 4 + c]).collect();
                        v.sort();
                        v == [1, 2, 3, 4]
                    });
                    let boxes = (0..4).all(|b| {
                        let mut v: Vec<i64> = (0..4)
                            .map(|k| g[((b / 2) * 2 + k / 2) * 4 + (b % 2) * 2 + k % 2])
                            .collect();
                        v.sort();
                        v == [1, 2, 3, 4]
                    });
                    if cols && boxes {
                        out.push(g);
                    }
                }
            }
        }
    }
    out
}

/// The small puzzles of the families, 4x4 with few marks so that several solutions remain.
fn family_puzzles() -> Vec<Value> {
    vec![
        json!({"size":4,"littlekillersum":[{"cell":"R0C1","direction":"DR","value":"10"}]}),
        json!({"size":4,"killercage":[{"cells":["R1C1","R1C2","R2C1"],"value":"6"},{"cells":["R3C3","R4C4"]}]}),
        json!({"size":4,"xv":[{"cells":["R1C1","R1C2"],"value":"V"}],"negative":["xv"]}),
        json!({"size":4,"difference":[{"cells":["R1C1","R1C2"]}],"ratio":[{"cells":["R2C2","R2C3"]}]}),
        json!({"size":4,"ratio":[{"cells":["R1C1","R2C1"]}],"negative":["ratio"]}),
        json!({"size":4,"nonconsecutive":true,"difference":[{"cells":["R1C1","R1C2"]}]}),
        json!({"size":4,"thermometer":[{"lines":[["R1C1","R2C2","R3C3"]]}]}),
        json!({"size":4,"slowthermometer":[{"lines":[["R1C1","R2C2","R3C3","R4C4"]]}]}),
        json!({"size":4,"palindrome":[{"lines":[["R1C1","R2C2","R3C2"]]}]}),
        json!({"size":4,"whispers":[{"lines":[["R1C1","R1C2","R2C2"]]}]}),
        json!({"size":4,"renban":[{"lines":[["R1C1","R2C2","R3C3"]]}]}),
        json!({"size":4,"betweenline":[{"lines":[["R1C1","R2C2","R3C3"]]}]}),
        json!({"size":4,"arrow":[{"cells":["R1C1"],"lines":[["R1C1","R2C2","R3C2"]]}]}),
        json!({"size":4,"clone":[{"cells":["R1C1","R1C2"],"cloneCells":["R3C3","R3C4"]}]}),
        json!({"size":4,"odd":[{"cell":"R1C1"},{"cell":"R2C3"}],"even":[{"cell":"R4C4"}]}),
        json!({"size":4,"quadruple":[{"cells":["R1C1","R1C2","R2C1","R2C2"],"values":[1,2]}]}),
        // Circles across boxes, where values may repeat, one with a digit twice; circles,
        // a cage and an extra region over shared cells.
        json!({"size":4,"quadruple":[{"cells":["R2C2","R2C3","R3C2","R3C3"],"values":[1,1,2]}]}),
        json!({"size":4,"quadruple":[{"cells":["R2C2","R2C3","R3C2","R3C3"],"values":[1,2,3]},{"cells":["R3C3","R3C4","R4C3","R4C4"],"values":[4]}],"killercage":[{"cells":["R3C3","R3C4","R4C3"],"value":"6"}],"extraregion":[{"cells":["R3C3","R3C4","R4C3"]}]}),
        json!({"size":4,"diagonal+":true,"diagonal-":true}),
        json!({"size":4,"extraregion":[{"cells":["R1C1","R2C3","R3C2","R4C4"]}]}),
        json!({"size":4,"nabner":[{"lines":[["R1C1","R2C2","R3C3"]]}]}),
        json!({"size":4,"entropicline":[{"lines":[["R1C1","R2C2","R3C3","R4C4"]]}]}),
        json!({"size":4,"modularline":[{"lines":[["R1C1","R1C2","R2C3"]]}]}),
        json!({"size":4,"zipperline":[{"lines":[["R1C1","R2C2","R3C3","R4C4"]]},{"lines":[["R1C4","R2C3","R3C4"]]}]}),
        json!({"size":4,"doublearrow":[{"lines":[["R1C1","R2C2","R3C2","R4C1"]]}]}),
        json!({"size":4,"regionsumline":[{"lines":[["R1C2","R2C2","R2C3"]]}]}),
        json!({"size":4,"minimum":[{"cell":"R2C2"}],"maximum":[{"cell":"R3C3"}]}),
        json!({"size":4,"rowindexer":[{"cells":["R1C1"]}],"columnindexer":[{"cells":["R2C1"]}]}),
        json!({"size":4,"disjointgroups":true,"antiking":false}),
        json!({"size":4,"sandwichsum":[{"cell":"R0C1","value":"5"},{"cell":"R2C0","value":"0"}]}),
        json!({"size":4,"skyscraper":[{"cell":"R0C2","value":"3"},{"cell":"R3C5","value":"2"}]}),
        json!({"size":4,"xsum":[{"cell":"R1C0","value":"6"},{"cell":"R5C3","value":"4"}]}),
        json!({"size":4,"boxindexer":[{"cells":["R1C1","R4C3"]}]}),
        json!({"size":4,"arrow":[{"cells":["R1C1","R1C2"],"lines":[["R1C2","R1C4","R3C2","R4C3","R4C2"]]}]}),
        // Every dot shown, of differences 1 and 2: unmarked neighbours differ by 3 or more.
        json!({"size":4,"difference":[{"cells":["R1C1","R1C2"],"value":"2"},{"cells":["R1C3","R1C4"],"value":"2"},{"cells":["R2C1","R2C2"],"value":"2"},{"cells":["R2C2","R3C2"],"value":"2"},{"cells":["R2C3","R2C4"],"value":"2"},{"cells":["R2C3","R3C3"],"value":"2"},{"cells":["R1C1","R2C1"]},{"cells":["R1C2","R1C3"]},{"cells":["R1C2","R2C2"]},{"cells":["R1C3","R2C3"]},{"cells":["R1C4","R2C4"]},{"cells":["R2C2","R2C3"]},{"cells":["R2C4","R3C4"]},{"cells":["R3C1","R4C1"]},{"cells":["R3C2","R3C3"]},{"cells":["R3C2","R4C2"]},{"cells":["R3C3","R3C4"]},{"cells":["R3C3","R4C3"]},{"cells":["R3C4","R4C4"]},{"cells":["R4C1","R4C2"]},{"cells":["R4C2","R4C3"]}],"negative":["difference"]}),
        // Lines of differences 1 and 2 sharing two neighbours: both hold there.
        json!({"size":4,"whispers":[{"lines":[["R1C1","R1C2","R1C3"]],"value":"1"},
                                    {"lines":[["R2C1","R1C2","R1C3"]],"value":"2"}]}),
        json!({"size":4,"whispers":[{"lines":[["R1C1","R1C2","R2C2"]],"value":"2"},{"lines":[["R3C3","R3C4","R4C4"]],"value":"1"},{"lines":[["R4C1","R3C2"]],"value":"3"}]}),
    ]
}

#[test]
fn each_family_counts_as_the_brute_force_does_and_every_solution_checks() {
    let puzzles = family_puzzles();
    let text: String = puzzles.iter().map(|p| format!("{p}\n")).collect();
    let (out, run, rows) = import("families", &text);
    run.ok();
    assert_eq!(rows.len(), puzzles.len());
    let grids = all_4x4();
    assert_eq!(grids.len(), 288);
    for (doc, row) in puzzles.iter().zip(&rows) {
        let expected = grids.iter().filter(|g| satisfies(doc, g, 4)).count();
        let found = solve(&out, row);
        assert_eq!(found.grids.len(), expected, "{doc}");
        for g in &found.grids {
            assert!(satisfies(doc, &values(g), 4), "{doc}: {g} breaks it");
        }
    }
}

#[test]
fn the_empty_9x9_with_anti_king_anti_knight_and_non_consecutive_has_72_solutions() {
    let doc = json!({"size":9,"antiking":true,"antiknight":true,"nonconsecutive":true});
    let (out, run, rows) = import("72", &format!("{doc}\n"));
    run.ok();
    let found = solve(&out, &rows[0]);
    assert_eq!(found.grids.len(), 72);
    for g in &found.grids {
        let v = values(g);
        let sudoku = (0..9).all(|k| {
            let row: std::collections::BTreeSet<i64> = (0..9).map(|c| v[k * 9 + c]).collect();
            let col: std::collections::BTreeSet<i64> = (0..9).map(|r| v[r * 9 + k]).collect();
            let b: std::collections::BTreeSet<i64> = (0..9)
                .map(|i| v[((k / 3) * 3 + i / 3) * 9 + (k % 3) * 3 + i % 3])
                .collect();
            row.len() == 9 && col.len() == 9 && b.len() == 9
        });
        assert!(sudoku && satisfies(&doc, &v, 9), "{g}");
    }
}

#[test]
fn bad_lines_are_reported_by_line_and_the_others_still_import() {
    let good = json!({"size":4,"odd":[{"cell":"R1C1"}]}).to_string();
    let packed = lz_str::compress_to_base64(good.as_str());
    let lines = [
        good.clone(),                                               // 1: fine
        packed[..packed.len() / 3].to_string(),                     // 2: truncated
        "this is not base64!".to_string(),                          // 3
        lz_str::compress_to_base64("{\"size\": 4, oops"),           // 4: not JSON
        json!({"size":4,"spiral":[]}).to_string(),                  // 5: unknown key
        json!({"size":4,"odd":[{"cell":"R5C1"}]}).to_string(),      // 6: out of the grid
        json!({"size":4,"grid":[[{}],[{}],[{}],[{}]]}).to_string(), // 7: not square
        json!({"size":4,"grid":[[{"region":0},{"region":0},{"region":0},{"region":0}],
                                 [{"region":0},{},{},{}],[{},{},{},{}],[{},{},{},{}]]})
        .to_string(), // 8
        format!("https://www.f-puzzles.com/?load={packed}"),        // 9: fine
        json!({"size":4,"whispers":[{"lines":[["R1C1","R1C2","R1C3"]],"value":"4"}]}).to_string(), // 10: a whisper's difference no two values have
        json!({"size":9,"arrow":[{"cells":["R1C1","R1C2","R1C3"],"lines":[["R1C3","R2C3","R3C3"]]},
                                  {"cells":["R5C5"],"lines":[["R5C5","R1C1"]]},
                                  {"cells":["R9C1","R9C2","R9C3"],"lines":[["R9C3","R1C2"]]}]})
        .to_string(), // 11: a shaft through a circle of three cells
    ];
    let (_, run, rows) = import("bad", &(lines.join("\n") + "\n"));
    run.expect_code(1);
    let ids: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(ids, ["1", "9"]);
    for (line, what) in [
        (2, "LZ-string"),
        (3, "not a base64 character"),
        (4, "not f-puzzles JSON"),
        (5, "unknown key `spiral`"),
        (6, "outside the grid"),
        (7, "a square grid"),
        (8, "region 0 has 6 cells: expected 4"),
        (10, "a whisper's difference is 4: expected 1 to 3"),
        (11, "an arrow's shaft crosses `R1C2`"),
    ] {
        let prefix = format!(":{line}: error: puzzle {line}: ");
        let said = run.stderr.lines().find(|l| l.contains(&prefix));
        assert!(
            said.is_some_and(|l| l.contains(what)),
            "line {line}: expected {what:?} in\n{}",
            run.stderr
        );
    }
}

#[test]
fn bad_lines_past_the_error_limit_are_counted() {
    let (_, run, rows) = import("error-limit", &"not base64!\n".repeat(25));
    run.expect_code(1);
    assert!(rows.is_empty());
    let errors = run
        .stderr
        .lines()
        .filter(|l| l.contains(": error: puzzle "));
    assert_eq!(errors.count(), 20, "{}", run.stderr);
    let note = "note: 5 more errors about ";
    let said = run.stderr.lines().find(|l| l.starts_with(note));
    assert!(
        said.is_some_and(|l| l.ends_with("in.txt not shown; `--error-limit 0` shows them all")),
        "{}",
        run.stderr
    );
}

#[test]
fn cosmetic_keys_are_listed_once_each() {
    let doc = json!({"size":4,"line":[{"lines":[["R1C1","R1C2"]]}],"text":[],"cage":[{"cells":["R1C1"]}]});
    let (_, run, rows) = import("cosmetic", &format!("{doc}\n{doc}\n"));
    run.ok();
    assert_eq!(rows.len(), 2);
    for kind in ["line", "text", "cage"] {
        let n = run.stderr.matches(&format!("ignored `{kind}`")).count();
        assert_eq!(n, 1, "{}", run.stderr);
    }
}

#[test]
fn candidates_are_the_values_over_all_solutions() {
    let doc = json!({"size":4,"thermometer":[{"lines":[["R1C1","R2C2","R3C3"]]}]});
    let (out, run, rows) = import("candidates", &format!("{doc}\n"));
    run.ok();
    let solved = solve(&out, &rows[0]);
    let cand = grafter([
        "solve".as_ref(),
        out.join(&rows[0][1]).as_os_str(),
        "--puzzles".as_ref(),
        out.join(&rows[0][2]).as_os_str(),
        "--format".as_ref(),
        "candidates-json".as_ref(),
    ]);
    cand.ok();
    let object: Value = serde_json::from_str(cand.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(object["complete"], json!(true));
    for i in 0..16 {
        let mut seen: Vec<String> = solved
            .grids
            .iter()
            .map(|g| g[i..i + 1].to_string())
            .collect();
        seen.sort();
        seen.dedup();
        assert_eq!(object["grid"][i / 4][i % 4], json!(seen), "cell {i}");
    }
    let partial = grafter([
        "solve".as_ref(),
        out.join(&rows[0][1]).as_os_str(),
        "--puzzles".as_ref(),
        out.join(&rows[0][2]).as_os_str(),
        "--format".as_ref(),
        "candidates".as_ref(),
        "--max-solutions".as_ref(),
        "1".as_ref(),
    ]);
    partial.expect_code(3);
    assert!(
        partial.stdout.contains("candidates: partial"),
        "{}",
        partial.stdout
    );
}

#[test]
#[ignore = "reads ../shared/data/fpuzzles (or $GRAFTER_DATA/fpuzzles); up to 60 s a sample"]
fn the_nine_samples_solve_with_exactly_their_published_solution() {
    let (Some(puzzles), Some(expected)) = (
        external_data("fpuzzles/puzzles.txt"),
        external_data("fpuzzles/expected.tsv"),
    ) else {
        return;
    };
    let text = std::fs::read_to_string(puzzles).unwrap();
    let (out, run, rows) = import("samples", &text);
    run.ok();
    let expected = std::fs::read_to_string(expected).unwrap();
    let mut failed = Vec::new();
    for line in expected.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split('\t').collect();
        let row = rows
            .iter()
            .find(|r| r[0] == fields[0])
            .expect("every sample imports");
        let found = solve(&out, row);
        if found.grids != [fields[2].to_string()] {
            failed.push(format!("sample {}: {:?}", fields[0], found.grids));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn one_puzzle_solves_in_one_step_and_prints_as_an_f_puzzles_link() {
    let doc = json!({"size":4,"grid":[[{"value":1,"given":true},{},{},{}],[{},{},{},{}],[{},{},{},{}],[{},{},{},{}]],
                     "littlekillersum":[{"cell":"R0C0","direction":"DR","value":"10"}]});
    let link = format!(
        "https://www.f-puzzles.com/?load={}",
        lz_str::compress_to_base64(doc.to_string().as_str())
    );
    let grids = grafter(["solve", "--fpuzzles", &link, "--format", "json"]);
    grids.ok();
    let solved = grids.puzzles();
    let expected = all_4x4()
        .into_iter()
        .filter(|g| g[0] == 1 && satisfies(&doc, g, 4))
        .count();
    assert_eq!(solved[0].grids.len(), expected);
    let links = grafter(["solve", "--fpuzzles", &link, "--format", "fpuzzles"]);
    links.ok();
    let mut printed: Vec<String> = links
        .stdout
        .lines()
        .filter_map(|l| l.split("?load=").nth(1))
        .map(|packed| {
            let json = lz_str::decompress_from_base64(packed).unwrap();
            let doc: Value = serde_json::from_str(&String::from_utf16(&json).unwrap()).unwrap();
            doc["grid"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|row| {
                    row.as_array()
                        .unwrap()
                        .iter()
                        .map(|c| c["value"].to_string())
                })
                .collect()
        })
        .collect();
    printed.sort();
    assert_eq!(printed, solved[0].sorted_grids());
}

/// Every completion of `givens` (0 empty) to an `n` x `n` Sudoku with f-puzzles' boxes,
/// row-major: a plain backtracking over the empty cells.
fn completions(givens: &[i64], n: usize) -> Vec<Vec<i64>> {
    let (h, w) = box_shape(n);
    let fits = |g: &[i64], i: usize, x: i64| {
        let (r, c) = (i / n, i % n);
        (0..n).all(|k| {
            let (br, bc) = ((r / h) * h + k / w, (c / w) * w + k % w);
            g[r * n + k] != x && g[k * n + c] != x && g[br * n + bc] != x
        })
    };
    fn fill(
        g: &mut Vec<i64>,
        empty: &[usize],
        n: usize,
        fits: &dyn Fn(&[i64], usize, i64) -> bool,
        out: &mut Vec<Vec<i64>>,
    ) {
        let Some((&i, rest)) = empty.split_first() else {
            out.push(g.clone());
            return;
        };
        for x in 1..=n as i64 {
            if fits(g, i, x) {
                g[i] = x;
                fill(g, rest, n, fits, out);
                g[i] = 0;
            }
        }
    }
    let empty: Vec<usize> = (0..n * n).filter(|&i| givens[i] == 0).collect();
    let mut out = Vec::new();
    fill(&mut givens.to_vec(), &empty, n, &fits, &mut out);
    out
}

#[test]
fn sizes_5_6_8_and_16_take_the_values_1_to_n_and_count_as_the_brute_force_does() {
    for n in [5usize, 6, 8, 16] {
        let (h, w) = box_shape(n);
        // A Sudoku of this size: each row shifts the one above by a box's width, and each
        // band by one more.
        let solution: Vec<i64> = (0..n * n)
            .map(|i| ((w * (i / n % h) + i / n / h + i % n) % n) as i64 + 1)
            .collect();
        // The first two rows empty; a cage over two of their cells with its sum and an
        // odd or even mark keep a few of their completions.
        let givens: Vec<i64> = (0..n * n)
            .map(|i| if i < 2 * n { 0 } else { solution[i] })
            .collect();
        let grid: Vec<Vec<Value>> = (0..n)
            .map(|r| {
                (0..n)
                    .map(|c| match givens[r * n + c] {
                        0 => json!({}),
                        x => json!({"value": x, "given": true}),
                    })
                    .collect()
            })
            .collect();
        let sum = solution[0] + solution[1];
        let parity = if solution[n + 2] % 2 == 1 {
            "odd"
        } else {
            "even"
        };
        let doc = json!({"size": n, "grid": grid,
            "killercage": [{"cells": ["R1C1", "R1C2"], "value": sum.to_string()}],
            parity: [{"cell": "R2C3"}]});
        let brute: Vec<Vec<i64>> = completions(&givens, n)
            .into_iter()
            .filter(|g| satisfies(&doc, g, n))
            .collect();
        assert!(brute.contains(&solution), "size {n}");
        let (out, run, rows) = import(&format!("size-{n}"), &format!("{doc}\n"));
        run.ok();
        let found = solve(&out, &rows[0]);
        assert_eq!(found.grids.len(), brute.len(), "size {n}");
        for g in &found.grids {
            let v = values(g);
            assert!(
                brute.contains(&v),
                "size {n}: {g} is no completion of the brute force"
            );
        }
    }
}

#[test]
fn an_arrow_circle_of_three_cells_reads_as_a_three_digit_number() {
    let n = 9;
    let solution: Vec<i64> = (0..n * n)
        .map(|i| ((3 * (i / n % 3) + i / n / 3 + i % n) % n) as i64 + 1)
        .collect();
    // The circle r1c1 r1c2 r1c3 holds 1 2 3: a shaft of cells below whose values add up
    // to 123; the top three rows empty.
    let circle = [0, 1, 2];
    let mut shaft = Vec::new();
    let mut total = 0;
    for (i, &x) in solution.iter().enumerate().skip(n) {
        if total + x <= 123 {
            total += x;
            shaft.push(i);
        }
        if total == 123 {
            break;
        }
    }
    assert_eq!(total, 123);
    let name = |i: &usize| format!("R{}C{}", i / n + 1, i % n + 1);
    let line: Vec<String> = std::iter::once(name(&2))
        .chain(shaft.iter().map(name))
        .collect();
    let givens: Vec<i64> = (0..n * n)
        .map(|i| if i < 3 * n { 0 } else { solution[i] })
        .collect();
    let grid: Vec<Vec<Value>> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match givens[r * n + c] {
                    0 => json!({}),
                    x => json!({"value": x, "given": true}),
                })
                .collect()
        })
        .collect();
    let doc = json!({"size": n, "grid": grid,
        "arrow": [{"cells": circle.iter().map(name).collect::<Vec<_>>(), "lines": [line]}]});
    let brute: Vec<Vec<i64>> = completions(&givens, n)
        .into_iter()
        .filter(|g| satisfies(&doc, g, n))
        .collect();
    assert!(brute.contains(&solution));
    let (out, run, rows) = import("long-arrow", &format!("{doc}\n"));
    run.ok();
    let found = solve(&out, &rows[0]);
    assert_eq!(found.grids.len(), brute.len());
    for g in &found.grids {
        assert!(
            brute.contains(&values(g)),
            "{g} is no completion of the brute force"
        );
    }
    // Without the arrow, more completions: the arrow is what the count checks.
    let all = completions(&givens, n).len();
    assert!(
        all > brute.len(),
        "{all} completions, {} with the arrow",
        brute.len()
    );
}
