//! The JSON lines schema the README documents, pinned: each object's `type`, every field's
//! presence and JSON type (serde structs that refuse unknown fields), grids as rows of
//! value names, and `--count`, `check` and `heuristics` in JSON agreeing with their text.

use std::path::Path;

use serde::Deserialize;

use crate::support::{
    all_rule_files, data, fixture, grafter, parse_json, parse_results, rule, solve_json, temp_path,
    Json,
};

/// The summary's fields in the order they are written: scripts may rely on it (`grep`,
/// golden files), so it is pinned.
const SUMMARY_KEYS: [&str; 16] = [
    "type",
    "puzzle",
    "solutions",
    "states",
    "transitions",
    "dead_ends",
    "complete",
    "stop",
    "expand",
    "focus",
    "value",
    "attempts",
    "order",
    "engine",
    "fallback",
    "seconds",
];

/// The value names a rule file declares, from `grafter check --format json`.
fn value_names(file: &Path) -> Vec<String> {
    check_json(file).values
}

#[test]
fn a_solution_is_its_grid_as_rows_of_value_names() {
    for (name, rows, cols) in [
        ("sudoku-4x4-centre", 4, 4),
        ("sudoku-4x4-letters", 4, 4),
        ("sudoku-6x6", 6, 6),
        ("futoshiki-5x5", 5, 5),
    ] {
        let file = rule(name);
        let names = value_names(&file);
        let run = grafter([
            "solve".as_ref(),
            file.as_os_str(),
            "--format".as_ref(),
            "json".as_ref(),
            "--max-solutions".as_ref(),
            "3".as_ref(),
        ]);
        let puzzles = parse_results(&run.stdout).unwrap_or_else(|e| panic!("{name}: {e}"));
        let solutions = &puzzles[0].solutions;
        assert!(!solutions.is_empty(), "{name}: no solution");
        for s in solutions {
            assert_eq!(s.kind, "solution");
            assert!(s.nodes.is_none(), "{name}: nodes beside a grid");
            let grid = s.grid.as_ref().expect("a grid");
            assert_eq!(grid.len(), rows, "{name}: rows");
            for row in grid {
                assert_eq!(row.len(), cols, "{name}: a row's cells");
                for cell in row {
                    let cell = cell.as_deref().expect("a rectangle has no holes");
                    assert!(
                        names.iter().any(|n| n == cell),
                        "{name}: {cell:?} not a value"
                    );
                }
            }
        }
        // The line itself: compact, `type` first, the grid as serde writes the rows (so the
        // format is pinned without pinning which solution comes first).
        let first = run.stdout.lines().next().expect("a first line");
        let grid = serde_json::to_string(&solutions[0].grid).unwrap();
        assert_eq!(
            first,
            format!(r#"{{"type":"solution","puzzle":1,"solution":1,"grid":{grid}}}"#),
            "{name}"
        );
    }
}

#[test]
fn values_of_several_characters_stay_whole_in_the_rows() {
    // Ten cells of one row take 1..10 once each: "10" is one cell.
    let text = "values 1..10
node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group
grid 1x10 of Cell
groups rows
rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}
final: not { c: Cell { val == none } }
";
    let file = temp_path("ten-values", "graft");
    let puzzles = temp_path("ten-values", "txt");
    std::fs::write(&file, text).unwrap();
    std::fs::write(&puzzles, "1 2 3 4 5 6 7 8 . .\n").unwrap();
    let found = solve_json(&file, Some(&puzzles), &[]);
    let mut rows: Vec<Vec<Option<String>>> = found[0]
        .solutions
        .iter()
        .flat_map(|s| s.grid.clone().expect("a grid"))
        .collect();
    rows.sort();
    let row = |last: [&str; 2]| -> Vec<Option<String>> {
        ["1", "2", "3", "4", "5", "6", "7", "8", last[0], last[1]]
            .iter()
            .map(|c| Some(c.to_string()))
            .collect()
    };
    // The two ways to finish the row, each a grid of one row.
    assert_eq!(rows, [row(["10", "9"]), row(["9", "10"])]);
    for f in [file, puzzles] {
        std::fs::remove_file(f).ok();
    }
}

