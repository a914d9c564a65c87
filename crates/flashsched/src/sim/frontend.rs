//! The host side of the simulator: arrivals from the workload, the host scheduler's dispatch,
//! splitting requests into page transactions, and the device queue feeding the chips' queues.

use super::event::Ev;
use super::txn::{Placement, ReqId, Txn, TxnId, TxnKind};
use super::{Req, SimError, Simulator};
use crate::ctrl::MultiPlane;
use crate::ftl;
use crate::hil;
use crate::host::HostRequestView;
use crate::nand::{Lpn, NONE};
use crate::trace::Op;
use crate::workload::HostRequest;

/// How long a host read served by a queued read of its page takes (`device.read_queue_hits`:
/// SSDSim's constant 1,000 ns, ssd.c creat_sub_request).
const READ_QUEUE_HIT_NS: u64 = 1000;

/// Pages of a request whose mapping entries are hinted into the cache ahead of use.
const PREFETCH_PAGES: u64 = 32;

impl Simulator {
    pub(super) fn fetch_next_arrival(&mut self) -> Result<(), SimError> {
        if let Some(r) = self.workload.next_request()? {
            self.prefetch_request(&r);
            let t = r.arrival.max(self.now);
            self.next_arrival = Some(r);
            self.events.push(t, Ev::Arrival);
        }
        self.schedule_workload_wakeup();
        Ok(())
    }

    /// Hint the mapping entries of the next request's pages into the cache now, while the events
    /// before its arrival run: by the time `split` reads them they are there. (The mapping table
    /// of a large drive does not fit in cache; its misses were the largest single share of the
    /// run's wall time, docs/performance.md.)
    #[inline]
    fn prefetch_request(&self, r: &HostRequest) {
        if r.len == 0 || !matches!(r.op, Op::Read | Op::Write) {
            return;
        }
        let first = self.page_of(r.offset);
        let last = self.page_of(r.offset + r.len - 1);
        self.prefetch_mappings(self.fold_lpn(first), last - first + 1);
    }

    /// The page holding device byte `b`: a shift for the usual power-of-two page (a 64-bit
    /// `div` is tens of cycles, and every request takes several).
    #[inline]
    pub(super) fn page_of(&self, b: u64) -> u64 {
        let ps = self.page_size;
        if ps.is_power_of_two() { b >> ps.trailing_zeros() } else { b / ps }
    }

    /// A page number folded into the logical space (`workload.fold = "modulo"`); a page already
    /// inside it, the usual case, needs no division.
    #[inline]
    pub(super) fn fold_lpn(&self, page: u64) -> u64 {
        if page < self.logical_pages { page } else { page % self.logical_pages }
    }

    /// Hint the mapping entries of up to `PREFETCH_PAGES` of the `pages` logical pages from
    /// `first_lpn` (already folded into the logical space).
    #[inline]
    fn prefetch_mappings(&self, first_lpn: u64, pages: u64) {
        self.for_each_ahead(first_lpn, pages, |lpn| self.ftl.prefetch_mapping(lpn));
    }

    /// Call `f` with the logical pages from `first_lpn` (already folded into the logical space)
    /// to hint, up to `PREFETCH_PAGES` of `pages`: those before the end of the logical space, then
    /// those wrapped to its start, each run without a test per page (these loops run for every
    /// page of every request, twice; the test was 0.7% of bench8x8's instructions).
    #[inline(always)]
    fn for_each_ahead(&self, first_lpn: u64, pages: u64, mut f: impl FnMut(Lpn)) {
        let n = pages.min(PREFETCH_PAGES);
        let head = n.min(self.logical_pages - first_lpn);
        for lpn in first_lpn..first_lpn + head {
            f(lpn as Lpn);
        }
        for lpn in 0..n - head {
            f(lpn as Lpn);
        }
    }

    /// A logical page one past the end of the logical space wraps to its start (`workload.fold =
    /// "modulo"`; a request's first page is folded by one division, the following ones by this
    /// comparison).
    #[inline]
    pub(super) fn wrap_lpn(&self, lpn: u64) -> u64 {
        if lpn >= self.logical_pages { lpn - self.logical_pages } else { lpn }
    }

