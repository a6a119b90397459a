//! A brute-force enumerator, independent of grafter: plain backtracking over the cells in
//! row-major order, and an enumeration of the whole `--expand all` state space (every
//! consistent partial filling that extends the givens).

use crate::variant::Variant;

/// Constraints of a variant, arranged per cell for backtracking.
struct Plan {
    /// Cells that must differ from each cell.
    differ: Vec<Vec<usize>>,
    /// Cells whose value must be greater than each cell's.
    greater: Vec<Vec<usize>>,
    /// Cells whose value must be smaller than each cell's.
    smaller: Vec<Vec<usize>>,
    /// Cells whose value must not be next to each cell's in the domain.
    apart: Vec<Vec<usize>>,
    /// Each cell's required remainder modulo 2, if marked.
    parity: Vec<Option<usize>>,
    /// Per value index, its number modulo 2 (numeric domains with marks only).
    remainder: Vec<usize>,
    /// The cages with a total, and the ones each cell is in.
    sums: Vec<(Vec<usize>, i64)>,
    sums_of: Vec<Vec<usize>>,
    /// Per value index, its number (numeric domains with sums, arrows, runs or odd counts
    /// only).
    numbers: Vec<i64>,
    /// (other cell, k): values at least k apart.
    distant: Vec<Vec<(usize, usize)>>,
    /// Cells whose value must equal each cell's.
    equal: Vec<Vec<usize>>,
    /// The arrows (circle, cells) each cell is on, decided once all are filled.
    arrows: Vec<Vec<(usize, Vec<usize>)>>,
    /// Positions without a cell, skipped.
    holes: Vec<bool>,
    /// Per cell: the runs it belongs to.
    runs: Vec<Vec<Vec<usize>>>,
    /// Per cell: the zones it belongs to, as (cells, odd numbers they hold).
    odds: Vec<Vec<(Vec<usize>, usize)>>,
    /// Cells whose value must be next to each cell's in the domain.
    next_to: Vec<Vec<usize>>,
    /// Cells whose value must not come after / before each cell's (`at_least` pairs).
    not_above: Vec<Vec<usize>>,
    not_below: Vec<Vec<usize>>,
    /// Per cell: the sight lines it is on, decided once all their cells are filled.
    sights: Vec<Vec<(Vec<usize>, usize)>>,
    /// Per cell: the lines of empty plots it is on, with their number of plots.
    plots: Vec<Vec<(Vec<usize>, usize)>>,
}

