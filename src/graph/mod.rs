//! The whole-graph engine: states are host graphs, deduplicated by canonical form, with
//! rules applied by matching and, for monotone grammars, an application table that narrows
//! expansion to the focus where sound.

pub mod app_table;
pub mod apply;
pub mod canon;
pub mod engine;
pub mod graph_space;

pub use engine::GraphEngine;
pub use graph_space::GraphSpace;
