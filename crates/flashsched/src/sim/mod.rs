//! The simulator: wires the workload, the host scheduler, the device queue, the FTL, the
//! transaction scheduler and the NAND resources together, and moves requests through them in
//! simulated time.
//!
//! Timing of one flash operation on its die (a die is busy from the moment it starts an operation
//! until the operation's last step; a channel is busy only during transfers):
//!
//! - read: command on the channel (`timing.command`), array read (`timing.read`), data out on the
//!   channel (bytes / rate), then ECC decoding in the controller (`timing.ecc`, die and channel free);
//! - program: command + data in on the channel, then the array program (`timing.program`);
//! - erase: command on the channel, then the array erase (`timing.erase`).
//!
//! The channel serves waiting dies first-come, first-served. GC reads, writes and erases are real
//! operations on the same dies and channels as host I/O.

pub mod txn;

use std::collections::VecDeque;

use crate::config::{Settings, Timing};
use crate::engine::{EventQueue, Time};
use crate::ftl::{self, alloc::PageAllocator, gc::VictimPolicy, Ftl, Writer};
use crate::hil::{self, DeviceQueue};
use crate::host::{self, HostRequestView, HostScheduler};
use crate::nand::{Layout, NONE};
use crate::stats::{interval::IntervalStats, Breakdown, DeviceCounters, DirStats};
use crate::trace::{Op, TraceError};
use crate::tsu::{self, TransactionScheduler};
use crate::workload::{HostRequest, Workload};
use txn::{ReqId, Slab, Txn, TxnId, TxnKind, TxnSlab};

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("preconditioning failed: {0}")]
    Precondition(String),
    #[error("simulation stalled at {time_ns} ns with {outstanding} requests unfinished: {why}")]
    Stalled { time_ns: u64, outstanding: u64, why: String },
    #[error("cancelled")]
    Cancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ev {
    /// A request from the workload's stream arrives.
    Arrival,
    /// A closed-loop job's next request arrives (slot in `job_arrivals`).
    JobArrival(u32),
    /// A busy channel's transfer ended and dies are waiting for it.
    ChannelFree(u32),
    /// A die's array operation (read, program, erase) ended; ignored unless the die's epoch
    /// still matches (a suspension reschedules the end).
    DieDone(u32, u32),
    /// A die reached a safe point and suspended its program or erase.
    SuspendDone(u32, u32),
    /// A read's data-out transfer ended.
    ReadOutDone(u32),
    /// An idling host scheduler's wait ended: try to dispatch again.
    HostWakeup,
    /// The workload's own timer (`Workload::next_wakeup`, e.g. a page-cache flusher).
    WorkloadWakeup,
    /// A host read's ECC decoding finished.
    EccDone(TxnId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Idle,
    ReadCmd,
    ReadArray,
    ReadOut,
    WriteIn,
    Program,
    EraseCmd,
    Erase,
    /// Suspending a program or erase: waiting for a safe point.
    Suspending,
}

#[derive(Debug, Clone)]
struct Die {
    txn: TxnId,
    phase: Phase,
    op_start: Time,
    busy_ns: u64,
    /// Bumped whenever a scheduled end of operation is cancelled (suspension).
    epoch: u32,
    /// When the running array operation is due to end.
    array_end: Time,
    /// A program or erase put aside while the die serves reads.
    suspended: Option<Suspended>,
    /// Suspensions of the current program or erase so far.
    suspensions: u32,
    /// A host read arrived while the program's data-in (or the erase's command) was still on its
    /// way: suspend as soon as the array operation starts.
    suspend_wanted: bool,
}

#[derive(Debug, Clone, Copy)]
struct Suspended {
    txn: TxnId,
    phase: Phase,
    /// Array time still to run after resuming.
    remaining: u64,
    /// When the die became free for other work (the safe point).
    since: Time,
    /// Reads started on the die during this suspension.
    reads: u32,
}

/// The NAND's program/erase suspension capability and its use for host reads (resolved config).
#[derive(Debug, Clone, Copy)]
struct SuspendConfig {
    program: bool,
    erase: bool,
    for_reads: bool,
    latency: u64,
    resume: u64,
    min_remaining: u64,
    max_per_op: u32,
    /// Reads a suspended die serves before it resumes.
    max_reads: u32,
    /// No read starts on a suspended die later than this after its safe point.
    window: u64,
}

#[derive(Debug, Clone, Default)]
struct Channel {
    /// The bus is busy until then (a transfer in progress).
    busy_until: Time,
    /// Dies waiting for the bus, oldest first.
    waiting: VecDeque<u32>,
    /// A `ChannelFree` event is scheduled.
    release_pending: bool,
    busy_ns: u64,
}

/// A host request inside the simulator.
#[derive(Debug, Clone, Copy)]
struct Req {
    arrival: Time,
    dispatched: Time,
    op: Op,
    offset: u64,
    len: u64,
    subs_left: u32,
    measured: bool,
    /// One of its transactions found its chip busy when it reached the chip's queue (a die of the
    /// chip running an operation, or transactions queued for the chip): an access conflict in the
    /// VIOS paper's sense (§3.3: a sub-request whose chip has NR > 1).
    conflicted: bool,
    /// The extent sent to the device: the request's own, or larger when others were merged into it.
    dev_offset: u64,
    dev_len: u64,
    /// The closed-loop job that issued it (`NONE` for open-loop workloads).
    job: u32,
    crit_done: Time,
    crit: Breakdown,
}

/// One row of the per-request log.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RequestLogRow {
    pub arrival_ns: u64,
    pub dispatch_ns: u64,
    pub complete_ns: u64,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    pub stages: Breakdown,
}