    /// `ftl.unmapped_reads = "map"`: a read of never-written `lpn` takes the next free page of
    /// `plane`'s write frontier (the host's default stream) as the page it reads, and nothing is
    /// programmed (MQSim's online_create_entry_for_reads: its reads of such pages then pair into
    /// multi-plane commands, and the writes after them in the plane take later pages; the page
    /// taken may start GC, as a write's does). `NONE` when the host may take no page there (the
    /// plane is down to GC's reserve; MQSim would still map it): the read then goes to the plane
    /// unmapped, as with `flash`.
    #[inline(never)]
    pub(super) fn map_unwritten_read(&mut self, lpn: Lpn, plane: u32) -> crate::nand::Ppn {
        match self.ftl.allocate_in(plane, ftl::Writer::Host, ftl::STREAM_DEFAULT) {
            Some(ppn) => {
                self.ftl.program(lpn, ppn);
                // The page taken may bring the plane to its GC threshold, as a write's does.
                self.maybe_gc(plane);
                ppn
            }
            None => NONE,
        }
    }

    /// Requests the workload released besides the one it returned (a burst of write-back) arrive
    /// like closed-loop follow-ups; then its timer is (re)armed.
    pub(super) fn take_released(&mut self) {
        while let Some(r) = self.workload.take_released() {
            let slot = self.job_arrivals.insert(r);
            self.events.push(r.arrival.max(self.now), Ev::JobArrival(slot));
        }
        self.schedule_workload_wakeup();
    }

    pub(super) fn schedule_workload_wakeup(&mut self) {
        if let Some(t) = self.workload.next_wakeup() {
            let t = t.max(self.now);
            if self.workload_wakeup.is_none_or(|w| t < w) {
                self.workload_wakeup = Some(t);
                self.events.push(t, Ev::WorkloadWakeup);
            }
        }
    }

    pub(super) fn on_arrival(&mut self, r: HostRequest) {
        let measured = self.arrived >= self.warmup;
        if measured && self.measure_start.is_none() {
            self.begin_measurement();
        }
        let req = Req { seq: self.arrived, dispatched: 0, measured, job: r.job, ..Req::new(self.now, super::Origin::Host, r.op, r.offset, r.len) };
        self.arrived += 1;
        let id: ReqId = self.reqs.insert(req);
        let stream = if r.job == crate::workload::NO_JOB { 0 } else { r.job };
        let view = HostRequestView { arrival: self.now, op: r.op, offset: r.offset, len: r.len, stream };
        self.host.enqueue(id, &view, self.now);
        self.need_dispatch = true;
    }

    /// Send requests to the device while it has room.
    pub(super) fn dispatch(&mut self) {
        while self.outstanding < self.queue_depth {
            let Some(d) = self.host.dispatch(self.now) else { break };
            self.outstanding += 1;
            let id = d.id;
            let r = &mut self.reqs.items[id as usize];
            r.dispatched = self.now;
            r.dev_offset = d.offset;
            r.dev_len = d.len;
            for &m in &d.merged {
                // Merged requests ride on `id`: same dispatch, same completion.
                self.reqs.items[m as usize].dispatched = self.now;
            }
            if self.request_sink.is_some() {
                // Before `split`: a request without flash work completes inside it.
                self.log_dispatch(id, &d.merged);
            }
            if !d.merged.is_empty() {
                self.merged.insert(id, d.merged);
            }
            if self.link.enabled() {
                self.link_begin(id, false);
            } else {
                self.split(id);
            }
        }
        // An idling scheduler holds requests back until a time of its choosing.
        if let Some(t) = self.host.wakeup() {
            // Only a future time: a due timer is served by the dispatch that runs when the device
            // next has room (scheduling it again at `now` would spin while the queue is full).
            if self.host_wakeup.is_none_or(|w| t < w) && t > self.now {
                self.host_wakeup = Some(t);
                self.events.push(t, Ev::HostWakeup);
            }
        }
        self.drain_hil();
    }

