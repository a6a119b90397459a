//! Aggregates end to end: killer cages (`sum`, `count`), renban runs (`count`, and `max`
//! and `min` in `final:`) and odd counts, solved by grafter under `--expand focus` and
//! `--expand all`. Solutions are compared with the brute force and the independent checker;
//! the `--expand all` spaces with a second enumeration written from the rules' meaning.

use std::collections::HashSet;

use crate::brute;
use crate::checker::check_all;
use crate::random_variants::Rng;
use crate::support::{grafter, rule, solve_json, temp_path, Json, Puzzle};
use crate::variant::{Variant, KILLER_4X4, KILLER_4X4_SUMS, RENBAN_6X6};

/// Solutions, states, transitions and dead ends.
type Space = (u64, u64, u64, u64);

fn space_of(p: &Puzzle) -> Space {
    (
        p.stat("solutions"),
        p.stat("states"),
        p.stat("transitions"),
        p.stat("dead_ends"),
    )
}

fn expand_of(p: &Puzzle) -> String {
    let s = |k: &str| {
        p.summary
            .get(k)
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_string()
    };
    format!("{} {}", s("engine"), s("expand"))
}

/// A filling: per cell, the index of its value or `None`.
type Filling = Vec<Option<usize>>;

/// Whether a rule places value `x` in empty `cell` of a filling.
type Allows<'a> = &'a dyn Fn(&[Option<usize>], usize, usize) -> bool;

/// Whether a filling is a solution.
type IsFinal<'a> = &'a dyn Fn(&[Option<usize>]) -> bool;

/// The `--expand all` space of a grammar whose one rule places a value in an empty cell,
/// enumerated from the rule's meaning: `allows(state, cell, x)` says whether placing value
/// `x` in empty `cell` is an application, `is_final` whether a state is a solution. `None`
/// past `cap` states.
fn all_space(
    v: &Variant,
    givens: &[Option<usize>],
    allows: Allows,
    is_final: IsFinal,
    cap: u64,
) -> Option<Space> {
    let mut seen: HashSet<Filling> = HashSet::from([givens.to_vec()]);
    let mut todo = vec![givens.to_vec()];
    let (mut solutions, mut transitions, mut dead) = (0, 0, 0);
    while let Some(s) = todo.pop() {
        if seen.len() as u64 > cap {
            return None;
        }
        let mut moves = 0;
        for cell in (0..v.cells()).filter(|&c| s[c].is_none()) {
            for x in 0..v.values.len() {
                if allows(&s, cell, x) {
                    moves += 1;
                    let mut t = s.clone();
                    t[cell] = Some(x);
                    if seen.insert(t.clone()) {
                        todo.push(t);
                    }
                }
            }
        }
        transitions += moves;
        if is_final(&s) {
            solutions += 1;
        } else if moves == 0 {
            dead += 1;
        }
    }
    Some((solutions, seen.len() as u64, transitions, dead))
}

fn full(s: &[Option<usize>]) -> bool {
    s.iter().all(Option::is_some)
}

/// No other cell of a group of `cell` holds `x`.
fn groups_allow(v: &Variant, s: &[Option<usize>], cell: usize, x: usize) -> bool {
    v.groups
        .iter()
        .filter(|g| g.contains(&cell))
        .all(|g| g.iter().all(|&d| d == cell || s[d] != Some(x)))
}

/// The filled numbers and the number of empty cells among `cells` other than `cell`.
fn others(v: &Variant, s: &[Option<usize>], cells: &[usize], cell: usize) -> (Vec<i64>, usize) {
    let rest = cells.iter().filter(|&&d| d != cell);
    let nums = rest
        .clone()
        .filter_map(|&d| s[d].map(|y| v.number(y)))
        .collect();
    (nums, rest.filter(|&&d| s[d].is_none()).count())
}

/// The killer rule of `rules/killer-*.graft`: `x` in `cell` unless a group or cage of
/// `cell` holds it, or a cage's other filled numbers plus `x` exceed its sum, or miss it
/// when the cage has no other empty cell; with `lower`, also unless they fall short of it
/// with the largest value in each other empty cell.
fn killer_allows(v: &Variant, s: &[Option<usize>], cell: usize, x: usize, lower: bool) -> bool {
    let most = v.number(v.values.len() - 1);
    groups_allow(v, s, cell, x)
        && v.sums
            .iter()
            .filter(|(c, _)| c.contains(&cell))
            .all(|(cells, sum)| {
                let (nums, empty) = others(v, s, cells, cell);
                let total = nums.iter().sum::<i64>() + v.number(x);
                total <= *sum
                    && (empty > 0 || total == *sum)
                    && (!lower || total + most * empty as i64 >= *sum)
            })
}

