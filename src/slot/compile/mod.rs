//! Recognises grammars whose rules only fill slots and compiles them to a [`SlotModel`].
//!
//! A slot is a value some rule gives a start-graph cell once and never changes. A rule
//! fills a slot in one of two ways: it sets one attribute of its cell `c` and requires that
//! attribute to be `none` (`set c.val = ...`), or it deletes `c` and creates a node in its
//! place whose one value attribute holds the value (`del c` + `new m: T { val = ... }`, the
//! seed's first encoding). Its other left-side nodes (a `Val` node the value is read from)
//! must be static: no rule changes them and the rule reads none of their changing
//! attributes. The value placed depends only on the parameter and static attributes; the
//! NACs read one changing value each (the witness), compared with the parameter, constants
//! and static attributes of any node (the left side's, or the NAC's own: a neighbour's bar,
//! a line's number of empty plots). So the graph structure is shared by all states and only
//! slot values vary; a created node is identified by its cell, which the compiler checks
//! (two cells must not be replaced by indistinguishable nodes).
//!
//! Each NAC then becomes a static relation "placing x in c is blocked when witness d holds
//! y" (tables `y -> mask of x`, one per tuple of the static attributes its conditions
//! read), found by matching the NAC's structure once on the start graph (for replacements,
//! with one stand-in for each cell's future node). The relation is stored through hubs: a
//! hub has writers (witness slots), readers (slots it blocks) and a table; its mask is the
//! union of the table rows of its writers' values. Where the NAC has a node g such that "c
//! reaches g" and "g reaches d" factor the NAC's matches of one table exactly (a group
//! node), one hub per g serves all its cells; otherwise each witness is its own hub. Either
//! way the relation is exact: the factorisation is checked against the full list of NAC
//! matches, and each table against every (cell, value) the rule can place.
//!
//! The steps, one file each: `recognise` (is every rule a slot fill), `instances`
//! (the slots and what each rule can place there), `nac` (NAC tables) and `hubs`; `star`
//! makes the all-different NAC's table and hubs straight from the group nodes, as `nac`
//! and `hubs` would from its matches. For batches of layered puzzles, `fixed` records what
//! no layer can change, and `narrow` tells when a puzzle's layers only take values away, so
//! that it runs on the rule file's model, `regroup` when they only add groups to an
//! all-different NAC, whose hubs are then added to the rule file's model, and `retable`
//! when they only set marks that NACs read, whose hubs are then tabled from the marks.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::BTreeSet;

use rustc_hash::FxHashMap;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::analysis::slot_fill::{not_slot, slot_fill, Target};
use crate::analysis::{Monotone, Refusal};
use crate::grammar::Grammar;
use crate::matcher::{GraphIndex, Matcher, SearchPlan};
use crate::model::{AttrId, Graph, NodeId, NodeTypeId, TypeSystem, VarId};
use crate::rule::{Expr, Pattern, Rule};

use super::model::SlotModel;
use super::shared_ground::GroundCache;
use super::solver::WORD_BITS;
use instances::{replacement, Instances};
use recognise::{check_givens, var_type};
use tuples::{ByLeftSide, Tuples};

mod fixed;
mod group;
mod hubs;
mod instances;
mod kept;
mod marks;
mod nac;
mod narrow;
mod recognise;
mod regroup;
mod remainder;
mod retable;
mod star;
mod tuples;

pub use fixed::FixedNacs;
pub use instances::slot_values;
pub use marks::PuzzleMarks;
pub use narrow::{Narrowing, Removed};
pub use regroup::Regrouping;
pub use retable::Retabling;

/// An attribute identified by the type that declares it, so that reads through a subtype
/// and writes through a supertype meet.
type AttrKey = (NodeTypeId, AttrId);

fn attr_key(types: &TypeSystem, mut ty: NodeTypeId, attr: AttrId) -> AttrKey {
    while let Some(p) = types.node(ty).parent {
        if types.node(p).attrs.len() > attr.index() {
            ty = p;
        } else {
            break;
        }
    }
    (ty, attr)
}

