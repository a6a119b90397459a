//! One playground run in a process of its own (`grafter serve --worker`): reads its job
//! from stdin, writes what it finds on stdout as JSON lines — diagnostics, the plan, the
//! board, progress, each solution, the summary, the state space — and stops the way a
//! limit stops a run when the server writes `stop` on its stdin or closes it.

use std::io::{self, BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

use grafter::picture::{self, Lts};
use grafter::{
    output, read_puzzles, Config, Diagnostic, Engine, Expand, Givens, Grammar, Graph, Limits, Plan,
    Progress, Puzzle, Source,
};

use super::limits::Job;
use crate::Failure;

/// Set by `stop` (or the end of stdin): the run's interrupt flag.
static STOP: AtomicBool = AtomicBool::new(false);
/// The run's counts while it goes, for its progress lines.
static PROGRESS: Progress = Progress::new();
/// The time between two progress lines.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// The names diagnostics give the page's two texts.
const RULES: &str = "rules";
const PUZZLES: &str = "puzzles";

/// `grafter serve --worker`.
pub fn work() -> Result<u8, Failure> {
    let started = Instant::now();
    let mut first = String::new();
    io::stdin().lock().read_line(&mut first)?;
    let job: Job = serde_json::from_str(&first).map_err(|e| {
        Failure::BadInput(format!("error: the job is not what a worker reads: {e}\n"))
    })?;
    // A `stop` line after the job asks the run to stop; so does the end of stdin (the
    // server is gone).
    std::thread::spawn(|| {
        for line in io::stdin().lock().lines() {
            match line {
                Ok(l) if l.trim() != "stop" => continue,
                _ => break,
            }
        }
        STOP.store(true, Ordering::Relaxed);
    });
    run(&job, &Out, started);
    Ok(0)
}

/// Stdout, one whole JSON line at a time (under its lock), each written out at once. When
/// it cannot be written the server is gone, and the run stops.
struct Out;

impl Out {
    fn line(&self, text: &str) {
        let mut out = io::stdout().lock();
        if writeln!(out, "{text}").and_then(|()| out.flush()).is_err() {
            STOP.store(true, Ordering::Relaxed);
        }
    }

    fn emit(&self, value: &impl Serialize) {
        self.line(&serde_json::to_string(value).expect("a worker's lines always serialise"));
    }

    /// `d`, located in `source` (named `file` for the page), as a `diagnostic` line.
    fn diagnostic(&self, file: &str, source: &Source, d: &Diagnostic) {
        self.emit(&located(file, source, d));
    }

    /// A problem that has no place in either text.
    fn problem(&self, file: &str, message: &str) {
        self.emit(&json!({
            "type": "diagnostic", "file": file, "severity": "error", "message": message,
            "line": null, "col": null, "end_line": null, "end_col": null,
            "labels": [], "notes": [], "help": [], "text": format!("error: {message}"),
        }));
    }
}

/// A place in a text: 1-based line and column (in characters) of a span's ends.
#[derive(Serialize)]
struct Place {
    line: usize,
    col: usize,
    end_line: usize,
    end_col: usize,
}

fn place(source: &Source, span: grafter::Span) -> Place {
    let (line, col) = source.line_col(span.start);
    let (end_line, end_col) = source.line_col(span.end.max(span.start));
    Place {
        line,
        col,
        end_line,
        end_col,
    }
}

#[derive(Serialize)]
struct Label {
    #[serde(flatten)]
    place: Place,
    message: String,
}

/// A diagnostic as the page reads it: where it is in which text, what it says, and the
/// text `grafter check` would print for it.
#[derive(Serialize)]
#[serde(tag = "type", rename = "diagnostic")]
struct Located<'a> {
    file: &'a str,
    severity: &'static str,
    message: &'a str,
    #[serde(flatten)]
    place: Place,
    labels: Vec<Label>,
    notes: &'a [String],
    help: &'a [String],
    text: String,
}

