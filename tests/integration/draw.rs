//! Pictures: `grafter draw` and `solve --format svg`. The SVG's structure is pinned, not
//! its bytes: one cell rectangle per grid cell with none overlapping, every given drawn in
//! its cell, every group of the independent variant description visible (thick borders
//! around it, its cells shaded, or a line along its diagonal), inequality signs pointing at
//! the smaller cell, a drawn solution that the independent checker accepts; the graph
//! picture's nodes and edges counted against `grafter check`; the state space's `.aut`
//! read by a parser here and its counts compared with the brute-force enumerator.

use std::collections::{BTreeMap, BTreeSet};

use roxmltree::{Document, Node};

use crate::brute;
use crate::checker;
use crate::support::{grafter, rule, Run};
use crate::variant::{rule_file, rule_files, start_givens, Variant};

/// An element's class list contains `class`.
fn has_class(n: &Node, class: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split_whitespace().any(|w| w == class))
}

/// Every element of class `class`.
fn by_class<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.is_element() && has_class(n, class))
        .collect()
}

fn num(n: &Node, attr: &str) -> f64 {
    n.attribute(attr)
        .unwrap_or_else(|| panic!("<{}> has no {attr}", n.tag_name().name()))
        .parse()
        .unwrap_or_else(|_| panic!("{attr} is not a number"))
}

/// A rectangle (x, y, w, h) as drawn.
type Rect = (f64, f64, f64, f64);

fn rect(n: &Node) -> Rect {
    (num(n, "x"), num(n, "y"), num(n, "width"), num(n, "height"))
}

fn overlap(a: Rect, b: Rect) -> bool {
    a.0 < b.0 + b.2 - 1e-6
        && b.0 < a.0 + a.2 - 1e-6
        && a.1 < b.1 + b.3 - 1e-6
        && b.1 < a.1 + a.3 - 1e-6
}

fn parse(run: &Run) -> Document<'_> {
    Document::parse(&run.stdout)
        .unwrap_or_else(|e| panic!("grafter {}: not XML: {e}", run.args.join(" ")))
}

/// The board's cells, row-major, read from the picture: their rectangles must tile a grid
/// of `rows` x `cols` equal squares without overlap.
fn cells(doc: &Document, rows: usize, cols: usize, what: &str) -> Vec<Rect> {
    shaped_cells(doc, rows, cols, &[], what)
}

/// As [`cells`] for a grid with holes (`holes[i]`: position i has no cell; empty: none):
/// exactly the other positions are drawn. A hole's entry is the square it would have.
fn shaped_cells(doc: &Document, rows: usize, cols: usize, holes: &[bool], what: &str) -> Vec<Rect> {
    let is_hole = |i: usize| holes.get(i).copied().unwrap_or(false);
    let drawn: Vec<Rect> = by_class(doc, "cell").iter().map(rect).collect();
    let want = (0..rows * cols).filter(|&i| !is_hole(i)).count();
    assert_eq!(drawn.len(), want, "{what}: cell rectangles");
    for (i, &a) in drawn.iter().enumerate() {
        assert!(
            a.2 > 0.0 && (a.2 - drawn[0].2).abs() < 1e-6 && (a.3 - a.2).abs() < 1e-6,
            "{what}: cell {i} is not a square like the others"
        );
        for &b in &drawn[i + 1..] {
            assert!(!overlap(a, b), "{what}: cells {a:?} and {b:?} overlap");
        }
    }
    // The least x and y drawn are those of the first column and row that hold a cell.
    let s = drawn[0].2;
    let open: Vec<usize> = (0..rows * cols).filter(|&i| !is_hole(i)).collect();
    let first_col = open.iter().map(|i| i % cols).min().unwrap_or(0) as f64;
    let first_row = open.iter().map(|i| i / cols).min().unwrap_or(0) as f64;
    let x0 = drawn.iter().map(|c| c.0).fold(f64::INFINITY, f64::min) - first_col * s;
    let y0 = drawn.iter().map(|c| c.1).fold(f64::INFINITY, f64::min) - first_row * s;
    let mut cells: Vec<Rect> = (0..rows * cols)
        .map(|i| (x0 + (i % cols) as f64 * s, y0 + (i / cols) as f64 * s, s, s))
        .collect();
    for c in &drawn {
        let (k, r) = ((c.0 - x0) / s, (c.1 - y0) / s);
        assert!(
            (k - k.round()).abs() < 1e-6 && (r - r.round()).abs() < 1e-6,
            "{what}: the cell {c:?} is off the grid's squares"
        );
        let (r, k) = (r.round() as usize, k.round() as usize);
        assert!(
            r < rows && k < cols,
            "{what}: the cell {c:?} is outside the grid"
        );
        let i = r * cols + k;
        assert!(!is_hole(i), "{what}: a cell drawn at hole {i}");
        cells[i] = *c;
    }
    cells
}

