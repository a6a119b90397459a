//! Attribute values and the value domain a grammar's cells range over.

use std::fmt;

/// An attribute value. `Val` holds an index into the grammar's [`Domain`], so values of
/// any domain (digits, letters, both) compare and pack the same way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    /// The empty value of an optional attribute; also the result of undefined arithmetic
    /// (a division by zero, an overflow, an operation on `none`).
    None,
    Bool(bool),
    Int(i64),
    /// A member of the value domain, by its index.
    Val(u16),
}

impl Value {
    pub fn is_none(self) -> bool {
        matches!(self, Value::None)
    }
}

/// One member of the value domain.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainValue {
    /// How the value is written in rule files, puzzles and output: `3`, `A`, `12`.
    pub name: String,
    /// The integer it stands for, when it is written as one.
    pub int: Option<i64>,
}

/// The ordered set of values declared by `values ...`. Order is declaration order; `<` on
/// values follows it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Domain {
    pub values: Vec<DomainValue>,
}

impl Domain {
    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The index of the value written `name`.
    pub fn find(&self, name: &str) -> Option<u16> {
        self.values
            .iter()
            .position(|v| v.name == name)
            .map(|i| i as u16)
    }

    /// The index of the value that stands for the integer `n`.
    pub fn find_int(&self, n: i64) -> Option<u16> {
        self.values
            .iter()
            .position(|v| v.int == Some(n))
            .map(|i| i as u16)
    }

    pub fn name(&self, index: u16) -> &str {
        &self.values[index as usize].name
    }

    /// True when every value is written as an integer (`values 1..9`, `values 0 2 4`):
    /// then values take part in arithmetic as those integers.
    pub fn is_numeric(&self) -> bool {
        self.values.iter().all(|v| v.int.is_some())
    }

    /// Each value's integer, by index: the number it is written as on a numeric domain,
    /// its 1-based position otherwise.
    pub fn ints(&self) -> Vec<i64> {
        if self.is_numeric() {
            self.values
                .iter()
                .map(|v| v.int.unwrap_or_default())
                .collect()
        } else {
            (1..=self.values.len() as i64).collect()
        }
    }

    /// True when every value is written with one character, so that a puzzle line can
    /// give one character per cell.
    pub fn single_chars(&self) -> bool {
        self.values.iter().all(|v| v.name.chars().count() == 1)
    }

    /// A short human form: `1..9 A..G` collapses runs of three or more consecutive
    /// integers or letters, `A C E` stays a list; past a dozen parts the middle is left
    /// out (`1 3 5 ... 97 99, 50 values`), so a message stays one readable line.
    pub fn describe(&self) -> String {
        const SHOWN: usize = 12;
        let mut parts: Vec<String> = Vec::new();
        let mut i = 0;
        while i < self.values.len() {
            let mut j = i + 1;
            while j < self.values.len() && follows(&self.values[j - 1], &self.values[j]) {
                j += 1;
            }
            if j - i >= 3 {
                parts.push(format!(
                    "{}..{}",
                    self.values[i].name,
                    self.values[j - 1].name
                ));
            } else {
                parts.extend(self.values[i..j].iter().map(|v| v.name.clone()));
            }
            i = j;
        }
        if parts.len() <= SHOWN {
            return parts.join(" ");
        }
        format!(
            "{} ... {}, {} values",
            parts[..SHOWN / 2].join(" "),
            parts[parts.len() - SHOWN / 2..].join(" "),
            self.values.len()
        )
    }

    /// Displays a value for output: a domain value by its name, `none` as `.`.
    pub fn show(&self, v: Value) -> ValueDisplay<'_> {
        ValueDisplay {
            domain: self,
            value: v,
        }
    }
}

/// True when `b` comes right after `a`: the next integer, or the next letter of one case.
fn follows(a: &DomainValue, b: &DomainValue) -> bool {
    if let (Some(x), Some(y)) = (a.int, b.int) {
        return x.checked_add(1) == Some(y) && a.name == x.to_string() && b.name == y.to_string();
    }
    let letter = |v: &DomainValue| {
        let mut cs = v.name.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) if c.is_ascii_alphabetic() && v.int.is_none() => Some(c),
            _ => None,
        }
    };
    match (letter(a), letter(b)) {
        (Some(x), Some(y)) => {
            x.is_ascii_uppercase() == y.is_ascii_uppercase() && x as u32 + 1 == y as u32
        }
        _ => false,
    }
}

/// A value shown in a grammar's own notation.
pub struct ValueDisplay<'a> {
    domain: &'a Domain,
    value: Value,
}

impl fmt::Display for ValueDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.value {
            Value::None => write!(f, "none"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Int(n) => write!(f, "{n}"),
            Value::Val(i) => match self.domain.values.get(i as usize) {
                Some(v) => write!(f, "{}", v.name),
                None => write!(f, "?{i}"),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domain(names: &[&str]) -> Domain {
        Domain {
            values: names
                .iter()
                .map(|n| DomainValue {
                    name: n.to_string(),
                    int: n.parse().ok(),
                })
                .collect(),
        }
    }

    #[test]
    fn describe_collapses_runs_and_abbreviates_long_lists() {
        let d = domain(&["1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C"]);
        assert_eq!(d.describe(), "1..9 A..C");
        assert_eq!(domain(&["A", "C", "E"]).describe(), "A C E");
        assert_eq!(domain(&["1", "2", "a", "b"]).describe(), "1 2 a b");
        let big: Vec<String> = (1..=65535).map(|i| i.to_string()).collect();
        let big: Vec<&str> = big.iter().map(String::as_str).collect();
        assert_eq!(domain(&big).describe(), "1..65535");
        let odd: Vec<String> = (0..50).map(|i| (2 * i + 1).to_string()).collect();
        let odd: Vec<&str> = odd.iter().map(String::as_str).collect();
        assert_eq!(
            domain(&odd).describe(),
            "1 3 5 7 9 11 ... 89 91 93 95 97 99, 50 values"
        );
    }
}
