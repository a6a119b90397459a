//! The benchmark cases: which rule file, which puzzles, what work, against which reference.

use std::path::PathBuf;

use grafter::{read_puzzles, Grammar, Source};

/// What is asked of each puzzle.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// Solve and prove unique: count solutions up to 2 (`--max-solutions 2`).
    UpToTwo,
    /// Count every solution.
    CountAll,
    /// `--expand all`: every state of the space, counted.
    ExpandAll,
}

/// The unit a case's speed is reported in.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    MicrosPerPuzzle,
    SolutionsPerSec,
    StatesPerSec,
}

/// What grafter is compared with.
#[derive(Clone, Copy, PartialEq)]
pub enum Reference {
    /// Dancing links over the exact cover matrix of the grammar's groups, run here.
    Dlx,
    /// grafter's own general engine (whole host graphs, general matcher), run here.
    GraphEngine,
    /// A figure published elsewhere, not run here: (what, states per second).
    Published(&'static str, f64),
}

/// Where a case's puzzles come from.
pub enum Puzzles {
    /// A puzzle file: `tests/data/REL` when the repository has it, else `REL` under
    /// [`data_dir`].
    File(&'static str),
    /// One puzzle line, as in a puzzle file.
    Line(&'static str),
}

pub struct Case {
    pub name: &'static str,
    /// A file in `rules/`.
    pub rules: &'static str,
    pub puzzles: Puzzles,
    pub work: Work,
    pub metric: Metric,
    pub reference: Reference,
    /// Every puzzle's solution count where the data says it without a number per line.
    pub each: Option<u64>,
    /// The state count the data's README gives for `--expand all` cases.
    pub states: Option<u64>,
    /// Takes a minute or more; left out of `--quick`.
    pub slow: bool,
    /// The figures DESIGN.md gives for this work, measured elsewhere on these machines.
    pub anchor: &'static str,
}

const GROOVE: Reference = Reference::Published("GROOVE, published: 72,837 states in 26 s", 2_800.0);

pub const CASES: &[Case] = &[
    Case {
        name: "17clue",
        rules: "sudoku-9x9.graft",
        puzzles: Puzzles::File("sudoku9/17clue.txt"),
        work: Work::UpToTwo,
        metric: Metric::MicrosPerPuzzle,
        reference: Reference::Dlx,
        each: Some(1),
        states: None,
        slow: false,
        anchor: "DLX ~1 ms/puzzle; dedicated solvers 3.4–5 µs/puzzle",
    },
    Case {
        name: "top95",
        rules: "sudoku-9x9.graft",
        puzzles: Puzzles::File("sudoku9/top95.txt"),
        work: Work::UpToTwo,
        metric: Metric::MicrosPerPuzzle,
        reference: Reference::Dlx,
        each: Some(1),
        states: None,
        slow: false,
        anchor: "",
    },
    Case {
        name: "hard375",
        rules: "sudoku-9x9.graft",
        puzzles: Puzzles::File("sudoku9/hard375.txt"),
        work: Work::UpToTwo,
        metric: Metric::MicrosPerPuzzle,
        reference: Reference::Dlx,
        each: Some(1),
        states: None,
        slow: false,
        anchor: "",
    },
    Case {
        name: "multi",
        rules: "sudoku-9x9.graft",
        puzzles: Puzzles::File("sudoku9/multi.txt"),
        work: Work::CountAll,
        metric: Metric::SolutionsPerSec,
        reference: Reference::Dlx,
        each: None,
        states: None,
        slow: false,
        anchor: "the 477,462 puzzle: DLX 2.5 s; dedicated solvers 0.15 s",
    },
    Case {
        name: "6x6-empty",
        rules: "sudoku-6x6.graft",
        puzzles: Puzzles::Line("...................................."),
        work: Work::CountAll,
        metric: Metric::SolutionsPerSec,
        reference: Reference::Dlx,
        each: Some(28_200_960),
        states: None,
        slow: true,
        anchor: "DLX 69 s; clingo 257 s",
    },
    Case {
        name: "16x16",
        rules: "sudoku-16x16.graft",
        puzzles: Puzzles::File("variants/16x16.txt"),
        work: Work::CountAll,
        metric: Metric::MicrosPerPuzzle,
        reference: Reference::Dlx,
        each: None,
        states: None,
        slow: false,
        anchor: "",
    },
    Case {
        name: "jigsaw",
        rules: "jigsaw-9x9.graft",
        puzzles: Puzzles::File("variants/9x9-jigsaw.txt"),
        work: Work::CountAll,
        metric: Metric::MicrosPerPuzzle,
        reference: Reference::Dlx,
        each: None,
        states: None,
        slow: false,
        anchor: "",
    },
    Case {
        name: "4x4-all",
        rules: "sudoku-4x4.graft",
        puzzles: Puzzles::Line("................"),
        work: Work::ExpandAll,
        metric: Metric::StatesPerSec,
        reference: GROOVE,
        each: Some(288),
        states: Some(61_556_225),
        slow: true,
        anchor: "GROOVE: not finished after 7 min at 13 GB",
    },
    Case {
        name: "4x4-centre-all",
        rules: "sudoku-4x4-centre.graft",
        puzzles: Puzzles::Line("..3...1....3...1"),
        work: Work::ExpandAll,
        metric: Metric::StatesPerSec,
        reference: Reference::GraphEngine,
        each: Some(4),
        states: Some(72_837),
        slow: false,
        anchor: "GROOVE: 26 s, 2.5–3.4 GB",
    },
];

pub fn find(name: &str) -> Option<&'static Case> {
    CASES.iter().find(|c| c.name == name)
}

impl Case {
    /// What the case does, for the table.
    pub fn describe(&self) -> String {
        let what = match &self.puzzles {
            Puzzles::File(f) => f.to_string(),
            Puzzles::Line(l) if l.chars().all(|c| c == '.') => "empty grid".to_string(),
            Puzzles::Line(l) => format!("`{l}`"),
        };
        let work = match self.work {
            Work::UpToTwo => "count to 2",
            Work::CountAll => "count all",
            Work::ExpandAll => "expand all",
        };
        format!("{} {what}, {work}", self.rules.trim_end_matches(".graft"))
    }

