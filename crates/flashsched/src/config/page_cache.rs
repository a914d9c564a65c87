//! `workload.jobs.buffered`, `workload.jobs.fsync` and `workload.page_cache.*`: the settings of
//! buffered jobs and their checks. The page cache itself is `workload::page_cache`; its settings
//! live here, with the rest of the configuration, so that the configuration imports no domain
//! module (the domain modules read it).

use super::settings::ResolvedMap;
use super::Settings;

/// The page size of the page cache (bytes): Linux's 4 KiB.
pub const PAGE: u64 = 4096;

/// `workload.jobs.buffered`, `workload.jobs.fsync` and `workload.page_cache.*`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct PageCacheSettings {
    pub buffered: bool,
    pub fsync: u64,
    pub size: u64,
    pub background_ratio: u32,
    pub dirty_ratio: u32,
    pub interval_ns: u64,
    pub expire_ns: u64,
    pub nr_requests: u32,
    pub max_request: u64,
}

impl PageCacheSettings {
    pub fn from_resolved(r: &ResolvedMap) -> Self {
        PageCacheSettings {
            buffered: r.bool("workload.jobs.buffered"),
            fsync: r.int("workload.jobs.fsync") as u64,
            size: r.bytes("workload.page_cache.size"),
            background_ratio: r.int("workload.page_cache.dirty_background_ratio") as u32,
            dirty_ratio: r.int("workload.page_cache.dirty_ratio") as u32,
            interval_ns: r.ns("workload.page_cache.writeback_interval"),
            expire_ns: r.ns("workload.page_cache.expire"),
            nr_requests: r.int("workload.page_cache.nr_requests") as u32,
            max_request: r.bytes("workload.page_cache.max_request"),
        }
    }

    /// (background, limit) thresholds in pages.
    pub fn thresholds(&self) -> (u64, u64) {
        let pages = self.size / PAGE;
        let limit = pages * self.dirty_ratio as u64 / 100;
        let bg_ratio = if self.background_ratio >= self.dirty_ratio { self.dirty_ratio / 2 } else { self.background_ratio };
        (pages * bg_ratio as u64 / 100, limit)
    }
}

/// The configuration errors of buffered jobs, with their key paths.
pub fn validate(s: &Settings, err: &mut dyn FnMut(&str, String)) {
    let p = &s.workload.page_cache;
    if !p.buffered {
        if p.fsync > 0 {
            err("workload.jobs.fsync", "needs workload.jobs.buffered = true (direct writes have no dirty pages to sync)".into());
        }
        return;
    }
    let j = &s.workload.jobs;
    if j.iodepth != 1 {
        err("workload.jobs.iodepth", format!("must be 1 for buffered jobs: a buffered job makes synchronous read()/write() calls, as fio's psync engine (got {})", j.iodepth));
    }
    if j.bs % PAGE != 0 {
        err("workload.jobs.bs", format!("must be a multiple of the 4 KiB page for buffered jobs (got {})", j.bs));
    }
    if j.offset_increment % PAGE != 0 {
        err("workload.jobs.offset_increment", format!("must be a multiple of the 4 KiB page for buffered jobs (got {})", j.offset_increment));
    }
    let logical = s.logical_bytes();
    let area = job_area(j.size, j.bs, logical);
    if j.numjobs > 1 && j.offset_increment < area {
        err("workload.jobs.offset_increment", format!("buffered jobs write their own files: the job areas must not overlap, so offset_increment must be at least the area of {area} bytes (workload.jobs.size, or the drive when 0)"));
    } else if (j.numjobs as u64 - 1) * j.offset_increment + area > logical {
        err("workload.jobs.offset_increment", format!("the last buffered job's area ends at byte {}, beyond the drive's logical capacity of {logical} bytes", (j.numjobs as u64 - 1) * j.offset_increment + area));
    }
    if p.max_request < PAGE {
        err("workload.page_cache.max_request", format!("must be at least one 4 KiB page (got {})", p.max_request));
    }
    let (bg, limit) = p.thresholds();
    if limit == 0 || bg == 0 {
        err("workload.page_cache.size", format!("leaves no room for dirty pages: the thresholds are {bg} and {limit} pages"));
    }
}

/// Bytes one job addresses (as the closed-loop generator computes it).
pub(crate) fn job_area(size: u64, bs: u64, logical: u64) -> u64 {
    let a = if size == 0 { logical } else { size.min(logical) };
    (a / bs.max(1)).max(1) * bs.max(1)
}

