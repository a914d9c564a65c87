//! The controller's DRAM data cache (`cache.*`) as the simulator drives it: host writes complete
//! at the DRAM, reads take what it holds from the DRAM, and dirty pages go to flash as programs of
//! requests of the cache's own (no host request waits for them), through the FTL, the device
//! queue and the transaction scheduler like any write.
//!
//! One DRAM channel serves transfers first come, first served (MQSim's `memory_channel_is_busy`
//! and `dram_execution_queue`): a transfer asked for at `now` starts when the previous one ends.
//! The page bookkeeping is [`crate::cache::DataCache`]; the DRAM time [`crate::cache::dram`].

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use super::event::Ev;
use super::txn::{ReqId, Slab, TxnId};
use super::{Origin, Req, Simulator};
use crate::cache::dram::Dram;
use crate::cache::{evict, DataCache, Insert, SectorBuffer, SlotState};
use crate::config::cache::{CacheMode, CacheSettings};
use crate::engine::Time;
use crate::nand::Lpn;
use crate::stats::Breakdown;
use crate::trace::Op;

const SECTOR: u64 = 512;

/// MQSim's hot/cold filter is cleared at most once a second (`bloom_filter_reset_step`,
/// Data_Cache_Manager_Flash_Advanced.h).
const FILTER_RESET_NS: u64 = 1_000_000_000;

/// One program the cache sends to flash.
#[derive(Debug, Clone, Copy)]
pub(super) struct CacheProgram {
    pub lpn: Lpn,
    pub sectors: u64,
    /// The page's version it writes (`DataCache::write`).
    version: u32,
    /// A write-back of an evicted page (its slot is gone), rather than of a page that stays
    /// cached (a flush, or a write-through).
    pub evicted: bool,
    /// A write-through (`cold_write_through`): MQSim drops its page when it is done.
    through: bool,
    /// Issue order, for flush requests: a flush completes once every program issued up to it has.
    pub seq: u64,
    /// The host request that waits for it (`NO_HOST`: none): SSDSim's buffer (`cache.mode =
    /// "ssdsim"`) completes a write that pushed pages out when their programs are done.
    pub host: ReqId,
}

/// `CacheProgram::host` of a program no host request waits for.
pub(super) const NO_HOST: ReqId = ReqId::MAX;

/// The programs of an evicted page still under way: the newest one's (sectors, version), which a
/// read finds, and any older ones (rare: a page evicted again before its first write-back ended;
/// an empty `Vec` holds no memory).
#[derive(Debug, Default)]
struct InFlight {
    newest: (u64, u32),
    older: Vec<(u64, u32)>,
}

/// What a DRAM transfer was for.
#[derive(Debug)]
pub(super) enum DramJob {
    /// A host request's sectors (a write into the cache, or the hits of a read).
    Request(ReqId),
    /// Pages leaving for flash: their data read out of the DRAM, then programmed.
    Programs(Vec<CacheProgram>),
    /// Pages read from flash written into the cache (`read_write`): nothing waits for it.
    Fill,
}

counters! {
    /// What the cache counted (reported as `ssd.cache`).
    pub(super) struct CacheCounters {
        pub read_pages: u64,
        /// Read pages found whole in the cache, and in part.
        pub read_hits: u64,
        pub read_partial_hits: u64,
        pub write_pages: u64,
        /// Written pages that were cached already.
        pub write_hits: u64,
        pub evictions: u64,
        pub evictions_dirty: u64,
        /// Programs of evicted pages, write-throughs (`cold_write_through`), and of flushes.
        pub programs_evicted: u64,
        pub programs_write_through: u64,
        pub programs_flush: u64,
        pub flush_requests: u64,
        /// Host writes that waited for room under `writeback_limit`.
        pub writes_waited: u64,
        pub dram_transfers: u64,
        pub dram_busy_ns: u64,
        pub dram_bytes: u64,
    }
}

