//! sysbench's fileio test, version 0.4 (the PASS paper's §4.2 benchmark), as a closed-loop
//! workload: `workload.kind = "sysbench"`, `workload.sysbench.*`.
//!
//! - **Files.** `file_num` files of `file_total_size / file_num` bytes each, one after another
//!   from logical byte 0 [INFER: a fresh file system allocates each file contiguously].
//! - **One generator, many threads.** As in sysbench, the threads take their requests from one
//!   generator under a lock: a thread asks for its next request when its call returns. A request's
//!   position is uniform over all the files' bytes in whole blocks (so its file is uniform too).
//!   In `rndrw` it is a read while (reads done + 1) / (writes done + 1) is below `file_rw_ratio`,
//!   else a write (sysbench counts calls that returned: a deterministic 60/40 at 1.5).
//! - **fsync.** When a write was handed out since the last series and the reads and writes handed
//!   out are a multiple of `file_fsync_freq`, the next `file_num` requests the threads take are
//!   fsyncs of files 0, 1, ... in turn. After `max_requests` reads and writes, the threads fsync
//!   every file once more (`file_fsync_end`) and stop.
//! - **Buffered I/O** (`io = "buffered"`, sysbench's default): `read()` and `write()` go through
//!   the page cache of `workload::page_cache`, whose files are sysbench's. A write dirties its
//!   pages and returns (unless throttled); an fsync writes the file's dirty pages as requests of
//!   the calling thread and waits until none of the file's pages is under write-back; the flusher
//!   writes back as for buffered jobs. A read whose pages were all read or written since the run
//!   began returns at once (the cache starts cold, as after the paper's remount, and never
//!   evicts: the configuration checks the run fits it); otherwise the whole block is read.
//! - **Direct I/O** (`io = "direct"`): every read and write goes to the device and the thread
//!   waits; fsync has nothing to write.
//!
//! Calls that need no I/O (a read hit, a buffered write under the dirty limit, an fsync of a clean
//! file) take no simulated time. An fsync returns once none of its file's pages is under
//! write-back, including write-back started after it (Linux waits only for the pages it tagged).
//!
//! The result sysbench prints, "Requests/sec executed", is reads plus writes over the time until
//! the last thread finished, end fsyncs included: `job_iops` here (null if every call returned at
//! time 0: no time passed, so there is no rate).

use std::collections::VecDeque;

use rand::Rng as _;
use rustc_hash::FxHashSet;
use serde_json::{json, Value};

use super::page_cache::{PageCache, PAGE};
use super::{HostRequest, Workload};
use crate::config::sysbench::{SysbenchMode, SysbenchSettings};
use crate::config::Settings;
use crate::engine::rng::{self, Rng};
use crate::engine::Time;
use crate::trace::{Op, TraceError};

/// What the generator hands a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Call {
    Read(u64),
    Write(u64),
    Fsync(usize),
}

/// sysbench's request generator (`file_get_rnd_request`), shared by the threads.
#[derive(Debug)]
struct Generator {
    p: SysbenchSettings,
    rng: Rng,
    file_size: u64,
    /// Reads and writes handed out (`req_performed`).
    handed: u64,
    /// Reads and writes that returned (`real_read_ops`, `real_write_ops`).
    reads_done: u64,
    writes_done: u64,
    /// A write was handed out since the last fsync series began to be handed out (`is_dirty`).
    dirty: bool,
    /// The next file of the periodic series and of the final one.
    series_next: usize,
    end_next: usize,
}

impl Generator {
    fn new(p: &SysbenchSettings, seed: u64) -> Self {
        Generator {
            rng: rng::stream(seed, "workload.sysbench"),
            file_size: p.file_size(),
            p: p.clone(),
            handed: 0,
            reads_done: 0,
            writes_done: 0,
            dirty: false,
            series_next: 0,
            end_next: 0,
        }
    }

