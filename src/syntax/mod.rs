//! Text to spanned AST (placeholder until the parser lands).

use crate::diag::{Diagnostic, Source, Span};

pub mod ast {
    //! The spanned syntax tree.
    #[derive(Debug, Default)]
    pub struct File;
}

pub fn parse(_source: &Source) -> Result<ast::File, Vec<Diagnostic>> {
    Err(vec![Diagnostic::error(Span::default(), "parser not built yet")])
}
