//! Limits that always hold: runs that once outgrew their limits (every successor of a
//! state built before any was merged, an unbounded frontier, no memory limit) stop within
//! their bound with the reason in the summary, exit status 3 and bounded memory; and a
//! timeout holds on every engine and path.

use std::time::Duration;

use super::support::{fixture, parse_results, rule, temp_path, Json};
use super::watch::{watched, Watch, Watched};

/// Runs `grafter solve FILE ARGS...`, killed if it overstays a minute.
fn solve(file: &std::path::Path, args: &[&str]) -> Watched {
    let mut all = vec!["solve".to_string(), file.to_string_lossy().into_owned()];
    all.extend(args.iter().map(|a| a.to_string()));
    watched(
        all,
        &Watch {
            deadline: Duration::from_secs(60),
            signal: None,
            read_stdout: None,
        },
    )
}

/// A reproducer in `tests/fixtures/limits/`.
fn reproducer(name: &str) -> std::path::PathBuf {
    fixture(&format!("limits/{name}.graft"))
}

/// The `stop` and `states` of a JSON run's last summary.
fn json_stop(w: &Watched) -> (String, u64) {
    let puzzles =
        parse_results(&w.run.stdout).unwrap_or_else(|e| panic!("{}: {e}", w.run.args.join(" ")));
    let last = puzzles.last().expect("a summary");
    let stop = last.summary.get("stop").and_then(Json::as_str);
    (stop.unwrap_or("none").to_string(), last.stat("states"))
}

/// Asserts a text run's summary says it stopped for `flag` (`--max-states`, ...).
fn text_stops_for(w: &Watched, flag: &str) {
    let line = w
        .run
        .stdout
        .lines()
        .find(|l| l.starts_with("complete: "))
        .unwrap_or_else(|| panic!("no summary in {:?}", w.run.stdout));
    assert!(
        line.starts_with("complete: no, ") && line.ends_with(&format!("({flag})")),
        "{}: {line}",
        w.run.args.join(" ")
    );
}

/// The seconds after which a run says it stopped, from its stderr (`... after S s
/// (--timeout)`).
fn reported_seconds(w: &Watched) -> f64 {
    let line = w
        .run
        .stderr
        .lines()
        .find(|l| l.contains("(--timeout)"))
        .unwrap_or_else(|| panic!("{}: no timeout in {:?}", w.run.args.join(" "), w.run.stderr));
    let after = line.split("after ").nth(1).expect("after S s");
    after.split(' ').next().unwrap().parse().expect("seconds")
}

/// How late a timeout may be reported on a loaded machine, and how long the process may
/// take beyond it to load, print and exit.
const LATE: f64 = 2.0;
const EXIT: Duration = Duration::from_secs(15);

/// Asserts a `--timeout SECS` run stopped on time, for that reason, with exit status 3
/// and at most `max_mib` MiB at its peak.
fn stops_on_time(w: &Watched, secs: f64, max_mib: u64) {
    w.expect(3, max_mib);
    let reported = reported_seconds(w);
    assert!(
        reported >= secs && reported <= secs + LATE,
        "{}: stopped after {reported} s",
        w.run.args.join(" ")
    );
    assert!(
        w.elapsed <= Duration::from_secs_f64(secs) + EXIT,
        "{}: ended after {:?}",
        w.run.args.join(" "),
        w.elapsed
    );
}

#[test]
fn four_node_rules_stop_after_two_states() {
    for name in ["four-nodes-9x9", "four-nodes-distinct-9x9"] {
        let file = reproducer(name);
        let w = solve(&file, &["--max-states", "2"]);
        w.expect(3, 64);
        text_stops_for(&w, "--max-states");
        assert!(
            w.elapsed < Duration::from_secs(10),
            "{name}: {:?}",
            w.elapsed
        );
        let w = solve(&file, &["--max-states", "2", "--format", "json"]);
        w.expect(3, 64);
        assert_eq!(json_stop(&w), ("max-states".to_string(), 2), "{name}");
    }
}

#[test]
fn a_state_limit_bounds_the_frontier() {
    // Each state has 144 new successors: without a bound the frontier would hold 1.4
    // million graphs after 10,000 states.
    let w = solve(
        &reproducer("rows-12x12"),
        &["--max-states", "10000", "--format", "json"],
    );
    w.expect(3, 400);
    assert_eq!(json_stop(&w), ("max-states".to_string(), 10000));
    let w = solve(
        &reproducer("rows-12x12"),
        &["--max-states", "1000", "--order", "bfs"],
    );
    w.expect(3, 200);
    text_stops_for(&w, "--max-states");
}

