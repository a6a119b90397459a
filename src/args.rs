//! The command line's arguments: the subcommands, their options, and the run configuration
//! `solve`'s options describe.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};

use grafter::{
    default_max_memory, parse_size, resolve_threads, Config, EngineChoice, Expand, Focus, Limits,
    Order, Policy, ValueOrder,
};

/// Shown after `grafter --help`: a first command for each task, and what the exit status
/// says.
const AFTER_HELP: &str = "\
Examples:
  grafter solve rules/sudoku-4x4-centre.graft          every solution, then a summary
  grafter solve rules/sudoku-9x9.graft --puzzles top95.txt --count
                                                       solutions per puzzle, all cores
  cat puzzles.txt | grafter solve rules/sudoku-9x9.graft --puzzles - --format json
  grafter solve rules/sudoku-4x4.graft --expand all    GROOVE's full state space
  grafter check rules/futoshiki-5x5.graft              check a file, summarise the grammar
  grafter draw rules/futoshiki-5x5.graft --solution 1 > s1.svg
                                                       a picture of a solution's board
  grafter serve                                        the playground: edit and run in a browser
  grafter completions bash > ~/.local/share/bash-completion/completions/grafter

Exit status:
  0    done (a complete run, or the file checked)
  1    bad input (each message is file:line:col: error: ...), or output could not be written
  2    bad usage (an unknown option or a value out of range)
  3    stopped by a limit (--max-states, --max-solutions, --timeout, --max-memory);
       the partial results are printed
  130  stopped by SIGINT (Ctrl-C), 143 by SIGTERM; the partial results are printed
  141  stdout was closed early (| head)";

#[derive(Parser)]
#[command(
    name = "grafter",
    version,
    about = "Explore the state space of graph rewriting rules and list every solution",
    after_help = AFTER_HELP
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    /// Show at most N messages about one input in full, then count the rest in one line
    /// (0: show every one). A batch file of thousands of bad lines stays readable.
    #[arg(long, global = true, value_name = "N", default_value_t = DEFAULT_ERROR_LIMIT)]
    pub error_limit: usize,
}

/// Messages about one input shown in full unless `--error-limit` says otherwise.
pub const DEFAULT_ERROR_LIMIT: usize = 20;

