//! `frfcfs`: first-ready, first-come-first-served with conditional queue size, Slacker's baseline
//! (paper 003 §2.1: "Read requests are prioritized over writes unless WRQ is > α% full, in which
//! case a write is prioritized"). Each chip has a read queue (host and GC reads) and a write
//! queue (host and GC writes, erases). An idle die takes the oldest read queued for it, unless the
//! chip's write queue is more than alpha% full (strictly, as the paper says), in which case it takes the
//! oldest write queued for it first ("write drain"); with no read for it, the oldest write.
//!
//! Parameters: `tsu.frfcfs.alpha` (percent, default 75) and `tsu.frfcfs.write_queue` (nominal
//! write-queue capacity per chip, default 32). Slacker gives neither value [INFER]; the write queue
//! is not a hard limit here (the host side is bounded by `host.queue_depth`).
//!
//! The chip's queues are kept as one queue per die: nothing here depends on the order of
//! different dies' entries (a die takes the oldest of its own, a command gathers its own, the
//! drain rule counts the chip's writes), so a die finds its oldest entry at the head of its
//! queue instead of searching the chip's for it (on an overloaded drive a chip's queue holds
//! thousands of entries of its other dies). Slacker with the chip as its unit walks the chip's
//! queue across dies, and has it kept as one (`per_chip`).

use std::collections::VecDeque;

use super::TransactionScheduler;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{Txn, TxnId};

pub struct FrFcfs {
    /// Per die (per chip with `per_chip`: `queue_of` says which), (transaction, die), oldest
    /// first. Slacker (`slacker.rs`) reorders them.
    pub(super) reads: Vec<VecDeque<(TxnId, u32)>>,
    pub(super) writes: Vec<VecDeque<(TxnId, u32)>>,
    /// The chip of a die.
    pub(super) layout: Layout,
    /// Queues per chip rather than per die (only with several dies a chip: with one they are
    /// the same).
    per_chip: bool,
    /// Writes go first when `100 * write-queue length > drain_above` (alpha% of the nominal
    /// capacity, kept times 100 so the comparison is exact).
    drain_above: u64,
    len: usize,
    /// Host writes held aside (`hold_aside`), per chip and per die: counted in the write queue's
    /// length, in `len` and in the queue counts as if they were queued at the head of their die's
    /// writes.
    aside_chip: Vec<u32>,
    aside_die: Vec<u32>,
    /// Per chip, transactions queued (reads and writes) and writes queued: the chip's queue
    /// lengths, kept as its dies' queues change (asked at every choice: the drain rule, and the
    /// chip-state questions of VIOS, WR and the idle-time task).
    chip_n: Vec<u32>,
    chip_w: Vec<u32>,
    /// Per die, transactions queued: a die's count without searching its chip's queue when the
    /// queues are per chip (asked at every arrival and every choice).
    die_n: Vec<u32>,
    /// Writes taken first because the write queue was over alpha while a read for the same die
    /// waited (the drain engaged), since measurement began.
    drain_picks: u64,
}

impl FrFcfs {
    pub fn new(layout: Layout, alpha_percent: u32, write_queue: u32) -> Self {
        let chips = layout.chips() as usize;
        let dies = layout.dies() as usize;
        FrFcfs {
            reads: (0..dies).map(|_| VecDeque::new()).collect(),
            writes: (0..dies).map(|_| VecDeque::new()).collect(),
            layout,
            per_chip: false,
            drain_above: alpha_percent as u64 * write_queue as u64,
            len: 0,
            aside_chip: vec![0; chips],
            aside_die: vec![0; dies],
            chip_n: vec![0; chips],
            chip_w: vec![0; chips],
            die_n: vec![0; dies],
            drain_picks: 0,
        }
    }

    /// Writes the drain rule put before a waiting read of their die (`ssd.tsu.write_drain_picks`).
    pub fn drain_picks(&self) -> u64 {
        self.drain_picks
    }

