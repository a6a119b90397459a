//! The all-different NAC read straight from the graph: `not { c -l-> g: G <-l- d: C
//! { val == v } }`, a value held once per group node, compiled from each group node's
//! members instead of by listing the NAC's matches, sorting them and checking that the
//! group node factors them.
//!
//! Rows, columns, boxes, jigsaw regions, cages and runs are all this shape, and a layered
//! puzzle compiles its layers' groups anew for every puzzle: listing, sorting and factoring
//! their matches was most of that cost. What comes out is what the general compilation
//! (`nac`, `hubs`) makes of the same NAC, table for table and hub for hub (the tests
//! compile every rule file both ways): for a star the group node always factors the
//! matches, the table is "the same value" over the values some rule places where the NAC
//! can match, and each group node's hub has as writers its members paired with another
//! member the rule fills, and those as readers.

use crate::model::{AttrId, Graph, LabelId, NodeId, NodeTypeId, TypeSystem, VarId};
use crate::rule::expr::{BinOp, ExprKind};
use crate::rule::{Expr, PathExpr, Pattern};

use super::super::model::{Hub, SlotModel, Slots};
use super::instances::Instances;
use super::recognise::var_type;
use super::{attr_key, RuleCompiler, MAX_NAC_MATCHES};

/// A NAC of the all-different shape, as the rule reads it.
pub(super) struct Star {
    /// The group node's type and the label of the members' edges to it.
    group: NodeTypeId,
    label: LabelId,
    /// The filled cell's type and the witness's.
    cell: NodeTypeId,
    witness: NodeTypeId,
}

impl Star {
    /// The star `nac` is, when it is one: the rule's left side its cell alone and its value
    /// a parameter; the NAC a group node `g` and a witness `d` that reach `g` by the label
    /// `c` reaches it by, one condition `d.attr == v` (either way round) on the slot's
    /// attribute and that parameter; the group node's type unrelated to the cells' (so the
    /// matcher's injectivity asks only `d != c`).
    pub(super) fn of(rc: &RuleCompiler<'_>, nac: &Pattern) -> Option<Star> {
        let (r, c, types) = (rc.r, rc.c, &rc.g.types);
        if r.lhs.nodes.len() != 1 || !r.lhs.edges.is_empty() || nac.bound != 1 {
            return None;
        }
        if !nac.nacs.is_empty() || nac.nodes.len() != 2 || nac.edges.len() != 2 {
            return None;
        }
        let ExprKind::Param(p) = rc.value.kind else {
            return None;
        };
        let [cond] = &nac.conds[..] else {
            return None;
        };
        let (d, a) = witness_of(cond, p).filter(|(d, _)| d.0 >= nac.bound)?;
        let g = nac.own_vars().find(|&v| v != d)?;
        let label = |src: VarId| {
            nac.edges.iter().find_map(|e| match e.path {
                PathExpr::Label(l) if e.src == src && e.tgt == g => Some(l),
                _ => None,
            })
        };
        let (lc, ld) = (label(c)?, label(d)?);
        let (cell, witness) = (var_type(&r.lhs, None, c), var_type(&r.lhs, Some(nac), d));
        let group = var_type(&r.lhs, Some(nac), g);
        let related =
            |a: NodeTypeId, b: NodeTypeId| types.is_subtype(a, b) || types.is_subtype(b, a);
        let slot_attr = attr_key(types, cell, rc.attr) == attr_key(types, witness, a);
        (lc == ld
            && slot_attr
            && a == rc.attr
            && rc.created.is_none()
            && !related(group, cell)
            && !related(group, witness))
        .then_some(Star {
            group,
            label: lc,
            cell,
            witness,
        })
    }

    /// Adds the NAC's table and hubs to `model`, as [`RuleCompiler::compile_nac`] and
    /// `add_hubs` make them from its matches on `host`; `None`, with nothing added, where
    /// a witness is not a slot or the matches would be too many to list, which the general
    /// compilation handles (or refuses).
    pub(super) fn compile(
        &self,
        types: &TypeSystem,
        model: &mut SlotModel,
        host: &Graph,
        attr: AttrId,
        instances: &Instances,
    ) -> Option<()> {
        // The star's rule has the cell alone for its left side: its first node.
        let placed = instances.placed();
        let slot = |n: NodeId| model.slot_of.get(&(n, attr)).copied();
        let mut scratch = StarScratch::default();
        let StarGroups { hubs, values, .. } = self.groups(
            types,
            host,
            host.find_nodes(),
            (placed, &slot),
            &mut scratch,
            0,
        )?;
        // A NAC that can block nothing adds no table.
        if values == 0 {
            return Some(());
        }
        let table = model.add_table(identity_over(model.d, values));
        for (writers, readers) in hubs {
            model.hubs.push(Hub {
                writers,
                readers,
                table,
            });
        }
        Some(())
    }

