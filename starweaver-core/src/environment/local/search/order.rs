//! Walk order for paths found in parallel: what a depth-first walk with
//! children sorted by name would have produced.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Compares root-relative paths in depth-first, name-sorted walk order:
/// segment by segment, so `a/b` comes before `a-b` (a directory's
/// contents follow it at once). Names hold no NUL and no `/`, so
/// comparing bytes with `/` ranked lowest is exactly that order.
pub(super) fn walk_order(a: &str, b: &str) -> Ordering {
    let key = |byte: u8| if byte == b'/' { 0 } else { u16::from(byte) + 1 };
    a.bytes().map(key).cmp(b.bytes().map(key))
}

/// A path held in walk order, for the heap.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Ordered<T> {
    /// The root-relative path.
    pub(super) path: String,
    /// What travels with it.
    pub(super) value: T,
}

impl<T: Eq> PartialOrd for Ordered<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Eq> Ord for Ordered<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        walk_order(&self.path, &other.path)
    }
}

/// The first `limit` items in walk order among any number offered, in
/// memory proportional to `limit`, plus a count of everything offered.
#[derive(Debug)]
pub(super) struct FirstInOrder<T> {
    limit: usize,
    heap: BinaryHeap<Ordered<T>>,
    offered: usize,
}

impl<T: Eq> FirstInOrder<T> {
    /// Keeps at most `limit` items.
    pub(super) fn new(limit: usize) -> Self {
        Self {
            limit,
            heap: BinaryHeap::new(),
            offered: 0,
        }
    }

    /// Offers one item.
    pub(super) fn offer(&mut self, path: String, value: T) {
        self.offered += 1;
        if self.limit == 0 {
            return;
        }
        if self.heap.len() == self.limit {
            match self.heap.peek() {
                Some(last) if walk_order(&path, &last.path) == Ordering::Less => {
                    self.heap.pop();
                }
                _ => return,
            }
        }
        self.heap.push(Ordered { path, value });
    }

    /// How many items were offered in all.
    pub(super) fn offered(&self) -> usize {
        self.offered
    }

    /// The kept items, in walk order.
    pub(super) fn into_sorted(self) -> Vec<Ordered<T>> {
        self.heap.into_sorted_vec()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_order_puts_a_directorys_contents_right_after_it() {
        let mut paths = vec!["a-b", "a/b", "a", "a/b/c", "a.txt", "b", "a/a"];
        paths.sort_by(|a, b| walk_order(a, b));
        assert_eq!(paths, ["a", "a/a", "a/b", "a/b/c", "a-b", "a.txt", "b"]);
    }

    #[test]
    fn first_in_order_keeps_the_smallest() {
        let mut first = FirstInOrder::new(2);
        for path in ["c", "a/x", "b", "a"] {
            first.offer(path.to_string(), ());
        }
        let kept: Vec<String> = first.into_sorted().into_iter().map(|o| o.path).collect();
        assert_eq!(kept, ["a", "a/x"]);
        let mut none = FirstInOrder::new(0);
        none.offer("a".to_string(), ());
        assert_eq!(none.offered(), 1);
        assert!(none.into_sorted().is_empty());
    }
}
