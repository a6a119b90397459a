//! The seeds' greedy colouring heuristics beside exact search on a file of puzzles: per
//! heuristic, the share of puzzles it solves and its mean time per puzzle — the seeds' own
//! table. Each heuristic is a [`Config`] of the one explorer (`--order linear` with a
//! colouring focus); a puzzle counts as solved when the run reaches a final state and that
//! state passes an independent check.

use std::time::Duration;

use serde::Serialize;

use crate::diag::{Diagnostic, Span};
use crate::grammar::{Givens, Grammar};
use crate::matcher::CompiledCondition;
use crate::model::Graph;
use crate::output::grid_line;
use crate::output::json::{line, rounded};

use super::Engine;
use crate::explore::config::{Config, Limits, Order};
use crate::explore::policy::{Focus, Policy, ValueOrder};

/// One row of the table: a named configuration and the seeds it comes from.
#[derive(Clone, Debug)]
pub struct Heuristic {
    /// The row's name in the table.
    pub name: &'static str,
    /// The seed documents (`000`..`004` in `../shared/seeds/`) that describe it.
    pub seeds: &'static str,
    /// The configuration of the one explorer that runs it.
    pub config: Config,
}

impl Heuristic {
    /// The `grafter solve` flags that run it.
    pub fn flags(&self) -> String {
        let c = &self.config;
        let p = &c.policy;
        let mut out = format!("--order {}", c.order.name());
        if p.focus != Focus::Propagate {
            out.push_str(&format!(" --focus {}", p.focus.name()));
        }
        if p.value != ValueOrder::Smallest {
            out.push_str(&format!(" --value {}", p.value.name()));
        }
        if c.order == Order::Linear && p.value == ValueOrder::Random {
            out.push_str(&format!(" --restarts {} --seed {}", p.restarts, p.seed));
        }
        if c.limits.max_solutions == Some(1) {
            out.push_str(" --max-solutions 1");
        }
        out
    }
}

/// The seeds' heuristics, then grafter's exact search (the default focus, depth-first, up
/// to the first solution: what the heuristics look for). The random ones make up to
/// `restarts` attempts, seeded from `seed`.
pub fn seed_heuristics(restarts: u32, seed: u64) -> Vec<Heuristic> {
    let linear = |focus, value| Config {
        order: Order::Linear,
        policy: Policy {
            focus,
            value,
            seed,
            restarts,
        },
        ..Config::default()
    };
    let h = |name, seeds, config| Heuristic {
        name,
        seeds,
        config,
    };
    use Focus::*;
    use ValueOrder::*;
    vec![
        h("DSatur", "000, 004", linear(Dsatur, Smallest)),
        h("fewest options first", "001", linear(Fewest, Smallest)),
        h("Welsh–Powell", "004", linear(WelshPowell, Smallest)),
        h("largest degree first", "004", linear(Degree, Smallest)),
        h("SaturBFS", "002", linear(SaturBfs, Random)),
        h("BFS", "002", linear(Breadth, Random)),
        h("DFS", "002", linear(Depth, Random)),
        h(
            "exact search",
            "grafter",
            Config {
                limits: Limits {
                    max_solutions: Some(1),
                    ..Limits::default()
                },
                ..Config::default()
            },
        ),
    ]
}

/// How one heuristic fared over a puzzle file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Puzzles tried.
    pub puzzles: usize,
    /// Puzzles whose run reached a final state that passed the check.
    pub solved: usize,
    /// Final states that failed the check (a bug if ever non-zero).
    pub rejected: usize,
    /// Wall-clock time over every puzzle, solved or not (the fastest of a few runs each).
    pub time: Duration,
    /// Attempts over every puzzle.
    pub attempts: u64,
}

impl Tally {
    /// The share of puzzles solved, in percent (0 for no puzzles).
    pub fn percent(&self) -> f64 {
        if self.puzzles == 0 {
            0.0
        } else {
            100.0 * self.solved as f64 / self.puzzles as f64
        }
    }

    /// The time per puzzle.
    pub fn mean_time(&self) -> Duration {
        self.time / self.puzzles.max(1) as u32
    }
}

/// Each heuristic runs on each puzzle up to this many times, until the runs together take
/// `ENOUGH`, and the fastest time counts: other load on the machine only ever adds time,
/// and a run that long has evened out its interruptions. The runs are identical (a fixed
/// seed), so the first one's result counts.
const RUNS: u32 = 5;
const ENOUGH: Duration = Duration::from_millis(20);

/// Runs every heuristic on every puzzle, on this thread (so times are not shared with
/// other work). Fails only when a puzzle's givens clash.
pub fn compare(
    engine: &Engine,
    puzzles: &[Givens],
    heuristics: &[Heuristic],
) -> Result<Vec<Tally>, Diagnostic> {
    let mut tallies = vec![Tally::default(); heuristics.len()];
    for givens in puzzles {
        for (h, tally) in heuristics.iter().zip(&mut tallies) {
            let mut found: Option<Graph> = None;
            let report = engine.solve(
                Some(givens),
                &h.config,
                Some(&mut |g: &Graph| {
                    found.get_or_insert_with(|| g.clone());
                }),
            )?;
            let mut fastest = report.elapsed;
            let mut spent = report.elapsed;
            for _ in 1..RUNS {
                if spent >= ENOUGH {
                    break;
                }
                let again = engine.solve(Some(givens), &h.config, None)?.elapsed;
                fastest = fastest.min(again);
                spent += again;
            }
            tally.puzzles += 1;
            tally.time += fastest;
            tally.attempts += u64::from(report.attempts);
            if let Some(g) = found {
                if verify(engine, givens, &g) {
                    tally.solved += 1;
                } else {
                    tally.rejected += 1;
                }
            }
        }
    }
    Ok(tallies)
}