#[derive(Subcommand)]
pub enum Command {
    /// Every solution of the file's start graph (or of each puzzle), then a summary.
    Solve(SolveArgs),
    /// Parse and type-check a rule file; summarise its nodes, edges and rules.
    Check {
        /// The rule file (`.graft`).
        file: PathBuf,
        /// Treat warnings about the rule file as errors: exit with status 1 when there are any.
        #[arg(long)]
        deny_warnings: bool,
        /// `text`: a line per fact; `json`: one JSON object (`"type":"check"`).
        #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
        format: ReportFormat,
    },
    /// Run the seeds' greedy colouring heuristics and exact search on every puzzle of a
    /// file; print, per heuristic, the share of puzzles solved and the mean time per puzzle.
    Heuristics(HeuristicsArgs),
    /// Print the graph a rule file expands to, as a rule file or as Graphviz DOT.
    Expand {
        /// The rule file (`.graft`).
        file: PathBuf,
        /// `graft`: the expanded graph as a rule file; `dot`: Graphviz DOT.
        #[arg(long, value_enum, default_value_t = ExpandFormat::Graft)]
        format: ExpandFormat,
        /// Print the start graph of a puzzle of this file instead (`-`: standard input):
        /// its layers added, its givens as the start block.
        #[arg(long)]
        puzzles: Option<PathBuf>,
        /// Which puzzle of `--puzzles`, counting from 1 (default 1).
        #[arg(long, requires = "puzzles", value_parser = clap::value_parser!(u64).range(1..))]
        puzzle: Option<u64>,
    },
    /// Draw a rule file as SVG: its board (or its graph) at the start, after a puzzle's
    /// givens, or as a solution; or the state space of a small run, also as DOT or `.aut`.
    #[command(after_help = DRAW_HELP)]
    Draw(DrawArgs),
    /// Open the playground: a local web page where a rule file and puzzles are edited and
    /// run, with diagnostics in the text, the board, each solution, the statistics and the
    /// state space of small runs.
    #[command(after_help = SERVE_HELP)]
    Serve(ServeArgs),
    /// Turn puzzles in another tool's format into rule and puzzle files, with a
    /// `manifest.tsv` saying where each puzzle went.
    Import(ImportArgs),
    /// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
    Completions {
        /// The shell to complete for.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), as `man -l -` reads it.
    Man {
        /// A subcommand whose page to print (`solve` gives grafter-solve(1)).
        subcommand: Option<String>,
    },
}

/// Shown after `grafter draw --help`.
const DRAW_HELP: &str = "\
Examples:
  grafter draw rules/sudoku-4x4-centre.graft > board.svg        the board with its givens
  grafter draw rules/sudoku-4x4-centre.graft --solution 2 > s2.svg
  grafter draw rules/sudoku-9x9.graft --puzzles top95.txt --puzzle 3 > p3.svg
  grafter draw rules/futoshiki-5x5.graft --graph > graph.svg    nodes and edges
  grafter draw rules/latin-4x4.graft --space --max-states 100 > space.svg
  grafter draw rules/sudoku-4x4-centre.graft --space --format aut > space.aut

A state space larger than --max-states is cut there: the picture (or file) holds the first
states found breadth-first, a note on stderr says so, and the exit status is 3.";

#[derive(clap::Args)]
pub struct DrawArgs {
    /// The rule file (`.graft`).
    pub file: PathBuf,
    /// Draw a puzzle of this file (`-`: standard input) instead of the rule file's `start`.
    #[arg(long)]
    pub puzzles: Option<PathBuf>,
    /// Which puzzle of `--puzzles`, counting from 1.
    #[arg(long, requires = "puzzles", value_parser = clap::value_parser!(u64).range(1..))]
    pub puzzle: Option<u64>,
    /// Draw the K-th solution, in the order `grafter solve` prints them, instead of the
    /// start.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u64).range(1..))]
    pub solution: Option<u64>,
    /// Draw the graph, nodes and edges, instead of the board (files without a grid always
    /// draw the graph).
    #[arg(long, conflicts_with = "space")]
    pub graph: bool,
    /// Draw the state space from the start (or the puzzle): states, transitions, the start,
    /// final states and dead ends, on whole graphs as GROOVE explores them.
    #[arg(long, conflicts_with = "solution")]
    pub space: bool,
    /// `svg`: a picture; `dot` (Graphviz) and `aut` (Aldebaran, for CADP and mCRL2): the
    /// state space as text, with `--space`.
    #[arg(long, value_enum, default_value_t = DrawFormat::Svg)]
    pub format: DrawFormat,
    /// With `--space`: `all` (default) is every match of every rule, GROOVE's space;
    /// `focus` branches on one cell at a time where that is sound.
    #[arg(long, value_enum, default_value_t = ExpandArg::All)]
    pub expand: ExpandArg,
    /// With `--space`: the most states recorded (default 200 for a picture, 100000 for
    /// dot and aut).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
}

/// Shown after `grafter serve --help`.
const SERVE_HELP: &str = "\
Examples:
  grafter serve                       the playground at http://127.0.0.1:7070/
  grafter serve --port 0              on a free port (the address is printed on stderr)
  grafter serve --timeout 5 --runs 1  shorter runs, one at a time

Every run goes in a process of its own, under caps that hold whatever the page asks: its
time (--timeout), states (--max-states), solutions (--max-solutions) and memory
(--max-memory), and at most --runs runs at once. A run past a cap stops as a limit stops
`grafter solve`, with what it found; one that does not stop in time is ended.";

#[derive(clap::Args)]
pub struct ServeArgs {
    /// The port to listen on (0: a free one, printed on stderr).
    #[arg(long, default_value_t = 7070)]
    pub port: u16,
    /// The address to listen on. The default serves this machine only; another address
    /// lets others run rule files here (under the same caps).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
    /// The most runs at once; a run asked for beyond them is refused until one ends.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub runs: u32,
    /// The longest a run may take, in seconds (0.1 to 3600); the page may ask for less.
    #[arg(long, default_value_t = 30.0, value_parser = parse_run_timeout)]
    pub timeout: f64,
    /// The most states a run may explore; the page may ask for fewer.
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: u64,
    /// The most solutions a run may list; the page may ask for fewer.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub max_solutions: u64,
    /// The most memory a run's process may hold, such as 512M or 2G (default: 1G, or
    /// less where the machine has less to share among --runs runs).
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// Run one request read from stdin and write its results as JSON lines (what the
    /// server starts for each run; not for use by hand).
    #[arg(long, hide = true)]
    pub worker: bool,
}

/// `grafter serve --timeout SECS`: 0.1 to 3600 seconds.
fn parse_run_timeout(text: &str) -> Result<f64, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| "expected a number of seconds".to_string())?;
    if !(0.1..=3600.0).contains(&secs) {
        return Err("expected a number of seconds from 0.1 to 3600".to_string());
    }
    Ok(secs)
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DrawFormat {
    Svg,
    Dot,
    Aut,
}

