//! pest's parse tree to the spanned AST: rules, patterns, paths, effects and conditions.

use pest::iterators::Pair;

use super::{ident, kids, next_ident, span_of, Builder};
use crate::diag::Span;
use crate::syntax::ast::*;
use crate::syntax::Rule;

impl Builder {
    pub(super) fn rule_decl(&mut self, p: Pair<Rule>) -> RuleDecl {
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

    pub(super) fn pattern_block(&mut self, p: Pair<Rule>) -> PatternBlock {
        let span = span_of(&p);
        if !self.enter(span) {
            return PatternBlock {
                elems: Vec::new(),
                span,
            };
        }
        let elems = kids(p).filter_map(|c| self.pattern_elem(c)).collect();
        self.leave();
        PatternBlock { elems, span }
    }

    pub(super) fn pattern_elem(&mut self, p: Pair<Rule>) -> Option<PatternElem> {
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

    pub(super) fn edge_step(&mut self, p: Pair<Rule>) -> EdgeStep {
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
        let empty = Path {
            kind: PathKind::Alt(Vec::new()),
            span,
        };
        match p.as_rule() {
            Rule::path | Rule::path_seq => {
                let alt = p.as_rule() == Rule::path;
                if alt && !self.enter(span) {
                    return empty;
                }
                let mut parts: Vec<Path> = kids(p).map(|c| self.path(c)).collect();
                if alt {
                    self.leave();
                }
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
                if p.clone().into_inner().count() > super::MAX_CHAIN {
                    self.too_deep(span);
                    return empty;
                }
                let mut inverses = 0;
                let mut atom: Option<Path> = None;
                let mut out: Option<Path> = None;
                for c in kids(p) {
                    match c.as_rule() {
                        Rule::inverse => inverses += 1,
                        Rule::path_op => {
                            let inner =
                                Box::new(out.take().or(atom.take()).unwrap_or(empty.clone()));
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
                let mut path = out.or(atom).unwrap_or(empty);
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

    pub(super) fn cond(&mut self, p: Pair<Rule>) -> Cond {
        let span = span_of(&p);
        match p.as_rule() {
            Rule::cond | Rule::cond_and => {
                let or = p.as_rule() == Rule::cond;
                if or && !self.enter(span) {
                    let kind = CondKind::And(Vec::new());
                    return Cond { kind, span };
                }
                let mut parts: Vec<Cond> = kids(p).map(|c| self.cond(c)).collect();
                if or {
                    self.leave();
                }
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
                if nots > super::MAX_CHAIN {
                    self.too_deep(span);
                    let kind = CondKind::And(Vec::new());
                    return Cond { kind, span };
                }
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
}
