//! The discrete-event core: simulated time in `u64` nanoseconds and a queue of events ordered by
//! `(time, insertion sequence)`, so simultaneous events run first-in, first-out and a run is
//! deterministic. Randomness comes only from [`rng`] streams.

pub mod rng;

/// Simulated time in nanoseconds.
pub type Time = u64;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event<K> {
    pub time: Time,
    pub kind: K,
}

/// A priority queue of events keyed by (time, insertion order).
///
/// A 4-ary min-heap over one `u128` key, `time << 64 | sequence`: one integer comparison orders
/// both time and ties, and the shallower tree halves the levels a pop walks compared with
/// `std::collections::BinaryHeap` (the event queue is the simulator's hottest structure).
#[derive(Debug)]
pub struct EventQueue<K> {
    keys: Vec<u128>,
    kinds: Vec<K>,
    seq: u64,
}

impl<K: Copy> EventQueue<K> {
    pub fn new() -> Self {
        EventQueue { keys: Vec::with_capacity(1024), kinds: Vec::with_capacity(1024), seq: 0 }
    }

    pub fn push(&mut self, time: Time, kind: K) {
        self.seq += 1;
        let key = (time as u128) << 64 | self.seq as u128;
        let mut i = self.keys.len();
        self.keys.push(key);
        self.kinds.push(kind);
        while i > 0 {
            let parent = (i - 1) / 4;
            if self.keys[parent] <= key {
                break;
            }
            self.keys[i] = self.keys[parent];
            self.kinds[i] = self.kinds[parent];
            i = parent;
        }
        self.keys[i] = key;
        self.kinds[i] = kind;
    }

    pub fn pop(&mut self) -> Option<Event<K>> {
        let n = self.keys.len();
        if n == 0 {
            return None;
        }
        let top = Event { time: (self.keys[0] >> 64) as u64, kind: self.kinds[0] };
        let key = self.keys[n - 1];
        let kind = self.kinds[n - 1];
        self.keys.pop();
        self.kinds.pop();
        let n = n - 1;
        if n > 0 {
            let mut i = 0;
            loop {
                let first = 4 * i + 1;
                if first >= n {
                    break;
                }
                let last = (first + 4).min(n);
                let mut best = first;
                for c in first + 1..last {
                    if self.keys[c] < self.keys[best] {
                        best = c;
                    }
                }
                if self.keys[best] >= key {
                    break;
                }
                self.keys[i] = self.keys[best];
                self.kinds[i] = self.kinds[best];
                i = best;
            }
            self.keys[i] = key;
            self.kinds[i] = kind;
        }
        Some(top)
    }

    pub fn peek_time(&self) -> Option<Time> {
        self.keys.first().map(|k| (k >> 64) as u64)
    }
    pub fn len(&self) -> usize {
        self.keys.len()
    }
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
    /// Events pushed so far (a deterministic measure of work done).
    pub fn pushed(&self) -> u64 {
        self.seq
    }
}

impl<K: Copy> Default for EventQueue<K> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

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

    #[test]
    fn pops_in_time_then_insertion_order_like_a_stable_sort() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        let mut popped = Vec::new();
        for i in 0..5000u32 {
            let t = rng.random_range(0..300u64);
            q.push(t, i);
            reference.push((t, i));
            if i % 3 == 0 {
                popped.push(q.pop().unwrap());
            }
        }
        while let Some(e) = q.pop() {
            popped.push(e);
        }
        assert_eq!(popped.len(), 5000);
        // Every pop is the minimum of what was queued at that moment, so the interleaved pops
        // are non-decreasing within each run of pushes; check the final drain is sorted.
        let drain = &popped[1667..];
        assert!(drain.windows(2).all(|w| (w[0].time, w[0].kind) < (w[1].time, w[1].kind)));
        let mut times: Vec<(u64, u32)> = popped.iter().map(|e| (e.time, e.kind)).collect();
        times.sort();
        reference.sort();
        assert_eq!(times, reference);
    }
}