impl Plan {
    fn new(v: &Variant) -> Plan {
        let mut greater = vec![Vec::new(); v.cells()];
        let mut smaller = vec![Vec::new(); v.cells()];
        for &(a, b) in &v.less {
            greater[a].push(b);
            smaller[b].push(a);
        }
        let mut apart = vec![Vec::new(); v.cells()];
        for &(a, b) in &v.apart {
            apart[a].push(b);
            apart[b].push(a);
        }
        let mut parity = vec![None; v.cells()];
        for &(a, r) in &v.parity {
            parity[a] = Some(r);
        }
        let remainder = if v.parity.is_empty() {
            Vec::new()
        } else {
            (0..v.values.len())
                .map(|x| usize::from(!v.has_parity(x, 0)))
                .collect()
        };
        let mut sums_of = vec![Vec::new(); v.cells()];
        for (k, (cells, _)) in v.sums.iter().enumerate() {
            for &a in cells {
                sums_of[a].push(k);
            }
        }
        let arithmetic = !(v.sums.is_empty()
            && v.arrows.is_empty()
            && v.runs.is_empty()
            && v.odds.is_empty()
            && v.sights.is_empty()
            && v.plots.is_empty());
        let numbers = if !arithmetic {
            Vec::new()
        } else {
            (0..v.values.len()).map(|x| v.number(x)).collect()
        };
        let mut distant = vec![Vec::new(); v.cells()];
        for &(a, b, k) in &v.distant {
            distant[a].push((b, k));
            distant[b].push((a, k));
        }
        let mut equal = vec![Vec::new(); v.cells()];
        for &(a, b) in &v.equal {
            equal[a].push(b);
            equal[b].push(a);
        }
        let mut arrows = vec![Vec::new(); v.cells()];
        for (circle, cells) in &v.arrows {
            for &c in std::iter::once(circle).chain(cells) {
                arrows[c].push((*circle, cells.clone()));
            }
        }
        let mut runs = vec![Vec::new(); v.cells()];
        for cells in &v.runs {
            for &c in cells {
                runs[c].push(cells.clone());
            }
        }
        let mut odds = vec![Vec::new(); v.cells()];
        for (cells, n) in &v.odds {
            for &c in cells {
                odds[c].push((cells.clone(), *n));
            }
        }
        let mut next_to = vec![Vec::new(); v.cells()];
        for &(a, b) in &v.next_to {
            next_to[a].push(b);
            next_to[b].push(a);
        }
        let mut not_above = vec![Vec::new(); v.cells()];
        let mut not_below = vec![Vec::new(); v.cells()];
        for &(a, b) in &v.at_least {
            not_above[a].push(b);
            not_below[b].push(a);
        }
        let mut sights = vec![Vec::new(); v.cells()];
        for (cells, n) in &v.sights {
            for &c in cells {
                sights[c].push((cells.clone(), *n));
            }
        }
        let mut plots = vec![Vec::new(); v.cells()];
        for (cells, k) in &v.plots {
            for &c in cells {
                plots[c].push((cells.clone(), *k));
            }
        }
        Plan {
            plots,
            next_to,
            not_above,
            not_below,
            sights,
            differ: v.neighbours(),
            greater,
            smaller,
            apart,
            parity,
            remainder,
            sums: v.sums.clone(),
            sums_of,
            numbers,
            distant,
            equal,
            arrows,
            holes: v.holes.clone(),
            runs,
            odds,
        }
    }

    /// Whether `cell = x` keeps every run, zone and line of plots of the cell completable:
    /// a run's numbers (distinct) stay within a window of its size, an odd count and a
    /// line's empty plots within their count, and all are exact once full; the heights of
    /// a line of plots differ.
    fn sets_allow(&self, vals: &[Option<usize>], cell: usize, x: usize) -> bool {
        let filled = |cells: &[usize]| {
            let mut nums: Vec<i64> = cells
                .iter()
                .filter(|&&c| c != cell)
                .filter_map(|&c| vals[c].map(|y| self.numbers[y]))
                .collect();
            nums.push(self.numbers[x]);
            nums
        };
        self.runs[cell].iter().all(|cells| {
            let nums = filled(cells);
            let (lo, hi) = (nums.iter().min().unwrap(), nums.iter().max().unwrap());
            hi - lo < cells.len() as i64
        }) && self.odds[cell].iter().all(|(cells, n)| {
            let nums = filled(cells);
            let odd = nums.iter().filter(|&&y| y % 2 != 0).count();
            odd <= *n && (nums.len() < cells.len() || odd == *n)
        }) && self.plots[cell].iter().all(|(cells, k)| {
            let mut nums = filled(cells);
            let plots = nums.iter().filter(|&&y| y == 0).count();
            let full = nums.len() == cells.len();
            nums.retain(|&y| y != 0);
            nums.sort_unstable();
            plots <= *k && (!full || plots == *k) && nums.windows(2).all(|w| w[0] != w[1])
        })
    }

