//! Independent descriptions of puzzle variants (cells, domain, constraints), shared by the
//! checker and the brute-force enumerator, and the table of the rule files in `rules/`.

/// A puzzle variant: a grid of cells, a value domain and the constraints between cells.
/// Cells are numbered row-major from 0; values by their index in `values`.
#[derive(Clone, Debug)]
pub struct Variant {
    pub rows: usize,
    pub cols: usize,
    /// The domain, in declaration order (the order `<` uses).
    pub values: Vec<String>,
    /// Sets of cells that must all hold different values.
    pub groups: Vec<Vec<usize>>,
    /// Pairs of cells that must hold different values (anti-knight and the like).
    pub differ: Vec<(usize, usize)>,
    /// Pairs (a, b): the value of a comes before the value of b in the domain.
    pub less: Vec<(usize, usize)>,
    /// Pairs of cells whose values must not be neighbours in the domain (non-consecutive).
    pub apart: Vec<(usize, usize)>,
    /// Pairs (cell, r): the cell's value, as a number, is r modulo 2 (even/odd marks).
    pub parity: Vec<(usize, usize)>,
    /// Cages whose values, as numbers, add up to a total.
    pub sums: Vec<(Vec<usize>, i64)>,
    /// (a, b, k): the values of a and b are at least k apart in the domain (whispers).
    pub distant: Vec<(usize, usize, usize)>,
    /// Pairs of cells that hold the same value (palindromes).
    pub equal: Vec<(usize, usize)>,
    /// (circle, cells): the circle's number is the sum of the cells' numbers (arrows).
    pub arrows: Vec<(usize, Vec<usize>)>,
    /// Positions without a cell (the holes of a shaped grid): in no constraint, never filled.
    pub holes: Vec<bool>,
    /// Sets of cells whose numbers form a run of consecutive numbers (renban; that they
    /// differ is a group of `groups`).
    pub runs: Vec<Vec<usize>>,
    /// Sets of cells of which exactly this many hold an odd number.
    pub odds: Vec<(Vec<usize>, usize)>,
    /// Pairs of cells whose values must be neighbours in the domain (consecutive bars).
    pub next_to: Vec<(usize, usize)>,
    /// Pairs (a, b): the value of a does not come before that of b in the domain (along a
    /// thermometer of the thermometer puzzle, nearer the bulb holds at least as much).
    pub at_least: Vec<(usize, usize)>,
    /// (cells in the order seen from one side, n): n of them are seen, a cell being seen
    /// when its number is above 0 and above the number of every cell before it (skyscrapers).
    pub sights: Vec<(Vec<usize>, usize)>,
    /// (cells, k): exactly k of the cells hold the number 0 (a skyscraper line's empty
    /// plots), and the others different numbers.
    pub plots: Vec<(Vec<usize>, usize)>,
}

impl Variant {
    /// The values 1..n (n at most 9).
    pub fn digits(n: usize) -> Vec<String> {
        (1..=n).map(|d| d.to_string()).collect()
    }

    /// A square grid with the given domain, rows and columns.
    pub fn latin(n: usize, values: Vec<String>) -> Variant {
        assert_eq!(values.len(), n);
        let mut v = Variant {
            rows: n,
            cols: n,
            values,
            groups: Vec::new(),
            differ: Vec::new(),
            less: Vec::new(),
            apart: Vec::new(),
            parity: Vec::new(),
            sums: Vec::new(),
            distant: Vec::new(),
            equal: Vec::new(),
            arrows: Vec::new(),
            holes: vec![false; n * n],
            runs: Vec::new(),
            odds: Vec::new(),
            next_to: Vec::new(),
            at_least: Vec::new(),
            sights: Vec::new(),
            plots: Vec::new(),
        };
        v.add_rows_and_columns();
        v
    }

    /// A grid of `mask` (one string per row: `#` a cell, `.` a hole) without constraints.
    pub fn shaped(mask: &[&str], values: Vec<String>) -> Variant {
        let holes: Vec<bool> = mask
            .iter()
            .flat_map(|l| l.chars().map(|c| c == '.'))
            .collect();
        let cols = mask[0].chars().count();
        assert!(mask.iter().all(|l| l.chars().count() == cols));
        Variant {
            rows: mask.len(),
            cols,
            values,
            groups: Vec::new(),
            differ: Vec::new(),
            less: Vec::new(),
            apart: Vec::new(),
            parity: Vec::new(),
            sums: Vec::new(),
            distant: Vec::new(),
            equal: Vec::new(),
            arrows: Vec::new(),
            holes,
            runs: Vec::new(),
            odds: Vec::new(),
            next_to: Vec::new(),
            at_least: Vec::new(),
            sights: Vec::new(),
            plots: Vec::new(),
        }
    }

    /// The rows, columns and br x bc boxes of an n x n Sudoku whose top-left cell is at
    /// 1-based (r, c).
    pub fn with_sudoku_at(mut self, r: usize, c: usize, n: usize, br: usize, bc: usize) -> Variant {
        for i in 0..n {
            let row = (0..n).map(|j| self.at(r + i, c + j)).collect();
            let col = (0..n).map(|j| self.at(r + j, c + i)).collect();
            self.groups.push(row);
            self.groups.push(col);
        }
        for i in (0..n).step_by(br) {
            for j in (0..n).step_by(bc) {
                let b = self.block(r + i, c + j, br, bc);
                self.groups.push(b);
            }
        }
        self
    }

