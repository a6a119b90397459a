//! What an edge between two cells means, asked of the rules themselves: whether they order
//! the values of its ends (an inequality), found by trying one placement each way.

use crate::explore::frontier::Frontier;
use crate::explore::successors::Successors;
use crate::explore::{Order, Space};
use crate::grammar::{Givens, Grammar};
use crate::graph::graph_space::GraphScratch;
use crate::graph::GraphSpace;
use crate::model::{NodeId, Value};
use crate::output::grid::cell_values;

/// How the rules order the values at the two ends of an edge `s -> t`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// `s` must hold less than `t`.
    Less,
    /// `s` must hold more than `t`.
    Greater,
}

/// Whether the rules order the ends of the edge from grid cell `s` to grid cell `t`
/// (indexes into the grid's cells): with `t` holding the largest value, can some rule
/// application place the smallest in `s`, and with `t` holding the smallest, the
/// largest? One yes and one no is an ordering; anything else is not. Two explorations
/// of one step each from the grid with one given.
pub fn ordering(grammar: &Grammar, s: usize, t: usize) -> Option<Ordering> {
    let d = grammar.domain.len();
    if d < 2 {
        return None;
    }
    let (lo, hi) = (0u16, (d - 1) as u16);
    let small_below = can_place(grammar, s, lo, t, hi)?;
    let large_above = can_place(grammar, s, hi, t, lo)?;
    match (small_below, large_above) {
        (true, false) => Some(Ordering::Less),
        (false, true) => Some(Ordering::Greater),
        _ => None,
    }
}

/// True when, from the empty grid with `t` holding `y`, one rule application leaves `s`
/// holding `x`. `None` when the grid has no such cells.
fn can_place(grammar: &Grammar, s: usize, x: u16, t: usize, y: u16) -> Option<bool> {
    let grid = grammar.grid.as_ref()?;
    let mut values = vec![None; grid.len()];
    *values.get_mut(t)? = Some(y);
    grid.cells.get(s)?;
    let givens = Givens {
        spans: vec![Default::default(); grid.len()],
        values,
    };
    let space = GraphSpace::new(grammar, grammar.start_graph(Some(&givens)));
    let first = space.initial()?;
    let mut pool = Frontier::new(Order::Bfs);
    let mut succ = Successors::collect(&mut pool);
    space.expand(&first, &mut GraphScratch::default(), &mut succ);
    Some(succ.into_items().iter().any(|next| {
        let graph = space.to_graph(next);
        cell_values(grammar, grid, &graph)[s] == Value::Val(x)
    }))
}

/// The grid index of a node, when it is a grid cell.
pub fn grid_index(grammar: &Grammar, n: NodeId) -> Option<usize> {
    grammar.grid.as_ref()?.cells.iter().position(|&c| c == n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grammar(nac: &str) -> Grammar {
        crate::load_str(
            "t.graft",
            &format!(
                "values 1..3
                node Cell {{ row: int, col: int, val: value? }}
                node Group
                edge in: Cell -> Group
                edge e: Cell -> Cell
                grid 1x3 of Cell
                groups rows
                r1c1 -e-> r1c2
                rule place(v: value) {{
                  c: Cell {{ val == none }}
                  not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
                  {nac}
                  set c.val = v
                }}"
            ),
        )
        .unwrap()
    }

    #[test]
    fn the_rules_decide_which_way_an_edge_orders() {
        let less = "not { c -e-> d: Cell { val <= v } } not { d: Cell { val >= v } -e-> c }";
        assert_eq!(ordering(&grammar(less), 0, 1), Some(Ordering::Less));
        let greater = "not { c -e-> d: Cell { val >= v } } not { d: Cell { val <= v } -e-> c }";
        assert_eq!(ordering(&grammar(greater), 0, 1), Some(Ordering::Greater));
        // Consecutive values (a Kropki white dot) are no ordering.
        let next = "not { c -e-> d: Cell { val != none and abs(val - v) != 1 } }";
        assert_eq!(ordering(&grammar(next), 0, 1), None);
        assert_eq!(ordering(&grammar(""), 0, 1), None);
    }
}
