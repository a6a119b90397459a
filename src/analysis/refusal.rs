//! Typed refusals: why a grammar is not slot-filling, not monotone or not focus sound.

use std::fmt;

use crate::diag::{Source, Span};

/// Which property of the grammar a [`Refusal`] denies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// The rules do not only fill slots: the packed slot engine cannot take the grammar,
    /// which then runs on whole graphs.
    NotSlot,
    /// The rules are not monotone (conditions 1 to 3 of the soundness proof in the analysis): whole graphs
    /// must be matched in every state.
    NotMonotone,
    /// Monotone, but `--expand focus` could miss final states on this start graph (blocking
    /// is not symmetric, or the check could not be completed).
    NotFocusSound,
}

/// Why a grammar lacks a property, with the place in the file that shows it (the default
/// span when no one place does).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The rule, NAC or condition that shows it.
    pub span: Span,
    /// Which property is lacking.
    pub kind: RefusalKind,
    /// Why, in one line.
    pub reason: String,
}

impl Refusal {
    /// A refusal of `kind` at `span`.
    pub fn new(span: Span, kind: RefusalKind, reason: impl Into<String>) -> Refusal {
        Refusal {
            span,
            kind,
            reason: reason.into(),
        }
    }
}

impl Refusal {
    /// `file:line:col: reason`, as the command line prints a refusal.
    pub fn located(&self, source: &Source) -> String {
        let (line, col) = source.line_col(self.span.start);
        format!("{}:{line}:{col}: {}", source.name, self.reason)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.reason)
    }
}

/// `Err` of a [`Refusal`], for validators that return early.
pub fn refuse<T>(span: Span, kind: RefusalKind, reason: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal::new(span, kind, reason))
}