    /// A 9x9 Sudoku on a lattice: its cell (i, j), from 0, is at 1-based row
    /// `r + (i / run) * step + i % run` and the column alike.
    pub fn with_lattice_sudoku(mut self, r: usize, c: usize, step: usize, run: usize) -> Variant {
        let at = |i: usize| (i / run) * step + i % run;
        let cell = |v: &Variant, i: usize, j: usize| v.at(r + at(i), c + at(j));
        for i in 0..9 {
            let row = (0..9).map(|j| cell(&self, i, j)).collect();
            let col = (0..9).map(|j| cell(&self, j, i)).collect();
            self.groups.push(row);
            self.groups.push(col);
            let (bi, bj) = (3 * (i / 3), 3 * (i % 3));
            let b = (0..9)
                .map(|k| cell(&self, bi + k / 3, bj + k % 3))
                .collect();
            self.groups.push(b);
        }
        self
    }

    /// 9x9 Sudokus with their top-left cells at the 1-based `anchors`, in a grid of
    /// `rows` x `cols` whose positions outside every Sudoku are holes.
    pub fn sudokus(rows: usize, cols: usize, anchors: &[(usize, usize)]) -> Variant {
        let inside = |r: usize, c: usize| {
            anchors
                .iter()
                .any(|&(r0, c0)| (r0..r0 + 9).contains(&r) && (c0..c0 + 9).contains(&c))
        };
        let mask: Vec<String> = (1..=rows)
            .map(|r| {
                (1..=cols)
                    .map(|c| if inside(r, c) { '#' } else { '.' })
                    .collect()
            })
            .collect();
        let mask: Vec<&str> = mask.iter().map(String::as_str).collect();
        anchors
            .iter()
            .fold(Variant::shaped(&mask, Variant::digits(9)), |v, &(r, c)| {
                v.with_sudoku_at(r, c, 9, 3, 3)
            })
    }

    /// Whether the position is a hole.
    pub fn is_hole(&self, cell: usize) -> bool {
        self.holes[cell]
    }

    /// A thermometer, bulb first: every cell holds less than each cell after it.
    pub fn with_thermometer(mut self, cells: &[(usize, usize)]) -> Variant {
        let cells: Vec<usize> = cells.iter().map(|&(r, c)| self.at(r, c)).collect();
        for (i, &a) in cells.iter().enumerate() {
            for &b in &cells[i + 1..] {
                self.less.push((a, b));
            }
        }
        self
    }

    /// A whisper line: cells next to each other on it hold values at least `k` apart.
    pub fn with_whisper(mut self, k: usize, cells: &[(usize, usize)]) -> Variant {
        for w in cells.windows(2) {
            let (a, b) = (self.at(w[0].0, w[0].1), self.at(w[1].0, w[1].1));
            self.distant.push((a, b, k));
        }
        self
    }

    /// A palindrome line: it reads the same from either end.
    pub fn with_palindrome(mut self, cells: &[(usize, usize)]) -> Variant {
        let n = cells.len();
        for i in 0..n / 2 {
            let (a, b) = (cells[i], cells[n - 1 - i]);
            let (a, b) = (self.at(a.0, a.1), self.at(b.0, b.1));
            self.equal.push((a, b));
        }
        self
    }

    /// An arrow: the circle (the first cell) is the sum of the others.
    pub fn with_arrow(mut self, cells: &[(usize, usize)]) -> Variant {
        let cells: Vec<usize> = cells.iter().map(|&(r, c)| self.at(r, c)).collect();
        self.arrows.push((cells[0], cells[1..].to_vec()));
        self
    }

    /// A Sudoku of side n with boxes of br rows x bc columns.
    pub fn sudoku(n: usize, br: usize, bc: usize, values: Vec<String>) -> Variant {
        Variant::latin(n, values).with_boxes(br, bc)
    }

    pub fn cells(&self) -> usize {
        self.rows * self.cols
    }

    /// The cell at 1-based row r and column c.
    pub fn at(&self, r: usize, c: usize) -> usize {
        assert!(
            r >= 1 && r <= self.rows && c >= 1 && c <= self.cols,
            "r{r}c{c} outside the grid"
        );
        (r - 1) * self.cols + (c - 1)
    }

    /// 1-based (row, column) of a cell.
    pub fn rc(&self, cell: usize) -> (usize, usize) {
        (cell / self.cols + 1, cell % self.cols + 1)
    }

    pub fn add_rows_and_columns(&mut self) {
        for r in 1..=self.rows {
            let g = (1..=self.cols).map(|c| self.at(r, c)).collect();
            self.groups.push(g);
        }
        for c in 1..=self.cols {
            let g = (1..=self.rows).map(|r| self.at(r, c)).collect();
            self.groups.push(g);
        }
    }

    /// A block of h rows x w columns with top-left cell (r, c).
    pub fn block(&self, r: usize, c: usize, h: usize, w: usize) -> Vec<usize> {
        let mut g = Vec::new();
        for i in r..r + h {
            for j in c..c + w {
                g.push(self.at(i, j));
            }
        }
        g
    }

