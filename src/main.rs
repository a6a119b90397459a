//! The `grafter` command line: arguments -> load -> explore -> print.
//!
//! Exit status: 0 done, 1 bad input (each message `file:line:col: error: ...`) or an output
//! error, 2 bad usage, 3 stopped by a limit (the partial results are printed), 130 / 143
//! stopped by SIGINT / SIGTERM (the partial results are printed), 141 stdout closed early.

mod args;
mod check_summary;
#[cfg(feature = "distributed")]
mod cluster_cli;
mod draw;
mod live;
mod paced;
mod serve;
mod signals;

use std::io::{self, IsTerminal, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::{CommandFactory, Parser};

use grafter::heuristics::{compare, seed_heuristics, table, table_json};
use grafter::output;
use grafter::{
    read_puzzles, run_batch, Config, Diagnostic, Engine, Event, Givens, Grammar, Layers, Progress,
    Puzzle, Source, StopReason,
};

use args::{
    Cli, Command, ExpandFormat, FocusArg, Format, HeuristicsArgs, ImportArgs, ImportFormat,
    ReportFormat, SolveArgs, ValueArg,
};
use live::Live;
use paced::Paced;
use signals::Interrupts;

/// A layered batch compiles every puzzle's model anew, thousands of small vectors and maps
/// each; mimalloc's per-thread free lists take a tenth to a fifth off that time against
/// the system allocator (kinds bench medians: Killer 9x9 90 -> 80 us, Renban 9x9 134 ->
/// 106 us; classic Sudoku unchanged). Its address-space reservation is set in
/// `.cargo/config.toml`, so that `ulimit -v` stops read what is used.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

const BAD_INPUT: u8 = 1;
/// Stdout was closed before the output ended (`| head`): 128 + SIGPIPE, as a shell reports
/// a process that a closed pipe ended.
const CLOSED_PIPE: u8 = 141;
/// Output is written out at least this often, so a pipe sees progress.
const FLUSH_EVERY: Duration = Duration::from_millis(100);
/// Bytes of a run's output handed on at once: with the queues' bound on pieces, a few MB
/// wait at most when runs go side by side.
const PIECE_BYTES: usize = 4 * 1024;

const STOPPED: u8 = 3;

/// What the runs of `grafter solve` publish for the live line.
static PROGRESS: Progress = Progress::new();

fn main() -> ExitCode {
    let cli = Cli::parse();
    ERROR_LIMIT.get_or_init(|| cli.error_limit);
    let result = match cli.command {
        Command::Solve(args) => solve(&args),
        Command::Check {
            file,
            deny_warnings,
            format,
        } => check(&file, deny_warnings, format),
        Command::Heuristics(args) => heuristics(&args),
        Command::Expand {
            file,
            format,
            puzzles,
            puzzle,
        } => expand(&file, format, puzzles.as_deref(), puzzle),
        Command::Draw(args) => draw::draw(&args),
        Command::Serve(args) => serve::serve(&args),
        Command::Import(args) => import(&args),
        Command::Completions { shell } => completions(shell),
        Command::Man { subcommand } => man(subcommand.as_deref()),
    };
    ExitCode::from(exit_code(result))
}

/// The exit status of a command's result, its failure told on stderr.
fn exit_code(result: Result<u8, Failure>) -> u8 {
    match result {
        Ok(code) => code,
        Err(Failure::BadInput(text)) => {
            to_stderr(&text);
            BAD_INPUT
        }
        Err(Failure::Io(e)) => {
            // A closed pipe (e.g. `| head`) is not an error worth a message.
            if e.kind() == io::ErrorKind::BrokenPipe {
                CLOSED_PIPE
            } else {
                to_stderr(&format!("error: cannot write output: {e}\n"));
                BAD_INPUT
            }
        }
        #[cfg(feature = "distributed")]
        Err(Failure::Lost(text)) => {
            to_stderr(&text);
            grafter::distributed::LOST
        }
    }
}

/// Writes `text` to stderr. A stderr that cannot be written to (closed, full) leaves
/// nowhere to say so: the exit status still tells.
fn to_stderr(text: &str) {
    let _ = io::stderr().lock().write_all(text.as_bytes());
}

/// One run of `grafter solve`: the puzzle's number, its givens and its layers (`None`:
/// the rule file's own start block and layer contents).
type Run = (usize, Option<Givens>, Option<Layers>);

enum Failure {
    /// Rendered diagnostics.
    BadInput(String),
    Io(io::Error),
    /// A distributed run could not start or lost a process: the message.
    #[cfg(feature = "distributed")]
    Lost(String),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// Reads a file, or standard input for `-`.
fn read_source(path: &Path) -> Result<Source, Failure> {
    let read = if path == Path::new("-") {
        let mut bytes = Vec::new();
        io::Read::read_to_end(&mut io::stdin().lock(), &mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    let name = if path == Path::new("-") {
        "<stdin>".to_string()
    } else {
        path.display().to_string()
    };
    match read {
        Ok(bytes) => Source::from_bytes(name.clone(), bytes)
            .map_err(|d| Failure::BadInput(render_all(&d.source, &d.items))),
        Err(e) => Err(Failure::BadInput(format!(
            "{name}: error: cannot read: {e}\n"
        ))),
    }
}

fn load(path: &Path) -> Result<Grammar, Failure> {
    let source = read_source(path)?;
    grafter::load(source).map_err(|d| Failure::BadInput(render_all(&d.source, &d.items)))
}

/// True when diagnostics may be coloured: stderr is a terminal and `NO_COLOR` is unset
/// (no-color.org).
fn colour() -> bool {
    use std::io::IsTerminal;
    static COLOUR: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *COLOUR.get_or_init(|| {
        io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
    })
}

/// One diagnostic as stderr shows it.
fn render(source: &Source, d: &Diagnostic) -> String {
    source.render_styled(d, colour())
}

/// Prints the rule file's warnings on stderr; with `deny`, any warning is bad input.
fn warn(grammar: &Grammar, deny: bool) -> Result<(), Failure> {
    let warnings = &grammar.warnings;
    if warnings.is_empty() {
        return Ok(());
    }
    to_stderr(&render_all(&grammar.source, warnings));
    if deny {
        let n = warnings.len();
        let s = if n == 1 { "" } else { "s" };
        return Err(Failure::BadInput(format!(
            "error: {n} warning{s} about {}, and --deny-warnings makes them errors\n",
            grammar.source.name
        )));
    }
    Ok(())
}

/// The diagnostics of one input shown in full at most (`--error-limit`; 0: all of them),
/// set once from the command line.
static ERROR_LIMIT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// How many of `count` messages about one input to show in full.
fn shown_of(count: usize) -> usize {
    match ERROR_LIMIT
        .get()
        .copied()
        .unwrap_or(args::DEFAULT_ERROR_LIMIT)
    {
        0 => count,
        n => n.min(count),
    }
}

/// What to say of the messages past the limit.
const SHOW_ALL: &str = "`--error-limit 0` shows them all";

/// Each diagnostic as stderr shows it, up to the error limit; the rest counted in a line.
fn render_all(source: &Source, items: &[Diagnostic]) -> String {
    let (shown, rest) = items.split_at(shown_of(items.len()));
    let mut out: String = shown.iter().map(|d| render(source, d)).collect();
    out += &source.render_left_out(rest, SHOW_ALL);
    out
}

/// `grafter import FORMAT IN --out DIR`: bad lines are reported, the others imported;
/// any bad line makes the exit status 1.
fn import(args: &ImportArgs) -> Result<u8, Failure> {
    let source = read_source(&args.input)?;
    if let ImportFormat::Janko = args.format {
        return import_janko(args, &source);
    }
    let outcome = grafter::import::fpuzzles::import(&source.name, &source.text, &args.out)
        .map_err(|e| {
            Failure::BadInput(format!(
                "{}: error: cannot write: {e}\n",
                args.out.display()
            ))
        })?;
    for kind in &outcome.ignored {
        to_stderr(&format!(
            "note: ignored `{kind}`: it draws and states no rule\n"
        ));
    }
    report_import_errors(&outcome.errors, &source.name);
    Ok(if outcome.errors.is_empty() {
        0
    } else {
        BAD_INPUT
    })
}

/// The puzzles an import could not convert, one line each up to the error limit, then
/// the rest counted.
fn report_import_errors(errors: &[String], input: &str) {
    let (shown, rest) = errors.split_at(shown_of(errors.len()));
    for e in shown {
        to_stderr(&format!("{e}\n"));
    }
    if !rest.is_empty() {
        let n = rest.len();
        let s = if n == 1 { "" } else { "s" };
        to_stderr(&format!(
            "note: {n} more error{s} about {} not shown; {SHOW_ALL}\n",
            grafter::escape(input)
        ));
    }
}

/// `grafter import janko`: the dataset's files written to `--out` with the manifest; each
/// puzzle that cannot be converted reported on stderr, the others still written.
fn import_janko(args: &ImportArgs, source: &Source) -> Result<u8, Failure> {
    let imported = grafter::import::janko::import(&source.name, &source.text)
        .map_err(|e| Failure::BadInput(e + "\n"))?;
    let written = std::fs::create_dir_all(&args.out).and_then(|()| {
        for (name, text) in &imported.files {
            std::fs::write(args.out.join(name), text)?;
        }
        grafter::import::write_manifest(&args.out, &imported.manifest)
    });
    written.map_err(|e| {
        Failure::BadInput(format!(
            "{}: error: cannot write: {e}\n",
            args.out.display()
        ))
    })?;
    report_import_errors(&imported.errors, &source.name);
    let rule_files = imported
        .files
        .iter()
        .filter(|(n, _)| n.ends_with(".graft"))
        .count();
    to_stderr(&format!(
        "imported {} of {} puzzles of {} into {} ({rule_files} rule files)\n",
        imported.manifest.len(),
        imported.manifest.len() + imported.errors.len(),
        imported.kind,
        args.out.display(),
    ));
    Ok(if imported.errors.is_empty() {
        0
    } else {
        BAD_INPUT
    })
}

/// `grafter solve --fpuzzles STRING`: the puzzle imported into a temporary folder, then
/// solved as `solve RULE --puzzles PUZZLES` would.
fn solve_fpuzzles(args: &SolveArgs, puzzle: &str) -> Result<u8, Failure> {
    let dir = std::env::temp_dir().join(format!("grafter-fpuzzles-{}", std::process::id()));
    let outcome = grafter::import::fpuzzles::import("--fpuzzles", puzzle, &dir)
        .map_err(|e| Failure::BadInput(format!("{}: error: cannot write: {e}\n", dir.display())));
    let result = outcome.and_then(|outcome| {
        for kind in &outcome.ignored {
            to_stderr(&format!(
                "note: ignored `{kind}`: it draws and states no rule\n"
            ));
        }
        if let Some(e) = outcome.errors.first() {
            return Err(Failure::BadInput(format!("{e}\n")));
        }
        let Some(entry) = outcome.entries.first() else {
            return Err(Failure::BadInput(
                "--fpuzzles: error: no puzzle given: expected an f-puzzles string, link or JSON\n"
                    .to_string(),
            ));
        };
        let mut inner = args.clone();
        inner.fpuzzles = None;
        inner.file = dir.join(&entry.rule);
        inner.puzzles = Some(dir.join(&entry.puzzles));
        solve(&inner)
    });
    let _ = std::fs::remove_dir_all(&dir);
    result
}

fn solve(args: &SolveArgs) -> Result<u8, Failure> {
    if let Some(puzzle) = &args.fpuzzles {
        return solve_fpuzzles(args, puzzle);
    }
    if matches!(args.value, ValueArg::Random) && matches!(args.focus, FocusArg::Propagate) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--value random needs a colouring focus (--focus dsatur, fewest, saturbfs, ...)",
            )
            .exit();
    }
    if args.count && matches!(args.format, Format::Svg) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--count prints numbers and --format svg draws solutions: choose one",
            )
            .exit();
    }
    let grammar = load(&args.file)?;
    warn(&grammar, args.deny_warnings)?;
    let engine = Engine::new(&grammar);
    // Without handlers (an unusual system) a signal ends the run the default way.
    let interrupts = Interrupts::install().ok();
    let mut config = args.config(interrupts.as_ref().map(|i| i.stop));
    let threads = args.threads();
    // Every puzzle line is read, its layers checked, before anything is solved: a line
    // that does not read stops the run before any output. Givens are checked as each
    // puzzle's run starts, on the engine it is solved with (a puzzle with layers may build
    // its own, and building it twice, once to check, doubled such a batch's time): a
    // clash stops the batch there, after the output of the puzzles before it.
    // A puzzle line's layers (`None`: the file's own puzzle, its start block and layers).
    let (puzzles, runs): (Option<Source>, Vec<Run>) = match &args.puzzles {
        None => {
            if let Err(d) = engine.check_givens(None) {
                return Err(Failure::BadInput(render(&grammar.source, &d)));
            }
            (None, vec![(1, None, None)])
        }
        Some(path) => {
            let (source, puzzles) = load_puzzles(&engine, path)?;
            let runs = puzzles
                .into_iter()
                .map(|p| (p.number, Some(p.givens), Some(p.layers)))
                .collect();
            (Some(source), runs)
        }
    };
    let puzzles = puzzles.as_ref();
    #[cfg(feature = "distributed")]
    if args.processes.is_some() {
        let interrupts = interrupts.as_ref();
        return cluster_cli::solve(
            &engine,
            args,
            &config,
            threads,
            (puzzles, &runs),
            interrupts,
        );
    }
    if let Format::Svg = args.format {
        let stopped = draw::solve_svg(&engine, args, &config, puzzles, &runs)?;
        if let Some(status) = interrupts.as_ref().and_then(Interrupts::status) {
            return Ok(status);
        }
        return Ok(if stopped { STOPPED } else { 0 });
    }
    // The runs state their plan's fall-back before they explore, and publish their
    // counts for the live line when it is drawn.
    let live = Arc::new(Live::new(&PROGRESS, runs.len()));
    let engine = engine.with_plan_listener({
        let live = Arc::clone(&live);
        move |plan| live.planned(plan)
    });
    let (stop_line, line_stops) = mpsc::channel::<()>();
    let line = live.shown().then(|| {
        config = config.with_progress(&PROGRESS);
        let live = Arc::clone(&live);
        std::thread::spawn(move || live.show_until(line_stops))
    });
    // A block at a time, flushed on a clock (a batch of small puzzles wrote a line a
    // puzzle, a system call each); on a terminal, each result at once.
    let out = Paced::new(FLUSH_EVERY, io::stdout().is_terminal());
    let mut stopped = false;
    let mut failure = None;
    // Set when the output ends early (a write failed, or a run did): the runs this stops
    // say nothing of it.
    let output_ended = AtomicBool::new(false);
    // Set when a run stops at the memory limit, which the end explains if it was the
    // default one.
    let memory_stop = AtomicBool::new(false);
    let ticks_stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        // Started the first time output waits for a tick (`Some(None)`: it could not
        // start, and what waits goes out at once).
        let mut ticks = None;
        let tick = || {
            // A flush that fails stops the runs, as a failed write does.
            let ticking = || {
                out.tick_until(&ticks_stop, || {
                    output_ended.store(true, Ordering::Relaxed);
                    stop_runs(&config);
                })
            };
            std::thread::Builder::new()
                .spawn_scoped(scope, ticking)
                .ok()
        };
        run_batch(
            runs.len(),
            threads,
            &config,
            |i, config, emit| {
                // After an interrupt, the puzzles not yet started are left out.
                if runs_stopped(config) {
                    return Ok(true);
                }
                let (number, givens, layers) = &runs[i];
                let mut pieces = Pieces {
                    text: Vec::new(),
                    emit,
                };
                let mut run = |engine: &Engine| {
                    run_one(
                        engine,
                        args,
                        config,
                        puzzles,
                        *number,
                        givens.as_ref(),
                        &mut pieces,
                    )
                };
                let report = match layers {
                    None => run(&engine),
                    Some(layers) => engine.with_layers(layers, run),
                }?;
                // A run stopped because the output ended has nothing to say: the batch ends
                // for that reason, reported once (a closed stdout: quietly).
                if let Some(stop) = report
                    .stop
                    .filter(|_| !output_ended.load(Ordering::Relaxed))
                {
                    live.note(&format!("puzzle {number}: {stop}\n"));
                    if let StopReason::Memory(_) = stop {
                        memory_stop.store(true, Ordering::Relaxed);
                    }
                }
                pieces.flush()?;
                live.puzzle_done();
                Ok(report.stop.is_some())
            },
            |_, event: Event<Vec<u8>, Result<bool, Failure>>| {
                let written = match event {
                    Event::Item(text) => match live.to_stdout(|| out.write(&text)) {
                        Ok(false) => Ok(()),
                        Ok(true) => match ticks.get_or_insert_with(tick) {
                            Some(_) => Ok(()),
                            None => out.flush().map_err(Failure::Io),
                        },
                        Err(e) => Err(Failure::Io(e)),
                    },
                    Event::Done(Ok(stop)) => {
                        stopped |= stop;
                        Ok(())
                    }
                    Event::Done(Err(f)) => Err(f),
                };
                written
                    .map_err(|f| {
                        output_ended.store(true, Ordering::Relaxed);
                        stop_runs(&config);
                        failure = Some(f);
                    })
                    .is_ok()
            },
        );
        ticks_stop.store(true, Ordering::Release);
        if let Some(Some(ticks)) = ticks {
            ticks.thread().unpark();
        }
    });
    // The line is cleared before anything else is said.
    drop(stop_line);
    if let Some(line) = line {
        let _ = line.join();
    }
    if let Some(f) = failure {
        return Err(f);
    }
    out.flush()?;
    if memory_stop.load(Ordering::Relaxed) {
        note_default_memory_limit(args);
    }
    if let Some(status) = interrupts.as_ref().and_then(Interrupts::status) {
        return Ok(status);
    }
    Ok(if stopped { STOPPED } else { 0 })
}

