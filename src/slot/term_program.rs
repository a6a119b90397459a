//! A grounded term laid out flat for exact evaluation: one pass over a list of operations
//! with a value stack, jumping where `and`, `or` and a fold settle early, instead of a walk
//! down the term's boxes.
//!
//! A layout ([`super::layout`]) asks whether an instance matches on every assignment of
//! its slots it meets; on a skyscraper's or a renban's lines these evaluations were a fifth
//! of the search, mostly spent going down and up the tree. The program computes exactly
//! what `Term::eval` computes (the reference the tests compare with), in the same order,
//! stopping where it stops; the comparison of two slots, the bulk of a sight line's term,
//! is one operation, and so is an `all` or `any` of such comparisons.

use std::sync::Arc;

use crate::model::Value;
use crate::rule::expr::{binary, to_int, to_value, unary};
use crate::rule::{AggOp, BinOp, Fold, UnOp};

use super::ground::{Comparison, Fused, Term};
use super::slot_value;

/// One operation: it pops its operands from the value stack and pushes its result, or
/// moves on to another operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Op {
    Const(Value),
    Slot(u32),
    /// `binary(op, a, b)` of two slots' values, for an ordering or an equality (a
    /// [`Fused`] node, kept flat: one match per operation in the loop).
    Compare(BinOp, u32, u32),
    /// A slot's value's integer (the other [`Fused`] node).
    SlotInt(u32, Arc<[i64]>),
    /// The greatest (`max`) or least value among the slots `lists[start..start + len]`,
    /// `none` where all are empty: a `max` or `min` whose every match counts and adds a
    /// slot (a run's largest and smallest number), in one operation.
    Extreme {
        max: bool,
        start: u32,
        len: u32,
    },
    /// Whether every (`all`) or some (`any`) comparison of `compares[start..start + len]`
    /// is true: an `all` or `any` whose every match counts and compares two slots (a
    /// sight line's "every cell before d is lower"), in one operation.
    AllCompare {
        all: bool,
        start: u32,
        len: u32,
    },
    Unary(UnOp),
    Binary(BinOp),
    ToInt(Arc<[i64]>),
    ToValue(Arc<[i64]>),
    /// The left operand of an `and`: unless it is true, it is replaced by `false` and the
    /// program goes on at the operation given (past the right operand); else it is popped.
    And(u32),
    /// The left operand of an `or`: when it is true, it is left as the result and the
    /// program goes on at the operation given; else it is popped.
    Or(u32),
    /// The right operand of an `and` or an `or` made a boolean: whether it is true.
    Truth,
    /// A fold begins.
    Fold(AggOp),
    /// A match's condition popped: unless it is true, the program goes on at the next
    /// match (the operation given).
    When(u32),
    /// A match's value popped into the innermost fold: once the fold is settled, the
    /// program goes on at its end (the operation given).
    Add(u32),
    /// The innermost fold ends: its result is pushed.
    End,
}

/// A term's operations, in evaluation order. Two programs are equal when they are laid out
/// alike, and then compute the same from the same slots.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TermProgram {
    ops: Vec<Op>,
    /// The slots [`Op::Extreme`] reads.
    lists: Vec<u32>,
    /// The comparisons [`Op::AllCompare`] reads.
    compares: Vec<Comparison>,
    /// The most values and the most folds the program stacks at once.
    depth: usize,
    folds: usize,
}

impl TermProgram {
    pub fn new(term: &Term) -> TermProgram {
        // Room for every operation at once (at most two a node: a fold's match adds its
        // `When` and `Add`, an `And` its `Truth`s), then trimmed: growing the list by
        // doubling was most of laying out a cage's or a run's term.
        let mut p = TermProgram {
            ops: Vec::with_capacity(2 * term.nodes() + 1),
            lists: Vec::new(),
            compares: Vec::new(),
            depth: 0,
            folds: 0,
        };
        p.lay_out(term);
        debug_assert!(
            p.ops.len() <= 2 * term.nodes() + 1,
            "room for every operation"
        );
        p.ops.shrink_to_fit();
        (p.depth, p.folds) = p.heights();
        p
    }