fn located<'a>(file: &'a str, source: &Source, d: &'a Diagnostic) -> Located<'a> {
    Located {
        file,
        severity: d.severity.name(),
        message: &d.message,
        place: place(source, d.span),
        labels: d
            .labels
            .iter()
            .map(|(span, message)| Label {
                place: place(source, *span),
                message: message.clone(),
            })
            .collect(),
        notes: &d.notes,
        help: &d.help,
        text: source.render(d),
    }
}

/// The run: load, choose the puzzle, then run it.
fn run(job: &Job, out: &Out, started: Instant) {
    let grammar = match grafter::load(Source::new(RULES, job.rules.as_str())) {
        Ok(g) => g,
        Err(d) => {
            for item in &d.items {
                out.diagnostic(RULES, &d.source, item);
            }
            return;
        }
    };
    for w in grammar.warnings.iter() {
        out.diagnostic(RULES, &grammar.source, w);
    }
    let engine = Engine::new(&grammar).with_plan_listener(|plan: &Plan| {
        out.emit(&json!({
            "type": "plan", "engine": plan.engine, "expand": plan.expand.name(),
            "fallback": plan.fallback,
        }))
    });
    let Some(choice) = choose_puzzle(job, &grammar, out) else {
        return;
    };
    // A puzzle line's layers give it a grammar, and an engine, of its own.
    match &choice.puzzle {
        None => run_puzzle(job, &engine, &choice, out, started),
        Some((_, puzzle)) => engine.with_layers(&puzzle.layers, |engine| {
            run_puzzle(job, engine, &choice, out, started)
        }),
    }
}

/// What a run solves: the rule file's own start, or a puzzle of the puzzles text.
struct Choice {
    /// The puzzles text and the puzzle chosen from it; `None`: the file's `start`.
    puzzle: Option<(Source, Puzzle)>,
    title: String,
}

impl Choice {
    fn number(&self) -> usize {
        self.puzzle.as_ref().map_or(1, |(_, p)| p.number)
    }

    fn givens(&self) -> Option<&Givens> {
        self.puzzle.as_ref().map(|(_, p)| &p.givens)
    }
}

/// The puzzle to solve; `None` after saying why there is none.
fn choose_puzzle(job: &Job, grammar: &Grammar, out: &Out) -> Option<Choice> {
    if job.puzzles.trim().is_empty() {
        return Some(Choice {
            puzzle: None,
            title: "start".to_string(),
        });
    }
    let source = Source::new(PUZZLES, job.puzzles.as_str());
    let puzzles = match read_puzzles(grammar, &source) {
        Ok(p) => p,
        Err(ds) => {
            for d in &ds {
                out.diagnostic(PUZZLES, &source, d);
            }
            return None;
        }
    };
    let count = puzzles.len();
    let Some(puzzle) = puzzles.into_iter().nth(job.puzzle - 1) else {
        out.problem(
            PUZZLES,
            &if count == 0 {
                "the puzzles hold no puzzle line (blank lines and lines starting with # are skipped); empty them to solve the rule file's start".to_string()
            } else {
                format!(
                    "puzzle {} asked for, but there {} {count} puzzle{}",
                    job.puzzle,
                    if count == 1 { "is" } else { "are" },
                    if count == 1 { "" } else { "s" }
                )
            },
        );
        return None;
    };
    out.emit(&json!({"type": "puzzle", "number": puzzle.number, "of": count, "line": puzzle.line}));
    Some(Choice {
        title: format!("puzzle {} of {count}", puzzle.number),
        puzzle: Some((source, puzzle)),
    })
}

