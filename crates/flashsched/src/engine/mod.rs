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
/// A 4-ary min-heap of `(key, event)` with `key = time << 64 | sequence`: one integer comparison
/// orders both time and ties, and the shallow tree keeps a pop to a few cache-resident levels
/// (the queue holds about one event per busy die and channel, so it stays small). The event queue
/// is the simulator's hottest structure; see docs/performance.md for the alternatives measured.
#[derive(Debug)]
pub struct EventQueue<K> {
    heap: Vec<(u128, K)>,
    seq: u64,
}

impl<K: Copy> EventQueue<K> {
    pub fn new() -> Self {
        EventQueue { heap: Vec::with_capacity(1024), seq: 0 }
    }

    #[inline]
    pub fn push(&mut self, time: Time, kind: K) {
        self.seq += 1;
        let key = (time as u128) << 64 | self.seq as u128;
        let h = &mut self.heap;
        let mut i = h.len();
        h.push((key, kind));
        // SAFETY (both loops): every index is below `h.len()`: `i` starts at the last slot and
        // only moves to parents, which are smaller. The hottest loop of the simulator: bounds
        // checks here cost more than the comparisons (docs/performance.md).
        unsafe {
            while i > 0 {
                let parent = (i - 1) >> 2;
                let p = *h.get_unchecked(parent);
                if p.0 <= key {
                    break;
                }
                *h.get_unchecked_mut(i) = p;
                i = parent;
            }
            *h.get_unchecked_mut(i) = (key, kind);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event<K>> {
        let h = &mut self.heap;
        let top = *h.first()?;
        let last = h.pop().expect("non-empty");
        let n = h.len();
        if n > 0 {
            let mut i = 0;
            // SAFETY: `i` and `best` are below `n` (children are read only below `end <= n`),
            // and `n == h.len()`.
            unsafe {
                loop {
                    let first = 4 * i + 1;
                    if first >= n {
                        break;
                    }
                    let end = (first + 4).min(n);
                    let mut best = first;
                    let mut best_key = h.get_unchecked(first).0;
                    let mut c = first + 1;
                    while c < end {
                        let k = h.get_unchecked(c).0;
                        if k < best_key {
                            best = c;
                            best_key = k;
                        }
                        c += 1;
                    }
                    if best_key >= last.0 {
                        break;
                    }
                    *h.get_unchecked_mut(i) = *h.get_unchecked(best);
                    i = best;
                }
                *h.get_unchecked_mut(i) = last;
            }
        }
        Some(Event { time: (top.0 >> 64) as u64, kind: top.1 })
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

    /// Every pop, against an ordered set of (time, push order) as the reference: random pushes
    /// and pops at several queue sizes (nodes with one to four children), many equal times.
    #[test]
    fn every_pop_is_the_reference_minimum() {
        for (seed, spread, pop_every) in [(1u64, 4u64, 2u32), (2, 50, 3), (3, 1000, 5), (4, 1, 7), (5, 300, 1)] {
            let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(seed);
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeSet::new();
            let mut now = 0u64;
            for i in 0..20_000u32 {
                let t = now + rng.random_range(0..spread);
                q.push(t, i);
                reference.insert((t, i));
                assert_eq!(q.len(), reference.len());
                if rng.random_range(0..pop_every) == 0 {
                    let e = q.pop().unwrap();
                    let want = reference.pop_first().unwrap();
                    assert_eq!((e.time, e.kind), want);
                    now = e.time;
                }
            }
            while let Some(want) = reference.pop_first() {
                let e = q.pop().unwrap();
                assert_eq!((e.time, e.kind), want);
            }
            assert!(q.pop().is_none() && q.is_empty());
            // Reusable once drained.
            q.push(3, 1);
            q.push(3, 2);
            assert_eq!(q.pop().map(|e| e.kind), Some(1));
        }
    }

    #[test]
    fn pops_in_time_then_insertion_order_like_a_stable_sort() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(5);
        let mut q = EventQueue::new();
        let mut reference = Vec::new();
        let mut popped = Vec::new();
        let mut now = 0u64;
        for i in 0..5000u32 {
            let t = now + rng.random_range(0..300u64);
            q.push(t, i);
            reference.push((t, i));
            if i % 3 == 0 {
                let e = q.pop().unwrap();
                now = e.time;
                popped.push(e);
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
