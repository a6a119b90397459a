//! Start tables: per grounded instance of a `forbid` pattern or final condition, the
//! assignments of the slots it reads with which it does not match, listed once and kept as
//! a [`CompactTable`]. Below a settled start state the assignments left are those of the
//! table within the candidates, so the instance narrows its slots exactly, with word
//! operations, where it would otherwise lay them out anew at each state (a search) or
//! shave them by bounds. The puzzles of a rule file share the tables of instances alike in
//! term, related pairs and candidates: a sight line with the same clue, in any row.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::compact_table::CompactTable;
use super::forbid::span;
use super::ground::Bounds;
use super::layout::{self, assignments, Admit, Pairs};
use super::mask::Mask;
use super::shapes::Shape;
use super::solver::{Tables, Work};
use super::term_program::TermProgram;

/// Assignments listed at most in one table.
const MAX_TUPLES: usize = 1 << 13;

/// Values tried at most while listing one table: about twice the assignments listed at
/// most (a search tries each value of a position once per assignment of those before it).
const MAX_STEPS: usize = 1 << 17;

/// Assignments (the product of the candidates' counts) at most for an instance to be
/// listed over every value its slots allow (a 6-cell line: 46,656, of which 720 orders),
/// and over a start state's candidates where that is too many: a start whose givens or
/// clues leave a line few orders. A 7-cell line over all its values (823,543) took longer
/// to list than the two puzzles of a batch took to solve.
const MAX_ALLOWED_ASSIGNMENTS: u64 = 1 << 16;
const MAX_START_ASSIGNMENTS: u64 = 1 << 16;

/// Bytes of tables and their keys a rule file keeps at most: past it they are forgotten
/// and listed anew.
const MAX_CACHED_BYTES: usize = 1 << 26;

/// The tables of a rule file's instances, shared by its puzzles, by what decides them:
/// those too large to list are remembered too, so that no puzzle tries again.
#[derive(Clone, Debug, Default)]
pub struct TableCache(Arc<Mutex<Cached>>);

#[derive(Debug, Default)]
struct Cached {
    tables: FxHashMap<TableKey, Option<Arc<CompactTable>>>,
    bytes: usize,
}

/// What decides an instance's table: its term over its reads' positions, the candidates
/// it is listed over, and the pairs a hub relates with the rows of their table.
#[derive(Debug, PartialEq, Eq, Hash)]
struct TableKey {
    program: ProgramRef,
    cands: Box<[u128]>,
    /// Per pair, its two positions and which of the tables below relates them, three
    /// numbers a pair in one flat list (hashed as one run of bytes, not number by number).
    pairs: Box<[u32]>,
    /// The rows of the pairs' tables, each table once, in the order the pairs first name
    /// them: a sight line's pairs all share one table, and holding its rows per pair made
    /// the key fifteen times larger, its hashing and comparing most of a lookup.
    rows: Box<[u128]>,
}

/// A shape's program, known by its address: the rule file's shape cache hands out one
/// program for each shape (see [`super::shapes::ShapeCache`]), so a key spares hashing
/// and comparing it whole, most of a key's cost. A program met under two addresses
/// (the shape cache emptied meanwhile) is listed twice, never confused.
#[derive(Debug)]
struct ProgramRef(Arc<TermProgram>);

impl PartialEq for ProgramRef {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for ProgramRef {}

impl Hash for ProgramRef {
    fn hash<H: Hasher>(&self, state: &mut H) {
        Arc::as_ptr(&self.0).hash(state);
    }
}

impl TableKey {
    /// The key of an instance listed by `program` over `cands` (per read), its reads
    /// related by `pairs`, whose tables are `d` rows each of `rows` (the solver's).
    fn new<M: Mask>(
        program: &Arc<TermProgram>,
        cands: &[u128],
        pairs: &Pairs,
        (rows, d): (&[M], usize),
    ) -> TableKey {
        let rows_of = |table: u32| &rows[table as usize * d..(table as usize + 1) * d];
        // The pairs' tables, each once by its rows (an instance relates its reads through
        // a few; two tables alike in rows are one here, as they are in a listing).
        let mut tables: SmallVec<[u32; 4]> = SmallVec::new();
        let pairs = (pairs.iter())
            .flat_map(|&(i, j, table)| {
                let known = tables
                    .iter()
                    .position(|&u| u == table || rows_of(u) == rows_of(table));
                let k = known.unwrap_or_else(|| {
                    tables.push(table);
                    tables.len() - 1
                });
                [u32::from(i), u32::from(j), k as u32]
            })
            .collect();
        let mut table_rows = Vec::with_capacity(tables.len() * d);
        for &table in &tables {
            table_rows.extend(rows_of(table).iter().map(|r| r.to_u128()));
        }
        TableKey {
            program: ProgramRef(program.clone()),
            cands: cands.into(),
            pairs,
            rows: table_rows.into_boxed_slice(),
        }
    }

