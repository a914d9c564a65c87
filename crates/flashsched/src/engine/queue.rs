//! The event queue: events ordered by `(time, insertion sequence)` in one integer key, `time << 64
//! | sequence`, so that one comparison orders both time and ties.
//!
//! A drive's simulation keeps few events pending (about one a busy die and channel: 26 on average
//! on bench8x8, 95 at most), and pops every one of them, so a pop must cost next to nothing. While
//! at most `SORTED_MAX` are pending they are kept sorted in a window of a fixed buffer: a pop takes
//! the window's first entry; a push finds its place by a binary search whose steps depend only on
//! the count (no mispredicted branch on the keys) and moves the shorter side of the window by one
//! slot (an event due after all others, or before all others, moves nothing). Beyond that count a
//! push or pop costs more than a heap's, so the queue turns into a 4-ary min-heap (an ascending
//! array already is one) and back into a sorted window once it has drained to `SORTED_BACK`.
//! docs/performance.md has the measurements, and the alternatives tried.

use super::{Event, Time};

/// Most events kept sorted; one more turns the queue into a heap.
const SORTED_MAX: usize = 128;
/// A heap drained to this many turns back into a sorted window (well below `SORTED_MAX`, so that
/// a count hovering near the limit does not convert back and forth).
const SORTED_BACK: usize = 32;
/// The sorted window's buffer: twice the window's largest size, so that recentring it leaves at
/// least `SORTED_MAX / 2` free slots on each side.
const SLOTS: usize = 2 * SORTED_MAX;

/// A priority queue of events keyed by (time, insertion order).
#[derive(Debug)]
pub struct EventQueue<K> {
    /// Sorted mode: the pending events, ascending by key, in `slots[head..tail]`.
    slots: Box<[(u128, K)]>,
    head: usize,
    tail: usize,
    /// Heap mode (more than `SORTED_MAX` pending): a 4-ary min-heap; empty in sorted mode.
    heap: Vec<(u128, K)>,
    in_heap: bool,
    seq: u64,
}

