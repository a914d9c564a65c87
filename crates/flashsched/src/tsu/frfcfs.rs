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

use std::collections::VecDeque;

use super::TransactionScheduler;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{Txn, TxnId};

pub struct FrFcfs {
    /// Per chip, (transaction, die), oldest first. Slacker (`slacker.rs`) reorders them.
    pub(super) reads: Vec<VecDeque<(TxnId, u32)>>,
    pub(super) writes: Vec<VecDeque<(TxnId, u32)>>,
    /// The chip of a die.
    pub(super) layout: Layout,
    /// Writes go first when `100 * write-queue length > drain_above` (alpha% of the nominal
    /// capacity, kept times 100 so the comparison is exact).
    drain_above: u64,
    pub(super) len: usize,
    /// Host writes held aside (`hold_aside`), per chip and per die: counted in the write queue's
    /// length, in `len` and in the queue counts as if they were queued at the head of their die's
    /// writes.
    aside_chip: Vec<u32>,
    aside_die: Vec<u32>,
}

impl FrFcfs {
    pub fn new(layout: Layout, alpha_percent: u32, write_queue: u32) -> Self {
        let chips = layout.chips() as usize;
        FrFcfs {
            reads: (0..chips).map(|_| VecDeque::new()).collect(),
            writes: (0..chips).map(|_| VecDeque::new()).collect(),
            layout,
            drain_above: alpha_percent as u64 * write_queue as u64,
            len: 0,
            aside_chip: vec![0; chips],
            aside_die: vec![0; layout.dies() as usize],
        }
    }

    /// Whether `next` drains the chip's writes first: its write queue, the writes held aside
    /// included, is more than alpha% full.
    #[inline]
    fn drains(&self, chip: usize) -> bool {
        (self.writes[chip].len() as u64 + u64::from(self.aside_chip[chip])) * 100 > self.drain_above
    }

    /// Host writes held aside (`TransactionScheduler::hold_aside`) for `die`, or for its whole
    /// chip (Slacker's debug check of its counts).
    #[cfg(debug_assertions)]
    pub(super) fn aside_of(&self, die: u32, whole_chip: bool) -> u32 {
        if whole_chip { self.aside_chip[self.layout.chip_of_die(die) as usize] } else { self.aside_die[die as usize] }
    }

    fn queue(&mut self, txn: &Txn) -> &mut VecDeque<(TxnId, u32)> {
        let chip = self.layout.chip_of_die(txn.die) as usize;
        if txn.kind.is_read() {
            &mut self.reads[chip]
        } else {
            &mut self.writes[chip]
        }
    }

    /// Remove and return the oldest transaction of `q` for `die`.
    pub(super) fn first_for(q: &mut VecDeque<(TxnId, u32)>, die: u32) -> Option<TxnId> {
        // Most often the head (a chip's queue holds few dies' work): no general removal then.
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
    fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        let die = txn.die;
        self.queue(txn).push_back((id, die));
        self.len += 1;
    }
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn) {
        let die = txn.die;
        self.queue(txn).push_front((id, die));
        self.len += 1;
    }
    fn next(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        let chip = self.layout.chip_of_die(die) as usize;
        let t = if self.drains(chip) {
            Self::first_for(&mut self.writes[chip], die).or_else(|| Self::first_for(&mut self.reads[chip], die))
        } else {
            Self::first_for(&mut self.reads[chip], die).or_else(|| Self::first_for(&mut self.writes[chip], die))
        };
        if t.is_some() {
            self.len -= 1;
        }
        t
    }
    fn next_read(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        let chip = self.layout.chip_of_die(die) as usize;
        let t = Self::first_for(&mut self.reads[chip], die);
        if t.is_some() {
            self.len -= 1;
        }
        t
    }
    fn take_companions(&mut self, die: u32, class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) {
        let chip = self.layout.chip_of_die(die) as usize;
        let mine = |(t, d): (TxnId, u32)| (d == die).then_some(t);
        let mut room = max;
        // Reads are in the read queue; programs and erases in the write queue.
        if class == NandOpKind::Read {
            self.len -= super::take_matching(&mut self.reads[chip], mine, &mut room, fits, out);
        } else {
            self.len -= super::take_matching(&mut self.writes[chip], mine, &mut room, fits, out);
        }
    }
    fn queued_for_die(&self, die: u32) -> usize {
        let chip = self.layout.chip_of_die(die) as usize;
        let (reads, writes) = (&self.reads[chip], &self.writes[chip]);
        let aside = self.aside_die[die as usize] as usize;
        // Asked for every host write by a load-weighing allocator: with one die a chip, the
        // chip's queues are the die's, and on an overloaded drive they hold thousands.
        if self.layout.dies_per_chip == 1 {
            debug_assert!(reads.iter().chain(writes).all(|&(_, d)| d == die));
            return reads.len() + writes.len() + aside;
        }
        reads.iter().chain(writes).filter(|&&(_, d)| d == die).count() + aside
    }
    fn queued_on_chip(&self, chip: u32) -> usize {
        self.reads[chip as usize].len() + self.writes[chip as usize].len() + self.aside_chip[chip as usize] as usize
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
        let writes = self.writes[chip].len() as u64 + u64::from(self.aside_chip[chip]);
        self.aside_chip[chip] -= n;
        self.aside_die[die as usize] -= n;
        self.len -= n as usize;
        if !self.reads[chip].iter().any(|&(_, d)| d == die) {
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
        assert_eq!(s.next(0, &[]), Some(5), "back to 3 writes: reads first again");
        assert_eq!(s.next(0, &[]), Some(3));
        assert_eq!(s.next(0, &[]), Some(4));
        assert_eq!(s.next(0, &[]), Some(6));
        assert_eq!(s.next(0, &[]), None);
    }

    #[test]
    fn a_die_counts_its_queued_and_held_transactions() {
        // One die a chip (the tiny layout: the queues' lengths are the answer) and two.
        let mut g = crate::config::Settings::from_options(&crate::config::Options::from_preset("tiny").unwrap()).unwrap().geometry;
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