/// The cell whose rectangle holds the point.
fn cell_at(cells: &[Rect], (x, y): (f64, f64)) -> Option<usize> {
    cells
        .iter()
        .position(|c| x > c.0 && x < c.0 + c.2 && y > c.1 && y < c.1 + c.3)
}

/// Values drawn in cells, by class (`given` or `placed`): cell -> text.
fn values(doc: &Document, cells: &[Rect], class: &str) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for t in by_class(doc, class) {
        // A text's anchor is its baseline: look a little above it.
        let at = (num(&t, "x"), num(&t, "y") - 4.0);
        let cell =
            cell_at(cells, at).unwrap_or_else(|| panic!("a {class} value outside every cell"));
        assert!(
            out.insert(cell, t.text().unwrap_or("").to_string())
                .is_none(),
            "two values in cell {cell}"
        );
    }
    out
}

/// Thick lines (region borders and the outline) as sets of unit sides: ((r, c), horizontal)
/// is the top side of cell (r, c) when horizontal, else its left side (r, c up to rows,
/// cols for the far sides).
fn thick_sides(doc: &Document, cells: &[Rect]) -> BTreeSet<((usize, usize), bool)> {
    let (x0, y0, s) = (cells[0].0, cells[0].1, cells[0].2);
    let mut sides = BTreeSet::new();
    for l in by_class(doc, "region-border")
        .into_iter()
        .chain(by_class(doc, "outline"))
    {
        let (x1, y1, x2, y2) = (num(&l, "x1"), num(&l, "y1"), num(&l, "x2"), num(&l, "y2"));
        let grid = |v: f64, o: f64| ((v - o) / s).round() as usize;
        if (y1 - y2).abs() < 1e-6 {
            let (a, b) = (grid(x1.min(x2), x0), grid(x1.max(x2), x0));
            for c in a..b {
                sides.insert(((grid(y1, y0), c), true));
            }
        } else {
            let (a, b) = (grid(y1.min(y2), y0), grid(y1.max(y2), y0));
            for r in a..b {
                sides.insert(((r, grid(x1, x0)), false));
            }
        }
    }
    sides
}

/// True when the group's outline, every side between a member and a non-member or the grid's
/// edge, is drawn thick.
fn bordered(v: &Variant, group: &[usize], sides: &BTreeSet<((usize, usize), bool)>) -> bool {
    let set: BTreeSet<usize> = group.iter().copied().collect();
    let member = |r: i64, c: i64| {
        r >= 0
            && c >= 0
            && (r as usize) < v.rows
            && (c as usize) < v.cols
            && set.contains(&(r as usize * v.cols + c as usize))
    };
    group.iter().all(|&cell| {
        let (r, c) = ((cell / v.cols) as i64, (cell % v.cols) as i64);
        let (ru, cu) = (r as usize, c as usize);
        (member(r - 1, c) || sides.contains(&((ru, cu), true)))
            && (member(r + 1, c) || sides.contains(&((ru + 1, cu), true)))
            && (member(r, c - 1) || sides.contains(&((ru, cu), false)))
            && (member(r, c + 1) || sides.contains(&((ru, cu + 1), false)))
    })
}

/// The cells of each shaded group, by its `data-group`.
fn shaded(doc: &Document, cells: &[Rect]) -> Vec<BTreeSet<usize>> {
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "g" && has_class(n, "shade"))
        .map(|g| {
            g.children()
                .filter(|n| n.is_element() && has_class(n, "shade"))
                .map(|r| {
                    let (x, y, w, h) = rect(&r);
                    cell_at(cells, (x + w / 2.0, y + h / 2.0)).expect("a shade over a cell")
                })
                .collect()
        })
        .collect()
}

