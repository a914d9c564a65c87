//! The cached mapping table (`ftl.mapping_cache.*`) as the simulator drives it: a host page
//! transaction (a read, a write, or a program of the data cache) whose mapping entry is not
//! cached waits for its translation page's read before it goes to the device queue; a dirty
//! entry leaving the table makes its translation page be written back.
//!
//! Translation pages are logical pages of their own past the host's space (`base + mvpn`): they
//! are written at the start (untimed), read by the table's misses and, with
//! `translation_writes = "program"`, rewritten by its write-backs, through the FTL like data (GC
//! moves them too). The table's reads and programs are requests of its own that no host waits
//! for; they skip the device queue (firmware work, not host I/O) and join their chip's queue in
//! arrival order, as host transactions of their kind (MQSim serves its `MappingReadTRQueue`
//! before user reads; flashsched's transaction schedulers do not single them out).

use super::txn::{ReqId, Slab, Txn, TxnId, TxnKind};
use super::{Origin, Req, Simulator};
use crate::cache::mapping::{Lookup, MappingCache};
use crate::config::Settings;
use crate::engine::Time;
use crate::nand::{Lpn, NONE};

/// `Mapping::parked_at` of a transaction that is not waiting.
const NOT_PARKED: Time = Time::MAX;

/// No list (`Mapping::arriving`).
const NIL: u32 = u32::MAX;

counters! {
    /// What the table counted (reported as `ssd.mapping_cache`).
    pub(super) struct MappingCounters {
        pub read_lookups: u64,
        pub read_misses: u64,
        pub write_lookups: u64,
        pub write_misses: u64,
        /// Misses served without a flash read (a departing page, or the last page not on flash).
        pub misses_without_read: u64,
        pub translation_reads: u64,
        pub merge_reads: u64,
        pub evictions: u64,
        pub write_backs: u64,
        pub translation_programs: u64,
        pub translation_programs_never_run: u64,
    }
}

/// A request of the table's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MapJob {
    /// A miss's read of translation page `mvpn`.
    Read(u32),
    /// A write-back's read of the entries of `mvpn` it does not hold.
    MergeRead(u32),
    /// A write-back's program of `mvpn`.
    Program(u32),
}

/// The cached mapping table's state in a run.
pub(super) struct Mapping {
    pub cmt: MappingCache,
    /// Bytes of a cached entry.
    entry_bytes: u64,
    /// Bytes of an entry in a translation page.
    gtd_entry: u32,
    /// The first translation page's logical page (the host's logical pages come before).
    pub base: Lpn,
    /// Translation pages.
    pub pages: u32,
    /// The last, partial translation page when it is not on flash (`last_page_on_flash = false`).
    unread_page: Option<u32>,
    program: bool,
    clean_touches: bool,
    unwritten_read_dirty: bool,
    /// Translation pages being read, with the transactions waiting for each: by translation page,
    /// the index of its list in `lists` (`NIL`: not being read). (Vectors by page rather than
    /// hash maps: there are few translation pages, and every miss asks.)
    arriving: Vec<u32>,
    lists: Slab<Vec<TxnId>>,
    /// Translation pages whose write-back was issued and never runs (`translation_writes =
    /// "never"`), by page: later misses on them need no read. And how many there are.
    departing: Vec<bool>,
    departed: usize,
    /// By transaction: when it started waiting for its entry (`NOT_PARKED` if it is not), and
    /// how long it waited, until it completes (its `mapping` stage). Transaction ids are dense.
    parked_at: Vec<Time>,
    parked: usize,
    waited: Vec<u64>,
    /// Emptied waiting lists, for reuse; a reused buffer of evicted entries.
    spare_lists: Vec<Vec<TxnId>>,
    evicted: Vec<crate::cache::mapping::Evicted>,
    /// The table's own requests in flight, by request id, and how many.
    jobs: Vec<Option<MapJob>>,
    in_jobs: usize,
    pub counters: MappingCounters,
    pub snapshot: MappingCounters,
}

