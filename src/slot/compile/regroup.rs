//! Puzzles whose layers only add group nodes to an all-different NAC, and to a NAC that
//! sums or counts over them, run on the rule file's model with those groups' hubs and
//! groups added, instead of a compilation of their own.
//!
//! A jigsaw's layer draws regions (`layer region: regions of Group`): a node per region
//! with an `in` edge from each of its cells, read by the NAC that keeps a value once per
//! group (a [`Star`]). Every other NAC and every left side the layer cannot reach (see
//! [`LayerVocabulary`]) matches alike on every puzzle, so its effect on the model is the
//! rule file's; the star's hubs are those of the groups the puzzle starts with, each
//! compiled as [`Star::compile`] does, then one per region the puzzle adds that blocks
//! something (two cells or more), in node order, which is the order a compilation lists
//! them in. The regions are read from the puzzle line's layers, each cell's region
//! straight into its hub ([`Star::drawn_from_cells`]), or as listed members
//! ([`RegionMembers`], the same members [`Grammar::with_layers`] joins to each region's
//! node) where a cell is not whole or a group NAC reads them, so a jigsaw's puzzle builds
//! neither its graph (see
//! [`PuzzleGrammar`](crate::grammar::puzzle::PuzzleGrammar)) nor a compilation: no
//! instances, no NAC replays, no checks; its solver tables are built from the file's
//! ([`Tables::regrouped`](crate::slot::Tables::regrouped)): the file's with its regions'
//! hubs appended where those follow the file's hubs (a file without regions of its own,
//! as `grafter import janko` writes), else with the hub parts built anew.
//!
//! A killer's layers draw cages and set their sums (`layer sums: cages.sum`): besides the
//! cage's all-different hub, the NAC over its sum (`c -cage-> k: Cage where sum(d.val for
//! k <-cage- d: Cell) ...`) makes a group per cage, of its cells, with its sum
//! ([`GroupsAt`]); the groups' contents, and the houses' remainders, are then listed as a
//! compilation lists them, from listings the batch keeps.
//!
//! The regions must not be slots themselves (a type with the attribute the rules fill).
//! The file's own regions, when it has some (`layer region: ... = { ... }`), are not the
//! puzzles': their hubs are left out, so a puzzle's hubs are those of the bare graph's
//! groups and its own. The table must come out the same: "the same value" over the values
//! placed in the readers of all the star's groups, which each puzzle checks.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::analysis::slot_fill::slot_fill;
use crate::grammar::Grammar;
use crate::layer::apply::RegionMembers;
use crate::layer::{Content, LayerKind, Layers};
use crate::model::{AttrId, Graph, LabelId, NodeId, NodeTypeId, Value, VarId};
use crate::rule::{PathExpr, Pattern};

use super::super::forbid::SlotForbids;
use super::super::group::Group;
use super::super::model::{FinalKind, Hub, SlotModel, Slots};
use super::super::region_ground::DrawnForbids;
use super::super::solver::WORD_BITS;
use super::fixed::{FixedNacs, LayerVocabulary};
use super::recognise::var_type;
use super::star::{identity_over, NodeAt, Star, StarScratch};
use super::{attr_key, AttrKey, RuleCompiler, MAX_HUB_WORDS};

/// How a rule file's layered puzzles add groups to its model: the star NACs their layers
/// reach, each with where its hubs stand in the file's model.
pub struct Regrouping {
    /// In the order of their hubs.
    stars: Vec<StarAt>,
    /// The group NACs (a cage's sum), in the order of the model's group NACs: every one
    /// the rules hold, each over the regions of its layers.
    groups: Vec<GroupsAt>,
    /// The `forbid` patterns, each over the regions its layers draw; `None` where the
    /// file has none.
    forbids: Option<DrawnForbids>,
    /// Whether each of the file's hubs blocks its own writers alike both ways (see
    /// [`SlotModel::all_self_symmetric`]): then a puzzle's model whose new hubs do too
    /// is finished from the file's verdicts.
    self_symmetric: bool,
}

/// The regions a puzzle line's layer draws: their node type, the label joining each cell
/// to its region, and each region's cells.
type Drawn = (NodeTypeId, LabelId, RegionMembers);

/// The regions a puzzle line's layer draws as the line gives them: their node type, the
/// label joining each cell to its region, each grid cell's region, and how many regions.
type Drawing<'a> = (NodeTypeId, LabelId, &'a [Option<u32>], usize);

