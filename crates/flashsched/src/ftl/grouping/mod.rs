//! Write grouping: which open block (write stream, `ftl::STREAM_*`) a host write goes to, so that
//! data likely to die together shares blocks and GC finds victims with few valid pages. One
//! policy per file. A policy sees every request as it enters the device and decides, for each
//! page it writes, its stream; the FTL keeps one open block per stream in every plane and opens
//! each stream's blocks by the policy's rule (`OpenRule`; wear leveling's own stream always opens
//! its most erased block). Routine GC's moves go to the default stream.

mod pattern;
mod pgis;

pub use pattern::Pattern;
pub use pgis::Pgis;

use serde_json::Value;

use super::{OpenRule, Stream, STREAMS, STREAM_DEFAULT, STREAM_HOT};
use crate::config::Settings;
use crate::nand::Lpn;

/// A write-grouping policy (`ftl.write_grouping`).
pub trait WriteGrouping: Send {
    fn name(&self) -> &'static str;
    /// A request entered the device: `lpns` are the logical pages it reads or writes, in order.
    /// Reads count too (windows are counted in requests).
    fn on_request(&mut self, write: bool, lpns: &[Lpn]);
    /// The stream a host write of `lpn` programs into (decided when its request entered).
    fn stream(&self, lpn: Lpn) -> Stream;
    /// Which free block each stream opens.
    fn open_rules(&self) -> [OpenRule; STREAMS];
    /// What it did (`ssd.write_grouping`).
    fn report(&self) -> Value;
    /// Bytes its tables use.
    fn memory_bytes(&self) -> usize;
    /// Wall-clock time spent deciding (mining), ns, and how many times it ran: machine-dependent,
    /// so reported apart from the results (`run_info`).
    fn wall_ns(&self) -> Option<(u64, u64)> {
        None
    }
}

/// The policy `ftl.write_grouping` names, or `None` for `none`.
pub fn build(s: &Settings) -> Option<Box<dyn WriteGrouping>> {
    let r = &s.resolved;
    let pages = s.logical_pages();
    match r.str("ftl.write_grouping") {
        "none" => None,
        "pgis" => Some(Box::new(Pgis::new(pages, r.int("ftl.pgis.decay_writes") as u64, r.int("ftl.pgis.threshold") as u32))),
        "pattern" => Some(Box::new(Pattern::new(
            pages,
            r.int("ftl.pattern.window") as u32,
            r.int("ftl.pattern.mined_requests") as u32,
            r.int("ftl.pattern.min_support") as u32,
            r.int("ftl.pattern.min_size") as usize,
            r.bool("ftl.pattern.keep_windows"),
        ))),
        other => unreachable!("write grouping {other} passed validation"),
    }
}

/// One bit per logical page: the stream decided for its latest write (set: hot).
#[derive(Debug, Clone)]
pub(crate) struct HotBits(Vec<u64>);

impl HotBits {
    pub fn new(pages: u64) -> Self {
        // calloc'd: untouched parts of a large logical space cost nothing.
        HotBits(vec![0; pages.div_ceil(64) as usize])
    }
    #[inline]
    pub fn set(&mut self, lpn: Lpn, hot: bool) {
        let (w, b) = ((lpn / 64) as usize, lpn % 64);
        if hot {
            self.0[w] |= 1 << b;
        } else {
            self.0[w] &= !(1 << b);
        }
    }
    #[inline]
    pub fn stream(&self, lpn: Lpn) -> Stream {
        if self.0[(lpn / 64) as usize] & (1 << (lpn % 64)) != 0 { STREAM_HOT } else { STREAM_DEFAULT }
    }
    pub fn bytes(&self) -> usize {
        self.0.len() * 8
    }
}