/// The floor `rules/killer-4x4.graft` adds: a cage's other filled numbers plus `x` plus 1
/// in each of its other empty cells do not exceed its sum.
fn cage_floor_allows(v: &Variant, s: &[Option<usize>], cell: usize, x: usize) -> bool {
    v.sums
        .iter()
        .filter(|(c, _)| c.contains(&cell))
        .all(|(cells, sum)| {
            let (nums, empty) = others(v, s, cells, cell);
            nums.iter().sum::<i64>() + v.number(x) + empty as i64 <= *sum
        })
}

/// A 4x4 rule file: a Sudoku with the cages of `layout` (`.` is a cell in no cage); with
/// `lower`, a second NAC blocks values that leave a cage short of its sum.
fn killer_text(layout: &[&str], sums: &[(char, i64)], lower: bool) -> String {
    let mut nodes = String::new();
    for &(letter, sum) in sums {
        nodes += &format!("k{letter}: Cage {{ sum = {sum} }}\n");
    }
    for (r, line) in layout.iter().enumerate() {
        for (c, ch) in line.chars().enumerate() {
            if ch != '.' {
                nodes += &format!("r{}c{} -cage-> k{ch}\n", r + 1, c + 1);
            }
        }
    }
    format!(
        "values 1..4
         node Cell {{ row: int, col: int, val: value? }}
         node Group
         node Cage {{ sum: int }}
         edge in: Cell -> Group
         edge cage: Cell -> Cage
         grid 4x4 of Cell
         groups rows, columns, boxes 2x2 via in
         {nodes}
         rule place(v: value) {{
           c: Cell {{ val == none }}
           not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
           not {{ c -cage-> k: Cage <-cage- d: Cell {{ val == v }} }}
           not {{ c -cage-> k: Cage
                 where sum(d.val for k <-cage- d: Cell) + v > k.sum
                    or count(k <-cage- d: Cell {{ val == none }}) == 0
                       and sum(d.val for k <-cage- d: Cell) + v != k.sum }}
           {}
           set c.val = v
         }}
         final: not {{ c: Cell {{ val == none }} }}",
        if lower {
            "not { c -cage-> k: Cage
                   where sum(d.val for k <-cage- d: Cell) + v
                         + 4 * count(k <-cage- d: Cell { val == none }) < k.sum }"
        } else {
            ""
        }
    )
}

/// Givens: the cells of `solution` whose bit is set in `keep`, one character per cell.
fn givens_line(v: &Variant, solution: &[usize], keep: &[bool]) -> String {
    solution
        .iter()
        .zip(keep)
        .map(|(&x, &k)| if k { v.values[x].clone() } else { ".".into() })
        .collect()
}

/// The largest `--expand all` space the tests have grafter explore (seconds on whole
/// graphs).
const ALL_CAP: u64 = 20_000;