    /// The bytes the program holds, about.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<TermProgram>()
            + self.ops.len() * std::mem::size_of::<Op>()
            + self.lists.len() * std::mem::size_of::<u32>()
            + self.compares.len() * std::mem::size_of::<Comparison>()
    }

    /// The same program reading slot `rename(s)` where this one reads slot `s`.
    pub fn renamed(&self, rename: impl Fn(u32) -> u32) -> TermProgram {
        let ops = self
            .ops
            .iter()
            .map(|op| match op {
                Op::Slot(s) => Op::Slot(rename(*s)),
                Op::Compare(o, a, b) => Op::Compare(*o, rename(*a), rename(*b)),
                Op::SlotInt(s, ints) => Op::SlotInt(rename(*s), ints.clone()),
                op => op.clone(),
            })
            .collect();
        let lists = self.lists.iter().map(|&s| rename(s)).collect();
        let compares = self
            .compares
            .iter()
            .map(|&(o, a, b)| (o, rename(a), rename(b)))
            .collect();
        TermProgram {
            ops,
            lists,
            compares,
            ..*self
        }
    }

    /// The most values and folds stacked at once, over every path through the program
    /// (each operation's stack height is the same whichever way it is reached).
    fn heights(&self) -> (usize, usize) {
        let (mut top, mut open) = (0usize, 0usize);
        let (mut depth, mut folds) = (0, 0);
        for op in &self.ops {
            match op {
                Op::Const(_)
                | Op::Slot(_)
                | Op::Compare(..)
                | Op::SlotInt(..)
                | Op::Extreme { .. }
                | Op::AllCompare { .. } => top += 1,
                Op::Binary(_) | Op::And(_) | Op::Or(_) | Op::When(_) | Op::Add(_) => top -= 1,
                Op::Unary(_) | Op::ToInt(_) | Op::ToValue(_) | Op::Truth => {}
                Op::Fold(_) => open += 1,
                Op::End => {
                    open -= 1;
                    top += 1;
                }
            }
            depth = depth.max(top);
            folds = folds.max(open);
        }
        (depth, folds)
    }

    /// The index the next operation takes.
    fn here(&self) -> u32 {
        self.ops.len() as u32
    }

    fn lay_out(&mut self, term: &Term) {
        if let Some(fused) = term.fused() {
            self.ops.push(match fused {
                Fused::Compare(op, a, b) => Op::Compare(op, a, b),
                Fused::SlotInt(s, ints) => Op::SlotInt(s, ints),
            });
            return;
        }
        match term {
            Term::Const(v) => self.ops.push(Op::Const(*v)),
            Term::Slot(s) => self.ops.push(Op::Slot(*s)),
            Term::Unary(op, x) => {
                self.lay_out(x);
                self.ops.push(Op::Unary(*op));
            }
            Term::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                self.lay_out(a);
                let jump = self.ops.len();
                self.ops.push(Op::Truth);
                self.lay_out(b);
                self.ops.push(Op::Truth);
                let end = self.here();
                self.ops[jump] = if *op == BinOp::And {
                    Op::And(end)
                } else {
                    Op::Or(end)
                };
            }
            Term::Binary(op, a, b) => {
                self.lay_out(a);
                self.lay_out(b);
                self.ops.push(Op::Binary(*op));
            }
            Term::ToInt(x, ints) => {
                self.lay_out(x);
                self.ops.push(Op::ToInt(ints.clone()));
            }
            Term::ToValue(x, ints) => {
                self.lay_out(x);
                self.ops.push(Op::ToValue(ints.clone()));
            }
            Term::Fold(op, items) => {
                if let Some(v) = constant_fold(*op, items) {
                    self.ops.push(Op::Const(v));
                    return;
                }
                if let Some((all, compares)) = term.compares_folded() {
                    let start = self.compares.len() as u32;
                    self.compares.extend_from_slice(&compares);
                    self.ops.push(Op::AllCompare {
                        all,
                        start,
                        len: compares.len() as u32,
                    });
                    return;
                }
                let slots = || {
                    items.iter().map(|item| match (&item.when, &item.body) {
                        (Term::Const(Value::Bool(true)), Term::Slot(s)) => Some(*s),
                        _ => None,
                    })
                };
                if matches!(op, AggOp::Max | AggOp::Min) && slots().all(|s| s.is_some()) {
                    let start = self.lists.len() as u32;
                    self.lists.extend(slots().flatten());
                    self.ops.push(Op::Extreme {
                        max: *op == AggOp::Max,
                        start,
                        len: items.len() as u32,
                    });
                    return;
                }
                self.ops.push(Op::Fold(*op));
                // The `Add` of every match jumps to the end, known once all are laid out.
                let mut adds = Vec::with_capacity(items.len());
                for item in items {
                    // A match whose condition is a constant counts always or never: most
                    // aggregates' patterns hold no condition on what changes.
                    let when = match &item.when {
                        Term::Const(Value::Bool(true)) => None,
                        Term::Const(_) => continue,
                        when => {
                            self.lay_out(when);
                            self.ops.push(Op::When(0));
                            Some(self.ops.len() - 1)
                        }
                    };
                    self.lay_out(&item.body);
                    adds.push(self.ops.len());
                    self.ops.push(Op::Add(0));
                    if let Some(when) = when {
                        self.ops[when] = Op::When(self.here());
                    }
                }
                let end = self.here();
                for a in adds {
                    self.ops[a] = Op::Add(end);
                }
                self.ops.push(Op::End);
            }
        }
    }

    /// Whether the condition holds where the slots hold `vals`.
    pub fn holds(&self, vals: &[u8]) -> bool {
        self.eval(vals) == Value::Bool(true)
    }

    /// The term's value where the slots hold `vals` (0 = empty, else the value's index
    /// plus one), as `Term::eval` (in the tests) gives it.
    pub fn eval(&self, vals: &[u8]) -> Value {
        // The stacks live in arrays where the term is shallow enough, as nearly all are.
        if self.depth <= SHALLOW && self.folds <= SHALLOW_FOLDS {
            let mut stack = [Value::None; SHALLOW];
            let mut folds = [const { None }; SHALLOW_FOLDS];
            self.run(vals, &mut stack, &mut folds)
        } else {
            let mut stack = vec![Value::None; self.depth];
            let mut folds: Vec<Option<Fold>> = (0..self.folds).map(|_| None).collect();
            self.run(vals, &mut stack, &mut folds)
        }
    }

    /// [`Self::eval`] with room for the values and folds the program stacks at most.
    #[inline(always)]
    fn run(&self, vals: &[u8], stack: &mut [Value], folds: &mut [Option<Fold>]) -> Value {
        // The number of values and folds on the stacks.
        let (mut top, mut open) = (0usize, 0usize);
        let mut at = 0;
        while let Some(op) = self.ops.get(at) {
            at += 1;
            match op {
                Op::Const(v) => {
                    stack[top] = *v;
                    top += 1;
                }
                Op::Slot(s) => {
                    stack[top] = slot_value(vals[*s as usize]);
                    top += 1;
                }
                Op::Compare(op, a, b) => {
                    stack[top] = compare(*op, vals[*a as usize], vals[*b as usize]);
                    top += 1;
                }
                Op::SlotInt(s, ints) => {
                    stack[top] = to_int(slot_value(vals[*s as usize]), ints);
                    top += 1;
                }
                &Op::Extreme { max, start, len } => {
                    let slots = &self.lists[start as usize..(start + len) as usize];
                    // Bytes order as the values do; 0 (empty) is passed over.
                    let mut best = 0u8;
                    for &s in slots {
                        let b = vals[s as usize];
                        if b != 0 && (best == 0 || (b > best) == max) {
                            best = b;
                        }
                    }
                    stack[top] = slot_value(best);
                    top += 1;
                }
                &Op::AllCompare { all, start, len } => {
                    let compares = &self.compares[start as usize..(start + len) as usize];
                    // `all` is false at the first comparison not true, `any` true at the
                    // first true one, as the fold settles.
                    let settles = compares.iter().any(|&(o, a, b)| {
                        (compare(o, vals[a as usize], vals[b as usize]) == Value::Bool(true)) != all
                    });
                    stack[top] = Value::Bool(settles != all);
                    top += 1;
                }
                Op::Unary(op) => stack[top - 1] = unary(*op, stack[top - 1]),
                Op::Binary(op) => {
                    top -= 1;
                    stack[top - 1] = binary(*op, stack[top - 1], stack[top]);
                }
                Op::ToInt(ints) => stack[top - 1] = to_int(stack[top - 1], ints),
                Op::ToValue(ints) => stack[top - 1] = to_value(stack[top - 1], ints),
                Op::And(end) => {
                    if stack[top - 1] == Value::Bool(true) {
                        top -= 1;
                    } else {
                        stack[top - 1] = Value::Bool(false);
                        at = *end as usize;
                    }
                }
                Op::Or(end) => {
                    if stack[top - 1] == Value::Bool(true) {
                        at = *end as usize;
                    } else {
                        top -= 1;
                    }
                }
                Op::Truth => stack[top - 1] = Value::Bool(stack[top - 1] == Value::Bool(true)),
                Op::Fold(op) => {
                    folds[open] = Some(Fold::new(*op));
                    open += 1;
                }
                Op::When(next) => {
                    top -= 1;
                    if stack[top] != Value::Bool(true) {
                        at = *next as usize;
                    }
                }
                Op::Add(end) => {
                    top -= 1;
                    let fold = folds[open - 1].as_mut().expect("a fold is open");
                    if fold.add(stack[top]) {
                        at = *end as usize;
                    }
                }
                Op::End => {
                    open -= 1;
                    stack[top] = folds[open].take().expect("a fold is open").finish();
                    top += 1;
                }
            }
        }
        debug_assert_eq!((top, open), (1, 0));
        stack[0]
    }
}

