//! The group generators: `groups rows, columns, boxes, diagonals, regions` and
//! `group NAME = ...`, expanded into group nodes with an edge from each member.

use smallvec::SmallVec;

use super::{list_or, start, Checker};
use crate::diag::Span;
use crate::grammar::Grid;
use crate::model::{LabelId, NodeId, NodeTypeId, Value};
use crate::syntax::ast;

impl Checker<'_> {
    /// The label from cells to groups: `via`, or the only one leaving the cell type for a
    /// type that is not a cell type.
    fn group_label(
        &mut self,
        via: Option<&ast::Ident>,
        cell_type: NodeTypeId,
        span: Span,
    ) -> Option<LabelId> {
        if let Some(via) = via {
            let l = self.resolve_label(via)?;
            let source = self.types.label(l).source;
            if !self.types.is_subtype(cell_type, source) {
                self.error(
                    via.span,
                    format!(
                        "edge `{}` leaves `{}`: expected a label whose source is the cell type `{}`",
                        via.name,
                        self.type_name(source),
                        self.type_name(cell_type)
                    ),
                );
                return None;
            }
            return Some(l);
        }
        let candidates: Vec<LabelId> = (0..self.types.labels.len())
            .map(LabelId::from_index)
            .filter(|&l| {
                let label = self.types.label(l);
                self.types.is_subtype(cell_type, label.source)
                    && !self.types.is_subtype(cell_type, label.target)
            })
            .collect();
        let cell = self.type_name(cell_type).to_string();
        match candidates.as_slice() {
            [one] => Some(*one),
            [] => {
                self.error(
                    span,
                    format!("no edge label leads from `{cell}` to a group type: expected a declaration like `edge in: {cell} -> Group`"),
                );
                None
            }
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|&l| format!("`{}`", self.types.label(l).name))
                    .collect();
                self.error(
                    span,
                    format!(
                        "several edge labels lead from `{cell}` to a group type ({}): expected `via LABEL` to choose one",
                        list_or(&names)
                    ),
                );
                None
            }
        }
    }

    /// Adds one group node and an edge from each member to it.
    fn add_group(
        &mut self,
        name: &str,
        label: LabelId,
        members: &[NodeId],
        attrs: &SmallVec<[Value; 4]>,
        span: Span,
    ) {
        let ty = self.types.label(label).target;
        let Some(g) = self.add_base_node(name, ty, attrs.clone(), span) else {
            return;
        };
        for &m in members {
            self.add_base_edge(m, label, g, span);
        }
    }

    fn require_grid(&mut self, span: Span, what: &str) -> Option<Grid> {
        let grid = self.grid.clone();
        if grid.is_none() {
            self.error(
                span,
                format!("{what} needs a grid: expected `grid RxC of Type` before it"),
            );
        }
        grid
    }

    pub(super) fn lower_groups(&mut self, d: &ast::GroupsDecl) {
        let Some(grid) = self.require_grid(d.span, "`groups`") else {
            return;
        };
        let Some(label) = self.group_label(d.via.as_ref(), grid.cell_type, d.span) else {
            return;
        };
        let group_type = self.types.label(label).target;
        let Some(attrs) = self.empty_attrs(group_type, "groups", d.span) else {
            return;
        };
        let (rows, cols) = (grid.rows as usize, grid.cols as usize);
        let at = |r: usize, c: usize| grid.cells[r * cols + c];
        for shape in &d.shapes {
            let mut groups: Vec<(String, Vec<NodeId>)> = Vec::new();
            match &shape.kind {
                ast::GroupShapeKind::Rows => {
                    for r in 0..rows {
                        groups.push((
                            format!("row{}", r + 1),
                            (0..cols).map(|c| at(r, c)).collect(),
                        ));
                    }
                }
                ast::GroupShapeKind::Columns => {
                    for c in 0..cols {
                        groups.push((
                            format!("col{}", c + 1),
                            (0..rows).map(|r| at(r, c)).collect(),
                        ));
                    }
                }
                ast::GroupShapeKind::Boxes(b) => {
                    let (br, bc) = (b.rows as usize, b.cols as usize);
                    if br == 0 || bc == 0 || rows % br != 0 || cols % bc != 0 {
                        self.error(
                            b.span,
                            format!(
                                "boxes {br}x{bc} do not tile the {rows}x{cols} grid: expected box sides that divide {rows} rows and {cols} columns"
                            ),
                        );
                        continue;
                    }
                    if let Some(g) = &mut self.grid {
                        g.boxes = Some((b.rows, b.cols));
                    }
                    let mut k = 0;
                    for r0 in (0..rows).step_by(br) {
                        for c0 in (0..cols).step_by(bc) {
                            k += 1;
                            let members =
                                (r0..r0 + br).flat_map(|r| (c0..c0 + bc).map(move |c| (r, c)));
                            groups.push((
                                format!("box{k}"),
                                members.map(|(r, c)| at(r, c)).collect(),
                            ));
                        }
                    }
                }
                ast::GroupShapeKind::Diagonals => {
                    if rows != cols {
                        self.error(
                            shape.span,
                            format!("diagonals need a square grid: expected as many rows as columns, found {rows}x{cols}"),
                        );
                        continue;
                    }
                    groups.push(("diag1".to_string(), (0..rows).map(|i| at(i, i)).collect()));
                    groups.push((
                        "diag2".to_string(),
                        (0..rows).map(|i| at(i, cols - 1 - i)).collect(),
                    ));
                }
                ast::GroupShapeKind::Regions(layout) => {
                    match self.regions(layout, &grid, shape.span) {
                        Some(g) => groups = g,
                        None => continue,
                    }
                }
            }
            for (name, members) in groups {
                self.add_group(&name, label, &members, &attrs, shape.span);
            }
        }
    }

    /// `regions { AABB ... }`: one group per character, in order of first appearance.
    fn regions(
        &mut self,
        layout: &ast::RawBlock,
        grid: &Grid,
        span: Span,
    ) -> Option<Vec<(String, Vec<NodeId>)>> {
        let cells = start::scan(layout, true);
        let mut ok = true;
        for (text, s) in &cells {
            if !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                self.error(*s, format!("unexpected character `{text}` in a regions layout: expected a letter or digit naming a region"));
                ok = false;
            }
        }
        if cells.len() != grid.len() {
            self.error(
                span,
                format!(
                    "regions layout has {} cells, expected {}",
                    cells.len(),
                    grid.len()
                ),
            );
            return None;
        }
        if !ok {
            return None;
        }
        let mut groups: Vec<(String, Vec<NodeId>)> = Vec::new();
        for ((text, _), &cell) in cells.iter().zip(&grid.cells) {
            let name = format!("region_{text}");
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, members)) => members.push(cell),
                None => groups.push((name, vec![cell])),
            }
        }
        Some(groups)
    }

    pub(super) fn lower_group(&mut self, d: &ast::GroupDecl) {
        let members: Vec<NodeId> = match &d.members {
            ast::GroupMembers::List(names) => {
                let found: Vec<Option<NodeId>> =
                    names.iter().map(|n| self.find_base_node(n)).collect();
                match found.into_iter().collect::<Option<Vec<_>>>() {
                    Some(m) => m,
                    None => return,
                }
            }
            ast::GroupMembers::Block { dims, at } => {
                let Some(grid) = self.require_grid(d.span, "`block`") else {
                    return;
                };
                let Some(corner) = self.find_base_node(at) else {
                    return;
                };
                let Some(pos) = grid.cells.iter().position(|&c| c == corner) else {
                    self.error(
                        at.span,
                        format!(
                            "`{}` is not a grid cell: expected a cell such as `r1c1`",
                            at.name
                        ),
                    );
                    return;
                };
                let (r0, c0) = (pos / grid.cols as usize, pos % grid.cols as usize);
                let (br, bc) = (dims.rows as usize, dims.cols as usize);
                if br == 0
                    || bc == 0
                    || r0 + br > grid.rows as usize
                    || c0 + bc > grid.cols as usize
                {
                    self.error(
                        d.span,
                        format!(
                            "block {br}x{bc} at {} runs off the {}x{} grid: expected it to fit inside",
                            at.name, grid.rows, grid.cols
                        ),
                    );
                    return;
                }
                (r0..r0 + br)
                    .flat_map(|r| (c0..c0 + bc).map(move |c| r * grid.cols as usize + c))
                    .filter_map(|i| grid.cells.get(i).copied())
                    .collect()
            }
        };
        let cell_type = match (&self.grid, members.first()) {
            (Some(g), _) => g.cell_type,
            (None, Some(&m)) => self.graph.ty(m),
            (None, None) => return,
        };
        let Some(label) = self.group_label(d.via.as_ref(), cell_type, d.span) else {
            return;
        };
        let group_type = self.types.label(label).target;
        let Some(attrs) = self.empty_attrs(group_type, "groups", d.span) else {
            return;
        };
        self.add_group(&d.name.name, label, &members, &attrs, d.name.span);
    }
}
