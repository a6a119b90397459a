//! Text to spanned AST: the pest grammar, the tree builder and readable syntax errors.
//! pest types stay inside this module.

pub mod ast;
mod build;
mod error;

use pest::Parser;

use crate::diag::{Diagnostic, Source};

#[derive(pest_derive::Parser)]
#[grammar = "grammar/grafter.pest"]
struct GrafterParser;

/// Parses a rule file. A syntax error stops the parse and gives one diagnostic naming what
/// was expected and what was found; other errors (a number too large) are all collected.
pub fn parse(source: &Source) -> Result<ast::File, Vec<Diagnostic>> {
    let pairs = match GrafterParser::parse(Rule::file, &source.text) {
        Ok(pairs) => pairs,
        Err(e) => return Err(vec![error::to_diagnostic(&source.text, &e)]),
    };
    let mut builder = build::Builder::default();
    let file = match pairs.into_iter().next() {
        Some(p) => builder.file(p),
        None => ast::File::default(),
    };
    if builder.diags.is_empty() {
        Ok(file)
    } else {
        Err(builder.diags)
    }
}

#[cfg(test)]
mod tests;
