//! The final condition checked over candidates: random lines on a 4x4 Latin square, each
//! with an aggregate condition in `final:`, solved on the focus path (where a state every
//! completion of which breaks the final condition is dropped) and under `--expand all`
//! (where none is), against the 576 Latin squares filtered in Rust.

use crate::random_variants::Rng;
use crate::support::{solve_json, temp_path};

/// Every 4x4 Latin square over 1..4, row by row.
fn latin_squares() -> Vec<[u8; 16]> {
    fn fill(at: usize, g: &mut [u8; 16], out: &mut Vec<[u8; 16]>) {
        if at == 16 {
            out.push(*g);
            return;
        }
        let (r, c) = (at / 4, at % 4);
        for v in 1..=4 {
            if (0..c).any(|k| g[r * 4 + k] == v) || (0..r).any(|k| g[k * 4 + c] == v) {
                continue;
            }
            g[at] = v;
            fill(at + 1, g, out);
        }
        g[at] = 0;
    }
    let mut out = Vec::new();
    fill(0, &mut [0; 16], &mut out);
    out
}

/// Whether a line's values (in line order) meet a condition.
type Holds = Box<dyn Fn(&[u8]) -> bool>;

/// A condition on one line's values, as `final:` text and as Rust.
struct Check {
    text: String,
    holds: Holds,
}

/// A random condition on line `k` (node type `L{k}`, edges `on{k}` and `nx{k}`), whose
/// number is taken from `model`'s values on the line so that some squares meet it.
fn check(rng: &mut Rng, k: usize, model: &[u8]) -> Check {
    let on = format!("l <-on{k}- d: Cell");
    let n = model.len() as i64;
    match rng.below(5) {
        0 => {
            let s: i64 = model.iter().map(|&v| i64::from(v)).sum();
            Check {
                text: format!("not {{ l: L{k} where sum(int(d.val) for {on}) != {s} }}"),
                holds: Box::new(move |xs| xs.iter().map(|&v| i64::from(v)).sum::<i64>() == s),
            }
        }
        1 => Check {
            // Renban: the values form a run (here repeats may occur off the rows and columns).
            text: format!(
                "not {{ l: L{k} where max(int(d.val) for {on}) - min(int(d.val) for {on}) != {} }}",
                n - 1
            ),
            holds: Box::new(move |xs| {
                i64::from(xs.iter().max().unwrap() - xs.iter().min().unwrap()) == n - 1
            }),
        },
        2 => {
            let seen = visible(model);
            Check {
                text: format!(
                    "not {{ l: L{k} where count(d: Cell -on{k}-> l where all(e.val < d.val for e: Cell -nx{k}+-> d)) != {seen} }}"
                ),
                holds: Box::new(move |xs| visible(xs) == seen),
            }
        }
        3 => {
            let even = model.iter().filter(|&&v| v % 2 == 0).count();
            Check {
                text: format!(
                    "not {{ l: L{k} where count(l <-on{k}- d: Cell {{ int(val) % 2 == 0 }}) != {even} }}"
                ),
                holds: Box::new(move |xs| xs.iter().filter(|&&v| v % 2 == 0).count() == even),
            }
        }
        _ => Check {
            // Between: each inner cell lies strictly between the two ends. (The ends and
            // the inner cells are lines of their own: a NAC "e has no predecessor" would
            // not see a predecessor the pattern has bound as `m`, matching being injective.)
            text: format!(
                "not {{ e: Cell -end{k}-> x: E{k} <-end{k}- f: Cell  m: Cell -mid{k}-> y: I{k}
                   where (m.val <= e.val or m.val >= f.val) and (m.val <= f.val or m.val >= e.val) }}"
            ),
            holds: Box::new(|xs| {
                let (a, b) = (xs[0].min(xs[xs.len() - 1]), xs[0].max(xs[xs.len() - 1]));
                xs[1..xs.len() - 1].iter().all(|&m| a < m && m < b)
            }),
        },
    }
}

/// How many values are larger than every one before them.
fn visible(xs: &[u8]) -> usize {
    (0..xs.len())
        .filter(|&i| xs[..i].iter().all(|&e| e < xs[i]))
        .count()
}

