//! Lists per row held flat: where each row starts, then every row's values one after
//! another. What a vector per row would hold, without an allocation per row: the solver's
//! tables and a puzzle's regions are built this way for every puzzle of a batch.

/// Per row, the values `pairs` lists for it (`(row, value)`, called twice), in the order
/// listed: where each row starts (one more entry at the end) and the values, flat.
pub fn grouped<T, I>(rows: usize, pairs: impl Fn() -> I) -> (Vec<u32>, Vec<T>)
where
    T: Copy + Default,
    I: Iterator<Item = (u32, T)>,
{
    let mut start = vec![0u32; rows + 1];
    for (r, _) in pairs() {
        start[r as usize + 1] += 1;
    }
    for r in 0..rows {
        start[r + 1] += start[r];
    }
    let mut next = start.clone();
    let mut values = vec![T::default(); start[rows] as usize];
    for (r, v) in pairs() {
        values[next[r as usize] as usize] = v;
        next[r as usize] += 1;
    }
    (start, values)
}
