//! Per-puzzle layers: batches whose lines carry their own regions, marks, cages and lines,
//! counted against the brute-force enumerator reading the same lines independently, every
//! solution checked, on both engines and on one and two threads; `grafter expand` of one
//! puzzle; and one fixture per diagnostic of a bad section.

use std::path::{Path, PathBuf};

use crate::brute;
use crate::checker::check_all;
use crate::diagnostics::assert_diagnostic;
use crate::support::{count, fixture, grafter, rule, solve_json, temp_path};
use crate::variant::{rule_file, Variant, EVEN_ODD_6X6, JIGSAW_4X4, JIGSAW_6X6};

/// One puzzle line read without grafter: the givens and each section's text by name.
struct Line {
    givens: String,
    sections: Vec<(String, String)>,
}

impl Line {
    /// The text of section `name`, if the line has it.
    fn section(&self, name: &str) -> Option<&str> {
        self.sections
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, t)| t.as_str())
    }

    /// Section `name` one character per cell, blanks dropped (`.` per cell when absent).
    fn chars(&self, name: &str, cells: usize) -> String {
        match self.section(name) {
            Some(t) => t.chars().filter(|c| !c.is_whitespace()).collect(),
            None => ".".repeat(cells),
        }
    }
}

/// The puzzle lines of a layered file: blank lines and `#` lines skipped, `# comment`
/// dropped, sections split at `|` and their names at `:`.
fn read_lines(path: &Path) -> Vec<Line> {
    let text = std::fs::read_to_string(path).expect("a puzzle file");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let l = l.split('#').next().unwrap_or("");
            let mut parts = l.split('|');
            let givens = parts
                .next()
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            let sections = parts
                .map(|p| {
                    let (name, rest) = p.split_once(':').expect("NAME: tokens");
                    (name.trim().to_string(), rest.trim().to_string())
                })
                .collect();
            Line { givens, sections }
        })
        .collect()
}

/// Rows of `n` characters from a string of `n * n`.
fn rows(text: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    assert_eq!(chars.len(), n * n, "{text:?}");
    chars.chunks(n).map(|r| r.iter().collect()).collect()
}

fn jigsaw(n: usize, line: &Line) -> Variant {
    let layout = rows(&line.chars("region", n * n), n);
    let layout: Vec<&str> = layout.iter().map(String::as_str).collect();
    Variant::latin(n, Variant::digits(n)).with_regions(&layout)
}

fn even_odd(line: &Line) -> Variant {
    Variant::sudoku(6, 2, 3, Variant::digits(6)).with_parity(&line.chars("parity", 36))
}

/// Cages (one letter per cell) with a total at one of their cells.
fn domino_sums(line: &Line) -> Variant {
    let mut v = Variant::sudoku(4, 2, 2, Variant::digits(4));
    let cages: Vec<char> = line.chars("cages", 16).chars().collect();
    let sums: Vec<&str> = line
        .section("sums")
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let mut letters: Vec<char> = cages.iter().copied().filter(|&c| c != '.').collect();
    letters.sort();
    letters.dedup();
    for letter in letters {
        let cells: Vec<usize> = (0..16).filter(|&i| cages[i] == letter).collect();
        let total = cells
            .iter()
            .find_map(|&i| sums.get(i).and_then(|s| s.parse().ok()))
            .expect("every cage of the test data has a sum");
        v = v.with_sum(cells, total);
    }
    v
}

/// Thermometers: cell names from the bulb, lines separated by commas.
fn thermo(line: &Line) -> Variant {
    let mut v = Variant::sudoku(4, 2, 2, Variant::digits(4));
    for t in line.section("thermos").unwrap_or("").split(',') {
        let cells: Vec<usize> = t
            .split_whitespace()
            .map(|name| {
                let (r, c) = name[1..].split_once('c').expect("rRcC");
                v.at(r.parse().unwrap(), c.parse().unwrap())
            })
            .collect();
        v = v.with_rising(&cells);
    }
    v
}

/// Killer cages (one letter per cell) with their sums at one of their cells: a cage's
/// values differ and add up to its sum.
fn killer(line: &Line) -> Variant {
    let mut v = domino_sums(line);
    for (cells, _) in v.sums.clone() {
        v = v.with_group(cells);
    }
    v
}

