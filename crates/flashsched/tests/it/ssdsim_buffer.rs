//! SSDSim's DRAM buffer (`cache.mode = "ssdsim"`) in whole runs, latencies computed by hand on
//! the `tiny` preset (main.rs `tiny`: command 1 us, tR 50 us, tPROG 500 us, 40.96 us a 4 KiB page
//! on the channel; lpn 0 on channel 0, lpn 1 on channel 1). The buffer's capacity counts 512-byte
//! sectors; a request it serves whole takes a flat 1 us.

use super::tiny::{CMD, ONE_DIE, PAGE, T_PROG, T_R, XFER};
use super::{latencies, req, run_lines};

const HIT: u64 = 1_000;
const PROGRAM: u64 = CMD + XFER + T_PROG;
const READ: u64 = CMD + T_R + XFER;

fn buffer(extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["cache.mode=\"ssdsim\""];
    v.extend_from_slice(extra);
    v
}

#[test]
fn writes_and_reads_it_holds_take_one_microsecond() {
    let lines = [req(0, 0, 2 * PAGE, false), req(10_000, 0, PAGE, true), req(20_000, 1024, 1024, true)];
    let r = run_lines("tiny", "sb-hit", &lines, &buffer(&[]));
    assert_eq!(latencies(&r), vec![HIT, HIT, HIT], "no DRAM timing: a flat 1 us whatever the size");
    assert_eq!(r.request_log[0].stages.cache, HIT);
    let ssd = &r.json["ssd"];
    assert_eq!(ssd["nand_pages_written"], 0);
    let c = &ssd["cache"];
    assert_eq!((c["read_hits"].as_u64(), c["buffered_sectors_end"].as_u64(), c["dirty_pages_end"].as_u64()), (Some(2), Some(16), Some(2)));
    assert_eq!(c["dram_transfers"], 0);
}

#[test]
fn capacity_counts_sectors_and_a_write_waits_for_the_nodes_it_pushes_out() {
    // 16 sectors. lpn 0 takes 8, lpn 1 four (2 KiB); lpn 2's 8 do not fit in the 4 left, so lpn 0,
    // the least recently used node, leaves whole and is programmed, and lpn 2's write completes
    // when that program does (SSDSim: the eviction is the write's sub-request).
    let lines = [req(0, 0, PAGE, false), req(10_000, PAGE, 2048, false), req(20_000, 2 * PAGE, PAGE, false)];
    let r = run_lines("tiny", "sb-evict", &lines, &buffer(&["cache.capacity=\"8KiB\""]));
    assert_eq!(latencies(&r), vec![HIT, HIT, PROGRAM]);
    let w = r.request_log.iter().find(|x| x.offset == 2 * PAGE).unwrap();
    assert_eq!(w.stages.cache, PROGRAM, "the wait for the eviction is the write's cache stage");
    let ssd = &r.json["ssd"];
    assert_eq!(ssd["nand_pages_written"], 1);
    assert_eq!((ssd["cache"]["evictions"].as_u64(), ssd["cache"]["programs_evicted"].as_u64()), (Some(1), Some(1)));
    assert_eq!(ssd["cache"]["buffered_sectors_end"], 12);

    // With SSDSim's write completion at data-in, the write waits for the eviction's data-in only.
    let r = run_lines("tiny", "sb-evict-ack", &lines, &buffer(&["cache.capacity=\"8KiB\"", "device.write_ack=\"data_in\""]));
    assert_eq!(latencies(&r), vec![HIT, HIT, CMD + XFER]);
}

#[test]
fn a_write_completes_with_the_last_of_its_evictions() {
    // One die: lpn 0 and lpn 1 fill the 16 sectors; an 8 KiB write of lpn 2 and 3 pushes both
    // out, and their programs take the die one after the other (planes take turns). The write
    // completes with the second.
    let lines = [req(0, 0, PAGE, false), req(10_000, PAGE, PAGE, false), req(20_000, 2 * PAGE, 2 * PAGE, false)];
    let sets = |ack: &'static str| buffer(&["cache.capacity=\"8KiB\"", ONE_DIE[0], ONE_DIE[1], ack]);
    let r = run_lines("tiny", "sb-two", &lines, &sets("device.write_ack=\"program\""));
    assert_eq!(latencies(&r), vec![HIT, HIT, 2 * PROGRAM]);
    assert_eq!(r.json["ssd"]["cache"]["programs_evicted"], 2);
    // At data-in: the second page's data-in follows the first program's end.
    let r = run_lines("tiny", "sb-two-ack", &lines, &sets("device.write_ack=\"data_in\""));
    assert_eq!(latencies(&r), vec![HIT, HIT, PROGRAM + CMD + XFER]);
}