    pub fn with_boxes(mut self, br: usize, bc: usize) -> Variant {
        assert!(self.rows.is_multiple_of(br) && self.cols.is_multiple_of(bc));
        for r in (1..=self.rows).step_by(br) {
            for c in (1..=self.cols).step_by(bc) {
                let b = self.block(r, c, br, bc);
                self.groups.push(b);
            }
        }
        self
    }

    pub fn with_group(mut self, cells: Vec<usize>) -> Variant {
        self.groups.push(cells);
        self
    }

    /// A `block` window of h x w cells at 1-based (r, c).
    pub fn with_window(self, r: usize, c: usize, h: usize, w: usize) -> Variant {
        let b = self.block(r, c, h, w);
        self.with_group(b)
    }

    pub fn with_diagonals(self) -> Variant {
        assert_eq!(self.rows, self.cols);
        let n = self.rows;
        let d1 = (1..=n).map(|i| self.at(i, i)).collect();
        let d2 = (1..=n).map(|i| self.at(i, n + 1 - i)).collect();
        self.with_group(d1).with_group(d2)
    }

    /// One group per letter of a layout (one string per row).
    pub fn with_regions(mut self, layout: &[&str]) -> Variant {
        assert_eq!(layout.len(), self.rows);
        let mut by_letter: std::collections::BTreeMap<char, Vec<usize>> = Default::default();
        for (r, line) in layout.iter().enumerate() {
            assert_eq!(line.chars().count(), self.cols);
            for (c, ch) in line.chars().enumerate() {
                by_letter.entry(ch).or_default().push(self.at(r + 1, c + 1));
            }
        }
        self.groups.extend(by_letter.into_values());
        self
    }

    /// Every unordered pair of cells for which `related(r1, c1, r2, c2)` holds (1-based)
    /// must differ.
    pub fn with_differ(mut self, related: impl Fn(i64, i64, i64, i64) -> bool) -> Variant {
        for a in 0..self.cells() {
            for b in 0..self.cells() {
                let (ra, ca) = self.rc(a);
                let (rb, cb) = self.rc(b);
                if a != b && related(ra as i64, ca as i64, rb as i64, cb as i64) {
                    self.differ.push((a.min(b), a.max(b)));
                }
            }
        }
        self.differ.sort();
        self.differ.dedup();
        self
    }

    pub fn with_knight(self) -> Variant {
        self.with_differ(|r1, c1, r2, c2| (r1 - r2).abs() * (c1 - c2).abs() == 2)
    }

    /// The value of cell a must come before that of cell b.
    pub fn with_less(mut self, a: usize, b: usize) -> Variant {
        self.less.push((a, b));
        self
    }

    /// Cells side by side in a row or a column must not hold consecutive values.
    pub fn with_nonconsecutive(mut self) -> Variant {
        for a in 0..self.cells() {
            let (r, c) = self.rc(a);
            if c < self.cols {
                self.apart.push((a, self.at(r, c + 1)));
            }
            if r < self.rows {
                self.apart.push((a, self.at(r + 1, c)));
            }
        }
        self
    }

    /// Even/odd marks written one character per cell, row-major, blanks ignored: `0` even,
    /// `1` odd, `.` unmarked.
    pub fn with_parity(mut self, marks: &str) -> Variant {
        let marks: Vec<char> = marks.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(marks.len(), self.cells(), "marks {marks:?}");
        for (cell, m) in marks.into_iter().enumerate() {
            match m {
                '0' => self.parity.push((cell, 0)),
                '1' => self.parity.push((cell, 1)),
                '.' => {}
                _ => panic!("mark {m:?}"),
            }
        }
        self
    }

    /// Whether value index `x` (a number) has remainder `r` modulo 2.
    pub fn has_parity(&self, x: usize, r: usize) -> bool {
        self.number(x).rem_euclid(2) as usize == r
    }

    /// The number value index `x` is written as (numeric domains).
    pub fn number(&self, x: usize) -> i64 {
        self.values[x].parse().expect("a numeric domain")
    }

    /// The values of `cells` must add up to `total`.
    pub fn with_sum(mut self, cells: Vec<usize>, total: i64) -> Variant {
        self.sums.push((cells, total));
        self
    }

    /// Lines of cells along which values rise (thermometers): each member less than the
    /// next.
    pub fn with_rising(mut self, line: &[usize]) -> Variant {
        for pair in line.windows(2) {
            self.less.push((pair[0], pair[1]));
        }
        self
    }

    /// The cells of each letter of a layout (one string per row; `.` is no cell).
    fn letters(&self, layout: &[&str]) -> std::collections::BTreeMap<char, Vec<usize>> {
        assert_eq!(layout.len(), self.rows);
        let mut by_letter: std::collections::BTreeMap<char, Vec<usize>> = Default::default();
        for (r, line) in layout.iter().enumerate() {
            assert_eq!(line.chars().count(), self.cols);
            for (c, ch) in line.chars().enumerate() {
                if ch != '.' {
                    by_letter.entry(ch).or_default().push(self.at(r + 1, c + 1));
                }
            }
        }
        by_letter
    }

    /// Killer cages, one per letter of a layout, with their sums: distinct values adding up
    /// to the sum.
    pub fn with_cages(mut self, layout: &[&str], sums: &[(char, i64)]) -> Variant {
        let cages = self.letters(layout);
        assert_eq!(cages.len(), sums.len(), "one sum per cage");
        for (letter, cells) in cages {
            let sum = sums.iter().find(|s| s.0 == letter).expect("a sum").1;
            self.groups.push(cells.clone());
            self.sums.push((cells, sum));
        }
        self
    }

