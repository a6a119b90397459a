//! The results as a Markdown table: one row per case, times, rates, peak memory, ratio.

use crate::cases::{Case, Metric, Reference};

/// One side's measurement, as a child reported it.
pub struct Measured {
    pub seconds: f64,
    pub reps: usize,
    pub states: u64,
    pub peak_kb: u64,
    /// The peak before solving: the process with its grammar and puzzles loaded.
    pub load_kb: u64,
    pub engine: String,
    pub counts: Vec<u64>,
}

impl Measured {
    pub fn solutions(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Speed in the case's unit.
    fn rate(&self, metric: Metric) -> f64 {
        match metric {
            Metric::MicrosPerPuzzle => self.seconds * 1e6 / self.counts.len().max(1) as f64,
            Metric::SolutionsPerSec => self.solutions() as f64 / self.seconds,
            Metric::StatesPerSec => self.states as f64 / self.seconds,
        }
    }
}

pub struct Row {
    pub case: &'static Case,
    pub grafter: Measured,
    /// `None` when the reference is a published figure or was skipped.
    pub reference: Option<Measured>,
}

pub const HEADER: &str = "| case | work | grafter: median (reps) | reference: median (reps) | unit | grafter | reference | grafter peak (before solving) | ratio | anchor (DESIGN.md) |\n\
|---|---|---|---|---|---|---|---|---|---|";

impl Row {
    pub fn markdown(&self) -> String {
        let c = self.case;
        let g = &self.grafter;
        let unit = match c.metric {
            Metric::MicrosPerPuzzle => "µs/puzzle",
            Metric::SolutionsPerSec => "solutions/s",
            Metric::StatesPerSec => "states/s",
        };
        let work = match c.metric {
            Metric::StatesPerSec => format!("{}, {} states", c.describe(), group(g.states)),
            _ if g.counts.len() == 1 => {
                format!("{}, {} solutions", c.describe(), group(g.solutions()))
            }
            _ => format!("{}, {} puzzles", c.describe(), group(g.counts.len() as u64)),
        };
        let (reference, ref_rate, ratio) = match (&self.reference, c.reference) {
            (_, Reference::Published(what, rate)) => {
                (what.to_string(), rate, g.rate(c.metric) / rate)
            }
            (Some(r), kind) => {
                let name = if kind == Reference::Dlx {
                    "DLX"
                } else {
                    "graph engine"
                };
                let took = format!("{name} {} ({})", seconds(r.seconds), r.reps);
                (took, r.rate(c.metric), r.seconds / g.seconds)
            }
            (None, _) => ("skipped".to_string(), f64::NAN, f64::NAN),
        };
        format!(
            "| {} | {work} | {} ({}) | {reference} | {unit} | {} | {} | {} ({}) | {} | {} |",
            c.name,
            seconds(g.seconds),
            g.reps,
            rate(g.rate(c.metric)),
            rate(ref_rate),
            mib(g.peak_kb),
            mib(g.load_kb),
            if ratio.is_nan() {
                "-".to_string()
            } else {
                format!("{ratio:.1}×")
            },
            if c.anchor.is_empty() { "-" } else { c.anchor },
        )
    }
}

fn seconds(s: f64) -> String {
    if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn rate(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else if x >= 1e3 {
        group(x.round() as u64)
    } else {
        format!("{x:.1}")
    }
}

fn mib(kb: u64) -> String {
    format!("{:.0} MiB", kb as f64 / 1024.0)
}

/// 1234567 as "1,234,567".
pub fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}