/// The data cache's state in a run.
pub(super) struct Cache {
    pub data: DataCache,
    /// SSDSim's buffer (`cache.mode = "ssdsim"`), which takes the place of `data`.
    pub sectors: Option<SectorBuffer>,
    fill_reads: bool,
    dram: Dram,
    /// When the DRAM channel finishes the transfers asked for so far.
    dram_free: Time,
    pub jobs: Slab<DramJob>,
    /// Sectors of cache programs in flight (MQSim's `back_pressure_buffer_depth`), and the most.
    pub in_flight: u64,
    limit: u64,
    /// Host writes waiting for room under the limit, with the index of the next of their pages
    /// to take in (MQSim's `waiting_user_requests_queue_for_dram_free_slot`).
    waiting: VecDeque<(ReqId, u64)>,
    /// With `cache.evicted_readable`: evicted pages whose program has not ended, by page.
    evicted: Option<FxHashMap<Lpn, InFlight>>,
    /// `cache.cold_write_through`: the pages written since the filter was last cleared, and when
    /// it may be cleared next (`None`: at the first write; MQSim's milestone starts at 0 and its
    /// clock before the trace's first arrival, where flashsched's starts at it).
    filter: Option<(rustc_hash::FxHashSet<Lpn>, Option<Time>)>,
    /// What each of the cache's page transactions in flight programs, by transaction id.
    pub programs: Vec<Option<CacheProgram>>,
    in_programs: usize,
    /// Programs by sequence number from `done_below` on: whether each is done (a flush waits
    /// until every program before it is, `done_below` passing its last); and flush requests
    /// waiting, with the last sequence number issued before them.
    done: VecDeque<bool>,
    done_below: u64,
    next_seq: u64,
    flushes: Vec<(ReqId, u64)>,
    /// By host request: when the cache took it (its `cache` stage starts).
    started: Vec<Time>,
    /// Emptied lists of programs, for reuse (a write evicting pages makes one each time).
    pub spare: Vec<Vec<CacheProgram>>,
    pub counters: CacheCounters,
    pub snapshot: CacheCounters,
}

impl Cache {
    /// The cache `s` configures, on a drive of `planes` planes of `page_size`-byte pages, or
    /// `None` when it is off.
    pub fn new(s: &CacheSettings, page_size: u64, planes: u64) -> Option<Self> {
        if s.mode == CacheMode::Off {
            return None;
        }
        let ssdsim = s.mode == CacheMode::Ssdsim;
        // (SSDSim's buffer keeps no page slots: an unused cache of one.)
        let slots = if ssdsim { 1 } else { (s.capacity_bytes / page_size).max(1) as u32 };
        let policy = evict::build(&s.eviction, slots);
        let sectors_per_page = page_size / SECTOR;
        let limit = if s.writeback_limit_bytes == 0 { planes * sectors_per_page } else { s.writeback_limit_bytes / SECTOR };
        Some(Cache {
            data: DataCache::new(slots, policy),
            sectors: ssdsim.then(|| SectorBuffer::new(s.capacity_bytes / SECTOR)),
            fill_reads: s.mode == CacheMode::ReadWrite,
            dram: s.dram,
            dram_free: 0,
            jobs: Slab::default(),
            in_flight: 0,
            limit,
            waiting: VecDeque::new(),
            // (Sized for the most programs the write-back limit lets be in flight: no growth.)
            evicted: (s.evicted_readable && !ssdsim).then(|| FxHashMap::with_capacity_and_hasher(limit.min(1 << 16) as usize, Default::default())),
            filter: (s.cold_write_through && !ssdsim).then(|| (rustc_hash::FxHashSet::default(), None)),
            programs: Vec::new(),
            in_programs: 0,
            done: VecDeque::new(),
            done_below: 0,
            next_seq: 0,
            flushes: Vec::new(),
            started: Vec::new(),
            spare: Vec::new(),
            counters: CacheCounters::default(),
            snapshot: CacheCounters::default(),
        })
    }

    /// An empty list of programs.
    pub fn list(&mut self) -> Vec<CacheProgram> {
        self.spare.pop().unwrap_or_default()
    }

