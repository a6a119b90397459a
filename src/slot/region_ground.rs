//! Instances over one region node grounded once per region shape: a `forbid` pattern or
//! final condition whose one node is a region (a renban run) and whose aggregates and NACs
//! each range over the cells joined to it by one label grounds, for every region of `k`
//! cells, to the same term but for the cells' slots. Where layers draw the regions anew
//! for every puzzle nothing grounded can be shared by node (see [`super::shared_ground`]),
//! but this can: the first region of each size (and of each value of the region's own
//! attributes read) is grounded, and every other one takes its shape, renamed to its
//! cells' slots.
//!
//! Why the renaming is exact: each aggregate or NAC matches one cell joined to the region
//! and reads only what rules set on that cell, the region's own attributes and constants,
//! so its items are one per member, alike but for the member's slots, and a fold's value
//! does not depend on its items' order. The members are taken in the order of the region's
//! edges, which is the order the matcher meets them in; an instance whose slots would
//! sort otherwise than its template's is grounded as before.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::grammar::Grammar;
use crate::layer::apply::RegionMembers;
use crate::layer::LayerKind;
use crate::model::{AttrId, LabelId, NodeId, NodeTypeId, Value, VarId};
use crate::rule::{Expr, PathExpr, Pattern};

use super::forbid::GroundInstance;
use super::ground::MAX_TERM_NODES;
use super::model::SlotModel;
use super::shapes::Shape;
use super::shared_ground::{GroundCache, Spent};

/// What an instance of a region pattern reads: the region node's `label` edges from
/// cells of `member_types`, those cells' `member_attrs` (slots) and the region's own
/// `region_attrs` (fixed in a puzzle).
#[derive(Debug)]
pub struct RegionPattern {
    label: LabelId,
    member_types: Vec<NodeTypeId>,
    member_attrs: Vec<AttrId>,
    region_attrs: Vec<AttrId>,
}

/// One instance's region: its key among the templates, and per member and attribute
/// read (member-major), the slot.
pub struct Members {
    key: TemplateKey,
    slots: SmallVec<[u32; 16]>,
}

/// (pattern address, the region's member count, the region's attributes read).
type TemplateKey = (usize, usize, Box<[Value]>);

/// The shape a region's instance grounded to, and where each member's slot stands among
/// the slots it reads (`None` for one it does not read).
#[derive(Debug)]
struct Template {
    shape: Arc<Shape>,
    rank: Box<[Option<u32>]>,
    spent: Spent,
}

/// The templates met so far, shared by the puzzles of a rule file; `None` for a key whose
/// first instance read a slot outside its members (then every instance is grounded).
#[derive(Clone, Debug, Default)]
pub struct RegionTemplates(Arc<Mutex<FxHashMap<TemplateKey, Option<Arc<Template>>>>>);

/// The most templates kept: past it they are forgotten and learned anew.
const MAX_TEMPLATES: usize = 1 << 12;

impl RegionPattern {
    /// `p`'s region shape, where it has one (see the module's notes); `set`: the
    /// attributes rules set, which have slots.
    pub fn of(p: &Pattern, set: &[AttrId]) -> Option<RegionPattern> {
        let ([_], [], 0) = (&p.nodes[..], &p.edges[..], p.bound) else {
            return None;
        };
        let (r, d) = (VarId(0), VarId(1));
        let mut inner: Vec<(&Pattern, Option<&Expr>)> = Vec::new();
        let mut region_attrs = Vec::new();
        let mut own_set = false;
        for e in &p.conds {
            e.visit_aggregates(&mut |a| inner.push((&a.pattern, a.body.as_ref())));
            e.visit_attrs(&mut |_, a| {
                own_set |= set.contains(&a);
                region_attrs.push(a);
            });
        }
        inner.extend(p.nacs.iter().map(|q| (q, None)));
        if own_set || inner.is_empty() {
            return None;
        }
        let mut label = None;
        let mut out = RegionPattern {
            label: LabelId(0),
            member_types: Vec::new(),
            member_attrs: Vec::new(),
            region_attrs,
        };
        for (q, body) in inner {
            let ([cell], [edge], [], 1) = (&q.nodes[..], &q.edges[..], &q.nacs[..], q.bound) else {
                return None;
            };
            let l = match &edge.path {
                PathExpr::Label(l) if (edge.src, edge.tgt) == (d, r) => *l,
                PathExpr::Inverse(inner) if (edge.src, edge.tgt) == (r, d) => inner.as_label()?,
                _ => return None,
            };
            if *label.get_or_insert(l) != l {
                return None;
            }
            out.member_types.push(cell.ty);
            let mut fits = true;
            for e in q.conds.iter().chain(body) {
                e.visit_aggregates(&mut |_| fits = false);
                e.visit_attrs(&mut |v, a| match (v == d, set.contains(&a)) {
                    (true, true) => out.member_attrs.push(a),
                    (false, false) => out.region_attrs.push(a),
                    // A member's fixed attribute grounds to a constant of that cell, a
                    // region's set one to its slot: neither is alike from region to region.
                    _ => fits = false,
                });
            }
            if !fits {
                return None;
            }
        }
        out.label = label?;
        for list in [&mut out.member_attrs, &mut out.region_attrs] {
            list.sort_unstable();
            list.dedup();
        }
        out.member_types.sort_unstable();
        out.member_types.dedup();
        Some(out)
    }

