//! Joining a run and running its workers: the host file's addresses are connected into a
//! mesh (see [`super::connect`]), timely's network is started on it, and each worker
//! thread gets its end of the exchange. At the end the workers agree on one exit status,
//! worker 0's, so that every process reports the run the same way.

use std::time::Duration;

use super::connect::{connect_all, Hello, JoinError};
use super::context::{self, Node};
use super::exchange::Exchange;
use super::failure;
use super::hash::stable_hash;
use super::timely_exchange::{start_network, Network, TimelyExchange};
use super::wire::{Reader, Writer};

/// How to join a run: the same on every process but for `process`.
#[derive(Clone, Debug)]
pub struct ClusterSpec {
    /// The address of each process, `host:port`, process 0 first.
    pub addresses: Vec<String>,
    /// This process's number.
    pub process: usize,
    /// Worker threads per process (the same on every process).
    pub threads: usize,
    /// How long to wait for the other processes to join.
    pub join_timeout: Duration,
    /// A hash of what the run does (the command's options and the input files): processes
    /// that disagree refuse to run together.
    pub fingerprint: u64,
    /// Whether worker 0 writes each solution (the command's choice).
    pub want_solutions: bool,
}

/// A process that has joined its run.
pub struct Cluster {
    spec: ClusterSpec,
    network: Network,
}

/// One worker of a run, as its work sees it.
#[derive(Clone, Copy, Debug)]
pub struct Worker {
    /// This worker's number, from 0.
    pub index: usize,
    /// The workers of the run, over all processes.
    pub workers: usize,
}

impl Worker {
    /// True for worker 0, which writes the run's output.
    pub fn writes_output(&self) -> bool {
        self.index == 0
    }
}

impl Cluster {
    /// Connects to every other process of the run described by `spec`, and starts the
    /// network. From here on, a lost process ends this one (see [`super::failure`]).
    pub fn join(spec: ClusterSpec) -> Result<Cluster, JoinError> {
        let mut build = spec.fingerprint.to_le_bytes().to_vec();
        build.extend_from_slice(env!("CARGO_PKG_VERSION").as_bytes());
        let hello = Hello {
            processes: spec.addresses.len() as u32,
            process: spec.process as u32,
            threads: spec.threads as u32,
            fingerprint: stable_hash(&build),
        };
        failure::watch(spec.addresses.clone());
        let sockets = connect_all(&spec.addresses, spec.process, hello, spec.join_timeout)?;
        let network = start_network(sockets, spec.process, spec.threads).map_err(|error| {
            JoinError::Broken {
                process: spec.process,
                error,
            }
        })?;
        Ok(Cluster { spec, network })
    }

    /// Runs `work` on each of this process's worker threads, each the worker of the run it
    /// is told; returns the run's exit status: what `work` returned on worker 0.
    pub fn run(self, work: impl Fn(Worker) -> u8 + Sync) -> u8 {
        let Cluster { spec, network } = self;
        let Network { builders, guard } = network;
        let status = std::thread::scope(|scope| {
            let threads: Vec<_> = builders
                .into_iter()
                .enumerate()
                .map(|(t, builder)| {
                    let work = &work;
                    let want_solutions = spec.want_solutions;
                    std::thread::Builder::new()
                        .name(format!("grafter:worker-{t}"))
                        .spawn_scoped(scope, move || {
                            let exchange = TimelyExchange::new(builder);
                            let me = Worker {
                                index: exchange.worker(),
                                workers: exchange.workers(),
                            };
                            context::enter(Node {
                                exchange: Box::new(exchange),
                                want_solutions,
                            });
                            let status = work(me);
                            let mut node = context::leave().expect("the worker's node");
                            let status = agree(&mut *node.exchange, status);
                            node.exchange.finish();
                            status
                        })
                        .expect("a worker thread")
                })
                .collect();
            let statuses: Vec<u8> = threads
                .into_iter()
                .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect();
            statuses[0]
        });
        // Waits until the other processes have finished too.
        drop(guard);
        status
    }
}

/// Worker 0's `status`, on every worker.
fn agree(exchange: &mut dyn Exchange, status: u8) -> u8 {
    if exchange.worker() == 0 {
        let mut w = Writer::new();
        w.u64(u64::from(status));
        exchange.broadcast(&w.bytes);
    }
    let messages = exchange.end_round();
    let m = messages.first().expect("worker 0's status");
    Reader::new(&m.bytes, m.from).u64() as u8
}