/// The cells of each cage's dashed outline: the cells its sides are drawn in.
fn caged(doc: &Document, cells: &[Rect]) -> Vec<BTreeSet<usize>> {
    by_class(doc, "cage")
        .iter()
        .filter(|n| n.tag_name().name() == "path")
        .map(|path| {
            let nums: Vec<f64> = path
                .attribute("d")
                .unwrap()
                .split(|c: char| c == 'M' || c == 'L' || c.is_whitespace())
                .filter(|w| !w.is_empty())
                .map(|w| w.parse().unwrap())
                .collect();
            // Each side is `M x y L x y`: its middle lies in the cell it outlines.
            nums.chunks(4)
                .map(|s| {
                    let mid = ((s[0] + s[2]) / 2.0, (s[1] + s[3]) / 2.0);
                    cell_at(cells, mid).expect("a cage side inside a cell")
                })
                .collect()
        })
        .collect()
}

/// The lines drawn along diagonals, as (first cell, last cell).
fn diagonals(doc: &Document, cells: &[Rect]) -> BTreeSet<(usize, usize)> {
    by_class(doc, "diagonal")
        .iter()
        .map(|l| {
            let a =
                cell_at(cells, (num(l, "x1"), num(l, "y1"))).expect("a diagonal starts in a cell");
            let b =
                cell_at(cells, (num(l, "x2"), num(l, "y2"))).expect("a diagonal ends in a cell");
            (a.min(b), a.max(b))
        })
        .collect()
}

/// True when the group is an unbroken run of one row or column (drawn by the grid).
fn row_or_column(v: &Variant, group: &[usize]) -> bool {
    // A sub-grid's row or column is an unbroken run of one row or column of the board.
    let mut cells: Vec<usize> = group.to_vec();
    cells.sort_unstable();
    let one_row = cells.iter().all(|&c| c / v.cols == cells[0] / v.cols);
    let one_col = cells.iter().all(|&c| c % v.cols == cells[0] % v.cols);
    let step = if one_row { 1 } else { v.cols };
    (one_row || one_col) && cells.windows(2).all(|w| w[1] - w[0] == step)
}

