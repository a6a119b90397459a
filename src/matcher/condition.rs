//! Graph conditions (`final:`) compiled to search plans and evaluated on a graph.

use crate::model::{Graph, TypeSystem};
use crate::rule::Condition;

use super::index::{GraphIndex, LookupKey};
use super::plan::SearchPlan;
use super::search::Matcher;

#[derive(Clone, Debug)]
pub enum CompiledCondition {
    Exists(SearchPlan),
    Not(Box<CompiledCondition>),
    And(Vec<CompiledCondition>),
    Or(Vec<CompiledCondition>),
}

impl CompiledCondition {
    pub fn compile(c: &Condition) -> CompiledCondition {
        match c {
            Condition::Exists(p) => CompiledCondition::Exists(SearchPlan::compile(p)),
            Condition::Not(c) => CompiledCondition::Not(Box::new(Self::compile(c))),
            Condition::And(cs) => CompiledCondition::And(cs.iter().map(Self::compile).collect()),
            Condition::Or(cs) => CompiledCondition::Or(cs.iter().map(Self::compile).collect()),
        }
    }

    pub fn holds(&self, types: &TypeSystem, graph: &Graph) -> bool {
        self.holds_in(types, graph, None)
    }

    /// As [`Self::holds`], using `index` (built for `graph`) when given.
    pub fn holds_in(&self, types: &TypeSystem, graph: &Graph, index: Option<&GraphIndex>) -> bool {
        match self {
            CompiledCondition::Exists(plan) => {
                let mut binding = Vec::new();
                let m = Matcher::new(types, graph, &[]);
                let m = match index {
                    Some(x) => m.with_index(x),
                    None => m,
                };
                m.exists(plan, &mut binding)
            }
            CompiledCondition::Not(c) => !c.holds_in(types, graph, index),
            CompiledCondition::And(cs) => cs.iter().all(|c| c.holds_in(types, graph, index)),
            CompiledCondition::Or(cs) => cs.iter().any(|c| c.holds_in(types, graph, index)),
        }
    }

    /// The lookups its plans use (see [`SearchPlan::lookup_keys`]).
    pub fn lookup_keys(&self, out: &mut Vec<LookupKey>) {
        match self {
            CompiledCondition::Exists(plan) => plan.lookup_keys(out),
            CompiledCondition::Not(c) => c.lookup_keys(out),
            CompiledCondition::And(cs) | CompiledCondition::Or(cs) => {
                cs.iter().for_each(|c| c.lookup_keys(out))
            }
        }
    }
}
