//! The compiled form of a slot grammar: slots, the values rules may place in them, the
//! hubs that answer NACs, and what the grammar allows the explorer to assume.

use std::sync::Arc;

use crate::analysis::final_cond::{conjuncts, fill_condition};
use crate::analysis::{Refusal, RefusalKind};
use crate::diag::Span;
use crate::grammar::Grammar;
use crate::matcher::CompiledCondition;
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::model::{grouped, AttrId, NodeId, NodeTypeId, Value};
use crate::rule::Condition;

use super::forbid::SlotForbids;
use super::group::{Group, GroupNac};
use super::shared_ground::GroundCache;

/// Slots by index, sorted: a hub's writers or readers. Up to nine inline: a neighbour
/// relation's hub (a layered puzzle's compilation makes thousands) and a 9x9 grid's row,
/// column, box or region, which a regrouped puzzle copies per puzzle, without allocating.
pub type Slots = SmallVec<[u32; 9]>;

/// A NAC index: the union of `table[value]` over its writers' values blocks those placed
/// values in each of its readers.
#[derive(Debug, PartialEq, Eq)]
pub struct Hub {
    pub writers: Slots,
    pub readers: Slots,
    pub table: u32,
}

// By hand: a derived clone copies each `Slots` value by value, which was the most of
// copying a regrouped puzzle's rule file hubs; slots are `Copy`, so one copy each.
impl Clone for Hub {
    fn clone(&self) -> Hub {
        Hub {
            writers: Slots::from_slice(&self.writers),
            readers: Slots::from_slice(&self.readers),
            table: self.table,
        }
    }
}

/// Cells filled by replacement: a rule deletes the cell and creates a node of type `ty` in
/// its place, whose slot attribute holds the value.
#[derive(Clone, Debug)]
pub struct Replacement {
    pub ty: NodeTypeId,
    /// Per slot, the created node's attributes with the value attribute `none`.
    pub attrs: Vec<SmallVec<[Value; 4]>>,
}

/// How final states are recognised.
#[derive(Clone, Debug)]
pub enum FinalKind {
    /// Final exactly when every slot is filled.
    Full,
    /// Final when every slot is filled and the condition holds.
    FullAnd(Arc<CompiledCondition>),
    /// Final when the condition holds (it may hold with empty slots).
    Cond(Arc<CompiledCondition>),
    /// No `final:`: final when no rule applies.
    Stuck,
}

#[derive(Clone, Debug)]
pub struct SlotModel {
    /// Domain size.
    pub d: usize,
    /// Each slot's node and attribute. This, `slot_of`, `rule_of` and `tables` are
    /// shared by `Arc` with the models of a rule file's puzzles, which only add hubs.
    pub slots: Arc<Vec<(NodeId, AttrId)>>,
    pub slot_of: Arc<FxHashMap<(NodeId, AttrId), u32>>,
    /// Per slot: the values some rule may place there (bit x = value x).
    pub allowed: Arc<Vec<u128>>,
    /// Per slot: the rule that fills it.
    pub rule_of: Arc<Vec<Option<usize>>>,
    pub hubs: Vec<Hub>,
    /// `tables[t][y]`: placed values blocked while a writer holds `y`.
    pub tables: Arc<Vec<Vec<u128>>>,
    pub final_kind: FinalKind,
    /// Ok when blocking is symmetric: "x in a is blocked by y in b" exactly when "y in b
    /// is blocked by x in a". Then every reachable state's placements are pairwise
    /// consistent, the order of placements does not matter, and every subset of a
    /// reachable state is reachable.
    pub symmetric: Result<(), Refusal>,
    /// Ok when `--expand focus` is sound (see [`crate::analysis`]); otherwise the reason.
    pub focus_sound: Result<(), Refusal>,
    /// Hubs whose members must hold every value exactly once in a final state.
    pub once: Vec<u32>,
    /// Set when rules fill a cell by replacing it with a new node.
    pub replaced: Option<Replacement>,
    /// NACs with aggregates over the filled cell's group, and their groups (shared with
    /// the solver's tables, which would otherwise copy every group's lists per puzzle).
    pub group_nacs: Vec<Arc<GroupNac>>,
    pub groups: Arc<Vec<Group>>,
    /// The `forbid` patterns' instances, when the file has any.
    pub forbids: Option<SlotForbids>,
}

