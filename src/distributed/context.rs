//! The worker a thread serves in a distributed run. Each worker of a run is one thread
//! with its own end of the exchange; while it runs the command's work, the explorer finds
//! the exchange here and spreads each exploration over every worker (see
//! [`super::explore_here`]). Threads of no distributed run find nothing and explore alone.

use std::cell::RefCell;

use super::exchange::Exchange;

/// One worker's part in a run.
pub struct Node {
    pub exchange: Box<dyn Exchange>,
    /// Whether worker 0 writes each solution: the same on every worker (the command
    /// decides), so every worker sends its solutions or none does.
    pub want_solutions: bool,
}

thread_local! {
    static NODE: RefCell<Option<Node>> = const { RefCell::new(None) };
}

/// Makes this thread worker `node` until [`leave`].
pub fn enter(node: Node) {
    NODE.with(|n| *n.borrow_mut() = Some(node));
}

/// Ends this thread's part; its node, if it had one.
pub fn leave() -> Option<Node> {
    NODE.with(|n| n.borrow_mut().take())
}

/// Runs `f` with this thread's node, taken out meanwhile (a nested exploration, such as
/// a sink's, runs alone); `None` when the thread is no worker of a distributed run.
pub fn with_node<R>(f: impl FnOnce(&mut Node) -> R) -> Option<R> {
    let mut node = leave()?;
    let r = f(&mut node);
    enter(node);
    Some(r)
}