    /// What the group nodes among `nodes` of `host` add to the NAC, in node order, its
    /// matches counted on from `matches`; `None` when a member the NAC matches is not a
    /// slot (`slot` finds a node's slot; `placed`, by node index, the values some instance
    /// places there) or the matches pass [`MAX_NAC_MATCHES`].
    pub(super) fn groups(
        &self,
        types: &TypeSystem,
        host: &Graph,
        nodes: impl Iterator<Item = NodeId>,
        (placed, slot): (&[u128], &impl Fn(NodeId) -> Option<u32>),
        scratch: &mut StarScratch,
        matches: usize,
    ) -> Option<StarGroups> {
        let groups = nodes.map(|g| self.group_of(types, host, g, placed, slot, scratch));
        let mut hubs = Vec::with_capacity(groups.size_hint().0);
        let (values, matches) = collect_groups(groups, matches, |w, r| hubs.push((w, r)))?;
        Some(StarGroups {
            hubs,
            values,
            matches,
        })
    }

    /// [`Star::groups`] for the groups `regions` draw (their type, the label of their
    /// members' edges, their members: nodes of a host graph) as if each were a node
    /// added to the host after the others, with an edge from each member; `nodes`, by
    /// node index, what each host node is to the NAC and its slot ([`NodeAt`]), worked
    /// out once for every puzzle drawn on that host; `placed`, by node index, the values
    /// some instance places there. Their hubs are pushed onto `hubs`, in order, with table
    /// 0 (the caller's to set, once it knows the values); the values placed in their
    /// readers and the matches counted on from `matches` are returned. `None` as for
    /// [`Star::groups`] (`hubs` then holds some of them).
    pub(super) fn drawn_groups(
        &self,
        types: &TypeSystem,
        regions: &[(NodeTypeId, LabelId, &[NodeId])],
        (nodes, placed): (&[NodeAt], &[u128]),
        scratch: &mut StarScratch,
        matches: usize,
        hubs: &mut Vec<Hub>,
    ) -> Option<(u128, usize)> {
        let role = |n: NodeId| nodes[n.index()].role;
        let slot = |n: NodeId| nodes.get(n.index()).and_then(|at| at.slot);
        let groups = regions.iter().map(|&(ty, label, members)| {
            if !types.is_subtype(ty, self.group) {
                return Some(None);
            }
            // A group reached by another label has no members to the NAC.
            let members: &[NodeId] = if label == self.label { members } else { &[] };
            // Most regions (a jigsaw's, a cage): every member whole, read in one pass.
            match whole_group(members, nodes, placed) {
                Some(group) => Some(Some(group)),
                None => (self.group_with(members.iter().copied(), &role, placed, &slot, scratch))
                    .map(Some),
            }
        });
        let push = |writers, readers| {
            hubs.push(Hub {
                writers,
                readers,
                table: 0,
            })
        };
        collect_groups(groups, matches, push)
    }