#[test]
fn every_rule_files_board_draws_its_cells_givens_and_groups() {
    for rf in rule_files() {
        let path = rule(rf.name);
        let run = grafter(["draw".as_ref(), path.as_os_str()]);
        run.ok();
        let doc = parse(&run);
        let v = &rf.variant;
        let cells = shaped_cells(&doc, v.rows, v.cols, &v.holes, rf.name);
        // Every given in its cell, nothing placed.
        let text = std::fs::read_to_string(&path).unwrap();
        let givens = v.parse_givens(&start_givens(&text));
        let drawn = values(&doc, &cells, "given");
        let want: BTreeMap<usize, String> = givens
            .iter()
            .enumerate()
            .filter_map(|(i, g)| g.map(|x| (i, v.values[x].clone())))
            .collect();
        assert_eq!(drawn, want, "{}: givens drawn", rf.name);
        assert!(
            values(&doc, &cells, "placed").is_empty(),
            "{}: values placed in the start",
            rf.name
        );
        // Every group visible: bordered, shaded, caged, or along a drawn diagonal.
        let sides = thick_sides(&doc, &cells);
        let shades = shaded(&doc, &cells);
        let diags = diagonals(&doc, &cells);
        let cages = caged(&doc, &cells);
        for g in &v.groups {
            if row_or_column(v, g) {
                continue;
            }
            let set: BTreeSet<usize> = g.iter().copied().collect();
            let (lo, hi) = (*set.first().unwrap(), *set.last().unwrap());
            assert!(
                bordered(v, g, &sides)
                    || shades.contains(&set)
                    || cages.contains(&set)
                    || diags.contains(&(lo, hi)),
                "{}: the group {g:?} is not visible",
                rf.name
            );
        }
        // Knight links and non-consecutive marks: one example cell, all of its pairs.
        if !v.differ.is_empty() {
            let links = by_class(&doc, "link");
            assert_eq!(
                links.len(),
                8,
                "{}: the knight's moves from one cell",
                rf.name
            );
        }
        // Bars between consecutive neighbours (a cell's flags `right`, `below`): each named
        // in the cell whose right or bottom border carries it.
        if !v.next_to.is_empty() {
            let notes = values(&doc, &cells, "cell-note");
            for &(a, b) in &v.next_to {
                let side = if b == a + 1 { "right" } else { "below" };
                assert!(
                    notes
                        .get(&a)
                        .is_some_and(|n| n.split(' ').any(|w| w == side)),
                    "{}: the bar {side} of cell {a} is not shown",
                    rf.name
                );
            }
        } else if !v.apart.is_empty() {
            assert_eq!(
                by_class(&doc, "mark").len(),
                4,
                "{}: the sides of one cell",
                rf.name
            );
        }
        // An inequality along a drawn line (a thermometer) is a member before another on
        // the line; any other is a sign between its cells, its point on the smaller one's
        // side.
        let lines: Vec<Vec<(f64, f64)>> = by_class(&doc, "line")
            .iter()
            .filter(|n| n.tag_name().name() == "polyline")
            .map(|n| {
                let pts = n.attribute("points").unwrap();
                pts.split_whitespace()
                    .map(|p| {
                        let (x, y) = p.split_once(',').unwrap();
                        (x.parse().unwrap(), y.parse().unwrap())
                    })
                    .collect()
            })
            .collect();
        let centre = |i: usize| (cells[i].0 + cells[i].2 / 2.0, cells[i].1 + cells[i].3 / 2.0);
        let at = |p: (f64, f64), q: (f64, f64)| (p.0 - q.0).hypot(p.1 - q.1) < 1e-3;
        let apart: Vec<(usize, usize)> = v
            .less
            .iter()
            .copied()
            .filter(|&(a, b)| {
                !lines.iter().any(|l| {
                    let i = l.iter().position(|&p| at(p, centre(a)));
                    let j = l.iter().position(|&p| at(p, centre(b)));
                    matches!((i, j), (Some(i), Some(j)) if i < j)
                })
            })
            .collect();
        let signs = by_class(&doc, "ineq");
        assert_eq!(signs.len(), apart.len(), "{}: inequality signs", rf.name);
        for &(a, b) in &apart {
            let (ca, cb) = (centre(a), centre(b));
            let mid = ((ca.0 + cb.0) / 2.0, (ca.1 + cb.1) / 2.0);
            let found = signs.iter().any(|s| {
                let d = s.attribute("d").unwrap();
                let pts: Vec<f64> = d
                    .split(|c: char| c == 'M' || c == 'L' || c.is_whitespace())
                    .filter(|w| !w.is_empty())
                    .map(|w| w.parse().unwrap())
                    .collect();
                let tip = (pts[2], pts[3]);
                let near = |p: (f64, f64), q: (f64, f64)| (p.0 - q.0).hypot(p.1 - q.1);
                near(tip, mid) < cells[0].2 / 2.0 && near(tip, ca) < near(tip, cb)
            });
            assert!(
                found,
                "{}: no sign pointing at cell {a} between {a} and {b}",
                rf.name
            );
        }
    }
}

#[test]
fn a_drawn_solution_passes_the_checker_and_keeps_its_givens_bold() {
    for name in [
        "sudoku-4x4-centre",
        "jigsaw-9x9",
        "futoshiki-5x5",
        "anti-knight-9x9",
    ] {
        let rf = rule_file(name);
        let path = rule(name);
        let v = &rf.variant;
        let givens = v.parse_givens(&start_givens(&std::fs::read_to_string(&path).unwrap()));
        for k in 1..=rf.start_solutions.min(2) {
            let run = grafter([
                "draw".as_ref(),
                path.as_os_str(),
                "--solution".as_ref(),
                k.to_string().as_ref(),
            ]);
            run.ok();
            let doc = parse(&run);
            let cells = shaped_cells(&doc, v.rows, v.cols, &v.holes, name);
            let given = values(&doc, &cells, "given");
            let placed = values(&doc, &cells, "placed");
            assert_eq!(
                given.len(),
                givens.iter().filter(|g| g.is_some()).count(),
                "{name}: givens"
            );
            let grid: String = (0..v.cells())
                .map(|i| {
                    given
                        .get(&i)
                        .or(placed.get(&i))
                        .unwrap_or_else(|| panic!("{name}: cell {i} empty"))
                        .clone()
                })
                .collect();
            checker::check(v, &givens, &grid)
                .unwrap_or_else(|e| panic!("{name} solution {k}: {e}"));
        }
    }
}