/// The value of a fold whose matches are all constants (a run's count of cells), as
/// evaluating it gives; `None` where one is not.
fn constant_fold(op: AggOp, items: &[super::ground::Item]) -> Option<Value> {
    let mut fold = Fold::new(op);
    for item in items {
        match (&item.when, &item.body) {
            (Term::Const(Value::Bool(true)), Term::Const(v)) => {
                if fold.add(*v) {
                    break;
                }
            }
            (Term::Const(Value::Bool(true)), _) => return None,
            // A match whose condition is another constant never counts.
            (Term::Const(_), _) => {}
            _ => return None,
        }
    }
    Some(fold.finish())
}

/// Values and folds stacked at most for the stacks to live in arrays.
const SHALLOW: usize = 16;
const SHALLOW_FOLDS: usize = 4;

/// `binary(op, ...)` of two slots' values: filled slots hold values, which compare as their
/// indices (one less than the bytes); an empty one is `none`, left to `binary`, as is an
/// operator other than a comparison (never fused).
#[inline]
fn compare(op: BinOp, a: u8, b: u8) -> Value {
    let holds = match op {
        _ if a == 0 || b == 0 => None,
        BinOp::Eq => Some(a == b),
        BinOp::Ne => Some(a != b),
        BinOp::Lt => Some(a < b),
        BinOp::Le => Some(a <= b),
        BinOp::Gt => Some(a > b),
        BinOp::Ge => Some(a >= b),
        _ => None,
    };
    holds.map_or_else(|| binary(op, slot_value(a), slot_value(b)), Value::Bool)
}

