//! Building the solver's [`Tables`] from a slot model: whole, or for a regrouped puzzle
//! from its rule file's tables, whose slots, values and groups it shares.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::{low_bits, SlotInfo, Tables, MAX_PEER_WORDS, TRACKED_ONCE, WORD_BITS};
use crate::model::grouped;
use crate::slot::mask::Mask;
use crate::slot::model::{Hub, SlotModel, Slots};

/// The end of a slot's list of new hubs in [`Tables::appended`].
const NO_LINK: u32 = u32::MAX;

impl<M: Mask> Tables<M> {
    pub fn new(m: &SlotModel) -> Tables<M> {
        Tables::without_hubs(m).with_hubs_of(m)
    }

    /// The tables of `m` but for its hubs: the slots, values, groups and start boards,
    /// with no hub yet (see [`Tables::with_hubs_of`]).
    fn without_hubs(m: &SlotModel) -> Tables<M> {
        let n = m.slots.len();
        let words = n.div_ceil(WORD_BITS).max(1);
        // Over the values each slot allows, not every value: a test per value mispredicts
        // often enough to be a good part of this function's time on a layered puzzle.
        let mut init_boards = vec![0u64; (m.d + 1) * words];
        for (s, &a) in m.allowed.iter().enumerate() {
            let mut left = a;
            while left != 0 {
                let x = left.trailing_zeros() as usize;
                left &= left - 1;
                init_boards[x * words + s / WORD_BITS] |= 1 << (s % WORD_BITS);
            }
        }
        // Then the empty slots: all of them.
        for (i, word) in init_boards[m.d * words..].iter_mut().enumerate() {
            *word = low_bits(n - i * WORD_BITS);
        }
        let mut listed: FxHashSet<&[u32]> = FxHashSet::default();
        listed.reserve(m.groups.len());
        let twin: Vec<bool> = m
            .groups
            .iter()
            .map(|group| group.feasible.is_some() && !listed.insert(&group.members))
            .collect();
        let in_groups = |watch: bool| {
            let twin = &twin;
            m.groups
                .iter()
                .enumerate()
                .filter(move |&(gi, _)| !(watch && twin[gi]))
                .flat_map(|(gi, group)| group.members.iter().map(move |&s| (s, gi as u32)))
        };
        let (group_start, slot_groups) = grouped(n, || in_groups(false));
        let (group_start, slot_groups): (Arc<[u32]>, Arc<[u32]>) =
            (group_start.into(), slot_groups.into());
        // Without twins (most models) the groups watched are the groups held.
        let (watch_start, slot_watched) = if twin.contains(&true) {
            let (start, watched) = grouped(n, || in_groups(true));
            (start.into(), watched.into())
        } else {
            (group_start.clone(), slot_groups.clone())
        };
        Tables {
            n,
            d: m.d,
            words,
            full: M::from_u128(m.full_mask()),
            allowed: m.allowed.iter().map(|&a| M::from_u128(a)).collect(),
            table: flat_tables(m),
            symmetric: m.symmetric.is_ok(),
            group_nacs: m.group_nacs.clone(),
            groups: m.groups.clone(),
            group_start,
            slot_groups,
            watch_start,
            slot_watched,
            group_words: m.groups.len().div_ceil(WORD_BITS),
            first_remainder: (m.groups.iter())
                .position(|g| !g.implied_by.is_empty())
                .unwrap_or(m.groups.len()),
            init_bits: init_boards,
            // No hub parts yet.
            ..Tables::default()
        }
    }

