//! The f-puzzles JSON document as serde reads it: the grid, every constraint key the
//! format has, and the keys that draw without stating a rule.

use serde::Deserialize;
use serde_json::{Map, Value};

/// One puzzle. Constraint keys absent from the JSON are empty lists or `false`; keys this
/// model does not name land in `rest`, where the importer sorts them into cosmetic ones,
/// solver settings and unknown ones (an error).
#[derive(Debug, Deserialize)]
pub struct Document {
    pub size: Option<Value>,
    #[serde(default)]
    pub grid: Vec<Vec<Option<GridCell>>>,
    #[serde(default, rename = "diagonal+")]
    pub diagonal_plus: bool,
    #[serde(default, rename = "diagonal-")]
    pub diagonal_minus: bool,
    #[serde(default)]
    pub antiknight: bool,
    #[serde(default)]
    pub antiking: bool,
    #[serde(default)]
    pub disjointgroups: bool,
    #[serde(default)]
    pub nonconsecutive: bool,
    /// Which marks are all shown: `ratio`, `xv`, `difference`.
    #[serde(default, deserialize_with = "negative")]
    pub negative: Vec<String>,
    #[serde(default)]
    pub arrow: Vec<Arrow>,
    #[serde(default)]
    pub killercage: Vec<Cells>,
    #[serde(default)]
    pub cage: Vec<Cells>,
    #[serde(default)]
    pub littlekillersum: Vec<LittleKiller>,
    #[serde(default)]
    pub odd: Vec<OneCell>,
    #[serde(default)]
    pub even: Vec<OneCell>,
    #[serde(default)]
    pub minimum: Vec<OneCell>,
    #[serde(default)]
    pub maximum: Vec<OneCell>,
    #[serde(default)]
    pub rowindexer: Vec<Cells>,
    #[serde(default)]
    pub columnindexer: Vec<Cells>,
    #[serde(default)]
    pub boxindexer: Vec<Cells>,
    #[serde(default)]
    pub extraregion: Vec<Cells>,
    #[serde(default)]
    pub thermometer: Vec<Lines>,
    #[serde(default)]
    pub slowthermometer: Vec<Lines>,
    #[serde(default)]
    pub palindrome: Vec<Lines>,
    #[serde(default)]
    pub renban: Vec<Lines>,
    #[serde(default)]
    pub whispers: Vec<Lines>,
    #[serde(default)]
    pub regionsumline: Vec<Lines>,
    #[serde(default)]
    pub betweenline: Vec<Lines>,
    #[serde(default)]
    pub entropicline: Vec<Lines>,
    #[serde(default)]
    pub modularline: Vec<Lines>,
    #[serde(default)]
    pub zipperline: Vec<Lines>,
    #[serde(default)]
    pub nabner: Vec<Lines>,
    #[serde(default)]
    pub doublearrow: Vec<Lines>,
    #[serde(default)]
    pub difference: Vec<Cells>,
    #[serde(default)]
    pub ratio: Vec<Cells>,
    #[serde(default)]
    pub xv: Vec<Cells>,
    #[serde(default)]
    pub clone: Vec<Clone>,
    #[serde(default)]
    pub quadruple: Vec<Quadruple>,
    #[serde(default)]
    pub sandwichsum: Vec<OneCell>,
    #[serde(default)]
    pub xsum: Vec<OneCell>,
    #[serde(default)]
    pub skyscraper: Vec<OneCell>,
    /// Every other key.
    #[serde(flatten)]
    pub rest: Map<String, Value>,
}

/// A cell of `grid`: a given value, its irregular region (0-based; absent for the
/// default box), and marks that draw.
#[derive(Debug, Default, Deserialize)]
pub struct GridCell {
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub given: bool,
    #[serde(default)]
    pub region: Option<i64>,
    #[serde(default, rename = "givenPencilMarks")]
    pub given_pencil_marks: Option<Vec<Value>>,
}

/// An element on one cell, such as an odd circle or a sandwich clue outside the grid.
#[derive(Debug, Deserialize)]
pub struct OneCell {
    pub cell: String,
    #[serde(default)]
    pub value: Option<Value>,
}

/// An element over cells, such as a cage or a dot, with its number if any.
#[derive(Debug, Deserialize)]
pub struct Cells {
    pub cells: Vec<String>,
    #[serde(default)]
    pub value: Option<Value>,
}

/// Lines drawn as one element: each line is a constraint of its own.
#[derive(Debug, Deserialize)]
pub struct Lines {
    pub lines: Vec<Vec<String>>,
    #[serde(default)]
    pub value: Option<Value>,
}

/// An arrow: its circle (one cell or a pill of several) and the lines leaving it, each
/// starting in the circle.
#[derive(Debug, Deserialize)]
pub struct Arrow {
    pub cells: Vec<String>,
    #[serde(default)]
    pub lines: Vec<Vec<String>>,
}

/// A little killer clue outside the grid, pointing along a diagonal.
#[derive(Debug, Deserialize)]
pub struct LittleKiller {
    pub cell: String,
    pub direction: String,
    #[serde(default)]
    pub value: Option<Value>,
}

/// Cells whose values equal those of the cells at the same index of `clone_cells`.
#[derive(Debug, Deserialize)]
pub struct Clone {
    pub cells: Vec<String>,
    #[serde(rename = "cloneCells")]
    pub clone_cells: Vec<String>,
}

/// Four cells around a circle, and the digits the circle says they hold.
#[derive(Debug, Deserialize)]
pub struct Quadruple {
    pub cells: Vec<String>,
    #[serde(default)]
    pub values: Vec<Value>,
}

/// `negative` is a list of mark kinds; old files write `true` for the ratio and XV marks.
fn negative<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect(),
        Value::Bool(true) => vec!["ratio".to_string(), "xv".to_string()],
        _ => Vec::new(),
    })
}

/// Keys that draw without stating a rule: listed as ignored.
pub const COSMETIC: &[&str] = &["line", "text", "circle", "rectangle", "cage"];

/// Keys that describe the puzzle or set up a solver, not a rule: skipped silently.
pub const METADATA: &[&str] = &[
    "title",
    "author",
    "ruleset",
    "solution",
    "disabledlogic",
    "truecandidatesoptions",
    "highlightConflicts",
    "version",
];

/// A number that f-puzzles may write as a number or as a string (`"15"`).
pub fn number(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
