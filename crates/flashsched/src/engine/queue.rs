//! The event queue: events ordered by `(time, insertion sequence)`, so that simultaneous events
//! run first-in, first-out.
//!
//! A drive's simulation keeps few events pending (about one a busy die and channel: 26 on average
//! on bench8x8, 95 at most), nearly all due within a few milliseconds of now (a transfer's end
//! 12 us ahead, a read's 50 us, a program's about 0.5-1 ms), and pops every one of them. So the
//! near future is a timing wheel: `BUCKETS` buckets of `1 << SHIFT` nanoseconds each, covering
//! `[base, base + SPAN)`, where `base` is the start of the current bucket. A bucket is a list of
//! its events in the order they are due (time, then push order); a push appends to its bucket
//! (an event due before the bucket's last one walks the list from its front: buckets hold one
//! event or two), and a pop takes the current bucket's first event or moves on to the next
//! occupied bucket by a scan of a bit per bucket. Events due at or beyond `base + SPAN` wait in
//! a 4-ary min-heap keyed by `(time, sequence)`; when the wheel moves on, those the new span
//! covers move into it. Neither a push nor a pop searches or moves the pending events.
//!
//! Order within a bucket needs no sequence numbers: an event moved in from the heap is due at or
//! after the old end of the span, so its bucket held no event yet (it was one of those the wheel
//! just passed, empty), and the heap gives them up in `(time, sequence)` order; every later push
//! carries a larger sequence than all pending events, so appending after the events due no later
//! keeps push order among equal times. docs/performance.md has the measurements and the queues
//! tried before this one (a binary heap, a 4-ary heap, a sorted window).

use super::{Event, Time};

/// log2 of a bucket's width in nanoseconds (8,192 ns).
const SHIFT: u32 = 13;
/// Buckets in the wheel (a power of two): with `SHIFT`, a span of 4.19 ms, so that a program's
/// end (well under that on the papers' drives) lands in the wheel, an erase's often in the heap.
const BUCKETS: usize = 512;
const MASK: usize = BUCKETS - 1;
const WORDS: usize = BUCKETS / 64;
/// The time the wheel covers from `base`.
const SPAN: u64 = (BUCKETS as u64) << SHIFT;
/// No node: an empty bucket's first, the end of a list, no free node.
const NIL: u32 = u32::MAX;

#[inline(always)]
fn bucket_of(time: Time) -> usize {
    (time >> SHIFT) as usize & MASK
}

/// One pending event of the wheel, linked to the next one of its bucket (or, once popped, to
/// the next free node).
#[derive(Debug, Clone, Copy)]
struct Node<K> {
    time: Time,
    next: u32,
    kind: K,
}

/// A priority queue of events keyed by (time, insertion order).
#[derive(Debug)]
pub struct EventQueue<K> {
    /// Each bucket's first and last node; the first is `NIL` when the bucket is empty (the last
    /// is then meaningless).
    ends: Box<[[u32; 2]; BUCKETS]>,
    /// A bit per bucket: set while it holds an event.
    occupied: [u64; WORDS],
    /// The wheel's events; every index held in `ends`, a `next` or `free` is below its length
    /// (nodes are never removed, only put on the free list).
    nodes: Vec<Node<K>>,
    /// The first node free for reuse (`NIL`: none; the next push grows `nodes`).
    free: u32,
    /// Start of the current bucket: every event in the wheel is due in `[base, base + SPAN)`,
    /// every event in `far` at or after `base + SPAN`.
    base: Time,
    /// The current bucket, `bucket_of(base)`.
    cur: usize,
    /// Events in the wheel.
    in_wheel: usize,
    /// Events beyond the wheel's span: a 4-ary min-heap on `time << 64 | sequence`.
    far: Vec<(u128, K)>,
    seq: u64,
}