    /// The tables of `m`, a model with the slots, values and tables of `file`, whose
    /// tables these are, but hubs of its own (a regrouped puzzle's), and maybe groups of
    /// its own (a killer's cages, a kakuro's runs). Where they are [`appendable`] (`appends`:
    /// `m`'s hubs are `file`'s followed by more, as the regrouping knows without comparing
    /// them), the hub parts are these with the new hubs appended, and what does not
    /// depend on the hubs is these tables' where the groups are the file's, else built
    /// anew. Otherwise the hub parts, or with groups of its own everything, are built
    /// anew.
    pub fn regrouped(&self, file: &SlotModel, (m, appends): (&SlotModel, bool)) -> Tables<M> {
        debug_assert_eq!((m.slots.len(), m.d), (self.n, self.d));
        if !Arc::ptr_eq(&m.tables, &file.tables) {
            return Tables::new(m);
        }
        let same_groups = Arc::ptr_eq(&m.groups, &file.groups);
        debug_assert_eq!(file.symmetric.is_ok(), self.symmetric);
        if appendable(file, m, appends) {
            let base = (!same_groups).then(|| Tables::without_hubs(m));
            return self.appended(m, file.hubs.len(), base);
        }
        if !same_groups {
            return Tables::new(m);
        }
        // The hub parts are built anew over these.
        self.hubless_for(m, true).with_hubs_of(m)
    }

    /// The tables of `m`, a model with the slots, values, allowed values and groups of
    /// `file`, whose tables these are, but hubs of its own and its tables `file`'s followed
    /// by more (a retabled puzzle's: its marks' NACs tabled anew). What does not depend on
    /// the hubs is these tables', shared, but the tables and whether blocking is symmetric;
    /// the hub parts are built anew. Otherwise everything is.
    pub fn retabled(&self, file: &SlotModel, m: &SlotModel) -> Tables<M> {
        let same_tables = Arc::ptr_eq(&m.tables, &file.tables);
        let kept = Arc::ptr_eq(&m.groups, &file.groups)
            && m.allowed == file.allowed
            && (same_tables || m.tables.starts_with(&file.tables));
        if !kept {
            return Tables::new(m);
        }
        debug_assert_eq!((m.slots.len(), m.d), (self.n, self.d));
        self.hubless_for(m, same_tables).with_hubs_of(m)
    }

    /// The start of the tables of `m`, a model with these tables' slots, allowed values
    /// and groups: what no hub changes (the boards, the allowed values, the groups) shared,
    /// `m`'s symmetry verdict and, where `m`'s tables are not these (`same_tables` false),
    /// its tables; no hub parts yet (see [`Tables::with_hubs_of`]).
    fn hubless_for(&self, m: &SlotModel, same_tables: bool) -> Tables<M> {
        let mut shared = self.without_hub_parts();
        if !same_tables {
            shared.table = flat_tables(m);
        }
        shared.symmetric = m.symmetric.is_ok();
        shared.init_bits = self.init_bits[..(self.d + 1) * self.words].to_vec();
        shared
    }

