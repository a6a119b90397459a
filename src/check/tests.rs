//! Checker tests: the sudoku family end to end, then one test per diagnostic.

use super::*;
use crate::model::{AttrId, BaseType, Value};
use crate::rule::{Effect, ExprKind};

pub(super) const CENTRE: &str = r#"
values 1..4

node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group

grid 4x4 of Cell
groups rows, columns, boxes 2x2
group centre = r2c2 r2c3 r3c2 r3c3

start {
  . . 3 .
  . . 1 .
  . . . 3
  . . . 1
}

rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}

final: not { c: Cell { val == none } }
"#;

pub(super) fn ok(text: &str) -> Grammar {
    match check(Source::new("t.graft", text)) {
        Ok(g) => g,
        Err(d) => panic!("unexpected errors:\n{d}"),
    }
}

/// Every rendered diagnostic of a file that must fail.
pub(super) fn errors(text: &str) -> String {
    match check(Source::new("t.graft", text)) {
        Ok(_) => panic!("checked without errors:\n{text}"),
        Err(d) => d.to_string(),
    }
}

#[test]
fn the_centre_example_checks() {
    let g = ok(CENTRE);
    let grid = g.grid.as_ref().expect("grid");
    assert_eq!(grid.len(), 16);
    assert_eq!(grid.boxes, Some((2, 2)));
    let cell = g.types.find_node("Cell").unwrap();
    let group = g.types.find_node("Group").unwrap();
    let count = |t| g.base.find_nodes().filter(|&n| g.base.ty(n) == t).count();
    assert_eq!(count(cell), 16);
    assert_eq!(count(group), 13);
    assert_eq!(g.base.edge_count(), 52);
    let start = g.start.as_ref().expect("start");
    assert_eq!(start.values.iter().filter(|v| v.is_some()).count(), 4);
    assert_eq!(start.values[2], g.domain.find("3"));
    assert_eq!(g.rules.len(), 1);
    let rule = &g.rules[0];
    assert_eq!(rule.lhs.nacs.len(), 1);
    assert_eq!(rule.lhs.nodes.len(), 1);
    let nac = &rule.lhs.nacs[0];
    assert_eq!(nac.bound, 1);
    assert_eq!(nac.nodes.len(), 2);
    assert_eq!(nac.edges.len(), 2);
    assert!(matches!(rule.effects[0], Effect::Set { .. }));
    assert!(g.final_cond.is_some());
    assert_eq!(&g.names[0], "r1c1");
    assert_eq!(&g.names[16], "row1");
    assert_eq!(&g.names[g.names.len() - 1], "centre");
    let r2c3 = g.node_id("r2c3");
    let row = g.types.node(cell).attr("row").unwrap();
    assert_eq!(g.base.attr(r2c3, row), Value::Int(2));
    assert_eq!(
        g.types.node(cell).attrs[grid.value_attr.index()].ty.base,
        BaseType::Value
    );
}

#[test]
fn an_integer_compared_with_a_value_is_that_value() {
    let g = ok(&CENTRE.replace("set c.val = v", "where v != 3\n  set c.val = 2"));
    let rule = &g.rules[0];
    let Effect::Set { value, .. } = &rule.effects[0] else {
        panic!()
    };
    assert_eq!(value.kind, ExprKind::Const(Value::Val(1)));
}

impl Grammar {
    fn node_id(&self, name: &str) -> crate::model::NodeId {
        let i = self.names.iter().position(|n| n == name).expect(name);
        crate::model::NodeId::from_index(i)
    }
}

/// A 4x4 file with `body` after the common declarations.
fn file4(body: &str) -> String {
    format!(
        "values 1..4\nnode Cell {{ row: int, col: int, val: value? }}\nnode Group\nedge in: Cell -> Group\ngrid 4x4 of Cell\n{body}\n"
    )
}