/// Whether the table `t` over `d` values is "the same value": each value held blocks
/// itself and nothing else (an all-different group's).
pub(crate) fn is_same_value(t: &[u128], d: usize) -> bool {
    (0..d).all(|y| t[y] == 1u128 << y)
}

/// Whether the table `t` over `d` values is symmetric: `x` blocked while `y` is held
/// exactly when `y` is blocked while `x` is.
fn table_symmetric(t: &[u128], d: usize) -> bool {
    (0..d).all(|y| (0..d).all(|x| (t[y] >> x & 1) == (t[x] >> y & 1)))
}

/// What decides whether the blocking between two slots is symmetric: the tables of the
/// hubs that relate them one way (`ab`: the first slot reads, the second writes) and the
/// other (`ba`), those of the self-symmetric hubs they share, and the values each allows.
#[derive(PartialEq, Eq, Hash)]
struct PairKey {
    ab: SmallVec<[u32; 2]>,
    ba: SmallVec<[u32; 2]>,
    shared: SmallVec<[u32; 2]>,
    allowed: (u128, u128),
}

impl SlotModel {
    pub(super) fn new(
        _g: &Grammar,
        slots: Vec<(NodeId, AttrId)>,
        slot_of: FxHashMap<(NodeId, AttrId), u32>,
        d: usize,
    ) -> SlotModel {
        let n = slots.len();
        SlotModel {
            d,
            slots: Arc::new(slots),
            slot_of: Arc::new(slot_of),
            allowed: Arc::new(vec![0; n]),
            rule_of: Arc::new(vec![None; n]),
            hubs: Vec::new(),
            tables: Arc::default(),
            final_kind: FinalKind::Stuck,
            symmetric: Ok(()),
            focus_sound: Ok(()),
            once: Vec::new(),
            replaced: None,
            group_nacs: Vec::new(),
            groups: Arc::default(),
            forbids: None,
        }
    }

    /// This model with `hubs` for its hubs (copying the rest, not the hubs it replaces),
    /// to be finished again: the exactly-once hubs start empty, as in a compilation, for
    /// [`SlotModel::finish_regrouped`] (or [`SlotModel::finish_hubs`]) to find where
    /// focus is sound.
    pub(super) fn with_hubs(&self, hubs: Vec<Hub>) -> SlotModel {
        SlotModel {
            d: self.d,
            slots: self.slots.clone(),
            slot_of: self.slot_of.clone(),
            allowed: self.allowed.clone(),
            rule_of: self.rule_of.clone(),
            hubs,
            tables: self.tables.clone(),
            final_kind: self.final_kind.clone(),
            symmetric: self.symmetric.clone(),
            focus_sound: self.focus_sound.clone(),
            once: Vec::new(),
            replaced: self.replaced.clone(),
            group_nacs: self.group_nacs.clone(),
            groups: self.groups.clone(),
            forbids: self.forbids.clone(),
        }
    }

    /// Whether cells are set, not replaced, and the model has no `forbid` instances, no
    /// groups and no group NACs: what a puzzle's layers may reuse it by.
    pub(super) fn is_plain(&self) -> bool {
        self.replaced.is_none()
            && self.forbids.is_none()
            && self.groups.is_empty()
            && self.group_nacs.is_empty()
    }

    pub(super) fn add_table(&mut self, table: Vec<u128>) -> u32 {
        match self.tables.iter().position(|t| *t == table) {
            Some(i) => i as u32,
            None => {
                Arc::make_mut(&mut self.tables).push(table);
                (self.tables.len() - 1) as u32
            }
        }
    }