    /// [`Star::drawn_groups`] for the regions one layer draws (node type `ty`, joined to
    /// their cells by `label`), read straight from the puzzle line's cells where every
    /// cell a region holds is whole ([`NodeAt::whole`]): a jigsaw's regions, each a hub of
    /// its cells, without listing each region's members first. `cells[i]` is the region
    /// of grid cell `grid[i]`, `regions` of them, numbered in the order the layer adds
    /// their nodes. Pushes the hubs as [`Star::drawn_groups`] does and returns the values
    /// placed in their readers and the matches counted on from `matches`; `None`, with
    /// `hubs` as it was, where a cell is not whole or the matches pass
    /// [`MAX_NAC_MATCHES`], for the caller to read the regions as that does.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn drawn_from_cells(
        &self,
        types: &TypeSystem,
        (ty, label): (NodeTypeId, LabelId),
        (grid, cells, regions): (&[NodeId], &[Option<u32>], usize),
        (nodes, placed): (&[NodeAt], &[u128]),
        matches: usize,
        hubs: &mut Vec<Hub>,
    ) -> Option<(u128, usize)> {
        // No group node of the star's, or joined by another label: no member, no match.
        if !types.is_subtype(ty, self.group) || label != self.label {
            return Some((0, matches));
        }
        let first = hubs.len();
        hubs.resize_with(first + regions, || Hub {
            writers: Slots::new(),
            readers: Slots::new(),
            table: 0,
        });
        // The values placed in every region's cells: those of the hubs' readers unless
        // a region has a single cell (its cell no reader: read again below).
        let mut values = 0u128;
        for (&n, region) in grid.iter().zip(cells) {
            let Some(r) = *region else {
                continue;
            };
            let Some(slot) = nodes.get(n.index()).and_then(NodeAt::whole) else {
                hubs.truncate(first);
                return None;
            };
            hubs[first + r as usize].writers.push(slot);
            values |= placed[n.index()];
        }
        let size = |r: u32| hubs[first + r as usize].writers.len();
        if (0..regions as u32).any(|r| size(r) < 2) {
            values = (grid.iter().zip(cells))
                .filter(|(_, r)| r.is_some_and(|r| size(r) >= 2))
                .fold(0, |v, (n, _)| v | placed[n.index()]);
        }
        // Each region matched with itself cell by cell; one of a single cell blocks
        // nothing (no hub).
        let (mut matches, mut kept) = (matches, first);
        for r in first..first + regions {
            let size = hubs[r].writers.len();
            matches += size * size;
            if size < 2 {
                continue;
            }
            hubs.swap(kept, r);
            let hub = &mut hubs[kept];
            in_slot_order(&mut hub.writers);
            hub.readers = Slots::from_slice(&hub.writers);
            kept += 1;
        }
        if matches > MAX_NAC_MATCHES {
            hubs.truncate(first);
            return None;
        }
        hubs.truncate(kept);
        Some((values, matches))
    }

    /// What group node `g` of `host` adds to the NAC: `Some(None)` when `g` is no group
    /// node of the star's type; `None` when a member the NAC matches is not a slot.
    fn group_of(
        &self,
        types: &TypeSystem,
        host: &Graph,
        g: NodeId,
        placed: &[u128],
        slot: &impl Fn(NodeId) -> Option<u32>,
        scratch: &mut StarScratch,
    ) -> Option<Option<StarGroup>> {
        if !types.is_subtype(host.ty(g), self.group) {
            return Some(None);
        }
        let members = (host.inc(g).iter())
            .filter(|&&(l, _)| l == self.label)
            .map(|&(_, n)| n);
        let role = |n: NodeId| self.role(types, host, placed, n);
        self.group_with(members, &role, placed, slot, scratch)
            .map(Some)
    }

    /// What node `n` of `host` is to the NAC; `placed` by node index, as in
    /// [`Star::groups`].
    pub(super) fn role(
        &self,
        types: &TypeSystem,
        host: &Graph,
        placed: &[u128],
        n: NodeId,
    ) -> Role {
        let ty = host.ty(n);
        Role {
            cell: types.is_subtype(ty, self.cell),
            witness: types.is_subtype(ty, self.witness),
            placed: placed.get(n.index()).is_some_and(|&p| p != 0),
        }
    }

    /// What a group node whose `members` (nodes of the host graph, each once) reach it by the
    /// star's label adds to the NAC (`role` says what each is to it, see [`Role`]);
    /// `None` when a member the NAC matches is not a slot.
    fn group_with(
        &self,
        members: impl Iterator<Item = NodeId>,
        role: &impl Fn(NodeId) -> Role,
        placed: &[u128],
        slot: &impl Fn(NodeId) -> Option<u32>,
        scratch: &mut StarScratch,
    ) -> Option<StarGroup> {
        let StarScratch { witnesses, reached } = scratch;
        witnesses.clear();
        // A match: a filled cell and another witness of the same group node.
        reached.clear();
        let mut cells = 0;
        for n in members {
            let r = role(n);
            cells += usize::from(r.cell);
            if r.witness {
                witnesses.push(n);
            }
            if r.cell && r.placed {
                reached.push(n);
            }
        }
        let mut values = 0u128;
        // Members listed in node order are mostly in slot order already.
        let sorted = |mut list: Slots| {
            if !list.is_sorted() {
                list.sort_unstable();
            }
            list.dedup();
            list
        };
        let hub = if reached.len() >= 2 && reached == witnesses {
            // Most groups: every member a filled cell and a witness (a region's cells),
            // each matched with another, so the writers are the readers.
            let mut slots = Slots::with_capacity(reached.len());
            for &c in reached.iter() {
                slots.push(slot(c)?);
                values |= placed[c.index()];
            }
            let slots = sorted(slots);
            Some((Slots::from_slice(&slots), slots))
        } else {
            let mut writers = Slots::with_capacity(witnesses.len());
            let mut readers = Slots::with_capacity(reached.len());
            for &c in reached.iter() {
                if witnesses.iter().any(|&d| d != c) {
                    readers.push(slot(c)?);
                    values |= placed[c.index()];
                }
            }
            for &d in witnesses.iter() {
                if reached.iter().any(|&c| c != d) {
                    writers.push(slot(d)?);
                }
            }
            (!writers.is_empty() && !readers.is_empty()).then(|| (sorted(writers), sorted(readers)))
        };
        Some(StarGroup {
            matches: cells * witnesses.len(),
            values,
            hub,
        })
    }

    /// True when nodes of type `ty` can be the NAC's cell or witness.
    pub(super) fn may_be_member(&self, types: &TypeSystem, ty: NodeTypeId) -> bool {
        types.is_subtype(ty, self.cell) || types.is_subtype(ty, self.witness)
    }
}