/// The attributes the rules set, where each rule sets its cell's (no replacement).
fn set_attrs(g: &Grammar, targets: &[Target]) -> BTreeSet<AttrKey> {
    (g.rules.iter().zip(targets))
        .map(|(r, t)| attr_key(&g.types, var_type(&r.lhs, None, t.c), t.attr))
        .collect()
}

/// The most matches of one NAC's structure the compiler lists; past it the grammar runs
/// on the graph engine, which matches NACs where they are needed instead of all at once.
pub const MAX_NAC_MATCHES: usize = 1 << 22;

/// The host graph's index for the matcher, built by the first NAC that lists its matches
/// and shared by the others (each built its own, once per NAC of every layered puzzle).
/// Its cache of what paths reach (at most `MAX_REACH_NODES` ids) lives as long as the
/// compilation, not one NAC's.
type HostIndex<'g> = OnceCell<GraphIndex<'g>>;

/// A NAC's structure (the left side's nodes, then the NAC's) matched on the start graph:
/// each match's nodes, grouped by the left side's part (its first `lhs_len` nodes); `None`
/// past [`MAX_NAC_MATCHES`] matches.
fn matches_by_left_side(
    m: &Matcher<'_>,
    structure: &Pattern,
    lhs_len: usize,
) -> Option<ByLeftSide> {
    let end = structure.var_end() as usize;
    let plan = SearchPlan::compile(structure);
    // Listed in one buffer, then grouped: a list per left side was an allocation or two
    // per cell of every puzzle.
    let mut all = Tuples::new(end);
    let mut listed = 0usize;
    let flow = m.for_each_match(&plan, &mut Vec::new(), &mut |b| {
        listed += 1;
        if listed > MAX_NAC_MATCHES {
            return ControlFlow::Break(());
        }
        all.push(&b[..end]);
        ControlFlow::Continue(())
    });
    flow.is_continue().then(|| ByLeftSide::group(&all, lhs_len))
}

/// The most (slot, value) placements the compiler lists: each is an instance with its own
/// binding, so past it the tables alone would take gigabytes and minutes to build (a
/// 4x65536 grid of 44 values has 11.5 million).
pub const MAX_PLACEMENTS: u64 = 1 << 22;

/// The most 64-bit words of the solver's per-hub slot sets (hubs times slots / 64):
/// 128 MiB each for readers and members.
pub const MAX_HUB_WORDS: u64 = 1 << 24;

/// The MiB that `words` 64-bit words take, for messages.
fn mib_of_words(words: u64) -> u64 {
    (words * size_of::<u64>() as u64) >> 20
}

/// Compiles a grammar the analysis recognises as slot-filling; refuses it when its tables
/// would be too large. (The engine compiles through [`compile_reusing`].)
#[cfg(test)]
pub fn compile(g: &Grammar) -> Result<SlotModel, Refusal> {
    compile_reusing(g, None).map(|(model, _)| model)
}

