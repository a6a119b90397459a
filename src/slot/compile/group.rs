//! NACs with aggregates over the filled cell's group (condition 5 of [`crate::analysis`])
//! compiled to groups: matched once on the start graph, one group per match of the NAC's
//! own nodes, with the cells its aggregates range over.

use std::hash::{BuildHasher, Hash};
use std::ops::ControlFlow;
use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::{FxBuildHasher, FxHashMap};
use smallvec::SmallVec;

use crate::analysis::slot_fill::not_slot;
use crate::analysis::Refusal;
use crate::matcher::{GraphIndex, Matcher, SearchPlan, UNBOUND};
use crate::model::{grouped, AttrId, Graph, NodeId, Value, VarId};
use crate::rule::{Expr, ExprKind, Pattern};

use super::super::group::{multisets, subsets, Contents, Group, GroupAgg, GroupNac};
use super::super::layout::Writes;
use super::super::mask::values_of;
use super::super::model::{SlotModel, Slots};
use super::instances::Instances;
use super::kept::Kept;
use super::nac::KeptForNac;
use super::{attr_key, matches_by_left_side, HostIndex, RuleCompiler, MAX_NAC_MATCHES};

impl RuleCompiler<'_> {
    /// Compiles a NAC the analysis accepted as reading the filled cell's group.
    pub(super) fn compile_group_nac(
        &self,
        model: &mut SlotModel,
        (host, index): (&Graph, &HostIndex),
        nac: &Pattern,
        instances: &Instances,
        kept: KeptForNac,
    ) -> Result<(), Refusal> {
        let (g, r) = (self.g, self.r);
        // Read from the rule alone: the rule file's, kept for its puzzles.
        let group_nac = match kept.reuse.and_then(|f| f.group_nac(kept.key)) {
            Some(known) => known.clone(),
            None => Arc::new(self.group_nac(nac)?),
        };
        if let Some(record) = kept.record {
            record.keep_group_nac(kept.key, group_nac.clone());
        }
        let Some(first) = nac.conds.iter().find_map(|e| {
            let mut found = None;
            e.visit_aggregates(&mut |a| {
                found.get_or_insert(a);
            });
            found
        }) else {
            return not_slot(nac.span, "this NAC holds no aggregate over the group");
        };
        // The NAC's structure: the left side's nodes and the NAC's, joined by its edges.
        let structure = Pattern {
            bound: 0,
            nodes: r.lhs.nodes.iter().chain(&nac.nodes).cloned().collect(),
            edges: nac.edges.clone(),
            conds: Vec::new(),
            nacs: Vec::new(),
            span: nac.span,
        };
        let lhs_len = nac.bound as usize;
        let end = structure.var_end() as usize;
        let index = index.get_or_init(|| GraphIndex::new(&g.types, host, &[]));
        let m = Matcher::new(&g.types, host, &[]).with_index(index);
        let Some(matches) = matches_by_left_side(&m, &structure, lhs_len) else {
            return not_slot(
                nac.span,
                format!(
                    "this NAC's structure has more than {MAX_NAC_MATCHES} matches on the start graph, too many to compile into groups"
                ),
            );
        };
        // The cells an aggregate ranges over, from a full match: its pattern without the
        // conditions on the cell's value, which the group's evaluation reads.
        let range = Pattern {
            bound: first.pattern.bound,
            nodes: first.pattern.nodes.clone(),
            edges: first.pattern.edges.clone(),
            conds: Vec::new(),
            nacs: Vec::new(),
            span: first.pattern.span,
        };
        let range_plan = SearchPlan::compile(&range);
        let c = self.c.index();
        // Per match of the NAC's own nodes: the group's slots, and the slots whose
        // instances reach it (which must be members).
        // Listed in the order of the NAC's own nodes (a cage's node), each group's readers
        // once each, in order.
        let mut groups: Vec<(&[NodeId], Slots, &[NodeId])> = Vec::new();
        let mut group_of: FxHashMap<&[NodeId], usize> = FxHashMap::default();
        // Instances come slot by slot, the values of one slot most often on one binding:
        // its matches are read once.
        let mut last: Option<(u32, &[NodeId])> = None;
        for (&(s, _), i) in instances.iter() {
            if last == Some((s, &i.binding[..])) {
                continue;
            }
            last = Some((s, &i.binding[..]));
            for t in matches.get(&i.binding[..]) {
                let key = &t[lhs_len..];
                match group_of.get(key) {
                    Some(&k) => groups[k].1.push(s),
                    None => {
                        group_of.insert(key, groups.len());
                        groups.push((key, Slots::from_elem(s, 1), t));
                    }
                }
            }
        }
        groups.sort_unstable_by(|a, b| a.0.cmp(b.0));
        for (_, readers, _) in &mut groups {
            readers.sort_unstable();
            readers.dedup();
        }
        let gi = model.group_nacs.len() as u32;
        let reads = own_reads(nac, lhs_len..end);
        for (_, readers, t) in &groups {
            let mut members: Vec<u32> = Vec::new();
            let mut outside = false;
            let mut binding = t.to_vec();
            binding.resize(range_plan.depth.max(range.var_end() as usize), UNBOUND);
            let _ = m.for_each_match(&range_plan, &mut binding, &mut |b| {
                match model.slot_of.get(&(b[range.bound as usize], self.attr)) {
                    Some(&s) => members.push(s),
                    None => outside = true,
                }
                ControlFlow::Continue(())
            });
            match model.slot_of.get(&(t[c], self.attr)) {
                Some(&s) => members.push(s),
                None => outside = true,
            }
            members.sort_unstable();
            members.dedup();
            if outside || readers.iter().any(|r| members.binary_search(r).is_err()) {
                return not_slot(
                    nac.span,
                    "this NAC's aggregates range over cells other than the slots of one group holding the filled cell",
                );
            }
            Arc::make_mut(&mut model.groups).push(Group {
                nac: gi,
                members,
                statics: reads
                    .iter()
                    .map(|&(v, a)| (v, a, host.attr(t[v.index()], a)))
                    .collect(),
                feasible: None,
                pairs: Vec::new(),
                implied_by: Vec::new(),
            });
        }
        model.group_nacs.push(group_nac);
        Ok(())
    }

    /// The conditions and aggregates of group NAC `nac`, read from the rule alone; refused
    /// where the slot engine does not evaluate them.
    fn group_nac(&self, nac: &Pattern) -> Result<GroupNac, Refusal> {
        let (g, r) = (self.g, self.r);
        if self.created.is_some() || !matches!(self.value.kind, ExprKind::Param(0)) {
            return not_slot(
                nac.span,
                format!(
                    "rule `{}` holds an aggregate NAC; the slot engine evaluates those where the rule sets the cell to its parameter (`set c.val = v`)",
                    r.name
                ),
            );
        }
        // The aggregates over the group: one cell `d` of the filled type each.
        let mut aggs = Vec::new();
        // Per aggregate, what `GroupEnv` folds (the operation, the member's variable and
        // conditions, the body, spans aside; the attribute is the rule's for all):
        // aggregates written alike fold once per placement judged.
        let mut folds = Vec::new();
        let mut foreign = None;
        for e in &nac.conds {
            e.visit_aggregates(&mut |a| {
                let p = &a.pattern;
                let cell = match p.nodes.as_slice() {
                    [d] => self.dynamic.contains(&attr_key(&g.types, d.ty, self.attr)),
                    _ => false,
                };
                if cell && p.nacs.is_empty() {
                    let (d, conds) = (VarId(p.bound), &p.conds);
                    let fold = (
                        a.op,
                        d,
                        conds.iter().map(Expr::without_spans).collect::<Vec<_>>(),
                        a.body.as_ref().map(Expr::without_spans),
                    );
                    let first = folds.iter().position(|f| *f == fold).unwrap_or(aggs.len());
                    folds.push(fold);
                    aggs.push(GroupAgg {
                        id: a.id,
                        op: a.op,
                        d,
                        attr: self.attr,
                        conds: conds.clone(),
                        body: a.body.clone(),
                        first,
                    });
                } else {
                    foreign.get_or_insert((a.op.name(), e.span));
                }
            });
        }
        if let Some((op, span)) = foreign {
            return not_slot(
                span,
                format!(
                    "beside aggregates over the filled cell's group, this NAC holds `{op}(...)` over other nodes, which the slot engine does not evaluate"
                ),
            );
        }
        // Listings are kept under the conditions as written, not where: the rule files one
        // template makes (a kakuro shape each) share them.
        let conds: Vec<Expr> = nac.conds.iter().map(Expr::without_spans).collect();
        let fingerprint = FxBuildHasher.hash_one(&conds);
        Ok(GroupNac {
            conds: nac.conds.clone(),
            aggs,
            written: written_once(conds, fingerprint),
            fingerprint,
        })
    }
}

