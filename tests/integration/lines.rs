//! Lines (`line NAME: TYPE = cells next LABEL`): random thermometers and whispers on small
//! Sudokus against the brute force (counts, solutions, whole `--expand all` spaces), the
//! slot engine against the general matcher, and the arrow and palindrome rules that need
//! aggregates.

use crate::brute;
use crate::checker::check_all;
use crate::random_variants::Rng;
use crate::support::{fixture, grafter, rule, solve_json, temp_path, Json};
use crate::variant::{rule_file, Variant};

/// A random path of `len` distinct cells, each a king's move from the one before.
fn random_path(rng: &mut Rng, n: usize, len: usize) -> Vec<(usize, usize)> {
    'again: loop {
        let mut path = vec![(1 + rng.below(n), 1 + rng.below(n))];
        while path.len() < len {
            let &(r, c) = path.last().unwrap();
            let next: Vec<(usize, usize)> = [
                (-1i64, -1i64),
                (-1, 0),
                (-1, 1),
                (0, -1),
                (0, 1),
                (1, -1),
                (1, 0),
                (1, 1),
            ]
            .iter()
            .map(|&(dr, dc)| (r as i64 + dr, c as i64 + dc))
            .filter(|&(r, c)| r >= 1 && c >= 1 && r <= n as i64 && c <= n as i64)
            .map(|(r, c)| (r as usize, c as usize))
            .filter(|p| !path.contains(p))
            .collect();
            if next.is_empty() {
                continue 'again;
            }
            path.push(next[rng.below(next.len())]);
        }
        return path;
    }
}

fn names(cells: &[(usize, usize)]) -> String {
    let names: Vec<String> = cells.iter().map(|(r, c)| format!("r{r}c{c}")).collect();
    names.join(" ")
}

const RULES_4X4: &str = "values 1..4
node Cell { row: int, col: int, val: value? }
node Group
node Thermo
node Whisper
edge in: Cell -> Group
edge on: Cell -> Thermo
edge along: Cell -> Whisper
edge up: Cell -> Cell
edge next: Cell -> Cell
grid 4x4 of Cell
groups rows, columns, boxes 2x2 via in
";

const PLACE_4X4: &str = "
rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  not { c -up+-> d: Cell { val <= v } }
  not { d: Cell { val >= v } -up+-> c }
  not { c -(next|~next)-> d: Cell { abs(val - v) < 2 } }
  set c.val = v
}
final: not { c: Cell { val == none } }
";

#[test]
fn random_thermometers_and_whispers_agree_with_the_brute_force() {
    let mut rng = Rng::new(0x71e5);
    let mut spaces = 0;
    let mut solvable = 0;
    for index in 0..24 {
        let mut v = Variant::sudoku(4, 2, 2, Variant::digits(4));
        let mut text = RULES_4X4.to_string();
        for k in 0..1 + rng.below(3) {
            let len = 2 + rng.below(3);
            let cells = random_path(&mut rng, 4, len);
            if rng.chance(1, 2) {
                text += &format!("line t{k}: Thermo = {} next up\n", names(&cells));
                v = v.with_thermometer(&cells);
            } else {
                text += &format!("line w{k}: Whisper = {} next next\n", names(&cells));
                v = v.with_whisper(2, &cells);
            }
        }
        text += PLACE_4X4;
        let path = temp_path(&format!("lines{index}"), "graft");
        // Six givens from a solution keep the whole space small; without one, no givens.
        let mut givens = vec![None; 16];
        let seed = rng.next();
        let mut order = Rng::new(seed);
        if let Some(full) = brute::first_solution(&v, &givens, &mut |_| {
            let mut xs = vec![0, 1, 2, 3];
            order.shuffle(&mut xs);
            xs
        }) {
            for _ in 0..6 {
                let i = rng.below(16);
                givens[i] = Some(full[i]);
            }
        }
        let start: String = givens
            .iter()
            .map(|g| g.map_or('.', |x| char::from(b'1' + x as u8)))
            .collect();
        text += &format!("start {{ {start} }}\n");
        std::fs::write(&path, &text).unwrap();
        let context = format!("random lines {index}:\n{text}");
        let expected = brute::count(&v, &givens);
        let p = solve_json(&path, None, &[]);
        assert_eq!(p[0].grids.len() as u64, expected, "{context}");
        check_all(&v, &givens, &p[0].grids).unwrap_or_else(|e| panic!("{e}\n{context}"));
        let graph = solve_json(&path, None, &["--engine", "graph"]);
        assert_eq!(graph[0].sorted_grids(), p[0].sorted_grids(), "{context}");
        if expected > 0 {
            solvable += 1;
        }
        if let Some(s) = brute::space(&v, &givens, 200_000) {
            let all = solve_json(&path, None, &["--expand", "all"]);
            let got = |k: &str| all[0].stat(k);
            assert_eq!(
                (
                    got("solutions"),
                    got("states"),
                    got("transitions"),
                    got("dead_ends")
                ),
                (s.solutions, s.states, s.transitions, s.dead_ends),
                "--expand all: {context}"
            );
            spaces += 1;
        }
        std::fs::remove_file(&path).ok();
    }
    assert!(
        solvable >= 12,
        "only {solvable} of 24 random line sets have solutions"
    );
    assert!(spaces >= 8, "only {spaces} small enough spaces");
}

