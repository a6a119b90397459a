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

/// Two caged cells and a third outside the cage, for NACs with aggregates.
const CAGED: &str = "values 1..4
    node Cell { row: int, col: int, val: value? }
    node Group
    node Cage { sum: int }
    node Mark { val: value }
    edge in: Cell -> Group
    edge cage: Cell -> Cage
    grid 1x3 of Cell
    groups rows via in
    k1: Cage { sum = 3 }
    r1c1 -cage-> k1
    r1c2 -cage-> k1
    ";

/// Why `CAGED` with a rule `place(v)` whose body is `body` is not monotone, if it is not;
/// and why not slot-filling.
fn caged(body: &str) -> Said {
    let text = format!(
        "{CAGED} rule place(v: value) {{ {body} }} final: not {{ c: Cell {{ val == none }} }}"
    );
    let g = crate::load_str("t.graft", &text).unwrap_or_else(|d| panic!("{d}"));
    let facts = super::analyse(&g);
    Said {
        not_slot: facts.slot_fill.err().map(|r| r.reason),
        not_monotone: facts.monotone.err().map(|r| r.reason),
    }
}

const EMPTY: &str = "c: Cell { val == none }";
const SUM: &str = "sum(d.val for k <-cage- d: Cell)";
const FULL: &str = "count(k <-cage- d: Cell { val == none }) == 0";

#[test]
fn nacs_with_aggregates_are_accepted_where_blocking_only_grows() {
    let accepted = [
        // The killer cage of the language reference.
        format!("not {{ c -cage-> k: Cage where {SUM} + v > k.sum or {FULL} and {SUM} + v != k.sum }}"),
        // The share may stand anywhere in the chain, and be any expression that is it.
        format!("not {{ c -cage-> k: Cage where 1 + v + {SUM} > k.sum + 1 }}"),
        // A count whose cell may or may not count, completed by its share (odd values).
        "not { c -cage-> k: Cage where count(k <-cage- d: Cell { val % 2 == 1 }) + v % 2 > 1 }".to_string(),
        // A count completed by a condition counted (`int(...)`: 1 where it holds).
        "not { c -cage-> k: Cage where count(k <-cage- d: Cell { int(val) > 2 }) + int(int(v) > 2) > 1 }".to_string(),
        // A share the same for every value is a constant: no value is 0, so none counts.
        "not { c -cage-> k: Cage where count(k <-cage- d: Cell { int(val) == 0 }) + int(int(v) == 0) > 1 }".to_string(),
        // Other ways to say the group is full.
        format!("not {{ c -cage-> k: Cage where all(d.val != none for k <-cage- d: Cell) and {SUM} + v != k.sum }}"),
        format!("not {{ c -cage-> k: Cage where not any(d.val == none for k <-cage- d: Cell) and {SUM} + v != k.sum }}"),
        // The group's size is a constant; conditions on the cage node are too.
        format!("not {{ c -cage-> k: Cage {{ sum > 0 }} where {SUM} + v > k.sum + count(k <-cage- d: Cell) }}"),
        // The cage cannot reach its sum: its filled cells, v and 4 (the largest value) for
        // each other empty cell fall short. As a cell fills, its share goes from 4 to its
        // value, so the left side only falls.
        format!("not {{ c -cage-> k: Cage where {SUM} + v + 4 * count(k <-cage- d: Cell {{ val == none }}) < k.sum }}"),
        // An aggregate that reads no changing cell is no aggregate NAC at all.
        "not { c -in-> g: Group <-in- d: Cell { val == v } where count(e: Group) > 0 }".to_string(),
    ];
    for nac in accepted {
        let s = caged(&format!("{EMPTY} {nac} set c.val = v"));
        assert_eq!(s.not_monotone, None, "{nac}");
        // The rule shapes fill slots; the slot compiler decides on the NAC itself.
        assert_eq!(s.not_slot, None, "{nac}");
    }
}

