//! What a grid graph holds, read from the graph alone: cells by position, the group-like
//! nodes their edges lead to and what shape each group has, and the edges between cells.
//!
//! Nothing here looks at a rule or at a type's name. A group is any node outside the grid
//! that grid cells have edges to (or from); its shape decides how it is drawn:
//!
//! - a **line**: its members are chained, each to the next, by one label's cell-to-cell
//!   edges (a thermometer, an arrow, a renban line);
//! - a **cage**: contiguous members and a number set on the group (a killer cage's sum);
//! - a **row** or **column**: a run of one row (column) that has parallel siblings, such as
//!   the rows of a grid or of a sub-grid; drawn by the grid itself;
//! - a **diagonal**: members one diagonal step apart;
//! - a **region**: one of a family of disjoint contiguous groups that covers most of the
//!   grid (boxes, jigsaw regions); drawn as thick borders;
//! - any other group is **extra** (a centre group, windows): drawn shaded.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::grammar::{Grammar, Grid};
use crate::model::{BaseType, Graph, LabelId, NodeId, NodeTypeId, Value};
use crate::output::grid::cell_values;

/// A cell of the grid at its place.
#[derive(Clone, Debug)]
pub struct Cell {
    pub node: NodeId,
    /// 0-based row and column.
    pub row: u32,
    pub col: u32,
    /// The value's name, when the cell holds one.
    pub value: Option<String>,
    /// True when the value was there in the start graph (a given).
    pub given: bool,
    /// Other attributes set on the cell (`parity = 1`), shown small.
    pub notes: Vec<String>,
}

/// How a group is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Members in chain order, and the label that chains them.
    Line(Vec<usize>, LabelId),
    /// The number set on the group.
    Cage(String),
    /// A run of one row (`true`) or one column (`false`).
    RowOrColumn(bool),
    /// Members in order along the diagonal.
    Diagonal(Vec<usize>),
    Region,
    Extra,
}

/// A group-like node and its member cells.
#[derive(Clone, Debug)]
pub struct Group {
    /// The group node's type; `None` for a group the rules imply.
    pub ty: Option<NodeTypeId>,
    pub name: String,
    /// Indexes into [`Board::cells`], sorted.
    pub members: Vec<usize>,
    /// Int attributes set on the group (`sum = 15`), in attribute order.
    pub numbers: Vec<(String, i64)>,
    pub shape: Shape,
}

/// Where a label's edges run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Every edge joins cells side by side.
    Neighbours,
    /// Some edge joins cells further apart (a knight's move, a diagonal step).
    Apart,
}

/// The cell-to-cell edges of one label.
#[derive(Clone, Debug)]
pub struct Relation {
    pub name: String,
    /// (source, target) as indexes into [`Board::cells`]; the edges that chain lines are
    /// left out.
    pub edges: Vec<(usize, usize)>,
    /// True when some edge has no reverse edge.
    pub directed: bool,
    /// True when the label joins every pair of cells at each of its offsets (every pair a
    /// knight's move apart): then one example shows the rule.
    pub uniform: bool,
    pub reach: Reach,
}

/// A grid graph read for drawing.
#[derive(Clone, Debug)]
pub struct Board {
    pub rows: u32,
    pub cols: u32,
    pub cells: Vec<Cell>,
    pub at: HashMap<(u32, u32), usize>,
    pub groups: Vec<Group>,
    pub relations: Vec<Relation>,
}

/// The name of a node: its start-graph name, or `new<id>` for a created one.
fn name_of(grammar: &Grammar, n: NodeId) -> String {
    crate::output::text::node_name(grammar, n)
}