/// Solves `text` on one puzzle line under focus (on the graph engine too when the slot
/// engine takes the file) and, where its space has at most [`ALL_CAP`] states, under all;
/// checks the solutions against the brute force and the checker, and the all space against
/// `all_space`. True when all was compared.
fn assert_focus_all_brute(
    tag: &str,
    text: &str,
    v: &Variant,
    line: &str,
    allows: Allows,
    is_final: IsFinal,
) -> bool {
    let rules = temp_path(tag, "graft");
    let puzzles = temp_path(tag, "txt");
    std::fs::write(&rules, text).unwrap();
    std::fs::write(&puzzles, format!("{line}\n")).unwrap();
    let givens = v.parse_givens(line);
    let context = format!("{tag} {line}");
    let mut expected: Vec<String> = brute::solutions(v, &givens)
        .iter()
        .map(|s| s.iter().map(|&x| v.values[x].clone()).collect())
        .collect();
    expected.sort();
    let focus = &solve_json(&rules, Some(&puzzles), &[])[0];
    assert!(
        expand_of(focus).ends_with(" focus"),
        "{context}: focus is sound"
    );
    assert_eq!(focus.sorted_grids(), expected, "{context}: focus");
    check_all(v, &givens, &focus.grids).unwrap_or_else(|e| panic!("{context}: {e}"));
    if expand_of(focus).starts_with("slot") {
        let graph = &solve_json(&rules, Some(&puzzles), &["--engine", "graph"])[0];
        assert_eq!(expand_of(graph), "graph focus", "{context}");
        assert_eq!(graph.sorted_grids(), expected, "{context}: graph focus");
    }
    let space = all_space(v, &givens, allows, is_final, ALL_CAP);
    if let Some(space) = space {
        assert_eq!(
            space.0,
            expected.len() as u64,
            "{context}: the enumeration's solutions"
        );
        let all = &solve_json(&rules, Some(&puzzles), &["--expand", "all"])[0];
        assert!(expand_of(all).ends_with(" all"), "{context}");
        assert_eq!(all.sorted_grids(), expected, "{context}: all");
        assert_eq!(space_of(all), space, "{context}: the --expand all space");
    }
    let _ = std::fs::remove_file(rules);
    let _ = std::fs::remove_file(puzzles);
    space.is_some()
}

#[test]
fn killer_4x4_focus_and_all_agree_with_brute_force() {
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_cages(&KILLER_4X4, &KILLER_4X4_SUMS);
    let text = std::fs::read_to_string(rule("killer-4x4")).unwrap();
    let allows = |s: &[Option<usize>], c: usize, x: usize| {
        killer_allows(&v, s, c, x, false) && cage_floor_allows(&v, s, c, x)
    };
    // A solution of the file's own puzzle, and half of it given in three ways, with the
    // puzzle's cages and sums as the line's layers; the whole space of the empty grid is
    // for the focus only.
    let solution = brute::solutions(&v, &[None; 16]).swap_remove(0);
    let layers = " | cages: aabb aacb dcce ddfe | sums: 10 . 8 . . . 9 . 7 . . 5 . . 1 .";
    let mut rng = Rng::new(0x6b696c6c);
    for _ in 0..3 {
        let keep: Vec<bool> = (0..16).map(|_| rng.chance(1, 2)).collect();
        let line = givens_line(&v, &solution, &keep) + layers;
        let small = assert_focus_all_brute("killer-4x4", &text, &v, &line, &allows, &full);
        assert!(small, "{line}: a space small enough to compare under all");
    }
}

#[test]
fn random_killer_cages_agree_with_brute_force() {
    let sudoku = Variant::sudoku(4, 2, 2, Variant::digits(4));
    let grids = brute::solutions(&sudoku, &[None; 16]);
    let mut rng = Rng::new(0x63616765);
    let mut counts = Vec::new();
    let (mut compared, mut compared_lower) = (0, 0);
    for case in 0..12 {
        let solution = &grids[rng.below(grids.len())];
        // Cages of up to three cells holding distinct values of the solution, some cells
        // in none; sums from the solution. (Givens are not checked against each other on
        // whole graphs, so the cages must agree with the solution the givens come from.)
        let letters = ['A', 'B', 'C', 'D', 'E', 'F'];
        let mut held: [Vec<usize>; 6] = Default::default();
        let mut layout = vec![String::new(); 4];
        for (cell, &x) in solution.iter().enumerate() {
            let k = rng.below(14);
            let ch = if k < 6 && held[k].len() < 3 && !held[k].contains(&x) {
                held[k].push(x);
                letters[k]
            } else {
                '.'
            };
            layout[cell / 4].push(ch);
        }
        let size: Vec<usize> = held.iter().map(Vec::len).collect();
        let rows: Vec<&str> = layout.iter().map(String::as_str).collect();
        let mut sums = Vec::new();
        for (k, &letter) in letters.iter().enumerate() {
            if size[k] > 0 {
                let total: i64 = (0..16)
                    .filter(|&c| rows[c / 4].as_bytes()[c % 4] == letter as u8)
                    .map(|c| solution[c] as i64 + 1)
                    .sum();
                sums.push((letter, total));
            }
        }
        let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_cages(&rows, &sums);
        // Few givens (several solutions) and many (spaces small enough for all) in turn.
        let given = if case % 2 == 0 { 1 } else { 3 };
        let keep: Vec<bool> = (0..16).map(|_| rng.chance(given, 6)).collect();
        let line = givens_line(&v, solution, &keep);
        // Every third case also blocks cages that can no longer reach their sum.
        let lower = case % 3 == 2;
        let allows = |s: &[Option<usize>], c: usize, x: usize| killer_allows(&v, s, c, x, lower);
        let text = killer_text(&rows, &sums, lower);
        let tag = format!("killer-random-{case}");
        let was = assert_focus_all_brute(&tag, &text, &v, &line, &allows, &full);
        compared += was as usize;
        compared_lower += (was && lower) as usize;
        counts.push(brute::count(&v, &v.parse_givens(&line)));
    }
    // The cases are not all alike: some have several solutions, some small spaces.
    assert!(counts.iter().any(|&n| n > 1), "{counts:?}");
    assert!(compared >= 3, "{compared} spaces compared under all");
    assert!(
        compared_lower >= 1,
        "a space with the lower bound compared under all"
    );
}