    /// The region `m` binds, with its members' slots: `None` where a cell joined to it is
    /// not of every member type or has no slot for an attribute read.
    pub fn members(
        &self,
        g: &Grammar,
        model: &SlotModel,
        p: &Pattern,
        m: &[NodeId],
    ) -> Option<Members> {
        let region = *m.first()?;
        let cells = g.base.inc(region).iter().filter(|&&(l, _)| l == self.label);
        let values = self
            .region_attrs
            .iter()
            .map(|&a| g.base.attr(region, a))
            .collect();
        let cells = cells.map(|&(_, cell)| (cell != region).then_some(cell));
        self.members_among(g, model, p, (cells, values))
    }

    /// [`Self::members`] of a region whose members are `cells` (`None` for the region
    /// itself), in the order of its edges, and whose attributes read are `values`.
    fn members_among(
        &self,
        g: &Grammar,
        model: &SlotModel,
        p: &Pattern,
        (cells, values): (impl Iterator<Item = Option<NodeId>>, Box<[Value]>),
    ) -> Option<Members> {
        let mut slots = SmallVec::new();
        let mut k = 0;
        for cell in cells {
            let cell = cell?;
            let ty = g.base.ty(cell);
            if !self.member_types.iter().all(|&t| g.types.is_subtype(ty, t)) {
                return None;
            }
            for &a in &self.member_attrs {
                slots.push(*model.slot_of.get(&(cell, a))?);
            }
            k += 1;
        }
        Some(Members {
            key: (std::ptr::from_ref(p) as usize, k, values),
            slots,
        })
    }
}

/// A rule file's `forbid` patterns where each is a region pattern over regions only its
/// puzzles' layers draw, reading nothing of the region itself (a renban run: `forbid { r:
/// Run where max(...) - min(...) >= count(...) }`): a puzzle's instances are then one per
/// region each pattern's layers draw, in node order, each of the shape of a region of its
/// size grounded before. A regrouped puzzle ([`super::compile::Regrouping`]) takes them so,
/// without its graph; one with a region of a size not grounded yet is compiled, which
/// grounds it for the next.
#[derive(Debug)]
pub struct DrawnForbids {
    /// Per pattern, in the file's order: its region shape, and the layers (by index) whose
    /// regions it binds.
    patterns: Vec<(RegionPattern, Vec<usize>)>,
    /// The rule file's shared groundings, whose templates the instances take.
    shared: GroundCache,
}

