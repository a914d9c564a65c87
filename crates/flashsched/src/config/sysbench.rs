//! `workload.sysbench.*`: sysbench's fileio test (version 0.4, the PASS paper's §4.2) as a
//! workload, and its checks. The workload itself is `workload::sysbench`.

use super::page_cache::PAGE;
use super::settings::ResolvedMap;
use super::Settings;

/// sysbench's `--file-test-mode` values this workload runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SysbenchMode {
    /// `rndrw`: random reads and writes in `file_rw_ratio`.
    RandomReadWrite,
    /// `rndrd`: random reads.
    RandomRead,
    /// `rndwr`: random writes.
    RandomWrite,
}

/// `workload.sysbench.*`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct SysbenchSettings {
    pub threads: u32,
    pub mode: SysbenchMode,
    pub file_num: u32,
    pub total_size: u64,
    pub block_size: u64,
    pub rw_ratio: f64,
    pub fsync_freq: u64,
    pub fsync_end: bool,
    pub max_requests: u64,
    /// `--file-extra-flags=direct`: reads and writes bypass the page cache.
    pub direct: bool,
}

impl SysbenchSettings {
    pub fn from_resolved(r: &ResolvedMap) -> Self {
        SysbenchSettings {
            threads: r.int("workload.sysbench.threads") as u32,
            mode: match r.str("workload.sysbench.file_test_mode") {
                "rndrd" => SysbenchMode::RandomRead,
                "rndwr" => SysbenchMode::RandomWrite,
                _ => SysbenchMode::RandomReadWrite,
            },
            file_num: r.int("workload.sysbench.file_num") as u32,
            total_size: r.bytes("workload.sysbench.file_total_size"),
            block_size: r.bytes("workload.sysbench.file_block_size"),
            rw_ratio: r.float("workload.sysbench.file_rw_ratio"),
            fsync_freq: r.int("workload.sysbench.file_fsync_freq") as u64,
            fsync_end: r.bool("workload.sysbench.file_fsync_end"),
            max_requests: r.int("workload.sysbench.max_requests") as u64,
            direct: r.str("workload.sysbench.io") == "direct",
        }
    }

    /// Bytes of one file: the total split evenly, rounded down to whole blocks (sysbench's
    /// `file_size = total_size / file_num`, whose random positions are whole blocks).
    pub fn file_size(&self) -> u64 {
        self.total_size / self.file_num.max(1) as u64 / self.block_size.max(1)
            * self.block_size.max(1)
    }
}

/// The configuration errors of the sysbench workload, with their key paths.
pub fn validate(s: &Settings, err: &mut dyn FnMut(&str, String)) {
    if s.workload.kind != "sysbench" {
        return;
    }
    let p = &s.workload.sysbench;
    if s.workload.skip > 0 {
        err("workload.skip", "is not supported by the sysbench workload: its threads share one generator whose fsync series depend on every request handed out (shorten the run with workload.sysbench.max_requests)".into());
    }
    if s.workload.max_requests > 0 {
        // The limit would drop a thread's read or fsync write-back, which the thread would then
        // wait for for ever.
        err("workload.max_requests", "is not supported by the sysbench workload: it would drop requests its threads wait for (set workload.sysbench.max_requests, the calls in all, instead)".into());
    }
    let b = p.block_size;
    let unit = if p.direct { 512 } else { PAGE };
    if b == 0 || b % unit != 0 || b > u32::MAX as u64 {
        let what = if p.direct { "512-byte sector" } else { "4 KiB page (buffered I/O)" };
        err("workload.sysbench.file_block_size", format!("must be a positive multiple of the {what} below 4GiB (got {b})"));
        return;
    }
    if p.file_size() < b {
        err(
            "workload.sysbench.file_total_size",
            format!(
                "gives each of the {} files less than one block of {b} bytes (got {} bytes in all)",
                p.file_num, p.total_size
            ),
        );
    }
    let logical = s.logical_bytes();
    if p.file_size() * p.file_num as u64 > logical {
        err(
            "workload.sysbench.file_total_size",
            format!(
                "the files ({} bytes) do not fit the drive's logical capacity of {logical} bytes",
                p.file_size() * p.file_num as u64
            ),
        );
    }
    if p.mode == SysbenchMode::RandomReadWrite && !(p.rw_ratio > 0.0 && p.rw_ratio.is_finite()) {
        err(
            "workload.sysbench.file_rw_ratio",
            format!(
                "must be a positive number of reads per write (got {})",
                p.rw_ratio
            ),
        );
    }
    if !p.direct {
        // Pages read or written stay cached for the whole run (nothing evicts them): what the run
        // can touch (its calls, at most the files) must fit the cache.
        let touched = p.max_requests.saturating_mul(b).min(p.file_size() * p.file_num as u64);
        let pc = &s.workload.page_cache;
        if touched > pc.size {
            err("workload.sysbench.max_requests", format!("may touch {touched} bytes, more than workload.page_cache.size = {} bytes: the page cache model never evicts, so a buffered run must fit it (raise the size or use io = \"direct\")", pc.size));
        }
        let (bg, limit) = pc.thresholds();
        if limit == 0 {
            err("workload.page_cache.dirty_ratio", format!("leaves no room for dirty pages: {}% of workload.page_cache.size = {} bytes is under one 4 KiB page", pc.dirty_ratio, pc.size));
        } else if bg == 0 && pc.background_ratio > 0 {
            err("workload.page_cache.dirty_background_ratio", format!("gives a background threshold of 0 pages ({}% of {} bytes, halved when not below dirty_ratio, as Linux does)", pc.background_ratio, pc.size));
        }
        if pc.max_request < PAGE {
            err("workload.page_cache.max_request", format!("must be at least one 4 KiB page (got {})", pc.max_request));
        }
    }
}
