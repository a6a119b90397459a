//! pest's parse tree to the spanned AST. The grammar guarantees each rule's shape, so a
//! missing child is a grammar bug; it still never panics but yields a placeholder.

use pest::iterators::Pair;

use super::ast::*;
use super::Rule;
use crate::diag::{Diagnostic, Span};
use crate::rule::{BinOp, UnOp};

/// Builds AST nodes and collects the few errors the grammar cannot see (numbers too large).
#[derive(Default)]
pub struct Builder {
    pub diags: Vec<Diagnostic>,
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

fn span_of(p: &Pair<Rule>) -> Span {
    let s = p.as_span();
    Span::new(s.start(), s.end())
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
            Rule::edges_decl => Item::Edges(self.edges_decl(p)),
            Rule::start_block => {
                let span = span_of(&p);
                let body = kids(p).next().map(raw_block)?;
                Item::Start(StartBlock { body, span })
            }
            Rule::rule_decl => Item::Rule(self.rule_decl(p)),
            Rule::final_decl => {
                let span = span_of(&p);
                let cond = self.cond(kids(p).next()?);
                Item::Final(FinalDecl { cond, span })
            }
            _ => return None,
        })
    }

    fn int(&mut self, p: &Pair<Rule>) -> i64 {
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

    fn attr_inits(&mut self, p: Pair<Rule>) -> Vec<AttrInit> {
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
        GridDecl { dims, kind, span }
    }

    fn groups_decl(&mut self, p: Pair<Rule>) -> GroupsDecl {
        let span = span_of(&p);
        let mut shapes = Vec::new();
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
                _ => continue,
            };
            shapes.push(GroupShape { kind, span });
        }
        GroupsDecl { shapes, via, span }
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

    fn rule_decl(&mut self, p: Pair<Rule>) -> RuleDecl {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let mut params = Vec::new();
        let mut elems = Vec::new();
        let mut effects = Vec::new();
        let mut pattern_span: Option<Span> = None;
        for c in it {
            match c.as_rule() {
                Rule::params => {
                    for q in kids(c) {
                        let span = span_of(&q);
                        let mut it = kids(q);
                        let name = next_ident(&mut it);
                        let Some(ty) = it.next() else { continue };
                        let ty = self.type_name(ty);
                        params.push(Param { name, ty, span });
                    }
                }
                Rule::set_effect | Rule::new_effect | Rule::del_effect => {
                    if let Some(e) = self.effect(c) {
                        effects.push(e);
                    }
                }
                _ => {
                    let s = span_of(&c);
                    pattern_span = Some(pattern_span.map_or(s, |p| p.to(s)));
                    if let Some(e) = self.pattern_elem(c) {
                        elems.push(e);
                    }
                }
            }
        }
        let pattern = PatternBlock {
            elems,
            span: pattern_span.unwrap_or(name.span),
        };
        RuleDecl {
            name,
            params,
            pattern,
            effects,
            span,
        }
    }

    fn pattern_block(&mut self, p: Pair<Rule>) -> PatternBlock {
        let span = span_of(&p);
        let elems = kids(p).filter_map(|c| self.pattern_elem(c)).collect();
        PatternBlock { elems, span }
    }

    fn pattern_elem(&mut self, p: Pair<Rule>) -> Option<PatternElem> {
        Some(match p.as_rule() {
            Rule::nac => PatternElem::Not(self.pattern_block(p)),
            Rule::where_cond => PatternElem::Where(self.expr(kids(p).next()?)),
            Rule::chain => {
                let span = span_of(&p);
                let mut it = kids(p);
                let first = self.node_ref(it.next()?);
                let mut steps = Vec::new();
                while let (Some(s), Some(n)) = (it.next(), it.next()) {
                    steps.push((self.edge_step(s), self.node_ref(n)));
                }
                PatternElem::Chain(Chain { first, steps, span })
            }
            _ => return None,
        })
    }

    fn node_ref(&mut self, p: Pair<Rule>) -> NodeRef {
        let span = span_of(&p);
        let mut it = kids(p);
        let name = next_ident(&mut it);
        let mut ty = None;
        let mut conds = Vec::new();
        for c in it {
            match c.as_rule() {
                Rule::ident => ty = Some(ident(c)),
                Rule::node_conds => conds = kids(c).map(|e| self.expr(e)).collect(),
                _ => {}
            }
        }
        NodeRef {
            name,
            ty,
            conds,
            span,
        }
    }

    fn edge_step(&mut self, p: Pair<Rule>) -> EdgeStep {
        let span = span_of(&p);
        let dir = if p.as_rule() == Rule::edge_in {
            Dir::In
        } else {
            Dir::Out
        };
        let path = match kids(p).next() {
            Some(c) => self.path(c),
            None => Path {
                kind: PathKind::Alt(Vec::new()),
                span,
            },
        };
        EdgeStep { dir, path, span }
    }

    /// `path`, `path_seq`, `path_unary` or an ident inside parentheses.
    fn path(&mut self, p: Pair<Rule>) -> Path {
        let span = span_of(&p);
        match p.as_rule() {
            Rule::path | Rule::path_seq => {
                let alt = p.as_rule() == Rule::path;
                let mut parts: Vec<Path> = kids(p).map(|c| self.path(c)).collect();
                if parts.len() == 1 {
                    if let Some(one) = parts.pop() {
                        return one;
                    }
                }
                let kind = if alt {
                    PathKind::Alt(parts)
                } else {
                    PathKind::Seq(parts)
                };
                Path { kind, span }
            }
            Rule::path_unary => {
                let mut inverses = 0;
                let mut atom: Option<Path> = None;
                let mut out: Option<Path> = None;
                for c in kids(p) {
                    match c.as_rule() {
                        Rule::inverse => inverses += 1,
                        Rule::path_op => {
                            let inner = Box::new(out.take().or(atom.take()).unwrap_or(Path {
                                kind: PathKind::Alt(Vec::new()),
                                span,
                            }));
                            let s = inner.span.to(span_of(&c));
                            let kind = match c.as_str() {
                                "*" => PathKind::Star(inner),
                                "+" => PathKind::Plus(inner),
                                _ => PathKind::Opt(inner),
                            };
                            out = Some(Path { kind, span: s });
                        }
                        _ => atom = Some(self.path(c)),
                    }
                }
                let mut path = out.or(atom).unwrap_or(Path {
                    kind: PathKind::Alt(Vec::new()),
                    span,
                });
                // Postfix operators bind tighter than `~`: `~gr*` is `~(gr*)`.
                for _ in 0..inverses {
                    path = Path {
                        kind: PathKind::Inverse(Box::new(path)),
                        span,
                    };
                }
                path
            }
            _ => Path {
                kind: PathKind::Label(ident(p)),
                span,
            },
        }
    }

    fn effect(&mut self, p: Pair<Rule>) -> Option<Effect> {
        let span = span_of(&p);
        let rule = p.as_rule();
        let mut it = kids(p);
        Some(match rule {
            Rule::set_effect => {
                let node = next_ident(&mut it);
                let attr = next_ident(&mut it);
                let value = self.expr(it.next()?);
                Effect::Set {
                    node,
                    attr,
                    value,
                    span,
                }
            }
            Rule::new_effect => {
                let c = it.next()?;
                match c.as_rule() {
                    Rule::new_node => {
                        let mut it = kids(c);
                        let name = next_ident(&mut it);
                        let ty = next_ident(&mut it);
                        let attrs = it.next().map(|a| self.attr_inits(a)).unwrap_or_default();
                        Effect::NewNode {
                            name,
                            ty,
                            attrs,
                            span,
                        }
                    }
                    _ => {
                        let (src, step, tgt) = self.edge_effect(c)?;
                        Effect::NewEdge {
                            src,
                            step,
                            tgt,
                            span,
                        }
                    }
                }
            }
            Rule::del_effect => {
                let c = it.next()?;
                match c.as_rule() {
                    Rule::del_node => Effect::DelNode {
                        name: next_ident(&mut kids(c)),
                        span,
                    },
                    _ => {
                        let (src, step, tgt) = self.edge_effect(c)?;
                        Effect::DelEdge {
                            src,
                            step,
                            tgt,
                            span,
                        }
                    }
                }
            }
            _ => return None,
        })
    }

    fn edge_effect(&mut self, p: Pair<Rule>) -> Option<(Ident, EdgeStep, Ident)> {
        let mut it = kids(p);
        let src = ident(it.next()?);
        let step = self.edge_step(it.next()?);
        let tgt = ident(it.next()?);
        Some((src, step, tgt))
    }

    fn cond(&mut self, p: Pair<Rule>) -> Cond {
        let span = span_of(&p);
        match p.as_rule() {
            Rule::cond | Rule::cond_and => {
                let or = p.as_rule() == Rule::cond;
                let mut parts: Vec<Cond> = kids(p).map(|c| self.cond(c)).collect();
                if parts.len() == 1 {
                    if let Some(one) = parts.pop() {
                        return one;
                    }
                }
                let kind = if or {
                    CondKind::Or(parts)
                } else {
                    CondKind::And(parts)
                };
                Cond { kind, span }
            }
            Rule::cond_not => {
                let children: Vec<_> = kids(p).collect();
                let nots = children
                    .iter()
                    .filter(|c| c.as_rule() == Rule::negation)
                    .count();
                let mut c = match children.into_iter().find(|c| c.as_rule() != Rule::negation) {
                    Some(atom) => self.cond(atom),
                    None => Cond {
                        kind: CondKind::And(Vec::new()),
                        span,
                    },
                };
                for _ in 0..nots {
                    c = Cond {
                        kind: CondKind::Not(Box::new(c)),
                        span,
                    };
                }
                c
            }
            _ => Cond {
                kind: CondKind::Pattern(self.pattern_block(p)),
                span,
            },
        }
    }

    pub fn expr(&mut self, p: Pair<Rule>) -> Expr {
        let span = span_of(&p);
        let rule = p.as_rule();
        match rule {
            Rule::expr => match kids(p).next() {
                Some(c) => self.expr(c),
                None => placeholder(span),
            },
            Rule::or_expr | Rule::and_expr => {
                let op = if rule == Rule::or_expr {
                    BinOp::Or
                } else {
                    BinOp::And
                };
                let mut it = kids(p);
                let mut acc = match it.next() {
                    Some(c) => self.expr(c),
                    None => return placeholder(span),
                };
                for c in it {
                    let rhs = self.expr(c);
                    acc = binary(op, acc, rhs);
                }
                acc
            }
            Rule::cmp_expr | Rule::sum | Rule::product => {
                let mut it = kids(p);
                let mut acc = match it.next() {
                    Some(c) => self.expr(c),
                    None => return placeholder(span),
                };
                while let (Some(op), Some(c)) = (it.next(), it.next()) {
                    let rhs = self.expr(c);
                    acc = binary(bin_op(op.as_str()), acc, rhs);
                }
                acc
            }
            Rule::not_expr | Rule::unary => {
                let children: Vec<_> = kids(p).collect();
                let ops = children
                    .iter()
                    .filter(|c| matches!(c.as_rule(), Rule::negation | Rule::minus))
                    .count();
                let op = if rule == Rule::not_expr {
                    UnOp::Not
                } else {
                    UnOp::Neg
                };
                let mut e = match children
                    .into_iter()
                    .find(|c| !matches!(c.as_rule(), Rule::negation | Rule::minus))
                {
                    Some(c) => self.expr(c),
                    None => return placeholder(span),
                };
                for _ in 0..ops {
                    e = Expr {
                        kind: ExprKind::Unary(op, Box::new(e)),
                        span,
                    };
                }
                // `-5` is the literal, so that `i64::MIN`-like edge cases stay constants.
                if let ExprKind::Unary(UnOp::Neg, inner) = &e.kind {
                    if let ExprKind::Int(n) = inner.kind {
                        if ops == 1 {
                            return Expr {
                                kind: ExprKind::Int(-n),
                                span,
                            };
                        }
                    }
                }
                e
            }
            Rule::abs_call => match kids(p).next() {
                Some(c) => Expr {
                    kind: ExprKind::Unary(UnOp::Abs, Box::new(self.expr(c))),
                    span,
                },
                None => placeholder(span),
            },
            Rule::int => Expr {
                kind: ExprKind::Int(self.int(&p)),
                span,
            },
            Rule::none => Expr {
                kind: ExprKind::None,
                span,
            },
            Rule::true_lit => Expr {
                kind: ExprKind::Bool(true),
                span,
            },
            Rule::false_lit => Expr {
                kind: ExprKind::Bool(false),
                span,
            },
            Rule::quoted => Expr {
                kind: ExprKind::Quoted(
                    kids(p)
                        .next()
                        .map(|t| t.as_str().to_string())
                        .unwrap_or_default(),
                ),
                span,
            },
            Rule::attr_ref => {
                let mut it = kids(p);
                let node = next_ident(&mut it);
                let attr = next_ident(&mut it);
                Expr {
                    kind: ExprKind::Attr(node, attr),
                    span,
                }
            }
            _ => Expr {
                kind: ExprKind::Name(p.as_str().to_string()),
                span,
            },
        }
    }
}

fn placeholder(span: Span) -> Expr {
    Expr {
        kind: ExprKind::None,
        span,
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    let span = a.span.to(b.span);
    Expr {
        kind: ExprKind::Binary(op, Box::new(a), Box::new(b)),
        span,
    }
}

fn bin_op(s: &str) -> BinOp {
    match s {
        "==" => BinOp::Eq,
        "!=" => BinOp::Ne,
        "<" => BinOp::Lt,
        "<=" => BinOp::Le,
        ">" => BinOp::Gt,
        ">=" => BinOp::Ge,
        "+" => BinOp::Add,
        "-" => BinOp::Sub,
        "*" => BinOp::Mul,
        "/" => BinOp::Div,
        _ => BinOp::Rem,
    }
}

fn raw_block(p: Pair<Rule>) -> RawBlock {
    RawBlock {
        text: p.as_str().to_string(),
        span: span_of(&p),
    }
}
