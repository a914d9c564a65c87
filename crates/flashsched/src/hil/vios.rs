//! `vios`: the device-queue half of VIOS, the variation-aware I/O scheduler (Li et al., NPC 2016,
//! paper 000 §3): a global chip-state vector and hierarchical-batch structured queues.
//!
//! - **Chip-state vector** (§3.2, Eq. 2): NR_i, the requests waiting for chip i; +1 for every chip a
//!   request touches when it arrives in the queue, -1 when it is issued to the chips.
//! - **Hierarchical-batch queues** (§3.3, Fig. 3): a read queue and a write queue, each a list of
//!   chip batches (no two requests of a batch share a chip), each split into channel batches (no two
//!   requests share a channel). A request joins the first chip batch it has no chip in common with
//!   (Eq. 3: A_chip ∩ A_r = ∅), else opens a new one; inside it, the first channel batch it has no
//!   channel in common with, else a new one. Sets are bitmasks, so a test is a word-wise AND and an
//!   insertion costs the number of batches it looks at.
//! - **Issue**: reads are preferred ("read requests are always preferentially scheduled in both PIQ
//!   and VIOS", §4.1): the head chip batch of the read queue goes first, else the write queue's.
//!   A read-modify-write's write, pushed once its read is done, joins its request, which is in
//!   flight already, and goes at the next pop with its block chosen as below
//!   (`push_continuation`); queued as a new request it could wait for ever behind the depth.
//!   A chip batch is issued whole, channel batch by channel batch, when the flash controller can
//!   take it, under the same rule as PIQ (`hil.vios.queue_depth` requests issued and not completed,
//!   or a batch older than `hil.vios.max_age`); a batch holds at most `queue_depth` requests.
//!   `hil.vios.dispatch = "sub_requests"` (the `vios2016` drive's) issues per sub-request
//!   instead: a request's transactions for one chip go, oldest batch first and reads before
//!   writes, as soon as that chip is idle, and NR drops chip by chip (§3.3 scatters requests
//!   into per-chip sub-requests), so requests wait here, where NR counts them.
//!   `hil.vios.dispatch = "slots"` (the paper's simulator, SSDSim, which holds at most
//!   `queue_length` requests in the device) issues request by request whenever fewer than
//!   `queue_depth` are in flight, the next in VIOS's order, whatever the chips are doing.
//!
//! - **Variation-aware block allocation** (§3.3, Fig. 4): when a write request is issued, each of
//!   its sub-requests is marked for the fastest block of its chip if the chip's NR is above 1 (other
//!   requests wait for it) or work is queued at the chip, else for an ordinary block
//!   (`hil.vios.unconflicted`: the allocator's, or the slowest) ([`Placement`]); the simulator
//!   picks the plane and block (`sim::placement`).

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

pub use super::bits::Bits;
pub use super::hier::HierQueue;
use super::{Collecting, DeviceQueue, DeviceView, Dispatch};
use crate::engine::Time;
use crate::nand::{Layout, NONE};
use crate::sim::txn::{Placement, ReqId, Txn, TxnId, TxnKind};

/// A request waiting in the queues: its transactions and the chips it touches.
#[derive(Default)]
struct Waiting {
    req: ReqId,
    txns: Vec<TxnId>,
    chips: Vec<u32>,
    /// `sub_requests` dispatch: the chips whose sub-requests have not been issued yet.
    left: Vec<u32>,
}

/// Slot of a waiting request in `Vios::waiting` (slots and their lists are reused).
type Slot = u32;

pub struct Vios {
    layout: Layout,
    max_age: u64,
    queue_depth: usize,
    /// NR_i of the chip-state vector.
    nr: Vec<u32>,
    /// The chips whose NR is above 0, kept by `sub_requests` dispatch only (it looks at these).
    wanted: Bits,
    reads: HierQueue<Slot>,
    writes: HierQueue<Slot>,
    waiting: Vec<Waiting>,
    free_slots: Vec<Slot>,
    /// Reused set of the channels of the request being placed.
    channels: Bits,
    /// Reused set of the chips claimed by requests issued in one `idle_requests` round.
    claimed: Bits,
    /// Requests issued to the chips that have not completed.
    in_flight: FxHashSet<ReqId>,
    /// The request whose transactions are being pushed (they arrive one after another).
    pending: Collecting,
    releasing: VecDeque<TxnId>,
    /// Transactions of requests in flight (`push_continuation`), released at the next pop.
    continuing: VecDeque<TxnId>,
    held: usize,
    dispatch: Dispatch,
    /// Where a write goes when no other request waits for its chip: `Slowest` (the paper) or
    /// `Static` (the allocator's plane).
    unconflicted: Placement,
}