/// What `compile` (in the tests) gives, replaying from `reuse` (the record of the same
/// rule file without its layers, or with others) the NACs and left sides no layer can
/// reach, and recording those it compiles: a batch of layered puzzles compiles only what
/// its layers change.
pub fn compile_reusing(
    g: &Grammar,
    reuse: Option<&FixedNacs>,
) -> Result<(SlotModel, FixedNacs), Refusal> {
    let types = &g.types;
    let d = g.domain.len();
    let fill = slot_fill(g)?;
    let (targets, replaced) = (&fill.targets, fill.replaced);
    // Which attributes rules set, and the slots: every start node with one of them, or,
    // for replacements, every node some rule may delete.
    let dynamic: BTreeSet<AttrKey>;
    let mut slots = Vec::new();
    let mut slot_of: FxHashMap<(NodeId, AttrId), u32> = FxHashMap::default();
    match replaced {
        None => {
            dynamic = set_attrs(g, targets);
            for n in g.base.find_nodes() {
                let ty = g.base.ty(n);
                for a in 0..types.node(ty).attrs.len() {
                    let a = AttrId::from_index(a);
                    if dynamic.contains(&attr_key(types, ty, a)) {
                        slot_of.insert((n, a), slots.len() as u32);
                        slots.push((n, a));
                    }
                }
            }
        }
        Some((ty, attr)) => {
            dynamic = BTreeSet::from([attr_key(types, ty, attr)]);
            let deleted: Vec<NodeTypeId> = g
                .rules
                .iter()
                .zip(targets)
                .map(|(r, t)| var_type(&r.lhs, None, t.c))
                .collect();
            for n in g.base.find_nodes() {
                let nty = g.base.ty(n);
                if deleted.iter().any(|&c| types.is_subtype(nty, c)) {
                    if !g.base.out(n).is_empty() || !g.base.inc(n).is_empty() {
                        return not_slot(
                            g.rules[0].span,
                            format!(
                                "the rules delete `{}`, which has edges its replacement would not have",
                                g.names.get(n.index()).unwrap_or_default().to_owned()
                            ),
                        );
                    }
                    slot_of.insert((n, attr), slots.len() as u32);
                    slots.push((n, attr));
                }
            }
        }
    }
    let placements = slots.len() as u64 * d as u64;
    if placements > MAX_PLACEMENTS {
        return not_slot(
            g.rules[0].span,
            format!(
                "the slot engine would list {placements} placements ({} slots times {d} values; limit {MAX_PLACEMENTS})",
                slots.len()
            ),
        );
    }
    let mut model = SlotModel::new(g, slots, slot_of, d);
    let rules: Vec<RuleCompiler> = g
        .rules
        .iter()
        .zip(targets)
        .map(|(r, t)| RuleCompiler {
            g,
            r,
            c: t.c,
            attr: t.attr,
            value: t.value,
            created: t.created.map(|(ty, _)| ty),
            dynamic: &dynamic,
        })
        .collect();
    // Replacements match on stand-ins the layers may change; grammars without layers have
    // nothing to reuse.
    let vocabulary =
        (replaced.is_none() && !g.layers.is_empty()).then(|| fixed::LayerVocabulary::of(g));
    // The group NACs depend on the rules alone, whatever the slots.
    let kept_group_nacs = reuse.and_then(|f| f.group_nacs.clone());
    let reuse = reuse.filter(|f| f.fits(&model));
    let mut record = FixedNacs::over(&model);
    let recording = vocabulary.is_some() && reuse.is_none();
    if recording {
        record.grounds = GroundCache::of(g);
    }
    // A left side no layer reaches places the same values on every puzzle's graph.
    let mut instances: Vec<Arc<Instances>> = Vec::with_capacity(rules.len());
    for (ri, rule) in rules.iter().enumerate() {
        let fixed = vocabulary
            .as_ref()
            .is_some_and(|v| v.cannot_reach_lhs(g, &rule.r.lhs, rule.value));
        let kept = reuse.filter(|_| fixed).and_then(|f| f.instances(ri));
        let inst = match kept {
            Some(kept) => {
                rule.adopt(&mut model, ri, kept)?;
                kept.clone()
            }
            None => Arc::new(rule.instances(&mut model, ri)?),
        };
        if recording && fixed {
            record.keep_instances(ri, inst.clone());
        }
        instances.push(inst);
    }
    // Replacements: one stand-in per cell for the node that will take its place, so that
    // NACs over created nodes match on the start graph like NACs over cells do.
    let host: Cow<Graph> = match replaced {
        None => Cow::Borrowed(&g.base),
        Some((ty, attr)) => {
            let created: Vec<_> = targets
                .iter()
                .map(|t| t.created.expect("a replacement"))
                .collect();
            let replacement = replacement(g, &model, &rules, &instances, ty, attr, &created)?;
            let mut host = g.base.clone();
            for (s, attrs) in replacement.attrs.iter().enumerate() {
                let stand_in = host.add_node(ty, attrs.clone());
                Arc::make_mut(&mut model.slot_of).insert((stand_in, attr), s as u32);
            }
            model.replaced = Some(replacement);
            Cow::Owned(host)
        }
    };
    let group_nacs = match kept_group_nacs {
        Some(kept) => kept,
        None => group_nacs(g)?.into(),
    };
    record.group_nacs = Some(group_nacs.clone());
    let index = HostIndex::new();
    for (ri, ((rule, inst), groups)) in rules
        .iter()
        .zip(&instances)
        .zip(group_nacs.iter())
        .enumerate()
    {
        rule.compile_nacs(
            &mut model,
            (&host, &index),
            inst,
            groups,
            (ri, vocabulary.as_ref()),
            reuse,
            recording.then_some(&mut record),
        )?;
    }
    group::list_feasible(&mut model);
    let words = model.slots.len().div_ceil(WORD_BITS).max(1) as u64;
    let hub_words = model.hubs.len() as u64 * words;
    if hub_words > MAX_HUB_WORDS {
        return not_slot(
            g.rules[0].span,
            format!(
                "the slot engine would keep {} hubs over {} slots, {} MiB of tables (limit {} MiB)",
                model.hubs.len(),
                model.slots.len(),
                mib_of_words(hub_words),
                mib_of_words(MAX_HUB_WORDS)
            ),
        );
    }
    check_givens(g, &model)?;
    // A puzzle's `forbid` patterns and final condition take what the rule file's and the
    // other puzzles' grounded, where no layer changes it.
    let file = match reuse {
        Some(f) => Some(&f.grounds),
        None => recording.then_some(&record.grounds),
    };
    let shared = file.filter(|cache| cache.serves(g));
    let shapes = file.map(|f| f.shapes.clone()).unwrap_or_default();
    model.forbids = super::forbid::SlotForbids::compile(g, &model, shared, &shapes)?;
    if let (Some(forbids), Some(file)) = (&mut model.forbids, file) {
        forbids.tables = file.tables.clone();
    }
    model.finish(g, shared);
    Ok((model, record))
}