/// A star NAC a layer reaches, and its hubs in the rule file's model.
struct StarAt {
    star: Star,
    /// By node index, the values its rule places there.
    placed: Vec<u128>,
    /// By node index (of the bare graph), what the node is to the star and its slot of
    /// the rule's attribute: looked up for every member of every region a puzzle draws.
    nodes: Vec<NodeAt>,
    /// Its hubs are `start..end` of the file's model, of which `start..kept` are those of
    /// the bare graph's groups (the rest, the file's own layer's).
    kept: usize,
    end: usize,
    /// Its table; `None` where the file has no hubs of it (no regions of its own).
    table: Option<u32>,
    /// The values that table blocks: the values placed in the readers of all its groups.
    table_values: u128,
    /// The values placed in the readers of the bare graph's groups, and the NAC's matches
    /// through them.
    values: u128,
    matches: usize,
}

impl Regrouping {
    /// The regrouping of `g`'s layered puzzles on `model`, compiled from `g` with the
    /// record `fixed`; `None` when a layer may change more than a star's groups.
    pub fn of(g: &Grammar, model: &SlotModel, fixed: &FixedNacs) -> Option<Regrouping> {
        // Regions, and values set on them (a cage's sum), which only group NACs may read
        // (see `GroupsAt::of`).
        let regions_only = g.layers.iter().all(|l| {
            matches!(
                l.kind,
                LayerKind::Regions { .. } | LayerKind::RegionAttr { .. }
            )
        });
        // Groups are drawn anew (see below), and `forbid` instances where each is over one
        // region (see `DrawnForbids`); replaced cells are not, nor a final condition beyond
        // "every cell filled", which may read the regions.
        let simple_model = model.replaced.is_none()
            && matches!(model.final_kind, FinalKind::Full | FinalKind::Stuck);
        if g.layers.is_empty() || !regions_only || !simple_model {
            return None;
        }
        let forbids = match model.forbids {
            Some(_) => Some(DrawnForbids::of(g, &fixed.grounds)?),
            None => None,
        };
        let bare = g.bare_graph();
        // The file's own layer nodes as slots: `slot_free` below refuses them too; this
        // says so before any work.
        if model
            .slots
            .iter()
            .any(|&(n, _)| n.index() >= bare.capacity())
        {
            return None;
        }
        let layer_types: Vec<NodeTypeId> = (g.layers.iter())
            .filter_map(|l| match l.kind {
                LayerKind::Regions { ty, .. } => Some(ty),
                _ => None,
            })
            .collect();
        let vocabulary = LayerVocabulary::of(g);
        let fill = slot_fill(g).ok()?;
        // A region whose type has an attribute the rules fill would be a slot of its
        // puzzle's compilation (a `Group` under the cells' supertype).
        let filled: Vec<AttrKey> = (g.rules.iter().zip(&fill.targets))
            .map(|(r, t)| attr_key(&g.types, var_type(&r.lhs, None, t.c), t.attr))
            .collect();
        let slot_free = layer_types.iter().all(|&ty| {
            (0..g.types.node(ty).attrs.len())
                .all(|a| !filled.contains(&attr_key(&g.types, ty, AttrId::from_index(a))))
        });
        let group_nacs = fixed.group_nacs.as_ref()?;
        let lhs_free = (g.rules.iter().zip(&fill.targets))
            .all(|(r, t)| vocabulary.cannot_reach_lhs(g, &r.lhs, t.value));
        let recorded = fixed.records_every_nac(g, model);
        if !lhs_free || !recorded || !slot_free {
            return None;
        }
        // Star::of reads the rule, not which attributes change.
        let unread = BTreeSet::new();
        let mut stars = Vec::new();
        let mut groups = Vec::new();
        let mut start = 0;
        for &((ri, i), end) in &fixed.hub_ends {
            let (r, t) = (&g.rules[ri], &fill.targets[ri]);
            let nac = &r.lhs.nacs[i];
            let rc = RuleCompiler {
                g,
                r,
                c: t.c,
                attr: t.attr,
                value: t.value,
                created: t.created.map(|(ty, _)| ty),
                dynamic: &unread,
            };
            // A group NAC adds no hub, and compiles to the model's group NACs in this
            // order.
            if group_nacs[ri].contains(&i) {
                let placed = fixed.instances(ri)?.placed();
                groups.push(GroupsAt::of(&rc, nac, model, bare, placed)?);
                start = end;
                continue;
            }
            // As `compile_nacs` tells the NACs it replays.
            let fixed_nac = vocabulary.cannot_reach(g, (&r.lhs, t.value), nac);
            if !fixed_nac {
                let star = Star::of(&rc, nac)?;
                if layer_types
                    .iter()
                    .any(|&ty| star.may_be_member(&g.types, ty))
                {
                    return None;
                }
                let placed = fixed.instances(ri)?.placed().to_vec();
                stars.push(StarAt::of(
                    g,
                    model,
                    star,
                    t.attr,
                    placed,
                    (bare, start, end),
                )?);
            }
            start = end;
        }
        // Every group NAC of the model is drawn anew: the rule file's own groups (its
        // own layer's) are not the puzzles'.
        if groups.len() != model.group_nacs.len() {
            return None;
        }
        Some(Regrouping {
            stars,
            groups,
            forbids,
            self_symmetric: model.all_self_symmetric(),
        })
    }

