//! The simulator: wires the workload, the host scheduler, the device queue, the FTL, the
//! transaction scheduler and the NAND resources together, and moves requests through them in
//! simulated time.
//!
//! How long flash work takes, and the state of dies and channels, is [`crate::ctrl`]'s; this
//! module decides what runs when, and owns the event queue. Its `impl Simulator` is split by
//! concern: `frontend` (arrivals, host dispatch, splitting into page transactions, the device
//! queue), `backend` (dies and channels: starting transactions, transfers, array operations,
//! suspension, the end of an operation), `gc` (garbage collection as flash work) and `complete`
//! (completion and measurement). `event` lists the events.

mod admission;
mod arbiter;
mod turns;
mod backend;
mod buffer;
mod cache;
mod chip;
mod complete;
mod event;
mod frontend;
mod gc;
mod idle;
mod link;
mod mapping;
mod placement;
mod read_conflict;
mod stall;
mod suspension;
pub mod txn;
mod wear;

#[cfg(test)]
mod tests;

use crate::config::Settings;
use crate::ctrl::Flash;
use crate::engine::{EventQueue, Time};
use crate::ftl::{self, gc::VictimPolicy, Ftl};
use crate::hil;
use crate::host::{self, HostScheduler};
use crate::nand::Layout;
use crate::sink::{IntervalFile, OutputError, RequestSink};
pub use crate::sink::RequestLogRow;
use crate::stats::{interval::IntervalStats, Breakdown, DeviceCounters, DirStats};
use crate::trace::{Op, TraceError};
use crate::tsu;
use crate::workload::{HostRequest, Workload};
use event::Ev;
use txn::{Placement, ReqId, Slab, TxnId, TxnSlab};

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
    /// The per-request log could not be written (the run stops when it notices).
    #[error(transparent)]
    Output(#[from] OutputError),
    /// `stats.interval` is so short for this run that it would make more than `stats.max_intervals`
    /// windows: a configuration problem, found as the run goes.
    #[error("{interval_ns} ns makes more than stats.max_intervals = {max} windows ({time_ns} ns of simulated time so far): raise stats.interval (or stats.max_intervals)")]
    TooManyIntervals { interval_ns: u64, max: u64, time_ns: u64 },
}


/// What takes commands when queued work may start: the die, the chip (`device.advanced.multi_die`),
/// or whichever unit the channel's turn reaches (`device.channel.arbitration = "mqsim"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Die,
    Chip,
    Turns,
}

/// A host request inside the simulator.
#[derive(Debug, Clone, Copy)]
struct Req {
    arrival: Time,
    /// Its arrival number (0 for the first request of the run).
    seq: u64,
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
    /// Its transactions not yet in the chips' queues (a slack-aware scheduler is told when none is left).
    unqueued: u32,
    /// Its transactions, and the sum and sum of squares of their completion times after arrival
    /// (ns): the request's intra-request slack when it completes.
    subs: u32,
    sub_done_sum: f64,
    sub_done_sq: f64,
    /// On the host link (`link`): the next message of its way in or out, which way, since when.
    link_step: u8,
    link_back: bool,
    link_start: Time,
    /// Whose request it is: the host's, or one of the controller's own (no host waits for those
    /// and nothing measures them).
    origin: Origin,
}

/// Whose a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Origin {
    Host,
    /// A program of the data cache's (a write-back, write-through or flush of a cached page).
    CacheProgram,
    /// A read or program of a translation page by the cached mapping table.
    Mapping,
}

impl Req {
    /// A request of the controller's own: `len` bytes at `offset` (device bytes).
    fn internal(now: Time, origin: Origin, offset: u64, len: u64) -> Self {
        Req::new(now, origin, Op::Write, offset, len)
    }