fn groups_of(g: &Grammar, group: &str) -> Vec<String> {
    let gid = g.node_id(group);
    let mut members: Vec<String> = g
        .base
        .inc(gid)
        .iter()
        .map(|&(_, s)| g.names[s.index()].to_owned())
        .collect();
    members.sort();
    members
}

#[test]
fn regions_make_one_group_per_letter() {
    let g = ok(&file4(
        "groups regions {\n  AABB\n  AABB /* comment */\n  CCDD // rest\n  CCDD\n}",
    ));
    assert_eq!(
        g.names.iter().skip(16).collect::<Vec<_>>(),
        ["region_A", "region_B", "region_C", "region_D"]
    );
    assert_eq!(groups_of(&g, "region_B"), ["r1c3", "r1c4", "r2c3", "r2c4"]);
}

#[test]
fn diagonals_and_blocks() {
    let g = ok(&file4("groups diagonals\ngroup w = block 2x3 at r2c2"));
    assert_eq!(groups_of(&g, "diag1"), ["r1c1", "r2c2", "r3c3", "r4c4"]);
    assert_eq!(groups_of(&g, "diag2"), ["r1c4", "r2c3", "r3c2", "r4c1"]);
    assert_eq!(
        groups_of(&g, "w"),
        ["r2c2", "r2c3", "r2c4", "r3c2", "r3c3", "r3c4"]
    );
}

#[test]
fn boxes_are_numbered_row_major() {
    let g = ok(&file4("groups boxes 2x2"));
    assert_eq!(groups_of(&g, "box2"), ["r1c3", "r1c4", "r2c3", "r2c4"]);
    assert_eq!(groups_of(&g, "box3"), ["r3c1", "r3c2", "r4c1", "r4c2"]);
}

#[test]
fn the_edges_generator_evaluates_its_condition_per_pair() {
    let g = ok(&file4(
        "edge knight: Cell -> Cell\nedges c -knight-> d where abs(c.row - d.row) * abs(c.col - d.col) == 2",
    ));
    let knight = g.types.find_label("knight").unwrap();
    let n = g.base.find_edges().filter(|&(_, l, _)| l == knight).count();
    assert_eq!(n, 48);
    assert!(g
        .base
        .has_edge(g.node_id("r1c1"), knight, g.node_id("r2c3")));
    assert!(g
        .base
        .has_edge(g.node_id("r2c3"), knight, g.node_id("r1c1")));
}

#[test]
fn a_grid_over_nodes_written_by_hand() {
    let g = ok("values 1 2\nnode Cell { row: int, col: int, val: value? }\nnode Group\nedge in: Cell -> Group\n\
        a: Cell { row = 1, col = 1 }\nb: Cell { row = 1, col = 2, val = 2 }\ng: Group\na -in-> g <-in- b\n\
        grid 1x2 = a b\nstart { . 1 }\nrule r(v: value) { c: Cell { val == none } set c.val = v }");
    let grid = g.grid.as_ref().unwrap();
    assert_eq!(grid.cells, [g.node_id("a"), g.node_id("b")]);
    assert_eq!(g.base.edge_count(), 2);
    assert_eq!(g.base.attr(g.node_id("b"), grid.value_attr), Value::Val(1));
    assert_eq!(g.start.as_ref().unwrap().values, [None, Some(0)]);
}

#[test]
fn inherited_attributes_come_first_and_given_types_hold_the_value() {
    let g = ok("values 1..4\nnode N { row: int, col: int }\nnode Node : N\nnode NodeVal : N { val: value }\n\
        node Group\nedge in: N -> Group\ngrid 4x4 of Node given NodeVal\ngroups rows\n\
        rule r(v: value) { c: Node  d: N  where d.row == c.row  new e: NodeVal { row = 1, col = 2, val = v } }");
    let nv = g.types.find_node("NodeVal").unwrap();
    let n = g.types.find_node("N").unwrap();
    assert_eq!(g.types.node(nv).attr("row"), g.types.node(n).attr("row"));
    assert_eq!(g.types.node(nv).attr("val"), Some(crate::model::AttrId(2)));
    let grid = g.grid.as_ref().unwrap();
    assert_eq!(grid.given_type, Some(nv));
    assert_eq!(grid.value_attr, crate::model::AttrId(2));
    assert!(g.types.is_subtype(grid.cell_type, n));
}

