//! Unit tests of the solver: placing, propagating and branching on an empty 4x4 Sudoku.

use super::{Tables, Work, DYN};
use crate::grammar::Grammar;
use crate::slot::{compile, SlotModel};

/// The 4x4 Sudoku of `rules/` without its givens (its `start` block).
fn empty_4x4() -> String {
    let text = include_str!("../../../rules/sudoku-4x4.graft");
    let start = text.find("start {").expect("a start block");
    let end = start + text[start..].find('}').expect("the start block's end") + 1;
    format!("{}{}", &text[..start], &text[end..])
}

fn sudoku() -> (Grammar, SlotModel, Tables<u64>) {
    let g = crate::load_str("empty-4x4.graft", &empty_4x4()).expect("the rule file loads");
    let model = compile(&g).expect("a Sudoku fills slots");
    let tables = Tables::new(&model);
    (g, model, tables)
}

/// The slot of the cell in row `r`, column `c` (both from 1).
fn slot(g: &Grammar, model: &SlotModel, r: u32, c: u32) -> usize {
    let name = format!("r{r}c{c}.val");
    (0..model.slots.len() as u32)
        .find(|&s| model.slot_name(g, s) == name)
        .unwrap_or_else(|| panic!("no slot {name}")) as usize
}

/// The values (from 0) still open in slot `s`.
fn cands(t: &Tables<u64>, w: &Work<u64>, s: usize) -> Vec<u32> {
    let m = t.cand::<DYN>(w, s);
    (0..4).filter(|&y| m & (1 << y) != 0).collect()
}

#[test]
fn placing_clears_the_value_from_the_cells_peers_only() {
    let (g, model, t) = sudoku();
    let mut w = t.empty();
    let r1c1 = slot(&g, &model, 1, 1);
    assert_eq!(cands(&t, &w, r1c1), [0, 1, 2, 3]);
    assert!(t.place::<DYN>(&mut w, r1c1, 0));
    assert_eq!(w.vals[r1c1], 1);
    assert_eq!(w.left, 15);
    // A filled slot has no candidates left.
    assert_eq!(cands(&t, &w, r1c1), Vec::<u32>::new());
    // Same row, same column, same box: value 0 is gone; elsewhere it stays.
    for (r, c) in [(1, 4), (3, 1), (2, 2)] {
        assert_eq!(cands(&t, &w, slot(&g, &model, r, c)), [1, 2, 3], "r{r}c{c}");
    }
    assert_eq!(cands(&t, &w, slot(&g, &model, 3, 3)), [0, 1, 2, 3]);
}

#[test]
fn placing_a_blocked_value_is_a_clash() {
    let (g, model, t) = sudoku();
    let mut w = t.empty();
    assert!(t.place::<DYN>(&mut w, slot(&g, &model, 1, 1), 2));
    let r1c3 = slot(&g, &model, 1, 3);
    assert!(t.blocked(&w, r1c3, 2));
    assert!(!t.place::<DYN>(&mut w, r1c3, 2));
    assert_eq!(w.vals[r1c3], 0, "a refused placement leaves the slot empty");
    assert_eq!(w.left, 15);
    // Another value in the same cell is fine.
    assert!(!t.blocked(&w, r1c3, 1));
}

#[test]
fn propagation_fills_forced_cells_and_finds_dead_states() {
    let (g, model, t) = sudoku();
    let mut w = t.empty();
    // Row 1 holds 0, 1, 2: r1c4 can only take 3.
    for (c, y) in [(1, 0), (2, 1), (3, 2)] {
        assert!(t.place::<DYN>(&mut w, slot(&g, &model, 1, c), y));
    }
    assert!(t.propagate::<DYN>(&mut w));
    assert_eq!(w.vals[slot(&g, &model, 1, 4)], 4);
    // Nothing else is forced: the second row's cells keep two candidates each.
    assert_eq!(w.left, 12);
    assert_eq!(cands(&t, &w, slot(&g, &model, 2, 1)), [2, 3]);

    // Leave r2c2 without a value: its box holds 0 (r1c1), its row 1 (r2c3), its column
    // 2 and 3 (r3c2, r4c2).
    let mut dead = t.empty();
    for (r, c, y) in [(1, 1, 0), (2, 3, 1), (3, 2, 2), (4, 2, 3)] {
        assert!(t.place::<DYN>(&mut dead, slot(&g, &model, r, c), y));
    }
    assert_eq!(cands(&t, &dead, slot(&g, &model, 2, 2)), Vec::<u32>::new());
    assert!(!t.propagate::<DYN>(&mut dead));
}

