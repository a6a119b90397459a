//! The constraint library: per family of f-puzzles constraints, the part of a rule file
//! that states it — its types, generators and layers, the conditions and NACs it adds to
//! the one rule `place`, the patterns it forbids, and what it asks of a final state.
//!
//! A rule file is the header (values, cells, rows, columns, boxes from a layer), the
//! parts of the families a puzzle uses in the order of [`FAMILIES`], and `place`. In the
//! texts, `{N}` is the grid's size and `{P}` the family's parameter (the differences all
//! shown); lines with `{D}` repeat once per number the parameter lists (a quadruple's
//! digits, the whispers' differences). Every per-puzzle part travels in the layers each family
//! declares, so puzzles that use the same families share one rule file.

/// One family: what it adds to a rule file.
#[derive(Debug)]
pub struct Family {
    /// The family's name, used in the rule file's comments and file name.
    pub name: &'static str,
    /// Attributes it adds to `Cell` (`parity: int?`).
    pub cell_attrs: &'static str,
    /// Attributes it adds to `Group` (clues outside the grid set them on rows and columns).
    pub group_attrs: &'static str,
    /// Its declarations: types, edges, generators and layers, and the patterns it
    /// forbids (`forbid { ... }`: a state where one matches is pruned).
    pub decls: &'static str,
    /// A condition on the placed cell `c`, or "".
    pub condition: &'static str,
    /// NACs of rule `place` (`c` is placed with `v`), or "".
    pub nacs: &'static str,
    /// A condition every final state meets (joined to the others with `and`), or "".
    pub final_cond: &'static str,
}

/// The families, in the order their parts appear in a rule file.
pub const FAMILIES: &[Family] = &[
    Family {
        name: "extra-regions",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Extra regions, and cages: no value twice in one (they are groups like a row).
layer extra: lines of Group via in
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "diagonal-down",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// The diagonal from the top left: no value twice on it.
group diagonal_down = {DOWN} via in
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "diagonal-up",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// The diagonal from the bottom left: no value twice on it.
group diagonal_up = {UP} via in
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "disjoint-groups",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Disjoint groups: the cells at one position of every box hold different values.
layer disjoint: regions of Group via in
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "sums",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Killer cages and little killer diagonals: their cells add up to the total.
node Sum { total: int? }
edge sum: Cell -> Sum
layer sums: lines of Sum via sum
layer totals: sums.total
",
        condition: "",
        nacs: "  // The cells of a sum overflow it even at 1 per empty cell, fall short even at {N},
  // or fill it with another total.
  not { c -sum-> s: Sum
        where sum(d.val for s <-sum- d: Cell) + v + count(s <-sum- d: Cell { val == none }) > s.total
           or sum(d.val for s <-sum- d: Cell) + v + {N} * count(s <-sum- d: Cell { val == none }) < s.total
           or count(s <-sum- d: Cell { val == none }) == 0
              and sum(d.val for s <-sum- d: Cell) + v != s.total }
",
        final_cond: "",
    },
    Family {
        name: "parity",
        cell_attrs: "parity: int?",
        group_attrs: "",
        decls: "\
// Odd and even cells: parity 1 holds an odd value, parity 0 an even one.
layer parity: parity
",
        condition: "parity == none or v % 2 == parity",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "minimum-maximum",
        cell_attrs: "extreme: int?",
        group_attrs: "",
        decls: "\
// Minimum cells (extreme -1) are less than each orthogonal neighbour, maximum cells
// (extreme 1) more.
edge beside_mm: Cell -> Cell
edges c -beside_mm-> d where abs(c.row - d.row) + abs(c.col - d.col) == 1
layer extreme: extreme
",
        condition: "",
        nacs: "  not { c -beside_mm-> d: Cell { val != none and (val - v) * c.extreme >= 0 } }
  not { c -beside_mm-> d: Cell { extreme != none and val != none and (val - v) * extreme <= 0 } }
",
        final_cond: "",
    },
    Family {
        name: "anti-king",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Anti-king: cells a king's move apart hold different values.
edge king: Cell -> Cell
edges c -king-> d where abs(c.row - d.row) <= 1 and abs(c.col - d.col) <= 1
",
        condition: "",
        nacs: "  not { c -king-> d: Cell { val == v } }
",
        final_cond: "",
    },
    Family {
        name: "anti-knight",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Anti-knight: cells a knight's move apart hold different values.
edge knight: Cell -> Cell
edges c -knight-> d where abs(c.row - d.row) * abs(c.col - d.col) == 2
",
        condition: "",
        nacs: "  not { c -knight-> d: Cell { val == v } }
",
        final_cond: "",
    },
    Family {
        name: "difference-dots",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Difference (white kropki) dots: the two cells differ by the dot's number.
node Difference { gap: int? }
edge difference: Cell -> Difference
layer differences: lines of Difference via difference
layer difference_gaps: differences.gap
",
        condition: "",
        nacs: "  not { c -difference-> x: Difference <-difference- d: Cell { val != none and abs(val - v) != x.gap } }
",
        final_cond: "",
    },
    Family {
        name: "ratio-dots",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Ratio (black kropki) dots: one cell is the dot's number times the other.
node Ratio { factor: int? }
edge ratio: Cell -> Ratio
layer ratios: lines of Ratio via ratio
layer ratio_factors: ratios.factor
",
        condition: "",
        nacs: "  not { c -ratio-> x: Ratio <-ratio- d: Cell { val != none and val != v * x.factor and val * x.factor != v } }
",
        final_cond: "",
    },
    Family {
        name: "xv",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// X and V: the two cells add up to 10 (X) or 5 (V).
node XV { total: int? }
edge xv: Cell -> XV
layer xvs: lines of XV via xv
layer xv_totals: xvs.total
",
        condition: "",
        nacs: "  not { c -xv-> x: XV <-xv- d: Cell { val != none and val + v != x.total } }
",
        final_cond: "",
    },
    Family {
        name: "negative-difference",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Non-consecutive (every difference dot shown): orthogonal neighbours without a dot do
// not differ by a dot's number.
edge beside: Cell -> Cell
edges c -beside-> d where abs(c.row - d.row) + abs(c.col - d.col) == 1
",
        condition: "",
        nacs: "  not { c -beside-> d: Cell { val != none and ({P}) }
        where count(c -difference-> x: Difference <-difference- d) == 0 }
",
        final_cond: "",
    },
    Family {
        name: "negative-ratio",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Every ratio dot shown: orthogonal neighbours without one are in no dot's ratio.
edge beside_r: Cell -> Cell
edges c -beside_r-> d where abs(c.row - d.row) + abs(c.col - d.col) == 1
",
        condition: "",
        nacs: "  not { c -beside_r-> d: Cell { val != none and ({P}) }
        where count(c -ratio-> x: Ratio <-ratio- d) == 0 }
