//! `layer NAME: ...` declarations checked against the types and the generated graph: what
//! each section of a puzzle line will make or set.

use std::collections::HashMap;
use std::sync::Arc;

use super::{list_or, Checker};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::grammar::Grammar;
use crate::layer::{Layer, LayerBase, LayerKind, Layers};
use crate::model::{AttrId, AttrType, LabelId, NodeId, NodeTypeId};
use crate::puzzle::sections::Reader;
use crate::syntax::ast;

impl Checker<'_> {
    /// Lowers every layer declaration, in file order (a puzzle line's sections are matched
    /// to them by name). Runs after the generators, whose nodes `rows.attr` names.
    pub(super) fn lower_layers(&mut self, decls: &[&ast::LayerDecl]) {
        let mut first: HashMap<&str, Span> = HashMap::new();
        for d in decls {
            if let Some(&at) = first.get(d.name.name.as_str()) {
                let note = format!("the first is at line {}", self.line_of(at));
                self.diags.push(
                    Diagnostic::error(
                        d.name.span,
                        format!("duplicate layer `{}`: each layer has one name", d.name.name),
                    )
                    .with_note(note),
                );
            } else {
                first.insert(&d.name.name, d.span);
            }
        }
        // Region attributes name another layer: those come second, once it is lowered.
        let mut lowered: Vec<Option<LayerKind>> = decls
            .iter()
            .map(|d| match &d.kind {
                ast::LayerKind::Field {
                    owner: ast::LayerOwner::Layer(_),
                    ..
                } => None,
                _ => self.lower_layer_kind(d),
            })
            .collect();
        for (i, d) in decls.iter().enumerate() {
            if let ast::LayerKind::Field {
                owner: ast::LayerOwner::Layer(owner),
                attr,
            } = &d.kind
            {
                lowered[i] = self.region_attr(decls, &lowered, owner, attr);
            }
        }
        for (d, kind) in decls.iter().zip(lowered) {
            if let Some(kind) = kind {
                self.layers.push(Layer {
                    name: d.name.name.clone(),
                    kind,
                    span: d.span,
                });
            }
        }
    }

    fn lower_layer_kind(&mut self, d: &ast::LayerDecl) -> Option<LayerKind> {
        let grid = self.grid.clone();
        let Some(grid) = grid else {
            self.error(
                d.span,
                "a layer needs a grid: expected `grid RxC of Type` in the file",
            );
            return None;
        };
        match &d.kind {
            ast::LayerKind::Regions { ty, via } => {
                let ty_id = self.resolve_type(ty)?;
                let label = self.cell_label(via.as_ref(), grid.cell_type, ty_id, ty.span)?;
                self.empty_attrs(ty_id, "region nodes", ty.span)?;
                Some(LayerKind::Regions { ty: ty_id, label })
            }
            ast::LayerKind::Lines { ty, via, next } => {
                let ty_id = self.resolve_type(ty)?;
                let label = self.cell_label(via.as_ref(), grid.cell_type, ty_id, ty.span)?;
                self.empty_attrs(ty_id, "line nodes", ty.span)?;
                let next = match next {
                    Some(n) => {
                        Some(self.cell_label(Some(n), grid.cell_type, grid.cell_type, n.span)?)
                    }
                    None => None,
                };
                Some(LayerKind::Lines {
                    ty: ty_id,
                    label,
                    next,
                })
            }
            ast::LayerKind::Attr(attr) => {
                let (a, ty) = self.layer_attr(grid.cell_type, attr, "grid cells")?;
                if a == grid.value_attr && grid.given_type.is_none() {
                    self.error(
                        attr.span,
                        format!(
                            "`{}` holds a cell's value, which the givens set: expected another attribute",
                            attr.name
                        ),
                    );
                    return None;
                }
                if let Some(given) = grid.given_type {
                    let same = self.types.node(given).attr(&attr.name);
                    let same = same.map(|b| self.types.node(given).attrs[b.index()].ty);
                    if same != Some(ty) {
                        let msg = format!(
                            "a given cell becomes a `{}`, which has no attribute `{}: {ty}`: expected it to keep the layer's attribute",
                            self.type_name(given),
                            attr.name
                        );
                        self.error(attr.span, msg);
                        return None;
                    }
                }
                Some(LayerKind::CellAttr { attr: a, ty })
            }
            ast::LayerKind::Field { owner, attr } => {
                let (prefix, what, count, span) = match owner {
                    ast::LayerOwner::Rows(s) => ("row", "row", grid.rows, *s),
                    ast::LayerOwner::Columns(s) => ("col", "column", grid.cols, *s),
                    // Lowered by `region_attr`.
                    ast::LayerOwner::Layer(_) => return None,
                };
                let shape = if what == "row" { "rows" } else { "columns" };
                let mut nodes: Vec<NodeId> = Vec::new();
                for k in 1..=count {
                    let name = format!("{prefix}{k}");
                    let Some(&n) = self.node_by_name.get(&name) else {
                        self.error(
                            span,
                            format!(
                                "`{shape}.{}` sets the groups `groups {shape}` makes: expected a node `{name}`, found none",
                                attr.name
                            ),
                        );
                        return None;
                    };
                    nodes.push(n);
                }
                let ty = self.graph.ty(nodes[0]);
                if let Some(&odd) = nodes.iter().find(|&&n| self.graph.ty(n) != ty) {
                    let name = self.names[odd.index()].clone();
                    self.error(
                        span,
                        format!(
                            "`{name}` is a `{}`, not a `{}` as `{prefix}1` is: expected the {shape} to share one type",
                            self.type_name(self.graph.ty(odd)),
                            self.type_name(ty)
                        ),
                    );
                    return None;
                }
                let (a, ty) = self.layer_attr(ty, attr, shape)?;
                Some(LayerKind::NodeAttr {
                    nodes,
                    what,
                    attr: a,
                    ty,
                })
            }
        }
    }

    /// `R.attr` for the regions layer `R`, or for the lines layer `R`.
    fn region_attr(
        &mut self,
        decls: &[&ast::LayerDecl],
        lowered: &[Option<LayerKind>],
        owner: &ast::Ident,
        attr: &ast::Ident,
    ) -> Option<LayerKind> {
        let Some(i) = decls.iter().position(|d| d.name.name == owner.name) else {
            let regions: Vec<String> = decls
                .iter()
                .filter(|d| {
                    matches!(
                        d.kind,
                        ast::LayerKind::Regions { .. } | ast::LayerKind::Lines { .. }
                    )
                })
                .map(|d| format!("`{}`", d.name.name))
                .collect();
            self.error(
                owner.span,
                format!(
                    "unknown layer `{}`: expected `rows`, `columns`, a regions or a lines layer ({})",
                    owner.name,
                    list_or(&regions)
                ),
            );
            return None;
        };
        if let ast::LayerKind::Lines { .. } = decls[i].kind {
            // An owner that failed has its own error.
            let Some(LayerKind::Lines { ty, .. }) = &lowered[i] else {
                return None;
            };
            let (a, ty) = self.layer_attr(*ty, attr, "line nodes")?;
            return Some(LayerKind::LineAttr {
                lines: i,
                attr: a,
                ty,
            });
        }
        let ast::LayerKind::Regions { .. } = decls[i].kind else {
            self.error(
                owner.span,
                format!(
                    "layer `{}` is neither a regions nor a lines layer: expected one declared `layer {}: regions of Type` or `lines of Type`",
                    owner.name, owner.name
                ),
            );
            return None;
        };
        // An owner that failed has its own error.
        let Some(LayerKind::Regions { ty, .. }) = &lowered[i] else {
            return None;
        };
        let (a, ty) = self.layer_attr(*ty, attr, "region nodes")?;
        Some(LayerKind::RegionAttr {
            regions: i,
            attr: a,
            ty,
        })
    }

    /// An attribute a layer may set on nodes of `ty`: declared and optional (the nodes
    /// start with it none, and a `.` leaves it so).
    fn layer_attr(
        &mut self,
        ty: NodeTypeId,
        attr: &ast::Ident,
        whose: &str,
    ) -> Option<(AttrId, AttrType)> {
        let Some(a) = self.types.node(ty).attr(&attr.name) else {
            let expected = self.attr_list(ty);
            self.error(
                attr.span,
                format!(
                    "unknown attribute `{}` of `{}` (the type of the {whose}): {expected}",
                    attr.name,
                    self.type_name(ty)
                ),
            );
            return None;
        };
        let at = self.types.node(ty).attrs[a.index()].ty;
        if !at.optional {
            self.error(
                attr.span,
                format!(
                    "`{}: {at}` of `{}` is not optional: expected `{}: {}`, which a puzzle without this layer leaves none",
                    attr.name,
                    self.type_name(ty),
                    attr.name,
                    AttrType {
                        optional: true,
                        ..at
                    }
                ),
            );
            return None;
        }
        Some((a, at))
    }

    /// The label from grid cells to nodes of `target`: `via`, or the only one declared.
    /// Every generator of lines of cells finds its membership and `next` labels so.
    pub(super) fn cell_label(
        &mut self,
        via: Option<&ast::Ident>,
        cell: NodeTypeId,
        target: NodeTypeId,
        span: Span,
    ) -> Option<LabelId> {
        let fits = |cx: &Self, l: LabelId| {
            let label = cx.types.label(l);
            cx.types.is_subtype(cell, label.source) && cx.types.is_subtype(target, label.target)
        };
        let (cell_name, target_name) = (
            self.type_name(cell).to_string(),
            self.type_name(target).to_string(),
        );
        if let Some(via) = via {
            let l = self.resolve_label(via)?;
            if !fits(self, l) {
                let label = self.types.label(l);
                let msg = format!(
                    "edge `{}` goes from `{}` to `{}`: expected a label from `{cell_name}` to `{target_name}`",
                    via.name,
                    self.type_name(label.source),
                    self.type_name(label.target)
                );
                self.error(via.span, msg);
                return None;
            }
            return Some(l);
        }
        let found: Vec<LabelId> = (0..self.types.labels.len())
            .map(LabelId::from_index)
            .filter(|&l| fits(self, l))
            .collect();
        self.sole_label(
            span,
            &found,
            &cell_name,
            &format!("`{target_name}`"),
            &format!("edge in: {cell_name} -> {target_name}"),
        )
    }
}

