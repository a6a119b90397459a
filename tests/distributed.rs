//! Distributed runs (the `distributed` feature): three processes of the binary on
//! 127.0.0.1 against one process on one machine, for each way a run is spread, and a
//! run that loses a process or never gets one.
//!
//! A test binary of its own, so that a build with the feature compiles only these beside
//! the library (the spreads' unit tests run in the default build, see
//! `src/distributed/tests.rs`).

use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

// The integration binary's helpers, of which these tests use a few.
#[allow(dead_code)]
#[path = "integration/support.rs"]
mod support;

use support::{data, fixture, grafter, root, rule, Run, BIN};

/// Longer than any run here takes on a loaded machine: past it the processes are killed
/// and the test fails.
const KILL_AFTER: Duration = Duration::from_secs(240);

/// The exit status of a run that lost a process.
const LOST: i32 = 4;

/// A scratch folder of this test process, each call its own: tests run side by side, and
/// two runs must not share a host file.
fn scratch(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let k = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("grafter-dist-{}-{name}-{k}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// A host file of `n` addresses on 127.0.0.1 at ports free a moment ago (bound to port
/// 0 and released).
fn hostfile(dir: &Path, n: usize) -> PathBuf {
    let listeners: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("{}\n", l.local_addr().expect("an address")))
        .collect();
    let path = dir.join("hosts.txt");
    std::fs::write(&path, text).expect("the host file is written");
    path
}

fn spawn(args: &[String], hosts: &Path, n: usize, i: usize) -> Started {
    let child = Command::new(BIN)
        .current_dir(root())
        .args(args)
        .args(["--processes", &n.to_string(), "--process", &i.to_string()])
        .arg("--hostfile")
        .arg(hosts)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the grafter binary starts");
    started(child)
}

/// Reads all of `from` on a thread of its own, so that a child never waits on a full pipe.
fn drain(from: impl Read + Send + 'static) -> JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut from = from;
        let _ = from.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// A started process with its output being read.
struct Started {
    child: Child,
    stdout: JoinHandle<String>,
    stderr: JoinHandle<String>,
}

fn started(mut child: Child) -> Started {
    let stdout = drain(child.stdout.take().expect("piped stdout"));
    let stderr = drain(child.stderr.take().expect("piped stderr"));
    Started {
        child,
        stdout,
        stderr,
    }
}

/// Waits for the process until `deadline`, killing it then; its run (code -1 when
/// killed).
fn finish(p: Started, args: &[String], deadline: Instant) -> Run {
    let Started {
        mut child,
        stdout,
        stderr,
    } = p;
    while child
        .try_wait()
        .expect("the child can be waited for")
        .is_none()
    {
        if Instant::now() >= deadline {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().expect("the child ends");
    Run {
        args: args.to_vec(),
        code: status.code().unwrap_or(-1),
        stdout: stdout.join().expect("stdout read"),
        stderr: stderr.join().expect("stderr read"),
    }
}

/// `grafter ARGS` as a run of `n` processes; each process's run, process 0 first.
fn cluster(n: usize, args: &[String]) -> Vec<Run> {
    let dir = scratch("hosts");
    for _ in 1..PORT_TRIES {
        let runs = cluster_once(n, args, &dir);
        if !runs.iter().any(port_taken) {
            return runs;
        }
    }
    cluster_once(n, args, &dir)
}

/// How many times a run is started on fresh ports when one of its ports was taken.
const PORT_TRIES: usize = 5;

/// True when the run could not listen because its port was taken in the moment between
/// the host file's writing and the process's start (by another test's connections).
fn port_taken(run: &Run) -> bool {
    run.stderr.contains("cannot listen") && run.stderr.contains("Address already in use")
}

fn cluster_once(n: usize, args: &[String], dir: &Path) -> Vec<Run> {
    let hosts = hostfile(dir, n);
    let children: Vec<Started> = (0..n).map(|i| spawn(args, &hosts, n, i)).collect();
    let deadline = Instant::now() + KILL_AFTER;
    children
        .into_iter()
        .map(|c| finish(c, args, deadline))
        .collect()
}

/// The output with what differs from run to run left out: the summary's time and the
/// JSON summary's seconds.
fn steady(out: &str) -> String {
    out.lines()
        .filter(|l| !l.starts_with("expand: "))
        .map(|l| match l.find(",\"seconds\":") {
            Some(at) => &l[..at],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Three processes print exactly what one process prints, and every process exits as
/// it does; the others print nothing.
fn same_as_one_machine(args: &[&str]) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let one = grafter(&args);
    let runs = cluster(3, &args);
    for (i, run) in runs.iter().enumerate() {
        run.expect_code(one.code);
        if i > 0 {
            assert_eq!(run.stdout, "", "process {i} of `{}` wrote", args.join(" "));
        }
    }
    assert!(!one.stdout.is_empty());
    assert!(
        steady(&runs[0].stdout) == steady(&one.stdout),
        "process 0 of `{}` differs from one machine:\n--- one machine (first 1500 bytes) ---\n{}\n--- process 0 ---\n{}",
        args.join(" "),
        &one.stdout[..one.stdout.len().min(1500)],
        &runs[0].stdout[..runs[0].stdout.len().min(1500)]
    );
}

fn path(p: PathBuf) -> String {
    p.to_string_lossy().into_owned()
}

/// (a) The 95 puzzles of top95 side by side over every worker of three processes, with
/// one and with two threads each, in text and in JSON; a batch whose lines carry layers.
#[test]
fn a_batch_prints_in_puzzle_order() {
    let (rules, puzzles) = (path(rule("sudoku-9x9")), path(data("sudoku9/top95.txt")));
    for threads in ["1", "2"] {
        same_as_one_machine(&["solve", &rules, "--puzzles", &puzzles, "--threads", threads]);
    }
    same_as_one_machine(&[
        "solve",
        &rules,
        "--puzzles",
        &puzzles,
        "--format",
        "json",
        "--threads",
        "1",
    ]);
    let rules = path(rule("sudoku-6x6"));
    let puzzles = path(data("variants/6x6.txt"));
    same_as_one_machine(&[
        "solve",
        &rules,
        "--puzzles",
        &puzzles,
        "--count",
        "--threads",
        "1",
    ]);
    // Puzzle lines with layers: each puzzle its own regions.
    let rules = path(rule("jigsaw-4x4"));
    let puzzles = path(fixture("layers/jigsaw-4x4.txt"));
    same_as_one_machine(&["solve", &rules, "--puzzles", &puzzles, "--threads", "1"]);
}

/// (b) One search tree over three processes: a 6x6 Sudoku with its first row given
/// (39,168 solutions, printed in the order of one thread), and the two puzzles of
/// multi.txt (one with 477,462 solutions) counted one after the other.
#[test]
fn b_one_tree_splits_with_solutions_in_order() {
    let dir = scratch("tree");
    let puzzle = dir.join("first-row.txt");
    std::fs::write(&puzzle, format!("123456{}\n", ".".repeat(30))).expect("the puzzle is written");
    let rules = path(rule("sudoku-6x6"));
    same_as_one_machine(&[
        "solve",
        &rules,
        "--puzzles",
        &path(puzzle),
        "--threads",
        "1",
    ]);
    let rules = path(rule("sudoku-9x9"));
    let multi = path(data("sudoku9/multi.txt"));
    same_as_one_machine(&[
        "solve",
        &rules,
        "--puzzles",
        &multi,
        "--count",
        "--threads",
        "2",
    ]);
}

/// (c) Whole state spaces level by level over three processes: the 4x4 example with the
/// centre group (72,837 states, 436,549 transitions, 688 dead ends, 4 solutions) depth-
/// and breadth-first, and the sudoku-4x4 file, a space whose states repeat on the whole-
/// graph engine (alone on process 0) and by limits at level boundaries.
#[test]
fn c_whole_spaces_level_by_level() {
    let centre = path(rule("sudoku-4x4-centre"));
    same_as_one_machine(&["solve", &centre, "--expand", "all", "--threads", "1"]);
    same_as_one_machine(&[
        "solve",
        &centre,
        "--expand",
        "all",
        "--order",
        "bfs",
        "--format",
        "json",
        "--threads",
        "2",
    ]);
    let plain = path(rule("sudoku-4x4"));
    same_as_one_machine(&[
        "solve",
        &plain,
        "--expand",
        "all",
        "--engine",
        "graph",
        "--threads",
        "1",
    ]);
    same_as_one_machine(&[
        "solve",
        &plain,
        "--expand",
        "all",
        "--order",
        "bfs",
        "--engine",
        "graph",
        "--count",
        "--threads",
        "1",
    ]);
}

/// Limits across processes hold at level boundaries: the run stops with status 3 and
/// says so, having explored at least the limit and less than the whole space.
#[test]
fn c_limits_hold_at_level_boundaries() {
    let args: Vec<String> = [
        "solve",
        &path(rule("sudoku-4x4-centre")),
        "--expand",
        "all",
        "--max-states",
        "20000",
        "--threads",
        "1",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let runs = cluster(3, &args);
    for run in &runs {
        run.expect_code(3);
    }
    let states: u64 = runs[0]
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("states: "))
        .and_then(|n| n.parse().ok())
        .expect("a states line");
    assert!((20_000..72_837).contains(&states), "{states} states");
    assert!(runs[0].stdout.contains("complete: no, stopped after"));
}

/// A process killed mid-run ends the others within seconds, with status 4, one line
/// naming the process lost, and no panic trace. (A survivor names process 2, unless
/// process 0 went first on seeing it go: each keeps its connections open for a moment
/// after telling, so the process killed is seen first.)
#[test]
fn a_killed_process_ends_the_run_loudly() {
    let dir = scratch("kill");
    let puzzle = dir.join("empty-6x6.txt");
    std::fs::write(&puzzle, format!("{}\n", ".".repeat(36))).expect("the puzzle is written");
    // The empty 6x6 (28,200,960 solutions) takes seconds even on three processes.
    let args: Vec<String> = [
        "solve",
        &path(rule("sudoku-6x6")),
        "--puzzles",
        &path(puzzle),
        "--count",
        "--threads",
        "1",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let hosts = hostfile(&dir, 3);
    let mut children: Vec<Started> = (0..3).map(|i| spawn(&args, &hosts, 3, i)).collect();
    std::thread::sleep(Duration::from_millis(1500));
    children[2].child.kill().expect("process 2 is killed");
    let killed = Instant::now();
    let deadline = killed + Duration::from_secs(30);
    let runs: Vec<Run> = children
        .into_iter()
        .map(|c| finish(c, &args, deadline))
        .collect();
    assert!(
        killed.elapsed() < Duration::from_secs(20),
        "the survivors took {:?}",
        killed.elapsed()
    );
    for (i, run) in runs[..2].iter().enumerate() {
        run.expect_code(LOST);
        let named = |p: usize| {
            run.stderr
                .starts_with(&format!("error: lost process {p} (127.0.0.1:"))
        };
        assert!(named(2) || (i == 1 && named(0)), "{}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

/// A process that never starts: the others wait --join-timeout and name it.
#[test]
fn a_process_that_never_starts_is_named() {
    let dir = scratch("absent");
    let hosts = hostfile(&dir, 3);
    let args: Vec<String> = ["solve", &path(rule("sudoku-4x4")), "--join-timeout", "2"]
        .iter()
        .map(|a| a.to_string())
        .collect();
    let started = Instant::now();
    let children: Vec<Started> = (0..2).map(|i| spawn(&args, &hosts, 3, i)).collect();
    let deadline = started + Duration::from_secs(60);
    for run in children.into_iter().map(|c| finish(c, &args, deadline)) {
        run.expect_code(LOST);
        assert!(
            run.stderr.starts_with("error: process 2 (127.0.0.1:")
                && run.stderr.contains("did not join within 2 s"),
            "{}",
            run.stderr
        );
    }
    assert!(started.elapsed() < Duration::from_secs(30));
}
