//! pest's parse tree to the spanned AST: declarations and the shared helpers. The grammar guarantees each rule's shape, so a
//! missing child is a grammar bug; it still never panics but yields a placeholder.

use pest::iterators::Pair;

mod expr;
mod rule;

use super::ast::*;
use super::Rule;
use crate::diag::{Diagnostic, Span};

/// Deepest nesting of parentheses, NACs, conditions and paths. Deeper input is an error
/// rather than a stack overflow in the recursive passes that follow.
const MAX_NESTING: u32 = 64;

/// Deepest chain of operators in one expression or path (`1 + 1 + ...`, `not not ...`).
const MAX_CHAIN: usize = 256;

/// Builds AST nodes and collects the few errors the grammar cannot see (numbers too large,
/// nesting too deep).
#[derive(Default)]
pub struct Builder {
    pub diags: Vec<Diagnostic>,
    nesting: u32,
    reported_depth: bool,
}

/// The children of a pair without punctuation, which only the error messages need.
fn kids<'i>(p: Pair<'i, Rule>) -> impl Iterator<Item = Pair<'i, Rule>> {
    p.into_inner().filter(|c| !is_punct(c.as_rule()))
}

fn is_punct(r: Rule) -> bool {
    matches!(
        r,
        Rule::open_brace
            | Rule::close_brace
            | Rule::open_paren
            | Rule::close_paren
            | Rule::colon
            | Rule::comma
            | Rule::equals
            | Rule::arrow
            | Rule::dash
            | Rule::dot
    )
}

/// The pair's span without the blanks pest skips before an optional part that is absent.
fn span_of(p: &Pair<Rule>) -> Span {
    let s = p.as_span();
    let text = p.as_str();
    Span::new(s.start(), s.start() + text.trim_end().len())
}

fn ident(p: Pair<Rule>) -> Ident {
    // `list_name` wraps an ident and may carry trailing blanks from its lookahead.
    let p = match p.as_rule() {
        Rule::list_name => match p.into_inner().next() {
            Some(inner) => inner,
            None => {
                return Ident {
                    name: String::new(),
                    span: Span::default(),
                }
            }
        },
        _ => p,
    };
    Ident {
        name: p.as_str().to_string(),
        span: span_of(&p),
    }
}

/// The next child as a name; a placeholder if the grammar ever failed to provide one.
fn next_ident<'i>(it: &mut impl Iterator<Item = Pair<'i, Rule>>) -> Ident {
    match it.next() {
        Some(p) => ident(p),
        None => Ident {
            name: String::new(),
            span: Span::default(),
        },
    }
}

impl Builder {
    /// Enters one level of nesting; false (after one error per file) when it is too deep.
    fn enter(&mut self, span: Span) -> bool {
        if self.nesting >= MAX_NESTING {
            self.too_deep(span);
            return false;
        }
        self.nesting += 1;
        true
    }

    fn leave(&mut self) {
        self.nesting = self.nesting.saturating_sub(1);
    }

    fn too_deep(&mut self, span: Span) {
        if !std::mem::replace(&mut self.reported_depth, true) {
            self.diags.push(Diagnostic::error(
                span,
                format!(
                    "nested too deeply: expected at most {MAX_NESTING} levels of parentheses, NACs or conditions and at most {MAX_CHAIN} chained operators"
                ),
            ));
        }
    }

    pub fn file(&mut self, p: Pair<Rule>) -> File {
        let span = span_of(&p);
        let items = p
            .into_inner()
            .filter(|c| c.as_rule() != Rule::EOI)
            .filter_map(|c| self.item(c))
            .collect();
        File { items, span }
    }