/// The attributes of the NAC's own nodes (variables `own`) its conditions read, each once
/// in the order met: a group's unchanging values (a cage's sum).
pub(super) fn own_reads(nac: &Pattern, own: std::ops::Range<usize>) -> Vec<(VarId, AttrId)> {
    let mut reads: Vec<(VarId, AttrId)> = Vec::new();
    for e in &nac.conds {
        e.visit_attrs(&mut |v, a| {
            if own.contains(&v.index()) && !reads.contains(&(v, a)) {
                reads.push((v, a));
            }
        });
    }
    reads
}

/// What the contents of a group depend on: its NAC's conditions (by their hash; a listing
/// kept also keeps the conditions, the one copy [`written_once`] gives, compared by
/// address on each hit), the unchanging attributes they
/// read (a cage's sum), the values its members allow, its size and the values no two of its
/// members may share.
#[derive(Clone, PartialEq, Eq, Hash)]
struct FeasibleKey {
    conds: u64,
    statics: SmallVec<[Value; 2]>,
    domain: u128,
    size: usize,
    /// The values no two members may share.
    once: u128,
}

/// The most listings a thread keeps between compilations (each keeps its own: see
/// `Kept`).
const MAX_KEPT: usize = 1 << 12;

/// The contents for `key`, from `list` the first time. Kept for the thread: a batch of
/// puzzles with layers compiles a model per puzzle, and their cages repeat the same few
/// sizes and sums.
fn feasible_contents(
    key: FeasibleKey,
    conds: &Arc<[Expr]>,
    list: impl FnOnce() -> Option<Contents>,
) -> Option<Arc<Contents>> {
    static KEPT: Kept<FeasibleKey, Listing<Arc<Contents>>> = Kept::new(MAX_KEPT);
    kept_listing(&KEPT, key, conds, || list().map(Arc::new))
}

