//! Unit tests of the slot compiler: what it builds for a small Sudoku and what it refuses.

use super::compile;
use crate::analysis::slot_fill::MAX_VALUES;
use crate::explore::config::{Config, EngineChoice, Expand};
use crate::load_str;
use crate::model::Graph;
use crate::output::grid::grid_line;
use crate::Engine; // the public API: these tests run both engines, as a user does

/// The 4x4 Sudoku of `rules/`: 16 cells, 12 groups (4 rows, 4 columns, 4 boxes).
const SUDOKU_4X4: &str = include_str!("../../../rules/sudoku-4x4.graft");

/// The 4x4 Sudoku with a rule that forgets to require the cell to be empty.
fn overwriting() -> String {
    let text = SUDOKU_4X4.replace("c: Cell { val == none }", "c: Cell");
    assert_ne!(text, SUDOKU_4X4, "the rule file's left side has changed");
    text
}

#[test]
fn sudoku_compiles_to_one_slot_per_cell_and_one_hub_per_group() {
    let g = load_str("sudoku-4x4.graft", SUDOKU_4X4).expect("the rule file loads");
    let model = compile(&g).expect("a Sudoku fills slots");
    assert_eq!(model.d, 4);
    assert_eq!(model.slots.len(), 16);
    // The NAC factors through its group node: one hub per row, column and box, each
    // written and read by its 4 cells, and each holding every value exactly once.
    assert_eq!(model.hubs.len(), 12);
    for hub in &model.hubs {
        assert_eq!(hub.writers.len(), 4);
        assert_eq!(hub.readers, hub.writers);
    }
    assert_eq!(model.once.len(), 12);
    // One table for the one NAC: a value blocks the same value only.
    assert_eq!(model.tables.len(), 1);
    let identity: Vec<u128> = (0..4).map(|y| 1u128 << y).collect();
    assert_eq!(model.tables[0], identity);
    assert!(model.replaced.is_none());
}

#[test]
fn a_domain_wider_than_the_widest_mask_is_refused() {
    let wide = SUDOKU_4X4.replace("values 1..4", &format!("values 1..{}", MAX_VALUES + 1));
    let g = load_str("wide.graft", &wide).expect("the rule file loads");
    let refusal = compile(&g).expect_err("too many values for a mask");
    assert_eq!(
        refusal.reason,
        format!(
            "the slot engine handles 1 to {MAX_VALUES} values, the domain has {}",
            MAX_VALUES + 1
        )
    );
}

#[test]
fn a_rule_that_may_overwrite_is_refused_with_its_reason_and_span() {
    let text = overwriting();
    let g = load_str("overwriting.graft", &text).expect("the rule file loads");
    let refusal = compile(&g).expect_err("the rule may overwrite a value");
    assert_eq!(
        refusal.reason,
        "rule `place` does not require the attribute it sets to be none, so it may overwrite a value"
    );
    // The span is the rule's left side, where the missing `val == none` belongs.
    assert!(text[refusal.span.start..].starts_with("c: Cell\n"));
}

/// Why `--expand focus` is unsound on the slot engine for the 4x4 Sudoku with `final:`
/// replaced by `last` (removed when empty).
fn focus_refusal(last: &str) -> Option<String> {
    let final_line = "final: not { c: Cell { val == none } }";
    assert!(
        SUDOKU_4X4.contains(final_line),
        "the rule file's final: has changed"
    );
    let text = SUDOKU_4X4.replace(final_line, last);
    let g = load_str("sudoku-4x4.graft", &text).expect("the rule file loads");
    let model = compile(&g).expect("a Sudoku fills slots");
    model.focus_sound.err().map(|r| r.reason)
}

#[test]
fn focus_needs_a_final_condition_that_fills_every_slot() {
    assert_eq!(
        focus_refusal("final: not { c: Cell { val == none } }"),
        None
    );
    assert_eq!(
        focus_refusal("").as_deref(),
        Some("the file has no `final:` condition, so every dead end is final, and focus would skip them")
    );
    assert_eq!(
        focus_refusal("final: { c: Cell { val == 1 } }").as_deref(),
        Some("the final condition does not require every slot to be filled, so final states may lie off the focus path")
    );
}

#[test]
fn replaced_cells_must_have_no_edges() {
    let text = "values 1..2
        node Cell { row: int, col: int, val: value? }
        node Mark { val: value }
        node Group
        edge in: Cell -> Group
        grid 1x2 of Cell
        groups rows
        rule place(v: value) { c: Cell { val == none } del c new m: Mark { val = v } }
        final: not { c: Cell }";
    let g = load_str("t.graft", text).expect("the rule file loads");
    let why = compile(&g).expect_err("cells with edges cannot be replaced");
    assert_eq!(
        why.reason,
        "the rules delete `r1c1`, which has edges its replacement would not have"
    );
    assert_eq!(why.kind, crate::analysis::RefusalKind::NotSlot);
}

/// The slot model of a two-cell row `r1c1 -lt-> r1c2` over `values 1..{top}` whose one rule
/// places `v` under `nacs`.
fn two_cells(top: u16, nacs: &str) -> super::SlotModel {
    let text = format!(
        "values 1..{top}
        node Cell {{ row: int, col: int, val: value? }}
        edge lt: Cell -> Cell
        grid 1x2 of Cell
        r1c1 -lt-> r1c2
        rule place(v: value) {{
            c: Cell {{ val == none }}
            {nacs}
            set c.val = v
        }}
        final: not {{ c: Cell {{ val == none }} }}"
    );
    let g = load_str("t.graft", &text).expect("the rule file loads");
    compile(&g).expect("the rule fills slots")
}

#[test]
fn one_sided_nacs_are_not_symmetric() {
    // r1c1 < r1c2 checked from the smaller cell only.
    let model = two_cells(2, "not { c -lt-> d: Cell { val <= v } }");
    let why = model.symmetric.clone().expect_err("one-sided");
    // The first pair of placements that differs, values of r1c2 first: 1 in r1c1 is
    // blocked by 1 in r1c2 (1 <= 1), while 1 in r1c2 is not blocked by anything.
    assert_eq!(
        why.reason,
        "the NACs are not symmetric: `1` in r1c1.val is blocked by `1` in r1c2.val, but not the other way round, so the order of placements matters"
    );
    assert_eq!(model.focus_sound, Err(why));
}

#[test]
fn one_sided_nacs_are_named_by_the_placement_they_allow() {
    // r1c2 waits for r1c1 only: 1 in r1c2 is blocked by 3 in r1c1 (3 > 1 + 1), and nothing
    // in r1c2 blocks r1c1; the first differing pair, values of r1c2 first, then of r1c1.
    let waits = "not { d: Cell { val != none } -lt-> c where d.val > v + 1 }";
    let why = two_cells(3, waits).symmetric.expect_err("one-sided");
    assert_eq!(
        why.reason,
        "the NACs are not symmetric: `3` in r1c1.val is allowed by `1` in r1c2.val, but not the other way round, so the order of placements matters"
    );
    // Blocking both ways alike (a difference of at least 2 either way) is symmetric.
    let both = format!("{waits} not {{ c -lt-> d: Cell {{ val != none }} where v > d.val + 1 }}");
    assert_eq!(two_cells(3, &both).symmetric, Ok(()));
}

/// A NAC each way between two cells is symmetric where their tables are each other's
/// transposes, and not where they are not: each cell must hold one less than the other.
#[test]
fn a_nac_each_way_is_symmetric_only_with_transposed_tables() {
    let less = "not { c -lt-> d: Cell { val != none } where d.val != v + 1 }";
    let greater = "not { d: Cell { val != none } -lt-> c where d.val != v - 1 }";
    assert_eq!(two_cells(3, &format!("{less} {greater}")).symmetric, Ok(()));
    let also_less = "not { d: Cell { val != none } -lt-> c where d.val != v + 1 }";
    let model = two_cells(3, &format!("{less} {also_less}"));
    assert_eq!((model.hubs.len(), model.tables.len()), (2, 1));
    let why = model
        .symmetric
        .expect_err("each cell one less than the other");
    assert!(
        why.reason.starts_with("the NACs are not symmetric"),
        "{}",
        why.reason
    );
}

/// What two compilations of one grammar must agree on: the slots, values, hubs, tables
/// and groups, each slot filled by the same rule.
pub(super) fn model_shape(m: &super::SlotModel) -> String {
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        m.slots, m.allowed, m.rule_of, m.hubs, m.tables, m.once, m.group_nacs, m.groups
    )
}

/// The killer 4x4 of `rules/` and the batch of its tests, each line its own cages.
const KILLER_4X4: &str = include_str!("../../../rules/killer-4x4.graft");
const KILLER_BATCH: &str = include_str!("../../../tests/fixtures/layers/killer-4x4.txt");

