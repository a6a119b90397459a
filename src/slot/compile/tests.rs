//! Unit tests of the slot compiler: what it builds for a small Sudoku and what it refuses.

use super::compile;
use crate::analysis::slot_fill::MAX_VALUES;
use crate::load_str;

/// The 4x4 Sudoku of `rules/`: 16 cells, 12 groups (4 rows, 4 columns, 4 boxes).
const SUDOKU_4X4: &str = include_str!("../../../rules/sudoku-4x4.graft");

/// The 4x4 Sudoku with a rule that forgets to require the cell to be empty.
fn overwriting() -> String {
    let text = SUDOKU_4X4.replace("c: Cell { val == none }", "c: Cell");
    assert_ne!(text, SUDOKU_4X4, "the rule file's left side has changed");
    text
}

#[test]
fn sudoku_compiles_to_one_slot_per_cell_and_one_hub_per_group() {
    let g = load_str("sudoku-4x4.graft", SUDOKU_4X4).expect("the rule file loads");
    let model = compile(&g).expect("a Sudoku fills slots");
    assert_eq!(model.d, 4);
    assert_eq!(model.slots.len(), 16);
    // The NAC factors through its group node: one hub per row, column and box, each
    // written and read by its 4 cells, and each holding every value exactly once.
    assert_eq!(model.hubs.len(), 12);
    for hub in &model.hubs {
        assert_eq!(hub.writers.len(), 4);
        assert_eq!(hub.readers, hub.writers);
    }
    assert_eq!(model.once.len(), 12);
    // One table for the one NAC: a value blocks the same value only.
    assert_eq!(model.tables.len(), 1);
    let identity: Vec<u128> = (0..4).map(|y| 1u128 << y).collect();
    assert_eq!(model.tables[0], identity);
    assert!(model.replaced.is_none());
}

#[test]
fn a_domain_wider_than_the_widest_mask_is_refused() {
    let wide = SUDOKU_4X4.replace("values 1..4", &format!("values 1..{}", MAX_VALUES + 1));
    let g = load_str("wide.graft", &wide).expect("the rule file loads");
    let refusal = compile(&g).expect_err("too many values for a mask");
    assert_eq!(
        refusal.reason,
        format!(
            "the slot engine handles 1 to {MAX_VALUES} values, the domain has {}",
            MAX_VALUES + 1
        )
    );
}

#[test]
fn a_rule_that_may_overwrite_is_refused_with_its_reason_and_span() {
    let text = overwriting();
    let g = load_str("overwriting.graft", &text).expect("the rule file loads");
    let refusal = compile(&g).expect_err("the rule may overwrite a value");
    assert_eq!(
        refusal.reason,
        "rule `place` does not require the attribute it sets to be none, so it may overwrite a value"
    );
    // The span is the rule's left side, where the missing `val == none` belongs.
    assert!(text[refusal.span.start..].starts_with("c: Cell\n"));
}

/// Why `--expand focus` is unsound on the slot engine for the 4x4 Sudoku with `final:`
/// replaced by `last` (removed when empty).
fn focus_refusal(last: &str) -> Option<String> {
    let final_line = "final: not { c: Cell { val == none } }";
    assert!(
        SUDOKU_4X4.contains(final_line),
        "the rule file's final: has changed"
    );
    let text = SUDOKU_4X4.replace(final_line, last);
    let g = load_str("sudoku-4x4.graft", &text).expect("the rule file loads");
    let model = compile(&g).expect("a Sudoku fills slots");
    model.focus_sound.err().map(|r| r.reason)
}

#[test]
fn focus_needs_a_final_condition_that_fills_every_slot() {
    assert_eq!(
        focus_refusal("final: not { c: Cell { val == none } }"),
        None
    );
    assert_eq!(
        focus_refusal("").as_deref(),
        Some("the file has no `final:` condition, so every dead end is final, and focus would skip them")
    );
    assert_eq!(
        focus_refusal("final: { c: Cell { val == 1 } }").as_deref(),
        Some("the final condition does not require every slot to be filled, so final states may lie off the focus path")
    );
}

#[test]
fn replaced_cells_must_have_no_edges() {
    let text = "values 1..2
        node Cell { row: int, col: int, val: value? }
        node Mark { val: value }
        node Group
        edge in: Cell -> Group
        grid 1x2 of Cell
        groups rows
        rule place(v: value) { c: Cell { val == none } del c new m: Mark { val = v } }
        final: not { c: Cell }";
    let g = load_str("t.graft", text).expect("the rule file loads");
    let why = compile(&g).expect_err("cells with edges cannot be replaced");
    assert_eq!(
        why.reason,
        "the rules delete `r1c1`, which has edges its replacement would not have"
    );
    assert_eq!(why.kind, crate::analysis::RefusalKind::NotSlot);
}

#[test]
fn one_sided_nacs_are_not_symmetric() {
    // r1c1 < r1c2 checked from the smaller cell only.
    let text = "values 1..2
        node Cell { row: int, col: int, val: value? }
        edge lt: Cell -> Cell
        grid 1x2 of Cell
        r1c1 -lt-> r1c2
        rule place(v: value) {
            c: Cell { val == none }
            not { c -lt-> d: Cell { val <= v } }
            set c.val = v
        }
        final: not { c: Cell { val == none } }";
    let g = load_str("t.graft", text).expect("the rule file loads");
    let model = compile(&g).expect("the rule fills slots");
    let why = model.symmetric.expect_err("one-sided");
    assert!(
        why.reason.starts_with("the NACs are not symmetric: `")
            && why
                .reason
                .ends_with(", but not the other way round, so the order of placements matters"),
        "{}",
        why.reason
    );
    assert_eq!(model.focus_sound, Err(why));
}

/// The killer 4x4 of `rules/` and the batch of its tests, each line its own cages.
const KILLER_4X4: &str = include_str!("../../../rules/killer-4x4.graft");
const KILLER_BATCH: &str = include_str!("../../../tests/fixtures/layers/killer-4x4.txt");

/// A puzzle's model compiled with the NACs its layers cannot reach replayed from the rule
/// file's engine is the model compiled from scratch: the same slots, values, hubs, tables
/// and groups, for every line of a batch whose lines have different cages.
#[test]
fn replayed_nacs_give_the_model_compiled_from_scratch() {
    let g = load_str("killer-4x4.graft", KILLER_4X4).expect("the rule file loads");
    let (_, fixed) = super::compile_reusing(&g, None).expect("a killer fills slots");
    let source = crate::diag::Source::new("killer-4x4.txt", KILLER_BATCH.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    assert!(puzzles.len() > 1);
    let layouts: std::collections::BTreeSet<String> =
        puzzles.iter().map(|p| format!("{:?}", p.layers)).collect();
    assert_eq!(layouts.len(), puzzles.len(), "every line its own layers");
    for p in &puzzles {
        let layered = g.with_layers(&p.layers);
        let fresh = compile(&layered).expect("a killer fills slots");
        let (reused, _) = super::compile_reusing(&layered, Some(&fixed)).expect("it compiles");
        let shape = |m: &super::SlotModel| {
            format!(
                "{:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                m.slots, m.allowed, m.hubs, m.tables, m.once, m.group_nacs, m.groups
            )
        };
        assert_eq!(shape(&reused), shape(&fresh), "puzzle {}", p.number);
    }
    // The row, column and box NAC is the one no layer reaches; the cage NACs are not.
    assert_eq!(fixed.len(), 1);
}