/// A solution passes when the file's final condition holds in it (evaluated by the
/// general matcher, not the slot engine), it keeps the puzzle's givens, and its values,
/// read back as givens, clash nowhere.
pub fn verify(engine: &Engine, givens: &Givens, graph: &Graph) -> bool {
    let g: &Grammar = engine.grammar();
    let Some(cond) = &g.final_cond else {
        return false;
    };
    if !CompiledCondition::compile(cond).holds(&g.types, graph) {
        return false;
    }
    let Some(values) = read_cells(g, graph) else {
        return false;
    };
    if values.len() != givens.values.len()
        || givens
            .values
            .iter()
            .zip(&values)
            .any(|(given, v)| given.is_some() && given != v)
    {
        return false;
    }
    let read_back = Givens {
        spans: vec![Span::default(); values.len()],
        values,
    };
    engine.check_givens(Some(&read_back)).is_ok()
}

/// The grid's values in a graph, row-major, as domain indices.
fn read_cells(g: &Grammar, graph: &Graph) -> Option<Vec<Option<u16>>> {
    let line = grid_line(g, graph)?;
    let cell = |name: &str| (name != ".").then(|| g.domain.find(name)).flatten();
    Some(if g.domain.single_chars() {
        line.chars().map(|c| cell(&c.to_string())).collect()
    } else {
        line.split_whitespace().map(cell).collect()
    })
}

/// The table, one row per heuristic: as aligned text, or as a Markdown table.
pub fn table(heuristics: &[Heuristic], tallies: &[Tally], markdown: bool) -> String {
    const HEAD: [&str; 7] = [
        "heuristic",
        "seed",
        "flags",
        "solved",
        "%",
        "mean time per puzzle",
        "attempts per puzzle",
    ];
    // Text columns are aligned left, figures right.
    const TEXT: usize = 3;
    let rows: Vec<[String; 7]> = heuristics
        .iter()
        .zip(tallies)
        .map(|(h, t)| {
            let rejected = match t.rejected {
                0 => String::new(),
                r => format!(" ({r} rejected)"),
            };
            [
                h.name.to_string(),
                h.seeds.to_string(),
                h.flags(),
                format!("{}/{}{rejected}", t.solved, t.puzzles),
                format!("{:.1}%", t.percent()),
                show_time(t.mean_time()),
                format!("{:.1}", t.attempts as f64 / t.puzzles.max(1) as f64),
            ]
        })
        .collect();
    let mut out = String::new();
    if markdown {
        out.push_str(&format!("| {} |\n", HEAD.join(" | ")));
        let rule: Vec<&str> = (0..HEAD.len())
            .map(|i| if i < TEXT { "---" } else { "---:" })
            .collect();
        out.push_str(&format!("|{}|\n", rule.join("|")));
        for r in &rows {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        return out;
    }
    let mut width = HEAD.map(|h| h.chars().count());
    for r in &rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(width).enumerate() {
            let pad = " ".repeat(w - c.chars().count());
            if i < TEXT {
                l.push_str(&format!("{c}{pad}  "));
            } else {
                l.push_str(&format!("{pad}{c}  "));
            }
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(HEAD.to_vec()));
    for r in &rows {
        out.push_str(&line(r.iter().map(String::as_str).collect()));
    }
    out
}

/// The table over a puzzle file as one JSON object (`"type":"heuristics"`), a row per
/// heuristic.
#[derive(Serialize)]
#[serde(tag = "type", rename = "heuristics")]
struct TableJson<'a> {
    /// The rule file.
    file: &'a str,
    /// The puzzle file.
    puzzles_file: &'a str,
    /// Puzzles in it.
    puzzles: usize,
    /// Why the colouring foci run under `--expand all`, when they do.
    fallback: Option<&'a str>,
    rows: Vec<RowJson<'a>>,
}

#[derive(Serialize)]
struct RowJson<'a> {
    name: &'a str,
    /// The seed documents it comes from.
    seeds: &'a str,
    /// The `grafter solve` flags that run it.
    flags: String,
    puzzles: usize,
    solved: usize,
    /// Final states that failed the check (a bug if ever non-zero).
    rejected: usize,
    percent: f64,
    mean_seconds: f64,
    attempts_per_puzzle: f64,
}

/// The table as one JSON line: `file` and `puzzles_file` name the rule and puzzle files,
/// `puzzles` counts the puzzles, `fallback` says why the colouring foci run under
/// `--expand all` when they do.
pub fn table_json(
    file: &str,
    puzzles_file: &str,
    puzzles: usize,
    fallback: Option<&str>,
    heuristics: &[Heuristic],
    tallies: &[Tally],
) -> String {
    let rows = heuristics
        .iter()
        .zip(tallies)
        .map(|(h, t)| RowJson {
            name: h.name,
            seeds: h.seeds,
            flags: h.flags(),
            puzzles: t.puzzles,
            solved: t.solved,
            rejected: t.rejected,
            percent: rounded(t.percent(), 3),
            mean_seconds: rounded(t.mean_time().as_secs_f64(), 9),
            attempts_per_puzzle: rounded(t.attempts as f64 / t.puzzles.max(1) as f64, 3),
        })
        .collect();
    line(&TableJson {
        file,
        puzzles_file,
        puzzles,
        fallback,
        rows,
    })
}

/// A duration in the unit that reads best: µs, ms or s.
fn show_time(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 1e-3 {
        format!("{:.1} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}