",
        final_cond: "",
    },
    Family {
        name: "negative-xv",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Every X and V shown: orthogonal neighbours without one add up to neither 5 nor 10.
edge beside_xv: Cell -> Cell
edges c -beside_xv-> d where abs(c.row - d.row) + abs(c.col - d.col) == 1
",
        condition: "",
        nacs: "  not { c -beside_xv-> d: Cell { val != none and (val + v == 5 or val + v == 10) }
        where count(c -xv-> x: XV <-xv- d) == 0 }
",
        final_cond: "",
    },
    Family {
        name: "clone",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Clones: a cell and its clone hold the same value.
node Clone
edge clone: Cell -> Clone
layer clones: lines of Clone via clone
",
        condition: "",
        nacs: "  not { c -clone-> k: Clone <-clone- d: Cell { val != none and val != v } }
",
        final_cond: "",
    },
    Family {
        name: "quadruple",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Quadruples: the four cells around a circle hold each of its digits at least `times`
// times; a circle is a line per digit it shows, one label per digit.
node Quadruple { times: int? }
edge quadruple_{D}: Cell -> Quadruple
layer quadruples_{D}: lines of Quadruple via quadruple_{D}
layer quadruple_times_{D}: quadruples_{D}.times
",
        condition: "",
        // More of the four hold another value than leave room for the digit's `times`,
        // counting c's share: 0 when v is the digit, else 1.
        nacs: "  not { c -quadruple_{D}-> q: Quadruple
        where count(q <-quadruple_{D}- d: Cell { val != none and val != {D} }) + (abs(v - {D}) + {N} - 1) / {N} > 4 - q.times }