    /// The model of the puzzle with `layers` of the rule file `g` that [`Regrouping::of`]
    /// read: `model` with the hubs of the puzzle's groups, read from the regions the layers
    /// draw as [`Grammar::with_layers`] would add them, without building that graph;
    /// `None` when it must be compiled (a table would differ, or the hubs would be too
    /// many). With it, whether its hubs are `model`'s, in order, followed by the new ones
    /// (a file without regions of its own), known from where they were copied (a line
    /// whose regions are the file's own has them so unsaid): what [`Tables::regrouped`]
    /// builds on.
    ///
    /// [`Tables::regrouped`]: crate::slot::Tables::regrouped
    pub fn regrouped(
        &self,
        model: &SlotModel,
        g: &Grammar,
        layers: &Layers,
    ) -> Option<(SlotModel, bool)> {
        let cells = g.grid.as_ref().map_or(&[][..], |grid| &grid.cells[..]);
        // By layer, the regions it draws: their node type and label, each cell's region
        // and how many.
        let drawing: Vec<Option<Drawing>> = (g.layers.iter())
            .zip(&layers.sections)
            .map(|(layer, content)| match (&layer.kind, content) {
                (LayerKind::Regions { ty, label }, Some(Content::Regions { names, cells: of })) => {
                    Some((*ty, *label, &of[..], names.len()))
                }
                _ => None,
            })
            .collect();
        // Each region's members listed, by layer, where groups or `forbid` patterns read
        // them (the stars read a layer's cells straight where they can, see below).
        let members = |(_, _, of, count): Drawing| RegionMembers::of(cells, of, count);
        let listed = !self.groups.is_empty() || self.forbids.is_some();
        let drawn: Vec<Option<Drawn>> = (drawing.iter())
            .map(|d| d.filter(|_| listed).map(|d| (d.0, d.1, members(d))))
            .collect();
        let regions = drawing.iter().flatten().map(|d| d.3).sum::<usize>();
        let mut hubs = Vec::with_capacity(model.hubs.len() + regions);
        // Grown only by a region some member of which is not whole (see `Star::drawn_groups`).
        let mut scratch = StarScratch::default();
        // Where the file's hubs are copied to, and whether every new hub has its writers
        // for readers (its table, "the same value" over some values, is symmetric).
        let mut copied = Vec::with_capacity(self.stars.len() + 1);
        let mut self_symmetric = self.self_symmetric;
        // Tables the file does not hold (see below).
        let mut added: Vec<Vec<u128>> = Vec::new();
        let mut at = 0;
        for s in &self.stars {
            copied.push((at..s.kept, hubs.len()));
            hubs.extend_from_slice(&model.hubs[at..s.kept]);
            // The regions' hubs, their table set below.
            let first = hubs.len();
            let (mut values, mut matches) = (0, s.matches);
            for (&(ty, label, of, count), listed) in
                (drawing.iter().zip(&drawn)).filter_map(|(d, listed)| Some((d.as_ref()?, listed)))
            {
                let place = (&s.nodes[..], &s.placed[..]);
                let read = (s.star)
                    .drawn_from_cells(
                        &g.types,
                        (ty, label),
                        (cells, of, count),
                        place,
                        matches,
                        &mut hubs,
                    )
                    .or_else(|| {
                        // A cell that is not whole: the regions read member by member,
                        // listed here unless they are for the groups already.
                        let own;
                        let rs = match listed {
                            Some((_, _, rs)) => rs,
                            None => {
                                own = members((ty, label, of, count));
                                &own
                            }
                        };
                        let regions: Vec<_> = rs.iter().map(|r| (ty, label, r)).collect();
                        (s.star).drawn_groups(
                            &g.types,
                            &regions,
                            place,
                            &mut scratch,
                            matches,
                            &mut hubs,
                        )
                    })?;
                values |= read.0;
                matches = read.1;
            }
            let table = match s.table {
                Some(t) if s.values | values == s.table_values => t,
                Some(_) => return None,
                // No hubs in the file: "the same value" over the values the readers take,
                // a table the file holds (else the compilation adds it); none where the
                // regions block nothing.
                None if values == 0 => 0,
                None => {
                    let same = identity_over(model.d, values);
                    match (model.tables.iter().chain(&added)).position(|t| *t == same) {
                        Some(t) => t as u32,
                        // A file without tables (a kakuro's runs make its only hubs): the
                        // line's tables come in the order its stars make them, as they
                        // come in its compilation.
                        None if model.tables.is_empty() => {
                            added.push(same);
                            (added.len() - 1) as u32
                        }
                        None => return None,
                    }
                }
            };
            for hub in &mut hubs[first..] {
                self_symmetric &= hub.writers == hub.readers;
                hub.table = table;
            }
            at = s.end;
        }
        copied.push((at..model.hubs.len(), hubs.len()));
        hubs.extend_from_slice(&model.hubs[at..]);
        let words = model.slots.len().div_ceil(WORD_BITS).max(1) as u64;
        if hubs.len() as u64 * words > MAX_HUB_WORDS {
            return None;
        }
        // The final condition's kind is the file's: it reads which nodes are slots, and
        // a region node of a type the condition tests would have the attribute the rules
        // fill, which `Regrouping::of` refuses (`slot_free`).
        // Every file hub copied where it was: the new ones come after them all.
        let appended = copied.iter().map(|(old, _)| old.len()).sum::<usize>() == model.hubs.len()
            && (copied.iter()).all(|(old, at)| old.is_empty() || old.start == *at);
        let mut regrouped = model.with_hubs(hubs);
        if !added.is_empty() {
            regrouped.tables = Arc::new(added);
        }
        if !self.groups.is_empty() {
            let mut groups = Vec::new();
            for (nac, at) in self.groups.iter().enumerate() {
                at.add_groups(nac as u32, (layers, &drawn), &mut groups)?;
            }
            // Contents, remainders and pairs as a compilation lists them, once its hubs
            // are all there.
            regrouped.groups = Arc::new(groups);
            super::group::list_feasible(&mut regrouped);
        }
        if let Some(drawn_forbids) = &self.forbids {
            let members: Vec<Option<&RegionMembers>> = (drawn.iter())
                .map(|d| d.as_ref().map(|(_, _, rs)| rs))
                .collect();
            let bare = g.bare_graph();
            let instances = drawn_forbids.instances(g, &regrouped, &members, bare.capacity())?;
            let file = model.forbids.as_ref()?;
            regrouped.forbids = Some(SlotForbids::of_grounded(
                file,
                &regrouped,
                drawn_forbids.shared(),
                instances,
            )?);
        }
        regrouped.finish_regrouped(g, model, &copied, self_symmetric);
        Some((regrouped, appended))
    }
}

