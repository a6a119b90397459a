//! A small SVG writer: elements appended to a string, text escaped, numbers kept short.

use std::fmt::Write;

/// The font of every picture: a sans-serif that renderers have (DejaVu, Helvetica, Arial).
pub const FONT: &str = "DejaVu Sans, Helvetica, Arial, sans-serif";

/// Text escaped for XML character data and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // XML 1.0 allows no other control characters, even escaped.
            c if (c as u32) < 0x20 && !matches!(c, '\n' | '\t') => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A coordinate or length with at most two decimals and no trailing zeros.
pub fn num(x: f64) -> String {
    let x = if x.is_finite() { x } else { 0.0 };
    let s = format!("{:.2}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// Text anchoring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    Start,
    Middle,
    End,
}

impl Anchor {
    fn name(self) -> &'static str {
        match self {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
            Anchor::End => "end",
        }
    }
}

/// An SVG document under construction. Every element takes a `class` naming what it
/// draws (`cell`, `given`, `cage`, ...), so that tests and style sheets can find it; the
/// look is given by attributes, so the picture needs no style sheet.
#[derive(Debug, Default)]
pub struct Svg {
    body: String,
}

impl Svg {
    pub fn new() -> Svg {
        Svg::default()
    }

    /// The document: a white page of `width` x `height` holding the elements written.
    pub fn finish(self, width: f64, height: f64) -> String {
        let (w, h) = (num(width), num(height));
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"{FONT}\">\n\
             <rect class=\"page\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n{}</svg>\n",
            self.body
        )
    }

    /// The elements written so far, to be placed in another document.
    pub fn into_body(self) -> String {
        self.body
    }

    /// Appends elements written elsewhere, shifted by (`dx`, `dy`).
    pub fn embed(&mut self, body: &str, dx: f64, dy: f64) {
        let _ = writeln!(
            self.body,
            "<g transform=\"translate({} {})\">",
            num(dx),
            num(dy)
        );
        self.body.push_str(body);
        self.body.push_str("</g>\n");
    }

    /// Appends markup made elsewhere (`<defs>`), as it is.
    pub fn raw(&mut self, markup: &str) {
        self.body.push_str(markup);
    }

    /// Opens a group; `extra` holds further attributes, already formatted.
    pub fn open(&mut self, class: &str, extra: &str) {
        let _ = writeln!(self.body, "<g class=\"{}\"{}>", escape(class), extra);
    }

    pub fn close(&mut self) {
        self.body.push_str("</g>\n");
    }

    /// A `<title>` for the enclosing group: shown as a tooltip by browsers.
    pub fn title(&mut self, text: &str) {
        let _ = writeln!(self.body, "<title>{}</title>", escape(text));
    }

    #[allow(clippy::too_many_arguments)]
    pub fn rect(&mut self, class: &str, x: f64, y: f64, w: f64, h: f64, style: &str) {
        let _ = writeln!(
            self.body,
            "<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {style}/>",
            escape(class),
            num(x),
            num(y),
            num(w),
            num(h)
        );
    }

    pub fn line(&mut self, class: &str, (x1, y1): (f64, f64), (x2, y2): (f64, f64), style: &str) {
        let _ = writeln!(
            self.body,
            "<line class=\"{}\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" {style}/>",
            escape(class),
            num(x1),
            num(y1),
            num(x2),
            num(y2)
        );
    }

    pub fn circle(&mut self, class: &str, (x, y): (f64, f64), r: f64, style: &str) {
        let _ = writeln!(
            self.body,
            "<circle class=\"{}\" cx=\"{}\" cy=\"{}\" r=\"{}\" {style}/>",
            escape(class),
            num(x),
            num(y),
            num(r)
        );
    }

    pub fn polyline(&mut self, class: &str, points: &[(f64, f64)], style: &str) {
        let pts: Vec<String> = points
            .iter()
            .map(|&(x, y)| format!("{},{}", num(x), num(y)))
            .collect();
        let _ = writeln!(
            self.body,
            "<polyline class=\"{}\" points=\"{}\" {style}/>",
            escape(class),
            pts.join(" ")
        );
    }

    /// A path; `d` is built with [`PathData`].
    pub fn path(&mut self, class: &str, d: &str, style: &str) {
        let _ = writeln!(
            self.body,
            "<path class=\"{}\" d=\"{d}\" {style}/>",
            escape(class)
        );
    }

    /// One line of text whose baseline's anchor point is (`x`, `y`).
    pub fn text(
        &mut self,
        class: &str,
        (x, y): (f64, f64),
        size: f64,
        anchor: Anchor,
        style: &str,
        text: &str,
    ) {
        let _ = writeln!(
            self.body,
            "<text class=\"{}\" x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\" {style}>{}</text>",
            escape(class),
            num(x),
            num(y),
            num(size),
            anchor.name(),
            escape(text)
        );
    }

    /// Text centred on (`x`, `y`) both ways.
    pub fn centred(&mut self, class: &str, (x, y): (f64, f64), size: f64, style: &str, text: &str) {
        // Digits and capitals stand about 0.7 of the font size above the baseline: a
        // baseline 0.35 below the centre centres them without relying on
        // `dominant-baseline`, which not every renderer follows.
        self.text(
            class,
            (x, y + 0.35 * size),
            size,
            Anchor::Middle,
            style,
            text,
        );
    }
}

