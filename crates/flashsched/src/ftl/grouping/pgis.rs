//! `pgis`: the write half of PGIS (Guo, Hu, Mao and Wu, IPDPS 2017), RECONSTRUCTED from its
//! abstract (spec §6; the hotness test and its thresholds are not published in what we could
//! read): hot written data is grouped into the same blocks so that GC finds them mostly invalid.
//!
//! Hotness is a counting table over logical pages: each write of a page adds one to its counter,
//! and every `ftl.pgis.decay_writes` page writes every counter is halved (done lazily: a counter
//! keeps the decay epoch it was last brought up to date in). A page is hot when its counter,
//! after the write, reaches `ftl.pgis.threshold`; hot writes go to the hot stream's open block,
//! the rest to the default one; both open their blocks oldest-erased first, as the baseline does.
//!
//! PGIS's read half (hot reads issued so that consecutive dispatches go to different channels) is
//! not reconstructed: here every die has its own queue and channels serve their dies in
//! parallel, so the order in which reads to different channels are dispatched does not delay
//! any of them. The Pattern paper compares against PGIS's write grouping (with SWL added).

use serde_json::{json, Value};

use super::{HotBits, WriteGrouping};
use crate::ftl::{OpenRule, Stream, STREAMS};
use crate::nand::Lpn;

/// Counter bits of a table entry; the rest hold the decay epoch.
const COUNT_BITS: u32 = 8;
const COUNT_MASK: u32 = (1 << COUNT_BITS) - 1;

pub struct Pgis {
    /// Per logical page: decay epoch << 8 | count (saturating at 255).
    table: Vec<u32>,
    hot: HotBits,
    decay: u64,
    threshold: u32,
    writes: u64,
    hot_writes: u64,
}

impl Pgis {
    pub fn new(pages: u64, decay_writes: u64, threshold: u32) -> Self {
        Pgis { table: vec![0; pages as usize], hot: HotBits::new(pages), decay: decay_writes.max(1), threshold, writes: 0, hot_writes: 0 }
    }

    /// Count one write of `lpn` and return its counter.
    fn count(&mut self, lpn: Lpn) -> u32 {
        // Epochs wrap at 2^24 (2^24 decay periods); halving a counter 8 or more times clears it.
        let epoch = ((self.writes / self.decay) & 0xFF_FFFF) as u32;
        let e = &mut self.table[lpn as usize];
        let (last, c) = (*e >> COUNT_BITS, *e & COUNT_MASK);
        let age = epoch.wrapping_sub(last) & 0xFF_FFFF;
        let c = if age >= COUNT_BITS { 0 } else { c >> age };
        let c = (c + 1).min(COUNT_MASK);
        *e = epoch << COUNT_BITS | c;
        self.writes += 1;
        c
    }
}

impl WriteGrouping for Pgis {
    fn name(&self) -> &'static str {
        "pgis"
    }

    fn on_request(&mut self, write: bool, lpns: &[Lpn]) {
        if !write {
            return;
        }
        for &lpn in lpns {
            let hot = self.count(lpn) >= self.threshold;
            self.hot_writes += hot as u64;
            self.hot.set(lpn, hot);
        }
    }

    fn stream(&self, lpn: Lpn) -> Stream {
        self.hot.stream(lpn)
    }

    fn open_rules(&self) -> [OpenRule; STREAMS] {
        // Wear leveling's stream always opens its most erased block.
        [OpenRule::Oldest, OpenRule::Oldest, OpenRule::Oldest, OpenRule::MostWorn, OpenRule::Oldest]
    }

    fn report(&self) -> Value {
        json!({
            "policy": "pgis",
            "reconstruction": "PGIS (IPDPS 2017) write grouping, reconstructed from its abstract (spec §6)",
            "write_pages": self.writes,
            "hot_write_pages": self.hot_writes,
        })
    }

    fn memory_bytes(&self) -> usize {
        self.table.len() * 4 + self.hot.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::{STREAM_DEFAULT, STREAM_HOT};

    #[test]
    fn a_page_turns_hot_at_the_threshold_and_cools_with_decay() {
        let mut p = Pgis::new(100, 8, 3);
        p.on_request(true, &[5]);
        p.on_request(true, &[5]);
        assert_eq!(p.stream(5), STREAM_DEFAULT, "2 writes < 3");
        p.on_request(true, &[5]);
        assert_eq!(p.stream(5), STREAM_HOT);
        p.on_request(false, &[5, 5, 5]);
        assert_eq!(p.writes, 3, "reads do not count");
        // 5 more writes elsewhere: 8 writes, epoch 1; page 5's count 3 halves to 1, then + 1 = 2.
        p.on_request(true, &[1, 2, 3, 4, 6]);
        p.on_request(true, &[5]);
        assert_eq!(p.stream(5), STREAM_DEFAULT, "decayed below the threshold");
        assert_eq!(p.table[5] & COUNT_MASK, 2);
        // Long idle: eight or more halvings clear it.
        for _ in 0..100 {
            p.on_request(true, &[7]);
        }
        assert_eq!(p.count(5), 1);
    }
}
