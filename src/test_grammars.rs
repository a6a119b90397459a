//! Small grammars the unit tests of several modules share.

/// The 3x3 Latin square: rows and columns hold 1..3 once; 12 solutions.
pub const LATIN_3X3: &str = r#"
    values 1..3
    node Cell { row: int, col: int, val: value? }
    node Group
    edge in: Cell -> Group
    grid 3x3 of Cell
    groups rows, columns
    rule place(v: value) {
      c: Cell { val == none }
      not { c -in-> g: Group <-in- d: Cell { val == v } }
      set c.val = v
    }
    final: not { c: Cell { val == none } }
"#;
