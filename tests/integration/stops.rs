//! Every stop is a clean stop: SIGINT and SIGTERM mid-run, a closed or full stdout, an
//! unwritable stderr — and memory that stays bounded on several threads.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::support::{grafter, root, BIN};
use super::watch::{watched, Watch, Watched};

const SIX: &str = "rules/sudoku-6x6.graft";
/// The empty 6x6 grid: 28,200,960 solutions, minutes of search.
const EMPTY_SIX: &str = "tests/fixtures/puzzles/empty-6x6.txt";
/// The same grid eight times: puzzles run side by side.
const EIGHT_EMPTY_SIX: &str = "tests/fixtures/puzzles/empty-6x6-8.txt";

/// Peak memory a stopped run may reach, in MiB: a few MB are needed; this leaves room for
/// a loaded machine's larger buffers without letting a buffered search tree pass.
const BOUND_MIB: u64 = 64;

/// When a signal is sent to a run.
const SIGNAL_AFTER: Duration = Duration::from_millis(1500);

/// How soon after a signal a run must have ended: it stops within milliseconds; this is
/// generous for a loaded machine and far below the minutes the searches take.
const STOP_WITHIN: Duration = Duration::from_secs(10);

/// `solve` on the empty 6x6 with `extra`, sent `signal` after [`SIGNAL_AFTER`]; asserts
/// it ended within [`STOP_WITHIN`] of it.
fn signalled(puzzles: &str, extra: &[&str], signal: &'static str) -> Watched {
    let mut args = vec!["solve", SIX, "--puzzles", puzzles];
    args.extend_from_slice(extra);
    let w = watched(
        args,
        &Watch {
            deadline: Duration::from_secs(60),
            signal: Some((signal, SIGNAL_AFTER)),
            read_stdout: None,
        },
    );
    assert!(
        w.elapsed < SIGNAL_AFTER + STOP_WITHIN,
        "SIG{signal}: ended {:?} after starting",
        w.elapsed
    );
    w
}

/// The text summaries' `solutions: N` values, in order.
fn text_solutions(stdout: &str) -> Vec<u64> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("solutions: "))
        .map(|n| n.parse().expect("a solution count"))
        .collect()
}

/// Asserts a text run's output ends with a summary saying it was interrupted (and the
/// blank line that closes a summary block).
fn assert_ends_interrupted(stdout: &str) {
    let tail = &stdout[stdout.len().saturating_sub(300)..];
    assert!(
        stdout.ends_with("\ncomplete: no, interrupted\n\n"),
        "no summary saying interrupted at the end: ...{tail}"
    );
}

#[test]
fn sigint_stops_a_text_run_with_its_solutions_and_summary() {
    let w = signalled(EMPTY_SIX, &[], "INT");
    w.expect(130, BOUND_MIB);
    let out = &w.run.stdout;
    assert!(
        out.starts_with("puzzle 1 solution 1\n"),
        "no solution printed"
    );
    assert_ends_interrupted(out);
    let found = text_solutions(out);
    assert_eq!(found.len(), 1);
    assert!(found[0] > 0);
    assert_eq!(
        out.matches("puzzle 1 solution ").count() as u64,
        found[0],
        "printed solutions differ from the summary's count"
    );
    assert_eq!(w.run.stderr, "puzzle 1: interrupted\n");
}

#[test]
fn sigterm_stops_a_json_run_with_stop_interrupted() {
    let w = signalled(EMPTY_SIX, &["--format", "json"], "TERM");
    w.expect(143, BOUND_MIB);
    let puzzles = w.run.puzzles();
    assert_eq!(puzzles.len(), 1);
    let p = &puzzles[0];
    assert_eq!(
        p.summary.get("stop").and_then(|s| s.as_str()),
        Some("interrupted")
    );
    assert!(p.stat("solutions") > 0);
    assert_eq!(p.grids.len() as u64, p.stat("solutions"));
}

#[test]
fn sigint_stops_a_count_on_two_threads_with_its_count() {
    let w = signalled(EMPTY_SIX, &["--count", "--threads", "2"], "INT");
    w.expect(130, BOUND_MIB);
    let counts = w.run.counts();
    assert_eq!(counts.len(), 1);
    assert!(counts[0] > 0 && counts[0] < 28_200_960);
    assert_eq!(w.run.stderr, "puzzle 1: interrupted\n");
}

