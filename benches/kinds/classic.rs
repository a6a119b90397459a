//! Classic Sudoku of each size the janko kinds come in: the plain rule file of `rules/` and
//! a committed set of unique puzzles for it, and the generator that made that set.
//!
//! The set is generated rather than collected because no published set of unique 4x4, 6x6,
//! 8x8 or 12x12 Sudokus is at hand, and one procedure for every size keeps the baseline
//! alike across sizes. Each puzzle is a shuffled full grid with cells removed in a seeded
//! random order for as long as the engine still solves it without branching: one solution,
//! reached by forced moves alone (one state). Published puzzles are made to be solved
//! without guessing, and janko's own classics take one state each; puzzles kept merely
//! unique would be minimal ones, far harder than published ones at 16x16 (a median of
//! thousands of states). `cargo bench --bench kinds -- --make-classic` writes the files
//! again, the same lines each time.

use std::path::PathBuf;
use std::time::Duration;

use grafter::{read_puzzles, Config, Engine, Grammar, Source};

/// The sizes with a classic rule file: the side, and box rows x box columns as
/// `rules/sudoku-NxN.graft` states them.
pub const SIZES: [(usize, usize, usize); 6] = [
    (4, 2, 2),
    (6, 2, 3),
    (8, 2, 4),
    (9, 3, 3),
    (12, 3, 4),
    (16, 4, 4),
];

/// Puzzles generated per size.
const PER_SIZE: usize = 20;

/// The values' characters in the order the rule files declare them (`1..9 A..G`).
const DIGITS: &[u8] = b"123456789ABCDEFG";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The classic rule file of an `n`x`n` grid, if there is one.
pub fn rule_file(n: usize) -> Option<PathBuf> {
    SIZES
        .iter()
        .any(|&(m, _, _)| m == n)
        .then(|| root().join(format!("rules/sudoku-{n}x{n}.graft")))
}

/// The committed puzzle file of an `n`x`n` classic.
pub fn puzzle_file(n: usize) -> PathBuf {
    root().join(format!("benches/kinds/classic/{n}x{n}.txt"))
}

/// Loads a rule file; panics with its diagnostics, since the files are the repository's.
pub fn load(path: &PathBuf) -> Grammar {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    grafter::load_str(&path.display().to_string(), &text).unwrap_or_else(|d| panic!("{d}"))
}

/// splitmix64: a seeded sequence, so the generated files do not depend on a crate's
/// generator staying the same.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn shuffle<T>(&mut self, xs: &mut [T]) {
        for i in (1..xs.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            xs.swap(i, j);
        }
    }

    /// `0..n` in a random order.
    fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        self.shuffle(&mut p);
        p
    }
}

/// A random full grid of side `n` with boxes of `br` rows x `bc` columns, values `0..n`: the
/// pattern `(bc * (r % br) + r / br + c) % n` (a valid grid for any box shape), its values
/// relabelled, rows shuffled within bands and bands among themselves, columns likewise.
fn full_grid(n: usize, br: usize, bc: usize, rng: &mut Rng) -> Vec<usize> {
    let values = rng.permutation(n);
    // Bands are `br` rows high and there are `bc` of them; stacks `bc` wide, `br` of them.
    let order = |rng: &mut Rng, groups: usize, size: usize| -> Vec<usize> {
        rng.permutation(groups)
            .into_iter()
            .flat_map(|g| {
                rng.permutation(size)
                    .into_iter()
                    .map(move |i| g * size + i)
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let rows = order(rng, bc, br);
    let cols = order(rng, br, bc);
    let mut grid = vec![0; n * n];
    for (r, &pr) in rows.iter().enumerate() {
        for (c, &pc) in cols.iter().enumerate() {
            grid[r * n + c] = values[(bc * (pr % br) + pr / br + pc) % n];
        }
    }
    grid
}

fn line(cells: &[Option<usize>]) -> String {
    cells
        .iter()
        .map(|c| c.map_or('.', |v| DIGITS[v] as char))
        .collect()
}

/// True when the puzzle line has one solution that the engine reaches without branching.
fn solved_by_forced_moves(grammar: &Grammar, engine: &Engine, text: &str) -> bool {
    let puzzles = read_puzzles(grammar, &Source::new("classic", format!("{text}\n")))
        .unwrap_or_else(|d| panic!("{}", d[0].message));
    let config = Config::default()
        .with_threads(1)
        .with_max_solutions(2)
        .with_timeout(Duration::from_secs(2));
    let report = engine
        .solve(Some(&puzzles[0].givens), &config, None)
        .unwrap_or_else(|d| panic!("{}", d.message));
    report.stop.is_none() && report.counts.solutions == 1 && report.counts.states == 1
}

/// Writes `PER_SIZE` puzzles of every size to `benches/kinds/classic/`.
pub fn make() -> std::io::Result<()> {
    std::fs::create_dir_all(root().join("benches/kinds/classic"))?;
    for &(n, br, bc) in &SIZES {
        let grammar = load(&rule_file(n).expect("a classic size"));
        let engine = Engine::new(&grammar);
        let mut out = format!(
            "# Classic {n}x{n} Sudoku (rules/sudoku-{n}x{n}.graft), each with one solution: a \
             shuffled full grid,\n# cells removed in a seeded order while grafter still \
             solves it by forced moves alone\n# (one state). Written by `cargo bench --bench \
             kinds -- --make-classic`.\n"
        );
        for k in 0..PER_SIZE {
            let seed = (n as u64) << 32 | k as u64;
            let mut rng = Rng(seed);
            let mut cells: Vec<Option<usize>> = full_grid(n, br, bc, &mut rng)
                .into_iter()
                .map(Some)
                .collect();
            for i in rng.permutation(n * n) {
                let kept = cells[i].take();
                if !solved_by_forced_moves(&grammar, &engine, &line(&cells)) {
                    cells[i] = kept;
                }
            }
            let givens = cells.iter().flatten().count();
            out.push_str(&format!(
                "{}  # seed {seed:#x}, {givens} givens\n",
                line(&cells)
            ));
            eprintln!("{n}x{n} puzzle {}: {givens} givens", k + 1);
        }
        std::fs::write(puzzle_file(n), out)?;
    }
    Ok(())
}