/// What a listing of sets reads whatever the unchanging attributes are: the NAC's
/// conditions (as in [`FeasibleKey`]), the values the members allow and the group's size.
#[derive(Clone, PartialEq, Eq, Hash)]
struct FoldsKey {
    conds: u64,
    domain: u128,
    size: usize,
}

/// Every set of a group's size from its domain, each with the NAC's aggregates folded
/// over it ([`GroupNac::folds_full`]).
type SetFolds = Arc<[(u128, SmallVec<[Value; 8]>)]>;

/// The most folded listings a thread keeps: a batch's groups take a few sizes over a few
/// domains, and a listing may hold thousands of sets.
const MAX_KEPT_FOLDS: usize = 64;

/// The sets and folds for `key`, from `list` the first time; `None` when they are too
/// many to list. Kept for the thread: a killer batch lists its cages' sets for each of
/// their sums, and the folds, most of a set's judgement, are the same for every sum.
fn folded_sets(
    key: FoldsKey,
    conds: &Arc<[Expr]>,
    list: impl FnOnce() -> Option<SetFolds>,
) -> Option<SetFolds> {
    static KEPT: Kept<FoldsKey, Listing<SetFolds>> = Kept::new(MAX_KEPT_FOLDS);
    kept_listing(&KEPT, key, conds, list)
}

/// A listing kept with the conditions it was made for (the one copy [`written_once`]
/// gives): `None` when there were too many to list.
type Listing<T> = (Arc<[Expr]>, Option<T>);

