//! `grafter draw` and `grafter solve --format svg`: pictures of boards, graphs and state
//! spaces, written to stdout.

use std::io::{self, Write};

use grafter::picture::{self, Lts, Panel};
use grafter::{Config, Engine, Expand, Givens, Graph, Report, Source};

use crate::args::{DrawArgs, DrawFormat, ExpandArg, SolveArgs};
use crate::{load, load_puzzles, to_stderr, Failure, Run, STOPPED};

/// States recorded by default: few enough for a picture to read, enough for a file.
const PICTURE_STATES: u64 = 200;
const FILE_STATES: u64 = 100_000;
/// Boards drawn at most by `solve --format svg`; later solutions are counted only.
const MAX_BOARDS: usize = 100;

/// `grafter draw`.
pub fn draw(args: &DrawArgs) -> Result<u8, Failure> {
    if args.format != DrawFormat::Svg && !args.space {
        return Err(usage("--format dot and aut write a state space: add --space (`grafter expand --format dot` writes the graph)"));
    }
    let grammar = load(&args.file)?;
    let engine = Engine::new(&grammar);
    let (givens, layers, what) = match &args.puzzles {
        None => {
            if let Err(d) = engine.check_givens(None) {
                return Err(Failure::BadInput(grammar.source.render(&d)));
            }
            (None, None, "start".to_string())
        }
        Some(path) => {
            let n = args.puzzle.unwrap_or(1);
            let (source, puzzles) = load_puzzles(&engine, path)?;
            let count = puzzles.len();
            let Some(p) = puzzles.into_iter().nth((n - 1) as usize) else {
                return Err(Failure::BadInput(format!(
                    "{}: error: --puzzle {n} asks for puzzle {n}, but the file has {count} puzzle{}\n",
                    path.display(),
                    if count == 1 { "" } else { "s" }
                )));
            };
            (
                Some((source, p.givens)),
                Some(p.layers),
                format!("puzzle {n}"),
            )
        }
    };
    // A puzzle line's layers give it a grammar, and an engine, of its own; without a
    // puzzle line the file's own puzzle is drawn, its own layer content included. Only
    // the puzzle drawn has its givens checked.
    let drawn = |engine: &Engine| {
        if let Some((source, givens)) = &givens {
            if let Err(d) = engine.check_givens(Some(givens)) {
                return Err(Failure::BadInput(source.render(&d)));
            }
        }
        draw_one(args, engine, givens.as_ref().map(|(_, g)| g), &what)
    };
    match layers {
        None => drawn(&engine),
        Some(layers) => engine.with_layers(&layers, drawn),
    }
}

/// Draws the board, graph or space of one start graph (`givens` placed) of `engine`.
fn draw_one(
    args: &DrawArgs,
    engine: &Engine,
    givens: Option<&Givens>,
    what: &str,
) -> Result<u8, Failure> {
    let grammar = engine.grammar();
    let start = engine.start_graph(givens);
    let name = args.file.display().to_string();
    if args.space {
        return draw_space(
            args,
            grammar,
            start,
            &format!("{name}: {what}, state space"),
        );
    }
    let (graph, title) = match args.solution {
        None => (start.clone(), format!("{name}: {what}")),
        Some(k) => {
            let of = if args.puzzles.is_some() {
                format!("{what}, ")
            } else {
                String::new()
            };
            (
                nth_solution(engine, givens, k, what)?,
                format!("{name}: {of}solution {k}"),
            )
        }
    };
    let panel = if args.graph {
        picture::graph(grammar, &graph, &start, &title)
    } else {
        picture::state(engine, &graph, &start, &title)
    };
    io::stdout().lock().write_all(panel.to_svg().as_bytes())?;
    Ok(0)
}

/// A bad combination of options: exit status 2.
fn usage(message: &str) -> Failure {
    use clap::CommandFactory;
    crate::args::Cli::command()
        .error(clap::error::ErrorKind::ArgumentConflict, message)
        .exit()
}

/// The `k`-th solution, as `grafter solve` finds them (its defaults, `k` solutions at most).
fn nth_solution(
    engine: &Engine,
    givens: Option<&Givens>,
    k: u64,
    what: &str,
) -> Result<Graph, Failure> {
    let grammar = engine.grammar();
    let config = Config::default().with_max_solutions(k);
    let mut found = None;
    let mut seen = 0;
    let mut keep = |g: &Graph| {
        seen += 1;
        if seen == k {
            found = Some(g.clone());
        }
    };
    let report = engine
        .solve(givens, &config, Some(&mut keep))
        .map_err(|d| Failure::BadInput(grammar.source.render(&d)))?;
    found.ok_or_else(|| {
        let stop = report.stop.map(|s| format!(" ({s})")).unwrap_or_default();
        Failure::BadInput(format!(
            "{}: error: --solution {k} asks for solution {k}, but the {what} has {} solution{}{stop}\n",
            grammar.source.name,
            report.counts.solutions,
            if report.counts.solutions == 1 { "" } else { "s" }
        ))
    })
}

