//! Solution counts: the reference counts of data/README.md, every line of every data file,
//! and each rule file's own start block.

use std::path::Path;

use crate::brute;
use crate::support::{count, data, external_data, fixture, puzzle_lines, rule};
use crate::variant::{rule_file, rule_files, start_givens};

#[test]
fn empty_4x4_sudoku_has_288_solutions() {
    assert_eq!(
        count(
            &rule("sudoku-4x4"),
            Some(&fixture("puzzles/empty-4x4.txt")),
            &[]
        ),
        vec![288]
    );
}

#[test]
fn empty_4x4_sudoku_with_centre_group_has_168_solutions() {
    assert_eq!(
        count(
            &rule("sudoku-4x4-centre"),
            Some(&fixture("puzzles/empty-4x4.txt")),
            &[]
        ),
        vec![168]
    );
}

#[test]
fn empty_4x4_latin_square_has_576_solutions() {
    assert_eq!(
        count(
            &rule("latin-4x4"),
            Some(&fixture("puzzles/empty-4x4.txt")),
            &[]
        ),
        vec![576]
    );
}

#[test]
fn empty_4x4_x_sudoku_has_48_solutions() {
    assert_eq!(count(&fixture("x-sudoku-4x4.graft"), None, &[]), vec![48]);
}

#[test]
fn empty_6x6_x_sudoku_has_8640_solutions() {
    assert_eq!(count(&fixture("x-sudoku-6x6.graft"), None, &[]), vec![8640]);
}

#[test]
fn sudoku_6x6_with_first_row_given_has_39168_solutions() {
    assert_eq!(
        count(
            &rule("sudoku-6x6"),
            Some(&fixture("puzzles/6x6-first-row.txt")),
            &[]
        ),
        vec![39_168]
    );
}

#[test]
fn multi_has_12690_and_477462_solutions() {
    assert_eq!(
        count(&rule("sudoku-9x9"), Some(&data("sudoku9/multi.txt")), &[]),
        vec![12_690, 477_462]
    );
}

/// Counts every puzzle of a data file with the rule file and compares line by line with the
/// count written after each puzzle (1 for files of unique puzzles, which carry none).
fn assert_file_counts(rules: &str, file: &str) {
    let lines = puzzle_lines(&data(file));
    assert!(!lines.is_empty(), "{file} has puzzles");
    assert_path_counts(rules, &data(file), lines.len());
}

/// [`assert_file_counts`] for a puzzle file anywhere, which must hold `puzzles` puzzles.
fn assert_path_counts(rules: &str, path: &Path, puzzles: usize) {
    let file = path.display();
    let lines = puzzle_lines(path);
    assert_eq!(lines.len(), puzzles, "{file}: number of puzzles");
    let expected: Vec<u64> = lines.iter().map(|(_, n)| n.unwrap_or(1)).collect();
    let got = count(&rule(rules), Some(path), &[]);
    assert_eq!(
        got.len(),
        expected.len(),
        "{file}: one count line per puzzle"
    );
    for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
        assert_eq!(
            g,
            e,
            "{file} puzzle {} ({}): grafter counts {g}, the data say {e}",
            i + 1,
            lines[i].0
        );
    }
}

#[test]
fn variants_4x4() {
    assert_file_counts("sudoku-4x4", "variants/4x4.txt");
}

#[test]
fn variants_4x4_centre() {
    assert_file_counts("sudoku-4x4-centre", "variants/4x4-centre.txt");
}

#[test]
fn variants_4x4_letters() {
    assert_file_counts("sudoku-4x4-letters", "variants/4x4-letters.txt");
}

#[test]
fn variants_6x6() {
    assert_file_counts("sudoku-6x6", "variants/6x6.txt");
}

#[test]
fn variants_8x8() {
    assert_file_counts("sudoku-8x8", "variants/8x8.txt");
}

#[test]
fn variants_9x9() {
    assert_file_counts("sudoku-9x9", "variants/9x9.txt");
}

