//! Reading a janko dataset file: `{"name", "count", "data": {id: {"problem", "solution"}}}`,
//! and a puzzle's `problem` text as a header and lines of blank-separated tokens.

use std::path::Path;

/// A dataset file: its kind and its puzzles, in the file's order.
pub struct Dataset {
    pub kind: String,
    pub puzzles: Vec<(String, Result<String, String>)>,
}

/// Reads the text of the file `name`. The kind is the file's `"name"` field, or else the
/// file's name without `.json` (`KillerSudoku.json`). A puzzle without a `problem` text is
/// kept with the error so that it is reported and the others still import.
pub fn read(name: &str, text: &str) -> Result<Dataset, String> {
    let path = Path::new(name);
    let shown = path.display();
    let json: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| format!("{shown}: error: expected a JSON dataset: {e}"))?;
    let kind = match json.get("name").and_then(|n| n.as_str()) {
        Some(name) => name.to_string(),
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .ok_or_else(|| format!("{shown}: error: no \"name\" field and no file name"))?,
    };
    let data = json
        .get("data")
        .and_then(|d| d.as_object())
        .ok_or_else(|| format!("{shown}: error: expected a \"data\" object of puzzles by id"))?;
    let puzzles = data
        .iter()
        .map(|(id, entry)| {
            let problem = entry
                .get("problem")
                .and_then(|p| p.as_str())
                .map(String::from)
                .ok_or_else(|| "expected a \"problem\" text".to_string());
            (id.clone(), problem)
        })
        .collect();
    Ok(Dataset { kind, puzzles })
}

/// A `problem` text: the header `rows cols [more words]`, then lines of tokens.
pub struct Problem {
    pub rows: usize,
    pub cols: usize,
    /// The header's words after the dimensions (`5` and `D` in `5 5 5 D`).
    pub extra: Vec<String>,
    lines: Vec<Vec<String>>,
    /// The next line `take` reads.
    next: usize,
}

impl Problem {
    pub fn parse(text: &str) -> Result<Problem, String> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let header: Vec<&str> = lines
            .next()
            .ok_or("expected a header `rows cols`, found an empty problem")?
            .split_whitespace()
            .collect();
        let dim = |i: usize, what: &str| -> Result<usize, String> {
            let word = header.get(i).ok_or(format!(
                "expected the header `rows cols`, found `{}`",
                header.join(" ")
            ))?;
            match word.parse::<usize>() {
                Ok(n) if (1..=99).contains(&n) => Ok(n),
                _ => Err(format!(
                    "expected the number of {what} (1 to 99) in the header, found `{word}`"
                )),
            }
        };
        Ok(Problem {
            rows: dim(0, "rows")?,
            cols: dim(1, "columns")?,
            extra: header[2..].iter().map(|w| w.to_string()).collect(),
            lines: lines
                .map(|l| l.split_whitespace().map(String::from).collect())
                .collect(),
            next: 0,
        })
    }

    /// The next line, which must hold `n` tokens (`what` names it in the message).
    pub fn line(&mut self, n: usize, what: &str) -> Result<Vec<String>, String> {
        let at = self.next + 2;
        let line = self
            .lines
            .get(self.next)
            .ok_or_else(|| format!("expected {what} on line {at} of the problem, found the end"))?;
        if line.len() != n {
            return Err(format!(
                "expected {n} tokens of {what} on line {at} of the problem, found {}",
                line.len()
            ));
        }
        self.next += 1;
        Ok(line.clone())
    }

    /// The next `rows` lines of `cols` tokens each, row-major.
    pub fn grid(&mut self, what: &str) -> Result<Vec<String>, String> {
        let mut cells = Vec::with_capacity(self.rows * self.cols);
        for _ in 0..self.rows {
            cells.extend(self.line(self.cols, what)?);
        }
        Ok(cells)
    }

    /// An error unless every line was read.
    pub fn end(&self) -> Result<(), String> {
        match self.lines.len() - self.next {
            0 => Ok(()),
            n => Err(format!(
                "expected the problem to end after line {}, found {n} more lines",
                self.next + 1
            )),
        }
    }
}