impl Mapping {
    /// The table `s` configures over `logical_pages` host pages, or `None` with the whole table
    /// in DRAM.
    pub fn new(s: &Settings, logical_pages: u64) -> Option<Self> {
        let m = &s.mapping_cache;
        if !m.on() {
            return None;
        }
        let g = &s.geometry;
        let (cmt_entry, gtd_entry) = m.entry_bytes(g.pages(), g.page_size as u64 / 512);
        let per_page = (g.page_size as u64 / gtd_entry) as u32;
        let pages = logical_pages.div_ceil(per_page as u64) as u32;
        let partial = logical_pages % per_page as u64 != 0;
        Some(Mapping {
            cmt: MappingCache::new((m.capacity_bytes / cmt_entry) as u32, per_page),
            entry_bytes: cmt_entry,
            gtd_entry: gtd_entry as u32,
            base: logical_pages as Lpn,
            pages,
            unread_page: (partial && !m.last_page_on_flash).then_some(pages - 1),
            program: m.program_translations,
            clean_touches: m.clean_touches,
            unwritten_read_dirty: m.unwritten_read_dirty,
            arriving: vec![NIL; pages as usize],
            lists: Slab::default(),
            departing: vec![false; pages as usize],
            departed: 0,
            parked_at: Vec::new(),
            parked: 0,
            waited: Vec::new(),
            spare_lists: Vec::new(),
            evicted: Vec::new(),
            jobs: Vec::new(),
            in_jobs: 0,
            counters: MappingCounters::default(),
            snapshot: MappingCounters::default(),
        })
    }

    /// Transaction `t` waits for its entry from `now` on, on translation page `mvpn`'s read.
    fn park(&mut self, t: TxnId, mvpn: u32, now: Time) {
        if self.parked_at.len() <= t as usize {
            self.parked_at.resize(t as usize + 1, NOT_PARKED);
            self.waited.resize(t as usize + 1, 0);
        }
        self.parked_at[t as usize] = now;
        self.parked += 1;
        self.expect_read(mvpn);
        let list = self.arriving[mvpn as usize];
        self.lists.items[list as usize].push(t);
    }

    /// A read of translation page `mvpn` is under way (waiters or not).
    fn expect_read(&mut self, mvpn: u32) {
        if self.arriving[mvpn as usize] == NIL {
            let list = self.spare_lists.pop().unwrap_or_default();
            self.arriving[mvpn as usize] = self.lists.insert(list);
        }
    }

    /// Whether translation page `mvpn` is being read.
    fn read_under_way(&self, mvpn: u32) -> bool {
        self.arriving[mvpn as usize] != NIL
    }

    /// The request of the table's `id` is `job`.
    fn add_job(&mut self, id: ReqId, job: MapJob) {
        if self.jobs.len() <= id as usize {
            self.jobs.resize(id as usize + 1, None);
        }
        self.jobs[id as usize] = Some(job);
        self.in_jobs += 1;
    }

    /// Whether translation page `mvpn` is on flash (written at the start).
    pub fn on_flash(&self, mvpn: u32) -> bool {
        self.unread_page != Some(mvpn)
    }

    /// At the end of a run: nothing waits and no request of the table's is in flight.
    pub fn check_drained(&self) -> Result<(), String> {
        if !self.lists.is_empty() || self.parked != 0 || self.in_jobs != 0 {
            return Err(format!(
                "mapping cache not drained: {} translation pages being read, {} transactions waiting, {} requests in flight",
                self.lists.in_flight(),
                self.parked,
                self.in_jobs
            ));
        }
        Ok(())
    }

