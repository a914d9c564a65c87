//! `o3`: an out-of-order transaction scheduler with priorities, after O3 / Ozone (Nam et al., IEEE
//! TC 2011) and MQSim's OUT_OF_ORDER TSU (spec §3a-3b). Each die has one queue per class and an
//! idle die runs the oldest transaction of the most urgent non-empty class: reads of translation
//! pages (`ftl.mapping_cache`: host requests wait for them; MQSim's MappingReadTRQueue), then
//! host reads, then host writes, then GC reads and writes, then erases. Data dependencies are
//! respected by construction (a GC write is created only when its read completes; a host read goes
//! to the page mapped when it was split). No parameters.

use std::collections::VecDeque;

use super::TransactionScheduler;
use crate::nand::latency::NandOpKind;
use crate::nand::Layout;
use crate::sim::txn::{Txn, TxnId, TxnKind};

const CLASSES: usize = 5;
/// The classes, in the order they are served.
const MAPPING: usize = 0;
const HOST_READS: usize = 1;
const HOST_WRITES: usize = 2;
const GC: usize = 3;
const ERASES: usize = 4;

fn class(txn: &Txn) -> usize {
    match txn.kind {
        TxnKind::HostRead if txn.is_translation_read() => MAPPING,
        TxnKind::HostRead => HOST_READS,
        TxnKind::HostWrite => HOST_WRITES,
        TxnKind::GcRead | TxnKind::GcWrite => GC,
        TxnKind::Erase => ERASES,
    }
}

/// No read of the host's (or of a translation page, which host requests wait for) is queued.
fn no_reads(qs: &[VecDeque<TxnId>; CLASSES]) -> bool {
    qs[MAPPING].is_empty() && qs[HOST_READS].is_empty()
}

pub struct O3 {
    queues: Vec<[VecDeque<TxnId>; CLASSES]>,
    dies_per_chip: u32,
    len: usize,
    /// Per die: host writes held aside (`hold_aside`), at the head of its host writes.
    aside: Vec<u32>,
    /// Per die: transactions queued and held aside (`queued_for_die`, asked at every chance a
    /// die or chip has to start).
    count: Vec<u32>,
    /// The same per channel (`queued_on_channel`), and the dies of a channel.
    per_channel: Vec<u32>,
    dies_per_channel: u32,
}

impl O3 {
    pub fn new(layout: Layout) -> Self {
        let dies = layout.dies() as usize;
        let dies_per_channel = layout.dies_per_chip * layout.chips_per_channel;
        O3 {
            queues: (0..dies).map(|_| Default::default()).collect(),
            dies_per_chip: layout.dies_per_chip,
            len: 0,
            aside: vec![0; dies],
            count: vec![0; dies],
            per_channel: vec![0; layout.channels as usize],
            dies_per_channel,
        }
    }

    /// `n` more (or, negative, fewer) transactions queued or held aside for `die`.
    #[inline]
    fn counted(&mut self, die: u32, n: i32) {
        self.count[die as usize] = self.count[die as usize].wrapping_add_signed(n);
        let c = (die / self.dies_per_channel) as usize;
        self.per_channel[c] = self.per_channel[c].wrapping_add_signed(n);
    }
}

