//! Completion and measurement: a transaction's critical-path stages, a request's completion
//! (with the requests merged into it), per-direction statistics, intervals and the request log.

use super::event::Ev;
use super::txn::{ReqId, TxnId};
use super::{SimError, Simulator};
use crate::sink::RequestLogRow;
use crate::host::HostRequestView;
use crate::nand::NONE;
use crate::stats::{as_f64, Breakdown, DeviceCounters};
use crate::trace::Op;
use crate::workload::HostRequest;

impl Simulator {
    /// Close the current interval window; streamed to the interval file when there is one. A
    /// run that would make more windows than `stats.max_intervals` stops here.
    pub(super) fn close_interval(&mut self) -> Result<(), SimError> {
        if self.intervals_closed >= self.max_intervals {
            return Err(SimError::TooManyIntervals { interval_ns: self.intervals.width, max: self.max_intervals, time_ns: self.now });
        }
        let f = &self.ftl;
        self.intervals.close(f.total_free_blocks(), f.min_free_blocks(), f.counters.gc_invocations, f.counters.erases);
        self.intervals_closed += 1;
        if let Some(file) = self.interval_file.as_mut() {
            for line in self.intervals.lines.drain(..) {
                file.line(&line);
            }
        }
        Ok(())
    }

    /// The device counters so far, with those the FTL and the flash controller keep themselves.
    pub(super) fn device_counters(&self) -> DeviceCounters {
        let mut c = self.counters;
        c.gc_invocations = self.ftl.counters.gc_invocations;
        c.commands = self.flash.command_totals();
        c.gc_pages_moved = self.ftl.counters.gc_pages_moved;
        c.erases = self.ftl.counters.erases;
        c.trimmed_pages = self.ftl.counters.trimmed_pages;
        c
    }

    /// Warm-up is over: counters and utilisation from here on are what the report shows.
    pub(super) fn begin_measurement(&mut self) {
        self.measure_start = Some(self.now);
        let c = self.device_counters();
        self.snapshot = c;
        self.tsu.begin_measurement();
        self.chan_snapshot = self.flash.channels.iter().map(|c| c.busy_ns()).collect();
        self.die_snapshot = self.flash.dies.iter().map(|d| d.busy_ns()).collect();
        // Requests with a re-programmed page are counted anew over the measured window.
        self.reprograms.begin_measurement();
        if let Some(c) = self.cache.as_mut() {
            c.snapshot = c.counters;
        }
        if let Some(m) = self.mapping.as_mut() {
            m.snapshot = m.counters;
        }
    }

    pub(super) fn complete_host_txn(&mut self, t: TxnId) {
        let txn = *self.txns.get(t);
        self.complete_host(t, &txn);
    }

    /// `complete_host_txn` with the transaction's record already read (`txn`, as the slab holds
    /// it): the die's finish path has it in hand.
    #[inline(always)]
    pub(super) fn complete_host(&mut self, t: TxnId, txn: &super::txn::Txn) {
        let now = self.now;
        let mapping = self.mapping_wait(t);
        if self.tsu_observes {
            self.tsu.host_txn_done(t, txn, now);
        }
        self.txns.remove(t);
        if !self.rmw_waiting.is_empty() {
            if let Some(w) = self.rmw_waiting.remove(&t) {
                // A read-modify-write's read is done: its write may go (at the end of this event,
                // with whatever else the device queue releases). The read is a step of the
                // write, not a piece of the request: no slack or stages of its own (the write's
                // device_queue holds it).
                self.txns.get_mut(w).enqueued = now;
                if let Some(m) = self.mapping.as_mut() {
                    // The write's entry was looked up for its read; the write changes it.
                    m.cmt.set_dirty(txn.lpn);
                }
                self.hil.push_continuation(w, self.txns.get(w));
                self.need_dispatch = true;
                self.reqs.items[txn.req as usize].subs_left -= 1;
                return;
            }
        }
        if !self.update_reads.is_empty() && self.update_reads.remove(&t) {
            // An update read (`ftl.partial_writes = "update_read"`): a step of its write.
            let r = &mut self.reqs.items[txn.req as usize];
            r.subs_left -= 1;
            if r.subs_left == 0 {
                self.complete_request(txn.req);
            }
            return;
        }
        if self.cache.is_some() {
            if txn.kind == super::txn::TxnKind::HostRead {
                self.cache_fill(txn);
            } else if let Some(p) = self.take_cache_program(t) {
                // A page of the cache's: its request's count first (the request may end), then
                // the program's own bookkeeping, which may release waiting writes.
                self.sub_request_done(txn, mapping);
                return self.cache_program_done(p);
            }
        }
        self.sub_request_done(txn, mapping);
    }

    /// A host write whose page counts as written when its data-in ends (`device.write_ack =
    /// "data_in"`, SSDSim): its request sees no program time; the die goes on programming, and
    /// the transaction is freed when the program ends.
    #[inline(never)]
    pub(super) fn ack_write(&mut self, t: TxnId) {
        let mut txn = *self.txns.get(t);
        match self.reqs.items[txn.req as usize].origin {
            super::Origin::Host => {}
            super::Origin::CacheProgram => {
                // The controller's own programs are done when they are programmed (a flush waits
                // for them, a write-back limit counts them): at the program's end
                // (`finish_txn`). A host write waiting for one (SSDSim's buffer) is not.
                return self.cache_program_acked(t);
            }
            super::Origin::Mapping => return,
        }
        if self.tsu_observes {
            self.tsu.host_txn_done(t, &txn, self.now);
        }
        // (Its request may be done, and its id reused, before the program ends: the program's
        // end asks this mark, not the request, whether it was acknowledged.)
        if self.acked.len() <= t as usize {
            self.acked.resize(t as usize + 1, false);
        }
        self.acked[t as usize] = true;
        txn.array = 0;
        let mapping = self.mapping_wait(t);
        self.sub_request_done(&txn, mapping);
    }

