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
        self.sole_label(
            span,
            &candidates,
            &cell,
            "a group type",
            &format!("edge in: {cell} -> Group"),
        )
    }

    /// Adds one group node and an edge from each member to it. A group a generator made
    /// before with the same label and members is not made again: `name` then names it too.
    fn add_group(
        &mut self,
        name: &str,
        label: LabelId,
        members: &[NodeId],
        attrs: &SmallVec<[Value; 4]>,
        span: Span,
    ) {
        let mut key = members.to_vec();
        key.sort_unstable();
        if let Some(&g) = self.made_groups.get(&(label, key.clone())) {
            self.alias_node(name, g, span);
            return;
        }
        let ty = self.types.label(label).target;
        let Some(g) = self.add_base_node(name, ty, attrs.clone(), span) else {
            return;
        };
        for &m in members {
            self.add_base_edge(m, label, g, span);
        }
        self.made_groups.insert((label, key), g);
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

    /// The 0-based position of a grid cell named `at`; an error when it is none.
    fn grid_position(&mut self, grid: &Grid, at: &ast::Ident) -> Option<(usize, usize)> {
        let corner = self.find_base_node(at)?;
        let Some(pos) = grid.layout.iter().position(|&c| c == Some(corner)) else {
            self.error(
                at.span,
                format!(
                    "`{}` is not a grid cell: expected a cell such as `r1c1`",
                    at.name
                ),
            );
            return None;
        };
        Some((pos / grid.cols as usize, pos % grid.cols as usize))
    }

    /// The frames `groups` lays its shapes over: the whole grid, or one per anchor of
    /// `in block ...` / `in lattice ...`.
    fn frames(&mut self, grid: &Grid, within: Option<&ast::SubGrid>) -> Vec<Frame> {
        let Some(sub) = within else {
            return vec![Frame::whole(grid)];
        };
        let (h, w) = (sub.dims.rows as usize, sub.dims.cols as usize);
        let kind = if sub.lattice.is_some() {
            "lattice"
        } else {
            "block"
        };
        if h == 0 || w == 0 {
            self.error(
                sub.dims.span,
                format!("{kind} {h}x{w}: expected at least one row and one column"),
            );
            return Vec::new();
        }
        let spacing = match sub.lattice {
            None => None,
            Some(l) => {
                let step = (l.step.rows as usize, l.step.cols as usize);
                let run = l
                    .blocks
                    .map_or((1, 1), |b| (b.rows as usize, b.cols as usize));
                if run.0 == 0 || run.1 == 0 || step.0 < run.0 || step.1 < run.1 {
                    self.error(
                        l.step.span,
                        format!(
                            "lattice step {}x{} with blocks {}x{}: expected blocks of at least one cell and a step at least as large, so that blocks do not overlap",
                            step.0, step.1, run.0, run.1
                        ),
                    );
                    return Vec::new();
                }
                Some((step, run))
            }
        };
        let mut frames = Vec::new();
        for at in &sub.anchors {
            let Some(origin) = self.grid_position(grid, at) else {
                continue;
            };
            let prefix = match spacing {
                None => format!("{}_", at.name),
                Some(_) => format!("lattice_{}_", at.name),
            };
            let frame = Frame {
                rows: h,
                cols: w,
                origin,
                spacing,
                prefix,
            };
            let (r, c) = frame.position(h - 1, w - 1);
            if r >= grid.rows as usize || c >= grid.cols as usize {
                self.error(
                    at.span,
                    format!(
                        "{kind} {h}x{w} at {} runs off the {}x{} grid (to r{}c{}): expected it to fit inside",
                        at.name,
                        grid.rows,
                        grid.cols,
                        r + 1,
                        c + 1
                    ),
                );
                continue;
            }
            frames.push(frame);
        }
        frames
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
        let frames = self.frames(&grid, d.within.as_ref());
        let Some(first) = frames.first() else {
            return;
        };
        // Every frame has the same size: each shape's groups are laid out once.
        let (rows, cols, what) = (first.rows, first.cols, first.describe());
        for shape in &d.shapes {
            let Some(groups) = self.shape_groups(shape, rows, cols, what) else {
                continue;
            };
            for frame in &frames {
                if let ast::GroupShapeKind::Boxes(b) = &shape.kind {
                    self.note_boxes(frame, b.rows, b.cols);
                }
                for (name, members) in &groups {
                    let name = format!("{}{name}", frame.prefix);
                    // One hole is enough to say: the shape's other groups stay quiet.
                    let Some(cells) = self.frame_cells(&grid, frame, members, &name, shape.span)
                    else {
                        break;
                    };
                    self.add_group(&name, label, &cells, &attrs, shape.span);
                }
            }
        }
    }

    /// The groups of one shape over a `rows` x `cols` frame (the grid, a block or a
    /// lattice, named by `what`), as frame positions.
    fn shape_groups(
        &mut self,
        shape: &ast::GroupShape,
        rows: usize,
        cols: usize,
        what: &str,
    ) -> Option<NamedGroups> {
        let mut groups: NamedGroups = Vec::new();
        match &shape.kind {
            ast::GroupShapeKind::Rows => {
                for r in 0..rows {
                    groups.push((format!("row{}", r + 1), (0..cols).map(|c| (r, c)).collect()));
                }
            }
            ast::GroupShapeKind::Columns => {
                for c in 0..cols {
                    groups.push((format!("col{}", c + 1), (0..rows).map(|r| (r, c)).collect()));
                }
            }
            ast::GroupShapeKind::Boxes(b) => {
                let (br, bc) = (b.rows as usize, b.cols as usize);
                if br == 0 || bc == 0 || !rows.is_multiple_of(br) || !cols.is_multiple_of(bc) {
                    self.error(
                        b.span,
                        format!(
                            "boxes {br}x{bc} do not tile the {rows}x{cols} {what}: expected box sides that divide {rows} rows and {cols} columns"
                        ),
                    );
                    return None;
                }
                let mut k = 0;
                for r0 in (0..rows).step_by(br) {
                    for c0 in (0..cols).step_by(bc) {
                        k += 1;
                        let members =
                            (r0..r0 + br).flat_map(|r| (c0..c0 + bc).map(move |c| (r, c)));
                        groups.push((format!("box{k}"), members.collect()));
                    }
                }
            }
            ast::GroupShapeKind::Diagonals => {
                if rows != cols {
                    self.error(
                        shape.span,
                        format!("diagonals need a square {what}: expected as many rows as columns, found {rows}x{cols}"),
                    );
                    return None;
                }
                groups.push(("diag1".to_string(), (0..rows).map(|i| (i, i)).collect()));
                groups.push((
                    "diag2".to_string(),
                    (0..rows).map(|i| (i, cols - 1 - i)).collect(),
                ));
            }
            ast::GroupShapeKind::Regions(layout) => {
                groups = self.regions(layout, rows, cols, shape.span)?;
            }
        }
        Some(groups)
    }

    /// The cells at `members` (frame positions); an error naming the first hole among them.
    fn frame_cells(
        &mut self,
        grid: &Grid,
        frame: &Frame,
        members: &[(usize, usize)],
        name: &str,
        span: Span,
    ) -> Option<Vec<NodeId>> {
        let mut cells = Vec::with_capacity(members.len());
        for &(i, j) in members {
            let (r, c) = frame.position(i, j);
            match grid.cell_at(r, c) {
                Some(cell) => cells.push(cell),
                None => {
                    self.error(
                        span,
                        format!(
                            "group `{name}` would include r{}c{}, a hole of the grid's shape: expected a shape over cells only (lay it over a sub-grid with `in block RxC at CELL`)",
                            r + 1,
                            c + 1
                        ),
                    );
                    return None;
                }
            }
        }
        Some(cells)
    }

    /// Remembers a box shape for drawing separators, when the boxes line up with the
    /// grid's own (the whole grid, or a block whose corner is on a box corner).
    fn note_boxes(&mut self, frame: &Frame, br: u32, bc: u32) {
        let aligned = frame.spacing.is_none()
            && frame.origin.0.is_multiple_of(br as usize)
            && frame.origin.1.is_multiple_of(bc as usize);
        if let Some(g) = &mut self.grid {
            if frame.is_whole() || (aligned && g.boxes.is_none()) {
                g.boxes = Some((br, bc));
            }
        }
    }

    /// `regions { AABB ... }` over a `rows` x `cols` frame: one group per character, in
    /// order of first appearance; `.` is in no region (and the only character a hole may
    /// have).
    fn regions(
        &mut self,
        layout: &ast::RawBlock,
        rows: usize,
        cols: usize,
        span: Span,
    ) -> Option<NamedGroups> {
        let cells = start::scan(layout, true);
        let mut ok = true;
        for (text, s) in &cells {
            if text != "." && !text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                self.error(*s, format!("unexpected character `{text}` in a regions layout: expected a letter or digit naming a region, or `.` for none"));
                ok = false;
            }
        }
        let expected = rows * cols;
        if cells.len() != expected {
            self.error(
                span,
                format!(
                    "regions layout has {} cells, expected {expected}",
                    cells.len(),
                ),
            );
            return None;
        }
        if !ok {
            return None;
        }
        let mut groups: NamedGroups = Vec::new();
        for (k, (text, _)) in cells.iter().enumerate() {
            if text == "." {
                continue;
            }
            let at = (k / cols, k % cols);
            let name = format!("region_{text}");
            match groups.iter_mut().find(|(n, _)| *n == name) {
                Some((_, members)) => members.push(at),
                None => groups.push((name, vec![at])),
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
                let Some((r0, c0)) = self.grid_position(&grid, at) else {
                    return;
                };
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
                let frame = Frame {
                    rows: br,
                    cols: bc,
                    origin: (r0, c0),
                    spacing: None,
                    prefix: String::new(),
                };
                let members: Vec<(usize, usize)> =
                    (0..br).flat_map(|r| (0..bc).map(move |c| (r, c))).collect();
                match self.frame_cells(&grid, &frame, &members, &d.name.name, d.span) {
                    Some(cells) => cells,
                    None => return,
                }
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
        self.add_named_group(&d.name.name, label, &members, &attrs, d.name.span);
    }

    /// `group NAME = ...`: always a node of its own, even when a generator made the same
    /// group, since the file names it.
    fn add_named_group(
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
}

/// Groups by name, their members as frame positions (row, column from 0).
type NamedGroups = Vec<(String, Vec<(usize, usize)>)>;

/// Where `groups` lays its shapes: a rectangle of `rows` x `cols` frame positions mapped
/// into the grid.
struct Frame {
    rows: usize,
    cols: usize,
    /// The grid position (0-based row, column) of frame position (0, 0).
    origin: (usize, usize),
    /// A lattice's (step, block run), per axis as (rows, columns): frame row `i` is grid
    /// row `origin + (i / run) * step + i % run`. `None` for the whole grid and blocks.
    spacing: Option<((usize, usize), (usize, usize))>,
    /// Put before each group's name: `r1c13_` for a block at r1c13, empty for the grid.
    prefix: String,
}

impl Frame {
    fn whole(grid: &Grid) -> Frame {
        Frame {
            rows: grid.rows as usize,
            cols: grid.cols as usize,
            origin: (0, 0),
            spacing: None,
            prefix: String::new(),
        }
    }

    fn is_whole(&self) -> bool {
        self.prefix.is_empty()
    }

    /// The grid position of frame position (i, j).
    fn position(&self, i: usize, j: usize) -> (usize, usize) {
        match self.spacing {
            None => (self.origin.0 + i, self.origin.1 + j),
            Some(((sr, sc), (br, bc))) => (
                self.origin.0 + (i / br) * sr + i % br,
                self.origin.1 + (j / bc) * sc + j % bc,
            ),
        }
    }

    /// "grid", "block" or "lattice", for messages.
    fn describe(&self) -> &'static str {
        match (self.is_whole(), self.spacing) {
            (true, _) => "grid",
            (false, None) => "block",
            (false, Some(_)) => "lattice",
        }
    }
}

impl Checker<'_> {
    /// The one label among `found` that leads from `from` to `to` (a type in backquotes,
    /// or a phrase): an error when there is none (with a declaration to write) or several
    /// (`via LABEL` chooses).
    pub(super) fn sole_label(
        &mut self,
        span: Span,
        found: &[LabelId],
        from: &str,
        to: &str,
        declaration: &str,
    ) -> Option<LabelId> {
        match found {
            [one] => Some(*one),
            [] => {
                self.error(
                    span,
                    format!("no edge label leads from `{from}` to {to}: expected a declaration like `{declaration}`"),
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
                        "several edge labels lead from `{from}` to {to} ({}): expected `via LABEL` to choose one",
                        list_or(&names)
                    ),
                );
                None
            }
        }
    }
}
