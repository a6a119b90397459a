//! The independent solver: clingo (from PyPI, `pip install clingo`) on a straightforward
//! answer-set encoding of killer Sudoku, run in a Python child process that times each
//! puzzle (grounding and solving, every answer set enumerated) itself.

use std::io::Write;
use std::process::{Command, Stdio};

use crate::janko::Killer;

/// The encoding: one value per cell, rows, columns and boxes all different, a cage's
/// values different and adding up to its sum.
const SCRIPT: &str = r##"
import json, sys, time
import clingo

BASE = """
val(1..n). idx(0..n-1).
1 { x(R,C,V) : val(V) } 1 :- idx(R), idx(C).
:- x(R,C1,V), x(R,C2,V), C1 < C2.
:- x(R1,C,V), x(R2,C,V), R1 < R2.
:- x(R1,C1,V), x(R2,C2,V), R1/br == R2/br, C1/bc == C2/bc, (R1,C1) < (R2,C2).
:- cage(K,R1,C1), cage(K,R2,C2), (R1,C1) < (R2,C2), x(R1,C1,V), x(R2,C2,V).
:- total(K,S), #sum { V,R,C : x(R,C,V), cage(K,R,C) } != S.
"""

for p in json.load(sys.stdin):
    n, (br, bc) = p["n"], p["box"]
    facts = [f"#const n={n}. #const br={br}. #const bc={bc}."]
    for k, (cells, s) in enumerate(p["cages"]):
        facts += [f"cage({k},{i // n},{i % n})." for i in cells]
        facts.append(f"total({k},{s}).")
    started = time.perf_counter()
    ctl = clingo.Control(["0", "--warn=none"])
    ctl.add("base", [], BASE + "\n".join(facts))
    ctl.ground([("base", [])])
    count = 0
    with ctl.solve(yield_=True) as h:
        for _ in h:
            count += 1
    print(time.perf_counter() - started, count, flush=True)
"##;

/// Box rows and columns of an `n`x`n` killer.
pub fn boxes(n: usize) -> (usize, usize) {
    match n {
        4 => (2, 2),
        6 => (2, 3),
        _ => (3, 3),
    }
}

/// Per puzzle, clingo's seconds and its count of solutions; `Err` when Python or clingo
/// is not there.
pub fn solve(killers: &[&Killer]) -> Result<Vec<(f64, u64)>, String> {
    let input: Vec<serde_json::Value> = killers
        .iter()
        .map(|k| {
            let (br, bc) = boxes(k.n);
            serde_json::json!({ "n": k.n, "box": [br, bc], "cages": k.cage_list() })
        })
        .collect();
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    let mut child = Command::new(&python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{python}: {e}"))?;
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    stdin
        .write_all(serde_json::Value::Array(input).to_string().as_bytes())
        .map_err(|e| e.to_string())?;
    drop(stdin);
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!(
            "clingo side failed (pip install clingo): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut w = l.split_whitespace();
            let t = w.next().and_then(|x| x.parse().ok());
            let c = w.next().and_then(|x| x.parse().ok());
            t.zip(c)
                .ok_or_else(|| format!("unexpected line from clingo: {l}"))
        })
        .collect()
}