/// The groups' additions to a star NAC, their matches counted on from `matches`: each
/// group's hub handed to `hub` (writers, readers) in order; the values placed in their
/// readers and the matches returned. `None` where one is (a member not a slot) or the
/// matches pass [`MAX_NAC_MATCHES`].
fn collect_groups(
    groups: impl Iterator<Item = Option<Option<StarGroup>>>,
    mut matches: usize,
    mut hub: impl FnMut(Slots, Slots),
) -> Option<(u128, usize)> {
    let mut values = 0;
    for group in groups {
        let Some(group) = group? else {
            continue;
        };
        matches += group.matches;
        if matches > MAX_NAC_MATCHES {
            return None;
        }
        values |= group.values;
        if let Some((writers, readers)) = group.hub {
            hub(writers, readers);
        }
    }
    Some((values, matches))
}

/// What one group node adds to a star NAC.
struct StarGroup {
    /// The NAC's matches through it.
    matches: usize,
    /// The values placed in its readers.
    values: u128,
    /// Its hub (writers, readers), when it blocks something.
    hub: Option<(Slots, Slots)>,
}

/// What group nodes add to a star NAC.
pub(super) struct StarGroups {
    /// Their hubs (writers, readers), in node order.
    pub(super) hubs: Vec<(Slots, Slots)>,
    /// The values placed in their readers.
    pub(super) values: u128,
    /// The NAC's matches so far.
    pub(super) matches: usize,
}

/// What a member of a group node is to a star NAC: whether it can be the filled cell
/// (its type), whether some rule places a value there, and whether it can be the witness.
#[derive(Clone, Copy, Debug)]
pub(super) struct Role {
    cell: bool,
    placed: bool,
    witness: bool,
}

/// What a node of a host graph is to a star NAC ([`Role`]) and its slot of the rule's
/// attribute, if it has one.
#[derive(Clone, Copy, Debug)]
pub(super) struct NodeAt {
    pub(super) role: Role,
    pub(super) slot: Option<u32>,
}

impl NodeAt {
    /// Its slot where it can be all of a match but the group: the filled cell, a cell some
    /// rule places a value in, and the witness (a region's cell).
    fn whole(&self) -> Option<u32> {
        let Role {
            cell,
            placed,
            witness,
        } = self.role;
        self.slot.filter(|_| cell && placed && witness)
    }
}

/// What [`Star::group_with`] makes of a group of two or more `members`, each whole
/// ([`NodeAt::whole`]): each matched with every other, its slots both writers and
/// readers, read in one pass instead of listing witnesses and filled cells apart; `None`
/// where a member is not whole (or there are fewer than two), for the general reading.
fn whole_group(members: &[NodeId], nodes: &[NodeAt], placed: &[u128]) -> Option<StarGroup> {
    if members.len() < 2 {
        return None;
    }
    let mut slots = Slots::with_capacity(members.len());
    let mut values = 0u128;
    for &n in members {
        slots.push(nodes.get(n.index())?.whole()?);
        values |= placed[n.index()];
    }
    in_slot_order(&mut slots);
    Some(StarGroup {
        matches: members.len() * members.len(),
        values,
        hub: Some((Slots::from_slice(&slots), slots)),
    })
}