",
        final_cond: "",
    },
    Family {
        name: "thermometer",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Thermometers: values rise from the bulb.
node Thermometer
edge thermometer: Cell -> Thermometer
edge up: Cell -> Cell
layer thermometers: lines of Thermometer via thermometer next up
",
        condition: "",
        nacs: "  not { c -up+-> d: Cell { val <= v } }     // a cell further from the bulb must hold more
  not { d: Cell { val >= v } -up+-> c }     // a cell nearer the bulb must hold less
",
        final_cond: "",
    },
    Family {
        name: "slow-thermometer",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Slow thermometers: values never fall from the bulb.
node SlowThermometer
edge slow_thermometer: Cell -> SlowThermometer
edge slow_up: Cell -> Cell
layer slow_thermometers: lines of SlowThermometer via slow_thermometer next slow_up
",
        condition: "",
        nacs: "  not { c -slow_up+-> d: Cell { val < v } }
  not { d: Cell { val > v } -slow_up+-> c }
",
        final_cond: "",
    },
    Family {
        name: "arrow",
        cell_attrs: "circle: int?",
        group_attrs: "",
        decls: "\
// Arrows: the cells of a shaft add up to its circle. A line is the circle then the
// shaft; `size` is the circle's number of cells (a pill of two reads as a two-digit
// number); a circle's cells have `circle` 1.
node Arrow { size: int? }
edge arrow: Cell -> Arrow
edge shaft: Cell -> Cell
layer arrows: lines of Arrow via arrow next shaft
layer arrow_sizes: arrows.size
layer circles: circle

// A filled circle o is exceeded by its shaft (the arrow's other cells d), or the shaft is
// full and misses it: once either holds it holds as cells fill, so the state is pruned.
forbid { a: Arrow { size == 1 }  o: Cell { circle == 1 and val != none } -arrow-> a
         where sum(d.val for a <-arrow- d: Cell) > o.val }
forbid { a: Arrow { size == 1 }  o: Cell { circle == 1 and val != none } -arrow-> a
         where count(a <-arrow- d: Cell { val == none }) == 0
           and sum(d.val for a <-arrow- d: Cell) != o.val }
// A pill of two cells o p reads as the number 10 * o + p.
forbid { a: Arrow { size == 2 }  o: Cell -arrow-> a  p: Cell -arrow-> a  o -shaft-> p
         where o.circle == 1 and p.circle == 1 and o.val != none and p.val != none
           and sum(d.val for a <-arrow- d: Cell) > 10 * o.val + p.val }
forbid { a: Arrow { size == 2 }  o: Cell -arrow-> a  p: Cell -arrow-> a  o -shaft-> p
         where o.circle == 1 and p.circle == 1 and o.val != none and p.val != none
           and count(a <-arrow- d: Cell { val == none }) == 0
           and sum(d.val for a <-arrow- d: Cell) != 10 * o.val + p.val }
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "palindrome",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Palindromes: a line reads the same from either end.
node Palindrome
edge palindrome: Cell -> Palindrome
edge pal_next: Cell -> Cell
layer palindromes: lines of Palindrome via palindrome next pal_next
",
        condition: "",
        nacs: "  not { c -palindrome-> p: Palindrome <-palindrome- d: Cell { val != none and val != v }
        where count(e: Cell -pal_next+-> c) == count(d -pal_next+-> f: Cell) }
",
        final_cond: "",
    },
    Family {
        name: "renban",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Renban lines: a set of consecutive values in any order.
node Renban
edge renban: Cell -> Renban
layer renbans: lines of Renban via renban

// Its largest and smallest values so far are never as far apart as it has cells.
forbid { r: Renban where max(d.val for r <-renban- d: Cell) - min(d.val for r <-renban- d: Cell)
                         >= count(r <-renban- d: Cell) }
",
        condition: "",
        nacs: "  not { c -renban-> r: Renban <-renban- d: Cell { val == v } }
",
        final_cond: "",
    },
    Family {
        name: "nabner",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Nabner lines: no two values on a line are equal or consecutive.
node Nabner
edge nabner: Cell -> Nabner
layer nabners: lines of Nabner via nabner
",
        condition: "",
        nacs: "  not { c -nabner-> r: Nabner <-nabner- d: Cell { abs(val - v) <= 1 } }
",
        final_cond: "",
    },
    Family {
        name: "whispers",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Whispers: neighbours on a line differ by at least its difference; the lines of each
// difference are a layer whose `next` label carries it (`whisper_next_5`).
node Whisper
edge whisper_{D}: Cell -> Whisper
edge whisper_next_{D}: Cell -> Cell
layer whispers_{D}: lines of Whisper via whisper_{D} next whisper_next_{D}
",
        condition: "",
        nacs: "  not { c -(whisper_next_{D}|~whisper_next_{D})-> d: Cell { abs(val - v) < {D} } }
",
        final_cond: "",
    },
    Family {
        name: "entropic",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Entropic lines: any three cells in a row on a line hold a low, a middle and a high
// value (thirds of 1..{N}).
node Entropic
edge entropic: Cell -> Entropic
edge entropic_next: Cell -> Cell
layer entropics: lines of Entropic via entropic next entropic_next
",
        condition: "",
        nacs: "  not { c -(entropic_next|~entropic_next|entropic_next.entropic_next|~entropic_next.~entropic_next)-> d: Cell
        { val != none and (val - 1) * 3 / {N} == (v - 1) * 3 / {N} } }