#[test]
fn sigint_stops_expand_all_with_its_summary() {
    // The empty 4x4 under GROOVE's semantics: 61.6 million states, solutions all along.
    let w = watched(
        [
            "solve",
            "rules/sudoku-4x4.graft",
            "--puzzles",
            "tests/fixtures/puzzles/empty-4x4.txt",
            "--expand",
            "all",
        ],
        &Watch {
            signal: Some(("INT", SIGNAL_AFTER)),
            ..Watch::default()
        },
    );
    w.expect(130, BOUND_MIB);
    assert!(
        w.elapsed < SIGNAL_AFTER + STOP_WITHIN,
        "took {:?}",
        w.elapsed
    );
    assert_ends_interrupted(&w.run.stdout);
    assert!(w.run.stdout.contains("expand: all"));
    let found = text_solutions(&w.run.stdout);
    assert_eq!(found.len(), 1);
    assert_eq!(
        w.run.stdout.matches("puzzle 1 solution ").count() as u64,
        found[0]
    );
}

#[test]
fn sigint_stops_puzzles_side_by_side_and_skips_the_rest() {
    let w = signalled(
        EIGHT_EMPTY_SIX,
        &["--format", "json", "--threads", "2"],
        "INT",
    );
    w.expect(130, BOUND_MIB);
    let puzzles = w.run.puzzles();
    // The running puzzles report; those not started are left out.
    assert!((1..8).contains(&puzzles.len()), "{} puzzles", puzzles.len());
    for (i, p) in puzzles.iter().enumerate() {
        assert_eq!(p.number, i as u64 + 1);
        assert_eq!(
            p.summary.get("stop").and_then(|s| s.as_str()),
            Some("interrupted")
        );
        assert_eq!(p.grids.len() as u64, p.stat("solutions"));
    }
    assert!(puzzles[0].stat("solutions") > 0);
}

#[test]
fn a_second_sigint_ends_a_run_stuck_on_its_output() {
    // Nobody reads stdout: the run blocks writing, so the first signal cannot finish it.
    let mut child = Command::new(BIN)
        .current_dir(root())
        .args(["solve", SIX, "--puzzles", EMPTY_SIX])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the grafter binary runs");
    let pid = child.id().to_string();
    let kill = |sig: &str| {
        Command::new("kill")
            .args([format!("-{sig}"), pid.clone()])
            .status()
            .expect("kill runs");
    };
    std::thread::sleep(Duration::from_millis(1000));
    kill("INT");
    std::thread::sleep(Duration::from_millis(500));
    let first = child.try_wait().expect("waiting for grafter");
    kill("INT");
    let sent = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("waiting for grafter") {
            break s;
        }
        if sent.elapsed() > Duration::from_secs(20) {
            child.kill().ok();
            panic!("the second SIGINT did not end the run");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    assert!(
        first.is_none(),
        "the first SIGINT ended a blocked run: {first:?}"
    );
    assert_eq!(status.code(), Some(130));
}

/// Runs `grafter solve SIX --puzzles PUZZLES --format json EXTRA`, its stdout closed after
/// 100 bytes: it must end with 141, quietly, soon (far sooner than the search would take:
/// minutes; generous for a loaded machine).
fn closed_after_100_bytes(puzzles: &str, extra: &[&str]) -> Watched {
    let args = ["solve", SIX, "--puzzles", puzzles, "--format", "json"];
    let w = watched(
        args.iter().chain(extra),
        &Watch {
            deadline: Duration::from_secs(30),
            read_stdout: Some(100),
            ..Watch::default()
        },
    );
    w.expect(141, BOUND_MIB);
    assert_eq!(w.run.stderr, "");
    assert!(w.elapsed < Duration::from_secs(10), "took {:?}", w.elapsed);
    w
}

#[test]
fn a_closed_stdout_stops_the_search_quietly() {
    let w = closed_after_100_bytes(EMPTY_SIX, &[]);
    assert_eq!(w.run.stdout.len(), 100);
}

#[test]
fn a_closed_stdout_stops_puzzles_side_by_side_quietly() {
    // Eight puzzles on two threads run side by side, the calling thread running some:
    // the closed pipe stops them all; no result is delivered after it, and no puzzle it
    // stopped says so.
    for _ in 0..3 {
        closed_after_100_bytes(EIGHT_EMPTY_SIX, &["--threads", "2"]);
    }
}

/// Runs `grafter ARGS` with stdout or stderr on `/dev/full`; `None` where it is missing.
fn onto_full_device(args: &[&str], stderr: bool) -> Option<std::process::Output> {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .ok()?;
    let mut command = Command::new(BIN);
    command.current_dir(root()).args(args).stdin(Stdio::null());
    if stderr {
        command.stdout(Stdio::null()).stderr(full);
    } else {
        command.stdout(full).stderr(Stdio::piped());
    }
    Some(command.output().expect("the grafter binary runs"))
}

#[test]
fn a_full_stdout_is_an_error_with_a_message() {
    let args = ["solve", SIX, "--puzzles", EMPTY_SIX, "--timeout", "5"];
    let Some(out) = onto_full_device(&args, false) else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.starts_with("error: cannot write output: "),
        "stderr: {stderr}"
    );
}