impl StarAt {
    /// `star`'s place in `model`, whose hubs `start..end` it made on the rule file's
    /// graph; the first of them must be those of the `bare` graph's groups, as
    /// [`Star::compile`] makes them, the rest those of the file's own layer's groups.
    fn of(
        g: &Grammar,
        model: &SlotModel,
        star: Star,
        attr: AttrId,
        placed: Vec<u128>,
        (bare, start, end): (&Graph, usize, usize),
    ) -> Option<StarAt> {
        let slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
        let mut scratch = StarScratch::default();
        let place = (&placed[..], &slot);
        let bare_groups = star.groups(&g.types, bare, bare.find_nodes(), place, &mut scratch, 0)?;
        let own = g.base.find_nodes().filter(|n| n.index() >= bare.capacity());
        let own_groups = star.groups(&g.types, &g.base, own, place, &mut scratch, 0)?;
        let (bare_hubs, own_hubs) = (&bare_groups.hubs, &own_groups.hubs);
        let kept = start + bare_hubs.len();
        if kept + own_hubs.len() != end {
            return None;
        }
        // A star without hubs in the file (a file without cages of its own) has its table
        // found per puzzle, among the file's.
        let table = (start < end).then(|| model.hubs[start].table);
        let table_values = bare_groups.values | own_groups.values;
        let same = |hubs: &[Hub], found: &[(Slots, Slots)]| {
            hubs.len() == found.len()
                && hubs
                    .iter()
                    .zip(found)
                    .all(|(h, (w, r))| Some(h.table) == table && h.writers == *w && h.readers == *r)
        };
        let as_compiled = same(&model.hubs[start..kept], bare_hubs)
            && same(&model.hubs[kept..end], own_hubs)
            && table
                .is_none_or(|t| model.tables[t as usize] == identity_over(model.d, table_values));
        let mut nodes: Vec<NodeAt> = (0..bare.capacity())
            .map(|i| NodeAt {
                role: star.role(&g.types, bare, &placed, NodeId::from_index(i)),
                slot: None,
            })
            .collect();
        for (i, &(n, a)) in model.slots.iter().enumerate() {
            if let Some(at) = nodes.get_mut(n.index()).filter(|_| a == attr) {
                at.slot = Some(i as u32);
            }
        }
        as_compiled.then_some(StarAt {
            star,
            placed,
            nodes,
            kept,
            end,
            table,
            table_values,
            values: bare_groups.values,
            matches: bare_groups.matches,
        })
    }
}