    /// `ssd.mapping_cache` of the report.
    pub fn report(&self) -> serde_json::Value {
        let c = self.counters.minus(&self.snapshot);
        let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { (a as f64 / b as f64 * 1e6).round() / 1e6 };
        serde_json::json!({
            "entries": self.cmt.capacity(),
            "entry_bytes": self.entry_bytes,
            "entries_per_translation_page": self.cmt.per_page(),
            "translation_pages": self.pages,
            "memory_bytes": self.cmt.memory_bytes(),
            "read_lookups": c.read_lookups,
            "read_misses": c.read_misses,
            "read_hit_ratio": ratio(c.read_lookups - c.read_misses, c.read_lookups),
            "write_lookups": c.write_lookups,
            "write_misses": c.write_misses,
            "write_hit_ratio": ratio(c.write_lookups - c.write_misses, c.write_lookups),
            "misses_without_read": c.misses_without_read,
            "translation_reads": c.translation_reads,
            "merge_reads": c.merge_reads,
            "evictions": c.evictions,
            "write_backs": c.write_backs,
            "translation_programs": c.translation_programs,
            "translation_programs_never_run": c.translation_programs_never_run,
            "departing_pages": self.departed,
        })
    }
}

impl Simulator {
    /// Hand host page transaction `t` to the device queue once its mapping entry is cached: at
    /// once on a hit, else after its translation page's read. (With the whole table in DRAM, the
    /// usual case, at once: inline, on every page's path.)
    #[inline(always)]
    pub(super) fn push_mapped(&mut self, t: TxnId) {
        if self.mapping.is_none() {
            self.hil.push(t, self.txns.get(t));
        } else {
            self.look_up_mapping(t);
        }
    }

    #[inline(never)]
    fn look_up_mapping(&mut self, t: TxnId) {
        let txn = *self.txns.get(t);
        let write = txn.kind == TxnKind::HostWrite;
        let m = self.mapping.as_mut().unwrap();
        if write {
            m.counters.write_lookups += 1;
        } else {
            m.counters.read_lookups += 1;
        }
        let lpn = txn.lpn;
        let mvpn = m.cmt.mvpn(lpn);
        let found = m.cmt.lookup(lpn);
        if found != Lookup::Hit {
            if write {
                m.counters.write_misses += 1;
            } else {
                m.counters.read_misses += 1;
            }
        }
        match found {
            Lookup::Hit => {}
            Lookup::Waiting => {
                debug_assert!(m.read_under_way(mvpn), "a waiting entry's page is being read");
                m.park(t, mvpn, self.now);
                return;
            }
            Lookup::Miss => {
                // MQSim's order (request_mapping_entry_for_lpn): a page not on flash, then a read
                // under way, then a departing page, then a read of its own.
                let read_under_way = m.read_under_way(mvpn);
                let at_once = !m.on_flash(mvpn) || (!read_under_way && m.departing[mvpn as usize]);
                let mut evicted = std::mem::take(&mut m.evicted);
                evicted.clear();
                m.cmt.reserve(lpn, !at_once, &mut evicted);
                if at_once {
                    m.counters.misses_without_read += 1;
                } else {
                    m.park(t, mvpn, self.now);
                }
                for e in &evicted {
                    self.mapping_evicted(e.lpn, e.dirty);
                }
                self.mapping.as_mut().unwrap().evicted = evicted;
                if !at_once {
                    if !read_under_way {
                        self.issue_translation_read(mvpn, 512, MapJob::Read(mvpn));
                    }
                    return;
                }
            }
        }
        self.mapping_resolved(&txn);
        if txn.kind == TxnKind::HostRead && txn.ppn == NONE && self.map_unmapped {
            self.txns.get_mut(t).ppn = self.map_unwritten_read(txn.lpn, txn.plane);
        }
        self.hil.push(t, self.txns.get(t));
    }

    /// `txn`'s entry is cached: a write changes it; so does, with `unwritten_read_dirty`, a read of
    /// a never-written page (MQSim maps the page on the read).
    fn mapping_resolved(&mut self, txn: &Txn) {
        let m = self.mapping.as_mut().unwrap();
        if txn.kind == TxnKind::HostWrite || (m.unwritten_read_dirty && txn.ppn == NONE) {
            m.cmt.set_dirty(txn.lpn);
        }
    }

