//! `piq`: Parallel Issue Queuing (Gao et al., MSST 2014; TCAD 2018), the VIOS paper's baseline.
//! Requests are grouped into batches whose requests touch disjoint parallel units (chips, or
//! dies); a request that conflicts with a batch goes to a later one. Reads have priority: a read
//! joins the oldest batch it does not conflict with; a write only the newest. The head batch is
//! released to the chips as a whole when the flash controller can take all of it: the requests PIQ
//! released and that have not completed, plus the batch's requests, fit in `hil.piq.queue_depth`
//! (spec §1 `dispatch()`: `outstanding + |B.reqs| <= QD`). Unrelated work in the chips (GC, other
//! batches' transactions) does not hold a batch back. A batch older than `max_age` goes regardless
//! (starvation guard). A read-modify-write's write, pushed once its read is done, belongs to a
//! request in flight: it joins it and goes at the next pop (`push_continuation`), or requests
//! waiting for their writes would hold the depth for ever.
//!
//! Parameters: `hil.piq.granularity` (`chip`, as in MSST'14; `die` as in TCAD'18), `hil.piq.max_age`
//! (500ms, mirroring Deadline's read_expire [INFER]), `hil.piq.queue_depth` (32 requests, SATA NCQ
//! [INFER]). A batch holds at most one request per parallel unit and at most `queue_depth`
//! requests (but under `slots` dispatch), so it always fits an empty controller; a request spanning many units occupies all of
//! them. The depth binds only when the host lets more than `queue_depth` requests into the device
//! (`host.queue_depth` above it), as SSDSim, where VIOS compared against PIQ, does.
//!
//! `hil.piq.dispatch = "sub_requests"` (the `vios2016` drive's): instead of releasing whole
//! batches, each unit that is idle with nothing queued gets the transactions the oldest batch
//! wanting it has for it, as SSDSim scatters requests into per-chip sub-requests; requests then
//! wait in PIQ's batches, where its order (reads first into the oldest batch they fit) applies.

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use super::bits::Bits;
use super::idle_watch::IdleWatch;
use super::{Collecting, DeviceQueue, DeviceView, Dispatch};
use crate::engine::Time;
use crate::nand::{Layout, NONE};
use crate::sim::txn::{ReqId, Txn, TxnId};

struct Batch {
    /// Parallel units used.
    occ: Bits,
    /// Its transactions; `sub_requests` dispatch sets issued ones to `NONE`.
    txns: Vec<TxnId>,
    reqs: Vec<ReqId>,
    born: Time,
    /// `sub_requests` dispatch: transactions not issued yet, and the units they are for.
    left: usize,
    pend: Bits,
    /// Where each request's transactions start in `txns` (`slots` dispatch issues request by
    /// request), and the next request to issue.
    starts: Vec<u32>,
    next: usize,
}

impl Batch {
    fn add(&mut self, units: &Bits, txns: &[TxnId], req: ReqId) {
        self.occ.union_with(units);
        self.pend.union_with(units);
        self.starts.push(self.txns.len() as u32);
        self.txns.extend_from_slice(txns);
        self.reqs.push(req);
        self.left += txns.len();
    }

    /// The transactions of request `i`.
    fn txns_of(&self, i: usize) -> &[TxnId] {
        let end = self.starts.get(i + 1).map_or(self.txns.len(), |&e| e as usize);
        &self.txns[self.starts[i] as usize..end]
    }
}

pub struct Piq {
    dies_per_unit: u32,
    max_age: u64,
    queue_depth: usize,
    /// Requests released to the chips that have not completed.
    in_flight: FxHashSet<ReqId>,
    pending: Collecting,
    batches: VecDeque<Batch>,
    /// Reused sets for one `sub_requests` round: the idle units not given transactions yet,
    /// and the units the current batch was given.
    avail: Bits,
    mine: Bits,
    /// `sub_requests` dispatch: requests with transactions waiting in the batches, per unit,
    /// the units where that is above 0, and which of those may be idle.
    waiting: Vec<u32>,
    wanted: Bits,
    watch: IdleWatch,
    /// `sub_requests` dispatch: batches that have started (some transaction issued).
    started: usize,
    /// Batches all issued, kept for reuse (their lists keep their memory).
    pool: Vec<Batch>,
    releasing: VecDeque<TxnId>,
    /// Transactions of requests in flight (`push_continuation`), released at the next pop.
    continuing: VecDeque<TxnId>,
    held: usize,
    dispatch: Dispatch,
}

