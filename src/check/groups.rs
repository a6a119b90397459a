//! The grid generators: `grid`, `groups rows, columns, boxes, diagonals, regions` and
//! `group NAME = ...`, expanded into plain nodes and edges of the start graph.

use smallvec::SmallVec;

use super::{list_or, start, Checker};
use crate::diag::Span;
use crate::grammar::Grid;
use crate::model::{AttrId, BaseType, LabelId, NodeId, NodeTypeId, Value};
use crate::syntax::ast;

/// Grids above this many cells are surely a typo and would exhaust memory.
const MAX_CELLS: u64 = 1 << 20;

impl Checker<'_> {
    pub(super) fn lower_grid(&mut self, d: &ast::GridDecl) {
        if let Some(first) = &self.grid {
            let first = first.span;
            self.duplicate(d.span, "grid", first);
            return;
        }
        let (rows, cols) = (d.dims.rows, d.dims.cols);
        let size = u64::from(rows) * u64::from(cols);
        if size == 0 || size > MAX_CELLS {
            self.error(
                d.dims.span,
                format!("grid {rows}x{cols}: expected at least one row and one column and at most {MAX_CELLS} cells"),
            );
            return;
        }
        let (cells, cell_type, given) = match &d.kind {
            ast::GridKind::Of { ty, given } => {
                let Some(cell_type) = self.resolve_type(ty) else {
                    return;
                };
                let Some(cells) = self.make_cells(rows, cols, cell_type, d.span) else {
                    return;
                };
                (cells, cell_type, given)
            }
            ast::GridKind::Names { names, given } => {
                if names.len() as u64 != size {
                    self.error(
                        d.span,
                        format!(
                            "grid {rows}x{cols} needs {size} nodes, found {}",
                            names.len()
                        ),
                    );
                    return;
                }
                let cells: Vec<Option<NodeId>> =
                    names.iter().map(|n| self.find_base_node(n)).collect();
                let Some(cells) = cells.into_iter().collect::<Option<Vec<_>>>() else {
                    return;
                };
                let cell_type = self.graph.ty(cells[0]);
                for (n, &c) in names.iter().zip(&cells) {
                    let ty = self.graph.ty(c);
                    if ty != cell_type {
                        self.error(
                            n.span,
                            format!(
                                "grid cells must share one type: expected `{}` (the type of `{}`), found `{}`",
                                self.type_name(cell_type),
                                names[0].name,
                                self.type_name(ty)
                            ),
                        );
                        return;
                    }
                }
                (cells, cell_type, given)
            }
        };
        let given_type = match given {
            Some(g) => match self.resolve_type(g) {
                Some(t) => Some(t),
                None => return,
            },
            None => None,
        };
        let value_attr = match given_type {
            Some(t) => self.value_attr(t, true, d.span),
            None => self.value_attr(cell_type, false, d.span),
        };
        self.grid = Some(Grid {
            rows,
            cols,
            cells,
            cell_type,
            given_type,
            // Without one the file has an error and no grammar is returned.
            value_attr: value_attr.unwrap_or(AttrId(0)),
            boxes: None,
            span: d.span,
        });
    }

    /// Cells `r1c1 ..` with `row` and `col` set when the type has int attributes so named.
    fn make_cells(
        &mut self,
        rows: u32,
        cols: u32,
        ty: NodeTypeId,
        span: Span,
    ) -> Option<Vec<NodeId>> {
        let t = self.types.node(ty).clone();
        let coord = |name: &str| {
            t.attr(name)
                .filter(|a| t.attrs[a.index()].ty.base == BaseType::Int)
        };
        let (row, col) = (coord("row"), coord("col"));
        let required: Vec<String> = t
            .attrs
            .iter()
            .enumerate()
            .filter(|(i, a)| {
                !a.ty.optional
                    && Some(AttrId::from_index(*i)) != row
                    && Some(AttrId::from_index(*i)) != col
            })
            .map(|(_, a)| format!("`{}: {}`", a.name, a.ty))
            .collect();
        if !required.is_empty() {
            self.error(
                span,
                format!(
                    "grid cells of type `{}` start empty, but it has {}: expected only `row`, `col` and optional attributes",
                    t.name,
                    required.join(", ")
                ),
            );
            return None;
        }
        let mut cells = Vec::new();
        for r in 1..=rows {
            for c in 1..=cols {
                let mut attrs: SmallVec<[Value; 4]> = t.attrs.iter().map(|_| Value::None).collect();
                if let Some(a) = row {
                    attrs[a.index()] = Value::Int(r.into());
                }
                if let Some(a) = col {
                    attrs[a.index()] = Value::Int(c.into());
                }
                cells.push(self.add_base_node(&format!("r{r}c{c}"), ty, attrs, span)?);
            }
        }
        Some(cells)
    }

    /// The attribute holding a cell's value: the type's one attribute of type `value?`
    /// (`value` or `value?` for a `given` type).
    fn value_attr(&mut self, ty: NodeTypeId, given: bool, span: Span) -> Option<AttrId> {
        let t = self.types.node(ty);
        let found: Vec<usize> = t
            .attrs
            .iter()
            .enumerate()
            .filter(|(_, a)| a.ty.base == BaseType::Value && (a.ty.optional || given))
            .map(|(i, _)| i)
            .collect();
        let want = if given {
            "`value` or `value?`"
        } else {
            "`value?`"
        };
        match found.as_slice() {
            [one] => Some(AttrId::from_index(*one)),
            [] => {
                let msg = format!(
                    "`{}` has no attribute of type {want}: expected one to hold a cell's value",
                    t.name
                );
                self.error(span, msg);
                None
            }
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|&i| format!("`{}`", t.attrs[i].name))
                    .collect();
                let msg = format!(
                    "`{}` has several attributes of type {want} ({}): expected exactly one to hold a cell's value",
                    t.name,
                    names.join(", ")
                );
                self.error(span, msg);
                None
            }
        }
    }

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