    /// Split a request into page-sized transactions and hand them to the device queue.
    pub(super) fn split(&mut self, id: ReqId) {
        let r = self.reqs.items[id as usize];
        // (Only the host's requests are split: the controller's own make their transactions.)
        debug_assert_eq!(r.origin, super::Origin::Host);
        // The data cache takes host writes and flushes whole, and serves what it holds of reads.
        let cached = self.cache.is_some();
        if cached && r.dev_len > 0 && r.op == Op::Write {
            self.cache_write(id);
            return;
        }
        if cached && r.op == Op::Flush {
            self.cache_flush(id);
            return;
        }
        let mut hit_sectors = 0u64;
        let ps = self.page_size;
        let mut subs = 0u32;
        // Reads of read-modify-writes among them: steps of their writes, not sub-requests.
        let mut rmw_reads = 0u32;
        if matches!(r.op, Op::Read | Op::Write | Op::Trim) && r.dev_len > 0 {
            let first = self.page_of(r.dev_offset);
            let last = self.page_of(r.dev_offset + r.dev_len - 1);
            // Fold into the logical space (workload.fold = "modulo"; "error" was checked upstream).
            let first_lpn = self.fold_lpn(first);
            let pages = last - first + 1;
            if self.wear.grouping.is_some() {
                self.group_request(r.op == Op::Write, first_lpn, pages);
            }
            // Touch the mapping entries of all the request's pages before using any of them, so
            // their cache misses overlap instead of following one another (the FTL tables of a
            // large drive do not fit in cache). Already hinted when the request was read from the
            // workload (`prefetch_request`), but a host scheduler may have held it since, and the
            // device extent may hold merged requests: hinted again here, where it is used.
            self.prefetch_mappings(first_lpn, pages);
            if r.op == Op::Write {
                self.for_each_ahead(first_lpn, pages, |lpn| self.ftl.prefetch_current_copy(lpn));
            }
            let mut next_lpn = first_lpn;
            for page in first..=last {
                let lpn = next_lpn as u32;
                next_lpn = self.wrap_lpn(next_lpn + 1);
                let lo = r.dev_offset.max(page * ps);
                let hi = (r.dev_offset + r.dev_len).min((page + 1) * ps);
                let bytes = (hi - lo) as u32;
                match r.op {
                    Op::Read => {
                        self.counters.host_pages_read += 1;
                        let mut bytes = bytes;
                        if cached {
                            let sectors = self.page_sectors(&r, page);
                            let held = self.cache_read_page(lpn, sectors);
                            if held != 0 {
                                hit_sectors += held.count_ones() as u64;
                                if held == sectors {
                                    continue;
                                }
                                bytes = super::cache::bytes_in_sectors(lo, hi, page * ps, sectors & !held);
                            }
                        }
                        let (ppn, plane) = match self.ftl.lookup(lpn) {
                            Some(p) => (p, self.layout.plane_of(p)),
                            None => {
                                self.counters.host_reads_unmapped += 1;
                                if self.skip_unmapped {
                                    continue;
                                }
                                let plane = self.alloc.home_plane(lpn as u64);
                                // With the mapping table cached, the page is mapped when its
                                // entry is (`sim::mapping`).
                                let ppn = if self.map_unmapped && self.mapping.is_none() { self.map_unwritten_read(lpn, plane) } else { NONE };
                                (ppn, plane)
                            }
                        };
                        let die = self.layout.die_of_plane(plane);
                        // SSDSim moves the whole page whatever the request asked for.
                        let bytes = if self.read_whole_pages { ps as u32 } else { bytes };
                        let t = self.txns.insert(Txn::new(TxnKind::HostRead, id, lpn, ppn, plane, die, bytes, self.now));
                        subs += 1;
                        if self.arbiter.on && self.read_queue_hit(die, lpn, ppn) {
                            // Served by the read already queued for the page (SSDSim ssd.c
                            // creat_sub_request: done 1 us later, no flash work).
                            self.counters.read_queue_hits += 1;
                            self.events.push(self.now + READ_QUEUE_HIT_NS, Ev::EccDone(t));
                            continue;
                        }
                        self.push_mapped(t);
                    }
                    Op::Write => {
                        self.counters.host_pages_written += 1;
                        let (_, n, reads) = self.split_write_page(id, lpn, bytes);
                        subs += n;
                        rmw_reads += reads;
                    }
                    _ => {
                        if cached {
                            self.cache_trim(lpn);
                        }
                        if let Some(m) = self.mapping.as_mut() {
                            m.cmt.set_dirty(lpn);
                        }
                        let old = self.ftl.trim(lpn);
                        if self.hil_places {
                            self.page_trimmed(old);
                        }
                    }
                }
            }
        }
        // (SSDSim's buffer times only a request it serves whole; the page cache moves the hits
        // in a DRAM transfer.)
        let dram = u32::from(hit_sectors > 0 && (subs == 0 || self.cache.as_ref().is_some_and(|c| c.sectors.is_none())));
        let r = &mut self.reqs.items[id as usize];
        (r.subs_left, r.unqueued, r.subs) = (subs + dram, subs, subs - rmw_reads);
        if dram > 0 {
            // The read's cached sectors, in one DRAM transfer.
            self.cache_read_hits(id, hit_sectors);
        } else if subs == 0 {
            self.complete_request(id);
        }
    }

