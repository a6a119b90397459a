//! The whole-graph engine: states are host graphs, deduplicated by canonical form, with
//! rules applied by matching and a focus analysis that narrows expansion where sound.

pub mod apply;
pub mod canon;
pub mod engine;
pub mod graph_focus;
pub mod graph_space;

pub use engine::GraphEngine;
pub use graph_focus::GraphFocus;
pub use graph_space::GraphSpace;