    pub fn load_grammar(&self) -> Grammar {
        let path = crate_dir().join("rules").join(self.rules);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        grafter::load_str(self.rules, &text)
            .unwrap_or_else(|ds| panic!("{} does not check: {ds:?}", self.rules))
    }

    /// The first `first` puzzles (all when `None`), read with grafter's own puzzle reader.
    pub fn load_puzzles(&self, grammar: &Grammar, first: Option<usize>) -> PuzzleSet {
        let text = match &self.puzzles {
            Puzzles::File(f) => {
                let copy = crate_dir().join("tests/data").join(f);
                let path = if copy.is_file() {
                    copy
                } else {
                    data_dir().join(f)
                };
                std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            }
            Puzzles::Line(l) => l.to_string(),
        };
        let limit = first.unwrap_or(usize::MAX);
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
            .take(limit)
            .collect();
        let cells = grammar.grid.as_ref().map_or(0, |g| g.len());
        let mut set = PuzzleSet {
            cells,
            values: Vec::with_capacity(lines.len() * cells),
            expected: Vec::with_capacity(lines.len()),
        };
        // Read in chunks so the parsed givens (with their spans) never all sit in memory.
        for chunk in lines.chunks(256) {
            let source = Source::new(self.name, chunk.join("\n"));
            let puzzles = read_puzzles(grammar, &source).unwrap_or_else(|ds| {
                panic!("{}: bad puzzle line: {}", self.name, source.render(&ds[0]))
            });
            assert_eq!(
                puzzles.len(),
                chunk.len(),
                "{}: a line was not read as a puzzle",
                self.name
            );
            for (p, line) in puzzles.iter().zip(chunk) {
                set.values.extend(
                    p.givens
                        .values
                        .iter()
                        .map(|v| v.map_or(0, |x| u8::try_from(x + 1).expect("at most 254 values"))),
                );
                let stated = line.split_whitespace().nth(1).and_then(|w| w.parse().ok());
                set.expected.push(stated.or(self.each));
            }
        }
        set
    }
}

/// Puzzles packed one byte per cell (0 empty, else value index + 1), with the solution
/// count each line states (or the case's `each`).
pub struct PuzzleSet {
    pub cells: usize,
    values: Vec<u8>,
    pub expected: Vec<Option<u64>>,
}

impl PuzzleSet {
    pub fn len(&self) -> usize {
        self.expected.len()
    }

    /// Writes puzzle `i`'s givens into `out`, one entry per grid cell.
    pub fn givens_into(&self, i: usize, out: &mut Vec<Option<u16>>) {
        out.clear();
        let row = &self.values[i * self.cells..(i + 1) * self.cells];
        out.extend(row.iter().map(|&b| b.checked_sub(1).map(u16::from)));
    }
}

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The larger puzzle collection for files the repository does not carry (the 17-clue list):
/// `../shared/data` beside the crate, or `GRAFTER_DATA` when set.
pub fn data_dir() -> PathBuf {
    std::env::var_os("GRAFTER_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate_dir().join("../shared/data"))
}