    /// One of a request's page transactions is done: account it, and complete the request when
    /// it was the last.
    #[inline(always)]
    /// `mapping`: the time it waited for its mapping entry (part of its time before its chip's
    /// queue).
    fn sub_request_done(&mut self, txn: &super::txn::Txn, mapping: u64) {
        let now = self.now;
        let ecc = txn.ecc as u64;
        let r = &mut self.reqs.items[txn.req as usize];
        let x = as_f64(now - r.arrival);
        r.sub_done_sum += x;
        r.sub_done_sq += x * x;
        if now >= r.crit_done {
            r.crit_done = now;
            r.crit = Breakdown {
                host_queue: r.dispatched - r.arrival,
                device_queue: txn.enqueued - r.dispatched - mapping,
                die_wait: txn.die_wait,
                channel_wait: txn.chan_wait,
                bus: txn.bus,
                array: txn.array,
                ecc,
                cache: 0,
                mapping,
            };
        }
        r.subs_left -= 1;
        if r.subs_left == 0 {
            self.complete_request(txn.req);
        }
    }

    /// A device request's flash work is done: it completes now, or once its way back over the
    /// host link is (`link`).
    pub(super) fn complete_request(&mut self, id: ReqId) {
        match self.reqs.items[id as usize].origin {
            super::Origin::Host => {}
            super::Origin::CacheProgram => {
                // (Its pages' programs were each done with their transactions.)
                self.hil.on_request_done(id);
                self.reqs.remove(id);
                return;
            }
            // (The device queue never saw it.)
            super::Origin::Mapping => return self.mapping_request_done(id),
        }
        self.hil.on_request_done(id);
        if self.link.enabled() {
            self.link_begin(id, true);
        } else {
            self.complete_to_host(id, 0);
        }
    }

    /// A device request reached the host: it, and every request merged into it, complete now.
    /// `link_ns` is the time its way back over the host link took (part of `device_queue`).
    pub(super) fn complete_to_host(&mut self, id: ReqId, link_ns: u64) {
        self.outstanding -= 1;
        self.need_dispatch = true;
        let lead = self.reqs.items[id as usize];
        let stream = if lead.job == NONE { 0 } else { lead.job };
        let view = HostRequestView { arrival: lead.arrival, op: lead.op, offset: lead.dev_offset, len: lead.dev_len, stream };
        self.host.on_complete(id, &view, self.now);
        let mut b = lead.crit;
        if lead.subs_left == 0 && lead.crit_done == 0 {
            // No flash work (trim, flush, skipped unmapped read): host queueing, and the host
            // link if there is one.
            b = Breakdown { device_queue: self.now - lead.dispatched, ..Breakdown::default() };
        } else {
            b.device_queue += link_ns;
        }
        self.finish_request(id, b);
        let mut finished = 1;
        if let Some(riders) = self.merged.remove(&id) {
            finished += riders.len() as u32;
            for m in riders {
                self.finish_request(m, b);
            }
        }
        self.admission_done(finished);
    }

    /// The per-request log's sink learns of the measured requests among `id` and `merged` going
    /// to the device now (it keeps the submission log in dispatch order).
    pub(super) fn log_dispatch(&mut self, id: ReqId, merged: &[ReqId]) {
        let Some(sink) = self.request_sink.as_deref_mut() else { return };
        for &i in std::iter::once(&id).chain(merged) {
            let r = &self.reqs.items[i as usize];
            if r.measured {
                sink.dispatched(r.op, r.dispatched);
            }
        }
    }

    /// Account one host request as complete; `b` holds the device stages of the request that
    /// carried it to the device (its own host queueing is filled in here).
    pub(super) fn finish_request(&mut self, id: ReqId, mut b: Breakdown) {
        let now = self.now;
        let r = self.reqs.items[id as usize];
        self.completed += 1;
        self.reqs.remove(id);
        b.host_queue = r.dispatched - r.arrival;
        if r.job != NONE {
            let done = HostRequest { arrival: r.arrival, op: r.op, offset: r.offset, len: r.len, line: 0, job: r.job };
            if let Some(next) = self.workload.on_request_done(&done, now) {
                let slot = self.job_arrivals.insert(next);
                self.events.push(next.arrival.max(now), Ev::JobArrival(slot));
            }
            self.take_released();
        }
        if !r.measured {
            return;
        }
        if r.conflicted {
            match r.op {
                Op::Read => self.counters.read_conflicts += 1,
                Op::Write => self.counters.write_conflicts += 1,
                _ => {}
            }
        }
        // (The latest: SSDSim's admission cap may set the clock back, `admission`.)
        self.last_completion = self.last_completion.max(now);
        if r.subs > 0 {
            // Slack of its own sub-requests (requests merged into it have none of their own).
            let dir = if r.op == Op::Read { &mut self.read } else { &mut self.write };
            dir.slack.record(r.subs, as_f64(now - r.arrival), r.sub_done_sum, r.sub_done_sq);
        }
        match r.op {
            Op::Read => self.read.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Write => self.write.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Trim => self.trim.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Flush => {}
        }
        if self.intervals.enabled() && matches!(r.op, Op::Read | Op::Write) {
            self.intervals.record(r.op == Op::Read, r.len, now - r.arrival);
        }
        if let Some(sink) = self.request_sink.as_deref_mut() {
            sink.completed(&RequestLogRow {
                arrival_ns: r.arrival,
                dispatch_ns: r.dispatched,
                complete_ns: now,
                op: r.op,
                offset: r.offset,
                len: r.len,
                stages: b,
            });
        }
    }
}