#[test]
fn an_unwritable_stderr_never_panics() {
    let Some(out) = onto_full_device(&["check", "missing.graft"], true) else {
        eprintln!("skipped: no /dev/full on this system");
        return;
    };
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn two_threads_stream_json_in_bounded_memory() {
    let w = watched(
        [
            "solve",
            SIX,
            "--puzzles",
            EMPTY_SIX,
            "--format",
            "json",
            "--threads",
            "2",
            "--timeout",
            "4",
        ],
        &Watch::default(),
    );
    w.expect(3, BOUND_MIB);
    let p = &w.run.puzzles()[0];
    assert_eq!(
        p.summary.get("stop").and_then(|s| s.as_str()),
        Some("timeout")
    );
    assert!(p.stat("solutions") > 0);
    assert_eq!(p.grids.len() as u64, p.stat("solutions"));
    // Delivery keeps up with the search: the run ends near its deadline.
    assert!(w.elapsed < Duration::from_secs(20), "took {:?}", w.elapsed);
}

/// The output with the lines that carry timings removed.
fn without_timings(stdout: &str) -> String {
    stdout
        .lines()
        .filter(|l| !l.contains("time: "))
        .map(|l| match l.find(",\"seconds\":") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn output_is_the_same_for_any_thread_count() {
    // 39,168 solutions: large enough that the search tree is split over the threads.
    let puzzles = "tests/fixtures/puzzles/6x6-first-row.txt";
    for format in ["text", "json"] {
        let run = |threads: &str| {
            let r = grafter([
                "solve",
                SIX,
                "--puzzles",
                puzzles,
                "--format",
                format,
                "--threads",
                threads,
            ]);
            r.ok();
            without_timings(&r.stdout)
        };
        let one = run("1");
        assert!(one.len() > 39_168 * 36, "{format}: output too short");
        for threads in ["2", "3"] {
            assert!(
                run(threads) == one,
                "{format}: {threads} threads differ from one"
            );
        }
    }
}

#[test]
fn a_batch_shows_what_it_found_while_a_slow_puzzle_runs() {
    // Two hundred puzzles of a few microseconds (one solution, found by forced moves
    // alone: `benches/kinds/classic/9x9.txt`), then the empty 9x9, whose solutions are
    // past counting: the two hundred counts, which wait in a buffer rather than going out
    // a write each, must still be seen within a moment through a pipe, not when the
    // slow one ends.
    let quick =
        "8...3...7..17.29.8.42.......8..59..2.......4....6..5...6.......9..3.5.7..2.467...\n"
            .repeat(200);
    let path = super::support::temp_path("paced", "txt");
    let empty = ".".repeat(81);
    std::fs::write(&path, format!("{quick}{empty}\n")).expect("a temporary puzzle file");
    let mut child = Command::new(BIN)
        .current_dir(root())
        .args([
            "solve",
            "rules/sudoku-9x9.graft",
            "--count",
            "--threads",
            "1",
        ])
        .arg("--puzzles")
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the grafter binary runs");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let (lines, seen) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut text = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = std::io::Read::read(&mut stdout, &mut buf) {
            text.extend_from_slice(&buf[..n]);
            let count = text.iter().filter(|&&b| b == b'\n').count();
            if lines.send(count).is_err() {
                return;
            }
        }
    });
    let started = Instant::now();
    let mut shown = 0;
    while shown < 200 && started.elapsed() < Duration::from_secs(10) {
        if let Ok(n) = seen.recv_timeout(Duration::from_millis(50)) {
            shown = n;
        }
    }
    let running = child.try_wait().expect("waiting for grafter").is_none();
    child.kill().ok();
    child.wait().ok();
    std::fs::remove_file(&path).ok();
    assert!(running, "the slow puzzle ended: the test shows nothing");
    assert_eq!(shown, 200, "lines seen after {:?}", started.elapsed());
}