impl<K: Copy + Default> EventQueue<K> {
    pub fn new() -> Self {
        EventQueue {
            slots: vec![(0, K::default()); SLOTS].into_boxed_slice(),
            head: SLOTS / 2,
            tail: SLOTS / 2,
            heap: Vec::new(),
            in_heap: false,
            seq: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, kind: K) {
        self.seq += 1;
        let key = (time as u128) << 64 | self.seq as u128;
        if self.in_heap {
            heap_push(&mut self.heap, (key, kind));
        } else if self.tail - self.head == SORTED_MAX {
            self.to_heap();
            heap_push(&mut self.heap, (key, kind));
        } else {
            self.insert_sorted(key, kind);
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event<K>> {
        let (key, kind) = if self.in_heap {
            let e = heap_pop(&mut self.heap)?;
            if self.heap.len() <= SORTED_BACK {
                self.to_sorted();
            }
            e
        } else {
            if self.head == self.tail {
                return None;
            }
            // SAFETY: `head < tail <= SLOTS`, the buffer's length.
            let e = unsafe { *self.slots.get_unchecked(self.head) };
            self.head += 1;
            e
        };
        Some(Event { time: (key >> 64) as u64, kind })
    }

    /// Sorted mode, with room for one more: put the event after every smaller key.
    #[inline(always)]
    fn insert_sorted(&mut self, key: u128, kind: K) {
        let (head, tail) = (self.head, self.tail);
        // Lower bound of `key` in the window, branch-free: the loop runs log2(count) times
        // whatever the keys. The new event has the largest sequence number, so a pending one
        // comes before it exactly when its time is not later: one 64-bit comparison (a 128-bit
        // one compiles to a branch on the high halves).
        let time = (key >> 64) as u64;
        let before = |e: &(u128, K)| (e.0 >> 64) as u64 <= time;
        // Due after every pending event (42% of the pushes on bench8x8, and mostly the same
        // call sites: a program's end, the next arrival): no search, no move. Inlined at each
        // call site, this branch is predicted per site.
        if tail < SLOTS && (head == tail || before(&self.slots[tail - 1])) {
            self.slots[tail] = (key, kind);
            self.tail = tail + 1;
            return;
        }
        let mut base = head;
        let mut size = tail - head;
        if size > 0 {
            // SAFETY (all reads below): `base + half < base + size <= tail <= SLOTS`; the
            // window's bounds are kept inside the buffer by every push, pop and recentring.
            unsafe {
                while size > 1 {
                    let half = size / 2;
                    // A conditional move, not a branch: the comparison's outcome is a coin toss
                    // (a branch mispredicted half the time, measured).
                    let mid = base + half;
                    base = std::hint::select_unpredictable(before(self.slots.get_unchecked(mid)), mid, base);
                    size -= half;
                }
                base += usize::from(before(self.slots.get_unchecked(base)));
            }
        }
        let at = base - head;
        let n = tail - head;
        if at < n - at {
            // Nearer the front: the smaller keys move one slot towards it. (Defensive: every
            // reset leaves `head + tail >= SLOTS - 1` and only a front insertion, which adds an
            // event, lowers that sum, so `head` reaches 0 only with `SORTED_MAX` events pending,
            // when the push has turned the queue into a heap instead.)
            if head == 0 {
                self.recentre();
            }
            let h = self.head;
            // SAFETY: `1 <= h` and `h + at <= tail <= SLOTS`: the moved entries and the new
            // slot `h - 1 + at` lie inside the buffer (a bounds-checked copy_within was 13% of
            // the push).
            unsafe {
                let p = self.slots.as_mut_ptr();
                std::ptr::copy(p.add(h), p.add(h - 1), at);
                p.add(h - 1 + at).write((key, kind));
            }
            self.head = h - 1;
        } else {
            if tail == SLOTS {
                self.recentre();
            }
            let (h, t) = (self.head, self.tail);
            // SAFETY: `t < SLOTS` (recentred when full): the entries `h + at .. t` move to
            // `h + at + 1 ..= t`, inside the buffer, and the new one takes `h + at < SLOTS`.
            unsafe {
                let p = self.slots.as_mut_ptr();
                std::ptr::copy(p.add(h + at), p.add(h + at + 1), t - h - at);
                p.add(h + at).write((key, kind));
            }
            self.tail = t + 1;
        }
    }

    /// Move the window to the middle of the buffer (it drifts: pops take from its front, late
    /// events land at its back).
    #[cold]
    fn recentre(&mut self) {
        let n = self.tail - self.head;
        let to = (SLOTS - n) / 2;
        self.slots.copy_within(self.head..self.tail, to);
        self.head = to;
        self.tail = to + n;
    }

    /// More events than `SORTED_MAX`: the ascending window becomes the heap as it is.
    #[cold]
    fn to_heap(&mut self) {
        self.heap.clear();
        self.heap.extend_from_slice(&self.slots[self.head..self.tail]);
        self.head = SLOTS / 2;
        self.tail = SLOTS / 2;
        self.in_heap = true;
    }

    /// Drained to `SORTED_BACK`: back to a sorted window.
    #[cold]
    fn to_sorted(&mut self) {
        self.heap.sort_unstable_by_key(|e| e.0);
        let n = self.heap.len();
        let to = (SLOTS - n) / 2;
        self.slots[to..to + n].copy_from_slice(&self.heap);
        (self.head, self.tail) = (to, to + n);
        self.heap.clear();
        self.in_heap = false;
    }

    pub fn len(&self) -> usize {
        if self.in_heap { self.heap.len() } else { self.tail - self.head }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Events pushed so far (a deterministic measure of work done).
    pub fn pushed(&self) -> u64 {
        self.seq
    }
}

impl<K: Copy + Default> Default for EventQueue<K> {
    fn default() -> Self {
        Self::new()
    }
}

/// Push onto a 4-ary min-heap.
#[inline]
fn heap_push<K: Copy>(h: &mut Vec<(u128, K)>, e: (u128, K)) {
    let mut i = h.len();
    h.push(e);
    // SAFETY: every index is below `h.len()`: `i` starts at the last slot and only moves to
    // parents, which are smaller.
    unsafe {
        while i > 0 {
            let parent = (i - 1) >> 2;
            let p = *h.get_unchecked(parent);
            if p.0 <= e.0 {
                break;
            }
            *h.get_unchecked_mut(i) = p;
            i = parent;
        }
        *h.get_unchecked_mut(i) = e;
    }
}

/// Pop the smallest key of a 4-ary min-heap.
#[inline]
fn heap_pop<K: Copy>(h: &mut Vec<(u128, K)>) -> Option<(u128, K)> {
    let top = *h.first()?;
    let last = h.pop().expect("non-empty");
    let n = h.len();
    if n > 0 {
        let mut i = 0;
        // SAFETY: `i` and `best` are below `n` (children are read only below `end <= n`), and
        // `n == h.len()`.
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
    Some(top)
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

    /// The queue's two forms and the moves between them: sixty rounds of counts that rise past
    /// `SORTED_MAX` or stay below it and drain below `SORTED_BACK` or not (at least four changes
    /// of form are asserted), events due at the current time, after all others and among them
    /// (the window drifting to the back of its buffer and recentred), every pop checked against
    /// an ordered set.
    #[test]
    fn sorted_window_and_heap_agree_with_the_reference_across_conversions() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut now = 0u64;
        let mut i = 0u32;
        let mut conversions = 0;
        let mut was_heap = false;
        for round in 0..60 {
            // Fill to a count drawn on either side of the limits, then drain to another.
            let high = rng.random_range(1..(3 * SORTED_MAX as u32));
            let low = rng.random_range(0..high.min(2 * SORTED_BACK as u32));
            while reference.len() < high as usize {
                let t = match (round + i) % 4 {
                    0 => now,                                   // due now: after the pending ties
                    1 => now + 1_000_000 + i as u64,            // after everything pending
                    _ => now + rng.random_range(0..2_000u64),   // among them
                };
                q.push(t, i);
                reference.insert((t, i));
                i += 1;
                if rng.random_range(0..5) == 0 {
                    let e = q.pop().unwrap();
                    assert_eq!((e.time, e.kind), reference.pop_first().unwrap());
                    now = e.time;
                }
            }
            while reference.len() > low as usize {
                let e = q.pop().unwrap();
                assert_eq!((e.time, e.kind), reference.pop_first().unwrap());
                now = e.time;
            }
            assert_eq!(q.len(), reference.len());
            if q.in_heap != was_heap {
                conversions += 1;
                was_heap = q.in_heap;
            }
        }
        assert!(conversions >= 4, "the test must cross between the two forms: {conversions} crossings");
        while let Some(want) = reference.pop_first() {
            let e = q.pop().unwrap();
            assert_eq!((e.time, e.kind), want);
        }
        assert!(q.is_empty() && q.pop().is_none());
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
