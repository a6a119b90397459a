//! `check` on files whose generators and NACs would take gigabytes: each ends with an
//! error naming the limit, or completes on the graph engine, within bounded time and
//! memory, never an abort.

use std::time::Duration;

use crate::support::Json;
use crate::watch::{watched, Watch, Watched};

const DIR: &str = "tests/fixtures/limits-check";

/// `grafter check` on a fixture, killed after `deadline`.
fn check(name: &str, deadline: u64) -> (String, Watched) {
    let file = format!("{DIR}/{name}");
    let watch = Watch {
        deadline: Duration::from_secs(deadline),
        signal: None,
        read_stdout: None,
    };
    let w = watched(["check", &file], &watch);
    (file, w)
}

fn assert_within(w: &Watched, secs: u64) {
    assert!(
        w.elapsed < Duration::from_secs(secs),
        "grafter {}: took {:?}, bound {secs} s",
        w.run.args.join(" "),
        w.elapsed
    );
}

#[test]
fn an_edges_generator_over_every_pair_is_an_error() {
    let (file, w) = check("all-pairs-200x200.graft", 60);
    w.expect(1, 200);
    assert_within(&w, 10);
    assert!(
        w.run.stderr.starts_with(&format!(
            "{file}:9:1: error: this generator would create 1599960000 `e` edges (limit 4194304)\n"
        )),
        "{}",
        w.run.stderr
    );
    assert!(w.run.stderr.contains("= note: it makes one edge per pair"));
}

#[test]
fn an_edges_generator_without_an_equality_on_a_huge_grid_is_an_error() {
    let (file, w) = check("knight-4x65536.graft", 60);
    w.expect(1, 400);
    assert_within(&w, 15);
    assert!(
        w.run.stderr.starts_with(&format!(
            "{file}:9:1: error: this generator would test its condition on 68719476736 pairs of nodes (limit 33554432)\n"
        )),
        "{}",
        w.run.stderr
    );
    assert!(
        w.run
            .stderr
            .contains("an equality between an attribute of `d` and one of `c`"),
        "{}",
        w.run.stderr
    );
}

#[test]
fn equalities_find_the_edges_of_a_large_grid_without_testing_every_pair() {
    let (_, w) = check("neighbours-200x200.graft", 60);
    w.expect(0, 400);
    assert_within(&w, 20);
    assert!(
        w.run
            .stdout
            .contains("edge next: Cell -> Cell: 79600 edges"),
        "{}",
        w.run.stdout
    );
}

#[test]
fn a_nac_with_too_many_matches_runs_on_the_graph_engine() {
    let (file, w) = check("path-nac-100x100.graft", 120);
    w.expect(0, 1024);
    assert_within(&w, 60);
    assert!(
        w.run.stdout.contains(&format!(
            "engine: graph (not slot-filling: {file}:16:3: rule `place`: this NAC's structure has more than 4194304 matches on the start graph"
        )),
        "{}",
        w.run.stdout
    );
}

#[test]
fn slot_tables_too_large_run_on_the_graph_engine() {
    let (_, w) = check("columns-4x65536.graft", 180);
    w.expect(0, 1536);
    assert_within(&w, 120);
    assert!(
        w.run.stdout.contains("edge e: Cell -> Cell: 786432 edges"),
        "{}",
        w.run.stdout
    );
    assert!(
        w.run.stdout.contains(
            "the slot engine would keep 65536 hubs over 262144 slots, 2048 MiB of tables (limit 128 MiB)"
        ),
        "{}",
        w.run.stdout
    );
}

/// Too many placements to list (each an instance with its own binding): refused before
/// the slot compiler builds them, where it once took 18 s and 2 GiB to refuse on its hubs.
#[test]
fn too_many_placements_are_refused_before_they_are_listed() {
    let (file, w) = check("columns-4x65536-44.graft", 60);
    w.expect(0, 512);
    assert_within(&w, 15);
    assert!(
        w.run.stdout.contains(&format!(
            "engine: graph (not slot-filling: {file}:12:1: the slot engine would list 11534336 placements (262144 slots times 44 values; limit 4194304))"
        )),
        "{}",
        w.run.stdout
    );
}

/// Solving on the graph engine first tabulates which application disables which: on the
/// 100x100 path NAC that takes a NAC match per pair, seconds of work that the timeout
/// covers too (it once ran five times past it, the summary saying otherwise).
#[test]
fn tabulating_applications_is_within_the_timeout() {
    let file = format!("{DIR}/path-nac-100x100.graft");
    let watch = Watch {
        deadline: Duration::from_secs(60),
        signal: None,
        read_stdout: None,
    };
    let w = watched(
        ["solve", &file, "--timeout", "2", "--format", "json"],
        &watch,
    );
    w.expect(3, 1024);
    assert_within(&w, 15);
    let puzzles = w.run.puzzles();
    let summary = &puzzles[0].summary;
    assert_eq!(summary.get("stop").and_then(Json::as_str), Some("timeout"));
    let seconds = summary
        .get("seconds")
        .and_then(Json::as_f64)
        .expect("seconds");
    assert!(
        (2.0..4.0).contains(&seconds),
        "ran {seconds} s under --timeout 2"
    );
}