    /// The bytes the key holds, about.
    fn bytes(&self) -> usize {
        self.program.0.bytes() + self.cands.len() * 16 + self.pairs.len() * 4 + self.rows.len() * 16
    }
}

/// An instance to list: its shape, the slots it reads (sorted), the pairs of them a hub
/// relates (by position).
pub struct Instance<'a> {
    pub shape: &'a Shape,
    pub reads: &'a [u32],
    pub pairs: &'a Pairs,
}

/// Per instance, its table where it has one.
#[derive(Clone, Debug, Default)]
pub struct StartTables(Vec<Option<Arc<CompactTable>>>);

impl StartTables {
    /// The tables of `instances` listed over every value their slots allow, where that
    /// is few enough assignments: shared the most, and valid in every state.
    pub fn allowed<'a, M: Mask>(
        cache: &TableCache,
        t: &Tables<M>,
        instances: impl Iterator<Item = Option<Instance<'a>>>,
    ) -> StartTables {
        let tables = instances
            .map(|inst| {
                let inst = inst?;
                let allowed: SmallVec<[u128; 16]> = inst
                    .reads
                    .iter()
                    .map(|&s| t.allowed[s as usize].to_u128())
                    .collect();
                (assignments(&allowed) <= MAX_ALLOWED_ASSIGNMENTS)
                    .then(|| cache.table(t, &inst, &allowed))
                    .flatten()
            })
            .collect();
        StartTables(tables)
    }

    /// Adds the tables of the instances without one listed over the candidates of
    /// `start`, where those allow few enough assignments (a line its givens or clues leave
    /// few orders). The tables are valid below `start` only.
    pub fn below<'a, M: Mask, const W: usize>(
        &mut self,
        cache: &TableCache,
        t: &Tables<M>,
        start: &Work<M>,
        instances: impl Iterator<Item = Option<Instance<'a>>>,
    ) {
        for (table, inst) in self.0.iter_mut().zip(instances) {
            let Some(inst) = inst.filter(|_| table.is_none()) else {
                continue;
            };
            let at_start: SmallVec<[u128; 16]> = inst
                .reads
                .iter()
                .map(|&s| t.values_at::<W>(start, s as usize))
                .collect();
            if assignments(&at_start) <= MAX_START_ASSIGNMENTS {
                *table = cache.table(t, &inst, &at_start);
            }
        }
    }

    /// Instance `i`'s table.
    pub fn get(&self, i: u32) -> Option<&CompactTable> {
        self.0.get(i as usize).and_then(|t| t.as_deref())
    }

    /// The instances with a table.
    pub fn count(&self) -> usize {
        self.0.iter().flatten().count()
    }
}