    /// Request `id` reaches the cache now.
    pub fn start(&mut self, id: ReqId, now: Time) {
        if self.started.len() <= id as usize {
            self.started.resize(id as usize + 1, 0);
        }
        self.started[id as usize] = now;
    }

    /// Queue a DRAM transfer of `bytes` at `now`: when it ends.
    fn transfer(&mut self, now: Time, bytes: u64) -> Time {
        let t = self.dram.access_ns(bytes);
        let start = self.dram_free.max(now);
        self.dram_free = start + t;
        self.counters.dram_transfers += 1;
        self.counters.dram_busy_ns += t;
        self.counters.dram_bytes += bytes;
        self.dram_free
    }

    pub fn program(&mut self, lpn: Lpn, sectors: u64, version: u32, evicted: bool) -> CacheProgram {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.done.push_back(false);
        CacheProgram { lpn, sectors, version, evicted, through: false, seq, host: NO_HOST }
    }

    /// `version` of `lpn` left its slot with `sectors` and a program of it is (or will be) under
    /// way: readable from DRAM until that program ends (`cache.evicted_readable`).
    fn evicted_add(&mut self, lpn: Lpn, sectors: u64, version: u32) {
        use std::collections::hash_map::Entry;
        let Some(e) = self.evicted.as_mut() else { return };
        // (One hash lookup: this runs for nearly every page a write evicts.)
        match e.entry(lpn) {
            Entry::Occupied(mut o) => {
                let f = o.get_mut();
                let old = std::mem::replace(&mut f.newest, (sectors, version));
                f.older.push(old);
            }
            Entry::Vacant(v) => {
                v.insert(InFlight { newest: (sectors, version), older: Vec::new() });
            }
        }
    }

    /// The program of `version` of `lpn` ended: its DRAM copy, if the page had been evicted, is
    /// gone.
    fn evicted_done(&mut self, lpn: Lpn, version: u32) {
        use std::collections::hash_map::Entry;
        let Some(e) = self.evicted.as_mut() else { return };
        let Entry::Occupied(mut o) = e.entry(lpn) else { return };
        let f = o.get_mut();
        if f.newest.1 == version {
            match f.older.pop() {
                Some(old) => f.newest = old,
                None => {
                    o.remove();
                }
            }
        } else {
            f.older.retain(|x| x.1 != version);
        }
    }

    /// The sectors of `lpn` a read finds in DRAM: in its slot, or (with `evicted_readable`) in
    /// the newest write-back of it still in flight.
    fn read(&mut self, lpn: Lpn, sectors: u64) -> u64 {
        let held = self.data.read(lpn, sectors);
        if held == sectors {
            return held;
        }
        let flight = self.evicted.as_ref().and_then(|e| e.get(&lpn)).map_or(0, |f| f.newest.0);
        held | (flight & sectors)
    }

    /// At the end of a run: every program the cache issued is done and nothing waits for one
    /// (the count of sectors in flight came back to 0), and no DRAM transfer is left.
    pub fn check_drained(&self) -> Result<(), String> {
        let evicted = self.evicted.as_ref().map_or(0, |e| e.len());
        if self.in_flight != 0 || self.in_programs != 0 || !self.done.is_empty() || !self.waiting.is_empty() || !self.flushes.is_empty() || !self.jobs.is_empty() || evicted != 0 {
            return Err(format!(
                "data cache not drained: {} sectors in flight, {} programs, {} pending, {} writes and {} flushes waiting, {} DRAM transfers, {} evicted pages",
                self.in_flight,
                self.in_programs,
                self.done.len(),
                self.waiting.len(),
                self.flushes.len(),
                self.jobs.in_flight(),
                evicted
            ));
        }
        Ok(())
    }

    /// Memory the cache's bookkeeping holds, bytes.
    pub fn memory_bytes(&self) -> usize {
        self.sectors.as_ref().map_or(0, |b| b.memory_bytes()) + self.data.memory_bytes() + self.programs.capacity() * std::mem::size_of::<Option<CacheProgram>>() + self.done.capacity()
    }

