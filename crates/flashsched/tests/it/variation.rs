//! The variation-aware latency model, on the `tiny` preset (tPROG 500 us at ΔVp 0.30, command
//! 1 us, a 4 KiB page crosses the channel in 40.96 us). Program times are hand-computed from
//! tPROG x 0.30 / ΔVp; the steps from (1 + 0.15) x RBER <= 7.5e-4 with
//! RBER = r_b x ((N + 1500) / 16500)^2 x (ΔVp / 0.30)^4.

use flashsched::report::without_wall_clock;
use flashsched::{config, run, RunOptions};

use super::{latencies, req, run_lines};

const CMD: u64 = 1_000;
const XFER_4K: u64 = 40_960;
const PAGE: u64 = 4096;
/// Every block has r_b = the mean (no spread), so the step is the median block's.
const NO_SPREAD: &str = "device.variation.rber_sd=0.0";

#[test]
fn a_fresh_block_programs_at_the_largest_step() {
    // 0 P/E: the median block supports 0.60 V, so tPROG = 500 us x 0.30 / 0.60 = 250 us.
    let r = run_lines("tiny", "var-fresh", &[req(0, 0, PAGE, false)], &["device.variation.enabled=true", NO_SPREAD]);
    assert_eq!(latencies(&r), vec![CMD + XFER_4K + 250_000]);
    let v = &r.json["ssd"]["variation"];
    assert_eq!(v["programs"], 1);
    assert_eq!(v["program_time_mean_ns"], 250_000.0);
    assert_eq!(v["detected_steps"][0], serde_json::json!({"step_v": 0.6, "blocks": 512}));
}

#[test]
fn a_worn_block_programs_slower() {
    // 15K P/E: the median block's largest step is 0.33 V: 500 us x 300 / 330 = 454,545.45 -> 454,545 ns.
    // 9K: 0.42 V -> 357,142.86 -> 357,143 ns.
    for (pe, prog) in [(15_000, 454_545), (9_000, 357_143)] {
        let pe_set = format!("ftl.precondition.pe_cycles={pe}");
        let r = run_lines("tiny", "var-worn", &[req(0, 0, PAGE, false)], &["device.variation.enabled=true", NO_SPREAD, &pe_set]);
        assert_eq!(latencies(&r), vec![CMD + XFER_4K + prog], "{pe} P/E");
    }
}

#[test]
fn reads_and_the_fixed_model_are_unchanged() {
    let fixed = run_lines("tiny", "var-read-a", &[req(0, 0, PAGE, true)], &[]);
    let var = run_lines("tiny", "var-read-b", &[req(0, 0, PAGE, true)], &["device.variation.enabled=true"]);
    assert_eq!(latencies(&fixed), latencies(&var));
    assert!(fixed.json["ssd"].get("variation").is_none(), "no variation block without the model");
}

