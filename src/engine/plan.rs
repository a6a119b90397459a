//! What a run will do, decided once from the grammar and the configuration: the engine,
//! the expansion (with the reason it fell back), the threads and the policy.

use crate::explore::config::{Config, Expand, Order};
use crate::explore::policy::Policy;

/// The decisions for a run, as [`super::Engine::plan`] takes them and the report repeats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    /// `slot` or `graph`.
    pub engine: &'static str,
    /// The expansion the run uses: `--expand` as asked, or `all` where focus is unsound.
    pub expand: Expand,
    /// Why `--expand focus` fell back to `all`, when it did.
    pub fallback: Option<String>,
    /// Worker threads for one run, at least 1 (1: this thread only).
    pub threads: usize,
    pub order: Order,
    pub policy: Policy,
}

impl Plan {
    /// Falls back to `--expand all` for `why`. Whole graphs call this a second time, once
    /// the start graph shows the rules' focus is unsound on it; nothing else re-decides.
    pub fn fall_back(&mut self, why: String) {
        self.expand = Expand::All;
        self.fallback = Some(why);
    }

    /// `config` as the plan settled it: the expansion and threads the run follows.
    pub fn config(&self, config: &Config) -> Config {
        Config {
            expand: self.expand,
            threads: self.threads,
            ..*config
        }
    }
}
