//! The hubs of one NAC: the slots that write its witnesses and the slots they block.

use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::model::{AttrId, Graph, NodeId, Value};
use crate::rule::Pattern;

use super::super::model::{Hub, SlotModel, Slots};
use super::super::relation::{cliques, factors};
use super::Tuples;

/// Adds the hubs through which the NAC with table `table_id` blocks its readers, from the
/// NAC's matches `tuples` (variable `ci` is the cell read with `attr`, `wi` the witness
/// read with `wattr`); witnesses that are not slots narrow their readers' allowed values
/// once, here.
pub(super) fn add_hubs(
    model: &mut SlotModel,
    host: &Graph,
    nac: &Pattern,
    tuples: &Tuples,
    (ci, attr): (usize, AttrId),
    (wi, wattr): (usize, AttrId),
    table_id: u32,
) {
    // Reader/witness pairs, exact.
    let exact: FxHashSet<(NodeId, NodeId)> = tuples.iter().map(|t| (t[ci], t[wi])).collect();
    let hub_var = nac
        .own_vars()
        .filter(|v| v.index() != wi)
        .find(|v| factors(tuples.iter(), &exact, ci, v.index(), wi));
    let witness_slot = |n: NodeId| model.slot_of.get(&(n, wattr)).copied();
    let reader_slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
    if hub_var.is_none() {
        // No group node, but the cells may still fall into groups: where "blocks each
        // other" splits the slots into cliques (same row, same box by arithmetic, same
        // chain), one hub per clique says the same as one per witness, and exactly-once
        // groups become visible.
        let slot_pairs: Option<Vec<(u32, u32)>> = exact
            .iter()
            .map(|&(cn, dn)| Some((reader_slot(cn)?, witness_slot(dn)?)))
            .collect();
        let slot_pairs = slot_pairs.map(|mut pairs| {
            pairs.sort_unstable();
            pairs.dedup();
            pairs
        });
        if let Some(groups) = slot_pairs.as_deref().and_then(cliques) {
            for members in groups {
                let members = Slots::from_vec(members);
                model.hubs.push(Hub {
                    writers: members.clone(),
                    readers: members,
                    table: table_id,
                });
            }
            return;
        }
    }
    let mut fixed: Vec<(u32, NodeId)> = Vec::new();
    let Some(hub_var) = hub_var else {
        // A hub per witness that is a slot.
        let mut pairs: Vec<(NodeId, u32, u32)> = Vec::with_capacity(exact.len());
        for &(cn, dn) in &exact {
            let Some(reader) = reader_slot(cn) else {
                continue;
            };
            match witness_slot(dn) {
                Some(writer) => pairs.push((dn, writer, reader)),
                None => fixed.push((reader, dn)),
            }
        }
        add_witness_hubs(model, pairs, table_id);
        narrow_by_fixed(model, host, &fixed, wattr, table_id);
        return;
    };
    // Per hub node, its writers and readers; hubs in node order, each's slots in order.
    let mut roles = Roles::default();
    let mut add = |hub: NodeId, cn: NodeId, dn: NodeId| {
        let reader = reader_slot(cn);
        match witness_slot(dn) {
            Some(w) => {
                let (writers, readers) = roles.of(hub);
                writers.push(w);
                readers.extend(reader);
            }
            None => {
                // Through a group, the cell still reads the hub's other writers.
                roles.of(hub).1.extend(reader);
                fixed.extend(reader.map(|s| (s, dn)));
            }
        }
    };
    tuples
        .iter()
        .for_each(|t| add(t[hub_var.index()], t[ci], t[wi]));
    for (writers, readers) in roles.in_node_order() {
        if !writers.is_empty() && !readers.is_empty() {
            model.hubs.push(Hub {
                writers,
                readers,
                table: table_id,
            });
        }
    }
    narrow_by_fixed(model, host, &fixed, wattr, table_id);
}

/// A hub per witness that is a slot, in node order, from its (witness, writer, reader)
/// arcs: sorted by witness, each one's readers come together, already in order.
pub(super) fn add_witness_hubs(
    model: &mut SlotModel,
    mut arcs: Vec<(NodeId, u32, u32)>,
    table_id: u32,
) {
    arcs.sort_unstable();
    arcs.dedup();
    for run in arcs.chunk_by(|a, b| a.0 == b.0) {
        // One writer, pushed: `from_elem` was an out-of-line call for every hub.
        let mut writers = Slots::new();
        writers.push(run[0].1);
        model.hubs.push(Hub {
            writers,
            readers: run.iter().map(|&(_, _, r)| r).collect(),
            table: table_id,
        });
    }
}

/// Witnesses that are not slots hold their start value for ever: each `(reader, witness)`
/// of `fixed` takes from the reader the values that value blocks.
fn narrow_by_fixed(
    model: &mut SlotModel,
    host: &Graph,
    fixed: &[(u32, NodeId)],
    wattr: AttrId,
    table_id: u32,
) {
    let table = &model.tables[table_id as usize];
    let allowed = Arc::make_mut(&mut model.allowed);
    for &(s, dn) in fixed {
        if let Value::Val(y) = host.attr(dn, wattr) {
            allowed[s as usize] &= !table[y as usize];
        }
    }
}

/// The writers and readers gathered per hub node.
#[derive(Default)]
struct Roles {
    index: FxHashMap<NodeId, usize>,
    hubs: Vec<(NodeId, Slots, Slots)>,
}

impl Roles {
    /// The writers and readers of `hub` so far.
    fn of(&mut self, hub: NodeId) -> (&mut Slots, &mut Slots) {
        let i = *self.index.entry(hub).or_insert_with(|| {
            self.hubs.push((hub, Slots::new(), Slots::new()));
            self.hubs.len() - 1
        });
        let (_, writers, readers) = &mut self.hubs[i];
        (writers, readers)
    }

    /// Each hub's writers and readers, sorted and once each, in hub node order.
    fn in_node_order(mut self) -> impl Iterator<Item = (Slots, Slots)> {
        self.hubs.sort_unstable_by_key(|h| h.0);
        self.hubs.into_iter().map(|(_, mut writers, mut readers)| {
            for list in [&mut writers, &mut readers] {
                list.sort_unstable();
                list.dedup();
            }
            (writers, readers)
        })
    }
}
