//! An independent solution checker: a grid is a solution when every cell holds a domain
//! value, the givens are kept and every group, difference and inequality constraint holds.

use crate::brute::HOLE;
use crate::variant::Variant;

/// Checks a solution grid written one character per position (a blank at a hole) against
/// a variant and its givens.
pub fn check(v: &Variant, givens: &[Option<usize>], grid: &str) -> Result<(), String> {
    let chars: Vec<char> = grid.chars().collect();
    if chars.len() != v.cells() {
        return Err(format!(
            "grid {grid:?} has {} cells, expected {}",
            chars.len(),
            v.cells()
        ));
    }
    let mut vals = Vec::with_capacity(chars.len());
    for (i, &ch) in chars.iter().enumerate() {
        let (r, c) = v.rc(i);
        if v.is_hole(i) {
            if ch != ' ' {
                return Err(format!(
                    "grid {grid:?}: r{r}c{c} is a hole but holds {ch:?}"
                ));
            }
            vals.push(HOLE);
            continue;
        }
        match v.value_of_char(ch) {
            Some(x) => vals.push(x),
            None => {
                return Err(format!(
                    "grid {grid:?}: r{r}c{c} holds {ch:?}, not a domain value"
                ))
            }
        }
    }
    check_values(v, givens, &vals).map_err(|e| format!("grid {grid:?}: {e}"))
}

