//! The spanned syntax tree of a rule file: what was written, before any name is resolved.

use crate::diag::Span;
use crate::rule::{AggOp, BinOp, UnOp};

/// A name as written, with where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct File {
    pub items: Vec<Item>,
    #[allow(dead_code)] // every node keeps its span for diagnostics; this one has no reader yet
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Item {
    Values(ValuesDecl),
    Node(NodeDecl),
    Edge(EdgeDecl),
    NodeDef(NodeDef),
    EdgeDef(EdgeDef),
    Grid(GridDecl),
    Groups(GroupsDecl),
    Group(GroupDecl),
    Line(LineDecl),
    Edges(EdgesDecl),
    Start(StartBlock),
    Rule(RuleDecl),
    Final(FinalDecl),
    Layer(LayerDecl),
    Forbid(ForbidDecl),
}

impl Item {
    pub fn span(&self) -> Span {
        match self {
            Item::Values(d) => d.span,
            Item::Node(d) => d.span,
            Item::Edge(d) => d.span,
            Item::NodeDef(d) => d.span,
            Item::EdgeDef(d) => d.span,
            Item::Grid(d) => d.span,
            Item::Groups(d) => d.span,
            Item::Group(d) => d.span,
            Item::Line(d) => d.span,
            Item::Edges(d) => d.span,
            Item::Start(d) => d.span,
            Item::Rule(d) => d.span,
            Item::Final(d) => d.span,
            Item::Layer(d) => d.span,
            Item::Forbid(d) => d.span,
        }
    }
}