impl<K: Copy> EventQueue<K> {
    pub fn new() -> Self {
        EventQueue {
            ends: Box::new([[NIL; 2]; BUCKETS]),
            occupied: [0; WORDS],
            nodes: Vec::new(),
            free: NIL,
            base: 0,
            cur: 0,
            in_wheel: 0,
            far: Vec::new(),
            seq: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, time: Time, kind: K) {
        self.seq += 1;
        if time < self.base {
            // Due before the current bucket's start: never in a correct simulation (the event
            // loop asserts that time does not go backwards), but if it were, it is due first.
            self.insert(self.cur, time, kind);
        } else if time - self.base < SPAN {
            self.insert(bucket_of(time), time, kind);
        } else {
            heap_push(&mut self.far, ((time as u128) << 64 | self.seq as u128, kind));
        }
    }

    /// The node at `n`. SAFETY: `n` is `NIL`-free and came from `ends`, a `next` or `free`
    /// (the invariant on `nodes`).
    #[inline(always)]
    unsafe fn node(&mut self, n: u32) -> &mut Node<K> {
        unsafe { self.nodes.get_unchecked_mut(n as usize) }
    }

    /// Put an event in bucket `b`, after the bucket's events due no later.
    #[inline(always)]
    fn insert(&mut self, b: usize, time: Time, kind: K) {
        let n = self.alloc(Node { time, next: NIL, kind });
        self.in_wheel += 1;
        let [first, last] = self.ends[b];
        // SAFETY: `first` is a node when not `NIL`, and so then is `last`.
        unsafe {
            if first == NIL {
                self.ends[b] = [n, n];
                self.occupied[b / 64] |= 1 << (b % 64);
            } else if self.node(last).time <= time {
                self.node(last).next = n;
                self.ends[b][1] = n;
            } else {
                self.insert_inside(b, first, n, time);
            }
        }
    }

    /// `insert` for an event due before its bucket's last one: walk the list from the front.
    #[inline(never)]
    fn insert_inside(&mut self, b: usize, first: u32, n: u32, time: Time) {
        // SAFETY: nodes linked from `first` up to the bucket's last, all nodes.
        unsafe {
            if self.node(first).time > time {
                self.node(n).next = first;
                self.ends[b][0] = n;
                return;
            }
            // The last node is due after `time`, so the walk stops before it.
            let mut p = first;
            loop {
                let next = self.node(p).next;
                debug_assert!(next != NIL, "a bucket's last event is due after the one inserted");
                if self.node(next).time > time {
                    self.node(n).next = next;
                    self.node(p).next = n;
                    return;
                }
                p = next;
            }
        }
    }

    #[inline(always)]
    fn alloc(&mut self, node: Node<K>) -> u32 {
        if self.free != NIL {
            let n = self.free;
            // SAFETY: `free` is a node when not `NIL`.
            unsafe {
                self.free = self.node(n).next;
                *self.node(n) = node;
            }
            n
        } else {
            debug_assert!(self.nodes.len() < NIL as usize, "more pending events than node numbers");
            self.nodes.push(node);
            (self.nodes.len() - 1) as u32
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<Event<K>> {
        // The first occupied bucket from the current one, when it is in the current bucket's
        // word of the bit map (the next event is due within 64 buckets, 0.5 ms: nearly always).
        let w = self.cur / 64;
        let here = self.occupied[w] & (!0u64 << (self.cur % 64));
        let b = if here != 0 {
            let b = w * 64 + here.trailing_zeros() as usize;
            // Move the wheel on to it (by nothing if it is the current bucket); the heap's
            // events the new span covers come in.
            self.base += ((b - self.cur) as u64) << SHIFT;
            self.cur = b;
            if let Some(&(key, _)) = self.far.first() {
                if ((key >> 64) as Time) - self.base < SPAN {
                    self.bring_in();
                }
            }
            b
        } else {
            self.advance_far()?
        };
        let first = self.ends[b][0];
        // SAFETY: bucket `b`'s bit is set, so its first is a node.
        let node = unsafe { *self.node(first) };
        self.ends[b][0] = node.next;
        // The bucket's last event: clear its bit (without a branch: whether a bucket held one
        // event or more is a coin toss).
        self.occupied[b / 64] &= !(u64::from(node.next == NIL) << (b % 64));
        unsafe { self.node(first).next = self.free };
        self.free = first;
        self.in_wheel -= 1;
        Some(Event { time: node.time, kind: node.kind })
    }

    /// `pop` when no bucket of the current word from the current one on is occupied: move the
    /// wheel on to the next occupied bucket in the words after (or, with the wheel empty, to the
    /// heap's first event) and bring in the heap's events the new span covers. `None` when
    /// nothing is pending.
    #[inline(never)]
    fn advance_far(&mut self) -> Option<usize> {
        if self.in_wheel == 0 {
            let &(key, _) = self.far.first()?;
            let t = (key >> 64) as Time;
            self.base = t & !((1 << SHIFT) - 1);
            self.cur = bucket_of(t);
        } else {
            let w = self.cur / 64;
            // The words after the current one; the last one looked at is the current word
            // again, whose bits below the current bucket are the far end of the span.
            let next = (1..=WORDS)
                .find_map(|i| {
                    let wi = (w + i) % WORDS;
                    let bits = self.occupied[wi];
                    (bits != 0).then(|| wi * 64 + bits.trailing_zeros() as usize)
                })
                .expect("the wheel holds an event");
            self.base += (((next + BUCKETS - self.cur) & MASK) as u64) << SHIFT;
            self.cur = next;
        }
        self.bring_in();
        debug_assert!(self.occupied[self.cur / 64] & (1 << (self.cur % 64)) != 0, "the wheel moved to an occupied bucket");
        Some(self.cur)
    }

    /// The wheel moved on: the heap's events due within its new span come into it.
    #[cold]
    fn bring_in(&mut self) {
        while let Some(&(key, _)) = self.far.first() {
            // Heap events are due at or after `base` (the old span's end), so the difference
            // does not wrap (and an event at the clock's last nanosecond still comes in).
            let t = (key >> 64) as Time;
            if t - self.base >= SPAN {
                break;
            }
            let (_, kind) = heap_pop(&mut self.far).expect("non-empty");
            // The buckets of `[old end of the span, new end)` are those just passed, empty:
            // this and the heap's order keep (time, sequence) order (module comment).
            self.insert(bucket_of(t), t, kind);
        }
    }

    pub fn len(&self) -> usize {
        self.in_wheel + self.far.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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
    /// and pops with events spread over a few nanoseconds to a microsecond (many in one bucket,
    /// many equal times).
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

    /// The wheel, its far heap and the moves between them: events due now, within a bucket,
    /// across bucket and span boundaries, far beyond the span (the heap), after long gaps with
    /// nothing pending in the wheel, and ties among all of these, every pop checked against an
    /// ordered set. Counts of the paths taken are asserted (pushes to the heap and into the middle
    /// of a bucket; pops that refill an empty wheel from the heap, that bring heap events in while
    /// the wheel holds others, and that wrap around the wheel), so that the test keeps reaching
    /// each one.
    #[test]
    fn wheel_and_far_heap_agree_with_the_reference() {
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        let mut q = EventQueue::new();
        let mut reference = std::collections::BTreeSet::new();
        let mut now = 0u64;
        let (mut to_far, mut inside) = (0, 0);
        let (mut refills, mut brought_in, mut wraps) = (0, 0, 0);
        for i in 0..200_000u32 {
            let w = 1u64 << SHIFT;
            let t = now
                + match rng.random_range(0..10) {
                    0 => 0,                                            // due now: after the ties
                    1 => rng.random_range(0..4) * w,                   // bucket starts
                    2 => rng.random_range(0..3),                       // within the bucket
                    3 => SPAN - 1 + rng.random_range(0..3),            // the span's end
                    4 => rng.random_range(SPAN..4 * SPAN),             // the far heap
                    5 => rng.random_range(0..200) * 1_000_000,         // long gaps, ties far out
                    _ => rng.random_range(0..SPAN),
                };
            if t >= q.base + SPAN {
                to_far += 1;
            } else if t >= q.base && q.ends[bucket_of(t)][0] != NIL && q.nodes[q.ends[bucket_of(t)][1] as usize].time > t {
                inside += 1;
            }
            q.push(t, i);
            reference.insert((t, i));
            assert_eq!(q.len(), reference.len());
            // Pop in bursts, sometimes until empty, so the wheel also refills from the heap.
            let pops = match rng.random_range(0..20) {
                0 => reference.len(),
                1..=9 => 1,
                _ => 0,
            };
            for _ in 0..pops {
                let (cur, in_wheel, far) = (q.cur, q.in_wheel, q.far.len());
                let e = q.pop().unwrap();
                if in_wheel == 0 {
                    refills += 1;
                } else if q.far.len() < far {
                    brought_in += 1;
                }
                if in_wheel > 0 && q.cur < cur {
                    wraps += 1;
                }
                assert_eq!((e.time, e.kind), reference.pop_first().unwrap());
                assert!(e.time >= now);
                now = e.time;
            }
        }
        let paths = [to_far, inside, refills, brought_in, wraps];
        assert!(paths.iter().all(|&n| n > 500), "pushes to the heap, into a bucket; refills, bring-ins, wraps: {paths:?}");
        while let Some(want) = reference.pop_first() {
            let e = q.pop().unwrap();
            assert_eq!((e.time, e.kind), want);
        }
        assert!(q.is_empty() && q.pop().is_none());
    }

    /// An event pushed for a time before the current bucket (never in a correct run) still comes
    /// out first, also near the end of the clock, and times there do not overflow the span.
    #[test]
    fn past_and_last_times() {
        let mut q = EventQueue::new();
        q.push(u64::MAX - 1, 1);
        assert_eq!(q.pop().map(|e| e.kind), Some(1));
        q.push(3, 2);
        q.push(u64::MAX, 3);
        q.push(7, 4);
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|e| e.kind)).collect();
        assert_eq!(order, vec![2, 4, 3]);

        let mut q = EventQueue::new();
        q.push(10 * SPAN, 1);
        q.push(10 * SPAN + 5, 2);
        assert_eq!(q.pop().map(|e| (e.time, e.kind)), Some((10 * SPAN, 1)));
        q.push(3, 3);
        q.push(u64::MAX, 4);
        q.push(u64::MAX - 1, 5);
        let order: Vec<(u64, u32)> = std::iter::from_fn(|| q.pop().map(|e| (e.time, e.kind))).collect();
        assert_eq!(order, vec![(3, 3), (10 * SPAN + 5, 2), (u64::MAX - 1, 5), (u64::MAX, 4)]);
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
