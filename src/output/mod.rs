//! Printing what grafter found: grids, node lists, JSON lines, Graphviz DOT.

pub mod candidates;
pub mod dot;
pub mod fpuzzles;
pub mod grid;
pub mod json;
pub mod text;

pub use dot::to_dot;
pub use grid::{draw_grid, grid_line, grid_rows};
