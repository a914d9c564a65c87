//! Property tests of the FTL invariants over random operation sequences and random (including
//! tiny) geometries: every valid logical page maps to exactly one valid physical page and back,
//! valid counts match the bitmaps, free + valid + invalid = total, erase counts never fall.

use flashsched::config::{Options, Settings};
use flashsched::ftl::{self, Ftl};
use flashsched::nand::Layout;
use flashsched::{run, RunOptions};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Write(u32),
    Trim(u32),
}

fn geometry() -> impl Strategy<Value = (u32, u32, u32, u32, u32, u32, f64)> {
    // channels, chips, dies, planes, blocks per plane, pages per block, over-provisioning
    (1u32..=2, 1u32..=2, 1u32..=2, 1u32..=2, 16u32..=32, prop::sample::select(vec![1u32, 3, 4, 16, 64, 70]), 0.25f64..0.5)
}

/// `--set` assignments for a geometry from the strategy.
fn geometry_sets(g: (u32, u32, u32, u32, u32, u32, f64)) -> Vec<(&'static str, String)> {
    vec![
        ("device.geometry.channels", g.0.to_string()),
        ("device.geometry.chips_per_channel", g.1.to_string()),
        ("device.geometry.dies_per_chip", g.2.to_string()),
        ("device.geometry.planes_per_die", g.3.to_string()),
        ("device.geometry.blocks_per_plane", g.4.to_string()),
        ("device.geometry.pages_per_block", g.5.to_string()),
        ("ftl.overprovisioning", format!("{}", g.6)),
    ]
}

fn settings(g: (u32, u32, u32, u32, u32, u32, f64)) -> Settings {
    let mut o = Options::from_preset("tiny").unwrap();
    for (k, v) in geometry_sets(g).into_iter().chain([("ftl.gc.threshold", "0.0".to_string())]) {
        o.set(&format!("{k}={v}")).unwrap();
    }
    Settings::from_options(&o).unwrap()
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000)
}

/// The controller's DRAM: the data cache off, or on in any mode with a few pages (evictions are
/// frequent), a small write-back limit, with or without MQSim's hot/cold filter and readable
/// evicted pages (SSDSim's buffer has none of those three); the mapping table whole in DRAM, or
/// cached in a few entries, with each of MQSim's behaviours on or off; reads of never-written pages read, skipped or mapped; and
/// writes done at their program or their data-in, partial pages written as each mode does.
fn cache_settings() -> impl Strategy<Value = Vec<(&'static str, String)>> {
    let data = (prop::sample::select(vec!["off", "write", "read_write", "ssdsim"]), 1u64..24, 0u64..4, any::<bool>(), any::<bool>());
    let mapping = (prop::sample::select(vec![0u64, 0, 1, 4, 32]), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), prop::sample::select(vec![0u64, 256]));
    let unmapped = prop::sample::select(vec!["flash", "skip", "map"]);
    // When a write counts as done (SSDSim's buffer completes a write at its evictions' data-in),
    // and how a partial page is written (a cache program may cover part of a page).
    let writes = (prop::sample::select(vec!["program", "data_in"]), prop::sample::select(vec!["write_sectors", "read_modify_write", "update_read"]));
    (data, mapping, unmapped, writes).prop_map(|((mode, pages, limit, cold, readable), (entries, never, touches, dirty, last, tentry), unmapped, (ack, partial))| {
        let page_cache_only = ["cache.writeback_limit", "cache.cold_write_through", "cache.evicted_readable"];
        let all = vec![
            ("ftl.unmapped_reads", format!("\"{unmapped}\"")),
            ("device.write_ack", format!("\"{ack}\"")),
            ("ftl.partial_writes", format!("\"{partial}\"")),
            ("cache.mode", format!("\"{mode}\"")),
            ("cache.capacity", (pages * 4096).to_string()),
            ("cache.writeback_limit", (limit * 4096).to_string()),
            ("cache.cold_write_through", cold.to_string()),
            ("cache.evicted_readable", readable.to_string()),
            ("ftl.mapping_cache.capacity", (entries * 8).to_string()),
            ("ftl.mapping_cache.entry_size", "8".to_string()),
            ("ftl.mapping_cache.translation_entry_size", tentry.to_string()),
            ("ftl.mapping_cache.translation_writes", (if never { "\"never\"" } else { "\"program\"" }).to_string()),
            ("ftl.mapping_cache.clean_touches", touches.to_string()),
            ("ftl.mapping_cache.unwritten_read_dirty", dirty.to_string()),
            ("ftl.mapping_cache.last_page_on_flash", last.to_string()),
        ];
        all.into_iter().filter(|(k, _)| mode != "ssdsim" || !page_cache_only.contains(k)).collect()
    })
}

