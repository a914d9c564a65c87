//! The registry of every configuration key: its path, type, default and documentation.
//!
//! This table is the single source of truth: validation (unknown keys, types, ranges), the JSON
//! Schema in `docs/config.schema.json`, the reference page `docs/reference/config.md`,
//! `flashsched config show` and `--set` all read it, so a key cannot exist in one and not the others.

/// What kind of value a key holds, and how it is written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// An integer within `[min, max]`.
    Int { min: i64, max: i64 },
    /// A floating-point number within `[min, max]`.
    Float { min: f64, max: f64 },
    Bool,
    /// Free text (a path, a name).
    Str,
    /// One of a fixed list of names.
    Enum(&'static [&'static str]),
    /// A duration with a unit, `"600us"`; resolved to nanoseconds.
    Duration,
    /// A size with a unit, `"4KiB"`, or a plain integer of bytes; resolved to bytes.
    Size,
    /// A transfer rate with a unit, `"333MT/s"`; resolved to transfers per second.
    Rate,
}

impl Kind {
    pub fn type_name(&self) -> &'static str {
        match self {
            Kind::Int { .. } => "integer",
            Kind::Float { .. } => "number",
            Kind::Bool => "boolean",
            Kind::Str => "string",
            Kind::Enum(_) => "name",
            Kind::Duration => "duration",
            Kind::Size => "size",
            Kind::Rate => "rate",
        }
    }
}

/// One configuration key.
#[derive(Debug, Clone, Copy)]
pub struct KeySpec {
    /// Dotted path, `device.geometry.channels`.
    pub path: &'static str,
    pub kind: Kind,
    /// The default as a TOML literal (`8`, `"600us"`, `false`).
    pub default: &'static str,
    /// What the key means, with its unit and formula where it has one.
    pub doc: &'static str,
}

const fn k(path: &'static str, kind: Kind, default: &'static str, doc: &'static str) -> KeySpec {
    KeySpec { path, kind, default, doc }
}

const U32: i64 = u32::MAX as i64;

/// The 24 orders in which static allocation stripes consecutive logical pages over the parallel
/// units, fastest-varying level first (C = channel, W = way/chip, D = die, P = plane), as in
/// MQSim's `Flash_Plane_Allocation_Scheme_Type` and SSDSim's `static_allocation` modes.
pub const ALLOCATION_ORDERS: &[&str] = &[
    "CWDP", "CWPD", "CDWP", "CDPW", "CPWD", "CPDW", "WCDP", "WCPD", "WDCP", "WDPC", "WPCD", "WPDC",
    "DCWP", "DCPW", "DWCP", "DWPC", "DPCW", "DPWC", "PCWD", "PCDW", "PWCD", "PWDC", "PDCW", "PDWC",
];

pub const TRACE_FORMATS: &[&str] = &["auto", "msr", "spc", "blkparse", "disksim", "mqsim", "fio"];