impl Vios {
    pub fn new(layout: Layout, max_age: u64, queue_depth: u32) -> Self {
        let qd = queue_depth.max(1) as usize;
        Vios {
            layout,
            max_age,
            queue_depth: qd,
            nr: vec![0; layout.chips() as usize],
            wanted: Bits::new(layout.chips() as usize),
            reads: HierQueue::new(qd),
            writes: HierQueue::new(qd),
            waiting: Vec::new(),
            free_slots: Vec::new(),
            channels: Bits::new(layout.channels as usize),
            claimed: Bits::new(layout.chips() as usize),
            in_flight: FxHashSet::default(),
            pending: Collecting::new(layout.chips() as usize),
            releasing: VecDeque::new(),
            continuing: VecDeque::new(),
            held: 0,
            dispatch: Dispatch::QueueDepth,
            unconflicted: Placement::Slowest,
        }
    }

    pub fn with_dispatch(mut self, d: Dispatch) -> Self {
        self.dispatch = d;
        if d == Dispatch::Slots {
            // Chip batches are issued request by request: nothing asks one to fit the depth,
            // and only the chips bound it (the paper's batches have no other limit).
            self.reads = HierQueue::new(usize::MAX);
            self.writes = HierQueue::new(usize::MAX);
        }
        self
    }

    /// `hil.vios.unconflicted`: where a write no other request waits behind goes.
    pub fn with_unconflicted(mut self, p: Placement) -> Self {
        self.unconflicted = p;
        self
    }

    /// NR of `chip`: requests waiting in the queues that touch it (Eq. 2).
    pub fn nr(&self, chip: u32) -> u32 {
        self.nr[chip as usize]
    }

    /// The queues' chip batches (reads, writes) and the request in each slot, for inspection.
    pub fn queues(&self) -> (&HierQueue<Slot>, &HierQueue<Slot>) {
        (&self.reads, &self.writes)
    }

    /// Put the request being collected into its queue and count it in the chip-state vector.
    /// (Asked on every pop, and most find nothing collected: the test is inlined, the work not.)
    #[inline]
    fn place_pending(&mut self) {
        if !self.pending.txns.is_empty() {
            self.place_collected();
        }
    }