    /// These tables, whose `init_bits` hold the boards and the empty slots, with the hub
    /// parts of `m` and the rest of the start bits.
    fn with_hubs_of(self, m: &SlotModel) -> Tables<M> {
        let (n, words) = (self.n, self.words);
        // Hubs are renumbered with the exactly-once hubs first, in their order, so that
        // scans over those read the first hub masks directly.
        let mut is_once = vec![false; m.hubs.len()];
        for &h in &m.once {
            is_once[h as usize] = true;
        }
        let mut order = m.once.clone();
        order.extend((0..m.hubs.len() as u32).filter(|&h| !is_once[h as usize]));
        // One pass over the hubs' members (a layered puzzle builds these tables anew):
        // each hub's writers and readers as bitsets, the first exactly-once hubs of each
        // slot, and the (slot, hub) pairs listed per slot below.
        let mut hub_readers = vec![0u64; m.hubs.len() * words];
        let mut hub_members = vec![0u64; m.hubs.len() * words];
        let mut once_of = vec![0u64; n];
        let members = |f: fn(&Hub) -> &Slots| m.hubs.iter().map(|h| f(h).len()).sum::<usize>();
        let mut write_pairs = Vec::with_capacity(members(|h| &h.writers));
        // Listed only where some hub's readers are not its writers (see `Tables::reads`).
        let reads_written = m.hubs.iter().all(|h| h.readers == h.writers);
        let mut read_pairs = Vec::with_capacity(if reads_written {
            0
        } else {
            members(|h| &h.readers)
        });
        let tracked = m.once.len().min(TRACKED_ONCE);
        for (h, &at) in order.iter().enumerate() {
            let hub = &m.hubs[at as usize];
            let (members, readers) = (
                &mut hub_members[h * words..(h + 1) * words],
                &mut hub_readers[h * words..(h + 1) * words],
            );
            for &w in &hub.writers {
                members[w as usize / WORD_BITS] |= 1 << (w as usize % WORD_BITS);
                write_pairs.push((w, h as u32));
                // The renumbered exactly-once hubs come first, in `m.once`'s order.
                if h < tracked {
                    once_of[w as usize] |= 1 << h;
                }
            }
            for &r in &hub.readers {
                readers[r as usize / WORD_BITS] |= 1 << (r as usize % WORD_BITS);
                if !reads_written {
                    read_pairs.push((r, h as u32));
                }
            }
        }
        // Per slot, the hubs (renumbered) it writes and those it reads, in hub order.
        let (write_start, writes) = grouped(n, || write_pairs.iter().copied());
        let (read_start, reads) = if reads_written {
            (Vec::new(), Vec::new())
        } else {
            grouped(n, || read_pairs.iter().copied())
        };
        let written = |s: usize| &writes[write_start[s] as usize..write_start[s + 1] as usize];
        let keep_peers = n * words <= MAX_PEER_WORDS;
        // Per table, whether it is "the same value": asked of every hub each slot writes.
        let identities = m.same_value_tables();
        let identity = |t: u32| identities[t as usize];
        let hub_table: Vec<u32> = order.iter().map(|&h| m.hubs[h as usize].table).collect();
        let equal_only =
            |hs: &[u32]| keep_peers && hs.iter().all(|&h| identity(hub_table[h as usize]));
        let mut peers = vec![0u64; if keep_peers { n * words } else { 0 }];
        let mut slot_info = Vec::with_capacity(n);
        for s in 0..n {
            let hs = written(s);
            let equal_only = equal_only(hs);
            if equal_only {
                let peers = &mut peers[s * words..(s + 1) * words];
                for &h in hs {
                    let readers = &hub_readers[h as usize * words..(h as usize + 1) * words];
                    for (p, r) in peers.iter_mut().zip(readers) {
                        *p |= r;
                    }
                }
            }
            slot_info.push(SlotInfo {
                once_of: once_of[s],
                writes: (write_start[s], write_start[s + 1]),
                equal_only,
            });
        }
        let (mut arc_slots, mut arc_start, mut arcs) = (Vec::new(), vec![0u32], Vec::new());
        if m.symmetric.is_ok() {
            for s in 0..n {
                let before = arcs.len();
                arcs.extend(
                    (written(s).iter())
                        .map(|&h| (h, hub_table[h as usize]))
                        .filter(|&(_, t)| !identity(t))
                        .map(|(h, t)| (h, t * m.d as u32)),
                );
                if arcs.len() > before {
                    arc_slots.push(s as u32);
                    arc_start.push(arcs.len() as u32);
                }
            }
        }
        let write_rows = (writes.iter())
            .map(|&h| hub_table[h as usize] * m.d as u32)
            .collect();
        let init_bits = self.start_bits(m, &self.init_bits);
        Tables {
            slot_info,
            writes,
            write_rows,
            peers,
            read_start,
            reads,
            hub_readers,
            hub_members,
            hub_table,
            once: m.once.len(),
            arc_slots,
            arc_start,
            arcs,
            init_bits,
            ..self
        }
    }