fn draw_space(
    args: &DrawArgs,
    grammar: &grafter::Grammar,
    start: Graph,
    title: &str,
) -> Result<u8, Failure> {
    let cap = args.max_states.unwrap_or(match args.format {
        DrawFormat::Svg => PICTURE_STATES,
        DrawFormat::Dot | DrawFormat::Aut => FILE_STATES,
    });
    let expand = match args.expand {
        ExpandArg::All => Expand::All,
        ExpandArg::Focus => Expand::Focus,
    };
    let lts = Lts::record(
        grammar,
        start,
        expand,
        usize::try_from(cap).unwrap_or(usize::MAX),
    );
    let text = match args.format {
        DrawFormat::Svg => picture::space(grammar, &lts, title).to_svg(),
        DrawFormat::Dot => lts.to_dot(),
        DrawFormat::Aut => lts.to_aut(),
    };
    io::stdout().lock().write_all(text.as_bytes())?;
    if let Some(why) = &lts.fallback {
        to_stderr(&format!("note: --expand focus falls back to all: {why}\n"));
    }
    match lts.cap_message() {
        Some(message) => {
            to_stderr(&format!("note: {message}\n"));
            Ok(STOPPED)
        }
        None => Ok(0),
    }
}

/// `grafter solve --format svg`: every run's solutions drawn (the first [`MAX_BOARDS`]),
/// each puzzle's summary below them, one SVG document at the end. Runs go one after the
/// other, each with every thread; a run's givens that clash (reported in `puzzles`, or
/// the rule file for its own puzzle) stop them.
pub fn solve_svg(
    engine: &Engine,
    args: &SolveArgs,
    config: &Config,
    puzzles: Option<&Source>,
    runs: &[Run],
) -> Result<bool, Failure> {
    let grammar = engine.grammar();
    let givens_source = puzzles.unwrap_or(&grammar.source);
    let config = Config {
        threads: args.threads(),
        ..*config
    };
    let many = args.puzzles.is_some();
    let mut panels: Vec<Panel> = Vec::new();
    let mut notes = Vec::new();
    let mut stopped = false;
    let mut memory_stop = false;
    let mut left_out = 0u64;
    let name = args.file.display().to_string();
    for (number, givens, layers) in runs {
        let mut run = |engine: &Engine| -> Result<Report, Failure> {
            let start = engine.start_graph(givens.as_ref());
            let mut found = 0u64;
            let mut draw = |g: &Graph| {
                found += 1;
                if panels.len() < MAX_BOARDS {
                    let title = if many {
                        format!("{name}: puzzle {number}, solution {found}")
                    } else {
                        format!("{name}: solution {found}")
                    };
                    panels.push(picture::state(engine, g, &start, &title));
                } else {
                    left_out += 1;
                }
            };
            engine
                .solve(givens.as_ref(), &config, Some(&mut draw))
                .map_err(|d| Failure::BadInput(givens_source.render(&d)))
        };
        let report = match layers {
            None => run(engine),
            Some(layers) => engine.with_layers(layers, run),
        }?;
        if let Some(stop) = report.stop {
            to_stderr(&format!("puzzle {number}: {stop}\n"));
            stopped = true;
            memory_stop |= matches!(stop, grafter::StopReason::Memory(_));
        }
        let c = &report.counts;
        notes.push(format!(
            "{}{} solutions, {} states, {} transitions, {} dead ends, {}",
            if many {
                format!("puzzle {number}: ")
            } else {
                String::new()
            },
            c.solutions,
            c.states,
            c.transitions,
            c.dead_ends,
            match report.stop {
                None => "complete".to_string(),
                Some(s) => format!("stopped: {s}"),
            }
        ));
        if crate::runs_stopped(&config) {
            break;
        }
    }
    if left_out > 0 {
        notes.push(format!("{left_out} more solutions are counted above but not drawn (the first {MAX_BOARDS} are)"));
    }
    let per_row = if panels.iter().any(|p| p.width > 480.0) {
        2
    } else {
        4
    };
    let doc = picture::sheet(&panels, per_row, &notes);
    io::stdout().lock().write_all(doc.as_bytes())?;
    if memory_stop {
        crate::note_default_memory_limit(args);
    }
    Ok(stopped)
}
