//! What a grammar is, decided once for both engines: slot-filling, monotone, focus sound.
//!
//! [`analyse`] returns a fact sheet ([`Facts`]) whose every property is either established
//! or denied by a typed, spanned [`Refusal`]. The slot engine compiles from
//! [`slot_fill::SlotFill`]; the graph engine tabulates applications from
//! [`monotone::Monotone`]; both check blocking symmetry on their own relation (the graph
//! engine with [`symmetry::check_symmetric`], the slot engine a pair of slots' tables at a
//! time), and `grafter check` prints the sheet.
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
//! ## NACs with aggregates
//!
//! A NAC whose condition holds an aggregate over cells that rules fill (a killer cage:
//! `not { c -cage-> k: Cage where sum(d.val for k <-cage- d: Cell) + v > k.sum or ... }`)
//! breaks condition 3: its match reads many filled cells, so blocking is not pairwise. Such
//! a NAC is accepted ([`aggregate`]) when:
//!
//! 5. one rule fills the open nodes (by `set`; every node of the open type is open until
//!    filled, as `final: not { c: T { val == none } }` says), and the NAC
//!    - binds only nodes no rule changes (`k`), none of which could be a left-side node, and
//!      its edges join the filled cell `c` to them and them to each other; it has no NAC;
//!    - reads the rule's parameters and left side only through `c`'s share of a sum (below);
//!    - holds aggregates over cells that rules fill only of one shape: one cell `d`, joined
//!      to the NAC's nodes by exactly the edges that join `c` to them (so the cells `d`
//!      ranges over are `c`'s *group* without `c`, and every cell of the group binds the same
//!      `k`), conditions and expression over `d.val` and constants;
//!    - after *completion* is a condition `Φ` on the group's content once `c` holds its
//!      value: a `count` is that of the whole group less `c`'s own count, which must not
//!      depend on `c`'s value; a `sum` must be followed by `+ X` where `X` is `c`'s share (the
//!      expression with `d.val` read as the value placed, `sum(d.val for ...) + v`); `min`,
//!      `max`, `all`, `any` must be ones `c` cannot change (`all(val != none for ...)`);
//!    - `Φ` only turns from false to true as cells fill (the group's cells fill; filled
//!      cells never change): each aggregate's direction follows from its conditions and
//!      expression evaluated on an empty cell and on a cell holding each value (a sum of
//!      values that are all ≥ 0 only grows, a count of empty cells only shrinks, a `max`
//!      only grows), counts and sums over the group added with integer factors move as
//!      the same combination of one cell's shares does (`sum(...) + v + 9 * count(empty
//!      cells)` only falls), comparisons and `and`/`or` combine directions, and `F and R`,
//!      where `F` says the group is full (`count(... { val == none }) == 0`), only grows
//!      whatever `R` is, since once `F` holds nothing `R` reads changes again. Values lie
//!      within ±2^20 and factors within ±2^10, so sums cannot overflow to none.
//!
//! Then an application `a` (filling `c` in state `S`) is blocked by the NAC exactly when
//! `Φ_k` holds on the content of group `k` in `S` plus `a`, for some `k` of `c`. Hence:
//!
//! - (monotone) as `S` grows, that content only gains filled cells, so `a`, once blocked,
//!   stays blocked, and no application enables another (condition 3's conclusion);
//! - (decided by the final content) in a final state `F` reached by any order, every cell
//!   of `k` is filled (final needs it). Let `z` be the last cell of `k` filled on the way:
//!   it was applied in a state where all others held their final values, so `Φ_k` of `F`'s
//!   content was false. For every application `a` of `F` whose cell is in `k`, `a` in the
//!   state `F` without `a` sees that same content: it is not blocked there, and by
//!   monotonicity in no state on the way to `F` in any order.
//!
//! With the pairwise NACs' symmetry (condition 4: of two applications of `F`, the later was
//! not blocked by the earlier, so neither blocks the other), every application of `F` is
//! unblocked in every state made of `F`'s other applications: the applications of `F` can
//! be applied in any order, among them the focus's first. So branching on the focus misses
//! no final state, as above. A state's enabled applications are its parent's, less those
//! its application disables pairwise and those whose aggregate NACs now match (checked anew
//! for the applications whose groups hold the filled cell).
//!
//! Conditions 1 to 3 and 5 are properties of the grammar ([`monotone`], [`aggregate`]);
//! condition 4 needs the start graph and is checked by each engine on its relation. A slot grammar satisfies 2
//! and 3 by construction (a rule fills one empty slot; a NAC reads one slot, the witness,
//! compared with the placed value), so on the slot engine focus is sound when `final:` asks
//! every slot filled and the slot tables block symmetrically.

pub mod aggregate;
pub mod final_cond;
pub mod forbid;
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
    /// Whether the `forbid` patterns only match more as cells fill; `None` without any.
    pub forbid: Option<Result<(), Refusal>>,
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
        let forbid = match &self.forbid {
            Some(f) => line("forbidden patterns monotone", f.as_ref().err()),
            None => String::new(),
        };
        line("slot-filling rule shapes", self.slot_fill.as_ref().err())
            + &line("monotone", self.monotone.as_ref().err())
            + &forbid
    }
}

/// Decides what `g` is.
pub fn analyse(g: &Grammar) -> Facts<'_> {
    Facts {
        slot_fill: slot_fill::slot_fill(g),
        monotone: Monotone::analyse(g),
        forbid: (!g.forbids.is_empty()).then(|| forbid::check(g)),
    }
}

#[cfg(test)]
mod tests;