    /// `ssd.cache` of the report.
    pub fn report(&self) -> serde_json::Value {
        let c = self.counters.minus(&self.snapshot);
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { (a as f64 / b as f64 * 1e6).round() / 1e6 };
        let (buffer_sectors, sectors_end) = self.sectors.as_ref().map_or((0, 0), |b| (b.max_sectors(), b.sectors()));
        serde_json::json!({
            "slots": if self.sectors.is_some() { 0 } else { self.data.capacity() },
            "buffer_sectors": buffer_sectors,
            "buffered_sectors_end": sectors_end,
            "memory_bytes": self.memory_bytes(),
            "eviction": self.data.policy(),
            "writeback_limit_sectors": if self.sectors.is_some() { 0 } else { self.limit },
            "read_pages": c.read_pages,
            "read_hits": c.read_hits,
            "read_partial_hits": c.read_partial_hits,
            "read_hit_ratio": ratio(c.read_hits, c.read_pages),
            "write_pages": c.write_pages,
            "write_hits": c.write_hits,
            "write_hit_ratio": ratio(c.write_hits, c.write_pages),
            "evictions": c.evictions,
            "evictions_dirty": c.evictions_dirty,
            "programs_evicted": c.programs_evicted,
            "programs_write_through": c.programs_write_through,
            "programs_flush": c.programs_flush,
            "flush_requests": c.flush_requests,
            "writes_waited": c.writes_waited,
            "dram_transfers": c.dram_transfers,
            "dram_bytes": c.dram_bytes,
            "dram_busy_ns": c.dram_busy_ns,
            "dirty_pages_end": self.sectors.as_ref().map_or_else(|| self.data.dirty().len(), |b| b.len()),
        })
    }
}

/// Bytes of `lo..hi` (device bytes) in the sectors `missing` of the page starting at `base`:
/// what a read still needs from flash once the cache served its other sectors.
pub(super) fn bytes_in_sectors(lo: u64, hi: u64, base: u64, missing: u64) -> u32 {
    let mut bytes = 0;
    let mut m = missing;
    while m != 0 {
        let s = m.trailing_zeros() as u64;
        m &= m - 1;
        let (a, b) = (base + s * SECTOR, base + (s + 1) * SECTOR);
        bytes += hi.min(b).saturating_sub(lo.max(a));
    }
    bytes as u32
}

/// The bitmap of the sectors `lo..hi` (device bytes) cover within the page starting at `base`.
#[inline]
fn sector_bits(lo: u64, hi: u64, base: u64) -> u64 {
    let first = (lo - base) / SECTOR;
    let end = (hi - base).div_ceil(SECTOR);
    let n = end - first;
    let ones = if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
    ones << first
}

impl Simulator {
    /// Transaction `t`'s program, if it is one of the cache's, taken (it is ending).
    #[inline]
    pub(super) fn take_cache_program(&mut self, t: TxnId) -> Option<CacheProgram> {
        self.cache.as_mut()?.programs.get_mut(t as usize)?.take()
    }

