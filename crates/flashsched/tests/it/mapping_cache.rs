//! The cached mapping table (`ftl.mapping_cache.*`) in whole runs on the `tiny` preset, latencies
//! by hand (main.rs `tiny`: command 1 us, tR 50 us, tPROG 500 us, 40.96 us a 4 KiB page on the
//! channel, so a translation read's 512-byte sector takes 5.12 us). Entries of 8 bytes; the
//! translation page of lpn 0-99 is translation page 0, on lpn 0's die (channel 0); lpn 1 is on
//! channel 1, lpn 2 on channel 0's other chip.

use super::tiny::{CMD, PAGE, T_PROG, T_R, XFER};
use super::{latencies, req, run_lines};

const READ: u64 = CMD + T_R + XFER;
const PROGRAM: u64 = CMD + XFER + T_PROG;
/// A translation read: the command, tR, one 512-byte sector out.
const MAP_READ: u64 = CMD + T_R + 5_120;

fn mapping(entries: u64, extra: &[&'static str]) -> Vec<String> {
    let mut v = vec![format!("ftl.mapping_cache.capacity={}", entries * 8), "ftl.mapping_cache.entry_size=8".to_string()];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn sets(v: &[String]) -> Vec<&str> {
    v.iter().map(|s| s.as_str()).collect()
}

#[test]
fn a_miss_reads_the_translation_page_before_the_data() {
    let lines = [req(0, 0, PAGE, true), req(1_000_000, 0, PAGE, true), req(2_000_000, PAGE, PAGE, true)];
    let s = mapping(8, &[]);
    let r = run_lines("tiny", "map-miss", &lines, &sets(&s));
    // lpn 1's entry is its own (entries are per page): a miss too; its translation page is on
    // channel 0 and its data on channel 1.
    assert_eq!(latencies(&r), vec![MAP_READ + READ, READ, MAP_READ + READ]);
    let first = r.request_log.iter().find(|x| x.arrival_ns == 0).unwrap();
    assert_eq!((first.stages.mapping, first.stages.array), (MAP_READ, T_R), "the wait for the entry is the mapping stage");
    let m = &r.json["ssd"]["mapping_cache"];
    assert_eq!((m["read_lookups"].as_u64(), m["read_misses"].as_u64(), m["translation_reads"].as_u64()), (Some(3), Some(2), Some(2)));
    assert_eq!(m["entries"], 8);
    assert_eq!(r.json["ssd"]["nand_pages_read"], 5, "two translation reads and three data reads");
}

#[test]
fn misses_on_one_translation_page_share_its_read() {
    let s = mapping(8, &[]);
    let r = run_lines("tiny", "map-share", &[req(0, 0, 2 * PAGE, true)], &sets(&s));
    assert_eq!(latencies(&r), vec![MAP_READ + READ], "lpn 0 and lpn 1 on two channels after one read");
    let m = &r.json["ssd"]["mapping_cache"];
    assert_eq!((m["read_misses"].as_u64(), m["translation_reads"].as_u64()), (Some(2), Some(1)));
}

#[test]
fn a_write_waits_for_its_entry_and_makes_it_dirty() {
    let s = mapping(8, &[]);
    let r = run_lines("tiny", "map-write", &[req(0, 0, PAGE, false), req(1_000_000, 0, PAGE, false)], &sets(&s));
    assert_eq!(latencies(&r), vec![MAP_READ + PROGRAM, PROGRAM]);
    let m = &r.json["ssd"]["mapping_cache"];
    assert_eq!((m["write_lookups"].as_u64(), m["write_misses"].as_u64()), (Some(2), Some(1)));
}

/// Two entries, sixteen to a translation page (256 bytes each: translation page 0 holds lpn 0-15
/// and lives on lpn 0's die, page 1 holds lpn 16-31 on lpn 1's, channel 1). lpn 0 written
/// (dirty), lpn 1 read (clean), then lpn 18 (channel 0, the other chip) read evicts lpn 0:
/// translation page 0 is written back (a merge read of the sector holding lpn 1's clean entry,
/// then the page's program on channel 0) while lpn 18's own miss reads translation page 1 on
/// channel 1.
fn write_back_run(extra: &[&'static str]) -> flashsched::RunResult {
    let lines = [req(0, 0, PAGE, false), req(1_000_000, PAGE, PAGE, true), req(2_000_000, 18 * PAGE, PAGE, true)];
    let mut e = vec!["ftl.mapping_cache.translation_entry_size=256"];
    e.extend_from_slice(extra);
    let s = mapping(2, &e);
    run_lines("tiny", "map-writeback", &lines, &sets(&s))
}

#[test]
fn a_dirty_entry_leaving_writes_its_translation_page_back() {
    let r = write_back_run(&[]);
    let ssd = &r.json["ssd"];
    let m = &ssd["mapping_cache"];
    assert_eq!((m["evictions"].as_u64(), m["write_backs"].as_u64(), m["merge_reads"].as_u64()), (Some(1), Some(1), Some(1)));
    assert_eq!(m["translation_reads"], 3, "one for each miss");
    assert_eq!(m["translation_programs"], 1);
    assert_eq!(m["entries_per_translation_page"], 16);
    assert_eq!(ssd["nand_pages_written"], 2, "lpn 0 and the translation page");
    assert_eq!((ssd["write_amplification"].as_f64(), ssd["write_amplification_data"].as_f64()), (Some(2.0), Some(1.0)));
    // lpn 18's data read (channel 0) waits for the translation page's command and data-in, which
    // took channel 0 when the merge read ended, as its own translation read did on channel 1.
    assert_eq!(latencies(&r)[2], MAP_READ + CMD + XFER + READ);
}

#[test]
fn mqsim_s_translation_programs_never_run_and_their_pages_depart() {
    let r = write_back_run(&["ftl.mapping_cache.translation_writes=\"never\""]);
    let ssd = &r.json["ssd"];
    let m = &ssd["mapping_cache"];
    assert_eq!((m["translation_programs"].as_u64(), m["translation_programs_never_run"].as_u64(), m["departing_pages"].as_u64()), (Some(0), Some(1), Some(1)));
    assert_eq!(ssd["nand_pages_written"], 1);
    assert_eq!(latencies(&r)[2], MAP_READ + READ, "no program in the way");
}

#[test]
fn the_ideal_table_is_the_default_and_costs_nothing() {
    let r = run_lines("tiny", "map-ideal", &[req(0, 0, PAGE, true)], &[]);
    assert_eq!(latencies(&r), vec![READ]);
    assert!(r.json["ssd"].get("mapping_cache").is_none());
}