    /// Renban regions, one per letter of a layout: distinct values forming a run.
    pub fn with_runs(mut self, layout: &[&str]) -> Variant {
        for cells in self.letters(layout).into_values() {
            self.groups.push(cells.clone());
            self.runs.push(cells);
        }
        self
    }

    /// Zones, one per letter of a layout, holding exactly as many odd numbers as given.
    pub fn with_odds(mut self, layout: &[&str], odds: &[(char, usize)]) -> Variant {
        for (letter, cells) in self.letters(layout) {
            let n = odds.iter().find(|s| s.0 == letter).expect("a count").1;
            self.odds.push((cells, n));
        }
        self
    }

    /// Bars between orthogonal neighbours, one character per cell row-major (blanks
    /// ignored) for the border on the right (`right`) and below (`below`), `1` a bar: a pair
    /// with a bar holds consecutive values, a pair without one does not.
    pub fn with_bars(mut self, right: &str, below: &str) -> Variant {
        let bits = |s: &str| -> Vec<bool> {
            s.chars()
                .filter(|c| !c.is_whitespace())
                .map(|c| c == '1')
                .collect()
        };
        let (right, below) = (bits(right), bits(below));
        assert_eq!(right.len(), self.cells());
        assert_eq!(below.len(), self.cells());
        for a in 0..self.cells() {
            let (r, c) = self.rc(a);
            for (bar, other) in [
                (right[a], (c < self.cols).then(|| self.at(r, c + 1))),
                (below[a], (r < self.rows).then(|| self.at(r + 1, c))),
            ] {
                match (bar, other) {
                    (true, Some(b)) => self.next_to.push((a, b)),
                    (false, Some(b)) => self.apart.push((a, b)),
                    (true, None) => panic!("a bar on the grid's edge"),
                    (false, None) => {}
                }
            }
        }
        self
    }

    /// Thermometers of the thermometer puzzle (cells from the bulb): along each, a cell
    /// holds at least what the next one does.
    pub fn with_mercury(mut self, line: &[usize]) -> Variant {
        for pair in line.windows(2) {
            self.at_least.push((pair[0], pair[1]));
        }
        self
    }

    /// Each row and column holds `k` empty plots (the number 0), its other cells different
    /// numbers (a skyscraper grid with fewer heights than cells; instead of its groups).
    pub fn with_plots(mut self, k: usize) -> Variant {
        for r in 1..=self.rows {
            let row = (1..=self.cols).map(|c| self.at(r, c)).collect();
            self.plots.push((row, k));
        }
        for c in 1..=self.cols {
            let col = (1..=self.rows).map(|r| self.at(r, c)).collect();
            self.plots.push((col, k));
        }
        self
    }

    /// Skyscraper clues, per row from the left and right, per column from the top and
    /// bottom (`None`: no clue).
    pub fn with_sights(
        mut self,
        left: &[Option<usize>],
        right: &[Option<usize>],
        top: &[Option<usize>],
        bottom: &[Option<usize>],
    ) -> Variant {
        for r in 1..=self.rows {
            let row: Vec<usize> = (1..=self.cols).map(|c| self.at(r, c)).collect();
            if let Some(n) = left[r - 1] {
                self.sights.push((row.clone(), n));
            }
            if let Some(n) = right[r - 1] {
                self.sights.push((row.into_iter().rev().collect(), n));
            }
        }
        for c in 1..=self.cols {
            let col: Vec<usize> = (1..=self.rows).map(|r| self.at(r, c)).collect();
            if let Some(n) = top[c - 1] {
                self.sights.push((col.clone(), n));
            }
            if let Some(n) = bottom[c - 1] {
                self.sights.push((col.into_iter().rev().collect(), n));
            }
        }
        self
    }

    /// How many of `nums` (in the order seen) are seen: above 0 and above all before.
    pub fn seen(nums: &[i64]) -> usize {
        let mut top = 0;
        nums.iter()
            .filter(|&&n| {
                let seen = n > top;
                top = top.max(n);
                seen
            })
            .count()
    }

    /// The index of a value written as one character, if it is one.
    pub fn value_of_char(&self, ch: char) -> Option<usize> {
        self.values
            .iter()
            .position(|v| v.chars().eq(std::iter::once(ch)))
    }

    /// Parses givens written one character per position (`.`, or `0` when 0 is not a
    /// value, for an empty cell; anything at a hole). Panics on anything else: the test
    /// data are fixed.
    pub fn parse_givens(&self, text: &str) -> Vec<Option<usize>> {
        // A puzzle line's layer sections follow its givens after `|`.
        let givens = text.split('|').next().unwrap_or_default();
        let cells: Vec<char> = givens.chars().filter(|c| !c.is_whitespace()).collect();
        assert_eq!(
            cells.len(),
            self.cells(),
            "givens {text:?} have the wrong length"
        );
        cells
            .iter()
            .enumerate()
            .map(|(i, &ch)| match self.value_of_char(ch) {
                _ if self.is_hole(i) => None,
                Some(v) => Some(v),
                None if ch == '.' || ch == '0' => None,
                None => panic!("givens {text:?}: {ch:?} is no value"),
            })
            .collect()
    }