    /// Cache program `p` is done: its page's transaction ended (whatever `device.write_ack`
    /// says).
    pub(super) fn cache_program_done(&mut self, p: CacheProgram) {
        let c = self.cache.as_mut().expect("cache programs come from the cache");
        c.in_programs -= 1;
        c.in_flight -= p.sectors.count_ones() as u64;
        c.done[(p.seq - c.done_below) as usize] = true;
        while c.done.front() == Some(&true) {
            c.done.pop_front();
            c.done_below += 1;
        }
        // The page's data in DRAM, if it was evicted meanwhile, is gone with the program's end.
        c.evicted_done(p.lpn, p.version);
        if !p.evicted {
            // MQSim drops a written-through page once its program is done (a read of it then
            // goes to flash); a flushed page stays, clean. (If the page was evicted or written
            // again meanwhile, its slot is left as it is.)
            c.data.flush_done(p.lpn, p.version, p.through);
        }
        if p.host != NO_HOST {
            // SSDSim's buffer: the write that pushed this page out completes with it.
            self.cache_sub_done(p.host);
        }
        let c = self.cache.as_mut().unwrap();
        // Flushes waiting for every program issued before them.
        if !c.flushes.is_empty() {
            let oldest = c.done_below;
            let (done, wait): (Vec<_>, Vec<_>) = c.flushes.iter().partition(|f| f.1 < oldest);
            c.flushes = wait;
            for (f, _) in done {
                self.cache_sub_done(f);
            }
        }
        // Writes waiting for room take it in arrival order (MQSim retries them at every cache
        // program's end): each takes what it can; one left waiting leaves none for those behind.
        while let Some(&(w, next)) = self.cache.as_ref().unwrap().waiting.front() {
            match self.cache_take_write(w, next) {
                Some(left) => {
                    self.cache.as_mut().unwrap().waiting[0].1 = left;
                    break;
                }
                None => {
                    self.cache.as_mut().unwrap().waiting.pop_front();
                }
            }
        }
    }

    /// Send a host write request into the cache (from `split`).
    pub(super) fn cache_write(&mut self, id: ReqId) {
        if self.cache.as_ref().unwrap().sectors.is_some() {
            return self.buffer_write(id);
        }
        self.cache.as_mut().unwrap().start(id, self.now);
        // One count for the pages still to take in; each DRAM transfer adds its own.
        self.reqs.items[id as usize].subs_left = 1;
        if let Some(left) = self.cache_take_write(id, 0) {
            let c = self.cache.as_mut().unwrap();
            c.counters.writes_waited += 1;
            c.waiting.push_back((id, left));
        }
    }

    /// Take pages of write `id` from its `next`-th on into the cache while cache programs in
    /// flight leave room (MQSim's write_to_destage_buffer): evicted dirty pages are read out of
    /// the DRAM and programmed, cold pages (with the filter) written through, and the pages taken
    /// moved into DRAM in one transfer, after the evictions' read. The index of the first page
    /// left out, if the limit left some.
    fn cache_take_write(&mut self, id: ReqId, next: u64) -> Option<u64> {
        let now = self.now;
        let r = self.reqs.items[id as usize];
        let ps = self.page_size;
        let first = self.page_of(r.dev_offset);
        let last = self.page_of(r.dev_offset + r.dev_len - 1);
        let mut lpn = self.fold_lpn(first + next) as u64;
        let logical = self.logical_pages;
        let c = self.cache.as_mut().unwrap();
        let (mut evictions, mut through) = (c.list(), c.list());
        let (mut evict_sectors, mut through_sectors, mut dram_sectors) = (0u64, 0u64, 0u64);
        let mut page = first + next;
        while page <= last && c.in_flight + evict_sectors + through_sectors < c.limit {
            let lo = r.dev_offset.max(page * ps);
            let hi = (r.dev_offset + r.dev_len).min((page + 1) * ps);
            let sectors = sector_bits(lo, hi, page * ps);
            let (ins, _) = c.data.write(lpn as Lpn, sectors);
            c.counters.write_pages += 1;
            match ins {
                Insert::Hit => c.counters.write_hits += 1,
                Insert::Placed => {}
                Insert::Evicted { lpn: v, sectors: vs, state, version: vv } => {
                    c.counters.evictions += 1;
                    match state {
                        SlotState::Dirty => {
                            c.counters.evictions_dirty += 1;
                            evict_sectors += vs.count_ones() as u64;
                            let p = c.program(v, vs, vv, true);
                            evictions.push(p);
                            c.evicted_add(v, vs, vv);
                        }
                        SlotState::Flushing => {
                            // Its program is under way (or about to be); the page stays readable
                            // until that program ends.
                            c.evicted_add(v, vs, vv);
                        }
                        SlotState::Clean => {}
                    }
                }
            }
            dram_sectors += sectors.count_ones() as u64;
            if let Some((seen, _)) = c.filter.as_mut() {
                if seen.insert(lpn as Lpn) {
                    // Cold: written through at once, every sector the page holds (MQSim programs
                    // the write's own and, dropping the page afterwards, loses any others).
                    let (held, version) = c.data.start_flush(lpn as Lpn).expect("a page just written is dirty");
                    through_sectors += held.count_ones() as u64;
                    through.push(CacheProgram { through: true, ..c.program(lpn as Lpn, held, version, false) });
                }
            }
            page += 1;
            lpn += 1;
            if lpn >= logical {
                lpn -= logical;
            }
        }
        c.in_flight += evict_sectors + through_sectors;
        self.counters.host_pages_written += page - (first + next);
        let c = self.cache.as_mut().unwrap();
        c.counters.programs_write_through += through.len() as u64;
        if !evictions.is_empty() {
            let end = c.transfer(now, evict_sectors * SECTOR);
            let job = c.jobs.insert(DramJob::Programs(evictions));
            self.events.push(end, Ev::CacheDram(job));
        } else {
            c.spare.push(evictions);
        }
        let c = self.cache.as_mut().unwrap();
        if dram_sectors > 0 {
            let end = c.transfer(now, dram_sectors * SECTOR);
            let job = c.jobs.insert(DramJob::Request(id));
            self.reqs.items[id as usize].subs_left += 1;
            self.events.push(end, Ev::CacheDram(job));
        }
        let c = self.cache.as_mut().unwrap();
        if let Some((seen, at)) = c.filter.as_mut() {
            if at.is_none_or(|t| now > t) {
                seen.clear();
                *at = Some(now + FILTER_RESET_NS);
            }
        }
        self.issue_cache_programs(&through);
        through.clear();
        self.cache.as_mut().unwrap().spare.push(through);
        if page <= last {
            return Some(page - first);
        }
        // Every page is in: the request's own count for them goes.
        self.cache_sub_done(id);
        None
    }