/// Reads the board of `graph` (a state of `grammar`, which has a grid); `start` is the
/// start graph it came from, whose values are the givens. When no node outside the grid
/// joins its cells, the `implied` groups (sets of cells) stand for the groups.
pub fn read_board(
    grammar: &Grammar,
    graph: &Graph,
    start: &Graph,
    implied: &[Vec<NodeId>],
) -> Option<Board> {
    let grid = grammar.grid.as_ref()?;
    let values = cell_values(grammar, grid, graph);
    let givens = cell_values(grammar, grid, start);
    let positions = positions(grammar, graph, grid);
    let mut cells = Vec::new();
    let mut at = HashMap::new();
    let mut index_of: HashMap<NodeId, usize> = HashMap::new();
    for (i, &node) in grid.cells.iter().enumerate() {
        let Some((row, col)) = positions[i] else {
            continue;
        };
        if at.contains_key(&(row, col)) {
            continue;
        }
        let value = match values[i] {
            Value::Val(x) => Some(grammar.domain.name(x).to_string()),
            _ => None,
        };
        let given = value.is_some() && values[i] == givens[i];
        at.insert((row, col), cells.len());
        index_of.insert(node, cells.len());
        cells.push(Cell {
            node,
            row,
            col,
            value,
            given,
            notes: notes(grammar, graph, node),
        });
    }
    let rows = cells.iter().map(|c| c.row + 1).max().unwrap_or(0);
    let cols = cells.iter().map(|c| c.col + 1).max().unwrap_or(0);
    let mut board = Board {
        rows,
        cols,
        cells,
        at,
        groups: Vec::new(),
        relations: Vec::new(),
    };
    board.groups = read_groups(grammar, graph, &index_of);
    if board.groups.is_empty() {
        board.groups = implied_groups(grammar, implied, &index_of);
    }
    let chained: BTreeSet<(usize, LabelId, usize)> = chain_edges(&board, graph, &index_of);
    board.relations = read_relations(grammar, graph, &index_of, &board, &chained);
    classify(&mut board, graph);
    Some(board)
}

/// Each grid cell's 0-based place: its `row` and `col` attributes where its type has both
/// (the grid sets them from the place), else its position in the grid's layout.
fn positions(grammar: &Grammar, graph: &Graph, grid: &Grid) -> Vec<Option<(u32, u32)>> {
    let by_attrs = |n: NodeId| {
        let ty = grammar.types.node(graph.ty(n));
        let get = |name: &str| match graph.attr(n, ty.attr(name)?) {
            Value::Int(x) if x >= 1 && x <= i64::from(u32::MAX) => Some(x as u32 - 1),
            _ => None,
        };
        Some((get("row")?, get("col")?))
    };
    let all_have = grid.cells.iter().all(|&n| by_attrs(n).is_some());
    grid.cells
        .iter()
        .map(|&n| {
            if all_have {
                by_attrs(n)
            } else {
                let (r, c) = grid.position_of(n)?;
                Some((r as u32, c as u32))
            }
        })
        .collect()
}

/// The attributes set on a cell besides its place and its value.
fn notes(grammar: &Grammar, graph: &Graph, n: NodeId) -> Vec<String> {
    let ty = grammar.types.node(graph.ty(n));
    ty.attrs
        .iter()
        .enumerate()
        .filter(|(_, a)| a.name != "row" && a.name != "col" && a.ty.base != BaseType::Value)
        .filter_map(|(i, a)| {
            // A flag reads as its name where it is set; unset, it says nothing.
            match graph.node(n).attrs[i] {
                Value::None | Value::Bool(false) => None,
                Value::Bool(true) => Some(a.name.clone()),
                v => Some(format!("{}={}", a.name, grammar.domain.show(v))),
            }
        })
        .collect()
}

