//! Canonical forms of states with created nodes, end to end: exact state counts where
//! created nodes are interchangeable, and limits that hold where they used to make each
//! key a factorial search.

use std::time::Duration;

use crate::support::{fixture, parse_json, Json};
use crate::watch::{watched, Watch};

/// A rule that creates equal nodes without edges (n! orders per state before twins were
/// collapsed) stops at its state limit at once, with a timeout as a backstop.
#[test]
fn anonymous_cells_stop_at_the_state_limit() {
    let file = fixture("canon/anonymous-cells.graft");
    let w = watched(
        [
            "solve".as_ref(),
            file.as_os_str(),
            "--max-states".as_ref(),
            "10".as_ref(),
            "--timeout".as_ref(),
            "1".as_ref(),
            "--format".as_ref(),
            "json".as_ref(),
        ],
        &Watch {
            deadline: Duration::from_secs(60),
            signal: None,
            read_stdout: None,
        },
    );
    w.expect(3, 64);
    assert!(
        w.elapsed < Duration::from_secs(5),
        "stopped after {:?}",
        w.elapsed
    );
    let puzzles = w.run.puzzles();
    let summary = &puzzles[0].summary;
    assert_eq!(
        summary.get("stop").and_then(Json::as_str),
        Some("max-states")
    );
    assert_eq!(puzzles[0].stat("states"), 10);
    // State k holds k created cells and has 2 + k matches, all leading to state k + 1.
    // States 0 to 7 are expanded whole (2 + 3 + ... + 9 = 44); state 8 stops at its second
    // successor, when the frontier has no room left under the limit, and state 9 at its
    // first: 47.
    assert_eq!(puzzles[0].stat("transitions"), 47);
}

/// Trees grown one anonymous leaf at a time: the states are the rooted trees with up to
/// eight nodes up to isomorphism, counted independently (OEIS A000081: 1, 1, 2, 4, 9, 20,
/// 48, 115), in both orders.
#[test]
fn created_trees_are_counted_up_to_isomorphism() {
    let file = fixture("canon/created-trees.graft");
    for order in ["dfs", "bfs"] {
        let w = watched(
            [
                "solve".as_ref(),
                file.as_os_str(),
                "--order".as_ref(),
                order.as_ref(),
                "--format".as_ref(),
                "json".as_ref(),
            ],
            &Watch::default(),
        );
        w.expect(0, 64);
        // Solutions here are node lists, not grids: read the summary line alone.
        let last = w.run.stdout.lines().last().expect("a summary line");
        let summary = parse_json(last).expect("a JSON summary");
        let stat = |k: &str| summary.get(k).and_then(Json::as_u64);
        let rooted_trees = [1, 1, 2, 4, 9, 20, 48, 115];
        let states: u64 = rooted_trees.iter().sum();
        // A tree with k created cells has k + 1 places for a new leaf, while k < 7.
        let transitions: u64 = (0..7).map(|k| rooted_trees[k] * (k as u64 + 1)).sum();
        assert_eq!(
            (stat("solutions"), stat("states"), stat("transitions")),
            (Some(115), Some(states), Some(transitions)),
            "--order {order}"
        );
    }
}
