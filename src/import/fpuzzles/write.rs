//! A lowered puzzle written out: the rule file its families make, and its puzzle line.

use super::families::{Family, FAMILIES};
use super::lower::Lowered;

/// The rule file for a puzzle's size, boxes and families.
pub fn rule_file(p: &Lowered) -> String {
    let n = p.size;
    let used: Vec<(&Family, &str)> = p
        .families
        .iter()
        .map(|(&i, param)| (&FAMILIES[i], param.as_str()))
        .collect();
    let fill = |text: &str, param: &str| -> String {
        let text = per_digit(text, param);
        let (h, w) = p.boxes.unwrap_or((1, n));
        // A cell's place in its box, 1 to n, row by row.
        let place = |c: &str| format!("(({c}.row - 1) % {h}) * {w} + ({c}.col - 1) % {w} + 1");
        text.replace("{N}", &n.to_string())
            .replace("{P}", param)
            .replace("{DOWN}", &diagonal(n, false))
            .replace("{UP}", &diagonal(n, true))
            .replace("{BOXPLACE_D}", &place("d"))
            .replace("{BOXPLACE_I}", &place("i"))
    };
    let names: Vec<&str> = used.iter().map(|(f, _)| f.name).collect();
    let mut out = String::new();
    out.push_str(&format!(
        "// A {n}x{n} Sudoku from f-puzzles{}. Written by `grafter import fpuzzles`:\n\
         // each puzzle line gives its givens and, in layers, its regions, cages, lines and marks.\n",
        if names.is_empty() {
            String::new()
        } else {
            format!(", with {}", names.join(", "))
        }
    ));
    out.push_str(&format!("values 1..{n}\n\n"));
    let attrs = |pick: fn(&Family) -> &'static str| -> String {
        used.iter()
            .map(|(f, _)| pick(f))
            .filter(|a| !a.is_empty())
            .map(|a| format!(", {a}"))
            .collect()
    };
    out.push_str(&format!(
        "node Cell {{ row: int, col: int, val: value?{} }}\n",
        attrs(|f| f.cell_attrs)
    ));
    let group = attrs(|f| f.group_attrs);
    if group.is_empty() {
        out.push_str("node Group\n");
    } else {
        out.push_str(&format!("node Group {{ {} }}\n", &group[2..]));
    }
    out.push_str(
        "node Box : Group                // a box, or an irregular region\n\
         edge in: Cell -> Group\n\n",
    );
    out.push_str(&format!(
        "grid {n}x{n} of Cell\ngroups rows, columns via in\nlayer region: regions of Box via in\n"
    ));
    for (f, param) in &used {
        out.push('\n');
        out.push_str(&fill(f.decls, param));
    }
    out.push_str("\nrule place(v: value) {\n");
    let conds: Vec<&str> = used
        .iter()
        .map(|(f, _)| f.condition)
        .filter(|c| !c.is_empty())
        .collect();
    let conds: String = conds.iter().map(|c| format!(", {c}")).collect();
    out.push_str(&format!("  c: Cell {{ val == none{conds} }}\n"));
    out.push_str("  not { c -in-> g: Group <-in- d: Cell { val == v } }   // no v twice in a row, column, box or region\n");
    for (f, param) in &used {
        out.push_str(&fill(f.nacs, param));
    }
    out.push_str("  set c.val = v\n}\n\nfinal: not { c: Cell { val == none } }");
    for (f, param) in &used {
        if !f.final_cond.is_empty() {
            out.push_str("\n  and ");
            out.push_str(&fill(f.final_cond, param));
        }
    }
    out.push('\n');
    out
}

/// Lines with `{D}` repeated once per digit of `param` (`1,2,5`), a run of such lines as
/// one block; the other lines once.
fn per_digit(text: &str, param: &str) -> String {
    if !text.contains("{D}") {
        return text.to_string();
    }
    let mut out = String::new();
    let mut block: Vec<&str> = Vec::new();
    let flush = |block: &mut Vec<&str>, out: &mut String| {
        for d in param.split(',') {
            for line in block.iter() {
                out.push_str(&line.replace("{D}", d));
                out.push('\n');
            }
        }
        block.clear();
    };
    for line in text.lines() {
        if line.contains("{D}") {
            block.push(line);
        } else {
            flush(&mut block, &mut out);
            out.push_str(line);
            out.push('\n');
        }
    }
    flush(&mut block, &mut out);
    out
}

/// A short name for the rule file: the size and the families.
pub fn stem(p: &Lowered) -> String {
    let mut s = format!("sudoku-{}x{}", p.size, p.size);
    if p.boxes.is_none() {
        s.push_str("-irregular");
    }
    for i in p.families.keys() {
        s.push('-');
        s.push_str(FAMILIES[*i].name);
    }
    s
}

/// The puzzle line: its givens, then a section per layer with content.
pub fn puzzle_line(p: &Lowered) -> String {
    let separated = p.size > 9;
    let givens: Vec<String> = p
        .givens
        .iter()
        .map(|g| g.map_or(".".to_string(), |v| v.to_string()))
        .collect();
    let mut line = if separated {
        givens.join(" ")
    } else {
        givens.concat()
    };
    for (layer, text) in &p.sections {
        line.push_str(&format!(" | {layer}: {text}"));
    }
    line
}

/// The cells of a main diagonal, from the top; `up` is the one from the bottom left.
fn diagonal(n: i64, up: bool) -> String {
    (1..=n)
        .map(|r| format!("r{r}c{}", if up { n + 1 - r } else { r }))
        .collect::<Vec<_>>()
        .join(" ")
}
