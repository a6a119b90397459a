//! Shaped grids and sub-grids: counts and whole state spaces against the brute force, the
//! slot engine against the general matcher, puzzle lines with a token per position, holes
//! in text and JSON output, and `grafter expand`.

use crate::brute;
use crate::checker::check_all;
use crate::random_variants::Rng;
use crate::support::{grafter, rule, solve_json, temp_path, Json, Puzzle};
use crate::variant::{rule_file, Variant};

/// Solutions, states, transitions and dead ends of a run.
fn space(p: &Puzzle) -> (u64, u64, u64, u64) {
    (
        p.stat("solutions"),
        p.stat("states"),
        p.stat("transitions"),
        p.stat("dead_ends"),
    )
}

/// `n` puzzle lines for `v`: a random solution (of the brute force) with all but `keep`
/// cells emptied, a token per position (`-` at holes).
fn random_puzzles(v: &Variant, rng: &mut Rng, n: usize, keep: usize) -> Vec<String> {
    let cells: Vec<usize> = (0..v.cells()).filter(|&i| !v.is_hole(i)).collect();
    let mut out = Vec::new();
    while out.len() < n {
        let values = v.values.len();
        let seed = rng.next();
        let mut order_rng = Rng::new(seed);
        let Some(full) = brute::first_solution(v, &vec![None; v.cells()], &mut |_| {
            let mut xs: Vec<usize> = (0..values).collect();
            order_rng.shuffle(&mut xs);
            xs
        }) else {
            continue;
        };
        let mut kept = cells.clone();
        rng.shuffle(&mut kept);
        kept.truncate(keep);
        let line = (0..v.cells())
            .map(|i| {
                if v.is_hole(i) {
                    "-".to_string()
                } else if kept.contains(&i) {
                    v.values[full[i]].clone()
                } else {
                    ".".to_string()
                }
            })
            .collect();
        out.push(line);
    }
    out
}

