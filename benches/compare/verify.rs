//! Checks a case's counts: grafter against the data's stated counts, its threaded run and
//! the reference against its single-threaded run, and which engines ran.

use crate::cases::{Case, Reference, Work};
use crate::table::Measured;

/// Every disagreement, one message each; empty when all agree.
pub fn verify(
    case: &Case,
    first: Option<usize>,
    grafter: &Measured,
    threaded: Option<&Measured>,
    reference: Option<&Measured>,
) -> Vec<String> {
    let name = case.name;
    let mut bad = Vec::new();
    let grammar = case.load_grammar();
    let puzzles = case.load_puzzles(&grammar, first);
    if grafter.counts.len() != puzzles.len() {
        let n = grafter.counts.len();
        bad.push(format!(
            "{name}: grafter counted {n} puzzles of {}",
            puzzles.len()
        ));
    }
    let cap = (case.work == Work::UpToTwo).then_some(2u64);
    for (i, (&got, want)) in grafter.counts.iter().zip(&puzzles.expected).enumerate() {
        let Some(want) = want.map(|w| cap.map_or(w, |c| w.min(c))) else {
            continue;
        };
        if got != want {
            bad.push(format!(
                "{name}: puzzle {}: grafter {got}, the data {want}",
                i + 1
            ));
        }
    }
    if let Some(want) = case.states {
        if grafter.states != want {
            bad.push(format!(
                "{name}: states: grafter {}, the data {want}",
                grafter.states
            ));
        }
    }
    let reference_engine = match case.reference {
        Reference::GraphEngine => "graph",
        _ => "dlx",
    };
    let others = [
        ("grafter on threads", "slot", threaded),
        ("reference", reference_engine, reference),
    ];
    if grafter.engine != "slot" {
        bad.push(format!(
            "{name}: grafter ran on the {} engine, not slot",
            grafter.engine
        ));
    }
    for (who, engine, other) in others {
        let Some(other) = other else { continue };
        if other.engine != engine {
            bad.push(format!(
                "{name}: the {who} ran on {}, not {engine}",
                other.engine
            ));
        }
        if let Some(i) = (0..grafter.counts.len().max(other.counts.len()))
            .find(|&i| grafter.counts.get(i) != other.counts.get(i))
        {
            bad.push(format!(
                "{name}: puzzle {}: grafter {:?}, {who} {:?}",
                i + 1,
                grafter.counts.get(i),
                other.counts.get(i)
            ));
        }
        let counts_states = case.work == Work::ExpandAll && engine != "dlx";
        if counts_states && other.states != grafter.states {
            bad.push(format!(
                "{name}: states: grafter {}, {who} {}",
                grafter.states, other.states
            ));
        }
    }
    bad
}
