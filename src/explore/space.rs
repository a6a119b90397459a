//! The interface between the exploration loop and a state representation.

use crate::model::Graph;

use super::successors::Successors;

/// What expanding one state found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Expansion {
    /// Rule applications leaving the state (all of them under `--expand all`; the focus's
    /// matches under `focus`).
    pub transitions: u64,
}

/// A state space: how to start, expand and recognise final states.
pub trait Space {
    /// One state of the space, as the explorer stores and copies it.
    type State: Clone;
    /// Working memory for `expand`, one per worker thread, so a space can be shared.
    type Scratch: Default + Send;

    /// The start state, or `None` when it is dead on arrival (its givens leave some slot
    /// without a possible value).
    fn initial(&self) -> Option<Self::State>;

    /// Pushes the successors to explore into `succ` (in the order a DFS should visit
    /// them) and returns what leaves the state.
    fn expand(
        &self,
        state: &Self::State,
        scratch: &mut Self::Scratch,
        succ: &mut Successors<'_, Self::State>,
    ) -> Expansion;

    /// Final states are reported as solutions.
    fn is_final(&self, state: &Self::State, expansion: &Expansion) -> bool;

    /// Whether two successors can be equal, so that a visited set is needed. Spaces that
    /// generate each state once (trees) say false and skip the set.
    fn needs_visited(&self) -> bool;

    /// Writes the state's exact key (only called when `needs_visited`).
    fn key(&self, state: &Self::State, out: &mut Vec<u8>);

    /// The state as a host graph, for output.
    fn to_graph(&self, state: &Self::State) -> Graph;

    /// Writes `state` so that [`Space::decode`] rebuilds it, in another process of a
    /// distributed run; false (the default) when this space cannot, and a distributed run
    /// then moves no states of it between processes.
    fn encode(&self, _state: &Self::State, _out: &mut Vec<u8>) -> bool {
        false
    }

    /// The state [`Space::encode`] wrote into `bytes`; `None` when they are not one.
    fn decode(&self, _bytes: &[u8]) -> Option<Self::State> {
        None
    }
}
