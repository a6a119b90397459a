//! The spreads on an exchange of threads and channels (a second transport behind the
//! same interface), against one thread exploring alone: the same counts, the same
//! solutions in the same order.

use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use super::context::{self, Node};
use super::exchange::{Exchange, Message};
use crate::explore::config::{Config, Expand, Order};
use crate::explore::explore;
use crate::explore::ordered::Event;
use crate::explore::parallel::explore_to_graphs;
use crate::explore::report::Counts;
use crate::explore::space::{Expansion, Space};
use crate::explore::successors::Successors;
use crate::model::Graph;

/// A message posted: round, sender, the sender's sequence number, bytes.
type Posted = (u64, usize, u64, Vec<u8>);

/// Mailboxes and a barrier shared by the workers of one process.
struct Post {
    boxes: Vec<Mutex<Vec<Posted>>>,
    barrier: Barrier,
}

struct LocalExchange {
    post: Arc<Post>,
    me: usize,
    round: u64,
    sent: u64,
}

impl LocalExchange {
    fn take(&mut self, round: u64) -> Vec<Message> {
        let mut mine = self.post.boxes[self.me].lock().expect("a mailbox");
        let (mut now, later): (Vec<_>, Vec<_>) = std::mem::take(&mut *mine)
            .into_iter()
            .partition(|m| m.0 <= round);
        *mine = later;
        now.sort_by_key(|m| (m.0, m.1, m.2));
        now.into_iter()
            .map(|(_, from, _, bytes)| Message { from, bytes })
            .collect()
    }
}

impl Exchange for LocalExchange {
    fn worker(&self) -> usize {
        self.me
    }
    fn workers(&self) -> usize {
        self.post.boxes.len()
    }
    fn send(&mut self, to: usize, bytes: Vec<u8>) {
        self.sent += 1;
        let m = (self.round, self.me, self.sent, bytes);
        self.post.boxes[to].lock().expect("a mailbox").push(m);
    }
    fn poll(&mut self) -> Vec<Message> {
        self.take(self.round)
    }
    fn poll_wait(&mut self, wait: Duration) -> Vec<Message> {
        std::thread::sleep(wait.min(Duration::from_millis(1)));
        self.take(self.round)
    }
    fn end_round(&mut self) -> Vec<Message> {
        // Every worker has sent what it sends in this round once all have arrived.
        self.post.barrier.wait();
        self.round += 1;
        self.take(self.round - 1)
    }
    fn finish(self: Box<Self>) {}
}

/// Runs `work` on `workers` threads, each a worker of one run; their results in order.
fn run<R: Send>(workers: usize, want: bool, work: impl Fn() -> R + Sync) -> Vec<R> {
    let post = Arc::new(Post {
        boxes: (0..workers).map(|_| Mutex::default()).collect(),
        barrier: Barrier::new(workers),
    });
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|me| {
                let (post, work) = (Arc::clone(&post), &work);
                s.spawn(move || {
                    let exchange = LocalExchange {
                        post,
                        me,
                        round: 0,
                        sent: 0,
                    };
                    context::enter(Node {
                        exchange: Box::new(exchange),
                        want_solutions: want,
                    });
                    let r = work();
                    context::leave();
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker"))
            .collect()
    })
}

/// The grid of points (x, y) up to (N, N), stepping right or up: every point but the
/// corners is reached two ways, so states repeat. Final: the top row.
struct Lattice;
const N: u32 = 12;

impl Space for Lattice {
    type State = (u32, u32);
    type Scratch = ();
    fn initial(&self) -> Option<(u32, u32)> {
        Some((0, 0))
    }
    fn expand(
        &self,
        s: &(u32, u32),
        _: &mut (),
        succ: &mut Successors<'_, (u32, u32)>,
    ) -> Expansion {
        let mut t = 0;
        for next in [(s.0 + 1, s.1), (s.0, s.1 + 1)] {
            if next.0 <= N && next.1 <= N {
                succ.push(next);
                t += 1;
            }
        }
        Expansion { transitions: t }
    }
    fn is_final(&self, s: &(u32, u32), _: &Expansion) -> bool {
        s.1 == N
    }
    fn needs_visited(&self) -> bool {
        true
    }
    fn key(&self, s: &(u32, u32), out: &mut Vec<u8>) {
        out.clear();
        out.extend_from_slice(&s.0.to_le_bytes());
        out.extend_from_slice(&s.1.to_le_bytes());
    }
    fn to_graph(&self, _: &(u32, u32)) -> Graph {
        Graph::new()
    }
    fn encode(&self, s: &(u32, u32), out: &mut Vec<u8>) -> bool {
        self.key(s, out);
        true
    }
    fn decode(&self, b: &[u8]) -> Option<(u32, u32)> {
        let word = |i: usize| -> Option<u32> {
            Some(u32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?))
        };
        Some((word(0)?, word(4)?))
    }
}

/// A tree: every node above depth 14 has 1 to 3 children by its label; final: the
/// leaves whose label is a multiple of 4.
struct Tree;

