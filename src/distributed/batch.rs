//! Many runs (the puzzles of a file) over every worker of every process: the runs are cut
//! into chunks, chunk j goes to worker j mod W, and each run's output streams to worker 0,
//! which hands it on in run order, as [`crate::run_batch`] does over threads. Worker 0
//! tells the others how far it has got, and no worker starts a run more than a window
//! ahead of that, so the output waiting at worker 0 stays bounded. A stop (a caller that
//! wants nothing more, an interrupt on any process) reaches every worker.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

use crate::explore::batch::chunk_size;
use crate::explore::config::Config;
use crate::explore::ordered::Event;

use super::context::Node;
use super::exchange::Message;
use super::wire::{Reader, Writer};
use super::BatchRun;

/// Chunks per worker that may start ahead of the first run worker 0 has not handed on.
const CHUNKS_AHEAD: usize = 8;

/// How long an idle worker waits for messages before looking again.
const IDLE: Duration = Duration::from_millis(5);

/// Message tags.
const ITEM: u64 = 0;
const DONE: u64 = 1;
const PROGRESS: u64 = 2;
const STOP: u64 = 3;

/// A run's output not yet handed on: its items, and its result once it ended.
type Output = (Vec<Vec<u8>>, Option<Vec<u8>>);

/// What one worker knows of the batch.
struct Batch<D> {
    /// Runs worker 0 has handed on (as far as this worker has heard).
    delivered: usize,
    stopped: bool,
    /// Worker 0: undelivered items and results of runs after `delivered`.
    waiting: BTreeMap<usize, Output>,
    deliver: D,
    chunk: usize,
}

impl<D: FnMut(usize, Event<Vec<u8>, Vec<u8>>) -> bool> Batch<D> {
    /// Takes in `messages`; worker 0 hands on what is now in order.
    fn take(&mut self, node: &mut Node, messages: Vec<Message>, config: &Config) {
        let before = self.delivered / self.chunk;
        for m in messages {
            let mut r = Reader::new(&m.bytes, m.from);
            match r.u64() {
                ITEM => {
                    let i = r.usize();
                    let item = r.bytes().to_vec();
                    self.waiting.entry(i).or_default().0.push(item);
                }
                DONE => {
                    let i = r.usize();
                    self.waiting.entry(i).or_default().1 = Some(r.bytes().to_vec());
                }
                PROGRESS => self.delivered = self.delivered.max(r.usize()),
                _ => self.stop(node, config, false),
            }
        }
        if node.exchange.worker() != 0 || self.stopped {
            return;
        }
        while let Some(mut entry) = self.waiting.first_entry() {
            if *entry.key() != self.delivered {
                break;
            }
            let i = self.delivered;
            let (items, done) = entry.get_mut();
            let mut going = items.drain(..).all(|t| (self.deliver)(i, Event::Item(t)));
            let done = done.take();
            if going {
                if let Some(result) = done {
                    entry.remove();
                    going = (self.deliver)(i, Event::Done(result));
                    self.delivered += 1;
                } else {
                    break;
                }
            }
            if !going {
                self.stop(node, config, true);
                return;
            }
        }
        if self.delivered / self.chunk > before {
            let mut w = Writer::new();
            w.u64(PROGRESS).u64(self.delivered as u64);
            node.exchange.broadcast(&w.bytes);
        }
    }

    /// Stops this worker's runs, and tells the others when `tell`.
    fn stop(&mut self, node: &mut Node, config: &Config, tell: bool) {
        if self.stopped {
            return;
        }
        self.stopped = true;
        // The runs under way on this process poll the flag.
        if let Some(flag) = config.interrupt {
            flag.store(true, Ordering::Relaxed);
        }
        if tell {
            let mut w = Writer::new();
            w.u64(STOP);
            node.exchange.broadcast(&w.bytes);
        }
    }
}

/// Runs `run(i, config, emit)` for every `i` in `0..n` over every worker of `node`'s run;
/// worker 0 calls `deliver(i, event)` with each run's items and then its result, in
/// increasing `i`. When `deliver` returns false nothing more is delivered, no further run
/// starts anywhere, and `emit` returns false in the runs under way.
pub fn run_batch(
    node: &mut Node,
    n: usize,
    config: &Config,
    run: &BatchRun<'_>,
    deliver: &mut dyn FnMut(usize, Event<Vec<u8>, Vec<u8>>) -> bool,
) {
    let (me, workers) = (node.exchange.worker(), node.exchange.workers());
    let chunk = chunk_size(n, workers);
    let window = chunk * workers * CHUNKS_AHEAD;
    let config = Config {
        threads: 1,
        ..*config
    };
    let mut batch = Batch {
        delivered: 0,
        stopped: false,
        waiting: BTreeMap::new(),
        deliver,
        chunk,
    };
    let interrupted = || config.interrupt.is_some_and(|f| f.load(Ordering::Relaxed));
    'chunks: for j in (me..n.div_ceil(chunk)).step_by(workers) {
        for i in j * chunk..((j + 1) * chunk).min(n) {
            while !batch.stopped && i >= batch.delivered + window {
                let m = node.exchange.poll_wait(IDLE);
                batch.take(node, m, &config);
            }
            if !batch.stopped && interrupted() {
                batch.stop(node, &config, true);
            }
            if batch.stopped {
                break 'chunks;
            }
            let result = run(i, &config, &mut |item| {
                let mut w = Writer::new();
                w.u64(ITEM).u64(i as u64).bytes(&item);
                node.exchange.send(0, w.bytes);
                let m = node.exchange.poll();
                batch.take(node, m, &config);
                !batch.stopped
            });
            let mut w = Writer::new();
            w.u64(DONE).u64(i as u64).bytes(&result);
            node.exchange.send(0, w.bytes);
            let m = node.exchange.poll();
            batch.take(node, m, &config);
        }
    }
    if me == 0 {
        while !batch.stopped && batch.delivered < n {
            if interrupted() {
                batch.stop(node, &config, true);
            }
            let m = node.exchange.poll_wait(IDLE);
            batch.take(node, m, &config);
        }
    }
    // Every worker is done with its runs (or stopped): what is left is dropped.
    node.exchange.end_round();
}
