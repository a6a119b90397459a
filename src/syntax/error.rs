//! pest errors to diagnostics: "expected `}` or a pattern element, found `set`".

use pest::error::{Error, ErrorVariant, InputLocation};

use super::{recover, Rule};
use crate::diag::{Diagnostic, Span};

/// What a grammar rule stands for, as a reader of the language would name it.
pub fn describe(rule: Rule) -> &'static str {
    match rule {
        Rule::EOI => "end of file",
        Rule::file => "a declaration",
        Rule::ident | Rule::list_name | Rule::name => "a name",
        Rule::int => "an integer",
        Rule::dims => "a size like `4x4`",
        Rule::quoted | Rule::quoted_text => "a quoted value like `'A'`",
        Rule::raw_block => "the block's text",
        Rule::values_decl => "`values`",
        Rule::int_range | Rule::letter_range | Rule::letter => "a value range",
        Rule::node_decl => "a node type declaration",
        Rule::supertype => "`:` and a supertype",
        Rule::attr_decls => "`{` and attribute declarations",
        Rule::attr_decl => "an attribute declaration `name: type`",
        Rule::attr_type | Rule::optional => "a type (int, value or bool)",
        Rule::edge_decl => "an edge label declaration",
        Rule::node_def => "a node `name: Type`",
        Rule::attr_inits => "`{` and attribute values",
        Rule::attr_init => "an attribute value `name = expression`",
        Rule::edge_def => "an edge `a -label-> b`",
        Rule::grid_decl => "a grid",
        Rule::grid_of => "`of` and a node type",
        Rule::grid_given => "`given` and a node type",
        Rule::grid_names => "`=` and node names",
        Rule::grid_shape => "`shape` and a layout `{ ... }`",
        Rule::sub_grid | Rule::sub_block | Rule::sub_lattice => {
            "`in block RxC at CELL` or `in lattice RxC at CELL step N`"
        }
        Rule::anchors => "a cell name",
        Rule::step_size => "a step like `3` or `3x3`",
        Rule::lattice_blocks => "`blocks` and a size like `3x3`",
        Rule::line_decl => "a line",
        Rule::line_members => "cell names",
        Rule::line_next => "`next` and an edge label",
        Rule::groups_decl => "`groups`",
        Rule::shape_rows
        | Rule::shape_columns
        | Rule::shape_boxes
        | Rule::shape_diagonals
        | Rule::shape_regions => "a group shape (rows, columns, boxes RxC, diagonals, regions)",
        Rule::via => "`via` and an edge label",
        Rule::group_decl => "a group",
        Rule::group_block => "`block RxC at CELL`",
        Rule::group_members => "member names",
        Rule::edges_decl => "an edges generator",
        Rule::start_block => "a start block",
        Rule::layer_decl => "a layer",
        Rule::layer_regions | Rule::layer_lines | Rule::layer_field | Rule::layer_attr => {
            "what the layer sets (`regions of Type`, `lines of Type`, an attribute, `rows.attr`)"
        }
        Rule::layer_next => "`next` and an edge label",
        Rule::layer_content => "`=` and the layer's content in braces",
        Rule::rule_decl => "a rule",
        Rule::params => "parameters",
        Rule::param => "a parameter `name: type`",
        Rule::nac | Rule::where_cond | Rule::chain | Rule::node_ref => "a pattern element",
        Rule::node_conds => "`{` and conditions",
        Rule::edge_out | Rule::edge_in => "an edge",
        Rule::path | Rule::path_seq | Rule::path_unary | Rule::inverse => "an edge label or path",
        Rule::path_op => "a path operator (* + ?)",
        Rule::set_effect | Rule::new_effect | Rule::del_effect => "an effect (set, new, del)",
        Rule::new_node => "a node `name: Type`",
        Rule::del_node => "a node name",
        Rule::edge_effect => "an edge `a -label-> b`",
        Rule::final_decl => "a final condition",
        Rule::forbid_decl => "a forbidden pattern `forbid { ... }`",
        Rule::cond | Rule::cond_and | Rule::cond_not | Rule::cond_pattern => {
            "a condition `{ pattern }`"
        }
        Rule::negation => "`not`",
        Rule::expr
        | Rule::or_expr
        | Rule::and_expr
        | Rule::not_expr
        | Rule::cmp_expr
        | Rule::sum
        | Rule::product
        | Rule::unary
        | Rule::minus
        | Rule::abs_call
        | Rule::count_call
        | Rule::fold_call
        | Rule::none
        | Rule::true_lit
        | Rule::false_lit
        | Rule::attr_ref => "an expression",
        Rule::cmp_op => "a comparison",
        Rule::add_op | Rule::mul_op => "an operator",
        Rule::w_values => "`values`",
        Rule::w_node => "`node`",
        Rule::w_edges => "`edges`",
        Rule::w_edge => "`edge`",
        Rule::w_grid => "`grid`",
        Rule::w_of => "`of`",
        Rule::w_given => "`given`",
        Rule::w_groups => "`groups`",
        Rule::w_group => "`group`",
        Rule::w_where => "`where`",
        Rule::w_start => "`start`",
        Rule::w_rule => "`rule`",
        Rule::w_not => "`not`",
        Rule::w_set => "`set`",
        Rule::w_new => "`new`",
        Rule::w_del => "`del`",
        Rule::w_final => "`final`",
        Rule::w_none => "`none`",
        Rule::w_true => "`true`",
        Rule::w_false => "`false`",
        Rule::w_abs => "`abs`",
        Rule::fold_op => "an aggregate (`sum`, `min`, `max`, `all` or `any`)",
        Rule::w_count => "`count`",
        Rule::w_for => "`for`",
        Rule::w_and => "`and`",
        Rule::w_or => "`or`",
        Rule::w_via => "`via`",
        Rule::w_block => "`block`",
        Rule::w_at => "`at`",
        Rule::w_rows => "`rows`",
        Rule::w_columns => "`columns`",
        Rule::w_boxes => "`boxes`",
        Rule::w_diagonals => "`diagonals`",
        Rule::w_regions => "`regions`",
        Rule::w_layer => "`layer`",
        Rule::w_lines => "`lines`",
        Rule::w_shape => "`shape`",
        Rule::w_in => "`in`",
        Rule::w_lattice => "`lattice`",
        Rule::w_step => "`step`",
        Rule::w_blocks => "`blocks`",
        Rule::w_line => "`line`",
        Rule::w_next => "`next`",
        Rule::open_brace => "`{`",
        Rule::close_brace => "`}`",
        Rule::open_paren => "`(`",
        Rule::close_paren => "`)`",
        Rule::colon => "`:`",
        Rule::comma => "`,`",
        Rule::equals => "`=`",
        Rule::arrow => "`->`",
        Rule::dash => "`-`",
        Rule::dot => "`.`",
        // Silent rules (blanks, comments, keywords) are never reported by pest.
        _ => "a token",
    }
}

