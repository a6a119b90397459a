//! Which slot a state branches on and in which order its values are tried: the exact
//! default (fewest candidates, forced moves applied) and the greedy colouring heuristics of
//! the seeds (DSatur, fewest options first, SaturBFS, Welsh–Powell, ...), as choices of one
//! explorer rather than separate solvers.
//!
//! A colouring focus branches on one slot per state and places nothing else (no forced
//! moves: the seeds' heuristics colour one vertex per step). Under `--order dfs` or `bfs` it
//! is still an exact search (backtracking DSatur is Brélaz's exact algorithm); under
//! `--order linear` it follows the first successor only, which is the seeds' greedy run.

/// Which empty slot a state branches on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Focus {
    /// The slot with the fewest candidates, or the places of a value in an exactly-once
    /// group when they are fewer, with forced moves applied. The default.
    #[default]
    Propagate,
    /// The slot with the fewest candidates; ties by position (seed 001).
    Fewest,
    /// The most saturated slot (the most distinct values among its placed neighbours);
    /// ties by the number of empty neighbours, then by position (seeds 000, 004).
    Dsatur,
    /// Slots by degree in the conflict graph, highest first; ties by position.
    Degree,
    /// One value at a time, in domain order: the first slot by degree (highest first) that
    /// can still take the smallest value any empty slot can take (seed 004).
    WelshPowell,
    /// Breadth-first from the most saturated slot: the current slot's empty neighbours,
    /// most saturated first, then the next slot in the queue (seed 002).
    SaturBfs,
    /// Breadth-first walk of the conflict graph from the first empty slot, neighbours in
    /// slot order (seed 002's plain BFS).
    ///
    /// Why a greedy walk and not grafter's exact `--order bfs`: seed 002 runs its BFS and
    /// DFS like SaturBFS — "due to the random behaviour of the algorithms" each makes up to
    /// `max_iter` attempts — and reports them failing most puzzles above 6x6, which an
    /// exact search never does. So they colour in walk order with random values and
    /// restart, exactly as SaturBFS does without its saturation.
    Breadth,
    /// Depth-first walk of the conflict graph from the first empty slot, neighbours in
    /// slot order (seed 002's DFS).
    Depth,
    /// The first empty slot, in slot order (row-major for a grid).
    Position,
}

impl Focus {
    /// The name `--focus` takes.
    pub fn name(self) -> &'static str {
        match self {
            Focus::Propagate => "propagate",
            Focus::Fewest => "fewest",
            Focus::Dsatur => "dsatur",
            Focus::Degree => "degree",
            Focus::WelshPowell => "welsh-powell",
            Focus::SaturBfs => "saturbfs",
            Focus::Breadth => "breadth",
            Focus::Depth => "depth",
            Focus::Position => "position",
        }
    }

    /// True for the colouring foci, which place one slot per state and need the conflict
    /// graph.
    pub fn is_colouring(self) -> bool {
        self != Focus::Propagate
    }

    /// True for the foci that follow a walk of the conflict graph, so a state must
    /// remember the order its slots were placed in.
    pub fn walks(self) -> bool {
        matches!(self, Focus::SaturBfs | Focus::Breadth | Focus::Depth)
    }
}

/// The order a focus slot's values are tried in (under `--order linear`, the one placed).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ValueOrder {
    /// Increasing domain order. The default.
    #[default]
    Smallest,
    /// A random permutation, drawn from the state's seed (seed 002's random colour).
    Random,
}

impl ValueOrder {
    /// The name `--value` takes.
    pub fn name(self) -> &'static str {
        match self {
            ValueOrder::Smallest => "smallest",
            ValueOrder::Random => "random",
        }
    }
}

/// The focus, value order and restarts of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    /// Default: `propagate`.
    pub focus: Focus,
    /// Default: `smallest`. `random` needs a colouring focus.
    pub value: ValueOrder,
    /// Seeds the random value order; the same seed gives the same run. Default: 0.
    pub seed: u64,
    /// Attempts of a linear run with random values, each with a fresh seed drawn from
    /// `seed`, until one reaches a final state (seed 002's `max_iter`). Runs that cannot
    /// differ from one attempt to the next make one. Default: 1; range 1.. (0 counts as 1).
    pub restarts: u32,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            focus: Focus::Propagate,
            value: ValueOrder::Smallest,
            seed: 0,
            restarts: 1,
        }
    }
}

/// The seed of attempt `attempt` of a run seeded with `seed`: splitmix64 over both, so
/// that nearby seeds and attempts give unrelated streams.
pub fn attempt_seed(seed: u64, attempt: u32) -> u64 {
    mix(mix(seed) ^ u64::from(attempt))
}

/// The splitmix64 step: a bijection on `u64` whose outputs pass as independent random
/// numbers for consecutive inputs.
pub fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