#[test]
fn branching_picks_the_cell_with_fewest_candidates() {
    let (g, model, t) = sudoku();
    let mut w = t.empty();
    assert_eq!(
        t.best_slot::<DYN>(&w),
        Some((0, 4)),
        "ties go to the lowest slot"
    );
    // Row 1 holds 0 and 1 at r1c1, r1c2: r1c3 and r1c4 keep 2 candidates, the fewest.
    assert!(t.place::<DYN>(&mut w, slot(&g, &model, 1, 1), 0));
    assert!(t.place::<DYN>(&mut w, slot(&g, &model, 1, 2), 1));
    let r1c3 = slot(&g, &model, 1, 3) as u32;
    let r1c4 = slot(&g, &model, 1, 4) as u32;
    assert_eq!(t.best_slot::<DYN>(&w), Some((r1c3.min(r1c4), 2)));
    // Every move of the state: the candidates of every empty slot.
    let mut moves = 0u64;
    t.for_each_move(&w, 0, |_, _| moves += 1);
    assert_eq!(moves, t.transitions(&w));
    assert!(t.transitions(&w) < 14 * 4);
}

/// `supported` keeps exactly the values some completion from the candidates gives a
/// member, the completion's content (with the placed values) being one listed, where
/// contents repeat values; where they are sets, at least those: checked against trying every
/// completion, on random contents and candidates. Either way a second call on what the
/// first kept keeps it all, and masks of 16 bits keep what masks of 128 do.
#[test]
fn group_contents_keep_exactly_the_values_of_some_completion() {
    use super::groups::supported;
    use crate::slot::group::{multisets, Contents};
    let mut below = crate::slot::xorshift(0x2545_f491_4f6c_dd1d);
    let mut exact = 0;
    for round in 0..1200 {
        // Five values over groups of up to four; three (a binary row's two and one more)
        // over groups of up to seven, where values repeat most.
        let (d, most) = if round % 3 == 2 { (3u32, 7) } else { (5u32, 4) };
        let n = 1 + below(most) as usize;
        let distinct = round % 3 == 0;
        let every = multisets((1 << d) - 1, 0, n).expect("few");
        let lists: Vec<Vec<u8>> = every
            .into_iter()
            .filter(|l| !distinct || l.windows(2).all(|p| p[0] != p[1]))
            .filter(|_| below(3) == 0)
            .collect();
        let contents = Contents::new(n, lists.clone());
        let filled = below(n as u64) as usize;
        let placed: Vec<u16> = (0..filled).map(|_| below(u64::from(d)) as u16).collect();
        let empties: Vec<(u32, u128)> = (filled..n)
            .map(|m| (m as u32, u128::from(below(1 << d))))
            .collect();
        let mut keep = vec![0u128; empties.len()];
        supported(&contents, placed.iter().copied(), &empties, &mut keep);
        // The solver reads a group in its own masks (16 bits where the values are few):
        // the same values kept.
        let narrow: Vec<(u32, u16)> = empties.iter().map(|&(m, c)| (m, c as u16)).collect();
        let mut kept_narrow = vec![0u16; empties.len()];
        supported(&contents, placed.iter().copied(), &narrow, &mut kept_narrow);
        let widened: Vec<u128> = kept_narrow.iter().map(|&k| u128::from(k)).collect();
        assert_eq!(widened, keep, "round {round}: 16-bit masks kept otherwise");
        // Brute force: every assignment of the empty members from their candidates.
        let mut want = vec![0u128; empties.len()];
        let k = empties.len() as u32;
        for code in 0..d.pow(k) {
            let pick: Vec<u8> = (0..k).map(|i| (code / d.pow(i) % d) as u8).collect();
            if pick
                .iter()
                .zip(&empties)
                .any(|(&x, &(_, c))| c >> x & 1 == 0)
            {
                continue;
            }
            let mut all: Vec<u8> = placed
                .iter()
                .map(|&x| x as u8)
                .chain(pick.clone())
                .collect();
            all.sort_unstable();
            if lists.contains(&all) {
                for (w, &x) in want.iter_mut().zip(&pick) {
                    *w |= 1 << x;
                }
            }
        }
        // Once is enough: what was kept is kept again from the narrowed candidates, which
        // is why a group is not looked at again for its own narrowing (`propagate_groups`).
        if keep.iter().all(|&k| k != 0) {
            let narrowed: Vec<(u32, u128)> = (empties.iter().zip(&keep))
                .map(|(&(m, _), &k)| (m, k))
                .collect();
            let mut again = vec![0u128; empties.len()];
            supported(&contents, placed.iter().copied(), &narrowed, &mut again);
            assert_eq!(
                again, keep,
                "round {round}: a second look narrowed {lists:?}, placed {placed:?}, {empties:?}"
            );
        }
        if contents.repeats {
            assert_eq!(
                keep, want,
                "round {round}: {lists:?}, placed {placed:?}, {empties:?}"
            );
            exact += usize::from(want.iter().zip(&empties).any(|(&w, &(_, c))| w != c));
        } else {
            for ((&k, &w), &(_, c)) in keep.iter().zip(&want).zip(&empties) {
                assert_eq!(k & w, w, "round {round}: a supported value dropped");
                assert_eq!(
                    k & !c,
                    0,
                    "round {round}: a value kept that is no candidate"
                );
            }
        }
    }
    assert!(exact > 100, "only {exact} rounds narrowed a member");
}

