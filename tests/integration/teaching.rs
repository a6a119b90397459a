//! Diagnostics that teach: "did you mean", the second place of a clash or an unclosed
//! block, more than one syntax error per run, warnings that keep the exit status, and
//! colour only on terminals.

use crate::support::{grafter, temp_path, Run};

/// Writes `text` to a fresh `.graft` file and runs `grafter check` on it.
fn check_text(tag: &str, text: &str, extra: &[&str]) -> (String, Run) {
    let path = temp_path(tag, "graft");
    std::fs::write(&path, text).expect("the temp file is written");
    let file = path.display().to_string();
    let mut args = vec!["check", file.as_str()];
    args.extend(extra);
    let run = grafter(args);
    std::fs::remove_file(&path).ok();
    (file, run)
}

const HEAD: &str = "values 1..4
node Cell { row: int, col: int, val: value? }
node Group
edge in: Cell -> Group
grid 4x4 of Cell
groups rows, columns, boxes 2x2
";

/// The lines of the diagnostic that starts at `file:line:col:`, up to the next one.
fn block<'a>(stderr: &'a str, at: &str) -> &'a str {
    let start = stderr
        .find(at)
        .unwrap_or_else(|| panic!("no {at:?} in:\n{stderr}"));
    let rest = &stderr[start..];
    let end = rest[1..].find("\n\n").map_or(rest.len(), |i| i + 1);
    &rest[..end]
}

#[test]
fn misspelt_names_get_a_suggestion() {
    let text = format!(
        "{HEAD}rule place(v: value) {{
  c: Cel {{ val == none }}
  not {{ c -inn-> g: Group <-in- d: Cell {{ val == v }} }}
  set c.val = v
}}
final: not {{ c: Cell {{ vale == non }} }}
"
    );
    let (f, run) = check_text("suggest", &text, &[]);
    run.expect_code(1);
    let err = &run.stderr;
    let cases = [
        (
            format!("{f}:8:6: error: unknown node type `Cel`"),
            "help: did you mean `Cell`?",
        ),
        (
            format!("{f}:9:12: error: unknown edge label `inn`"),
            "help: did you mean `in`?",
        ),
        (
            format!("{f}:12:24: error: unknown name `vale`"),
            "help: did you mean `val`?",
        ),
        (
            format!("{f}:12:32: error: unknown name `non`"),
            "help: did you mean `none`?",
        ),
    ];
    for (at, help) in cases {
        let b = block(err, &at);
        assert!(b.contains(help), "{at}: no {help:?} in\n{b}");
    }
    // A name nothing resembles gets no guess.
    let text = format!("{HEAD}final: not {{ c: Cell {{ zzz == none }} }}\n");
    let (_, run) = check_text("no-guess", &text, &[]);
    run.expect_code(1);
    assert!(!run.stderr.contains("did you mean"), "{}", run.stderr);
}

#[test]
fn misspelt_keywords_get_a_suggestion_and_parsing_goes_on() {
    let text = format!(
        "{HEAD}rulle place(v: value) {{
  c: Cell {{ val == none }}
}}
vale 1..3
rule fill(v: value) {{
  c: Cell {{ val == none }}
  sett c.val = v
}}
"
    );
    let (f, run) = check_text("keywords", &text, &[]);
    run.expect_code(1);
    let err = &run.stderr;
    for (at, help) in [
        (format!("{f}:7:7: error:"), "did you mean `rule`?"),
        (format!("{f}:10:6: error:"), "did you mean `values`?"),
        (format!("{f}:13:9: error:"), "did you mean `set`?"),
    ] {
        let b = block(err, &at);
        assert!(b.contains(help), "{at}: no {help:?} in\n{b}");
    }
}

#[test]
fn an_unclosed_brace_points_at_where_it_opened() {
    let text = format!("{HEAD}rule place(v: value) {{\n  c: Cell {{ val == none }}\n");
    let (f, run) = check_text("unclosed", &text, &[]);
    run.expect_code(1);
    let b = block(&run.stderr, &format!("{f}:9:1: error: expected"));
    assert!(b.contains("found end of file"), "{b}");
    assert!(b.contains("7 | rule place(v: value) {"), "{b}");
    assert!(b.contains("this `{` is never closed"), "{b}");
}

#[test]
fn a_duplicate_shows_the_first() {
    let text = format!("{HEAD}node Cell\n");
    let (f, run) = check_text("duplicate", &text, &[]);
    run.expect_code(1);
    let b = block(
        &run.stderr,
        &format!("{f}:7:6: error: duplicate node type `Cell`"),
    );
    assert!(b.contains("2 | node Cell { row: int"), "{b}");
    assert!(b.contains("the first is here"), "{b}");
}

#[test]
fn a_clashing_given_shows_the_other() {
    let run = grafter(["check", "tests/fixtures/bad/start-clash.graft"]);
    run.expect_code(1);
    let b = block(
        &run.stderr,
        "start-clash.graft:15:9: error: given `1` at r4c4 clashes",
    );
    assert!(b.contains("the given it clashes with"), "{b}");
}

#[test]
fn warnings_keep_the_exit_status_unless_denied() {
    let text = format!(
        "{HEAD}node Extra
rule place(v: value) {{
  c: Cell {{ val == none }}
  not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
  set c.val = v
}}
final: not {{ c: Cell {{ val == none }} }}
"
    );
    let (f, run) = check_text("warn", &text, &[]);
    run.ok();
    let b = block(
        &run.stderr,
        &format!("{f}:7:1: warning: node type `Extra` is never used"),
    );
    assert!(b.contains("help: remove it"), "{b}");
    assert!(run.stdout.contains(": ok"), "{}", run.stdout);
    let (_, run) = check_text("deny", &text, &["--deny-warnings"]);
    run.expect_code(1);
    assert!(
        run.stderr.contains("1 warning about") && run.stderr.contains("--deny-warnings"),
        "{}",
        run.stderr
    );
    // A rule that only creates is flagged, and the run still goes on to its limit.
    let run = grafter([
        "solve",
        "tests/fixtures/canon/anonymous-cells.graft",
        "--max-states",
        "10",
        "--count",
    ]);
    run.expect_code(3);
    assert!(
        run.stderr
            .contains("warning: rule `r` creates nodes and nothing stops it"),
        "{}",
        run.stderr
    );
}

#[test]
fn no_colour_when_stderr_is_not_a_terminal() {
    let run = grafter(["check", "tests/fixtures/bad/start-clash.graft"]);
    run.expect_code(1);
    assert!(!run.stderr.contains('\u{1b}'), "{:?}", run.stderr);
}
