//! The `grafter` command line: arguments -> load -> explore -> print.
//!
//! Exit status: 0 done, 1 bad input (each message `file:line:col: error: ...`) or an output
//! error, 2 bad usage, 3 stopped by a limit (the partial results are printed), 130 / 143
//! stopped by SIGINT / SIGTERM (the partial results are printed), 141 stdout closed early.

mod signals;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use grafter::diag::{Diagnostic, Source};
use grafter::engine::heuristics::{compare, seed_heuristics, table};
use grafter::engine::{Engine, EngineKind};
use grafter::explore::memory::{default_max_memory, parse_size};
use grafter::explore::{
    ordered_jobs, ordered_streams, runs_side_by_side, Config, Emitter, EngineChoice, Event, Expand,
    Focus, Limits, Order, Policy, ValueOrder,
};
use grafter::grammar::{Givens, Grammar};
use grafter::output;
use grafter::puzzle::{read_puzzles, Puzzle};

use signals::Interrupts;

const BAD_INPUT: u8 = 1;
/// Stdout was closed before the output ended (`| head`): 128 + SIGPIPE, as a shell reports
/// a process that a closed pipe ended.
const CLOSED_PIPE: u8 = 141;
/// Output is written out at least this often, so a pipe sees progress.
const FLUSH_EVERY: Duration = Duration::from_millis(100);
/// Bytes of a side-by-side job's output handed on at once: with the queues' bound on
/// pieces, a few MB wait at most.
const PIECE_BYTES: usize = 4 * 1024;

/// Puzzles per job when puzzles run side by side: enough to amortise handing out a job and
/// passing its result, few enough that the threads finish together.
fn chunk_size(runs: usize, threads: usize) -> usize {
    (runs / (threads * 64)).clamp(1, 256)
}
const STOPPED: u8 = 3;

#[derive(Parser)]
#[command(
    name = "grafter",
    version,
    about = "Explore the state space of graph rewriting rules and list every solution"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Every solution of the file's start graph (or of each puzzle), then a summary.
    Solve(SolveArgs),
    /// Parse and type-check a rule file; summarise its nodes, edges and rules.
    Check { file: PathBuf },
    /// Run the seeds' greedy colouring heuristics and exact search on every puzzle of a
    /// file; print, per heuristic, the share of puzzles solved and the mean time per puzzle.
    Heuristics(HeuristicsArgs),
    /// Print the graph a rule file expands to, as a rule file or as Graphviz DOT.
    Expand {
        file: PathBuf,
        #[arg(long, value_enum, default_value_t = ExpandFormat::Graft)]
        format: ExpandFormat,
    },
}

#[derive(clap::Args)]
struct SolveArgs {
    file: PathBuf,
    /// One start graph per line of this puzzle file, for the same rules.
    #[arg(long)]
    puzzles: Option<PathBuf>,
    /// Print only each puzzle's number of solutions, one line per puzzle.
    #[arg(long)]
    count: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// `linear` follows one path and never backtracks (the greedy heuristics).
    #[arg(long, value_enum, default_value_t = OrderArg::Dfs)]
    order: OrderArg,
    /// Which slot each state branches on. `propagate` (default): the fewest candidates,
    /// forced moves applied. The colouring foci place one slot per step: `fewest`
    /// candidates; `dsatur`: most saturated, ties by empty neighbours; `degree`: highest
    /// degree first; `welsh-powell`: one value at a time, by degree; `saturbfs`:
    /// breadth-first from the most saturated; `breadth`, `depth`: walks of the conflict
    /// graph; `position`: slot order.
    #[arg(long, value_enum, default_value_t = FocusArg::Propagate)]
    focus: FocusArg,
    /// The order a slot's values are tried (`random` needs a colouring focus).
    #[arg(long, value_enum, default_value_t = ValueArg::Smallest)]
    value: ValueArg,
    /// Seed of `--value random`; the same seed gives the same run.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Attempts of a linear run with random values until one reaches a solution.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    restarts: u32,
    /// `focus` branches on one cell at a time where that is sound; `all` is every match
    /// of every rule (GROOVE's semantics).
    #[arg(long, value_enum, default_value_t = ExpandArg::Focus)]
    expand: ExpandArg,
    /// Stop each run after this many states.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_states: Option<u64>,
    /// Stop each run after this many solutions.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    max_solutions: Option<u64>,
    /// Stop each run after this many seconds (a decimal number from 0 to one year).
    #[arg(long, value_parser = parse_timeout)]
    timeout: Option<Duration>,
    /// Stop each run once the process holds this much memory, such as 512M or 2G
    /// (default: 3/4 of the least of physical memory, the cgroup's limit and `ulimit -v`).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    max_memory: Option<u64>,
    /// `auto` packs slot-filling grammars into compact states; `graph` always explores
    /// whole host graphs with the general matcher (slower; for comparison).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    engine: EngineArg,
    /// Worker threads (default: every core). Puzzles of a file run side by side; a single
    /// run splits its search tree. Counts and output order do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    threads: Option<u32>,
}