    /// For every cell, the cells it must differ from (each listed once).
    pub fn neighbours(&self) -> Vec<Vec<usize>> {
        let mut n = vec![Vec::new(); self.cells()];
        for g in &self.groups {
            for &a in g {
                for &b in g {
                    if a != b {
                        n[a].push(b);
                    }
                }
            }
        }
        for &(a, b) in &self.differ {
            n[a].push(b);
            n[b].push(a);
        }
        for list in &mut n {
            list.sort();
            list.dedup();
        }
        n
    }
}

/// The jigsaw layout of `tests/data/variants/9x9-jigsaw.txt` (tests/data/README.md).
pub const JIGSAW: [&str; 9] = [
    "ABBBBBCFF",
    "AABBBBCFF",
    "AAAAAACCF",
    "DDDDEECCF",
    "DDEEEECCF",
    "DDEGEECFF",
    "DGGGHHHHI",
    "GGGHHHIII",
    "GGHHIIIII",
];

/// The regions of `rules/jigsaw-4x4.graft`'s own puzzle (its `layer region ... = { }`).
pub const JIGSAW_4X4: [&str; 4] = ["ABBB", "AAAB", "CDDD", "CCCD"];

/// The regions of `rules/jigsaw-6x6.graft`'s own puzzle.
pub const JIGSAW_6X6: [&str; 6] = ["AABBBB", "AAACBB", "ADDCCC", "DDDCCE", "FDFEEE", "FFFFEE"];

/// The marks of `rules/even-odd-6x6.graft`'s own puzzle (0 even, 1 odd).
pub const EVEN_ODD_6X6: &str = "1....1 .1.010 ...1.. .1..1. .....1 0.1.01";

/// The cages of `rules/killer-4x4.graft`'s own puzzle (its `layer cages ... = { }` and
/// `layer sums ... = { }`), one letter per cage.
pub const KILLER_4X4: [&str; 4] = ["AABB", "AACB", "DCCE", "DDFE"];
pub const KILLER_4X4_SUMS: [(char, i64); 6] =
    [('A', 10), ('B', 8), ('C', 9), ('D', 7), ('E', 5), ('F', 1)];

/// The cages of `rules/killer-6x6.graft` (janko.at Killer Sudoku 17).
pub const KILLER_6X6: [&str; 6] = ["AABBCD", "AEFFCD", "GEHHCI", "GJKKLI", "MJNNLO", "MMPPLO"];
pub const KILLER_6X6_SUMS: [(char, i64); 16] = [
    ('A', 8),
    ('B', 7),
    ('C', 13),
    ('D', 3),
    ('E', 7),
    ('F', 8),
    ('G', 9),
    ('H', 6),
    ('I', 11),
    ('J', 9),
    ('K', 6),
    ('L', 8),
    ('M', 9),
    ('N', 8),
    ('O', 7),
    ('P', 7),
];

/// The cages of `rules/killer-9x9.graft` (janko.at Killer Sudoku 25).
pub const KILLER_9X9: [&str; 9] = [
    "AABBCDEEF",
    "GGHICDEJF",
    "KKHICLLJF",
    "MNNOOPPQQ",
    "MRRSSSTTU",
    "VVWWXXYYU",
    "Zabbcdeff",
    "Zaghcdeii",
    "Zgghcjjkk",
];
pub const KILLER_9X9_SUMS: [(char, i64); 37] = [
    ('A', 8),
    ('B', 9),
    ('C', 16),
    ('D', 8),
    ('E', 16),
    ('F', 18),
    ('G', 9),
    ('H', 6),
    ('I', 16),
    ('J', 7),
    ('K', 17),
    ('L', 5),
    ('M', 9),
    ('N', 15),
    ('O', 9),
    ('P', 7),
    ('Q', 13),
    ('R', 12),
    ('S', 13),
    ('T', 6),
    ('U', 7),
    ('V', 6),
    ('W', 11),
    ('X', 11),
    ('Y', 16),
    ('Z', 15),
    ('a', 9),
    ('b', 15),
    ('c', 7),
    ('d', 15),
    ('e', 7),
    ('f', 5),
    ('g', 12),
    ('h', 8),
    ('i', 14),
    ('j', 17),
    ('k', 11),
];

/// The runs of `rules/renban-6x6.graft` (janko.at Renban 1), one letter per run.
pub const RENBAN_6X6: [&str; 6] = ["ABCCDE", "AAACCE", "FGAHII", "FFJJJJ", "KKLMNN", "OKMMNP"];

/// The bars of `rules/consecutive-6x6.graft`'s own puzzle: on the right, below.
pub const CONSECUTIVE_6X6: (&str, &str) = (
    "010010 010010 010010 000010 010000 010010",
    "000000 000000 000000 000000 111110 000000",
);