    fn item(&mut self, p: Pair<Rule>) -> Option<Item> {
        Some(match p.as_rule() {
            Rule::values_decl => Item::Values(self.values_decl(p)),
            Rule::node_decl => Item::Node(self.node_decl(p)),
            Rule::edge_decl => {
                let span = span_of(&p);
                let mut it = kids(p);
                Item::Edge(EdgeDecl {
                    name: next_ident(&mut it),
                    source: next_ident(&mut it),
                    target: next_ident(&mut it),
                    span,
                })
            }
            Rule::node_def => Item::NodeDef(self.node_def(p)),
            Rule::edge_def => Item::EdgeDef(self.edge_def(p)),
            Rule::grid_decl => Item::Grid(self.grid_decl(p)),
            Rule::groups_decl => Item::Groups(self.groups_decl(p)),
            Rule::group_decl => Item::Group(self.group_decl(p)),
            Rule::line_decl => Item::Line(self.line_decl(p)),
            Rule::edges_decl => Item::Edges(self.edges_decl(p)),
            Rule::start_block => {
                let span = span_of(&p);
                let body = kids(p).next().map(raw_block)?;
                Item::Start(StartBlock { body, span })
            }
            Rule::rule_decl => Item::Rule(self.rule_decl(p)),
            Rule::layer_decl => Item::Layer(layer_decl(p)),
            Rule::final_decl => {
                let span = span_of(&p);
                let cond = self.cond(kids(p).next()?);
                Item::Final(FinalDecl { cond, span })
            }
            Rule::forbid_decl => {
                let span = span_of(&p);
                let pattern = self.pattern_block(p);
                Item::Forbid(ForbidDecl { pattern, span })
            }
            _ => return None,
        })
    }

    pub(super) fn int(&mut self, p: &Pair<Rule>) -> i64 {
        p.as_str().parse().unwrap_or_else(|_| {
            self.diags.push(Diagnostic::error(
                span_of(p),
                format!(
                    "integer `{}` is too large: expected at most {}",
                    p.as_str(),
                    i64::MAX
                ),
            ));
            0
        })
    }

    fn dims(&mut self, p: Pair<Rule>) -> Dims {
        let span = span_of(&p);
        let mut sizes = [0u32; 2];
        for (slot, c) in sizes.iter_mut().zip(kids(p)) {
            *slot = c.as_str().parse().unwrap_or_else(|_| {
                self.diags.push(Diagnostic::error(
                    span_of(&c),
                    format!("size `{}` is too large", c.as_str()),
                ));
                0
            });
        }
        Dims {
            rows: sizes[0],
            cols: sizes[1],
            span,
        }
    }

    fn values_decl(&mut self, p: Pair<Rule>) -> ValuesDecl {
        let span = span_of(&p);
        let mut items = Vec::new();
        for c in kids(p) {
            let span = span_of(&c);
            let kind = match c.as_rule() {
                Rule::int_range => {
                    let ends: Vec<_> = kids(c).collect();
                    match ends.as_slice() {
                        [a, b] => ValueItemKind::IntRange(self.int(a), self.int(b)),
                        _ => continue,
                    }
                }
                Rule::letter_range => {
                    let ends: Vec<char> = c
                        .into_inner()
                        .filter_map(|l| l.as_str().chars().next())
                        .collect();
                    match ends.as_slice() {
                        [a, b] => ValueItemKind::LetterRange(*a, *b),
                        _ => continue,
                    }
                }
                Rule::int => ValueItemKind::Int(self.int(&c)),
                _ => ValueItemKind::Name(ident(c).name),
            };
            items.push(ValueItem { kind, span });
        }
        ValuesDecl { items, span }
    }

    fn type_name(&mut self, p: Pair<Rule>) -> TypeName {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let optional = it.next().is_some();
        TypeName {
            name,
            optional,
            span,
        }
    }