pub static KEYS: &[KeySpec] = &[
    k("name", Kind::Str, "\"flashsched\"", "A label for the run; becomes `jobs[0].jobname` in the JSON output."),
    k("preset", Kind::Str, "\"\"", "Start from this preset (`vios2016`, `bench8x8`, ...) before applying the rest of the file. Empty: the built-in defaults."),
    k("seed", Kind::Int { min: 0, max: i64::MAX }, "42", "Seed of every random stream in the run. Each component draws from its own stream derived from this seed and its name, so adding a component does not perturb the others."),
    k("compat", Kind::Enum(&["none", "mqsim", "ssdsim"]), "\"none\"", "Compatibility profile: set every modelling choice (command times, bus cycle rounding, chip-level operation, transaction order, partial-page writes, host link, write completion) as MQSim or SSDSim makes it, over the preset; keys set in a file, a dict or --set still win. `none`: flashsched's own defaults (a modern drive: dies interleave). docs/fidelity.md lists every key each profile sets, with its source file and function, and how closely `mqsim` agrees with MQSim request by request."),
    // --- device geometry
    k("device.geometry.channels", Kind::Int { min: 1, max: 1024 }, "8", "Number of channels (independent buses between controller and flash)."),
    k("device.geometry.chips_per_channel", Kind::Int { min: 1, max: 256 }, "8", "Chips (ways) sharing one channel."),
    k("device.geometry.dies_per_chip", Kind::Int { min: 1, max: 64 }, "2", "Dies per chip. A die is the parallel unit: it executes one array operation at a time."),
    k("device.geometry.planes_per_die", Kind::Int { min: 1, max: 64 }, "4", "Planes per die. Each plane has its own blocks and active block; planes of a die take turns unless device.advanced.multi_plane packs their operations into one command."),
    k("device.geometry.blocks_per_plane", Kind::Int { min: 2, max: 1 << 24 }, "2048", "Erase blocks per plane."),
    k("device.geometry.pages_per_block", Kind::Int { min: 1, max: 65535 }, "64", "Pages per erase block."),
    k("device.geometry.page_size", Kind::Size, "\"4KiB\"", "Flash page size (bytes; a multiple of 512). Also the unit of mapping: the FTL maps whole pages."),
    // --- device timing
    k("device.timing.read", Kind::Duration, "\"50us\"", "Array read time tR: sensing a page into the page register (ns)."),
    k("device.timing.program", Kind::Duration, "\"600us\"", "Array program time tPROG of one page (ns)."),
    k("device.timing.erase", Kind::Duration, "\"1.5ms\"", "Block erase time tBERS (ns)."),
    k("device.timing.command", Kind::Duration, "\"0ns\"", "Bus time of the command and address cycles of one flash command (ns); added to every bus transfer that starts an operation. The three keys below override it per operation."),
    k("device.timing.command_read", Kind::Duration, "\"0ns\"", "Command and address bus time of a read (ns). Unset: device.timing.command. MQSim (ONFI NVDDR2, `ReadCommandTime[1]`): 290 ns; SSDSim: 7 x tWC."),
    k("device.timing.command_program", Kind::Duration, "\"0ns\"", "Command and address bus time of a program, before its data-in (ns). Unset: device.timing.command. MQSim (`ProgramCommandTime[1]`): 361 ns; SSDSim: 7 x tWC."),
    k("device.timing.command_erase", Kind::Duration, "\"0ns\"", "Command and address bus time of an erase (ns). Unset: device.timing.command. MQSim (`EraseCommandTime[1]`): 220 ns; SSDSim: 5 x tWC."),
    k("device.timing.read_ready_delay", Kind::Duration, "\"0ns\"", "Added to every array read: the ready/busy signal's delay before the data can be read out (ns). MQSim (`Flash_Chip::Get_command_execution_latency`, `_RBSignalDelay`): 20 ns on reads, 0 on programs and erases."),
    k("device.timing.ecc", Kind::Duration, "\"0ns\"", "ECC decode time per page read, spent in the controller after the data-out transfer; occupies neither die nor channel (ns)."),
    k("device.suspend.program", Kind::Bool, "false", "The NAND can suspend a program to serve reads (Wu & He, FAST 2012)."),
    k("device.suspend.erase", Kind::Bool, "false", "The NAND can suspend an erase to serve reads."),
    k("device.suspend.latency", Kind::Duration, "\"20us\"", "From the suspend command to the die being free (reaching a safe point between program-verify or erase pulses); the operation keeps progressing meanwhile."),
    k("device.suspend.resume", Kind::Duration, "\"10us\"", "Extra array time a resumed program or erase takes."),
    k("device.suspend.min_remaining", Kind::Duration, "\"100us\"", "Do not suspend an operation with less than this left after the safe point (MQSim's preferred suspend time)."),
    k("device.suspend.safe_point", Kind::Enum(&["fixed", "ispp"]), "\"fixed\"", "Where a suspended program stops: `fixed`, device.suspend.latency after the suspend command; `ispp`, at the end of the ISPP iteration under way (Slacker §4.2: a write can be pre-empted \"at the end of each such iteration\"), its completed iterations kept. Erases always use `fixed`."),
    k("device.suspend.max_per_op", Kind::Int { min: 1, max: 1 << 20 }, "4", "Suspensions allowed per program or erase (with max_reads and window, bounds how long reads can delay it)."),
    k("device.suspend.max_reads", Kind::Int { min: 1, max: 1 << 20 }, "8", "Reads a suspended die serves before its program or erase resumes; reads still queued wait for the operation to finish or for the next suspension [INFER: Wu & He serve the pending reads]."),
    k("device.suspend.window", Kind::Duration, "\"1ms\"", "Longest a suspension serves reads: no read starts on the die later than this after the safe point, so one suspension delays the operation by at most about window + one read [INFER]."),
    // --- advanced commands (ctrl/command.rs; SSDSim flash.c, MQSim TSU_Base.cpp; spec §8c)
    k("device.advanced.multi_plane", Kind::Enum(&["off", "same_page", "same_block_page"]), "\"off\"", "Multi-plane commands: a die starting a read, program or erase takes queued operations of the same class for its other planes into one command (one array time, the longest of them). `same_page`: MQSim's rule, the pages share their page offset (erases: any blocks); `same_block_page`: SSDSim's, they also share the block index within their planes. Off: planes of a die take turns."),
    k("device.advanced.interleave", Kind::Bool, "true", "Multi-die interleaving: the dies of a chip run operations at the same time, sharing the chip's channel (SSDSim AD_INTERLEAVE, MQSim's die-interleaved commands). Off: a chip runs one operation at a time, whatever its die."),
    k("device.advanced.dbsy", Kind::Duration, "\"50ns\"", "tDBSY: bus idle time between the data-in transfers of the planes of one multi-plane program (ns). SSDSim page.parameters: 50 ns."),
    k("device.advanced.multi_die", Kind::Bool, "false", "With interleave = false: when a chip is idle, its dies that have queued work of the class being served (reads, writes, erases) start together as one die-interleaved command, their transfers back to back on the channel, and the chip takes nothing else until all are done (MQSim's TSU). False: the chip runs one die's operation at a time (SSDSim without advanced commands)."),
    k("device.advanced.copyback_parity", Kind::Bool, "true", "With ftl.gc.copyback: a page moves inside the die only when source and destination pages have the same odd/even parity (SSDSim: old_ppn % 2 == new_ppn % 2); otherwise its data goes out to the controller and back in over the channel (two page transfers on the program). Off: every GC move is a copyback."),
    k("device.channel.width_bits", Kind::Int { min: 8, max: 64 }, "8", "Channel bus width in bits (a multiple of 8)."),
    k("device.channel.rate", Kind::Rate, "\"333MT/s\"", "Channel transfer rate. Transfer time of n bytes = ceil(n / (width_bits/8) / rate) (ns), or with device.channel.cycle = \"whole_ns\", ceil(n / (width_bits/8)) x floor(1e9 / rate)."),
    k("device.channel.cycle", Kind::Enum(&["exact", "whole_ns"]), "\"exact\"", "How long one bus cycle lasts: `exact`, 1/rate (a transfer is rounded up to the next ns once); `whole_ns`, 1/rate truncated to whole nanoseconds, as simulators with integer timing parameters do (MQSim's NVDDR2 `t_RC = (int)(1000 / rate) * 2` per two bytes, SSDSim's integer tWC/tRC): 3 ns a byte at 333 MT/s, so a 4 KiB page takes 12,288 ns instead of 12,301."),
    k("device.channel.data_out", Kind::Enum(&["requested", "page"]), "\"requested\"", "What a read sends over the channel: `requested`, the bytes of the page the request asked for (MQSim); `page`, the whole page (SSDSim moves every valid sector of the page)."),
    k("device.channel.arbitration", Kind::Enum(&["fifo", "ssdsim"]), "\"fifo\"", "Who gets a free channel: `fifo`, a die takes its next transaction as soon as its chip is free (claiming the chip) and queues for the bus, first come, first served; `ssdsim`, the free channel chooses, once every event of the instant is in, the first of (1) a read command for the oldest waiting host read whose chip is idle, (2) a data-out for the lowest-numbered die whose read data is ready, (3) a write or other queued work for an idle chip in `tsu.write_order`; a chip is claimed only when its command goes on the bus, so a write waiting for the bus never holds its chip (SSDSim v2.1 flash.c process: services_2_r_wait, services_2_r_data_trans, services_2_write). Reads therefore go before writes across the whole channel. `ssdsim` needs tsu.scheduler = \"o3\", device.advanced.interleave = false, multi_die = false, multi_plane = \"off\" and no suspension (SSDSim with advanced commands off)."),
    k("device.read_queue_hits", Kind::Bool, "false", "A host read of a page that another read queued on the same channel is about to read (waiting, or started and not yet sending its data out) completes 1 us after it is queued, without touching flash (SSDSim ssd.c creat_sub_request; counted in `ssd.read_queue_hits`). Needs device.channel.arbitration = \"ssdsim\", which keeps the channel's read queue."),
    k("device.write_ack", Kind::Enum(&["program", "data_in"]), "\"program\"", "When a host write's page counts as written: `program`, when its array program ends (a drive without a write cache; MQSim); `data_in`, when its data-in transfer ends, before the program (SSDSim's behaviour, which leaves tPROG out of write latency; the die stays busy for the program either way)."),
    // --- ISPP program steps (nand/reliability.rs; VIOS §4 unless tagged)
    k("device.ispp.step_ref", Kind::Float { min: 0.01, max: 2.0 }, "0.30", "ISPP step size ΔVp (volts) at which `device.timing.program` applies (VIOS §4: 600 us at 0.3). A page programmed with step s takes timing.program x step_ref / s."),
    k("device.ispp.step_min", Kind::Float { min: 0.01, max: 2.0 }, "0.30", "Smallest step a block can be detected at (volts; slowest program). [INFER: VIOS names no minimum; its latency formula is anchored at 0.30]"),
    k("device.ispp.step_max", Kind::Float { min: 0.01, max: 2.0 }, "0.60", "Largest step (volts; fastest program). VIOS §4: \"the maximal possible write step size is set to 0.6\"."),
    k("device.ispp.step_decrement", Kind::Float { min: 0.001, max: 1.0 }, "0.03", "Spacing of the step grid and one step of detection (volts). VIOS §4: \"the step of decreasing ΔVp is set to 0.03\". step_max - step_min must be a multiple of it."),
    k("device.erase_limit", Kind::Int { min: 0, max: U32 }, "0", "Erases a block endures (its P/E cycle limit; 0: unlimited). The first block to reach it marks the drive's first failure (`ssd.endurance`); blocks stay in use past it, so a run shows how far wear goes [Pattern (paper 004): 3000]."),
    k("device.ispp.iterations", Kind::Int { min: 1, max: 1000 }, "10", "ISPP program-and-verify iterations of a program at step_ref; at step s, ceil(iterations x step_ref / s), of equal length. With device.suspend.safe_point = \"ispp\" a program pauses only at their boundaries. [INFER: no paper gives the count]"),
    k("device.ispp.slow_step", Kind::Float { min: 0.01, max: 2.0 }, "0.225", "Step of the `slow` program mode (volts): 800 us at 600 us / 0.30 V, RR/WR Table I's slow program [INFER: the step that gives Table I's latency]."),
    k("device.ispp.normal_step", Kind::Float { min: 0.01, max: 2.0 }, "0.30", "Step of the `normal` program mode (volts): 600 us, RR/WR Table I."),
    k("device.ispp.fast_step", Kind::Float { min: 0.01, max: 2.0 }, "0.40", "Step of the `fast` program mode (volts): 450 us, RR/WR Table I [INFER: the step that gives it]."),
    k("device.program_mode", Kind::Enum(&["native", "slow", "normal", "fast"]), "\"native\"", "Mode every host write is programmed in: `native` at the block's own step (its detected step under variation, else step_ref), or one of RR/WR's explicit modes, at its step whatever the block (a page remembers its mode; GC moves program at `native`)."),
    // --- LDPC read levels (nand/ldpc.rs; RR/WR Eq. 1 and Table I)
    k("device.ldpc.enabled", Kind::Bool, "false", "Reads sense with a number of LDPC levels chosen per page: the level's sensing time replaces timing.read, its transfer factor scales the data-out bytes and its decode time replaces timing.ecc."),
    k("device.ldpc.level_from", Kind::Enum(&["program_mode", "rber"]), "\"program_mode\"", "`program_mode`: RR/WR's pairing (§II-B): slow-programmed pages read at level 0, normal (and native) at 1, fast at 2. `rber`: the first level whose threshold covers the page's RBER at read time (block variation, wear, the page's step, retention)."),
    k("device.ldpc.thresholds", Kind::Str, "\"7.508e-5, 2.373e-4, 7.5e-4\"", "Comma-separated, increasing: the largest RBER each level corrects (`rber` levels) [INFER: the top one is the default device.ecc.limit, each lower one 0.75^4 below it, one RR/WR program notch at γ = 4; they do not follow a changed ecc.limit]. Its length is the number of levels (1 to 4); the other lists must match it."),
    k("device.ldpc.sense", Kind::Str, "\"30us, 90us, 210us\"", "Comma-separated durations: array sensing time per level (RR/WR Table I: fast/normal/slow read sensing 30/90/210 us)."),
    k("device.ldpc.transfer", Kind::Str, "\"100, 200, 250\"", "Comma-separated percentages: data-out bytes per level as a share of the page (RR/WR Table I: 40/80/100 us for a page that moves in 40 us)."),
    k("device.ldpc.decode", Kind::Str, "\"8us, 8us, 8us\"", "Comma-separated durations: decode time per level (RR/WR Table I: 8 us)."),
    // --- process variation and speed detection (nand/reliability.rs)
    k("device.variation.enabled", Kind::Bool, "false", "Blocks differ: each draws its RBER parameter r_b once per run, and programs at the largest ISPP step its RBER allows (its detected speed). Off: a `native` page programs in timing.program (at step_ref). The rber_* and wear keys below also set the RBER of `rber` LDPC levels, with every block at rber_mean when this is off."),
    k("device.variation.rber_mean", Kind::Float { min: 0.0, max: 1.0 }, "3.7e-4", "Mean of r_b, a block's raw bit error rate at rated life and step_ref. VIOS §4: μ = 3.7e-4."),
    k("device.variation.rber_sd", Kind::Float { min: 0.0, max: 1.0 }, "9e-5", "Standard deviation of r_b. VIOS §4: σ = 9e-5."),
    k("device.variation.bound_sd", Kind::Float { min: 1.0, max: 10.0 }, "3.0", "The Gaussian of r_b is bounded to mean ± bound_sd x sd (VIOS: \"bounded Gaussian\"; the bound is [INFER])."),
    k("device.variation.rated_pe", Kind::Int { min: 1, max: U32 }, "15000", "Rated life N_rated in P/E cycles: r_b is the RBER at this wear [INFER: VIOS's last wear stage]."),
    k("device.variation.wear_offset", Kind::Float { min: 0.0, max: 1e9 }, "1500", "N₀ in RBER ∝ ((N + N₀) / (N_rated + N₀))^k: a fresh block's RBER is not zero [INFER, calibrated]."),
    k("device.variation.wear_exponent", Kind::Float { min: 0.0, max: 10.0 }, "2.0", "k: RBER grows as the k-th power of wear [INFER, calibrated; spec §9c range 1.5-2.5]."),
    k("device.variation.step_exponent", Kind::Float { min: 0.0, max: 10.0 }, "4.0", "γ: RBER grows as (ΔVp / step_ref)^γ [INFER, calibrated; spec §9c range 2-4]."),
    k("device.variation.retention_coeff", Kind::Float { min: 0.0, max: 1.0 }, "0.0", "c_r of the retention term c_r x sqrt(N) x ln(1 + t / t0) added to a page's RBER t after its block was opened; 0: off [INFER: no paper gives a retention time; 8.8e-8 makes one year at 15K P/E use the detection margin]."),
    k("device.variation.retention_t0", Kind::Duration, "\"3600s\"", "t0 of the retention term (ns)."),
    k("device.variation.detect", Kind::Enum(&["oracle", "measured"]), "\"oracle\"", "Speed detection after each erase: `oracle` evaluates the model exactly at no cost; `measured` (VIOS §2.2: reading data back and counting faulty bits) adds one page read to the erase and misestimates the RBER by a factor 1 + detect_noise x N(0,1) drawn per detection. Either only ever lowers a block's step."),
    k("device.variation.detect_noise", Kind::Float { min: 0.0, max: 1.0 }, "0.1", "`measured` detection: relative standard deviation of the RBER estimate [INFER]."),
    k("device.ecc.limit", Kind::Float { min: 0.0, max: 1.0 }, "7.5e-4", "Largest RBER the ECC corrects; a step is allowed while (1 + margin) x RBER <= limit [INFER: no paper gives it; calibrated with the RBER law]."),
    k("device.ecc.margin", Kind::Float { min: 0.0, max: 10.0 }, "0.15", "Safety margin of speed detection (see limit) [INFER]."),
    k("device.ecc.decoders", Kind::Int { min: 0, max: 1 << 16 }, "1", "ECC decoders per channel: a host page read's decode (device.timing.ecc, or its LDPC level's device.ldpc.decode) waits for a free decoder of its channel. 0: unlimited [INFER: one decoder engine per channel]."),
    // --- FTL
    k("ftl.overprovisioning", Kind::Float { min: 0.0, max: 0.9 }, "0.07", "Over-provisioning as a fraction of physical capacity: logical pages = floor(physical pages x (1 - overprovisioning)), rounded down to a multiple of the number of planes. Note MQSim#49: this is (T-U)/T, not (T-U)/U."),
    k("ftl.allocation.scheme", Kind::Enum(&["static", "region", "dynamic", "channel-static"]), "\"static\"", "Page allocation: `static` stripes logical pages over the parallel units in `ftl.allocation.order`; `region` keeps each contiguous logical region on one chip (the device PASS assumes); `dynamic` sends each write to the least-loaded die when it enters the device (DynAlloc); `channel-static` fixes the channel by address and picks the die on it dynamically."),
    k("ftl.allocation.region_size", Kind::Size, "0", "`region` allocation: bytes of one region (0: logical capacity / number of chips)."),
    k("ftl.allocation.plane", Kind::Enum(&["most_free", "round_robin"]), "\"most_free\"", "`dynamic` and `channel-static`: the plane of the chosen die a write goes to: `most_free`, the plane with the most free blocks; `round_robin`, the die's planes in turn (SSDSim's plane token, spec §8b)."),
    k("ftl.allocation.order", Kind::Enum(ALLOCATION_ORDERS), "\"CWDP\"", "Static striping order, fastest-varying level first (C channel, W chip, D die, P plane). CWDP: channel = lpn mod C, chip = (lpn / C) mod W, ..."),
    k("ftl.gc.policy", Kind::Enum(&["greedy"]), "\"greedy\"", "Victim selection: `greedy` takes the block with the most invalid pages in the plane (ties: lowest block index)."),
    k("ftl.program_speed", Kind::Enum(&["traditional", "wr"]), "\"traditional\"", "Program-speed policy, the mode each host write is programmed in (ftl/speed): `traditional`, always device.program_mode; `wr`, RR/WR's write-conflict reduction (paper 002 §II-B-2): fast while other transactions wait for the chip, else slow if the last read started on the chip had waited for it, else normal. Read latency follows the mode through device.ldpc (level_from = program_mode)."),
    k("ftl.wr.scope", Kind::Enum(&["chip", "device"]), "\"device\"", "wr: where a write looks for conflicts: `device`, any transaction queued in the device (one read-conflict tag), the paper's single IO queue (Fig. 2 draws one queue with one tag) [INFER: the paper does not say which]; `chip`, transactions queued for its own chip (and a tag per chip), an ablation."),
    k("ftl.idle_task", Kind::Enum(&["none", "rr"]), "\"none\"", "Idle-time task (ftl/idle): `none`; `rr`, RR/WR's read-conflict reduction (paper 002 §II-B-1): the pages of reads that waited for their chip and were not sensed at level 0 are recorded, and re-programmed slowly (read, program elsewhere in the plane at the slow step, old copy invalidated) once their chip has been idle for device.idle.threshold. Needs device.ldpc.enabled (level_from = program_mode) to have anything to record."),
    k("ftl.read_conflict", Kind::Enum(&["waited", "induced"]), "\"induced\"", "rr and wr: which host reads count as conflicting, for RR's recording and WR's read-conflict tag. `waited`: the read waited for its die (found it busy or transactions queued before it). `induced`: transactions were waiting for its chip when it started, so others queued behind it (Fig. 1: R1-R3 induce conflicts, the last of the four queued reads, R4, does not; with `ftl.wr.scope = \"device\"`, WR's tag asks whether any transaction waits in the device) [INFER: the chip as the unit]."),
    k("ftl.rr.preempt", Kind::Bool, "true", "rr: re-programs are background work that host I/O pre-empts. A re-program whose program has not started when work is queued for its chip goes back to the front of the chip's record queue (its read done in vain, counted in ssd.idle.reprograms_preempted); a running one is suspended for host reads at its next safe point when the device suspends programs (device.suspend.program, its safe point device.suspend.safe_point; host programs are suspended only with tsu.suspend_for_reads). `false`: a host request arriving during a re-program waits for it. Either way the host transactions that meet a running re-program are counted (ssd.idle.host_waits) [INFER: the paper says only that re-programs use idle time]."),
    k("ftl.rr.queue", Kind::Int { min: 1, max: U32 }, "1024", "rr: pages recorded per chip at most; a full queue refuses new ones (counted in ssd.idle.record_overflows) [INFER: the paper gives no bound]."),
    k("device.idle.threshold", Kind::Duration, "\"1ms\"", "A chip is idle once none of its dies works and nothing is queued for it for this long; idle-time tasks (ftl.idle_task) run then, one page at a time [INFER: RR/WR does not define idle time]."),
    k("ftl.gc.threshold", Kind::Float { min: 0.0, max: 0.5 }, "0.05", "GC starts in a plane when its free blocks fall below max(2, ceil(threshold x blocks_per_plane)). One free block is always kept for GC's own writes."),
    k("ftl.gc.copyback", Kind::Bool, "false", "Move valid pages inside the die (copyback) instead of reading them out over the channel and writing them back in."),
    k("ftl.wear_leveling", Kind::Enum(&["none", "swl", "rbwl"]), "\"none\"", "Wear-leveling policy (ftl/wear/): `none`; `swl`, static wear leveling with a Block Erasing Table (Chang et al., DAC 2007): while erases since the table's reset divided by the block sets erased in that time reach `ftl.swl.threshold`, the next set not erased is recycled (its valid pages moved, its blocks erased), through the same machinery as GC; `rbwl`, the Pattern paper's read balance-oriented wear leveling (Algorithm 1): the same trigger with one BET bit per block and T = `ftl.rbwl.threshold`, and a Page Read Table; a frequently or less read target block is split half and half into a pair of heavily erased blocks on two other chips of its channel, shared with a target of the other kind."),
    k("ftl.wear_leveling_moves", Kind::Enum(&["worn", "gc"]), "\"worn\"", "Where a wear-leveling collection (swl's, and rbwl's `other` targets and those without room for a split) programs the valid pages it moves: `worn`, a stream of its own in the victim's plane whose blocks open most-erased-first (Pattern §II-C and §III-C: cold data goes \"to other free blocks having a relative high erase count\"), falling back to GC's stream when opening one would leave GC less than a block of free pages; `gc`, GC's stream, among routine GC's moves (the ablation). rbwl's splits go to their pinned migration blocks either way."),
    k("ftl.rbwl.threshold", Kind::Int { min: 1, max: U32 }, "10", "rbwl: T, wear leveling runs while erases / blocks erased since the BET's reset exceed it [Pattern (paper 004): 10]."),
    k("ftl.rbwl.frequent_share", Kind::Float { min: 0.0, max: 1.0 }, "0.5", "rbwl: a target block is frequently read when at least this share of its valid pages have been read since it was programmed (PRT bits) [INFER: the paper does not give block(findex, rfcnt)'s test]."),
    k("ftl.rbwl.less_share", Kind::Float { min: 0.0, max: 1.0 }, "0.125", "rbwl: a target block is less read when at most this share of its valid pages have been read; between the two shares it is `other` and collected as GC would [INFER]."),
    k("ftl.rbwl.set_blocks", Kind::Int { min: 0, max: 1024 }, "0", "rbwl: most blocks of a plane that block sets waiting for their partner may hold (Algorithm 1's list of block sets is unbounded; each waiting set holds a block of two planes, partly written, that neither GC nor the host can use until its partner comes). A split target whose channel has no two usable planes under this bound is collected as GC would (`no_room_for_a_block_set`). At most the spare blocks a plane (blocks_per_plane x ftl.overprovisioning) less GC's free-block floor and one, so that waiting sets cannot starve GC. 0: 8, or that room when it is less (the value used is `ssd.wear_leveling.set_blocks_per_plane`) [INFER: the paper gives no bound; on pattern2019, 8 of a plane's 2,048 blocks, whose 204.8 spare blocks leave room for 100]."),
    k("ftl.write_grouping", Kind::Enum(&["none", "pgis", "pattern"]), "\"none\"", "Write grouping (ftl/grouping/): which open block a host write goes to. `none`: one open block per plane; `pgis`: PGIS's hot-data grouping (RECONSTRUCTED, spec §6), pages written often lately go to a separate hot block; `pattern`: the Pattern paper's scheduler, pages of frequent co-written sets mined with FP-Growth go to lightly erased blocks, the rest to heavily erased ones. Routine GC's moves go to the default open block (wear leveling's to their own stream: ftl.wear_leveling_moves)."),
    k("ftl.pgis.decay_writes", Kind::Int { min: 1, max: U32 }, "4096", "pgis: every this many page writes, every page's write counter is halved [INFER: spec §6's stand-in]."),
    k("ftl.pgis.threshold", Kind::Int { min: 1, max: 255 }, "4", "pgis: a page is hot when its decayed write counter reaches this [INFER: spec §6's stand-in]."),
    k("ftl.pattern.window", Kind::Int { min: 1, max: U32 }, "1024", "pattern: requests per window [Pattern (paper 004): 1024]."),
    k("ftl.pattern.mined_requests", Kind::Int { min: 1, max: U32 }, "256", "pattern: the write requests among a window's first this many requests are mined [paper 004: 256]; at most `ftl.pattern.window`."),
    k("ftl.pattern.min_support", Kind::Int { min: 1, max: U32 }, "4", "pattern: write requests a set of pages must appear in together to be frequent [paper 004: 4]."),
    k("ftl.pattern.min_size", Kind::Int { min: 1, max: U32 }, "3", "pattern: pages a pattern holds at least [paper 004: more than 2]."),
    k("ftl.pattern.keep_windows", Kind::Bool, "false", "pattern: also report every mined window's patterns, mean pattern size, mining nodes and hit pages (`ssd.write_grouping.windows`); off, only their summary is kept, so the output does not grow with the run."),
    k("ftl.swl.threshold", Kind::Int { min: 1, max: U32 }, "100", "swl: the unevenness level T (erases / sets erased since the reset) at which static data is moved [INFER: the SWL paper used 100 to 1000; the Pattern paper's T = 10 is its own wear leveling's]."),
    k("ftl.swl.set_bits", Kind::Int { min: 0, max: 20 }, "0", "swl: k, each BET flag covers 2^k consecutive blocks (|BET| = ceil(blocks / 2^k) bits). Erases of a recycling that started before the table's last reset are not counted in the new interval (the algorithm is sequential; counting them let leveling feed itself forever with few sets and a low threshold)."),
    k("ftl.unmapped_reads", Kind::Enum(&["flash", "skip", "map"]), "\"flash\"", "A read of a logical page that was never written: `flash` reads the page static allocation would have placed it on (full flash timing, the SSDSim/MQSim convention of assuming the data was written before the trace); `skip` completes it without touching flash; `map` (MQSim's Address_Mapping_Unit_Page_Level::online_create_entry_for_reads) maps the logical page to the next free page of that plane's write frontier, programming nothing, and reads that page: the read can then join multi-plane commands, the page counts as valid data until overwritten, and later writes to the plane take the pages after it (if the plane has no free page left, the read is served as with `flash`). In every case they are counted in `ssd.host_reads_unmapped`."),
    k("ftl.partial_writes", Kind::Enum(&["write_sectors", "read_modify_write", "update_read"]), "\"write_sectors\"", "A write that covers only part of a page whose logical page holds data: `write_sectors`, program the new copy without reading the old (the unwritten bytes are assumed merged in the controller); `read_modify_write`, first read the old page's other sectors (a flash read on the old page's die, data-out of those bytes), then program (MQSim's `allocate_page_in_plane_for_user_write`). The write goes through the device queue once its read is done; under `piq` and `vios`, which admit requests up to their queue depth, it joins its request (in flight since the read went) and is released at once instead of waiting as a new request. `update_read`: the write is widened to the whole page (its data-in moves the page), and a read of the old page's other sectors is queued just before it, which the write does not wait for: it is ordered only by the chip serving reads first and staying busy until the read's data is out (SSDSim flash.c allocate_location). The request completes when both are done."),
    k("ftl.precondition.fill", Kind::Float { min: 0.0, max: 1.0 }, "0.0", "Before the run, write this fraction of the logical space (untimed)."),
    k("ftl.precondition.order", Kind::Enum(&["sequential", "random"]), "\"sequential\"", "Order of the preconditioning fill: logical pages 0.. in order, or a seeded random permutation."),
    k("ftl.precondition.overwrites", Kind::Float { min: 0.0, max: 100.0 }, "0.0", "After the fill, overwrite uniformly random filled pages this many times the number of filled pages, with GC (untimed): brings the drive to steady state before measuring."),
    k("ftl.precondition.pe_cycles", Kind::Int { min: 0, max: U32 }, "0", "Age every block to this erase count before the run (wear stage)."),
    // --- the controller's DRAM data cache (cache/, sim/cache.rs; MQSim Data_Cache_Manager_Flash_Advanced)
    k("cache.mode", Kind::Enum(&["off", "write", "read_write"]), "\"off\"", "The controller's DRAM data cache. `off`: every write waits for its program, every read for flash. `write` (MQSim's WRITE_CACHE): a write completes when its sectors are in DRAM (one DRAM transfer of all of them, after any evictions' DRAM read); its pages stay dirty in the cache until evicted (least recently used first) or flushed, and then go to flash as programs through the FTL and the transaction scheduler like any write; a read takes the sectors the cache holds from DRAM (one transfer) and the rest from flash. `read_write` (WRITE_READ_CACHE): also pages read from flash are put in the cache (clean). A flush request in the trace writes every dirty page back and completes when they and every write-back before them are programmed. docs/cache.md explains the model."),
    k("cache.capacity", Kind::Size, "\"16MiB\"", "Bytes of DRAM for cached pages: capacity / page size slots, one logical page each (a slot holds any of its page's sectors) [INFER: drives buffer a few MiB to tens of MiB of user data; MQSim's anchors use 2MiB]."),
    k("cache.eviction", Kind::Enum(&["lru"]), "\"lru\"", "Which cached page a new one evicts when the cache is full: `lru`, the page least recently read or written (MQSim's Data_Cache_Flash)."),
    k("cache.writeback_limit", Kind::Size, "0", "Bytes of cache programs (write-backs of evicted pages, and write-throughs) that may be in flight at once; a write whose pages would pass it waits, in arrival order, until programs end (MQSim's back_pressure_buffer_max_depth). 0: one page per plane (MQSim's value: planes x sectors per page)."),
    k("cache.evicted_readable", Kind::Bool, "true", "A page evicted dirty stays readable from DRAM until its program ends (its data is still there). false: MQSim's behaviour, a read of it goes to flash and finds the page's previous copy (Data_Cache_Flash::Evict_one_slot_lru frees the slot at once)."),
    k("cache.cold_write_through", Kind::Bool, "false", "MQSim's hot/cold filter (write_to_destage_buffer, bloom_filter): a page written for the first time since the filter was last cleared goes to flash at once (write-through; the write still completes at the DRAM) and is dropped from the cache when that program ends unless written again meanwhile; a page written again while in the filter stays dirty in DRAM. The filter is cleared when a write is taken into the cache (on arrival, or when it stops waiting for cache programs) more than 1 s after the previous clearing; the first clearing is at the run's first write (MQSim's milestone starts at 0), so that write's pages are forgotten."),
    k("cache.dram.t_rcd", Kind::Duration, "\"14ns\"", "DRAM tRCD: row activate to column command (ns) [INFER: a DDR4-1600 part; MQSim: 13ns]."),
    k("cache.dram.t_cl", Kind::Duration, "\"14ns\"", "DRAM CAS latency tCL (ns) [INFER: DDR4-1600; MQSim: 13ns]."),
    k("cache.dram.t_rp", Kind::Duration, "\"14ns\"", "DRAM row precharge tRP (ns) [INFER: DDR4-1600; MQSim: 13ns]."),
    k("cache.dram.row_size", Kind::Size, "\"8KiB\"", "DRAM row (page) size, bytes (MQSim Data_Cache_DRAM_Row_Size)."),
    k("cache.dram.burst", Kind::Size, "4", "Bytes one DRAM transfer moves (the bus width; MQSim Data_Cache_DRAM_Data_Busrt_Size: 1) [INFER: a 32-bit bus]."),
    k("cache.dram.clock_mhz", Kind::Int { min: 1, max: 100_000 }, "800", "DRAM clock, MHz; two transfers a cycle (MQSim's Data_Cache_DRAM_Data_Rate, whose formula takes it so: 100 gives 10 ns a cycle) [INFER: DDR4-1600]."),
    k("cache.dram.formula", Kind::Enum(&["rows", "mqsim"]), "\"rows\"", "DRAM access time of a transfer of B bytes. `rows`: every row it touches is opened (tRCD + tCL) and all but the last closed (tRP), plus ceil(ceil(B / burst) / 2) cycles of 1000 / clock_mhz ns, rounded up once; monotonic in B. `mqsim`: MQSim's estimate_dram_access_time (Data_Cache_Manager_Base.h) with its integer arithmetic and whole-ns cycle: B <= row: tRCD + tCL + (B / burst / 2) x cycle; larger: tRCD + tCL + ((row / burst / 2) x cycle + tRP) x (B / row / 2) + tRCD + tCL + (B mod row) / (burst x cycle), which is not monotonic (with MQSim's values 12 KiB takes 0.461 us, 8 KiB 40.986 us)."),
    // --- the cached mapping table (cache/mapping.rs, sim/mapping.rs; MQSim Address_Mapping_Unit_Page_Level)
    k("ftl.mapping_cache.capacity", Kind::Size, "0", "DRAM for cached mapping entries (DFTL-style cached mapping table), bytes; capacity / entry_size entries. 0: the whole mapping table is in DRAM and every lookup is free (the default). Otherwise the table lives on flash in translation pages, one per entries_per_page logical pages; a read or write of a page whose entry is not cached first reads its translation page (one 512-byte sector out, ahead of the die's other reads; misses on a translation page being read wait for that read) and the page's transaction waits for it (its `mapping` stage). The least recently used entry leaves a full table; a dirty one (its page was written since it was read) makes its translation page be written back: the page's other entries read, then the page programmed, and its dirty cached entries clean. Translation pages are logical pages of their own beyond the host's space, written at the start, placed, programmed and collected like data. docs/cache.md explains the model."),
    k("ftl.mapping_cache.entry_size", Kind::Size, "0", "Bytes of DRAM one cached entry takes. 0: MQSim's size, ceil((2 x log2(physical pages) + sectors per page) / 8): the logical and physical page numbers and the sector bitmap (8 bytes on bench8x8)."),
    k("ftl.mapping_cache.translation_entry_size", Kind::Size, "0", "Bytes one entry takes in a translation page on flash; a translation page holds page_size / this entries. 0: MQSim's size, ceil((log2(physical pages) + sectors per page) / 8) (5 bytes on bench8x8: 819 entries a 4 KiB page)."),
    k("ftl.mapping_cache.translation_writes", Kind::Enum(&["program", "never"]), "\"program\"", "What a translation page's write-back does after its read: `program`, programs the page (a flash write of its own, counted in `nand_pages_written`). `never`: MQSim's behaviour (TSU_OutOfOrder never serves MappingWriteTRQueue): the program is issued and never runs, and the translation page stays departing for the rest of the run, so every later miss on it is served at once, with no read."),
    k("ftl.mapping_cache.clean_touches", Kind::Bool, "false", "A write-back's cleaned entries move to the most recent end of the table's order (MQSim: generate_flash_writeback_request_for_mapping_data reaches them through Rerieve_ppa), so the next victim is usually a dirty entry of another page and write-backs cascade."),
    k("ftl.mapping_cache.unwritten_read_dirty", Kind::Bool, "false", "A read of a never-written page makes its cached entry dirty (MQSim's Online_create_entry_for_reads maps the page on the read), so its eviction writes the translation page back."),
    k("ftl.mapping_cache.last_page_on_flash", Kind::Bool, "true", "The last translation page, which holds fewer entries than the others, is on flash at the start like the rest. false: MQSim's behaviour (Store_mapping_table_on_flash_at_start stores only full pages): a miss on it needs no read."),
    // --- policies
    k("host.scheduler", Kind::Enum(&["fifo", "noop", "deadline", "mq-deadline", "cfq", "as", "kyber", "irbw-fifo", "irbw-fifo-rp", "pass"]), "\"fifo\"", "Host block-layer scheduler: the order in which whole requests are released to the device (`flashsched policies` describes each)."),
    k("host.max_merge", Kind::Size, "\"512KiB\"", "noop, deadline, mq-deadline, pass: largest request that merging contiguous requests of one direction may build (bytes; the block layer's max_sectors_kb). 0 disables merging."),
    k("host.deadline.read_expire", Kind::Duration, "\"500ms\"", "deadline, mq-deadline, pass: a read's dispatch deadline after its arrival (Linux default HZ/2)."),
    k("host.deadline.write_expire", Kind::Duration, "\"5s\"", "deadline, mq-deadline, pass: a write's dispatch deadline after its arrival (Linux default 5 HZ)."),
    k("host.deadline.writes_starved", Kind::Int { min: 0, max: 1 << 20 }, "2", "deadline, mq-deadline: read batches that may pass waiting writes before a write batch goes."),
    k("host.deadline.fifo_batch", Kind::Int { min: 1, max: 1 << 20 }, "16", "deadline, mq-deadline: requests per batch in address order."),
    k("host.deadline.front_merges", Kind::Bool, "true", "deadline, mq-deadline, pass: also merge a request in front of a queued one (back merges are always tried)."),
    k("host.cfq.quantum", Kind::Int { min: 1, max: 1 << 20 }, "8", "cfq: requests the active queue may have in flight at once."),
    k("host.cfq.slice", Kind::Duration, "\"100ms\"", "cfq: time slice of a queue's turn (slice_sync)."),
    k("host.cfq.slice_idle", Kind::Duration, "\"8ms\"", "cfq: how long the device idles for the active stream's next request when its queue runs empty."),
    k("host.cfq.fifo_expire", Kind::Duration, "\"125ms\"", "cfq: a queued request older than this is served before address order (fifo_expire_sync)."),
    k("host.as.antic_expire", Kind::Duration, "\"6.7ms\"", "as: how long the device idles after a read, anticipating the same stream's next read."),
    k("host.as.read_expire", Kind::Duration, "\"125ms\"", "as: a read's deadline."),
    k("host.as.write_expire", Kind::Duration, "\"250ms\"", "as: a write's deadline."),
    k("host.as.read_batch_expire", Kind::Duration, "\"500ms\"", "as: longest read batch while writes wait."),
    k("host.as.write_batch_expire", Kind::Duration, "\"125ms\"", "as: longest write batch while reads wait."),
    k("host.kyber.read_target", Kind::Duration, "\"2ms\"", "kyber: read latency target (read_lat_nsec)."),
    k("host.kyber.write_target", Kind::Duration, "\"10ms\"", "kyber: write latency target (write_lat_nsec)."),
    k("host.irbw.bundle_size", Kind::Size, "\"256KiB\"", "irbw-fifo(-rp): bytes of writes gathered into one bundle (the paper takes the size at which write bandwidth saturates)."),
    k("host.irbw.bundle_timeout", Kind::Duration, "\"20ms\"", "irbw-fifo(-rp): a partial bundle closes after this long (or at once when nothing else waits)."),
    k("host.irbw.write_expire", Kind::Duration, "\"5s\"", "irbw-fifo-rp: a bundle waiting longer than this goes before pending reads."),
    k("host.pass.region_size", Kind::Size, "\"4GiB\"", "pass: size of the logical regions, one sub-queue each (the paper's 4 GB for its SSD1)."),
    k("host.pass.batch_threshold", Kind::Int { min: 1, max: 1 << 20 }, "16", "pass: requests a region dispatches in one turn before the next region's turn (the paper's 16)."),
    k("host.pass.threshold", Kind::Enum(&["per_turn", "outstanding"]), "\"per_turn\"", "pass: what `batch_threshold` bounds. `per_turn`: the requests a region dispatches in one turn (§3.3, the mechanism the paper gives). `outstanding`: also the region's requests at the device, dispatched and not completed, so a turn ends, and a region's turn is skipped, while it has that many (§3.2 and §3.4 state this as PASS's aim: \"controls the number of concurrent requests issued to the region not to exceed the optimal threshold\") [INFER]."),
    k("host.queue_depth", Kind::Int { min: 1, max: 1 << 24 }, "32", "Device queue depth: how many host requests may be outstanding in the device at once. Requests beyond it wait in the host scheduler."),
    k("host.queue_length", Kind::Int { min: 0, max: 1 << 24 }, "0", "SSDSim's admission cap (ssd.c get_requests; SSDSim's default is 5): at most this many requests admitted and not complete; an arrival beyond it is held, with every later one. When a request completes, the oldest held one goes in and the clock is set back to its arrival, as SSDSim does: channels and chips free by their predicted times since then take its work there, and the times since when others became free are visited again. Unphysical (a held request's work can start, even end, before it was admitted, and its latency never includes the hold), and modelled as SSDSim behaves; `ssd.admission` in the report counts the holds. 0: no cap. Works with any preset; with SSDSim's channel arbitration (device.channel.arbitration = \"ssdsim\") it reproduces SSDSim request by request."),
    k("host.link", Kind::Enum(&["none", "pcie", "sata"]), "\"none\"", "The host interface between the host's queue and the drive: `none`, free; `pcie`, NVMe over PCIe (host.pcie.*): each request pays the doorbell, command fetch and completion messages, and its data crosses the link (after the flash for reads, before it for writes), each direction one message at a time (MQSim's PCIe_Link and Host_Interface_NVMe); `sata`, a per-command delay plus the data at host.sata.rate."),
    k("host.pcie.lanes", Kind::Int { min: 1, max: 32 }, "4", "PCIe lanes (MQSim PCIe_Lane_Count)."),
    k("host.pcie.lane_rate", Kind::Float { min: 0.001, max: 1.0e6 }, "1.0", "Bandwidth of one lane, GB/s (MQSim PCIe_Lane_Bandwidth). A message of B bytes takes ceil(B / 4) / lane_rate ns, truncated, where B adds 28 bytes of packet overhead per 128-byte payload chunk (MQSim PCIe_Link::estimate_transfer_time)."),
    k("host.sata.delay", Kind::Duration, "\"0ns\"", "sata: processing delay of each command before it reaches the drive (MQSim SATA_Processing_Delay) [INFER: charged once per request, not per message]."),
    k("host.sata.rate", Kind::Rate, "\"600MT/s\"", "sata: data rate of the link, bytes per second (SATA III: 600 MB/s)."),
    k("hil.piq.granularity", Kind::Enum(&["chip", "die"]), "\"chip\"", "piq: the parallel unit two requests conflict on (chip as in MSST'14, die as in TCAD'18)."),
    k("hil.piq.max_age", Kind::Duration, "\"500ms\"", "piq: a batch older than this is released even when the controller cannot take it (starvation guard)."),
    k("hil.piq.queue_depth", Kind::Int { min: 1, max: 65536 }, "32", "piq: requests the flash controller takes at once; the head batch is released when the requests PIQ released and that have not completed plus the batch's requests fit (spec §1; 32 = SATA NCQ [INFER]). Binds only when host.queue_depth is larger."),
    k("hil.piq.dispatch", Kind::Enum(&["queue_depth", "idle_units", "sub_requests", "slots"]), "\"queue_depth\"", "piq: when the head batch is issued: `queue_depth`, when the controller can take it (spec §1); `idle_units`, also only once every unit it touches is idle with nothing queued, so that the batch runs in parallel without waiting behind earlier work; `sub_requests`, unit by unit: the batches' transactions for a unit go, oldest batch first, as soon as that unit is idle with nothing queued (SSDSim's per-chip sub-requests), so requests wait in PIQ's batches instead of the chips' queues [INFER: how SSDSim's PIQ issued is not published]; `slots`, request by request into a device that holds at most `queue_depth` requests (SSDSim's `queue_length`): each time a request completes, the next request of the head batch goes to the chips whole, whatever they are doing, so PIQ's order decides which waiting request fills the free slot (the `vios-ssdsim` reproduction's set-up)."),
    k("hil.vios.dispatch", Kind::Enum(&["queue_depth", "idle_units", "idle_requests", "sub_requests", "slots"]), "\"queue_depth\"", "vios: when the head chip batch is issued: `queue_depth`, when the controller can take it; `idle_units`, also only once every chip it touches is idle with nothing queued (requests then wait in VIOS's queues, where the chip-state vector counts them); `idle_requests`, request by request, each as soon as its own chips are idle, oldest batch first (reads before writes); `sub_requests`, sub-request by sub-request (§3.3: \"we scatter the request into separate sub-requests\"): a request's transactions for one chip go as soon as that chip is idle with nothing queued, oldest batch first, reads before writes, and NR_i drops when chip i's sub-request goes. `slots`, request by request into a device that holds at most `queue_depth` requests (SSDSim's `queue_length`): each time a request completes, the next request in VIOS's order (the read queue's head chip batch first, channel batch by channel batch) goes to the chips whole, whatever they are doing, its writes placed by Fig. 4 as it goes (the `vios-ssdsim` reproduction's set-up). The last four keep requests waiting in VIOS's queues instead of the chips', where the chip-state vector counts them [INFER]."),
    k("hil.vios.overfill", Kind::Float { min: 0.0, max: 1.0 }, "0.0", "vios: how far beyond its share of the logical pages (logical pages / planes) a plane may fill before speed-aware placement stops sending it writes, as a fraction of its remaining pages. A plane's fill is its valid pages plus the host writes queued for it; once the fill reaches share + overfill x (pages per plane - share), capped to leave GC its floor of free blocks and the host's reserve block, the plane takes only writes of pages whose current copy it holds (they add no valid page). A write placed by speed that its chosen plane does not take goes to the fastest (slowest) plane of its chip that takes it; a write left in place (`unconflicted = \"static\"`, or whose own plane has no page to offer) whose plane does not take it goes to the plane that takes it with the lowest fill; when no plane takes it (a page with no copy in the chip), to the plane with the lowest fill [INFER: the paper's drive is never full; without a bound, writes sent to a full drive's fastest planes fill them with valid pages GC cannot reclaim, and the run stalls]. 0 (the default): placement moves no write past a plane's share, so on a full drive VIOS moves no write, which measured best there and at 85% full (docs/experiments.md, \"VIOS on a full drive\"); 1: only GC's reserve bounds it. Runs whose planes stay below the limit are the same under any value (the papers' drives start empty and are far larger than their workloads). Output: `ssd.writes_at_fill_limit`, `ssd.valid_pages_plane_end`."),
    k("hil.vios.unconflicted", Kind::Enum(&["static", "slowest"]), "\"static\"", "vios: where a write goes when no other request waits for its chip (§3.3: \"Otherwise, a slower block is chosen\"): `static`, an ordinary block, not a faster one: the plane the page allocator chose and its open block [INFER: the reading that fits the paper's own numbers, mds's -2.73% against PIQ with 4.7% conflicts and Fig. 7's gain at every wear stage; docs/experiments.md]; `slowest`, the slowest block of the chip (the literal reading; an ablation: it makes every unconflicted write slower)."),
    k("hil.vios.blocks", Kind::Enum(&["separate", "shared"]), "\"separate\"", "vios: the blocks fast writes (those to a chip other requests wait for) go to. `separate`: their own open block in each plane, apart from the ordinary writes' (the FTL's hot stream), opened fastest-first among all the plane's free blocks; such a write goes to the plane of its chip whose fast block, or fastest free block, programs fastest: the fastest block with free pages of the chip, as §3.1's per-chip speed-ordered tree gives it [INFER: the tree's blocks are read as the chip's open and free blocks; one open fast block per plane]. With a write-grouping policy (ftl.write_grouping) the grouping owns the streams and this acts as `shared`. `shared`: one open block per plane for every write; a plane that must open one takes the fastest (slowest) of its next 64 free blocks (an ablation)."),
    k("hil.vios.max_age", Kind::Duration, "\"500ms\"", "vios: a chip batch older than this is issued even when the controller cannot take it (starvation guard, as hil.piq.max_age) [INFER: the paper gives none]."),
    k("hil.vios.queue_depth", Kind::Int { min: 1, max: 65536 }, "32", "vios: requests the flash controller takes at once: the head chip batch is issued when the requests VIOS issued and that have not completed plus the batch's requests fit; also the largest chip batch [INFER: as hil.piq.queue_depth, the paper's baseline]."),
    k("hil.paq.max_age", Kind::Duration, "\"10ms\"", "paq: a request waiting longer than this joins the next clump even if its dies are busy."),
    k("hil.scheduler", Kind::Enum(&["fifo", "piq", "paq", "vios"]), "\"fifo\"", "Device queue (host interface logic) policy: the order in which a request's page-sized sub-requests are handed to the per-chip queues."),
    k("tsu.scheduler", Kind::Enum(&["fcfs", "frfcfs", "o3", "slacker", "rbyp", "wbyp", "wp", "rbyp+wp", "frfcfs+est"]), "\"fcfs\"", "Transaction scheduler of each chip: which queued flash transaction an idle die runs next. `slacker` is Slacker (ASPLOS 2017) on FR-FCFS: read bypassing, write bypassing and slack-aware write pausing; `rbyp`, `wbyp`, `wp` and `rbyp+wp` run only those mechanisms; `frfcfs+est` is FR-FCFS with Slacker's estimator running and nothing reordered (its estimation error and estimated slack are reported). Write pausing needs device.suspend.program; its pauses happen at device.suspend.safe_point."),
    k("tsu.read_priority", Kind::Enum(&["die", "chip"]), "\"die\"", "When the chip is the unit that takes commands (device.advanced.interleave = false) and it frees, which of its dies gets it: `die`, each die in turn after the one that finished, taking its own next transaction; `chip`, first the die with the oldest host read at the head of its queue, so that a read on any die of the chip goes before a write on any other (SSDSim: a chip's reads are served before its writes whichever die each is on, flash.c process). Needs a scheduler that can tell its next transaction ahead (fcfs, o3). With device.channel.arbitration = \"ssdsim\" the channel already puts reads first across all its chips."),
    k("tsu.write_order", Kind::Enum(&["turns", "die_number"]), "\"turns\"", "When the chip is the unit that takes commands (device.advanced.interleave = false, multi_die = false), which die starts when a free chip has no read to start: `turns`, its dies in turn after the one that last finished, so none starves; `die_number`, die 0 first, oldest first within a die (SSDSim flash.c services_2_write, static branch). With device.channel.arbitration = \"ssdsim\" the order also runs across the channel's chips: `turns`, the channel's dies in turn after the one that last started a write; `die_number`, chip 0 before chip 1, die 0 before die 1."),
    k("tsu.suspend_for_reads", Kind::Bool, "false", "Any transaction scheduler: suspend a running program or erase (where `device.suspend.*` allows it) when a host read arrives for its die; the die serves its queued reads, then resumes."),
    k("tsu.slacker.adc", Kind::Enum(&["commands", "operations"]), "\"commands\"", "Slacker's estimator (any slack-aware scheduler, and frfcfs+est), eq. 4's probability of an advanced command: `commands`, the unit's multi-plane commands over the operations it served (Cntr_ARD / Cntr_RD, Cntr_AWR / Cntr_WR, as §5.1 counts them); `operations`, the share of operations served inside such commands (an ablation: the speed-up a multi-plane command gives each of its operations)."),
    k("tsu.frfcfs.alpha", Kind::Int { min: 1, max: 100 }, "75", "frfcfs: writes go first while a chip's write queue holds more than this percentage of `write_queue` (Slacker's \"> alpha% full\"; the value is not given in the paper)."),
    k("tsu.frfcfs.write_queue", Kind::Int { min: 1, max: 1 << 20 }, "32", "frfcfs: nominal capacity of a chip's write queue (transactions)."),
    // --- workload
    k("workload.kind", Kind::Enum(&["none", "trace", "synthetic", "jobs", "sysbench"]), "\"none\"", "Where host requests come from: a trace file (open loop), the synthetic generator (open loop), closed-loop jobs in fio's terms, or sysbench's fileio test (`workload.sysbench.*`)."),
    k("workload.trace.path", Kind::Str, "\"\"", "Trace file; `.gz` and `.zst` are decompressed on the fly. A relative path is relative to the working directory."),
    k("workload.trace.format", Kind::Enum(TRACE_FORMATS), "\"auto\"", "Trace format; `auto` detects it from the first lines (see docs/reference/traces.md)."),
    k("workload.trace.device", Kind::Int { min: -1, max: i64::MAX }, "-1", "Replay only this volume: MSR DiskNumber, SPC ASU, DiskSim/MQSim device number, blkparse minor number; -1 replays all."),
    k("workload.trace.blkparse_action", Kind::Enum(&["Q", "D"]), "\"Q\"", "blkparse: which event is a request: Q (queued) or D (issued to the driver)."),
    k("workload.time_scale", Kind::Float { min: 1e-9, max: 1e9 }, "1.0", "Multiply every arrival time by this factor: 0.5 replays twice as fast. Open-loop workloads only: closed-loop jobs issue on completions."),
    k("workload.max_requests", Kind::Int { min: 0, max: i64::MAX }, "0", "Stop after this many requests (after skip); 0: no limit. Closed-loop jobs: the total over all jobs, counting the requests they issue on completions."),
    k("workload.skip", Kind::Int { min: 0, max: i64::MAX }, "0", "Drop this many requests from the start of the workload (not replayed at all). Closed-loop jobs generate them round-robin (job 0, 1, ..., 0, ...) before any job starts, so every job still starts `iodepth` requests; they count against each job's `number_ios` and advance its sequential position."),
    k("workload.max_request_size", Kind::Size, "\"1GiB\"", "The largest request the workload may issue (bytes; at most 1TiB): a larger one is an error at its trace line, as a block layer's max_sectors bounds what reaches a drive. A request costs a transaction per page, so a mistyped size (a 4 TB write) would otherwise run for hours."),
    k("workload.warmup", Kind::Int { min: 0, max: i64::MAX }, "0", "Replay this many requests first without measuring them; statistics and device counters start after them."),
    k("workload.fold", Kind::Enum(&["modulo", "error"]), "\"modulo\"", "Addresses beyond the drive's logical capacity: `modulo` folds each page number into the logical space (lpn mod logical_pages); `error` stops with the trace line."),
    k("workload.synthetic.requests", Kind::Int { min: 1, max: i64::MAX }, "100000", "Number of requests the generator emits."),
    k("workload.synthetic.read_ratio", Kind::Float { min: 0.0, max: 1.0 }, "0.3", "Probability that a request is a read."),
    k("workload.synthetic.arrival", Kind::Enum(&["poisson", "fixed", "onoff"]), "\"poisson\"", "Arrival process: Poisson, fixed gaps, or bursty on/off (Poisson during on periods, silent during off periods)."),
    k("workload.synthetic.interarrival", Kind::Duration, "\"200us\"", "Mean gap between arrivals (during on periods for `onoff`)."),
    k("workload.synthetic.on_time", Kind::Duration, "\"10ms\"", "`onoff`: length of a burst."),
    k("workload.synthetic.off_time", Kind::Duration, "\"40ms\"", "`onoff`: length of a silence."),
    k("workload.synthetic.address", Kind::Enum(&["uniform", "zipf", "hotcold", "sequential"]), "\"uniform\"", "Address distribution over `range`, in units of `align`."),
    k("workload.synthetic.range", Kind::Size, "0", "Size of the address range requests fall into (bytes); 0 means the drive's whole logical capacity."),
    k("workload.synthetic.align", Kind::Size, "\"4KiB\"", "Alignment of offsets and granularity of sizes (bytes)."),
    k("workload.synthetic.zipf_theta", Kind::Float { min: 0.0, max: 10.0 }, "0.99", "`zipf`: skew exponent; slot ranks are shuffled over the range so hot data is not all at the start."),
    k("workload.synthetic.hot_fraction", Kind::Float { min: 0.0, max: 1.0 }, "0.2", "`hotcold`: fraction of the range that is hot."),
    k("workload.synthetic.hot_traffic", Kind::Float { min: 0.0, max: 1.0 }, "0.8", "`hotcold`: fraction of requests that go to the hot part."),
    k("workload.synthetic.hot_split", Kind::Enum(&["shared", "separate"]), "\"shared\"", "`hotcold`: `shared`, reads and writes have the same hot part (the start of the range); `separate`, writes' hot part is at the end of the range instead, so the pages most read are seldom rewritten (as in traces whose reads and writes go to different data)."),
    k("workload.synthetic.read_range", Kind::Size, "0", "Bytes from the start of the logical space that reads address (0: `range`, as writes). Reads then follow `address` over their own range, so that data can be read often yet seldom written (as read-mostly data in real traces); `uniform` and `zipf` only."),
    k("workload.synthetic.recurring.share", Kind::Float { min: 0.0, max: 1.0 }, "0.0", "Fraction of writes that rewrite one of a small, slowly changing collection of extents, chosen uniformly (0: none). Gives a workload sets of pages written together again and again, the structure pattern-based write scheduling mines (paper 004 Fig. 2(b), Table III) [INFER: a stand-in for the PC-server traces]."),
    k("workload.synthetic.recurring.sets", Kind::Int { min: 1, max: 1_000_000 }, "16", "`recurring.share` > 0: extents alive at a time."),
    k("workload.synthetic.recurring.size", Kind::Size, "\"32KiB\"", "`recurring.share` > 0: bytes of each extent (aligned to `workload.synthetic.align`)."),
    k("workload.synthetic.recurring.lifetime", Kind::Int { min: 1, max: U32 }, "4096", "`recurring.share` > 0: requests an extent lives; one extent is replaced by a new one at a uniform random place every lifetime / sets requests (the oldest first)."),
    k("workload.synthetic.sequential_run", Kind::Int { min: 1, max: i64::MAX }, "16", "`sequential`: requests per run before jumping to a new uniform random offset."),
    k("workload.synthetic.size_dist", Kind::Enum(&["uniform", "fixed", "lognormal"]), "\"uniform\"", "Request sizes: uniform over the multiples of `align` in [size_min, size_max]; always size_min; or lognormal with the mean and standard deviation of each direction (`read_size_mean`, ...), rounded up to `align` and kept within [size_min, size_max]."),
    k("workload.synthetic.read_size_mean", Kind::Size, "\"16KiB\"", "`lognormal`: mean read size (bytes)."),
    k("workload.synthetic.read_size_sd", Kind::Size, "\"8KiB\"", "`lognormal`: standard deviation of read sizes (bytes)."),
    k("workload.synthetic.write_size_mean", Kind::Size, "\"16KiB\"", "`lognormal`: mean write size (bytes)."),
    k("workload.synthetic.write_size_sd", Kind::Size, "\"8KiB\"", "`lognormal`: standard deviation of write sizes (bytes)."),
    k("workload.synthetic.profile", Kind::Str, "\"\"", "Name of the trace profile these parameters came from (`flashsched trace profiles`); recorded in the output, no effect on the requests."),
    k("workload.synthetic.size_min", Kind::Size, "\"4KiB\"", "Smallest request (bytes)."),
    k("workload.synthetic.size_max", Kind::Size, "\"64KiB\"", "Largest request (bytes)."),
    k("workload.jobs.numjobs", Kind::Int { min: 1, max: 65536 }, "1", "Closed loop: number of jobs (fio `numjobs`), each keeping `iodepth` requests in flight."),
    k("workload.jobs.iodepth", Kind::Int { min: 1, max: 65536 }, "1", "Closed loop: requests each job keeps outstanding (fio `iodepth`): a job issues its next request when one completes (after `thinktime`)."),
    k("workload.jobs.rw", Kind::Enum(&["read", "write", "randread", "randwrite", "rw", "randrw"]), "\"randrw\"", "Closed loop: access pattern as fio's `rw` (`rw` is sequential mixed, fio's readwrite)."),
    k("workload.jobs.rwmixread", Kind::Int { min: 0, max: 100 }, "50", "Closed loop: percentage of reads for the mixed patterns (fio `rwmixread`)."),
    k("workload.jobs.bs", Kind::Size, "\"4KiB\"", "Closed loop: request size (fio `bs`, bytes); offsets are aligned to it."),
    k("workload.jobs.size", Kind::Size, "0", "Closed loop: bytes each job addresses (fio `size`), rounded down to a multiple of `bs`; 0 means the drive's logical capacity. Must be 0 or at least `bs`, and at most the logical capacity."),
    k("workload.jobs.offset_increment", Kind::Size, "0", "Closed loop: job j's area starts at j x offset_increment (fio `offset_increment`, bytes). The last job's area must end inside the drive: (numjobs - 1) x offset_increment + size <= logical capacity, or the configuration is rejected (addresses are not folded)."),
    k("workload.jobs.thinktime", Kind::Duration, "\"0ns\"", "Closed loop: pause between a completion and the job's next request (fio `thinktime`)."),
    k("workload.jobs.number_ios", Kind::Int { min: 1, max: i64::MAX }, "10000", "Closed loop: requests each job issues (fio `number_ios`)."),
    k("workload.jobs.runtime", Kind::Duration, "\"0ns\"", "Closed loop: stop issuing after this much simulated time (fio `runtime`); 0: no limit."),
    k("workload.jobs.buffered", Kind::Bool, "false", "Closed loop: writes go through the page cache (fio `direct=0` for writes): a write completes for the job at once and dirties its pages, which the flusher writes back later (`workload.page_cache.*`); reads stay direct and synchronous. Needs iodepth 1, page-aligned (4 KiB) bs and disjoint job areas."),
    k("workload.jobs.fsync", Kind::Int { min: 0, max: i64::MAX }, "0", "Closed loop, buffered: after every this many writes a job calls fsync (fio `fsync=N`): its dirty pages are written as synchronous requests of the job and it waits until none of its pages is under write-back. 0: never."),
    k("workload.page_cache.size", Kind::Size, "\"8GiB\"", "Buffered jobs: the dirtyable memory the dirty thresholds are fractions of (Linux: free plus reclaimable page-cache memory; 8 GiB is the PASS paper's test bed)."),
    k("workload.page_cache.dirty_background_ratio", Kind::Int { min: 0, max: 100 }, "10", "Buffered jobs: percent of `size` of dirty data above which the flusher writes back in the background (Linux vm.dirty_background_ratio; when not below dirty_ratio, half of dirty_ratio is used, as Linux does)."),
    k("workload.page_cache.dirty_ratio", Kind::Int { min: 1, max: 100 }, "20", "Buffered jobs: percent of `size` of dirty plus under-write-back data above which a writing job blocks until write-back brings it back under (Linux vm.dirty_ratio, balance_dirty_pages)."),
    k("workload.page_cache.writeback_interval", Kind::Duration, "\"5s\"", "Buffered jobs: period of the flusher's wake-ups while data is dirty (Linux vm.dirty_writeback_centisecs = 500)."),
    k("workload.page_cache.expire", Kind::Duration, "\"30s\"", "Buffered jobs: a job's file dirty for longer than this is written back at the next periodic wake-up (Linux vm.dirty_expire_centisecs = 3000)."),
    k("workload.page_cache.nr_requests", Kind::Int { min: 1, max: 1 << 20 }, "128", "Buffered jobs: write-back requests the flusher keeps outstanding (in the host queue or the device); it waits for one to complete before issuing more (the request queue's nr_requests, 128 in Linux)."),
    k("workload.page_cache.max_request", Kind::Size, "\"512KiB\"", "Buffered jobs: largest write-back request; contiguous dirty pages are coalesced up to it (the block layer's max_sectors_kb)."),
    k("workload.sysbench.threads", Kind::Int { min: 1, max: 65536 }, "1", "sysbench fileio (0.4): threads (`--num-threads`). Each makes one synchronous call at a time, taking the next request from a generator all threads share."),
    k("workload.sysbench.file_test_mode", Kind::Enum(&["rndrw", "rndrd", "rndwr"]), "\"rndrw\"", "sysbench fileio: `--file-test-mode`: random reads and writes, random reads, or random writes. A request's position is uniform over all the files' bytes, in whole blocks."),
    k("workload.sysbench.file_num", Kind::Int { min: 1, max: 1 << 20 }, "128", "sysbench fileio: files (`--file-num`), laid out one after another from logical byte 0 [INFER: a fresh file system allocating each file contiguously]."),
    k("workload.sysbench.file_total_size", Kind::Size, "\"2GiB\"", "sysbench fileio: bytes of all files together (`--file-total-size`); each file is the total over `file_num`, in whole blocks."),
    k("workload.sysbench.file_block_size", Kind::Size, "\"16KiB\"", "sysbench fileio: bytes of a read or write (`--file-block-size`), a multiple of the 4 KiB page."),
    k("workload.sysbench.file_rw_ratio", Kind::Float { min: 0.001, max: 1e9 }, "1.5", "sysbench fileio, rndrw: reads per write (`--file-rw-ratio`). As sysbench does, the next request is a read while (reads done + 1) / (writes done + 1) is below the ratio, else a write: 60% reads at 1.5, not drawn at random."),
    k("workload.sysbench.file_fsync_freq", Kind::Int { min: 0, max: i64::MAX }, "100", "sysbench fileio: when a write was made since the last series and the requests handed out are a multiple of this (`--file-fsync-freq`), the next `file_num` requests the threads take are fsyncs of files 0, 1, ... in turn; 0: never. Counted over all threads."),
    k("workload.sysbench.file_fsync_end", Kind::Bool, "true", "sysbench fileio: after the last request, the threads fsync every file once (`--file-fsync-end`, for tests that write)."),
    k("workload.sysbench.max_requests", Kind::Int { min: 1, max: i64::MAX }, "10000", "sysbench fileio: reads and writes handed out in all, over all threads (`--max-requests`; fsyncs not counted)."),
    k("workload.sysbench.io", Kind::Enum(&["buffered", "direct"]), "\"buffered\"", "sysbench fileio: `buffered` (sysbench's default: `read()`/`write()` through the page cache, `workload.page_cache.*`: a read of pages cached since the run began, read or written, needs no I/O; a write dirties its pages and returns; write-back comes from fsync and the flusher) or `direct` (`--file-extra-flags=direct`: every call goes to the device and waits)."),
    // --- statistics
    k("stats.interval", Kind::Duration, "\"0ns\"", "Window of the interval statistics (JSON Lines); 0 disables them. With `--intervals FILE` (or `intervals_file=` in Python) the windows are streamed to the file as they close; otherwise they are kept in memory (about 450 bytes each)."),
    k("stats.max_intervals", Kind::Int { min: 1, max: i64::MAX }, "100000", "The most windows of `stats.interval` a run may make: a run that would make more stops with an error naming both keys, instead of writing (or keeping) one line per window of an interval far shorter than the run."),
];

pub fn find(path: &str) -> Option<&'static KeySpec> {
    KEYS.iter().find(|k| k.path == path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_unique_and_leaves() {
        for (i, a) in KEYS.iter().enumerate() {
            for b in &KEYS[i + 1..] {
                assert_ne!(a.path, b.path);
                assert!(!b.path.starts_with(&format!("{}.", a.path)), "{} is a prefix of {}", a.path, b.path);
                assert!(!a.path.starts_with(&format!("{}.", b.path)), "{} is a prefix of {}", b.path, a.path);
            }
        }
    }

    #[test]
    fn all_24_orders() {
        let mut v: Vec<&str> = ALLOCATION_ORDERS.to_vec();
        v.sort();
        v.dedup();
        assert_eq!(v.len(), 24);
        for o in v {
            let mut c: Vec<char> = o.chars().collect();
            c.sort();
            assert_eq!(c, vec!['C', 'D', 'P', 'W']);
        }
    }
}