/// Every node outside the grid joined to grid cells, with its members.
fn read_groups(grammar: &Grammar, graph: &Graph, index_of: &HashMap<NodeId, usize>) -> Vec<Group> {
    let mut members: BTreeMap<NodeId, BTreeSet<usize>> = BTreeMap::new();
    for (&n, &i) in index_of {
        for &(_, other) in graph.out(n).iter().chain(graph.inc(n)) {
            if !index_of.contains_key(&other) {
                members.entry(other).or_default().insert(i);
            }
        }
    }
    members
        .into_iter()
        .map(|(node, m)| {
            let ty = grammar.types.node(graph.ty(node));
            let numbers = ty
                .attrs
                .iter()
                .zip(&graph.node(node).attrs)
                .filter_map(|(a, v)| match v {
                    Value::Int(x) => Some((a.name.clone(), *x)),
                    _ => None,
                })
                .collect();
            Group {
                ty: Some(graph.ty(node)),
                name: name_of(grammar, node),
                members: m.into_iter().collect(),
                numbers,
                shape: Shape::Extra,
            }
        })
        .collect()
}

/// Groups without a node: each set of cells as a group named after its first and last
/// cell.
fn implied_groups(
    grammar: &Grammar,
    implied: &[Vec<NodeId>],
    index_of: &HashMap<NodeId, usize>,
) -> Vec<Group> {
    implied
        .iter()
        .filter_map(|cells| {
            let mut members: Vec<usize> = cells
                .iter()
                .filter_map(|n| index_of.get(n).copied())
                .collect();
            members.sort_unstable();
            members.dedup();
            let (&first, &last) = (cells.first()?, cells.last()?);
            (members.len() >= 2).then(|| Group {
                ty: None,
                name: format!("{}..{}", name_of(grammar, first), name_of(grammar, last)),
                members,
                numbers: Vec::new(),
                shape: Shape::Extra,
            })
        })
        .collect()
}

/// The order of `members` when one label's edges among them chain them into a path.
fn chain(
    graph: &Graph,
    cells: &[Cell],
    members: &[usize],
    index_of: &HashMap<NodeId, usize>,
) -> Option<(Vec<usize>, LabelId)> {
    if members.len() < 2 {
        return None;
    }
    let set: BTreeSet<usize> = members.iter().copied().collect();
    let mut by_label: BTreeMap<LabelId, Vec<(usize, usize)>> = BTreeMap::new();
    for &m in members {
        for &(l, t) in graph.out(cells[m].node) {
            if let Some(&j) = index_of.get(&t) {
                if set.contains(&j) && j != m {
                    by_label.entry(l).or_default().push((m, j));
                }
            }
        }
    }
    'labels: for (l, edges) in by_label {
        if edges.len() != members.len() - 1 {
            continue;
        }
        let mut next: HashMap<usize, usize> = HashMap::new();
        let mut has_pred: BTreeSet<usize> = BTreeSet::new();
        for &(a, b) in &edges {
            if next.insert(a, b).is_some() || !has_pred.insert(b) {
                continue 'labels;
            }
        }
        let mut starts = members.iter().filter(|m| !has_pred.contains(m));
        let (Some(&first), None) = (starts.next(), starts.next()) else {
            continue;
        };
        let mut order = vec![first];
        while let Some(&n) = next.get(order.last().unwrap()) {
            if order.len() > members.len() {
                continue 'labels;
            }
            order.push(n);
        }
        if order.len() == members.len() {
            return Some((order, l));
        }
    }
    None
}

/// The cell-to-cell edges that chain some group's members (they are drawn as its line).
fn chain_edges(
    board: &Board,
    graph: &Graph,
    index_of: &HashMap<NodeId, usize>,
) -> BTreeSet<(usize, LabelId, usize)> {
    let mut used = BTreeSet::new();
    // Only a group node makes a line: the groups the rules imply are sets of cells.
    for g in board.groups.iter().filter(|g| g.ty.is_some()) {
        if let Some((order, l)) = chain(graph, &board.cells, &g.members, index_of) {
            for w in order.windows(2) {
                used.insert((w[0], l, w[1]));
            }
        }
    }
    used
}