/// Progress reported to the caller's hook.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub fraction: f64,
    pub sim_time_ns: u64,
    pub requests_done: u64,
    pub events: u64,
}

/// Everything a finished run measured; [`crate::report`] turns it into JSON and CSV.
#[derive(Debug)]
pub struct RunOutcome {
    pub read: DirStats,
    pub write: DirStats,
    pub trim: DirStats,
    pub counters: DeviceCounters,
    pub measure_start_ns: u64,
    pub measure_end_ns: u64,
    pub sim_end_ns: u64,
    pub submitted: u64,
    pub completed: u64,
    pub warmup_requests: u64,
    pub events: u64,
    pub channel_busy_ns: Vec<u64>,
    pub die_busy_ns: Vec<u64>,
    pub erase_counts: Vec<u32>,
    pub free_blocks_min: u32,
    pub free_blocks_end: u64,
    pub mapped_pages: u64,
    pub logical_pages: u64,
    pub ftl_memory_bytes: usize,
    pub workload: serde_json::Value,
    pub intervals: Vec<String>,
    pub request_log: Vec<RequestLogRow>,
    pub invariants_ok: Result<(), String>,
}

pub struct Simulator {
    layout: Layout,
    timing: Timing,
    queue_depth: u32,
    page_size: u64,
    logical_pages: u64,
    skip_unmapped: bool,
    copyback: bool,
    warmup: u64,
    now: Time,
    events: EventQueue<Ev>,
    ftl: Ftl,
    alloc: Box<dyn PageAllocator>,
    gc: Box<dyn VictimPolicy>,
    host: Box<dyn HostScheduler>,
    hil: Box<dyn DeviceQueue>,
    tsu: Box<dyn TransactionScheduler>,
    channels: Vec<Channel>,
    dies: Vec<Die>,
    suspend: SuspendConfig,
    txns: TxnSlab,
    reqs: Slab<Req>,
    stalled: Vec<Vec<TxnId>>,
    outstanding: u32,
    workload: Box<dyn Workload>,
    next_arrival: Option<HostRequest>,
    /// Requests closed-loop jobs issued on completions, waiting for their arrival time.
    job_arrivals: Slab<HostRequest>,
    /// Requests the host scheduler merged into another, by the request that carries them.
    merged: rustc_hash::FxHashMap<ReqId, Vec<ReqId>>,
    /// A `HostWakeup` event is scheduled for then.
    host_wakeup: Option<Time>,
    /// A `WorkloadWakeup` event is scheduled for then.
    workload_wakeup: Option<Time>,
    arrived: u64,
    completed: u64,
    need_dispatch: bool,
    counters: DeviceCounters,
    snapshot: DeviceCounters,
    chan_snapshot: Vec<u64>,
    die_snapshot: Vec<u64>,
    measure_start: Option<Time>,
    last_completion: Time,
    read: DirStats,
    write: DirStats,
    trim: DirStats,
    free_min: u32,
    intervals: IntervalStats,
    log_requests: bool,
    request_log: Vec<RequestLogRow>,
    full_check: bool,
}

impl Simulator {
    /// Build the drive, precondition it, and open the workload. Fast even for large drives: FTL
    /// tables are allocated lazily.
    pub fn new(s: &Settings, workload: Box<dyn Workload>) -> Result<Self, SimError> {
        let layout = Layout::new(&s.geometry);
        let mut ftl = Ftl::new(layout, s.logical_pages(), s.gc_floor_blocks());
        let mut alloc = ftl::alloc::build(s, layout);
        let mut gc = ftl::gc::build(s);
        ftl::precondition::precondition(&mut ftl, &s.ftl.precondition, s.seed, alloc.as_mut(), gc.as_mut())
            .map_err(SimError::Precondition)?;
        let free_min = ftl.min_free_blocks();
        Ok(Simulator {
            layout,
            timing: s.timing.clone(),
            queue_depth: s.queue_depth,
            page_size: s.geometry.page_size as u64,
            logical_pages: s.logical_pages(),
            skip_unmapped: s.ftl.unmapped_reads_skip,
            copyback: s.ftl.gc_copyback,
            warmup: s.workload.warmup,
            now: 0,
            events: EventQueue::new(),
            ftl,
            alloc,
            gc,
            host: host::build(s),
            hil: hil::build(s, layout),
            tsu: tsu::build(s, layout),
            channels: vec![Channel::default(); layout.channels as usize],
            dies: vec![
                Die {
                    txn: NONE,
                    phase: Phase::Idle,
                    op_start: 0,
                    busy_ns: 0,
                    epoch: 0,
                    array_end: 0,
                    suspended: None,
                    suspensions: 0,
                    suspend_wanted: false,
                };
                layout.dies() as usize
            ],
            suspend: SuspendConfig {
                program: s.resolved.bool("device.suspend.program"),
                erase: s.resolved.bool("device.suspend.erase"),
                for_reads: s.resolved.bool("tsu.suspend_for_reads"),
                latency: s.resolved.ns("device.suspend.latency"),
                resume: s.resolved.ns("device.suspend.resume"),
                min_remaining: s.resolved.ns("device.suspend.min_remaining"),
                max_per_op: s.resolved.int("device.suspend.max_per_op") as u32,
                max_reads: s.resolved.int("device.suspend.max_reads") as u32,
                window: s.resolved.ns("device.suspend.window"),
            },
            txns: TxnSlab::default(),
            reqs: Slab::default(),
            stalled: vec![Vec::new(); layout.planes() as usize],
            outstanding: 0,
            workload,
            next_arrival: None,
            job_arrivals: Slab::default(),
            merged: rustc_hash::FxHashMap::default(),
            host_wakeup: None,
            workload_wakeup: None,
            arrived: 0,
            completed: 0,
            need_dispatch: false,
            counters: DeviceCounters::default(),
            snapshot: DeviceCounters::default(),
            chan_snapshot: vec![0; layout.channels as usize],
            die_snapshot: vec![0; layout.dies() as usize],
            measure_start: None,
            last_completion: 0,
            read: DirStats::default(),
            write: DirStats::default(),
            trim: DirStats::default(),
            free_min,
            intervals: IntervalStats::new(s.stats_interval_ns),
            log_requests: false,
            request_log: Vec::new(),
            full_check: false,
        })
    }

