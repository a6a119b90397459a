//! Matching patterns in host graphs: search plans compiled once per pattern, backtracking
//! search with injective bindings, NACs as "no extension exists", regular paths.

pub mod condition;
pub mod fold;
pub mod index;
pub mod path;
pub mod plan;
pub mod search;

pub use condition::CompiledCondition;
pub use fold::{AggPlan, Folds};
pub use index::{GraphIndex, LookupKey, SharedReach};
pub use plan::SearchPlan;
pub use search::{BindingEnv, Matcher, SearchPoll, UNBOUND};