impl Piq {
    pub fn new(layout: Layout, die_granularity: bool, max_age: u64, queue_depth: u32) -> Self {
        let dies_per_unit = if die_granularity { 1 } else { layout.dies_per_chip };
        let units = (layout.dies() / dies_per_unit) as usize;
        Piq {
            dies_per_unit,
            max_age,
            queue_depth: queue_depth.max(1) as usize,
            in_flight: FxHashSet::default(),
            pending: Collecting::new(units),
            batches: VecDeque::new(),
            avail: Bits::new(units),
            mine: Bits::new(units),
            waiting: vec![0; units],
            wanted: Bits::new(units),
            watch: IdleWatch::new(units, dies_per_unit),
            started: 0,
            pool: Vec::new(),
            releasing: VecDeque::new(),
            continuing: VecDeque::new(),
            held: 0,
            dispatch: Dispatch::QueueDepth,
        }
    }

    pub fn with_dispatch(mut self, d: Dispatch) -> Self {
        self.dispatch = d;
        self
    }

    /// Keep an issued batch's memory for a later one.
    fn recycle(&mut self, mut b: Batch) {
        b.occ.clear();
        b.pend.clear();
        b.txns.clear();
        b.reqs.clear();
        b.starts.clear();
        (b.left, b.next) = (0, 0);
        self.pool.push(b);
    }

    /// Put the request being collected into a batch. (Asked on every pop, and most find nothing
    /// collected: the test is inlined, the work not.)
    #[inline]
    fn place_pending(&mut self) {
        if !self.pending.txns.is_empty() {
            self.place_collected();
        }
    }

    /// `place_pending` with a request collected.
    #[inline(never)]
    fn place_collected(&mut self) {
        self.watch.changed();
        let (units, txns) = (&self.pending.units, &self.pending.txns);
        // A batch must fit an empty controller, except under `slots`, which issues it request by
        // request: there only the units bound it.
        let qd = if self.dispatch == Dispatch::Slots { usize::MAX } else { self.queue_depth };
        // Under `sub_requests` and `slots` a batch that has started going to the chips is closed, as a
        // released batch is under the other rules (its requests are counted in flight then).
        let open = |b: &Batch| !matches!(self.dispatch, Dispatch::SubRequests | Dispatch::Slots) || b.left == b.txns.len();
        let fits = |b: &Batch| b.reqs.len() < qd && !b.occ.intersects(units) && open(b);
        let slot = if self.pending.read {
            self.batches.iter().position(fits)
        } else {
            self.batches.back().filter(|b| fits(b)).map(|_| self.batches.len() - 1)
        };
        let req = self.pending.req;
        if self.dispatch == Dispatch::SubRequests {
            for u in units.members() {
                // Counted per unit, not per transaction: a batch hands a unit all its
                // transactions for it at once.
                self.waiting[u as usize] += 1;
                self.wanted.insert(u);
            }
        }
        match slot {
            Some(i) => self.batches[i].add(units, txns, req),
            None => {
                let mut b = self.pool.pop().unwrap_or_else(|| Batch { occ: Bits::like(units), txns: Vec::new(), reqs: Vec::new(), born: 0, left: 0, pend: Bits::like(units), starts: Vec::new(), next: 0 });
                b.born = self.pending.born;
                b.add(units, txns, req);
                self.batches.push_back(b);
            }
        }
        self.pending.placed();
    }

    /// `slots` dispatch: while fewer than `queue_depth` requests are in flight, issue the next
    /// request of the head batch, whole, whatever the units are doing; a batch goes on to the
    /// next once all its requests are issued. The depth is the device's capacity, so age does
    /// not pass it.
    fn issue_slots(&mut self) {
        while self.in_flight.len() < self.queue_depth {
            let Some(b) = self.batches.front_mut() else { return };
            let i = b.next;
            b.next += 1;
            let t = b.txns_of(i);
            let n = t.len();
            self.releasing.extend(t.iter().copied());
            b.left -= n;
            self.in_flight.insert(b.reqs[i]);
            if b.next == b.reqs.len() {
                let b = self.batches.pop_front().expect("head batch");
                self.recycle(b);
            }
        }
    }