#[test]
fn nacs_number_their_nodes_after_the_enclosing_pattern() {
    let g = ok(&file4(
        "rule r(v: value) {\n  c: Cell d: Cell\n  not { c -in-> g: Group not { e: Cell -in-> g  where e.val == v } }\n  not { d -in-> h: Group }\n}",
    ));
    let lhs = &g.rules[0].lhs;
    assert_eq!((lhs.bound, lhs.var_end()), (0, 2));
    assert_eq!(lhs.nacs[0].bound, 2);
    assert_eq!(lhs.nacs[0].nacs[0].bound, 3);
    assert_eq!(lhs.nacs[1].bound, 2);
    assert_eq!(lhs.depth(), 4);
    let inner = &lhs.nacs[0].nacs[0];
    // `g` is the enclosing NAC's node 2; `e` is the inner NAC's own node 3.
    assert_eq!(
        (inner.edges[0].src, inner.edges[0].tgt),
        (crate::model::VarId(3), crate::model::VarId(2))
    );
}

#[test]
fn paths_lower_to_path_expressions() {
    use crate::rule::PathExpr;
    let g = ok(&file4(
        "rule r { c: Cell  d: Cell  c -(in.~in)+-> d  c -in?-> x: Group  d <-~in- x }",
    ));
    let lhs = &g.rules[0].lhs;
    let l = g.types.find_label("in").unwrap();
    let seq = PathExpr::Seq(vec![
        PathExpr::Label(l),
        PathExpr::Inverse(Box::new(PathExpr::Label(l))),
    ]);
    assert_eq!(lhs.edges[0].path, PathExpr::Plus(Box::new(seq)));
    assert_eq!(
        lhs.edges[1].path,
        PathExpr::Opt(Box::new(PathExpr::Label(l)))
    );
    // `d <-~in- x` is a `~in` path from x to d.
    assert_eq!(lhs.edges[2].src, crate::model::VarId(2));
    assert_eq!(
        lhs.edges[2].path,
        PathExpr::Inverse(Box::new(PathExpr::Label(l)))
    );
}

#[test]
fn effects_are_sorted_and_new_nodes_numbered_after_every_nac() {
    let g = ok(&file4(
        "rule r {\n  c: Cell -in-> g: Group  d: Cell\n  not { d -in-> h: Group }\n  new c -in-> n\n  new n: Group\n  del d\n  del c -in-> g\n  set c.val = 1\n}",
    ));
    let effects = &g.rules[0].effects;
    let kinds: Vec<&str> = effects
        .iter()
        .map(|e| match e {
            Effect::Set { .. } => "set",
            Effect::DelEdge { .. } => "del-edge",
            Effect::DelNode { .. } => "del-node",
            Effect::NewNode { .. } => "new-node",
            Effect::NewEdge { .. } => "new-edge",
        })
        .collect();
    assert_eq!(
        kinds,
        ["set", "del-edge", "del-node", "new-node", "new-edge"]
    );
    let Effect::NewNode { var, .. } = effects[3] else {
        panic!()
    };
    assert_eq!(var, crate::model::VarId(4));
    let Effect::NewEdge { src, tgt, .. } = effects[4] else {
        panic!()
    };
    assert_eq!((src, tgt), (crate::model::VarId(0), crate::model::VarId(4)));
}

#[test]
fn final_conditions_combine_patterns() {
    use crate::rule::Condition;
    let g = ok(&file4(
        "final: { c: Cell { val == 1 } } and not ({ d: Cell { val == none } } or { e: Cell })",
    ));
    let Some(Condition::And(parts)) = g.final_cond.as_deref() else {
        panic!("{:?}", g.final_cond)
    };
    assert!(matches!(parts[0], Condition::Exists(_)));
    let Condition::Not(inner) = &parts[1] else {
        panic!()
    };
    assert!(matches!(**inner, Condition::Or(_)));
}