    /// One part of host request `id` served by the cache is done (its pages all taken in, or a
    /// DRAM transfer of it ended): the request completes with its last part.
    pub(super) fn cache_sub_done(&mut self, id: ReqId) {
        let now = self.now;
        let start = self.cache.as_ref().unwrap().started[id as usize];
        let r = &mut self.reqs.items[id as usize];
        if now >= r.crit_done {
            r.crit_done = now;
            r.crit = Breakdown { host_queue: r.dispatched - r.arrival, device_queue: start - r.dispatched, cache: now - start, ..Breakdown::default() };
        }
        r.subs_left -= 1;
        if r.subs_left == 0 {
            self.complete_request(id);
        }
    }

    /// A DRAM transfer ended.
    pub(super) fn on_cache_dram(&mut self, job: u32) {
        let c = self.cache.as_mut().unwrap();
        let j = std::mem::replace(&mut c.jobs.items[job as usize], DramJob::Fill);
        c.jobs.remove(job);
        match j {
            DramJob::Request(id) => self.cache_sub_done(id),
            DramJob::Programs(mut ps) => {
                self.issue_cache_programs(&ps);
                ps.clear();
                self.cache.as_mut().unwrap().spare.push(ps);
            }
            DramJob::Fill => {}
        }
    }

    /// Send cache programs to flash: one write request of the cache's own for the set (a write's
    /// evictions or write-throughs, a flush's pages: MQSim hands each such set to the FTL at
    /// once), split and queued page by page like a host write's, in order; no host waits for
    /// it. Each page's program is done when its transaction is (`cache_program_done`).
    pub(super) fn issue_cache_programs(&mut self, list: &[CacheProgram]) {
        let Some(first) = list.first() else { return };
        let now = self.now;
        let ps = self.page_size;
        let count_only = self.cache.as_ref().unwrap().sectors.is_some();
        // (Its extent is nominal, and nothing reads it: the pages are the programs'.)
        let id = self.reqs.insert(Req::internal(now, Origin::CacheProgram, first.lpn as u64 * ps, list.len() as u64 * ps));
        let (mut subs, mut reads) = (0, 0);
        for &p in list {
            let lo = p.sectors.trailing_zeros() as u64;
            // SSDSim's sub-request moves the sectors its node holds (size(stored)), not their
            // span. (As a run from the node's first sector: the FTL keeps no map of a page's
            // sectors, so only their count matters.)
            let hi = if count_only { lo + p.sectors.count_ones() as u64 } else { 64 - p.sectors.leading_zeros() as u64 };
            if self.wear.grouping.is_some() {
                // (Each page a request of its own to the pattern miner, as the cache's writes
                // are not the host's.)
                self.group_request(true, p.lpn as u64, 1);
            }
            let (t, n, r) = self.split_write_page(id, p.lpn, ((hi - lo) * SECTOR) as u32);
            subs += n;
            reads += r;
            let c = self.cache.as_mut().unwrap();
            if p.evicted {
                c.counters.programs_evicted += 1;
            }
            if c.programs.len() <= t as usize {
                c.programs.resize(t as usize + 1, None);
            }
            c.programs[t as usize] = Some(p);
            c.in_programs += 1;
        }
        let r = &mut self.reqs.items[id as usize];
        (r.subs_left, r.unqueued, r.subs) = (subs, subs, subs - reads);
        self.need_dispatch = true;
    }