fn synthetic(sets: &[&str]) -> serde_json::Value {
    let mut all: Vec<String> = [
        "workload.kind=synthetic",
        "workload.synthetic.requests=3000",
        "workload.synthetic.interarrival=40us",
        "ftl.precondition.fill=0.9",
        "ftl.precondition.order=random",
        "seed=3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    all.extend(sets.iter().map(|s| s.to_string()));
    let s = config::load(Some("tiny"), None, &all).unwrap_or_else(|e| panic!("{e}"));
    without_wall_clock(&run(&s, &RunOptions::default(), &mut |_| true).unwrap().json)
}

/// With one speed for every block, the variation model is the fixed model: identical results but
/// for the variation block itself (and the resolved config, which lists the keys).
#[test]
fn one_speed_everywhere_is_identical_to_the_fixed_model() {
    let mut fixed = synthetic(&[]);
    let mut var = synthetic(&[
        "device.variation.enabled=true",
        "device.ispp.step_max=0.30",
        "device.ispp.step_min=0.30",
    ]);
    assert!(var["ssd"]["variation"]["programs"].as_u64().unwrap() > 3000, "GC and host programs are charged");
    for d in [&mut fixed, &mut var] {
        d["ssd"].as_object_mut().unwrap().remove("variation");
        d.as_object_mut().unwrap().remove("global options");
        d["flashsched"].as_object_mut().unwrap().remove("config");
    }
    assert_eq!(fixed, var);
    assert!(fixed["ssd"]["erases"].as_u64().unwrap() > 0, "the run must erase for the comparison to cover detection");
}

#[test]
fn erases_redetect_and_only_ever_lower_a_blocks_step() {
    // A drive rated for 100 P/E at 60 (the wear factor of 9K on a 15K drive): the run's ~7 erases
    // per block wear blocks enough to lower their steps.
    const SHORT_LIFE: [&str; 3] = ["device.variation.rated_pe=100", "device.variation.wear_offset=10", "ftl.precondition.pe_cycles=60"];
    let v = synthetic(&[&["device.variation.enabled=true"][..], &SHORT_LIFE[..]].concat());
    let var = &v["ssd"]["variation"];
    assert_eq!(var["detections"], v["ssd"]["erases"], "one detection per erase");
    assert!(var["steps_lowered"].as_u64().unwrap() > 0, "{var}");
    let total: u64 = var["detected_steps"].as_array().unwrap().iter().map(|e| e["blocks"].as_u64().unwrap()).sum();
    assert_eq!(total, 512);
    // Same run with measured detection: each erase also pays a page read, so the run is slower.
    let m = synthetic(&[&["device.variation.enabled=true", "device.variation.detect=\"measured\""][..], &SHORT_LIFE[..]].concat());
    // The dies are saturated in both runs; the extra read per erase shows in the simulated time.
    let end = |d: &serde_json::Value| d["ssd"]["simulated_time_ns"].as_u64().unwrap();
    assert!(end(&m) > end(&v), "measured detection takes longer: {} vs {}", end(&m), end(&v));
    assert_eq!(m["ssd"]["variation"]["detections"], m["ssd"]["erases"]);
}

#[test]
fn blocks_differ_under_variation_and_the_seed_draws_them() {
    let a = synthetic(&["device.variation.enabled=true", "ftl.precondition.pe_cycles=9000"]);
    let steps = a["ssd"]["variation"]["detected_steps"].as_array().unwrap().clone();
    assert!(steps.iter().filter(|e| e["blocks"].as_u64().unwrap() > 0).count() >= 3, "{steps:?}");
    let b = synthetic(&["device.variation.enabled=true", "ftl.precondition.pe_cycles=9000", "seed=4"]);
    assert_ne!(a["ssd"]["variation"]["detected_steps"], b["ssd"]["variation"]["detected_steps"]);
}

/// Detected speeds of vios2016's 1,048,576 blocks at VIOS's four wear stages: a golden file (bless
/// with `FLASHSCHED_BLESS=1`), and each stage's shares within 0.5 points of the distribution
/// computed independently from the truncated Gaussian's CDF (docs/device.md gives the formula).
#[test]
fn vios_wear_stage_speed_histograms_match_golden_and_the_exact_distribution() {
    // Percent of blocks per step, 0.60 V down to 0.30 V (exact distribution, rounded to 0.1).
    let exact: [(u32, [f64; 11]); 4] = [
        (6_000, [2.6, 5.0, 14.3, 31.5, 35.8, 10.5, 0.1, 0.0, 0.0, 0.0, 0.0]),
        (9_000, [0.0, 0.2, 0.5, 1.6, 5.9, 19.9, 42.7, 27.7, 1.4, 0.0, 0.0]),
        (12_000, [0.0, 0.0, 0.0, 0.1, 0.5, 1.7, 7.4, 27.7, 49.4, 13.3, 0.0]),
        (15_000, [0.0, 0.0, 0.0, 0.0, 0.0, 0.2, 0.9, 4.5, 21.2, 53.2, 20.0]),
    ];
    let mut golden = serde_json::Map::new();
    for (pe, want) in exact {
        let s = config::load(
            Some("vios2016"),
            None,
            &[
                "workload.kind=synthetic".into(),
                "workload.synthetic.requests=1".into(),
                "device.variation.enabled=true".into(),
                format!("ftl.precondition.pe_cycles={pe}"),
            ],
        )
        .unwrap();
        let r = run(&s, &RunOptions::default(), &mut |_| true).unwrap();
        let steps = r.json["ssd"]["variation"]["detected_steps"].clone();
        let blocks: Vec<u64> = steps.as_array().unwrap().iter().map(|e| e["blocks"].as_u64().unwrap()).collect();
        let total: u64 = blocks.iter().sum();
        assert_eq!(total, 1 << 20);
        for (i, (&b, &w)) in blocks.iter().zip(&want).enumerate() {
            let got = 100.0 * b as f64 / total as f64;
            assert!((got - w).abs() <= 0.5, "{pe} P/E, step {}: {got:.2}% of blocks, exact {w}%", 0.60 - 0.03 * i as f64);
        }
        golden.insert(format!("{pe}"), steps);
    }
    let got = serde_json::to_string_pretty(&golden).unwrap() + "\n";
    super::check_golden("vios2016_speeds.json", &got);
}

#[test]
fn a_256_gib_drive_keeps_its_device_state_small_and_lazy() {
    // bench8x8 is 256 GiB of 4 KiB pages (64 Mi pages, 1 Mi blocks). Under variation with a
    // non-native program mode the model keeps per-block speeds, and with LDPC levels (whose reads
    // look up the mode their page was programmed in) 2 bits per page, the page part allocated
    // only once a page is programmed in a mode other than the default. Without LDPC levels
    // nothing reads a page's mode, and none is kept.
    use flashsched::ftl::Ftl;
    use flashsched::nand::latency::{LatencyModel, NandCtx, NandOp, NandOpKind, ProgramMode};
    use flashsched::nand::Layout;
    for ldpc in [true, false] {
        let s = config::load(Some("bench8x8"), None, &["device.variation.enabled=true".to_string(), format!("device.ldpc.enabled={ldpc}")]).unwrap();
        let layout = Layout::new(&s.geometry);
        assert_eq!(layout.pages(), 64 << 20);
        let ftl = Ftl::new(layout, s.logical_pages(), s.gc_floor_blocks());
        let mut lat = LatencyModel::from_settings(&s, &ftl);
        let before = lat.state_bytes();
        assert_eq!(before.per_page, 0, "no page state before a page is programmed in a chosen mode");
        assert!(before.per_block > 0 && before.per_block < 16 << 20, "{before:?}");
        let ctx = NandCtx { layout: &layout, now: 0, wear: &ftl };
        for ppn in [0, layout.pages() as u32 - 1] {
            lat.cost(&NandOp { kind: NandOpKind::Program, ppn, plane: layout.plane_of(ppn), mode: ProgramMode::Fast, bytes: 4096 }, &ctx);
        }
        let after = lat.state_bytes();
        assert_eq!(after.per_page, if ldpc { (64 << 20) / 4 } else { 0 }, "2 bits a page once touched, with LDPC levels (ldpc = {ldpc})");
        assert!(after.per_block + after.per_page < 64 << 20, "{after:?}");
    }
}
