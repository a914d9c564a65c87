//! `cache.*`: the controller's DRAM data cache, resolved and checked. The cache itself is
//! `crate::cache` and `sim::cache`; the DRAM's timing is resolved straight into its model
//! (`crate::cache::dram`, which imports nothing of the simulator's).

use super::settings::ResolvedMap;
use super::Settings;
use crate::cache::dram::{Dram, Formula};

/// `cache.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheMode {
    Off,
    /// Writes are cached (MQSim's WRITE_CACHE).
    Write,
    /// Writes, and pages read from flash (MQSim's WRITE_READ_CACHE).
    ReadWrite,
    /// SSDSim's buffer: sector-counted nodes, a flat 1 us, writes waiting for their evictions.
    Ssdsim,
}

/// `cache.*`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheSettings {
    pub mode: CacheMode,
    pub capacity_bytes: u64,
    pub eviction: String,
    /// `cache.writeback_limit` (0: one page per plane).
    pub writeback_limit_bytes: u64,
    pub evicted_readable: bool,
    pub cold_write_through: bool,
    /// `cache.dram.*`.
    pub dram: Dram,
}

impl CacheSettings {
    pub fn from_resolved(r: &ResolvedMap) -> Self {
        CacheSettings {
            mode: match r.str("cache.mode") {
                "write" => CacheMode::Write,
                "read_write" => CacheMode::ReadWrite,
                "ssdsim" => CacheMode::Ssdsim,
                _ => CacheMode::Off,
            },
            capacity_bytes: r.bytes("cache.capacity"),
            eviction: r.str("cache.eviction").to_string(),
            writeback_limit_bytes: r.bytes("cache.writeback_limit"),
            evicted_readable: r.bool("cache.evicted_readable"),
            cold_write_through: r.bool("cache.cold_write_through"),
            dram: Dram {
                t_rcd_ns: r.ns("cache.dram.t_rcd"),
                t_cl_ns: r.ns("cache.dram.t_cl"),
                t_rp_ns: r.ns("cache.dram.t_rp"),
                row_bytes: r.bytes("cache.dram.row_size"),
                burst_bytes: r.bytes("cache.dram.burst"),
                clock_mhz: r.int("cache.dram.clock_mhz") as u64,
                formula: if r.str("cache.dram.formula") == "mqsim" { Formula::Mqsim } else { Formula::Rows },
            },
        }
    }

    pub fn on(&self) -> bool {
        self.mode != CacheMode::Off
    }
}

/// `ftl.mapping_cache.*`, resolved (sizes 0 still mean "MQSim's formula": `entry_bytes`).
#[derive(Debug, Clone, PartialEq)]
pub struct MappingCacheSettings {
    pub capacity_bytes: u64,
    pub entry_size: u64,
    pub translation_entry_size: u64,
    /// `translation_writes = "program"`.
    pub program_translations: bool,
    pub clean_touches: bool,
    pub unwritten_read_dirty: bool,
    pub last_page_on_flash: bool,
}

impl MappingCacheSettings {
    pub fn from_resolved(r: &ResolvedMap) -> Self {
        MappingCacheSettings {
            capacity_bytes: r.bytes("ftl.mapping_cache.capacity"),
            entry_size: r.bytes("ftl.mapping_cache.entry_size"),
            translation_entry_size: r.bytes("ftl.mapping_cache.translation_entry_size"),
            program_translations: r.str("ftl.mapping_cache.translation_writes") == "program",
            clean_touches: r.bool("ftl.mapping_cache.clean_touches"),
            unwritten_read_dirty: r.bool("ftl.mapping_cache.unwritten_read_dirty"),
            last_page_on_flash: r.bool("ftl.mapping_cache.last_page_on_flash"),
        }
    }

    pub fn on(&self) -> bool {
        self.capacity_bytes > 0
    }

    /// (Bytes of a cached entry, bytes of an entry in a translation page) on a drive of
    /// `physical_pages` pages of `sectors` sectors: the keys, or MQSim's formulas for 0
    /// (Address_Mapping_Unit_Page_Level's constructor).
    pub fn entry_bytes(&self, physical_pages: u64, sectors: u64) -> (u64, u64) {
        let bits = (physical_pages.max(2) as f64).log2();
        let cmt = if self.entry_size > 0 { self.entry_size } else { ((2.0 * bits + sectors as f64) / 8.0).ceil() as u64 };
        let gtd = if self.translation_entry_size > 0 { self.translation_entry_size } else { ((bits + sectors as f64) / 8.0).ceil() as u64 };
        (cmt, gtd)
    }
}