#[test]
fn a_node_that_is_written_again_keeps_its_place_and_others_leave() {
    // lpn 0 (4 sectors) then lpn 1 (8): the 12 sectors are full. Four new sectors of lpn 0 (the
    // least recently used) push out lpn 1, not lpn 0 itself; the write waits for lpn 1's
    // program (channel 1).
    let lines = [req(0, 0, 2048, false), req(10_000, PAGE, PAGE, false), req(20_000, 2048, 2048, false), req(30_000, PAGE, 2048, false)];
    let r = run_lines("tiny", "sb-grow", &lines, &buffer(&["cache.capacity=\"6KiB\""]));
    // lpn 0's four new sectors each need room: the first pushes out lpn 1 (8 sectors), the rest
    // fit. lpn 1 is then written anew: 4 sectors (2 KiB) fit beside lpn 0's 8.
    assert_eq!(latencies(&r), vec![HIT, HIT, PROGRAM, HIT]);
    assert_eq!(r.json["ssd"]["cache"]["write_hits"], 1);
    let w = r.request_log.iter().find(|x| x.offset == 2048).unwrap();
    assert_eq!((w.stages.cache, w.stages.array), (PROGRAM, 0), "the eviction's program is the write's wait in the cache");
}

#[test]
fn reads_take_what_it_holds_and_never_fill_it() {
    let lines = [
        req(0, PAGE, 2048, false),
        // Half of lpn 1 is buffered: the other 2 KiB come from flash (the hit adds no time).
        req(10_000, PAGE, PAGE, true),
        // lpn 5 is read twice from flash: reads do not fill the buffer.
        req(200_000, 5 * PAGE, PAGE, true),
        req(400_000, 5 * PAGE, PAGE, true),
    ];
    let r = run_lines("tiny", "sb-read", &lines, &buffer(&[]));
    assert_eq!(latencies(&r), vec![HIT, CMD + T_R + XFER / 2, READ, READ]);
    let partial = r.request_log.iter().find(|x| x.offset == PAGE && x.arrival_ns == 10_000).unwrap();
    assert_eq!(partial.stages.cache, 0, "the sectors found add no time: the flash read is the whole latency");
    let c = &r.json["ssd"]["cache"];
    assert_eq!((c["read_partial_hits"].as_u64(), c["read_hits"].as_u64()), (Some(1), Some(0)));
}

#[test]
fn a_flush_writes_every_node_back_and_empties_it() {
    let lines: Vec<String> = ["fio version 3 iolog", "0 f add", "0 f open", "0 f write 0 8192", "100 f sync", "2000 f read 0 4096"].iter().map(|s| s.to_string()).collect();
    let r = run_lines("tiny", "sb-flush", &lines, &buffer(&["workload.trace.format=\"fio\""]));
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    let lat: Vec<u64> = rows.iter().map(|x| x.complete_ns - x.arrival_ns).collect();
    // The two pages are programmed in parallel on two channels; the read then finds flash.
    assert_eq!(lat, vec![HIT, PROGRAM, READ]);
    let c = &r.json["ssd"]["cache"];
    assert_eq!((c["programs_flush"].as_u64(), c["buffered_sectors_end"].as_u64()), (Some(2), Some(0)));
}

#[test]
fn settings_it_has_no_use_for_are_refused() {
    let err = |extra: &str| {
        let all = ["cache.mode=\"ssdsim\"".to_string(), extra.to_string()];
        flashsched::config::load(Some("tiny"), None, &all).map(|_| ()).unwrap_err().to_string()
    };
    for key in ["cache.writeback_limit=\"8KiB\"", "cache.evicted_readable=false", "cache.dram.formula=\"mqsim\""] {
        let e = err(key);
        let name = key.split('=').next().unwrap();
        assert!(e.contains(name) && e.contains("does not apply"), "{key}: {e}");
    }
    assert!(err("cache.capacity=\"2KiB\"").contains("cache.capacity"), "less than a page");
}