/// A full group holds a content exactly when its values, sorted, are one of the listed
/// ones: sets (a cage's) judged by their values' mask, multisets by the sorted values.
#[test]
fn a_full_group_holds_exactly_the_listed_contents() {
    use super::groups::holds_listed;
    use crate::slot::group::{multisets, Contents, Group};
    let mut below = crate::slot::xorshift(0x9e37_79b9_7f4a_7c15);
    let (mut held, mut refused) = (0, 0);
    for round in 0..2000 {
        let d = 2 + below(6) as u32;
        let n = 1 + below(4) as usize;
        let distinct = round % 2 == 0;
        let lists: Vec<Vec<u8>> = (multisets((1 << d) - 1, 0, n).expect("few").into_iter())
            .filter(|l| !distinct || l.windows(2).all(|p| p[0] != p[1]))
            .filter(|_| below(2) == 0)
            .collect();
        let contents = Contents::new(n, lists.clone());
        assert_eq!(
            contents.repeats,
            lists.iter().any(|l| l.windows(2).any(|p| p[0] == p[1]))
        );
        // Members spread over a few slots, each holding a value (stored one above it).
        let members: Vec<u32> = (0..n as u32).map(|m| 3 * m + 1).collect();
        let mut vals = vec![0u8; 3 * n + 2];
        let values: Vec<u8> = (0..n).map(|_| below(u64::from(d)) as u8).collect();
        for (&m, &x) in members.iter().zip(&values) {
            vals[m as usize] = x + 1;
        }
        let group = Group {
            nac: 0,
            members,
            statics: Vec::new(),
            feasible: None,
            pairs: Vec::new(),
            implied_by: Vec::new(),
        };
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let want = lists.contains(&sorted);
        assert_eq!(
            holds_listed(&contents, &group, &vals),
            want,
            "round {round}: {values:?} against {lists:?}"
        );
        if want {
            held += 1;
        } else {
            refused += 1;
        }
    }
    assert!(
        held > 200 && refused > 200,
        "{held} held, {refused} refused"
    );
}

/// A 4x4 Sudoku whose first row rises along `up` edges from r1c1 to r1c3.
fn thermometer() -> (Grammar, SlotModel, Tables<u64>) {
    let text = "values 1..4
        node Cell { row: int, col: int, val: value? }
        node Group
        edge in: Cell -> Group
        edge up: Cell -> Cell
        grid 4x4 of Cell
        groups rows, columns, boxes 2x2
        r1c1 -up-> r1c2
        r1c2 -up-> r1c3
        rule place(v: value) {
          c: Cell { val == none }
          not { c -in-> g: Group <-in- d: Cell { val == v } }
          not { c -up+-> d: Cell { val <= v } }
          not { d: Cell { val >= v } -up+-> c }
          set c.val = v
        }
        final: not { c: Cell { val == none } }";
    let g = crate::load_str("thermo-4x4.graft", text).expect("the rule file loads");
    let model = compile(&g).expect("a thermometer fills slots");
    let tables = Tables::new(&model);
    (g, model, tables)
}

#[test]
fn relations_narrow_empty_cells_before_either_is_placed() {
    let (g, model, t) = thermometer();
    let mut w = t.empty();
    assert!(t.propagate::<DYN>(&mut w));
    // Nothing placed, yet each bulb-ward cell leaves room above it and each later cell
    // room below it.
    assert_eq!(w.left, 16);
    assert_eq!(cands(&t, &w, slot(&g, &model, 1, 1)), [0, 1]);
    assert_eq!(cands(&t, &w, slot(&g, &model, 1, 2)), [1, 2]);
    assert_eq!(cands(&t, &w, slot(&g, &model, 1, 3)), [2, 3]);
    // Off the thermometer, every value stays.
    assert_eq!(cands(&t, &w, slot(&g, &model, 2, 1)), [0, 1, 2, 3]);
    // r1c2 at 2 (value index 1) forces r1c1 to 0; r1c3 keeps 2 and 3.
    assert!(t.place::<DYN>(&mut w, slot(&g, &model, 1, 2), 1));
    assert!(t.propagate::<DYN>(&mut w));
    assert_eq!(w.vals[slot(&g, &model, 1, 1)], 1);
    assert_eq!(cands(&t, &w, slot(&g, &model, 1, 3)), [2, 3]);
}
