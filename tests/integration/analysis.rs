//! The analysis as users see it: `grafter check` prints the fact sheet and each engine's
//! refusal, `grafter solve` names the refusal in its summary's `fallback`.

use crate::support::{grafter, solve_json, temp_path, Json};

/// A 1x2 grid whose cells are also `N`s; `rest` adds rules and `final:`.
fn file(tag: &str, rest: &str) -> std::path::PathBuf {
    let text = format!(
        "values 1..2
node N
node Cell : N {{ row: int, col: int, val: value? }}
node Group
node Mark {{ val: value }}
edge in: Cell -> Group
edge lt: Cell -> Cell
grid 1x2 of Cell
groups rows
r1c1 -lt-> r1c2
{rest}
"
    );
    let path = temp_path(tag, "graft");
    std::fs::write(&path, text).unwrap();
    path
}

const PLACE: &str = "rule place(v: value) {
  c: Cell { val == none }
  not { c -in-> g: Group <-in- d: Cell { val == v } }
  set c.val = v
}";

const OPEN_CELLS: &str = "final: not { c: Cell { val == none } }";

/// `grafter check`'s output for the file, which must load.
fn check(path: &std::path::Path) -> String {
    let run = grafter(["check".as_ref(), path.as_os_str()]);
    run.ok();
    run.stdout.clone()
}

/// The `fallback` of `grafter solve --expand focus` on the file.
fn fallback(path: &std::path::Path) -> Option<String> {
    let p = solve_json(path, None, &["--expand", "focus"]).remove(0);
    p.summary
        .get("fallback")
        .and_then(Json::as_str)
        .map(str::to_string)
}

#[test]
fn a_sound_slot_grammar_has_every_fact() {
    let path = file("sound", &format!("{PLACE}\n{OPEN_CELLS}"));
    let out = check(&path);
    for line in [
        "engine: slot (2 slots, ",
        "slot-filling rule shapes: yes\n",
        "monotone: yes\n",
        "expand focus: sound\n",
    ] {
        assert!(out.contains(line), "{line:?} in:\n{out}");
    }
    assert_eq!(fallback(&path), None);
}

#[test]
fn without_final_both_engines_say_why_focus_falls_back() {
    let path = file("no-final", PLACE);
    let out = check(&path);
    let name = path.display();
    let slot =
        "the file has no `final:` condition, so every dead end is final, and focus would skip them";
    assert!(
        out.contains(&format!("expand focus: falls back to all: {slot}\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("monotone: no ({name}:1:1: there is no `final:` condition, so a final state need not have every node filled)\n")),
        "{out}"
    );
    assert_eq!(fallback(&path).as_deref(), Some(slot));
}

#[test]
fn a_grammar_neither_slot_filling_nor_monotone_names_both_reasons() {
    // Filling a cell by replacing it would suit the slot engine, but the cells have edges.
    let path = file(
        "edges",
        &format!(
            "rule place(v: value) {{ c: Cell {{ val == none }} d: Cell set c.val = v set d.val = v }}\n{OPEN_CELLS}"
        ),
    );
    let out = check(&path);
    let name = path.display();
    let slot = "rule `place` neither sets one attribute of one node nor replaces one node by a new one (`del c` and `new m: T { ... }`)";
    let whole = "rule `place` matches two nodes that may be open `Cell`s; it must fill one and read only nodes that never change";
    assert!(
        out.contains(&format!(
            "engine: graph (not slot-filling: {name}:11:1: {slot})\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "slot-filling rule shapes: no ({name}:11:1: {slot})\n"
        )),
        "{out}"
    );
    assert!(out.contains(&format!("monotone: no ({name}:")), "{out}");
    let both = format!(
        "the rules are not slot-filling ({name}:11:1: {slot}), and on whole graphs: {whole}"
    );
    assert!(
        out.contains(&format!("expand focus: falls back to all: {both}\n")),
        "{out}"
    );
    // The run itself is on whole graphs, which name their own reason.
    assert_eq!(fallback(&path), Some(format!("on whole graphs: {whole}")));
}

#[test]
fn whole_graphs_refuse_focus_where_deleted_cells_have_edges() {
    // Replacing cells keeps the grammar off the slot engine (the cells have edges); on
    // whole graphs the rules are monotone, but deleting a cell could cut the `lt` path.
    let path = file(
        "deleted-edges",
        "rule place(v: value) { c: Cell { val == none } del c new m: Mark { val = v } }\nfinal: not { c: Cell }",
    );
    let out = check(&path);
    let name = path.display();
    assert!(
        out.contains(&format!("engine: graph (not slot-filling: {name}:11:1: the rules delete `r1c1`, which has edges its replacement would not have)\n")),
        "{out}"
    );
    assert!(out.contains("slot-filling rule shapes: yes\n"), "{out}");
    assert!(out.contains("monotone: yes\n"), "{out}");
    assert!(out.contains("expand focus: sound\n"), "{out}");
    assert_eq!(
        fallback(&path).as_deref(),
        Some("on whole graphs: rules delete open nodes and the open node r1c1 has edges, so deleting it could cut a path a NAC follows")
    );
}