impl TransactionScheduler for O3 {
    fn name(&self) -> &'static str {
        "o3"
    }
    fn enqueue(&mut self, id: TxnId, txn: &Txn) {
        self.queues[txn.die as usize][class(txn)].push_back(id);
        self.len += 1;
        self.counted(txn.die, 1);
    }
    fn enqueue_front(&mut self, id: TxnId, txn: &Txn) {
        self.queues[txn.die as usize][class(txn)].push_front(id);
        self.len += 1;
        self.counted(txn.die, 1);
    }
    fn next(&mut self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        let t = self.queues[die as usize].iter_mut().find_map(|q| q.pop_front());
        if t.is_some() {
            self.len -= 1;
            self.counted(die, -1);
        }
        t
    }
    fn takes_at_once(&mut self, _id: TxnId, txn: &Txn) -> bool {
        // Nothing of any class queued or held aside for the die: `next` returns the one just
        // queued, and the pair leaves the queues and `len` as they were.
        self.queued_for_die(txn.die) == 0
    }
    fn peek(&self, die: u32, _txns: &[Txn]) -> Option<TxnId> {
        self.queues[die as usize].iter().find_map(|q| q.front().copied())
    }
    fn can_peek(&self) -> bool {
        true
    }
    fn next_read(&mut self, die: u32, txns: &[Txn]) -> Option<TxnId> {
        let qs = &mut self.queues[die as usize];
        let t = qs[MAPPING].pop_front().or_else(|| qs[HOST_READS].pop_front()).or_else(|| {
            let i = qs[GC].iter().position(|&t| txns[t as usize].kind == TxnKind::GcRead)?;
            qs[GC].remove(i)
        });
        if t.is_some() {
            self.len -= 1;
            self.counted(die, -1);
        }
        t
    }
    fn take_companions(&mut self, die: u32, class: NandOpKind, max: usize, fits: &mut dyn FnMut(TxnId) -> bool, out: &mut Vec<TxnId>) {
        let mut room = max;
        // The queues that can hold `class`, in priority order: GC's holds its reads and writes.
        let queues: &[usize] = match class {
            NandOpKind::Read => &[MAPPING, HOST_READS, GC],
            NandOpKind::Program => &[HOST_WRITES, GC],
            NandOpKind::Erase => &[ERASES],
        };
        for &q in queues {
            let n = super::take_matching(&mut self.queues[die as usize][q], Some, &mut room, fits, out);
            self.len -= n;
            self.counted(die, -(n as i32));
        }
    }
    fn queued_for_die(&self, die: u32) -> usize {
        debug_assert_eq!(self.count[die as usize] as usize, self.queues[die as usize].iter().map(|q| q.len()).sum::<usize>() + self.aside[die as usize] as usize);
        self.count[die as usize] as usize
    }
    fn queued_on_chip(&self, chip: u32) -> usize {
        let d0 = (chip * self.dies_per_chip) as usize;
        self.count[d0..d0 + self.dies_per_chip as usize].iter().map(|&n| n as usize).sum()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn queued_on_channel(&self, channel: u32) -> Option<usize> {
        Some(self.per_channel[channel as usize] as usize)
    }
    fn holds_aside(&self) -> bool {
        true
    }
    fn hold_aside(&mut self, die: u32, n: u32) {
        self.aside[die as usize] += n;
        self.len += n as usize;
        self.counted(die, n as i32);
    }
    fn drop_aside(&mut self, die: u32, n: u32) -> u32 {
        self.aside[die as usize] -= n;
        self.len -= n as usize;
        self.counted(die, -(n as i32));
        // Host reads go first; with none queued for the die, its host writes, these first. (A
        // read cannot be waiting: the die chose the last re-queued write over any, at this
        // instant; the rule is kept whole all the same.)
        if no_reads(&self.queues[die as usize]) { n } else { 0 }
    }
    fn aside_next(&self, die: u32) -> bool {
        // Host reads go first; the held writes lead the host writes.
        self.aside[die as usize] > 0 && no_reads(&self.queues[die as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_in_priority_order_then_arrival() {
        let layout = crate::tsu::tiny_layout();
        let mut s = O3::new(layout);
        let t = |k| Txn::new(k, 0, 0, 0, 0, 0, 4096, 0);
        s.enqueue(1, &t(TxnKind::Erase));
        s.enqueue(2, &t(TxnKind::GcWrite));
        s.enqueue(3, &t(TxnKind::HostWrite));
        s.enqueue(4, &t(TxnKind::HostRead));
        s.enqueue(5, &t(TxnKind::HostWrite));
        s.enqueue(6, &t(TxnKind::HostRead));
        let translation = Txn { place: crate::sim::txn::Placement::Mapping, ..t(TxnKind::HostRead) };
        s.enqueue(7, &translation);
        let order: Vec<TxnId> = std::iter::from_fn(|| s.next(0, &[])).collect();
        assert_eq!(order, vec![7, 4, 6, 3, 5, 2, 1], "a translation read first, then host reads");
        assert_eq!(s.len(), 0);
    }

    #[test]
    fn held_writes_count_as_queued_and_come_next_unless_a_host_read_waits() {
        // Kept-aside writes (`sim::stall`) held for die 0: counted in every queue count, and
        // (multi-die commands) the die's next transaction while no host read waits for it.
        let layout = crate::tsu::tiny_layout();
        let mut s = O3::new(layout);
        let t = |k| Txn::new(k, 0, 0, 0, 0, 0, 4096, 0);
        s.enqueue(1, &t(TxnKind::HostWrite));
        s.enqueue(2, &t(TxnKind::GcRead));
        s.hold_aside(0, 3);
        assert_eq!((s.queued_for_die(0), s.queued_on_chip(0), s.len()), (5, 5, 5));
        assert!(s.aside_next(0) && !s.aside_next(1), "GC reads come after host writes; die 1 holds none");
        s.enqueue(3, &t(TxnKind::HostRead));
        assert!(!s.aside_next(0), "a host read goes first");
        assert_eq!(s.next(0, &[]), Some(3));
        assert!(s.aside_next(0));
        assert_eq!(s.drop_aside(0, 2), 2, "with no host read waiting, its next choices take them");
        assert!(s.aside_next(0), "one is still held");
        s.drop_aside(0, 1);
        assert!(!s.aside_next(0));
        assert_eq!((s.queued_for_die(0), s.len()), (2, 2));
    }
}