#[test]
fn letters_and_multi_character_values() {
    let g = ok("values 1..9 A..C\nnode Cell { val: value? }\ngrid 2x2 of Cell\nstart { 1.B0 }");
    assert_eq!(g.domain.len(), 12);
    assert_eq!(g.domain.find("B"), Some(10));
    assert_eq!(
        g.start.as_ref().unwrap().values,
        [Some(0), None, Some(10), None]
    );
    let g = ok("values 1..12\nnode Cell { val: value? }\ngrid 2x2 of Cell\nstart { 10 . 12 0 }");
    assert_eq!(
        g.start.as_ref().unwrap().values,
        [Some(9), None, Some(11), None]
    );
    // Not one character each: cells are separated by blanks, and `10` is not a value.
    let e =
        errors("values 1..12\nnode Cell { val: value? }\ngrid 2x2 of Cell\nstart { 10 . 13 0 }");
    assert!(
        e.contains("unexpected `13`: expected a value (1..12) or `.`"),
        "{e}"
    );
}

#[test]
fn the_expanded_file_checks_to_the_same_start_graph() {
    let g = ok(CENTRE);
    let text = print_expanded(&g);
    let h = ok(&text);
    assert_eq!(g.names, h.names);
    assert_eq!(g.base, h.base, "{text}");
    assert_eq!(
        g.grid.as_ref().unwrap().cells,
        h.grid.as_ref().unwrap().cells
    );
    assert_eq!(
        g.start,
        h.start.map(|s| Givens {
            spans: g.start.as_ref().unwrap().spans.clone(),
            ..s
        })
    );
    assert_eq!(g.rules.len(), h.rules.len());
    assert_eq!(g.final_cond.is_some(), h.final_cond.is_some());
    assert!(text.contains("r2c2 -in-> centre"), "{text}");
    assert!(text.contains("grid 4x4 = r1c1 r1c2"), "{text}");
}

#[test]
fn the_expanded_file_keeps_given_types_letters_and_inheritance() {
    let src = "values A..D\nnode N { row: int, col: int }\nnode Node : N\nnode NodeVal : N { val: value }\n\
        node Group\nedge in: N -> Group\ngrid 4x4 of Node given NodeVal\ngroups rows, columns, boxes 2x2, diagonals\n\
        start { A... .... .... ...D }";
    let g = ok(src);
    let h = ok(&print_expanded(&g));
    assert_eq!(g.base, h.base);
    assert_eq!(
        h.grid.as_ref().unwrap().given_type,
        g.grid.as_ref().unwrap().given_type
    );
    assert_eq!(
        h.start.as_ref().unwrap().values,
        g.start.as_ref().unwrap().values
    );
}