impl DrawnForbids {
    /// `g`'s patterns so, where they all are; `shared`: the groundings the file's puzzles
    /// share, which must serve `g`.
    pub fn of(g: &Grammar, shared: &GroundCache) -> Option<DrawnForbids> {
        if !shared.serves(g) {
            return None;
        }
        let set = crate::analysis::forbid::set_attrs(g);
        let bare = g.bare_graph();
        let patterns = (g.forbids.iter())
            .map(|p| {
                let region = RegionPattern::of(p, &set)?;
                // Every region of its type binds it: no condition on the structure.
                if !region.region_attrs.is_empty()
                    || !super::forbid::structure(p, &set).conds.is_empty()
                {
                    return None;
                }
                let ty = p.nodes[0].ty;
                // Only the puzzles' regions, each joined to its cells as the pattern reads.
                if bare
                    .find_nodes()
                    .any(|n| g.types.is_subtype(bare.ty(n), ty))
                {
                    return None;
                }
                let mut layers = Vec::new();
                for (i, layer) in g.layers.iter().enumerate() {
                    if let LayerKind::Regions { ty: drawn, label } = layer.kind {
                        if g.types.is_subtype(drawn, ty) {
                            (label == region.label).then_some(())?;
                            layers.push(i);
                        }
                    }
                }
                Some((region, layers))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(DrawnForbids {
            patterns,
            shared: shared.clone(),
        })
    }

    /// The groundings the instances are taken from.
    pub fn shared(&self) -> &GroundCache {
        &self.shared
    }

    /// A puzzle's instances on `model`, its model: per pattern, one per region of its
    /// layers, whose members `drawn` holds by layer, the `k`th region drawn being node
    /// `first + k`; each its pattern, that node and its grounding. `None` where a region's
    /// shape was not grounded yet, or grounding would have run past its budget.
    pub fn instances(
        &self,
        g: &Grammar,
        model: &SlotModel,
        drawn: &[Option<&RegionMembers>],
        first: usize,
    ) -> Option<Vec<(u32, NodeId, Arc<GroundInstance>)>> {
        // The node of each layer's first region.
        let mut node = first;
        let firsts: Vec<usize> = (drawn.iter())
            .map(|d| {
                let at = node;
                node += d.map_or(0, |rs| rs.regions());
                at
            })
            .collect();
        let mut budget = MAX_TERM_NODES;
        let mut out = Vec::new();
        for (pi, (region, layers)) in self.patterns.iter().enumerate() {
            let p = &g.forbids[pi];
            for &l in layers {
                let Some(regions) = drawn[l] else {
                    continue;
                };
                for (k, cells) in regions.iter().enumerate() {
                    let cells = cells.iter().map(|&c| Some(c));
                    let members = region.members_among(g, model, p, (cells, Box::new([])))?;
                    let (shape, reads, spent) = self.shared.regions.instance(&members)?;
                    // As `Grounder::spend` takes it.
                    spent.take(&mut budget)?;
                    let at = NodeId::from_index(firsts[l] + k);
                    out.push((
                        pi as u32,
                        at,
                        Arc::new(GroundInstance::renamed(shape, reads)),
                    ));
                }
            }
        }
        Some(out)
    }
}

impl RegionTemplates {
    /// The shape of `members`' instance, the slots it reads (sorted) and what grounding
    /// it spends, where a region of its key was grounded and its slots sort alike.
    pub fn instance(&self, members: &Members) -> Option<(Arc<Shape>, Vec<u32>, Spent)> {
        let template = self.lock().get(&members.key).cloned().flatten()?;
        let read = template.rank.iter().filter(|r| r.is_some()).count();
        let mut reads = vec![u32::MAX; read];
        for (&slot, rank) in members.slots.iter().zip(&template.rank) {
            if let Some(pos) = rank {
                reads[*pos as usize] = slot;
            }
        }
        // Sorted and distinct as the template's were: each position taken once, in order.
        let sorted = reads.windows(2).all(|w| w[0] < w[1]) && reads.last() != Some(&u32::MAX);
        sorted.then(|| (template.shape.clone(), reads, template.spent))
    }

    /// Keeps the instance of `members` that grounded to `shape`, reading `reads` (sorted,
    /// distinct) and spending `spent`, as its key's template, unless one is kept.
    pub fn learn(&self, members: Members, shape: &Arc<Shape>, reads: &[u32], spent: Spent) {
        let mut map = self.lock();
        if map.contains_key(&members.key) {
            return;
        }
        let rank: Box<[Option<u32>]> = (members.slots.iter())
            .map(|s| reads.binary_search(s).ok().map(|pos| pos as u32))
            .collect();
        let taken = rank.iter().flatten().count();
        let mut distinct = members.slots.to_vec();
        distinct.sort_unstable();
        distinct.dedup();
        // Every slot read is a member's, and no member's slot twice.
        let template = (taken == reads.len() && distinct.len() == members.slots.len()).then(|| {
            Arc::new(Template {
                shape: shape.clone(),
                rank,
                spent,
            })
        });
        if map.len() >= MAX_TEMPLATES {
            map.clear();
        }
        map.insert(members.key, template);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<TemplateKey, Option<Arc<Template>>>> {
        // A worker that panicked while it held the lock left the map usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
