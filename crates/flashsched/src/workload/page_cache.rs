//! Buffered closed-loop jobs: a page cache with a Linux-like flusher between the jobs and the block
//! layer (`workload.jobs.buffered = true`).
//!
//! A job is a thread making synchronous `read()`/`write()` calls (fio's psync engine, iodepth 1).
//! Reads are direct: they go to the block layer and the job waits for them. A write copies into the
//! page cache and returns at once: its 4 KiB pages become dirty. Dirty pages reach the block layer
//! as write-back requests, issued by the flusher (one stream, the "flusher thread") or by the job's
//! own `fsync`. The rules below are a simplification of Linux's (mm/page-writeback.c,
//! fs/fs-writeback.c, mm/filemap.c); each says what it stands for.
//!
//! - **Files.** Job j's area is its file (the PASS benchmark gives each thread its own file), so
//!   areas must not overlap. Pages are 4 KiB (PAGE_SIZE). A write of a dirty page is absorbed.
//! - **Thresholds.** background = `size` x dirty_background_ratio %, limit = `size` x dirty_ratio %
//!   in pages; a background ratio not below the dirty ratio becomes half of it
//!   (global_dirty_limits).
//! - **Throttling.** After a write, while dirty + under-write-back pages exceed the limit, the job
//!   sleeps; it returns from `write()` when write-back completions bring the total to the limit or
//!   below (balance_dirty_pages). Throttled jobs resume in the order they blocked.
//! - **Background write-back.** As soon as dirty pages exceed the background threshold the flusher
//!   writes until they are at or below it (balance_dirty_pages starts background writeback;
//!   wb_check_background_flush).
//! - **Periodic write-back.** Every `writeback_interval` while anything is dirty, the flusher wakes
//!   (wb_wakeup_delayed / dirty_writeback_interval) and writes back every file dirty for at least
//!   `expire`: as many pages as the file holds at that wake-up (wb_check_old_data_flush,
//!   kupdate's nr_pages). A file is "dirty since" the write that made it dirty from clean
//!   (__mark_inode_dirty's dirtied_when); when kupdate's pages run out and it is still dirty it
//!   counts as dirtied now (redirty_tail).
//! - **Order.** The flusher serves files oldest-dirtied first, at most 1024 pages per turn
//!   (MAX_WRITEBACK_PAGES), then the next file; a file that had its turn waits until every other
//!   eligible file had one (b_more_io). Within a file it walks page indices upwards from where it
//!   stopped last, wrapping at the end (write_cache_pages with range_cyclic and writeback_index).
//! - **Requests.** Contiguous dirty pages are coalesced into one request up to `max_request` (the
//!   bios of consecutive pages merging in the request queue, max_sectors_kb). The flusher keeps at
//!   most `nr_requests` write-back requests outstanding and issues the next when one completes
//!   (get_request_wait blocks the submitter when the queue's async requests reach nr_requests).
//! - **fsync.** A job's fsync issues all of its file's dirty pages in index order from the start
//!   (filemap_fdatawrite_range, range_cyclic off) as synchronous requests of the job's own stream,
//!   not counted against nr_requests (sync requests have their own pool), then waits until none of
//!   its file's pages is under write-back, the flusher's included (filemap_fdatawait).
//! - **End.** When every job has finished, the remaining dirty pages are written back at once, as
//!   fio's `end_fsync` or an unmount would, so the device sees every write the jobs made.
//!
//! What the numbers mean: the report's read and write statistics are device-level requests (for
//! writes: write-back requests, from entering the block layer to completion). What the jobs see is
//! in the `workload` block: `job_iops` (reads plus buffered writes completed by the jobs per second
//! of simulated time), `write_call_lat_mean_ns` (a buffered `write()`'s duration: 0 unless
//! throttled) and `fsync_lat_mean_ns`.

use std::collections::{BTreeSet, VecDeque};

use serde_json::{json, Value};

use super::{ClosedLoop, HostRequest, Workload};
pub use crate::config::page_cache::{PageCacheSettings, PAGE};
use crate::config::Settings;
use crate::engine::Time;
use crate::trace::{Op, TraceError};

