//! Graph conditions (`final:`) compiled to search plans and evaluated on a graph.

use crate::model::{Graph, TypeSystem};
use crate::rule::Condition;

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
        match self {
            CompiledCondition::Exists(plan) => {
                let mut binding = Vec::new();
                Matcher::new(types, graph, &[]).exists(plan, &mut binding)
            }
            CompiledCondition::Not(c) => !c.holds(types, graph),
            CompiledCondition::And(cs) => cs.iter().all(|c| c.holds(types, graph)),
            CompiledCondition::Or(cs) => cs.iter().any(|c| c.holds(types, graph)),
        }
    }
}