",
        final_cond: "",
    },
    Family {
        name: "modular",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Modular lines: any three cells in a row on a line differ modulo 3.
node Modular
edge modular: Cell -> Modular
edge modular_next: Cell -> Cell
layer modulars: lines of Modular via modular next modular_next
",
        condition: "",
        nacs: "  not { c -(modular_next|~modular_next|modular_next.modular_next|~modular_next.~modular_next)-> d: Cell
        { val != none and val % 3 == v % 3 } }
",
        final_cond: "",
    },
    Family {
        name: "between",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Between lines: the cells between the two ends hold values strictly between theirs.
node Between
edge between: Cell -> Between
edge between_next: Cell -> Cell
layer betweens: lines of Between via between next between_next

// A filled cell c of the line not strictly between its filled ends a and b.
forbid { a: Cell -between_next+-> c: Cell -between_next+-> b: Cell
         a -between-> l: Between <-between- b  c -between-> l
         where count(x: Cell -between_next-> a  x -between-> l) == 0
           and count(b -between_next-> y: Cell  y -between-> l) == 0
           and (a.val >= c.val or c.val >= b.val) and (b.val >= c.val or c.val >= a.val) }
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "double-arrow",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Double arrows: the two ends add up to the sum of the cells between them.
node DoubleArrow
edge double_arrow: Cell -> DoubleArrow
edge double_arrow_next: Cell -> Cell
layer double_arrows: lines of DoubleArrow via double_arrow next double_arrow_next

// The ends a and b (a before b, so that neither hides the other from the aggregates:
// matching is injective), filled, are exceeded by the cells between them, or those are
// full and miss them.
forbid { l: DoubleArrow  a: Cell { val != none } -double_arrow-> l
         b: Cell { val != none } -double_arrow-> l  a -double_arrow_next+-> b
         where count(x: Cell -double_arrow_next-> a  x -double_arrow-> l) == 0
           and count(b -double_arrow_next-> y: Cell  y -double_arrow-> l) == 0
           and sum(d.val for l <-double_arrow- d: Cell) > a.val + b.val }
forbid { l: DoubleArrow  a: Cell { val != none } -double_arrow-> l
         b: Cell { val != none } -double_arrow-> l  a -double_arrow_next+-> b
         where count(x: Cell -double_arrow_next-> a  x -double_arrow-> l) == 0
           and count(b -double_arrow_next-> y: Cell  y -double_arrow-> l) == 0
           and count(l <-double_arrow- d: Cell { val == none }) == 0
           and sum(d.val for l <-double_arrow- d: Cell) != a.val + b.val }
",
        condition: "",
        nacs: "",
        final_cond: "",
    },
    Family {
        name: "region-sum",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Region sum lines: the line's cells in each box it crosses add up to the same total.
node RegionSum
edge region_sum: Cell -> RegionSum
layer region_sums: lines of RegionSum via region_sum
",
        condition: "",
        nacs: "",
        final_cond: "not { l: RegionSum  a: Cell -region_sum-> l  b: Cell -region_sum-> l
        a -in-> p: Box  b -in-> q: Box
        where a.val + sum(e.val for e: Cell -region_sum-> l  e -in-> p)
           != b.val + sum(e.val for e: Cell -region_sum-> l  e -in-> q) }",
    },
    Family {
        name: "zipper",
        cell_attrs: "",
        group_attrs: "",
        decls: "\
// Zipper lines: cells as far from the middle on either side add up to the same total,
// which a middle cell holds.
node Zipper
edge zipper: Cell -> Zipper
edge zipper_next: Cell -> Cell
layer zippers: lines of Zipper via zipper next zipper_next
",
        condition: "",
        nacs: "",
        // a and b mirror each other, and so do x and y (counts of the cells before and
        // after, with the pattern's own cells added back where injectivity leaves them out)
        // Mirror cells a and b (as many cells before a as after b): the pair inside them
        // adds up alike, and a middle cell holds their sum.
        final_cond: "not { l: Zipper  a: Cell -zipper-> l  b: Cell -zipper-> l
        a -zipper_next-> x: Cell -zipper_next*-> y: Cell -zipper_next-> b
        where count(e: Cell -zipper_next+-> a) == count(b -zipper_next+-> f: Cell)
          and a.val + b.val != x.val + y.val }
  and not { l: Zipper  a: Cell -zipper-> l  b: Cell -zipper-> l
        a -zipper_next-> m: Cell -zipper_next-> b
        where count(e: Cell -zipper_next+-> a) == count(b -zipper_next+-> f: Cell)
          and a.val + b.val != m.val }",
    },
    Family {
        name: "indexers",
        cell_attrs: "indexer: int?",
        group_attrs: "",
        decls: "\
// Indexers: a row indexer's value v says in which row of its column its row's number
// stands (indexer 1); a column indexer, in which column of its row its column's number
// (indexer 2); a box indexer, at which place of its box its own place's number (indexer 3).
layer indexers: indexer
",
        condition: "",
        nacs: "",
        final_cond: "not { i: Cell { indexer == 1 }  d: Cell { col == i.col and row == int(i.val) } where int(d.val) != i.row }
  and not { i: Cell { indexer == 2 }  d: Cell { row == i.row and col == int(i.val) } where int(d.val) != i.col }
  and not { i: Cell { indexer == 3 } -in-> b: Box <-in- d: Cell
        where {BOXPLACE_D} == int(i.val) and int(d.val) != {BOXPLACE_I} }",
    },
    Family {
        name: "sandwich",
        cell_attrs: "",
        group_attrs: "sandwich: int?",
        decls: "\
// Sandwiches: the values between the 1 and the {N} of a row or column add up to its clue.
layer sandwich_rows: rows.sandwich
layer sandwich_columns: columns.sandwich
",
        condition: "",
        nacs: "",
        final_cond: "not { g: Group { sandwich != none }  o: Cell { val == 1 } -in-> g  n: Cell { val == {N} } -in-> g
        where sum(d.val for d: Cell -in-> g
                  where (d.row - o.row) * (d.row - n.row) + (d.col - o.col) * (d.col - n.col) < 0)
              != g.sandwich }",
    },
    Family {
        name: "x-sum",
        cell_attrs: "",
        group_attrs: "x_first: int?, x_last: int?",
        decls: "\
// X-sums: the first X cells of a row or column seen from a clue add up to it, where X
// is the first cell's value (x_first from the left or top, x_last from the right or
// bottom).
layer x_sum_left: rows.x_first
layer x_sum_right: rows.x_last
layer x_sum_top: columns.x_first
layer x_sum_bottom: columns.x_last
",
        condition: "",
        nacs: "",
        final_cond: "not { g: Group { x_first != none }  f: Cell -in-> g
        not { e: Cell { row + col < f.row + f.col } -in-> g }
        where f.val + sum(d.val for d: Cell -in-> g where d.row + d.col - f.row - f.col < int(f.val))
              != g.x_first }
  and not { g: Group { x_last != none }  f: Cell -in-> g
        not { e: Cell { row + col > f.row + f.col } -in-> g }
        where f.val + sum(d.val for d: Cell -in-> g where f.row + f.col - d.row - d.col < int(f.val))
              != g.x_last }",
    },
    Family {
        name: "skyscraper",
        cell_attrs: "",
        group_attrs: "sky_first: int?, sky_last: int?",
        decls: "\
// Skyscrapers: a clue counts the cells of its row or column seen from it, a cell hidden
// by any higher one before it (sky_first from the left or top, sky_last from the right
// or bottom).
layer skyscraper_left: rows.sky_first
layer skyscraper_right: rows.sky_last
layer skyscraper_top: columns.sky_first
layer skyscraper_bottom: columns.sky_last
",
        condition: "",
        nacs: "",
        final_cond: "not { g: Group { sky_first != none }
        where count(d: Cell -in-> g
                    not { e: Cell { val > d.val and row + col < d.row + d.col } -in-> g })
              != g.sky_first }
  and not { g: Group { sky_last != none }
        where count(d: Cell -in-> g
                    not { e: Cell { val > d.val and row + col > d.row + d.col } -in-> g })
              != g.sky_last }",
    },
    Family {
        name: "arrow-long",
        cell_attrs: "weight: int?",
        group_attrs: "",
        decls: "\
// Arrows whose circle has three or more cells: the circle's cells read as one number
// (each digit weighted by its place: `weight` 100, 10 and 1 for three cells, in the
// order the circle lists them), and the shaft's cells add up to it. A line is the
// circle then the shaft; only circle cells have a weight.
node LongArrow
edge long_arrow: Cell -> LongArrow
layer long_arrows: lines of LongArrow via long_arrow
layer arrow_weights: weight
",
        condition: "",
        nacs: "",
        final_cond: "not { a: LongArrow
        where sum(o.val * o.weight for o: Cell { weight != none } -long_arrow-> a)
           != sum(d.val for d: Cell { weight == none } -long_arrow-> a) }",
    },
];

/// The family named `name`.
pub fn family(name: &str) -> &'static Family {
    FAMILIES
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| unreachable!("no family `{name}` in the table"))
}