/// The listing `kept` holds for `key` and conditions `conds` (compared by address), or
/// `list`'s, kept for the next time.
fn kept_listing<K: Eq + Hash, T: Clone>(
    kept: &Kept<K, Listing<T>>,
    key: K,
    conds: &Arc<[Expr]>,
    list: impl FnOnce() -> Option<T>,
) -> Option<T> {
    let hit = kept.find(&key, |(c, listed)| {
        Arc::ptr_eq(c, conds).then(|| listed.clone())
    });
    if let Some(listed) = hit.flatten() {
        return listed;
    }
    let listed = list();
    kept.keep(key, (conds.clone(), listed.clone()));
    listed
}

/// The process's one copy of `conds` (a group NAC's conditions, spans left out) with
/// `hash`: compared in full once per compilation, so that each group's listing is then
/// found by address (a killer puzzle has dozens of cages, each compared to be sure the
/// conditions matched, not only their hash).
fn written_once(conds: Vec<Expr>, hash: u64) -> Arc<[Expr]> {
    type Written = FxHashMap<u64, Vec<Arc<[Expr]>>>;
    static WRITTEN: OnceLock<Mutex<Written>> = OnceLock::new();
    let written = WRITTEN.get_or_init(|| Mutex::new(FxHashMap::default()));
    let Ok(mut written) = written.lock() else {
        return conds.into();
    };
    if written.len() >= MAX_KEPT {
        written.clear();
    }
    let alike = written.entry(hash).or_default();
    if let Some(same) = alike.iter().find(|c| ***c == conds[..]) {
        return same.clone();
    }
    let conds: Arc<[Expr]> = conds.into();
    alike.push(conds.clone());
    conds
}