/// A 4x4 Latin square whose regions of `layout` are runs: they differ (a NAC) and,
/// checked in `final:` once full, `max - min + 1 == count`.
fn renban_final_text(layout: &[&str]) -> String {
    format!(
        "values 1..4
         node Cell {{ row: int, col: int, val: value? }}
         node Group
         node Run
         edge in: Cell -> Group
         edge run: Cell -> Run
         grid 4x4 of Cell
         groups rows, columns via in
         groups regions {{ {} }} via run
         rule place(v: value) {{
           c: Cell {{ val == none }}
           not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
           not {{ c -run-> r: Run <-run- d: Cell {{ val == v }} }}
           set c.val = v
         }}
         final: not {{ c: Cell {{ val == none }} }}
            and not {{ r: Run where max(d.val for r <-run- d: Cell) - min(d.val for r <-run- d: Cell) + 1
                                    != count(r <-run- d: Cell) }}",
        layout.join(" ")
    )
}

#[test]
fn renban_runs_agree_with_brute_force() {
    // The rule file: runs kept by a forbidden pattern on their largest and smallest value
    // (pinned by the start block's count against the brute force in counts.rs); here its
    // space under all.
    let v = crate::variant::rule_file("renban-6x6").variant;
    let run_allows = |s: &[Option<usize>], cell: usize, x: usize| {
        groups_allow(&v, s, cell, x)
            && v.runs.iter().filter(|r| r.contains(&cell)).all(|r| {
                let (nums, _) = others(&v, s, r, cell);
                nums.iter()
                    .all(|&y| (y - v.number(x)).abs() < r.len() as i64)
            })
    };
    let text = std::fs::read_to_string(rule("renban-6x6")).unwrap();
    let solution = "514362436251362145125634651423243516";
    let mut line: String = solution
        .chars()
        .enumerate()
        .map(|(i, ch)| if i % 2 == 0 || i > 23 { ch } else { '.' })
        .collect();
    // The runs are the file's own puzzle's, given on the line as its `run` layer.
    line += &format!(" | run: {}", RENBAN_6X6.join(" "));
    assert!(assert_focus_all_brute(
        "renban-6x6",
        &text,
        &v,
        &line,
        &run_allows,
        &full
    ));

    // The form of the language reference: `max - min + 1 == count` in `final:`.
    let layouts: [[&str; 4]; 3] = [
        ["AABB", "CCDD", "EEFF", "GGHH"],
        ["CHJE", "CABE", "IAFF", "IDDG"],
        ["AGGG", "FBII", "FJCI", "EJHH"],
    ];
    for (i, layout) in layouts.iter().enumerate() {
        let v = Variant::latin(4, Variant::digits(4)).with_runs(layout);
        let distinct = |s: &[Option<usize>], c: usize, x: usize| groups_allow(&v, s, c, x);
        let runs_hold = |s: &[Option<usize>]| {
            full(s)
                && v.runs.iter().all(|r| {
                    let nums: Vec<i64> = r.iter().map(|&c| v.number(s[c].unwrap())).collect();
                    nums.iter().max().unwrap() - nums.iter().min().unwrap() + 1 == r.len() as i64
                })
        };
        let latin = Variant::latin(4, Variant::digits(4));
        let some = &brute::solutions(&v, &[None; 16]);
        assert!(!some.is_empty(), "layout {i} has solutions");
        let keep: Vec<bool> = (0..16).map(|c| c % 2 == i % 2).collect();
        let line = givens_line(&latin, &some[0], &keep);
        let text = renban_final_text(layout);
        let tag = format!("renban-final-{i}");
        assert!(assert_focus_all_brute(
            &tag, &text, &v, &line, &distinct, &runs_hold
        ));
    }
}

