//! Input that is not what a rule or puzzle file should be: bytes that are not UTF-8, a
//! byte-order mark, control characters, bad `--timeout` values and a huge domain.

use std::time::Duration;

use crate::support::{grafter, Run};
use crate::watch::{watched, Watch};

const INPUT: &str = "tests/fixtures/input";

/// The first stderr line, which must start with `at` (`file:line:col: error:`) and hold
/// every one of `needles`.
fn assert_first_line(run: &Run, at: &str, needles: &[&str]) {
    let first = run.stderr.lines().next().unwrap_or("");
    assert!(
        first.starts_with(at),
        "grafter {}: expected {at:?} first, stderr:\n{}",
        run.args.join(" "),
        run.stderr
    );
    for n in needles {
        assert!(first.contains(n), "{first:?} lacks {n:?}");
    }
}

#[test]
fn a_rule_file_that_is_not_utf8_is_located_at_its_first_bad_byte() {
    let file = format!("{INPUT}/latin1.graft");
    let run = grafter(["check", &file]);
    run.expect_code(1);
    assert_first_line(
        &run,
        &format!("{file}:4:7: error:"),
        &["not valid UTF-8", "(byte 0xE9)"],
    );
}

#[test]
fn a_puzzle_file_that_is_not_utf8_is_located_at_its_first_bad_byte() {
    let file = format!("{INPUT}/latin1-puzzles.txt");
    let run = grafter([
        "solve",
        "rules/latin-4x4.graft",
        "--puzzles",
        &file,
        "--count",
    ]);
    run.expect_code(1);
    assert_first_line(
        &run,
        &format!("{file}:3:15: error:"),
        &["not valid UTF-8", "(byte 0xFC)"],
    );
    assert!(run.stdout.is_empty(), "nothing solved: {}", run.stdout);
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let with_bom = grafter(["solve", &format!("{INPUT}/bom.graft"), "--count"]);
    with_bom.ok();
    let without = grafter(["solve", "rules/latin-4x4.graft", "--count"]);
    without.ok();
    assert_eq!(with_bom.stdout, without.stdout);
    assert_eq!(with_bom.stdout.trim(), "3", "the start block's solutions");
}

#[test]
fn control_characters_are_escaped_in_messages() {
    let file = format!("{INPUT}/control.graft");
    let run = grafter(["check", &file]);
    run.expect_code(1);
    assert_first_line(&run, &format!("{file}:3:7: error:"), &["`\\u{1}`"]);
    assert!(
        !run.stderr.contains('\u{1}'),
        "raw control character: {:?}",
        run.stderr
    );
    assert!(run.stderr.contains("node C\\u{1}ell {"), "{}", run.stderr);

    let puzzles = format!("{INPUT}/control-puzzles.txt");
    let run = grafter([
        "solve",
        "rules/latin-4x4.graft",
        "--puzzles",
        &puzzles,
        "--count",
    ]);
    run.expect_code(1);
    assert_first_line(
        &run,
        &format!("{puzzles}:2:9: error:"),
        &["unexpected character `\\u{1b}`"],
    );
    assert!(
        !run.stderr.contains('\u{1b}'),
        "raw escape: {:?}",
        run.stderr
    );
}

#[test]
fn every_bad_timeout_is_a_usage_error() {
    for bad in ["2e19", "31536001", "-1", "nan", "inf", "-inf", "abc", ""] {
        let run = grafter([
            "solve",
            "rules/latin-4x4.graft",
            "--count",
            &format!("--timeout={bad}"),
        ]);
        run.expect_code(2);
        assert!(
            run.stderr.contains("--timeout") && run.stderr.contains("number of seconds"),
            "--timeout={bad}: {}",
            run.stderr
        );
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    }
    for good in ["0.5", "31536000", "1e3"] {
        let run = grafter([
            "solve",
            "rules/latin-4x4.graft",
            "--count",
            "--timeout",
            good,
        ]);
        run.ok();
        assert_eq!(run.stdout.trim(), "3", "--timeout {good}");
    }
}