/// Over-provisioning to add for the mapping table's translation pages when it is cached: they
/// take spare pages the geometries below leave to GC.
fn mapping_room(cache: &[(&str, String)]) -> f64 {
    if cache.iter().any(|(k, v)| *k == "ftl.mapping_cache.capacity" && v != "0") { 0.1 } else { 0.0 }
}

proptest! {
    // 1,000 cases each (a few seconds in CI); PROPTEST_CASES overrides for longer local runs.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn untimed_ftl_keeps_its_invariants(g in geometry(), ops in prop::collection::vec((any::<bool>(), any::<u32>()), 1..1500)) {
        let s = settings(g);
        let layout = Layout::new(&s.geometry);
        let mut f = Ftl::new(layout, s.logical_pages(), s.gc_floor_blocks());
        let mut alloc = ftl::alloc::build(&s, layout);
        let mut gc = ftl::gc::build(&s);
        let mut erases_before = f.erase_counts();
        let ops: Vec<Op> = ops.into_iter().map(|(w, x)| {
            let lpn = x % s.logical_pages() as u32;
            if w || x % 7 != 0 { Op::Write(lpn) } else { Op::Trim(lpn) }
        }).collect();
        for (i, op) in ops.iter().enumerate() {
            match *op {
                Op::Write(lpn) => f.write_untimed(lpn, alloc.plane_for_write(lpn as u64), gc.as_mut()).unwrap(),
                Op::Trim(lpn) => { f.trim(lpn); }
            }
            if i % 97 == 0 {
                f.check_invariants().map_err(|e| TestCaseError::fail(format!("after op {i}: {e}")))?;
                let now = f.erase_counts();
                prop_assert!(now.iter().zip(&erases_before).all(|(a, b)| a >= b), "an erase count fell");
                erases_before = now;
            }
        }
        f.check_invariants().map_err(TestCaseError::fail)?;
        // Every valid logical page maps to exactly one physical page that maps back.
        let mapped: Vec<u32> = (0..s.logical_pages() as u32).filter(|&l| f.lookup(l).is_some()).collect();
        let mut ppns: Vec<u32> = mapped.iter().map(|&l| f.lookup(l).unwrap()).collect();
        ppns.sort_unstable();
        ppns.dedup();
        prop_assert_eq!(ppns.len(), mapped.len());
        for &l in &mapped {
            prop_assert_eq!(f.lpn_at(f.lookup(l).unwrap()), l);
        }
    }

    #[test]
    fn timed_runs_keep_invariants_under_gc(g in geometry(), op_share in 0.0f64..1.0, seed in 0u64..1000, reads in 0.0f64..0.6) {
        // Over-provisioning from the smallest the config accepts with GC threshold 0.1 (spare
        // blocks above the GC floor) to 0.5, so that every generated case is a valid config and
        // is run: a rejected config fails the test instead of passing it vacuously.
        let floor = flashsched::config::settings::gc_floor_blocks(0.1, g.4) as f64;
        let min_op = (floor + 1.0) / g.4 as f64 + 1e-9;
        let op = min_op + op_share * (0.5 - min_op);
        let mut o = Options::from_preset("tiny").unwrap();
        let sets = geometry_sets((g.0, g.1, g.2, g.3, g.4, g.5, op));
        for (k, v) in sets.into_iter().chain([
            ("ftl.gc.threshold", "0.1".to_string()),
            ("ftl.precondition.fill", "1.0".to_string()),
            ("ftl.precondition.order", "\"random\"".to_string()),
            ("workload.kind", "\"synthetic\"".to_string()),
            ("workload.synthetic.requests", "1500".to_string()),
            ("workload.synthetic.read_ratio", format!("{reads}")),
            ("workload.synthetic.interarrival", "\"5us\"".to_string()),
            ("workload.synthetic.size_max", "\"16KiB\"".to_string()),
            ("seed", seed.to_string()),
        ]) {
            o.set(&format!("{k}={v}")).unwrap();
        }
        let s = Settings::from_options(&o).map_err(|e| TestCaseError::fail(format!("generated config rejected: {e}")))?;
        let r = run(&s, &RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&r.json["ssd"]["invariants"], "ok");
        prop_assert_eq!(r.json["flashsched"]["requests_completed"].as_u64(), Some(1500));
    }
}