/// A 4x4 Sudoku whose zones of `layout` hold exactly as many odd numbers as given: the
/// count of odd cells, completed by the placed value's share `v % 2`.
fn odds_text(layout: &[&str], odds: &[(char, usize)]) -> String {
    let mut nodes = String::new();
    for &(letter, n) in odds {
        nodes += &format!("z{letter}: Zone {{ odd = {n} }}\n");
    }
    for (r, line) in layout.iter().enumerate() {
        for (c, ch) in line.chars().enumerate() {
            nodes += &format!("r{}c{} -zone-> z{ch}\n", r + 1, c + 1);
        }
    }
    format!(
        "values 1..4
         node Cell {{ row: int, col: int, val: value? }}
         node Group
         node Zone {{ odd: int }}
         edge in: Cell -> Group
         edge zone: Cell -> Zone
         grid 4x4 of Cell
         groups rows, columns, boxes 2x2 via in
         {nodes}
         rule place(v: value) {{
           c: Cell {{ val == none }}
           not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
           not {{ c -zone-> z: Zone
                 where count(z <-zone- d: Cell {{ val % 2 == 1 }}) + v % 2 > z.odd
                    or count(z <-zone- d: Cell {{ val == none }}) == 0
                       and count(z <-zone- d: Cell {{ val % 2 == 1 }}) + v % 2 != z.odd }}
           set c.val = v
         }}
         final: not {{ c: Cell {{ val == none }} }}"
    )
}

#[test]
fn odd_counts_agree_with_brute_force() {
    type Zones = ([&'static str; 4], [(char, usize); 4]);
    let layouts: [Zones; 2] = [
        (
            ["AABB", "AABB", "CCDD", "CCDD"],
            [('A', 2), ('B', 2), ('C', 2), ('D', 2)],
        ),
        (
            ["AAAB", "ACCB", "ACDB", "DDDB"],
            [('A', 3), ('B', 2), ('C', 1), ('D', 2)],
        ),
    ];
    for (i, (layout, odds)) in layouts.iter().enumerate() {
        let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_odds(layout, odds);
        let allows = |s: &[Option<usize>], cell: usize, x: usize| {
            groups_allow(&v, s, cell, x)
                && v.odds
                    .iter()
                    .filter(|(z, _)| z.contains(&cell))
                    .all(|(z, n)| {
                        let (nums, empty) = others(&v, s, z, cell);
                        let odd = nums.iter().filter(|&&y| y % 2 == 1).count()
                            + (v.number(x) % 2) as usize;
                        odd <= *n && (empty > 0 || odd == *n)
                    })
        };
        let all = brute::solutions(&v, &[None; 16]);
        assert!(all.len() > 1, "layout {i}: {} solutions", all.len());
        let keep: Vec<bool> = (0..16).map(|c| c % 3 == i).collect();
        let sudoku = Variant::sudoku(4, 2, 2, Variant::digits(4));
        let line = givens_line(&sudoku, &all[all.len() / 2], &keep);
        let text = odds_text(layout, odds);
        let tag = format!("odds-{i}");
        assert!(assert_focus_all_brute(
            &tag, &text, &v, &line, &allows, &full
        ));
    }
}

#[test]
fn an_aggregate_the_analysis_refuses_runs_under_all_and_says_why() {
    // The cage sum as a condition of the rule's own pattern: filling a cell could enable
    // a rule, so focus is refused; the totals are checked in `final:`.
    let text = std::fs::read_to_string(rule("killer-4x4")).unwrap();
    let start = text.find("rule place").unwrap();
    let text = format!(
        "{}rule place(v: value) {{
           c: Cell {{ val == none }} -cage-> k: Cage
           where sum(d.val for k <-cage- d: Cell) + v <= k.sum
           not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
           not {{ c -cage-> k2: Cage <-cage- d: Cell {{ val == v }} }}
           set c.val = v
         }}
         final: not {{ c: Cell {{ val == none }} }}
            and not {{ k: Cage where sum(d.val for k <-cage- d: Cell) != k.sum }}",
        &text[..start]
    );
    let rules = temp_path("killer-lhs", "graft");
    let puzzles = temp_path("killer-lhs", "txt");
    std::fs::write(&rules, &text).unwrap();
    std::fs::write(&puzzles, "2.4.4.3..2.4.4.3\n").unwrap();
    let run = grafter(["check".as_ref(), rules.as_os_str()]);
    run.ok();
    assert!(
        run.stdout.contains("rule `place` tests an aggregate over cells that rules fill in its own pattern, so filling a cell could enable it: write the test as a NAC (`not { where ... }`)"),
        "{}",
        run.stdout
    );
    let p = &solve_json(&rules, Some(&puzzles), &[])[0];
    assert_eq!(expand_of(p), "graph all");
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4)).with_cages(&KILLER_4X4, &KILLER_4X4_SUMS);
    let givens = v.parse_givens("2.4.4.3..2.4.4.3");
    assert_eq!(p.grids.len() as u64, brute::count(&v, &givens));
    check_all(&v, &givens, &p.grids).unwrap();
    let _ = std::fs::remove_file(rules);
    let _ = std::fs::remove_file(puzzles);
}

