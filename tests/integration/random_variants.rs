//! Differential tests on random small variants: each is written as a rule file, solved by
//! grafter and by the brute-force enumerator, and the counts (and, where the space is small,
//! the `--expand all` state, transition and dead-end counts) must agree.

use crate::brute;
use crate::checker;
use crate::support::{grafter, parse_json, temp_path, Json};
use crate::variant::Variant;

/// xorshift64*: a fixed-seed generator, so every run tests the same variants.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    pub fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = self.below(i + 1);
            xs.swap(i, j);
        }
    }
}

/// A relation between two cells c and d, as a `where` condition and as Rust.
struct Relation {
    cond: &'static str,
    holds: fn(i64, i64, i64, i64) -> bool,
}

const RELATIONS: [Relation; 7] = [
    Relation { cond: "abs(c.row - d.row) * abs(c.col - d.col) == 2", holds: |r1, c1, r2, c2| (r1 - r2).abs() * (c1 - c2).abs() == 2 },
    Relation {
        cond: "abs(c.row - d.row) == 1 and abs(c.col - d.col) == 1",
        holds: |r1, c1, r2, c2| (r1 - r2).abs() == 1 && (c1 - c2).abs() == 1,
    },
    Relation { cond: "d.row == c.row + 1 and d.col == c.col + 2", holds: |r1, c1, r2, c2| r2 == r1 + 1 && c2 == c1 + 2 },
    Relation { cond: "c.row + c.col == d.row + d.col", holds: |r1, c1, r2, c2| r1 + c1 == r2 + c2 },
    Relation {
        cond: "(c.row * 2 + c.col) % 3 == 0 and d.row - c.row == 2 and not (d.col == c.col)",
        holds: |r1, c1, r2, c2| (r1 * 2 + c1) % 3 == 0 && r2 - r1 == 2 && c2 != c1,
    },
    Relation {
        cond: "c.row - d.row == c.col - d.col and (c.row + d.row) % 2 == 1 or c.row * c.col == d.row * d.col",
        holds: |r1, c1, r2, c2| (r1 - r2 == c1 - c2 && (r1 + r2) % 2 == 1) || r1 * c1 == r2 * c2,
    },
    Relation {
        cond: "c.row < d.row and c.col - d.col == 1 and (d.row - c.row) / 2 == 1",
        holds: |r1, c1, r2, c2| r1 < r2 && c1 - c2 == 1 && (r2 - r1) / 2 == 1,
    },
];

/// The seed of the 40 random variants.
const SEED: u64 = 0x5eed_9a4f_7e11;

const COLOURS: [&str; 5] = ["red", "green", "blue", "amber", "violet"];

/// One random variant: its rule file text and its independent description.
pub struct Case {
    pub text: String,
    pub variant: Variant,
    pub givens: Vec<Option<usize>>,
}

fn cell_name(v: &Variant, cell: usize) -> String {
    let (r, c) = v.rc(cell);
    format!("r{r}c{c}")
}