    /// A request of `op` arriving now, dispatched at once, not measured (the host's own set
    /// their arrival number, job and whether they are measured).
    fn new(now: Time, origin: Origin, op: Op, offset: u64, len: u64) -> Self {
        Req {
            arrival: now,
            seq: u64::MAX,
            dispatched: now,
            op,
            offset,
            len,
            subs_left: 0,
            measured: false,
            conflicted: false,
            dev_offset: offset,
            dev_len: len,
            job: crate::workload::NO_JOB,
            crit_done: 0,
            crit: Breakdown::default(),
            unqueued: 0,
            subs: 0,
            sub_done_sum: 0.0,
            sub_done_sq: 0.0,
            link_step: 0,
            link_back: false,
            link_start: 0,
            origin,
        }
    }
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
    /// The fewest and the most valid pages any plane held at the end.
    pub plane_valid_end: (u32, u32),
    /// Stalled writes an erase kept aside instead of re-queueing them (`stall`): retries saved,
    /// for tests and profiling; not reported.
    pub stalled_writes_kept_aside: u64,
    /// Of those, written back to the queue after all (`sim::stall`; for tests).
    pub stalled_writes_put_back: u64,
    /// Of those, joined a multi-plane command from behind their plane's last re-queued write,
    /// and re-queued behind that write where it joined one (`sim::stall`; for tests).
    pub stalled_writes_joined: (u64, u64),
    pub mapped_pages: u64,
    pub logical_pages: u64,
    pub ftl_memory_bytes: usize,
    pub workload: serde_json::Value,
    pub intervals: Vec<String>,
    /// The per-request log's sink, to be finished by the caller (files are renamed into place
    /// then).
    pub request_sink: Option<Box<dyn RequestSink>>,
    /// The interval file the windows were streamed to, to be committed by the caller.
    pub interval_file: Option<IntervalFile>,
    pub invariants_ok: Result<(), String>,
    /// The reliability-aware model's counters (variation, LDPC levels), when it is used.
    pub reliability: Option<crate::nand::reliable::ReliabilityReport>,
    /// The idle-time task's name and counters, when one runs.
    pub idle: Option<(&'static str, ftl::idle::IdleReport)>,
    /// What the transaction scheduler measured (Slacker's estimator and mechanisms), if anything.
    pub tsu: Option<serde_json::Value>,
    /// SSDSim's admission cap (`host.queue_length`): the requests it held and their hold.
    pub admission: Option<serde_json::Value>,
    /// `device.erase_limit`, and when the first block reached it (0: already after preconditioning).
    pub erase_limit: u32,
    pub first_failure_ns: Option<u64>,
    /// Erase counts when the run started (after preconditioning; only with an erase limit).
    pub start_erase_counts: Vec<u32>,
    /// `ssd.wear_leveling`'s policy-specific part (name, table memory, what it did), when one
    /// runs.
    pub wear: Option<serde_json::Value>,
    /// `ssd.cache`, when the data cache is on.
    pub cache: Option<serde_json::Value>,
    /// `ssd.mapping_cache`, with the cached mapping table.
    pub mapping: Option<serde_json::Value>,
    /// `ssd.write_grouping`, when a grouping policy runs.
    pub grouping: Option<serde_json::Value>,
    /// Wall-clock ns the grouping policy spent deciding and how many times (`run_info`).
    pub grouping_wall_ns: Option<(u64, u64)>,
}

pub struct Simulator {
    layout: Layout,
    queue_depth: u32,
    page_size: u64,
    logical_pages: u64,
    skip_unmapped: bool,
    /// `ftl.unmapped_reads = "map"` (`map_unwritten_read`).
    map_unmapped: bool,
    copyback: bool,
    warmup: u64,
    now: Time,
    events: EventQueue<Ev>,
    ftl: Ftl,
    alloc: ftl::alloc::AllocSlot,
    gc: Box<dyn VictimPolicy>,
    /// The mode each host write is programmed in, and that mode when it is always the same.
    program_speed: Box<dyn ftl::speed::ProgramSpeed>,
    speed_fixed: Option<crate::nand::latency::ProgramMode>,
    /// The idle-time task (`ftl.idle_task`), when one is configured; how long a chip must stay
    /// idle for it; each chip's work generation (`idle`).
    idle_task: Option<Box<dyn ftl::idle::IdleTask>>,
    idle_threshold: u64,
    chip_gen: Vec<u32>,
    reprograms: idle::Reprograms,
    host: Box<dyn HostScheduler>,
    hil: hil::HilSlot,
    tsu: tsu::TsuSlot,
    /// The transaction scheduler wants the observation hooks (`TransactionScheduler::observes`),
    /// and pauses programs for reads (`pauses_programs`).
    tsu_observes: bool,
    tsu_pauses: bool,
    /// The transaction scheduler's `queued_for_die` is a count (`counts_per_die`): an idle die
    /// with nothing queued skips its start loop, and a program with nothing queued for its die
    /// skips the pause question.
    tsu_counts: bool,
    /// Tests: every transaction goes through its scheduler's queue (`take_at_once` never
    /// skips it), the path the skip must match.
    #[cfg(test)]
    queue_always: bool,
    /// `device.erase_limit` (0: none) and when a block first reached it.
    erase_limit: u32,
    first_failure: Option<Time>,
    /// Wear leveling (`ftl.wear_leveling`) and write grouping (`ftl.write_grouping`).
    wear: wear::Wear,
    /// Reused buffer: the program command asked to pause (write pausing).
    pause_scratch: Vec<TxnId>,
    /// Dies, channels and their timing.
    flash: Flash,
    txns: TxnSlab,
    reqs: Slab<Req>,
    /// Per plane: host writes waiting for GC to free a page, in the order they stalled (`stall`).
    stalled: Vec<std::collections::VecDeque<TxnId>>,
    /// The logical pages of each plane's GC moves, for prefetching (`gc::MovesAhead`).
    gc_ahead: Vec<gc::MovesAhead>,
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
    /// Where the per-request log goes (none: no log, one branch per request).
    request_sink: Option<Box<dyn RequestSink>>,
    /// Where closed interval windows go as they close (else they stay in `intervals.lines`).
    interval_file: Option<IntervalFile>,
    intervals_closed: u64,
    max_intervals: u64,
    full_check: bool,
    /// Transactions are being released to the chips at this instant; dies start after
    /// (`drain_hil`, multi-plane packing).
    batching: bool,
    /// Dies to start when the batch ends.
    pending_dies: Vec<u32>,
    /// Reused buffers: a finished command's other transactions, and those packing picks.
    finish_scratch: Vec<TxnId>,
    pick_scratch: Vec<TxnId>,
    /// `ftl.partial_writes = "read_modify_write"`, and the writes waiting for their old page's
    /// read, by that read.
    rmw: bool,
    /// `ftl.partial_writes = "update_read"`: such a write programs the whole page, and the old
    /// page's other sectors are read (queued just before it) without the write waiting for them.
    update_read: bool,
    /// Its update reads in flight: steps of their writes, not pieces of their requests.
    update_reads: rustc_hash::FxHashSet<TxnId>,
    rmw_waiting: rustc_hash::FxHashMap<TxnId, TxnId>,
    /// `device.write_ack = "data_in"`: host writes complete when their data-in ends.
    ack_at_data_in: bool,
    /// With `ack_at_data_in`: by transaction, host writes acknowledged at their data-in whose
    /// program has not ended.
    acked: Vec<bool>,
    /// `device.channel.data_out = "page"`: reads move whole pages.
    read_whole_pages: bool,
    /// The host interface (`host.link`).
    link: link::HostLink,
    /// The device queue marks writes for speed-aware placement (VIOS) and the drive's blocks
    /// differ in speed: `place_by_speed` has something to do.
    hil_places: bool,
    /// The device queue keeps track of idle units and hears of dies that may have become idle
    /// (`DeviceQueue::watches_dies`, `Simulator::die_may_idle`).
    hil_watches: bool,
    /// `ftl.read_conflict = "induced"` (`read_conflict`), and the host reads in flight that
    /// others waited behind when they started (kept for RR, which records a read at its end).
    read_conflict_induced: bool,
    induced_reads: rustc_hash::FxHashSet<TxnId>,
    /// What speed-aware placement caches between writes (`placement`).
    speed: placement::SpeedCache,
    /// Pages may move to another plane than their old copy's (dynamic allocation, wear-leveling
    /// migrations): `program_across_planes`.
    cross_plane: bool,
    /// Planes whose stalled writes may now be helped by GC, checked after the current start.
    gc_recheck: Vec<u32>,
    /// Planes with writes stalled that neither GC nor relocation could help yet.
    stuck: Vec<u32>,
    /// How an erase returns its plane's stalled writes to the queue (`stall`).
    requeue: stall::LazyRequeue,
    /// A die takes a transaction released for it at once when it may: not when the chip is the
    /// unit (`device.advanced.multi_die`), the channel decides (`arbiter`, `turns`) or the clock
    /// may be set back (`admission`: the die's time may not have come).
    direct_start: bool,
    /// The channel, not first come first served, decides who gets the bus (`arbiter`, `turns`).
    bus_ruled: bool,
    /// What `backend::start_unit` starts.
    unit: Unit,
    /// `tsu.read_priority = "chip"` and `tsu.write_order = "die_number"` (`backend::chip_freed`).
    chip_reads_first: bool,
    dies_by_number: bool,
    /// SSDSim's channel arbitration (`device.channel.arbitration = "ssdsim"`), when on.
    arbiter: arbiter::Arbiter,
    /// MQSim's channel arbitration (`device.channel.arbitration = "mqsim"`), when on.
    turns: turns::Turns,
    /// SSDSim's admission cap (`host.queue_length`), when set.
    admission: admission::Admission,
    /// The controller's DRAM data cache (`cache.*`), when on.
    cache: Option<cache::Cache>,
    /// The cached mapping table (`ftl.mapping_cache.*`), when the whole table is not in DRAM.
    mapping: Option<mapping::Mapping>,
}

impl Simulator {
    /// Build the drive, precondition it, and open the workload. Fast even for large drives: FTL
    /// tables are allocated lazily.
    pub fn new(s: &Settings, workload: Box<dyn Workload>) -> Result<Self, SimError> {
        let layout = Layout::new(&s.geometry);
        let mut ftl = Ftl::new(layout, s.logical_pages(), s.gc_floor_blocks());
        let grouping = ftl::grouping::build(s);
        if let Some(g) = &grouping {
            ftl.open_rules = g.open_rules();
            // Wear leveling's stream opens its most erased block whatever the grouping policy says.
            ftl.open_rules[ftl::STREAM_WEAR as usize] = ftl::OpenRule::MostWorn;
        }
        let mut alloc = ftl::alloc::build(s, layout);
        let mut gc = ftl::gc::build(s);
        ftl::precondition::precondition(&mut ftl, &s.ftl.precondition, s.seed, &mut *alloc, gc.as_mut())
            .map_err(SimError::Precondition)?;
        let free_min = ftl.min_free_blocks();
        let flash = Flash::new(s, layout, &ftl);
        let hil = hil::build(s, layout);
        let program_speed = ftl::speed::build(s, layout.chips());
        let idle_task = ftl::idle::build(s, layout.chips());
        let tsu = tsu::build(s, layout);
        let hil_places = hil.places_writes() && s.device_model.variation.is_some() && s.device_model.host_mode == crate::nand::latency::ProgramMode::Native;
        let mut sim = Simulator {
            layout,
            queue_depth: s.queue_depth,
            page_size: s.geometry.page_size as u64,
            logical_pages: s.logical_pages(),
            skip_unmapped: s.ftl.unmapped_reads_skip,
            map_unmapped: s.ftl.unmapped_reads_map,
            copyback: s.ftl.gc_copyback,
            warmup: s.workload.warmup,
            now: 0,
            events: EventQueue::new(),
            ftl,
            alloc,
            gc,
            speed_fixed: program_speed.fixed(),
            program_speed,
            chip_gen: if idle_task.is_some() { vec![0; layout.chips() as usize] } else { Vec::new() },
            reprograms: if idle_task.is_some() {
                // (A scheduler that pauses programs serves only the reads of its own pauses.)
                let suspend = s.ftl.rr_preempt && s.resolved.bool("device.suspend.program") && !tsu.pauses_programs();
                idle::Reprograms::new(s.ftl.rr_preempt, suspend, layout.chips(), layout.dies())
            } else {
                idle::Reprograms::default()
            },
            idle_task,
            idle_threshold: s.ftl.idle_threshold_ns,
            host: host::build(s),
            hil,
            tsu_observes: tsu.observes(),
            tsu_pauses: tsu.pauses_programs(),
            tsu_counts: tsu.counts_per_die(),
            #[cfg(test)]
            queue_always: false,
            erase_limit: s.resolved.int("device.erase_limit") as u32,
            wear: wear::Wear::new(ftl::wear::build(s, layout), grouping, layout.planes())
                .with_collect_place(if s.resolved.str("ftl.wear_leveling_moves") == "worn" { Placement::WearLevel } else { Placement::Static }),
            first_failure: None,
            tsu,
            pause_scratch: Vec::new(),
            flash,
            txns: TxnSlab::default(),
            reqs: Slab::default(),
            stalled: vec![std::collections::VecDeque::new(); layout.planes() as usize],
            gc_ahead: vec![gc::MovesAhead::default(); layout.planes() as usize],
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
            request_sink: None,
            interval_file: None,
            intervals_closed: 0,
            max_intervals: s.stats_max_intervals,
            full_check: false,
            batching: false,
            pending_dies: Vec::new(),
            finish_scratch: Vec::new(),
            pick_scratch: Vec::new(),
            link: link::HostLink::new(s),
            ack_at_data_in: s.resolved.str("device.write_ack") == "data_in",
            acked: Vec::new(),
            read_whole_pages: s.resolved.str("device.channel.data_out") == "page",
            rmw: s.resolved.str("ftl.partial_writes") == "read_modify_write",
            update_read: s.resolved.str("ftl.partial_writes") == "update_read",
            update_reads: rustc_hash::FxHashSet::default(),
            rmw_waiting: rustc_hash::FxHashMap::default(),
            hil_places,
            hil_watches: false,
            read_conflict_induced: s.ftl.read_conflict_induced,
            induced_reads: Default::default(),
            speed: placement::SpeedCache::default(),
            cross_plane: false,
            gc_recheck: Vec::new(),
            stuck: Vec::new(),
            requeue: stall::LazyRequeue::default(),
            arbiter: arbiter::Arbiter::new(s, layout.channels),
            turns: turns::Turns::new(s, layout.channels),
            admission: admission::Admission::new(s),
            direct_start: false,
            bus_ruled: false,
            unit: Unit::Die,
            chip_reads_first: s.resolved.str("tsu.read_priority") == "chip",
            dies_by_number: s.resolved.str("tsu.write_order") == "die_number",
            cache: cache::Cache::new(&s.cache, s.geometry.page_size as u64, layout.planes() as u64),
            mapping: mapping::Mapping::new(s, s.logical_pages()),
        };
        sim.write_translation_pages().map_err(SimError::Precondition)?;
        if sim.hil_places && sim.wear.grouping.is_none() && s.resolved.str("hil.vios.blocks") == "separate" {
            // VIOS's fast writes get blocks of their own, opened fastest-first among every free
            // block of the plane (`sim::placement`).
            sim.wear.fast_stream = true;
            sim.ftl.open_rules[crate::ftl::STREAM_HOT as usize] = crate::ftl::OpenRule::Fastest;
            let lat = &sim.flash.latency;
            sim.ftl.set_speed_keys(|b| lat.detected_step(b).unwrap_or(0));
        }
        sim.hil_watches = sim.hil.watches_dies();
        sim.direct_start = !sim.flash.adv.multi_die && !sim.arbiter.on && !sim.turns.on && !sim.admission.on();
        sim.flash.bus.page_outs = sim.turns.on;
        sim.bus_ruled = sim.arbiter.on || sim.turns.on;
        sim.wear.plain_host = sim.wear.grouping.is_none() && !sim.wear.fast_stream && sim.mapping.is_none();
        sim.unit = if sim.turns.on {
            Unit::Turns
        } else if sim.flash.adv.multi_die {
            Unit::Chip
        } else {
            Unit::Die
        };
        sim.cross_plane = sim.alloc.relocates() || sim.wear.leveler.as_ref().is_some_and(|w| w.wants_reads());
        if sim.hil_places {
            sim.speed = placement::SpeedCache::new(s, &sim.ftl);
        }
        sim.requeue = stall::LazyRequeue::new(&sim, s);
        // Blocks aged to the limit by preconditioning failed before the run.
        if sim.erase_limit > 0 {
            sim.wear.start_counts = sim.ftl.erase_counts();
            if sim.wear.start_counts.iter().any(|&e| e >= sim.erase_limit) {
                sim.first_failure = Some(0);
            }
        }
        Ok(sim)
    }

