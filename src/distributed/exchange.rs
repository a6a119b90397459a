//! The exchange a distributed run is written against: numbered workers, messages of bytes,
//! and rounds that end together. Kept this small so that another transport (MPI, say) can
//! stand behind it; [`super::timely_exchange`] is the one there is.

/// A message as received: the worker that sent it and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// The sender's worker number.
    pub from: usize,
    /// What it sent.
    pub bytes: Vec<u8>,
}

/// One worker's end of the exchange. Every worker of a run holds one, on its own thread.
///
/// Messages are sent in rounds. A round ends when every worker has called
/// [`Exchange::end_round`]; each message is returned to its receiver exactly once, by
/// [`Exchange::poll`] while the round is under way or by the `end_round` that ends it.
///
/// A worker that is lost (its process died, or its connection broke) ends the whole run:
/// the transport reports it and exits the process (see [`super::failure`]), so these calls
/// return only while every worker is alive.
pub trait Exchange {
    /// This worker's number, from 0 to `workers() - 1`. Worker 0 is the first worker of
    /// process 0, the one that writes the run's output.
    fn worker(&self) -> usize;

    /// The workers of the run, over all its processes.
    fn workers(&self) -> usize;

    /// Queues `bytes` for worker `to` (this worker too) in the current round.
    fn send(&mut self, to: usize, bytes: Vec<u8>);

    /// Moves queued messages on and returns those of the current round that have
    /// arrived, without waiting (messages of later rounds wait for theirs).
    fn poll(&mut self) -> Vec<Message>;

    /// As [`Exchange::poll`], after waiting until something arrives or `wait` has passed.
    fn poll_wait(&mut self, wait: std::time::Duration) -> Vec<Message>;

    /// Ends the current round and waits until every worker has ended it too; returns the
    /// messages sent to this worker in it that `poll` has not returned, by sender and then
    /// in the order sent.
    fn end_round(&mut self) -> Vec<Message>;

    /// Ends this worker's part in the run, once its last round has ended: the transport
    /// closes down cleanly once every worker has finished.
    fn finish(self: Box<Self>);

    /// Sends `bytes` to every worker (this one too) in the current round.
    fn broadcast(&mut self, bytes: &[u8]) {
        for to in 0..self.workers() {
            self.send(to, bytes.to_vec());
        }
    }
}
