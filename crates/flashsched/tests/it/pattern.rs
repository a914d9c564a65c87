//! Write grouping (`ftl.write_grouping`: PGIS, Pattern) and read balance-oriented wear leveling
//! (`ftl.wear_leveling = "rbwl"`), end to end on the tiny drive.

use flashsched::RunResult;
use serde_json::Value;

fn run(sets: &[&str]) -> RunResult {
    let mut all: Vec<String> = vec![
        "workload.kind=\"synthetic\"".into(),
        "workload.synthetic.requests=30000".into(),
        "workload.synthetic.read_ratio=0.3".into(),
        "workload.synthetic.range=\"24MiB\"".into(),
        "workload.synthetic.align=\"4KiB\"".into(),
        "workload.synthetic.size_max=\"16KiB\"".into(),
        "ftl.precondition.fill=0.85".into(),
    ];
    all.extend(sets.iter().map(|s| s.to_string()));
    let r = crate::run_sets("tiny", &all);
    assert_eq!(r.json["ssd"]["invariants"], "ok", "{sets:?}");
    assert_eq!(r.json["flashsched"]["requests_completed"], 30000, "{sets:?}");
    r
}

const RECURRING: [&str; 4] = [
    "workload.synthetic.recurring.share=0.5",
    "workload.synthetic.recurring.sets=12",
    "workload.synthetic.recurring.size=\"24KiB\"",
    "workload.synthetic.recurring.lifetime=4096",
];

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"))
}

#[test]
fn pattern_mines_the_recurring_extents_and_their_writes_cost_gc_less() {
    let none = run(&RECURRING);
    let mut with = RECURRING.to_vec();
    with.push("ftl.write_grouping=\"pattern\"");
    let pat = run(&with);
    let g = &pat.json["ssd"]["write_grouping"];
    assert_eq!(g["policy"], "pattern");
    // 30,000 requests: 29 full windows of 1024 and the 256 requests that start the 30th, each mined once its 256th request entered.
    assert_eq!(u(&g["windows_mined"]), 30, "{g}");
    // 12 extents of 6 pages, each rewritten ~ 256 x 0.7 x 0.5 / 12 = 7.5 times in the mined part:
    // most are patterns, of 6 pages (two extents that overlap can make other sizes).
    let per = g["patterns_per_window"].as_f64().unwrap();
    assert!((6.0..=14.0).contains(&per), "{g}");
    let size = g["mean_pattern_size"].as_f64().unwrap();
    assert!((5.0..=7.0).contains(&size), "{g}");
    // About half the written pages belong to recurring extents, most of them matched.
    let hit = g["hit_share"].as_f64().unwrap();
    assert!((0.25..0.75).contains(&hit), "{g}");
    assert!(g.get("windows").is_none(), "the per-window series only on request");
    assert!(u(&g["patterns_per_window_max"]) as f64 >= per, "{g}");
    let mut kept = with.clone();
    kept.push("ftl.pattern.keep_windows=true");
    let series = run(&kept);
    let gk = &series.json["ssd"]["write_grouping"];
    assert_eq!(gk["windows"]["patterns"].as_array().unwrap().len(), 30);
    assert_eq!(gk["patterns_per_window"], g["patterns_per_window"], "keeping the series changes nothing else");
    assert!(none.json["ssd"].get("write_grouping").is_none());
    // Mining time: wall clock, apart from the results (run_info is left out of comparisons).
    let info = &pat.json["run_info"];
    assert!(info["pattern_mining_s"].as_f64().is_some() && info["pattern_mining_us_per_window"].as_f64().is_some(), "{info}");
    assert!(none.json["run_info"].get("pattern_mining_s").is_none());
    // Pages rewritten together share blocks, which GC then finds mostly invalid.
    let moved = |r: &RunResult| u(&r.json["ssd"]["gc_pages_moved"]);
    assert!(moved(&pat) < moved(&none), "pattern {} none {}", moved(&pat), moved(&none));
    let again = run(&with);
    assert_eq!(again.json["ssd"], pat.json["ssd"], "deterministic");
}

