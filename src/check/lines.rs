//! `line NAME: TYPE = CELL ... [via LABEL] [next LABEL]`: an ordered line of cells (a
//! thermometer, an arrow, a whisper) as one node with an edge from each member, and a
//! `next` edge from each member to the one after it.

use super::Checker;
use crate::model::{LabelId, NodeId, NodeTypeId};
use crate::syntax::ast;

impl Checker<'_> {
    pub(super) fn lower_line(&mut self, d: &ast::LineDecl) {
        let Some(ty) = self.resolve_type(&d.ty) else {
            return;
        };
        let found: Vec<Option<NodeId>> = d.members.iter().map(|n| self.find_base_node(n)).collect();
        let Some(members) = found.into_iter().collect::<Option<Vec<_>>>() else {
            return;
        };
        for (i, m) in d.members.iter().enumerate() {
            if d.members[..i].iter().any(|n| n.name == m.name) {
                self.error(
                    m.span,
                    format!(
                        "`{}` is twice on line `{}`: expected each cell once (a cell may be on several lines)",
                        m.name, d.name.name
                    ),
                );
                return;
            }
        }
        let member_type = self.graph.ty(members[0]);
        let Some(on) = self.line_label(d, member_type, ty) else {
            return;
        };
        let next = match &d.next {
            Some(l) => match self.resolve_label(l) {
                Some(l) => Some(l),
                None => return,
            },
            None => None,
        };
        let Some(attrs) = self.empty_attrs(ty, "lines", d.span) else {
            return;
        };
        let Some(line) = self.add_base_node(&d.name.name, ty, attrs, d.name.span) else {
            return;
        };
        for (m, name) in members.iter().zip(&d.members) {
            self.add_base_edge(*m, on, line, name.span);
        }
        if let Some(next) = next {
            for (pair, names) in members.windows(2).zip(d.members.windows(2)) {
                self.add_base_edge(pair[0], next, pair[1], names[0].span.to(names[1].span));
            }
        }
    }

    /// The label from the members to the line: `via`, or the only one that leaves the
    /// members' type for the line's type.
    fn line_label(
        &mut self,
        d: &ast::LineDecl,
        member: NodeTypeId,
        line: NodeTypeId,
    ) -> Option<LabelId> {
        if let Some(via) = &d.via {
            return self.resolve_label(via);
        }
        let candidates: Vec<LabelId> = (0..self.types.labels.len())
            .map(LabelId::from_index)
            .filter(|&l| {
                let label = self.types.label(l);
                self.types.is_subtype(member, label.source)
                    && self.types.is_subtype(line, label.target)
            })
            .collect();
        let (m, t) = (
            self.type_name(member).to_string(),
            self.type_name(line).to_string(),
        );
        self.sole_label(
            d.span,
            &candidates,
            &m,
            &format!("`{t}`"),
            &format!("edge on: {m} -> {t}"),
        )
    }
}