/// The longest `--timeout`: one year, far beyond any run and far inside `Duration`.
const MAX_TIMEOUT_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// `--timeout SECS`: a finite number of seconds from 0 to one year.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| "expected a number of seconds".to_string())?;
    if !(0.0..=MAX_TIMEOUT_SECS).contains(&secs) {
        return Err(format!(
            "expected a number of seconds from 0 to {MAX_TIMEOUT_SECS} (one year)"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

#[derive(clap::Args)]
struct HeuristicsArgs {
    file: PathBuf,
    /// The puzzles, one per line.
    #[arg(long)]
    puzzles: PathBuf,
    /// Attempts of the randomised heuristics (SaturBFS, BFS, DFS) per puzzle (seed 002's
    /// `max_iter` for easy puzzles).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    restarts: u32,
    /// Seed of the randomised heuristics.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the table as Markdown.
    #[arg(long)]
    markdown: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum FocusArg {
    Propagate,
    Fewest,
    Dsatur,
    Degree,
    WelshPowell,
    Saturbfs,
    Breadth,
    Depth,
    Position,
}

#[derive(Clone, Copy, ValueEnum)]
enum ValueArg {
    Smallest,
    Random,
}

#[derive(Clone, Copy, ValueEnum)]
enum EngineArg {
    Auto,
    Graph,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExpandFormat {
    Graft,
    Dot,
}

#[derive(Clone, Copy, ValueEnum)]
enum OrderArg {
    Dfs,
    Bfs,
    Linear,
}

#[derive(Clone, Copy, ValueEnum)]
enum ExpandArg {
    Focus,
    All,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Solve(args) => solve(&args),
        Command::Check { file } => check(&file),
        Command::Heuristics(args) => heuristics(&args),
        Command::Expand { file, format } => expand(&file, format),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(Failure::BadInput(text)) => {
            to_stderr(&text);
            ExitCode::from(BAD_INPUT)
        }
        Err(Failure::Io(e)) => {
            // A closed pipe (e.g. `| head`) is not an error worth a message.
            if e.kind() == io::ErrorKind::BrokenPipe {
                ExitCode::from(CLOSED_PIPE)
            } else {
                to_stderr(&format!("error: cannot write output: {e}\n"));
                ExitCode::from(BAD_INPUT)
            }
        }
    }
}

/// Writes `text` to stderr. A stderr that cannot be written to (closed, full) leaves
/// nowhere to say so: the exit status still tells.
fn to_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

enum Failure {
    /// Rendered diagnostics.
    BadInput(String),
    Io(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

fn read_source(path: &Path) -> Result<Source, Failure> {
    match std::fs::read(path) {
        Ok(bytes) => Source::from_bytes(path.display().to_string(), bytes)
            .map_err(|d| Failure::BadInput(d.to_string())),
        Err(e) => Err(Failure::BadInput(format!(
            "{}: error: cannot read: {e}\n",
            path.display()
        ))),
    }
}

fn load(path: &Path) -> Result<Grammar, Failure> {
    let source = read_source(path)?;
    grafter::check::check(source).map_err(|d| Failure::BadInput(d.to_string()))
}

fn render_all(source: &Source, items: &[Diagnostic]) -> String {
    items.iter().map(|d| source.render(d)).collect()
}

fn solve(args: &SolveArgs) -> Result<u8, Failure> {
    if matches!(args.value, ValueArg::Random) && matches!(args.focus, FocusArg::Propagate) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--value random needs a colouring focus (--focus dsatur, fewest, saturbfs, ...)",
            )
            .exit();
    }
    let grammar = load(&args.file)?;
    let engine = Engine::new(&grammar);
    // Without handlers (an unusual system) a signal ends the run the default way.
    let interrupts = Interrupts::install().ok();
    let config = Config {
        order: match args.order {
            OrderArg::Dfs => Order::Dfs,
            OrderArg::Bfs => Order::Bfs,
            OrderArg::Linear => Order::Linear,
        },
        policy: Policy {
            focus: match args.focus {
                FocusArg::Propagate => Focus::Propagate,
                FocusArg::Fewest => Focus::Fewest,
                FocusArg::Dsatur => Focus::Dsatur,
                FocusArg::Degree => Focus::Degree,
                FocusArg::WelshPowell => Focus::WelshPowell,
                FocusArg::Saturbfs => Focus::SaturBfs,
                FocusArg::Breadth => Focus::Breadth,
                FocusArg::Depth => Focus::Depth,
                FocusArg::Position => Focus::Position,
            },
            value: match args.value {
                ValueArg::Smallest => ValueOrder::Smallest,
                ValueArg::Random => ValueOrder::Random,
            },
            seed: args.seed,
            restarts: args.restarts,
        },
        expand: match args.expand {
            ExpandArg::Focus => Expand::Focus,
            ExpandArg::All => Expand::All,
        },
        threads: 1,
        engine: match args.engine {
            EngineArg::Auto => EngineChoice::Auto,
            EngineArg::Graph => EngineChoice::Graph,
        },
        limits: Limits {
            max_states: args.max_states,
            max_solutions: args.max_solutions,
            timeout: args.timeout,
            max_memory: args.max_memory.or_else(default_max_memory),
        },
        interrupt: interrupts.as_ref().map(|i| i.stop),
    };
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    // Every puzzle is read and its givens checked before anything is solved, so bad
    // input stops the run before partial output.
    let runs: Vec<(usize, Option<Givens>)> = match &args.puzzles {
        None => {
            if let Err(d) = engine.check_givens(None) {
                return Err(Failure::BadInput(grammar.source.render(&d)));
            }
            vec![(1, None)]
        }
        Some(path) => load_puzzles(&engine, path, threads)?
            .into_iter()
            .map(|p| (p.number, Some(p.givens)))
            .collect(),
    };
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut stopped = false;
    let many = args.puzzles.is_some();
    if !runs_side_by_side(runs.len(), threads) {
        // Few runs: one after another, each splitting its own search tree over the
        // threads; output streams.
        let config = Config { threads, ..config };
        stopped = run_each(&engine, args, &config, many, &runs, &mut out)?;
    } else {
        // Many runs: side by side, each on one thread, handed out in chunks so that small
        // puzzles do not spend their time passing results; output in puzzle order.
        let chunk = chunk_size(runs.len(), threads);
        let mut failure = None;
        ordered_streams(
            runs.len().div_ceil(chunk),
            threads,
            |j, emitter| {
                let part = &runs[j * chunk..((j + 1) * chunk).min(runs.len())];
                let mut pieces = Pieces {
                    text: Vec::new(),
                    emitter,
                };
                let stop = run_each(&engine, args, &config, many, part, &mut pieces)?;
                pieces.flush()?;
                Ok(stop)
            },
            |_, event: Event<Vec<u8>, Result<bool, Failure>>| {
                let written = match event {
                    Event::Item(text) => out.write_all(&text).map_err(Failure::Io),
                    Event::Done(Ok(stop)) => {
                        stopped |= stop;
                        Ok(())
                    }
                    Event::Done(Err(f)) => Err(f),
                };
                written
                    .map_err(|f| {
                        stop_runs(&config);
                        failure = Some(f);
                    })
                    .is_ok()
            },
        );
        if let Some(f) = failure {
            return Err(f);
        }
    }
    out.flush()?;
    if let Some(status) = interrupts.as_ref().and_then(Interrupts::status) {
        return Ok(status);
    }
    Ok(if stopped { STOPPED } else { 0 })
}

/// Stops every run of `config` at its next poll: nothing more can be written.
fn stop_runs(config: &Config) {
    if let Some(flag) = config.interrupt {
        flag.store(true, Ordering::Relaxed);
    }
}

/// True once `config`'s runs were told to stop (a signal, a closed stdout).
fn runs_stopped(config: &Config) -> bool {
    config
        .interrupt
        .is_some_and(|f: &AtomicBool| f.load(Ordering::Relaxed))
}

/// The output of a job of puzzles run side by side, handed on in pieces as it grows, so
/// that it streams in puzzle order without being held whole.
struct Pieces<'e, 'a> {
    text: Vec<u8>,
    emitter: &'e mut Emitter<'a, Vec<u8>>,
}

impl Write for Pieces<'_, '_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(bytes);
        if self.text.len() >= PIECE_BYTES {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.text.is_empty() && !self.emitter.emit(std::mem::take(&mut self.text)) {
            return Err(io::Error::other("output stopped"));
        }
        Ok(())
    }
}

/// Solves `runs` one after another into `out`; true when a limit stopped any of them.
fn run_each(
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    many: bool,
    runs: &[(usize, Option<Givens>)],
    out: &mut dyn Write,
) -> Result<bool, Failure> {
    let mut stopped = false;
    for (number, givens) in runs {
        // After an interrupt, the puzzles not yet started are left out.
        if runs_stopped(config) {
            return Ok(true);
        }
        let report = run_one(engine, args, config, many, *number, givens.as_ref(), out)?;
        stopped |= report.stop.is_some();
    }
    Ok(stopped)
}

/// Solves one puzzle and writes its solutions and summary (or its count) to `out`.
fn run_one(
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    many: bool,
    number: usize,
    givens: Option<&Givens>,
    out: &mut dyn Write,
) -> Result<grafter::explore::Report, Failure> {
    let grammar = engine.grammar;
    let mut found = 0u64;
    let mut io_error: Option<io::Error> = None;
    let mut flushed = Instant::now();
    let mut print = |graph: &grafter::model::Graph| {
        found += 1;
        let text = match args.format {
            Format::Json => output::json::solution(grammar, number, found, graph) + "\n",
            Format::Text => {
                let body = output::draw_grid(grammar, graph)
                    .unwrap_or_else(|| output::text::list_nodes(grammar, graph));
                if many {
                    format!("puzzle {number} solution {found}\n{body}\n")
                } else {
                    format!("solution {found}\n{body}\n")
                }
            }
        };
        if io_error.is_none() {
            let mut written = out.write_all(text.as_bytes());
            // The first solution is shown at once (`| head -1` ends then), later ones at
            // least every FLUSH_EVERY while they come.
            if written.is_ok() && (found == 1 || flushed.elapsed() >= FLUSH_EVERY) {
                flushed = Instant::now();
                written = out.flush();
            }
            if let Err(e) = written {
                // Nothing more can be shown: stop searching now.
                stop_runs(config);
                io_error = Some(e);
            }
        }
    };
    let sink: Option<&mut dyn FnMut(&grafter::model::Graph)> =
        if args.count { None } else { Some(&mut print) };
    let report = engine
        .solve(givens, config, sink)
        .map_err(|d| Failure::BadInput(grammar.source.render(&d)))?;
    if let Some(e) = io_error {
        return Err(Failure::Io(e));
    }
    if let Some(stop) = report.stop {
        to_stderr(&format!("puzzle {number}: {stop}\n"));
    }
    if args.count {
        writeln!(out, "{}", report.counts.solutions)?;
    } else {
        match args.format {
            Format::Json => writeln!(out, "{}", output::json::summary(number, &report))?,
            Format::Text => {
                if many {
                    writeln!(out, "puzzle {number}")?;
                }
                writeln!(out, "{}", output::text::summary(&report))?;
            }
        }
    }
    Ok(report)
}

/// Reads the puzzles of `path` for `engine`'s grammar, every line checked before any is
/// solved.
fn load_puzzles(engine: &Engine, path: &Path, threads: usize) -> Result<Vec<Puzzle>, Failure> {
    let source = read_source(path)?;
    let puzzles = read_puzzles(engine.grammar, &source)
        .map_err(|ds| Failure::BadInput(render_all(&source, &ds)))?;
    // Clashing givens, checked on every thread; reported in puzzle order.
    let chunk = chunk_size(puzzles.len(), threads);
    let mut clashes: Vec<Diagnostic> = Vec::new();
    ordered_jobs(
        puzzles.len().div_ceil(chunk),
        threads,
        |j| {
            puzzles[j * chunk..((j + 1) * chunk).min(puzzles.len())]
                .iter()
                .filter_map(|p| engine.check_givens(Some(&p.givens)).err())
                .collect::<Vec<_>>()
        },
        |_, found| {
            clashes.extend(found);
            true
        },
    );
    if !clashes.is_empty() {
        return Err(Failure::BadInput(render_all(&source, &clashes)));
    }
    Ok(puzzles)
}

fn heuristics(args: &HeuristicsArgs) -> Result<u8, Failure> {
    let grammar = load(&args.file)?;
    let engine = Engine::new(&grammar);
    let puzzles: Vec<Givens> = load_puzzles(&engine, &args.puzzles, 1)?
        .into_iter()
        .map(|p| p.givens)
        .collect();
    let list = seed_heuristics(args.restarts, args.seed);
    let tallies = compare(&engine, &puzzles, &list)
        .map_err(|d| Failure::BadInput(grammar.source.render(&d)))?;
    let mut out = io::stdout().lock();
    if let Some(why) = engine.focus_unsound() {
        writeln!(
            out,
            "note: the colouring foci fall back to `--expand all`: {why}"
        )?;
    }
    writeln!(
        out,
        "{} on {} ({} puzzles)",
        args.file.display(),
        args.puzzles.display(),
        puzzles.len()
    )?;
    write!(out, "{}", table(&list, &tallies, args.markdown))?;
    Ok(0)
}

fn check(path: &Path) -> Result<u8, Failure> {
    let grammar = load(path)?;
    let engine = Engine::new(&grammar);
    if let Err(d) = engine.check_givens(None) {
        return Err(Failure::BadInput(grammar.source.render(&d)));
    }
    let mut out = io::stdout().lock();
    writeln!(out, "{}: ok", grammar.source.name)?;
    writeln!(
        out,
        "values: {} ({})",
        grammar.domain.describe(),
        grammar.domain.len()
    )?;
    for (i, t) in grammar.types.nodes.iter().enumerate() {
        let count = grammar
            .base
            .find_nodes()
            .filter(|&n| grammar.base.ty(n).index() == i)
            .count();
        let parent = t
            .parent
            .map(|p| format!(" : {}", grammar.types.node(p).name))
            .unwrap_or_default();
        writeln!(out, "node {}{parent}: {count} nodes", t.name)?;
    }
    for (i, l) in grammar.types.labels.iter().enumerate() {
        let count = grammar
            .base
            .find_edges()
            .filter(|&(_, lab, _)| lab.index() == i)
            .count();
        writeln!(
            out,
            "edge {}: {} -> {}: {count} edges",
            l.name,
            grammar.types.node(l.source).name,
            grammar.types.node(l.target).name
        )?;
    }
    if let Some(grid) = &grammar.grid {
        let givens = grammar
            .start
            .as_ref()
            .map_or(0, |s| s.values.iter().filter(|v| v.is_some()).count());
        writeln!(out, "grid: {}x{} ({givens} givens)", grid.rows, grid.cols)?;
    }
    for r in &grammar.rules {
        writeln!(
            out,
            "rule {}: {} nodes, {} NACs, {} effects",
            r.name,
            r.lhs.nodes.len(),
            r.lhs.nacs.len(),
            r.effects.len()
        )?;
    }
    writeln!(
        out,
        "final: {}",
        if grammar.final_cond.is_some() {
            "as declared"
        } else {
            "no rule applies"
        }
    )?;
    match &engine.kind {
        EngineKind::Slot(m) => writeln!(
            out,
            "engine: slot ({} slots, {} NAC indexes, {} exactly-once groups)",
            m.slots.len(),
            m.hubs.len(),
            m.once.len()
        )?,
        EngineKind::Graph(why) => {
            let (line, col) = grammar.source.line_col(why.span.start);
            writeln!(
                out,
                "engine: graph (not slot-filling: {}:{line}:{col}: {})",
                grammar.source.name, why.reason
            )?
        }
    }
    match engine.focus_unsound() {
        None => writeln!(out, "expand focus: sound")?,
        Some(why) => writeln!(out, "expand focus: falls back to all: {why}")?,
    }
    Ok(0)
}

fn expand(path: &Path, format: ExpandFormat) -> Result<u8, Failure> {
    let grammar = load(path)?;
    let text = match format {
        ExpandFormat::Graft => grafter::check::print_expanded(&grammar),
        ExpandFormat::Dot => {
            let engine = Engine::new(&grammar);
            output::to_dot(&grammar, &engine.start_graph(None))
        }
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(0)
}
