//! What a grammar is, decided once for both engines: slot-filling, monotone, focus sound.
//!
//! [`analyse`] returns a fact sheet ([`Facts`]) whose every property is either established
//! or denied by a typed, spanned [`Refusal`]. The slot engine compiles from
//! [`slot_fill::SlotFill`]; the graph engine tabulates applications from
//! [`monotone::Monotone`]; both check blocking symmetry on their own relation with
//! [`symmetry::check_symmetric`], and `grafter check` prints the sheet.
//!
//! # Why focus expansion is sound
//!
//! Focus expansion branches, at each state, on the applications that consume one open
//! node (the focus: the one with the fewest). It finds exactly the final states of
//! `--expand all` when:
//!
//! 1. `final:` says no node is open (`not { n: T ... }`, alone or in an `and`);
//! 2. every rule consumes one open node `f` of its left side (`del f`, or `set f.a = e`
//!    where open means `a == none` and `e` is never none) and otherwise only creates nodes
//!    that cannot be open; its other left-side nodes are of types no rule creates or
//!    changes; it changes no edges;
//! 3. no NAC node can be bound to an open node (so a NAC match survives every rule
//!    application), NACs do not nest, and each NAC has at most one node (the witness) of a
//!    type some rule creates or fills;
//! 4. on the start graph, the open nodes have no edges when some rule deletes them (so
//!    deleting one cannot cut a path), and blocking is symmetric: for any two applications
//!    `u`, `t` enabled there (consuming different nodes), `u`'s result blocks `t` exactly
//!    when `t`'s result blocks `u`.
//!
//! Then (2, 3) an application never enables another and its effect does not depend on the
//! state; (3) a NAC match in a state uses at most one node that differs from the start
//! graph, made by one earlier application, so blocking is pairwise; with (4) the states
//! reachable are the pairwise unblocked sets of start-enabled applications, reachable in any
//! order. A final state (1) consumes every open node, among them the focus, by an
//! application enabled now; so branching on the focus's applications misses none, and a
//! focus with none proves the state dead. The same facts let a state's enabled
//! applications be computed from its parent's, in either expansion.
//!
//! Conditions 1 to 3 are properties of the grammar ([`monotone`]); condition 4 needs the
//! start graph and is checked by each engine on its relation. A slot grammar satisfies 2
//! and 3 by construction (a rule fills one empty slot; a NAC reads one slot, the witness,
//! compared with the placed value), so on the slot engine focus is sound when `final:` asks
//! every slot filled and the slot tables block symmetrically.

pub mod final_cond;
pub mod monotone;
pub mod open;
pub mod refusal;
pub mod slot_fill;
pub mod symmetry;

pub use monotone::Monotone;
pub use refusal::{Refusal, RefusalKind};
pub use slot_fill::SlotFill;

use crate::diag::Source;
use crate::grammar::Grammar;

/// The fact sheet of a grammar: each property, or the refusal that denies it.
pub struct Facts<'g> {
    /// The rules only fill slots, all the same way (the slot engine may still refuse the
    /// grammar for the size of its tables).
    pub slot_fill: Result<SlotFill<'g>, Refusal>,
    /// Conditions 1 to 3: rules consume open nodes and never enable one another.
    pub monotone: Result<Monotone<'g>, Refusal>,
}

impl Facts<'_> {
    /// The sheet `grafter check` prints: a line a property, `yes` or `no` with the
    /// refusal's place and reason. The rule shapes may fill slots while the slot engine
    /// still refuses the grammar when it compiles the NACs on the start graph; the engine
    /// line says so.
    pub fn sheet(&self, source: &Source) -> String {
        let line = |name: &str, refusal: Option<&Refusal>| match refusal {
            None => format!("{name}: yes\n"),
            Some(r) => format!("{name}: no ({})\n", r.located(source)),
        };
        line("slot-filling rule shapes", self.slot_fill.as_ref().err())
            + &line("monotone", self.monotone.as_ref().err())
    }
}

/// Decides what `g` is.
pub fn analyse(g: &Grammar) -> Facts<'_> {
    Facts {
        slot_fill: slot_fill::slot_fill(g),
        monotone: Monotone::analyse(g),
    }
}

#[cfg(test)]
mod tests;
