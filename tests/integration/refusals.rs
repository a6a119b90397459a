//! Refusals of the slot engine: each message `grafter check` prints on its engine line,
//! word for word, from the smallest rule file that draws it out.

use super::support::{fixture, grafter};

/// (fixture in `tests/fixtures/not-slot/`, where and why it is not slot-filling).
const REFUSALS: &[(&str, &str)] = &[
    (
        "lhs-reads-changing",
        "9:26: rule `place` reads a changing attribute in its left side; only `c.val` == none may be tested",
    ),
    (
        "value-reads-changing",
        "11:15: the value placed depends on a changing attribute",
    ),
    (
        "two-parameters",
        "8:1: rule `place` has more than one parameter",
    ),
    (
        "lhs-matches-cell",
        "10:3: rule `place` matches `d`, which can be a cell that rules fill; only the cell filled may change",
    ),
    (
        "same-value-several-ways",
        "8:1: rule `place` places the same value in one cell in several ways",
    ),
    (
        "value-outside-domain",
        "11:15: rule `place` places a value that is not a domain value, or in a cell that is no slot",
    ),
    (
        "two-rules-one-cell",
        "12:1: two rules fill the same cell (r1c1.val)",
    ),
    (
        "created-attr-from-value",
        "10:1: rule `place` gives the node it creates for r1c1 attributes that depend on the value placed",
    ),
    (
        "created-nodes-alike",
        "10:1: the nodes created for r1c1 and r1c2 would be indistinguishable, so filling one or the other could give the same graph",
    ),
    (
        "nested-nac",
        "10:3: rule `place`: a NAC inside a NAC needs the general engine",
    ),
    (
        "nac-reads-two-cells",
        "10:64: rule `place`: a NAC condition that compares a changing attribute may read only that one changing attribute, of one NAC node, besides the parameter, constants and unchanging attributes",
    ),
    (
        "nac-joins-left-side",
        "15:17: rule `place`: a NAC may join the rule's left side only at the cell it fills",
    ),
    (
        "nac-too-many-matches",
        "8:3: rule `place`: this NAC's structure has more than 4194304 matches on the start graph, too many to compile into tables",
    ),
    (
        "nac-sees-deleted-cell",
        "13:3: rule `place`: this NAC can match a cell the rules delete or a `NodeVal` they create other than through the value it compares, so it tests whether a cell is filled",
    ),
    (
        "nac-nodes-per-value",
        "14:3: rule `place`: which nodes this NAC looks at for r1c1 depends on the value placed; the slot engine needs it to depend on the cell only",
    ),
    (
        "nac-blocks-per-cell",
        "11:3: rule `place`: which values this NAC blocks `1` with depends on the cell; the slot engine needs it to depend on the value only",
    ),
    (
        "nac-holds-on-empty",
        "10:3: rule `place`: this NAC holds while its witness is empty, so filling a cell can enable a rule",
    ),
];

#[test]
fn check_prints_each_refusal_word_for_word() {
    for &(name, why) in REFUSALS {
        let rel = format!("tests/fixtures/not-slot/{name}.graft");
        assert!(
            fixture(&format!("not-slot/{name}.graft")).is_file(),
            "{rel}"
        );
        let run = grafter(["check", rel.as_str()]);
        run.ok();
        let line = format!("engine: graph (not slot-filling: {rel}:{why})");
        assert!(
            run.stdout.lines().any(|l| l == line),
            "{name}: expected the line\n{line}\n--- stdout ---\n{}",
            run.stdout
        );
    }
}

/// The graph engine runs what the slot engine refuses: no panic, and a normal exit
/// (0, or 3 when the state limit stops it).
#[test]
fn refused_files_solve_on_the_graph_engine() {
    for &(name, _) in REFUSALS {
        let rel = format!("tests/fixtures/not-slot/{name}.graft");
        let run = grafter(["solve", rel.as_str(), "--count", "--max-states", "100000"]);
        let code = if run.code == 3 { 3 } else { 0 };
        run.expect_code(code);
        assert_eq!(
            run.counts().len(),
            1,
            "{name}: one count line\n{}",
            run.stdout
        );
    }
}

/// Whole graphs check `--expand focus` on the start graph by tabulating which application
/// disables which; past 8192 applications they do not, and say so in the summary's note.
#[test]
fn too_many_applications_for_the_focus_table_is_a_note() {
    let rel = "tests/fixtures/not-slot/too-many-applications.graft";
    let run = grafter(["solve", rel, "--expand", "focus", "--max-states", "2"]);
    run.expect_code(3);
    let note = "note: focus not used: on whole graphs: the start graph has more than 8192 rule applications, and checking that they block each other symmetrically takes a NAC match per pair";
    assert!(
        run.stdout.lines().any(|l| l == note),
        "expected the line\n{note}\n--- stdout ---\n{}",
        run.stdout
    );
    assert!(run.stdout.contains("expand: all "), "{}", run.stdout);
}