/// Sorts `slots`, the distinct slots of a group's members (a node has one slot of the
/// attribute), listed in node or grid order: mostly in slot order already, so checked
/// first.
fn in_slot_order(slots: &mut Slots) {
    if !slots.windows(2).all(|w| w[0] < w[1]) {
        slots.sort_unstable();
    }
}

/// Buffers reused group by group.
#[derive(Default)]
pub(super) struct StarScratch {
    witnesses: Vec<NodeId>,
    reached: Vec<NodeId>,
}

/// The table "the same value" over `values`: row y blocks y where y is one of them.
pub(super) fn identity_over(d: usize, values: u128) -> Vec<u128> {
    (0..d).map(|y| values & (1u128 << y)).collect()
}

/// The witness variable and attribute of `cond` when it is `d.a == param` or
/// `param == d.a`.
fn witness_of(cond: &Expr, p: u32) -> Option<(VarId, AttrId)> {
    let ExprKind::Binary(BinOp::Eq, l, r) = &cond.kind else {
        return None;
    };
    match (&l.kind, &r.kind) {
        (ExprKind::Attr(v, a), ExprKind::Param(q)) | (ExprKind::Param(q), ExprKind::Attr(v, a))
            if *q == p =>
        {
            Some((*v, *a))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::super::nac::{GENERAL_ONLY, STARS};
    use super::super::tests::model_shape;
    use super::super::{compile, SlotModel};
    use crate::grammar::Grammar;
    use crate::load_str;

    /// What the two compilations must agree on: everything the NACs make, or the refusal.
    fn shape(compiled: Result<SlotModel, crate::Refusal>) -> String {
        match compiled {
            Ok(m) => model_shape(&m),
            Err(why) => format!("refused: {why:?}"),
        }
    }

    /// `g` compiled with stars read from the graph and compiled the general way.
    fn both_ways(g: &Grammar) -> (String, String) {
        let quick = shape(compile(g));
        GENERAL_ONLY.set(true);
        let general = shape(compile(g));
        GENERAL_ONLY.set(false);
        (quick, general)
    }

    fn graft_files(dir: &Path, found: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("a directory of the repository") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                graft_files(&path, found);
            } else if path.extension().is_some_and(|e| e == "graft") {
                found.push(path);
            }
        }
    }

    /// Every rule file of the repository, and every puzzle line of the layered batches
    /// beside them, compiles to the same model with stars read from the graph (and
    /// one-node left sides listed node by node) as with every NAC matched, sorted and
    /// factored (and every left side matched).
    #[test]
    fn stars_compile_to_what_the_general_compilation_makes() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        for dir in ["rules", "tests/fixtures", "examples"] {
            graft_files(&root.join(dir), &mut files);
        }
        files.sort();
        let (mut compared, mut puzzles) = (0, 0);
        for path in &files {
            // Some fixtures are not text on purpose (the input tests read them).
            let Ok(text) = std::fs::read_to_string(path) else {
                continue;
            };
            let name = path.display().to_string();
            let Ok(g) = load_str(&name, &text) else {
                continue;
            };
            let (quick, general) = both_ways(&g);
            assert_eq!(quick, general, "{name}");
            compared += 1;
            // A batch of the same name beside it, or the layered fixture of that name.
            let stem = path
                .file_stem()
                .expect("a name")
                .to_string_lossy()
                .to_string();
            let batches = [
                path.with_extension("txt"),
                root.join("tests/fixtures/layers")
                    .join(format!("{stem}.txt")),
            ];
            let Some(batch) = batches.iter().find(|b| b.exists()) else {
                continue;
            };
            let source =
                crate::diag::Source::new("batch.txt", std::fs::read_to_string(batch).unwrap());
            let Ok(lines) = crate::read_puzzles(&g, &source) else {
                continue;
            };
            for p in lines.iter().filter(|p| !p.layers.is_empty()) {
                let (quick, general) = both_ways(&g.with_layers(&p.layers));
                assert_eq!(
                    quick,
                    general,
                    "{name} with {} line {}",
                    batch.display(),
                    p.line
                );
                puzzles += 1;
            }
        }
        // Most rule files have one: rows, columns and boxes.
        assert!(
            STARS.get() > 100,
            "only {} NACs compiled as stars",
            STARS.get()
        );
        assert!(compared > 60, "only {compared} rule files compared");
        assert!(puzzles > 20, "only {puzzles} layered puzzles compared");
    }
}