    /// The next call, `None` once every request and final fsync is handed out.
    fn next(&mut self) -> Option<Call> {
        let files = self.p.file_num as usize;
        if self.handed >= self.p.max_requests {
            let writes = self.p.mode != SysbenchMode::RandomRead;
            if self.p.fsync_end && writes && self.end_next < files {
                self.end_next += 1;
                return Some(Call::Fsync(self.end_next - 1));
            }
            return None;
        }
        if self.p.fsync_freq > 0 && self.dirty && self.handed % self.p.fsync_freq == 0 {
            let f = self.series_next;
            self.series_next += 1;
            if self.series_next == files {
                self.series_next = 0;
                self.dirty = false;
            }
            return Some(Call::Fsync(f));
        }
        let read = match self.p.mode {
            SysbenchMode::RandomRead => true,
            SysbenchMode::RandomWrite => false,
            SysbenchMode::RandomReadWrite => {
                ((self.reads_done + 1) as f64 / (self.writes_done + 1) as f64) < self.p.rw_ratio
            }
        };
        let blocks = self.file_size / self.p.block_size * self.p.file_num as u64;
        let offset = self.rng.random_range(0..blocks) * self.p.block_size;
        self.handed += 1;
        if read {
            Some(Call::Read(offset))
        } else {
            self.dirty = true;
            Some(Call::Write(offset))
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Thread {
    /// A read or direct write in flight.
    Running,
    /// Its buffered write, made at this time, waits for write-back to bring the dirty pages under
    /// the limit (balance_dirty_pages).
    Throttled(Time),
    /// In fsync of this file since this time.
    Fsync(Time, usize),
    Done,
}

#[derive(Debug, Default)]
struct Counters {
    reads: u64,
    read_hits: u64,
    writes: u64,
    fsyncs: u64,
    fsync_ns: u64,
    fsync_max_ns: u64,
    throttled: u64,
    fsync_requests: u64,
    flusher_requests: u64,
    end: Time,
}

pub struct Sysbench {
    gen: Generator,
    cache: PageCache,
    direct: bool,
    block: u64,
    /// Pages read or written since the run began (the page cache never evicts).
    resident: FxHashSet<u64>,
    threads: Vec<Thread>,
    /// The flusher's stream: job id `threads`.
    flusher: u32,
    throttled: VecDeque<u32>,
    released: VecDeque<HostRequest>,
    started: bool,
    done: u32,
    c: Counters,
}

impl Sysbench {
    pub fn new(s: &Settings) -> Self {
        let p = &s.workload.sysbench;
        Sysbench {
            gen: Generator::new(p, s.seed),
            cache: PageCache::new(&s.workload.page_cache, p.file_num as usize, p.file_size()),
            direct: p.direct,
            block: p.block_size,
            resident: FxHashSet::default(),
            threads: vec![Thread::Running; p.threads as usize],
            flusher: p.threads,
            throttled: VecDeque::new(),
            released: VecDeque::new(),
            started: false,
            done: 0,
            c: Counters::default(),
        }
    }

    fn issue(&mut self, op: Op, offset: u64, job: u32, now: Time) {
        self.released.push_back(HostRequest {
            arrival: now,
            op,
            offset,
            len: self.block,
            line: 0,
            job,
        });
    }

    fn pages(&self, offset: u64) -> std::ops::Range<u64> {
        offset / PAGE..(offset + self.block) / PAGE
    }

    /// Thread `t`'s call returned at `now`: it takes calls until one waits (a read or direct
    /// write in flight, throttling, an fsync with pages to write) or the generator is done.
    fn advance(&mut self, t: u32, now: Time) {
        let ti = t as usize;
        loop {
            let Some(call) = self.gen.next() else {
                self.threads[ti] = Thread::Done;
                self.done += 1;
                self.c.end = self.c.end.max(now);
                if self.done == self.threads.len() as u32 {
                    self.cache.sync_all();
                }
                return;
            };
            match call {
                Call::Read(offset) => {
                    if !self.direct && self.pages(offset).all(|p| self.resident.contains(&p)) {
                        self.c.read_hits += 1;
                        self.read_returned(now);
                        continue;
                    }
                    self.threads[ti] = Thread::Running;
                    return self.issue(Op::Read, offset, t, now);
                }
                Call::Write(offset) if self.direct => {
                    self.threads[ti] = Thread::Running;
                    return self.issue(Op::Write, offset, t, now);
                }
                Call::Write(offset) => {
                    for p in self.pages(offset) {
                        self.cache.dirty_page(p, now);
                        self.resident.insert(p);
                    }
                    if self.cache.over_limit() {
                        self.c.throttled += 1;
                        self.threads[ti] = Thread::Throttled(now);
                        self.throttled.push_back(t);
                        return;
                    }
                    self.write_returned(now);
                }
                Call::Fsync(f) => {
                    self.c.fsyncs += 1;
                    if !self.direct {
                        let (released, c) = (&mut self.released, &mut self.c);
                        self.cache.fsync(f, &mut |offset, len| {
                            c.fsync_requests += 1;
                            released.push_back(HostRequest {
                                arrival: now,
                                op: Op::Write,
                                offset,
                                len,
                                line: 0,
                                job: t,
                            });
                        });
                        if self.cache.file_writeback(f) > 0 {
                            self.threads[ti] = Thread::Fsync(now, f);
                            return;
                        }
                    }
                }
            }
        }
    }

    fn read_returned(&mut self, now: Time) {
        self.gen.reads_done += 1;
        self.c.reads += 1;
        self.c.end = self.c.end.max(now);
    }

    fn write_returned(&mut self, now: Time) {
        self.gen.writes_done += 1;
        self.c.writes += 1;
        self.c.end = self.c.end.max(now);
    }

    /// The flusher's requests, while it may issue.
    fn pump(&mut self, now: Time) {
        while let Some((offset, len)) = self.cache.next_flush(now) {
            self.c.flusher_requests += 1;
            self.released.push_back(HostRequest {
                arrival: now,
                op: Op::Write,
                offset,
                len,
                line: 0,
                job: self.flusher,
            });
        }
    }

    /// A write-back request of file `f` completed: threads in fsync of it whose pages are all
    /// written return; throttled writers return once the dirty pages are under the limit.
    fn written(&mut self, f: usize, now: Time) {
        if self.cache.file_writeback(f) == 0 {
            for t in 0..self.threads.len() {
                if let Thread::Fsync(since, g) = self.threads[t] {
                    if g == f {
                        let lat = now - since;
                        self.c.fsync_ns += lat;
                        self.c.fsync_max_ns = self.c.fsync_max_ns.max(lat);
                        self.advance(t as u32, now);
                    }
                }
            }
        }
        while !self.cache.over_limit() {
            let Some(t) = self.throttled.pop_front() else {
                break;
            };
            self.write_returned(now);
            self.advance(t, now);
        }
    }
}

impl Workload for Sysbench {
    /// Every thread's first calls at time 0, and whatever they release.
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        if !self.started {
            self.started = true;
            for t in 0..self.threads.len() as u32 {
                self.advance(t, 0);
            }
            self.pump(0);
        }
        Ok(self.released.pop_front())
    }

    fn on_request_done(&mut self, req: &HostRequest, now: Time) -> Option<HostRequest> {
        match req.op {
            Op::Read => {
                // Direct reads bypass the cache: nothing becomes resident.
                if !self.direct {
                    for p in self.pages(req.offset) {
                        self.resident.insert(p);
                    }
                }
                self.read_returned(now);
                self.advance(req.job, now);
            }
            Op::Write if self.direct => {
                self.write_returned(now);
                self.advance(req.job, now);
            }
            _ => {
                self.cache
                    .written(req.offset, req.len, req.job == self.flusher);
                self.written(self.cache.owner(req.offset / PAGE), now);
            }
        }
        self.pump(now);
        self.released.pop_front()
    }

    fn take_released(&mut self) -> Option<HostRequest> {
        self.released.pop_front()
    }

    fn next_wakeup(&self) -> Option<Time> {
        self.cache.next_tick()
    }

    fn on_wakeup(&mut self, now: Time) {
        self.cache.tick(now);
        self.pump(now);
    }

    fn progress(&self) -> f64 {
        self.gen.handed as f64 / self.gen.p.max_requests.max(1) as f64
    }

    fn describe(&self) -> Value {
        let (p, c) = (&self.gen.p, &self.c);
        let ops = c.reads + c.writes;
        let per_s = |n: u64| (c.end > 0).then(|| (n as f64 * 1e9 / c.end as f64 * 1000.0).round() / 1000.0);
        json!({
            "kind": "sysbench",
            "synthetic": true,
            "threads": self.threads.len(),
            "file_test_mode": match p.mode {
                SysbenchMode::RandomReadWrite => "rndrw",
                SysbenchMode::RandomRead => "rndrd",
                SysbenchMode::RandomWrite => "rndwr",
            },
            "file_num": p.file_num,
            "file_size": self.gen.file_size,
            "file_block_size": p.block_size,
            "io": if self.direct { "direct" } else { "buffered" },
            "job_reads": c.reads,
            "job_writes": c.writes,
            "job_ops": ops,
            "job_iops": per_s(ops),
            "job_bytes_per_s": per_s(ops * p.block_size),
            "job_end_ns": c.end,
            "read_hits": c.read_hits,
            "fsyncs": c.fsyncs,
            "fsync_lat_mean_ns": if c.fsyncs > 0 { (c.fsync_ns as f64 / c.fsyncs as f64 * 1000.0).round() / 1000.0 } else { 0.0 },
            "fsync_lat_max_ns": c.fsync_max_ns,
            "fsync_requests": c.fsync_requests,
            "writeback_requests": c.flusher_requests,
            "throttled_writes": c.throttled,
            "unfinished_threads": self.threads.len() as u32 - self.done,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(mode: SysbenchMode, files: u32, fsync_freq: u64, max: u64) -> SysbenchSettings {
        SysbenchSettings {
            threads: 1,
            mode,
            file_num: files,
            total_size: files as u64 * 64 * 1024,
            block_size: 16 * 1024,
            rw_ratio: 1.5,
            fsync_freq,
            fsync_end: true,
            max_requests: max,
            direct: false,
        }
    }

    /// Hand out every call, each read and write returning at once.
    fn calls(g: &mut Generator) -> Vec<Call> {
        let mut v = Vec::new();
        while let Some(c) = g.next() {
            match c {
                Call::Read(_) => g.reads_done += 1,
                Call::Write(_) => g.writes_done += 1,
                Call::Fsync(_) => {}
            }
            v.push(c);
        }
        v
    }

    #[test]
    fn rndrw_alternates_by_the_ratio_of_calls_returned() {
        // sysbench: a read while (reads + 1) / (writes + 1) < 1.5. From 0/0: 1 < 1.5 R; 2/1 W;
        // 2/2 R; 3/2 W; 3/3 R; 4/3 R; 5/3 W; 5/4 R; 6/4 W; 6/5 R: 6 reads in 10.
        let mut g = Generator::new(&settings(SysbenchMode::RandomReadWrite, 4, 0, 10), 1);
        let kinds: String = calls(&mut g)
            .iter()
            .map(|c| match c {
                Call::Read(_) => 'R',
                Call::Write(_) => 'W',
                Call::Fsync(_) => 'F',
            })
            .collect();
        assert_eq!(
            kinds, "RWRWRRWRWRFFFF",
            "10 requests, then the 4 files' final fsyncs"
        );
    }

    #[test]
    fn a_fsync_series_covers_every_file_after_each_multiple_of_the_frequency() {
        let mut g = Generator::new(&settings(SysbenchMode::RandomWrite, 3, 4, 9), 1);
        let c = calls(&mut g);
        let fs = |i: usize| Call::Fsync(i);
        // 4 writes, files 0-2, 4 writes, files 0-2, 1 write, the final series.
        assert!(matches!(
            c[..4],
            [
                Call::Write(_),
                Call::Write(_),
                Call::Write(_),
                Call::Write(_)
            ]
        ));
        assert_eq!(c[4..7], [fs(0), fs(1), fs(2)]);
        assert_eq!(c[11..14], [fs(0), fs(1), fs(2)]);
        assert!(matches!(c[14], Call::Write(_)));
        assert_eq!(c[15..], [fs(0), fs(1), fs(2)]);
        // Reads only: no series, no final fsync.
        let mut r = Generator::new(&settings(SysbenchMode::RandomRead, 3, 4, 9), 1);
        assert!(calls(&mut r).iter().all(|c| matches!(c, Call::Read(_))));
    }

    #[test]
    fn positions_are_whole_blocks_over_every_file() {
        let p = settings(SysbenchMode::RandomRead, 4, 0, 4000);
        let mut g = Generator::new(&p, 7);
        let mut files = [0u32; 4];
        for c in calls(&mut g) {
            let Call::Read(o) = c else { unreachable!() };
            assert_eq!(o % p.block_size, 0);
            files[(o / p.file_size()) as usize] += 1;
        }
        assert!(files.iter().all(|&n| (800..1200).contains(&n)), "{files:?}");
    }
}