    /// `place_pending` with a request collected: the work, out of line.
    #[inline(never)]
    fn place_collected(&mut self) {
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.waiting.push(Waiting::default());
            (self.waiting.len() - 1) as Slot
        });
        let w = &mut self.waiting[slot as usize];
        w.req = self.pending.req;
        w.chips.clear();
        w.chips.extend(self.pending.units.members());
        w.left.clear();
        w.left.extend_from_slice(&w.chips);
        w.txns.clear();
        w.txns.append(&mut self.pending.txns);
        self.channels.clear();
        for &c in &w.chips {
            self.nr[c as usize] += 1;
            self.wanted.insert(c);
            self.channels.insert(self.layout.channel_of_chip(c));
        }
        let q = if self.pending.read { &mut self.reads } else { &mut self.writes };
        q.insert(slot, &self.pending.units, &self.channels, self.pending.born);
        self.pending.placed();
    }

    /// Issue the head chip batch of `reads` or `writes`: its requests leave the chip-state vector
    /// and their transactions go to the chips, channel batch by channel batch. A write
    /// sub-request to a chip whose NR is above 1 (other requests wait for it) goes to the fastest
    /// block of the chip, else to a slower one (§3.3, Fig. 4): NR is checked, then updated.
    /// Requests wait for a chip here and in the chip's own queue (issued, not started), which
    /// SSDSim does not separate: transactions queued for the chip count as waiting too [INFER].
    fn issue_head(&mut self, read: bool, txns: &mut [Txn], device: &DeviceView) {
        let q = if read { &mut self.reads } else { &mut self.writes };
        let b = q.batches.pop_front().expect("head chip batch");
        for cb in &b.channel_batches {
            for &slot in &cb.reqs {
                if slot != NONE {
                    self.issue_slot(slot, read, txns, device);
                }
            }
        }
        let q = if read { &mut self.reads } else { &mut self.writes };
        q.recycle(b);
    }

    /// Fig. 4 for host write `x` issued now: the fastest block if other requests wait for its
    /// chip (NR > 1) or work is queued there, else `unconflicted`.
    #[inline(always)]
    fn place(&self, x: &mut Txn, device: &DeviceView) {
        let chip = self.layout.chip_of_die(x.die);
        let conflict = self.nr[chip as usize] > 1 || (device.chip_queued)(chip) > 0;
        x.place = if conflict { Placement::Fastest } else { self.unconflicted };
    }

    /// Issue one waiting request: it leaves the chip-state vector, its writes get their placement.
    #[inline(always)]
    fn issue_slot(&mut self, slot: Slot, read: bool, txns: &mut [Txn], device: &DeviceView) {
        let w = &self.waiting[slot as usize];
        if !read {
            for &t in &w.txns {
                let x = &mut txns[t as usize];
                // A write request's read-modify-write reads stay where their page is.
                if x.kind == TxnKind::HostWrite {
                    self.place(x, device);
                }
            }
        }
        for &c in &w.chips {
            self.nr[c as usize] -= 1;
        }
        self.releasing.extend(&w.txns);
        self.in_flight.insert(w.req);
        self.free_slots.push(slot);
    }

    /// `sub_requests` dispatch: batch by batch from the oldest, for every waiting request and
    /// every chip of it not issued yet, issue the request's transactions for that chip if the
    /// chip is idle with nothing queued and not `claimed` this round (a chip goes to the oldest
    /// sub-request that wants it). A write sub-request goes to the fastest block if other
    /// requests still wait for its chip (NR > 1, checked before the update), else to a slower one
    /// (Fig. 4). A request is in flight from its first sub-request; a request not started yet
    /// starts only while fewer than `queue_depth` are in flight (or its batch is older than
    /// `max_age`). Batches whose requests are all issued are dropped.
    ///
    /// `targets` is the number of idle chips that requests wait for; once that many are claimed
    /// nothing more can be issued this round, so the scan stops (the result is the same).
    fn issue_sub_requests(&mut self, read: bool, txns: &mut [Txn], device: &DeviceView, claimed: &mut Bits, targets: &mut u32) {
        let dpc = self.layout.dies_per_chip;
        let q = if read { &mut self.reads } else { &mut self.writes };
        let mut batches = std::mem::take(&mut q.batches);
        for b in batches.iter_mut() {
            if *targets == 0 {
                break;
            }
            let old = device.now.saturating_sub(b.born) > self.max_age;
            for ci in 0..b.channel_batches.len() {
                for ri in 0..b.channel_batches[ci].reqs.len() {
                    let slot = b.channel_batches[ci].reqs[ri];
                    if slot == NONE {
                        continue;
                    }
                    let w = &mut self.waiting[slot as usize];
                    let started = w.left.len() < w.chips.len();
                    if !started && !old && self.in_flight.len() >= self.queue_depth {
                        continue;
                    }
                    let mut k = 0;
                    while k < w.left.len() {
                        let c = w.left[k];
                        let free = !claimed.contains(c) && device.unit_idle(c, dpc);
                        if !free {
                            k += 1;
                            continue;
                        }
                        claimed.insert(c);
                        *targets -= 1;
                        w.left.swap_remove(k);
                        let conflict = self.nr[c as usize] > 1;
                        // Issued transactions leave the list: their ids are reused once they
                        // complete, so a later round must not find them again.
                        let (layout, releasing, unconflicted) = (&self.layout, &mut self.releasing, self.unconflicted);
                        w.txns.retain(|&t| {
                            let x = &mut txns[t as usize];
                            if layout.chip_of_die(x.die) != c {
                                return true;
                            }
                            if !read && x.kind == TxnKind::HostWrite {
                                x.place = if conflict { Placement::Fastest } else { unconflicted };
                            }
                            releasing.push_back(t);
                            false
                        });
                        self.nr[c as usize] -= 1;
                        if self.nr[c as usize] == 0 {
                            self.wanted.remove(c);
                        }
                        self.in_flight.insert(w.req);
                    }
                    if w.left.is_empty() {
                        b.channel_batches[ci].reqs[ri] = NONE;
                        b.issued += 1;
                        self.free_slots.push(slot);
                    }
                }
            }
        }
        let q = if read { &mut self.reads } else { &mut self.writes };
        q.put_back(batches);
    }

    /// Whether the read queue's head goes before the write queue's: reads first, unless the
    /// head write batch is older than `max_age` and than the head read batch (else a steady
    /// stream of reads would hold writes back for as long as it lasts). `None`: both empty.
    fn reads_next(&self, now: Time) -> Option<bool> {
        match (self.reads.batches.front(), self.writes.batches.front()) {
            (Some(r), Some(w)) => Some(!(now.saturating_sub(w.born) > self.max_age && w.born < r.born)),
            (r, w) => (r.is_some() || w.is_some()).then_some(r.is_some()),
        }
    }

    /// `slots` dispatch: while fewer than `queue_depth` requests are in flight, issue the next
    /// request in VIOS's order, whole: the head chip batch of the read queue (else the write
    /// queue's, as `reads_next` decides), channel batch by channel batch. Its writes get their
    /// blocks by Fig. 4 as it goes (NR checked, then updated). The depth is the device's
    /// capacity, so a batch older than `max_age` does not pass it; the age only lets writes go
    /// before reads.
    fn issue_slots(&mut self, txns: &mut [Txn], device: &DeviceView) {
        while self.in_flight.len() < self.queue_depth {
            let Some(read) = self.reads_next(device.now) else { return };
            let q = if read { &mut self.reads } else { &mut self.writes };
            let b = q.batches.front_mut().expect("reads_next saw a batch");
            let slot = b
                .channel_batches
                .iter_mut()
                .flat_map(|c| c.reqs.iter_mut())
                .find(|s| **s != NONE)
                .map(|s| std::mem::replace(s, NONE))
                .expect("a batch not all issued has a request left");
            b.issued += 1;
            if b.issued == b.len {
                let done = q.batches.pop_front().expect("head chip batch");
                q.recycle(done);
            }
            self.issue_slot(slot, read, txns, device);
        }
    }

    /// `idle_requests` dispatch: issue, batch by batch from the oldest, every request of `reads`
    /// or `writes` whose chips are idle with nothing queued and not `claimed` by a request issued
    /// just before, while the queue depth allows (a batch older than `max_age` goes whole); drop
    /// the batches that are all issued.
    fn issue_ready(&mut self, read: bool, txns: &mut [Txn], device: &DeviceView, claimed: &mut Bits) {
        let dpc = self.layout.dies_per_chip;
        let q = if read { &mut self.reads } else { &mut self.writes };
        let mut batches = std::mem::take(&mut q.batches);
        for b in batches.iter_mut() {
            let old = device.now.saturating_sub(b.born) > self.max_age;
            for ci in 0..b.channel_batches.len() {
                for ri in 0..b.channel_batches[ci].reqs.len() {
                    let slot = b.channel_batches[ci].reqs[ri];
                    if slot == NONE {
                        continue;
                    }
                    let chips = &self.waiting[slot as usize].chips;
                    let free = chips.iter().all(|&c| !claimed.contains(c) && device.unit_idle(c, dpc));
                    if old || (free && self.in_flight.len() < self.queue_depth) {
                        for &c in chips {
                            claimed.insert(c);
                        }
                        b.channel_batches[ci].reqs[ri] = NONE;
                        b.issued += 1;
                        self.issue_slot(slot, read, txns, device);
                    }
                }
            }
        }
        let q = if read { &mut self.reads } else { &mut self.writes };
        q.put_back(batches);
    }
}

