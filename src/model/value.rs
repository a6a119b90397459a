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

    /// True when every value is written with one character, so that a puzzle line can
    /// give one character per cell.
    pub fn single_chars(&self) -> bool {
        self.values.iter().all(|v| v.name.chars().count() == 1)
    }

    /// The value a puzzle character stands for, if any.
    pub fn from_char(&self, c: char) -> Option<u16> {
        let mut buf = [0u8; 4];
        self.find(c.encode_utf8(&mut buf))
    }

    /// A short human form: `1..9 A..G` collapses runs, `A B C D` stays a list.
    pub fn describe(&self) -> String {
        let names: Vec<&str> = self.values.iter().map(|v| v.name.as_str()).collect();
        names.join(" ")
    }

    /// Displays a value for output: a domain value by its name, `none` as `.`.
    pub fn show(&self, v: Value) -> ValueDisplay<'_> {
        ValueDisplay {
            domain: self,
            value: v,
        }
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