/// `values 1..4 A..G red`.
#[derive(Clone, Debug)]
pub struct ValuesDecl {
    pub items: Vec<ValueItem>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueItemKind {
    IntRange(i64, i64),
    LetterRange(char, char),
    Int(i64),
    Name(String),
}

#[derive(Clone, Debug)]
pub struct ValueItem {
    pub kind: ValueItemKind,
    pub span: Span,
}

/// `int`, `value?`, ...: resolved by the checker, so a typo gets a precise message.
#[derive(Clone, Debug)]
pub struct TypeName {
    pub name: Ident,
    pub optional: bool,
    pub span: Span,
}

/// `node Name : Parent { attr: type, ... }`.
#[derive(Clone, Debug)]
pub struct NodeDecl {
    pub name: Ident,
    pub parent: Option<Ident>,
    pub attrs: Vec<AttrDecl>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct AttrDecl {
    pub name: Ident,
    pub ty: TypeName,
    #[allow(dead_code)] // every node keeps its span for diagnostics; this one has no reader yet
    pub span: Span,
}

/// `edge label: Source -> Target`.
#[derive(Clone, Debug)]
pub struct EdgeDecl {
    pub name: Ident,
    pub source: Ident,
    pub target: Ident,
    pub span: Span,
}

/// `a: Cell { row = 1 }` in the start graph.
#[derive(Clone, Debug)]
pub struct NodeDef {
    pub name: Ident,
    pub ty: Ident,
    pub attrs: Vec<AttrInit>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct AttrInit {
    pub name: Ident,
    pub value: Expr,
    #[allow(dead_code)] // every node keeps its span for diagnostics; this one has no reader yet
    pub span: Span,
}

/// `a -in-> g <-in- b` in the start graph.
#[derive(Clone, Debug)]
pub struct EdgeDef {
    pub first: Ident,
    pub steps: Vec<(EdgeStep, Ident)>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    /// `-p->`: from the node before to the node after.
    Out,
    /// `<-p-`: from the node after to the node before.
    In,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeStep {
    pub dir: Dir,
    pub path: Path,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathKind {
    Label(Ident),
    Inverse(Box<Path>),
    Seq(Vec<Path>),
    Alt(Vec<Path>),
    Star(Box<Path>),
    Plus(Box<Path>),
    Opt(Box<Path>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Path {
    pub kind: PathKind,
    pub span: Span,
}

impl Path {
    /// The label when the path is one plain edge.
    pub fn as_label(&self) -> Option<&Ident> {
        match &self.kind {
            PathKind::Label(l) => Some(l),
            _ => None,
        }
    }
}

/// `RxC`.
#[derive(Clone, Copy, Debug)]
pub struct Dims {
    pub rows: u32,
    pub cols: u32,
    pub span: Span,
}

/// `grid RxC of T [given U]` or `grid RxC = names... [given U]`, either with
/// `shape { mask }`.
#[derive(Clone, Debug)]
pub struct GridDecl {
    pub dims: Dims,
    pub kind: GridKind,
    /// The layout mask: `#` a cell, `.` a hole, one character per position.
    pub shape: Option<RawBlock>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum GridKind {
    Of {
        ty: Ident,
        given: Option<Ident>,
    },
    Names {
        names: Vec<Ident>,
        given: Option<Ident>,
    },
}

/// Text between braces read character by character (`start`, `regions`). `span.start` is
/// the byte offset of the first character of `text`.
#[derive(Clone, Debug)]
pub struct RawBlock {
    pub text: String,
    pub span: Span,
}

/// `groups rows, columns, boxes 2x2 [in SUBGRID] [via in]`.
#[derive(Clone, Debug)]
pub struct GroupsDecl {
    pub shapes: Vec<GroupShape>,
    /// The sub-grids the shapes are laid over; the whole grid when absent.
    pub within: Option<SubGrid>,
    pub via: Option<Ident>,
    pub span: Span,
}

/// `in block RxC at CELL ...` or `in lattice RxC at CELL ... step S [blocks BxC]`: one
/// sub-grid per anchor, its top-left position.
#[derive(Clone, Debug)]
pub struct SubGrid {
    pub dims: Dims,
    pub anchors: Vec<Ident>,
    /// A lattice's spacing: `None` for a block.
    pub lattice: Option<Lattice>,
}

/// A lattice takes runs of `blocks` adjacent rows (columns) whose first ones are `step`
/// apart.
#[derive(Clone, Copy, Debug)]
pub struct Lattice {
    pub step: Dims,
    pub blocks: Option<Dims>,
}

#[derive(Clone, Debug)]
pub enum GroupShapeKind {
    Rows,
    Columns,
    Boxes(Dims),
    Diagonals,
    Regions(RawBlock),
}

#[derive(Clone, Debug)]
pub struct GroupShape {
    pub kind: GroupShapeKind,
    pub span: Span,
}

/// `group name = members [via label]`.
#[derive(Clone, Debug)]
pub struct GroupDecl {
    pub name: Ident,
    pub members: GroupMembers,
    pub via: Option<Ident>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum GroupMembers {
    Block { dims: Dims, at: Ident },
    List(Vec<Ident>),
}

/// `line name: Type = cells [via label] [next label]`.
#[derive(Clone, Debug)]
pub struct LineDecl {
    pub name: Ident,
    pub ty: Ident,
    pub members: Vec<Ident>,
    pub via: Option<Ident>,
    pub next: Option<Ident>,
    pub span: Span,
}

/// `edges c -l-> d where cond`.
#[derive(Clone, Debug)]
pub struct EdgesDecl {
    pub src: Ident,
    pub label: Ident,
    pub tgt: Ident,
    pub cond: Option<Expr>,
    pub span: Span,
}

/// `layer NAME: KIND`: what a puzzle line's section `NAME: ...` sets.
#[derive(Clone, Debug)]
pub struct LayerDecl {
    pub name: Ident,
    pub kind: LayerKind,
    /// `= { tokens }`: the layer's content in the file's own puzzle.
    pub content: Option<RawBlock>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum LayerKind {
    /// `regions of T [via L]`.
    Regions { ty: Ident, via: Option<Ident> },
    /// `lines of T [via L] [next L]`.
    Lines {
        ty: Ident,
        via: Option<Ident>,
        next: Option<Ident>,
    },
    /// `rows.left`, `columns.top`, `cages.sum`: an attribute of the nodes of a generator or
    /// of a regions layer.
    Field { owner: LayerOwner, attr: Ident },
    /// `parity`: an attribute of the grid's cells.
    Attr(Ident),
}

/// Whose attribute a `Field` layer sets.
#[derive(Clone, Debug)]
pub enum LayerOwner {
    /// The groups `groups rows` made.
    Rows(Span),
    /// The groups `groups columns` made.
    Columns(Span),
    /// The region nodes of the regions layer of this name.
    Layer(Ident),
}

#[derive(Clone, Debug)]
pub struct StartBlock {
    pub body: RawBlock,
    pub span: Span,
}

/// `rule name(params) { pattern effects }`.
#[derive(Clone, Debug)]
pub struct RuleDecl {
    pub name: Ident,
    pub params: Vec<Param>,
    pub pattern: PatternBlock,
    pub effects: Vec<Effect>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: Ident,
    pub ty: TypeName,
    pub span: Span,
}

/// The elements of a pattern: a rule body's, a NAC's or a `final` pattern's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternBlock {
    pub elems: Vec<PatternElem>,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PatternElem {
    Chain(Chain),
    Where(Expr),
    Not(PatternBlock),
}

/// `a: T { cond } -l-> b <-m- c`: a single node is a chain without steps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chain {
    pub first: NodeRef,
    pub steps: Vec<(EdgeStep, NodeRef)>,
    pub span: Span,
}

/// `name`, `name: Type` or either with `{ conditions }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRef {
    pub name: Ident,
    pub ty: Option<Ident>,
    pub conds: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Effect {
    Set {
        node: Ident,
        attr: Ident,
        value: Expr,
        span: Span,
    },
    NewNode {
        name: Ident,
        ty: Ident,
        attrs: Vec<AttrInit>,
        span: Span,
    },
    NewEdge {
        src: Ident,
        step: EdgeStep,
        tgt: Ident,
        span: Span,
    },
    DelNode {
        name: Ident,
        span: Span,
    },
    DelEdge {
        src: Ident,
        step: EdgeStep,
        tgt: Ident,
        span: Span,
    },
}

/// `final: cond`.
#[derive(Clone, Debug)]
pub struct FinalDecl {
    pub cond: Cond,
    pub span: Span,
}

/// `forbid { PATTERN }`: states where the pattern matches are pruned.
#[derive(Clone, Debug)]
pub struct ForbidDecl {
    pub pattern: PatternBlock,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum CondKind {
    Pattern(PatternBlock),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
}

#[derive(Clone, Debug)]
pub struct Cond {
    pub kind: CondKind,
    #[allow(dead_code)] // every node keeps its span for diagnostics; this one has no reader yet
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Int(i64),
    None,
    Bool(bool),
    /// `'A'`: a domain value by name, even when a parameter or attribute has that name.
    Quoted(String),
    /// A bare name: an attribute, a parameter or a domain value.
    Name(String),
    /// `node.attr`.
    Attr(Ident, Ident),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `count(PATTERN)` (no expression) or `sum(EXPR for PATTERN)` and the like.
    Aggregate(AggOp, Option<Box<Expr>>, Box<PatternBlock>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}
