//! Checker tests for shaped grids, sub-grid groups and lines: what they make, and one test
//! per diagnostic.

use super::tests::{errors, ok};
use super::*;
use crate::model::NodeId;

/// Two 4x4 Sudokus sharing a box: the smallest samurai-like shape.
const TWIN: &str = r#"
values 1..4
node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group
grid 6x6 of Cell shape {
  ####..
  ####..
  ######
  ######
  ..####
  ..####
}
groups rows, columns, boxes 2x2 in block 4x4 at r1c1 r3c3
start {
  1 . . . - -
  . . . . - -
  . . . . . .
  . . . . . .
  - - . . . .
  - - . . . 4
}
"#;

const HEAD: &str = "values 1..4\nnode Cell { row: int, col: int, val: value? }\nnode Group\nedge in: Cell -> Group\n";

fn with_head(body: &str) -> String {
    format!("{HEAD}{body}\n")
}

impl Grammar {
    fn id(&self, name: &str) -> NodeId {
        let i = self.names.iter().position(|n| n == name).expect(name);
        NodeId::from_index(i)
    }

    /// The names of the cells with an `in` edge to the group called `name`.
    fn members(&self, name: &str) -> Vec<&str> {
        let g = self.id(name);
        let mut m: Vec<&str> = self
            .base
            .inc(g)
            .iter()
            .map(|&(_, c)| &self.names[c.index()])
            .collect();
        m.sort();
        m
    }
}

#[test]
fn a_shaped_grid_has_cells_at_the_marks_only() {
    let g = ok(TWIN);
    let grid = g.grid.as_ref().unwrap();
    assert_eq!(
        (grid.rows, grid.cols, grid.area(), grid.len()),
        (6, 6, 36, 28)
    );
    assert!(grid.has_holes());
    assert!(grid.is_hole(4) && grid.is_hole(30) && !grid.is_hole(0));
    assert_eq!(grid.cell_at(0, 4), None);
    assert_eq!(grid.cell_at(2, 5), Some(g.id("r3c6")));
    assert!(!g.names.iter().any(|n| n == "r1c5" || n == "r6c1"));
    // The givens are per cell: the block's tokens at holes are dropped.
    let start = g.start.as_ref().unwrap();
    assert_eq!(start.values.len(), 28);
    assert_eq!(start.values[0], g.domain.find("1"));
    assert_eq!(start.values[27], g.domain.find("4"));
    assert_eq!(start.values.iter().flatten().count(), 2);
}

#[test]
fn sub_grid_groups_are_named_after_their_anchor_and_shared_ones_kept_once() {
    let g = ok(TWIN);
    // 2 x (4 rows + 4 columns + 4 boxes), less the box both sub-grids have.
    let group = g.types.find_node("Group").unwrap();
    assert_eq!(
        g.base
            .find_nodes()
            .filter(|&n| g.base.ty(n) == group)
            .count(),
        23
    );
    assert_eq!(g.members("r1c1_row3"), ["r3c1", "r3c2", "r3c3", "r3c4"]);
    assert_eq!(g.members("r3c3_row1"), ["r3c3", "r3c4", "r3c5", "r3c6"]);
    assert_eq!(g.members("r3c3_col4"), ["r3c6", "r4c6", "r5c6", "r6c6"]);
    assert_eq!(g.members("r1c1_box4"), ["r3c3", "r3c4", "r4c3", "r4c4"]);
    assert!(!g.names.iter().any(|n| n == "r3c3_box1"));
    // Each cell of the shared box is in one box group.
    let boxes = g
        .base
        .out(g.id("r3c3"))
        .iter()
        .filter(|&&(_, t)| g.names[t.index()].contains("box"))
        .count();
    assert_eq!(boxes, 1);
    assert_eq!(g.grid.as_ref().unwrap().boxes, Some((2, 2)));
}

#[test]
fn the_name_of_a_group_kept_once_still_names_it() {
    let g = ok(&format!(
        "{TWIN}node Tag\nedge tag: Group -> Tag\nt: Tag\nr3c3_box1 -tag-> t"
    ));
    let t = g.id("t");
    assert_eq!(
        g.base.inc(t),
        [(g.types.find_label("tag").unwrap(), g.id("r1c1_box4"))]
    );
}

#[test]
fn a_lattice_takes_every_step_th_cell_or_blocks_of_cells() {
    let g = ok(&with_head(
        "grid 6x6 of Cell\ngroups rows, columns in lattice 2x2 at r2c2 step 3",
    ));
    assert_eq!(g.members("lattice_r2c2_row1"), ["r2c2", "r2c5"]);
    assert_eq!(g.members("lattice_r2c2_col2"), ["r2c5", "r5c5"]);
    let g = ok(&with_head(
        "grid 8x8 of Cell\ngroups rows, boxes 2x2 in lattice 4x4 at r2c2 step 4 blocks 2x2",
    ));
    assert_eq!(
        g.members("lattice_r2c2_row2"),
        ["r3c2", "r3c3", "r3c6", "r3c7"]
    );
    assert_eq!(
        g.members("lattice_r2c2_box4"),
        ["r6c6", "r6c7", "r7c6", "r7c7"]
    );
    // A lattice's boxes are not the grid's: they draw no separators.
    assert_eq!(g.grid.as_ref().unwrap().boxes, None);
    let g = ok(&with_head(
        "grid 4x6 of Cell\ngroups rows in lattice 2x2 at r1c1 step 3x5",
    ));
    assert_eq!(g.members("lattice_r1c1_row2"), ["r4c1", "r4c6"]);
}

