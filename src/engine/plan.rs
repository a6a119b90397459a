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
    /// The exploration order, as asked.
    pub order: Order,
    /// Which cell to branch on, the value order and restarts, as asked.
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

#[cfg(test)]
mod tests {
    use crate::engine::Engine;
    use crate::explore::config::{Config, EngineChoice, Expand};
    use crate::explore::policy::{Focus, Policy};

    use crate::test_grammars::LATIN_3X3 as LATIN;

    #[test]
    fn the_plan_is_what_the_run_reports() {
        let grammar = crate::load_str("latin.graft", LATIN).unwrap();
        let engine = Engine::new(&grammar);
        let colouring = Policy {
            focus: Focus::Dsatur,
            ..Policy::default()
        };
        let configs = [
            Config::default(),
            Config::default().with_expand(Expand::All).with_threads(3),
            Config::default().with_engine(EngineChoice::Graph),
            Config::default()
                .with_engine(EngineChoice::Graph)
                .with_policy(colouring),
        ];
        for config in configs {
            let plan = engine.plan(&config);
            let report = engine.solve(None, &config, None).unwrap();
            assert_eq!(report.counts.solutions, 12);
            assert_eq!(
                (report.engine, report.expand, &report.fallback),
                (plan.engine, plan.expand, &plan.fallback),
                "{config:?}"
            );
        }
    }

    #[test]
    fn the_plan_decides_engine_expansion_and_threads() {
        let grammar = crate::load_str("latin.graft", LATIN).unwrap();
        let engine = Engine::new(&grammar);
        let plan = engine.plan(&Config::default());
        assert_eq!(
            (plan.engine, plan.expand, plan.threads),
            ("slot", Expand::Focus, 1)
        );
        assert_eq!(plan.fallback, None);
        let plan = engine.plan(&Config::default().with_threads(3));
        assert_eq!(plan.threads, 3);
        let colouring = Policy {
            focus: Focus::Dsatur,
            ..Policy::default()
        };
        let forced = Config::default()
            .with_engine(EngineChoice::Graph)
            .with_policy(colouring);
        let plan = engine.plan(&forced);
        assert_eq!((plan.engine, plan.expand), ("graph", Expand::All));
        assert_eq!(
            plan.fallback.as_deref(),
            Some("--engine graph branches on the cell with the fewest applications only")
        );
    }
}
