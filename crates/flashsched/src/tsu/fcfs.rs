//! `fcfs`: first come, first served per die. Each die of a chip takes the oldest transaction queued
//! for it, host and GC alike; a busy die does not hold up its neighbours. (MQSim's TSU is not
//! this: it keeps its queues per chip and serves reads before writes; `compat = "mqsim"` uses
//! `o3` with chip-level commands, docs/fidelity.md.) No parameters.

use std::collections::VecDeque;

use super::TransactionScheduler;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{Txn, TxnId};

pub struct Fcfs {
    per_die: Vec<VecDeque<TxnId>>,
    /// Transactions queued per chip (the sum of its dies' queues, kept so that asking is O(1):
    /// the simulator asks for every host transaction).
    per_chip: Vec<u32>,
    /// The chip of a die.
    layout: Layout,
    len: usize,
    /// Per die: host writes held aside (`hold_aside`), at the head of its queue. Only with
    /// chip-level multi-die commands: otherwise the simulator resolves kept-aside writes at once
    /// under FCFS (`sim::stall`), and this stays empty, so that the die counts asked for every
    /// transaction read nothing more.
    aside: Vec<u32>,
}

impl Fcfs {
    pub fn new(layout: Layout) -> Self {
        Fcfs { per_die: (0..layout.dies()).map(|_| VecDeque::new()).collect(), per_chip: vec![0; layout.chips() as usize], layout, len: 0, aside: Vec::new() }
    }
}

impl Fcfs {
    /// Queue `id` at place `at` of its die's queue (kept-aside writes re-queued behind a write
    /// that joined a multi-plane command from there, `sim::stall`).
    pub fn insert_at(&mut self, at: usize, id: TxnId, txn: &Txn) {
        self.per_die[txn.die as usize].insert(at, id);
        self.per_chip[self.layout.chip_of_die(txn.die) as usize] += 1;
        self.len += 1;
    }

    /// `n` transactions left `die`'s queue.
    #[inline]
    fn taken(&mut self, die: u32, n: usize) {
        self.per_chip[self.layout.chip_of_die(die) as usize] -= n as u32;
        self.len -= n;
    }
}

impl TransactionScheduler for Fcfs {
    fn name(&self) -> &'static str {
        "fcfs"
    }
    fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        self.per_die[txn.die as usize].push_back(id);
        self.per_chip[self.layout.chip_of_die(txn.die) as usize] += 1;
        self.len += 1;
    }
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn) {
        self.per_die[txn.die as usize].push_front(id);
        self.per_chip[self.layout.chip_of_die(txn.die) as usize] += 1;
        self.len += 1;
    }
    fn next(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        let t = self.per_die[die as usize].pop_front();
        if t.is_some() {
            self.taken(die, 1);
        }
        t
    }
    #[inline]
    fn takes_at_once(&mut self, _id: TxnId, txn: &Txn) -> bool {
        // Nothing queued or held aside for the die: `next` returns the one just queued, and
        // queueing and taking it leave the counts as they were. (The simulator asks its own
        // FCFS the same question inline, `Simulator::take_at_once`; this answers for FCFS
        // behind the trait and in the schedulers' tests.)
        self.queued_for_die(txn.die) == 0
    }
    fn peek(&self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        self.per_die[die as usize].front().copied()
    }
    fn can_peek(&self) -> bool {
        true
    }
    fn next_read(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId> {
        let q = &mut self.per_die[die as usize];
        let i = q.iter().position(|&t| txns[t as usize].kind.is_read())?;
        let t = q.remove(i);
        self.taken(die, 1);
        t
    }
    fn take_companions(&mut self, die: u32, _class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) {
        let mut room = max;
        let n = super::take_matching(&mut self.per_die[die as usize], Some, &mut room, fits, out);
        self.taken(die, n);
    }
    fn queued_for_die(&self, die: u32) -> usize {
        self.per_die[die as usize].len() + self.aside.get(die as usize).map_or(0, |&n| n as usize)
    }
    #[inline]
    fn queued_on_chip(&self, chip: u32) -> usize {
        self.per_chip[chip as usize] as usize
    }
    fn len(&self) -> usize {
        self.len
    }
    fn holds_aside(&self) -> bool {
        true
    }
    fn hold_aside(&mut self, die: u32, n: u32) {
        if self.aside.is_empty() {
            self.aside = vec![0; self.layout.dies() as usize];
        }
        self.aside[die as usize] += n;
        self.per_chip[self.layout.chip_of_die(die) as usize] += n;
        self.len += n as usize;
    }
    fn drop_aside(&mut self, die: u32, n: u32) -> u32 {
        self.aside[die as usize] -= n;
        self.taken(die, n as usize);
        // At the head of the die's queue: its next choices take them all.
        n
    }
    fn aside_next(&self, die: u32) -> bool {
        self.aside.get(die as usize).is_some_and(|&n| n > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::txn::TxnKind;

    #[test]
    fn held_writes_count_as_queued_and_come_next() {
        // Under multi-die commands FCFS holds kept-aside writes (`sim::stall`): at the head of
        // the die's queue, so its next transaction, and counted in every queue count.
        let layout = crate::tsu::tiny_layout();
        let mut f = Fcfs::new(layout);
        let t = Txn::new(TxnKind::HostRead, 0, 0, 0, 0, 0, 4096, 0);
        f.enqueue(7, &t);
        assert!(!f.aside_next(0));
        f.hold_aside(0, 2);
        assert_eq!((f.queued_for_die(0), f.queued_on_chip(0), f.len()), (3, 3, 3));
        assert!(f.aside_next(0) && !f.aside_next(1));
        assert_eq!(f.drop_aside(0, 2), 2);
        assert!(!f.aside_next(0));
        assert_eq!((f.queued_for_die(0), f.queued_on_chip(0), f.len()), (1, 1, 1));
        // A write re-queued behind one that joined a command from the middle of the queue.
        f.enqueue(8, &t);
        f.insert_at(1, 9, &t);
        assert_eq!(std::iter::from_fn(|| f.next(0, &[])).collect::<Vec<_>>(), vec![7, 9, 8]);
    }
}