/// Path data (`M x y L x y ... Z`) built step by step.
#[derive(Debug, Default)]
pub struct PathData(String);

impl PathData {
    pub fn new() -> PathData {
        PathData::default()
    }

    pub fn move_to(mut self, (x, y): (f64, f64)) -> Self {
        let _ = write!(self.0, "M{} {} ", num(x), num(y));
        self
    }

    pub fn line_to(mut self, (x, y): (f64, f64)) -> Self {
        let _ = write!(self.0, "L{} {} ", num(x), num(y));
        self
    }

    /// A quadratic Bézier curve through control point `c` to `to`.
    pub fn quad_to(mut self, (cx, cy): (f64, f64), (x, y): (f64, f64)) -> Self {
        let _ = write!(self.0, "Q{} {} {} {} ", num(cx), num(cy), num(x), num(y));
        self
    }

    pub fn close(mut self) -> Self {
        self.0.push('Z');
        self
    }

    pub fn build(self) -> String {
        self.0.trim_end().to_string()
    }
}

/// Approximate width of `text` at font size `size` (for layout: boxes that fit labels).
pub fn text_width(text: &str, size: f64) -> f64 {
    text.chars()
        .map(|c| match c {
            'i' | 'l' | 'j' | '.' | ',' | ':' | ';' | '!' | '|' | '\'' | ' ' => 0.3,
            'm' | 'w' | 'M' | 'W' => 0.9,
            c if c.is_ascii_uppercase() => 0.7,
            _ => 0.58,
        })
        .sum::<f64>()
        * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_text_is_escaped() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(-0.001), "0");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(escape("a<b & \"c\"\u{1}"), "a&lt;b &amp; &quot;c&quot; ");
    }

    #[test]
    fn a_document_holds_its_elements() {
        let mut svg = Svg::new();
        svg.rect("cell", 0.0, 0.0, 10.0, 10.0, "fill=\"none\"");
        svg.centred("given", (5.0, 5.0), 8.0, "", "<3>");
        let doc = svg.finish(10.0, 10.0);
        assert!(doc.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"10\""));
        assert!(doc.contains(
            "<rect class=\"cell\" x=\"0\" y=\"0\" width=\"10\" height=\"10\" fill=\"none\"/>"
        ));
        assert!(doc.contains(">&lt;3&gt;</text>"));
        assert!(doc.ends_with("</svg>\n"));
    }
}