/// `grafter import FORMAT IN --out DIR`.
#[derive(clap::Args)]
pub struct ImportArgs {
    /// The input's format.
    #[arg(value_enum)]
    pub format: ImportFormat,
    /// The input file (`-`: standard input).
    pub input: PathBuf,
    /// The folder to write the rule files, puzzle files and `manifest.tsv` into.
    #[arg(long)]
    pub out: PathBuf,
}

/// The formats `grafter import` reads.
#[derive(Clone, Copy, ValueEnum)]
pub enum ImportFormat {
    /// f-puzzles: one puzzle a line (an f-puzzles string, a `?load=` link, or JSON).
    Fpuzzles,
    /// A janko.at dataset file (`{"name", "data": {id: {"problem", ...}}}`), one of its 20
    /// kinds, read from the file's "name" field or else its file name.
    Janko,
}

#[derive(Clone, clap::Args)]
pub struct SolveArgs {
    /// The rule file (`.graft`); with `--fpuzzles`, leave it out.
    #[arg(required_unless_present = "fpuzzles", default_value = "-")]
    pub file: PathBuf,
    /// Solve one f-puzzles puzzle (an f-puzzles string, a `?load=` link, or JSON): it is
    /// imported into a temporary folder and solved with its rule file.
    #[arg(long, value_name = "STRING-OR-LINK", conflicts_with = "puzzles")]
    pub fpuzzles: Option<String>,
    /// One start graph per line of this puzzle file, for the same rules (`-`: standard
    /// input).
    #[arg(long)]
    pub puzzles: Option<PathBuf>,
    /// Print only each puzzle's number of solutions, one line per puzzle (with `--format
    /// json`: its summary object).
    #[arg(long)]
    pub count: bool,
    /// Treat warnings about the rule file as errors: exit with status 1 before solving
    /// when there are any.
    #[arg(long)]
    pub deny_warnings: bool,
    /// `text`: grids and a summary; `json`: one JSON object per line, each with a `type`
    /// (`solution`, `summary`); `svg`: one picture of every solution's board (or graph),
    /// with each puzzle's summary below; `candidates` (`candidates-json`): per cell the
    /// values it takes over all solutions; `fpuzzles`: each solution as an f-puzzles link.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// `linear` follows one path and never backtracks (the greedy heuristics).
    #[arg(long, value_enum, default_value_t = OrderArg::Dfs)]
    pub order: OrderArg,
    /// Which slot each state branches on. `propagate` (default): the fewest candidates,
    /// forced moves applied. The colouring foci place one slot per step: `fewest`
    /// candidates; `dsatur`: most saturated, ties by empty neighbours; `degree`: highest
    /// degree first; `welsh-powell`: one value at a time, by degree; `saturbfs`:
    /// breadth-first from the most saturated; `breadth`, `depth`: walks of the conflict
    /// graph; `position`: slot order.
    #[arg(long, value_enum, default_value_t = FocusArg::Propagate)]
    pub focus: FocusArg,
    /// The order a slot's values are tried (`random` needs a colouring focus).
    #[arg(long, value_enum, default_value_t = ValueArg::Smallest)]
    pub value: ValueArg,
    /// Seed of `--value random`; the same seed gives the same run.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Attempts of a linear run with random values until one reaches a solution.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub restarts: u32,
    /// `focus` branches on one cell at a time where that is sound; `all` is every match
    /// of every rule (GROOVE's semantics).
    #[arg(long, value_enum, default_value_t = ExpandArg::Focus)]
    pub expand: ExpandArg,
    /// Stop each run after this many states.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_states: Option<u64>,
    /// Stop each run after this many solutions.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub max_solutions: Option<u64>,
    /// Stop each run after this many seconds (a decimal number from 0 to one year).
    #[arg(long, value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Stop each run once the process holds this much memory, such as 512M or 2G
    /// (default: 3/4 of the least of physical memory, the cgroup's limit and `ulimit -v`).
    /// Under `ulimit -v` a run also stops once its address space reaches 7/8 of it.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_memory: Option<u64>,
    /// `auto` packs slot-filling grammars into compact states; `graph` always explores
    /// whole host graphs with the general matcher (slower; for comparison).
    #[arg(long, value_enum, default_value_t = EngineArg::Auto)]
    pub engine: EngineArg,
    /// Worker threads (default: every core). Puzzles of a file run side by side; a single
    /// run splits its search tree. Counts and output order do not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub threads: Option<u32>,
    /// Join a run of this many processes, on one machine or several (with --process and
    /// --hostfile; every process runs the same command). Process 0 writes the output.
    #[cfg(feature = "distributed")]
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..), requires_all = ["process", "hostfile"])]
    pub processes: Option<u32>,
    /// This process's number in the run, from 0.
    #[cfg(feature = "distributed")]
    #[arg(long, requires = "processes")]
    pub process: Option<u32>,
    /// The run's addresses, one `host:port` per line: the i-th is process i's.
    #[cfg(feature = "distributed")]
    #[arg(long, value_name = "FILE", requires = "processes")]
    pub hostfile: Option<PathBuf>,
    /// Seconds to wait for the other processes to join (default 60).
    #[cfg(feature = "distributed")]
    #[arg(long, value_name = "SECS", value_parser = parse_timeout, requires = "processes")]
    pub join_timeout: Option<Duration>,
}