    /// [`Tables::regrouped`] where `m`'s hubs are these tables' (its first `first`, all
    /// exactly-once) followed by more, in hub order, the new ones all exactly-once or none
    /// of them, each then blocking its own writers on equal values: each slot's lists gain
    /// the new hubs it is in, its peers their readers, its exactly-once bits theirs where
    /// they are. What does not depend on the hubs is `base`'s (`m`'s own groups and
    /// boards), or where there is none these tables', shared, not copied.
    fn appended(&self, m: &SlotModel, first: usize, base: Option<Tables<M>>) -> Tables<M> {
        let (words, d) = (self.words, self.d);
        let hubs = m.hubs.len();
        // All of them, or the file's.
        let once = m.once.len();
        debug_assert!(once == hubs || once == first);
        let added = &m.hubs[first..];
        let grown = |old: &[u64]| {
            let mut bits = Vec::with_capacity(hubs * words);
            bits.extend_from_slice(old);
            bits.resize(hubs * words, 0);
            bits
        };
        let (mut hub_members, mut hub_readers) =
            (grown(&self.hub_members), grown(&self.hub_readers));
        let mut hub_table = Vec::with_capacity(hubs);
        hub_table.extend_from_slice(&self.hub_table);
        let mut slot_info = self.slot_info.clone();
        // Per slot, the new hubs it writes, in hub order: a list threaded through `link`
        // from the slot's `head`, built from the last hub back so that each list comes
        // out in hub order. (Grouping the (slot, hub) pairs and merging them with the old
        // lists took three passes over the slots and four vectors more.)
        let mut head = vec![NO_LINK; self.n];
        let mut link: Vec<(u32, u32)> =
            Vec::with_capacity(added.iter().map(|h| h.writers.len()).sum());
        for (k, hub) in added.iter().enumerate().rev() {
            let h = first + k;
            let bits = |list: &mut [u64], slots: &Slots| {
                for &s in slots {
                    list[h * words + s as usize / WORD_BITS] |= 1 << (s as usize % WORD_BITS);
                }
            };
            bits(&mut hub_members, &hub.writers);
            bits(&mut hub_readers, &hub.readers);
            let tracked = h < once.min(TRACKED_ONCE);
            for &w in &hub.writers {
                link.push((h as u32, head[w as usize]));
                head[w as usize] = (link.len() - 1) as u32;
                if tracked {
                    slot_info[w as usize].once_of |= 1 << h;
                }
            }
        }
        hub_table.extend(added.iter().map(|h| h.table));
        // Every hub here has its writers for readers (an exactly-once hub, a cage): each
        // slot reads the hubs it writes, and no list says so (see `Tables::reads`).
        debug_assert!(m.hubs.iter().all(|h| h.writers == h.readers));
        debug_assert!(self.read_start.is_empty());
        // Each slot's old hubs and their rows (the file's hubs keep their tables), then
        // its new ones.
        let listed = self.writes.len() + link.len();
        let (mut writes, mut write_rows) = (vec![0u32; listed], vec![0u32; listed]);
        let mut to = 0;
        for (s, info) in slot_info.iter_mut().enumerate() {
            let from = to;
            let old = info.writes.0 as usize..info.writes.1 as usize;
            let end = to + old.len();
            // One bounds check a slot, not one a hub.
            let (hubs, rows) = (&mut writes[to..end], &mut write_rows[to..end]);
            let (old_hubs, old_rows) = (&self.writes[old.clone()], &self.write_rows[old]);
            for ((h, row), (&old_h, &old_row)) in
                hubs.iter_mut().zip(rows).zip(old_hubs.iter().zip(old_rows))
            {
                (*h, *row) = (old_h, old_row);
            }
            to = end;
            let mut at = head[s];
            while at != NO_LINK {
                let (h, next) = link[at as usize];
                (writes[to], write_rows[to]) = (h, hub_table[h as usize] * d as u32);
                to += 1;
                at = next;
            }
            info.writes = (from as u32, to as u32);
        }
        // The new hubs block the value held: a slot that took the value from its peers in
        // one pass still does, with the new hubs' readers among them.
        let mut peers = self.peers.clone();
        for (k, hub) in added.iter().enumerate() {
            let h = first + k;
            let readers = &hub_readers[h * words..(h + 1) * words];
            let equal_only = |w: &&u32| self.slot_info[**w as usize].equal_only;
            for &w in hub.writers.iter().filter(equal_only) {
                let peers = &mut peers[w as usize * words..(w as usize + 1) * words];
                for (p, r) in peers.iter_mut().zip(readers) {
                    *p |= r;
                }
            }
        }
        // The start bits after the boards of `base`, or of these tables; with what no hub
        // changes, from the same.
        let init_bits = match &base {
            Some(base) => base.start_bits(m, &base.init_bits),
            None => self.start_bits(m, &self.init_bits[..(d + 1) * words]),
        };
        let rest = base.unwrap_or_else(|| self.without_hub_parts());
        Tables {
            slot_info,
            writes,
            write_rows,
            peers,
            read_start: Vec::new(),
            reads: Vec::new(),
            hub_readers,
            hub_members,
            hub_table,
            once,
            init_bits,
            // The new hubs block on equal values only: no arc is theirs.
            arc_slots: self.arc_slots.clone(),
            arc_start: self.arc_start.clone(),
            arcs: self.arcs.clone(),
            ..rest
        }
    }

