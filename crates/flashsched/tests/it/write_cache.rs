//! The DRAM data cache (`cache.*`) in whole runs, latencies computed by hand on the `tiny` preset
//! (main.rs `tiny`: command 1 us, tR 50 us, tPROG 500 us, 40.96 us a 4 KiB page on the channel;
//! lpn 0 on channel 0, lpn 1 on channel 1) and the default DRAM: tRCD = tCL = tRP = 14 ns, 8 KiB
//! rows, 4-byte transfers two a cycle at 800 MHz (1.25 ns), so a 4 KiB transfer takes
//! 14 + 14 + 512 cycles x 1.25 = 668 ns, 2 KiB 348 ns and 8 KiB (one row) 1,308 ns.

use super::tiny::{CMD, PAGE, T_PROG, T_R, XFER};
use super::{latencies, req, run_lines};

const DRAM_4K: u64 = 668;
const DRAM_2K: u64 = 348;
const DRAM_8K: u64 = 1_308;
const PROGRAM: u64 = CMD + XFER + T_PROG;
const READ: u64 = CMD + T_R + XFER;

/// A fio v3 iolog of file `f` with `ops` (time in us, then the action).
fn fio_log(ops: &[&str]) -> Vec<String> {
    ["fio version 3 iolog", "0 f add", "0 f open"].iter().chain(ops).map(|l| l.to_string()).collect()
}

