//! f-puzzles cell names (`R3C7`, rows and columns from 1; clues outside the grid use row
//! or column 0 and size + 1) and grafter's (`r3c7`).

/// A position, 1-based; 0 and size + 1 are outside the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos {
    pub row: i64,
    pub col: i64,
}

impl Pos {
    /// grafter's name of the cell (`r3c7`).
    pub fn name(self) -> String {
        format!("r{}c{}", self.row, self.col)
    }

    /// True inside a `size` x `size` grid.
    pub fn inside(self, size: i64) -> bool {
        (1..=size).contains(&self.row) && (1..=size).contains(&self.col)
    }

    /// Row-major index in a `size` x `size` grid.
    pub fn index(self, size: i64) -> usize {
        ((self.row - 1) * size + self.col - 1) as usize
    }
}

/// Reads `R3C7` (any case).
pub fn parse(name: &str) -> Result<Pos, String> {
    let bad = || format!("`{name}` is not a cell name: expected R<row>C<column>, such as R1C1");
    let upper = name.trim().to_ascii_uppercase();
    let rest = upper.strip_prefix('R').ok_or_else(bad)?;
    let (row, col) = rest.split_once('C').ok_or_else(bad)?;
    let row = row.parse().map_err(|_| bad())?;
    let col = col.parse().map_err(|_| bad())?;
    Ok(Pos { row, col })
}

/// Reads a cell that must be inside the grid.
pub fn inside(name: &str, size: i64, what: &str) -> Result<Pos, String> {
    let pos = parse(name)?;
    if pos.inside(size) {
        Ok(pos)
    } else {
        Err(format!(
            "{what} names cell `{name}`, outside the grid: expected R1C1 .. R{size}C{size}"
        ))
    }
}

/// Reads a list of cells inside the grid, each once.
pub fn inside_all(names: &[String], size: i64, what: &str) -> Result<Vec<Pos>, String> {
    let mut out: Vec<Pos> = Vec::with_capacity(names.len());
    for n in names {
        let p = inside(n, size, what)?;
        if out.contains(&p) {
            return Err(format!(
                "{what} names cell `{n}` twice: expected each cell once"
            ));
        }
        out.push(p);
    }
    Ok(out)
}

/// The side a clue outside the grid stands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
    Top,
    Bottom,
}

/// Where a clue outside a `size` grid stands: its side and the row or column it reads.
pub fn outside(name: &str, size: i64, what: &str) -> Result<(Side, i64), String> {
    let p = parse(name)?;
    let line = |k: i64| (1..=size).contains(&k);
    match (p.row, p.col) {
        (0, c) if line(c) => Ok((Side::Top, c)),
        (r, c) if r == size + 1 && line(c) => Ok((Side::Bottom, c)),
        (r, 0) if line(r) => Ok((Side::Left, r)),
        (r, c) if c == size + 1 && line(r) => Ok((Side::Right, r)),
        _ => Err(format!(
            "{what} stands at `{name}`: expected a cell just outside the grid, beside a row or column (R0C1 .. R0C{size}, R1C0 .. R{size}C0, ...)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_and_check() {
        assert_eq!(parse("R3C7").unwrap(), Pos { row: 3, col: 7 });
        assert_eq!(parse("r10c1").unwrap().name(), "r10c1");
        assert!(parse("A1").is_err());
        assert!(inside("R10C1", 9, "a thermometer")
            .unwrap_err()
            .contains("outside the grid"));
        assert_eq!(outside("R0C4", 9, "a clue").unwrap(), (Side::Top, 4));
        assert_eq!(outside("R5C10", 9, "a clue").unwrap(), (Side::Right, 5));
        assert!(outside("R5C5", 9, "a clue").is_err());
    }
}