/// Makes random variant number `index`.
pub fn make_case(rng: &mut Rng, index: usize) -> Case {
    let kind = index % 4; // 0 Latin, 1 4x4 Sudoku, 2 with a cell relation, 3 with inequalities
    let n = if kind == 1 { 4 } else { 3 + rng.below(3) };

    // The domain and how it is declared.
    let (values, decl): (Vec<String>, String) = match rng.below(5) {
        0 => (Variant::digits(n), format!("1..{n}")),
        1 => (Variant::digits(n), Variant::digits(n).join(" ")),
        2 => (
            (0..n).map(|i| i.to_string()).collect(),
            format!("0..{}", n - 1),
        ),
        3 => {
            let first = b'A' + rng.below(10) as u8;
            let vs: Vec<String> = (0..n)
                .map(|i| ((first + i as u8) as char).to_string())
                .collect();
            let decl = if rng.chance(1, 2) {
                format!("{}..{}", vs[0], vs[n - 1])
            } else {
                vs.join(" ")
            };
            (vs, decl)
        }
        _ => {
            let vs: Vec<String> = COLOURS[..n].iter().map(|s| s.to_string()).collect();
            (vs.clone(), vs.join(" "))
        }
    };

    let mut variant = Variant::latin(n, values.clone());
    let mut structure = Vec::new();
    if kind == 1 {
        variant = variant.with_boxes(2, 2);
        structure.push("groups rows, columns, boxes 2x2".to_string());
    } else if rng.chance(1, 2) {
        structure.push("groups rows, columns".to_string());
    } else {
        structure.push("groups columns".to_string());
        structure.push("groups rows".to_string());
    }
    if rng.chance(1, 2) {
        match rng.below(3) {
            0 => {
                let (h, w) = (1 + rng.below(2), 1 + rng.below(2));
                let (r, c) = (1 + rng.below(n - h + 1), 1 + rng.below(n - w + 1));
                structure.push(format!("group extra = block {h}x{w} at r{r}c{c}"));
                variant = variant.with_window(r, c, h, w);
            }
            1 => {
                let mut cells: Vec<usize> = (0..n * n).collect();
                rng.shuffle(&mut cells);
                cells.truncate(2 + rng.below(n - 1));
                let names: Vec<String> = cells.iter().map(|&c| cell_name(&variant, c)).collect();
                structure.push(format!("group extra = {}", names.join(" ")));
                variant = variant.with_group(cells);
            }
            _ => {
                structure.push("groups diagonals".to_string());
                variant = variant.with_diagonals();
            }
        }
    }

    let mut edge_decls = Vec::new();
    let mut nacs = Vec::new();
    if kind == 2 || (kind != 3 && rng.chance(1, 4)) {
        let rel = &RELATIONS[rng.below(RELATIONS.len())];
        edge_decls.push("edge near: Cell -> Cell".to_string());
        structure.push(format!("edges c -near-> d where {}", rel.cond));
        variant = variant.with_differ(rel.holds);
        match rng.below(3) {
            0 => {
                nacs.push("not { c -near-> d: Cell { val == v } }".to_string());
                nacs.push("not { d: Cell { val == v } -near-> c }".to_string());
            }
            1 => {
                nacs.push("not { c -near-> d: Cell { val == v } }".to_string());
                nacs.push("not { c -~near-> d: Cell { val == v } }".to_string());
            }
            _ => nacs.push("not { c -(near|~near)-> d: Cell { val == v } }".to_string()),
        }
    }

    // A random solution of the constraints so far gives consistent givens and inequalities.
    let mut order = |_cell: usize| {
        let mut vs: Vec<usize> = (0..n).collect();
        rng.shuffle(&mut vs);
        vs
    };
    let solution = brute::first_solution(&variant, &vec![None; n * n], &mut order);

    let mut lt_lines = Vec::new();
    if kind == 3 || rng.chance(1, 8) {
        edge_decls.push("edge lt: Cell -> Cell".to_string());
        let pairs = 1 + rng.below(6);
        for _ in 0..pairs {
            // Two distinct cells, holding different values in the solution when there is one.
            let a = rng.below(n * n);
            let b = loop {
                let b = rng.below(n * n);
                if b != a && solution.as_ref().is_none_or(|s| s[a] != s[b]) {
                    break b;
                }
            };
            let (a, b) = match &solution {
                Some(s) if s[a] > s[b] => (b, a),
                _ => (a, b),
            };
            if !variant.less.contains(&(a, b)) {
                lt_lines.push(format!(
                    "{} -lt-> {}",
                    cell_name(&variant, a),
                    cell_name(&variant, b)
                ));
                variant = variant.with_less(a, b);
            }
        }
        if rng.chance(1, 2) {
            nacs.push("not { c -lt-> d: Cell { val <= v } }".to_string());
            nacs.push("not { d: Cell { val >= v } -lt-> c }".to_string());
        } else {
            nacs.push("not { c -lt-> d: Cell where d.val <= v }".to_string());
            nacs.push("not { c -~lt-> d: Cell { val >= v } }".to_string());
        }
    }

    let mut givens = vec![None; n * n];
    if let Some(s) = &solution {
        let mut cells: Vec<usize> = (0..n * n).collect();
        rng.shuffle(&mut cells);
        for &cell in &cells[..rng.below(n * n * 2 / 3 + 1)] {
            givens[cell] = Some(s[cell]);
        }
    }

    let single = values.iter().all(|v| v.chars().count() == 1);
    let spaced = !single || rng.chance(1, 2);
    let empty = if !values.iter().any(|v| v == "0") && rng.chance(1, 3) {
        "0"
    } else {
        "."
    };
    let mut start = String::new();
    for r in 0..n {
        let row: Vec<&str> = (0..n)
            .map(|c| givens[r * n + c].map_or(empty, |x| values[x].as_str()))
            .collect();
        start.push_str("  ");
        start.push_str(&row.join(if spaced { " " } else { "" }));
        start.push('\n');
    }

    let mut text = format!("// random variant {index}\nvalues {decl}\n\n");
    text += "node Cell { row: int, col: int, val: value? }\nnode Group\nedge in: Cell -> Group\n";
    for e in &edge_decls {
        text += &format!("{e}\n");
    }
    text += &format!("\ngrid {n}x{n} of Cell\n");
    for s in &structure {
        text += &format!("{s}\n");
    }
    for l in &lt_lines {
        text += &format!("{l}\n");
    }
    text +=
        &format!("\nstart {{\n{start}}}\n\nrule place(v: value) {{\n  c: Cell {{ val == none }}\n");
    text += "  not { c -in-> g: Group <-in- d: Cell { val == v } }\n";
    for nac in &nacs {
        text += &format!("  {nac}\n");
    }
    text += "  set c.val = v\n}\n\nfinal: not { c: Cell { val == none } }\n";
    Case {
        text,
        variant,
        givens,
    }
}

