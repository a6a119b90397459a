//! Many runs scheduled over threads the one way the command line and the benchmark share.
//!
//! A few runs go one after another, each splitting its own search tree over every thread;
//! many run side by side, one thread each, handed out in chunks so that small puzzles do
//! not spend their time passing results. Either way each run's output reaches the caller
//! in run order, streamed with back-pressure (see [`ordered_streams`]).

use super::config::Config;
use super::ordered::{ordered_streams, CallerRole, Event};
use super::parallel::runs_side_by_side;

/// Runs per chunk when runs go side by side: enough to amortise handing out a chunk and
/// passing its output, few enough that the threads finish together.
pub fn chunk_size(runs: usize, threads: usize) -> usize {
    (runs / (threads * 64)).clamp(1, 256)
}

/// Runs `run(i, config, emit)` for every `i` in `0..n` on `threads` threads, and calls
/// `deliver(i, event)` on this thread with each run's items (what it passed to `emit`) and
/// then its result, in increasing `i`. A run gets `config` with the threads it may use.
///
/// When `deliver` returns false nothing more is delivered, no further run starts, and
/// `emit` returns false in the runs under way, which should then stop.
pub fn run_batch<T: Send, R: Send>(
    n: usize,
    threads: usize,
    config: &Config,
    run: impl Fn(usize, &Config, &mut dyn FnMut(T) -> bool) -> R + Sync,
    mut deliver: impl FnMut(usize, Event<T, R>) -> bool,
) {
    let threads = threads.max(1);
    if !runs_side_by_side(n, threads) {
        let config = Config { threads, ..*config };
        for i in 0..n {
            let mut going = true;
            let result = run(i, &config, &mut |t| {
                going = going && deliver(i, Event::Item(t));
                going
            });
            if !going || !deliver(i, Event::Done(result)) {
                return;
            }
        }
        return;
    }
    let config = Config {
        threads: 1,
        ..*config
    };
    let chunk = chunk_size(n, threads);
    ordered_streams(
        n.div_ceil(chunk),
        threads,
        CallerRole::Works,
        |j, emitter| {
            for i in j * chunk..((j + 1) * chunk).min(n) {
                let result = run(i, &config, &mut |t| emitter.emit((i, Event::Item(t))));
                if !emitter.emit((i, Event::Done(result))) {
                    return;
                }
            }
        },
        |_, event: Event<(usize, Event<T, R>), ()>| match event {
            Event::Item((i, event)) => deliver(i, event),
            Event::Done(()) => true,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run's items then its result, in run order, for a few runs (one after
    /// another) and for many (side by side, chunked), on one thread and on four.
    #[test]
    fn runs_deliver_in_order_under_either_schedule() {
        for n in [3, 1000] {
            for threads in [1, 4] {
                let mut got = Vec::new();
                run_batch(
                    n,
                    threads,
                    &Config::default(),
                    |i, config, emit| {
                        for k in 0..i % 3 {
                            emit((i, k));
                        }
                        (i, config.threads)
                    },
                    |i, event| {
                        got.push(match event {
                            Event::Item((j, k)) => (i, j, k, 0),
                            Event::Done((j, t)) => (i, j, usize::MAX, t),
                        });
                        true
                    },
                );
                let mut want = Vec::new();
                for i in 0..n {
                    want.extend((0..i % 3).map(|k| (i, i, k, 0)));
                    let side_by_side = runs_side_by_side(n, threads);
                    want.push((i, i, usize::MAX, if side_by_side { 1 } else { threads }));
                }
                assert_eq!(got, want, "{n} runs on {threads} threads");
            }
        }
    }

    /// A caller that wants nothing more gets nothing more, and later runs do not start.
    #[test]
    fn a_refusing_caller_stops_the_batch() {
        for n in [3, 1000] {
            let started = std::sync::atomic::AtomicUsize::new(0);
            let mut delivered = 0;
            run_batch(
                n,
                2,
                &Config::default(),
                |_, _, emit: &mut dyn FnMut(u8) -> bool| {
                    started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    emit(0)
                },
                |_, _| {
                    delivered += 1;
                    delivered < 2
                },
            );
            assert_eq!(delivered, 2, "{n} runs");
            assert!(started.into_inner() < n, "{n} runs all started");
        }
    }
}
