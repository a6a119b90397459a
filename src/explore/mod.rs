//! Exploring a state space: one loop with an injected frontier (stack or queue), an exact
//! visited set where states can repeat, limits, and the report.

pub mod batch;
pub mod config;
pub mod explorer;
pub mod frontier;
pub mod halt;
pub mod memory;
pub mod ordered;
pub mod parallel;
pub mod policy;
pub mod pool;
pub mod progress;
pub mod report;
pub mod restarts;
pub mod space;
pub mod store;
pub mod successors;
pub mod trail;

pub use batch::{chunk_size, run_batch};
pub use config::{resolve_threads, Config, EngineChoice, Expand, Limits, Order};
pub use explorer::explore;
pub use ordered::{ordered_jobs, Event};
pub use policy::{Focus, Policy, ValueOrder};
pub use progress::Progress;
pub use report::{Counts, Report, StopReason};
pub use space::{Expansion, Space};
pub use successors::Successors;