    /// Whether `cell = x` agrees with every filled cell of `vals`.
    fn allows(&self, vals: &[Option<usize>], cell: usize, x: usize) -> bool {
        self.differ[cell].iter().all(|&d| vals[d] != Some(x))
            && self.greater[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| x < y))
            && self.smaller[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| y < x))
            && self.apart[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| x.abs_diff(y) != 1))
            && self.parity[cell].is_none_or(|r| self.remainder[x] == r)
            && self.sums_of[cell]
                .iter()
                .all(|&k| self.sum_allows(vals, cell, x, k))
            && self.distant[cell]
                .iter()
                .all(|&(d, k)| vals[d].is_none_or(|y| x.abs_diff(y) >= k))
            && self.equal[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| x == y))
            && self.arrows[cell].iter().all(|(circle, cells)| {
                let number = |c: usize| {
                    let v = if c == cell { Some(x) } else { vals[c] };
                    v.map(|y| self.numbers[y])
                };
                let parts: Option<Vec<i64>> = cells.iter().map(|&c| number(c)).collect();
                match (number(*circle), parts) {
                    (Some(total), Some(parts)) => parts.iter().sum::<i64>() == total,
                    _ => true,
                }
            })
            && self.sets_allow(vals, cell, x)
            && self.next_to[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| x.abs_diff(y) == 1))
            && self.not_above[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| y <= x))
            && self.not_below[cell]
                .iter()
                .all(|&d| vals[d].is_none_or(|y| y >= x))
            && self.sights[cell].iter().all(|(cells, n)| {
                let nums: Option<Vec<i64>> = cells
                    .iter()
                    .map(|&c| {
                        let v = if c == cell { Some(x) } else { vals[c] };
                        v.map(|y| self.numbers[y])
                    })
                    .collect();
                nums.is_none_or(|nums| Variant::seen(&nums) == *n)
            })
    }

    /// Whether `cell = x` keeps cage `k` able to reach its total: a full cage adds up to
    /// it, and on positive numbers a partial one stays below it.
    fn sum_allows(&self, vals: &[Option<usize>], cell: usize, x: usize, k: usize) -> bool {
        let (cells, total) = &self.sums[k];
        let mut sum = self.numbers[x];
        let mut open = false;
        for &d in cells.iter().filter(|&&d| d != cell) {
            match vals[d] {
                Some(y) => sum += self.numbers[y],
                None => open = true,
            }
        }
        let positive = self.numbers.iter().all(|&n| n > 0);
        if open {
            !positive || sum < *total
        } else {
            sum == *total
        }
    }

    /// Whether the givens agree with each other.
    fn consistent(&self, givens: &[Option<usize>]) -> bool {
        let mut vals = vec![None; givens.len()];
        for (i, g) in givens.iter().enumerate() {
            if let Some(x) = *g {
                if !self.allows(&vals, i, x) {
                    return false;
                }
                vals[i] = Some(x);
            }
        }
        true
    }
}

/// The number of solutions extending the givens.
pub fn count(v: &Variant, givens: &[Option<usize>]) -> u64 {
    let plan = Plan::new(v);
    if !plan.consistent(givens) {
        return 0;
    }
    let mut vals = givens.to_vec();
    let empty = open_cells(v, givens);
    fn go(plan: &Plan, n: usize, vals: &mut Vec<Option<usize>>, empty: &[usize]) -> u64 {
        let Some((&cell, rest)) = empty.split_first() else {
            return 1;
        };
        let mut total = 0;
        for x in 0..n {
            if plan.allows(vals, cell, x) {
                vals[cell] = Some(x);
                total += go(plan, n, vals, rest);
                vals[cell] = None;
            }
        }
        total
    }
    go(&plan, v.values.len(), &mut vals, &empty)
}

/// The cells to fill: neither given nor holes.
fn open_cells(v: &Variant, givens: &[Option<usize>]) -> Vec<usize> {
    (0..v.cells())
        .filter(|&i| givens[i].is_none() && !v.is_hole(i))
        .collect()
}

/// A hole's entry in a solution: holes hold no value.
pub const HOLE: usize = usize::MAX;