    /// `r1c1.val`, for messages; `r1c1` for a cell filled by replacement (the attribute is
    /// the new node's).
    pub fn slot_name(&self, g: &Grammar, s: u32) -> String {
        let (n, a) = self.slots[s as usize];
        let node = g
            .names
            .get(n.index())
            .map(str::to_owned)
            .unwrap_or_else(|| format!("#{}", n.0));
        match g.types.node(g.base.ty(n)).attrs.get(a.index()) {
            Some(attr) if self.replaced.is_none() => format!("{node}.{}", attr.name),
            _ => node,
        }
    }

    pub fn full_mask(&self) -> u128 {
        if self.d >= u128::BITS as usize {
            u128::MAX
        } else {
            (1u128 << self.d) - 1
        }
    }

    /// Derives what the explorer may assume: how finals look, symmetry, focus soundness
    /// and the exactly-once groups. The final condition's compiled part comes from
    /// `shared` (the rule file's, which serves `g`) where another puzzle compiled it.
    pub(super) fn finish(&mut self, g: &Grammar, shared: Option<&GroundCache>) {
        self.final_kind = self.classify_final(g, shared);
        self.finish_hubs(g);
    }

    /// What [`SlotModel::finish`] derives from the hubs, the final condition's kind
    /// already known: for a model whose hubs alone differ from a finished one's.
    pub(super) fn finish_hubs(&mut self, g: &Grammar) {
        self.symmetric = self.check_symmetric(g);
        self.finish_symmetric(g);
    }

    /// What [`SlotModel::finish_hubs`] derives once whether blocking is symmetric is
    /// known (`symmetric` set): focus soundness and the exactly-once hubs.
    pub(super) fn finish_symmetric(&mut self, g: &Grammar) {
        let refused = |reason: &str| {
            Err(Refusal::new(
                Span::default(),
                RefusalKind::NotFocusSound,
                reason,
            ))
        };
        self.focus_sound = match (&self.symmetric, &self.final_kind) {
            (Err(e), _) => Err(e.clone()),
            (Ok(()), FinalKind::Full | FinalKind::FullAnd(_)) => Ok(()),
            (Ok(()), FinalKind::Stuck) => refused(
                "the file has no `final:` condition, so every dead end is final, and focus would skip them",
            ),
            (Ok(()), FinalKind::Cond(_)) => refused(
                "the final condition does not require every slot to be filled, so final states may lie off the focus path",
            ),
        };
        // Pruning by a `forbid` pattern keeps the final states only where it is monotone.
        if self.focus_sound.is_ok() && !g.forbids.is_empty() {
            self.focus_sound = crate::analysis::forbid::check(g);
        }
        if self.focus_sound.is_ok() {
            let once = self.once_test();
            let listed = (0..self.hubs.len() as u32)
                .filter(|&h| once(&self.hubs[h as usize]))
                .collect();
            drop(once);
            self.once = listed;
        }
    }

    /// Per table, whether it is "the same value" ([`is_same_value`]).
    pub(crate) fn same_value_tables(&self) -> Vec<bool> {
        (self.tables.iter())
            .map(|t| is_same_value(t, self.d))
            .collect()
    }