#[test]
fn a_file_without_a_grid_lists_its_nodes() {
    let file = fixture("canon/created-trees.graft");
    let run = grafter([
        "solve".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
        "--max-solutions".as_ref(),
        "2".as_ref(),
    ]);
    run.expect_code(3);
    let puzzles = parse_results(&run.stdout).unwrap();
    assert_eq!(puzzles[0].solutions.len(), 2);
    for s in &puzzles[0].solutions {
        assert!(s.grid.is_none());
        let nodes = s.nodes.as_ref().expect("nodes");
        assert!(nodes.iter().any(|n| n.starts_with("a: Cell")), "{nodes:?}");
        assert!(nodes.iter().all(|n| n.contains(": ")), "{nodes:?}");
    }
    let stop = puzzles[0].summary.get("stop").and_then(Json::as_str);
    assert_eq!(stop, Some("max-solutions"));
}

#[test]
fn the_summary_keeps_its_fields_in_order() {
    let run = grafter([
        "solve".as_ref(),
        rule("sudoku-4x4-centre").as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    run.ok();
    let last = run.stdout.lines().last().expect("a summary");
    let at: Vec<usize> = SUMMARY_KEYS
        .iter()
        .map(|k| {
            last.find(&format!("\"{k}\":"))
                .unwrap_or_else(|| panic!("no {k}: {last}"))
        })
        .collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{last}");
    let keys = match parse_json(last).unwrap() {
        Json::Object(m) => m.len(),
        other => panic!("not an object: {other}"),
    };
    assert_eq!(keys, SUMMARY_KEYS.len(), "{last}");
}

/// `--count --format json`: no solution lines, one summary per puzzle, the same summary as
/// a full run's (but for its time), and the counts `--count` prints.
#[test]
fn count_in_json_gives_each_puzzle_its_summary_alone() {
    let file = rule("sudoku-4x4-centre");
    let puzzles = data("variants/4x4-centre.txt");
    let args = |extra: &[&'static str]| -> Vec<std::ffi::OsString> {
        let mut a = vec![
            "solve".into(),
            file.clone().into_os_string(),
            "--puzzles".into(),
            puzzles.clone().into_os_string(),
        ];
        a.extend(extra.iter().map(|&e| e.into()));
        a
    };
    let counted = grafter(args(&["--count", "--format", "json"]));
    counted.ok();
    let full = grafter(args(&["--format", "json"]));
    full.ok();
    let text = grafter(args(&["--count"]));
    text.ok();
    let counted = counted.summaries();
    let full = full.puzzles();
    assert!(counted.len() > 10);
    assert_eq!(counted.len(), full.len());
    assert_eq!(counted.len(), text.counts().len());
    for ((c, f), n) in counted.iter().zip(&full).zip(text.counts()) {
        let without_time = |j: &Json| {
            let mut j = j.clone();
            j.as_object_mut().expect("an object").remove("seconds");
            j
        };
        assert_eq!(without_time(&c.summary), without_time(&f.summary));
        assert_eq!(c.stat("solutions"), n);
    }
}

/// `grafter check --format json`: one `"type":"check"` object.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckLine {
    #[serde(rename = "type")]
    kind: String,
    file: String,
    values: Vec<String>,
    nodes: Vec<NodeType>,
    edges: Vec<EdgeLabel>,
    #[serde(deserialize_with = "Option::deserialize")]
    grid: Option<GridShape>,
    rules: Vec<RuleShape>,
    #[serde(rename = "final")]
    final_cond: String,
    engine: EngineFacts,
    slot_filling: Fact,
    monotone: Fact,
    expand_focus: FocusFact,
    warnings: Vec<Warning>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Warning {
    line: usize,
    col: usize,
    message: String,
    help: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NodeType {
    name: String,
    #[serde(deserialize_with = "Option::deserialize")]
    parent: Option<String>,
    count: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EdgeLabel {
    label: String,
    source: String,
    target: String,
    count: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GridShape {
    rows: u64,
    cols: u64,
    cells: u64,
    holes: u64,
    givens: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleShape {
    name: String,
    nodes: u64,
    nacs: u64,
    effects: u64,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct EngineFacts {
    name: String,
    #[serde(deserialize_with = "Option::deserialize")]
    slots: Option<u64>,
    #[serde(deserialize_with = "Option::deserialize")]
    nac_indexes: Option<u64>,
    #[serde(deserialize_with = "Option::deserialize")]
    exactly_once_groups: Option<u64>,
    #[serde(deserialize_with = "Option::deserialize")]
    puzzle_lines: Option<String>,
    #[serde(deserialize_with = "Option::deserialize")]
    refusal: Option<Place>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fact {
    holds: bool,
    #[serde(deserialize_with = "Option::deserialize")]
    refusal: Option<Place>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FocusFact {
    sound: bool,
    #[serde(deserialize_with = "Option::deserialize")]
    fallback: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Place {
    line: u64,
    col: u64,
    reason: String,
    located: String,
}

fn check_json(file: &Path) -> CheckLine {
    let run = grafter([
        "check".as_ref(),
        file.as_os_str(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    run.ok();
    assert_eq!(run.stdout.lines().count(), 1, "one line: {}", run.stdout);
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", file.display(), run.stdout))
}

/// A refusal's `located` text names its own file, line and column, and ends in its reason.
fn check_place(file: &str, p: &Place) {
    assert!(
        p.located
            .starts_with(&format!("{file}:{}:{}: ", p.line, p.col)),
        "{p:?}"
    );
    assert!(p.located.ends_with(&p.reason), "{p:?}");
}

/// Every fact of `check --format json` is the one the text states, for every rule file
/// and for the files that run on whole graphs.
#[test]
fn check_in_json_states_what_the_text_states() {
    let mut files = all_rule_files();
    let not_slot = fixture("not-slot");
    for entry in std::fs::read_dir(&not_slot).unwrap() {
        files.push(entry.unwrap().path());
    }
    files.sort();
    let mut graphs = 0;
    let mut ways: std::collections::BTreeMap<String, usize> = Default::default();
    for file in files {
        let name = file.display().to_string();
        let j = check_json(&file);
        let text = grafter(["check".as_ref(), file.as_os_str()]);
        text.ok();
        let t = &text.stdout;
        let has = |line: &str| {
            assert!(
                t.lines().any(|l| l == line),
                "{name}: no line {line:?}:\n{t}"
            )
        };
        assert_eq!(j.kind, "check");
        assert_eq!(j.file, name);
        has(&format!("{name}: ok"));
        assert!(
            t.contains(&format!("({})\n", j.values.len())),
            "{name}: values"
        );
        for n in &j.nodes {
            let parent = n
                .parent
                .as_ref()
                .map(|p| format!(" : {p}"))
                .unwrap_or_default();
            has(&format!("node {}{parent}: {} nodes", n.name, n.count));
        }
        for e in &j.edges {
            has(&format!(
                "edge {}: {} -> {}: {} edges",
                e.label, e.source, e.target, e.count
            ));
        }
        match &j.grid {
            Some(g) => {
                assert_eq!(
                    g.cells + g.holes,
                    g.rows * g.cols,
                    "{name}: cells and holes"
                );
                let holes = if g.holes > 0 {
                    format!(", {} cells, {} holes", g.cells, g.holes)
                } else {
                    String::new()
                };
                has(&format!(
                    "grid: {}x{} ({} givens{holes})",
                    g.rows, g.cols, g.givens
                ))
            }
            None => assert!(!t.contains("\ngrid: "), "{name}"),
        }
        for r in &j.rules {
            has(&format!(
                "rule {}: {} nodes, {} NACs, {} effects",
                r.name, r.nodes, r.nacs, r.effects
            ));
        }
        match j.final_cond.as_str() {
            "declared" => has("final: as declared"),
            "stuck" => has("final: no rule applies"),
            other => panic!("{name}: final {other:?}"),
        }
        let e = &j.engine;
        match e.name.as_str() {
            "slot" => {
                assert!(e.refusal.is_none(), "{name}");
                has(&format!(
                    "engine: slot ({} slots, {} NAC indexes, {} exactly-once groups)",
                    e.slots.expect("slots"),
                    e.nac_indexes.expect("NAC indexes"),
                    e.exactly_once_groups.expect("groups")
                ));
                // How layered puzzle lines run: said for a file with layers only.
                let layered = t.lines().any(|l| l.starts_with("layer "));
                let said = t.lines().find(|l| l.starts_with("puzzle lines: "));
                match e.puzzle_lines.as_deref() {
                    Some(how) => {
                        assert!(layered && said.is_some(), "{name}: {how}");
                        *ways.entry(how.to_string()).or_default() += 1;
                    }
                    None => assert!(!layered && said.is_none(), "{name}"),
                }
            }
            "graph" => {
                graphs += 1;
                assert!(e.slots.is_none() && e.nac_indexes.is_none(), "{name}");
                let p = e.refusal.as_ref().expect("why not slot");
                check_place(&name, p);
                has(&format!("engine: graph (not slot-filling: {})", p.located));
            }
            other => panic!("{name}: engine {other:?}"),
        }
        for (label, fact) in [
            ("slot-filling rule shapes", &j.slot_filling),
            ("monotone", &j.monotone),
        ] {
            assert_eq!(fact.holds, fact.refusal.is_none(), "{name}: {label}");
            match &fact.refusal {
                None => has(&format!("{label}: yes")),
                Some(p) => {
                    check_place(&name, p);
                    has(&format!("{label}: no ({})", p.located));
                }
            }
        }
        // Each warning is the one stderr shows, at its place.
        for w in &j.warnings {
            let at = format!("{name}:{}:{}: warning: {}", w.line, w.col, w.message);
            assert!(text.stderr.lines().any(|l| l == at), "{name}: no {at:?}");
            for h in &w.help {
                assert!(
                    text.stderr.contains(&format!("= help: {h}\n")),
                    "{name}: {h}"
                );
            }
        }
        assert_eq!(
            j.warnings.len(),
            text.stderr.matches(": warning: ").count(),
            "{name}"
        );
        let f = &j.expand_focus;
        assert_eq!(f.sound, f.fallback.is_none(), "{name}");
        match &f.fallback {
            None => has("expand focus: sound"),
            Some(why) => has(&format!("expand focus: falls back to all: {why}")),
        }
    }
    assert!(graphs >= 10, "whole-graph files: {graphs}");
    // Even/odd marks narrow, jigsaw regions regroup, consecutive bars retable, killer
    // cages compile.
    let ways: Vec<&str> = ways.keys().map(String::as_str).collect();
    assert_eq!(ways, ["compiled", "narrowed", "regrouped", "retabled"]);
}

/// `grafter heuristics --format json`: one `"type":"heuristics"` object.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeuristicsLine {
    #[serde(rename = "type")]
    kind: String,
    file: String,
    puzzles_file: String,
    puzzles: u64,
    #[serde(deserialize_with = "Option::deserialize")]
    fallback: Option<String>,
    rows: Vec<HeuristicRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HeuristicRow {
    name: String,
    seeds: String,
    flags: String,
    puzzles: u64,
    solved: u64,
    rejected: u64,
    percent: f64,
    mean_seconds: f64,
    attempts_per_puzzle: f64,
}

/// The rows of the text table's test (`the_heuristics_command_prints_the_seeds_table`),
/// read from JSON: DSatur solves 32 of the 40 4x4 puzzles, exact search all of them.
#[test]
fn heuristics_in_json_give_a_row_per_heuristic() {
    let file = rule("sudoku-4x4");
    let path = data("variants/4x4.txt");
    let run = grafter([
        "heuristics".as_ref(),
        file.as_os_str(),
        "--puzzles".as_ref(),
        path.as_os_str(),
        "--restarts".as_ref(),
        "100".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    run.ok();
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    let h: HeuristicsLine = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(h.kind, "heuristics");
    assert_eq!(h.file, file.display().to_string());
    assert_eq!(h.puzzles_file, path.display().to_string());
    assert_eq!(h.puzzles, 40);
    assert_eq!(h.fallback, None);
    let names: Vec<&str> = h.rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "DSatur",
            "fewest options first",
            "Welsh–Powell",
            "largest degree first",
            "SaturBFS",
            "BFS",
            "DFS",
            "exact search"
        ]
    );
    for r in &h.rows {
        assert_eq!(r.puzzles, 40, "{r:?}");
        assert_eq!(r.rejected, 0, "{r:?}");
        assert!(r.solved <= r.puzzles, "{r:?}");
        let percent = 100.0 * r.solved as f64 / r.puzzles as f64;
        assert!((r.percent - percent).abs() < 1e-3, "{r:?}");
        assert!(r.mean_seconds > 0.0 && r.mean_seconds < 1.0, "{r:?}");
        assert!(r.attempts_per_puzzle >= 1.0, "{r:?}");
        assert!(!r.seeds.is_empty(), "{r:?}");
        if r.name != "exact search" {
            assert!(r.flags.starts_with("--order linear"), "{r:?}");
        }
    }
    assert_eq!(h.rows[0].solved, 32);
    assert_eq!(h.rows[7].solved, 40);
    // Markdown is a text table: asking for both is a usage error.
    let both = grafter([
        "heuristics".as_ref(),
        file.as_os_str(),
        "--puzzles".as_ref(),
        path.as_os_str(),
        "--markdown".as_ref(),
        "--format".as_ref(),
        "json".as_ref(),
    ]);
    both.expect_code(2);
}