/// The number of solutions extending the givens, filling first the open cell with the
/// fewest allowed values: the same plain enumeration as [`count`], in an order that finishes
/// on large grids with many givens (the shaped grids' start blocks).
pub fn count_fewest_first(v: &Variant, givens: &[Option<usize>]) -> u64 {
    let plan = Plan::new(v);
    if !plan.consistent(givens) {
        return 0;
    }
    let mut vals = givens.to_vec();
    let mut open = open_cells(v, givens);
    fn go(plan: &Plan, n: usize, vals: &mut Vec<Option<usize>>, open: &mut Vec<usize>) -> u64 {
        let Some((k, _)) = open
            .iter()
            .enumerate()
            .map(|(k, &c)| (k, (0..n).filter(|&x| plan.allows(vals, c, x)).count()))
            .min_by_key(|&(_, m)| m)
        else {
            return 1;
        };
        let cell = open.swap_remove(k);
        let mut total = 0;
        for x in 0..n {
            if plan.allows(vals, cell, x) {
                vals[cell] = Some(x);
                total += go(plan, n, vals, open);
                vals[cell] = None;
            }
        }
        open.push(cell);
        let last = open.len() - 1;
        open.swap(k, last);
        total
    }
    go(&plan, v.values.len(), &mut vals, &mut open)
}

/// Every solution extending the givens, as value indices, in lexicographic order.
pub fn solutions(v: &Variant, givens: &[Option<usize>]) -> Vec<Vec<usize>> {
    let plan = Plan::new(v);
    let mut out = Vec::new();
    if !plan.consistent(givens) {
        return out;
    }
    let mut vals = givens.to_vec();
    fn go(
        plan: &Plan,
        n: usize,
        vals: &mut Vec<Option<usize>>,
        cell: usize,
        out: &mut Vec<Vec<usize>>,
    ) {
        if cell == vals.len() {
            out.push(vals.iter().map(|x| x.unwrap_or(HOLE)).collect());
            return;
        }
        if vals[cell].is_some() || plan.holes[cell] {
            return go(plan, n, vals, cell + 1, out);
        }
        for x in 0..n {
            if plan.allows(vals, cell, x) {
                vals[cell] = Some(x);
                go(plan, n, vals, cell + 1, out);
                vals[cell] = None;
            }
        }
    }
    go(&plan, v.values.len(), &mut vals, 0, &mut out);
    out
}

/// One solution extending the givens, trying values in the order `order(cell)` gives.
pub fn first_solution(
    v: &Variant,
    givens: &[Option<usize>],
    order: &mut dyn FnMut(usize) -> Vec<usize>,
) -> Option<Vec<usize>> {
    let plan = Plan::new(v);
    if !plan.consistent(givens) {
        return None;
    }
    let mut vals = givens.to_vec();
    fn go(
        plan: &Plan,
        vals: &mut Vec<Option<usize>>,
        cell: usize,
        order: &mut dyn FnMut(usize) -> Vec<usize>,
        budget: &mut u64,
    ) -> bool {
        if cell == vals.len() {
            return true;
        }
        if vals[cell].is_some() || plan.holes[cell] {
            return go(plan, vals, cell + 1, order, budget);
        }
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        for x in order(cell) {
            if plan.allows(vals, cell, x) {
                vals[cell] = Some(x);
                if go(plan, vals, cell + 1, order, budget) {
                    return true;
                }
                vals[cell] = None;
            }
        }
        false
    }
    // A budget keeps unsatisfiable random variants quick; they then count as having none.
    let mut budget = 2_000_000;
    go(&plan, &mut vals, 0, order, &mut budget)
        .then(|| vals.iter().map(|x| x.unwrap_or(HOLE)).collect())
}

/// The `--expand all` state space: consistent partial fillings extending the givens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Space {
    pub states: u64,
    /// Allowed (cell, value) placements, summed over the states.
    pub transitions: u64,
    /// States that are not solutions and allow no placement.
    pub dead_ends: u64,
    pub solutions: u64,
}