    /// One page of write request `id`: `bytes` of logical page `lpn`, placed and queued, with the
    /// read a partial page needs first (`ftl.partial_writes`). Returns the write's transaction,
    /// the transactions made, and how many of them are reads that are steps of the write.
    #[inline(always)]
    pub(super) fn split_write_page(&mut self, id: ReqId, lpn: Lpn, bytes: u32) -> (TxnId, u32, u32) {
        let ps = self.page_size;
        let mut subs = 0u32;
        let mut rmw_reads = 0u32;
        let plane = {
            let (dies, tsu, ftl, requeue, layout) = (&self.flash.dies, &self.tsu, &self.ftl, &self.requeue, &self.layout);
            let die_load = |d: u32| tsu.queued_for_die(d) as u32 + requeue.unheld_aside(d, layout) + u32::from(!dies[d as usize].is_idle());
            let plane_free = |p: u32| ftl.free_blocks(p);
            self.alloc.plane_for_write_with(lpn as u64, || ftl::alloc::AllocView { die_load: &die_load, plane_free: &plane_free })
        };
        let die = self.layout.die_of_plane(plane);
        let partial = (bytes as u64) < ps;
        let old = if (self.rmw || self.update_read) && partial { self.ftl.lookup(lpn) } else { None };
        // SSDSim widens a partial overwrite to the whole page (flash.c allocate_location).
        let write_bytes = if old.is_some() && self.update_read { ps as u32 } else { bytes };
        let t = self.txns.insert(Txn::new(TxnKind::HostWrite, id, lpn, NONE, plane, die, write_bytes, self.now));
        subs += 1;
        match old {
            Some(old) if self.update_read => {
                // The update read of the other sectors is queued first, and the write right
                // behind it without waiting for it. Where the old page shares the write's chip
                // and the chip serves reads first (SSDSim: static allocation, its arbitration),
                // the read ends before the write's data-in starts; elsewhere it may not. A step
                // of the write, not a piece of the request (no slack or stages of its own): the
                // request completes when both are done.
                let p = self.layout.plane_of(old);
                let r = self.txns.insert(Txn::new(TxnKind::HostRead, id, lpn, old, p, self.layout.die_of_plane(p), ps as u32 - bytes, self.now));
                self.update_reads.insert(r);
                self.counters.rmw_reads += 1;
                self.push_mapped(r);
                self.push_mapped(t);
                subs += 1;
                rmw_reads += 1;
            }
            Some(old) => {
                // Read-modify-write: read the old page's other sectors first; the write goes to
                // the device queue when that read is done.
                let p = self.layout.plane_of(old);
                let r = self.txns.insert(Txn::new(TxnKind::HostRead, id, lpn, old, p, self.layout.die_of_plane(p), ps as u32 - bytes, self.now));
                self.rmw_waiting.insert(r, t);
                self.counters.rmw_reads += 1;
                // (Its entry is looked up for the read; the write follows it.)
                self.push_mapped(r);
                subs += 1;
                rmw_reads += 1;
            }
            _ => self.push_mapped(t),
        }
        (t, subs, rmw_reads)
    }