/// Solves `lines` with `rules` and compares counts with the brute force, every solution
/// with the checker, and, under `--expand all`, the whole space with the brute force's
/// and the general matcher's.
fn assert_against_brute_force(rules: &std::path::Path, v: &Variant, lines: &[String]) {
    let path = temp_path("shaped", "txt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let focus = solve_json(rules, Some(&path), &[]);
    let all = solve_json(rules, Some(&path), &["--expand", "all"]);
    let graph = solve_json(
        rules,
        Some(&path),
        &["--expand", "all", "--engine", "graph"],
    );
    std::fs::remove_file(&path).ok();
    for (i, line) in lines.iter().enumerate() {
        let givens = v.parse_givens(line);
        let context = format!("{} puzzle {} ({line})", rules.display(), i + 1);
        assert_eq!(
            focus[i].grids.len() as u64,
            brute::count(v, &givens),
            "{context}"
        );
        check_all(v, &givens, &focus[i].grids).unwrap_or_else(|e| panic!("{context}: {e}"));
        let s = brute::space(v, &givens, 1_000_000).expect("a small space");
        assert_eq!(
            space(&all[i]),
            (s.solutions, s.states, s.transitions, s.dead_ends),
            "--expand all: {context}"
        );
        assert_eq!(
            space(&graph[i]),
            space(&all[i]),
            "--engine graph: {context}"
        );
        assert_eq!(graph[i].sorted_grids(), all[i].sorted_grids(), "{context}");
        assert_eq!(
            all[i].summary.get("engine").and_then(Json::as_str),
            Some("slot"),
            "holes are not slots, so the slot engine runs shaped grids: {context}"
        );
    }
}

#[test]
fn the_twin_agrees_with_the_brute_force_and_the_matcher() {
    let rf = rule_file("twin-4x4");
    let mut rng = Rng::new(0x7a1c);
    let lines = random_puzzles(&rf.variant, &mut rng, 4, 15);
    assert_against_brute_force(&rule("twin-4x4"), &rf.variant, &lines);
}

/// Four 4x4 Sudokus side by side and a fifth on a lattice, as in clueless Sudoku.
fn mini_clueless(lattice: &str) -> String {
    format!(
        "values 1..4\nnode Cell {{ row: int, col: int, val: value? }}\nnode Group\nedge in: Cell -> Group\n\
         grid 8x8 of Cell\ngroups rows, columns, boxes 2x2 in block 4x4 at r1c1 r1c5 r5c1 r5c5\n\
         groups rows, columns, boxes 2x2 in {lattice}\n\
         rule place(v: value) {{\n  c: Cell {{ val == none }}\n  not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}\n  set c.val = v\n}}\n\
         final: not {{ c: Cell {{ val == none }} }}\n"
    )
}

#[test]
fn lattices_agree_with_the_brute_force() {
    let anchors = [(1, 1), (1, 5), (5, 1), (5, 5)];
    let four = || {
        anchors.iter().fold(
            Variant::shaped(&["########"; 8], Variant::digits(4)),
            |v, &(r, c)| v.with_sudoku_at(r, c, 4, 2, 2),
        )
    };
    // Every other cell from r1c1 (the boxes' top-left cells); 2x2 blocks 4 apart from r2c2.
    let cases = [
        (
            "lattice 4x4 at r1c1 step 2",
            lattice_groups(four(), 1, 1, 2, 1),
        ),
        (
            "lattice 4x4 at r2c2 step 4 blocks 2x2",
            lattice_groups(four(), 2, 2, 4, 2),
        ),
    ];
    let mut rng = Rng::new(0x1a77);
    for (lattice, v) in cases {
        let path = temp_path("lattice", "graft");
        std::fs::write(&path, mini_clueless(lattice)).unwrap();
        let lines = random_puzzles(&v, &mut rng, 4, 30);
        let puzzles = temp_path("lattice", "txt");
        std::fs::write(&puzzles, lines.join("\n") + "\n").unwrap();
        let got = solve_json(&path, Some(&puzzles), &[]);
        let graph = solve_json(&path, Some(&puzzles), &["--engine", "graph"]);
        for (i, line) in lines.iter().enumerate() {
            let givens = v.parse_givens(line);
            let context = format!("{lattice}: {line}");
            assert_eq!(
                got[i].grids.len() as u64,
                brute::count_fewest_first(&v, &givens),
                "{context}"
            );
            check_all(&v, &givens, &got[i].grids).unwrap_or_else(|e| panic!("{context}: {e}"));
            assert_eq!(got[i].sorted_grids(), graph[i].sorted_grids(), "{context}");
        }
        std::fs::remove_file(path).ok();
        std::fs::remove_file(puzzles).ok();
    }
}

/// The rows, columns and 2x2 boxes of a 4x4 Sudoku on a lattice: its cell (i, j) is at
/// 1-based row `r + (i / run) * step + i % run`, the column alike.
fn lattice_groups(mut v: Variant, r: usize, c: usize, step: usize, run: usize) -> Variant {
    let at = |i: usize| (i / run) * step + i % run;
    let cell = |v: &Variant, i: usize, j: usize| v.at(r + at(i), c + at(j));
    for i in 0..4 {
        let row = (0..4).map(|j| cell(&v, i, j)).collect();
        let col = (0..4).map(|j| cell(&v, j, i)).collect();
        let (bi, bj) = (2 * (i / 2), 2 * (i % 2));
        let b = (0..4).map(|k| cell(&v, bi + k / 2, bj + k % 2)).collect();
        v = v.with_group(row).with_group(col).with_group(b);
    }
    v
}

#[test]
fn the_large_shapes_run_on_both_engines_alike() {
    for name in ["samurai-21x21", "windmill-21x21", "clueless-2-27x27"] {
        let slot = solve_json(&rule(name), None, &[]);
        let graph = solve_json(&rule(name), None, &["--engine", "graph"]);
        assert_eq!(
            slot[0].summary.get("engine").and_then(Json::as_str),
            Some("slot")
        );
        assert_eq!(slot[0].grids.len(), 1, "{name}");
        assert_eq!(slot[0].grids, graph[0].grids, "{name}");
    }
}

#[test]
fn a_hole_takes_any_token_and_a_line_any_form() {
    // The twin's start block, with `-`, `.` and a value at the holes, compact and separated.
    let start = ".2..--..3.--.......1....--..2.--...4";
    let dots = start.replace('-', ".");
    let digits = start.replace('-', "4");
    let spaced: Vec<String> = start.chars().map(String::from).collect();
    let path = temp_path("holes", "txt");
    std::fs::write(
        &path,
        format!("{start}\n{dots}\n{digits}\n{}\n", spaced.join(" ")),
    )
    .unwrap();
    let p = solve_json(&rule("twin-4x4"), Some(&path), &[]);
    std::fs::remove_file(&path).ok();
    assert_eq!(p.len(), 4);
    for q in &p {
        assert_eq!(q.sorted_grids(), p[0].sorted_grids());
    }
    assert_eq!(p[0].grids.len(), 3);
}

#[test]
fn a_puzzle_line_counts_positions_and_says_so() {
    let path = temp_path("short", "txt");
    std::fs::write(&path, ".2..........3......1.....2....4\n").unwrap();
    let run = grafter([
        "solve".as_ref(),
        rule("twin-4x4").as_os_str(),
        "--puzzles".as_ref(),
        path.as_os_str(),
    ]);
    std::fs::remove_file(&path).ok();
    run.expect_code(1);
    assert!(
        run.stderr.contains(":1:1: error: puzzle has 31 cells (one character per cell), expected 36 (the grid is 6x6, holes included)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("a shaped grid takes a token at each hole too (`-` or `.`, ignored)"),
        "{}",
        run.stderr
    );
}

#[test]
fn holes_print_as_blanks() {
    let run = grafter([
        "solve".as_ref(),
        rule("twin-4x4").as_os_str(),
        "--max-solutions".as_ref(),
        "1".as_ref(),
    ]);
    run.expect_code(3);
    let layout: Vec<String> = run
        .stdout
        .lines()
        .skip(1)
        .take(8)
        .map(|l| {
            l.chars()
                .map(|c| if c.is_ascii_digit() { 'd' } else { c })
                .collect()
        })
        .collect();
    // Bars only between two cells; rules under the columns that have a cell.
    assert_eq!(
        layout,
        [
            "d d | d d",
            "d d | d d",
            "----+-----+----",
            "d d | d d | d d",
            "d d | d d | d d",
            "----+-----+----",
            "      d d | d d",
            "      d d | d d",
        ],
        "{}",
        run.stdout
    );
    let p = solve_json(&rule("twin-4x4"), None, &[]);
    for g in &p[0].grids {
        let blanks: Vec<usize> = g
            .char_indices()
            .filter(|&(_, c)| c == ' ')
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            (g.len(), blanks),
            (36, vec![4, 5, 10, 11, 24, 25, 30, 31]),
            "{g}"
        );
    }
}

#[test]
fn holes_are_null_in_json_rows() {
    // Values longer than a character change nothing: a hole is `null`, a cell its name.
    let text = std::fs::read_to_string(rule("twin-4x4"))
        .unwrap()
        .replace("values 1..4", "values 1 2 3 10")
        .replace(". . . 4\n}", ". . . 10\n}");
    let path = temp_path("twin10", "graft");
    std::fs::write(&path, text).unwrap();
    let p = solve_json(&path, None, &[]);
    std::fs::remove_file(&path).ok();
    assert_eq!(p[0].solutions.len(), 3);
    for s in &p[0].solutions {
        let rows = s.grid.as_ref().expect("a grid");
        let holes: Vec<(usize, usize)> = rows
            .iter()
            .enumerate()
            .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, x)| (r, c, x)))
            .filter(|(_, _, x)| x.is_none())
            .map(|(r, c, _)| (r, c))
            .collect();
        assert_eq!(
            holes,
            [
                (0, 4),
                (0, 5),
                (1, 4),
                (1, 5),
                (4, 0),
                (4, 1),
                (5, 0),
                (5, 1)
            ]
        );
        assert_eq!(rows[5][5].as_deref(), Some("10"));
    }
}

#[test]
fn the_expanded_shaped_file_solves_alike() {
    for name in ["twin-4x4", "thermo-6x6"] {
        let run = grafter(["expand".as_ref(), rule(name).as_os_str()]);
        run.ok();
        let path = temp_path("expanded", "graft");
        std::fs::write(&path, &run.stdout).unwrap();
        let again = solve_json(&path, None, &[]);
        std::fs::remove_file(&path).ok();
        let first = solve_json(&rule(name), None, &[]);
        assert_eq!(again[0].sorted_grids(), first[0].sorted_grids(), "{name}");
        if name == "twin-4x4" {
            assert!(
                run.stdout.contains(" shape {\n  ####..\n"),
                "{}",
                run.stdout
            );
            assert!(
                run.stdout.contains("r3c3 -in-> r1c1_box4"),
                "{}",
                run.stdout
            );
        }
    }
}