/// A group NAC (a cage's sum) whose groups are the regions layers draw: its structure
/// the filled cell's edge to a region node, its aggregates over that node's cells. A
/// compilation makes a group per region one of whose cells the rule fills, its members
/// the region's cells and its unchanging values those of the region node that the
/// conditions read; so does [`GroupsAt::add_groups`], from the puzzle line's layers.
struct GroupsAt {
    /// The regions layers that draw its region nodes (a kakuro's runs across and down),
    /// by their index among the grammar's layers, in order; with each, per attribute of
    /// `statics`, the layers that set it on that layer's regions (`R.attr`), in order.
    layers: Vec<(usize, Vec<Vec<usize>>)>,
    /// The region node's attributes the conditions read, in the order a compilation
    /// lists them.
    statics: Vec<(VarId, AttrId)>,
    /// By node index (of the bare graph), the slot a member there is: a cell of every
    /// type the NAC's structure and aggregates give the cell, holding the attribute the
    /// rule fills; `None` elsewhere.
    member: Vec<Option<u32>>,
    /// By node index, whether the rule fills the cell there (it has an instance).
    filled: Vec<bool>,
}

impl GroupsAt {
    /// Group NAC `nac` of `rc`'s rule when it has that shape (see [`GroupsAt`]) and no
    /// node of the `bare` graph can be its region node; `placed` by node index, the
    /// values the rule places there.
    fn of(
        rc: &RuleCompiler<'_>,
        nac: &Pattern,
        model: &SlotModel,
        bare: &Graph,
        placed: &[u128],
    ) -> Option<GroupsAt> {
        let (g, r, types) = (rc.g, rc.r, &rc.g.types);
        let (c, k) = (VarId(0), VarId(1));
        // The cell alone on the left side; the region node the NAC's one node, joined to
        // it by one edge.
        let lone_cell = r.lhs.nodes.len() == 1 && r.lhs.edges.is_empty() && rc.c == c;
        let ([region], [edge], []) = (&nac.nodes[..], &nac.edges[..], &nac.nacs[..]) else {
            return None;
        };
        let label = edge.path.as_label()?;
        if !lone_cell || nac.bound != 1 || (edge.src, edge.tgt) != (c, k) {
            return None;
        }
        // Layers draw the nodes it can be, along that label; the bare graph has none.
        let drawing: Vec<(usize, LabelId)> = (g.layers.iter().enumerate())
            .filter_map(|(i, l)| match l.kind {
                LayerKind::Regions { ty, label } if types.is_subtype(ty, region.ty) => {
                    Some((i, label))
                }
                _ => None,
            })
            .collect();
        let region_nodes = bare
            .find_nodes()
            .any(|n| types.is_subtype(bare.ty(n), region.ty));
        let along = drawing.iter().all(|&(_, l)| l == label);
        if drawing.is_empty() || !along || region_nodes {
            return None;
        }
        // Every aggregate ranges over the cells joined to the region node by that label:
        // its one node, its one edge.
        let mut cell_types = vec![var_type(&r.lhs, None, c)];
        let mut ranges = true;
        let mut any = false;
        for e in &nac.conds {
            e.visit_aggregates(&mut |a| {
                let p = &a.pattern;
                let d = VarId(p.bound);
                let joined = |e: &crate::rule::PatEdge| match &e.path {
                    PathExpr::Label(l) => *l == label && (e.src, e.tgt) == (d, k),
                    PathExpr::Inverse(inner) => {
                        inner.as_label() == Some(label) && (e.src, e.tgt) == (k, d)
                    }
                    _ => false,
                };
                match (&p.nodes[..], &p.edges[..]) {
                    ([cell], [e]) if p.bound == 2 && p.nacs.is_empty() && joined(e) => {
                        cell_types.push(cell.ty);
                    }
                    _ => ranges = false,
                }
                any = true;
            });
        }
        if !(ranges && any) {
            return None;
        }
        let statics = super::group::own_reads(nac, 1..2);
        let setters = |layer: usize, a: AttrId| {
            (g.layers.iter().enumerate())
                .filter(|(_, l)| {
                    matches!(l.kind, LayerKind::RegionAttr { regions, attr, .. }
                        if regions == layer && attr == a)
                })
                .map(|(i, _)| i)
                .collect()
        };
        let layers = (drawing.iter())
            .map(|&(layer, _)| {
                let set = statics.iter().map(|&(_, a)| setters(layer, a)).collect();
                (layer, set)
            })
            .collect();
        let mut member = vec![None; bare.capacity()];
        for n in bare.find_nodes() {
            let ty = bare.ty(n);
            if cell_types.iter().all(|&t| types.is_subtype(ty, t)) {
                member[n.index()] = model.slot_of.get(&(n, rc.attr)).copied();
            }
        }
        let filled = (0..bare.capacity())
            .map(|i| placed.get(i).is_some_and(|&x| x != 0))
            .collect();
        Some(GroupsAt {
            layers,
            statics,
            member,
            filled,
        })
    }