#[test]
fn variants_9x9_x() {
    assert_file_counts("x-sudoku-9x9", "variants/9x9-x.txt");
}

#[test]
fn variants_9x9_windoku() {
    assert_file_counts("windoku-9x9", "variants/9x9-windoku.txt");
}

#[test]
fn variants_9x9_jigsaw() {
    assert_file_counts("jigsaw-9x9", "variants/9x9-jigsaw.txt");
}

#[test]
fn variants_9x9_antiknight() {
    assert_file_counts("anti-knight-9x9", "variants/9x9-antiknight.txt");
}

#[test]
fn variants_12x12() {
    assert_file_counts("sudoku-12x12", "variants/12x12.txt");
}

#[test]
fn variants_16x16() {
    assert_file_counts("sudoku-16x16", "variants/16x16.txt");
}

#[test]
fn sudoku9_hardest_easy_top95_and_hard375_are_unique() {
    for file in [
        "sudoku9/hardest.txt",
        "sudoku9/easy50.txt",
        "sudoku9/top95.txt",
        "sudoku9/hard375.txt",
    ] {
        assert_file_counts("sudoku-9x9", file);
    }
}

#[test]
#[ignore = "needs ../shared/data/sudoku9/17clue.txt or $GRAFTER_DATA: run with --ignored"]
fn sudoku9_all_49151_seventeen_clue_puzzles_are_unique() {
    let Some(path) = external_data("sudoku9/17clue.txt") else {
        return;
    };
    assert_path_counts("sudoku-9x9", &path, 49_151);
}

#[test]
fn every_data_file_is_covered_by_a_rule_file() {
    let covered: Vec<&str> = rule_files()
        .iter()
        .flat_map(|r| r.data.iter().copied())
        .collect();
    for dir in ["variants", "sudoku9"] {
        for entry in std::fs::read_dir(data(dir)).expect("tests/data/DIR exists") {
            let name = format!("{dir}/{}", entry.unwrap().file_name().to_string_lossy());
            assert!(
                covered.contains(&name.as_str()),
                "no rule file solves {name}"
            );
        }
    }
    // The other way round: what a rule file lists is in tests/data, or is the one file
    // left to the opt-in test.
    for name in covered {
        assert!(
            data(name).is_file() || name == "sudoku9/17clue.txt",
            "tests/data/{name} is missing"
        );
    }
}

#[test]
fn every_rule_files_start_block_has_its_pinned_count() {
    for rf in rule_files() {
        let got = count(&rule(rf.name), None, &[]);
        assert_eq!(
            got,
            vec![rf.start_solutions],
            "rules/{}.graft start block",
            rf.name
        );
        // Every block is also counted by brute force from its own text: small grids in
        // row-major order, larger ones fewest candidates first.
        let text = std::fs::read_to_string(rule(rf.name)).unwrap();
        let givens = rf.variant.parse_givens(&start_givens(&text));
        let brute = if rf.variant.cells() <= 36 {
            brute::count(&rf.variant, &givens)
        } else {
            brute::count_fewest_first(&rf.variant, &givens)
        };
        assert_eq!(
            brute, rf.start_solutions,
            "brute force on rules/{}.graft",
            rf.name
        );
    }
}

#[test]
fn futoshiki_counts_agree_with_brute_force() {
    let rf = rule_file("futoshiki-5x5");
    let text = std::fs::read_to_string(rule(rf.name)).unwrap();
    let givens = rf.variant.parse_givens(&start_givens(&text));
    assert_eq!(
        count(&rule(rf.name), None, &[]),
        vec![brute::count(&rf.variant, &givens)]
    );
    // Without the givens only the inequalities and the Latin square constrain the grid.
    let free = brute::count(&rf.variant, &[None; 25]);
    assert!(
        free > 3,
        "the inequalities alone leave many solutions ({free})"
    );
    assert_eq!(
        count(&rule(rf.name), Some(&fixture("puzzles/empty-5x5.txt")), &[]),
        vec![free]
    );
}
