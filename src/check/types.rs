//! The value domain and the type graph: node types with inherited attributes, edge labels.

use std::collections::{HashMap, HashSet};

use super::{list_or, Checker};
use crate::diag::Diagnostic;
use crate::model::{
    AttrDef, AttrType, BaseType, DomainValue, EdgeLabel, NodeType, NodeTypeId, TypeSystem,
};
use crate::syntax::ast;

/// More values than a `u16` index can name would break `Value::Val`.
const MAX_VALUES: usize = u16::MAX as usize;

impl Checker<'_> {
    pub(super) fn lower_values(&mut self, decl: &ast::ValuesDecl) {
        // Names seen so far: a hash, so that a long range checks in linear time.
        let mut seen: HashSet<String> = HashSet::new();
        for item in &decl.items {
            let new: Vec<DomainValue> = match &item.kind {
                ast::ValueItemKind::Int(n) => vec![int_value(*n)],
                ast::ValueItemKind::Name(s) => vec![DomainValue {
                    name: s.clone(),
                    int: None,
                }],
                ast::ValueItemKind::IntRange(a, b) => {
                    if a > b || b - a >= MAX_VALUES as i64 {
                        self.error(
                            item.span,
                            format!("bad range `{a}..{b}`: expected a low end not above the high end and at most {MAX_VALUES} values"),
                        );
                        continue;
                    }
                    (*a..=*b).map(int_value).collect()
                }
                ast::ValueItemKind::LetterRange(a, b) => {
                    let same_case = a.is_ascii_uppercase() == b.is_ascii_uppercase();
                    if a > b || !same_case {
                        self.error(
                            item.span,
                            format!("bad range `{a}..{b}`: expected two letters of one case, the first not after the second"),
                        );
                        continue;
                    }
                    (*a..=*b)
                        .map(|c| DomainValue {
                            name: c.to_string(),
                            int: None,
                        })
                        .collect()
                }
            };
            for v in new {
                if seen.contains(&v.name) {
                    self.error(item.span, format!("duplicate value `{}`", v.name));
                } else if self.domain.len() >= MAX_VALUES {
                    self.error(
                        item.span,
                        format!("too many values: expected at most {MAX_VALUES}"),
                    );
                    return;
                } else {
                    seen.insert(v.name.clone());
                    self.domain.values.push(v);
                }
            }
        }
    }

    /// Builds the `TypeSystem` from every `node` and `edge` declaration.
    pub(super) fn lower_types(&mut self, items: &[ast::Item]) {
        let mut decls: Vec<&ast::NodeDecl> = Vec::new();
        let mut by_name: HashMap<&str, usize> = HashMap::new();
        for item in items {
            if let ast::Item::Node(d) = item {
                if let Some(&first) = by_name.get(d.name.name.as_str()) {
                    let line = self.line_of(decls[first].span);
                    self.diags.push(
                        Diagnostic::error(
                            d.name.span,
                            format!("duplicate node type `{}`", d.name.name),
                        )
                        .with_note(format!("the first is at line {line}"))
                        .with_label(decls[first].span, "the first is here"),
                    );
                    continue;
                }
                by_name.insert(&d.name.name, decls.len());
                decls.push(d);
            }
        }
        let known: Vec<String> = decls.iter().map(|d| d.name.name.clone()).collect();
        let mut parents: Vec<Option<usize>> = Vec::with_capacity(decls.len());
        for d in &decls {
            let parent = d
                .parent
                .as_ref()
                .and_then(|p| match by_name.get(p.name.as_str()) {
                    Some(&i) => Some(i),
                    None => {
                        self.error(p.span, unknown_type(&p.name, &known));
                        self.suggest_last(&p.name, &known);
                        None
                    }
                });
            parents.push(parent);
        }
        // A cycle of inheritance is cut where it closes, after one error per cycle member.
        for i in 0..decls.len() {
            let mut cur = parents[i];
            let mut steps = 0;
            while let Some(p) = cur {
                if p == i {
                    let name = &decls[i].name;
                    self.error(
                        name.span,
                        format!("node type `{}` inherits from itself", name.name),
                    );
                    parents[i] = None;
                    break;
                }
                steps += 1;
                if steps > decls.len() {
                    break;
                }
                cur = parents[p];
            }
        }
        let mut attrs: Vec<Option<Vec<AttrDef>>> = vec![None; decls.len()];
        for i in 0..decls.len() {
            self.attrs_of(i, &decls, &parents, &mut attrs);
        }
        let nodes: Vec<NodeType> = decls
            .iter()
            .enumerate()
            .map(|(i, d)| NodeType {
                name: d.name.name.clone(),
                parent: parents[i].map(NodeTypeId::from_index),
                attrs: attrs[i].take().unwrap_or_default(),
                span: d.span,
            })
            .collect();
        let mut labels: Vec<EdgeLabel> = Vec::new();
        for item in items {
            let ast::Item::Edge(e) = item else { continue };
            if let Some(first) = labels.iter().find(|l| l.name == e.name.name) {
                let line = self.line_of(first.span);
                self.diags.push(
                    Diagnostic::error(
                        e.name.span,
                        format!("duplicate edge label `{}`", e.name.name),
                    )
                    .with_note(format!("the first is at line {line}"))
                    .with_label(first.span, "the first is here"),
                );
                continue;
            }
            let ends = [&e.source, &e.target].map(|t| match by_name.get(t.name.as_str()) {
                Some(&i) => Some(NodeTypeId::from_index(i)),
                None => {
                    self.error(t.span, unknown_type(&t.name, &known));
                    self.suggest_last(&t.name, &known);
                    None
                }
            });
            if let [Some(source), Some(target)] = ends {
                labels.push(EdgeLabel {
                    name: e.name.name.clone(),
                    source,
                    target,
                    span: e.span,
                });
            }
        }
        self.types = TypeSystem::new(nodes, labels);
    }

    /// The attributes of type `i`, its parent's first; memoised in `out`.
    fn attrs_of(
        &mut self,
        i: usize,
        decls: &[&ast::NodeDecl],
        parents: &[Option<usize>],
        out: &mut Vec<Option<Vec<AttrDef>>>,
    ) -> Vec<AttrDef> {
        if let Some(done) = &out[i] {
            return done.clone();
        }
        // Parents were made acyclic above, so this recursion ends.
        let mut list = match parents[i] {
            Some(p) => self.attrs_of(p, decls, parents, out),
            None => Vec::new(),
        };
        let d = decls[i];
        for a in &d.attrs {
            let Some(ty) = self.lower_attr_type(&a.ty) else {
                continue;
            };
            if list.iter().any(|x| x.name == a.name.name) {
                self.error(
                    a.name.span,
                    format!("duplicate attribute `{}` of `{}`", a.name.name, d.name.name),
                );
                continue;
            }
            list.push(AttrDef {
                name: a.name.name.clone(),
                ty,
            });
        }
        out[i] = Some(list.clone());
        list
    }

    pub(super) fn lower_attr_type(&mut self, t: &ast::TypeName) -> Option<AttrType> {
        let base = match t.name.name.as_str() {
            "int" => BaseType::Int,
            "value" => BaseType::Value,
            "bool" => BaseType::Bool,
            other => {
                self.error(
                    t.name.span,
                    format!("unknown attribute type `{other}`: expected int, value or bool"),
                );
                self.suggest_last(other, &["int", "value", "bool"]);
                return None;
            }
        };
        Some(AttrType {
            base,
            optional: t.optional,
        })
    }

    /// Resolves a node type name, reporting an unknown one.
    pub(super) fn resolve_type(&mut self, name: &ast::Ident) -> Option<NodeTypeId> {
        let found = self.types.find_node(&name.name);
        if found.is_none() {
            let known: Vec<String> = self.types.nodes.iter().map(|t| t.name.clone()).collect();
            self.error(name.span, unknown_type(&name.name, &known));
            self.suggest_last(&name.name, &known);
        }
        found
    }

    /// Resolves an edge label name, reporting an unknown one.
    pub(super) fn resolve_label(&mut self, name: &ast::Ident) -> Option<crate::model::LabelId> {
        let found = self.types.find_label(&name.name);
        if found.is_none() {
            let known: Vec<String> = self
                .types
                .labels
                .iter()
                .map(|l| format!("`{}`", l.name))
                .collect();
            self.error(
                name.span,
                format!(
                    "unknown edge label `{}`: expected {}",
                    name.name,
                    list_or(&known)
                ),
            );
            let names: Vec<String> = self.types.labels.iter().map(|l| l.name.clone()).collect();
            self.suggest_last(&name.name, &names);
        }
        found
    }

    pub(super) fn type_name(&self, t: NodeTypeId) -> &str {
        self.types
            .nodes
            .get(t.index())
            .map_or("?", |n| n.name.as_str())
    }

    /// The attribute names of a type, for "did you mean".
    pub(super) fn attr_names(&self, t: NodeTypeId) -> Vec<String> {
        self.types.nodes.get(t.index()).map_or(Vec::new(), |n| {
            n.attrs.iter().map(|a| a.name.clone()).collect()
        })
    }

    /// The attribute names of a type, for "expected one of" lists.
    pub(super) fn attr_list(&self, t: NodeTypeId) -> String {
        let names: Vec<String> = self
            .types
            .nodes
            .get(t.index())
            .map(|n| n.attrs.iter().map(|a| format!("`{}`", a.name)).collect())
            .unwrap_or_default();
        if names.is_empty() {
            format!("`{}` has no attributes", self.type_name(t))
        } else {
            format!("expected {}", list_or(&names))
        }
    }
}

fn int_value(n: i64) -> DomainValue {
    DomainValue {
        name: n.to_string(),
        int: Some(n),
    }
}

fn unknown_type(name: &str, known: &[String]) -> String {
    let known: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
    format!("unknown node type `{name}`: expected {}", list_or(&known))
}