#[test]
fn killer_9x9_runs_on_the_slot_engine_with_focus() {
    let run = grafter(["check".as_ref(), rule("killer-9x9").as_os_str()]);
    run.ok();
    assert!(
        run.stdout.contains("engine: slot (81 slots") && run.stdout.contains("expand focus: sound"),
        "{}",
        run.stdout
    );
    let p = &solve_json(&rule("killer-9x9"), None, &[])[0];
    assert_eq!(expand_of(p), "slot focus");
    assert_eq!(p.grids.len(), 1);
    assert_eq!(
        p.summary.get("complete").and_then(Json::as_bool),
        Some(true)
    );
    let v = crate::variant::rule_file("killer-9x9").variant;
    check_all(&v, &[None; 81], &p.grids).unwrap();
}

#[test]
fn expanded_killer_files_check_and_solve_alike() {
    // `grafter expand` prints the cages as plain nodes and edges and the rules as written.
    for name in ["killer-4x4", "renban-6x6"] {
        let run = grafter(["expand".as_ref(), rule(name).as_os_str()]);
        run.ok();
        let path = temp_path(name, "graft");
        std::fs::write(&path, &run.stdout).unwrap();
        let expanded = &solve_json(&path, None, &[])[0];
        let original = &solve_json(&rule(name), None, &[])[0];
        assert_eq!(expanded.sorted_grids(), original.sorted_grids(), "{name}");
        assert_eq!(expand_of(expanded), expand_of(original), "{name}");
        let _ = std::fs::remove_file(path);
    }
}

/// `rules/skyscraper-4x4.graft` made a 5x5 grid of heights 0..3 (two empty plots a line,
/// as `grafter import janko` writes such a file): its clues come from each puzzle line.
fn skyscraper_plots_text() -> String {
    let text = std::fs::read_to_string(rule("skyscraper-4x4")).unwrap();
    let mut out = String::new();
    let mut in_start = false;
    for line in text.lines() {
        if line.starts_with("start {") {
            in_start = true;
        }
        if in_start {
            in_start = line != "}";
            continue;
        }
        let line = match line {
            "values 1..4" => "values 0..3",
            "grid 4x4 of Cell" => "grid 5x5 of Cell",
            l if l.starts_with("layer ") => l.split(" = {").next().unwrap(),
            l => l,
        };
        out += line;
        out.push('\n');
    }
    assert!(
        out.contains("values 0..3") && out.contains("grid 5x5"),
        "{out}"
    );
    out
}

