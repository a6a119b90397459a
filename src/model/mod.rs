//! The host side of the engine: ids, values, the type graph and host graphs.

pub mod graph;
pub mod grouped;
pub mod ids;
pub mod names;
pub mod types;
pub mod value;

pub use graph::Graph;
pub use grouped::grouped;
pub use ids::{AttrId, LabelId, NodeId, NodeTypeId, VarId};
pub use names::NodeNames;
pub use types::{AttrDef, AttrType, BaseType, EdgeLabel, NodeType, TypeSystem};
pub use value::{Domain, DomainValue, Value};
