//! The results as a Markdown table: one row per case, rates and times, peak memory, ratios.

use crate::cases::{Case, Metric, Reference};

/// One side's measurement, as a child reported it.
pub struct Measured {
    /// Wall time, median of the runs.
    pub seconds: f64,
    /// CPU time of the main thread, median of the runs: all of a one-thread run's work.
    pub cpu_seconds: f64,
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

    /// "rate (median time ×runs)".
    fn cell(&self, metric: Metric) -> String {
        format!(
            "{} ({} ×{})",
            rate(self.rate(metric)),
            seconds(self.seconds),
            self.reps
        )
    }
}

pub struct Row {
    pub case: &'static Case,
    /// grafter on one thread.
    pub grafter: Measured,
    /// grafter on every thread asked for; `None` with one thread.
    pub threaded: Option<Measured>,
    /// `None` when the reference is a published figure or was skipped.
    pub reference: Option<Measured>,
}

pub fn header(threads: usize) -> String {
    format!(
        "| case | work | unit | grafter, 1 thread | grafter, {threads} threads | reference | \
         ratio, 1 thread: wall (CPU) | ratio, {threads} threads | grafter peak, 1 / {threads} threads \
         (loaded) | anchor (DESIGN.md) |\n|{}",
        "---|".repeat(10)
    )
}

impl Row {
    pub fn markdown(&self) -> String {
        let c = self.case;
        let (g, metric) = (&self.grafter, c.metric);
        let unit = match metric {
            Metric::MicrosPerPuzzle => "µs/puzzle",
            Metric::SolutionsPerSec => "solutions/s",
            Metric::StatesPerSec => "states/s",
        };
        let work = match metric {
            Metric::StatesPerSec => format!("{}, {} states", c.describe(), group(g.states)),
            _ if g.counts.len() == 1 => {
                format!("{}, {} solutions", c.describe(), group(g.solutions()))
            }
            _ => format!("{}, {} puzzles", c.describe(), group(g.counts.len() as u64)),
        };
        // The reference's cell and its time-per-unit-of-work relative to grafter's.
        let (reference, speed) = match (&self.reference, c.reference) {
            (_, Reference::Published(what, r)) => (format!("{} ({what})", rate(r)), r),
            (Some(r), kind) => {
                let name = if kind == Reference::Dlx {
                    "DLX"
                } else {
                    "graph engine"
                };
                (format!("{name}: {}", r.cell(metric)), r.rate(metric))
            }
            (None, _) => ("skipped".to_string(), f64::NAN),
        };
        let times = |x: f64| {
            if x.is_nan() {
                "-".to_string()
            } else {
                format!("{x:.1}×")
            }
        };
        let ratio = |m: &Measured| {
            times(match metric {
                Metric::MicrosPerPuzzle => speed / m.rate(metric),
                _ => m.rate(metric) / speed,
            })
        };
        let cpu_ratio = self
            .reference
            .as_ref()
            .map_or(f64::NAN, |r| r.cpu_seconds / g.cpu_seconds);
        let threaded = self.threaded.as_ref();
        format!(
            "| {} | {work} | {unit} | {} | {} | {reference} | {} ({}) | {} | {} / {} ({}) | {} |",
            c.name,
            g.cell(metric),
            threaded.map_or("-".to_string(), |t| t.cell(metric)),
            ratio(g),
            times(cpu_ratio),
            threaded.map_or("-".to_string(), ratio),
            mib(g.peak_kb),
            threaded.map_or("-".to_string(), |t| mib(t.peak_kb)),
            mib(g.load_kb),
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