/// Per rule, the indexes of its NACs that read the filled cell's group through aggregates,
/// as the analysis accepts them (condition 5 of [`crate::analysis`]); a NAC with an
/// aggregate it refuses keeps the grammar off the slot engine, for the analysis' reason.
fn group_nacs(g: &Grammar) -> Result<Vec<Vec<usize>>, Refusal> {
    let any = g
        .rules
        .iter()
        .any(|r| r.lhs.nacs.iter().any(Pattern::has_aggregate));
    if !any {
        return Ok(vec![Vec::new(); g.rules.len()]);
    }
    match Monotone::analyse(g) {
        Ok(m) => Ok(m.aggregate_nacs),
        Err(why) => not_slot(
            why.span,
            format!("a NAC holds an aggregate, which the slot engine evaluates only over the group of the filled cell, as the analysis accepts: {}", why.reason),
        ),
    }
}

/// One rule being compiled: the cell variable `c` it fills and the slot attribute.
struct RuleCompiler<'a> {
    g: &'a Grammar,
    r: &'a Rule,
    c: VarId,
    attr: AttrId,
    value: &'a Expr,
    /// The type of the node that replaces the cell (`del c` + `new`); `None` when the rule
    /// sets the cell instead.
    created: Option<NodeTypeId>,
    /// The attributes some rule sets.
    dynamic: &'a BTreeSet<AttrKey>,
}

impl RuleCompiler<'_> {
    fn is_dynamic(&self, nac: Option<&Pattern>, v: VarId, a: AttrId) -> bool {
        let key = attr_key(&self.g.types, var_type(&self.r.lhs, nac, v), a);
        self.dynamic.contains(&key)
    }

    /// A changing attribute that `e` reads (inside `nac` when given), if any.
    fn reads_dynamic(&self, e: &Expr, nac: Option<&Pattern>) -> Option<(VarId, AttrId)> {
        let mut found = None;
        e.visit_attrs(&mut |v, a| {
            if self.is_dynamic(nac, v, a) {
                found = Some((v, a));
            }
        });
        found
    }
}

#[cfg(test)]
mod tests;