fn read_relations(
    grammar: &Grammar,
    graph: &Graph,
    index_of: &HashMap<NodeId, usize>,
    board: &Board,
    chained: &BTreeSet<(usize, LabelId, usize)>,
) -> Vec<Relation> {
    let mut by_label: BTreeMap<LabelId, Vec<(usize, usize)>> = BTreeMap::new();
    for (i, c) in board.cells.iter().enumerate() {
        for &(l, t) in graph.out(c.node) {
            if let Some(&j) = index_of.get(&t) {
                if i != j && !chained.contains(&(i, l, j)) {
                    by_label.entry(l).or_default().push((i, j));
                }
            }
        }
    }
    by_label
        .into_iter()
        .map(|(label, edges)| {
            let set: BTreeSet<(usize, usize)> = edges.iter().copied().collect();
            let directed = edges.iter().any(|&(a, b)| !set.contains(&(b, a)));
            let offset = |&(a, b): &(usize, usize)| {
                let (ca, cb) = (&board.cells[a], &board.cells[b]);
                (
                    i64::from(cb.row) - i64::from(ca.row),
                    i64::from(cb.col) - i64::from(ca.col),
                )
            };
            let offsets: BTreeSet<(i64, i64)> = edges.iter().map(offset).collect();
            let reach = if offsets.iter().all(|&(dr, dc)| dr.abs() + dc.abs() == 1) {
                Reach::Neighbours
            } else {
                Reach::Apart
            };
            // Every pair of cells at one of the offsets is joined.
            let possible: usize = board
                .cells
                .iter()
                .map(|c| {
                    offsets
                        .iter()
                        .filter(|&&(dr, dc)| {
                            let (r, k) = (i64::from(c.row) + dr, i64::from(c.col) + dc);
                            r >= 0 && k >= 0 && board.at.contains_key(&(r as u32, k as u32))
                        })
                        .count()
                })
                .sum();
            let uniform = possible == set.len() && set.len() > 4;
            Relation {
                name: grammar.types.label(label).name.clone(),
                edges,
                directed,
                uniform,
                reach,
            }
        })
        .collect()
}

/// True when the cells are one piece, side by side.
pub fn contiguous(board: &Board, members: &[usize]) -> bool {
    let set: BTreeSet<(u32, u32)> = members
        .iter()
        .map(|&m| (board.cells[m].row, board.cells[m].col))
        .collect();
    let Some(&first) = set.iter().next() else {
        return false;
    };
    let mut seen = BTreeSet::from([first]);
    let mut stack = vec![first];
    while let Some((r, c)) = stack.pop() {
        let mut near = vec![(r + 1, c), (r, c + 1)];
        if r > 0 {
            near.push((r - 1, c));
        }
        if c > 0 {
            near.push((r, c - 1));
        }
        for p in near {
            if set.contains(&p) && seen.insert(p) {
                stack.push(p);
            }
        }
    }
    seen.len() == set.len()
}

/// The run of one row or column a group covers, as (horizontal, line, first, last).
fn run(board: &Board, members: &[usize]) -> Option<(bool, u32, u32, u32)> {
    if members.len() < 2 {
        return None;
    }
    let cells: Vec<&Cell> = members.iter().map(|&m| &board.cells[m]).collect();
    let span = |xs: Vec<u32>| {
        let (lo, hi) = (*xs.iter().min()?, *xs.iter().max()?);
        (hi - lo + 1 == xs.len() as u32).then_some((lo, hi))
    };
    if cells.iter().all(|c| c.row == cells[0].row) {
        let (lo, hi) = span(cells.iter().map(|c| c.col).collect())?;
        return Some((true, cells[0].row, lo, hi));
    }
    if cells.iter().all(|c| c.col == cells[0].col) {
        let (lo, hi) = span(cells.iter().map(|c| c.row).collect())?;
        return Some((false, cells[0].col, lo, hi));
    }
    None
}

