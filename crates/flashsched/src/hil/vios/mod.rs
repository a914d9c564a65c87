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
use super::idle_watch::IdleWatch;
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
    /// `sub_requests` dispatch: the chips whose sub-requests have not been issued yet (as
    /// indices into `chips`), and where each chip's transactions (of `chips[i]`) start in
    /// `txns`, which holds them chip by chip, each chip's in their order.
    left: Vec<u32>,
    starts: Vec<u32>,
}

/// Slot of a waiting request in `Vios::waiting` (slots and their lists are reused).
type Slot = u32;

pub struct Vios {
    layout: Layout,
    max_age: u64,
    queue_depth: usize,
    /// NR_i of the chip-state vector.
    nr: Vec<u32>,
    /// The chips whose NR is above 0, and which of them may be idle, kept by `sub_requests`
    /// dispatch only (it looks at these).
    wanted: Bits,
    watch: IdleWatch,
    reads: HierQueue<Slot>,
    writes: HierQueue<Slot>,
    waiting: Vec<Waiting>,
    free_slots: Vec<Slot>,
    /// Reused set of the channels of the request being placed.
    channels: Bits,
    /// Reused set of the chips claimed by requests issued in one `idle_requests` round (under
    /// `sub_requests`: of the idle chips not given a sub-request yet).
    claimed: Bits,
    /// Requests issued to the chips that have not completed.
    in_flight: FxHashSet<ReqId>,
    /// The request whose transactions are being pushed (they arrive one after another), and
    /// (`sub_requests` dispatch) the chip of each.
    pending: Collecting,
    pending_chips: Vec<u32>,
    /// Per chip, where the collected request's next transaction for it goes in its list
    /// (`place_collected`).
    by_chip: Vec<u32>,
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
            watch: IdleWatch::new(layout.chips() as usize, layout.dies_per_chip),
            reads: HierQueue::new(qd),
            writes: HierQueue::new(qd),
            waiting: Vec::new(),
            free_slots: Vec::new(),
            channels: Bits::new(layout.channels as usize),
            claimed: Bits::new(layout.chips() as usize),
            in_flight: FxHashSet::default(),
            pending: Collecting::new(layout.chips() as usize),
            pending_chips: Vec::new(),
            by_chip: vec![0; layout.chips() as usize],
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
        self.watch.changed();
        let slot = self.free_slots.pop().unwrap_or_else(|| {
            self.waiting.push(Waiting::default());
            (self.waiting.len() - 1) as Slot
        });
        let w = &mut self.waiting[slot as usize];
        w.req = self.pending.req;
        w.chips.clear();
        w.chips.extend(self.pending.units.members());
        w.left.clear();
        w.left.extend(0..w.chips.len() as u32);
        w.txns.clear();
        if self.dispatch == Dispatch::SubRequests {
            // Each chip's transactions together, in their order: a sub-request is a range.
            // (A counting sort: `at[c]` is where chip c's next transaction goes.)
            let at = &mut self.by_chip;
            w.starts.clear();
            for &c in &w.chips {
                at[c as usize] = 0;
            }
            for &c in &self.pending_chips {
                at[c as usize] += 1;
            }
            let mut n = 0;
            for &c in &w.chips {
                w.starts.push(n);
                (at[c as usize], n) = (n, n + at[c as usize]);
            }
            w.txns.resize(n as usize, NONE);
            for (&c, &t) in self.pending_chips.iter().zip(&self.pending.txns) {
                w.txns[at[c as usize] as usize] = t;
                at[c as usize] += 1;
            }
            self.pending_chips.clear();
            self.pending.txns.clear();
        } else {
            w.txns.append(&mut self.pending.txns);
        }
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
    /// `avail` holds the idle chips that requests wait for and no sub-request was given this
    /// round, `targets` their number; once none is left nothing more can be issued this round,
    /// so the scan stops (the result is the same).
    fn issue_sub_requests(&mut self, read: bool, txns: &mut [Txn], device: &DeviceView, avail: &mut Bits, targets: &mut u32) {
        let q = if read { &mut self.reads } else { &mut self.writes };
        let mut batches = std::mem::take(&mut q.batches);
        let mut any_done = false;
        for b in batches.iter_mut() {
            if *targets == 0 {
                break;
            }
            if !b.chips.intersects(avail) {
                continue; // none of its chips is free (its chips include the issued requests')
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
                    let mut in_flight = started;
                    let mut k = 0;
                    while k < w.left.len() {
                        let i = w.left[k] as usize;
                        let c = w.chips[i];
                        if !avail.contains(c) {
                            k += 1;
                            continue;
                        }
                        avail.remove(c);
                        self.watch.given(c);
                        *targets -= 1;
                        w.left.swap_remove(k);
                        let conflict = self.nr[c as usize] > 1;
                        let end = w.starts.get(i + 1).map_or(w.txns.len(), |&e| e as usize);
                        for &t in &w.txns[w.starts[i] as usize..end] {
                            let x = &mut txns[t as usize];
                            if !read && x.kind == TxnKind::HostWrite {
                                x.place = if conflict { Placement::Fastest } else { self.unconflicted };
                            }
                            self.releasing.push_back(t);
                        }
                        self.nr[c as usize] -= 1;
                        if self.nr[c as usize] == 0 {
                            self.wanted.remove(c);
                        }
                        if !in_flight {
                            self.in_flight.insert(w.req);
                            in_flight = true;
                        }
                    }
                    if w.left.is_empty() {
                        b.channel_batches[ci].reqs[ri] = NONE;
                        b.issued += 1;
                        any_done |= b.issued == b.len;
                        self.free_slots.push(slot);
                    }
                }
            }
        }
        let q = if read { &mut self.reads } else { &mut self.writes };
        q.put_back(batches, any_done);
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
        q.put_back(batches, true);
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
        let chip = self.layout.chip_of_die(txn.die);
        self.pending.add(id, chip, txn);
        if self.dispatch == Dispatch::SubRequests {
            self.pending_chips.push(chip);
        }
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
        self.watch.changed();
    }

    fn watches_dies(&self) -> bool {
        self.dispatch == Dispatch::SubRequests
    }

    fn on_die_may_idle(&mut self, die: u32) {
        self.watch.die_may_idle(die);
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
                // `claimed` serves as the set of idle chips not given a sub-request yet.
                let due = self.watch.round_due(device.now, &self.wanted);
                let mut targets = if due { self.watch.idle_of(&self.wanted, device, &mut claimed) } else { 0 };
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
mod tests;
