//! Loads the 4x4 Sudoku with a centre group, counts its solutions with both expansions,
//! and checks the state space against the published counts.

use grafter::{Config, Engine, Expand};

fn run() -> (u64, u64, u64, u64) {
    let text = include_str!("../rules/sudoku-4x4-centre.graft");
    let grammar = grafter::load_str("sudoku-4x4-centre.graft", text).expect("the file checks");
    let engine = Engine::new(&grammar);

    // Default: focus expansion, printing each solution's grid.
    let mut grids = Vec::new();
    let mut keep =
        |g: &grafter::Graph| grids.push(grafter::output::grid_line(&grammar, g).unwrap());
    let focus = engine
        .solve(None, &Config::default(), Some(&mut keep))
        .expect("givens agree");
    assert_eq!(focus.counts.solutions, 4);
    assert!(grids.iter().all(|g| g.len() == 16 && !g.contains('.')));

    // GROOVE's semantics: every match of every rule.
    let all = Config::default().with_expand(Expand::All);
    let report = engine.solve(None, &all, None).expect("givens agree");
    let c = report.counts;
    assert_eq!(
        (c.solutions, c.states, c.transitions, c.dead_ends),
        (4, 72_837, 436_549, 688)
    );
    (c.solutions, c.states, c.transitions, c.dead_ends)
}

fn main() {
    let (solutions, states, transitions, dead_ends) = run();
    println!("{solutions} solutions; --expand all: {states} states, {transitions} transitions, {dead_ends} dead ends");
}

#[test]
fn example_runs() {
    run();
}