#[cfg(test)]
mod tests {
    use super::super::ground::tests::terms;
    use super::super::ground::Item;
    use super::*;

    fn slot(s: u32) -> Box<Term> {
        Box::new(Term::Slot(s))
    }

    /// Terms with `and`, and with operands that are not booleans where one is read as a
    /// condition, beside the grounding tests' terms.
    fn more_terms() -> Vec<Term> {
        let lt = |a, b| Box::new(Term::Binary(BinOp::Lt, slot(a), slot(b)));
        let none = Box::new(Term::Const(Value::None));
        vec![
            Term::Binary(
                BinOp::And,
                lt(0, 1),
                Box::new(Term::Binary(BinOp::Ne, slot(2), none)),
            ),
            Term::Binary(BinOp::And, slot(0), lt(1, 2)),
            Term::Binary(BinOp::Or, slot(1), lt(2, 0)),
            Term::Binary(
                BinOp::Or,
                Box::new(Term::Binary(BinOp::And, lt(0, 1), lt(1, 2))),
                Box::new(Term::Binary(BinOp::Ge, slot(0), slot(2))),
            ),
            // Matches that count never, always, or where a slot is below another.
            Term::Fold(
                AggOp::Max,
                [Value::Bool(false), Value::None, Value::Bool(true)]
                    .into_iter()
                    .map(Term::Const)
                    .chain([*lt(1, 2)])
                    .enumerate()
                    .map(|(k, when)| Item {
                        when,
                        body: *slot(k as u32 % 3),
                    })
                    .collect(),
            ),
        ]
        .into_iter()
        .chain(extremes_and_constant_folds())
        .collect()
    }