/// Says where the memory limit a run stopped at came from when `--max-memory` was not
/// given: a limit far below the machine's memory (a small `ulimit -v`, a container's) is
/// otherwise a puzzle.
fn note_default_memory_limit(args: &SolveArgs) {
    if args.max_memory.is_some() {
        return;
    }
    if let Some((limit, of)) = grafter::default_max_memory_of() {
        eprintln!(
            "note: the memory limit was {} MiB, 3/4 of {of}, as --max-memory was not given; \
             --max-memory SIZE sets another",
            limit / (1024 * 1024)
        );
    }
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

/// The output of a run, handed on in pieces as it grows (and whenever it is flushed), so
/// that it streams in puzzle order without being held whole.
struct Pieces<'e> {
    text: Vec<u8>,
    emit: &'e mut dyn FnMut(Vec<u8>) -> bool,
}

impl Write for Pieces<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.text.extend_from_slice(bytes);
        if self.text.len() >= PIECE_BYTES {
            self.flush()?;
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if !self.text.is_empty() && !(self.emit)(std::mem::take(&mut self.text)) {
            return Err(io::Error::other("output stopped"));
        }
        Ok(())
    }
}

/// Solves one puzzle and writes its solutions and summary (or its count) to `out`. A
/// puzzle of the file `puzzles` (`None`: the rule file's own) is numbered in the output,
/// and its givens' clash is reported there.
fn run_one(
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    puzzles: Option<&Source>,
    number: usize,
    givens: Option<&Givens>,
    out: &mut dyn Write,
) -> Result<grafter::Report, Failure> {
    // Read when a solution or a message is written: a regrouped, narrowed or retabled
    // puzzle's grammar is built then, so counting never builds it.
    let grammar = || engine.grammar();
    let many = puzzles.is_some();
    let mut found = 0u64;
    let mut io_error: Option<io::Error> = None;
    let mut flushed = Instant::now();
    let mut candidates = output::candidates::Candidates::default();
    let mut print = |graph: &grafter::Graph| {
        found += 1;
        let text = match args.format {
            Format::Json => output::json::solution(grammar(), number, found, graph) + "\n",
            Format::Candidates | Format::CandidatesJson => {
                candidates.add(grammar(), graph);
                return;
            }
            Format::Fpuzzles => match output::fpuzzles::link(grammar(), graph) {
                Some(link) if many => format!("puzzle {number} solution {found} {link}\n"),
                Some(link) => format!("solution {found} {link}\n"),
                None => format!("solution {found}: not a square grid\n"),
            },
            Format::Text | Format::Svg => {
                let body = output::draw_grid(grammar(), graph)
                    .unwrap_or_else(|| output::text::list_nodes(grammar(), graph));
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
    let sink: Option<&mut dyn FnMut(&grafter::Graph)> =
        if args.count { None } else { Some(&mut print) };
    let report = engine
        .solve(givens, config, sink)
        .map_err(|d| Failure::BadInput(render(puzzles.unwrap_or(&grammar().source), &d)))?;
    if let Some(e) = io_error {
        return Err(Failure::Io(e));
    }
    match (args.format, args.count) {
        // The summary holds the count, and says whether it is complete.
        (Format::Json | Format::CandidatesJson, true) => {
            writeln!(out, "{}", output::json::summary(number, &report))?
        }
        (Format::Json, false) => writeln!(out, "{}", output::json::summary(number, &report))?,
        (Format::CandidatesJson, false) => {
            let complete = report.stop.is_none();
            writeln!(out, "{}", candidates.to_json(grammar(), number, complete))?;
            writeln!(out, "{}", output::json::summary(number, &report))?
        }
        (Format::Candidates, false) => {
            if many {
                writeln!(out, "puzzle {number}")?;
            }
            let complete = report.stop.is_none();
            write!(out, "{}", candidates.to_text(grammar(), complete))?;
            writeln!(out, "{}", output::text::summary(&report))?;
        }
        (Format::Text | Format::Svg | Format::Candidates | Format::Fpuzzles, true) => {
            writeln!(out, "{}", report.counts.solutions)?
        }
        (Format::Text | Format::Svg | Format::Fpuzzles, false) => {
            if many {
                writeln!(out, "puzzle {number}")?;
            }
            writeln!(out, "{}", output::text::summary(&report))?;
        }
    }
    Ok(report)
}

/// Reads the puzzles of `path` for `engine`'s grammar, every line and its layers read and
/// checked before any is solved. Their givens are not checked here: that needs each
/// puzzle's engine, which a puzzle with layers may have to build on its own (see
/// [`check_all_givens`]).
fn load_puzzles(engine: &Engine, path: &Path) -> Result<(Source, Vec<Puzzle>), Failure> {
    let source = read_source(path)?;
    let puzzles = read_puzzles(engine.grammar(), &source)
        .map_err(|ds| Failure::BadInput(render_all(&source, &ds)))?;
    Ok((source, puzzles))
}

/// Checks every puzzle's givens for clashes on `engine`, the rule file's (for a command
/// that takes puzzles without layers), each clash reported in puzzle order.
fn check_all_givens(engine: &Engine, source: &Source, puzzles: &[Puzzle]) -> Result<(), Failure> {
    let clashes: Vec<Diagnostic> = puzzles
        .iter()
        .filter_map(|p| engine.check_givens(Some(&p.givens)).err())
        .collect();
    if !clashes.is_empty() {
        return Err(Failure::BadInput(render_all(source, &clashes)));
    }
    Ok(())
}

fn heuristics(args: &HeuristicsArgs) -> Result<u8, Failure> {
    if args.markdown && matches!(args.format, ReportFormat::Json) {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                "--markdown is a text table; --format json gives one JSON object",
            )
            .exit();
    }
    let grammar = load(&args.file)?;
    let engine = Engine::new(&grammar);
    let (source, puzzles) = load_puzzles(&engine, &args.puzzles)?;
    if let Some(p) = puzzles.iter().find(|p| !p.layers.is_empty()) {
        return Err(Failure::BadInput(format!(
            "{}:{}:1: error: puzzle {} carries layers, and `grafter heuristics` runs one compiled grammar over every puzzle: expected puzzles without layers (`grafter solve` reads layers)\n",
            args.puzzles.display(),
            p.line,
            p.number
        )));
    }
    check_all_givens(&engine, &source, &puzzles)?;
    let puzzles: Vec<Givens> = puzzles.into_iter().map(|p| p.givens).collect();
    let list = seed_heuristics(args.restarts, args.seed);
    let tallies = compare(&engine, &puzzles, &list)
        .map_err(|d| Failure::BadInput(render(&grammar.source, &d)))?;
    let mut out = io::stdout().lock();
    let fallback = engine.focus_unsound();
    if let ReportFormat::Json = args.format {
        let line = table_json(
            &args.file.display().to_string(),
            &args.puzzles.display().to_string(),
            puzzles.len(),
            fallback.as_deref(),
            &list,
            &tallies,
        );
        writeln!(out, "{line}")?;
        return Ok(0);
    }
    if let Some(why) = fallback {
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

fn check(path: &Path, deny_warnings: bool, format: ReportFormat) -> Result<u8, Failure> {
    let grammar = load(path)?;
    warn(&grammar, deny_warnings)?;
    let engine = Engine::new(&grammar);
    if let Err(d) = engine.check_givens(None) {
        return Err(Failure::BadInput(render(&grammar.source, &d)));
    }
    let mut out = io::stdout().lock();
    match format {
        ReportFormat::Text => check_summary::write(&mut out, &engine)?,
        ReportFormat::Json => check_summary::write_json(&mut out, &engine)?,
    }
    Ok(0)
}

/// `grafter expand`: the rule file's graph, or with `--puzzles` the start graph of one
/// puzzle (its layers added, its givens as the start block).
fn expand(
    path: &Path,
    format: ExpandFormat,
    puzzles: Option<&Path>,
    number: Option<u64>,
) -> Result<u8, Failure> {
    let grammar = load(path)?;
    let puzzle_grammar;
    let grammar = match puzzles {
        None => &grammar,
        Some(file) => {
            let source = read_source(file)?;
            let list = read_puzzles(&grammar, &source)
                .map_err(|ds| Failure::BadInput(render_all(&source, &ds)))?;
            let number = number.unwrap_or(1);
            let Some(p) = usize::try_from(number - 1).ok().and_then(|i| list.get(i)) else {
                Cli::command()
                    .error(
                        clap::error::ErrorKind::ValueValidation,
                        format!(
                            "--puzzle {number}: {} has {} puzzles, expected a number from 1 to {}",
                            source.name,
                            list.len(),
                            list.len()
                        ),
                    )
                    .exit()
            };
            let mut g = grammar.with_layers(&p.layers);
            g.start = Some(p.givens.clone());
            puzzle_grammar = g;
            &puzzle_grammar
        }
    };
    let text = match format {
        ExpandFormat::Graft => grafter::print_expanded(grammar),
        ExpandFormat::Dot => {
            let engine = Engine::new(grammar);
            output::to_dot(grammar, &engine.start_graph(None))
        }
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    Ok(0)
}

/// `grafter completions SHELL`: the completion script clap derives from the definition.
fn completions(shell: clap_complete::Shell) -> Result<u8, Failure> {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "grafter", &mut out);
    io::stdout().lock().write_all(&out)?;
    Ok(0)
}

/// `grafter man [SUBCOMMAND]`: the manual page of grafter or of one subcommand
/// (`grafter-solve(1)`).
fn man(subcommand: Option<&str>) -> Result<u8, Failure> {
    let cli = Cli::command();
    let page = match subcommand {
        None => cli,
        Some(name) => {
            let Some(sub) = cli.find_subcommand(name) else {
                let names: Vec<&str> = cli.get_subcommands().map(|s| s.get_name()).collect();
                let message = format!(
                    "no subcommand `{name}`; expected one of: {}",
                    names.join(", ")
                );
                Cli::command()
                    .error(clap::error::ErrorKind::InvalidSubcommand, message)
                    .exit()
            };
            let full = format!("grafter-{name}");
            sub.clone().name(full.clone()).bin_name(full)
        }
    };
    let mut out = Vec::new();
    clap_mangen::Man::new(page).render(&mut out)?;
    io::stdout().lock().write_all(&out)?;
    Ok(0)
}