/// The text found at `pos`: a word, a number, one character or "end of file".
pub fn found_at(text: &str, pos: usize) -> (String, Span) {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let rest = &text[pos..];
    let Some(first) = rest.chars().next() else {
        return ("end of file".to_string(), Span::new(pos, pos));
    };
    let len = if first.is_ascii_alphanumeric() || first == '_' {
        rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len())
    } else {
        first.len_utf8()
    };
    let word = &rest[..len];
    let shown = match first {
        '\n' | '\r' => "end of line".to_string(),
        _ => format!("`{word}`"),
    };
    (shown, Span::new(pos, pos + len))
}

/// The diagnostic for a pest error found by parsing `text[from..]`: what was expected and
/// found, where an unclosed block opened, and "did you mean" for a misspelt keyword.
pub fn explain(text: &str, from: usize, e: &Error<Rule>) -> Diagnostic {
    let pos = from
        + match e.location {
            InputLocation::Pos(p) => p,
            InputLocation::Span((s, _)) => s,
        };
    let (found, span) = found_at(text, pos);
    let mut expects_close = false;
    let message = match &e.variant {
        ErrorVariant::ParsingError { positives, .. } => {
            expects_close = positives.contains(&Rule::close_brace);
            let mut expected: Vec<String> = Vec::new();
            for item in summarize(positives) {
                push_unique(&mut expected, item);
            }
            if expected.is_empty() {
                format!("unexpected {found}")
            } else {
                format!("expected {}, found {found}", one_of(&expected))
            }
        }
        // pest's guard against deep recursion ("stack limit reached", "call limit reached").
        ErrorVariant::CustomError { message } if message.contains("limit reached") => format!(
            "nested too deeply: expected fewer levels of parentheses, braces or NACs (the parser's {message})"
        ),
        ErrorVariant::CustomError { message } => message.clone(),
    };
    let mut d = Diagnostic::error(span, message);
    // At the end of the file a missing `}` is the likely fault: show where it opened.
    if expects_close && found == "end of file" {
        if let Some(open) = recover::open_brace(text, from, pos) {
            d = d.with_label(Span::new(open, open + 1), "this `{` is never closed");
        }
    }
    if let Some((word, keywords)) = recover::leading_word(text, pos) {
        d = d.with_suggestion(word, keywords.iter().copied());
    }
    d
}