fn summary_of(stdout: &str) -> Json {
    let last = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .expect("a summary line");
    parse_json(last).expect("the summary is JSON")
}

#[test]
fn random_variants_agree_with_brute_force() {
    let mut rng = Rng::new(SEED);
    let mut all_checked = 0;
    let mut nonzero = 0;
    for index in 0..40 {
        let case = make_case(&mut rng, index);
        let path = temp_path(&format!("random{index}"), "graft");
        std::fs::write(&path, &case.text).unwrap();
        let context = format!(
            "random variant {index} ({}):\n{}",
            path.display(),
            case.text
        );

        let expected = brute::count(&case.variant, &case.givens);
        if expected > 0 {
            nonzero += 1;
        }
        let run = grafter(["solve".as_ref(), path.as_os_str(), "--count".as_ref()]);
        assert_eq!(run.code, 0, "{context}\nstderr: {}", run.stderr);
        assert_eq!(run.counts(), vec![expected], "{context}");

        let bfs = grafter([
            "solve".as_ref(),
            path.as_os_str(),
            "--count".as_ref(),
            "--order".as_ref(),
            "bfs".as_ref(),
        ]);
        assert_eq!(bfs.code, 0, "{context}\nstderr: {}", bfs.stderr);
        assert_eq!(bfs.counts(), vec![expected], "bfs: {context}");

        // Solutions themselves, where they print one character per cell.
        if case.variant.values.iter().all(|v| v.chars().count() == 1) && expected <= 50_000 {
            let run = grafter([
                "solve".as_ref(),
                path.as_os_str(),
                "--format".as_ref(),
                "json".as_ref(),
            ]);
            assert_eq!(run.code, 0, "{context}\nstderr: {}", run.stderr);
            let p = run.puzzles();
            assert_eq!(p.len(), 1, "{context}");
            assert_eq!(p[0].grids.len() as u64, expected, "{context}");
            checker::check_all(&case.variant, &case.givens, &p[0].grids)
                .unwrap_or_else(|e| panic!("{e}\n{context}"));
        }

        // The whole state space, where it is small.
        if let Some(space) = brute::space(&case.variant, &case.givens, 60_000) {
            let run = grafter([
                "solve".as_ref(),
                path.as_os_str(),
                "--format".as_ref(),
                "json".as_ref(),
                "--expand".as_ref(),
                "all".as_ref(),
            ]);
            assert_eq!(run.code, 0, "{context}\nstderr: {}", run.stderr);
            let s = summary_of(&run.stdout);
            let got = |k: &str| {
                s.get(k)
                    .and_then(Json::as_u64)
                    .unwrap_or_else(|| panic!("no {k} in {s:?}"))
            };
            assert_eq!(
                (
                    got("solutions"),
                    got("states"),
                    got("transitions"),
                    got("dead_ends")
                ),
                (
                    space.solutions,
                    space.states,
                    space.transitions,
                    space.dead_ends
                ),
                "--expand all (solutions, states, transitions, dead ends)\n{context}"
            );
            all_checked += 1;
        }
        std::fs::remove_file(&path).ok();
    }
    // The generator must keep producing cases that test something.
    assert!(
        nonzero >= 20,
        "only {nonzero} of 40 random variants have solutions"
    );
    assert!(
        all_checked >= 15,
        "only {all_checked} random variants had a small enough state space"
    );
}

#[test]
fn the_generator_is_deterministic_and_varied() {
    if let Ok(dir) = std::env::var("GRAFTER_DUMP_RANDOM") {
        let mut rng = Rng::new(SEED);
        for i in 0..40 {
            let case = make_case(&mut rng, i);
            let space = brute::space(&case.variant, &case.givens, 60_000).map(|s| s.states);
            eprintln!(
                "random{i}: {} solutions, space {space:?}",
                brute::count(&case.variant, &case.givens)
            );
            std::fs::write(format!("{dir}/random{i}.graft"), case.text).unwrap();
        }
    }
    let texts = |seed| {
        let mut rng = Rng::new(seed);
        (0..40)
            .map(|i| make_case(&mut rng, i).text)
            .collect::<Vec<_>>()
    };
    let a = texts(SEED);
    assert_eq!(a, texts(SEED));
    for feature in [
        "boxes 2x2",
        "groups diagonals",
        "block",
        "-near->",
        "~near",
        "(near|~near)",
        "-lt->",
        "where d.val",
        "red",
        "values 0..",
        "values 1..",
        "\n  0",
        "  . .",
    ] {
        assert!(
            a.iter().any(|t| t.contains(feature)),
            "no random variant uses {feature:?}"
        );
    }
    let letters = |t: &String| {
        t.lines()
            .any(|l| l.starts_with("values ") && l.as_bytes()[7].is_ascii_uppercase())
    };
    assert!(a.iter().any(letters), "no random variant has letter values");
}