/// Compiles every puzzle of `batch` (each line its own layers) for the rule file `rules`
/// twice, from scratch and with the NACs its layers cannot reach replayed from the rule
/// file's record, and asserts the two models alike: the same slots, values, hubs, tables
/// and groups, each slot filled by the same rule. Returns how many NACs, rules' instances,
/// NAC structures' matches and group NACs the record holds.
fn assert_replay_gives_the_model_compiled_from_scratch(
    name: &str,
    rules: &str,
    batch: &str,
) -> (usize, usize, usize, usize) {
    let g = load_str(name, rules).expect("the rule file loads");
    let (_, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
    let source = crate::diag::Source::new("batch.txt", batch.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    assert!(puzzles.len() > 1);
    let layouts: std::collections::BTreeSet<String> =
        puzzles.iter().map(|p| format!("{:?}", p.layers)).collect();
    assert_eq!(layouts.len(), puzzles.len(), "every line its own layers");
    for p in &puzzles {
        let layered = g.with_layers(&p.layers);
        let fresh = compile(&layered).expect("the rules fill slots");
        let (reused, _) = super::compile_reusing(&layered, Some(&fixed)).expect("it compiles");
        assert_eq!(
            model_shape(&reused),
            model_shape(&fresh),
            "{name} puzzle {}",
            p.number
        );
    }
    let kept = (fixed.kept_matches(), fixed.kept_group_nacs());
    (fixed.len(), fixed.kept_instances(), kept.0, kept.1)
}

/// A puzzle's model compiled with the NACs its layers cannot reach replayed from the rule
/// file's engine is the model compiled from scratch, for every line of a batch whose
/// lines have different cages.
#[test]
fn replayed_nacs_give_the_model_compiled_from_scratch() {
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "killer-4x4.graft",
        KILLER_4X4,
        KILLER_BATCH,
    );
    // The row, column and box NAC is the one no layer reaches; the cage NACs are not.
    // The left side (`c: Cell { val == none }`) is reached by no layer either. The cage's
    // sum NAC is compiled per puzzle over its own cages, its conditions read once.
    assert_eq!(fixed, (1, 1, 0, 1));
    // A layer reaching the left side: parity marks read by the cell's condition.
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "even-odd-6x6.graft",
        include_str!("../../../rules/even-odd-6x6.graft"),
        include_str!("../../../tests/fixtures/layers/even-odd-6x6.txt"),
    );
    assert_eq!(fixed.1, 0);

    // A layer reaching the one NAC (regions are groups like rows): nothing replayed
    // but the instances.
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "jigsaw-6x6.graft",
        include_str!("../../../rules/jigsaw-6x6.graft"),
        include_str!("../../../tests/fixtures/layers/jigsaw-6x6.txt"),
    );
    assert_eq!(fixed, (0, 1, 0, 0));
    // Lines add the edges the thermometer NACs follow: their structures' matches differ
    // from puzzle to puzzle, and none is kept.
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "thermo-4x4.graft",
        include_str!("../../../tests/fixtures/layers/thermo-4x4.graft"),
        include_str!("../../../tests/fixtures/layers/thermo-4x4.txt"),
    );
    assert_eq!(fixed, (1, 1, 0, 0));
    // Clues on the rows and columns, one of them at the index the cells' value has in
    // theirs (`top`, third of four, as `val` is third of three): the left side reads the
    // cells' alone, so its instances are kept.
    let empty = ". ".repeat(16);
    let batch: String = [
        "left: 4 2 1 2 | right: . . 4 2 | top: 3 2 2 1 | bottom: . 3 . .",
        "left: . 2 . . | right: 1 . . . | top: . . 2 . | bottom: 2 . . .",
        "left: 2 . . . | right: . . . . | top: . 1 . . | bottom: . . . 3",
    ]
    .iter()
    .map(|clues| format!("{empty}| {clues}\n"))
    .collect();
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "skyscraper-sudoku-4x4.graft",
        include_str!("../../../rules/skyscraper-sudoku-4x4.graft"),
        &batch,
    );
    assert_eq!(fixed.1, 1);
}

/// A NAC that reads a count a layer sets on the rows and columns (a skyscraper line's
/// empty plots) is replayed where an earlier puzzle of the batch had the same counts, and
/// the model is the one compiled from scratch; other counts compile it anew.
#[test]
fn nacs_reading_layer_values_are_replayed_by_those_values() {
    use super::fixed::REPLAYED_BY_VALUES;
    let rules = skyscraper_4x4("values 0..3");
    let blanks = |rows: &str| format!(" | row_blanks: {rows} | column_blanks: 1 1 1 1");
    let empty = ". ".repeat(16);
    let batch: String = [
        ("left: 1 . . . | top: . 2 . .", blanks("1 1 1 1")),
        ("left: . 3 . . | top: . . . 1", blanks("1 1 1 1")),
        ("left: 1 . . . | top: . 2 . .", blanks("2 1 1 1")),
        ("left: . . . 2 | top: 3 . . .", blanks("2 1 1 1")),
        ("left: 2 . . . | top: . . 2 .", blanks("1 1 1 1")),
    ]
    .iter()
    .map(|(clues, blanks)| format!("{empty}| {clues}{blanks}\n"))
    .collect();
    REPLAYED_BY_VALUES.set(0);
    assert_replay_gives_the_model_compiled_from_scratch("skyscraper-4x4.graft", &rules, &batch);
    // Each compiled twice (from scratch, which records its own, and from the rule file's
    // record): the second, fourth and fifth lines' counts were met before in the batch.
    let replayed = REPLAYED_BY_VALUES.get();
    assert!(replayed >= 3, "{replayed} replayed");
}