#[test]
fn edges_found_by_equalities_are_the_pairs_the_condition_accepts() {
    // Each condition, with the (row, col) of its ends, checked against every pair.
    type Holds = fn(i64, i64, i64, i64) -> bool;
    let cases: [(&str, Holds); 5] = [
        ("d.row == c.row and d.col == c.col + 1", |r, c, s, d| {
            s == r && d == c + 1
        }),
        (
            "(c.row - 1) / 2 == (d.row - 1) / 2 and c.col != d.col",
            |r, c, s, d| (r - 1) / 2 == (s - 1) / 2 && c != d,
        ),
        (
            "abs(c.row - d.row) * abs(c.col - d.col) == 2",
            |r, c, s, d| (r - s).abs() * (c - d).abs() == 2,
        ),
        ("3 == d.col and c.row == 1 and 1 == 1", |r, _, _, d| {
            r == 1 && d == 3
        }),
        ("d.col == c.col or false", |_, c, _, d| c == d),
    ];
    for (cond, holds) in cases {
        let g = ok(&format!(
            "values 1..4\nnode Cell {{ row: int, col: int, val: value? }}\nedge e: Cell -> Cell\ngrid 5x6 of Cell\nedges c -e-> d where {cond}"
        ));
        let at = |n: NodeId| match (g.base.attr(n, AttrId(0)), g.base.attr(n, AttrId(1))) {
            (Value::Int(r), Value::Int(c)) => (r, c),
            other => panic!("{other:?}"),
        };
        let found: Vec<(NodeId, NodeId)> = g.base.find_edges().map(|(s, _, t)| (s, t)).collect();
        let nodes: Vec<NodeId> = g.base.find_nodes().collect();
        let mut expected = Vec::new();
        for &s in &nodes {
            for &t in &nodes {
                let ((r, c), (u, d)) = (at(s), at(t));
                if s != t && holds(r, c, u, d) {
                    expected.push((s, t));
                }
            }
        }
        assert_eq!(found, expected, "{cond}");
        assert!(!found.is_empty(), "{cond}");
    }
    let none = ok("values 1..4\nnode Cell { row: int, col: int, val: value? }\nedge e: Cell -> Cell\ngrid 5x6 of Cell\nedges c -e-> d where 1 == 2 and c.row == d.row");
    assert_eq!(none.base.find_edges().count(), 0);
}

#[test]
fn edges_past_the_limits_are_errors_with_a_hint() {
    let text = |cond: &str| {
        format!("values 1..4\nnode Cell {{ row: int, col: int, val: value? }}\nedge e: Cell -> Cell\ngrid 200x200 of Cell\nedges c -e-> d where {cond}\n")
    };
    let e = errors(&text("true"));
    assert!(
        e.contains(
            "t.graft:5:1: error: this generator would create 1599960000 `e` edges (limit 4194304)"
        ),
        "{e}"
    );
    assert!(e.contains("note: it makes one edge per pair"), "{e}");
    let e = errors(&text("abs(c.row - d.row) * abs(c.col - d.col) == 2"));
    assert!(
        e.contains("t.graft:5:1: error: this generator would test its condition on 1600000000 pairs of nodes (limit 33554432)"),
        "{e}"
    );
    assert!(
        e.contains("note: an equality between an attribute of `d` and one of `c`"),
        "{e}"
    );
    // With an equality to join on, the same knight's moves are found.
    let g = ok(&text("d.row == c.row - 1 and abs(c.col - d.col) == 2"));
    // 199 rows have one above; 196 columns have two columns two away, 4 have one.
    assert_eq!(g.base.find_edges().count(), 199 * (196 * 2 + 4));
}

/// The aggregates of an expression, outermost first.
fn aggregates_in(e: &crate::rule::Expr) -> Vec<&crate::rule::Aggregate> {
    let mut out = Vec::new();
    e.visit_aggregates(&mut |a| out.push(a));
    out
}

#[test]
fn aggregates_bind_their_nodes_after_the_enclosing_pattern() {
    use crate::model::VarId;
    use crate::rule::AggOp;
    let g = ok(&file4(
        "rule r(v: value) {
           c: Cell { val == none }
           not { c -in-> g: Group where sum(d.val for g <-in- d: Cell) + v > 9
                                    or count(g <-in- d: Cell { val == none }) == 0 }
           set c.val = v
         }
         final: not { g: Group where max(d.val for g <-in- d: Cell) != 4 }",
    ));
    let nac = &g.rules[0].lhs.nacs[0];
    assert_eq!(nac.bound, 1);
    let aggs = aggregates_in(&nac.conds[0]);
    assert_eq!(aggs.len(), 2);
    let (sum, count) = (aggs[0], aggs[1]);
    assert_eq!((sum.op, count.op), (AggOp::Sum, AggOp::Count));
    assert_ne!(sum.id, count.id, "ids are unique");
    // Both see c (0) and g (1) and bind their own `d` as 2: siblings, like two NACs.
    assert_eq!((sum.pattern.bound, count.pattern.bound), (2, 2));
    assert_eq!(
        (sum.pattern.edges[0].src, sum.pattern.edges[0].tgt),
        (VarId(2), VarId(1))
    );
    assert_eq!(count.pattern.conds.len(), 1);
    assert_eq!(count.body, None);
    // The sum's values are numbers (1..4 is numeric).
    assert!(matches!(
        sum.body.as_ref().map(|b| &b.kind),
        Some(ExprKind::ToInt(..))
    ));
    assert_eq!(nac.depth(), 3);
    assert_eq!(g.rules[0].lhs.depth(), 3);
    let Some(crate::rule::Condition::Not(inner)) = g.final_cond.as_deref() else {
        panic!()
    };
    let crate::rule::Condition::Exists(p) = &**inner else {
        panic!()
    };
    let max = aggregates_in(&p.conds[0])[0];
    // `max` keeps the value type: compared with 4, the 4 is the domain value.
    assert!(matches!(
        max.body.as_ref().map(|b| &b.kind),
        Some(ExprKind::Attr(..))
    ));
    let ExprKind::Binary(_, _, four) = &p.conds[0].kind else {
        panic!()
    };
    assert_eq!(four.kind, ExprKind::Const(Value::Val(3)));
}

