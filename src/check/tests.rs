//! Checker tests: the sudoku family end to end, then one test per diagnostic.

use super::*;
use crate::model::{BaseType, Value};
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
    assert_eq!(g.names[0], "r1c1");
    assert_eq!(g.names[16], "row1");
    assert_eq!(g.names[g.names.len() - 1], "centre");
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