#[test]
fn regions_skip_dots_and_may_be_laid_over_a_block() {
    let g = ok(&with_head(
        "grid 4x4 of Cell shape {\n##..\n####\n####\n####\n}\ngroups regions {\nAA..\nAB..\nBBC.\n..CC\n}\ngroups regions { XY YX } in block 2x2 at r3c3",
    ));
    assert_eq!(g.members("region_A"), ["r1c1", "r1c2", "r2c1"]);
    assert_eq!(g.members("region_C"), ["r3c3", "r4c3", "r4c4"]);
    assert_eq!(g.members("r3c3_region_X"), ["r3c3", "r4c4"]);
}

#[test]
fn lines_make_a_node_membership_edges_and_next_edges() {
    let g = ok(&with_head(
        "node Thermo\nedge on: Cell -> Thermo\nedge up: Cell -> Cell\ngrid 4x4 of Cell\ngroups rows via in\nline t1: Thermo = r1c1 r1c2 r2c2 next up\nline t2: Thermo = r1c2 r1c3",
    ));
    let (on, up) = (
        g.types.find_label("on").unwrap(),
        g.types.find_label("up").unwrap(),
    );
    let t1 = g.id("t1");
    let ins: Vec<NodeId> = g.base.inc(t1).iter().map(|&(_, c)| c).collect();
    assert_eq!(ins, [g.id("r1c1"), g.id("r1c2"), g.id("r2c2")]);
    assert!(g.base.inc(t1).iter().all(|&(l, _)| l == on));
    let ups: Vec<(NodeId, NodeId)> = g
        .base
        .find_edges()
        .filter(|&(_, l, _)| l == up)
        .map(|(s, _, t)| (s, t))
        .collect();
    assert_eq!(
        ups,
        [(g.id("r1c1"), g.id("r1c2")), (g.id("r1c2"), g.id("r2c2"))]
    );
    // r1c2 is on both lines.
    assert_eq!(
        g.base
            .out(g.id("r1c2"))
            .iter()
            .filter(|&&(l, _)| l == on)
            .count(),
        2
    );
}

#[test]
fn the_expanded_shaped_file_checks_to_the_same_start_graph() {
    let text = TWIN
        .replace(
            "edge in: Cell -> Group",
            "edge in: Cell -> Group\nnode Thermo\nedge on: Cell -> Thermo\nedge up: Cell -> Cell",
        )
        .replace(
            "at r1c1 r3c3",
            "at r1c1 r3c3 via in\nline t: Thermo = r1c1 r2c1 next up",
        );
    let g = ok(&text);
    let printed = print_expanded(&g);
    let h = ok(&printed);
    assert_eq!(g.names, h.names);
    assert_eq!(g.base, h.base, "{printed}");
    let (a, b) = (g.grid.as_ref().unwrap(), h.grid.as_ref().unwrap());
    assert_eq!((&a.cells, &a.layout), (&b.cells, &b.layout));
    assert_eq!(
        g.start.as_ref().unwrap().values,
        h.start.as_ref().unwrap().values
    );
    assert!(printed.contains("shape {\n  ####..\n"), "{printed}");
    assert!(printed.contains("  - - . . . 4\n"), "{printed}");
}

#[test]
fn shape_diagnostics() {
    let e = errors(&with_head("grid 2x2 of Cell shape { #x\n## }"));
    assert!(
        e.contains("5:27: error: unexpected character `x` in a grid shape: expected `#` (a cell) or `.` (a hole)"),
        "{e}"
    );
    let e = errors(&with_head("grid 2x2 of Cell shape { ### }"));
    assert!(
        e.contains(
            "error: grid shape has 3 positions, expected 4 (one `#` or `.` for each of 2x2)"
        ),
        "{e}"
    );
    let e = errors(&with_head("grid 1x2 of Cell shape { .. }"));
    assert!(e.contains("grid shape has no cell"), "{e}");
    let e = errors(&with_head(
        "a: Cell { row = 1, col = 1 }\ngrid 1x2 = a b shape { #. }",
    ));
    assert!(
        e.contains("the shape of grid 1x2 has 1 cells: expected a node for each, found 2"),
        "{e}"
    );
    let e = errors(&with_head(
        "grid 2x2 of Cell shape { #. ## }\nstart { 1 2 3 }",
    ));
    assert!(
        e.contains("start block has 3 cells, expected 4 (one per position, holes included)"),
        "{e}"
    );
}

