//! `grid RxC of T [given U]` and `grid RxC = names`: the cells puzzles and `start` fill.

use smallvec::SmallVec;

use super::{start, Checker};
use crate::diag::Span;
use crate::grammar::Grid;
use crate::model::{AttrId, BaseType, NodeId, NodeTypeId, Value};
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
        let mask = match &d.shape {
            Some(raw) => match self.grid_mask(raw, rows, cols) {
                Some(m) => Some(m),
                None => return,
            },
            None => None,
        };
        let present = |pos: usize| mask.as_ref().is_none_or(|m| m[pos]);
        let count = (0..size as usize).filter(|&p| present(p)).count();
        let (cells, cell_type, given) = match &d.kind {
            ast::GridKind::Of { ty, given } => {
                let Some(cell_type) = self.resolve_type(ty) else {
                    return;
                };
                let Some(cells) = self.make_cells(rows, cols, mask.as_deref(), cell_type, d.span)
                else {
                    return;
                };
                (cells, cell_type, given)
            }
            ast::GridKind::Names { names, given } => {
                if names.len() != count {
                    let what = if mask.is_some() {
                        format!("the shape of grid {rows}x{cols} has {count} cells: expected a node for each")
                    } else {
                        format!("grid {rows}x{cols} needs {count} nodes")
                    };
                    self.error(d.span, format!("{what}, found {}", names.len()));
                    return;
                }
                let cells: Vec<Option<NodeId>> =
                    names.iter().map(|n| self.find_base_node(n)).collect();
                let Some(cells) = cells.into_iter().collect::<Option<Vec<_>>>() else {
                    return;
                };
                for (i, n) in names.iter().enumerate() {
                    if names[..i].iter().any(|m| m.name == n.name) {
                        let msg = format!(
                            "node `{}` is twice in the grid: expected each cell once",
                            n.name
                        );
                        self.error(n.span, msg);
                        return;
                    }
                }
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
        if let (Some(t), Some(v)) = (given_type, value_attr) {
            self.check_given_type(cell_type, t, v, d.span);
        }
        let mut next = cells.iter().copied();
        let layout = (0..size as usize)
            .map(|p| if present(p) { next.next() } else { None })
            .collect();
        self.grid = Some(Grid {
            rows,
            cols,
            cells,
            layout,
            cell_type,
            given_type,
            // Without one the file has an error and no grammar is returned.
            value_attr: value_attr.unwrap_or(AttrId(0)),
            boxes: None,
            span: d.span,
        });
    }

    /// A given cell copies the attributes of the same name from the empty cell and sets
    /// its value: every other attribute of the given type must be optional.
    fn check_given_type(&mut self, cell: NodeTypeId, given: NodeTypeId, value: AttrId, span: Span) {
        let (c, g) = (self.types.node(cell), self.types.node(given));
        let unfilled: Vec<String> = g
            .attrs
            .iter()
            .enumerate()
            .filter(|&(i, a)| {
                i != value.index()
                    && !a.ty.optional
                    && !c.attrs.iter().any(|b| b.name == a.name && b.ty == a.ty)
            })
            .map(|(_, a)| format!("`{}: {}`", a.name, a.ty))
            .collect();
        if !unfilled.is_empty() {
            let msg = format!(
                "a given cell cannot fill {} of `{}`: expected `{}` to have the same attribute, or it to be optional",
                unfilled.join(", "),
                g.name,
                c.name
            );
            self.error(span, msg);
        }
    }

    /// `shape { ... }`: one `#` (a cell) or `.` (a hole) per position, blanks and comments
    /// skipped; true where a cell is.
    fn grid_mask(&mut self, raw: &ast::RawBlock, rows: u32, cols: u32) -> Option<Vec<bool>> {
        let mut mask = Vec::new();
        let mut ok = true;
        for (text, span) in start::scan(raw, true) {
            match text.as_str() {
                "#" => mask.push(true),
                "." => mask.push(false),
                _ => {
                    self.error(
                        span,
                        format!("unexpected character `{text}` in a grid shape: expected `#` (a cell) or `.` (a hole)"),
                    );
                    ok = false;
                }
            }
        }
        let size = rows as usize * cols as usize;
        if ok && mask.len() != size {
            self.error(
                raw.span,
                format!(
                    "grid shape has {} positions, expected {size} (one `#` or `.` for each of {rows}x{cols})",
                    mask.len()
                ),
            );
            return None;
        }
        if ok && !mask.contains(&true) {
            self.error(
                raw.span,
                "grid shape has no cell: expected at least one `#`",
            );
            return None;
        }
        ok.then_some(mask)
    }

    /// Cells `r1c1 ..` with `row` and `col` set when the type has int attributes so named;
    /// none at the holes of `mask`, whose names are remembered for diagnostics.
    fn make_cells(
        &mut self,
        rows: u32,
        cols: u32,
        mask: Option<&[bool]>,
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
                let pos = (r - 1) as usize * cols as usize + (c - 1) as usize;
                if mask.is_some_and(|m| !m[pos]) {
                    self.hole_names.insert(format!("r{r}c{c}"));
                    continue;
                }
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
    pub(super) fn value_attr(&mut self, ty: NodeTypeId, given: bool, span: Span) -> Option<AttrId> {
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
}