#[test]
fn final_conditions_narrow_the_focus_path_without_losing_solutions() {
    let squares = latin_squares();
    assert_eq!(squares.len(), 576);
    let mut rng = Rng::new(0xf1a1_b0b5);
    let (mut nonzero, mut narrowed) = (0, 0);
    for case in 0..24 {
        let model = squares[rng.below(squares.len())];
        let mut text = String::from("values 1..4\nnode Cell { row: int, col: int, val: value? }\nnode Group\nedge in: Cell -> Group\n");
        let mut lines = Vec::new();
        let mut finals = vec!["not { c: Cell { val == none } }".to_string()];
        let mut checks = Vec::new();
        for k in 0..1 + rng.below(3) {
            let mut cells: Vec<usize> = (0..16).collect();
            rng.shuffle(&mut cells);
            cells.truncate(3 + rng.below(2));
            let names: Vec<String> = cells
                .iter()
                .map(|c| format!("r{}c{}", c / 4 + 1, c % 4 + 1))
                .collect();
            text += &format!("node L{k}\nedge on{k}: Cell -> L{k}\nedge nx{k}: Cell -> Cell\n");
            text += &format!(
                "node E{k}\nedge end{k}: Cell -> E{k}\nnode I{k}\nedge mid{k}: Cell -> I{k}\n"
            );
            let ends = [names[0].as_str(), names[names.len() - 1].as_str()].join(" ");
            let inner = names[1..names.len() - 1].join(" ");
            lines.push(format!(
                "line k{k}: L{k} = {} via on{k} next nx{k}\n",
                names.join(" ")
            ));
            lines.push(format!(
                "line e{k}: E{k} = {ends} via end{k}\nline i{k}: I{k} = {inner} via mid{k}\n"
            ));
            let values: Vec<u8> = cells.iter().map(|&c| model[c]).collect();
            let c = check(&mut rng, k, &values);
            finals.push(c.text);
            checks.push((cells, c.holds));
        }
        text += "grid 4x4 of Cell\ngroups rows, columns via in\n";
        text.extend(lines);
        // A few of the model's cells given, so that `--expand all` stays small.
        let mut given = [false; 16];
        for _ in 0..5 {
            given[rng.below(16)] = true;
        }
        text += "start {\n";
        for r in 0..4 {
            let row: Vec<String> = (0..4)
                .map(|c| {
                    if given[r * 4 + c] {
                        model[r * 4 + c].to_string()
                    } else {
                        ".".into()
                    }
                })
                .collect();
            text += &format!("  {}\n", row.join(" "));
        }
        text += "}\n";
        let consistent = squares
            .iter()
            .filter(|sq| (0..16).all(|c| !given[c] || sq[c] == model[c]))
            .count() as u64;
        text += "rule place(v: value) {\n  c: Cell { val == none }\n  not { c -in-> g: Group <-in- d: Cell { val == v } }\n  set c.val = v\n}\n";
        text += &format!("final: {}\n", finals.join("\n   and "));
        let mut expected: Vec<String> = squares
            .iter()
            .filter(|sq| (0..16).all(|c| !given[c] || sq[c] == model[c]))
            .filter(|sq| {
                checks
                    .iter()
                    .all(|(cells, holds)| holds(&cells.iter().map(|&c| sq[c]).collect::<Vec<u8>>()))
            })
            .map(|sq| sq.iter().map(|v| v.to_string()).collect())
            .collect();
        expected.sort();
        nonzero += usize::from(!expected.is_empty());

        let path = temp_path(&format!("final-bounds{case}"), "graft");
        std::fs::write(&path, &text).unwrap();
        let context = format!("case {case} ({}):\n{text}", path.display());
        let focus = &solve_json(&path, None, &[])[0];
        let all = &solve_json(&path, None, &["--expand", "all"])[0];
        assert_eq!(focus.sorted_grids(), expected, "focus, {context}");
        assert_eq!(all.sorted_grids(), expected, "all, {context}");
        assert_eq!(
            focus.summary.get("engine").and_then(|e| e.as_str()),
            Some("slot"),
            "{context}"
        );
        // The tables alone reach each square that keeps the givens as a state before the
        // final condition rejects it; dropping states whose every completion breaks it
        // leaves fewer.
        narrowed += usize::from(focus.stat("states") < consistent);
    }
    assert!(nonzero >= 12, "only {nonzero} cases have solutions");
    assert!(
        narrowed >= 12,
        "only {narrowed} cases explore fewer states than the squares keeping their givens"
    );
}
