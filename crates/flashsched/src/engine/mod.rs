//! The discrete-event core: simulated time in `u64` nanoseconds and a queue of events ordered by
//! `(time, insertion sequence)`, so simultaneous events run first-in, first-out and a run is
//! deterministic. Randomness comes only from [`rng`] streams.

pub mod rng;

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Simulated time in nanoseconds.
pub type Time = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<K> {
    pub time: Time,
    seq: u64,
    pub kind: K,
}

impl<K: Eq> Ord for Event<K> {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
        (other.time, other.seq).cmp(&(self.time, self.seq))
    }
}
impl<K: Eq> PartialOrd for Event<K> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A priority queue of events keyed by (time, insertion order).
#[derive(Debug)]
pub struct EventQueue<K> {
    heap: BinaryHeap<Event<K>>,
    seq: u64,
}

impl<K: Eq + Copy> EventQueue<K> {
    pub fn new() -> Self {
        EventQueue { heap: BinaryHeap::with_capacity(1024), seq: 0 }
    }
    pub fn push(&mut self, time: Time, kind: K) {
        self.seq += 1;
        self.heap.push(Event { time, seq: self.seq, kind });
    }
    pub fn pop(&mut self) -> Option<Event<K>> {
        self.heap.pop()
    }
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events pushed so far (a deterministic measure of work done).
    pub fn pushed(&self) -> u64 {
        self.seq
    }
}

impl<K: Eq + Copy> Default for EventQueue<K> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ties_run_in_insertion_order() {
        let mut q = EventQueue::new();
        q.push(10, 'a');
        q.push(5, 'b');
        q.push(10, 'c');
        q.push(5, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop().map(|e| e.kind)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
    }
}