    #[inline(always)]
    pub(super) fn drain_hil(&mut self) {
        if self.flash.adv.multi_plane != MultiPlane::Off && !self.batching {
            self.drain_hil_batched();
        } else {
            self.drain_hil_now();
        }
    }

    /// Release what the device queue lets go to the chips' queues, starting idle dies as it goes.
    #[inline(always)]
    fn drain_hil_now(&mut self) {
        loop {
            let t = match self.hil.fifo() {
                Some(f) => f.take(),
                None => self.pop_hil_policy(),
            };
            let Some(t) = t else { break };
            if self.hil_places && self.txns.get(t).kind == TxnKind::HostWrite {
                if self.txns.get(t).place != Placement::Static || self.at_fill_limit(t) {
                    self.place_by_speed(t);
                }
                self.host_write_queued(t);
            }
            self.to_tsu(t);
        }
    }

    /// The next transaction a device-queue policy other than FIFO releases, given its view of the
    /// device. (Apart from `drain_hil_now`: FIFO, the default, needs no view, and building it on
    /// every release was measurable.)
    #[inline]
    fn pop_hil_policy(&mut self) -> Option<TxnId> {
        // Asked after every operation a die ends, mostly with nothing held (VIOS on bench8x8:
        // half its pops); the policy's `pop` would build nothing and return `None`.
        // (Debug builds ask anyway, and check the answer.)
        let empty = self.hil.len() == 0;
        if empty && !cfg!(debug_assertions) {
            return None;
        }
        let (dies, tsu, now) = (&self.flash.dies, &self.tsu, self.now);
        let busy = |d: u32| !dies[d as usize].is_idle() || tsu.queued_for_die(d) > 0;
        let chip_queued = |c: u32| tsu.queued_on_chip(c);
        let t = self.hil.pop_policy(&mut self.txns.items, &hil::DeviceView { now, die_busy: &busy, chip_queued: &chip_queued });
        debug_assert!(!empty || t.is_none(), "device queue {} released a transaction with none held", self.hil.name());
        t
    }

    /// `die` may have become idle with nothing queued, which a device queue that keeps track of
    /// idle units hears (`DeviceQueue::on_die_may_idle`). Called wherever a die leaves an
    /// operation or a start comes to nothing: an operation or command ends (`finish_op`,
    /// `finish_command`), a suspension reaches its safe point, a write finds no page, a GC move
    /// or an idle-time re-program is dropped (every early return of `start_txn`). Those are every
    /// way a die becomes idle, and the device queue is asked to release after each (debug builds
    /// check: `hil::idle_watch`).
    #[inline(always)]
    pub(super) fn die_may_idle(&mut self, die: u32) {
        if self.hil_watches {
            self.hil.on_die_may_idle(die);
        }
    }

    /// With multi-plane commands, dies start only once every transaction released at this
    /// instant is queued, so that they can be packed together.
    #[inline(never)]
    fn drain_hil_batched(&mut self) {
        self.batching = true;
        self.drain_hil_now();
        self.end_batch();
    }