    /// Hand one row per measured request to `sink` as it completes (the per-request log, kept in
    /// memory or streamed to disk).
    /// Stream the interval windows to `file` as they close.
    pub fn with_interval_file(mut self, file: Option<IntervalFile>) -> Self {
        self.interval_file = file;
        self
    }

    pub fn with_request_sink(mut self, sink: Option<Box<dyn RequestSink>>) -> Self {
        self.request_sink = sink;
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
            if let Ev::ChipIdle(chip, gen) = e.kind {
                // A turn with nothing to do is dropped before the clock moves: it must not make
                // the run longer than the same run without an idle task.
                if !self.idle_turn_due(chip, gen) {
                    continue;
                }
            }
            self.now = e.time;
            if self.intervals.enabled() {
                while self.now >= self.intervals.start + self.intervals.width {
                    self.close_interval()?;
                }
            }
            match e.kind {
                Ev::Arrival => {
                    let r = self.next_arrival.take().expect("an arrival event has a request");
                    self.arrive(r);
                    self.fetch_next_arrival()?;
                }
                Ev::JobArrival(slot) => {
                    let r = *self.job_arrivals.get(slot);
                    self.job_arrivals.remove(slot);
                    self.arrive(r);
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
                Ev::ServeChannel(ch) => self.on_serve_channel(ch),
                Ev::Admit => self.admit_held(),
                Ev::DieDone(d, epoch) => {
                    if self.flash.dies[d as usize].epoch() == epoch {
                        self.on_die_done(d);
                    }
                }
                Ev::SuspendDone(d, epoch) => {
                    if self.flash.dies[d as usize].epoch() == epoch {
                        self.on_suspended(d);
                    }
                }
                Ev::ReadOutDone(d) => {
                    // (With one page a transfer, each page's operation is done when it is out.)
                    if self.flash.bus.page_outs && !self.flash.dies[d as usize].group().is_empty() {
                        self.page_out_done(d);
                    } else {
                        self.finish_op(d);
                    }
                }
                Ev::EccDone(t) => self.complete_host_txn(t),
                Ev::LinkHop(id) => self.link_hop(id),
                Ev::DataInDone(t) => self.ack_write(t),
                Ev::ChipIdle(chip, _) => self.on_chip_idle(chip),
                Ev::CacheDram(job) => self.on_cache_dram(job),
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
                if let Some(sink) = self.request_sink.as_deref_mut() {
                    sink.check()?;
                }
                if let Some(f) = self.interval_file.as_mut() {
                    f.check()?;
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
                .map(|(p, v)| {
                    let first = self.layout.first_block_of_plane(p as u32);
                    let blocks = first..first + self.layout.blocks_per_plane;
                    let full = blocks.clone().filter(|&b| self.ftl.block_state(b) == ftl::BlockState::Full).count();
                    let valid: u64 = blocks.map(|b| self.ftl.valid_count(b) as u64).sum();
                    let ps = &self.ftl.planes[p];
                    let gc = if ps.gc_victim == crate::nand::NONE { "no GC under way".to_string() } else { format!("GC of block {} waiting for {} moves", ps.gc_victim, ps.gc_pending) };
                    format!(
                        "plane {p} has {} writes waiting for a free page and no block GC can reclaim ({} free blocks, {full} full, {valid} valid pages; {gc})",
                        v.len(),
                        self.ftl.free_blocks(p as u32)
                    )
                })
                .collect();
            return Err(SimError::Stalled {
                time_ns: self.now,
                outstanding: self.outstanding as u64 + self.host.len() as u64,
                why: if stalled.is_empty() { "no event left to run".into() } else { stalled.join("; ") },
            });
        }
        if self.intervals.enabled() && (self.intervals.start < self.now || self.intervals_closed == 0) {
            self.close_interval()?;
        }
        hook(&Progress { fraction: 1.0, sim_time_ns: self.now, requests_done: self.completed, events: self.events.pushed() });
        Ok(self.finish())
    }

    fn finish(mut self) -> RunOutcome {
        for d in [&mut self.read, &mut self.write, &mut self.trim] {
            d.settle();
        }
        let c = self.device_counters();
        let start = self.measure_start.unwrap_or(0);
        let (erase_counts, invariants_ok, plane_valid_end) = if self.full_check {
            (self.ftl.erase_counts(), self.ftl.check_invariants(), self.ftl.plane_valid_range())
        } else {
            self.ftl.erase_counts_and_check()
        };
        #[cfg(debug_assertions)]
        self.check_placement_counts();
        let invariants_ok = invariants_ok
            .and_then(|()| self.cache.as_ref().map_or(Ok(()), |c| c.check_drained()))
            .and_then(|()| self.mapping.as_ref().map_or(Ok(()), |m| m.check_drained()));
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
            channel_busy_ns: self.flash.channels.iter().zip(&self.chan_snapshot).map(|(c, s)| c.busy_ns() - s).collect(),
            die_busy_ns: self.flash.dies.iter().zip(&self.die_snapshot).map(|(d, s)| d.busy_ns() - s).collect(),
            erase_counts,
            free_blocks_min: self.free_min,
            free_blocks_end: self.ftl.total_free_blocks(),
            plane_valid_end,
            stalled_writes_kept_aside: self.requeue.kept_aside,
            stalled_writes_put_back: self.requeue.put_back,
            stalled_writes_joined: (self.requeue.joined, self.requeue.reinserted),
            mapped_pages: self.ftl.mapped_pages(),
            logical_pages: self.logical_pages,
            ftl_memory_bytes: self.ftl.memory_bytes(),
            workload: self.workload.describe(),
            intervals: self.intervals.lines,
            request_sink: self.request_sink.take(),
            interval_file: self.interval_file.take(),
            invariants_ok,
            reliability: self.flash.latency.report(),
            idle: self.idle_task.as_ref().map(|t| (t.name(), t.report())),
            tsu: self.tsu.report(),
            admission: self.admission.report(),
            erase_limit: self.erase_limit,
            first_failure_ns: self.first_failure,
            start_erase_counts: std::mem::take(&mut self.wear.start_counts),
            wear: self.wear.leveler.as_ref().map(|w| {
                let open = (0..self.layout.planes()).filter(|&p| self.ftl.migration_block(p).is_some()).count();
                let parked: u32 = (0..self.layout.planes()).map(|p| self.ftl.parked_blocks(p)).sum();
                let mut v = serde_json::json!({"policy": w.name(), "table_bytes": w.memory_bytes(), "migration_blocks_open": open, "migration_blocks_parked": parked});
                if let (Some(m), serde_json::Value::Object(extra)) = (v.as_object_mut(), w.report()) {
                    m.extend(extra);
                }
                v
            }),
            cache: self.cache.as_ref().map(|c| c.report()),
            mapping: self.mapping.as_ref().map(|m| m.report()),
            grouping_wall_ns: self.wear.grouping.as_ref().and_then(|g| g.wall_ns()),
            grouping: self.wear.grouping.as_ref().map(|g| {
                let mut v = g.report();
                v["table_bytes"] = g.memory_bytes().into();
                v
            }),
        }
    }
}
