//! What a playground run may do: the server's caps, what the page asks for, and the job a
//! worker runs — the request with every limit set and none past a cap, whatever it asked.

use serde::{Deserialize, Serialize};

use crate::args::ServeArgs;

/// The largest request body read: a rule file and its puzzles, with room to spare.
pub const MAX_REQUEST_BYTES: usize = 1 << 20;
/// States of a state-space picture at most (as `grafter draw --space` draws by default).
pub const MAX_SPACE_STATES: u64 = 200;
/// Solutions drawn as boards at most; later ones come as grids only.
pub const MAX_BOARDS: usize = 60;
/// Memory a run may hold when `--max-memory` is not given and the machine has more.
const DEFAULT_MEMORY: u64 = 1 << 30;

/// The server's caps on every run, whatever the page asks. Sent to the page as they are,
/// so its fields show them.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Caps {
    /// Runs going at once at most.
    pub runs: usize,
    /// Seconds a run may take.
    pub timeout: f64,
    pub max_states: u64,
    pub max_solutions: u64,
    /// Bytes a run's process may hold.
    pub max_memory: u64,
    /// Bytes of a request's body.
    pub request_bytes: usize,
    /// States of the state-space picture.
    pub space_states: u64,
    /// Solutions drawn as boards.
    pub boards: usize,
}

impl Caps {
    /// The caps `grafter serve` was started with. Without `--max-memory`, a run may hold
    /// 1 GiB, or its share of what the machine allows when that is less.
    pub fn from_args(args: &ServeArgs) -> Caps {
        let runs = args.runs as usize;
        let share = grafter::default_max_memory().map(|m| m / runs as u64);
        Caps {
            runs,
            timeout: args.timeout,
            max_states: args.max_states,
            max_solutions: args.max_solutions,
            max_memory: args
                .max_memory
                .unwrap_or_else(|| share.map_or(DEFAULT_MEMORY, |s| s.min(DEFAULT_MEMORY))),
            request_bytes: MAX_REQUEST_BYTES,
            space_states: MAX_SPACE_STATES,
            boards: MAX_BOARDS,
        }
    }

    /// The job for `request`: each limit as asked where it is within its cap, the cap
    /// where it is missing or past it.
    pub fn job(&self, request: RunRequest) -> Job {
        let timeout = request
            .timeout
            .filter(|t| t.is_finite() && *t > 0.0)
            .map_or(self.timeout, |t| t.min(self.timeout));
        let space = request.space.unwrap_or(true);
        Job {
            rules: request.rules,
            puzzles: request.puzzles,
            puzzle: request.puzzle.unwrap_or(1).max(1),
            expand_all: request.expand == Some(ExpandName::All),
            max_states: clamp(request.max_states, self.max_states),
            max_solutions: clamp(request.max_solutions, self.max_solutions),
            timeout,
            max_memory: self.max_memory,
            space_states: if space {
                clamp(request.space_states, self.space_states)
            } else {
                0
            },
            boards: self.boards,
        }
    }
}

/// `asked` within 1..=`cap`; `cap` when not asked.
fn clamp(asked: Option<u64>, cap: u64) -> u64 {
    asked.map_or(cap, |n| n.clamp(1, cap))
}

/// `--expand` as the page names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExpandName {
    Focus,
    All,
}

/// What the page asks for (the body of `POST /api/runs`). Only `rules` is needed; a
/// missing limit is the cap, a limit past its cap is the cap.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunRequest {
    /// The rule file's text.
    pub rules: String,
    /// Puzzle lines; blank: the rule file's `start`.
    #[serde(default)]
    pub puzzles: String,
    /// Which puzzle to solve, from 1.
    pub puzzle: Option<usize>,
    pub expand: Option<ExpandName>,
    pub max_states: Option<u64>,
    pub max_solutions: Option<u64>,
    /// Seconds.
    pub timeout: Option<f64>,
    /// Draw the state space (default: yes).
    pub space: Option<bool>,
    /// States of the state-space picture at most.
    pub space_states: Option<u64>,
}

/// One run as a worker does it, handed to it on its stdin as one JSON line.
#[derive(Debug, Serialize, Deserialize)]
pub struct Job {
    pub rules: String,
    pub puzzles: String,
    /// From 1; used when `puzzles` holds any.
    pub puzzle: usize,
    /// `--expand all` rather than `focus`.
    pub expand_all: bool,
    pub max_states: u64,
    pub max_solutions: u64,
    /// Seconds, counted from the worker's start.
    pub timeout: f64,
    /// Bytes the worker's process may hold.
    pub max_memory: u64,
    /// States of the state-space picture; 0: no picture.
    pub space_states: u64,
    /// Solutions drawn as boards.
    pub boards: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps() -> Caps {
        Caps {
            runs: 2,
            timeout: 30.0,
            max_states: 1000,
            max_solutions: 10,
            max_memory: 1 << 28,
            request_bytes: MAX_REQUEST_BYTES,
            space_states: 200,
            boards: 60,
        }
    }

    fn request(json: &str) -> RunRequest {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn limits_past_a_cap_are_the_cap() {
        let job = caps().job(request(
            r#"{"rules":"r","max_states":1000000,"max_solutions":0,"timeout":1e300,"space_states":5000}"#,
        ));
        assert_eq!(job.max_states, 1000);
        assert_eq!(job.max_solutions, 1);
        assert_eq!(job.timeout, 30.0);
        assert_eq!(job.space_states, 200);
        assert_eq!(job.max_memory, 1 << 28);
    }

    #[test]
    fn limits_within_a_cap_are_kept_and_missing_ones_are_the_cap() {
        let job = caps().job(request(
            r#"{"rules":"r","puzzles":"1.","puzzle":3,"expand":"all","max_solutions":4,"timeout":2.5,"space":false}"#,
        ));
        assert_eq!(
            (job.max_states, job.max_solutions, job.timeout),
            (1000, 4, 2.5)
        );
        assert_eq!((job.puzzle, job.expand_all, job.space_states), (3, true, 0));
        for bad in ["-1", "0", "NaN"] {
            let json = format!(r#"{{"rules":"r","timeout":{bad}}}"#);
            // NaN is not JSON: refused before it gets here.
            if let Ok(r) = serde_json::from_str::<RunRequest>(&json) {
                assert_eq!(caps().job(r).timeout, 30.0, "{bad}");
            }
        }
    }

    #[test]
    fn unknown_fields_and_a_missing_rule_file_are_refused() {
        assert!(serde_json::from_str::<RunRequest>(r#"{"rules":"r","threads":64}"#).is_err());
        assert!(serde_json::from_str::<RunRequest>(r#"{"puzzles":""}"#).is_err());
    }
}
