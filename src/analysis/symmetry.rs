//! Blocking symmetry: "u's result blocks t" exactly when "t's result blocks u", checked over
//! a relation an engine supplies (the graph engine's rule applications enabled on a start
//! graph; the slot engine compares its tables' rows directly, in `slot::model`).

use super::refusal::Refusal;

/// Checks that blocking is symmetric over `pairs`: for each pair `(u, t)`, `blocks(u, t)`
/// must equal `blocks(t, u)`. The first pair that differs is refused by `refusal(u, t,
/// forward)`, `forward` telling whether `u` blocks `t` (and not the other way round).
pub fn check_symmetric<T: Copy>(
    pairs: impl IntoIterator<Item = (T, T)>,
    mut blocks: impl FnMut(T, T) -> bool,
    refusal: impl FnOnce(T, T, bool) -> Refusal,
) -> Result<(), Refusal> {
    for (u, t) in pairs {
        let forward = blocks(u, t);
        if forward != blocks(t, u) {
            return Err(refusal(u, t, forward));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check_symmetric;
    use crate::analysis::{Refusal, RefusalKind};
    use crate::diag::Span;

    fn refusal(u: usize, t: usize, forward: bool) -> Refusal {
        Refusal::new(
            Span::default(),
            RefusalKind::NotFocusSound,
            format!("{u} {t} {forward}"),
        )
    }

    #[test]
    fn the_first_one_sided_pair_is_refused() {
        // 0 blocks 1 both ways; 2 blocks 0 only.
        let m = [
            [false, true, false],
            [true, false, false],
            [true, false, false],
        ];
        let pairs = (0..3).flat_map(|u| (0..3).map(move |t| (u, t)));
        let r = check_symmetric(pairs, |u, t| m[u][t], refusal).unwrap_err();
        assert_eq!(r.reason, "0 2 false");
        let sym = [[false, true], [true, false]];
        let pairs = (0..2).flat_map(|u| (0..2).map(move |t| (u, t)));
        assert_eq!(check_symmetric(pairs, |u, t| sym[u][t], refusal), Ok(()));
    }
}