impl DeviceQueue for Vios {
    fn name(&self) -> &'static str {
        "vios"
    }

    fn push(&mut self, id: TxnId, txn: &Txn) {
        if self.pending.starts(txn) {
            self.place_pending();
            self.pending.begin(txn);
        }
        self.pending.add(id, self.layout.chip_of_die(txn.die), txn);
        self.held += 1;
    }

    fn push_continuation(&mut self, id: TxnId, _txn: &Txn) {
        self.continuing.push_back(id);
        self.held += 1;
    }

    fn pop(&mut self, txns: &mut [Txn], device: &DeviceView) -> Option<TxnId> {
        // Most pops take the next transaction of a request already released, with nothing
        // collected or continuing: answered here; the rest out of line (`pop_other`), whose
        // registers would otherwise cost every pop a frame.
        if self.pending.txns.is_empty() && self.continuing.is_empty() {
            if let Some(t) = self.releasing.pop_front() {
                self.held -= 1;
                return Some(t);
            }
        }
        self.pop_other(txns, device)
    }

    fn len(&self) -> usize {
        self.held
    }

    fn places_writes(&self) -> bool {
        true
    }

    fn on_request_done(&mut self, req: ReqId) {
        self.in_flight.remove(&req);
    }
}

impl Vios {
    /// `pop` with a request collected, a continuation, or nothing released.
    #[inline(never)]
    fn pop_other(&mut self, txns: &mut [Txn], device: &DeviceView) -> Option<TxnId> {
        self.place_pending();
        if let Some(t) = self.continuing.pop_front() {
            // A read-modify-write's write: its block by the rule of Fig. 4, as when its request
            // is issued (the chip's NR counts the requests waiting for it).
            let x = &mut txns[t as usize];
            if x.kind == TxnKind::HostWrite {
                self.place(x, device);
            }
            self.held -= 1;
            return Some(t);
        }
        if self.releasing.is_empty() && matches!(self.dispatch, Dispatch::IdleRequests | Dispatch::SubRequests) {
            // Reads first: the read batches' ready requests, then the write batches'.
            let mut claimed = std::mem::replace(&mut self.claimed, Bits::new(0));
            claimed.clear();
            if self.dispatch == Dispatch::SubRequests {
                let dpc = self.layout.dies_per_chip;
                let mut targets = self.wanted.members().filter(|&c| device.unit_idle(c, dpc)).count() as u32;
                if targets > 0 {
                    self.issue_sub_requests(true, txns, device, &mut claimed, &mut targets);
                    self.issue_sub_requests(false, txns, device, &mut claimed, &mut targets);
                }
            } else {
                self.issue_ready(true, txns, device, &mut claimed);
                self.issue_ready(false, txns, device, &mut claimed);
            }
            self.claimed = claimed;
        } else if self.releasing.is_empty() && self.dispatch == Dispatch::Slots {
            self.issue_slots(txns, device);
        } else if self.releasing.is_empty() {
            // Reads first (`reads_next`).
            let read = self.reads_next(device.now)?;
            let head = if read { self.reads.batches.front() } else { self.writes.batches.front() }?;
            let old = device.now.saturating_sub(head.born) > self.max_age;
            let fits = self.in_flight.len() + head.len <= self.queue_depth;
            let dpc = self.layout.dies_per_chip;
            let idle = || head.chips.members().all(|c| device.unit_idle(c, dpc));
            if !old && !(fits && (self.dispatch == Dispatch::QueueDepth || idle())) {
                return None; // the controller cannot take the whole batch yet, or its chips are busy
            }
            self.issue_head(read, txns, device);
        }
        let t = self.releasing.pop_front();
        if t.is_some() {
            self.held -= 1;
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::txn::TxnKind;
    use crate::hil::Dispatch;

    fn tiny() -> Layout {
        // 2 channels x 2 chips x 1 die
        Layout::new(&crate::config::Settings::from_options(&crate::config::Options::from_preset("tiny").unwrap()).unwrap().geometry)
    }

    /// NR recounted from the requests in the queues.
    fn recount(v: &Vios) -> Vec<u32> {
        let mut nr = vec![0; v.nr.len()];
        for q in [&v.reads, &v.writes] {
            for b in &q.batches {
                for cb in &b.channel_batches {
                    for &slot in cb.reqs.iter().filter(|&&s| s != NONE) {
                        for &c in &v.waiting[slot as usize].left {
                            nr[c as usize] += 1;
                        }
                    }
                }
            }
        }
        nr
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]
        #[test]
        fn the_chip_state_vector_equals_a_recount_of_the_queues(
            dispatch in 0usize..5,
            ops in proptest::collection::vec((0u8..4, 1u32..16, proptest::bool::ANY), 1..200),
        ) {
            // op 0-1: a request arrives (its chips from the bits of `mask`, read or write);
            // op 2: pop one transaction with the chips in `mask` busy; op 3: a request in
            // flight completes. Under every dispatch rule.
            let layout = tiny();
            let d = [Dispatch::QueueDepth, Dispatch::IdleUnits, Dispatch::IdleRequests, Dispatch::SubRequests, Dispatch::Slots][dispatch];
            let mut v = Vios::new(layout, 1_000_000, 4).with_dispatch(d);
            let mut next_req = 0u32;
            let mut next_txn = 0u32;
            let mut issued: Vec<ReqId> = Vec::new();
            let mut all: Vec<Txn> = Vec::new();
            for (op, mask, read) in ops {
                match op {
                    0 | 1 => {
                        let kind = if read { TxnKind::HostRead } else { TxnKind::HostWrite };
                        for chip in (0..4).filter(|c| mask >> c & 1 == 1) {
                            let t = Txn::new(kind, next_req, 0, 0, 0, chip * layout.dies_per_chip, 4096, 0);
                            v.push(next_txn, &t);
                            all.push(t);
                            next_txn += 1;
                        }
                        next_req += 1;
                    }
                    2 => {
                        let before: FxHashSet<ReqId> = v.in_flight.clone();
                        let busy = |die: u32| mask >> layout.chip_of_die(die) & 1 == 1;
                        let view = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
                        v.pop(&mut all, &view);
                        issued.extend(v.in_flight.difference(&before).copied());
                    }
                    _ => {
                        if let Some(r) = issued.pop() {
                            v.on_request_done(r);
                        }
                    }
                }
                v.place_pending();
                proptest::prop_assert_eq!(&v.nr, &recount(&v));
            }
        }
    }

    #[test]
    fn reads_are_issued_before_writes_and_leave_the_vector() {
        let layout = tiny();
        let mut v = Vios::new(layout, 1_000_000, 32);
        let idle = |_: u32| false;
        let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        let mut all = vec![Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0); 3];
        all[1] = Txn::new(TxnKind::HostWrite, 1, 0, 0, 0, 0, 4096, 0);
        all[2] = Txn::new(TxnKind::HostRead, 2, 0, 0, 0, 0, 4096, 0);
        v.push(1, &all[1]);
        v.push(2, &all[2]);
        v.place_pending();
        assert_eq!(v.nr(0), 2);
        assert_eq!(v.pop(&mut all, &view), Some(2), "the read's chip batch goes first");
        assert_eq!(v.nr(0), 1);
        assert_eq!(v.pop(&mut all, &view), Some(1));
        assert_eq!(v.nr(0), 0);
        assert_eq!(v.pop(&mut all, &view), None);
        // No other request waited for chip 0 when the write was issued: a slower block.
        assert_eq!(all[1].place, Placement::Slowest);
    }