    /// An entry left the table; a dirty one's translation page is written back: its dirty cached
    /// entries cleaned, the entries it does not hold read from flash, then the page programmed.
    fn mapping_evicted(&mut self, lpn: Lpn, dirty: bool) {
        let m = self.mapping.as_mut().unwrap();
        m.counters.evictions += 1;
        if !dirty {
            return;
        }
        m.counters.write_backs += 1;
        let mvpn = m.cmt.mvpn(lpn);
        let (_, sectors) = m.cmt.clean_page(mvpn, m.gtd_entry, m.clean_touches);
        let on_flash = m.on_flash(mvpn);
        if !m.program {
            // Issued, never run (MQSim): the page departs for good.
            m.counters.translation_programs_never_run += 1;
            if !std::mem::replace(&mut m.departing[mvpn as usize], true) {
                m.departed += 1;
            }
        }
        if on_flash {
            // Misses on the page meanwhile wait for this read (MQSim's ArrivingMappingEntries).
            m.expect_read(mvpn);
            m.counters.merge_reads += 1;
            self.issue_translation_read(mvpn, sectors as u64 * 512, MapJob::MergeRead(mvpn));
        } else if self.mapping.as_ref().unwrap().program {
            self.issue_translation_program(mvpn);
        }
    }

    /// Read `bytes` of translation page `mvpn` (a miss's read, or a write-back's merge read).
    fn issue_translation_read(&mut self, mvpn: u32, bytes: u64, job: MapJob) {
        let now = self.now;
        let m = self.mapping.as_mut().unwrap();
        if matches!(job, MapJob::Read(_)) {
            m.counters.translation_reads += 1;
        }
        let lpn = m.base + mvpn;
        let ppn = self.ftl.lookup(lpn).expect("translation pages on flash are mapped");
        let plane = self.layout.plane_of(ppn);
        let id = self.reqs.insert(Req::internal(now, Origin::Mapping, lpn as u64 * self.page_size, bytes));
        self.mapping.as_mut().unwrap().add_job(id, job);
        let t = self.txns.insert(Txn::new(TxnKind::HostRead, id, lpn, ppn, plane, self.layout.die_of_plane(plane), bytes as u32, now));
        self.txns.get_mut(t).place = super::txn::Placement::Mapping;
        let r = &mut self.reqs.items[id as usize];
        (r.subs_left, r.unqueued, r.subs) = (1, 1, 1);
        self.to_tsu(t);
    }

    /// Program translation page `mvpn` (a write-back, after its merge read).
    fn issue_translation_program(&mut self, mvpn: u32) {
        let now = self.now;
        let m = self.mapping.as_mut().unwrap();
        m.counters.translation_programs += 1;
        let lpn = m.base + mvpn;
        let plane = self.alloc.home_plane(mvpn as u64);
        let ps = self.page_size;
        let id = self.reqs.insert(Req::internal(now, Origin::Mapping, lpn as u64 * ps, ps));
        self.mapping.as_mut().unwrap().add_job(id, MapJob::Program(mvpn));
        let t = self.txns.insert(Txn::new(TxnKind::HostWrite, id, lpn, NONE, plane, self.layout.die_of_plane(plane), ps as u32, now));
        self.txns.get_mut(t).place = super::txn::Placement::Mapping;
        let r = &mut self.reqs.items[id as usize];
        (r.subs_left, r.unqueued, r.subs) = (1, 1, 1);
        self.to_tsu(t);
    }

    /// A request of the table's own completed.
    pub(super) fn mapping_request_done(&mut self, id: ReqId) {
        self.reqs.remove(id);
        let m = self.mapping.as_mut().unwrap();
        let job = m.jobs[id as usize].take().expect("every mapping request has its job");
        m.in_jobs -= 1;
        match job {
            MapJob::Read(mvpn) => self.translation_arrived(mvpn),
            MapJob::MergeRead(mvpn) => {
                self.translation_arrived(mvpn);
                if self.mapping.as_ref().unwrap().program {
                    self.issue_translation_program(mvpn);
                }
            }
            MapJob::Program(_) => {}
        }
    }