/// Runs the chosen puzzle on `engine` (the puzzle's own, when its line has layers): its
/// givens checked, its board drawn, solved, and its state space drawn.
fn run_puzzle(job: &Job, engine: &Engine, choice: &Choice, out: &Out, started: Instant) {
    let givens = choice.givens();
    if let Err(d) = engine.check_givens(givens) {
        match &choice.puzzle {
            Some((source, _)) => out.diagnostic(PUZZLES, source, &d),
            None => out.diagnostic(RULES, &engine.grammar().source, &d),
        }
        return;
    }
    let start = engine.start_graph(givens);
    let title = &choice.title;
    out.emit(&json!({
        "type": "board", "title": title,
        "svg": picture::state(engine, &start, &start, title).to_svg(),
    }));
    solve(job, engine, choice.number(), givens, &start, out, started);
    // The space is drawn while there is time left and no stop was asked.
    let time_left = started.elapsed().as_secs_f64() < job.timeout;
    if job.space_states > 0 && time_left && !STOP.load(Ordering::Relaxed) {
        space(job, engine.grammar(), start, title, out);
    }
}

/// Explores under the job's limits, a line per solution (the first ones drawn) and
/// progress lines while it goes, then the summary.
fn solve(
    job: &Job,
    engine: &Engine,
    number: usize,
    givens: Option<&Givens>,
    start: &Graph,
    out: &Out,
    started: Instant,
) {
    let grammar = engine.grammar();
    let config = Config::default()
        .with_expand(if job.expand_all {
            Expand::All
        } else {
            Expand::Focus
        })
        .with_limits(Limits {
            max_states: Some(job.max_states),
            max_solutions: Some(job.max_solutions),
            timeout: Some(Duration::from_secs_f64(job.timeout)),
            // Below the server's cap, so that the run stops itself, keeping what it
            // found, before the server would end the process.
            max_memory: Some(job.max_memory / 8 * 7),
        })
        .with_threads(1)
        .with_interrupt(&STOP)
        .with_progress(&PROGRESS)
        .with_started(started);
    let mut found = 0u64;
    let mut on_solution = |graph: &Graph| {
        found += 1;
        let line = output::json::solution(grammar, number, found, graph);
        let mut value: Value = serde_json::from_str(&line).expect("grafter writes JSON");
        if found as usize <= job.boards {
            let title = format!("solution {found}");
            value["svg"] = picture::state(engine, graph, start, &title).to_svg().into();
        }
        out.emit(&value);
    };
    let (done, ticks) = mpsc::channel::<()>();
    let report = std::thread::scope(|scope| {
        scope.spawn(move || {
            while let Err(mpsc::RecvTimeoutError::Timeout) = ticks.recv_timeout(PROGRESS_EVERY) {
                let c = PROGRESS.counts();
                out.emit(&json!({
                    "type": "progress", "states": c.states, "solutions": c.solutions,
                    "seconds": started.elapsed().as_secs_f64(),
                }));
            }
        });
        let report = engine.solve(givens, &config, Some(&mut on_solution));
        drop(done);
        report
    });
    match report {
        Ok(report) => out.line(&output::json::summary(number, &report)),
        // The givens were checked before the board was drawn: not reached.
        Err(d) => out.problem(RULES, &d.message),
    }
}

/// The state space from the start, recorded breadth-first on whole graphs up to the
/// job's cap of states, and drawn.
fn space(job: &Job, grammar: &Grammar, start: Graph, title: &str, out: &Out) {
    let expand = if job.expand_all {
        Expand::All
    } else {
        Expand::Focus
    };
    let cap = usize::try_from(job.space_states).unwrap_or(usize::MAX);
    let lts = Lts::record(grammar, start, expand, cap);
    let note = lts.is_capped().then(|| {
        format!(
            "more than {} states: the first {} found breadth-first are drawn; {} transitions to further states are left out (dashed, counted at their source)",
            lts.cap,
            lts.states.len(),
            lts.cut_transitions()
        )
    });
    let svg = picture::space(grammar, &lts, &format!("{title}, state space")).to_svg();
    out.emit(&json!({
        "type": "space", "states": lts.states.len(), "transitions": lts.transitions.len(),
        "expand": lts.expand.name(), "fallback": lts.fallback, "capped": lts.is_capped(),
        "note": note, "svg": svg,
    }));
}