    fn node_decl(&mut self, p: Pair<Rule>) -> NodeDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let mut parent = None;
        let mut attrs = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::supertype => parent = kids(c).next().map(ident),
                Rule::attr_decls => {
                    for a in kids(c) {
                        let span = span_of(&a);
                        let mut it = kids(a);
                        let name = next_ident(&mut it);
                        let Some(ty) = it.next() else { continue };
                        let ty = self.type_name(ty);
                        attrs.push(AttrDecl { name, ty, span });
                    }
                }
                _ => {}
            }
        }
        NodeDecl {
            name,
            parent,
            attrs,
            span,
        }
    }

    pub(super) fn attr_inits(&mut self, p: Pair<Rule>) -> Vec<AttrInit> {
        let mut out = Vec::new();
        for a in kids(p) {
            let span = span_of(&a);
            let mut it = kids(a);
            let name = next_ident(&mut it);
            let Some(e) = it.next() else { continue };
            let value = self.expr(e);
            out.push(AttrInit { name, value, span });
        }
        out
    }

    fn node_def(&mut self, p: Pair<Rule>) -> NodeDef {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let ty = next_ident(&mut it);
        let attrs = it.next().map(|a| self.attr_inits(a)).unwrap_or_default();
        NodeDef {
            name,
            ty,
            attrs,
            span,
        }
    }

    fn edge_def(&mut self, p: Pair<Rule>) -> EdgeDef {
        let span = span_of(&p);
        let mut it = kids(p);
        let first = next_ident(&mut it);
        let mut steps = Vec::new();
        while let (Some(s), Some(n)) = (it.next(), it.next()) {
            steps.push((self.edge_step(s), ident(n)));
        }
        EdgeDef { first, steps, span }
    }

    fn grid_decl(&mut self, p: Pair<Rule>) -> GridDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let dims = match it.next() {
            Some(d) => self.dims(d),
            None => Dims {
                rows: 0,
                cols: 0,
                span,
            },
        };
        let mut shape = None;
        let kind = match it.next() {
            Some(k) if k.as_rule() == Rule::grid_of => {
                let mut it = kids(k);
                let ty = next_ident(&mut it);
                let given = it.next().and_then(|g| kids(g).next()).map(ident);
                GridKind::Of { ty, given }
            }
            Some(k) => {
                let mut names = Vec::new();
                let mut given = None;
                for c in kids(k) {
                    match c.as_rule() {
                        Rule::grid_given => given = kids(c).next().map(ident),
                        _ => names.push(ident(c)),
                    }
                }
                GridKind::Names { names, given }
            }
            None => GridKind::Names {
                names: Vec::new(),
                given: None,
            },
        };
        if let Some(s) = it.next() {
            shape = kids(s).next().map(raw_block);
        }
        GridDecl {
            dims,
            kind,
            shape,
            span,
        }
    }

    fn groups_decl(&mut self, p: Pair<Rule>) -> GroupsDecl {
        let span = span_of(&p);
        let mut shapes = Vec::new();
        let mut within = None;
        let mut via = None;
        for c in kids(p) {
            let span = span_of(&c);
            let kind = match c.as_rule() {
                Rule::shape_rows => GroupShapeKind::Rows,
                Rule::shape_columns => GroupShapeKind::Columns,
                Rule::shape_diagonals => GroupShapeKind::Diagonals,
                Rule::shape_boxes => match kids(c).next() {
                    Some(d) => GroupShapeKind::Boxes(self.dims(d)),
                    None => continue,
                },
                Rule::shape_regions => match kids(c).next() {
                    Some(b) => GroupShapeKind::Regions(raw_block(b)),
                    None => continue,
                },
                Rule::via => {
                    via = kids(c).next().map(ident);
                    continue;
                }
                Rule::sub_grid => {
                    within = kids(c).next().map(|g| self.sub_grid(g, span));
                    continue;
                }
                _ => continue,
            };
            shapes.push(GroupShape { kind, span });
        }
        GroupsDecl {
            shapes,
            within,
            via,
            span,
        }
    }

    /// `block RxC at CELL ...` or `lattice RxC at CELL ... step S [blocks BxC]`.
    fn sub_grid(&mut self, p: Pair<Rule>, span: Span) -> SubGrid {
        let is_lattice = p.as_rule() == Rule::sub_lattice;
        let mut dims = None;
        let mut anchors = Vec::new();
        let mut step = None;
        let mut blocks = None;
        for c in kids(p) {
            match c.as_rule() {
                Rule::dims => dims = Some(self.dims(c)),
                Rule::anchors => anchors = kids(c).map(ident).collect(),
                Rule::step_size => {
                    let span = span_of(&c);
                    step = kids(c).next().map(|s| match s.as_rule() {
                        Rule::dims => self.dims(s),
                        _ => {
                            let n = u32::try_from(self.int(&s)).unwrap_or(0);
                            Dims {
                                rows: n,
                                cols: n,
                                span,
                            }
                        }
                    });
                }
                Rule::lattice_blocks => blocks = kids(c).next().map(|d| self.dims(d)),
                _ => {}
            }
        }
        let dims = dims.unwrap_or(Dims {
            rows: 0,
            cols: 0,
            span,
        });
        let lattice = is_lattice.then(|| Lattice {
            step: step.unwrap_or(Dims {
                rows: 0,
                cols: 0,
                span,
            }),
            blocks,
        });
        SubGrid {
            dims,
            anchors,
            lattice,
        }
    }

    fn line_decl(&mut self, p: Pair<Rule>) -> LineDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let ty = next_ident(&mut it);
        let mut members = Vec::new();
        let (mut via, mut next) = (None, None);
        for c in it {
            match c.as_rule() {
                Rule::line_members => members = kids(c).map(ident).collect(),
                Rule::via => via = kids(c).next().map(ident),
                Rule::line_next => next = kids(c).next().map(ident),
                _ => {}
            }
        }
        LineDecl {
            name,
            ty,
            members,
            via,
            next,
            span,
        }
    }

    fn group_decl(&mut self, p: Pair<Rule>) -> GroupDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let mut members = GroupMembers::List(Vec::new());
        let mut via = None;
        for c in it {
            match c.as_rule() {
                Rule::group_block => {
                    let mut it = kids(c);
                    let dims = match it.next() {
                        Some(d) => self.dims(d),
                        None => continue,
                    };
                    let at = next_ident(&mut it);
                    members = GroupMembers::Block { dims, at };
                }
                Rule::group_members => members = GroupMembers::List(kids(c).map(ident).collect()),
                Rule::via => via = kids(c).next().map(ident),
                _ => {}
            }
        }
        GroupDecl {
            name,
            members,
            via,
            span,
        }
    }

    fn edges_decl(&mut self, p: Pair<Rule>) -> EdgesDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let src = next_ident(&mut it);
        let label = next_ident(&mut it);
        let tgt = next_ident(&mut it);
        let cond = it.next().map(|e| self.expr(e));
        EdgesDecl {
            src,
            label,
            tgt,
            cond,
            span,
        }
    }
}