    /// `max_age` protects writes from reads too: under the dispatch rules that issue whole chip
    /// batches, a write batch older than `max_age` goes before a younger read batch, and one that
    /// is not that old still waits for the reads.
    #[test]
    fn a_write_older_than_max_age_goes_before_younger_reads() {
        let layout = tiny();
        for d in [Dispatch::QueueDepth, Dispatch::IdleUnits] {
            let mut v = Vios::new(layout, 1_000, 32).with_dispatch(d);
            let idle = |_: u32| false;
            let mut all = vec![Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0), Txn::new(TxnKind::HostRead, 1, 0, 0, 0, 0, 4096, 1_500)];
            v.push(0, &all[0]);
            v.push(1, &all[1]);
            let young = DeviceView { now: 900, die_busy: &idle, chip_queued: &|_| 0 };
            assert_eq!(v.pop(&mut all, &young), Some(1), "{d:?}: a write younger than max_age waits for the reads");
            let mut v = Vios::new(layout, 1_000, 32).with_dispatch(d);
            v.push(0, &all[0]);
            v.push(1, &all[1]);
            let aged = DeviceView { now: 2_000, die_busy: &idle, chip_queued: &|_| 0 };
            assert_eq!(v.pop(&mut all, &aged), Some(0), "{d:?}: the write has waited past max_age");
            assert_eq!(v.pop(&mut all, &aged), Some(1));
        }
    }

    #[test]
    fn a_write_to_a_chip_other_requests_wait_for_goes_to_a_faster_block() {
        // Fig. 4: three write requests queued for one chip. The first two are issued while
        // others still wait for the chip (NR > 1): fastest blocks; the last one finds NR = 1: a
        // slower block.
        let layout = tiny();
        let mut v = Vios::new(layout, 1_000_000, 32);
        let idle = |_: u32| false;
        let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        let order: Vec<TxnId> = std::iter::from_fn(|| v.pop(&mut all, &view)).collect();
        assert_eq!(order, vec![0, 1, 2]);
        assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Slowest]);
        // The ablation leaves the last one where the allocator put it.
        let mut v = Vios::new(layout, 1_000_000, 32).with_unconflicted(Placement::Static);
        let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        while v.pop(&mut all, &view).is_some() {}
        assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Static]);
    }

    #[test]
    fn idle_requests_issues_each_request_when_its_own_chips_are_idle() {
        // Requests on chips 0 and 1 share a chip batch; chip 0 is busy: only the request on
        // chip 1 goes; the other follows once chip 0 is idle, and the batch is then done.
        let layout = tiny();
        let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::IdleRequests);
        let mut all: Vec<Txn> = (0..2).map(|r| Txn::new(TxnKind::HostRead, r, 0, 0, 0, r * layout.dies_per_chip, 4096, 0)).collect();
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        let busy0 = |d: u32| d < layout.dies_per_chip;
        let view = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
        assert_eq!((v.pop(&mut all, &view), v.pop(&mut all, &view)), (Some(1), None));
        assert_eq!(v.nr(0), 1);
        let idle = |_: u32| false;
        let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!((v.pop(&mut all, &view), v.pop(&mut all, &view)), (Some(0), None));
        assert_eq!((v.nr(0), v.queues().0.batches.len()), (0, 0));
    }

    #[test]
    fn sub_requests_go_to_each_chip_when_that_chip_is_idle() {
        // One read on chips 0 and 1 (transactions 0, 1), then one on chip 1 (transaction 2).
        // Chip 0 busy: the first read's sub-request for chip 1 goes alone, and chip 1 is then
        // claimed, so the second read (a later chip batch: it shares chip 1) waits.
        let layout = tiny();
        let dpc = layout.dies_per_chip;
        let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::SubRequests);
        let mut all = vec![
            Txn::new(TxnKind::HostRead, 0, 0, 0, 0, 0, 4096, 0),
            Txn::new(TxnKind::HostRead, 0, 0, 0, 0, dpc, 4096, 0),
            Txn::new(TxnKind::HostRead, 1, 0, 0, 0, dpc, 4096, 0),
        ];
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        // The views say what the chips are doing: a chip given a transaction is busy after.
        let busy0 = |d: u32| d < dpc;
        let busy1 = |d: u32| (dpc..2 * dpc).contains(&d);
        let busy = |d: u32| d < 2 * dpc;
        let idle = |_: u32| false;
        let (v0, v1, vb, vi) = (
            DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 },
            DeviceView { now: 0, die_busy: &busy1, chip_queued: &|_| 0 },
            DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 },
            DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 },
        );
        assert_eq!((v.pop(&mut all, &v0), v.pop(&mut all, &vb)), (Some(1), None));
        assert_eq!((v.nr(0), v.nr(1)), (1, 1), "chip 0's sub-request still waits; the second read waits for chip 1");
        assert!(v.in_flight.contains(&0));
        // Chip 1 runs transaction 1 and chip 0 is idle: chip 0's sub-request goes; the second
        // read still waits for chip 1.
        assert_eq!((v.pop(&mut all, &v1), v.pop(&mut all, &vb)), (Some(0), None));
        assert_eq!((v.nr(0), v.nr(1), v.queues().0.batches.len()), (0, 1, 1));
        assert_eq!((v.pop(&mut all, &vi), v.pop(&mut all, &vb)), (Some(2), None));
        assert_eq!((v.nr(1), v.queues().0.batches.len()), (0, 0));
    }

    #[test]
    fn sub_requests_follow_figure_4() {
        // Three writes for one chip, issued one at a time as the chip frees: the first two while
        // others still wait for the chip (fastest), the last alone (slowest).
        let layout = tiny();
        let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::SubRequests);
        let (idle, busy) = (|_: u32| false, |_: u32| true);
        let vi = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        let rounds: Vec<(Option<TxnId>, Option<TxnId>)> = (0..3).map(|_| (v.pop(&mut all, &vi), v.pop(&mut all, &vb))).collect();
        assert_eq!(rounds, vec![(Some(0), None), (Some(1), None), (Some(2), None)]);
        assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Slowest]);
    }

    #[test]
    fn a_write_that_begins_with_an_update_read_is_queued_and_placed_as_a_write() {
        // A partial-page write under `ftl.partial_writes = "update_read"`: its first transaction
        // reads the old page's other sectors. The request is a write: VIOS's write queue, and its
        // write gets a block by Fig. 4 (here alone for its chip: an ordinary one).
        let layout = tiny();
        let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::Slots).with_unconflicted(Placement::Static);
        let mut all = vec![Txn::new(TxnKind::HostRead, 0, 0, 0, 0, 0, 4096, 0), Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0)];
        all[1].place = Placement::Slowest; // not what VIOS will set
        v.push(0, &all[0]);
        v.push(1, &all[1]);
        v.place_pending();
        assert_eq!((v.queues().0.batches.len(), v.queues().1.batches.len()), (0, 1));
        let busy = |_: u32| true;
        let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        assert_eq!(std::iter::from_fn(|| v.pop(&mut all, &vb)).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(all[1].place, Placement::Static);
    }

    #[test]
    fn slots_fill_each_free_slot_with_the_next_request_in_vioss_order() {
        // Depth 2. Writes 0 (chip 0) and 1 (chip 0, a second chip batch), then reads 2 (chip 1)
        // and 3 (chip 1, a second read chip batch). The reads take the two slots first, whatever
        // the chips are doing; when one completes, the next read; then the writes in batch order.
        let layout = tiny();
        let dpc = layout.dies_per_chip;
        let mut v = Vios::new(layout, 1_000_000, 2).with_dispatch(Dispatch::Slots);
        let mut all = vec![
            Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0),
            Txn::new(TxnKind::HostWrite, 1, 0, 0, 0, 0, 4096, 0),
            Txn::new(TxnKind::HostRead, 2, 0, 0, 0, dpc, 4096, 0),
            Txn::new(TxnKind::HostRead, 3, 0, 0, 0, dpc, 4096, 0),
        ];
        for (i, t) in all.clone().iter().enumerate() {
            v.push(i as TxnId, t);
        }
        let busy = |_: u32| true;
        let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        let pops = |v: &mut Vios, all: &mut Vec<Txn>| std::iter::from_fn(|| v.pop(all, &vb)).collect::<Vec<_>>();
        assert_eq!(pops(&mut v, &mut all), vec![2, 3], "busy chips do not hold a request back; the depth does");
        v.on_request_done(2);
        assert_eq!(pops(&mut v, &mut all), vec![0]);
        // Write 0 was issued while write 1 still waited for chip 0 (NR = 2): the fastest block.
        assert_eq!(all[0].place, Placement::Fastest);
        assert_eq!(v.nr(0), 1);
        v.on_request_done(3);
        v.on_request_done(0);
        assert_eq!(pops(&mut v, &mut all), vec![1]);
        assert_eq!(all[1].place, Placement::Slowest, "alone for its chip");
        assert_eq!((v.len(), v.queues().0.batches.len(), v.queues().1.batches.len()), (0, 0, 0));
    }
}