#[test]
fn aggregates_are_typed() {
    let e = errors(
        "values A B\nnode Cell { val: value? }\nnode Group\nedge in: Cell -> Group\n\
         rule r { g: Group where sum(d.val for g <-in- d: Cell) > 1 }",
    );
    assert!(
        e.contains("5:29: error: `sum` adds ints: expected an int expression, found value (the values A B are not all numbers: `int(v)` gives a value's position, 1 for the first)"),
        "{e}"
    );
    let e = errors(&file4(
        "rule r { g: Group where min(d.val == 1 for g <-in- d: Cell) }",
    ));
    assert!(
        e.contains("6:29: error: `min` orders ints or values: expected an int or a value expression, found bool"),
        "{e}"
    );
    let e = errors(&file4(
        "rule r { g: Group where any(d.val for g <-in- d: Cell) }",
    ));
    assert!(
        e.contains("6:29: error: `any` tests a condition at each match: expected a comparison, found value"),
        "{e}"
    );
    let e = errors(&file4("rule r { g: Group where count(g <-in- d: Cell) }"));
    assert!(
        e.contains("error: a condition must be bool: expected a comparison, found int"),
        "{e}"
    );
    // `int(v)` makes values of any domain summable; min and max of values compare with values.
    ok("values A B\nnode Cell { val: value? }\nnode Group\nedge in: Cell -> Group\n\
        rule r { g: Group where sum(int(d.val) for g <-in- d: Cell) > 1 and max(d.val for g <-in- d: Cell) == B }");
}

#[test]
fn aggregates_see_enclosing_nodes_and_keep_their_own() {
    let e = errors(&file4(
        "rule r { c: Cell where count(c -in-> g: Group <-in- c: Cell) > 0 }",
    ));
    assert!(e.contains("6:53: error: duplicate node `c`"), "{e}");
    let e = errors(&file4(
        "rule r { c: Cell where count(c -in-> g: Group) > 0 and g.row > 1 }",
    ));
    assert!(
        e.contains("6:56: error: unknown node `g`: expected `c`"),
        "{e}"
    );
    let e = errors(&file4(
        "rule r { c: Cell where count(x -in-> g: Group) > 0 }",
    ));
    assert!(e.contains("6:30: error: unknown node `x`"), "{e}");
}

#[test]
fn aggregates_cannot_stand_in_generators() {
    let e = errors(&file4(
        "edges c -in-> d where count(e: Cell) > 1\nnode Cage { sum: int }\nk: Cage { sum = count(e: Cell) }",
    ));
    assert!(
        e.contains("6:23: error: `count(...)` cannot stand here: aggregates belong in rules (patterns, NACs, effects) and `final:`, expected an expression without one"),
        "{e}"
    );
    assert!(
        e.contains("8:17: error: `count(...)` cannot stand here"),
        "{e}"
    );
}
