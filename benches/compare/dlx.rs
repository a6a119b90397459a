//! The reference counter: the exact cover matrix of a grammar's groups, solved by dancing
//! links (the `xcov` crate).
//!
//! The matrix is derived from the loaded grammar, not written by hand, so the reference
//! sees the same groups as grafter: every node of the `in` edges' target type is a group,
//! its members are the grid cells with an `in` edge to it. Columns: one per cell ("cell
//! filled") and one per (group, value) ("group holds value"); rows: the (cell, value) pairs
//! the givens allow. This is an exact cover only when every group has as many cells as
//! there are values, so that each group must hold every value once; that holds for every
//! sudoku-family file the benchmark uses (checked in [`Cover::from_grammar`]), but not for
//! anti-knight, futoshiki or other constraints that are not groups.

use std::collections::HashMap;

use grafter::Grammar;
use xcov::{DlxBuilder, ExactCoverProblem, MrvExactCoverSearch};

pub struct Cover {
    cells: usize,
    values: usize,
    groups: usize,
    /// The groups of each cell (grid order), ascending.
    groups_of: Vec<Vec<usize>>,
}

impl Cover {
    pub fn from_grammar(g: &Grammar) -> Result<Cover, String> {
        let grid = g.grid.as_ref().ok_or("the grammar has no grid")?;
        let label = g
            .types
            .find_label("in")
            .ok_or("the grammar has no `in` edges")?;
        let group_type = g.types.label(label).target;
        let index: HashMap<_, _> = grid
            .cells
            .iter()
            .enumerate()
            .map(|(i, &n)| (n, i))
            .collect();
        let values = g.domain.len();
        let mut groups_of = vec![Vec::new(); grid.len()];
        let mut groups = 0;
        for node in g.base.find_nodes() {
            if !g.types.is_subtype(g.base.ty(node), group_type) {
                continue;
            }
            let members: Vec<usize> = g
                .base
                .inc(node)
                .iter()
                .filter(|&&(l, _)| l == label)
                .filter_map(|(_, cell)| index.get(cell).copied())
                .collect();
            if members.len() != values {
                let name = g.names.get(node.index()).unwrap_or("?");
                return Err(format!(
                    "group {name} has {} cells for {values} values: not an exact cover",
                    members.len()
                ));
            }
            for c in members {
                groups_of[c].push(groups);
            }
            groups += 1;
        }
        Ok(Cover {
            cells: grid.len(),
            values,
            groups,
            groups_of,
        })
    }

    /// Counts the exact covers consistent with `givens` (one entry per cell), stopping at
    /// `cap` when given. Builds the matrix afresh: that is part of the work per puzzle.
    pub fn count(&self, givens: &[Option<u16>], cap: Option<u64>) -> u64 {
        let mut builder = DlxBuilder::new(self.cells + self.groups * self.values, 0);
        let mut row = Vec::new();
        for (cell, given) in givens.iter().enumerate() {
            for v in 0..self.values {
                if given.is_some_and(|x| usize::from(x) != v) {
                    continue;
                }
                // Items are numbered from 1; cells come first and groups ascend, so the row
                // is sorted as xcov requires.
                row.clear();
                row.push(cell + 1);
                row.extend(
                    self.groups_of[cell]
                        .iter()
                        .map(|&g| self.cells + g * self.values + v + 1),
                );
                builder.add_option(&row);
            }
        }
        let mut search = MrvExactCoverSearch::new(builder.build());
        let mut found = 0;
        // Each `search` call resumes the last and returns true on the next solution.
        while cap.is_none_or(|k| found < k) && search.search() {
            found += 1;
        }
        found
    }
}