/// The rule files' lines on random givens: counts and solutions against the brute force,
/// and the general matcher's solutions.
#[test]
fn thermometer_and_whisper_files_agree_with_the_brute_force() {
    let mut rng = Rng::new(0x6a7e);
    for name in ["thermo-6x6", "whisper-6x6"] {
        let v = rule_file(name).variant;
        let mut lines = Vec::new();
        while lines.len() < 6 {
            let mut g = vec!['.'; 36];
            for _ in 0..2 + rng.below(4) {
                g[rng.below(36)] = char::from(b'1' + rng.below(6) as u8);
            }
            let line: String = g.into_iter().collect();
            // Givens that clash are a bad puzzle, not a count of 0: skip them.
            if brute::count(&v, &v.parse_givens(&line)) > 0 {
                lines.push(line);
            }
        }
        let path = temp_path(name, "txt");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let slot = solve_json(&rule(name), Some(&path), &[]);
        let graph = solve_json(&rule(name), Some(&path), &["--engine", "graph"]);
        std::fs::remove_file(&path).ok();
        for (i, line) in lines.iter().enumerate() {
            let givens = v.parse_givens(line);
            let context = format!("{name}: {line}");
            assert_eq!(
                slot[i].grids.len() as u64,
                brute::count(&v, &givens),
                "{context}"
            );
            assert_eq!(
                slot[i].summary.get("engine").and_then(Json::as_str),
                Some("slot"),
                "{context}"
            );
            check_all(&v, &givens, &slot[i].grids).unwrap_or_else(|e| panic!("{context}: {e}"));
            assert_eq!(slot[i].sorted_grids(), graph[i].sorted_grids(), "{context}");
        }
    }
}

/// A 6x6 Sudoku with `lines` (bulb or circle first), for the rules that need aggregates.
fn sudoku6(
    lines: &[&[(usize, usize)]],
    with: fn(Variant, &[(usize, usize)]) -> Variant,
) -> Variant {
    lines
        .iter()
        .fold(Variant::sudoku(6, 2, 3, Variant::digits(6)), |v, l| {
            with(v, l)
        })
}

#[test]
fn arrows_agree_with_the_brute_force() {
    let v = sudoku6(
        &[
            &[(1, 1), (1, 2), (2, 3)],
            &[(4, 4), (5, 5), (6, 6)],
            &[(3, 6), (2, 6), (1, 5)],
        ],
        Variant::with_arrow,
    );
    let file = fixture("needs-aggregates/arrow-6x6.graft");
    let givens = v.parse_givens(&crate::variant::start_givens(
        &std::fs::read_to_string(&file).unwrap(),
    ));
    let p = solve_json(&file, None, &[]);
    assert_eq!(p[0].grids.len() as u64, brute::count(&v, &givens));
    check_all(&v, &givens, &p[0].grids).unwrap();
    grafter(["check".as_ref(), file.as_os_str()]).ok();
}

#[test]
fn palindromes_agree_with_the_brute_force() {
    let v = sudoku6(
        &[
            &[(1, 1), (2, 2), (3, 3), (4, 4)],
            &[(6, 1), (5, 2), (4, 3), (5, 4)],
        ],
        Variant::with_palindrome,
    );
    let file = fixture("needs-aggregates/palindrome-6x6.graft");
    let givens = v.parse_givens(&crate::variant::start_givens(
        &std::fs::read_to_string(&file).unwrap(),
    ));
    let p = solve_json(&file, None, &[]);
    assert_eq!(p[0].grids.len() as u64, brute::count(&v, &givens));
    check_all(&v, &givens, &p[0].grids).unwrap();
}