    /// `sub_requests` dispatch: batch by batch from the oldest, hand every unit that is idle with
    /// nothing queued the transactions the oldest batch wanting it has for it. A batch not
    /// started yet starts only if its requests fit the queue depth beside those in flight (or it
    /// is older than `max_age`); later batches wait for it, as batches do. Batches with every
    /// transaction issued are dropped.
    fn issue_sub_requests(&mut self, txns: &[Txn], device: &DeviceView) {
        let dpu = self.dies_per_unit;
        // Idle units that transactions wait for: once each has been given its transactions,
        // nothing more can go this round, and the scan stops (the result is the same). The
        // device does not change during a round (what is released goes to the chips after it).
        if !self.watch.round_due(device.now, &self.wanted) {
            return;
        }
        let (avail, mine) = (&mut self.avail, &mut self.mine);
        let mut targets = self.watch.idle_of(&self.wanted, device, avail);
        // Batches start in order: once one cannot (the queue depth), no later one starts this
        // round; batches already started keep getting their units, and once the last of those
        // is passed nothing more can go.
        let mut blocked = false;
        let mut started_seen = 0;
        for b in self.batches.iter_mut() {
            if targets == 0 || (blocked && started_seen == self.started) {
                break;
            }
            let started = b.left < b.txns.len();
            started_seen += started as usize;
            let old = device.now.saturating_sub(b.born) > self.max_age;
            if !started && (blocked || (!old && self.in_flight.len() + b.reqs.len() > self.queue_depth)) {
                blocked = true;
                continue;
            }
            if !b.pend.intersects(avail) {
                continue; // none of its units is free: nothing to look at
            }
            // A unit given to an older batch this round is not given again; a batch hands all
            // its transactions for a unit at once (one request of a batch per unit).
            mine.clear();
            for t in b.txns.iter_mut().filter(|t| **t != NONE) {
                let u = txns[*t as usize].die / dpu;
                if !mine.contains(u) {
                    if !avail.contains(u) {
                        continue;
                    }
                    avail.remove(u);
                    self.watch.given(u);
                    mine.insert(u);
                    b.pend.remove(u);
                    targets -= 1;
                    self.waiting[u as usize] -= 1;
                    if self.waiting[u as usize] == 0 {
                        self.wanted.remove(u);
                    }
                }
                self.releasing.push_back(*t);
                *t = NONE;
                b.left -= 1;
            }
            if !started && b.left < b.txns.len() {
                self.in_flight.extend(b.reqs.iter().copied());
                self.started += 1;
                started_seen += 1;
            }
        }
        while self.batches.front().is_some_and(|b| b.left == 0) {
            let b = self.batches.pop_front().expect("head batch");
            self.started -= 1;
            self.recycle(b);
        }
    }
}