fn layer_decl(p: Pair<Rule>) -> LayerDecl {
    let span = span_of(&p);
    let mut it = kids(p);
    let name = next_ident(&mut it);
    let Some(k) = it.next() else {
        let attr = Ident {
            name: String::new(),
            span,
        };
        return LayerDecl {
            name,
            kind: LayerKind::Attr(attr),
            content: None,
            span,
        };
    };
    let rule = k.as_rule();
    let content = it.next().and_then(|c| kids(c).next()).map(raw_block);
    // The names in order (type or owner, then attribute), `via` and `next` apart.
    let mut names = Vec::new();
    let mut owner = None;
    let (mut via, mut next) = (None, None);
    for c in kids(k) {
        match c.as_rule() {
            Rule::via => via = kids(c).next().map(ident),
            Rule::layer_next => next = kids(c).next().map(ident),
            Rule::shape_rows => owner = Some(LayerOwner::Rows(span_of(&c))),
            Rule::shape_columns => owner = Some(LayerOwner::Columns(span_of(&c))),
            _ => names.push(ident(c)),
        }
    }
    let mut names = names.into_iter();
    let mut take = || {
        names.next().unwrap_or(Ident {
            name: String::new(),
            span,
        })
    };
    let kind = match rule {
        Rule::layer_regions => LayerKind::Regions { ty: take(), via },
        Rule::layer_lines => LayerKind::Lines {
            ty: take(),
            via,
            next,
        },
        Rule::layer_field => {
            let owner = owner.unwrap_or_else(|| LayerOwner::Layer(take()));
            LayerKind::Field {
                owner,
                attr: take(),
            }
        }
        _ => LayerKind::Attr(take()),
    };
    LayerDecl {
        name,
        kind,
        content,
        span,
    }
}

fn raw_block(p: Pair<Rule>) -> RawBlock {
    RawBlock {
        text: p.as_str().to_string(),
        span: span_of(&p),
    }
}
