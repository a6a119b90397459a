//! A layered puzzle's grammar, built only when something reads its base graph.
//!
//! A jigsaw's puzzle runs on its rule file's model with the hubs of its own regions, which
//! are read from its layers; nothing in that run reads the graph with the region nodes
//! unless a state is written out as a graph (a solution printed or drawn, a final
//! condition beyond "every cell filled"). Copying the base graph and adding a node and an
//! edge per region member cost more than the search of a 9x9 jigsaw; counting its
//! solutions now never pays it.

use std::sync::OnceLock;

use super::Grammar;
use crate::layer::Layers;

/// The grammar of one puzzle line: its rule file's with the line's layers added
/// ([`Grammar::with_layers`]), built the first time [`PuzzleGrammar::get`] asks.
pub struct PuzzleGrammar<'g> {
    file: &'g Grammar,
    layers: &'g Layers,
    built: OnceLock<Grammar>,
}

impl<'g> PuzzleGrammar<'g> {
    pub fn new(file: &'g Grammar, layers: &'g Layers) -> PuzzleGrammar<'g> {
        PuzzleGrammar {
            file,
            layers,
            built: OnceLock::new(),
        }
    }

    /// The rule file's grammar: the puzzle's but for the base graph and its names.
    pub fn file(&self) -> &'g Grammar {
        self.file
    }

    /// The puzzle line's layers.
    pub fn layers(&self) -> &'g Layers {
        self.layers
    }

    /// The puzzle's grammar, built on the first call.
    pub fn get(&self) -> &Grammar {
        self.built
            .get_or_init(|| self.file.with_layers(self.layers))
    }

    /// True once [`PuzzleGrammar::get`] has built it.
    #[cfg(test)]
    pub fn is_built(&self) -> bool {
        self.built.get().is_some()
    }
}