    pub(super) fn to_tsu(&mut self, t: TxnId) {
        let now = self.now;
        let txn = self.txns.get_mut(t);
        txn.enqueued = now;
        let (die, kind, req) = (txn.die, txn.kind, txn.req);
        let host = matches!(kind, TxnKind::HostRead | TxnKind::HostWrite);
        if self.idle_task.is_some() {
            self.chip_busy_again(self.layout.chip_of_die(die));
            if host {
                self.host_meets_reprogram(die, t);
            }
        }
        if host {
            let chip = self.layout.chip_of_die(die);
            // The chip's state first: a field, where the queue count may be a call.
            let busy = self.flash.chip_busy(chip) || self.tsu.queued_on_chip(chip) > 0;
            self.reqs.items[req as usize].conflicted |= busy;
        }
        if self.take_at_once(t, die, host) {
            // What the queue would do, without the round trip through it: the die is idle, may
            // start, and nothing is queued ahead of `t` (for Slacker with the chip as its unit,
            // nothing on the chip), so `next` would return `t` itself; the scheduler has recorded
            // the pair, and `t` counts as queued.
            debug_assert!(!self.requeue.is_armed(die), "die {die} skipped its queue with kept-aside writes to resolve");
            self.start_txn(die, t);
            self.start_die_now(die);
            return;
        }
        self.tsu.enqueue(t, self.txns.get(t));
        if self.arbiter.on && kind == TxnKind::HostRead {
            self.arbiter_read_queued(t, die);
        }
        if host && self.tsu_observes {
            self.txn_queued(req, now);
        }
        if (self.flash.suspend.for_reads || self.tsu_pauses || self.reprograms.suspend) && !self.flash.dies[die as usize].is_idle() {
            self.maybe_suspend_for(die, t);
        }
        self.try_start_die(die);
    }

    /// One more transaction of host request `req` is queued (for a scheduler that observes):
    /// when it was the last, the scheduler hears that the whole request is.
    #[inline]
    fn txn_queued(&mut self, req: ReqId, now: crate::engine::Time) {
        let r = &mut self.reqs.items[req as usize];
        r.unqueued -= 1;
        if r.unqueued == 0 {
            self.tsu.request_queued(req, now);
        }
    }

    /// A transaction `t` just released for `die` would be started at once, so it skips the
    /// queue (`to_tsu`) when this says so: the die may take it now (`die_takes_now`) and the
    /// scheduler says `next` would take `t` at once (`TransactionScheduler::takes_at_once`:
    /// FCFS, FR-FCFS and O3 when nothing is queued for the die, Slacker when nothing is for its
    /// unit; it records the pair). On the reference benchmark 85% of page transactions find
    /// their die so under FCFS; the queue's push and pop and the die's start loop were about 4%
    /// of the run's instructions, and a tenth of the reordering schedulers' cost.
    ///
    /// Not only a question: when it says so, `t` counts as queued (`host`: a host transaction,
    /// which a scheduler that observes hears of, as `to_tsu` tells it after queueing one).
    #[inline(always)]
    fn take_at_once(&mut self, t: TxnId, die: u32, host: bool) -> bool {
        use crate::tsu::{TransactionScheduler, TsuSlot};
        #[cfg(test)]
        if self.queue_always {
            return false;
        }
        let d = &self.flash.dies[die as usize];
        if !d.is_idle() {
            return false;
        }
        // FCFS's `takes_at_once`, inlined, its queue count asked before the die's rules (the
        // cheaper question); FCFS does not observe.
        if let TsuSlot::Fcfs(f) = &self.tsu {
            return f.queued_for_die(die) == 0 && self.die_takes_now(d, die);
        }
        // Any other scheduler is asked last: a true answer is recorded. (A write held aside for
        // the die is counted as queued by every scheduler that holds them.)
        if !self.die_takes_now(d, die) {
            return false;
        }
        let TsuSlot::Other(p) = &mut self.tsu else { unreachable!("FCFS answered above") };
        if !p.takes_at_once(t, self.txns.get(t)) {
            return false;
        }
        if host && self.tsu_observes {
            self.txn_queued(self.txns.get(t).req, self.now);
        }
        true
    }

    /// Whether idle `die` (`d`) may start a transaction now without its queue: it holds no
    /// suspended operation, may start under the chip's rules, no batch is being gathered, and it
    /// decides for itself (`direct_start`).
    #[inline(always)]
    fn die_takes_now(&self, d: &crate::ctrl::Die, die: u32) -> bool {
        !self.batching && self.direct_start && d.may_serve_read(&self.flash.suspend, self.now).is_none() && self.flash.may_start(die)
    }
}