/// Solves a layered batch with `rules` and checks each puzzle's count against the brute
/// force over the variant `variant` reads from its line, on both engines, and every
/// solution against the checker. Returns the counts.
fn assert_batch(rules: &Path, puzzles: &Path, variant: impl Fn(&Line) -> Variant) -> Vec<u64> {
    let lines = read_lines(puzzles);
    let variants: Vec<Variant> = lines.iter().map(&variant).collect();
    let expected: Vec<u64> = lines
        .iter()
        .zip(&variants)
        .map(|(l, v)| brute::count(v, &v.parse_givens(&l.givens)))
        .collect();
    assert_eq!(
        count(rules, Some(puzzles), &[]),
        expected,
        "{}",
        puzzles.display()
    );
    assert_eq!(
        count(rules, Some(puzzles), &["--engine", "graph"]),
        expected,
        "{} on whole graphs",
        puzzles.display()
    );
    let solved = solve_json(rules, Some(puzzles), &[]);
    assert_eq!(solved.len(), lines.len());
    for ((p, line), v) in solved.iter().zip(&lines).zip(&variants) {
        assert_eq!(p.grids.len() as u64, p.stat("solutions"));
        check_all(v, &v.parse_givens(&line.givens), &p.grids)
            .unwrap_or_else(|e| panic!("{} puzzle {}: {e}", puzzles.display(), p.number));
    }
    expected
}

fn layers(name: &str) -> PathBuf {
    fixture(&format!("layers/{name}"))
}

#[test]
fn jigsaw_batches_with_regions_per_line_count_as_the_brute_force_does() {
    let four = assert_batch(&rule("jigsaw-4x4"), &layers("jigsaw-4x4.txt"), |l| {
        jigsaw(4, l)
    });
    let six = assert_batch(&rule("jigsaw-6x6"), &layers("jigsaw-6x6.txt"), |l| {
        jigsaw(6, l)
    });
    // The regions matter: the same givens without them (a Latin square) have more.
    assert_eq!((four.len(), six.len()), (10, 10));
    let lines = read_lines(&layers("jigsaw-6x6.txt"));
    let latin = Variant::latin(6, Variant::digits(6));
    let first = brute::count(&latin, &latin.parse_givens(&lines[0].givens));
    assert!(first > six[0], "{first} vs {}", six[0]);
}

#[test]
fn even_odd_marks_per_line_count_as_the_brute_force_does() {
    let counts = assert_batch(&rule("even-odd-6x6"), &layers("even-odd-6x6.txt"), even_odd);
    assert_eq!(counts.len(), 10);
}

/// The same batch with a rule file that has no marks of its own: each line's marks only
/// take values away, so each puzzle runs on the file's own engine, its candidates narrowed.
#[test]
fn even_odd_marks_on_a_file_without_its_own_count_as_the_brute_force_does() {
    let text = std::fs::read_to_string(rule("even-odd-6x6")).expect("the rule file");
    let (head, rest) = text
        .split_once("layer parity: parity = {")
        .expect("its marks");
    let (_, tail) = rest.split_once("\n}\n").expect("their end");
    let (tail, puzzle) = tail.split_once("start {").expect("its puzzle");
    let (_, rules) = puzzle.split_once("\n}\n").expect("its end");
    let bare = temp_path("even-odd-bare", "graft");
    std::fs::write(&bare, format!("{head}layer parity: parity\n{tail}{rules}")).unwrap();
    let counts = assert_batch(&bare, &layers("even-odd-6x6.txt"), even_odd);
    assert_eq!(counts.len(), 10);
    std::fs::remove_file(bare).ok();
}

#[test]
fn cage_sums_as_an_attribute_of_region_nodes_count_as_the_brute_force_does() {
    let counts = assert_batch(
        &layers("domino-sums-4x4.graft"),
        &layers("domino-sums-4x4.txt"),
        domino_sums,
    );
    assert!(counts.contains(&1) && counts.iter().any(|&c| c > 1));
}

#[test]
fn lines_of_cells_count_as_the_brute_force_does() {
    let counts = assert_batch(
        &layers("thermo-4x4.graft"),
        &layers("thermo-4x4.txt"),
        thermo,
    );
    assert_eq!(counts.len(), 10);
}

#[test]
fn killer_cages_and_sums_per_line_count_as_the_brute_force_does() {
    let counts = assert_batch(&rule("killer-4x4"), &layers("killer-4x4.txt"), killer);
    assert!(counts.contains(&1) && counts.iter().any(|&c| c > 1));
    // The file's own puzzle: its cages and sums are its layers' content.
    let line = Line {
        givens: ".".repeat(16),
        sections: vec![
            ("cages".into(), "aabb aacb dcce ddfe".into()),
            ("sums".into(), "10 . 8 . . . 9 . 7 . . 5 . . 1 .".into()),
        ],
    };
    let v = killer(&line);
    let own = brute::count(&v, &v.parse_givens(&line.givens));
    assert_eq!(count(&rule("killer-4x4"), None, &[]), vec![own]);
}