impl DeviceQueue for Piq {
    fn name(&self) -> &'static str {
        "piq"
    }

    fn push(&mut self, id: TxnId, txn: &Txn) {
        if self.pending.starts(txn) {
            self.place_pending();
            self.pending.begin(txn);
        }
        self.pending.add(id, txn.die / self.dies_per_unit, txn);
        self.held += 1;
    }

    fn push_continuation(&mut self, id: TxnId, _txn: &Txn) {
        self.continuing.push_back(id);
        self.held += 1;
    }

    fn pop(&mut self, txns: &mut [Txn], device: &DeviceView) -> Option<TxnId> {
        // Most pops take the next transaction released, with nothing collected or continuing:
        // answered here; the rest out of line (`pop_other`), whose registers would otherwise
        // cost every pop a frame.
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

impl Piq {
    /// `pop` with a request collected, a continuation, or nothing released.
    #[inline(never)]
    fn pop_other(&mut self, txns: &mut [Txn], device: &DeviceView) -> Option<TxnId> {
        self.place_pending();
        if let Some(t) = self.continuing.pop_front() {
            self.held -= 1;
            return Some(t);
        }
        if self.releasing.is_empty() && self.dispatch == Dispatch::SubRequests {
            self.issue_sub_requests(txns, device);
        } else if self.releasing.is_empty() && self.dispatch == Dispatch::Slots {
            self.issue_slots();
        } else if self.releasing.is_empty() {
            let head = self.batches.front()?;
            let old = device.now.saturating_sub(head.born) > self.max_age;
            let fits = self.in_flight.len() + head.reqs.len() <= self.queue_depth;
            let idle = || {
                let dpu = self.dies_per_unit;
                head.occ.members().all(|u| device.unit_idle(u, dpu))
            };
            if !old && !(fits && (self.dispatch == Dispatch::QueueDepth || idle())) {
                return None; // the controller cannot take the whole batch yet, or its units are busy
            }
            let b = self.batches.pop_front().expect("head batch");
            self.in_flight.extend(b.reqs.iter().copied());
            self.releasing.extend(b.txns.iter().copied());
            self.recycle(b);
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
    use crate::config::{Options, Settings};

    fn layout() -> Layout {
        // tiny: 4 chips of 1 die
        Layout::new(&Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap().geometry)
    }

    fn txn(req: ReqId, kind: TxnKind, die: u32) -> Txn {
        Txn::new(kind, req, 0, 0, 0, die, 4096, 0)
    }

    /// Pop `n` times with the chips holding `queued` transactions.
    fn pops(p: &mut Piq, n: usize, queued: usize) -> Vec<Option<TxnId>> {
        let idle = |_: u32| false;
        let in_chips = |_: u32| queued;
        let v = DeviceView { now: 0, die_busy: &idle, chip_queued: &in_chips };
        (0..n).map(|_| p.pop(&mut [], &v)).collect()
    }

    /// Pop under `sub_requests`, each unit reported as possibly idle first (as the simulator
    /// reports a die that may have become idle): the view may have changed since the last pop.
    fn told(p: &mut Piq, all: &mut [Txn], v: &DeviceView) -> Option<TxnId> {
        for d in 0..4 {
            p.on_die_may_idle(d);
        }
        p.pop(all, v)
    }

    #[test]
    fn conflict_free_requests_share_a_batch_and_conflicts_wait() {
        let mut p = Piq::new(layout(), false, 500_000_000, 2);
        p.push(10, &txn(1, TxnKind::HostWrite, 0)); // request 1 on chip 0
        p.push(11, &txn(1, TxnKind::HostWrite, 1)); //             and chip 1
        p.push(20, &txn(2, TxnKind::HostWrite, 2)); // request 2 on chip 2: same batch
        p.push(30, &txn(3, TxnKind::HostWrite, 0)); // request 3 on chip 0: conflicts, batch 2
        assert_eq!(pops(&mut p, 3, 0), vec![Some(10), Some(11), Some(20)]);
        // batch 2 waits: 2 requests in flight + 1 > queue depth 2
        assert_eq!(pops(&mut p, 1, 0), vec![None]);
        p.on_request_done(2);
        assert_eq!(pops(&mut p, 2, 0), vec![Some(30), None]);
    }

    #[test]
    fn sub_requests_give_each_idle_unit_the_oldest_batch_that_wants_it() {
        // Batch 1: request 1 on units 0 and 1. Batch 2: request 2 on unit 0 (conflicts).
        let mut p = Piq::new(layout(), false, 500_000_000, 32).with_dispatch(Dispatch::SubRequests);
        let mut all = vec![txn(1, TxnKind::HostWrite, 0), txn(1, TxnKind::HostWrite, 1), txn(2, TxnKind::HostWrite, 0)];
        for (i, t) in all.clone().iter().enumerate() {
            p.push(i as TxnId, t);
        }
        // Each round pops what one look at the units releases; the next look sees them busy.
        let (busy1, busy, idle) = (|d: u32| d == 1, |_: u32| true, |_: u32| false);
        let round = |f: &dyn Fn(u32) -> bool, p: &mut Piq, all: &mut Vec<Txn>| {
            let v = DeviceView { now: 0, die_busy: f, chip_queued: &|_| 0 };
            let mut out = vec![told(p, all, &v)];
            while !p.releasing.is_empty() {
                out.push(told(p, all, &v));
            }
            out
        };
        // Unit 1 busy: only request 1's transaction for unit 0; request 2 waits for unit 0 behind it.
        assert_eq!(round(&busy1, &mut p, &mut all), vec![Some(0)]);
        assert_eq!(round(&busy, &mut p, &mut all), vec![None]);
        assert!(p.in_flight.contains(&1) && !p.in_flight.contains(&2));
        // Both idle: request 1's unit-1 transaction, and unit 0 (batch 1 has nothing left there)
        // for request 2.
        assert_eq!(round(&idle, &mut p, &mut all), vec![Some(1), Some(2)]);
        assert!(p.in_flight.contains(&2));
        assert_eq!((p.batches.len(), p.len()), (0, 0));
    }

    #[test]
    fn sub_requests_keep_serving_started_batches_behind_one_the_queue_depth_holds() {
        // Queue depth 2. Batch 1: request 1 on unit 0. Batch 2: requests 2 and 3 on units 0 and 1
        // ... built so that batch 2 starts (unit 1 free) while batch 1 waits for unit 0.
        let mut p = Piq::new(layout(), false, 500_000_000, 2).with_dispatch(Dispatch::SubRequests);
        let mut all = vec![
            txn(1, TxnKind::HostWrite, 0), // batch 1
            txn(2, TxnKind::HostWrite, 0), // batch 2 (conflicts on unit 0)
            txn(2, TxnKind::HostWrite, 1),
        ];
        for (i, t) in all.clone().iter().enumerate() {
            p.push(i as TxnId, t);
        }
        let busy0 = |d: u32| d == 0;
        let v = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
        // Unit 0 busy: batch 1 fits but gets nothing; batch 2 starts on unit 1.
        assert_eq!((told(&mut p, &mut all, &v), told(&mut p, &mut all, &v)), (Some(2), None));
        assert_eq!(p.in_flight.len(), 1);
        // A write arriving now does not join the started batch 2: a new batch 3.
        all.push(txn(3, TxnKind::HostWrite, 2));
        p.push(3, &all[3]);
        p.place_pending();
        assert_eq!(p.batches.len(), 3);
        // Unit 0 frees: batch 1 starts there (2 in flight now) and batch 2's unit-0 transaction
        // waits behind it (the unit is claimed this round); batch 3 would pass the depth.
        let idle = |_: u32| false;
        let vi = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!((told(&mut p, &mut all, &vi), told(&mut p, &mut all, &v)), (Some(0), None));
        assert_eq!(p.in_flight.len(), 2);
        // Request 1 completes and unit 0 is free: started batch 2 gets it, and batch 3 starts
        // (1 in flight + 1 fits the depth of 2).
        p.on_request_done(1);
        let busy = |_: u32| true;
        let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        assert_eq!((told(&mut p, &mut all, &vi), told(&mut p, &mut all, &vi), told(&mut p, &mut all, &vb)), (Some(1), Some(3), None));
    }

    #[test]
    fn sub_requests_a_started_batch_is_not_frozen_behind_one_the_depth_holds() {
        // Depth 2. Batch A: requests 1 (unit 0) and 2 (unit 1). Batch B: request 3 on units 0
        // and 2. Units 0 and 1 busy: A gets nothing, B starts on unit 2 (1 in flight). Then A
        // cannot start (1 + 2 > 2) until request 3 completes, and request 3 needs unit 0: B must
        // still get it, or nothing ever moves again.
        let mut p = Piq::new(layout(), false, 500_000_000, 2).with_dispatch(Dispatch::SubRequests);
        let mut all = vec![txn(1, TxnKind::HostWrite, 0), txn(2, TxnKind::HostWrite, 1), txn(3, TxnKind::HostWrite, 0), txn(3, TxnKind::HostWrite, 2)];
        for (i, t) in all.clone().iter().enumerate() {
            p.push(i as TxnId, t);
        }
        let (busy01, busy, idle) = (|d: u32| d < 2, |_: u32| true, |_: u32| false);
        let v01 = DeviceView { now: 0, die_busy: &busy01, chip_queued: &|_| 0 };
        let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        let vi = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!((told(&mut p, &mut all, &v01), told(&mut p, &mut all, &vb)), (Some(3), None));
        assert_eq!((told(&mut p, &mut all, &vi), told(&mut p, &mut all, &vb)), (Some(2), None));
        p.on_request_done(3);
        assert_eq!((told(&mut p, &mut all, &vi), told(&mut p, &mut all, &vi), told(&mut p, &mut all, &vb)), (Some(0), Some(1), None));
        assert_eq!(p.batches.len(), 0);
    }

    #[test]
    fn slots_issue_request_by_request_in_batch_order() {
        // Depth 1. Batch A: write 1 (unit 0) and read 3 (unit 1, joined the oldest batch it
        // fits); batch B: write 2 (unit 0). Each completion frees the slot for the next request
        // in that order, whatever the units are doing.
        let mut p = Piq::new(layout(), false, 500_000_000, 1).with_dispatch(Dispatch::Slots);
        p.push(10, &txn(1, TxnKind::HostWrite, 0));
        p.push(20, &txn(2, TxnKind::HostWrite, 0));
        p.push(30, &txn(3, TxnKind::HostRead, 1));
        p.push(31, &txn(3, TxnKind::HostRead, 2));
        let busy = |_: u32| true;
        let v = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        let pops = |p: &mut Piq| std::iter::from_fn(|| p.pop(&mut [], &v)).collect::<Vec<_>>();
        assert_eq!(pops(&mut p), vec![10]);
        p.on_request_done(1);
        assert_eq!(pops(&mut p), vec![30, 31], "the read's two transactions go together");
        // A read arriving now cannot join batch A, which has started: it joins batch B.
        p.push(40, &txn(4, TxnKind::HostRead, 3));
        p.on_request_done(3);
        assert_eq!(pops(&mut p), vec![20]);
        p.on_request_done(2);
        assert_eq!(pops(&mut p), vec![40]);
        assert_eq!((p.len(), p.batches.len()), (0, 0));
    }

    #[test]
    fn unrelated_work_in_the_chips_does_not_hold_a_batch() {
        // GC transactions or another batch's queued in the chips are not PIQ's outstanding
        // requests: the batch goes as soon as the controller has room for it.
        let mut p = Piq::new(layout(), false, 500_000_000, 32);
        p.push(10, &txn(1, TxnKind::HostRead, 0));
        assert_eq!(pops(&mut p, 1, 7), vec![Some(10)]);
        p.push(20, &txn(2, TxnKind::HostRead, 0)); // conflicts with request 1: a new batch
        assert_eq!(pops(&mut p, 1, 7), vec![Some(20)], "1 in flight + 1 <= 32");
    }

    #[test]
    fn a_batch_holds_at_most_queue_depth_requests() {
        // Four conflict-free requests, depth 2: two batches of two.
        let mut p = Piq::new(layout(), false, 500_000_000, 2);
        for (i, chip) in [(1, 0), (2, 1), (3, 2), (4, 3)] {
            p.push(i * 10, &txn(i, TxnKind::HostWrite, chip));
        }
        assert_eq!(pops(&mut p, 3, 0), vec![Some(10), Some(20), None]);
        p.on_request_done(1);
        assert_eq!(pops(&mut p, 1, 0), vec![None], "1 in flight + 2 > 2");
        p.on_request_done(2);
        assert_eq!(pops(&mut p, 3, 0), vec![Some(30), Some(40), None]);
    }

    #[test]
    fn reads_jump_to_the_oldest_batch_they_fit_writes_do_not() {
        let mut p = Piq::new(layout(), false, 500_000_000, 2);
        p.push(10, &txn(1, TxnKind::HostWrite, 0)); // batch A: chip 0
        p.push(20, &txn(2, TxnKind::HostWrite, 0)); // batch B: chip 0
        p.push(30, &txn(3, TxnKind::HostWrite, 1)); // a write fits A but may only join B (the tail)
        p.push(40, &txn(4, TxnKind::HostRead, 2)); // a read joins the oldest batch it fits: A
        assert_eq!(pops(&mut p, 3, 0), vec![Some(10), Some(40), None]);
        p.on_request_done(4);
        p.on_request_done(1);
        assert_eq!(pops(&mut p, 3, 0), vec![Some(20), Some(30), None]);
    }

    #[test]
    fn with_idle_units_a_batch_waits_until_its_chips_are_idle() {
        let mut p = Piq::new(layout(), false, 500_000_000, 32).with_dispatch(Dispatch::IdleUnits);
        p.push(10, &txn(1, TxnKind::HostWrite, 0)); // chip 0
        p.push(20, &txn(2, TxnKind::HostWrite, 1)); // chip 1: same batch
        let busy0 = |d: u32| d == 0;
        let v = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
        assert_eq!(p.pop(&mut [], &v), None, "chip 0 is busy: the whole batch waits");
        let idle = |_: u32| false;
        let v = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!((p.pop(&mut [], &v), p.pop(&mut [], &v)), (Some(10), Some(20)));
        // The default issues regardless of busy chips.
        let mut q = Piq::new(layout(), false, 500_000_000, 32);
        q.push(10, &txn(1, TxnKind::HostWrite, 0));
        let v = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
        assert_eq!(q.pop(&mut [], &v), Some(10));
    }

    #[test]
    fn an_old_batch_goes_even_when_the_controller_is_full() {
        let mut p = Piq::new(layout(), false, 1_000, 1);
        p.push(10, &txn(1, TxnKind::HostRead, 0));
        p.push(20, &txn(2, TxnKind::HostRead, 0));
        assert_eq!(pops(&mut p, 2, 0), vec![Some(10), None]);
        let idle = |_: u32| false;
        let v = DeviceView { now: 5_000, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!(p.pop(&mut [], &v), Some(20));
    }
}