impl TableCache {
    /// The table of `inst` over `cands` (per read), listed or taken from the cache;
    /// `None` when it is too large to list.
    fn table<M: Mask>(
        &self,
        t: &Tables<M>,
        inst: &Instance,
        cands: &[u128],
    ) -> Option<Arc<CompactTable>> {
        let key = TableKey::new(
            &inst.shape.term,
            cands,
            inst.pairs,
            (t.relation_rows(), t.d),
        );
        if let Some(known) = self.lock().tables.get(&key) {
            return known.clone();
        }
        let listed = list(t, inst.shape, inst.pairs, cands).map(Arc::new);
        let mut cached = self.lock();
        // Another worker may have listed it meanwhile: the first kept is the one shared.
        if let Some(known) = cached.tables.get(&key) {
            return known.clone();
        }
        // The keys too: a batch of many puzzles meets a key per line and puzzle where its
        // lines are listed over their starts' candidates.
        let bytes = key.bytes() + listed.as_ref().map_or(0, |table| table.bytes());
        if cached.bytes + bytes > MAX_CACHED_BYTES {
            cached.tables.clear();
            cached.bytes = 0;
        }
        cached.bytes += bytes;
        cached.tables.insert(key, listed.clone());
        listed
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cached> {
        // A worker that panicked while it held the lock left the map usable (its byte
        // count may be off, which only moves when the cache is cleared).
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The assignments within `cands` that block no pair and with which `shape`'s program
/// does not hold, as a table; `None` when they are too many to list.
fn list<M: Mask>(
    t: &Tables<M>,
    shape: &Shape,
    pairs: &Pairs,
    cands: &[u128],
) -> Option<CompactTable> {
    let mut listed = Listed {
        shape,
        // A position without candidates has no assignment to list, whatever its span.
        spans: cands.iter().map(|&c| span(c).unwrap_or_default()).collect(),
        vals: SmallVec::from_elem(0, cands.len()),
        cache: Vec::new(),
        tried: 0,
        cut: 0,
        tuples: Vec::new(),
    };
    // In the solver's masks, as the search reads them (the key keeps them wide).
    let narrow: SmallVec<[M; 16]> = cands.iter().map(|&c| M::from_u128(c)).collect();
    let finished = layout::each_assignment(
        (t.relation_rows(), t.d, pairs),
        &narrow,
        MAX_STEPS,
        &mut listed,
    );
    let tuples = listed.tuples;
    (finished && tuples.len() <= MAX_TUPLES * cands.len())
        .then(|| CompactTable::new(cands.len(), t.d, &tuples))
}

/// Partial assignments judged by bounds before the share they cut is looked at, and the
/// share (one in `CUT_RATIO`) below which they are judged no more.
const TRIAL: usize = 64;
const CUT_RATIO: usize = 4;

/// Lists the assignments with which a program over positions does not hold. Positions
/// are placed in order; a partial assignment with which the program holds whatever the
/// later positions take (by its bounds over their candidates) is cut short.
struct Listed<'a> {
    shape: &'a Shape,
    /// Per position, its least and greatest candidate.
    spans: SmallVec<[(u16, u16); 16]>,
    /// The assignment as far as placed, as the programs read it (0 where not placed, else
    /// the value's index plus one).
    vals: SmallVec<[u8; 16]>,
    /// The bounds of each node of the bounds program at `vals` (empty before the first).
    cache: Vec<Bounds>,
    /// Partial assignments judged by bounds, and those cut short.
    tried: usize,
    cut: usize,
    /// The assignments listed, one after another; listing stops past [`MAX_TUPLES`].
    tuples: Vec<u8>,
}

impl Admit for Listed<'_> {
    /// Whether the program may fail to hold once `at` takes `x`: positions past `at` are
    /// those of another branch, taken back first.
    fn may_add(&mut self, _: &[Option<u8>], at: usize, x: u8) -> bool {
        let Listed {
            shape,
            spans,
            vals,
            cache,
            tried,
            cut,
            ..
        } = self;
        // The last position's value is judged exactly, by `admits`; the bounds are not
        // worth their cost where they rarely cut (a sight line's count, over a few values).
        let worth = *tried < TRIAL || *cut * CUT_RATIO >= *tried;
        if at + 1 == vals.len() || !worth {
            vals[at] = x + 1;
            return true;
        }
        *tried += 1;
        // The last position is never brought into the bounds' cache (see above): it is
        // only emptied, before any bounds read it.
        let last = vals.len() - 1;
        vals[last] = 0;
        let range = |p: u32| spans[p as usize];
        if cache.is_empty() {
            shape.bounds.bounds(vals, &range, cache);
        }
        for p in at + 1..last {
            if vals[p] != 0 {
                vals[p] = 0;
                shape.bounds.again(p as u32, vals, &range, cache);
            }
        }
        vals[at] = x + 1;
        let holds = shape
            .bounds
            .again(at as u32, vals, &range, cache)
            .surely_true();
        *cut += usize::from(holds);
        !holds
    }

    /// Lists `held` unless the program holds there; false (stop) once the list is full.
    fn admits(&mut self, held: &[Option<u8>]) -> bool {
        debug_assert!(held
            .iter()
            .zip(&self.vals)
            .all(|(x, &v)| x.map(|x| x + 1) == Some(v)));
        if !self.shape.term.holds(&self.vals) {
            self.tuples
                .extend(held.iter().map(|x| x.expect("complete")));
        }
        self.tuples.len() <= MAX_TUPLES * held.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Value;
    use crate::slot::ground::Term;

    /// Two keys are equal exactly when their pairs relate the same positions through
    /// tables alike in rows, whichever tables those are and however many times each is
    /// named: four tables of three rows, the third a copy of the first.
    #[test]
    fn keys_are_equal_where_the_pairs_rows_are() {
        let rows: Vec<u16> = vec![
            0b010, 0b001, 0b100, 0b110, 0b101, 0b011, 0b010, 0b001, 0b100, 0, 0, 0,
        ];
        let program = Arc::new(TermProgram::new(&Term::Const(Value::Int(1))));
        let key =
            |pairs: &[(u16, u16, u32)]| TableKey::new(&program, &[0b111; 3], pairs, (&rows, 3));
        let one = key(&[(0, 1, 0), (1, 2, 0), (0, 2, 0)]);
        // The copy of table 0 stands for it, anywhere.
        assert_eq!(one, key(&[(0, 1, 2), (1, 2, 0), (0, 2, 2)]));
        assert_eq!(one.rows.len(), 3, "one table's rows, not one per pair");
        // A pair through another table, or between other positions, is another key.
        assert_ne!(one, key(&[(0, 1, 0), (1, 2, 1), (0, 2, 0)]));
        assert_ne!(one, key(&[(0, 1, 0), (1, 2, 0), (2, 0, 0)]));
        assert_ne!(one, key(&[(0, 1, 0), (1, 2, 0)]));
        // Which pair names which table is kept: the two tables swapped between the pairs
        // are another key, each of them the same key again.
        let two = key(&[(0, 1, 0), (1, 2, 1)]);
        assert_ne!(two, key(&[(0, 1, 1), (1, 2, 0)]));
        assert_eq!(two, key(&[(0, 1, 2), (1, 2, 1)]));
        // A table without rows blocks nothing, which no other table here does.
        assert_ne!(two, key(&[(0, 1, 0), (1, 2, 3)]));
        // Other candidates, another key.
        assert_ne!(
            one,
            TableKey::new(
                &program,
                &[0b011, 0b111, 0b111],
                &[(0, 1, 0), (1, 2, 0), (0, 2, 0)],
                (&rows, 3)
            )
        );
    }
}