/// Page-cache page (Linux PAGE_SIZE).
/// Pages the flusher writes from one file before turning to the next (MAX_WRITEBACK_PAGES).
pub const CHUNK_PAGES: u64 = 1024;

/// One job's file: its dirty pages and write-back state.
#[derive(Debug, Default)]
struct File {
    dirty: BTreeSet<u64>,
    /// When the file went from clean to dirty (dirtied_when).
    since: Option<Time>,
    /// Next page index the flusher looks at (writeback_index).
    cursor: u64,
    /// Pages of the file under write-back.
    writeback: u64,
    /// Pages periodic write-back still owes this file.
    kupdate: u64,
    /// Flusher round of the file's last turn.
    round: u64,
}

/// The page cache's dirty state and the flusher's choices, without jobs or simulated requests
/// (unit-tested on its own).
#[derive(Debug)]
pub struct PageCache {
    files: Vec<File>,
    /// Pages from one file's start to the next's (offset_increment / 4 KiB); 0 with one file.
    file_pages: u64,
    pub background_pages: u64,
    pub limit_pages: u64,
    interval: u64,
    expire: u64,
    nr_requests: u32,
    max_pages: u64,
    pub dirty: u64,
    pub writeback: u64,
    /// Flusher requests outstanding.
    pub inflight: u32,
    background: bool,
    sync_all: bool,
    round: u64,
    /// The file whose turn it is and the pages left in the turn.
    turn: Option<(usize, u64)>,
    next_tick: Option<Time>,
}

impl PageCache {
    pub fn new(p: &PageCacheSettings, files: usize, file_bytes: u64) -> Self {
        let (bg, limit) = p.thresholds();
        PageCache {
            files: (0..files.max(1)).map(|_| File::default()).collect(),
            file_pages: if files > 1 { file_bytes / PAGE } else { 0 },
            background_pages: bg,
            limit_pages: limit,
            interval: p.interval_ns.max(1),
            expire: p.expire_ns,
            nr_requests: p.nr_requests.max(1),
            max_pages: (p.max_request / PAGE).max(1),
            dirty: 0,
            writeback: 0,
            inflight: 0,
            background: false,
            sync_all: false,
            round: 0,
            turn: None,
            next_tick: None,
        }
    }

    /// The file a page belongs to.
    pub fn owner(&self, page: u64) -> usize {
        if self.file_pages == 0 { 0 } else { ((page / self.file_pages) as usize).min(self.files.len() - 1) }
    }

    /// Dirty `page` at `now`; false if it was dirty already (the write is absorbed).
    pub fn dirty_page(&mut self, page: u64, now: Time) -> bool {
        let fi = self.owner(page);
        let f = &mut self.files[fi];
        if !f.dirty.insert(page) {
            return false;
        }
        f.since.get_or_insert(now);
        self.dirty += 1;
        self.next_tick.get_or_insert(now + self.interval);
        if self.dirty > self.background_pages {
            self.background = true;
        }
        true
    }

    /// Dirty plus under-write-back pages exceed the limit: a writer must wait.
    pub fn over_limit(&self) -> bool {
        self.dirty + self.writeback > self.limit_pages
    }

    pub fn file_writeback(&self, fi: usize) -> u64 {
        self.files[fi].writeback
    }

    pub fn file_dirty(&self, fi: usize) -> u64 {
        self.files[fi].dirty.len() as u64
    }

    /// The flusher's next periodic wake-up.
    pub fn next_tick(&self) -> Option<Time> {
        self.next_tick
    }

    /// Write back everything from now on (the jobs have finished).
    pub fn sync_all(&mut self) {
        self.sync_all = true;
    }

    /// Periodic wake-up: expired files get their kupdate pages; background write-back starts if
    /// the threshold is passed; the next wake-up is set while anything is dirty.
    pub fn tick(&mut self, now: Time) {
        if self.next_tick.is_some_and(|t| t > now) {
            return;
        }
        for f in &mut self.files {
            if f.since.is_some_and(|t| t + self.expire <= now) && f.kupdate == 0 {
                f.kupdate = f.dirty.len() as u64;
            }
        }
        if self.dirty > self.background_pages {
            self.background = true;
        }
        self.next_tick = (self.dirty > 0).then(|| now + self.interval);
    }