    /// `n` transactions joined `die`'s read queue (`write` false) or write queue: the counts.
    #[inline]
    pub(super) fn added(&mut self, die: u32, write: bool, n: u32) {
        let chip = self.layout.chip_of_die(die) as usize;
        self.len += n as usize;
        self.chip_n[chip] += n;
        self.chip_w[chip] += u32::from(write) * n;
        self.die_n[die as usize] += n;
    }

    /// `n` transactions of `die` left a read queue (`write` false) or write queue of `chip`.
    #[inline]
    fn left_chip(&mut self, chip: usize, die: u32, write: bool, n: u32) {
        self.len -= n as usize;
        self.chip_n[chip] -= n;
        self.chip_w[chip] -= u32::from(write) * n;
        self.die_n[die as usize] -= n;
    }

    /// `n` transactions left `die`'s read queue (`write` false) or write queue.
    #[inline]
    pub(super) fn removed(&mut self, die: u32, write: bool, n: u32) {
        self.left_chip(self.layout.chip_of_die(die) as usize, die, write, n);
    }

    /// One queue a chip, its dies' entries in the order they were queued (or placed by Slacker):
    /// for Slacker with the chip as its unit, whose walk passes the chip's entries by their
    /// slack whatever their die. Before anything is queued.
    pub(super) fn per_chip(mut self) -> Self {
        assert_eq!(self.len, 0, "queues regrouped with transactions in them");
        if self.layout.dies_per_chip > 1 {
            let chips = self.layout.chips() as usize;
            self.reads = (0..chips).map(|_| VecDeque::new()).collect();
            self.writes = (0..chips).map(|_| VecDeque::new()).collect();
            self.per_chip = true;
        }
        self
    }

    /// The queue (read and write) holding `die`'s entries.
    #[inline]
    pub(super) fn queue_of(&self, die: u32) -> usize {
        if self.per_chip { self.layout.chip_of_die(die) as usize } else { die as usize }
    }

    /// The queues holding `chip`'s entries.
    #[inline]
    fn queues_of_chip(&self, chip: usize) -> std::ops::Range<usize> {
        if self.per_chip {
            chip..chip + 1
        } else {
            let dpc = self.layout.dies_per_chip as usize;
            chip * dpc..(chip + 1) * dpc
        }
    }

    /// Writes queued on `chip` (its dies' write queues).
    #[inline]
    fn chip_writes(&self, chip: usize) -> usize {
        debug_assert_eq!(self.chip_w[chip] as usize, self.writes[self.queues_of_chip(chip)].iter().map(VecDeque::len).sum::<usize>(), "chip {chip}'s write count drifted");
        self.chip_w[chip] as usize
    }

    /// Whether a read for `die` waits in queue `q`.
    fn read_waits(&self, q: usize, die: u32) -> bool {
        if self.per_chip {
            self.reads[q].iter().any(|&(_, d)| d == die)
        } else {
            !self.reads[q].is_empty()
        }
    }

    /// Whether `next` drains the chip's writes first: its write queue, the writes held aside
    /// included, is more than alpha% full.
    #[inline]
    fn drains(&self, chip: usize) -> bool {
        (self.chip_writes(chip) as u64 + u64::from(self.aside_chip[chip])) * 100 > self.drain_above
    }

    /// Host writes held aside (`TransactionScheduler::hold_aside`) for `die`, or for its whole
    /// chip (Slacker's debug check of its counts).
    #[cfg(debug_assertions)]
    pub(super) fn aside_of(&self, die: u32, whole_chip: bool) -> u32 {
        if whole_chip { self.aside_chip[self.layout.chip_of_die(die) as usize] } else { self.aside_die[die as usize] }
    }

    fn queue(&mut self, txn: &Txn) -> &mut VecDeque<(TxnId, u32)> {
        let q = self.queue_of(txn.die);
        if txn.kind.is_read() {
            &mut self.reads[q]
        } else {
            &mut self.writes[q]
        }
    }