/// Adds the layer content the file gives its own puzzle (`layer NAME: ... = { ... }`) to the
/// base graph, read as a puzzle line's sections are, and keeps the base without it for
/// puzzle lines.
pub(super) fn add_own_content(grammar: Grammar, file: &ast::File) -> Result<Grammar, Diagnostics> {
    let given: Vec<(&str, &ast::RawBlock)> = file
        .items
        .iter()
        .filter_map(|i| match i {
            ast::Item::Layer(d) => Some((d.name.name.as_str(), d.content.as_ref()?)),
            _ => None,
        })
        .collect();
    if given.is_empty() {
        return Ok(grammar);
    }
    let reader = Reader::new(&grammar);
    let mut sections = vec![None; grammar.layers.len()];
    let mut items = Vec::new();
    for (name, raw) in given {
        let Some(k) = grammar.layers.iter().position(|l| l.name == name) else {
            continue;
        };
        let text = blank_comments(&raw.text);
        match reader.section(&grammar.layers[k], &text, raw.span.start, raw.span) {
            Ok(s) => sections[k] = Some(s),
            Err(d) => items.push(d),
        }
    }
    if items.is_empty() {
        items = reader.check_line(&sections);
    }
    if !items.is_empty() {
        items.sort_by_key(|d| d.span.start);
        return Err(Diagnostics {
            source: Arc::unwrap_or_clone(grammar.source),
            items,
        });
    }
    let layers = Layers {
        sections: (sections.into_iter())
            .map(|s| s.map(|s| s.content))
            .collect(),
    };
    let bare = LayerBase {
        graph: grammar.base.clone(),
        names: grammar.names.clone(),
    };
    let mut own = grammar.with_layers(&layers);
    own.layer_base = Some(Box::new(bare));
    Ok(own)
}

/// `text` with its comments (`// ...`, `/* ... */`) turned into blanks of the same length,
/// so that offsets still point into the file.
fn blank_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let len = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            rest.find("*/").map_or(rest.len(), |e| e + 2)
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        };
        // Newlines stay, so that a comment ends a word as it ends a line.
        out.extend(
            rest[..len]
                .bytes()
                .map(|b| if b == b'\n' { '\n' } else { ' ' }),
        );
        rest = &rest[len..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::blank_comments;

    #[test]
    fn comments_become_blanks_of_the_same_length() {
        let text = "AB // é x\nC/* y\n */D";
        let out = blank_comments(text);
        assert_eq!(out.len(), text.len());
        assert_eq!(
            out,
            format!(
                "AB {}\nC{}\n{}D",
                " ".repeat(7),
                " ".repeat(4),
                " ".repeat(3)
            )
        );
    }
}