    /// Translation page `mvpn` was read: every transaction waiting for it goes on (MQSim releases
    /// them all at the first read of the page to end).
    fn translation_arrived(&mut self, mvpn: u32) {
        let now = self.now;
        let m = self.mapping.as_mut().unwrap();
        let list = std::mem::replace(&mut m.arriving[mvpn as usize], NIL);
        if list == NIL {
            return;
        }
        let mut waiting = std::mem::take(&mut m.lists.items[list as usize]);
        m.lists.remove(list);
        for &t in &waiting {
            let m = self.mapping.as_mut().unwrap();
            let since = std::mem::replace(&mut m.parked_at[t as usize], NOT_PARKED);
            debug_assert_ne!(since, NOT_PARKED, "a waiting transaction was parked");
            m.parked -= 1;
            m.waited[t as usize] = now - since;
            let (lpn, write) = (self.txns.get(t).lpn, self.txns.get(t).kind == TxnKind::HostWrite);
            // Valid now; a write changes it (`mapping_resolved`, in the same lookup).
            m.cmt.arrived(lpn, write);
            if !write {
                // Where the page is now (it may have been written or moved meanwhile). A read of
                // a never-written page makes its entry dirty here with `unwritten_read_dirty`,
                // as `mapping_resolved` would.
                let (ppn, plane) = match self.ftl.lookup(lpn) {
                    Some(p) => (p, self.layout.plane_of(p)),
                    None => {
                        let plane = self.txns.get(t).plane;
                        let m = self.mapping.as_mut().unwrap();
                        if m.unwritten_read_dirty {
                            // (Before `map_unwritten_read` gives it a page.)
                            m.cmt.set_dirty(lpn);
                        }
                        let ppn = if self.map_unmapped { self.map_unwritten_read(lpn, plane) } else { NONE };
                        (ppn, plane)
                    }
                };
                let die = self.layout.die_of_plane(plane);
                let x = self.txns.get_mut(t);
                (x.ppn, x.plane, x.die) = (ppn, plane, die);
            }
            // A piece of a request that went to the device queue already (or of one whose every
            // page waited): it continues its request, as a read-modify-write's write does, rather
            // than being admitted as a request of its own (the transactions of one translation
            // read belong to several requests, not pushed one request after another).
            self.hil.push_continuation(t, self.txns.get(t));
        }
        waiting.clear();
        self.mapping.as_mut().unwrap().spare_lists.push(waiting);
        self.need_dispatch = true;
    }

    /// The time transaction `t` waited for its mapping entry (0 if none), forgotten.
    #[inline(always)]
    pub(super) fn mapping_wait(&mut self, t: TxnId) -> u64 {
        match self.mapping.as_mut() {
            Some(m) => m.waited.get_mut(t as usize).map_or(0, std::mem::take),
            None => 0,
        }
    }

    /// At the start: every translation page the table says is on flash is written (untimed), on
    /// the plane static allocation gives data page `mvpn` (MQSim places translation page MVPN so).
    pub(super) fn write_translation_pages(&mut self) -> Result<(), String> {
        let Some(m) = self.mapping.as_ref() else { return Ok(()) };
        let (base, pages) = (m.base, m.pages);
        self.ftl.add_logical_pages(pages as u64);
        for mvpn in 0..pages {
            if !self.mapping.as_ref().unwrap().on_flash(mvpn) {
                continue;
            }
            let plane = self.alloc.home_plane(mvpn as u64);
            self.ftl.write_untimed_in(base + mvpn, plane, crate::ftl::STREAM_MAPPING, self.gc.as_mut())?;
        }
        Ok(())
    }
}