/// A batch whose lines have different cages compiles the rows, columns and boxes once
/// and each line's cages anew: each puzzle's count in the batch is the count of that
/// puzzle solved alone, and the brute force's, on one thread and on two.
#[test]
fn each_puzzle_of_a_killer_batch_counts_as_it_does_alone() {
    let puzzles = layers("killer-4x4.txt");
    let lines: Vec<String> = std::fs::read_to_string(&puzzles)
        .expect("the fixture reads")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let cages: std::collections::BTreeSet<&str> =
        lines.iter().filter_map(|l| l.split('|').nth(1)).collect();
    assert!(cages.len() > 1, "the batch has different cage layouts");
    let expected: Vec<u64> = read_lines(&puzzles)
        .iter()
        .map(|l| {
            let v = killer(l);
            brute::count(&v, &v.parse_givens(&l.givens))
        })
        .collect();
    let alone: Vec<u64> = lines
        .iter()
        .map(|line| {
            let path = temp_path("killer-alone", "txt");
            std::fs::write(&path, format!("{line}\n")).expect("a temporary file");
            let counts = count(&rule("killer-4x4"), Some(&path), &[]);
            let _ = std::fs::remove_file(&path);
            assert_eq!(counts.len(), 1, "{line}");
            counts[0]
        })
        .collect();
    assert_eq!(alone, expected);
    for threads in ["1", "2"] {
        let batch = count(&rule("killer-4x4"), Some(&puzzles), &["--threads", threads]);
        assert_eq!(batch, alone, "on {threads} thread(s)");
    }
}