#[test]
fn reproducers_stop_at_their_timeout() {
    for name in ["four-nodes-9x9", "four-nodes-distinct-9x9", "rows-12x12"] {
        for format in ["text", "json"] {
            let w = solve(
                &reproducer(name),
                &["--timeout", "1", "--count", "--format", format],
            );
            stops_on_time(&w, 1.0, 3072);
        }
    }
}

#[test]
fn reproducers_stop_at_their_memory_limit() {
    for name in ["four-nodes-9x9", "four-nodes-distinct-9x9", "rows-12x12"] {
        let w = solve(&reproducer(name), &["--max-memory", "200M"]);
        // The resident set is read every few thousand states or successors: it may pass
        // the limit by what they take.
        w.expect(3, 300);
        text_stops_for(&w, "--max-memory");
        let w = solve(
            &reproducer(name),
            &["--max-memory", "200M", "--format", "json"],
        );
        w.expect(3, 300);
        assert_eq!(json_stop(&w).0, "memory", "{name}");
    }
}

#[test]
fn a_bad_memory_size_is_a_usage_error() {
    for bad in ["", "12X", "-1G", "0", "nan"] {
        let w = solve(&rule("sudoku-4x4"), &[&format!("--max-memory={bad}")]);
        w.expect(2, 64);
        assert!(
            w.run.stderr.contains("--max-memory"),
            "{bad:?}: {}",
            w.run.stderr
        );
    }
    let w = solve(&rule("sudoku-4x4"), &["--max-memory", "1G"]);
    w.expect(0, 64);
}

/// A one-second timeout on every engine and path: slot and graph engines, focus and
/// full expansion, every order, one or two threads, one run or many side by side.
#[test]
fn a_timeout_holds_on_every_engine_and_path() {
    let empty_6x6 = fixture("puzzles/empty-6x6.txt");
    let empty_4x4 = fixture("puzzles/empty-4x4.txt");
    let many_6x6 = temp_path("many-empty-6x6", "txt");
    std::fs::write(&many_6x6, format!("{}\n", ".".repeat(36)).repeat(8)).expect("a puzzle file");
    let (e6, e4, m6) = (
        empty_6x6.to_str().unwrap(),
        empty_4x4.to_str().unwrap(),
        many_6x6.to_str().unwrap(),
    );
    let sudoku_4x4 = rule("sudoku-4x4");
    let sudoku_6x6 = rule("sudoku-6x6");
    let four = reproducer("four-nodes-distinct-9x9");
    let rows = reproducer("rows-12x12");
    #[rustfmt::skip]
    let cases: Vec<(&std::path::Path, Vec<&str>)> = vec![
        // Slot engine: focus (depth-first, breadth-first, two threads), full expansion.
        (&sudoku_6x6, vec!["--puzzles", e6, "--count", "--threads", "1"]),
        (&sudoku_6x6, vec!["--puzzles", e6, "--count", "--threads", "2"]),
        (&sudoku_6x6, vec!["--puzzles", e6, "--format", "json", "--threads", "2"]),
        (&sudoku_6x6, vec!["--puzzles", e6, "--count", "--order", "bfs"]),
        (&sudoku_4x4, vec!["--puzzles", e4, "--count", "--expand", "all"]),
        (&sudoku_4x4, vec!["--puzzles", e4, "--count", "--expand", "all", "--order", "bfs"]),
        // Graph engine: focus, full expansion, each order.
        (&sudoku_6x6, vec!["--puzzles", e6, "--count", "--engine", "graph"]),
        (&sudoku_6x6, vec!["--puzzles", e6, "--count", "--engine", "graph", "--threads", "2"]),
        (&sudoku_4x4, vec!["--puzzles", e4, "--count", "--engine", "graph", "--expand", "all"]),
        (&sudoku_4x4, vec!["--puzzles", e4, "--count", "--engine", "graph", "--expand", "all", "--order", "bfs"]),
        (&four, vec!["--count", "--order", "linear"]),
        (&rows, vec!["--count", "--order", "bfs"]),
    ];
    for (file, args) in &cases {
        let mut args = args.clone();
        args.extend(["--timeout", "1"]);
        let w = solve(file, &args);
        stops_on_time(&w, 1.0, 2048);
    }
    // Many runs side by side on two threads: each run has its own second.
    let w = solve(
        &sudoku_6x6,
        &[
            "--puzzles",
            m6,
            "--count",
            "--threads",
            "2",
            "--timeout",
            "1",
        ],
    );
    w.expect(3, 2048);
    assert_eq!(w.run.stdout.lines().count(), 8);
    assert_eq!(w.run.stderr.matches("(--timeout)").count(), 8);
    assert!(
        w.elapsed <= Duration::from_secs(4) + EXIT,
        "{:?}",
        w.elapsed
    );
}