/// `rules/margin-6x6.graft`'s own puzzle: the sum of the first three cells from the left,
/// the right (per row), the top and the bottom (per column).
fn margin_6x6() -> Variant {
    let left = [6, 15, 6, 15, 6, 15];
    let right = [15, 6, 15, 6, 15, 6];
    let top = [7, 10, 10, 10, 13, 13];
    let bottom = [14, 11, 11, 11, 8, 8];
    let mut v = Variant::sudoku(6, 2, 3, Variant::digits(6));
    for i in 1..=6 {
        let row = |cols: [usize; 3]| cols.map(|c| v.at(i, c)).to_vec();
        let col = |rows: [usize; 3]| rows.map(|r| v.at(r, i)).to_vec();
        let sums = [
            (row([1, 2, 3]), left[i - 1]),
            (row([4, 5, 6]), right[i - 1]),
            (col([1, 2, 3]), top[i - 1]),
            (col([4, 5, 6]), bottom[i - 1]),
        ];
        for (cells, total) in sums {
            v = v.with_sum(cells, total);
        }
    }
    v
}

/// The clues of `rules/skyscraper-4x4.graft`'s (and skyscraper-sudoku-4x4's) own puzzle:
/// left, right, top, bottom.
pub const SKYSCRAPER_4X4: [[Option<usize>; 4]; 4] = [
    [Some(4), Some(2), Some(1), Some(2)],
    [None, None, Some(4), Some(2)],
    [Some(3), Some(2), Some(2), Some(1)],
    [None, Some(3), None, None],
];

/// `rules/thermometer-puzzle-4x4.graft`'s own puzzle: its thermometers from the bulb and
/// the filled cells (1s) each row and column holds.
fn thermometer_puzzle_4x4() -> Variant {
    let mut v = Variant::shaped(&["####"; 4], values("0 1"));
    let thermos: [&[(usize, usize)]; 6] = [
        &[(1, 1), (1, 2), (1, 3)],
        &[(1, 4), (2, 4), (3, 4), (4, 4)],
        &[(2, 1), (3, 1), (4, 1)],
        &[(2, 2), (2, 3)],
        &[(3, 2), (3, 3)],
        &[(4, 3), (4, 2)],
    ];
    for t in thermos {
        let cells: Vec<usize> = t.iter().map(|&(r, c)| v.at(r, c)).collect();
        v = v.with_mercury(&cells);
    }
    for (i, n) in [(1, 3), (2, 1), (3, 2)] {
        let cells = (1..=4).map(|c| v.at(i, c)).collect();
        v = v.with_sum(cells, n);
    }
    for (i, n) in [(1, 4), (2, 3), (4, 1)] {
        let cells = (1..=4).map(|r| v.at(r, i)).collect();
        v = v.with_sum(cells, n);
    }
    v
}

/// `rules/kakuro-4x4.graft`'s own puzzle: its runs, each of different numbers with a sum.
fn kakuro_4x4() -> Variant {
    let mut v = Variant::shaped(&["....", ".###", ".###", ".##."], Variant::digits(9));
    let runs: [(&[(usize, usize)], i64); 6] = [
        (&[(2, 2), (2, 3), (2, 4)], 6),
        (&[(3, 2), (3, 3), (3, 4)], 7),
        (&[(4, 2), (4, 3)], 5),
        (&[(2, 2), (3, 2), (4, 2)], 7),
        (&[(2, 3), (3, 3), (4, 3)], 8),
        (&[(2, 4), (3, 4)], 3),
    ];
    for (run, total) in runs {
        let cells: Vec<usize> = run.iter().map(|&(r, c)| v.at(r, c)).collect();
        v = v.with_group(cells.clone()).with_sum(cells, total);
    }
    v
}

/// A rule file in `rules/`: its variant, its data file and its start block's solution count.
pub struct RuleFile {
    pub name: &'static str,
    pub variant: Variant,
    /// Data files (relative to `tests/data`; `sudoku9/17clue.txt` to the external collection)
    /// whose lines the rule file solves.
    pub data: &'static [&'static str],
    /// How many solutions the file's own `start` block has.
    pub start_solutions: u64,
}

fn values(list: &str) -> Vec<String> {
    list.split_whitespace().map(String::from).collect()
}