/// Checks a complete assignment of value indices.
pub fn check_values(v: &Variant, givens: &[Option<usize>], vals: &[usize]) -> Result<(), String> {
    let name = |cell: usize| {
        let (r, c) = v.rc(cell);
        format!("r{r}c{c}")
    };
    assert_eq!(givens.len(), v.cells());
    for (i, g) in givens.iter().enumerate() {
        if let Some(g) = g {
            if vals[i] != *g {
                return Err(format!(
                    "given {} = {} was changed to {}",
                    name(i),
                    v.values[*g],
                    v.values[vals[i]]
                ));
            }
        }
    }
    for (k, group) in v.groups.iter().enumerate() {
        for (x, &a) in group.iter().enumerate() {
            for &b in &group[x + 1..] {
                if vals[a] == vals[b] {
                    return Err(format!(
                        "group {k}: {} and {} both hold {}",
                        name(a),
                        name(b),
                        v.values[vals[a]]
                    ));
                }
            }
        }
    }
    for &(a, b) in &v.differ {
        if vals[a] == vals[b] {
            return Err(format!(
                "{} and {} must differ, both hold {}",
                name(a),
                name(b),
                v.values[vals[a]]
            ));
        }
    }
    for &(a, b) in &v.apart {
        if vals[a].abs_diff(vals[b]) == 1 {
            return Err(format!(
                "{} and {} are side by side and hold consecutive {} and {}",
                name(a),
                name(b),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    for (cells, total) in &v.sums {
        let sum: i64 = cells.iter().map(|&a| v.number(vals[a])).sum();
        if sum != *total {
            let names: Vec<String> = cells.iter().map(|&a| name(a)).collect();
            return Err(format!(
                "the cage {} adds up to {sum}, not {total}",
                names.join(" ")
            ));
        }
    }
    for &(a, r) in &v.parity {
        if !v.has_parity(vals[a], r) {
            let kind = if r == 0 { "even" } else { "odd" };
            return Err(format!(
                "{} is marked {kind} but holds {}",
                name(a),
                v.values[vals[a]]
            ));
        }
    }
    for &(a, b, k) in &v.distant {
        if vals[a].abs_diff(vals[b]) < k {
            return Err(format!(
                "{} and {} are neighbours on a whisper and hold {} and {}, less than {k} apart",
                name(a),
                name(b),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    for &(a, b) in &v.equal {
        if vals[a] != vals[b] {
            return Err(format!(
                "{} and {} mirror each other on a palindrome but hold {} and {}",
                name(a),
                name(b),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    for (circle, cells) in &v.arrows {
        let total: i64 = cells.iter().map(|&c| v.number(vals[c])).sum();
        if total != v.number(vals[*circle]) {
            return Err(format!(
                "the arrow from {} adds up to {total}, but its circle holds {}",
                name(*circle),
                v.values[vals[*circle]]
            ));
        }
    }
    let numbers =
        |cells: &[usize]| -> Vec<i64> { cells.iter().map(|&c| v.number(vals[c])).collect() };
    let cells_named = |cells: &[usize]| -> String {
        cells.iter().map(|&c| name(c)).collect::<Vec<_>>().join(" ")
    };
    for cells in &v.runs {
        let nums = numbers(cells);
        let (lo, hi) = (nums.iter().min().unwrap(), nums.iter().max().unwrap());
        if hi - lo + 1 != cells.len() as i64 {
            return Err(format!(
                "run {} holds {nums:?}, not consecutive numbers",
                cells_named(cells)
            ));
        }
    }
    for (cells, n) in &v.odds {
        let odd = numbers(cells).iter().filter(|&&y| y % 2 != 0).count();
        if odd != *n {
            return Err(format!(
                "zone {} holds {odd} odd numbers, not {n}",
                cells_named(cells)
            ));
        }
    }
    for &(a, b) in &v.next_to {
        if vals[a].abs_diff(vals[b]) != 1 {
            return Err(format!(
                "{} and {} have a bar between them but hold {} and {}, not consecutive",
                name(a),
                name(b),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    for &(a, b) in &v.at_least {
        if vals[a] < vals[b] {
            return Err(format!(
                "{} holds {}, less than {} after it on its thermometer",
                name(a),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    for (cells, k) in &v.plots {
        let mut nums = numbers(cells);
        let plots = nums.iter().filter(|&&y| y == 0).count();
        nums.retain(|&y| y != 0);
        nums.sort_unstable();
        if plots != *k || nums.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!(
                "line {} holds {:?}: not {k} empty plots and different heights",
                cells_named(cells),
                numbers(cells)
            ));
        }
    }
    for (cells, n) in &v.sights {
        let seen = Variant::seen(&numbers(cells));
        if seen != *n {
            return Err(format!(
                "{} seen along {}, not {n}",
                seen,
                cells_named(cells)
            ));
        }
    }
    for &(a, b) in &v.less {
        if vals[a] >= vals[b] {
            return Err(format!(
                "{} < {} fails: {} vs {}",
                name(a),
                name(b),
                v.values[vals[a]],
                v.values[vals[b]]
            ));
        }
    }
    Ok(())
}

/// Checks every grid of one puzzle and that no grid is reported twice.
pub fn check_all(v: &Variant, givens: &[Option<usize>], grids: &[String]) -> Result<(), String> {
    for g in grids {
        check(v, givens, g)?;
    }
    let mut sorted: Vec<&String> = grids.iter().collect();
    sorted.sort();
    if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("solution {} reported twice", w[0]));
    }
    Ok(())
}

#[test]
fn the_checker_accepts_a_sudoku_and_rejects_broken_ones() {
    let v = Variant::sudoku(4, 2, 2, Variant::digits(4));
    let g = v.parse_givens("..3...1....3...1");
    assert_eq!(check(&v, &g, "1234341221434321"), Ok(()));
    assert!(check(&v, &v.parse_givens("................"), "1234341221434321").is_ok());
    assert!(
        check(&v, &v.parse_givens("................"), "1234341221434312").is_err(),
        "column clash"
    );
    assert!(
        check(&v, &v.parse_givens("................"), "1234214334124321").is_err(),
        "box clash"
    );
    assert!(
        check(&v, &v.parse_givens("2..............."), "1234341221434321").is_err(),
        "given lost"
    );
    assert!(
        check(&v, &v.parse_givens("................"), "123434122143432").is_err(),
        "short"
    );
    assert!(
        check(&v, &v.parse_givens("................"), "12343412214343.1").is_err(),
        "empty cell"
    );
    let k = Variant::latin(4, Variant::digits(4)).with_knight();
    // 1234/3412/... has r1c1 = 1 and r2c3 = 1 a knight's move apart.
    assert!(check(&k, &k.parse_givens("................"), "1234341221434321").is_err());
    let f = Variant::latin(4, Variant::digits(4)).with_less(0, 1);
    assert!(check(&f, &f.parse_givens("................"), "1234341221434321").is_ok());
    assert!(check(&f, &f.parse_givens("................"), "2134341212434321").is_err());
}