/// Rules that together stand for one thing a reader knows: when pest reports all of a
/// group's `core`, the whole group (the `core` and any `extra` present) is named once.
struct Group {
    core: &'static [Rule],
    extra: &'static [Rule],
    name: &'static str,
}

const GROUPS: &[Group] = &[
    Group {
        core: &[Rule::w_node, Rule::w_edge, Rule::w_rule, Rule::w_final],
        extra: &[
            Rule::w_values,
            Rule::w_grid,
            Rule::w_groups,
            Rule::w_group,
            Rule::w_edges,
            Rule::w_start,
            Rule::w_layer,
            Rule::w_line,
            Rule::ident,
        ],
        name: "a declaration",
    },
    Group {
        core: &[Rule::w_not, Rule::w_where, Rule::ident],
        extra: &[],
        name: "a pattern element",
    },
    Group {
        core: &[Rule::w_set, Rule::w_new, Rule::w_del],
        extra: &[],
        name: "an effect (set, new, del)",
    },
    Group {
        core: &[Rule::w_and, Rule::w_or],
        extra: &[Rule::cmp_op, Rule::add_op, Rule::mul_op],
        name: "an operator",
    },
];

/// The readable names of what pest expected, groups collapsed, in pest's order.
fn summarize(positives: &[Rule]) -> Vec<String> {
    let mut left: Vec<Option<Rule>> = positives.iter().copied().map(Some).collect();
    let mut named: Vec<(usize, &str)> = Vec::new();
    for g in GROUPS {
        if !g.core.iter().all(|r| left.contains(&Some(*r))) {
            continue;
        }
        let mut first = usize::MAX;
        for (i, slot) in left.iter_mut().enumerate() {
            if slot.is_some_and(|r| g.core.contains(&r) || g.extra.contains(&r)) {
                first = first.min(i);
                *slot = None;
            }
        }
        named.push((first, g.name));
    }
    let mut out: Vec<(usize, String)> = left
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.map(|r| (i, describe(r).to_string())))
        .collect();
    out.extend(named.into_iter().map(|(i, n)| (i, n.to_string())));
    // "end of file" reads best last: "expected a declaration or end of file".
    out.sort_by_key(|(i, s)| (s == "end of file", *i));
    out.into_iter().map(|(_, s)| s).collect()
}

fn push_unique(list: &mut Vec<String>, item: String) {
    if !list.contains(&item) {
        list.push(item);
    }
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
