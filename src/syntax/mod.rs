//! Text to spanned AST: the pest grammar, the tree builder and readable syntax errors.
//! pest types stay inside this module.

pub mod ast;
mod build;
mod error;
mod recover;

use pest::Parser;

use crate::diag::{Diagnostic, Source};

#[derive(pest_derive::Parser)]
#[grammar = "grammar/grafter.pest"]
struct GrafterParser;

/// How many syntax errors one parse reports at most: after the first, each later one
/// comes from resuming at the next declaration, and a cascade helps nobody.
const MAX_SYNTAX_ERRORS: usize = 10;

/// Parses a rule file. A syntax error gives a diagnostic naming what was expected and what
/// was found; the parse then resumes at the next line that starts a declaration, so that
/// one run reports the syntax errors of every broken declaration, not only the first.
/// Other errors (a number too large) are all collected.
pub fn parse(source: &Source) -> Result<ast::File, Vec<Diagnostic>> {
    let text = source.text.as_str();
    let pairs = match GrafterParser::parse(Rule::file, text) {
        Ok(pairs) => pairs,
        Err(e) => return Err(syntax_errors(text, &e)),
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

/// The first syntax error, then those found by parsing again from each next declaration.
fn syntax_errors(text: &str, first: &pest::error::Error<Rule>) -> Vec<Diagnostic> {
    let mut diags = vec![error::explain(text, 0, first)];
    let mut at = diags[0].span.start;
    while diags.len() < MAX_SYNTAX_ERRORS {
        let Some(next) = recover::next_declaration(text, at) else {
            break;
        };
        match GrafterParser::parse(Rule::file, &text[next..]) {
            Ok(_) => break,
            Err(e) => {
                let d = error::explain(text, next, &e);
                at = d.span.start.max(next + 1);
                diags.push(d);
            }
        }
    }
    diags
}
#[cfg(test)]
mod tests;