    fn eligible(&self, fi: usize, all: bool) -> bool {
        let f = &self.files[fi];
        !f.dirty.is_empty() && (all || f.kupdate > 0)
    }

    /// The next write-back request of the flusher, `(offset, len)` in bytes, if it has work and
    /// fewer than `nr_requests` requests outstanding.
    pub fn next_flush(&mut self, now: Time) -> Option<(u64, u64)> {
        if self.inflight >= self.nr_requests {
            return None;
        }
        if self.background && self.dirty <= self.background_pages {
            self.background = false;
        }
        let all = self.sync_all || self.background;
        let fi = match self.turn {
            Some((fi, left)) if left > 0 && self.eligible(fi, all) => fi,
            _ => {
                let pick = |pc: &PageCache| {
                    (0..pc.files.len())
                        .filter(|&i| pc.files[i].round < pc.round && pc.eligible(i, all))
                        .min_by_key(|&i| (pc.files[i].since, i))
                };
                let fi = match pick(self) {
                    Some(i) => i,
                    None => {
                        if !(0..self.files.len()).any(|i| self.eligible(i, all)) {
                            self.turn = None;
                            return None;
                        }
                        self.round += 1;
                        pick(self).expect("an eligible file has an older round")
                    }
                };
                self.files[fi].round = self.round;
                self.turn = Some((fi, CHUNK_PAGES));
                fi
            }
        };
        let left = self.turn.map_or(CHUNK_PAGES, |t| t.1);
        let f = &mut self.files[fi];
        let budget = if all { left } else { left.min(f.kupdate) };
        let start = *f.dirty.range(f.cursor..).next().or_else(|| f.dirty.iter().next()).expect("eligible file is dirty");
        let mut n = 0;
        while n < self.max_pages && n < budget && f.dirty.remove(&(start + n)) {
            n += 1;
        }
        f.cursor = start + n;
        f.writeback += n;
        f.kupdate = f.kupdate.saturating_sub(n);
        if f.dirty.is_empty() {
            f.since = None;
            f.kupdate = 0;
        } else if f.kupdate == 0 && !all && f.since.is_some() {
            f.since = Some(now); // redirty_tail: still dirty after kupdate's pages
        }
        self.turn = Some((fi, left - n));
        self.dirty -= n;
        if self.dirty == 0 {
            self.next_tick = None; // nothing dirty: the flusher sleeps until something is
        }
        self.writeback += n;
        self.inflight += 1;
        Some((start * PAGE, n * PAGE))
    }

    /// fsync of file `fi`: its dirty pages as requests `(offset, len)`, in index order from its
    /// start, coalesced. They count as under write-back until `written`.
    pub fn fsync(&mut self, fi: usize, out: &mut impl FnMut(u64, u64)) {
        let max = self.max_pages;
        let f = &mut self.files[fi];
        let pages = std::mem::take(&mut f.dirty);
        let n_total = pages.len() as u64;
        let mut run: Option<(u64, u64)> = None;
        for p in pages {
            match run {
                Some((s, n)) if s + n == p && n < max => run = Some((s, n + 1)),
                _ => {
                    if let Some((s, n)) = run {
                        out(s * PAGE, n * PAGE);
                    }
                    run = Some((p, 1));
                }
            }
        }
        if let Some((s, n)) = run {
            out(s * PAGE, n * PAGE);
        }
        f.since = None;
        f.kupdate = 0;
        f.writeback += n_total;
        self.dirty -= n_total;
        self.writeback += n_total;
        if self.dirty == 0 {
            self.next_tick = None;
        }
    }

