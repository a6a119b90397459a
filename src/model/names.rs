//! The names of a base graph's nodes (`r1c1`, `row1`, `region_A`), by node id.
//!
//! A layered puzzle's grammar adds a few nodes (its regions, its lines) to the rule file's
//! base graph, and each needs a name. The file's names are shared, not copied: a puzzle
//! holds only the names its layers add, after them, so that a batch's puzzles whose layers
//! add nodes do not each copy a string per node of the file.

use std::ops::Index;
use std::sync::Arc;

#[derive(Clone, Debug, Default)]
pub struct NodeNames {
    /// The names of the nodes up to `file.len()`, shared by every puzzle of the file.
    file: Arc<Vec<String>>,
    /// The names of the nodes after them.
    added: Vec<String>,
}

impl NodeNames {
    /// The name of node `i`, if it has one.
    pub fn get(&self, i: usize) -> Option<&str> {
        match i.checked_sub(self.file.len()) {
            None => Some(&self.file[i]),
            Some(j) => self.added.get(j).map(String::as_str),
        }
    }

    /// The number of names: the nodes named.
    pub fn len(&self) -> usize {
        self.file.len() + self.added.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The names in node order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &str> + '_ {
        let file = self.file.iter().map(String::as_str);
        file.chain(self.added.iter().map(String::as_str))
    }

    /// Names the next node.
    pub fn push(&mut self, name: String) {
        self.added.push(name);
    }
}

impl From<Vec<String>> for NodeNames {
    fn from(names: Vec<String>) -> NodeNames {
        NodeNames {
            file: Arc::new(names),
            added: Vec::new(),
        }
    }
}

impl Index<usize> for NodeNames {
    type Output = str;

    fn index(&self, i: usize) -> &str {
        self.get(i)
            .unwrap_or_else(|| panic!("node {i} of {} named", self.len()))
    }
}

impl PartialEq for NodeNames {
    fn eq(&self, other: &NodeNames) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for NodeNames {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_names_follow_the_shared_ones() {
        let file = NodeNames::from(vec!["r1c1".to_string(), "row1".to_string()]);
        let mut puzzle = file.clone();
        puzzle.push("region_A".to_string());
        assert_eq!(puzzle.len(), 3);
        assert_eq!(puzzle.get(1), Some("row1"));
        assert_eq!(&puzzle[2], "region_A");
        assert_eq!(puzzle.get(3), None);
        assert_eq!(file.len(), 2, "the file's names are not changed");
        assert_eq!(
            puzzle.iter().collect::<Vec<_>>(),
            ["r1c1", "row1", "region_A"]
        );
        assert_ne!(puzzle, file);
        let mut same = NodeNames::from(vec!["r1c1".to_string()]);
        same.push("row1".to_string());
        assert_eq!(same, file, "equal by names, however they are held");
    }
}