/// Every refusal of a NAC with an aggregate, word for word.
#[test]
fn nacs_with_aggregates_are_refused_with_a_reason() {
    let cases = [
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} > k.sum }} set c.val = v"),
            "`sum(...)` reads the group without `c`, the cell the rule fills, and what `c` adds depends on its value: add `c`'s share beside it (for a sum of `d.val`, `+ v`) so that the NAC reads the group as it is once `c` is filled, alike for every cell of it",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where count(k <-cage- d: Cell {{ val == none }}) > 0 }} set c.val = v"),
            "this condition can turn from true to false as cells fill (it only shrinks), so filling a cell could enable a rule: a NAC with an aggregate must only grow (a sum of non-negative values exceeding a bound, a count of empty cells reaching 0 `and` a test of the full group)",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} + v != k.sum }} set c.val = v"),
            "this condition can turn from true to false as cells fill (it moves either way), so filling a cell could enable a rule: a NAC with an aggregate must only grow (a sum of non-negative values exceeding a bound, a count of empty cells reaching 0 `and` a test of the full group)",
        ),
        (
            // With 1 for each empty cell the left side rises as cells fill.
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} + v + count(k <-cage- d: Cell {{ val == none }}) < k.sum }} set c.val = v"),
            "this condition can turn from true to false as cells fill (it only shrinks), so filling a cell could enable a rule: a NAC with an aggregate must only grow (a sum of non-negative values exceeding a bound, a count of empty cells reaching 0 `and` a test of the full group)",
        ),
        (
            // A product with 0 is read whole, as any other product (it once recursed
            // without end): its sum still misses `c`'s share.
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} + v + 0 * {SUM} > k.sum }} set c.val = v"),
            "`sum(...)` reads the group without `c`, the cell the rule fills, and what `c` adds depends on its value: add `c`'s share beside it (for a sum of `d.val`, `+ v`) so that the NAC reads the group as it is once `c` is filled, alike for every cell of it",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} + v > k.sum and v > 1 }} set c.val = v"),
            "beside an aggregate, the NAC reads the parameter `v` other than as the filled cell's share of a sum (`sum(...) + v`): its blocking would differ from cell to cell of the group",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where {SUM} + v > c.row }} set c.val = v"),
            "beside an aggregate, the NAC reads `c`, a node of the rule's left side: its blocking would differ from cell to cell of the group",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where sum(d.val for d: Cell) + v > k.sum }} set c.val = v"),
            "`sum(...)` must range over the group `c` belongs to: `d` joined to the NAC's nodes by the same edges as `c` (so that every cell of the group reads it alike)",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where max(d.val for k <-cage- d: Cell) > 3 }} set c.val = v"),
            "`max(...)` reads the group without `c`, the cell the rule fills, and the language has no way to add `c`'s value to a max: the NAC cannot read the group as it will be (test the whole group in `final:`, or write the constraint cell by cell)",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage where count(k <-cage- d: Cell {{ val != 2 }}) > 1 }} set c.val = v"),
            "`count(...)` counts an empty `d` and, once filled, only some values: as cells fill it could both gain and lose cells",
        ),
        (
            format!("{EMPTY} not {{ c -cage-> k: Cage <-cage- e: Cell where {FULL} }} set c.val = v"),
            "NAC node `e` is a `Cell`, which rules fill or create; beside an aggregate, a NAC may bind only nodes that never change (the aggregate reads the cells)",
        ),
        (
            format!("{EMPTY} where {SUM} < 3 k: Cage set c.val = v"),
            "rule `place` tests an aggregate over cells that rules fill in its own pattern, so filling a cell could enable it: write the test as a NAC (`not { where ... }`)",
        ),
        (
            format!("{EMPTY} set c.val = max(d.val for d: Cell)"),
            "rule `place` computes an effect from an aggregate over cells that rules fill, so its effect would depend on the order of applications",
        ),
    ];
    let mut wrong = Vec::new();
    for (body, want) in cases {
        let got = caged(&body).not_monotone;
        if got.as_deref() != Some(want) {
            wrong.push(format!("{body}:\n  got  {got:?}\n  want {want:?}"));
        }
    }
    // Two rules filling cells: each cell's NAC must be the same.
    let text = format!(
        "{CAGED} rule place(v: value) {{ {EMPTY} not {{ c -cage-> k: Cage where {SUM} + v > k.sum }} set c.val = v }}
         rule again(v: value) {{ {EMPTY} set c.val = v }}
         final: not {{ c: Cell {{ val == none }} }}"
    );
    let g = crate::load_str("t.graft", &text).unwrap_or_else(|d| panic!("{d}"));
    let got = super::analyse(&g).monotone.err().map(|r| r.reason);
    let want = "a NAC with an aggregate over cells that rules fill needs one rule filling the cells: each cell's NAC must read its group the same way";
    if got.as_deref() != Some(want) {
        wrong.push(format!("two rules:\n  got  {got:?}\n  want {want:?}"));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