    /// Remove and return the oldest transaction of `q` for `die`.
    pub(super) fn first_for(q: &mut VecDeque<(TxnId, u32)>, die: u32) -> Option<TxnId> {
        // The head, always with a queue per die, and most often with one per chip: no general
        // removal then.
        if q.front().is_some_and(|&(_, d)| d == die) {
            return q.pop_front().map(|(t, _)| t);
        }
        let i = q.iter().position(|&(_, d)| d == die)?;
        q.remove(i).map(|(t, _)| t)
    }
}

impl TransactionScheduler for FrFcfs {
    fn name(&self) -> &'static str {
        "frfcfs"
    }
    fn begin_measurement(&mut self) {
        self.drain_picks = 0;
    }
    fn report(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({"scheduler": self.name(), "write_drain_picks": self.drain_picks}))
    }
    fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        let die = txn.die;
        self.queue(txn).push_back((id, die));
        self.added(die, !txn.kind.is_read(), 1);
    }
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn) {
        let die = txn.die;
        self.queue(txn).push_front((id, die));
        self.added(die, !txn.kind.is_read(), 1);
    }
    fn next(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        // Asked whenever a die ends an operation, and on a drive that keeps up its queues are
        // mostly empty then: answered before the drain rule is worked out.
        if !self.per_chip && self.reads[die as usize].is_empty() && self.writes[die as usize].is_empty() {
            return None;
        }
        let chip = self.layout.chip_of_die(die) as usize;
        // `queue_of(die)`, with the chip already at hand.
        let q = if self.per_chip { chip } else { die as usize };
        let drains = self.drains(chip);
        let (first, then) = if drains { (&mut self.writes, &mut self.reads) } else { (&mut self.reads, &mut self.writes) };
        // (transaction, from the write queue); a die's own queue holds only its entries.
        let (t, write) = if self.per_chip {
            match Self::first_for(&mut first[q], die) {
                Some(t) => (t, drains),
                None => (Self::first_for(&mut then[q], die)?, !drains),
            }
        } else {
            let (t, write) = match first[q].pop_front() {
                Some(e) => (e, drains),
                None => (then[q].pop_front()?, !drains),
            };
            debug_assert_eq!(t.1, die, "an entry of die {} in die {die}'s queue", t.1);
            (t.0, write)
        };
        if drains && write && self.read_waits(q, die) {
            self.drain_picks += 1;
        }
        self.left_chip(chip, die, write, 1);
        Some(t)
    }
    fn takes_at_once(&mut self, _id: TxnId, txn: &Txn) -> bool {
        // Nothing queued or held aside for the die: whichever queue `next` looks at first (the
        // drain rule), the die's only entry is the one just queued, and the pair leaves every
        // count as it was.
        self.queued_for_die(txn.die) == 0
    }
    fn next_read(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        let q = self.queue_of(die);
        let t = Self::first_for(&mut self.reads[q], die);
        if t.is_some() {
            self.removed(die, false, 1);
        }
        t
    }
    fn take_companions(&mut self, die: u32, class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) {
        let q = self.queue_of(die);
        let mine = |(t, d): (TxnId, u32)| (d == die).then_some(t);
        let mut room = max;
        // Reads are in the read queue; programs and erases in the write queue.
        let write = class != NandOpKind::Read;
        let queue = if write { &mut self.writes[q] } else { &mut self.reads[q] };
        let taken = super::take_matching(queue, mine, &mut room, fits, out);
        self.removed(die, write, taken as u32);
    }
    #[inline]
    fn queued_for_die(&self, die: u32) -> usize {
        // Asked for every host write by a load-weighing allocator, and by the simulator whenever
        // a die may start or a program may pause: counted as the queues change, not searched (on
        // an overloaded drive a chip's shared queue holds thousands).
        let d = die as usize;
        debug_assert_eq!(
            self.die_n[d] as usize,
            self.reads[self.queue_of(die)].iter().chain(&self.writes[self.queue_of(die)]).filter(|&&(_, x)| x == die).count(),
            "die {die}'s count drifted"
        );
        self.die_n[d] as usize + self.aside_die[d] as usize
    }
    fn counts_per_die(&self) -> bool {
        // Per die or per chip, the die's count is kept (`die_n`).
        true
    }
    fn queued_on_chip(&self, chip: u32) -> usize {
        let c = chip as usize;
        debug_assert_eq!(self.chip_n[c] as usize, self.queues_of_chip(c).map(|q| self.reads[q].len() + self.writes[q].len()).sum::<usize>(), "chip {chip}'s count drifted");
        self.chip_n[c] as usize + self.aside_chip[c] as usize
    }
    fn len(&self) -> usize {
        self.len
    }
    fn holds_aside(&self) -> bool {
        true
    }
    fn hold_aside(&mut self, die: u32, n: u32) {
        let chip = self.layout.chip_of_die(die) as usize;
        self.aside_chip[chip] += n;
        self.aside_die[die as usize] += n;
        self.len += n as usize;
    }
    fn drop_aside(&mut self, die: u32, n: u32) -> u32 {
        let chip = self.layout.chip_of_die(die) as usize;
        // `next(die)` takes the oldest write of the die, which is the first of these, while the
        // chip drains its writes, and also after that while no read waits for the die: each one
        // it takes shortens the write queue by one.
        let writes = self.chip_writes(chip) as u64 + u64::from(self.aside_chip[chip]);
        self.aside_chip[chip] -= n;
        self.aside_die[die as usize] -= n;
        self.len -= n as usize;
        if !self.read_waits(self.queue_of(die), die) {
            return n;
        }
        // Draining while `w * 100 > drain_above`, i.e. while w > floor(drain_above / 100).
        writes.saturating_sub(self.drain_above / 100).min(u64::from(n)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::txn::TxnKind;

    fn txn(kind: TxnKind, die: u32) -> Txn {
        Txn::new(kind, 0, 0, 0, 0, die, 4096, 0)
    }

    #[test]
    fn reads_first_until_the_write_queue_is_more_than_alpha_full() {
        // capacity 4, alpha 75%: 3 queued writes are exactly 75% full, not more: reads still go
        // first; a 4th write makes the queue more than 75% full and writes drain.
        let mut s = FrFcfs::new(crate::tsu::tiny_layout(), 75, 4);
        let w = txn(TxnKind::HostWrite, 0);
        let r = txn(TxnKind::HostRead, 0);
        s.enqueue(1, &w);
        s.enqueue(2, &r);
        s.enqueue(3, &w);
        s.enqueue(4, &w);
        assert_eq!(s.next(0, &[]), Some(2), "3 writes queued (= 75%, not > 75%): read first");
        s.enqueue(5, &r);
        s.enqueue(6, &w);
        assert_eq!(s.next(0, &[]), Some(1), "4 writes queued (100% > 75%): the oldest write first");
        assert_eq!(s.drain_picks(), 1, "the drain put write 1 before read 5");
        assert_eq!(s.next(0, &[]), Some(5), "back to 3 writes: reads first again");
        assert_eq!(s.next(0, &[]), Some(3));
        assert_eq!(s.next(0, &[]), Some(4));
        assert_eq!(s.next(0, &[]), Some(6));
        assert_eq!(s.next(0, &[]), None);
        // Writes taken with no read waiting are not the drain's doing.
        assert_eq!(s.drain_picks(), 1);
        s.begin_measurement();
        assert_eq!(s.drain_picks(), 0);
    }

    #[test]
    fn a_die_counts_its_queued_and_held_transactions() {
        // One die a chip (the tiny layout: the queues' lengths are the answer) and two.
        let mut g = crate::tsu::tiny_settings(&[]).geometry;
        for dies_per_chip in [1, 2] {
            g.dies_per_chip = dies_per_chip;
            let layout = Layout::new(&g);
            let mut s = FrFcfs::new(layout, 75, 32);
            let dies = [0, 3, 3, 1, 0, 3, 2, 3];
            for (i, &d) in dies.iter().enumerate() {
                let kind = if i % 3 == 0 { TxnKind::HostRead } else { TxnKind::HostWrite };
                s.enqueue(i as TxnId, &txn(kind, d));
            }
            s.hold_aside(3, 2);
            s.next(0, &[]);
            let want = |d: u32| dies.iter().filter(|&&x| x == d).count() - usize::from(d == 0) + if d == 3 { 2 } else { 0 };
            for d in 0..4 {
                assert_eq!(s.queued_for_die(d), want(d), "die {d}, {dies_per_chip} dies a chip");
            }
        }
    }

    proptest::proptest! {
        /// A queue per die gives what one queue per chip gives (nothing FR-FCFS decides looks
        /// at the order of different dies' entries): the same transactions taken, in the same
        /// order, and the same counts, through every way entries enter and leave, on chips of
        /// two and four dies, with writes held aside.
        #[test]
        fn queues_per_die_take_what_one_queue_per_chip_takes(dies_per_chip in proptest::sample::select(vec![2u32, 4]),
                ops in proptest::collection::vec((0u8..8, 0u32..64, 0u8..4), 1..300)) {
            let mut g = crate::tsu::tiny_settings(&[]).geometry;
            g.dies_per_chip = dies_per_chip;
            let layout = Layout::new(&g);
            let (mut per_die, mut per_chip) = (FrFcfs::new(layout, 75, 4), FrFcfs::new(layout, 75, 4).per_chip());
            let kinds = [TxnKind::HostRead, TxnKind::HostWrite, TxnKind::GcRead, TxnKind::Erase];
            for (i, &(op, d, k)) in ops.iter().enumerate() {
                let die = d % layout.dies();
                let t = txn(kinds[k as usize], die);
                let step = |s: &mut FrFcfs| -> Vec<TxnId> {
                    match op {
                        0 | 1 => { s.enqueue(i as TxnId, &t); vec![] }
                        2 => { s.enqueue_front(i as TxnId, &t); vec![] }
                        3 => s.next(die, &[]).into_iter().collect(),
                        4 => s.next_read(die, &[]).into_iter().collect(),
                        5 => {
                            // What was taken, then every transaction the scan asked about.
                            let (mut out, mut asked) = (Vec::new(), Vec::new());
                            let class = if k % 2 == 0 { NandOpKind::Read } else { NandOpKind::Program };
                            s.take_companions(die, class, 2, &mut |c| { asked.push(c); c % 3 != 0 }, &mut out);
                            out.extend(asked);
                            out
                        }
                        6 => { s.hold_aside(die, 1 + u32::from(k)); vec![] }
                        _ => {
                            let held = s.aside_die[die as usize];
                            vec![s.drop_aside(die, held.min(u32::from(k)))]
                        }
                    }
                };
                proptest::prop_assert_eq!(step(&mut per_die), step(&mut per_chip), "op {} at step {}", op, i);
                for d in 0..layout.dies() {
                    proptest::prop_assert_eq!(per_die.queued_for_die(d), per_chip.queued_for_die(d));
                }
                for c in 0..layout.chips() {
                    proptest::prop_assert_eq!(per_die.queued_on_chip(c), per_chip.queued_on_chip(c));
                    proptest::prop_assert_eq!(per_die.drains(c as usize), per_chip.drains(c as usize));
                }
                proptest::prop_assert_eq!(per_die.len(), per_chip.len());
            }
        }
    }

    #[test]
    fn a_die_only_takes_its_own_transactions() {
        let mut s = FrFcfs::new(crate::tsu::tiny_layout(), 75, 32);
        s.enqueue(1, &txn(TxnKind::HostRead, 1));
        s.enqueue(2, &txn(TxnKind::GcRead, 0));
        assert_eq!(s.next(0, &[]), Some(2));
        assert_eq!(s.next(0, &[]), None);
        assert_eq!(s.next(1, &[]), Some(1));
    }
}