/// Lists, for each group, the contents it may end with: multisets in which a value two
/// members can never share appears at most once (sets where that is every value). The
/// NAC's condition is a function of the group's content (the analysis' condition 5), so
/// one evaluation per content decides it. Runs once every NAC is compiled (the hubs that
/// make a group's values differ may come from a later NAC). Groups alike (same NAC, size,
/// unchanging attributes and values) share one listing. Groups over the same members (a
/// circle's one NAC per digit) then keep only the contents all of them allow, so that
/// each propagates them all.
pub(super) fn list_feasible(model: &mut SlotModel) {
    // Most grammars have no group NACs; what follows reads every hub, for each puzzle.
    if model.groups.is_empty() {
        return;
    }
    let d = model.d;
    // Per table, the values it blocks in a reader while its writer holds them.
    let same: Vec<u128> = model
        .tables
        .iter()
        .map(|t| {
            (0..d)
                .filter(|&y| t[y] >> y & 1 == 1)
                .fold(0, |m, y| m | 1u128 << y)
        })
        .collect();
    // Per slot, the hubs it both writes and reads, with their tables: two slots of one
    // such hub never hold both one of the values its table keeps apart (the first placed
    // blocks the other).
    // Listed once: `grouped` walks its pairs twice, and a hub's readers are searched for
    // each of its writers. Sized at once, and small (tables, not their masks): a killer's
    // hubs are hundreds, and growing and copying this list was a tenth of regrouping one
    // of its lines.
    let listed = (model.hubs.iter())
        .filter(|hub| same[hub.table as usize] != 0)
        .map(|hub| hub.writers.len())
        .sum();
    let mut both: Vec<(u32, (u32, u32))> = Vec::with_capacity(listed);
    for (h, hub) in model.hubs.iter().enumerate() {
        if same[hub.table as usize] != 0 {
            // Most hubs' readers are their writers (an all-different group).
            let all_read = hub.readers == hub.writers;
            let read = |w: &&u32| all_read || hub.readers.contains(w);
            both.extend(
                hub.writers
                    .iter()
                    .filter(read)
                    .map(|&w| (w, (h as u32, hub.table))),
            );
        }
    }
    let (apart_start, apart) = grouped(model.slots.len(), || both.iter().copied());
    let apart =
        |s: u32| &apart[apart_start[s as usize] as usize..apart_start[s as usize + 1] as usize];
    for gi in 0..model.groups.len() {
        let group = &model.groups[gi];
        let members = &group.members;
        // The values every pair of members keeps apart.
        let mut once = !0u128;
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                let pair = apart(a)
                    .iter()
                    .filter(|(h, _)| apart(b).iter().any(|(g, _)| g == h))
                    .fold(0u128, |m, &(_, t)| m | same[t as usize]);
                once &= pair;
            }
        }
        let domain = members
            .iter()
            .fold(0u128, |m, &s| m | model.allowed[s as usize]);
        let nac = &model.group_nacs[group.nac as usize];
        let key = FeasibleKey {
            conds: nac.fingerprint,
            statics: group.statics.iter().map(|s| s.2).collect(),
            domain,
            size: members.len(),
            once: once & domain,
        };
        let n = members.len();
        let feasible = feasible_contents(key, &nac.written, || {
            // On the stack: one content of many, a cage's or a run's few values.
            let values =
                |set: u128| -> SmallVec<[u16; 16]> { values_of(set).map(u16::from).collect() };
            Some(if domain & !once == 0 {
                // Sets, listed as masks with their folds, for every value of the
                // unchanging attributes; each judged from its values and folds, and
                // listed only where the NAC allows it.
                let folds_key = FoldsKey {
                    conds: nac.fingerprint,
                    domain,
                    size: n,
                };
                let sets = folded_sets(folds_key, &nac.written, || {
                    let sets = subsets(domain, n)?;
                    let folded = sets
                        .into_iter()
                        .map(|set| (set, nac.folds_full(group, &values(set))));
                    Some(folded.collect())
                })?;
                let sets = sets
                    .iter()
                    .filter(|(set, folds)| nac.allows_full_folded(group, &values(*set), folds));
                Contents::of_sets(n, sets.map(|&(set, _)| set))
            } else {
                let lists = multisets(domain, once, n)?.into_iter().filter(|l| {
                    let values: SmallVec<[u16; 16]> = l.iter().map(|&x| u16::from(x)).collect();
                    nac.allows_full(group, &values)
                });
                Contents::new(n, lists)
            })
        });
        Arc::make_mut(&mut model.groups)[gi].feasible = feasible;
    }
    // Groups over the same members: each keeps the contents every one of them allows.
    // Sorted by members, each run of one (a list of lists per puzzle was an allocation
    // per cage).
    let mut alike: Vec<(&[u32], usize)> = (model.groups.iter().enumerate())
        .filter(|(_, group)| group.feasible.is_some())
        .map(|(gi, group)| (&group.members[..], gi))
        .collect();
    alike.sort_unstable();
    let joint: Vec<(Vec<usize>, Arc<Contents>)> = alike
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
        .filter_map(|run| {
            let feasible = |k: usize| model.groups[run[k].1].feasible.as_ref();
            let mut all = feasible(0)?.intersect(feasible(1)?);
            for k in 2..run.len() {
                all = all.intersect(feasible(k)?);
            }
            Some((run.iter().map(|&(_, g)| g).collect(), Arc::new(all)))
        })
        .collect();
    for (gs, all) in joint {
        for g in gs {
            Arc::make_mut(&mut model.groups)[g].feasible = Some(all.clone());
        }
    }
    super::remainder::add_remainders(model);
    list_pairs(model);
}

/// Lists each group's [`Group::pairs`]: for every hub a member writes whose table blocks
/// some value other than the one held, its readers among the members.
fn list_pairs(model: &mut SlotModel) {
    let d = model.d;
    // Per table, whether it blocks some value other than the one held.
    let relates: Vec<bool> = (model.tables.iter())
        .map(|t| (0..d).any(|x| t[x] & !(1u128 << x) != 0))
        .collect();
    if !relates.contains(&true) {
        // No group has related members (every killer and jigsaw file): each keeps the
        // empty list it was made with.
        return;
    }
    let mut writes = Writes::new(model, |t| relates[t as usize]);
    let mut buffer = Vec::new();
    let pairs: Vec<Vec<(u16, u16, u32)>> = model
        .groups
        .iter()
        .map(|g| match g.feasible {
            Some(_) => {
                writes.among(model, &g.members, &mut buffer);
                buffer.clone()
            }
            None => Vec::new(),
        })
        .collect();
    for (group, pairs) in Arc::make_mut(&mut model.groups).iter_mut().zip(pairs) {
        group.pairs = pairs;
    }
}
