//! janko.at's killer Sudokus (`janko/KillerSudoku.json` of the shared data) as grafter
//! puzzle lines with layers, and the layered killer rule file of each size.

use std::path::PathBuf;

/// One killer: its size, and per cell its cage's label and the sum shown there (if any).
pub struct Killer {
    pub name: String,
    pub n: usize,
    pub cages: Vec<String>,
    pub sums: Vec<Option<i64>>,
}

impl Killer {
    /// The puzzle line: no givens, the cages and sums as layers (separated tokens).
    pub fn line(&self) -> String {
        let sums: Vec<String> = self
            .sums
            .iter()
            .map(|s| s.map_or(".".into(), |x| x.to_string()))
            .collect();
        format!(
            "{} | cages: {} | sums: {}",
            ".".repeat(self.n * self.n),
            self.cages.join(" "),
            sums.join(" ")
        )
    }

    /// Per cage (in order of first cell), its cells (row-major indexes) and its sum.
    pub fn cage_list(&self) -> Vec<(Vec<usize>, i64)> {
        let mut order: Vec<&str> = Vec::new();
        for c in &self.cages {
            if !order.contains(&c.as_str()) {
                order.push(c);
            }
        }
        order
            .iter()
            .map(|&k| {
                let cells: Vec<usize> = (0..self.cages.len())
                    .filter(|&i| self.cages[i] == k)
                    .collect();
                let sum = cells.iter().find_map(|&i| self.sums[i]).unwrap_or(0);
                (cells, sum)
            })
            .collect()
    }
}

/// The data folder: `$GRAFTER_DATA`, else `../shared/data` beside the repository.
pub fn data_dir() -> PathBuf {
    std::env::var_os("GRAFTER_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"))
}

/// Every killer of the janko file, in the file's order; `Err` when it is not there.
pub fn load() -> Result<Vec<Killer>, String> {
    let path = data_dir().join("janko/KillerSudoku.json");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let data = json["data"].as_object().ok_or("no `data` object")?;
    let mut out = Vec::new();
    for (name, p) in data {
        let problem = p["problem"].as_str().ok_or("no problem")?;
        let mut lines = problem.lines();
        let size: Vec<usize> = lines
            .next()
            .unwrap_or_default()
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        let n = size[0];
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split_whitespace().collect()).collect();
        // The sums first (`-` where none is shown), then the cage map.
        let sums = rows[..n].iter().flatten().map(|t| t.parse().ok()).collect();
        let cages = rows[n..2 * n]
            .iter()
            .flatten()
            .map(|t| format!("k{t}"))
            .collect();
        out.push(Killer {
            name: name.clone(),
            n,
            cages,
            sums,
        });
    }
    Ok(out)
}

/// The rule file of an `n`x`n` killer whose cages and sums come from each puzzle line:
/// `rules/killer-4x4.graft`'s rules over the grid and boxes of that size.
pub fn rule_text(n: usize) -> String {
    let boxes = match n {
        4 => "2x2",
        6 => "2x3",
        _ => "3x3",
    };
    format!(
        "values 1..{n}
node Cell {{ row: int, col: int, val: value? }}
node Group
node Cage {{ sum: int? }}
edge in: Cell -> Group
edge cage: Cell -> Cage
grid {n}x{n} of Cell
groups rows, columns, boxes {boxes} via in
layer cages: regions of Cage
layer sums: cages.sum
rule place(v: value) {{
  c: Cell {{ val == none }}
  not {{ c -in-> g: Group <-in- d: Cell {{ val == v }} }}
  not {{ c -cage-> k: Cage <-cage- d: Cell {{ val == v }} }}
  not {{ c -cage-> k: Cage
        where sum(d.val for k <-cage- d: Cell) + v > k.sum
           or count(k <-cage- d: Cell {{ val == none }}) == 0
              and sum(d.val for k <-cage- d: Cell) + v != k.sum }}
  set c.val = v
}}
final: not {{ c: Cell {{ val == none }} }}
"
    )
}
