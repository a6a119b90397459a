//! Unit tests of the analysis: each refusal a small file can trigger, pinned word for word.

/// A file with typed cells (a `Cell` is an `N`), a type rules may create and one with a
/// value attribute that may be none.
const TYPED: &str = "values 1..2
    node N
    node Cell : N { row: int, col: int, val: value? }
    node Group
    node Mark { val: value }
    node Hint { val: value? }
    edge in: Cell -> Group
    grid 1x2 of Cell
    groups rows
    ";

/// What the analysis says of `TYPED` followed by `rest`: why it is not slot-filling and
/// why it is not monotone.
struct Said {
    not_slot: Option<String>,
    not_monotone: Option<String>,
}

fn said(rest: &str) -> Said {
    let g = match crate::load_str("t.graft", &format!("{TYPED}{rest}")) {
        Ok(g) => g,
        Err(d) => {
            let e = Some(format!("does not load: {d}"));
            return Said {
                not_slot: e.clone(),
                not_monotone: e,
            };
        }
    };
    let facts = super::analyse(&g);
    Said {
        not_slot: facts.slot_fill.err().map(|r| r.reason),
        not_monotone: facts.monotone.err().map(|r| r.reason),
    }
}

const PLACE: &str = "rule place(v: value) {
    c: Cell { val == none }
    not { c -in-> g: Group <-in- d: Cell { val == v } }
    set c.val = v
}";

const OPEN_CELLS: &str = "final: not { c: Cell { val == none } }";

const EXPECTED: &str = "expected `final: not { n: T ... }` (alone or joined by `and`), saying that no node is left to fill";

/// Every refusal of the analysis a small file can trigger, with its words.
#[test]
fn each_refusal_says_why_in_its_own_words() {
    let mut wrong = Vec::new();
    let mut expect = |what: &str, got: Option<String>, want: &str| {
        if got.as_deref() != Some(want) {
            wrong.push(format!("{what}:\n  got  {got:?}\n  want {want:?}"));
        }
    };
    let s = said(OPEN_CELLS);
    expect("no rules, slot", s.not_slot, "there are no rules");
    expect("no rules, monotone", s.not_monotone, "there are no rules");

    let s = said(PLACE);
    expect(
        "no final, monotone",
        s.not_monotone,
        "there is no `final:` condition, so a final state need not have every node filled",
    );

    let s = said(&format!("{PLACE} final: {{ c: Cell {{ val == 1 }} }}"));
    expect(
        "final without open cells, monotone",
        s.not_monotone,
        &format!("`final:` does not say which nodes must be filled: {EXPECTED}"),
    );

    let s = said(&format!(
        "{PLACE} final: not {{ c: Cell {{ val == none }} -in-> g: Group }}"
    ));
    expect(
        "final over two nodes",
        s.not_monotone,
        &format!("the open nodes of `final:` must be one node with conditions on its own attributes: {EXPECTED}"),
    );

    let rule = |body: &str| format!("rule place(v: value) {{ {body} }} {OPEN_CELLS}");
    let s = said(&rule(
        "c: Cell { val == none } del c new m: Cell { row = 1, col = 1, val = v }",
    ));
    expect(
        "creates an open node",
        s.not_monotone,
        "rule `place` creates a `Cell`, which `final:` counts as open (a `Cell`)",
    );
    expect(
        "creates an open node, slot",
        s.not_slot,
        "rule `place` creates a node of a type related to the cell it deletes, so filled and empty cells could match the same patterns",
    );

    let s = said(&rule("h: Hint { val == none } set h.val = v"));
    expect(
        "matches no open type",
        s.not_monotone,
        "rule `place` matches no `Cell`, the type `final:` says must be filled",
    );

    let s = said(&rule("c: N del c new m: Mark { val = v }"));
    expect(
        "matches a supertype",
        s.not_monotone,
        "rule `place` matches `c` as a `N`, which may or may not be an open `Cell`",
    );

    let s = said(&format!(
        "rule mark(v: value) {{ c: Cell {{ val == none }} m: Mark set c.val = v }}
         rule make(v: value) {{ c: Cell {{ val == none }} set c.val = v new m: Mark {{ val = v }} }}
         {OPEN_CELLS}"
    ));
    expect(
        "reads a created type",
        s.not_monotone,
        "rule `mark` also matches `m`, a `Mark`, which rules create, fill or delete; only the node it fills may change",
    );

    let s = said(&rule("c: Cell { val == none } h: Hint set c.val = h.val"));
    expect(
        "fills with none",
        s.not_monotone,
        "rule `place` may fill `c` with none, leaving it open",
    );

    let s = said(&rule(
        "c: Cell { val == none } g: Group set c.val = v del g",
    ));
    expect(
        "deletes another node",
        s.not_monotone,
        "rule `place` deletes a node other than `c`",
    );

    let s = said(&rule("c: Cell { val == none } new m: Mark { val = v }"));
    expect(
        "consumes nothing",
        s.not_monotone,
        "rule `place` must delete `c` or fill the attribute that marks it open, once",
    );
    expect(
        "neither sets nor replaces, slot",
        s.not_slot,
        "rule `place` neither sets one attribute of one node nor replaces one node by a new one (`del c` and `new m: T { ... }`)",
    );

    let s = said(&rule(
        "c: Cell { val == none } not { d: Cell } del c new m: Mark { val = v }",
    ));
    expect(
        "NAC may see a deleted cell",
        s.not_monotone,
        "NAC node `d` may match a `Cell` that a rule deletes, so deleting could enable a rule",
    );

    let s = said(&rule(
        "c: Cell { val == none } not { d: Cell { val == v } e: Cell { val == v } } set c.val = v",
    ));
    expect(
        "two witnesses",
        s.not_monotone,
        "NAC nodes `d` and `e` may both be nodes that rules create or fill; the focus needs at most one per NAC",
    );

    let s = said(&rule("c: Cell { val == none } del c new m: Hint { }"));
    expect(
        "replacement without a value, slot",
        s.not_slot,
        "rule `place` replaces a cell by a node that must set exactly one value attribute (the value it places)",
    );

    let s = said(&format!(
        "rule a(v: value) {{ c: Cell {{ val == none }} set c.val = v }}
         rule b(v: value) {{ c: Cell {{ val == none }} del c new m: Mark {{ val = v }} }}
         {OPEN_CELLS}"
    ));
    expect(
        "two ways of filling, slot",
        s.not_slot,
        "the rules fill cells in different ways (setting an attribute, or replacing the cell by nodes of different types)",
    );

    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