#[test]
fn a_solution_past_the_last_is_bad_input() {
    let run = grafter(["draw", "rules/sudoku-4x4-centre.graft", "--solution", "5"]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("--solution 5 asks for solution 5, but the start has 4 solutions"),
        "{}",
        run.stderr
    );
    let run = grafter([
        "draw",
        "rules/sudoku-4x4.graft",
        "--puzzles",
        "tests/data/variants/4x4.txt",
        "--puzzle",
        "100000",
    ]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("--puzzle 100000 asks for puzzle 100000"),
        "{}",
        run.stderr
    );
    grafter(["draw", "rules/sudoku-4x4.graft", "--format", "aut"]).expect_code(2);
    grafter([
        "draw",
        "rules/sudoku-4x4.graft",
        "--space",
        "--solution",
        "1",
    ])
    .expect_code(2);
}

#[test]
fn a_puzzle_of_a_file_is_drawn_with_its_own_givens() {
    let puzzles = crate::support::data("variants/4x4.txt");
    let lines = crate::support::puzzle_lines(&puzzles);
    let run = grafter([
        "draw".as_ref(),
        rule("sudoku-4x4").as_os_str(),
        "--puzzles".as_ref(),
        puzzles.as_os_str(),
        "--puzzle".as_ref(),
        "2".as_ref(),
    ]);
    run.ok();
    let doc = parse(&run);
    let cells = cells(&doc, 4, 4, "puzzle 2");
    let given = values(&doc, &cells, "given");
    let want: BTreeMap<usize, String> = lines[1]
        .0
        .chars()
        .enumerate()
        .filter(|(_, c)| *c != '.' && *c != '0')
        .map(|(i, c)| (i, c.to_string()))
        .collect();
    assert_eq!(given, want);
}

/// A puzzle line's layers are drawn: each line's own jigsaw regions get their borders.
#[test]
fn a_puzzle_line_is_drawn_with_its_own_regions() {
    let puzzles = crate::support::fixture("layers/jigsaw-4x4.txt");
    let text = std::fs::read_to_string(&puzzles).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .take(3)
        .collect();
    for (i, line) in lines.iter().enumerate() {
        let (_, regions) = line.split_once("region:").expect("a region section");
        let letters: Vec<char> = regions.chars().filter(|c| !c.is_whitespace()).collect();
        let n = (i + 1).to_string();
        let run = grafter([
            "draw".as_ref(),
            rule("jigsaw-4x4").as_os_str(),
            "--puzzles".as_ref(),
            puzzles.as_os_str(),
            "--puzzle".as_ref(),
            n.as_ref(),
        ]);
        run.ok();
        let doc = parse(&run);
        let cells = cells(&doc, 4, 4, &format!("puzzle {n}"));
        let sides = thick_sides(&doc, &cells);
        let v = Variant::latin(4, Variant::digits(4));
        for letter in ['A', 'B', 'C', 'D'] {
            let group: Vec<usize> = (0..16).filter(|&c| letters[c] == letter).collect();
            assert!(
                bordered(&v, &group, &sides),
                "puzzle {n}: region {letter} {group:?} is not bordered"
            );
        }
    }
}