#[test]
fn shapes_over_holes_name_the_hole() {
    let e = errors(&with_head(
        "grid 2x2 of Cell shape { #. ## }\ngroups rows, columns",
    ));
    assert!(
        e.contains("group `row1` would include r1c2, a hole of the grid's shape"),
        "{e}"
    );
    assert!(e.contains("group `col2` would include r1c2"), "{e}");
    // One error per shape: row2 and col1 have no hole, the other rows are not reported.
    let e = errors(&with_head(
        "grid 3x2 of Cell shape { #. #. ## }\ngroups rows",
    ));
    assert_eq!(e.matches("error:").count(), 1, "{e}");
    // A shape with the wrong size is reported once, not once per sub-grid.
    let e = errors(&with_head(
        "grid 4x4 of Cell\ngroups boxes 2x2 in block 3x3 at r1c1 r2c2",
    ));
    assert_eq!(e.matches("do not tile").count(), 1, "{e}");
    let e = errors(&with_head(
        "grid 2x2 of Cell shape { #. ## }\ngroup g = r1c1 r1c2\ngroup w = block 2x2 at r1c1",
    ));
    assert!(
        e.contains("6:16: error: `r1c2` is a hole of the grid's shape: expected a cell"),
        "{e}"
    );
    assert!(e.contains("group `w` would include r1c2"), "{e}");
    let e = errors(&with_head(
        "grid 2x2 of Cell shape { #. ## }\ngroups regions { A A B B }",
    ));
    assert!(
        e.contains("group `region_A` would include r1c2, a hole of the grid's shape"),
        "{e}"
    );
    let e = errors(&with_head(
        "grid 2x2 of Cell shape { #. ## }\ngroups rows in block 1x1 at r1c2",
    ));
    assert!(e.contains("`r1c2` is a hole of the grid's shape"), "{e}");
}

#[test]
fn sub_grid_diagnostics() {
    let e = errors(&with_head(
        "grid 4x4 of Cell\ngroups rows in block 3x3 at r1c1 r2c3",
    ));
    assert!(
        e.contains("6:34: error: block 3x3 at r2c3 runs off the 4x4 grid (to r4c5): expected it to fit inside"),
        "{e}"
    );
    let e = errors(&with_head(
        "grid 4x4 of Cell\ngroups boxes 2x2 in block 3x3 at r1c1",
    ));
    assert!(
        e.contains("boxes 2x2 do not tile the 3x3 block: expected box sides that divide 3 rows and 3 columns"),
        "{e}"
    );
    let e = errors(&with_head(
        "grid 8x8 of Cell\ngroups rows in lattice 2x2 at r1c1 step 2 blocks 3x3",
    ));
    assert!(
        e.contains("lattice step 2x2 with blocks 3x3: expected blocks of at least one cell and a step at least as large"),
        "{e}"
    );
    let e = errors(&with_head(
        "a: Group\ngrid 4x4 of Cell\ngroups rows in block 2x2 at a",
    ));
    assert!(e.contains("`a` is not a grid cell"), "{e}");
    let e = errors(&with_head(
        "grid 4x4 of Cell\ngroups rows in block 4x4 at r1c1\ngroups rows in block 4x4 at r1c1",
    ));
    assert!(e.contains("duplicate node `r1c1_row1`"), "{e}");
}

#[test]
fn line_diagnostics() {
    let head = with_head("node T\nedge on: Cell -> T\nedge up: Cell -> Cell\ngrid 4x4 of Cell");
    let e = errors(&format!("{head}line t: T = r1c1 r1c2 r1c1"));
    assert!(
        e.contains("`r1c1` is twice on line `t`: expected each cell once"),
        "{e}"
    );
    let e = errors(&format!("{head}line t: Group = r1c1 r5c1"));
    assert!(e.contains("unknown node `r5c1`"), "{e}");
    let e = errors(&format!("{head}node U\nline t: U = r1c1"));
    assert!(
        e.contains("no edge label leads from `Cell` to `U`: expected a declaration like `edge on: Cell -> U`"),
        "{e}"
    );
    let e = errors(&format!("{head}edge on2: Cell -> T\nline t: T = r1c1"));
    assert!(
        e.contains(
            "several edge labels lead from `Cell` to `T` (`on` or `on2`): expected `via LABEL`"
        ),
        "{e}"
    );
    let e = errors(&format!("{head}line t: T = r1c1 r1c2 next in"));
    assert!(e.contains("edge `in` needs a `Group` as its target"), "{e}");
    let e = errors(&format!(
        "{head}node V {{ n: int }}\nedge onv: Cell -> V\nline t: V = r1c1"
    ));
    assert!(
        e.contains("lines of type `V` start with every attribute none"),
        "{e}"
    );
}

#[test]
fn the_new_words_stay_names_elsewhere() {
    // `shape`, `line`, `next`, `step`, `lattice`, `blocks` and `in` are no keywords.
    let g = ok("values 1..2\nnode shape { val: value? }\nnode line\nedge in: shape -> line\nedge next: shape -> shape\nstep: shape\nlattice: shape\nblocks: line\ngrid 1x2 = step lattice\ngroups rows via in\nline l: line = step lattice next next\nstep -next-> lattice");
    // Two `in` edges to row1 and two to the line (the one label from `shape` to `line`),
    // and one `next` edge, which the hand-written one repeats.
    assert_eq!(g.base.edge_count(), 2 + 2 + 1);
}