fn cache(extra: &[&'static str]) -> Vec<&'static str> {
    let mut v = vec!["cache.mode=\"write\""];
    v.extend_from_slice(extra);
    v
}

#[test]
fn a_write_completes_when_its_data_is_in_dram() {
    let r = run_lines("tiny", "wc-write", &[req(0, 0, PAGE, false), req(10_000, PAGE, 2 * PAGE, false)], &cache(&[]));
    assert_eq!(latencies(&r), vec![DRAM_4K, DRAM_8K], "one DRAM transfer of each request's sectors");
    let s = r.request_log[0].stages;
    assert_eq!((s.cache, s.die_wait, s.array, s.bus), (DRAM_4K, 0, 0, 0), "the whole latency is the cache stage");
    let ssd = &r.json["ssd"];
    assert_eq!(ssd["nand_pages_written"], 0, "nothing reached flash: no eviction, no flush");
    assert_eq!(ssd["host_pages_written"], 3);
    assert_eq!(ssd["cache"]["dirty_pages_end"], 3);
    assert_eq!(ssd["cache"]["dram_transfers"], 2);
}

#[test]
fn the_dram_serves_one_transfer_at_a_time() {
    // Two writes at the same instant: the second's transfer starts when the first's ends.
    let r = run_lines("tiny", "wc-fcfs", &[req(0, 0, PAGE, false), req(0, PAGE, PAGE, false)], &cache(&[]));
    assert_eq!(latencies(&r), vec![DRAM_4K, 2 * DRAM_4K]);
}

#[test]
fn reads_take_cached_sectors_from_dram_and_the_rest_from_flash() {
    let lines = [
        req(0, 0, PAGE, false),
        // A read of the cached page: a DRAM hit.
        req(10_000, 0, PAGE, true),
        // Half of lpn 1 is written, then all of it read: 2 KiB from DRAM, 2 KiB from flash (the
        // page was never programmed: its static plane's page is read, as an unmapped read is).
        req(20_000, PAGE, 2048, false),
        req(30_000, PAGE, PAGE, true),
    ];
    let r = run_lines("tiny", "wc-read", &lines, &cache(&[]));
    assert_eq!(latencies(&r), vec![DRAM_4K, DRAM_4K, DRAM_2K, CMD + T_R + XFER / 2]);
    let c = &r.json["ssd"]["cache"];
    assert_eq!((c["read_hits"].as_u64(), c["read_partial_hits"].as_u64()), (Some(1), Some(1)));
}

#[test]
fn an_evicted_dirty_page_is_read_out_of_dram_and_programmed() {
    // Two slots. lpn 0 and 1 fill them; lpn 2 evicts lpn 0 (least recently used): the DRAM reads
    // its 4 KiB, then takes lpn 2's, and lpn 0 is programmed. A read of lpn 0 while that program
    // runs is served from DRAM (its data is still there); one after it, from flash.
    let lines = [
        req(0, 0, PAGE, false),
        req(10_000, PAGE, PAGE, false),
        req(20_000, 2 * PAGE, PAGE, false),
        req(30_000, 0, PAGE, true),
        req(1_000_000, 0, PAGE, true),
    ];
    let r = run_lines("tiny", "wc-evict", &lines, &cache(&["cache.capacity=\"8KiB\""]));
    assert_eq!(latencies(&r), vec![DRAM_4K, DRAM_4K, 2 * DRAM_4K, DRAM_4K, READ]);
    let ssd = &r.json["ssd"];
    assert_eq!(ssd["nand_pages_written"], 1);
    assert_eq!(ssd["cache"]["programs_evicted"], 1);
    assert!((ssd["write_amplification"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-6, "one page programmed for three written");

    // MQSim frees the slot at once: the read during the program goes to flash and waits for it
    // (the program of lpn 0 began at 20 us + 668 ns; the read is queued behind it).
    let r = run_lines("tiny", "wc-evict-mqsim", &lines, &cache(&["cache.capacity=\"8KiB\"", "cache.evicted_readable=false"]));
    let program_end = 20_000 + DRAM_4K + PROGRAM;
    assert_eq!(latencies(&r)[3], program_end - 30_000 + READ);
}

#[test]
fn a_flush_programs_every_dirty_page_and_waits_for_them() {
    // fio iolog v3: lpn 0 and lpn 1 written, then a sync at 100 us: one DRAM read of both pages,
    // then their programs, in parallel on two channels.
    let lines = fio_log(&["0 f write 0 8192", "100 f sync", "2000 f read 0 4096"]);
    let r = run_lines("tiny", "wc-flush", &lines, &cache(&["workload.trace.format=\"fio\""]));
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    let lat: Vec<u64> = rows.iter().map(|x| x.complete_ns - x.arrival_ns).collect();
    assert_eq!(lat, vec![DRAM_8K, DRAM_8K + PROGRAM, DRAM_4K], "flushed pages stay cached, clean");
    assert_eq!(rows[1].stages.cache, DRAM_8K + PROGRAM);
    let c = &r.json["ssd"]["cache"];
    assert_eq!((c["programs_flush"].as_u64(), c["dirty_pages_end"].as_u64()), (Some(2), Some(0)));
}

#[test]
fn writes_wait_while_the_writeback_limit_is_reached() {
    // One slot, one page of write-back in flight at most. lpn 1 evicts lpn 0 (its program runs
    // from 10 us + 668 ns); lpn 2, at 20 us, must wait for that program to end, then evicts
    // lpn 1 (a DRAM read and its own write).
    let lines = [req(0, 0, PAGE, false), req(10_000, PAGE, PAGE, false), req(20_000, 2 * PAGE, PAGE, false)];
    let r = run_lines("tiny", "wc-limit", &lines, &cache(&["cache.capacity=\"4KiB\"", "cache.writeback_limit=\"4KiB\""]));
    let program_end = 10_000 + DRAM_4K + PROGRAM;
    assert_eq!(latencies(&r), vec![DRAM_4K, 2 * DRAM_4K, program_end + 2 * DRAM_4K - 20_000]);
    assert_eq!(r.json["ssd"]["cache"]["writes_waited"], 1);
    assert_eq!(r.request_log.iter().find(|x| x.offset == 2 * PAGE).unwrap().stages.cache, program_end + 2 * DRAM_4K - 20_000);
}

#[test]
fn read_write_mode_keeps_pages_read_from_flash() {
    let lines = [req(0, 5 * PAGE, PAGE, true), req(200_000, 5 * PAGE, PAGE, true)];
    let r = run_lines("tiny", "wc-rw", &lines, &["cache.mode=\"read_write\""]);
    assert_eq!(latencies(&r), vec![READ, DRAM_4K]);
    let r = run_lines("tiny", "wc-w", &lines, &cache(&[]));
    assert_eq!(latencies(&r), vec![READ, READ], "the write cache does not keep reads");
}

#[test]
fn mqsim_s_hot_cold_filter_writes_a_first_write_through() {
    // The filter is cleared at the first write (lpn 9, forgotten); lpn 0's first write after that
    // is cold: programmed at once, and dropped from the cache when the program ends, so a read
    // after it goes to flash. Its second write is hot: it stays in DRAM.
    let lines = [
        req(0, 9 * PAGE, PAGE, false),
        req(10_000, 0, PAGE, false),
        req(1_000_000, 0, PAGE, true),
        req(1_100_000, 0, PAGE, false),
        req(2_000_000, 0, PAGE, true),
    ];
    let r = run_lines("tiny", "wc-filter", &lines, &cache(&["cache.cold_write_through=true"]));
    assert_eq!(latencies(&r), vec![DRAM_4K, DRAM_4K, READ, DRAM_4K, DRAM_4K]);
    let c = &r.json["ssd"]["cache"];
    assert_eq!(c["programs_write_through"], 2, "lpn 9's write and lpn 0's first");
    assert_eq!(r.json["ssd"]["nand_pages_written"], 2);
}

#[test]
fn a_flush_waits_for_the_programs_even_when_writes_are_acknowledged_at_their_data_in() {
    let lines = fio_log(&["0 f write 0 8192", "100 f sync"]);
    let r = run_lines("tiny", "wc-flush-ack", &lines, &cache(&["workload.trace.format=\"fio\"", "device.write_ack=\"data_in\""]));
    let mut rows = r.request_log.clone();
    rows.sort_by_key(|x| x.arrival_ns);
    assert_eq!(rows[1].complete_ns - rows[1].arrival_ns, DRAM_8K + PROGRAM, "the program, not just its data-in");
}

#[test]
fn ssdsim_s_admission_cap_is_refused_with_the_controller_s_dram() {
    let sets = ["cache.mode=\"write\"".to_string(), "host.queue_length=5".to_string()];
    let e = flashsched::config::load(Some("tiny"), None, &sets).unwrap_err().to_string();
    assert!(e.contains("cache.mode") && e.contains("host.queue_length"), "{e}");
}