/// Skyscrapers with two empty plots a line: the line NAC counting plots (`count(...) +
/// int(int(v) == 0)`) compiles to groups whose contents keep each height once (the
/// hub of different heights) beside two plots. Under focus and under all, on both engines,
/// the solutions are the brute force's and the `--expand all` space the rule's meaning
/// enumerated; with every clue, alternate clues, and clues with some givens.
#[test]
fn skyscraper_plots_agree_with_brute_force() {
    let text = skyscraper_plots_text();
    let values: Vec<String> = (0..4).map(|d| d.to_string()).collect();
    let plain = Variant::shaped(&["#####"; 5], values).with_plots(2);
    let solution: Vec<usize> = ["12300", "23001", "30012", "00123", "01230"]
        .iter()
        .flat_map(|r| r.bytes().map(|b| usize::from(b - b'0')))
        .collect();
    let numbers: Vec<i64> = solution.iter().map(|&x| x as i64).collect();
    let line_of = |cells: Vec<usize>| -> Vec<i64> { cells.iter().map(|&c| numbers[c]).collect() };
    let row = |r: usize| line_of((0..5).map(|c| r * 5 + c).collect());
    let col = |c: usize| line_of((0..5).map(|r| r * 5 + c).collect());
    let rev = |mut l: Vec<i64>| {
        l.reverse();
        l
    };
    let clues: [Vec<usize>; 4] = [
        (0..5).map(|r| Variant::seen(&row(r))).collect(),
        (0..5).map(|r| Variant::seen(&rev(row(r)))).collect(),
        (0..5).map(|c| Variant::seen(&col(c))).collect(),
        (0..5).map(|c| Variant::seen(&rev(col(c)))).collect(),
    ];
    let mut rng = Rng::new(0x706c6f74);
    let (mut compared_all, mut counts) = (0, Vec::new());
    for case in 0..4 {
        // Every clue; every other clue; then every clue with half, then three quarters, of the
        // cells given.
        let keep_clue = |i: usize| case != 1 || i.is_multiple_of(2);
        let shown: Vec<Vec<Option<usize>>> = clues
            .iter()
            .map(|side| {
                side.iter()
                    .enumerate()
                    .map(|(i, &n)| keep_clue(i).then_some(n))
                    .collect()
            })
            .collect();
        let v = plain
            .clone()
            .with_sights(&shown[0], &shown[1], &shown[2], &shown[3]);
        let keep: Vec<bool> = (0..25).map(|_| case >= 2 && rng.chance(case, 4)).collect();
        let section = |name: &str, side: &[Option<usize>]| {
            let words: Vec<String> = side
                .iter()
                .map(|n| n.map_or(".".into(), |n| n.to_string()))
                .collect();
            format!(" | {name}: {}", words.join(" "))
        };
        let line = givens_line(&v, &solution, &keep)
            + &section("left", &shown[0])
            + &section("right", &shown[1])
            + &section("top", &shown[2])
            + &section("bottom", &shown[3])
            + " | row_blanks: 2 2 2 2 2 | column_blanks: 2 2 2 2 2";
        // The place rule: heights differ along a line (plots may repeat, as a line has two),
        // a line never holds more than its plots, and exactly them once full.
        let allows = |s: &[Option<usize>], cell: usize, x: usize| {
            let n = v.number(x);
            v.plots
                .iter()
                .filter(|(c, _)| c.contains(&cell))
                .all(|(cells, k)| {
                    let (nums, empty) = others(&v, s, cells, cell);
                    let plots = nums.iter().filter(|&&y| y == 0).count() + usize::from(n == 0);
                    (n == 0 || !nums.contains(&n)) && plots <= *k && (empty > 0 || plots == *k)
                })
        };
        let is_final = |s: &[Option<usize>]| {
            full(s)
                && v.sights.iter().all(|(cells, n)| {
                    let nums: Vec<i64> = cells.iter().map(|&c| v.number(s[c].unwrap())).collect();
                    Variant::seen(&nums) == *n
                })
        };
        let tag = format!("skyscraper-plots-{case}");
        if assert_focus_all_brute(&tag, &text, &v, &line, &allows, &is_final) {
            compared_all += 1;
        }
        counts.push(brute::solutions(&v, &v.parse_givens(&line)).len());
    }
    // The clues make the solution unique; half of them leave several.
    assert_eq!(counts[0], 1, "{counts:?}");
    assert!(counts[1] > 1, "{counts:?}");
    assert!(
        compared_all >= 2,
        "only {compared_all} spaces compared under all"
    );
}