/// Enumerates the state space; `None` when it has more than `cap` states.
pub fn space(v: &Variant, givens: &[Option<usize>], cap: u64) -> Option<Space> {
    let plan = Plan::new(v);
    let s = Space {
        states: 0,
        transitions: 0,
        dead_ends: 0,
        solutions: 0,
    };
    if !plan.consistent(givens) {
        return Some(s);
    }
    let empty = open_cells(v, givens);
    let mut vals = givens.to_vec();
    struct Walk<'a> {
        plan: &'a Plan,
        n: usize,
        empty: &'a [usize],
        cap: u64,
        s: Space,
    }
    impl Walk<'_> {
        // Decides the cells empty[k..]: each stays empty or takes a value that agrees with
        // the cells decided before it, so every consistent partial filling is met once.
        fn go(&mut self, vals: &mut Vec<Option<usize>>, k: usize) -> bool {
            if k == self.empty.len() {
                self.s.states += 1;
                if self.s.states > self.cap {
                    return false;
                }
                let mut moves = 0;
                let mut full = true;
                for &cell in self.empty {
                    if vals[cell].is_none() {
                        full = false;
                        moves += (0..self.n)
                            .filter(|&x| self.plan.allows(vals, cell, x))
                            .count() as u64;
                    }
                }
                self.s.transitions += moves;
                if full {
                    self.s.solutions += 1;
                } else if moves == 0 {
                    self.s.dead_ends += 1;
                }
                return true;
            }
            let cell = self.empty[k];
            if !self.go(vals, k + 1) {
                return false;
            }
            for x in 0..self.n {
                if self.plan.allows(vals, cell, x) {
                    vals[cell] = Some(x);
                    let more = self.go(vals, k + 1);
                    vals[cell] = None;
                    if !more {
                        return false;
                    }
                }
            }
            true
        }
    }
    let mut w = Walk {
        plan: &plan,
        n: v.values.len(),
        empty: &empty,
        cap,
        s,
    };
    w.go(&mut vals, 0).then_some(w.s)
}

/// The brute force itself is checked against the reference counts of data/README.md.
#[test]
fn brute_force_reproduces_the_reference_counts() {
    let d4 = || Variant::digits(4);
    let sudoku4 = Variant::sudoku(4, 2, 2, d4());
    let centre = Variant::sudoku(4, 2, 2, d4()).with_window(2, 2, 2, 2);
    let empty16 = vec![None; 16];
    assert_eq!(count(&sudoku4, &empty16), 288);
    assert_eq!(count(&centre, &empty16), 168);
    assert_eq!(count(&Variant::latin(4, d4()), &empty16), 576);
    assert_eq!(
        count(&Variant::sudoku(4, 2, 2, d4()).with_diagonals(), &empty16),
        48
    );
    let x6 = Variant::sudoku(6, 2, 3, Variant::digits(6)).with_diagonals();
    assert_eq!(count(&x6, &[None; 36]), 8640);
    let s6 = Variant::sudoku(6, 2, 3, Variant::digits(6));
    assert_eq!(
        count(&s6, &s6.parse_givens(&format!("123456{}", ".".repeat(30)))),
        39168
    );

    let g = "..3...1....3...1";
    let space_of = |v: &Variant, g: &str| space(v, &v.parse_givens(g), 1_000_000).unwrap();
    assert_eq!(
        space_of(&centre, g),
        Space {
            states: 72_837,
            transitions: 436_549,
            dead_ends: 688,
            solutions: 4
        }
    );
    assert_eq!(
        space_of(&sudoku4, g),
        Space {
            states: 104_233,
            transitions: 643_152,
            dead_ends: 840,
            solutions: 12
        }
    );
    assert_eq!(
        space_of(&sudoku4, "1234............"),
        Space {
            states: 104_489,
            transitions: 643_800,
            dead_ends: 816,
            solutions: 12
        }
    );
    assert_eq!(
        space(&sudoku4, &empty16, 1000),
        None,
        "the cap stops the walk"
    );
}

#[test]
fn brute_force_solutions_pass_the_checker_and_honour_inequalities() {
    let v = crate::variant::rule_file("futoshiki-5x5").variant;
    let all = solutions(&v, &vec![None; 25]);
    assert_eq!(all.len() as u64, count(&v, &vec![None; 25]));
    assert!(!all.is_empty());
    for s in &all {
        crate::checker::check_values(&v, &vec![None; 25], s).unwrap();
    }
    let first = first_solution(&v, &vec![None; 25], &mut |_| (0..5).rev().collect()).unwrap();
    assert!(all.contains(&first));
}