#[test]
fn a_domain_of_65535_values_checks_fast() {
    // Quadratic duplicate checks took seconds here; the bound is generous for a loaded
    // machine, and far below what a quadratic check needs.
    let file = format!("{INPUT}/many-values.graft");
    let watch = Watch {
        deadline: Duration::from_secs(30),
        ..Watch::default()
    };
    let w = watched(["check", &file], &watch);
    w.expect(0, 200);
    assert!(
        w.elapsed < Duration::from_secs(2),
        "check took {:?}",
        w.elapsed
    );
    assert!(
        w.run.stdout.contains("values: 1..65535 (65535)"),
        "{}",
        w.run.stdout
    );
}

#[test]
fn a_puzzle_file_with_an_error_on_every_line_reports_each_at_its_line() {
    // Each diagnostic reads only its own lines: 5,000 of them render in moments, where
    // reading the whole file for each took minutes at 38,000.
    let lines = 5_000;
    let line = format!(
        "{} | region: 1 1 2 2 1 1 2 2 3 3 4 4 3 3 4 4\n",
        ".".repeat(16)
    );
    let file = crate::support::temp_path("every-line-bad", "txt");
    std::fs::write(&file, line.repeat(lines)).expect("a temporary file");
    let name = file.display().to_string();
    let run = solve_4x4(&name, &["--error-limit", "0"]);
    run.expect_code(1);
    let headers: Vec<&str> = (run.stderr.lines())
        .filter(|l| l.contains(": error: unknown layer `region`"))
        .collect();
    assert_eq!(
        headers.len(),
        lines,
        "{}",
        &run.stderr[..run.stderr.len().min(2000)]
    );
    assert!(
        headers[lines - 1].starts_with(&format!("{name}:{lines}:20: error:")),
        "{}",
        headers[lines - 1]
    );
    // The snippet under the last one shows its line, numbered so.
    assert!(
        run.stderr.contains(&format!("\n{lines} | {}", &line[..20])),
        "{}",
        &run.stderr[run.stderr.len().saturating_sub(2000)..]
    );
    let _ = std::fs::remove_file(&file);
}

#[test]
fn past_the_error_limit_messages_are_counted_in_one_line() {
    let line = format!("{}x\n", ".".repeat(15));
    let file = crate::support::temp_path("error-limit", "txt");
    std::fs::write(&file, line.repeat(300)).expect("a temporary file");
    let name = file.display().to_string();
    let headers = |run: &Run| -> Vec<String> {
        (run.stderr.lines())
            .filter(|l| l.contains(": error: unexpected character `x`"))
            .map(str::to_string)
            .collect()
    };
    // By default the first 20 in full, then one line for the other 280.
    let run = solve_4x4(&name, &[]);
    run.expect_code(1);
    let shown = headers(&run);
    assert_eq!(shown.len(), 20, "{}", run.stderr);
    assert!(
        shown[19].starts_with(&format!("{name}:20:16: error:")),
        "{}",
        shown[19]
    );
    let last = run.stderr.lines().last().unwrap_or_default();
    assert_eq!(
        last,
        format!(
            "note: 280 more errors not shown (lines 21 to 300 of {name}); \
             `--error-limit 0` shows them all"
        )
    );
    // A global option: before the subcommand too, and 0 shows every one.
    let run = grafter([
        "--error-limit",
        "3",
        "solve",
        "rules/sudoku-4x4.graft",
        "--puzzles",
        &name,
    ]);
    run.expect_code(1);
    assert_eq!(headers(&run).len(), 3, "{}", run.stderr);
    assert!(run
        .stderr
        .contains("note: 297 more errors not shown (lines 4 to 300"));
    let run = solve_4x4(&name, &["--error-limit", "0"]);
    run.expect_code(1);
    assert_eq!(headers(&run).len(), 300);
    assert!(!run.stderr.contains("not shown"), "{}", run.stderr);
    let _ = std::fs::remove_file(&file);
}

/// `grafter solve rules/sudoku-4x4.graft --puzzles PUZZLES`, then `extra`.
fn solve_4x4(puzzles: &str, extra: &[&str]) -> Run {
    let args = ["solve", "rules/sudoku-4x4.graft", "--puzzles", puzzles];
    grafter(args.iter().chain(extra))
}