    /// A host read of `sectors` of `lpn`: the sectors the cache
    /// serves (a read hit takes them from DRAM; the rest go to flash).
    #[inline]
    pub(super) fn cache_read_page(&mut self, lpn: Lpn, sectors: u64) -> u64 {
        let c = self.cache.as_mut().unwrap();
        c.counters.read_pages += 1;
        let held = match c.sectors.as_mut() {
            Some(b) => b.read(lpn, sectors),
            None => c.read(lpn, sectors),
        };
        if held == sectors {
            c.counters.read_hits += 1;
        } else if held != 0 {
            c.counters.read_partial_hits += 1;
        }
        held
    }

    /// The bitmap of the sectors a request covers in page `page` (device bytes).
    #[inline]
    pub(super) fn page_sectors(&self, r: &Req, page: u64) -> u64 {
        let ps = self.page_size;
        let lo = r.dev_offset.max(page * ps);
        let hi = (r.dev_offset + r.dev_len).min((page + 1) * ps);
        sector_bits(lo, hi, page * ps)
    }

    /// A read request found `sectors` sectors in the cache: one DRAM transfer serves them all.
    pub(super) fn cache_read_hits(&mut self, id: ReqId, sectors: u64) {
        let now = self.now;
        let c = self.cache.as_mut().unwrap();
        // SSDSim's buffer serves a request it holds whole in a flat 1 us (no DRAM timing).
        let end = if c.sectors.is_some() { now + super::buffer::BUFFER_HIT_NS } else { c.transfer(now, sectors * SECTOR) };
        let job = c.jobs.insert(DramJob::Request(id));
        c.start(id, now);
        self.events.push(end, Ev::CacheDram(job));
    }

    /// Host read `txn` got its page from flash: with `read_write`, the page goes into the cache,
    /// clean, with a DRAM write nothing waits for; a dirty page it evicts is written back.
    pub(super) fn cache_fill(&mut self, txn: &super::txn::Txn) {
        let now = self.now;
        if !self.cache.as_ref().is_some_and(|c| c.fill_reads) {
            return;
        }
        let r = self.reqs.items[txn.req as usize];
        if r.op != Op::Read {
            return;
        }
        // The request's page this transaction read, and the sectors it asked for.
        let first = self.page_of(r.dev_offset);
        let first_lpn = self.fold_lpn(first);
        let page = first + (txn.lpn as u64 + self.logical_pages - first_lpn) % self.logical_pages;
        let (lpn, sectors) = (txn.lpn, self.page_sectors(&r, page));
        let c = self.cache.as_mut().unwrap();
        if let Insert::Evicted { lpn: v, sectors: vs, state, version } = c.data.fill(lpn, sectors) {
            c.counters.evictions += 1;
            if state == SlotState::Flushing {
                // Its program is under way: readable until it ends.
                c.evicted_add(v, vs, version);
            }
            if state == SlotState::Dirty {
                c.counters.evictions_dirty += 1;
                c.in_flight += vs.count_ones() as u64;
                let p = c.program(v, vs, version, true);
                c.evicted_add(v, vs, version);
                let end = c.transfer(now, vs.count_ones() as u64 * SECTOR);
                let mut list = c.list();
                list.push(p);
                let job = c.jobs.insert(DramJob::Programs(list));
                self.events.push(end, Ev::CacheDram(job));
            }
        }
        let c = self.cache.as_mut().unwrap();
        let end = c.transfer(now, sectors.count_ones() as u64 * SECTOR);
        let job = c.jobs.insert(DramJob::Fill);
        self.events.push(end, Ev::CacheDram(job));
    }