    /// Folds laid out as one operation: the `max` and `min` of slots whose every match
    /// counts (a slot twice, beside one not read), and folds of constants only (a count,
    /// a sum that a match never counting leaves alone, an `any` settled part way).
    fn extremes_and_constant_folds() -> Vec<Term> {
        let item = |when: Term, body: Term| Item { when, body };
        let yes = || Term::Const(Value::Bool(true));
        let over_slots = |op| {
            Term::Fold(
                op,
                [0, 2, 0]
                    .map(|s| item(yes(), *slot(s)))
                    .into_iter()
                    .collect(),
            )
        };
        let constants = |op, values: &[(bool, Value)]| {
            Term::Fold(
                op,
                (values.iter())
                    .map(|&(counts, v)| item(Term::Const(Value::Bool(counts)), Term::Const(v)))
                    .collect(),
            )
        };
        let spread = Term::Binary(
            BinOp::Ge,
            Box::new(Term::Binary(
                BinOp::Sub,
                Box::new(Term::ToInt(
                    Box::new(over_slots(AggOp::Max)),
                    Arc::from([1, 2, 3, 4]),
                )),
                Box::new(Term::ToInt(
                    Box::new(over_slots(AggOp::Min)),
                    Arc::from([1, 2, 3, 4]),
                )),
            )),
            Box::new(constants(AggOp::Count, &[(true, Value::Bool(true)); 3])),
        );
        vec![
            over_slots(AggOp::Max),
            over_slots(AggOp::Min),
            Term::Fold(AggOp::Max, Vec::new()),
            spread,
            constants(
                AggOp::Sum,
                &[
                    (true, Value::Int(4)),
                    (false, Value::Int(9)),
                    (true, Value::Int(-1)),
                ],
            ),
            constants(
                AggOp::Any,
                &[
                    (true, Value::Bool(false)),
                    (true, Value::Bool(true)),
                    (true, Value::Int(3)),
                ],
            ),
            constants(
                AggOp::Min,
                &[
                    (true, Value::Int(4)),
                    (true, Value::None),
                    (true, Value::Int(2)),
                ],
            ),
        ]
    }

    /// Those folds are laid out as one operation each, a program evaluates them as their
    /// terms do (see [`programs_evaluate_as_their_terms_do`]), and renamed they read the
    /// renamed slots.
    #[test]
    fn extremes_and_constant_folds_take_one_operation() {
        for t in extremes_and_constant_folds() {
            let program = TermProgram::new(&t);
            assert!(
                !program.ops.iter().any(|op| matches!(op, Op::Fold(_))),
                "{t:?}"
            );
        }
        let max = TermProgram::new(&extremes_and_constant_folds()[0]);
        let renamed = max.renamed(|s| 2 - s);
        for code in 0..5u32.pow(3) {
            let vals: Vec<u8> = (0..3).map(|s| (code / 5u32.pow(s) % 5) as u8).collect();
            let mirrored: Vec<u8> = vals.iter().rev().copied().collect();
            assert_eq!(renamed.eval(&mirrored), max.eval(&vals), "{vals:?}");
        }
    }

    /// The program's value is the term's on every assignment of three slots, empty ones
    /// included.
    #[test]
    fn programs_evaluate_as_their_terms_do() {
        let (mut checked, mut fused) = (0, 0);
        for t in terms().into_iter().chain(more_terms()) {
            let program = TermProgram::new(&t);
            fused += program
                .ops
                .iter()
                .filter(|op| matches!(op, Op::AllCompare { .. }))
                .count();
            for code in 0..5u32.pow(3) {
                let vals: Vec<u8> = (0..3).map(|s| (code / 5u32.pow(s) % 5) as u8).collect();
                assert_eq!(program.eval(&vals), t.eval(&vals), "{t:?} at {vals:?}");
                checked += 1;
            }
        }
        assert!(checked > 1_000);
        // Every `all` and `any` of comparisons is one operation: the sight line's two
        // with matches (the third, with none, is a constant), and the `any` and the
        // `all` of every comparison.
        assert_eq!(fused, 4, "folds of comparisons in one operation");
    }

    /// Slots compared one operation at a time, filled or empty, as `binary` compares them.
    #[test]
    fn compared_slots_are_compared_as_values() {
        for op in [
            BinOp::Eq,
            BinOp::Ne,
            BinOp::Lt,
            BinOp::Le,
            BinOp::Gt,
            BinOp::Ge,
        ] {
            for a in 0..4u8 {
                for b in 0..4u8 {
                    assert_eq!(
                        compare(op, a, b),
                        binary(op, slot_value(a), slot_value(b)),
                        "{op:?} {a} {b}"
                    );
                }
            }
        }
    }
}