/// Every rule file of `rules/`, described independently of its text.
pub fn rule_files() -> Vec<RuleFile> {
    let d9 = || Variant::digits(9);
    let futoshiki = {
        let v = Variant::latin(5, Variant::digits(5));
        let lt = [
            ((1, 1), (1, 2)),
            ((1, 1), (2, 1)),
            ((1, 4), (1, 3)),
            ((2, 4), (3, 4)),
            ((3, 3), (2, 3)),
            ((3, 4), (3, 3)),
            ((5, 2), (5, 1)),
            ((5, 2), (5, 3)),
            ((5, 3), (5, 4)),
        ];
        lt.iter().fold(v, |v, &((r1, c1), (r2, c2))| {
            let (a, b) = (v.at(r1, c1), v.at(r2, c2));
            v.with_less(a, b)
        })
    };
    let samurai = Variant::sudokus(21, 21, &[(1, 1), (1, 13), (7, 7), (13, 1), (13, 13)]);
    let nine = grid_of_sudokus(&[1, 10, 19], &[1, 10, 19], &[], &[]);
    let rf = |name, variant, data, start_solutions| RuleFile {
        name,
        variant,
        data,
        start_solutions,
    };
    vec![
        rf(
            "sudoku-4x4",
            Variant::sudoku(4, 2, 2, Variant::digits(4)),
            &["variants/4x4.txt"],
            12,
        ),
        rf(
            "sudoku-4x4-centre",
            Variant::sudoku(4, 2, 2, Variant::digits(4)).with_window(2, 2, 2, 2),
            &["variants/4x4-centre.txt"],
            4,
        ),
        rf(
            "sudoku-4x4-letters",
            Variant::sudoku(4, 2, 2, values("A B C D")),
            &["variants/4x4-letters.txt"],
            2,
        ),
        rf("latin-4x4", Variant::latin(4, Variant::digits(4)), &[], 3),
        rf(
            "sudoku-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6)),
            &["variants/6x6.txt"],
            2,
        ),
        rf(
            "sudoku-8x8",
            Variant::sudoku(8, 2, 4, Variant::digits(8)),
            &["variants/8x8.txt"],
            2,
        ),
        rf(
            "sudoku-9x9",
            Variant::sudoku(9, 3, 3, d9()),
            &[
                "variants/9x9.txt",
                "sudoku9/multi.txt",
                "sudoku9/hardest.txt",
                "sudoku9/easy50.txt",
                "sudoku9/top95.txt",
                "sudoku9/hard375.txt",
                "sudoku9/17clue.txt",
            ],
            2,
        ),
        rf(
            "sudoku-12x12",
            Variant::sudoku(12, 3, 4, values("1 2 3 4 5 6 7 8 9 A B C")),
            &["variants/12x12.txt"],
            2,
        ),
        rf(
            "sudoku-16x16",
            Variant::sudoku(16, 4, 4, values("1 2 3 4 5 6 7 8 9 A B C D E F G")),
            &["variants/16x16.txt"],
            2,
        ),
        rf(
            "x-sudoku-9x9",
            Variant::sudoku(9, 3, 3, d9()).with_diagonals(),
            &["variants/9x9-x.txt"],
            2,
        ),
        rf(
            "windoku-9x9",
            Variant::sudoku(9, 3, 3, d9())
                .with_window(2, 2, 3, 3)
                .with_window(2, 6, 3, 3)
                .with_window(6, 2, 3, 3)
                .with_window(6, 6, 3, 3),
            &["variants/9x9-windoku.txt"],
            4,
        ),
        rf(
            "jigsaw-9x9",
            Variant::latin(9, d9()).with_regions(&JIGSAW),
            &["variants/9x9-jigsaw.txt"],
            4,
        ),
        rf(
            "anti-knight-9x9",
            Variant::sudoku(9, 3, 3, d9()).with_knight(),
            &["variants/9x9-antiknight.txt"],
            4,
        ),
        rf("futoshiki-5x5", futoshiki, &[], 3),
        rf(
            "jigsaw-4x4",
            Variant::latin(4, Variant::digits(4)).with_regions(&JIGSAW_4X4),
            &[],
            3,
        ),
        rf(
            "jigsaw-6x6",
            Variant::latin(6, Variant::digits(6)).with_regions(&JIGSAW_6X6),
            &[],
            3,
        ),
        rf(
            "even-odd-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6)).with_parity(EVEN_ODD_6X6),
            &[],
            12,
        ),
        rf(
            "twin-4x4",
            Variant::shaped(
                &["####..", "####..", "######", "######", "..####", "..####"],
                Variant::digits(4),
            )
            .with_sudoku_at(1, 1, 4, 2, 2)
            .with_sudoku_at(3, 3, 4, 2, 2),
            &[],
            3,
        ),
        rf(
            "thermo-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6))
                .with_thermometer(&[(1, 1), (2, 1), (3, 1), (3, 2)])
                .with_thermometer(&[(1, 6), (1, 5), (1, 4)])
                .with_thermometer(&[(6, 6), (5, 6), (4, 5)])
                .with_thermometer(&[(5, 2), (5, 3), (6, 4)]),
            &[],
            6,
        ),
        rf(
            "whisper-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6))
                .with_whisper(3, &[(1, 1), (2, 2), (3, 2), (4, 1)])
                .with_whisper(3, &[(2, 4), (2, 5), (3, 6), (4, 6), (5, 5)])
                .with_whisper(3, &[(6, 2), (5, 3), (6, 4)]),
            &[],
            4,
        ),
        rf("samurai-21x21", samurai, &[], 1),
        rf(
            "butterfly-12x12",
            Variant::sudokus(12, 12, &[(1, 1), (1, 4), (4, 1), (4, 4)]),
            &[],
            1,
        ),
        rf(
            "gattai-8-21x33",
            Variant::sudokus(
                21,
                33,
                &grid_of_sudokus(&[1, 13], &[1, 13, 25], &[7], &[7, 19]),
            ),
            &[],
            1,
        ),
        rf(
            "shogun-21x45",
            Variant::sudokus(
                21,
                45,
                &grid_of_sudokus(&[1, 13], &[1, 13, 25, 37], &[7], &[7, 19, 31]),
            ),
            &[],
            1,
        ),
        rf(
            "sohei-21x21",
            Variant::sudokus(21, 21, &[(1, 7), (7, 1), (7, 13), (13, 7)]),
            &[],
            1,
        ),
        rf(
            "sumo-33x33",
            Variant::sudokus(
                33,
                33,
                &grid_of_sudokus(&[1, 13, 25], &[1, 13, 25], &[7, 19], &[7, 19]),
            ),
            &[],
            1,
        ),
        rf(
            "windmill-21x21",
            Variant::sudokus(21, 21, &[(1, 4), (4, 13), (7, 7), (10, 1), (13, 10)]),
            &[],
            1,
        ),
        rf(
            "clueless-1-27x27",
            Variant::sudokus(27, 27, &nine).with_lattice_sudoku(2, 2, 3, 1),
            &[],
            1,
        ),
        rf(
            "clueless-2-27x27",
            Variant::sudokus(27, 27, &nine).with_lattice_sudoku(4, 4, 9, 3),
            &[],
            1,
        ),
        rf(
            "killer-4x4",
            Variant::sudoku(4, 2, 2, Variant::digits(4)).with_cages(&KILLER_4X4, &KILLER_4X4_SUMS),
            &[],
            3,
        ),
        rf(
            "killer-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6)).with_cages(&KILLER_6X6, &KILLER_6X6_SUMS),
            &[],
            1,
        ),
        rf(
            "killer-9x9",
            Variant::sudoku(9, 3, 3, d9()).with_cages(&KILLER_9X9, &KILLER_9X9_SUMS),
            &[],
            1,
        ),
        rf(
            "renban-6x6",
            Variant::latin(6, Variant::digits(6)).with_runs(&RENBAN_6X6),
            &[],
            1,
        ),
        rf(
            "consecutive-6x6",
            Variant::latin(6, Variant::digits(6)).with_bars(CONSECUTIVE_6X6.0, CONSECUTIVE_6X6.1),
            &[],
            2,
        ),
        rf("margin-6x6", margin_6x6(), &[], 8),
        rf(
            "skyscraper-4x4",
            Variant::latin(4, Variant::digits(4)).with_sights(
                &SKYSCRAPER_4X4[0],
                &SKYSCRAPER_4X4[1],
                &SKYSCRAPER_4X4[2],
                &SKYSCRAPER_4X4[3],
            ),
            &[],
            2,
        ),
        rf(
            "skyscraper-sudoku-4x4",
            Variant::sudoku(4, 2, 2, Variant::digits(4)).with_sights(
                &SKYSCRAPER_4X4[0],
                &SKYSCRAPER_4X4[1],
                &SKYSCRAPER_4X4[2],
                &SKYSCRAPER_4X4[3],
            ),
            &[],
            1,
        ),
        rf("thermometer-puzzle-4x4", thermometer_puzzle_4x4(), &[], 1),
        rf("kakuro-4x4", kakuro_4x4(), &[], 3),
        rf(
            "nonconsecutive-6x6",
            Variant::sudoku(6, 2, 3, Variant::digits(6)).with_nonconsecutive(),
            &[],
            3,
        ),
    ]
}

