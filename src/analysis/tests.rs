//! Unit tests of the analysis: each refusal users can meet, pinned word for word where it
//! is reachable from a small grammar.

use crate::engine::Engine;
use crate::graph::graph_space::GraphSpace;

const HEAD: &str = "values 1..2
    node Cell { row: int, col: int, val: value? }
    node Group
    edge in: Cell -> Group
    edge lt: Cell -> Cell
    grid 1x2 of Cell
    groups rows
    r1c1 -lt-> r1c2
    ";

/// Why focus is unsound for `HEAD` followed by `rest`, if it is.
fn why(rest: &str) -> Option<String> {
    let g = crate::load_str("t.graft", &format!("{HEAD}{rest}")).unwrap_or_else(|d| panic!("{d}"));
    let space = GraphSpace::new(&g, Engine::new(&g).start_graph(None));
    space.focus_unsound().map(|u| u.reason.clone())
}

const FINAL: &str = "final: not { c: Cell { val == none } }";

#[test]
fn a_slot_filling_rule_is_monotone() {
    let rule = "rule place(v: value) {
        c: Cell { val == none }
        not { c -in-> g: Group <-in- d: Cell { val == v } }
        set c.val = v
    }";
    assert_eq!(why(&format!("{rule} {FINAL}")), None);
    let none = why(rule).unwrap();
    assert!(none.contains("no `final:`"), "{none}");
}

#[test]
fn a_nac_that_may_see_an_empty_cell_is_refused() {
    let rule = "rule place(v: value) {
        c: Cell { val == none }
        not { c -in-> g: Group <-in- d: Cell }
        set c.val = v
    }";
    let r = why(&format!("{rule} {FINAL}")).unwrap();
    assert!(r.contains("NAC node `d` may match an open `Cell`"), "{r}");
}

#[test]
fn one_sided_blocking_is_refused() {
    // c < d is checked from c only: d's value blocks c, never the other way round.
    let rule = "rule place(v: value) {
        c: Cell { val == none }
        not { c -lt-> d: Cell { val <= v } }
        set c.val = v
    }";
    let r = why(&format!("{rule} {FINAL}")).unwrap();
    assert!(r.contains("blocking is not symmetric"), "{r}");
    assert!(r.contains("c = r1c2") && r.contains("c = r1c1"), "{r}");
    // Checked from both ends, blocking is symmetric.
    let both = "rule place(v: value) {
        c: Cell { val == none }
        not { c -lt-> d: Cell { val <= v } }
        not { d: Cell { val >= v } -lt-> c }
        set c.val = v
    }";
    assert_eq!(why(&format!("{both} {FINAL}")), None);
}

#[test]
fn nested_nacs_and_edge_changes_are_refused() {
    let nested = "rule place(v: value) {
        c: Cell { val == none }
        not { c -in-> g: Group not { g <-in- d: Cell { val == v } } }
        set c.val = v
    }";
    let r = why(&format!("{nested} {FINAL}")).unwrap();
    assert!(r.contains("a NAC inside a NAC"), "{r}");
    let edges = "rule place(v: value) {
        c: Cell { val == none }
        d: Cell
        set c.val = v
        new c -lt-> d
    }";
    let r = why(&format!("{edges} {FINAL}")).unwrap();
    assert!(r.contains("matches two nodes that may be open"), "{r}");
    let linking = "rule place(v: value) {
        c: Cell { val == none }
        g: Group
        set c.val = v
        new c -in-> g
    }";
    let r = why(&format!("{linking} {FINAL}")).unwrap();
    assert!(r.contains("changes edges"), "{r}");
}

#[test]
fn a_rule_must_fill_what_final_asks_for() {
    let keeps = "rule touch(v: value) {
        c: Cell { val == none }
        set c.row = 3
    }";
    let r = why(&format!("{keeps} {FINAL}")).unwrap();
    assert!(r.contains("sets an attribute other than"), "{r}");
    let any = "rule place(v: value) {
        c: Cell
        set c.val = v
    }";
    let r = why(&format!("{any} {FINAL}")).unwrap();
    assert!(r.contains("does not require `c` to be open"), "{r}");
}