    /// Whether a hub is exactly-once: as many writers as values, each allowing only
    /// values, that are its readers and block exactly the value held.
    fn once_test(&self) -> impl Fn(&Hub) -> bool + '_ {
        let full = self.full_mask();
        // Each table asked once whether it is "the same value".
        let identity = self.same_value_tables();
        move |hub: &Hub| {
            hub.writers.len() == self.d
                && identity[hub.table as usize]
                && hub.writers == hub.readers
                && (hub.writers.iter()).all(|&s| self.allowed[s as usize] & !full == 0)
        }
    }

    /// Whether every hub blocks its own writers alike both ways (readers are writers and
    /// the table is symmetric), which makes the whole blocking symmetric.
    pub(super) fn all_self_symmetric(&self) -> bool {
        self.self_symmetric_besides(&[])
    }

    /// Whether every hub but those in `skip` blocks its own writers alike both ways (its
    /// readers are its writers, its table symmetric).
    pub(super) fn self_symmetric_besides(&self, skip: &[std::ops::Range<usize>]) -> bool {
        let mut symmetric_tables: Vec<Option<bool>> = vec![None; self.tables.len()];
        (self.hubs.iter().enumerate())
            .filter(|(h, _)| !skip.iter().any(|r| r.contains(h)))
            .all(|(_, hub)| {
                hub.writers == hub.readers
                    && *symmetric_tables[hub.table as usize].get_or_insert_with(|| {
                        table_symmetric(&self.tables[hub.table as usize], self.d)
                    })
            })
    }

    /// Whether table `t` is table `u` transposed: `y` of `t` blocks `x` exactly where `x`
    /// of `u` blocks `y`.
    pub(super) fn tables_transposed(&self, t: u32, u: u32) -> bool {
        let (t, u) = (&self.tables[t as usize], &self.tables[u as usize]);
        (0..self.d).all(|y| (0..self.d).all(|x| (t[y] >> x & 1) == (u[x] >> y & 1)))
    }

    /// [`SlotModel::finish_hubs`] for this model, a regrouped puzzle's, whose hubs are
    /// those of `file` (a finished model of the same slots and tables) at `copied`
    /// (`(old, at)`: `file.hubs[old]` are these hubs from `at` on) and new ones elsewhere.
    /// Where every hub of both blocks its own writers alike both ways (`self_symmetric`,
    /// as [`SlotModel::all_self_symmetric`] says), blocking is symmetric, focus is as
    /// sound as `file`'s, and the copied hubs keep its exactly-once verdicts: only the
    /// new hubs are looked at. Otherwise all of it is worked out again.
    pub(super) fn finish_regrouped(
        &mut self,
        g: &Grammar,
        file: &SlotModel,
        copied: &[(std::ops::Range<usize>, usize)],
        self_symmetric: bool,
    ) {
        if !self_symmetric || file.symmetric.is_err() {
            return self.finish_hubs(g);
        }
        self.symmetric = Ok(());
        self.focus_sound = file.focus_sound.clone();
        self.once = Vec::new();
        if self.focus_sound.is_err() {
            return;
        }
        let once = self.once_test();
        let mut listed = Vec::with_capacity(
            file.once.len() + self.hubs.len() - copied.iter().map(|(r, _)| r.len()).sum::<usize>(),
        );
        let mut next = 0;
        let mut file_once = file.once.iter().map(|&h| h as usize).peekable();
        for (old, at) in copied {
            // The new hubs before these copied ones.
            listed.extend(
                (next..*at)
                    .filter(|&h| once(&self.hubs[h]))
                    .map(|h| h as u32),
            );
            while file_once.next_if(|&h| h < old.start).is_some() {}
            while let Some(h) = file_once.next_if(|h| old.contains(h)) {
                listed.push((h - old.start + at) as u32);
            }
            next = at + old.len();
        }
        listed.extend(
            (next..self.hubs.len())
                .filter(|&h| once(&self.hubs[h]))
                .map(|h| h as u32),
        );
        drop(once);
        self.once = listed;
    }

    fn classify_final(&self, g: &Grammar, shared: Option<&GroundCache>) -> FinalKind {
        let Some(cond) = &g.final_cond else {
            return FinalKind::Stuck;
        };
        let (full, rest): (Vec<&Condition>, Vec<&Condition>) = conjuncts(cond)
            .into_iter()
            .partition(|c| self.is_all_filled(g, c));
        let compile = || match rest.len() {
            1 => CompiledCondition::compile(rest[0]),
            _ => {
                CompiledCondition::compile(&Condition::And(rest.iter().copied().cloned().collect()))
            }
        };
        let rest_cond = match (rest.len(), shared) {
            (0, _) => None,
            // Known by which conjuncts it holds: the rule file's condition is the same.
            (_, Some(cache)) => Some(
                cache.final_rest(
                    rest.iter()
                        .map(|c| std::ptr::from_ref(*c) as usize)
                        .collect(),
                    compile,
                ),
            ),
            (_, None) => Some(Arc::new(compile())),
        };
        match (full.is_empty(), rest_cond) {
            (false, None) => FinalKind::Full,
            (false, Some(c)) => FinalKind::FullAnd(c),
            (true, Some(c)) => FinalKind::Cond(c),
            (true, None) => FinalKind::Stuck,
        }
    }

    /// True for `not { n: T { a == none } }` where the pattern's matches are exactly the
    /// empty slots; for cells filled by replacement, `not { n: T }` where the matches are
    /// exactly the cells not yet replaced.
    pub(super) fn is_all_filled(&self, g: &Grammar, c: &Condition) -> bool {
        let Some((p, tested)) = fill_condition(c) else {
            return false;
        };
        let ty = p.nodes[0].ty;
        let attr = match (&self.replaced, tested) {
            (Some(r), None) if !g.types.is_subtype(r.ty, ty) => None,
            (None, Some(a)) => Some(a),
            _ => return false,
        };
        // Every slot is matched by the pattern, and the pattern matches only slots.
        let covers_slots = self
            .slots
            .iter()
            .all(|&(n, a)| attr.is_none_or(|b| a == b) && g.types.is_subtype(g.base.ty(n), ty));
        let Some(&(_, slot_attr)) = self.slots.first() else {
            return false;
        };
        let only_slots = g
            .base
            .find_nodes()
            .filter(|&n| g.types.is_subtype(g.base.ty(n), ty))
            .all(|n| self.slot_of.contains_key(&(n, attr.unwrap_or(slot_attr))));
        covers_slots && only_slots
    }

    /// Compares "x at a blocked by y at b" with "y at b blocked by x at a" over every pair
    /// of slots that share a hub.
    fn check_symmetric(&self, g: &Grammar) -> Result<(), Refusal> {
        // Where every hub blocks its own writers symmetrically (readers are writers, and
        // `x` blocked by `y` exactly when `y` is blocked by `x`: all-different groups), the
        // union over hubs is symmetric too; pair by pair is only needed otherwise.
        // Each table is looked at once, and only if a hub whose readers are its writers
        // has it: a model holds tables no such hub uses (a regrouped puzzle's, checked here
        // where some hub of it is not self-symmetric, holds every table of its file).
        let mut symmetric_tables: Vec<Option<bool>> = vec![None; self.tables.len()];
        let d = self.d;
        let mut self_symmetric = |hub: &Hub| {
            hub.writers == hub.readers
                && *symmetric_tables[hub.table as usize]
                    .get_or_insert_with(|| table_symmetric(&self.tables[hub.table as usize], d))
        };
        // Only pairs some other hub relates can be one-sided: a pair that only
        // self-symmetric hubs relate is blocked alike both ways. Those pairs take the
        // rows of every hub that relates them, the self-symmetric ones included.
        // Most models' hubs all are (a rule file's rows, columns and boxes): said without
        // listing them.
        if self.hubs.iter().all(&mut self_symmetric) {
            return Ok(());
        }
        let (sym, other): (Vec<&Hub>, Vec<&Hub>) =
            self.hubs.iter().partition(|h| self_symmetric(h));
        // Every (reader, writer, table) the other hubs hold, grouped by unordered pair in
        // a fixed order, so that the refusal names the same pair on every run.
        let mut arcs: Vec<(u32, u32, u32, u32)> = Vec::new();
        for hub in &other {
            for &r in &hub.readers {
                for &w in hub.writers.iter().filter(|&&w| w != r) {
                    arcs.push((r.min(w), r.max(w), r, hub.table));
                }
            }
        }
        arcs.sort_unstable();
        arcs.dedup();
        // The self-symmetric hubs each slot writes, in hub order.
        let (sym_start, sym_of) = grouped(self.slots.len(), || {
            sym.iter()
                .enumerate()
                .flat_map(|(h, hub)| hub.writers.iter().map(move |&s| (s, h as u32)))
        });
        let sym_of =
            |s: u32| &sym_of[sym_start[s as usize] as usize..sym_start[s as usize + 1] as usize];
        // Per direction, the union of the tables of the hubs that relate the pair: row y
        // of (a, b) holds the values x in a that y in b blocks. Column y of (b, a): the
        // values x in a that block y in b, set bit by bit from the rows (tables are
        // sparse), not read a bit per row for each y.
        let (mut ab, mut ba, mut columns) = (vec![0u128; d], vec![0u128; d], vec![0u128; d]);
        let or = |rows: &mut [u128], table: u32| {
            for (row, t) in rows.iter_mut().zip(&self.tables[table as usize]) {
                *row |= t;
            }
        };
        // The pairs found symmetric, by what decides it: the tables of each direction and
        // the values each slot allows. Most pairs repeat one of a few (a bar or none
        // between neighbours of one row), compared once.
        let mut symmetric: FxHashSet<PairKey> = FxHashSet::default();
        // Whether table `t` is table `u` transposed, per pair of tables asked.
        let mut transposed: FxHashMap<(u32, u32), bool> = FxHashMap::default();
        for pair in arcs.chunk_by(|p, q| (p.0, p.1) == (q.0, q.1)) {
            // One hub each way, whose tables are each other's transposes (the bar between
            // two neighbours, read by a NAC from either side): with the self-symmetric
            // hubs both slots write, the pair blocks alike both ways, whatever values
            // either slot allows. Most pairs of a model with such marks are this.
            if let [(_, _, r, t), (_, _, s, u)] = *pair {
                if r != s
                    && *transposed
                        .entry((t, u))
                        .or_insert_with_key(|&(t, u)| self.tables_transposed(t, u))
                {
                    continue;
                }
            }
            let (a, b) = (pair[0].0, pair[0].1);
            let (in_a, in_b) = (self.allowed[a as usize], self.allowed[b as usize]);
            let mut key = PairKey {
                ab: SmallVec::new(),
                ba: SmallVec::new(),
                shared: SmallVec::new(),
                allowed: (in_a, in_b),
            };
            for &(_, _, r, table) in pair {
                if r == a { &mut key.ab } else { &mut key.ba }.push(table);
            }
            // A self-symmetric hub both slots write relates them both ways.
            for &h in sym_of(a).iter().filter(|h| sym_of(b).contains(h)) {
                key.shared.push(sym[h as usize].table);
            }
            if symmetric.contains(&key) {
                continue;
            }
            ab.fill(0);
            ba.fill(0);
            for &t in key.ab.iter().chain(&key.shared) {
                or(&mut ab, t);
            }
            for &t in key.ba.iter().chain(&key.shared) {
                or(&mut ba, t);
            }
            // A placement is (slot, value); "x in a is blocked by y in b" is bit x of row y
            // of (a, b), "y in b is blocked by x in a" bit y of row x of (b, a). Row y of
            // the first, over the values a allows, must equal column y of the second.
            columns.fill(0);
            for (x, &r) in ba.iter().enumerate() {
                let mut ys = r & in_b;
                while ys != 0 {
                    columns[ys.trailing_zeros() as usize] |= 1 << x;
                    ys &= ys - 1;
                }
            }
            for y in (0..d).filter(|&y| in_b & (1 << y) != 0) {
                let forward = ab[y] & in_a;
                let back = columns[y] & in_a;
                let differ = forward ^ back;
                if differ == 0 {
                    continue;
                }
                // The lowest value of a that differs: the pair the refusal names.
                let x = differ.trailing_zeros() as u16;
                let (ad, bd) = (g.domain.name(x), g.domain.name(y as u16));
                return Err(Refusal::new(
                    Span::default(),
                    RefusalKind::NotFocusSound,
                    format!(
                        "the NACs are not symmetric: `{ad}` in {} is {} by `{bd}` in {}, but not the other way round, so the order of placements matters",
                        self.slot_name(g, a),
                        if forward >> x & 1 != 0 { "blocked" } else { "allowed" },
                        self.slot_name(g, b),
                    ),
                ));
            }
            symmetric.insert(key);
        }
        Ok(())
    }
}