    /// Adds to `groups` the groups of NAC `nac` (its index among the model's group NACs)
    /// for a puzzle with `layers`, whose regions layers draw `drawn` (by layer): one per
    /// region that holds a cell the rule fills, layer by layer in region order (the order
    /// in which the layers add the region nodes, which a compilation lists its groups
    /// in); `None` where a region's cell is not a member slot, which a compilation
    /// handles (or refuses).
    fn add_groups(
        &self,
        nac: u32,
        (layers, drawn): (&Layers, &[Option<Drawn>]),
        groups: &mut Vec<Group>,
    ) -> Option<()> {
        for (layer, setters) in &self.layers {
            let (Some(Some(Content::Regions { names, cells: of })), Some(Some((_, _, regions)))) =
                (layers.sections.get(*layer), drawn.get(*layer))
            else {
                // No regions drawn: no region node, no group.
                continue;
            };
            // Each region node's values, as the layers set them: a token at any of its
            // cells, the last one in cell order winning, layer by layer.
            let statics: Vec<Vec<Value>> = (setters.iter())
                .map(|setters| {
                    let mut values = vec![Value::None; names.len()];
                    for &l in setters {
                        if let Some(Some(Content::Values(set))) = layers.sections.get(l) {
                            for (region, v) in of.iter().zip(set) {
                                if let (Some(r), Some(v)) = (region, v) {
                                    values[*r as usize] = *v;
                                }
                            }
                        }
                    }
                    values
                })
                .collect();
            for (r, region) in regions.iter().enumerate() {
                if !region
                    .iter()
                    .any(|n| self.filled.get(n.index()) == Some(&true))
                {
                    continue;
                }
                let mut members = (region.iter())
                    .map(|n| self.member.get(n.index()).copied().flatten())
                    .collect::<Option<Vec<u32>>>()?;
                members.sort_unstable();
                members.dedup();
                groups.push(Group {
                    nac,
                    members,
                    statics: (self.statics.iter().zip(&statics))
                        .map(|(&(v, a), values)| (v, a, values[r]))
                        .collect(),
                    feasible: None,
                    pairs: Vec::new(),
                    implied_by: Vec::new(),
                });
            }
        }
        Some(())
    }
}
