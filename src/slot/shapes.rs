//! Instance shapes: a grounded term's programs over the positions of the slots it reads
//! (the first read slot is position 0, and so on) instead of over the slots themselves.
//! Instances alike but for their slots (two renban runs of one length, a sight line with
//! the same clue in another row or puzzle) have one shape: its bounds program is laid out
//! once and renamed to each instance's slots, and its start tables are listed once.

use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

use super::bounds_program::BoundsProgram;
use super::ground::Term;
use super::term_program::TermProgram;

/// A term over positions, laid out both ways.
#[derive(Debug)]
pub struct Shape {
    pub term: Arc<TermProgram>,
    pub bounds: BoundsProgram,
}

/// The shapes met so far, by their term program over positions: shared by the puzzles of
/// a rule file, filled by whichever meets a shape first.
#[derive(Clone, Debug, Default)]
pub struct ShapeCache(Arc<Mutex<FxHashMap<Arc<TermProgram>, Arc<Shape>>>>);

/// The most shapes kept: past it they are forgotten and laid out anew.
const MAX_SHAPES: usize = 1 << 14;

impl ShapeCache {
    /// The shape of `term`, whose program is `program` and whose slots read are `reads`
    /// (sorted, distinct), and the bounds program over those slots.
    pub fn shape_of(
        &self,
        term: &Term,
        program: &TermProgram,
        reads: &[u32],
    ) -> (Arc<Shape>, BoundsProgram) {
        let position = |s: u32| {
            reads
                .binary_search(&s)
                .expect("a term reads its instance's reads") as u32
        };
        let over_positions = program.renamed(position);
        if let Some(known) = self.lock().get(&over_positions).cloned() {
            let bounds = known.bounds.renamed(|p| reads[p as usize]);
            return (known, bounds);
        }
        let bounds = BoundsProgram::new(term);
        let term = Arc::new(over_positions);
        let shape = Arc::new(Shape {
            term: term.clone(),
            bounds: bounds.renamed(position),
        });
        let mut shapes = self.lock();
        if shapes.len() >= MAX_SHAPES {
            shapes.clear();
        }
        // Another worker may have met it meanwhile: the first kept is the one shared.
        let shape = shapes.entry(term).or_insert(shape).clone();
        (shape, bounds)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, FxHashMap<Arc<TermProgram>, Arc<Shape>>> {
        // A worker that panicked while it held the lock left the map usable.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