/// The keys of the data cache that SSDSim's buffer (`cache.mode = "ssdsim"`) has no use for.
const SSDSIM_UNUSED: [&str; 11] = [
    "cache.eviction",
    "cache.writeback_limit",
    "cache.evicted_readable",
    "cache.cold_write_through",
    "cache.dram.t_rcd",
    "cache.dram.t_cl",
    "cache.dram.t_rp",
    "cache.dram.row_size",
    "cache.dram.burst",
    "cache.dram.clock_mhz",
    "cache.dram.formula",
];

/// The configuration errors of the data cache, with their key paths.
pub fn validate(s: &Settings, err: &mut dyn FnMut(&str, String)) {
    let m = &s.mapping_cache;
    if (m.on() || s.cache.on()) && s.resolved.int("host.queue_length") > 0 {
        let key = if s.cache.on() { "cache.mode" } else { "ftl.mapping_cache.capacity" };
        err(key, "cannot run with SSDSim's admission cap (host.queue_length > 0): the cap sets the clock back, before work the controller's DRAM started".into());
    }
    if m.on() {
        let g = &s.geometry;
        let (cmt, gtd) = m.entry_bytes(g.pages(), g.page_size as u64 / 512);
        if m.capacity_bytes < cmt {
            err("ftl.mapping_cache.capacity", format!("holds no entry: it must be at least one entry of {cmt} bytes (got {}; 0 keeps the whole table in DRAM)", m.capacity_bytes));
        }
        if gtd > g.page_size as u64 {
            err("ftl.mapping_cache.translation_entry_size", format!("{gtd} bytes do not fit in a page of {}", g.page_size));
        } else {
            // The translation pages live in the over-provisioned space beside GC's room.
            let logical = s.logical_pages();
            let pages = logical.div_ceil(g.page_size as u64 / gtd);
            let spare = g.pages() - logical;
            if pages > spare / 2 {
                err("ftl.mapping_cache.translation_entry_size", format!("the mapping table takes {pages} translation pages ({logical} logical pages, {} entries a page), more than half the {spare} over-provisioned pages: use smaller entries or more over-provisioning", g.page_size as u64 / gtd));
            }
        }
    }
    let c = &s.cache;
    if !c.on() {
        return;
    }
    let ps = s.geometry.page_size as u64;
    if c.capacity_bytes < ps {
        err("cache.capacity", format!("holds no page: it must be at least one page of {ps} bytes (got {})", c.capacity_bytes));
    }
    if ps / 512 > 64 {
        err("cache.mode", format!("the data cache keeps a 64-bit map of each page's 512-byte sectors: pages of at most 32 KiB (device.geometry.page_size is {ps})"));
    }
    if c.mode == CacheMode::Ssdsim {
        // SSDSim's buffer has none of these: a value given for one would be ignored.
        // (A value other than the default, given by the user: a compatibility profile or a
        // preset sets these for the page cache, and a saved configuration spells out defaults.)
        for key in SSDSIM_UNUSED {
            let origin = s.resolved.origin(key);
            if !s.resolved.is_default(key) && !origin.starts_with("compat ") && !origin.starts_with("preset ") {
                err(key, format!("does not apply to cache.mode = \"ssdsim\" (SSDSim's buffer has no such setting; set by {origin})"));
            }
        }
        return;
    }
    if c.writeback_limit_bytes != 0 && c.writeback_limit_bytes < ps {
        err("cache.writeback_limit", format!("must let at least one page of {ps} bytes be written back (got {}; 0 means one page per plane)", c.writeback_limit_bytes));
    }
    let d = &c.dram;
    if d.row_bytes == 0 {
        err("cache.dram.row_size", "must be positive".into());
    }
    if d.burst_bytes == 0 {
        err("cache.dram.burst", "must be positive".into());
    }
    if d.formula == Formula::Mqsim && d.clock_mhz > 1000 {
        err("cache.dram.clock_mhz", format!("the mqsim formula truncates the cycle, 1000 / clock_mhz, to whole ns: {} MHz gives 0 ns", d.clock_mhz));
    }
}
