//! SSDSim's DRAM buffer (`cache.mode = "ssdsim"`; SSDsim 2.1 `ssd.c` `buffer_management`,
//! `flash.c` `insert2buffer`) as the simulator drives it. The buffer itself is
//! [`crate::cache::SectorBuffer`]; it lives in the data cache's place (`sim::cache`), whose
//! programs, flush bookkeeping and read path it shares.
//!
//! What differs from the page cache of `cache.mode = "write"`:
//! - a request the buffer serves whole (a write that pushed no node out, a read whose every
//!   sector it holds) completes `BUFFER_HIT_NS` after it reaches the device: no DRAM timing;
//! - a write that pushed nodes out completes when their programs do (SSDSim hangs them on the
//!   request as its sub-requests), at their data-in with `device.write_ack = "data_in"`;
//! - nodes leave least recently used first and are programmed at once (no write-back limit),
//!   and a read never puts a page in the buffer.

use super::cache::{DramJob, NO_HOST};
use super::event::Ev;
use super::txn::{ReqId, TxnId};
use super::Simulator;
use crate::cache::Departed;

/// How long a request the buffer serves whole takes (SSDSim: `response_time = current_time +
/// 1000`).
pub(super) const BUFFER_HIT_NS: u64 = 1_000;

impl Simulator {
    /// Host write `id` into SSDSim's buffer: its pages' sectors go in, page by page, and the
    /// nodes they push out are programmed; it completes after `BUFFER_HIT_NS` if none were, else
    /// with the last of their programs.
    pub(super) fn buffer_write(&mut self, id: ReqId) {
        let now = self.now;
        let r = self.reqs.items[id as usize];
        let first = self.page_of(r.dev_offset);
        let last = self.page_of(r.dev_offset + r.dev_len - 1);
        let mut out: Vec<Departed> = Vec::new();
        let mut lpn = self.fold_lpn(first);
        for page in first..=last {
            let sectors = self.page_sectors(&r, page);
            let c = self.cache.as_mut().unwrap();
            c.counters.write_pages += 1;
            if c.sectors.as_mut().unwrap().write(lpn as u32, sectors, &mut out) {
                c.counters.write_hits += 1;
            }
            lpn = self.wrap_lpn(lpn + 1);
        }
        self.counters.host_pages_written += last - first + 1;
        let c = self.cache.as_mut().unwrap();
        c.start(id, now);
        c.counters.evictions += out.len() as u64;
        c.counters.evictions_dirty += out.len() as u64;
        if out.is_empty() {
            self.reqs.items[id as usize].subs_left = 1;
            let job = c.jobs.insert(DramJob::Request(id));
            self.events.push(now + BUFFER_HIT_NS, Ev::CacheDram(job));
            return;
        }
        self.reqs.items[id as usize].subs_left = out.len() as u32;
        let mut progs = c.list();
        for d in out {
            c.in_flight += d.sectors.count_ones() as u64;
            let mut p = c.program(d.lpn, d.sectors, 0, true);
            p.host = id;
            progs.push(p);
        }
        self.issue_cache_programs(&progs);
        progs.clear();
        self.cache.as_mut().unwrap().spare.push(progs);
    }

    /// A flush request with SSDSim's buffer (SSDSim has none [INFER]: every node is written back
    /// and leaves): it completes once their programs, and every cache program before them, are
    /// done.
    pub(super) fn buffer_flush(&mut self, id: ReqId) {
        let now = self.now;
        let c = self.cache.as_mut().unwrap();
        c.start(id, now);
        c.counters.flush_requests += 1;
        let mut out = Vec::new();
        c.sectors.as_mut().unwrap().drain(&mut out);
        c.counters.programs_flush += out.len() as u64;
        self.reqs.items[id as usize].subs_left = 1;
        // (Not `evicted`: no slot of the page cache to clean when they end.)
        let mut progs = c.list();
        for d in out {
            c.in_flight += d.sectors.count_ones() as u64;
            progs.push(c.program(d.lpn, d.sectors, 0, false));
        }
        self.issue_cache_programs(&progs);
        progs.clear();
        self.cache.as_mut().unwrap().spare.push(progs);
        self.cache_flush_wait(id);
    }

    /// The data-in of cache program transaction `t` ended (`device.write_ack = "data_in"`): a
    /// host write waiting for it (SSDSim's buffer) completes now, as SSDSim's sub-requests do;
    /// the program itself is done at its end.
    pub(super) fn cache_program_acked(&mut self, t: TxnId) {
        let Some(c) = self.cache.as_mut() else { return };
        let Some(p) = c.programs.get_mut(t as usize).and_then(|p| p.as_mut()) else { return };
        if p.host != NO_HOST {
            let host = std::mem::replace(&mut p.host, NO_HOST);
            self.cache_sub_done(host);
        }
    }
}
