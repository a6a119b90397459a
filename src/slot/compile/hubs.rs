//! The hubs of one NAC: the slots that write its witnesses and the slots they block.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::{AttrId, Graph, NodeId, Value};
use crate::rule::Pattern;

use super::super::model::{Hub, SlotModel};
use super::super::relation::{cliques, factors};

/// Adds the hubs through which the NAC with table `table_id` blocks its readers, from the
/// NAC's matches `tuples` (variable `ci` is the cell read with `attr`, `wi` the witness
/// read with `wattr`); witnesses that are not slots narrow their readers' allowed values
/// once, here.
pub(super) fn add_hubs(
    model: &mut SlotModel,
    host: &Graph,
    nac: &Pattern,
    tuples: &[Vec<NodeId>],
    (ci, attr): (usize, AttrId),
    (wi, wattr): (usize, AttrId),
    table_id: u32,
) {
    // Reader/witness pairs, exact.
    let exact: BTreeSet<(NodeId, NodeId)> = tuples.iter().map(|t| (t[ci], t[wi])).collect();
    let hub_var = nac
        .own_vars()
        .filter(|v| v.index() != wi)
        .find(|v| factors(tuples, &exact, ci, v.index(), wi));
    let witness_slot = |n: NodeId| model.slot_of.get(&(n, wattr)).copied();
    let reader_slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
    if hub_var.is_none() {
        // No group node, but the cells may still fall into groups: where "blocks each
        // other" splits the slots into cliques (same row, same box by arithmetic, same
        // chain), one hub per clique says the same as one per witness, and exactly-once
        // groups become visible.
        let slot_pairs: Option<BTreeSet<(u32, u32)>> = exact
            .iter()
            .map(|&(cn, dn)| Some((reader_slot(cn)?, witness_slot(dn)?)))
            .collect();
        if let Some(groups) = slot_pairs.as_ref().and_then(cliques) {
            for members in groups {
                model.hubs.push(Hub {
                    writers: members.clone(),
                    readers: members,
                    table: table_id,
                });
            }
            return;
        }
    }
    let mut hubs: BTreeMap<NodeId, (BTreeSet<u32>, BTreeSet<u32>)> = BTreeMap::new();
    let mut fixed: Vec<(u32, NodeId)> = Vec::new();
    let pairs: Vec<(NodeId, NodeId, NodeId)> = match hub_var {
        Some(h) => tuples
            .iter()
            .map(|t| (t[h.index()], t[ci], t[wi]))
            .collect(),
        None => exact.iter().map(|&(cn, dn)| (dn, cn, dn)).collect(),
    };
    for (hub, cn, dn) in pairs {
        let reader = reader_slot(cn);
        match witness_slot(dn) {
            Some(w) => {
                let entry = hubs.entry(hub).or_default();
                entry.0.insert(w);
                entry.1.extend(reader);
            }
            None => {
                // Through a group, the cell still reads the hub's other writers.
                if hub_var.is_some() {
                    hubs.entry(hub).or_default().1.extend(reader);
                }
                fixed.extend(reader.map(|s| (s, dn)));
            }
        }
    }
    for (_, (writers, readers)) in hubs {
        if !writers.is_empty() && !readers.is_empty() {
            model.hubs.push(Hub {
                writers: writers.into_iter().collect(),
                readers: readers.into_iter().collect(),
                table: table_id,
            });
        }
    }
    // Witnesses that are not slots hold their start value for ever.
    for (s, dn) in fixed {
        if let Value::Val(y) = host.attr(dn, wattr) {
            model.allowed[s as usize] &= !model.tables[table_id as usize][y as usize];
        }
    }
}