    /// A flush request: every dirty page is written back (one DRAM read of them all, then their
    /// programs); the flush completes once those and every cache program issued before are done.
    pub(super) fn cache_flush(&mut self, id: ReqId) {
        let now = self.now;
        if self.cache.as_ref().unwrap().sectors.is_some() {
            return self.buffer_flush(id);
        }
        let c = self.cache.as_mut().unwrap();
        c.start(id, now);
        c.counters.flush_requests += 1;
        let mut progs = Vec::new();
        let mut sectors = 0;
        for lpn in c.data.dirty() {
            let (s, version) = c.data.start_flush(lpn).expect("a dirty page");
            sectors += s.count_ones() as u64;
            progs.push(c.program(lpn, s, version, false));
        }
        c.in_flight += sectors;
        c.counters.programs_flush += progs.len() as u64;
        let r = &mut self.reqs.items[id as usize];
        r.subs_left = 1;
        if !progs.is_empty() {
            let end = c.transfer(now, sectors * SECTOR);
            let job = c.jobs.insert(DramJob::Programs(progs));
            self.events.push(end, Ev::CacheDram(job));
        }
        self.cache_flush_wait(id);
    }

    /// Flush request `id` completes once every cache program issued so far (its own included)
    /// is done: now, if none is pending.
    pub(super) fn cache_flush_wait(&mut self, id: ReqId) {
        let c = self.cache.as_mut().unwrap();
        if c.done.is_empty() {
            self.cache_sub_done(id);
        } else {
            c.flushes.push((id, c.next_seq - 1));
        }
    }

    /// A trimmed page leaves the cache (a later eviction must not write its old data back).
    pub(super) fn cache_trim(&mut self, lpn: Lpn) {
        if let Some(c) = self.cache.as_mut() {
            if let Some(b) = c.sectors.as_mut() {
                b.remove(lpn);
            }
            c.data.remove(lpn);
            if let Some(e) = c.evicted.as_mut() {
                e.remove(&lpn);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::sector_bits;

    #[test]
    fn bytes_left_count_only_the_requested_bytes_of_the_missing_sectors() {
        use super::bytes_in_sectors;
        // Bytes 100..1100 touch sectors 0, 1 and 2; with 0 and 2 cached, sector 1's 512 remain.
        assert_eq!(bytes_in_sectors(100, 1100, 0, 0b010), 512);
        // With only sector 1 cached: 412 bytes of sector 0 and 76 of sector 2.
        assert_eq!(bytes_in_sectors(100, 1100, 0, 0b101), 412 + 76);
        assert_eq!(bytes_in_sectors(4096, 8192, 4096, 0xff), 4096);
    }

    #[test]
    fn sector_bits_cover_the_bytes_touched() {
        assert_eq!(sector_bits(0, 4096, 0), 0xff);
        assert_eq!(sector_bits(4096 + 512, 4096 + 1024, 4096), 0b10);
        // A byte range inside one sector touches it.
        assert_eq!(sector_bits(100, 101, 0), 1);
        assert_eq!(sector_bits(1000, 1600, 0), 0b1110);
        // A 32 KiB page has 64 sectors.
        assert_eq!(sector_bits(0, 32768, 0), u64::MAX);
    }
}