/// A rule file's own layer content is its own puzzle's, and what the tests' descriptions
/// say, read from the file's text.
#[test]
fn a_rule_files_own_layer_content_is_read_from_its_text() {
    let content = |name: &str, layer: &str| -> String {
        let text = std::fs::read_to_string(rule(name)).unwrap();
        let at = text
            .find(&format!("layer {layer}:"))
            .expect("the layer's declaration");
        let body = &text[at..];
        let open = body.find('{').unwrap() + 1;
        let close = body.find('}').unwrap();
        body[open..close]
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<String>()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    assert_eq!(content("jigsaw-4x4", "region"), JIGSAW_4X4.concat());
    assert_eq!(content("jigsaw-6x6", "region"), JIGSAW_6X6.concat());
    let marks: String = EVEN_ODD_6X6.split_whitespace().collect();
    assert_eq!(content("even-odd-6x6", "parity"), marks);
    // A puzzle line's layers replace the file's own: a line without sections has no
    // regions (a Latin square), as a line without givens has none of `start`'s.
    let puzzles = temp_path("jigsaw-own", "txt");
    std::fs::write(&puzzles, ".....1.32.......\n").unwrap();
    let latin = Variant::latin(4, Variant::digits(4));
    let free = brute::count(&latin, &latin.parse_givens(".....1.32......."));
    let rf = rule_file("jigsaw-4x4");
    let own = brute::count(&rf.variant, &rf.variant.parse_givens(".....1.32......."));
    assert_eq!(count(&rule("jigsaw-4x4"), Some(&puzzles), &[]), vec![free]);
    assert_eq!(count(&rule("jigsaw-4x4"), None, &[]), vec![own]);
    assert!(free > own);
    std::fs::remove_file(puzzles).ok();
}

#[test]
fn a_layered_batch_prints_the_same_on_one_thread_and_on_two() {
    for (rules, puzzles) in [
        (rule("jigsaw-6x6"), layers("jigsaw-6x6.txt")),
        (rule("even-odd-6x6"), layers("even-odd-6x6.txt")),
        (layers("thermo-4x4.graft"), layers("thermo-4x4.txt")),
    ] {
        for format in ["text", "json"] {
            let run = |threads: &str| {
                let run = grafter([
                    "solve".as_ref(),
                    rules.as_os_str(),
                    "--puzzles".as_ref(),
                    puzzles.as_os_str(),
                    "--format".as_ref(),
                    format.as_ref(),
                    "--threads".as_ref(),
                    threads.as_ref(),
                ]);
                run.ok();
                // Times differ from run to run; everything else must not.
                run.stdout
                    .lines()
                    .map(|l| {
                        let cut = l.find(",\"seconds\"").or_else(|| l.find("time:"));
                        l[..cut.unwrap_or(l.len())].to_string()
                    })
                    .collect::<Vec<_>>()
            };
            let one = run("1");
            assert!(one.len() > 20, "{}", puzzles.display());
            assert_eq!(one, run("2"), "{} --format {format}", puzzles.display());
        }
    }
}

/// `grafter expand --puzzles F --puzzle N` prints that puzzle's start graph as a rule
/// file: its regions as plain nodes and edges, its givens as the start block; solving the
/// printed file gives the puzzle's count.
#[test]
fn expand_prints_one_puzzles_graph_with_its_layers() {
    let puzzles = layers("jigsaw-4x4.txt");
    let lines = read_lines(&puzzles);
    let counts = count(&rule("jigsaw-4x4"), Some(&puzzles), &[]);
    for n in [1, 4, 10] {
        let run = grafter([
            "expand".as_ref(),
            rule("jigsaw-4x4").as_os_str(),
            "--puzzles".as_ref(),
            puzzles.as_os_str(),
            "--puzzle".as_ref(),
            n.to_string().as_ref(),
        ]);
        run.ok();
        assert!(!run.stdout.contains("layer "), "layers are expanded");
        // The region of r1c1 is its letter in the line, as a plain node and edge.
        let letter = lines[n - 1].chars("region", 16).chars().next().unwrap();
        assert!(run.stdout.contains(&format!("region_{letter}: Group")));
        assert!(run.stdout.contains(&format!("r1c1 -in-> region_{letter}")));
        let printed = temp_path("expand-layers", "graft");
        std::fs::write(&printed, &run.stdout).unwrap();
        assert_eq!(
            count(&printed, None, &[]),
            vec![counts[n - 1]],
            "puzzle {n}"
        );
        std::fs::remove_file(printed).ok();
    }
    let run = grafter([
        "expand".as_ref(),
        rule("jigsaw-4x4").as_os_str(),
        "--puzzles".as_ref(),
        puzzles.as_os_str(),
        "--puzzle".as_ref(),
        "11".as_ref(),
    ]);
    run.expect_code(2);
    assert!(
        run.stderr
            .contains("has 10 puzzles, expected a number from 1 to 10"),
        "{}",
        run.stderr
    );
}

/// `grafter heuristics` runs one compiled grammar over every puzzle, so it refuses layers
/// rather than ignore them.
#[test]
fn heuristics_refuse_puzzles_with_layers() {
    let run = grafter([
        "heuristics".as_ref(),
        rule("jigsaw-4x4").as_os_str(),
        "--puzzles".as_ref(),
        layers("jigsaw-4x4.txt").as_os_str(),
        "--restarts".as_ref(),
        "1".as_ref(),
    ]);
    run.expect_code(1);
    assert!(
        run.stderr
            .contains("jigsaw-4x4.txt:3:1: error: puzzle 1 carries layers"),
        "{}",
        run.stderr
    );
}

const BAD: &str = "tests/fixtures/bad/layers";

fn solve_bad(rules: &str, puzzles: &str) -> (String, crate::support::Run) {
    let file = format!("{BAD}/{puzzles}");
    let run = grafter(["solve", rules, "--puzzles", &file, "--count"]);
    (file, run)
}

#[test]
fn an_unknown_layer_is_named_with_the_declared_ones() {
    let (f, run) = solve_bad("rules/jigsaw-4x4.graft", "unknown-layer.txt");
    assert_diagnostic(&run, &f, 3, 20, &["unknown layer `regions`"]);
    assert!(
        run.stderr.contains("note: the rule file declares `region`"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_section_with_the_wrong_number_of_tokens() {
    let (f, run) = solve_bad("rules/jigsaw-4x4.graft", "wrong-count.txt");
    assert_diagnostic(
        &run,
        &f,
        2,
        28,
        &["has 4 words of 15 characters, expected 16 tokens"],
    );
}

#[test]
fn a_token_that_names_no_region() {
    let (f, run) = solve_bad("rules/jigsaw-4x4.graft", "bad-token.txt");
    assert_diagnostic(&run, &f, 2, 40, &["unexpected `-` in layer `region`"]);
}

#[test]
fn a_token_that_is_not_a_number() {
    let (f, run) = solve_bad("rules/even-odd-6x6.graft", "bad-number.txt");
    assert_diagnostic(
        &run,
        &f,
        2,
        118,
        &["unexpected `even`", "expected a number or `.`"],
    );
}

#[test]
fn a_region_sum_at_a_cell_in_no_region() {
    let (f, run) = solve_bad(
        "tests/fixtures/layers/domino-sums-4x4.graft",
        "sum-outside.txt",
    );
    assert_diagnostic(
        &run,
        &f,
        2,
        85,
        &["sets a value at r4c4, which is in no region of layer `cages`"],
    );
}

#[test]
fn a_line_through_a_cell_outside_the_grid() {
    let (f, run) = solve_bad("tests/fixtures/layers/thermo-4x4.graft", "unknown-cell.txt");
    assert_diagnostic(&run, &f, 2, 50, &["unknown cell `r5c4`", "(r1c1 .. r4c4)"]);
}