/// The anchors of Sudokus in rows `rows` x columns `cols`, and of those in between at rows
/// `mid_rows` x columns `mid_cols`.
fn grid_of_sudokus(
    rows: &[usize],
    cols: &[usize],
    mid_rows: &[usize],
    mid_cols: &[usize],
) -> Vec<(usize, usize)> {
    let outer = rows.iter().flat_map(|&r| cols.iter().map(move |&c| (r, c)));
    let mid = mid_rows
        .iter()
        .flat_map(|&r| mid_cols.iter().map(move |&c| (r, c)));
    outer.chain(mid).collect()
}

/// The description of one rule file.
pub fn rule_file(name: &str) -> RuleFile {
    rule_files()
        .into_iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no rule file {name} described"))
}

/// The givens of a rule file's `start { }` block, one character per cell, read from its text
/// (comments dropped, blanks ignored).
pub fn start_givens(text: &str) -> String {
    let no_comments: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let at = no_comments
        .find("start {")
        .or_else(|| no_comments.find("start{"))
        .expect("a start block");
    let body = &no_comments[at..];
    let open = body.find('{').unwrap() + 1;
    let close = body.find('}').expect("the start block closes");
    body[open..close]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

#[test]
fn every_rule_file_is_described_and_every_description_has_a_file() {
    let described: Vec<String> = rule_files()
        .iter()
        .map(|r| format!("{}.graft", r.name))
        .collect();
    let mut on_disk: Vec<String> = crate::support::rule_files()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut d = described.clone();
    d.sort();
    assert_eq!(d, on_disk);
}

#[test]
fn descriptions_have_the_expected_shapes() {
    let jig = rule_file("jigsaw-9x9").variant;
    assert_eq!(jig.groups.len(), 27);
    assert!(
        jig.groups.iter().all(|g| g.len() == 9),
        "each jigsaw region has nine cells"
    );
    let ak = rule_file("anti-knight-9x9").variant;
    // r1c1 reaches r2c3 and r3c2, both in its box; r5c5 reaches eight cells outside its groups.
    let n = ak.neighbours();
    assert!(ak.differ.contains(&(ak.at(1, 1), ak.at(2, 3))));
    assert_eq!(
        ak.differ
            .iter()
            .filter(|&&(a, b)| a == ak.at(5, 5) || b == ak.at(5, 5))
            .count(),
        8
    );
    assert_eq!(n[ak.at(1, 1)].len(), 20);
    assert_eq!(n[ak.at(5, 5)].len(), 28);
    let w = rule_file("windoku-9x9").variant;
    assert_eq!(w.groups.len(), 31);
    assert_eq!(start_givens("x start { 1 . // 3\n . 2 }\nrule"), "1..2");
}
