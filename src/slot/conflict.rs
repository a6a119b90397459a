//! The conflict graph of a slot model: two slots are neighbours when some hub has one as a
//! writer and the other as a reader, so that a value placed in one can block a value of the
//! other. The colouring heuristics read saturation, degree and walks off it.

use super::model::SlotModel;

/// Every slot's neighbours, sorted by slot, without repeats or the slot itself; the
/// relation is symmetric. Built once per model in O(sum over hubs of writers x readers).
#[derive(Clone, Debug)]
pub struct Conflict {
    /// `list[start[s]..start[s + 1]]`: the neighbours of slot `s`.
    start: Vec<u32>,
    list: Vec<u32>,
    /// Every slot, by degree (highest first), ties by slot order.
    by_degree: Vec<u32>,
}

impl Conflict {
    pub fn new(model: &SlotModel) -> Conflict {
        let n = model.slots.len();
        let mut adjacent: Vec<Vec<u32>> = vec![Vec::new(); n];
        for hub in &model.hubs {
            // A hub whose table blocks nothing relates nobody.
            if model.tables[hub.table as usize].iter().all(|&row| row == 0) {
                continue;
            }
            for &w in &hub.writers {
                for &r in &hub.readers {
                    if w != r {
                        adjacent[w as usize].push(r);
                        adjacent[r as usize].push(w);
                    }
                }
            }
        }
        let mut start = Vec::with_capacity(n + 1);
        let mut list = Vec::new();
        start.push(0);
        for a in &mut adjacent {
            a.sort_unstable();
            a.dedup();
            list.extend_from_slice(a);
            start.push(list.len() as u32);
        }
        let mut by_degree: Vec<u32> = (0..n as u32).collect();
        // Stable, so equal degrees keep slot order.
        by_degree.sort_by_key(|&s| std::cmp::Reverse(start[s as usize + 1] - start[s as usize]));
        Conflict {
            start,
            list,
            by_degree,
        }
    }

    /// The neighbours of `s`, in slot order.
    #[inline]
    pub fn neighbours(&self, s: usize) -> &[u32] {
        &self.list[self.start[s] as usize..self.start[s + 1] as usize]
    }

    #[cfg(test)]
    fn degree(&self, s: usize) -> usize {
        (self.start[s + 1] - self.start[s]) as usize
    }

    /// Every slot, highest degree first, ties in slot order (Welsh–Powell's order).
    pub fn by_degree(&self) -> &[u32] {
        &self.by_degree
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> SlotModel {
        let g = crate::load_str("t.graft", src).expect("a valid rule file");
        crate::slot::compile(&g).expect("a slot grammar")
    }

    use crate::test_grammars::LATIN_3X3 as LATIN;

    #[test]
    fn latin_square_neighbours_are_row_and_column() {
        let c = Conflict::new(&model(LATIN));
        assert_eq!(c.by_degree().len(), 9);
        // r1c1 (slot 0) meets r1c2, r1c3, r2c1, r3c1.
        assert_eq!(c.neighbours(0), &[1, 2, 3, 6]);
        // r2c2 (slot 4) meets r1c2, r2c1, r2c3, r3c2.
        assert_eq!(c.neighbours(4), &[1, 3, 5, 7]);
        assert!((0..9).all(|s| c.degree(s) == 4));
        // Equal degrees: slot order.
        assert_eq!(c.by_degree(), &[0, 1, 2, 3, 4, 5, 6, 7, 8]);
        for s in 0..9 {
            for &t in c.neighbours(s) {
                assert!(c.neighbours(t as usize).contains(&(s as u32)), "symmetric");
            }
        }
    }

    #[test]
    fn an_extra_group_raises_degree() {
        let src = LATIN.replace(
            "groups rows, columns",
            "groups rows, columns\ngroup d = r1c1 r2c2 r3c3",
        );
        let c = Conflict::new(&model(&src));
        assert_eq!(c.degree(0), 6);
        assert_eq!(c.degree(1), 4);
        assert_eq!(&c.by_degree()[..3], &[0, 4, 8]);
    }
}