    /// These tables with no hub parts and no start bits: what [`Tables::without_hubs`]
    /// makes of their model, shared, but the boards. (Every field said: `..Default` would
    /// make and drop an empty group list, an allocation per puzzle.)
    fn without_hub_parts(&self) -> Tables<M> {
        Tables {
            allowed: self.allowed.clone(),
            table: self.table.clone(),
            group_nacs: self.group_nacs.clone(),
            groups: self.groups.clone(),
            group_start: self.group_start.clone(),
            slot_groups: self.slot_groups.clone(),
            watch_start: self.watch_start.clone(),
            slot_watched: self.slot_watched.clone(),
            n: self.n,
            d: self.d,
            words: self.words,
            full: self.full,
            symmetric: self.symmetric,
            group_words: self.group_words,
            first_remainder: self.first_remainder,
            slot_info: Vec::new(),
            writes: Vec::new(),
            write_rows: Vec::new(),
            peers: Vec::new(),
            read_start: Vec::new(),
            reads: Vec::new(),
            hub_readers: Vec::new(),
            hub_members: Vec::new(),
            hub_table: Vec::new(),
            arc_slots: Vec::new(),
            arc_start: Vec::new(),
            arcs: Vec::new(),
            init_bits: Vec::new(),
            once: 0,
        }
    }

    /// The start bits of `m`'s tables, over these tables' slots and `m`'s groups:
    /// `boards` (the boards and the empty slots), then no hub holding a value, every value
    /// lacking in every tracked exactly-once hub, every group to be looked at (dirty) and
    /// none judged full (settled).
    fn start_bits(&self, m: &SlotModel, boards: &[u64]) -> Vec<u64> {
        debug_assert_eq!(boards.len(), (self.d + 1) * self.words);
        let hubs = m.hubs.len() * M::WORDS;
        let mut init_bits = Vec::with_capacity(boards.len() + hubs + m.d + 2 * self.group_words);
        init_bits.extend_from_slice(boards);
        init_bits.resize(boards.len() + hubs, 0);
        let lacking = low_bits(m.once.len().min(TRACKED_ONCE));
        init_bits.extend(std::iter::repeat_n(lacking, m.d));
        let groups = m.groups.len();
        init_bits.extend((0..self.group_words).map(|i| low_bits(groups - i * WORD_BITS)));
        init_bits.resize(init_bits.len() + self.group_words, 0);
        init_bits
    }
}

/// Every table of `m`, row after row, as the solver's masks.
fn flat_tables<M: Mask>(m: &SlotModel) -> Arc<[M]> {
    (m.tables.iter())
        .flat_map(|t| t.iter().map(|&r| M::from_u128(r)))
        .collect()
}

/// Whether [`Tables::regrouped`] builds the tables of `m`, a regrouped puzzle's model,
/// by appending its hubs to those of `file`, its rule file's: `m`'s hubs are `file`'s
/// followed by more (`appends`), `file`'s all exactly-once, and the new ones all
/// exactly-once too or none of them, each then blocking its own writers on equal values
/// (a killer's cages), with the blocking as symmetric as the file's.
pub(crate) fn appendable(file: &SlotModel, m: &SlotModel, appends: bool) -> bool {
    let first = file.hubs.len();
    // The first `k` hubs exactly-once, in hub order, and no other.
    let once_first = |model: &SlotModel, k: usize| {
        model.once.len() == k && model.once.iter().enumerate().all(|(i, &h)| h as usize == i)
    };
    if !(appends && once_first(file, first) && m.symmetric.is_ok() == file.symmetric.is_ok()) {
        return false;
    }
    if once_first(m, m.hubs.len()) {
        return true;
    }
    let identity = m.same_value_tables();
    once_first(m, first)
        && (m.hubs[first..].iter()).all(|h| identity[h.table as usize] && h.writers == h.readers)
}
