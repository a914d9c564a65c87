//! The second layer: validated settings, with integers in nanoseconds and bytes and every default
//! applied. The engine reads only this.

use super::error::{ConfigError, ConfigErrors};
use super::keys;
use super::options::Options;
pub use super::resolved::{Resolved, ResolvedMap};

#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
}

impl Geometry {
    pub fn chips(&self) -> u32 { self.channels * self.chips_per_channel }
    pub fn dies(&self) -> u32 { self.chips() * self.dies_per_chip }
    pub fn planes(&self) -> u32 { self.dies() * self.planes_per_die }
    pub fn blocks(&self) -> u64 { self.planes() as u64 * self.blocks_per_plane as u64 }
    pub fn pages(&self) -> u64 { self.blocks() * self.pages_per_block as u64 }
    pub fn pages_per_plane(&self) -> u64 { self.blocks_per_plane as u64 * self.pages_per_block as u64 }
    pub fn capacity_bytes(&self) -> u64 { self.pages() * self.page_size as u64 }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Timing {
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// Command and address bus time of a read, a program and an erase.
    pub command_ns: [u64; 3],
    /// Added to each array read (the ready/busy signal's delay).
    pub read_ready_ns: u64,
    pub ecc_ns: u64,
    pub channel_bytes_per_transfer: u32,
    pub channel_rate_per_s: u64,
    /// Bus cycles last a whole number of ns (`device.channel.cycle = "whole_ns"`).
    pub channel_whole_ns: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Precondition {
    pub fill: f64,
    pub random_order: bool,
    pub overwrites: f64,
    pub pe_cycles: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FtlSettings {
    pub overprovisioning: f64,
    pub allocation_scheme: String,
    /// Levels fastest-varying first, as indices 0=C 1=W 2=D 3=P.
    pub allocation_order: [u8; 4],
    pub allocation_order_name: String,
    pub gc_policy: String,
    /// `ftl.program_speed`: the program-speed policy (`ftl::speed`).
    pub program_speed: String,
    /// `ftl.idle_task` (`ftl::idle`), its record bound per chip, and when a chip counts as idle (ns).
    pub idle_task: String,
    /// `ftl.wr.scope = "device"`: WR looks at the whole device's queue, not the chip's.
    pub wr_device_scope: bool,
    /// `ftl.read_conflict = "induced"`: a read conflicts when others wait behind it, not when it waited.
    pub read_conflict_induced: bool,
    pub rr_queue: u32,
    /// `ftl.rr.preempt`.
    pub rr_preempt: bool,
    pub idle_threshold_ns: u64,
    pub gc_threshold: f64,
    pub gc_copyback: bool,
    pub unmapped_reads_skip: bool,
    /// `ftl.unmapped_reads = "map"`.
    pub unmapped_reads_map: bool,
    pub precondition: Precondition,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TraceFormat { Auto, Msr, Spc, Blkparse, Disksim, Mqsim, Fio }

impl TraceFormat {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "auto" => Self::Auto,
            "msr" => Self::Msr,
            "spc" => Self::Spc,
            "blkparse" => Self::Blkparse,
            "disksim" => Self::Disksim,
            "mqsim" => Self::Mqsim,
            "fio" => Self::Fio,
            _ => return None,
        })
    }
    pub fn name(&self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Msr => "msr",
            Self::Spc => "spc",
            Self::Blkparse => "blkparse",
            Self::Disksim => "disksim",
            Self::Mqsim => "mqsim",
            Self::Fio => "fio",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TraceSettings {
    pub path: String,
    pub format: TraceFormat,
    pub device: Option<u64>,
    pub blkparse_action: char,
}

#[derive(Debug, Clone, PartialEq)]
pub struct JobsSettings {
    pub numjobs: u32,
    pub iodepth: u32,
    pub random: bool,
    /// Probability that a request is a read (1 for read/randread, 0 for write/randwrite).
    pub read_fraction: f64,
    pub bs: u64,
    pub size: u64,
    pub offset_increment: u64,
    pub thinktime_ns: u64,
    pub number_ios: u64,
    pub runtime_ns: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SyntheticSettings {
    pub requests: u64,
    pub read_ratio: f64,
    pub arrival: String,
    pub interarrival_ns: u64,
    pub on_ns: u64,
    pub off_ns: u64,
    pub address: String,
    pub range_bytes: u64,
    pub align_bytes: u64,
    pub zipf_theta: f64,
    pub hot_fraction: f64,
    pub hot_traffic: f64,
    /// `hot_split = "separate"`: writes' hot part is at the end of the range.
    pub hot_split_separate: bool,
    /// Bytes reads address (0: `range_bytes`).
    pub read_range_bytes: u64,
    /// Recurring extents: share of writes, extents alive, bytes each, requests each lives.
    pub recurring_share: f64,
    pub recurring_sets: u64,
    pub recurring_size: u64,
    pub recurring_lifetime: u64,
    pub sequential_run: u64,
    pub size_fixed: bool,
    pub size_lognormal: bool,
    pub size_min: u64,
    pub size_max: u64,
    pub read_size: (u64, u64),
    pub write_size: (u64, u64),
    pub profile: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadSettings {
    pub kind: String,
    pub trace: TraceSettings,
    pub synthetic: SyntheticSettings,
    pub jobs: JobsSettings,
    pub time_scale: f64,
    pub max_requests: u64,
    pub skip: u64,
    pub warmup: u64,
    /// `workload.max_request_size`: the largest request accepted (bytes).
    pub max_request_bytes: u64,
    pub fold_modulo: bool,
    /// Buffered closed-loop jobs: `workload.jobs.buffered`, `fsync` and `workload.page_cache.*`.
    pub page_cache: super::page_cache::PageCacheSettings,
    /// `workload.kind = "sysbench"`: `workload.sysbench.*`.
    pub sysbench: super::sysbench::SysbenchSettings,
}

/// Everything a run needs, validated.
#[derive(Debug, Clone)]
pub struct Settings {
    pub name: String,
    pub seed: u64,
    pub geometry: Geometry,
    pub timing: Timing,
    /// Program steps, process variation and ECC limits (`device.ispp/variation/ecc.*`).
    pub device_model: super::device_model::DeviceModel,
    pub ftl: FtlSettings,
    /// The controller's DRAM: data cache (`cache.*`) and cached mapping table (`ftl.mapping_cache.*`).
    pub cache: super::cache::CacheSettings,
    pub mapping_cache: super::cache::MappingCacheSettings,
    pub host_scheduler: String,
    pub queue_depth: u32,
    pub hil_scheduler: String,
    pub tsu_scheduler: String,
    pub workload: WorkloadSettings,
    pub stats_interval_ns: u64,
    /// `stats.max_intervals`: the most interval windows a run may make.
    pub stats_max_intervals: u64,
    /// The resolved key/value map this was built from (for `config show` and the JSON output).
    pub resolved: ResolvedMap,
}

impl Settings {
    pub fn from_options(options: &Options) -> Result<Settings, ConfigErrors> {
        let with_profile = super::compat::apply(options)?;
        let options = &with_profile;
        let r = match ResolvedMap::resolve(options) {
            Ok(r) => r,
            Err(e) => {
                let mut all = options.errors.clone();
                all.0.extend(e.0);
                return Err(all);
            }
        };
        // Problems found while reading the options (a --set that could not be read, an unknown
        // key) are reported with those the values have: every problem at once.
        let mut errors = options.errors.clone();
        let mut err = |path: &str, msg: String| errors.push(ConfigError::new(path, r.origin(path), msg));

        let geometry = Geometry {
            channels: r.int("device.geometry.channels") as u32,
            chips_per_channel: r.int("device.geometry.chips_per_channel") as u32,
            dies_per_chip: r.int("device.geometry.dies_per_chip") as u32,
            planes_per_die: r.int("device.geometry.planes_per_die") as u32,
            blocks_per_plane: r.int("device.geometry.blocks_per_plane") as u32,
            pages_per_block: r.int("device.geometry.pages_per_block") as u32,
            page_size: r.bytes("device.geometry.page_size").min(u32::MAX as u64) as u32,
        };
        let ps = r.bytes("device.geometry.page_size");
        if ps == 0 || ps % 512 != 0 || ps > (1 << 20) {
            err("device.geometry.page_size", format!("must be a positive multiple of 512 bytes, at most 1MiB (got {ps})"));
        }
        // Physical page numbers are u32 throughout (half the memory of u64 on the hot path).
        let total_pages = geometry.channels as u128
            * geometry.chips_per_channel as u128
            * geometry.dies_per_chip as u128
            * geometry.planes_per_die as u128
            * geometry.blocks_per_plane as u128
            * geometry.pages_per_block as u128;
        if total_pages >= u32::MAX as u128 {
            err("device.geometry.blocks_per_plane", format!("the drive has {total_pages} pages; at most {} are supported (use larger pages or fewer blocks)", u32::MAX - 1));
        }
        let width = r.int("device.channel.width_bits");
        if width % 8 != 0 {
            err("device.channel.width_bits", format!("must be a multiple of 8 (got {width})"));
        }
        let rate = r.rate("device.channel.rate");
        if rate == 0 {
            err("device.channel.rate", "must be positive".into());
        }
        if r.str("device.channel.cycle") == "whole_ns" && rate > 1_000_000_000 {
            err("device.channel.cycle", format!("\"whole_ns\" needs a rate of at most 1000MT/s: a cycle of {rate} T/s truncates to 0 ns"));
        }
        let timing = Timing {
            read_ns: r.ns("device.timing.read"),
            program_ns: r.ns("device.timing.program"),
            erase_ns: r.ns("device.timing.erase"),
            command_ns: ["device.timing.command_read", "device.timing.command_program", "device.timing.command_erase"].map(|k| {
                // Per-operation keys fall back to the common one when the user did not set them.
                if r.origin(k) == "default" { r.ns("device.timing.command") } else { r.ns(k) }
            }),
            read_ready_ns: r.ns("device.timing.read_ready_delay"),
            channel_whole_ns: r.str("device.channel.cycle") == "whole_ns",
            ecc_ns: r.ns("device.timing.ecc"),
            channel_bytes_per_transfer: (width / 8).max(1) as u32,
            channel_rate_per_s: rate.max(1),
        };
        for p in ["device.timing.read", "device.timing.program", "device.timing.erase"] {
            if r.ns(p) == 0 {
                err(p, "must be positive".into());
            }
        }

        let device_model = super::device_model::DeviceModel::from_resolved(&r, &mut err);

        let order_name = r.str("ftl.allocation.order").to_string();
        let mut allocation_order = [0u8; 4];
        for (i, c) in order_name.chars().enumerate().take(4) {
            allocation_order[i] = match c { 'C' => 0, 'W' => 1, 'D' => 2, _ => 3 };
        }
        let op = r.float("ftl.overprovisioning");
        let gc_threshold = r.float("ftl.gc.threshold");
        let fill = r.float("ftl.precondition.fill");
        let overwrites = r.float("ftl.precondition.overwrites");
        if overwrites > 0.0 && fill == 0.0 {
            err("ftl.precondition.overwrites", "needs ftl.precondition.fill > 0: only filled pages are overwritten".into());
        }
        let ftl = FtlSettings {
            overprovisioning: op,
            allocation_scheme: r.str("ftl.allocation.scheme").to_string(),
            allocation_order,
            allocation_order_name: order_name,
            gc_policy: r.str("ftl.gc.policy").to_string(),
            program_speed: r.str("ftl.program_speed").to_string(),
            idle_task: r.str("ftl.idle_task").to_string(),
            wr_device_scope: r.str("ftl.wr.scope") == "device",
            read_conflict_induced: r.str("ftl.read_conflict") == "induced",
            rr_queue: r.int("ftl.rr.queue") as u32,
            rr_preempt: r.bool("ftl.rr.preempt"),
            idle_threshold_ns: r.ns("device.idle.threshold"),
            gc_threshold,
            gc_copyback: r.bool("ftl.gc.copyback"),
            unmapped_reads_skip: r.str("ftl.unmapped_reads") == "skip",
            unmapped_reads_map: r.str("ftl.unmapped_reads") == "map",
            precondition: Precondition {
                fill,
                random_order: r.str("ftl.precondition.order") == "random",
                overwrites,
                pe_cycles: r.int("ftl.precondition.pe_cycles") as u32,
            },
        };
        // GC needs at least one spare block per plane beyond the logical data, or it cannot make
        // progress: check that over-provisioning leaves more than the GC floor.
        if total_pages < u32::MAX as u128 && ps > 0 {
            let bpp = geometry.blocks_per_plane as f64;
            let spare_blocks = bpp * op;
            let floor = gc_floor_blocks(gc_threshold, geometry.blocks_per_plane) as f64;
            if spare_blocks < floor + 1.0 {
                err(
                    "ftl.overprovisioning",
                    format!(
                        "leaves {spare_blocks:.1} spare blocks per plane, but GC needs more than its free-block floor of {floor} (ftl.gc.threshold); raise over-provisioning or lower the threshold"
                    ),
                );
            }
            // rbwl's waiting block sets hold blocks that neither GC nor the host can use until their
            // partner arrives: they must fit in the spare blocks above GC's floor and its own block.
            let set_blocks = r.int("ftl.rbwl.set_blocks") as f64;
            let room = set_block_room(geometry.blocks_per_plane, op, gc_threshold) as f64;
            if r.str("ftl.wear_leveling") == "rbwl" && set_blocks > room {
                err(
                    "ftl.rbwl.set_blocks",
                    format!(
                        "{set_blocks} blocks a plane for waiting block sets, but over-provisioning leaves {spare_blocks:.1} spare blocks a plane, {floor} of them GC's free-block floor and one its own block: at most {room} (or raise over-provisioning)"
                    ),
                );
            }
            // Every address is folded modulo the logical pages: there must be at least one.
            if logical_pages_of(&geometry, op) == 0 {
                err(
                    "ftl.overprovisioning",
                    format!(
                        "leaves no logical page: floor({} physical pages x (1 - {op})) rounded down to a multiple of {} planes is 0; lower over-provisioning or add pages",
                        geometry.pages(),
                        geometry.planes()
                    ),
                );
            }
        }

        if r.str("ftl.allocation.scheme") == "region" && total_pages < u32::MAX as u128 && ps > 0 {
            if let Some(msg) = uneven_regions(&geometry, logical_pages_of(&geometry, op), r.bytes("ftl.allocation.region_size"), gc_threshold) {
                err("ftl.allocation.region_size", msg);
            }
        }

        let device = r.int("workload.trace.device");
        let synthetic = SyntheticSettings {
            requests: r.int("workload.synthetic.requests") as u64,
            read_ratio: r.float("workload.synthetic.read_ratio"),
            arrival: r.str("workload.synthetic.arrival").to_string(),
            interarrival_ns: r.ns("workload.synthetic.interarrival"),
            on_ns: r.ns("workload.synthetic.on_time"),
            off_ns: r.ns("workload.synthetic.off_time"),
            address: r.str("workload.synthetic.address").to_string(),
            range_bytes: r.bytes("workload.synthetic.range"),
            align_bytes: r.bytes("workload.synthetic.align"),
            zipf_theta: r.float("workload.synthetic.zipf_theta"),
            hot_fraction: r.float("workload.synthetic.hot_fraction"),
            hot_traffic: r.float("workload.synthetic.hot_traffic"),
            hot_split_separate: r.str("workload.synthetic.hot_split") == "separate",
            read_range_bytes: r.bytes("workload.synthetic.read_range"),
            recurring_share: r.float("workload.synthetic.recurring.share"),
            recurring_sets: r.int("workload.synthetic.recurring.sets") as u64,
            recurring_size: r.bytes("workload.synthetic.recurring.size"),
            recurring_lifetime: r.int("workload.synthetic.recurring.lifetime") as u64,
            sequential_run: r.int("workload.synthetic.sequential_run") as u64,
            size_fixed: r.str("workload.synthetic.size_dist") == "fixed",
            size_lognormal: r.str("workload.synthetic.size_dist") == "lognormal",
            size_min: r.bytes("workload.synthetic.size_min"),
            size_max: r.bytes("workload.synthetic.size_max"),
            read_size: (r.bytes("workload.synthetic.read_size_mean"), r.bytes("workload.synthetic.read_size_sd")),
            write_size: (r.bytes("workload.synthetic.write_size_mean"), r.bytes("workload.synthetic.write_size_sd")),
            profile: r.str("workload.synthetic.profile").to_string(),
        };
        if synthetic.arrival == "onoff" && synthetic.on_ns == 0 {
            err("workload.synthetic.on_time", "must be positive with arrival = \"onoff\": requests arrive only during the on periods".into());
        }
        let max_request = r.bytes("workload.max_request_size");
        if max_request == 0 || max_request > 1 << 40 {
            err("workload.max_request_size", format!("must be between 1 byte and 1TiB (got {max_request})"));
        }
        let warmup = r.int("workload.warmup") as u64;
        if r.str("workload.kind") == "synthetic" && warmup > 0 && warmup >= synthetic.requests {
            err("workload.warmup", format!("leaves no request measured: the synthetic workload makes {} (workload.synthetic.requests)", synthetic.requests));
        }
        if r.ns("host.cfq.slice") == 0 {
            err("host.cfq.slice", "must be positive: a queue's turn of 0 ns would end before it dispatched anything".into());
        }
        if synthetic.size_lognormal {
            for (p, v) in [("workload.synthetic.read_size_mean", synthetic.read_size.0), ("workload.synthetic.write_size_mean", synthetic.write_size.0)] {
                if v == 0 {
                    err(p, "must be positive for lognormal sizes".into());
                }
            }
        }
        if r.bytes("host.pass.region_size") == 0 {
            err("host.pass.region_size", "must be positive".into());
        }
        // Chip-level multi-die commands look at what each die would run next, and hold a chip
        // as a whole: schedulers that can say so, and no suspension (a suspended die would lock
        // its chip's other dies out while it serves reads).
        if r.bool("device.advanced.multi_die") && !r.bool("device.advanced.interleave") {
            let tsu = r.str("tsu.scheduler");
            if !["fcfs", "o3"].contains(&tsu) {
                err("device.advanced.multi_die", format!("needs tsu.scheduler = \"fcfs\" or \"o3\" (\"{tsu}\" cannot say ahead what a die would run next)"));
            }
            for k in ["device.suspend.program", "device.suspend.erase"] {
                if r.bool(k) {
                    err("device.advanced.multi_die", format!("cannot be combined with {k} = true yet"));
                }
            }
        }
        // Slacker's write pausing pauses programs: the NAND must be able to.
        let tsu = r.str("tsu.scheduler");
        if super::mechanisms::Mechanisms::named(tsu).wp {
            if !r.bool("device.suspend.program") {
                err("tsu.scheduler", format!("\"{tsu}\" pauses programs for reads (write pausing): set device.suspend.program = true"));
            }
            if r.bool("tsu.suspend_for_reads") {
                err("tsu.suspend_for_reads", format!("cannot be combined with tsu.scheduler = \"{tsu}\", whose write pausing decides by slack when a program pauses for a read"));
            }
        }
        super::channel::check_arbitration(&r, &tsu, &mut err);
        // Both order the dies of a chip that takes one command at a time (`sim::chip::chip_freed`).
        for (key, ours) in [("tsu.read_priority", "die"), ("tsu.write_order", "turns")] {
            let v = r.str(key);
            if v != ours && (r.bool("device.advanced.interleave") || r.bool("device.advanced.multi_die")) {
                err(key, format!("\"{v}\" orders the dies of a chip that takes one command at a time: it needs device.advanced.interleave = false and multi_die = false (or {key} = \"{ours}\")"));
            }
        }
        if r.str("tsu.read_priority") == "chip" && !matches!(tsu, "fcfs" | "o3") {
            err("tsu.read_priority", format!("\"chip\" compares what each die would run next, which tsu.scheduler = \"{tsu}\" cannot tell ahead: use fcfs or o3"));
        }
        let rw = r.str("workload.jobs.rw");
        let mix = r.int("workload.jobs.rwmixread") as f64 / 100.0;
        let jobs = JobsSettings {
            numjobs: r.int("workload.jobs.numjobs") as u32,
            iodepth: r.int("workload.jobs.iodepth") as u32,
            random: rw.starts_with("rand"),
            read_fraction: match rw {
                "read" | "randread" => 1.0,
                "write" | "randwrite" => 0.0,
                _ => mix,
            },
            bs: r.bytes("workload.jobs.bs"),
            size: r.bytes("workload.jobs.size"),
            offset_increment: r.bytes("workload.jobs.offset_increment"),
            thinktime_ns: r.ns("workload.jobs.thinktime"),
            number_ios: r.int("workload.jobs.number_ios") as u64,
            runtime_ns: r.ns("workload.jobs.runtime"),
        };
        if jobs.bs == 0 || jobs.bs % 512 != 0 || jobs.bs > u32::MAX as u64 {
            err("workload.jobs.bs", format!("must be a positive multiple of 512 bytes below 4GiB (got {})", jobs.bs));
        }
        if synthetic.align_bytes == 0 || synthetic.align_bytes % 512 != 0 {
            err("workload.synthetic.align", format!("must be a positive multiple of 512 bytes (got {})", synthetic.align_bytes));
        }
        if r.int("ftl.pattern.mined_requests") > r.int("ftl.pattern.window") {
            err("ftl.pattern.mined_requests", format!("must be at most ftl.pattern.window ({} > {})", r.int("ftl.pattern.mined_requests"), r.int("ftl.pattern.window")));
        }
        if r.float("ftl.rbwl.less_share") >= r.float("ftl.rbwl.frequent_share") {
            err("ftl.rbwl.less_share", format!("must be below ftl.rbwl.frequent_share ({} >= {})", r.float("ftl.rbwl.less_share"), r.float("ftl.rbwl.frequent_share")));
        }
        if synthetic.read_range_bytes > 0 && !matches!(synthetic.address.as_str(), "uniform" | "zipf") {
            err("workload.synthetic.read_range", format!("applies to address = \"uniform\" or \"zipf\" only (address is {:?})", synthetic.address));
        }
        if synthetic.size_min == 0 {
            err("workload.synthetic.size_min", "must be positive".into());
        }
        if synthetic.size_max < synthetic.size_min {
            err("workload.synthetic.size_max", format!("must be at least size_min ({} < {})", synthetic.size_max, synthetic.size_min));
        }
        if synthetic.size_max > u32::MAX as u64 {
            err("workload.synthetic.size_max", "must be below 4GiB".into());
        }
        let kind = r.str("workload.kind").to_string();
        let logical_bytes = if total_pages < u32::MAX as u128 && ps > 0 { logical_pages_of(&geometry, op) * ps } else { 0 };
        if kind == "jobs" && logical_bytes > 0 && jobs.bs > 0 && jobs.bs % 512 == 0 {
            // Job j addresses [j x offset_increment, j x offset_increment + region), region = size (or
            // the logical space) rounded down to bs: all of it must lie inside the logical space.
            let (bs, size, inc) = (jobs.bs, jobs.size, jobs.offset_increment);
            if bs > logical_bytes {
                err("workload.jobs.bs", format!("{bs} bytes exceed the drive's logical capacity of {logical_bytes} bytes"));
            } else if size > logical_bytes {
                err("workload.jobs.size", format!("{size} bytes exceed the drive's logical capacity of {logical_bytes} bytes"));
            } else if size > 0 && size < bs {
                err("workload.jobs.size", format!("must be 0 (the whole drive) or at least workload.jobs.bs ({size} < {bs})"));
            } else {
                let region = (if size == 0 { logical_bytes } else { size }) / bs * bs;
                let last = jobs.numjobs as u64 - 1;
                let end = last as u128 * inc as u128 + region as u128;
                if end > logical_bytes as u128 {
                    err(
                        "workload.jobs.offset_increment",
                        format!(
                            "job {last}'s area ends at byte {end} ({last} x offset_increment {inc} + size {region}{}), past the drive's logical capacity of {logical_bytes} bytes; lower workload.jobs.numjobs, workload.jobs.size or workload.jobs.offset_increment",
                            if size == 0 {
                                " for size = 0, the whole drive"
                            } else if size != region {
                                " after rounding down to bs"
                            } else {
                                ""
                            }
                        ),
                    );
                }
            }
        }
        let path = r.str("workload.trace.path").to_string();
        if kind == "trace" && path.is_empty() {
            err("workload.trace.path", "workload.kind is \"trace\" but no trace file is given".into());
        }
        if kind == "synthetic" && synthetic.arrival != "fixed" && synthetic.interarrival_ns == 0 {
            err("workload.synthetic.interarrival", "must be positive for random arrivals".into());
        }
        let workload = WorkloadSettings {
            kind,
            trace: TraceSettings {
                path,
                format: TraceFormat::parse(r.str("workload.trace.format")).unwrap_or(TraceFormat::Auto),
                device: if device < 0 { None } else { Some(device as u64) },
                blkparse_action: r.str("workload.trace.blkparse_action").chars().next().unwrap_or('Q'),
            },
            synthetic,
            jobs,
            time_scale: r.float("workload.time_scale"),
            max_requests: r.int("workload.max_requests") as u64,
            skip: r.int("workload.skip") as u64,
            warmup: r.int("workload.warmup") as u64,
            max_request_bytes: r.bytes("workload.max_request_size"),
            fold_modulo: r.str("workload.fold") == "modulo",
            page_cache: super::page_cache::PageCacheSettings::from_resolved(&r),
            sysbench: super::sysbench::SysbenchSettings::from_resolved(&r),
        };
        let settings = Settings {
            name: r.str("name").to_string(),
            seed: r.int("seed") as u64,
            geometry,
            timing,
            device_model,
            ftl,
            cache: super::cache::CacheSettings::from_resolved(&r),
            mapping_cache: super::cache::MappingCacheSettings::from_resolved(&r),
            host_scheduler: r.str("host.scheduler").to_string(),
            queue_depth: r.int("host.queue_depth") as u32,
            hil_scheduler: r.str("hil.scheduler").to_string(),
            tsu_scheduler: r.str("tsu.scheduler").to_string(),
            workload,
            stats_interval_ns: r.ns("stats.interval"),
            stats_max_intervals: r.int("stats.max_intervals") as u64,
            resolved: r.clone(),
        };
        super::page_cache::validate(&settings, &mut err);
        super::sysbench::validate(&settings, &mut err);
        super::cache::validate(&settings, &mut err);
        errors.into_result(settings)
    }

    /// Logical pages the host can address: physical pages less over-provisioning, rounded down to
    /// a multiple of the number of planes so static allocation gives every plane the same share.
    pub fn logical_pages(&self) -> u64 {
        logical_pages_of(&self.geometry, self.ftl.overprovisioning)
    }

    pub fn logical_bytes(&self) -> u64 {
        self.logical_pages() * self.geometry.page_size as u64
    }

    /// Free blocks per plane below which GC runs.
    pub fn gc_floor_blocks(&self) -> u32 {
        gc_floor_blocks(self.ftl.gc_threshold, self.geometry.blocks_per_plane)
    }

    /// `ftl.rbwl.set_blocks`, its default (0) resolved: 8, or the room there is when less.
    pub fn rbwl_set_blocks(&self) -> u32 {
        match self.resolved.int("ftl.rbwl.set_blocks") as u32 {
            0 => RBWL_SET_BLOCKS.min(set_block_room(self.geometry.blocks_per_plane, self.ftl.overprovisioning, self.ftl.gc_threshold)),
            n => n,
        }
    }
}

/// Blocks a plane may hold for rbwl's waiting block sets by default.
pub const RBWL_SET_BLOCKS: u32 = 8;

/// Most blocks a plane may hold for rbwl's waiting block sets: its spare blocks (blocks_per_plane
/// x overprovisioning) less GC's free-block floor and GC's own block, at least one.
pub fn set_block_room(blocks_per_plane: u32, overprovisioning: f64, gc_threshold: f64) -> u32 {
    let spare = blocks_per_plane as f64 * overprovisioning;
    ((spare - gc_floor_blocks(gc_threshold, blocks_per_plane) as f64 - 1.0).floor() as u32).max(1)
}

/// floor(physical pages x (1 - overprovisioning)), rounded down to a multiple of the planes.
fn logical_pages_of(g: &Geometry, overprovisioning: f64) -> u64 {
    let planes = g.planes() as u64;
    let l = (g.pages() as f64 * (1.0 - overprovisioning)).floor() as u64;
    (l / planes) * planes
}

/// Pages of one region of `region` allocation: `region_bytes` of them, or with 0 the logical
/// pages shared out over the chips (one region a chip). The allocator and the check use this one
/// rule.
pub fn region_pages(logical_pages: u64, chips: u64, page_size: u64, region_bytes: u64) -> u64 {
    if region_bytes == 0 { logical_pages.div_ceil(chips) } else { region_bytes / page_size }
}

/// Why `region` allocation with regions of `region_bytes` (0: one region a chip) cannot hold the
/// logical space, if it cannot. A region lives on one chip and stripes its pages over the chip's
/// dies and planes (`ftl::alloc::region`), so its pages must be a whole number of stripes, and the
/// chip that gets the most regions must fit them in its planes with GC's free-block floor left.
/// (Otherwise a plane fills with data GC cannot move anywhere, and the run stalls.)
fn uneven_regions(g: &Geometry, logical_pages: u64, region_bytes: u64, gc_threshold: f64) -> Option<String> {
    let stripe = g.dies_per_chip as u64 * g.planes_per_die as u64;
    let chips = g.channels as u64 * g.chips_per_channel as u64;
    let page = g.page_size as u64;
    let region = region_pages(logical_pages, chips, page, region_bytes);
    if region_bytes != 0 && (region_bytes % (page * stripe) != 0 || region == 0) {
        return Some(format!(
            "must be a positive multiple of {} bytes (a page on each of a chip's {stripe} planes), so that a region's pages fill its chip's planes evenly (got {region_bytes})",
            page * stripe
        ));
    }
    let regions = logical_pages.div_ceil(region);
    let fullest_plane = regions.div_ceil(chips) * region / stripe;
    let floor = gc_floor_blocks(gc_threshold, g.blocks_per_plane) as u64;
    let room = (g.blocks_per_plane as u64).saturating_sub(floor + 1) * g.pages_per_block as u64;
    (fullest_plane > room).then(|| {
        format!(
            "{regions} region(s) of {} bytes over {chips} chips put {fullest_plane} pages on the fullest plane, which holds {room} beside GC's free blocks; use regions that divide the logical capacity ({} bytes) into a multiple of {chips}, or 0 (one region a chip)",
            region * page,
            logical_pages * page
        )
    })
}

/// max(2, ceil(threshold x blocks_per_plane)): at least one block for GC's own writes plus one.
pub fn gc_floor_blocks(threshold: f64, blocks_per_plane: u32) -> u32 {
    ((threshold * blocks_per_plane as f64).ceil() as u32).max(2)
}

/// All key paths, for completion and suggestions.
pub fn key_paths() -> Vec<&'static str> {
    keys::KEYS.iter().map(|k| k.path).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_resolve() {
        let s = Settings::from_options(&Options::new()).unwrap();
        assert_eq!(s.geometry.channels, 8);
        assert_eq!(s.timing.program_ns, 600_000);
    }

    #[test]
    fn every_problem_at_once_with_paths() {
        let mut o = Options::new();
        o.merge_toml_str(
            "[device.geometry]\nchannels = 0\npage_size = \"1000B\"\n[device.timing]\nread = 50\n[ftl]\noverprovisioning = 2.0\n",
            "bad.toml",
            0,
        )
        .unwrap();
        let e = Settings::from_options(&o).unwrap_err();
        let s = e.to_string();
        assert!(s.contains("bad.toml: device.geometry.channels: must be at least 1 (got 0)"), "{s}");
        assert!(s.contains("device.timing.read"), "{s}");
        assert!(s.contains("ftl.overprovisioning"), "{s}");
        assert!(e.0.len() >= 3, "{s}");
    }

    /// What `config show` prints reads back to the same configuration: every preset, and a sample
    /// of overrides (a string with a NUL and a newline, a float, sizes and durations).
    #[test]
    fn config_show_reads_back_to_the_same_configuration() {
        let values = |s: &Settings| -> Vec<(String, String)> {
            keys::KEYS.iter().map(|k| (k.path.to_string(), format!("{:?}", s.resolved.values[k.path].0))).collect()
        };
        let mut cases: Vec<Options> = super::super::presets::NAMES.iter().map(|n| Options::from_preset(n).unwrap()).collect();
        let mut o = Options::from_preset("tiny").unwrap();
        for set in ["name=\"a\\u0000b\\nc \\\"q\\\" #x\"", "ftl.gc.threshold=0.0625", "device.timing.program=\"1.5us\"", "host.max_merge=\"3KiB\"", "workload.synthetic.zipf_theta=0.99"] {
            o.set(set).unwrap();
        }
        cases.push(o);
        // SSDSim's buffer refuses the page cache's keys set to other values, not their defaults
        // spelled out.
        let mut o = Options::from_preset("tiny").unwrap();
        o.set("cache.mode=\"ssdsim\"").unwrap();
        cases.push(o);
        for o in cases {
            let s = Settings::from_options(&o).unwrap();
            let text = s.resolved.to_toml();
            let mut back = Options::new();
            back.merge_toml_str(&text, "shown.toml", 0).unwrap_or_else(|e| panic!("{e}\n{text}"));
            let again = Settings::from_options(&back).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(values(&s), values(&again), "{text}");
        }
    }

    /// Region sizes that would fill one plane with data GC cannot move (and stall the run) are
    /// refused when the configuration is read: 1 byte (not a whole stripe of pages), 1 TiB (every
    /// region on one chip); the default (one region a chip) and sizes that divide the drive pass.
    #[test]
    fn region_sizes_that_cannot_hold_the_data_are_refused() {
        let check = |size: &str| {
            let mut o = Options::from_preset("tiny").unwrap();
            o.set("ftl.allocation.scheme=\"region\"").unwrap();
            o.set(&format!("ftl.allocation.region_size=\"{size}\"")).unwrap();
            Settings::from_options(&o).err().map(|e| e.to_string())
        };
        for bad in ["1B", "1TiB", "4KiB"] {
            let e = check(bad).unwrap_or_else(|| panic!("region_size {bad} accepted"));
            assert!(e.contains("ftl.allocation.region_size"), "{bad}: {e}");
        }
        assert_eq!(check("0B"), None);
        let s = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap();
        let per_chip = s.logical_pages() / 4 * 4096;
        assert_eq!(check(&format!("{}B", per_chip / 2)), None, "two regions a chip");
    }

    /// A --set that cannot be read does not hide the other problems; a quoted value that is not
    /// valid TOML (a raw line break inside the quotes) is an error, not literal text.
    #[test]
    fn a_set_that_cannot_be_read_is_reported_with_every_other_problem() {
        let sets: Vec<String> =
            ["name=\"x\ny\"", "device.geometry.channels=0", "no_equals_sign", "device.geometry.chanels=4"].iter().map(|s| s.to_string()).collect();
        let e = crate::config::load(Some("tiny"), None, &sets).err().expect("accepted").to_string();
        for part in ["name: \"\\\"x\\ny\\\"\" is not a valid TOML value", "device.geometry.channels: must be at least 1", "no_equals_sign: expected PATH=VALUE", "device.geometry.chanels"] {
            assert!(e.contains(part), "missing {part:?} in:\n{e}");
        }
        // An escaped line break is a line break.
        let s = crate::config::load(Some("tiny"), None, &["name=\"x\\ny\"".to_string()]).unwrap();
        assert_eq!(s.name, "x\ny");
    }

    #[test]
    fn enum_typo_suggests() {
        let mut o = Options::new();
        o.set("ftl.allocation.order=CWPP").unwrap();
        let s = Settings::from_options(&o).unwrap_err().to_string();
        assert!(s.contains("did you mean"), "{s}");
    }

    /// 8 planes of 4 one-page blocks with 90% over-provisioning: 3.2 logical pages, rounded down to
    /// a multiple of 8 planes is 0. The GC floor (2 blocks) is met, so only the new check catches it.
    #[test]
    fn no_logical_page_left_is_a_config_error() {
        let mut o = Options::from_preset("tiny").unwrap();
        for set in ["device.geometry.blocks_per_plane=4", "device.geometry.pages_per_block=1", "ftl.overprovisioning=0.9"] {
            o.set(set).unwrap();
        }
        let e = match Settings::from_options(&o) {
            Ok(_) => panic!("a drive with no logical page is accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("--set: ftl.overprovisioning: leaves no logical page"), "{e}");
        assert!(e.contains("32 physical pages"), "{e}");
    }

    #[test]
    fn logical_pages_divisible_by_planes() {
        let s = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap();
        assert_eq!(s.logical_pages() % s.geometry.planes() as u64, 0);
        assert!(s.logical_pages() < s.geometry.pages());
    }
}