#[test]
fn pgis_sends_pages_written_often_to_their_own_blocks() {
    let none = run(&RECURRING);
    let mut with = RECURRING.to_vec();
    with.extend(["ftl.write_grouping=\"pgis\"", "ftl.pgis.decay_writes=2048", "ftl.pgis.threshold=3"]);
    let p = run(&with);
    let g = &p.json["ssd"]["write_grouping"];
    assert!(g["reconstruction"].as_str().unwrap().contains("reconstructed"), "labelled a reconstruction: {g}");
    let hot = u(&g["hot_write_pages"]);
    assert!(hot > 0 && hot < u(&g["write_pages"]), "{g}");
    let moved = |r: &RunResult| u(&r.json["ssd"]["gc_pages_moved"]);
    assert!(moved(&p) < moved(&none), "pgis {} none {}", moved(&p), moved(&none));
}

#[test]
fn pattern_and_rbwl_settings_that_contradict_each_other_are_refused() {
    for (sets, key) in [
        (["ftl.pattern.window=100", "ftl.pattern.mined_requests=200"], "ftl.pattern.mined_requests"),
        (["ftl.rbwl.frequent_share=0.3", "ftl.rbwl.less_share=0.3"], "ftl.rbwl.less_share"),
        // tiny: 64 blocks a plane, 12.5% spare (8), GC's floor 4 and its own block: room for 3.
        (["ftl.wear_leveling=\"rbwl\"", "ftl.rbwl.set_blocks=4"], "at most 3"),
    ] {
        let all: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = flashsched::config::load(Some("tiny"), None, &all).unwrap_err().to_string();
        assert!(e.contains(key), "{e}");
    }
}

#[test]
fn read_balance_wear_leveling_splits_targets_over_two_other_chips_of_their_channel() {
    // Reads concentrate on a hot part; writes are spread: many blocks are never rewritten and
    // wear leveling has cold blocks to recycle, some read a lot and some never.
    let base = [
        "workload.synthetic.address=\"hotcold\"",
        "workload.synthetic.hot_fraction=0.15",
        "workload.synthetic.hot_traffic=0.9",
        "workload.synthetic.hot_split=\"separate\"",
        "workload.synthetic.read_ratio=0.5",
    ];
    let none = run(&base);
    let mut with = base.to_vec();
    with.extend(["ftl.wear_leveling=\"rbwl\"", "ftl.rbwl.threshold=4"]);
    let r = run(&with);
    // Four chips per channel (as pattern2019): block sets on two chips other than the target's.
    let mut four = with.clone();
    four.extend(["device.geometry.chips_per_channel=4", "device.geometry.blocks_per_plane=32"]);
    let w4 = &run(&four).json["ssd"]["wear_leveling"];
    assert!(u(&w4["split_collections"]) > 0 && u(&w4["migration_blocks_open"]) + u(&w4["migration_blocks_parked"]) <= 2 * u(&w4["block_sets_waiting"]) + 2, "{w4}");
    let w = &r.json["ssd"]["wear_leveling"];
    assert_eq!(w["policy"], "rbwl");
    assert!(u(&w["collections"]) > 0, "{w}");
    assert!(u(&w["split_collections"]) > 0 && u(&w["pages_split"]) > 0, "{w}");
    assert!(u(&w["block_sets_made"]) > 0, "{w}");
    // Every pinned block belongs to a block set still waiting for its partner, or to the pair
    // whose moves are under way (one wear-leveling collection at a time): none is leaked.
    assert!(u(&w["migration_blocks_open"]) + u(&w["migration_blocks_parked"]) <= 2 * u(&w["block_sets_waiting"]) + 2, "{w}");
    assert!(u(&w["targets_frequently_read"]) + u(&w["targets_less_read"]) > 0, "{w}");
    // Table V: one bit per block and one per page (tiny: 512 blocks of 16 pages).
    assert_eq!(u(&w["bet_bytes"]), 512 / 8);
    assert_eq!(u(&w["prt_bytes"]), 512 * 16 / 8);
    // Its moves and erases are wear leveling's share of GC time.
    let t = &r.json["ssd"]["gc_time"];
    assert!(u(&t["wear_leveling_ns"]) > 0 && u(&t["routine_ns"]) > 0, "{t}");
    assert_eq!(u(&t["total_ns"]), u(&t["wear_leveling_ns"]) + u(&t["routine_ns"]));
    assert_eq!(u(&none.json["ssd"]["gc_time"]["wear_leveling_ns"]), 0);
    let e = |r: &RunResult, k: &str| r.json["ssd"]["erase_count"][k].as_f64().unwrap();
    assert!(e(&r, "min") > e(&none, "min"), "cold blocks get erased");
    let again = run(&with);
    assert_eq!(again.json["ssd"], r.json["ssd"], "deterministic");
}

