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