/// The exit status of the shell of [`under_address_limit`] that could not set the limit.
const NO_LIMIT: i32 = 97;

/// Runs `grafter ARGS...` under `ulimit -v KIB` (a shell sets it, then becomes grafter),
/// with the allocator's own settings as built; `None` where there is no `sh` or it cannot
/// set that limit.
fn under_address_limit(kib: u64, args: &[&str]) -> Option<super::support::Run> {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} || exit {NO_LIMIT}; exec \"$0\" \"$@\""
        ))
        .arg(super::support::BIN)
        .args(args)
        .current_dir(super::support::root())
        .env_remove("MIMALLOC_ARENA_RESERVE")
        .output()
        .ok()
        .filter(|out| out.status.code() != Some(NO_LIMIT))?;
    let args = args.iter().map(|a| a.to_string()).collect();
    Some(super::support::Run::of(args, out))
}

/// The address-space stop (seven eighths of `ulimit -v`) reads what the process uses:
/// a small run under a limit just above a gibibyte finishes (an allocator reserving a
/// gibibyte of address space at its first allocation, as mimalloc does by default, made
/// it stop at once), and a run that outgrows a limit stops with reason `memory`, exit 3,
/// after the states the limit has room for, rather than aborting on a refused
/// allocation, and says which limit stopped it; one stopped by the default `--max-memory`
/// says where that default came from.
#[test]
fn an_address_space_limit_stops_at_what_is_used() {
    let centre = rule("sudoku-4x4-centre");
    let centre = centre.to_string_lossy();
    let Some(small) = under_address_limit(1_150_000, &["solve", &centre, "--format", "json"])
    else {
        eprintln!("skipped: no `sh` that can set ulimit -v 1150000");
        return;
    };
    small.expect_code(0);
    let summary = parse_results(&small.stdout).expect("JSON lines");
    assert_eq!(summary[0].summary.get("stop"), Some(&Json::Null));
    assert_eq!(summary[0].stat("solutions"), 4);

    // An empty 9x9, breadth-first, under a limit it outgrows, with `extra` options.
    let (empty, sudoku) = (fixture("puzzles/empty-9x9.txt"), rule("sudoku-9x9"));
    let (empty, sudoku) = (empty.to_string_lossy(), sudoku.to_string_lossy());
    let outgrown = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            &sudoku,
            "--puzzles",
            &empty,
            "--order",
            "bfs",
            "--count",
        ];
        args.extend_from_slice(extra);
        under_address_limit(400_000, &args).expect("a lower limit than the one set before")
    };
    // Past what the limit allows: the address-space stop, not this one, ends it.
    let big = outgrown(&["--format", "json", "--max-memory", "100G"]);
    big.expect_code(3);
    let summary = parse_results(&big.stdout).expect("JSON lines");
    let stop = summary[0].summary.get("stop").and_then(Json::as_str);
    assert_eq!(stop, Some("memory"), "{}", big.stdout);
    // About 90,000 states fit in 350 MiB; a stop on reserved space would come far sooner.
    assert!(summary[0].stat("states") > 20_000, "{}", big.stdout);
    // The message names the limit that stopped it, not `--max-memory`, which cannot move it.
    let said = big.stderr.lines().find(|l| l.contains("stopped at"));
    let said = said.unwrap_or_else(|| panic!("no stop message in {:?}", big.stderr));
    assert!(
        said.ends_with("of address space, near its limit of 390 MiB (ulimit -v)"),
        "{said}"
    );
    assert!(
        !big.stderr.contains("note: the memory limit"),
        "{}",
        big.stderr
    );

    // Without `--max-memory`, its default (3/4 of the least of physical memory, the
    // control group's limit and `ulimit -v`) comes first, and the end says so.
    let default = outgrown(&[]);
    default.expect_code(3);
    let note = default
        .stderr
        .lines()
        .find(|l| l.starts_with("note: the memory limit was "));
    let note = note.unwrap_or_else(|| panic!("no note in {:?}", default.stderr));
    assert!(
        note.contains(", 3/4 of ")
            && note.ends_with(", as --max-memory was not given; --max-memory SIZE sets another"),
        "{note}"
    );
}