/// The longest `--timeout`: one year, far beyond any run and far inside `Duration`.
pub const MAX_TIMEOUT_SECS: f64 = 365.0 * 24.0 * 3600.0;

/// `--timeout SECS`: a finite number of seconds from 0 to one year.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
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
pub struct HeuristicsArgs {
    /// The rule file (`.graft`).
    pub file: PathBuf,
    /// The puzzles, one per line (`-`: standard input).
    #[arg(long)]
    pub puzzles: PathBuf,
    /// Attempts of the randomised heuristics (SaturBFS, BFS, DFS) per puzzle (seed 002's
    /// `max_iter` for easy puzzles).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub restarts: u32,
    /// Seed of the randomised heuristics.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Print the table as Markdown.
    #[arg(long)]
    pub markdown: bool,
    /// `text`: an aligned table (Markdown with `--markdown`); `json`: one JSON object
    /// (`"type":"heuristics"`) with a row per heuristic.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    pub format: ReportFormat,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum FocusArg {
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
pub enum ValueArg {
    Smallest,
    Random,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum EngineArg {
    Auto,
    Graph,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum Format {
    Text,
    Json,
    Svg,
    /// Per cell, the values it takes over all solutions (the true candidates), as a grid.
    Candidates,
    /// The true candidates as one JSON object per puzzle, then its summary.
    CandidatesJson,
    /// Each solution as an f-puzzles link.
    Fpuzzles,
}

/// The output of `check` and `heuristics`: a text report or one JSON object.
#[derive(Clone, Copy, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExpandFormat {
    Graft,
    Dot,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum OrderArg {
    Dfs,
    Bfs,
    Linear,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum ExpandArg {
    Focus,
    All,
}

impl SolveArgs {
    /// The configuration of each run: the options as given, the defaults for the rest;
    /// `interrupt` stops every run.
    pub fn config(&self, interrupt: Option<&'static AtomicBool>) -> Config {
        let args = self;
        Config {
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
            interrupt,
            started: None,
            progress: None,
        }
    }

    /// The worker threads: as given, else every core.
    pub fn threads(&self) -> usize {
        resolve_threads(self.threads.map(|t| t as usize))
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_subcommand_and_argument_is_described() {
        let cli = Cli::command();
        let mut missing = Vec::new();
        for sub in cli.get_subcommands() {
            if sub.get_about().is_none() {
                missing.push(sub.get_name().to_string());
            }
            for arg in sub.get_arguments() {
                if arg.get_help().is_none() {
                    missing.push(format!("{} {}", sub.get_name(), arg.get_id()));
                }
            }
        }
        assert!(missing.is_empty(), "no help text: {missing:?}");
        assert!(cli.get_subcommands().count() >= 6);
    }
}
