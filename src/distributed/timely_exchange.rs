//! The exchange on timely dataflow: each worker feeds its messages into one dataflow that
//! routes them to their receivers, and a round is a range of timestamps: timely's
//! progress tracking says when no message of it is left anywhere, which ends the round on
//! every worker. Within a round, each poll that follows a send closes a timestamp of its
//! own, since timely hands buffered records on when their timestamp closes. The only file
//! that knows timely.

use std::cell::RefCell;
use std::net::TcpStream;
use std::rc::Rc;
use std::time::{Duration, Instant};

use timely::communication::allocator::zero_copy::allocator::TcpBuilder;
use timely::communication::allocator::zero_copy::initialize::{
    initialize_networking_from_sockets, CommsGuard,
};
use timely::communication::allocator::{Allocator, ProcessBuilder};
use timely::communication::Hooks;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange as Route;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::{Input, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;
use timely::WorkerConfig;

use super::exchange::{Exchange, Message};

/// A message in the dataflow: receiver, sender, round, the sender's sequence number, bytes.
type Record = (u32, u32, u64, u64, Vec<u8>);

/// Timestamps per round: round `r` sends at `r << STEP_BITS` and later, below the next.
const STEP_BITS: u32 = 32;

/// The network of one process: a builder per local worker, and the threads that move
/// bytes between processes (they run until every worker has finished).
pub struct Network {
    pub builders: Vec<TcpBuilder>,
    pub guard: CommsGuard,
}

/// Starts timely's send and receive threads on the connected `sockets` (one per other
/// process, `None` at `process`), for `threads` workers in this process.
pub fn start_network(
    sockets: Vec<Option<TcpStream>>,
    process: usize,
    threads: usize,
) -> std::io::Result<Network> {
    let hooks = Hooks::default();
    let local =
        ProcessBuilder::new_typed_vector(threads, hooks.refill.clone(), hooks.spill.clone());
    let (builders, guard) =
        initialize_networking_from_sockets(local, sockets, process, threads, hooks)?;
    Ok(Network { builders, guard })
}

/// One worker's end of the exchange on timely.
pub struct TimelyExchange {
    worker: Worker,
    input: InputHandle<u64, CapacityContainerBuilder<Vec<Record>>>,
    probe: ProbeHandle<u64>,
    /// Records delivered to this worker and not yet returned.
    inbox: Rc<RefCell<Vec<Record>>>,
    round: u64,
    sent: u64,
    /// Whether a record was sent since the timestamp last closed.
    unsent: bool,
    index: usize,
    peers: usize,
}

impl TimelyExchange {
    /// The exchange of the worker `builder` stands for; called on that worker's thread.
    pub fn new(builder: TcpBuilder) -> TimelyExchange {
        let allocator = Allocator::Tcp(builder.build());
        let mut worker = Worker::new(WorkerConfig::default(), allocator, Some(Instant::now()));
        let (index, peers) = (worker.index(), worker.peers());
        let mut input = InputHandle::new();
        let probe = ProbeHandle::new();
        let inbox: Rc<RefCell<Vec<Record>>> = Rc::default();
        let delivered = Rc::clone(&inbox);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                    Route::new(|r: &Record| u64::from(r.0)),
                    "Deliver",
                    |_, _| {
                        move |input, _| {
                            input.for_each(|_, records| {
                                delivered.borrow_mut().append(records);
                            });
                        }
                    },
                )
                .probe_with(&probe);
        });
        TimelyExchange {
            worker,
            input,
            probe,
            inbox,
            round: 0,
            sent: 0,
            unsent: false,
            index,
            peers,
        }
    }

    /// Hands what was sent on: closes the current timestamp, if a record was sent at it
    /// and the round has timestamps left.
    fn push(&mut self) {
        let next = self.input.time() + 1;
        if self.unsent && next < (self.round + 1) << STEP_BITS {
            self.input.advance_to(next);
            self.unsent = false;
        }
    }

    /// The delivered messages of rounds up to `round`, in order; later ones stay.
    fn take(&mut self, round: u64) -> Vec<Message> {
        let mut inbox = self.inbox.borrow_mut();
        let (mut taken, later): (Vec<Record>, Vec<Record>) = std::mem::take(&mut *inbox)
            .into_iter()
            .partition(|m| m.2 <= round);
        *inbox = later;
        taken.sort_unstable_by_key(|m| (m.2, m.1, m.3));
        taken
            .into_iter()
            .map(|(_, from, _, _, bytes)| Message {
                from: from as usize,
                bytes,
            })
            .collect()
    }
}

impl Exchange for TimelyExchange {
    fn worker(&self) -> usize {
        self.index
    }

    fn workers(&self) -> usize {
        self.peers
    }

    fn send(&mut self, to: usize, bytes: Vec<u8>) {
        self.sent += 1;
        self.unsent = true;
        self.input
            .send((to as u32, self.index as u32, self.round, self.sent, bytes));
    }

    fn poll(&mut self) -> Vec<Message> {
        self.push();
        self.worker.step();
        self.take(self.round)
    }

    fn poll_wait(&mut self, wait: Duration) -> Vec<Message> {
        self.push();
        self.worker.step_or_park(Some(wait));
        self.take(self.round)
    }

    fn end_round(&mut self) -> Vec<Message> {
        let round = self.round;
        self.round += 1;
        self.unsent = false;
        self.input.advance_to(self.round << STEP_BITS);
        while self.probe.less_than(self.input.time()) {
            self.worker.step_or_park(None);
        }
        self.take(round)
    }

    /// Closes this worker's input and runs the dataflow until every worker has closed
    /// theirs, so that the process's connections shut down cleanly.
    fn finish(self: Box<Self>) {
        let TimelyExchange {
            mut worker, input, ..
        } = *self;
        input.close();
        while worker.has_dataflows() {
            worker.step_or_park(Some(Duration::from_millis(10)));
        }
    }
}
