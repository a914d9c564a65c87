//! The registry of every policy, by layer: what `flashsched policies` prints and
//! `docs/reference/policies.md` is generated from. A test checks that every name a config key
//! accepts is described here and the reverse.

/// One policy: its layer, the config key and value that select it, what it does, where it comes
/// from, and the config keys of its parameters.
#[derive(Debug, Clone, Copy)]
pub struct PolicyInfo {
    pub layer: &'static str,
    pub key: &'static str,
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    pub params: &'static [&'static str],
}

const fn p(
    layer: &'static str,
    key: &'static str,
    name: &'static str,
    summary: &'static str,
    source: &'static str,
    params: &'static [&'static str],
) -> PolicyInfo {
    PolicyInfo { layer, key, name, summary, source, params }
}

const DEADLINE_PARAMS: &[&str] = &[
    "host.deadline.read_expire",
    "host.deadline.write_expire",
    "host.deadline.writes_starved",
    "host.deadline.fifo_batch",
    "host.deadline.front_merges",
    "host.max_merge",
];

pub static POLICIES: &[PolicyInfo] = &[
    p("host", "host.scheduler", "fifo", "Whole requests go to the device in arrival order; no merging.", "reference baseline", &["host.queue_depth"]),
    p("host", "host.scheduler", "noop", "One FIFO with back and front merging of contiguous requests of one direction.", "Linux noop / none; PASS paper baseline", &["host.queue_depth", "host.max_merge"]),
    p("host", "host.scheduler", "deadline", "Per direction an address-sorted tree and a FIFO with deadlines; batches of fifo_batch in address order; reads preferred until writes_starved; expired requests first.", "Linux 2.6.20 block/deadline-iosched.c; PASS paper baseline", DEADLINE_PARAMS),
    p("host", "host.scheduler", "mq-deadline", "Deadline as in blk-mq: batches continue from the direction's last position; one priority level.", "Linux block/mq-deadline.c", DEADLINE_PARAMS),
    p("host", "host.scheduler", "cfq", "Reduced CFQ: a queue per stream served round-robin in time slices, at most quantum in flight, idling slice_idle for the active stream's next request.", "Linux block/cfq-iosched.c; PASS paper baseline", &["host.cfq.quantum", "host.cfq.slice", "host.cfq.slice_idle", "host.cfq.fifo_expire"]),
    p("host", "host.scheduler", "as", "Reduced Anticipatory: deadline-like read/write batches; after a read completes, idles antic_expire for the same stream's next read.", "Linux block/as-iosched.c; PASS paper baseline", &["host.as.antic_expire", "host.as.read_expire", "host.as.write_expire", "host.as.read_batch_expire", "host.as.write_batch_expire"]),
    p("host", "host.scheduler", "kyber", "Token-limited domains (read, write, discard) with batches, round-robin, and depths rescaled every 100 ms from latency histograms against the targets.", "Linux block/kyber-iosched.c", &["host.kyber.read_target", "host.kyber.write_target"]),
    p("host", "host.scheduler", "irbw-fifo", "Individual Read, Bundled Write: reads one by one, writes gathered into address-sorted bundles of bundle_size; arrival order over reads and bundles.", "Kim et al., EMSOFT 2009", &["host.irbw.bundle_size", "host.irbw.bundle_timeout"]),
    p("host", "host.scheduler", "irbw-fifo-rp", "IRBW with read preference: pending reads go before bundles unless a bundle waited longer than write_expire.", "Kim et al., EMSOFT 2009", &["host.irbw.bundle_size", "host.irbw.bundle_timeout", "host.irbw.write_expire"]),
    p("host", "host.scheduler", "pass", "Logical space split into regions, one sub-queue each (read/write FIFOs and sorted trees, deadlines); regions served round-robin, one direction per turn, turn ends on an empty direction or batch_threshold.", "PASS (Guo et al., 2014), paper 001 §3", &["host.pass.region_size", "host.pass.batch_threshold", "host.deadline.read_expire", "host.deadline.write_expire", "host.deadline.front_merges", "host.max_merge"]),
    p("device queue", "hil.scheduler", "fifo", "Page transactions reach the chip queues in the order requests were split.", "reference baseline", &[]),
    p("device queue", "hil.scheduler", "piq", "Parallel Issue Queuing: requests batched so a batch's requests touch disjoint chips (or dies); reads join the oldest batch they fit, writes the newest; the head batch is released when the controller can take all of it (in-flight + batch <= queue depth), or (`dispatch = \"sub_requests\"`, vios2016's) each unit gets the oldest batch's transactions for it when it is idle, or (`dispatch = \"slots\"`, the paper's simulator) the head batch's next request fills each free slot of a device holding `queue_depth` requests.", "Gao et al., MSST 2014 / TCAD 2018; the VIOS paper's baseline", &["hil.piq.granularity", "hil.piq.max_age", "hil.piq.queue_depth", "hil.piq.dispatch"]),
    p("device queue", "hil.scheduler", "paq", "PAQ-style I/O clumping: whenever a die frees up, release (oldest first) every request whose dies are all idle and unused by the clump; packing into multi-plane commands is the device's (device.advanced.multi_plane).", "Jung et al., ISCA 2012 (spec §2)", &["hil.paq.max_age"]),
    p("device queue", "hil.scheduler", "vios", "VIOS's queue half: a chip-state vector (requests waiting per chip) and hierarchical-batch read and write queues (chip batches with no chip in common, split into channel batches with no channel in common); reads first; a chip batch is issued whole when the controller can take it, or (`dispatch = \"sub_requests\"`, vios2016's) each request's pages for a chip go when that chip is idle, or (`dispatch = \"slots\"`) the next request in VIOS's order fills each free slot of a device holding `queue_depth` requests. A write sub-request issued while other requests wait for its chip (NR > 1) goes to the fastest block with free pages of its chip, from fast blocks of its own, else to an ordinary block (needs device.variation).", "Li et al., NPC 2016 (paper 000 §3)", &["hil.vios.max_age", "hil.vios.queue_depth", "hil.vios.dispatch", "hil.vios.unconflicted", "hil.vios.blocks"]),
    p("wear", "ftl.wear_leveling", "none", "No wear leveling: blocks are recycled only by GC.", "the Pattern paper's Baseline", &[]),
    p("wear", "ftl.wear_leveling", "swl", "Static wear leveling with a Block Erasing Table: when erases concentrate on few block sets (erases / sets erased >= T since the last reset), the next set not erased is recycled, moving its cold data.", "Chang, Hsieh and Kuo, DAC 2007 / IEEE TC 2010 (spec §7); the Pattern paper's SWL", &["ftl.swl.threshold", "ftl.swl.set_bits"]),
    p("wear", "ftl.wear_leveling", "rbwl", "Read balance-oriented wear leveling: SWL's trigger with one BET bit per block; a target block that is frequently or less read (Page Read Table) is split half and half into two heavily erased blocks on other chips of its channel, paired with a target of the other kind, so that hot read data spreads over chips.", "Li, Xu, Peng and Liao, 2019 (paper 004), Algorithm 1", &["ftl.rbwl.threshold", "ftl.rbwl.frequent_share", "ftl.rbwl.less_share", "ftl.rbwl.set_blocks"]),
    p("grouping", "ftl.write_grouping", "none", "One open block per plane: host writes and routine GC's moves share it (wear leveling's go to its own stream).", "SSDSim and MQSim; the Pattern paper's Baseline", &[]),
    p("grouping", "ftl.write_grouping", "pgis", "PGIS's write half, RECONSTRUCTED: pages whose decayed write count reaches a threshold go to a separate hot open block.", "Guo, Hu, Mao and Wu, IPDPS 2017 (spec §6)", &["ftl.pgis.decay_writes", "ftl.pgis.threshold"]),
    p("grouping", "ftl.write_grouping", "pattern", "Pattern-based write scheduling: frequent sets of pages written together (FP-Growth over the first requests of each window) send their writes to lightly erased blocks, other writes to heavily erased ones.", "Li, Xu, Peng and Liao, 2019 (paper 004) §III-B", &["ftl.pattern.window", "ftl.pattern.mined_requests", "ftl.pattern.min_support", "ftl.pattern.min_size"]),
    p("transaction", "tsu.scheduler", "fcfs", "Each die runs the oldest transaction queued for it, host and GC alike.", "reference baseline", &[]),
    p("transaction", "tsu.scheduler", "frfcfs", "Per chip a read and a write queue: reads first, unless the write queue is more than alpha% full (write drain).", "Slacker's FR-FCFS with conditional queue size (paper 003 §2.1)", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue"]),
    p("transaction", "tsu.scheduler", "slacker", "FR-FCFS whose queues are reordered by slack: a read or write passes queued ones of its die whose slack (latest estimated completion of their request minus their own) covers its service time, taking that much of it; a host read pauses a program with enough slack at its next ISPP boundary. Reports the estimator's error, the measured and estimated slack and the requests each mechanism served.", "Slacker (Elyasi et al., ASPLOS 2017, paper 003): Rbyp + Wbyp + WP with the on-line estimator of its eqs. 1-8", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue", "device.suspend.program", "device.suspend.safe_point"]),
    p("transaction", "tsu.scheduler", "rbyp", "Slacker's read bypassing alone, on FR-FCFS.", "Slacker §4.1 (paper 003)", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue"]),
    p("transaction", "tsu.scheduler", "wbyp", "Slacker's write bypassing alone, on FR-FCFS.", "Slacker §4.1 (paper 003)", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue"]),
    p("transaction", "tsu.scheduler", "wp", "Slacker's slack-aware write pausing alone, on FR-FCFS (needs device.suspend.program).", "Slacker §4.2 (paper 003), after write pausing (Wu & He)", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue", "device.suspend.program", "device.suspend.safe_point"]),
    p("transaction", "tsu.scheduler", "rbyp+wp", "Slacker's read bypassing and write pausing, on FR-FCFS.", "Slacker §6 (paper 003): the Rbyp+WP system", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue", "device.suspend.program", "device.suspend.safe_point"]),
    p("transaction", "tsu.scheduler", "frfcfs+est", "FR-FCFS with Slacker's estimator running and nothing reordered: the baseline's estimation error and estimated slack.", "Slacker §5 (paper 003): the estimator on its baseline", &["tsu.frfcfs.alpha", "tsu.frfcfs.write_queue"]),
    p("transaction", "tsu.scheduler", "o3", "Out of order with priorities per die: host reads, then host writes, then GC reads and writes, then erases; oldest first within a class.", "O3 (Nam et al., IEEE TC 2011); MQSim's OUT_OF_ORDER TSU", &[]),
    p("allocation", "ftl.allocation.scheme", "static", "A logical page's plane is fixed by striping over channel, way, die and plane in a chosen order (all 24).", "Hu et al., ICS 2011; MQSim's plane allocation schemes", &["ftl.allocation.order"]),
    p("allocation", "ftl.allocation.scheme", "region", "Each contiguous logical region lives on one chip (regions channel-first), striped over the chip's dies and planes.", "the device PASS assumes (paper 001 §3.5)", &["ftl.allocation.region_size"]),
    p("allocation", "ftl.allocation.scheme", "dynamic", "Each write goes to the least-loaded die of the drive when it enters the device (ties round-robin, channel-first); the plane with most free blocks, or the die's planes in turn.", "DynAlloc (Slacker paper; Tavakkol et al., SIGMETRICS 2014); SSDSim dynamic_allocation=0", &["ftl.allocation.plane"]),
    p("allocation", "ftl.allocation.scheme", "channel-static", "Channel fixed by address (lpn mod channels); the least-loaded die on it takes the write.", "SSDSim dynamic_allocation=1 (spec §8b)", &["ftl.allocation.plane"]),
    p("program speed", "ftl.program_speed", "traditional", "Every host write in device.program_mode (native: the block's own step).", "RR/WR's baseline (paper 002 §III)", &["device.program_mode"]),
    p("program speed", "ftl.program_speed", "wr", "Write-conflict reduction: fast while other transactions wait in the device (`ftl.wr.scope`: or for the write's chip); else slow if the last read started was a conflicting one (others waited behind it; `ftl.read_conflict`), else normal. Reads of a page sense at the level its mode needs (device.ldpc).", "Li et al., RR/WR (paper 002 §II-B-2)", &["ftl.wr.scope", "ftl.read_conflict", "device.ldpc.enabled", "device.ispp.slow_step", "device.ispp.normal_step", "device.ispp.fast_step"]),
    p("idle task", "ftl.idle_task", "none", "Nothing runs in idle time.", "reference baseline", &[]),
    p("idle task", "ftl.idle_task", "rr", "Read-conflict reduction: pages of conflicting reads (others waited behind them when they started; `ftl.read_conflict`) that were not sensed at level 0 are recorded; once the chip has been idle for device.idle.threshold, one page at a time is re-programmed at the slow step (read, program elsewhere in its plane, old copy invalidated), so its next read senses at level 0.", "Li et al., RR/WR (paper 002 §II-B-1)", &["ftl.rr.queue", "ftl.read_conflict", "device.idle.threshold", "device.ldpc.enabled"]),
    p("gc", "ftl.gc.policy", "greedy", "Reclaim the full block with the most invalid pages.", "SSDSim / MQSim greedy; Bux & Iliadis 2010", &["ftl.gc.threshold", "ftl.gc.copyback"]),
];

/// Markdown reference of every policy (docs/reference/policies.md).
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "# Policies\n\nGenerated from `crates/flashsched/src/policies.rs` by `make docs`; a test fails when this page is stale. \
         `flashsched policies` prints the same. Choose one per layer with its config key; any combination runs.\n",
    );
    let mut layer = "";
    for pol in POLICIES {
        if pol.layer != layer {
            layer = pol.layer;
            out.push_str(&format!("\n## {layer} (`{}`)\n\n| name | what it does | from | parameters (default) |\n|---|---|---|---|\n", pol.key));
        }
        let params: Vec<String> = pol
            .params
            .iter()
            .map(|k| match crate::config::keys::find(k) {
                Some(spec) => format!("`{k}` ({})", spec.default.trim_matches('"')),
                None => format!("`{k}`"),
            })
            .collect();
        out.push_str(&format!("| `{}` | {} | {} | {} |\n", pol.name, pol.summary, pol.source, params.join(", ")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::keys::{self, Kind};

    #[test]
    fn registry_matches_the_config_keys() {
        for pol in POLICIES {
            let spec = keys::find(pol.key).unwrap_or_else(|| panic!("{} is not a key", pol.key));
            let Kind::Enum(names) = spec.kind else { panic!("{} is not a choice", pol.key) };
            assert!(names.contains(&pol.name), "{} is not a value of {}", pol.name, pol.key);
            for param in pol.params {
                assert!(keys::find(param).is_some(), "{param} is not a key");
            }
        }
        for key in ["host.scheduler", "hil.scheduler", "tsu.scheduler", "ftl.allocation.scheme", "ftl.program_speed", "ftl.idle_task", "ftl.gc.policy", "ftl.wear_leveling", "ftl.write_grouping"] {
            let Kind::Enum(names) = keys::find(key).unwrap().kind else { unreachable!() };
            for n in names {
                assert!(POLICIES.iter().any(|p| p.key == key && p.name == *n), "{key} = {n} is undocumented");
            }
        }
    }
}