#[test]
fn structures_written_by_hand_are_drawn_cages_lines_and_marks() {
    let run = grafter(["draw", "tests/fixtures/draw/structures-4x4.graft"]);
    run.ok();
    let doc = parse(&run);
    let cells = cells(&doc, 4, 4, "structures");
    // Two cages, their sums in their first cells.
    let sums: Vec<(usize, String)> = by_class(&doc, "cage-sum")
        .iter()
        .map(|t| {
            (
                cell_at(&cells, (num(t, "x"), num(t, "y") - 2.0)).unwrap(),
                t.text().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(sums, vec![(0, "7".to_string()), (14, "3".to_string())]);
    assert_eq!(
        by_class(&doc, "cage")
            .iter()
            .filter(|n| n.tag_name().name() == "path")
            .count(),
        2
    );
    // The thermometer: a line through r2c3, r2c4, r3c4 in order, its circle at r2c3.
    let line = &by_class(&doc, "line")
        .into_iter()
        .find(|n| n.tag_name().name() == "polyline")
        .expect("a line");
    let through: Vec<usize> = line
        .attribute("points")
        .unwrap()
        .split_whitespace()
        .map(|p| {
            let (x, y) = p.split_once(',').unwrap();
            cell_at(&cells, (x.parse().unwrap(), y.parse().unwrap())).unwrap()
        })
        .collect();
    assert_eq!(through, vec![6, 7, 11]);
    let bulb = &by_class(&doc, "line-start")[0];
    assert_eq!(cell_at(&cells, (num(bulb, "cx"), num(bulb, "cy"))), Some(6));
    // The dot between r3c1 and r3c2 (both ways: one mark), on their shared side.
    let marks = by_class(&doc, "mark");
    assert_eq!(marks.len(), 1);
    let (x, y) = (num(&marks[0], "cx"), num(&marks[0], "cy"));
    assert!(
        (x - (cells[8].0 + cells[8].2)).abs() < 1e-6 && cell_at(&cells, (x - 1.0, y)) == Some(8)
    );
    // The chained `up` edges are the line, not drawn again as marks.
    assert!(by_class(&doc, "rel-up").is_empty());
}

#[test]
fn encodings_without_group_nodes_show_the_groups_the_rules_imply() {
    // The seed's attributes and neighbours encodings have no group nodes; their boards still
    // show the boxes and the centre, as the groups encoding does.
    let rf = rule_file("sudoku-4x4-centre");
    let v = &rf.variant;
    for enc in [
        "attributes-4x4-centre",
        "neighbours-4x4-centre",
        "groups-4x4-centre",
    ] {
        let run = grafter(["draw".to_string(), format!("rules/encodings/{enc}.graft")]);
        run.ok();
        let doc = parse(&run);
        let cells = cells(&doc, 4, 4, enc);
        let sides = thick_sides(&doc, &cells);
        let shades = shaded(&doc, &cells);
        for g in v.groups.iter().filter(|g| !row_or_column(v, g)) {
            let set: BTreeSet<usize> = g.iter().copied().collect();
            assert!(
                bordered(v, g, &sides) || shades.contains(&set),
                "{enc}: the group {g:?} is not visible"
            );
        }
    }
}

/// The picture of a graph: one node box per node of `grafter check`, none overlapping, one
/// edge per edge.
#[test]
fn graph_pictures_hold_every_node_and_edge_without_overlap() {
    for file in [
        "rules/sudoku-4x4-centre.graft",
        "rules/sudoku-9x9.graft",
        "rules/sudoku-16x16.graft",
        "rules/futoshiki-5x5.graft",
        "tests/fixtures/draw/ring.graft",
    ] {
        let check = grafter(["check", file]);
        check.ok();
        let count = |what: &str| -> usize {
            check
                .stdout
                .lines()
                .filter(|l| l.starts_with(what))
                .map(|l| {
                    let n = l
                        .rsplit(": ")
                        .next()
                        .unwrap()
                        .split_whitespace()
                        .next()
                        .unwrap();
                    n.parse::<usize>().unwrap()
                })
                .sum()
        };
        let run = grafter(["draw", file, "--graph"]);
        run.ok();
        let doc = parse(&run);
        let boxes: Vec<(String, Rect)> = by_class(&doc, "node-box")
            .iter()
            .map(|n| {
                (
                    n.parent()
                        .unwrap()
                        .attribute("data-node")
                        .unwrap()
                        .to_string(),
                    rect(n),
                )
            })
            .collect();
        assert_eq!(boxes.len(), count("node "), "{file}: nodes");
        assert_eq!(
            by_class(&doc, "edge").len(),
            count("edge "),
            "{file}: edges"
        );
        for (i, (a, ra)) in boxes.iter().enumerate() {
            for (b, rb) in &boxes[i + 1..] {
                assert!(!overlap(*ra, *rb), "{file}: nodes {a} and {b} overlap");
            }
        }
        // Cells at their row and column: r1c1 left of r1c2, above r2c1.
        let at = |name: &str| boxes.iter().find(|(n, _)| n == name).map(|(_, r)| *r);
        if let (Some(a), Some(b), Some(c)) = (at("r1c1"), at("r1c2"), at("r2c1")) {
            assert!(a.0 < b.0 && (a.1 - b.1).abs() < 1e-6, "{file}: r1c1, r1c2");
            assert!(a.1 < c.1 && (a.0 - c.0).abs() < 1e-6, "{file}: r1c1, r2c1");
        }
    }
}

/// An Aldebaran file read back: (states, transitions as (from, label, to)).
fn read_aut(text: &str) -> (usize, Vec<(usize, String, usize)>) {
    let mut lines = text.lines();
    let header = lines.next().expect("a header");
    let inner = header
        .strip_prefix("des (")
        .and_then(|h| h.strip_suffix(')'))
        .unwrap_or_else(|| panic!("bad header {header:?}"));
    let nums: Vec<usize> = inner
        .split(',')
        .map(|w| w.trim().parse().unwrap())
        .collect();
    assert_eq!(nums.len(), 3, "{header}");
    assert_eq!(nums[0], 0, "the first state is 0");
    let (t, n) = (nums[1], nums[2]);
    let edges: Vec<(usize, String, usize)> = lines
        .map(|l| {
            let body = l
                .strip_prefix('(')
                .and_then(|l| l.strip_suffix(')'))
                .unwrap_or_else(|| panic!("bad line {l:?}"));
            let (from, rest) = body.split_once(", \"").unwrap();
            let (label, to) = rest.rsplit_once("\", ").unwrap();
            assert!(label.is_ascii() && !label.contains('"'), "label {label:?}");
            let (from, to) = (from.parse().unwrap(), to.parse().unwrap());
            assert!(from < n && to < n, "{l}: a state out of 0..{n}");
            (from, label.to_string(), to)
        })
        .collect();
    assert_eq!(edges.len(), t, "the header's transition count");
    (n, edges)
}

#[test]
fn the_aut_export_is_the_brute_force_space() {
    // The 2x2 Latin square's whole space, and the 4x4 centre example's (72,837 states).
    let cases = [
        (
            "tests/fixtures/draw/latin-2x2.graft",
            Variant::latin(2, Variant::digits(2)),
            vec![None; 4],
        ),
        (
            "rules/sudoku-4x4-centre.graft",
            rule_file("sudoku-4x4-centre").variant,
            {
                let v = rule_file("sudoku-4x4-centre").variant;
                v.parse_givens(&start_givens(
                    &std::fs::read_to_string(rule("sudoku-4x4-centre")).unwrap(),
                ))
            },
        ),
    ];
    for (file, v, givens) in cases {
        let want = brute::space(&v, &givens, 1_000_000).expect("a small space");
        let run = grafter(["draw", file, "--space", "--format", "aut"]);
        run.ok();
        let (n, edges) = read_aut(&run.stdout);
        assert_eq!(
            (n as u64, edges.len() as u64),
            (want.states, want.transitions),
            "{file}"
        );
        // Every state but the start is reached; the states nothing leaves are the solutions
        // and the dead ends.
        let reached: BTreeSet<usize> = edges.iter().map(|e| e.2).collect();
        assert_eq!(reached.len(), n - 1, "{file}: states reached");
        let left: BTreeSet<usize> = edges.iter().map(|e| e.0).collect();
        assert_eq!(
            (n - left.len()) as u64,
            want.solutions + want.dead_ends,
            "{file}: states without transitions"
        );
        // Labels name the rule, the value and the cell: one placement per label from a state.
        for (_, label, _) in &edges {
            assert!(
                label.starts_with("place(") && label.ends_with(')'),
                "{label}"
            );
        }
    }
}

#[test]
fn a_capped_space_says_so_and_stays_consistent() {
    let run = grafter([
        "draw",
        "rules/sudoku-4x4-centre.graft",
        "--space",
        "--format",
        "aut",
        "--max-states",
        "50",
    ]);
    run.expect_code(3);
    assert!(
        run.stderr.contains("more than 50 states") && run.stderr.contains("--max-states"),
        "{}",
        run.stderr
    );
    let (n, _) = read_aut(&run.stdout);
    assert_eq!(n, 50);
    // The picture marks the cut states and names the cap.
    let run = grafter(["draw", "rules/sudoku-4x4-centre.graft", "--space"]);
    run.expect_code(3);
    let doc = parse(&run);
    assert_eq!(by_class(&doc, "state").len(), 200);
    assert!(!by_class(&doc, "cut").is_empty());
    assert!(by_class(&doc, "cap")[0]
        .text()
        .unwrap()
        .contains("capped at 200 states"));
}

#[test]
fn the_space_picture_marks_start_finals_and_dead_ends() {
    let v = Variant::latin(2, Variant::digits(2));
    let want = brute::space(&v, &[None; 4], 1000).unwrap();
    let run = grafter(["draw", "tests/fixtures/draw/latin-2x2.graft", "--space"]);
    run.ok();
    let doc = parse(&run);
    let count = |class: &str| {
        by_class(&doc, class)
            .iter()
            .filter(|n| n.tag_name().name() == "g")
            .count() as u64
    };
    assert_eq!(count("state"), want.states);
    assert_eq!(count("start"), 1);
    assert_eq!(count("final"), want.solutions);
    assert_eq!(count("dead"), want.dead_ends);
    // Transitions between the same two states share an arrow: here each pair has one.
    assert_eq!(count("transition"), want.transitions);
    // Focus expansion: the 4x4 centre example's space ends in its 4 solutions.
    let run = grafter([
        "draw",
        "rules/sudoku-4x4-centre.graft",
        "--space",
        "--expand",
        "focus",
        "--format",
        "dot",
    ]);
    run.ok();
    assert_eq!(run.stdout.matches("doublecircle").count(), 4);
    // A grammar with a cycle and no grid: the ring's token comes back to the start.
    let run = grafter([
        "draw",
        "tests/fixtures/draw/ring.graft",
        "--space",
        "--format",
        "aut",
    ]);
    run.ok();
    let (n, edges) = read_aut(&run.stdout);
    assert_eq!(n, 4);
    assert!(
        edges.iter().any(|e| e.2 == 0 && e.1.starts_with("pass(")),
        "{edges:?}"
    );
}

#[test]
fn solve_draws_every_solution_with_the_summary() {
    let run = grafter(["solve", "rules/sudoku-4x4-centre.graft", "--format", "svg"]);
    run.ok();
    let doc = parse(&run);
    assert_eq!(by_class(&doc, "cell").len(), 4 * 16);
    assert_eq!(by_class(&doc, "title").len(), 4);
    let notes: Vec<&str> = by_class(&doc, "note")
        .iter()
        .filter_map(|n| n.text())
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("4 solutions") && n.ends_with("complete")),
        "{notes:?}"
    );
    grafter([
        "solve",
        "rules/sudoku-4x4-centre.graft",
        "--format",
        "svg",
        "--count",
    ])
    .expect_code(2);
}

#[test]
fn numbers_set_on_rows_stand_left_of_them() {
    let run = grafter(["draw", "tests/fixtures/draw/clues-3x3.graft"]);
    run.ok();
    let doc = parse(&run);
    let cells = cells(&doc, 3, 3, "clues");
    let clues: Vec<(usize, String)> = by_class(&doc, "clue")
        .iter()
        .map(|t| {
            let (x, y) = (num(t, "x"), num(t, "y") - 4.0);
            assert!(x < cells[0].0, "a clue inside the grid");
            let row = cells
                .iter()
                .position(|c| y > c.1 && y < c.1 + c.3)
                .expect("a clue beside a row")
                / 3;
            (row, t.text().unwrap().to_string())
        })
        .collect();
    assert_eq!(
        clues,
        vec![
            (0, "6".to_string()),
            (1, "5".to_string()),
            (2, "4".to_string())
        ]
    );
}