#[test]
fn block_sets_wait_for_their_partners_up_to_their_bound_so_read_heavy_targets_are_split() {
    // As above, on four chips a channel: one kind of target outnumbers the other, so its block
    // sets wait. With one block a plane for sets, a channel is soon full of waiting sets and
    // later targets are collected as GC would; with eight, more wait and more targets are split.
    let base = vec![
        "workload.synthetic.address=\"hotcold\"",
        "workload.synthetic.hot_fraction=0.15",
        "workload.synthetic.hot_traffic=0.9",
        "workload.synthetic.hot_split=\"separate\"",
        "workload.synthetic.read_ratio=0.5",
        "device.geometry.chips_per_channel=4",
        // 16 spare blocks a plane: room for 11 blocks of waiting sets beside GC's floor of 4.
        "ftl.overprovisioning=0.25",
        "ftl.wear_leveling=\"rbwl\"",
        "ftl.rbwl.threshold=2",
    ];
    let one = run(&[base.clone(), vec!["ftl.rbwl.set_blocks=1"]].concat());
    // The default: 8 a plane, as there is room for them.
    let eight = run(&base);
    let (w1, w8) = (&one.json["ssd"]["wear_leveling"], &eight.json["ssd"]["wear_leveling"]);
    assert_eq!(u(&w8["set_blocks_per_plane"]), 8);
    let planes = 2 * 4 * 2;
    assert!(u(&w1["migration_blocks_parked"]) <= planes, "{w1}");
    assert!(u(&w8["migration_blocks_parked"]) <= 8 * planes, "{w8}");
    // Less read targets outnumber frequently read ones here: their sets wait, and every
    // frequently read target finds one (or makes its own), so all of them are split.
    assert!(u(&w8["targets_frequently_read"]) > 0, "{w8}");
    assert_eq!(u(&w8["split_frequently_read"]), u(&w8["targets_frequently_read"]), "{w8}");
    assert_eq!(u(&w8["split_collections"]), u(&w8["split_frequently_read"]) + u(&w8["split_less_read"]), "{w8}");
    // Sets wait beyond one a plane, and fewer targets go without room for a set.
    assert!(u(&w8["block_sets_waiting"]) > planes / 2, "{w8}");
    assert!(u(&w8["no_room_for_a_block_set"]) < u(&w1["no_room_for_a_block_set"]), "{w1}\n{w8}");
    assert!(u(&w8["split_collections"]) > u(&w1["split_collections"]), "{w1}\n{w8}");
    // Every pinned block is a waiting set's or one of the pair under way.
    assert!(u(&w8["migration_blocks_open"]) + u(&w8["migration_blocks_parked"]) <= 2 * u(&w8["block_sets_waiting"]) + 2, "{w8}");
}