    /// A write-back request of `len` bytes at `offset` completed; `flusher`: it was the flusher's.
    pub fn written(&mut self, offset: u64, len: u64, flusher: bool) {
        let n = len / PAGE;
        let fi = self.owner(offset / PAGE);
        self.files[fi].writeback -= n;
        self.writeback -= n;
        if flusher {
            self.inflight -= 1;
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum JobState {
    /// A read in flight, or a write waiting for its time (thinktime).
    Running,
    /// In balance_dirty_pages since the write issued at this time.
    Throttled(Time),
    /// In fsync since then.
    Fsync(Time),
    Done,
}

#[derive(Debug, Default)]
struct Counters {
    reads: u64,
    writes: u64,
    absorbed: u64,
    write_call_ns: u64,
    write_call_max_ns: u64,
    throttled: u64,
    fsyncs: u64,
    fsync_ns: u64,
    fsync_max_ns: u64,
    flusher_requests: u64,
    flusher_pages: u64,
    fsync_requests: u64,
    fsync_pages: u64,
    last_op: Time,
}

/// Closed-loop jobs whose writes go through the page cache.
pub struct Buffered {
    inner: ClosedLoop,
    cache: PageCache,
    numjobs: u32,
    /// The flusher's stream: job id `numjobs`.
    flusher: u32,
    fsync_every: u64,
    state: Vec<JobState>,
    since_fsync: Vec<u64>,
    /// A job's next write, waiting for its time (thinktime), by (time, job).
    timed: BTreeSet<(Time, u32)>,
    pending: Vec<Option<HostRequest>>,
    throttled: VecDeque<u32>,
    released: VecDeque<HostRequest>,
    started: bool,
    done: u32,
    c: Counters,
}

impl Buffered {
    pub fn new(s: &Settings) -> Self {
        let j = &s.workload.jobs;
        let n = j.numjobs as usize;
        Buffered {
            inner: ClosedLoop::new(s),
            cache: PageCache::new(&s.workload.page_cache, n, j.offset_increment),
            numjobs: j.numjobs,
            flusher: j.numjobs,
            fsync_every: s.workload.page_cache.fsync,
            state: vec![JobState::Running; n],
            since_fsync: vec![0; n],
            timed: BTreeSet::new(),
            pending: vec![None; n],
            throttled: VecDeque::new(),
            released: VecDeque::new(),
            started: false,
            done: 0,
            c: Counters::default(),
        }
    }

    /// Run job `job` from request `next` on, at `now`, until it waits for something (a read, a
    /// future write, throttling, fsync) or finishes.
    fn advance(&mut self, job: u32, mut next: Option<HostRequest>, now: Time) {
        loop {
            let Some(r) = next else {
                self.state[job as usize] = JobState::Done;
                self.done += 1;
                if self.done == self.numjobs {
                    self.cache.sync_all();
                }
                return;
            };
            self.state[job as usize] = JobState::Running;
            if r.op != Op::Write {
                self.released.push_back(r);
                return;
            }
            if r.arrival > now {
                self.timed.insert((r.arrival, job));
                self.pending[job as usize] = Some(r);
                return;
            }
            for p in r.offset / PAGE..(r.offset + r.len).div_ceil(PAGE) {
                if !self.cache.dirty_page(p, now) {
                    self.c.absorbed += 1;
                }
            }
            if self.cache.over_limit() {
                self.c.throttled += 1;
                self.state[job as usize] = JobState::Throttled(now);
                self.throttled.push_back(job);
                return;
            }
            match self.write_returned(job, now, now) {
                Some(n) => next = n,
                None => return,
            }
        }
    }

    /// Job `job`'s write issued at `issued` returns at `now`; then its fsync if one is due.
    /// `Some(next request)` if the job goes on, `None` if it waits in fsync.
    fn write_returned(&mut self, job: u32, issued: Time, now: Time) -> Option<Option<HostRequest>> {
        let lat = now - issued;
        self.c.writes += 1;
        self.c.write_call_ns += lat;
        self.c.write_call_max_ns = self.c.write_call_max_ns.max(lat);
        self.c.last_op = self.c.last_op.max(now);
        let j = job as usize;
        self.since_fsync[j] += 1;
        if self.fsync_every > 0 && self.since_fsync[j] >= self.fsync_every {
            self.since_fsync[j] = 0;
            self.c.fsyncs += 1;
            let (released, c) = (&mut self.released, &mut self.c);
            self.cache.fsync(j, &mut |offset, len| {
                c.fsync_requests += 1;
                c.fsync_pages += len / PAGE;
                released.push_back(HostRequest { arrival: now, op: Op::Write, offset, len, line: 0, job });
            });
            if self.cache.file_writeback(j) > 0 {
                self.state[j] = JobState::Fsync(now);
                return None;
            }
        }
        Some(self.inner.on_complete(job, now))
    }

    /// Hand the flusher's requests out while it may issue.
    fn pump(&mut self, now: Time) {
        while let Some((offset, len)) = self.cache.next_flush(now) {
            self.c.flusher_requests += 1;
            self.c.flusher_pages += len / PAGE;
            self.released.push_back(HostRequest { arrival: now, op: Op::Write, offset, len, line: 0, job: self.flusher });
        }
    }

    /// Throttled jobs whose limit cleared return from write(), in the order they blocked.
    fn unthrottle(&mut self, now: Time) {
        while !self.cache.over_limit() {
            let Some(job) = self.throttled.pop_front() else { break };
            let JobState::Throttled(issued) = self.state[job as usize] else { unreachable!("a throttled job") };
            if let Some(next) = self.write_returned(job, issued, now) {
                self.advance(job, next, now);
            }
        }
    }
}

impl Workload for Buffered {
    /// The jobs' first requests at time 0 (their first reads; writes are absorbed on the way) and
    /// whatever write-back that starts.
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        if !self.started {
            self.started = true;
            while let Some(r) = self.inner.next_request()? {
                self.advance(r.job, Some(r), 0);
            }
            self.pump(0);
        }
        Ok(self.released.pop_front())
    }

    /// `workload.skip`: the jobs drop their first requests before any starts, as unbuffered jobs
    /// do (`ClosedLoop::skip`); none reaches the page cache. (The trait's default would take
    /// them from `next_request`, which starts the jobs: their first requests were then dropped
    /// and the jobs waited for ever for those to complete.)
    fn skip(&mut self, n: u64) -> Result<u64, TraceError> {
        debug_assert!(!self.started, "skip comes before the first request");
        self.inner.skip(n)
    }

    fn on_request_done(&mut self, req: &HostRequest, now: Time) -> Option<HostRequest> {
        if req.op == Op::Write {
            self.cache.written(req.offset, req.len, req.job == self.flusher);
            let fi = self.cache.owner(req.offset / PAGE);
            if let JobState::Fsync(since) = self.state[fi] {
                if self.cache.file_writeback(fi) == 0 {
                    let lat = now - since;
                    self.c.fsync_ns += lat;
                    self.c.fsync_max_ns = self.c.fsync_max_ns.max(lat);
                    let next = self.inner.on_complete(fi as u32, now);
                    self.advance(fi as u32, next, now);
                }
            }
            self.unthrottle(now);
        } else if req.job < self.numjobs {
            self.c.reads += 1;
            self.c.last_op = self.c.last_op.max(now);
            let next = self.inner.on_complete(req.job, now);
            self.advance(req.job, next, now);
        }
        self.pump(now);
        self.released.pop_front()
    }

    fn take_released(&mut self) -> Option<HostRequest> {
        self.released.pop_front()
    }

    fn next_wakeup(&self) -> Option<Time> {
        let timed = self.timed.first().map(|t| t.0);
        let tick = self.cache.next_tick();
        match (timed, tick) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn on_wakeup(&mut self, now: Time) {
        while let Some(&(t, job)) = self.timed.first() {
            if t > now {
                break;
            }
            self.timed.pop_first();
            let r = self.pending[job as usize].take();
            self.advance(job, r, now);
        }
        self.cache.tick(now);
        self.pump(now);
    }

    fn progress(&self) -> f64 {
        self.inner.progress()
    }

    fn describe(&self) -> Value {
        let mut d = self.inner.describe();
        let c = &self.c;
        let ops = c.reads + c.writes;
        let div = |a: u64, b: u64| if b > 0 { (a as f64 / b as f64 * 1000.0).round() / 1000.0 } else { 0.0 };
        d["buffered"] = json!(true);
        d["fsync_every"] = json!(self.fsync_every);
        d["job_reads"] = json!(c.reads);
        d["job_writes"] = json!(c.writes);
        d["job_ops"] = json!(ops);
        d["job_iops"] = json!(if c.last_op > 0 { (ops as f64 * 1e9 / c.last_op as f64 * 1000.0).round() / 1000.0 } else { 0.0 });
        d["job_end_ns"] = json!(c.last_op);
        d["writes_absorbed_pages"] = json!(c.absorbed);
        d["write_call_lat_mean_ns"] = json!(div(c.write_call_ns, c.writes));
        d["write_call_lat_max_ns"] = json!(c.write_call_max_ns);
        d["throttled_writes"] = json!(c.throttled);
        d["fsyncs"] = json!(c.fsyncs);
        d["fsync_lat_mean_ns"] = json!(div(c.fsync_ns, c.fsyncs));
        d["fsync_lat_max_ns"] = json!(c.fsync_max_ns);
        d["writeback_requests"] = json!(c.flusher_requests);
        d["writeback_pages"] = json!(c.flusher_pages);
        d["fsync_requests"] = json!(c.fsync_requests);
        d["fsync_pages"] = json!(c.fsync_pages);
        d["dirty_pages_end"] = json!(self.cache.dirty);
        d["unfinished_jobs"] = json!(self.numjobs - self.done);
        d["dirty_background_pages"] = json!(self.cache.background_pages);
        d["dirty_limit_pages"] = json!(self.cache.limit_pages);
        d
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(size_pages: u64, bg: u32, limit: u32, max_pages: u64, nr: u32) -> PageCacheSettings {
        PageCacheSettings {
            buffered: true,
            fsync: 0,
            size: size_pages * PAGE,
            background_ratio: bg,
            dirty_ratio: limit,
            interval_ns: 5_000,
            expire_ns: 30_000,
            nr_requests: nr,
            max_request: max_pages * PAGE,
        }
    }

    fn drain(pc: &mut PageCache, now: Time) -> Vec<(u64, u64)> {
        let mut v = Vec::new();
        while let Some((o, l)) = pc.next_flush(now) {
            v.push((o / PAGE, l / PAGE));
        }
        v
    }

    #[test]
    fn thresholds_follow_the_ratios_and_linux_halving() {
        assert_eq!(settings(1000, 10, 20, 1, 1).thresholds(), (100, 200));
        // background not below the limit: half the limit (global_dirty_limits)
        assert_eq!(settings(1000, 30, 20, 1, 1).thresholds(), (100, 200));
    }

    #[test]
    fn background_writeback_is_sorted_coalesced_and_stops_at_the_threshold() {
        // 100 pages of memory: background 10 pages, limit 20. One file.
        let mut pc = PageCache::new(&settings(100, 10, 20, 4, 1000), 1, 0);
        for p in [50, 7, 8, 9, 10, 11, 3, 40, 41, 90, 2] {
            pc.dirty_page(p, 0);
        }
        assert!(!pc.dirty_page(8, 0), "a dirty page absorbs the write");
        assert_eq!(pc.dirty, 11);
        // 11 > 10: background write-back until at most 10 dirty, i.e. one request: the lowest
        // index run from the cursor (0): pages 2,3 coalesced.
        assert_eq!(drain(&mut pc, 0), vec![(2, 2)]);
        assert_eq!((pc.dirty, pc.writeback), (9, 2));
        // Six more pages: 15 dirty, write back from the cursor (4) upwards: 7..10 (capped at 4
        // pages), then 11 alone, which leaves 10: at the threshold, write-back stops.
        for p in 60..=65 {
            pc.dirty_page(p, 1);
        }
        assert_eq!(drain(&mut pc, 1), vec![(7, 4), (11, 1)]);
        assert_eq!(pc.dirty, 10);
        pc.written(2 * PAGE, 2 * PAGE, true);
        assert_eq!((pc.writeback, pc.inflight), (5, 2));
    }

    #[test]
    fn the_cursor_wraps_and_everything_goes_when_syncing() {
        let mut pc = PageCache::new(&settings(1000, 10, 20, 8, 1000), 1, 0);
        for p in [5, 6, 20, 30, 31, 32] {
            pc.dirty_page(p, 0);
        }
        pc.files[0].cursor = 25;
        pc.sync_all();
        assert_eq!(drain(&mut pc, 0), vec![(30, 3), (5, 2), (20, 1)]);
        assert_eq!(pc.dirty, 0);
    }

    #[test]
    fn nr_requests_bounds_the_flusher() {
        let mut pc = PageCache::new(&settings(1000, 10, 20, 1, 2), 1, 0);
        for p in 0..5 {
            pc.dirty_page(p * 2, 0);
        }
        pc.sync_all();
        assert_eq!(drain(&mut pc, 0), vec![(0, 1), (2, 1)]);
        pc.written(0, PAGE, true);
        assert_eq!(drain(&mut pc, 0), vec![(4, 1)]);
    }

    #[test]
    fn files_take_turns_oldest_first_in_chunks() {
        // Two files of 4096 pages each; file 1 dirtied first. 1030 pages in each.
        let mut pc = PageCache::new(&settings(100_000, 1, 50, 2048, 10_000), 2, 4096 * PAGE);
        for p in 0..1030 {
            pc.dirty_page(4096 + 2 * p, 0); // file 1: non-contiguous pages
        }
        for p in 0..1030 {
            pc.dirty_page(2 * p, 1); // file 0, later
        }
        pc.sync_all();
        let v = drain(&mut pc, 2);
        // file 1's first 1024 pages (one page per request), then file 0's 1024, then the rest.
        assert_eq!(v.len(), 2060);
        assert!(v[..1024].iter().all(|&(p, _)| p >= 4096));
        assert!(v[1024..2048].iter().all(|&(p, _)| p < 4096));
        assert!(v[2048..2054].iter().all(|&(p, _)| p >= 4096));
        assert!(v[2054..].iter().all(|&(p, _)| p < 4096));
        assert_eq!(pc.owner(4095), 0);
        assert_eq!(pc.owner(4096), 1);
    }

    #[test]
    fn periodic_writeback_takes_expired_files_only() {
        // interval 5 us, expire 30 us; thresholds high (1000 pages of memory, background 100).
        let mut pc = PageCache::new(&settings(1000, 10, 20, 1, 100), 2, 100 * PAGE);
        pc.dirty_page(1, 0);
        pc.dirty_page(3, 0);
        pc.dirty_page(150, 20_000);
        assert_eq!(pc.next_tick(), Some(5_000));
        assert_eq!(drain(&mut pc, 0), vec![], "below the background threshold, nothing expired");
        pc.tick(30_000);
        assert_eq!(pc.next_tick(), Some(35_000));
        assert_eq!(drain(&mut pc, 30_000), vec![(1, 1), (3, 1)], "file 0 expired, file 1 not yet");
        pc.tick(50_000);
        assert_eq!(drain(&mut pc, 50_000), vec![(150, 1)]);
        pc.tick(55_000);
        assert_eq!(pc.next_tick(), None, "nothing dirty: the flusher sleeps");
    }

    #[test]
    fn fsync_writes_the_file_in_order_and_counts_it_under_writeback() {
        let mut pc = PageCache::new(&settings(1000, 10, 20, 2, 100), 2, 100 * PAGE);
        for p in [105, 101, 102, 103, 7] {
            pc.dirty_page(p, 0);
        }
        let mut v = Vec::new();
        pc.fsync(1, &mut |o, l| v.push((o / PAGE, l / PAGE)));
        assert_eq!(v, vec![(101, 2), (103, 1), (105, 1)]);
        assert_eq!((pc.dirty, pc.writeback, pc.file_writeback(1), pc.file_dirty(0)), (1, 4, 4, 1));
        pc.written(101 * PAGE, 2 * PAGE, false);
        assert_eq!((pc.file_writeback(1), pc.inflight), (2, 0));
        assert!(!pc.over_limit());
    }
}