/// The members in order along one diagonal, when they lie on one.
fn diagonal(board: &Board, members: &[usize]) -> Option<Vec<usize>> {
    if members.len() < 3 {
        return None;
    }
    let mut order = members.to_vec();
    order.sort_by_key(|&m| board.cells[m].row);
    let step = |a: usize, b: usize| {
        let (ca, cb) = (&board.cells[a], &board.cells[b]);
        (
            i64::from(cb.row) - i64::from(ca.row),
            i64::from(cb.col) - i64::from(ca.col),
        )
    };
    let first = step(order[0], order[1]);
    (first.0 == 1 && first.1.abs() == 1 && order.windows(2).all(|w| step(w[0], w[1]) == first))
        .then_some(order)
}

/// Decides each group's shape (see the module's docs).
fn classify(board: &mut Board, graph: &Graph) {
    let index_of: HashMap<NodeId, usize> = board
        .cells
        .iter()
        .enumerate()
        .map(|(i, c)| (c.node, i))
        .collect();
    // Runs of one row or column that have at least two parallel runs of the same span.
    let runs: Vec<Option<(bool, u32, u32, u32)>> = board
        .groups
        .iter()
        .map(|g| run(board, &g.members))
        .collect();
    let mut spans: BTreeMap<(bool, u32, u32), usize> = BTreeMap::new();
    for &(h, _, lo, hi) in runs.iter().flatten() {
        *spans.entry((h, lo, hi)).or_default() += 1;
    }
    let mut candidates = Vec::new();
    let mut shapes = Vec::with_capacity(board.groups.len());
    for (gi, (g, run)) in board.groups.iter().zip(&runs).enumerate() {
        // A run of three cells or more with two parallel runs of the same span.
        let line_of_grid = run.filter(|&(h, _, lo, hi)| hi - lo >= 2 && spans[&(h, lo, hi)] >= 3);
        let chained =
            g.ty.and_then(|_| chain(graph, &board.cells, &g.members, &index_of));
        let shape = if let Some((order, l)) = chained {
            Shape::Line(order, l)
        } else if let Some((horizontal, ..)) = line_of_grid {
            Shape::RowOrColumn(horizontal)
        } else if let (Some((_, n)), true) = (g.numbers.first(), contiguous(board, &g.members)) {
            Shape::Cage(n.to_string())
        } else if let Some(order) = diagonal(board, &g.members) {
            Shape::Diagonal(order)
        } else {
            if g.members.len() >= 2 && contiguous(board, &g.members) {
                candidates.push(gi);
            }
            Shape::Extra
        };
        shapes.push(shape);
    }
    for (g, shape) in board.groups.iter_mut().zip(shapes) {
        g.shape = shape;
    }
    for gi in regions(board, &candidates) {
        board.groups[gi].shape = Shape::Region;
    }
}

/// The family of disjoint groups among `candidates` drawn as regions: chosen greedily,
/// the group overlapping the fewest others first (boxes before the windows that straddle
/// them), kept when it has two groups or more and covers half the grid or more.
fn regions(board: &Board, candidates: &[usize]) -> Vec<usize> {
    let sets: Vec<BTreeSet<usize>> = candidates
        .iter()
        .map(|&g| board.groups[g].members.iter().copied().collect())
        .collect();
    let overlaps = |a: usize, b: usize| a != b && !sets[a].is_disjoint(&sets[b]);
    let mut left: BTreeSet<usize> = (0..candidates.len()).collect();
    let mut chosen = Vec::new();
    while let Some(&pick) = left
        .iter()
        .min_by_key(|&&a| (left.iter().filter(|&&b| overlaps(a, b)).count(), a))
    {
        left.retain(|&b| b != pick && !overlaps(pick, b));
        chosen.push(pick);
    }
    let covered: usize = chosen.iter().map(|&a| sets[a].len()).sum();
    if chosen.len() >= 2 && 2 * covered >= board.cells.len() {
        chosen.into_iter().map(|a| candidates[a]).collect()
    } else {
        Vec::new()
    }
}