    /// Keep one row per measured request (the per-request log).
    pub fn with_request_log(mut self, on: bool) -> Self {
        self.log_requests = on;
        self
    }

    /// Run the full FTL invariant check at the end (walks every page; the default is a quick
    /// check of the totals).
    pub fn with_full_invariant_check(mut self, on: bool) -> Self {
        self.full_check = on;
        self
    }

    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Run to completion. `hook` is called every few thousand events with the progress; returning
    /// false cancels the run.
    pub fn run(mut self, hook: &mut dyn FnMut(&Progress) -> bool) -> Result<RunOutcome, SimError> {
        self.fetch_next_arrival()?;
        if self.next_arrival.is_none() {
            let d = self.workload.describe();
            let file = d["path"].as_str().unwrap_or("workload").to_string();
            return Err(SimError::Trace(TraceError { file, line: 0, message: "the workload holds no requests".into() }));
        }
        let mut since_hook = 0u32;
        while let Some(e) = self.events.pop() {
            debug_assert!(e.time >= self.now, "time went backwards");
            self.now = e.time;
            if self.intervals.enabled() {
                while self.now >= self.intervals.start + self.intervals.width {
                    self.close_interval();
                }
            }
            match e.kind {
                Ev::Arrival => {
                    let r = self.next_arrival.take().expect("an arrival event has a request");
                    self.on_arrival(r);
                    self.fetch_next_arrival()?;
                }
                Ev::JobArrival(slot) => {
                    let r = *self.job_arrivals.get(slot);
                    self.job_arrivals.remove(slot);
                    self.on_arrival(r);
                }
                Ev::HostWakeup => {
                    self.host_wakeup = None;
                    self.need_dispatch = true;
                }
                Ev::WorkloadWakeup => {
                    if self.workload_wakeup == Some(self.now) {
                        self.workload_wakeup = None;
                        self.workload.on_wakeup(self.now);
                        self.take_released();
                    }
                }
                Ev::ChannelFree(ch) => self.on_channel_free(ch),
                Ev::DieDone(d, epoch) => {
                    if self.dies[d as usize].epoch == epoch {
                        self.on_die_done(d);
                    }
                }
                Ev::SuspendDone(d, epoch) => {
                    if self.dies[d as usize].epoch == epoch {
                        self.on_suspended(d);
                    }
                }
                Ev::ReadOutDone(d) => self.finish_op(d),
                Ev::EccDone(t) => self.complete_host_txn(t),
            }
            if self.need_dispatch {
                self.need_dispatch = false;
                self.dispatch();
            }
            since_hook += 1;
            if since_hook >= 1 << 14 {
                since_hook = 0;
                let p = Progress {
                    fraction: self.workload.progress(),
                    sim_time_ns: self.now,
                    requests_done: self.completed,
                    events: self.events.pushed(),
                };
                if !hook(&p) {
                    return Err(SimError::Cancelled);
                }
            }
        }
        if self.outstanding > 0 || !self.host.is_empty() {
            let stalled: Vec<String> = self
                .stalled
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.is_empty())
                .take(3)
                .map(|(p, v)| format!("plane {p} has {} writes waiting for a free page and no block GC can reclaim", v.len()))
                .collect();
            return Err(SimError::Stalled {
                time_ns: self.now,
                outstanding: self.outstanding as u64 + self.host.len() as u64,
                why: if stalled.is_empty() { "no event left to run".into() } else { stalled.join("; ") },
            });
        }
        if self.intervals.enabled() && (self.intervals.start < self.now || self.intervals.lines.is_empty()) {
            self.close_interval();
        }
        hook(&Progress { fraction: 1.0, sim_time_ns: self.now, requests_done: self.completed, events: self.events.pushed() });
        Ok(self.finish())
    }

    fn finish(self) -> RunOutcome {
        let mut c = self.counters;
        c.gc_invocations = self.ftl.counters.gc_invocations;
        c.gc_pages_moved = self.ftl.counters.gc_pages_moved;
        c.erases = self.ftl.counters.erases;
        c.trimmed_pages = self.ftl.counters.trimmed_pages;
        let start = self.measure_start.unwrap_or(0);
        RunOutcome {
            read: self.read,
            write: self.write,
            trim: self.trim,
            counters: c.minus(&self.snapshot),
            measure_start_ns: start,
            measure_end_ns: self.last_completion.max(start),
            sim_end_ns: self.now,
            submitted: self.arrived,
            completed: self.completed,
            warmup_requests: self.warmup.min(self.arrived),
            events: self.events.pushed(),
            channel_busy_ns: self.channels.iter().zip(&self.chan_snapshot).map(|(c, s)| c.busy_ns - s).collect(),
            die_busy_ns: self.dies.iter().zip(&self.die_snapshot).map(|(d, s)| d.busy_ns - s).collect(),
            erase_counts: self.ftl.erase_counts(),
            free_blocks_min: self.free_min,
            free_blocks_end: self.ftl.total_free_blocks(),
            mapped_pages: self.ftl.mapped_pages(),
            logical_pages: self.logical_pages,
            ftl_memory_bytes: self.ftl.memory_bytes(),
            workload: self.workload.describe(),
            intervals: self.intervals.lines,
            request_log: self.request_log,
            invariants_ok: if self.full_check { self.ftl.check_invariants() } else { self.ftl.quick_check() },
        }
    }

    fn close_interval(&mut self) {
        let f = &self.ftl;
        self.intervals.close(f.total_free_blocks(), f.min_free_blocks(), f.counters.gc_invocations, f.counters.erases);
    }

    // ---- host side

    fn fetch_next_arrival(&mut self) -> Result<(), SimError> {
        if let Some(r) = self.workload.next_request()? {
            let t = r.arrival.max(self.now);
            self.next_arrival = Some(r);
            self.events.push(t, Ev::Arrival);
        }
        self.schedule_workload_wakeup();
        Ok(())
    }

    /// Requests the workload released besides the one it returned (a burst of write-back) arrive
    /// like closed-loop follow-ups; then its timer is (re)armed.
    fn take_released(&mut self) {
        while let Some(r) = self.workload.take_released() {
            let slot = self.job_arrivals.insert(r);
            self.events.push(r.arrival.max(self.now), Ev::JobArrival(slot));
        }
        self.schedule_workload_wakeup();
    }

    fn schedule_workload_wakeup(&mut self) {
        if let Some(t) = self.workload.next_wakeup() {
            let t = t.max(self.now);
            if self.workload_wakeup.is_none_or(|w| t < w) {
                self.workload_wakeup = Some(t);
                self.events.push(t, Ev::WorkloadWakeup);
            }
        }
    }

    fn on_arrival(&mut self, r: HostRequest) {
        let measured = self.arrived >= self.warmup;
        if measured && self.measure_start.is_none() {
            self.begin_measurement();
        }
        self.arrived += 1;
        let req = Req {
            arrival: self.now,
            dispatched: 0,
            op: r.op,
            offset: r.offset,
            len: r.len,
            subs_left: 0,
            measured,
            conflicted: false,
            dev_offset: r.offset,
            dev_len: r.len,
            job: r.job,
            crit_done: 0,
            crit: Breakdown::default(),
        };
        let id: ReqId = self.reqs.insert(req);
        let stream = if r.job == crate::workload::NO_JOB { 0 } else { r.job };
        let view = HostRequestView { arrival: self.now, op: r.op, offset: r.offset, len: r.len, stream };
        self.host.enqueue(id, &view, self.now);
        self.need_dispatch = true;
    }

    /// Warm-up is over: counters and utilisation from here on are what the report shows.
    fn begin_measurement(&mut self) {
        self.measure_start = Some(self.now);
        let mut c = self.counters;
        c.gc_invocations = self.ftl.counters.gc_invocations;
        c.gc_pages_moved = self.ftl.counters.gc_pages_moved;
        c.erases = self.ftl.counters.erases;
        c.trimmed_pages = self.ftl.counters.trimmed_pages;
        self.snapshot = c;
        self.chan_snapshot = self.channels.iter().map(|c| c.busy_ns).collect();
        self.die_snapshot = self.dies.iter().map(|d| d.busy_ns).collect();
    }

    /// Send requests to the device while it has room.
    fn dispatch(&mut self) {
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
            if !d.merged.is_empty() {
                self.merged.insert(id, d.merged);
            }
            self.split(id);
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
    fn split(&mut self, id: ReqId) {
        let r = self.reqs.items[id as usize];
        let ps = self.page_size;
        let mut subs = 0u32;
        if matches!(r.op, Op::Read | Op::Write | Op::Trim) && r.dev_len > 0 {
            let first = r.dev_offset / ps;
            let last = (r.dev_offset + r.dev_len - 1) / ps;
            // Touch the mapping entries of all the request's pages before using any of them, so
            // their cache misses overlap instead of following one another (the FTL tables of a
            // large drive do not fit in cache, and these misses dominate the run time).
            // Fold into the logical space (workload.fold = "modulo"; "error" was checked upstream).
            // One division per request; the following pages wrap by comparison.
            let first_lpn = first % self.logical_pages;
            let wrap = |lpn: u64| if lpn >= self.logical_pages { lpn - self.logical_pages } else { lpn };
            let prefetched = (last - first).min(32);
            for i in 0..=prefetched {
                self.ftl.prefetch_mapping(wrap(first_lpn + i) as u32);
            }
            if r.op == Op::Write {
                for i in 0..=prefetched {
                    self.ftl.prefetch_current_copy(wrap(first_lpn + i) as u32);
                }
            }
            let mut next_lpn = first_lpn;
            for page in first..=last {
                let lpn = next_lpn as u32;
                next_lpn = wrap(next_lpn + 1);
                let lo = r.dev_offset.max(page * ps);
                let hi = (r.dev_offset + r.dev_len).min((page + 1) * ps);
                let bytes = (hi - lo) as u32;
                match r.op {
                    Op::Read => {
                        self.counters.host_pages_read += 1;
                        let (ppn, plane) = match self.ftl.lookup(lpn) {
                            Some(p) => (p, self.layout.plane_of(p)),
                            None => {
                                self.counters.host_reads_unmapped += 1;
                                if self.skip_unmapped {
                                    continue;
                                }
                                (NONE, self.alloc.home_plane(lpn as u64))
                            }
                        };
                        let die = self.layout.die_of_plane(plane);
                        let t = self.txns.insert(Txn::new(TxnKind::HostRead, id, lpn, ppn, plane, die, bytes, self.now));
                        self.hil.push(t, self.txns.get(t));
                        subs += 1;
                    }
                    Op::Write => {
                        self.counters.host_pages_written += 1;
                        let plane = {
                            let (dies, tsu, ftl) = (&self.dies, &self.tsu, &self.ftl);
                            let die_load = |d: u32| tsu.queued_for_die(d) as u32 + u32::from(dies[d as usize].phase != Phase::Idle);
                            let plane_free = |p: u32| ftl.free_blocks(p);
                            let view = ftl::alloc::AllocView { die_load: &die_load, plane_free: &plane_free };
                            self.alloc.plane_for_write_now(lpn as u64, &view)
                        };
                        let die = self.layout.die_of_plane(plane);
                        let t = self.txns.insert(Txn::new(TxnKind::HostWrite, id, lpn, NONE, plane, die, bytes, self.now));
                        self.hil.push(t, self.txns.get(t));
                        subs += 1;
                    }
                    _ => {
                        self.ftl.trim(lpn);
                    }
                }
            }
        }
        self.reqs.items[id as usize].subs_left = subs;
        if subs == 0 {
            self.complete_request(id);
        }
    }

    fn drain_hil(&mut self) {
        loop {
            let t = {
                let (dies, tsu) = (&self.dies, &self.tsu);
                let busy = |d: u32| dies[d as usize].phase != Phase::Idle || tsu.queued_for_die(d) > 0;
                let view = hil::DeviceView { now: self.now, queued_in_chips: tsu.len(), die_busy: &busy };
                self.hil.pop(&self.txns.items, &view)
            };
            let Some(t) = t else { break };
            self.to_tsu(t);
        }
    }

    fn to_tsu(&mut self, t: TxnId) {
        let now = self.now;
        let txn = self.txns.get_mut(t);
        txn.enqueued = now;
        let die = txn.die;
        if matches!(txn.kind, TxnKind::HostRead | TxnKind::HostWrite) {
            let req = txn.req;
            let chip = self.layout.chip_of_die(die);
            let first = chip * self.layout.dies_per_chip;
            let busy = self.tsu.queued_on_chip(chip) > 0
                || self.dies[first as usize..(first + self.layout.dies_per_chip) as usize].iter().any(|d| d.phase != Phase::Idle || d.suspended.is_some());
            self.reqs.items[req as usize].conflicted |= busy;
        }
        self.tsu.enqueue(t, self.txns.get(t));
        if self.suspend.for_reads && self.dies[die as usize].phase != Phase::Idle {
            self.maybe_suspend_for(die, t);
        }
        self.try_start_die(die);
    }

    // ---- dies and channels

    fn try_start_die(&mut self, die: u32) {
        while self.dies[die as usize].phase == Phase::Idle {
            if let Some(s) = self.dies[die as usize].suspended {
                // A suspended program or erase holds the page buffer: only reads may run, and only
                // while the suspension's read budget and window last, so the operation it put
                // aside is delayed by a bounded amount.
                let more = s.reads < self.suspend.max_reads && self.now <= s.since + self.suspend.window;
                match if more { self.tsu.next_read(die, &self.txns.items) } else { None } {
                    Some(t) => {
                        self.dies[die as usize].suspended.as_mut().expect("suspended").reads += 1;
                        self.start_txn(die, t)
                    }
                    None => self.resume(die),
                }
                continue;
            }
            let Some(t) = self.tsu.next(die, &self.txns.items) else { return };
            self.start_txn(die, t);
        }
    }

    /// Program/erase suspension (Wu & He, FAST 2012; spec §11): a host read arriving for a die busy
    /// with a long program or erase suspends it at the next safe point, runs, and the operation
    /// resumes with its remaining time plus an overhead. A read arriving while the program's data
    /// is still crossing the channel (or the erase's command) suspends it as soon as its array
    /// operation starts.
    fn maybe_suspend_for(&mut self, die: u32, reader: TxnId) {
        if self.txns.get(reader).kind != TxnKind::HostRead {
            return;
        }
        let sc = self.suspend;
        let d = &mut self.dies[die as usize];
        match d.phase {
            Phase::WriteIn if sc.program => d.suspend_wanted = true,
            Phase::EraseCmd if sc.erase => d.suspend_wanted = true,
            Phase::Program | Phase::Erase => {
                let array_start = d.array_end.saturating_sub(self.txns.get(d.txn).array);
                self.suspend_from(die, array_start.max(self.now));
            }
            _ => {}
        }
    }

    /// Suspend the die's program or erase at the first safe point after `from` (at or after the
    /// start of its array operation), if the device allows it and enough of it is left.
    fn suspend_from(&mut self, die: u32, from: Time) {
        let sc = self.suspend;
        let d = &mut self.dies[die as usize];
        d.suspend_wanted = false;
        let allowed = match d.phase {
            Phase::Program => sc.program,
            Phase::Erase => sc.erase,
            _ => false,
        };
        if !allowed || d.suspended.is_some() || d.suspensions >= sc.max_per_op {
            return;
        }
        let safe_point = from + sc.latency;
        if d.array_end <= safe_point || d.array_end - safe_point < sc.min_remaining {
            return;
        }
        let remaining = d.array_end - safe_point;
        d.epoch += 1;
        d.suspensions += 1;
        if d.phase == Phase::Program {
            self.counters.program_suspensions += 1;
        } else {
            self.counters.erase_suspensions += 1;
        }
        d.suspended = Some(Suspended { txn: d.txn, phase: d.phase, remaining, since: safe_point, reads: 0 });
        d.phase = Phase::Suspending;
        self.counters.suspensions += 1;
        let epoch = d.epoch;
        self.events.push(safe_point, Ev::SuspendDone(die, epoch));
    }

    /// The die reached its safe point: it is free for reads until it resumes.
    fn on_suspended(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        d.busy_ns += now - d.op_start;
        d.phase = Phase::Idle;
        d.txn = NONE;
        self.try_start_die(die);
    }

    /// No read left for the die: resume its suspended program or erase.
    fn resume(&mut self, die: u32) {
        let now = self.now;
        let resume = self.suspend.resume;
        let d = &mut self.dies[die as usize];
        let s = d.suspended.take().expect("resuming a suspended operation");
        d.txn = s.txn;
        d.phase = s.phase;
        d.op_start = now;
        d.epoch += 1;
        d.array_end = now + resume + s.remaining;
        let (end, epoch) = (d.array_end, d.epoch);
        let txn = self.txns.get_mut(s.txn);
        // Time set aside counts as waiting for the die; the resume overhead as array time, so the
        // stages still add up to the latency.
        txn.die_wait += now - s.since;
        txn.array += resume;
        self.events.push(end, Ev::DieDone(die, epoch));
    }

    /// Start `t` on `die`; it may turn out to need no flash work (a dropped GC move) or to wait
    /// for GC (a host write with no free page), leaving the die idle.
    fn start_txn(&mut self, die: u32, t: TxnId) {
        let now = self.now;
        let txn = *self.txns.get(t);
        let phase = match txn.kind {
            TxnKind::HostRead => Phase::ReadCmd,
            TxnKind::GcRead => {
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.gc_move_finished(txn.plane, false);
                    self.txns.remove(t);
                    return;
                }
                Phase::ReadCmd
            }
            TxnKind::HostWrite => match self.ftl.allocate(txn.plane, Writer::Host) {
                Some(ppn) => {
                    self.ftl.program(txn.lpn, ppn);
                    self.txns.get_mut(t).ppn = ppn;
                    Phase::WriteIn
                }
                None => {
                    self.counters.write_stalls += 1;
                    self.stalled[txn.plane as usize].push(t);
                    self.maybe_gc(txn.plane);
                    return;
                }
            },
            TxnKind::GcWrite => {
                if !self.ftl.still_current(txn.lpn, txn.ppn) {
                    self.gc_move_finished(txn.plane, false);
                    self.txns.remove(t);
                    return;
                }
                // The host leaves a block's worth of pages per plane (Ftl::allocate), and a victim
                // has fewer valid pages than that, so GC always finds a page.
                let ppn = self.ftl.allocate(txn.plane, Writer::Gc).expect("GC always finds a page in its reserve");
                self.ftl.program(txn.lpn, ppn);
                self.txns.get_mut(t).ppn = ppn;
                Phase::WriteIn
            }
            TxnKind::Erase => Phase::EraseCmd,
        };
        self.txns.get_mut(t).die_wait = now - txn.enqueued;
        let d = &mut self.dies[die as usize];
        d.txn = t;
        d.phase = phase;
        d.op_start = now;
        if self.timing.command_ns == 0 && matches!(phase, Phase::ReadCmd | Phase::EraseCmd) {
            // A zero-length command needs no bus time: go straight to the array.
            self.start_array(die);
        } else {
            self.request_channel(die);
        }
        if txn.kind == TxnKind::HostWrite {
            self.maybe_gc(txn.plane);
        }
    }

    /// Ask for the die's channel. The bus is granted first-come, first-served; a busy channel
    /// schedules one `ChannelFree` event to hand itself to the next waiting die.
    fn request_channel(&mut self, die: u32) {
        let ch = self.layout.channel_of_die(die);
        let t = self.dies[die as usize].txn;
        self.txns.get_mut(t).chan_asked = self.now;
        let c = &mut self.channels[ch as usize];
        if self.now >= c.busy_until && c.waiting.is_empty() {
            self.start_transfer(ch, die);
        } else {
            c.waiting.push_back(die);
            if !c.release_pending {
                c.release_pending = true;
                let at = c.busy_until.max(self.now);
                self.events.push(at, Ev::ChannelFree(ch));
            }
        }
    }

    /// Put the die's transfer on the bus and schedule what follows it. Array operations that
    /// follow a transfer directly (program after data-in, read/erase after their command) are
    /// scheduled from here, so a transfer costs no event of its own unless another die is waiting
    /// for the bus.
    fn start_transfer(&mut self, ch: u32, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let txn = self.txns.get_mut(d.txn);
        let tm = &self.timing;
        txn.chan_wait += now - txn.chan_asked;
        let (dur, next) = match d.phase {
            Phase::ReadCmd => {
                d.phase = Phase::ReadArray;
                txn.array += tm.read_ns;
                (tm.command_ns, Ev::DieDone(die, d.epoch))
            }
            Phase::EraseCmd => {
                d.phase = Phase::Erase;
                txn.array += tm.erase_ns;
                (tm.command_ns, Ev::DieDone(die, d.epoch))
            }
            Phase::WriteIn => {
                d.phase = Phase::Program;
                txn.array += tm.program_ns;
                (tm.command_ns + tm.transfer_ns(txn.bytes as u64), Ev::DieDone(die, d.epoch))
            }
            Phase::ReadOut => (tm.transfer_ns(txn.bytes as u64), Ev::ReadOutDone(die)),
            p => unreachable!("die {die} asked for the channel in phase {p:?}"),
        };
        txn.bus += dur;
        let array = match next {
            Ev::DieDone(..) => txn.array,
            _ => 0,
        };
        d.array_end = now + dur + array;
        let c = &mut self.channels[ch as usize];
        c.busy_until = now + dur;
        c.busy_ns += dur;
        self.events.push(now + dur + array, next);
        if self.dies[die as usize].suspend_wanted {
            // A read queued during the data-in or command: suspend once the array op starts.
            self.suspend_from(die, now + dur);
        }
    }

    /// The channel's current transfer is over and dies are waiting: the oldest gets the bus.
    fn on_channel_free(&mut self, ch: u32) {
        let c = &mut self.channels[ch as usize];
        c.release_pending = false;
        if let Some(next) = c.waiting.pop_front() {
            self.start_transfer(ch, next);
            let c = &mut self.channels[ch as usize];
            if !c.waiting.is_empty() {
                c.release_pending = true;
                let at = c.busy_until;
                self.events.push(at, Ev::ChannelFree(ch));
            }
        }
    }

    /// Start the die's array operation without the bus (zero-length commands).
    fn start_array(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let txn = self.txns.get_mut(d.txn);
        let dur = match d.phase {
            Phase::ReadCmd => {
                d.phase = Phase::ReadArray;
                self.timing.read_ns
            }
            Phase::EraseCmd => {
                d.phase = Phase::Erase;
                self.timing.erase_ns
            }
            p => unreachable!("die {die} starts an array operation in phase {p:?}"),
        };
        txn.array += dur;
        d.array_end = now + dur;
        self.events.push(now + dur, Ev::DieDone(die, d.epoch));
        if self.dies[die as usize].suspend_wanted {
            self.suspend_from(die, now);
        }
    }

    fn on_die_done(&mut self, die: u32) {
        match self.dies[die as usize].phase {
            Phase::ReadArray => {
                let t = self.dies[die as usize].txn;
                if self.txns.get(t).bytes == 0 {
                    self.finish_op(die); // copyback read: the data stays in the die
                } else {
                    self.dies[die as usize].phase = Phase::ReadOut;
                    self.request_channel(die);
                }
            }
            Phase::Program | Phase::Erase => self.finish_op(die),
            p => unreachable!("die {die} finished an array operation in phase {p:?}"),
        }
    }

    /// The die's operation is over: free the die, account the transaction, start the next one.
    fn finish_op(&mut self, die: u32) {
        let now = self.now;
        let d = &mut self.dies[die as usize];
        let t = d.txn;
        d.busy_ns += now - d.op_start;
        d.txn = NONE;
        d.phase = Phase::Idle;
        if matches!(self.txns.get(t).kind, TxnKind::HostWrite | TxnKind::GcWrite | TxnKind::Erase) {
            d.suspensions = 0;
            d.suspend_wanted = false;
        }
        let txn = *self.txns.get(t);
        match txn.kind {
            TxnKind::HostRead => {
                self.counters.nand_pages_read += 1;
                if self.timing.ecc_ns > 0 {
                    self.events.push(now + self.timing.ecc_ns, Ev::EccDone(t));
                } else {
                    self.complete_host_txn(t);
                }
            }
            TxnKind::HostWrite => {
                self.counters.nand_pages_written += 1;
                self.complete_host_txn(t);
            }
            TxnKind::GcRead => {
                self.counters.nand_pages_read += 1;
                self.txns.remove(t);
                let bytes = if self.copyback { 0 } else { self.page_size as u32 };
                let w = self.txns.insert(Txn::new(TxnKind::GcWrite, NONE, txn.lpn, txn.ppn, txn.plane, txn.die, bytes, now));
                self.to_tsu(w);
            }
            TxnKind::GcWrite => {
                self.counters.nand_pages_written += 1;
                self.txns.remove(t);
                self.gc_move_finished(txn.plane, true);
            }
            TxnKind::Erase => {
                self.txns.remove(t);
                self.ftl.erase(self.layout.block_of(txn.ppn));
                // Writes that waited for this block go back to the head of their queue, in order.
                let waiting = std::mem::take(&mut self.stalled[txn.plane as usize]);
                for w in waiting.into_iter().rev() {
                    self.tsu.enqueue_front(w, self.txns.get(w));
                }
                self.maybe_gc(txn.plane);
            }
        }
        self.try_start_die(die);
        self.drain_hil();
    }

    fn complete_host_txn(&mut self, t: TxnId) {
        let now = self.now;
        let txn = *self.txns.get(t);
        self.txns.remove(t);
        let ecc = if txn.kind == TxnKind::HostRead { self.timing.ecc_ns } else { 0 };
        let r = &mut self.reqs.items[txn.req as usize];
        if now >= r.crit_done {
            r.crit_done = now;
            r.crit = Breakdown {
                host_queue: r.dispatched - r.arrival,
                device_queue: txn.enqueued - r.dispatched,
                die_wait: txn.die_wait,
                channel_wait: txn.chan_wait,
                bus: txn.bus,
                array: txn.array,
                ecc,
            };
        }
        r.subs_left -= 1;
        if r.subs_left == 0 {
            self.complete_request(txn.req);
        }
    }

    /// A device request finished: it, and every request merged into it, complete now.
    fn complete_request(&mut self, id: ReqId) {
        self.outstanding -= 1;
        self.need_dispatch = true;
        self.hil.on_request_done(id);
        let lead = self.reqs.items[id as usize];
        let stream = if lead.job == NONE { 0 } else { lead.job };
        let view = HostRequestView { arrival: lead.arrival, op: lead.op, offset: lead.dev_offset, len: lead.dev_len, stream };
        self.host.on_complete(id, &view, self.now);
        let mut b = lead.crit;
        if lead.subs_left == 0 && lead.crit_done == 0 {
            // No flash work (trim, flush, skipped unmapped read): only host queueing.
            b = Breakdown::default();
        }
        self.finish_request(id, b);
        if let Some(riders) = self.merged.remove(&id) {
            for m in riders {
                self.finish_request(m, b);
            }
        }
    }

    /// Account one host request as complete; `b` holds the device stages of the request that
    /// carried it to the device (its own host queueing is filled in here).
    fn finish_request(&mut self, id: ReqId, mut b: Breakdown) {
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
        self.last_completion = now;
        match r.op {
            Op::Read => self.read.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Write => self.write.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Trim => self.trim.record(r.len, r.arrival, r.dispatched, now, &b),
            Op::Flush => {}
        }
        if self.intervals.enabled() && matches!(r.op, Op::Read | Op::Write) {
            self.intervals.record(r.op == Op::Read, r.len, now - r.arrival);
        }
        if self.log_requests {
            self.request_log.push(RequestLogRow {
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

    // ---- garbage collection

    /// Start GC in `plane` if it is below its free-block floor and not already collecting.
    fn maybe_gc(&mut self, plane: u32) {
        let free = self.ftl.free_blocks(plane);
        if free < self.free_min {
            self.free_min = free;
        }
        if !self.ftl.needs_gc(plane) {
            return;
        }
        let Some(victim) = self.gc.select(&self.ftl, plane) else { return };
        let moves = self.ftl.begin_gc(plane, victim);
        let die = self.layout.die_of_plane(plane);
        if moves.is_empty() {
            self.enqueue_erase(plane, victim);
            return;
        }
        let bytes = if self.copyback { 0 } else { self.page_size as u32 };
        for (src, lpn) in moves {
            let t = self.txns.insert(Txn::new(TxnKind::GcRead, NONE, lpn, src, plane, die, bytes, self.now));
            self.to_tsu(t);
        }
    }

    fn gc_move_finished(&mut self, plane: u32, moved: bool) {
        if !moved {
            self.counters.gc_moves_dropped += 1;
        }
        if self.ftl.gc_move_done(plane, moved) {
            let victim = self.ftl.planes[plane as usize].gc_victim;
            self.enqueue_erase(plane, victim);
        }
    }

    fn enqueue_erase(&mut self, plane: u32, block: u32) {
        let die = self.layout.die_of_plane(plane);
        let ppn = block * self.layout.pages_per_block;
        let t = self.txns.insert(Txn::new(TxnKind::Erase, NONE, 0, ppn, plane, die, 0, self.now));
        self.to_tsu(t);
    }
}