/// The solutions of each puzzle of `batch` on the slot engine, as the general matcher
/// (the reference semantics) finds them; with `--expand all`, every state, transition and
/// dead end too.
fn assert_slot_agrees_with_graph(name: &str, rules: &str, batch: &str, expand: Expand) {
    let g = load_str(name, rules).expect("the rule file loads");
    let source = crate::diag::Source::new("batch.txt", batch.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    let engine = Engine::new(&g);
    for p in &puzzles {
        let run = |choice: EngineChoice| {
            let config = Config::default().with_expand(expand).with_engine(choice);
            engine.with_layers(&p.layers, |e| run_to_the_end(e, p, &config, name))
        };
        let (slot, graph) = (run(EngineChoice::Auto), run(EngineChoice::Graph));
        assert_eq!(
            (slot.0, graph.0),
            ("slot", "graph"),
            "{name} puzzle {}",
            p.number
        );
        assert_eq!(slot.2, graph.2, "{name} puzzle {}", p.number);
        if expand == Expand::All {
            assert_eq!(slot.1, graph.1, "{name} puzzle {}", p.number);
        } else {
            assert_eq!(slot.1 .0, graph.1 .0, "{name} puzzle {}", p.number);
        }
    }
}

/// What a run found: the engine that ran, the counts (solutions, states, transitions, dead
/// ends) and the solutions' grids, sorted.
type Found = (&'static str, (u64, u64, u64, u64), Vec<Option<String>>);

/// What a run of puzzle `p` on `e` finds, run to its end.
fn run_to_the_end(e: &Engine<'_>, p: &crate::Puzzle, config: &Config, name: &str) -> Found {
    let mut grids = Vec::new();
    let mut keep = |graph: &Graph| grids.push(grid_line(e.grammar(), graph));
    let report = e
        .solve(Some(&p.givens), config, Some(&mut keep))
        .expect("the givens agree");
    assert!(report.complete(), "{name} puzzle {}", p.number);
    grids.sort();
    let c = &report.counts;
    (
        report.engine,
        (c.solutions, c.states, c.transitions, c.dead_ends),
        grids,
    )
}

/// The consecutive rules of `rules/` on a 4x4 Latin square, the bars left to each puzzle
/// line: the NACs over a left neighbour read that neighbour's bar (`d.right`), an
/// unchanging attribute of a NAC node, beside the changing value.
fn consecutive_4x4() -> String {
    let file = include_str!("../../../rules/consecutive-6x6.graft");
    let rules = &file[file.find("rule place").expect("the rule")..];
    format!(
        "values 1..4
node Cell {{ row: int, col: int, val: value?, right: bool?, below: bool? }}
node Group
edge in: Cell -> Group
edge beside: Cell -> Cell
edge over: Cell -> Cell
grid 4x4 of Cell
groups rows, columns via in
edges c -beside-> d where d.row == c.row and d.col == c.col + 1
edges c -over-> d where d.col == c.col and d.row == c.row + 1
layer right: right
layer below: below
{rules}"
    )
}

/// Bars of two 4x4 Latin squares (1234/3412/2143/4321 and 2413/3142/4231/1324), then
/// bars no square has, then none at all (every neighbour pair not consecutive).
const CONSECUTIVE_BARS: [&str; 4] = [
    "right: 1 1 1 0 1 0 1 0 1 0 1 0 1 1 1 0 | below: 0 0 0 0 1 0 0 1 0 0 0 0 0 0 0 0",
    "right: 0 0 0 0 0 0 0 0 0 1 0 0 0 1 0 0 | below: 1 0 0 1 1 1 1 1 0 1 1 0 0 0 0 0",
    "right: 0 0 0 0 0 0 0 0 0 1 0 0 0 0 0 0 | below: 1 0 0 1 1 1 1 1 0 0 0 0 0 0 0 0",
    "right: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 | below: 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0",
];

#[test]
fn consecutive_bars_on_nac_nodes_compile_to_tables_per_bar() {
    let rules = consecutive_4x4();
    let empty = ". ".repeat(16);
    let batch: String = CONSECUTIVE_BARS
        .iter()
        .map(|bars| format!("{empty}| {bars}\n"))
        .collect();
    assert_slot_agrees_with_graph("consecutive-4x4.graft", &rules, &batch, Expand::Focus);
    // Every state of the spaces of two puzzles with givens (about 3,000 states each).
    let givens = [
        "1 2 . . . 4 . . . . 4 . . . . 1",
        "2 . . 3 . 1 . . . . 3 . 1 . . .",
    ];
    let batch: String = givens
        .iter()
        .zip(CONSECUTIVE_BARS)
        .map(|(g, bars)| format!("{g} | {bars}\n"))
        .collect();
    assert_slot_agrees_with_graph("consecutive-4x4.graft", &rules, &batch, Expand::All);
    // The bars are a layer: the four bar NACs compile per puzzle, the row and column NAC
    // once per file. The bar NACs' structures (a cell and its neighbour) no layer
    // changes: each puzzle compiles them over the matches the rule file's compilation
    // kept.
    let batch: String = CONSECUTIVE_BARS
        .iter()
        .map(|bars| format!("{empty}| {bars}\n"))
        .collect();
    let fixed = assert_replay_gives_the_model_compiled_from_scratch(
        "consecutive-4x4.graft",
        &rules,
        &batch,
    );
    assert_eq!(fixed, (1, 1, 4, 0));
}

/// The Skyscraper rules of `rules/` with heights `values`, the clues and the empty plots
/// of each line (`blanks`) left to each puzzle line: the all-different NAC reads its
/// group's `blanks`, an unchanging attribute of a NAC node, beside the changing value.
fn skyscraper_4x4(values: &str) -> String {
    let mut text =
        include_str!("../../../rules/skyscraper-4x4.graft").replace("values 1..4", values);
    for layer in [
        "left: rows.left",
        "right: rows.right",
        "top: columns.top",
        "bottom: columns.bottom",
    ] {
        let start = text
            .find(&format!("layer {layer} = {{"))
            .expect("the layer's content");
        let end = start + text[start..].find('}').expect("its end") + 1;
        text.replace_range(start..end, &format!("layer {layer}"));
    }
    text
}

#[test]
fn skyscraper_blanks_on_the_group_compile_to_tables_per_count() {
    // Heights 0..3: one empty plot a line (all different, exactly-once groups), two (0 may
    // repeat), or none given on the rows.
    let rules = skyscraper_4x4("values 0..3");
    let batch = "\
. . . . . . . . . . . . . . . . | top: 1 . . . | bottom: . . 1 . | left: . 3 . . | right: . . 1 . | row_blanks: 1 1 1 1 | column_blanks: 1 1 1 1
0 . . 1 . . . . . . 0 . . 2 . . | top: . . . . | bottom: . . . . | left: . . . . | right: . . . . | row_blanks: 2 2 2 2 | column_blanks: 2 2 2 2
. . . . . . . . . . . . . . . . | top: 2 . . . | bottom: . . . . | left: . . . 1 | right: . . . . | row_blanks: . . . . | column_blanks: 1 . 1 .
";
    assert_slot_agrees_with_graph("skyscraper-4x4.graft", &rules, batch, Expand::Focus);
    let g = load_str("skyscraper-4x4.graft", &rules).expect("the rule file loads");
    let source = crate::diag::Source::new("batch.txt", batch.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    let once = |p: &crate::Puzzle| {
        compile(&g.with_layers(&p.layers))
            .expect("it compiles")
            .once
            .len()
    };
    // Rows and columns with one empty plot hold 0..3 once each; with two, 0 repeats.
    assert_eq!(once(&puzzles[0]), 8);
    assert_eq!(once(&puzzles[1]), 0);
    // The NAC counting a line's plots is a group per line, whose contents keep two plots
    // and, as the line's hub keeps heights apart, each height at most once.
    let model = compile(&g.with_layers(&puzzles[1].layers)).expect("it compiles");
    assert_eq!(model.groups.len(), 8);
    for group in model.groups.iter() {
        let contents = group.feasible.as_ref().expect("few contents");
        let lists: Vec<&[u8]> = contents.lists().collect();
        assert_eq!(lists, [&[0u8, 0, 1, 2][..], &[0, 0, 1, 3], &[0, 0, 2, 3]]);
    }
    // Heights 0..2: two empty plots a line, every state of one space with givens.
    let rules = skyscraper_4x4("values 0..2");
    let batch = "\
0 . . . . 2 . . . . . . . . . . | top: 2 . . . | bottom: . 1 . . | left: . . . . | right: . . 2 . | row_blanks: 2 2 2 2 | column_blanks: 2 2 2 2
0 1 . 0 . 0 . . . . . . . . . . | top: . . . . | bottom: . . . . | left: . . . . | right: . . . . | row_blanks: 2 2 2 2 | column_blanks: 2 2 2 2
";
    assert_slot_agrees_with_graph("skyscraper-4x4.graft", &rules, batch, Expand::Focus);
    let batch = "\
0 1 . . 1 . . 0 . . 2 . 2 . . . | top: . . . . | bottom: . . . . | left: . . . . | right: . . . . | row_blanks: 2 2 2 2 | column_blanks: 2 2 2 2
";
    assert_slot_agrees_with_graph("skyscraper-4x4.graft", &rules, batch, Expand::All);
}

/// A skyscraper batch's clues set attributes of the rows and columns that the sight lines'
/// aggregates do not read: every puzzle takes the groundings of those the rule file or an
/// earlier puzzle made, and a whole sight line where its clue is one grounded before; its
/// `forbid` instances are those of its own compilation, and it runs as it would alone.
/// Where an aggregate reads a clue, each puzzle grounds it anew, but for a clue met before.
#[test]
fn sight_lines_are_grounded_once_for_a_batch() {
    use crate::slot::ground::{INSTANCES_TAKEN, SHARED_TAKEN};
    let batch = "\
. . . . . . . . . . . . . . . . | left: 4 2 1 2 | right: . . 4 2 | top: 3 2 2 1 | bottom: . 3 . .
. . . . . . . . . . . . . . . . | left: . 2 . . | right: 3 . . . | top: . 3 . 4 | bottom: . . . .
1 . . . . . . . . . . . . . . . | left: . . 3 . | right: . 2 . . | top: . . . . | bottom: 2 . . 1
. . . . . . . . . . . . . . . . | left: 4 4 . . | right: . . . . | top: . . . . | bottom: . . . .
. . . . . . . . . . . . . . . . | left: 1 . . 2 | right: . . . . | top: . 2 . . | bottom: . . . 3
";
    let rules = skyscraper_4x4("values 1..4");
    // The same file, whose sight line from the left counts a building only where the
    // row's clue is over 2: that aggregate reads the clue.
    let reading = rules.replacen(
        "count(d: Cell { int(val) > 0 } -in-> g\n                         where all(",
        "count(d: Cell { int(val) > 0 } -in-> g\n                         where g.left > 2 and all(",
        1,
    );
    assert_ne!(
        reading, rules,
        "the left sight line's aggregate is in the file"
    );
    // And one whose sight line from the left passes over buildings a puzzle marks: that
    // aggregate's own cells read a layer.
    let marking = rules
        .replacen("val: value? }", "val: value?, lit: int? }", 1)
        .replacen("layer row_blanks", "layer lit: lit\nlayer row_blanks", 1)
        .replacen(
            "count(d: Cell { int(val) > 0 } -in-> g\n                         where all(",
            "count(d: Cell { int(val) > 0 } -in-> g\n                         where d.lit == none and all(",
            1,
        );
    let marks = [
        " | lit: 1 . . . . . . . . . . . . . . .",
        " | lit: . 1 . . . . . . . . . . . . . .",
        "",
        "",
        " | lit: . . . . 1 1 . . . . . . . . . .",
    ];
    let marked: String = batch
        .lines()
        .zip(marks)
        .map(|(line, mark)| format!("{line}{mark}\n"))
        .collect();
    let mut wholes = Vec::new();
    for (text, batch, shared) in [
        (&rules, batch, true),
        (&reading, batch, false),
        (&marking, &marked[..], false),
    ] {
        let g = load_str("skyscraper-4x4.graft", text).expect("the rule file loads");
        let (_, record) = super::compile_reusing(&g, None).expect("the rules fill slots");
        let source = crate::diag::Source::new("batch.txt", batch.to_string());
        let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
        let (mut taken, mut whole) = (0, 0);
        for p in &puzzles {
            let layered = g.with_layers(&p.layers);
            SHARED_TAKEN.set(0);
            INSTANCES_TAKEN.set(0);
            let (by_batch, _) =
                super::compile_reusing(&layered, Some(&record)).expect("it compiles");
            taken += SHARED_TAKEN.get();
            whole += INSTANCES_TAKEN.get();
            let fresh = compile(&layered).expect("it compiles");
            // Compared whole but for the numbers paths take as they compile, which count
            // every path compiled in the process.
            let shown = |m: &super::SlotModel| {
                let text = format!("{:#?}", m.forbids);
                text.lines()
                    .filter(|l| !l.trim_start().starts_with("id: "))
                    .collect::<Vec<_>>()
                    .join("\n")
            };
            assert_eq!(shown(&by_batch), shown(&fresh), "puzzle {}", p.number);
        }
        if shared {
            // Four sight lines a side are grounded once; each of the other puzzles'
            // clues on them takes the grounding.
            assert!(taken >= 10, "only {taken} groundings shared");
            // The same text loaded anew has patterns of its own: it takes nothing (its
            // keys differ, and the cache serves only the grammars sharing the file's).
            let again = load_str("skyscraper-4x4.graft", text).expect("the rule file loads");
            SHARED_TAKEN.set(0);
            super::compile_reusing(&again.with_layers(&puzzles[1].layers), Some(&record))
                .expect("it compiles");
            assert_eq!(
                SHARED_TAKEN.get(),
                0,
                "a grammar of its own took groundings"
            );
        } else {
            // The other three sides still share theirs.
            assert!(taken > 0, "nothing shared");
        }
        wholes.push(whole);
        // Every puzzle compiles (no shortcut applies to clues): the runs compare.
        let (name, expands) = ("skyscraper-4x4.graft", &[Expand::Focus][..]);
        assert_batch_runs_as_compiled((name, &g), batch, expands, |_, _, _| false);
    }
    // Whole sight lines are taken where a clue (or its absence: a line of the other
    // direction, or an unclued one) was met on the line before, whether or not the
    // aggregate reads it; never a left sight line over marked cells.
    assert!(wholes[0] >= 30, "only {} instances taken whole", wholes[0]);
    assert_eq!(
        wholes[1], wholes[0],
        "a clue read by the aggregate shares less"
    );
    assert!(wholes[2] < wholes[0], "lines over marked cells taken whole");
}

/// The attributes encoding reads the value placed from a `Val` node of the left side
/// (`val == x.val`), which follows the value: its NACs stay one table each, so rows,
/// columns and boxes stay exactly-once groups.
#[test]
fn a_value_read_from_the_left_side_keeps_one_table_per_nac() {
    let text = include_str!("../../../rules/encodings/attributes-4x4.graft");
    let g = load_str("attributes-4x4.graft", text).expect("the rule file loads");
    let model = compile(&g).expect("the encoding fills slots");
    assert_eq!((model.hubs.len(), model.once.len()), (12, 12));
    assert_eq!(model.tables.len(), 1);
}

/// The even/odd 6x6 of `rules/` and the batch of its tests, each line its own marks.
const EVEN_ODD_6X6: &str = include_str!("../../../rules/even-odd-6x6.graft");
const EVEN_ODD_BATCH: &str = include_str!("../../../tests/fixtures/layers/even-odd-6x6.txt");

/// `text` without its own layer content and puzzle, the layer opening with `opening`
/// declared as `bare` instead: a file for batches only.
fn for_batches_only(text: &str, opening: &str, bare: &str) -> String {
    let start = text.find(opening).expect("the layer");
    let end = start + text[start..].find("\n}\n").expect("its content's end") + 3;
    let text = format!("{}{bare}\n{}", &text[..start], &text[end..]);
    let start = text.find("start {").expect("the file's puzzle");
    let end = start + text[start..].find("\n}\n").expect("its end") + 3;
    format!("{}{}", &text[..start], &text[end..])
}

/// The even/odd 6x6 without its own marks and puzzle.
fn even_odd_bare() -> String {
    for_batches_only(
        EVEN_ODD_6X6,
        "layer parity: parity = {",
        "layer parity: parity",
    )
}

/// For every puzzle of `batch`: `shortcut` compares what the puzzle's engine takes from
/// the rule file's with `fresh`, the puzzle's own compilation, and says whether the
/// shortcut applies; and the engine `Engine::with_layers` runs (on the shortcut or
/// compiled) finds the same solutions, states, transitions and dead ends as the engine
/// compiled from scratch, with each of `expands`. Returns how many puzzles took the
/// shortcut and how many were compiled.
fn assert_batch_runs_as_compiled(
    (name, g): (&str, &crate::Grammar),
    batch: &str,
    expands: &[Expand],
    mut shortcut: impl FnMut(&crate::Puzzle, &crate::Grammar, &super::SlotModel) -> bool,
) -> (usize, usize) {
    let source = crate::diag::Source::new("batch.txt", batch.to_string());
    let puzzles = crate::read_puzzles(g, &source).expect("the batch reads");
    let engine = Engine::new(g);
    let (mut shared, mut compiled) = (0, 0);
    for p in &puzzles {
        let layered = g.with_layers(&p.layers);
        let fresh = compile(&layered).expect("the rules fill slots");
        if shortcut(p, &layered, &fresh) {
            shared += 1;
        } else {
            compiled += 1;
        }
        let alone = Engine::new(&layered);
        for &expand in expands {
            let config = Config::default().with_expand(expand);
            let run = |e: &Engine<'_>| run_to_the_end(e, p, &config, name);
            let by_batch = engine.with_layers(&p.layers, run);
            assert_eq!(by_batch.0, "slot");
            assert_eq!(by_batch, run(&alone), "{name} puzzle {}", p.number);
        }
    }
    (shared, compiled)
}

/// [`assert_batch_runs_as_compiled`] where the shortcut is the rule file's narrowing: the
/// values it takes away are those a compilation from scratch no longer allows, its hubs
/// and tables are the compilation's. Returns how many puzzles were narrowed and how many
/// compiled.
fn assert_narrowing_is_the_compilation(
    name: &str,
    rules: &str,
    batch: &str,
    expands: &[Expand],
) -> (usize, usize) {
    let g = load_str(name, rules).expect("the rule file loads");
    let model = compile(&g).expect("the rules fill slots");
    let narrowing = super::Narrowing::of(&g, &model).expect("the layers only narrow");
    assert_batch_runs_as_compiled((name, &g), batch, expands, |p, layered, fresh| {
        // Read from the layers, as a batch reads them, and from the puzzle's graph.
        let puzzle = crate::grammar::puzzle::PuzzleGrammar::new(&g, &p.layers);
        let marks =
            super::PuzzleMarks::of(&puzzle, narrowing.positions()).expect("the layers set marks");
        let read = narrowing.removed(&model, &g.base, &marks);
        assert_eq!(read, narrowing.removed(&model, &g.base, &layered.base));
        let Some(removed) = read else {
            return false;
        };
        let mut allowed = model.allowed.to_vec();
        for (s, xs) in removed {
            allowed[s as usize] &= !xs;
        }
        assert_eq!(allowed, *fresh.allowed, "{name} puzzle {}", p.number);
        assert_eq!(
            (&model.hubs, &model.tables, &model.once),
            (&fresh.hubs, &fresh.tables, &fresh.once),
            "{name} puzzle {}",
            p.number
        );
        true
    })
}

/// Marks read only by the left side of the rule that fills a cell narrow the rule file's
/// engine: every line of the batch runs on it, as it would on its own compilation.
#[test]
fn marks_read_by_the_left_side_alone_narrow_the_rule_files_engine() {
    let bare = even_odd_bare();
    // Every state of these few-given lines is millions: their search trees alone. The
    // last line marks every cell odd: no row keeps its even values, so a compilation
    // builds its groups' tables over the odd values alone (no exactly-once groups), and
    // the line is compiled.
    let batch = format!(
        "{EVEN_ODD_BATCH}{} | parity: {}\n",
        ".".repeat(36),
        "1".repeat(36)
    );
    let counts =
        assert_narrowing_is_the_compilation("even-odd.graft", &bare, &batch, &[Expand::Focus]);
    assert_eq!(counts, (10, 1));
    // The file's own marks: a line with more marks narrows the file's engine, a line
    // with fewer (a cell the file marks and the line does not) is compiled.
    // Eleven cells to fill: every state of every order of placements is a few thousand.
    let givens = ["1.6.2.", "352.16", "6.3154", "5.4.3.", "435.61", "26.5.3"].concat();
    let marks = "1....1 .1.010 ...1.. .1..1. .....1 0.1.01";
    let more = "1....1 .1.010 0..1.. .1..1. .....1 0.1.01";
    let fewer = "1....1 .1.010 ...... .1..1. .....1 0.1.01";
    let batch: String = [marks, more, fewer]
        .iter()
        .map(|m| format!("{givens} | parity: {m}\n"))
        .collect();
    let counts = assert_narrowing_is_the_compilation(
        "even-odd-6x6.graft",
        EVEN_ODD_6X6,
        &batch,
        &[Expand::All, Expand::Focus],
    );
    assert_eq!(counts, (2, 1));
}

/// Layers that add nodes, or that a NAC reads, do not narrow: each puzzle compiles.
#[test]
fn layers_a_nac_reads_or_that_add_nodes_do_not_narrow() {
    for (name, text) in [
        ("consecutive-4x4.graft", consecutive_4x4()),
        (
            "jigsaw-6x6.graft",
            include_str!("../../../rules/jigsaw-6x6.graft").to_string(),
        ),
        ("killer-4x4.graft", KILLER_4X4.to_string()),
    ] {
        let g = load_str(name, &text).expect("the rule file loads");
        let model = compile(&g).expect("the rules fill slots");
        assert!(super::Narrowing::of(&g, &model).is_none(), "{name}");
    }
    // A NAC whose table is not "the same value" (a knight's move blocks 4 alone): marks
    // that rule 4 out everywhere would leave a compilation without that table.
    let text = even_odd_bare()
        .replace(
            "edge in: Cell -> Group",
            "edge in: Cell -> Group\nedge knight: Cell -> Cell",
        )
        .replace(
            "groups rows, columns, boxes 2x3",
            "groups rows, columns, boxes 2x3\nedges c -knight-> d where abs(c.row - d.row) * abs(c.col - d.col) == 2",
        )
        .replace(
            "  set c.val = v",
            "  not { c -knight-> d: Cell { val == v, v == 4 } }\n  set c.val = v",
        );
    let g = load_str("even-odd-knight.graft", &text).expect("the rule file loads");
    let model = compile(&g).expect("the rules fill slots");
    assert_eq!(model.tables.len(), 2, "{text}");
    assert!(super::Narrowing::of(&g, &model).is_none());
    // The even/odd rule with the mark read in its NAC too.
    let text = even_odd_bare().replace(
        "d: Cell { val == v }",
        "d: Cell { val == v, parity == none }",
    );
    let g = load_str("even-odd.graft", &text).expect("the rule file loads");
    let model = compile(&g).expect("the rules fill slots");
    assert!(super::Narrowing::of(&g, &model).is_none());
}

/// A given its cell's mark rules out is named as such, by the narrowed engine and by the
/// engine compiled from scratch alike, not as a clash with an earlier given.
#[test]
fn a_given_its_mark_rules_out_is_no_value_the_rule_places_there() {
    let bare = even_odd_bare();
    let g = load_str("even-odd.graft", &bare).expect("the rule file loads");
    let line = format!("1.2{} | parity: ..1{}\n", ".".repeat(33), ".".repeat(33));
    let source = crate::diag::Source::new("batch.txt", line);
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    let p = &puzzles[0];
    let layered = g.with_layers(&p.layers);
    let engine = Engine::new(&g);
    let narrowed = engine.with_layers(&p.layers, |e| e.check_givens(Some(&p.givens)));
    let alone = Engine::new(&layered).check_givens(Some(&p.givens));
    for found in [narrowed, alone] {
        let message = found.expect_err("the given is ruled out").message;
        assert!(
            message.contains("given `2` at")
                && message.contains("is not a value any rule can place there"),
            "{message}"
        );
    }
}

/// The jigsaw 4x4 of `rules/` and the batch of its tests, each line its own regions.
const JIGSAW_4X4: &str = include_str!("../../../rules/jigsaw-4x4.graft");
const JIGSAW_BATCH: &str = include_str!("../../../tests/fixtures/layers/jigsaw-4x4.txt");

/// The jigsaw 4x4 without its own regions and puzzle.
fn jigsaw_bare() -> String {
    for_batches_only(
        JIGSAW_4X4,
        "layer region:",
        "layer region: regions of Group",
    )
}

/// What a model must agree on with another compilation of the same puzzle: everything
/// [`model_shape`] lists, what `finish` derives, and its `forbid` instances.
fn finished_shape(m: &super::SlotModel) -> String {
    format!(
        "{} {:?} {:?} {:?} {:?}",
        model_shape(m),
        m.final_kind,
        m.symmetric.is_ok(),
        m.focus_sound.is_ok(),
        m.forbids.as_ref().map(|f| f.shape())
    )
}

/// [`assert_batch_runs_as_compiled`] where the shortcut is the rule file's regrouping:
/// the model it makes is the one a compilation from scratch makes. Returns how many
/// puzzles were regrouped and how many compiled.
fn assert_regrouping_is_the_compilation(
    name: &str,
    rules: &str,
    batch: &str,
    expands: &[Expand],
) -> (usize, usize) {
    let g = load_str(name, rules).expect("the rule file loads");
    let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
    let regrouping = super::Regrouping::of(&g, &model, &fixed).expect("the layers add groups");
    assert_batch_runs_as_compiled((name, &g), batch, expands, |p, layered, fresh| {
        let Some((m, appends_hubs)) = regrouping.regrouped(&model, &g, &p.layers) else {
            // Compiled as a batch compiles it, with the file's record: a `forbid` instance
            // over a region of a size not grounded before is grounded for the next.
            super::compile_reusing(layered, Some(&fixed)).expect("the rules fill slots");
            return false;
        };
        let at = format!("{name} puzzle {}", p.number);
        assert_eq!(finished_shape(&m), finished_shape(fresh), "{at}");
        // Its tables, built from the file's (appending the puzzle's hubs where they
        // follow the file's), are those built from scratch.
        // Said where the file's hubs were all copied first; a line whose regions are the
        // file's own may have them so without it being said.
        assert!(!appends_hubs || m.hubs.starts_with(&model.hubs), "{at}");
        let tables = crate::slot::Tables::<u16>::new(&model).regrouped(&model, (&m, appends_hubs));
        let fresh_tables = crate::slot::Tables::<u16>::new(&m);
        assert_eq!(format!("{tables:?}"), format!("{fresh_tables:?}"), "{at}");
        if crate::slot::solver::appendable(&model, &m, appends_hubs) {
            APPENDED.set(APPENDED.get() + 1);
        }
        true
    })
}

thread_local! {
    /// Puzzles whose tables [`assert_regrouping_is_the_compilation`] saw built by
    /// appending hubs to the file's.
    static APPENDED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Counts the solutions of `p` (a line of a batch) on `e`, the engine of `puzzle`, then
/// writes them out: the states written are those the puzzle's own engine (compiled from
/// its layered grammar) writes, with what its layers add (`added` names some of it).
/// Returns the count, and whether counting built the puzzle's graph.
fn count_then_write(
    e: &crate::slot::SlotEngine<'_>,
    puzzle: &crate::grammar::puzzle::PuzzleGrammar<'_>,
    p: &crate::Puzzle,
    added: &str,
) -> (u64, bool) {
    use crate::output::dot::to_dot;
    let config = Config::default();
    let (counts, ..) = e
        .solve(Some(&p.givens), &config, &mut None)
        .expect("givens agree");
    let built = puzzle.is_built();
    let mut written = Vec::new();
    let mut keep = |graph: &Graph| written.push(to_dot(puzzle.get(), graph));
    e.solve(Some(&p.givens), &config, &mut Some(&mut keep))
        .expect("givens agree");
    let layered = puzzle.file().with_layers(&p.layers);
    let mut alone = Vec::new();
    let mut keep = |graph: &Graph| alone.push(to_dot(&layered, graph));
    Engine::new(&layered)
        .solve(Some(&p.givens), &config, Some(&mut keep))
        .expect("givens agree");
    written.sort();
    alone.sort();
    assert_eq!(written.len() as u64, counts.solutions);
    assert!(written.iter().all(|w| w.contains(added)), "{written:?}");
    assert_eq!(written, alone, "puzzle {}", p.number);
    (counts.solutions, built)
}

/// A narrowed puzzle's engine reads its marks from its layers: its graph is built for
/// marks no earlier puzzle of the file had (to evaluate the rule's left side on them),
/// not for a later puzzle with the same marks, unless it writes a state out, which is
/// then its own engine's.
#[test]
fn a_narrowed_puzzle_builds_its_graph_only_for_new_marks() {
    use crate::grammar::puzzle::PuzzleGrammar;
    use crate::slot::SlotEngine;
    let g = load_str("even-odd.graft", &even_odd_bare()).expect("the rule file loads");
    let source = crate::diag::Source::new("batch.txt", EVEN_ODD_BATCH.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    let file = SlotEngine::new(&g).expect("the rules fill slots");
    let mut built = Vec::new();
    for p in puzzles.iter().filter(|p| !p.layers.is_empty()) {
        let puzzle = PuzzleGrammar::new(&g, &p.layers);
        let Some(e) = file.narrowed(&puzzle) else {
            continue;
        };
        let (solutions, counting_built) = count_then_write(&e, &puzzle, p, "parity");
        assert!(solutions > 0, "puzzle {}", p.number);
        built.push(counting_built);
    }
    // Even and odd marks: the first puzzle meets both.
    assert!(built.len() > 2, "{built:?}");
    assert!(built[0] && !built[1..].iter().any(|&b| b), "{built:?}");
}

/// A regrouped puzzle's engine reads its regions from its layers: counting its solutions
/// builds none of its graph, and the states it writes out are those of its own engine
/// (region nodes and edges too), whether it writes the first one or a later one.
#[test]
fn a_regrouped_puzzle_builds_its_graph_only_to_write_a_state() {
    use crate::grammar::puzzle::PuzzleGrammar;
    use crate::slot::SlotEngine;
    let g = load_str("jigsaw-4x4.graft", JIGSAW_4X4).expect("the rule file loads");
    let source = crate::diag::Source::new("batch.txt", JIGSAW_BATCH.to_string());
    let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
    let file = SlotEngine::new(&g).expect("the rules fill slots");
    let mut regrouped = 0;
    for p in puzzles.iter().filter(|p| !p.layers.is_empty()) {
        let puzzle = PuzzleGrammar::new(&g, &p.layers);
        let e = file.regrouped(&puzzle).expect("the layers add regions");
        let (solutions, built) = count_then_write(&e, &puzzle, p, "region_");
        assert!(solutions > 0, "puzzle {}", p.number);
        assert!(!built, "puzzle {}: counting built its graph", p.number);
        regrouped += 1;
    }
    assert!(regrouped > 5, "only {regrouped} puzzles");
}

/// Regions a layer adds to the all-different NAC join the rule file's model: every line
/// of the batch runs on the file's model with its regions' hubs added, as it would on its
/// own compilation; with the file's own regions left out, with another NAC's hubs after
/// the star's or before them.
#[test]
fn groups_a_layer_adds_to_a_star_regroup_the_rule_files_model() {
    let lines = JIGSAW_BATCH.lines().filter(|l| l.contains('|')).count();
    assert!(lines > 5);
    let focus = [Expand::Focus];
    let counts =
        assert_regrouping_is_the_compilation("jigsaw-4x4.graft", JIGSAW_4X4, JIGSAW_BATCH, &focus);
    assert_eq!(counts, (lines, 0));
    // The file's own regions are replaced, so its hubs are not all kept: built anew.
    assert_eq!(APPENDED.get(), 0);
    // Eight cells to fill: every state of every order of placements is a few hundred.
    let small = [
        "1.2.4..3.4.13.4. | region: ABCC ABBC ABDC ADDD",
        ".23.3..22.4..3.1 | region: AABB AABB CCDD CCDD",
    ]
    .join("\n");
    let all = [Expand::All];
    let counts = assert_regrouping_is_the_compilation("jigsaw-4x4.graft", JIGSAW_4X4, &small, &all);
    assert_eq!(counts, (2, 0));
    let counts =
        assert_regrouping_is_the_compilation("bare.graft", &jigsaw_bare(), JIGSAW_BATCH, &focus);
    assert_eq!(counts, (lines, 0));
    // Rows and columns, then each line's regions: appended.
    assert_eq!(APPENDED.get(), lines);
    // Neighbour NACs (not the same value: no two consecutive values side by side) no
    // layer reaches, compiled after the star and before it.
    let neighbour = "  not { c -beside-> d: Cell { val != none } where abs(d.val - v) == 1 }
  not { d: Cell { val != none } -beside-> c where abs(d.val - v) == 1 }\n";
    let with_neighbours = |text: String| {
        text.replace(
            "edge in: Cell -> Group",
            "edge in: Cell -> Group\nedge beside: Cell -> Cell",
        )
        .replace(
            "groups rows, columns",
            "groups rows, columns\nedges c -beside-> d where d.row == c.row and d.col == c.col + 1",
        )
    };
    let after = with_neighbours(jigsaw_bare())
        .replace("  set c.val = v", &format!("{neighbour}  set c.val = v"));
    let before = with_neighbours(jigsaw_bare())
        .replace("  not { c -in->", &format!("{neighbour}  not {{ c -in->"));
    for (name, text) in [("after.graft", after), ("before.graft", before)] {
        assert!(text.contains("-beside-> d: Cell"), "{text}");
        let counts = assert_regrouping_is_the_compilation(name, &text, JIGSAW_BATCH, &focus);
        assert_eq!(counts, (lines, 0), "{name}");
    }
    // Without rows and columns the regions are the only groups: a line of one-cell
    // regions blocks nothing, so a compilation has no table, and the line is compiled.
    // A few cells to fill: every filling of them is a solution.
    let regions_only = JIGSAW_4X4.replace("groups rows, columns\n", "");
    let batch = [
        "12..3412..1234.. | region: AABB AABB CCDD CCDD",
        "12..3412..1234.. | region: ABCD EFGH IJKL MNOP",
    ]
    .join("\n");
    let counts =
        assert_regrouping_is_the_compilation("regions.graft", &regions_only, &batch, &focus);
    assert_eq!(counts, (1, 1));
    // A region joining a cell the NAC holds for with one it does not (the last row, which
    // a rule without NAC fills) makes the blocking one-sided: no focus, so no exactly-once
    // hubs, where the file has four (the rows of the NAC's cells and its own two regions;
    // the last past the puzzle's three hubs).
    let one_sided = "values 1..3
node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group
grid 3x3 of Cell
groups rows
layer region: regions of Group = {
  AAA
  BBB
  ...
}
rule place(v: value) {
  c: Cell { val == none, row <= 2 }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}
rule last(v: value) {
  c: Cell { val == none, row > 2 }
  set c.val = v
}
final: not { c: Cell { val == none } }
";
    let g = load_str("one-sided.graft", one_sided).expect("the rule file loads");
    let model = compile(&g).expect("the rules fill slots");
    assert_eq!((model.once.len(), model.hubs.len()), (4, 4));
    let batch = "......... | region: A.. ... A..";
    let counts = assert_regrouping_is_the_compilation("one-sided.graft", one_sided, batch, &focus);
    assert_eq!(counts, (1, 0));
}

/// `text` without the contents of its layers `heads` (each `layer NAME: ...` up to ` = {`)
/// and without its puzzle, as `grafter import janko` writes a batch's rule file.
fn without_own_layers(text: &str, heads: &[&str]) -> String {
    let mut text = text.to_string();
    for head in heads {
        let start = text.find(&format!("{head} = {{")).expect("the layer");
        let end = start + text[start..].find("\n}\n").expect("its content's end") + 3;
        text = format!("{}{head}\n{}", &text[..start], &text[end..]);
    }
    let start = text.find("start {").expect("the file's puzzle");
    let end = start + text[start..].find("\n}\n").expect("its end") + 3;
    format!("{}{}", &text[..start], &text[end..])
}

/// The killer 4x4 without its own cages and puzzle.
fn killer_bare() -> String {
    let heads = ["layer cages: regions of Cage", "layer sums: cages.sum"];
    without_own_layers(KILLER_4X4, &heads)
}

/// Cages a layer draws, with the sums another sets on them, join the rule file's model:
/// each line's cages are the all-different NAC's hubs and the sum NAC's groups (members,
/// sums, contents, the houses' remainders) that its own compilation makes, and it runs
/// alike. So with the file's own cages left out, and with none.
#[test]
fn cages_and_sums_a_layer_draws_regroup_the_rule_files_model() {
    let lines = KILLER_BATCH.lines().filter(|l| l.contains('|')).count();
    assert!(lines > 5);
    let focus = [Expand::Focus];
    let counts =
        assert_regrouping_is_the_compilation("killer-4x4.graft", KILLER_4X4, KILLER_BATCH, &focus);
    assert_eq!(counts, (lines, 0));
    APPENDED.set(0);
    let counts =
        assert_regrouping_is_the_compilation("bare.graft", &killer_bare(), KILLER_BATCH, &focus);
    assert_eq!(counts, (lines, 0));
    // Rows, columns and boxes, then each line's cages: appended where no cage is of four
    // cells (which would be exactly-once, as the houses are).
    let no_house_cage = (KILLER_BATCH.lines())
        .filter_map(|l| l.split("cages:").nth(1)?.split('|').next())
        .filter(|cages| {
            let cells: String = cages.split_whitespace().collect();
            (cells.chars()).all(|c| cells.matches(c).count() < 4)
        })
        .count();
    assert!(0 < no_house_cage && no_house_cage < lines);
    assert_eq!(APPENDED.get(), no_house_cage);
    // Every state of every order of placements, on a few lines with givens; a cage with
    // no sum (`.` at all its cells) is a group whose sum is none.
    let small = [
        "1.3..4.........2 | cages: abcc abcd ebfd ebfd | sums: 4 10 6 . . . . 7 6 . 7 . . . . .",
        "..3.3......2.4.. | cages: aabb cabd caed cffd | sums: . . 9 . 6 . . 7 . . 1 . . 7 . .",
    ]
    .join("\n");
    let all = [Expand::All];
    let counts = assert_regrouping_is_the_compilation("bare.graft", &killer_bare(), &small, &all);
    assert_eq!(counts, (2, 0));
}

/// A kakuro's runs, across and down (two layers of one node type), with their sums, join
/// the rule file's model as a killer's cages do: with the file's own runs left out, and
/// with none, where the runs' table (the same value, 1..9) is the line's own.
#[test]
fn runs_two_layers_draw_regroup_the_rule_files_model() {
    const KAKURO_4X4: &str = include_str!("../../../rules/kakuro-4x4.graft");
    let holes = "- - - - - ";
    let line = |givens: &str, across: [&str; 3], down: [&str; 3]| {
        format!(
            "{holes}{givens} | across: {holes}a a a - b b b - c c - | down: {holes}d e f - d e f - d e - \
             | across_sums: {holes}{} . . - {} . . - {} . - | down_sums: {holes}{} {} {} - . . . - . . -",
            across[0], across[1], across[2], down[0], down[1], down[2]
        )
    };
    let batch = [
        line(". . . - . . . - . . -", ["6", "7", "5"], ["7", "8", "3"]),
        line(
            ". . . - . . . - . . -",
            ["24", "6", "17"],
            ["23", "12", "12"],
        ),
        line("1 . . - . . . - . . -", ["6", ".", "5"], ["7", "8", "3"]),
        line(". . . - . . . - . . -", ["7", "8", "9"], ["10", "11", "3"]),
    ]
    .join("\n");
    let heads = [
        "layer across: regions of Run",
        "layer down: regions of Run",
        "layer across_sums: across.sum",
        "layer down_sums: down.sum",
    ];
    let all = [Expand::All];
    for (name, text) in [
        ("kakuro-4x4.graft", KAKURO_4X4.to_string()),
        ("bare.graft", without_own_layers(KAKURO_4X4, &heads)),
    ] {
        let counts = assert_regrouping_is_the_compilation(name, &text, &batch, &all);
        assert_eq!(counts, (4, 0), "{name}");
    }
}

/// The renban 6x6 of `rules/`: each line's runs are the hubs of the NAC that keeps a
/// value once per run, and the instances of its `forbid` pattern, one per run, each of the
/// shape of a run of its length grounded before. A line with a length not grounded yet is
/// compiled; the rest are regrouped, to the model a compilation makes, and run alike.
#[test]
fn renban_runs_regroup_with_their_forbid_instances() {
    let text = include_str!("../../../rules/renban-6x6.graft");
    let runs = "A B C C D E A A A C C E F G A H I I F F J J J J K K L M N N O K M M N P";
    // The file's puzzle, transposed, mirrored, and with fewer givens.
    let batch = [
        ". . . . . . . . 6 . 5 . 3 . . 1 . . . 2 . . 3 . 6 . . . . . . . . 5 . 6 | run: RUNS",
        ". . 3 . 6 . . . . 2 . . . 6 . . . . . . 1 . . 5 . 5 . 3 . . . . . . . 6 | run: A A F F K O B A G F K K C A A J L M C C H J M M D C I J N N E E I J N P",
        ". . . . . . . 5 . 6 . . . . 1 . . 3 . 3 . . 2 . . . . . . 6 6 . 5 . . . | run: E D C C B A E C C A A A I I H A G F J J J J F F N N M L K K P N M M K O",
        ". . . . . . . . 6 . . . 3 . . . . . . 2 . . . . . . . . . . . . . 5 . 6 | run: RUNS",
    ]
    .join("\n")
    .replace("RUNS", runs);
    let focus = [Expand::Focus];
    // The file's own runs, which its compilation grounds, are those of the first line;
    // without them, the first line grounds its runs of 1 to 4 cells, and the others have
    // no other lengths.
    for (name, text, counts) in [
        ("renban-6x6.graft", text.to_string(), (4, 0)),
        (
            "bare.graft",
            for_batches_only(text, "layer run:", "layer run: regions of Run"),
            (3, 1),
        ),
    ] {
        let got = assert_regrouping_is_the_compilation(name, &text, &batch, &focus);
        assert_eq!(got, counts, "{name}");
    }
}

/// Every janko killer, kakuro and margin line (246 of them), imported as `grafter import
/// janko` imports them: the model its rule file's regrouping makes is the compilation's,
/// and runs alike. Reads `../shared/data/janko` (or `$GRAFTER_DATA/janko`), so it is
/// opt-in.
#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_sums_regroup_as_compiled() {
    let focus = [Expand::Focus];
    for kind in ["KillerSudoku", "Kakuro", "MarginSudoku"] {
        let Some(imported) = crate::import::janko::imported_for_tests(kind) else {
            return;
        };
        let (mut lines, mut regrouped) = (0, 0);
        for (name, rules, batch) in imported.batches() {
            let counts = assert_regrouping_is_the_compilation(name, rules, batch, &focus);
            assert_eq!(counts.1, 0, "{name}: compiled lines");
            lines += batch.lines().filter(|l| l.contains('|')).count();
            regrouped += counts.0;
        }
        assert_eq!(regrouped, lines, "{kind}");
        assert!(lines > 10, "{kind}: {lines} lines");
    }
}

/// Every janko renban line, imported as `grafter import janko` imports them:
/// [`renban_runs_regroup_with_their_forbid_instances`] over real runs. A line is compiled
/// only where it has a run of a length no line before it had. Reads `../shared/data/janko`
/// (or `$GRAFTER_DATA/janko`), so it is opt-in.
#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_renban_regroups_as_compiled() {
    let Some(imported) = crate::import::janko::imported_for_tests("Renban") else {
        return;
    };
    let (mut lines, mut regrouped) = (0, 0);
    for (name, rules, batch) in imported.batches() {
        let counts = assert_regrouping_is_the_compilation(name, rules, batch, &[Expand::Focus]);
        lines += batch.lines().filter(|l| l.contains('|')).count();
        regrouped += counts.0;
    }
    assert!(lines > 15, "{lines} lines");
    eprintln!("{regrouped} of {lines} renban lines regrouped");
    assert!(
        regrouped * 2 > lines,
        "{regrouped} of {lines} lines regrouped"
    );
}

/// Every janko consecutive line, imported as `grafter import janko` imports them: the
/// model its rule file's retabling makes is the compilation's, its verdicts (symmetry,
/// focus, exactly-once hubs) decided from each pair of neighbours' two arcs, and runs
/// alike. Reads `../shared/data/janko` (or `$GRAFTER_DATA/janko`), so it is opt-in.
#[test]
#[ignore = "needs ../shared/data/janko or $GRAFTER_DATA: run with --ignored"]
fn janko_bars_retable_as_compiled() {
    let Some(imported) = crate::import::janko::imported_for_tests("ConsecutiveSudoku") else {
        return;
    };
    let (mut lines, mut retabled) = (0, 0);
    let mirrored = super::retable::MIRRORED.get();
    for (name, rules, batch) in imported.batches() {
        let counts =
            assert_retabling_is_the_compilation((name, rules), batch, &[Expand::Focus], false);
        assert_eq!(counts.1, 0, "{name}: compiled lines");
        lines += batch.lines().filter(|l| l.contains('|')).count();
        retabled += counts.0;
    }
    eprintln!("{retabled} of {lines} consecutive lines retabled");
    assert_eq!(retabled, lines);
    assert!(lines > 10, "{lines} lines");
    assert!(super::retable::MIRRORED.get() >= mirrored + lines);
}

/// A `forbid` pattern that binds nodes of the bare graph (its rows), or reads more of a
/// run than its cells' values (a cell's row), is compiled with each puzzle.
#[test]
fn forbids_beyond_drawn_regions_do_not_regroup() {
    let text = include_str!("../../../rules/renban-6x6.graft");
    let bare = for_batches_only(text, "layer run:", "layer run: regions of Run");
    let forbid = "forbid { r: Run where max(d.val for r <-run- d: Cell) - min(d.val for r <-run- d: Cell)\n                      >= count(r <-run- d: Cell) }";
    assert!(bare.contains(forbid));
    let regroups = |pattern: &str| {
        let text = bare.replacen(forbid, pattern, 1);
        let g = load_str("renban.graft", &text).expect("the rule file loads");
        let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
        assert!(model.forbids.is_some(), "{pattern}");
        super::Regrouping::of(&g, &model, &fixed).is_some()
    };
    assert!(regroups(forbid));
    assert!(!regroups(
        "forbid { g: Group where sum(d.val for g <-in- d: Cell) > 30 }"
    ));
    assert!(!regroups(
        "forbid { r: Run where max(d.val + d.row for r <-run- d: Cell) > 20 }"
    ));
}

/// Layers that set attributes, whose groups a NAC reads otherwise than as the
/// all-different NAC or a sum over a group's cells does, or whose regions would be slots,
/// do not regroup: each puzzle compiles. Nor where the file's graph holds a cage of its
/// own (its groups would be compiled beside the line's), or a sum NAC ranges over groups
/// no layer draws.
#[test]
fn layers_a_nac_reads_otherwise_do_not_regroup() {
    let own_cage = killer_bare().replace(
        "layer cages:",
        "k0: Cage { sum = 3 }   r1c1 -cage-> k0  r1c2 -cage-> k0\nlayer cages:",
    );
    let houses = killer_bare().replace(
        "  set c.val = v",
        "  not { c -in-> g: Group where sum(d.val for g <-in- d: Cell) + v > 10 }\n  set c.val = v",
    );
    let sum_of_two = jigsaw_bare().replace(
        "  set c.val = v",
        "  not { c -in-> g: Group <-in- d: Cell { val != none } where d.val + v == 5 }\n  set c.val = v",
    );
    // Regions whose type inherits the value the rules fill: slots of their puzzle.
    let valued = "values 1..3
node Thing { val: value? }
node Cell : Thing { row: int, col: int }
node Group : Thing
edge in: Cell -> Group
grid 3x3 of Cell
groups rows
layer region: regions of Group
rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}
final: not { x: Thing { val == none } }
";
    for (name, text) in [
        ("consecutive-4x4.graft", consecutive_4x4()),
        ("even-odd.graft", even_odd_bare()),
        ("sum-of-two.graft", sum_of_two),
        ("valued-regions.graft", valued.to_string()),
        ("own-cage.graft", own_cage),
        ("houses.graft", houses),
    ] {
        let g = load_str(name, &text).expect("the rule file loads");
        let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
        assert!(
            super::Regrouping::of(&g, &model, &fixed).is_none(),
            "{name}"
        );
    }
}

/// A house holding cages whole leaves its other cells the values the cages' contents do
/// not take (the rule of 45): the model holds that remainder as a group of its own. It
/// takes candidates in the search and blocks no placement (every state, transition and
/// dead end of `--expand all` as on whole graphs), and it turns itself off where the givens
/// fill a cage with a content its NAC would have refused, which no NAC judges.
#[test]
fn a_house_remainder_takes_candidates_and_blocks_nothing() {
    let g = load_str("killer-4x4.graft", KILLER_4X4).expect("the rule file loads");
    let model = compile(&g).expect("it compiles");
    // Column 4 holds cage e (r3c4 and r4c4, sum 5) whole: r1c4 and r2c4 hold 1 and 4, or
    // 2 and 3 (values 0 to 3 stand for 1 to 4).
    let remainders: Vec<Vec<&[u8]>> = (model.groups.iter())
        .filter(|g| !g.implied_by.is_empty())
        .map(|g| g.feasible.as_ref().expect("listed").lists().collect())
        .collect();
    assert!(
        remainders.contains(&vec![&[1u8, 2][..], &[0, 3][..]]),
        "{remainders:?}"
    );
    // The givens fill cage a (sum 3) with 3 and 4: the row's remainder would leave 3 and
    // 4 to r1c3 and r1c4, and the puzzle would have no solution.
    let refused =
        "34..12.......... | cages: aa.. .... .... .... | sums: 3 . . . . . . . . . . . . . . .\n";
    assert_slot_agrees_with_graph("killer-4x4.graft", KILLER_4X4, KILLER_BATCH, Expand::Focus);
    for expand in [Expand::Focus, Expand::All] {
        assert_slot_agrees_with_graph("killer-4x4.graft", KILLER_4X4, refused, expand);
    }
    let source = crate::diag::Source::new("batch.txt", refused.to_string());
    let p = &crate::read_puzzles(&g, &source).expect("the line reads")[0];
    let engine = Engine::new(&g);
    let found = engine.with_layers(&p.layers, |e| {
        let config = Config::default().with_expand(Expand::Focus);
        run_to_the_end(e, p, &config, "refused")
    });
    assert!(found.1 .0 > 0, "{found:?}");
}

#[test]
fn aggregates_written_alike_fold_once() {
    // The kakuro run's NAC names `sum(...)` three times and `count(...)` three times.
    let text = include_str!("../../../rules/kakuro-4x4.graft");
    let g = load_str("kakuro-4x4.graft", text).expect("the rule file loads");
    let model = compile(&g).expect("it compiles");
    let aggs = &model.group_nacs[0].aggs;
    let ops: Vec<&str> = aggs.iter().map(|a| a.op.name()).collect();
    assert_eq!(ops, ["sum", "count", "sum", "count", "count", "sum"]);
    let firsts: Vec<usize> = aggs.iter().map(|a| a.first).collect();
    assert_eq!(firsts, [0, 1, 0, 1, 1, 0]);
    // A count of other members (nines, beside the empty ones) is a fold of its own.
    let other = text.replace(
        "+ v != k.sum",
        "+ v + 0 * (count(k <-run- d: Cell { int(val) == 9 }) + int(int(v) == 9)) != k.sum",
    );
    assert_ne!(other, text, "the rule file's NAC has changed");
    let g = load_str("kakuro-4x4.graft", &other).expect("the rule file loads");
    let model = compile(&g).expect("it compiles");
    let firsts: Vec<usize> = (model.group_nacs[0].aggs.iter()).map(|a| a.first).collect();
    assert_eq!(firsts, [0, 1, 0, 1, 1, 0, 6]);
    // That the shared folds judge as the matcher does: the file's counts on both engines
    // (`engines::every_rule_file_solves_alike_on_both_engines`) and the janko kakuros'.
}

/// The hubs of `m` with their tables by content, its values, what `finish` derives and
/// its exactly-once hubs: what a retabled model must share with a compilation, whose
/// tables may be numbered otherwise (a file's own marks' tables come first).
fn tabled_shape(m: &super::SlotModel) -> String {
    let hubs: Vec<_> = (m.hubs.iter())
        .map(|h| (&h.writers, &h.readers, &m.tables[h.table as usize]))
        .collect();
    format!(
        "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        m.slots,
        m.allowed,
        m.rule_of,
        hubs,
        m.once,
        m.final_kind,
        m.symmetric.is_ok(),
        m.focus_sound.is_ok()
    )
}

/// [`assert_batch_runs_as_compiled`] where the shortcut is the rule file's retabling:
/// the model it makes, reading the marks from the lines' layers or from the puzzles'
/// graphs alike, is the one a compilation from scratch makes (the same tables too where
/// `same_tables`). Returns how many puzzles were retabled and how many compiled.
fn assert_retabling_is_the_compilation(
    (name, rules): (&str, &str),
    batch: &str,
    expands: &[Expand],
    same_tables: bool,
) -> (usize, usize) {
    let g = load_str(name, rules).expect("the rule file loads");
    let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
    let retabling = super::Retabling::of(&g, &model, &fixed).expect("the layers set marks");
    assert_batch_runs_as_compiled((name, &g), batch, expands, |p, layered, fresh| {
        let at = format!("{name} puzzle {}", p.number);
        let puzzle = crate::grammar::puzzle::PuzzleGrammar::new(&g, &p.layers);
        let marks =
            super::PuzzleMarks::of(&puzzle, retabling.positions()).expect("the layers set marks");
        let read = retabling.retabled(&model, &g, &marks);
        let from_graph = retabling.retabled(&model, &g, &layered.base);
        assert!(!puzzle.is_built(), "{at}: the marks are read from the line");
        let shape = |m: &Option<super::SlotModel>| m.as_ref().map(tabled_shape);
        assert_eq!(shape(&read), shape(&from_graph), "{at}");
        let Some(m) = read else {
            return false;
        };
        // Its tables, built on the file's, are those built from scratch.
        let tables = crate::slot::Tables::<u16>::new(&model).retabled(&model, &m);
        let fresh_tables = crate::slot::Tables::<u16>::new(&m);
        assert_eq!(format!("{tables:?}"), format!("{fresh_tables:?}"), "{at}");
        assert_eq!(tabled_shape(&m), tabled_shape(fresh), "{at}");
        let verdicts =
            |m: &super::SlotModel| (m.symmetric.is_ok(), m.focus_sound.is_ok(), m.once.len());
        assert_eq!(verdicts(&m), verdicts(fresh), "{at}");
        if same_tables {
            assert_eq!(finished_shape(&m), finished_shape(fresh), "{at}");
        }
        true
    })
}

/// Bars between neighbours, read by the NACs over a neighbour, retable the rule file's
/// model: every line of a batch runs on it with those NACs' hubs tabled from its bars,
/// as it would on its own compilation, whether the file has bars of its own or not, and
/// whether a line gives both layers or one; a NAC whose relation holds both ways takes
/// its hubs as a compilation makes them.
#[test]
fn marks_read_by_nacs_retable_the_rule_files_model() {
    let rules = consecutive_4x4();
    let empty = ". ".repeat(16);
    let batch: String = CONSECUTIVE_BARS
        .iter()
        .map(|bars| format!("{empty}| {bars}\n"))
        .collect();
    let mirrored = super::retable::MIRRORED.get();
    let counts = assert_retabling_is_the_compilation(
        ("consecutive-4x4.graft", &rules),
        &batch,
        &[Expand::Focus],
        true,
    );
    assert_eq!(counts, (4, 0));
    // A bar is read from both its cells: each pair's two arcs decide symmetry, and the
    // verdicts are those of the whole check (`finished_shape`).
    assert!(super::retable::MIRRORED.get() >= mirrored + 4);
    // Every state of every order of placements, from givens.
    let givens = [
        "1 2 . . . 4 . . . . 4 . . . . 1",
        "2 . . 3 . 1 . . . . 3 . 1 . . .",
    ];
    let batch: String = givens
        .iter()
        .zip(CONSECUTIVE_BARS)
        .map(|(g, bars)| format!("{g} | {bars}\n"))
        .collect();
    let counts = assert_retabling_is_the_compilation(
        ("consecutive-4x4.graft", &rules),
        &batch,
        &[Expand::All, Expand::Focus],
        true,
    );
    assert_eq!(counts, (2, 0));
    let batch_4x4 = batch;
    // The file of `rules/` with its own bars and puzzle: lines with bars of their own, and
    // one without (every neighbour pair not consecutive), whose tables the file's come
    // before.
    let file = include_str!("../../../rules/consecutive-6x6.graft");
    let right = "0 1 0 0 1 0 1 0 0 0 0 0 0 0 1 0 1 0 0 0 1 0 0 0 1 0 0 0 0 0 0 1 0 0 1 0";
    let below = "0 0 1 0 0 1 0 1 0 0 1 0 1 0 0 0 0 0 0 1 0 1 0 0 0 0 0 1 0 0 0 0 0 0 0 0";
    let none = "0 ".repeat(36);
    let empty = ". ".repeat(36);
    let batch = format!(
        "{empty}| right: {right} | below: {below}\n{empty}| right: {none}| below: {none}\n{empty}| right: {below} | below: {right}\n{empty}| right: {right}\n"
    );
    let counts = assert_retabling_is_the_compilation(
        ("consecutive-6x6.graft", file),
        &batch,
        &[Expand::Focus],
        false,
    );
    assert_eq!(counts, (4, 0));
    // Neighbours in a row both ways, read through the bar of the cell placed: a relation
    // that holds both ways, whose hubs `add_hubs` makes.
    let both_ways = consecutive_4x4()
        .replace(
            "edge over: Cell -> Cell",
            "edge over: Cell -> Cell\nedge next: Cell -> Cell",
        )
        .replace(
            "layer right: right",
            "edges c -next-> d where d.row == c.row and abs(d.col - c.col) == 1\nlayer right: right",
        )
        .replace(
            "  set c.val = v",
            "  not { c -next-> d: Cell { val != none } where c.right == true and abs(d.val - v) == 2 }\n  set c.val = v",
        );
    let counts = assert_retabling_is_the_compilation(
        ("both-ways.graft", &both_ways),
        &batch_4x4,
        &[Expand::All, Expand::Focus],
        true,
    );
    assert_eq!(counts, (2, 0));
}

/// Marks that make a NAC hold with its witness empty, which a compilation refuses, are
/// compiled (and refused there); marks a NAC's structure or a NAC without a witness
/// reads, and layers that add nodes, that only the left side reads or that a group's
/// aggregates read, do not retable.
#[test]
fn layers_other_than_marks_read_by_table_nacs_do_not_retable() {
    // With a bar on its right, a cell's neighbour must be filled first.
    let text = consecutive_4x4().replace(
        "  set c.val = v",
        "  not { c -beside-> d: Cell where c.right == true and d.val == none and v == 4 }\n  set c.val = v",
    );
    let g = load_str("first-filled.graft", &text).expect("the rule file loads");
    let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
    let retabling = super::Retabling::of(&g, &model, &fixed).expect("the layers set marks");
    let retabled = |bars: &str| {
        let source =
            crate::diag::Source::new("batch.txt", format!("{} | {bars}\n", ". ".repeat(16)));
        let p = &crate::read_puzzles(&g, &source).expect("the batch reads")[0];
        let puzzle = crate::grammar::puzzle::PuzzleGrammar::new(&g, &p.layers);
        let marks = super::PuzzleMarks::of(&puzzle, retabling.positions()).expect("marks");
        let layered = g.with_layers(&p.layers);
        let refused = compile(&layered).is_err();
        (retabling.retabled(&model, &g, &marks).is_some(), refused)
    };
    assert_eq!(retabled(CONSECUTIVE_BARS[3]), (true, false));
    assert_eq!(retabled(CONSECUTIVE_BARS[0]), (false, true));
    // The all-different NAC with a mark in its structure: its matches differ by puzzle.
    let star = consecutive_4x4().replace(
        "d: Cell { val == v } }",
        "d: Cell { val == v } where c.right == none }",
    );
    assert_ne!(star, consecutive_4x4(), "the all-different NAC has changed");
    // Marks read by a NAC that compares no changing value: they narrow cells for good.
    let unwitnessed = consecutive_4x4().replace(
        "  set c.val = v",
        "  not { c -beside-> d: Cell where c.right == true and v == 4 }\n  set c.val = v",
    );
    for (name, text) in [
        ("star.graft", star),
        ("unwitnessed.graft", unwitnessed),
        ("even-odd.graft", even_odd_bare()),
        ("jigsaw-4x4.graft", jigsaw_bare()),
        ("killer-4x4.graft", KILLER_4X4.to_string()),
        ("skyscraper-4x4.graft", skyscraper_4x4("values 0..3")),
    ] {
        let g = load_str(name, &text).expect("the rule file loads");
        let (model, fixed) = super::compile_reusing(&g, None).expect("the rules fill slots");
        assert!(super::Retabling::of(&g, &model, &fixed).is_none(), "{name}");
    }
}

/// A set of values is judged alike from its folds, kept for every sum of a cage, as from
/// the values themselves: for every group of every puzzle of the killer batch and of the
/// rule files holding sums and counts, every set of the group's size from its domain.
#[test]
fn sets_are_judged_from_their_kept_folds_as_from_their_values() {
    use crate::slot::group::subsets;
    use crate::slot::mask::values_of;
    let files = [
        (
            "killer-4x4.graft",
            KILLER_4X4.to_string(),
            Some(KILLER_BATCH),
        ),
        (
            "killer-6x6.graft",
            include_str!("../../../rules/killer-6x6.graft").to_string(),
            None,
        ),
        (
            "kakuro-4x4.graft",
            include_str!("../../../rules/kakuro-4x4.graft").to_string(),
            None,
        ),
        (
            "margin-6x6.graft",
            include_str!("../../../rules/margin-6x6.graft").to_string(),
            None,
        ),
    ];
    let mut judged = 0;
    for (name, rules, batch) in files {
        let g = load_str(name, &rules).expect("the rule file loads");
        let mut models = vec![compile(&g).expect("it compiles")];
        if let Some(batch) = batch {
            let source = crate::diag::Source::new("batch.txt", batch.to_string());
            let puzzles = crate::read_puzzles(&g, &source).expect("the batch reads");
            for p in &puzzles {
                models.push(compile(&g.with_layers(&p.layers)).expect("it compiles"));
            }
        }
        for model in &models {
            for group in model.groups.iter().filter(|g| g.implied_by.is_empty()) {
                let nac = &model.group_nacs[group.nac as usize];
                let n = group.members.len();
                let domain =
                    (group.members.iter()).fold(0u128, |m, &s| m | model.allowed[s as usize]);
                for set in subsets(domain, n).expect("few sets") {
                    let values: Vec<u16> = values_of(set).map(u16::from).collect();
                    let folds = nac.folds_full(group, &values);
                    assert_eq!(
                        nac.allows_full_folded(group, &values, &folds),
                        nac.allows_full(group, &values),
                        "{name}: {values:?} in a group of {n}"
                    );
                    judged += 1;
                }
            }
        }
    }
    assert!(judged > 100, "{judged} sets judged");
}