proptest! {
    // Fewer cases: each is a whole timed run with GC and idle-time re-programs.
    #![proptest_config(ProptestConfig { cases: (cases() / 8).max(1), ..ProptestConfig::default() })]

    /// RR's re-programs (read, program elsewhere, invalidate) and WR's per-write modes, under any
    /// host, device-queue and transaction scheduler, with or without program suspension (without
    /// it, with the channel's bus first come first served or in MQSim's turns), on random
    /// small geometries busy enough for GC: every mapping survives (full invariant check), every
    /// request completes, and the counters add up.
    #[test]
    fn rr_and_wr_keep_invariants_under_any_scheduler(
        g in geometry(), seed in 0u64..1000, reads in 0.2f64..0.8,
        host in prop::sample::select(vec!["fifo", "deadline", "pass"]),
        hil in prop::sample::select(vec!["fifo", "piq", "vios"]),
        sub_requests in any::<bool>(),
        tsu in prop::sample::select(vec!["fcfs", "frfcfs", "o3"]),
        suspend in any::<bool>(),
        speed in prop::sample::select(vec!["traditional", "wr"]),
        scope in prop::sample::select(vec!["chip", "device"]),
        rr in any::<bool>(),
        threshold_us in 20u64..2000,
        cache in cache_settings(),
        turns in prop::sample::select(vec!["fifo", "chips", "dies"]),
    ) {
        let floor = flashsched::config::settings::gc_floor_blocks(0.1, g.4) as f64;
        let op = ((floor + 1.0) / g.4 as f64 + 1e-9).max(0.3) + mapping_room(&cache);
        let mut o = Options::from_preset("tiny").unwrap();
        let dispatch = if sub_requests { "sub_requests" } else { "queue_depth" };
        let mut sets: Vec<(&str, String)> = geometry_sets((g.0, g.1, g.2, g.3, g.4, g.5, op));
        sets.extend([
            ("ftl.gc.threshold", "0.1".to_string()),
            ("ftl.precondition.fill", "0.9".to_string()),
            ("workload.kind", "\"synthetic\"".to_string()),
            ("workload.synthetic.requests", "1200".to_string()),
            ("workload.synthetic.read_ratio", format!("{reads}")),
            ("workload.synthetic.arrival", "\"onoff\"".to_string()),
            ("workload.synthetic.interarrival", "\"20us\"".to_string()),
            ("workload.synthetic.on_time", "\"1ms\"".to_string()),
            ("workload.synthetic.off_time", "\"3ms\"".to_string()),
            ("workload.synthetic.size_max", "\"16KiB\"".to_string()),
            ("host.scheduler", format!("\"{host}\"")),
            ("hil.scheduler", format!("\"{hil}\"")),
            ("tsu.scheduler", format!("\"{tsu}\"")),
            ("tsu.suspend_for_reads", suspend.to_string()),
            ("device.suspend.program", suspend.to_string()),
            ("device.suspend.erase", suspend.to_string()),
            ("device.ldpc.enabled", "true".to_string()),
            ("device.program_mode", "\"normal\"".to_string()),
            ("ftl.program_speed", format!("\"{speed}\"")),
            ("ftl.wr.scope", format!("\"{scope}\"")),
            ("ftl.idle_task", (if rr { "\"rr\"" } else { "\"none\"" }).to_string()),
            ("device.idle.threshold", format!("\"{threshold_us}us\"")),
            ("seed", seed.to_string()),
        ]);
        sets.extend(cache.iter().cloned());
        // MQSim's channel turns (no suspension), to dies, or to chips under a scheduler that can
        // tell ahead (multi-die commands).
        if !suspend && (turns == "dies" || (turns == "chips" && tsu != "frfcfs")) {
            sets.push(("device.channel.arbitration", "\"mqsim\"".to_string()));
            sets.push(("device.advanced.interleave", (turns == "dies").to_string()));
            sets.push(("device.advanced.multi_die", (turns == "chips").to_string()));
        }
        if hil != "fifo" {
            sets.push(if hil == "piq" { ("hil.piq.dispatch", format!("\"{dispatch}\"")) } else { ("hil.vios.dispatch", format!("\"{dispatch}\"")) });
        }
        for (k, v) in sets {
            o.set(&format!("{k}={v}")).unwrap();
        }
        let s = Settings::from_options(&o).map_err(|e| TestCaseError::fail(format!("generated config rejected: {e}")))?;
        let r = run(&s, &RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let j = &r.json;
        prop_assert_eq!(&j["ssd"]["invariants"], "ok");
        prop_assert_eq!(j["flashsched"]["requests_completed"].as_u64(), Some(1200));
        if rr {
            let idle = &j["ssd"]["idle"];
            let n = |k: &str| idle[k].as_u64().unwrap();
            prop_assert!(n("reprograms") + n("reprograms_dropped") <= n("recorded"), "{}", idle);
            // Slow programs: the re-programs, and under WR also host writes after a conflicting
            // read (GC moves program at the block's own step).
            let slow = j["ssd"]["programs_per_mode"]["slow"].as_u64().unwrap_or(0);
            if speed == "traditional" {
                prop_assert_eq!(slow, n("reprograms"));
            } else {
                prop_assert!(slow >= n("reprograms"), "{} slow programs, {}", slow, idle);
            }
        } else {
            prop_assert!(j["ssd"].get("idle").is_none());
        }
    }
}

proptest! {
    // Fewer cases: each is a whole timed run with GC and wear leveling.
    #![proptest_config(ProptestConfig { cases: (cases() / 8).max(1), ..ProptestConfig::default() })]

    /// Write grouping (several open blocks per plane, each opened by its own rule) and wear
    /// leveling (collections between GC's, into its own stream of worn blocks or GC's, splits
    /// into pinned blocks on other chips, whose block sets wait parked up to `set_blocks` a
    /// plane), with static
    /// or dynamic allocation (writes relocated off full planes), multi-plane commands and copyback
    /// on or off, under FCFS, FR-FCFS or Slacker, with the channel's bus first come first served
    /// or given in MQSim's turns, on random small geometries busy enough for GC: every mapping
    /// survives (full invariant check) and every request completes.
    #[test]
    fn grouping_and_wear_leveling_keep_invariants(
        g in geometry(), seed in 0u64..1000, reads in 0.0f64..0.7,
        grouping in prop::sample::select(vec!["none", "pgis", "pattern"]),
        wear in prop::sample::select(vec!["none", "swl", "rbwl"]),
        moves in prop::sample::select(vec!["worn", "gc"]),
        threshold in 2u32..12,
        dynamic in any::<bool>(),
        multi_plane in prop::sample::select(vec!["off", "same_page", "same_block_page"]),
        recurring in 0.0f64..0.8,
        tsu in prop::sample::select(vec!["fcfs", "frfcfs", "slacker"]),
        copyback in any::<bool>(),
        round_robin in any::<bool>(),
        set_blocks in 1u32..6,
        cache in cache_settings(),
        turns in prop::sample::select(vec!["fifo", "chips", "dies"]),
    ) {
        let floor = flashsched::config::settings::gc_floor_blocks(0.1, g.4) as f64;
        let op = ((floor + 1.0) / g.4 as f64 + 1e-9).max(0.25) + mapping_room(&cache);
        // Waiting block sets fit in the spare blocks above GC's floor and its own block.
        let set_blocks = set_blocks.min(((g.4 as f64 * op - floor - 1.0).floor() as u32).max(1));
        let mut o = Options::from_preset("tiny").unwrap();
        let mut sets: Vec<(&str, String)> = geometry_sets((g.0, g.1, g.2, g.3, g.4, g.5, op));
        sets.extend([
            ("ftl.gc.threshold", "0.1".to_string()),
            ("ftl.precondition.fill", "0.9".to_string()),
            ("workload.kind", "\"synthetic\"".to_string()),
            ("workload.synthetic.requests", "2500".to_string()),
            ("workload.synthetic.read_ratio", format!("{reads}")),
            ("workload.synthetic.interarrival", "\"10us\"".to_string()),
            ("workload.synthetic.size_max", "\"16KiB\"".to_string()),
            ("workload.synthetic.address", "\"hotcold\"".to_string()),
            ("workload.synthetic.recurring.share", format!("{recurring}")),
            ("workload.synthetic.recurring.size", "\"12KiB\"".to_string()),
            ("ftl.write_grouping", format!("\"{grouping}\"")),
            ("ftl.pattern.window", "128".to_string()),
            ("ftl.pattern.mined_requests", "64".to_string()),
            ("ftl.pattern.min_support", "2".to_string()),
            ("ftl.pgis.decay_writes", "256".to_string()),
            ("ftl.pgis.threshold", "2".to_string()),
            ("ftl.wear_leveling", format!("\"{wear}\"")),
            ("ftl.wear_leveling_moves", format!("\"{moves}\"")),
            ("ftl.swl.threshold", threshold.to_string()),
            ("ftl.rbwl.threshold", threshold.to_string()),
            ("ftl.rbwl.set_blocks", set_blocks.to_string()),
            ("ftl.allocation.scheme", if dynamic { "\"dynamic\"" } else { "\"static\"" }.to_string()),
            ("device.advanced.multi_plane", format!("\"{multi_plane}\"")),
            ("tsu.scheduler", format!("\"{tsu}\"")),
            ("device.suspend.program", (tsu == "slacker").to_string()),
            ("ftl.gc.copyback", copyback.to_string()),
            ("ftl.allocation.plane", if round_robin { "\"round_robin\"" } else { "\"most_free\"" }.to_string()),
            ("seed", seed.to_string()),
        ]);
        sets.extend(cache.iter().cloned());
        // MQSim's channel turns (no suspension: not with Slacker), to dies, or to chips (whose
        // multi-die commands need a scheduler that can tell ahead: FCFS here).
        if (turns == "dies" && tsu != "slacker") || (turns == "chips" && tsu == "fcfs") {
            sets.push(("device.channel.arbitration", "\"mqsim\"".to_string()));
            sets.push(("device.advanced.interleave", (turns == "dies").to_string()));
            sets.push(("device.advanced.multi_die", (turns == "chips").to_string()));
        }
        for (k, v) in sets {
            o.set(&format!("{k}={v}")).unwrap();
        }
        let s = Settings::from_options(&o).map_err(|e| TestCaseError::fail(format!("generated config rejected: {e}")))?;
        let r = run(&s, &RunOptions { request_log: false, full_invariant_check: true, json_plus: false }, &mut |_| true)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&r.json["ssd"]["invariants"], "ok");
        prop_assert_eq!(r.json["flashsched"]["requests_completed"].as_u64(), Some(2500));
        let t = &r.json["ssd"]["gc_time"];
        prop_assert_eq!(t["total_ns"].as_u64(), Some(t["routine_ns"].as_u64().unwrap() + t["wear_leveling_ns"].as_u64().unwrap()));
        if wear != "none" {
            // Wear leveling's plain collections' moves went where ftl.wear_leveling_moves says
            // (no warm-up here: every move counted was planned in the measured run).
            let w = &r.json["ssd"]["wear_leveling"];
            let (worn, gc, planned) = (w["pages_to_worn_blocks"].as_u64().unwrap(), w["pages_to_gc_stream"].as_u64().unwrap(), w["pages_moved"].as_u64().unwrap());
            prop_assert!(worn + gc <= planned, "{}", w);
            if moves == "gc" {
                prop_assert_eq!(worn, 0);
            }
        }
    }
}