impl Space for Tree {
    type State = (u32, u64);
    type Scratch = ();
    fn initial(&self) -> Option<(u32, u64)> {
        Some((0, 1))
    }
    fn expand(
        &self,
        s: &(u32, u64),
        _: &mut (),
        succ: &mut Successors<'_, (u32, u64)>,
    ) -> Expansion {
        if s.0 == 14 {
            return Expansion { transitions: 0 };
        }
        let k = s.1 % 3 + 1;
        for c in 0..k {
            succ.push((s.0 + 1, s.1 * 7 + c + 1));
        }
        Expansion { transitions: k }
    }
    fn is_final(&self, s: &(u32, u64), _: &Expansion) -> bool {
        s.0 == 14 && s.1.is_multiple_of(4)
    }
    fn needs_visited(&self) -> bool {
        false
    }
    fn key(&self, _: &(u32, u64), _: &mut Vec<u8>) {}
    fn to_graph(&self, _: &(u32, u64)) -> Graph {
        Graph::new()
    }
}

/// One thread's counts and solutions.
fn alone<S: Space>(space: &S, config: &Config) -> (Counts, Vec<S::State>) {
    let mut found = Vec::new();
    let (counts, stop) = explore(space, config, &mut |s| found.push(s.clone()));
    assert_eq!(stop, None);
    (counts, found)
}

/// Every worker's counts, and worker 0's solutions, of one spread exploration.
fn spread<S: Space + Sync>(
    space: &S,
    config: &Config,
    workers: usize,
) -> Vec<(Counts, Vec<S::State>)>
where
    S::State: Send + Sync,
{
    run(workers, false, || {
        // Through the explorer's own entry, as an engine's run goes.
        let (counts, stop) = explore_to_graphs(space, config, &mut None);
        assert_eq!(stop, None);
        (counts, Vec::new())
    })
}

#[test]
fn levels_keep_counts_where_states_repeat() {
    let config = Config::default()
        .with_expand(Expand::All)
        .with_order(Order::Bfs);
    let (counts, _) = alone(&Lattice, &config);
    assert_eq!(counts.states, u64::from((N + 1) * (N + 1)));
    for workers in [1, 2, 3] {
        for (c, _) in spread(&Lattice, &config, workers) {
            assert_eq!(c, counts, "{workers} workers");
        }
    }
}

#[test]
fn levels_and_split_give_solutions_in_one_threads_order() {
    let cases: [(Config, bool); 3] = [
        (
            Config::default()
                .with_expand(Expand::All)
                .with_order(Order::Bfs),
            true,
        ),
        (Config::default().with_expand(Expand::All), false),
        (Config::default(), false),
    ];
    for (config, lattice) in cases {
        for workers in [2, 3] {
            if lattice {
                let (counts, found) = alone(&Lattice, &config);
                let got = solutions(&Lattice, &config, workers);
                assert_eq!(got, (counts, found), "{workers} workers");
            } else {
                let (counts, found) = alone(&Tree, &config);
                assert!(found.len() > 100);
                let got = solutions(&Tree, &config, workers);
                assert_eq!(got, (counts, found), "{workers} workers, {config:?}");
            }
        }
    }
}

/// Worker 0's counts and the solutions it hands on, in order.
fn solutions<S: Space + Sync>(space: &S, config: &Config, workers: usize) -> (Counts, Vec<S::State>)
where
    S::State: Send + Sync,
{
    let results = run(workers, true, || {
        context::with_node(|node| {
            let mut found = Vec::new();
            let mut sink = |s: &S::State| found.push(s.clone());
            let sink: super::StateSink<'_, S::State> = Some(&mut sink);
            let (counts, _) = match super::spread(space, config, true) {
                super::Spread::Levels => super::levels::explore_levels(node, space, config, sink),
                super::Spread::Split => super::split::explore_split(node, space, config, sink),
                super::Spread::Alone => super::alone(node, space, config, sink),
            };
            (counts, found)
        })
        .expect("a worker's node")
    });
    for (c, _) in &results {
        assert_eq!(*c, results[0].0, "every worker returns the same counts");
    }
    results.into_iter().next().expect("worker 0")
}

#[test]
fn a_batch_delivers_in_order_from_every_worker() {
    let config = Config::default();
    let got = run(3, false, || {
        let mut seen = Vec::new();
        super::run_batch(
            500,
            &config,
            &|i, _, emit| {
                for k in 0..i % 3 {
                    emit(vec![i as u8, k as u8]);
                }
                vec![i as u8]
            },
            &mut |i, event| {
                seen.push(match event {
                    Event::Item(b) => (i, b),
                    Event::Done(b) => (i, [b, vec![255]].concat()),
                });
                true
            },
        );
        seen
    });
    let mut want = Vec::new();
    for i in 0..500 {
        for k in 0..i % 3 {
            want.push((i, vec![i as u8, k as u8]));
        }
        want.push((i, vec![i as u8, 255]));
    }
    assert_eq!(got[0], want);
    assert!(got[1].is_empty() && got[2].is_empty());
}
