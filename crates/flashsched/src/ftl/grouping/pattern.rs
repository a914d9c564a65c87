//! `pattern`: pattern-based write scheduling (Li, Xu, Peng and Liao, 2019; paper 004 §III-B).
//!
//! Requests are counted in windows of `ftl.pattern.window` (1024). The write requests among the
//! first `ftl.pattern.mined_requests` (256) of a window are mined with FP-Growth
//! (`ftl::pattern::fpgrowth`): each write request is one transaction, its items the logical pages
//! it writes [INFER: the paper mines "logical sector numbers of requests"; a page is the unit the
//! FTL places]. The patterns are the maximal itemsets of at least `ftl.pattern.min_size` (3:
//! "more than 2") pages written together in at least `ftl.pattern.min_support` (4) requests
//! [INFER: maximal sets; listing every frequent subset would make one 10-page extent rewritten
//! four times 1,000 patterns, against Table III's 15 per window of 6.4 pages].
//!
//! Matching: the paper's matrix (requests x patterns, counting accesses) is kept as a map from
//! page to the number of the window's patterns holding it; a written page that some pattern holds
//! is a hit and goes to the hot stream, whose blocks open least-erased first ("lightly erased"),
//! the rest to the default stream, opened most-erased first ("heavily erased"). The patterns of
//! a window are mined once its `mined_requests`-th request has entered; until then the previous
//! window's patterns match [INFER: the paper does not say how the first requests of a window are
//! matched; this keeps the scheduler causal].
//!
//! Summarised over the windows, and with `ftl.pattern.keep_windows` also reported per window (`ssd.write_grouping.windows`): patterns, mean pattern size, the FP-tree
//! nodes the mining built (a deterministic measure of its cost; the wall time it took is in the
//! run's `run_info.pattern_mining_s`, apart from the results) and the written pages that hit.

use rustc_hash::FxHashMap;
use serde_json::{json, Value};

use super::{HotBits, WriteGrouping};
use crate::ftl::pattern::fpgrowth::maximal_itemsets;
use crate::ftl::{OpenRule, Stream, STREAMS};
use crate::nand::Lpn;

pub struct Pattern {
    window: u32,
    mined_requests: u32,
    min_support: u32,
    min_size: usize,
    /// Requests seen in the current window.
    seen: u32,
    /// The window's mined write requests (page lists).
    transactions: Vec<Vec<u32>>,
    /// Page -> patterns of the active set holding it.
    members: FxHashMap<Lpn, u32>,
    hot: HotBits,
    /// Over the mined windows: their number, patterns, summed pattern sizes, FP-tree nodes, and
    /// the most patterns one window had (a run's summary does not grow with its windows).
    mined: u64,
    patterns: u64,
    items: u64,
    nodes: u64,
    most_patterns: u32,
    /// Per mined window, kept only with `ftl.pattern.keep_windows`: patterns, summed pattern
    /// sizes, FP-tree nodes, written pages that hit while its patterns were active.
    windows: Option<Vec<(u32, u32, u64, u64)>>,
    write_pages: u64,
    hit_pages: u64,
    /// Wall-clock time spent mining, ns (not part of the results: machine-dependent).
    mining_wall_ns: u64,
}

impl Pattern {
    pub fn new(pages: u64, window: u32, mined_requests: u32, min_support: u32, min_size: usize, keep_windows: bool) -> Self {
        Pattern {
            window: window.max(1),
            mined_requests: mined_requests.max(1),
            min_support,
            min_size,
            seen: 0,
            transactions: Vec::new(),
            members: FxHashMap::default(),
            hot: HotBits::new(pages),
            mined: 0,
            patterns: 0,
            items: 0,
            nodes: 0,
            most_patterns: 0,
            windows: keep_windows.then(Vec::new),
            write_pages: 0,
            hit_pages: 0,
            mining_wall_ns: 0,
        }
    }

    fn mine(&mut self) {
        let started = std::time::Instant::now();
        let (sets, nodes) = maximal_itemsets(&self.transactions, self.min_support, self.min_size);
        self.mining_wall_ns += started.elapsed().as_nanos() as u64;
        self.members.clear();
        for s in &sets {
            for &i in &s.items {
                *self.members.entry(i).or_default() += 1;
            }
        }
        let size: usize = sets.iter().map(|s| s.items.len()).sum();
        self.mined += 1;
        self.patterns += sets.len() as u64;
        self.items += size as u64;
        self.nodes += nodes;
        self.most_patterns = self.most_patterns.max(sets.len() as u32);
        if let Some(w) = self.windows.as_mut() {
            w.push((sets.len() as u32, size as u32, nodes, 0));
        }
        self.transactions.clear();
    }
}

impl WriteGrouping for Pattern {
    fn name(&self) -> &'static str {
        "pattern"
    }

    fn on_request(&mut self, write: bool, lpns: &[Lpn]) {
        if self.seen == self.window {
            self.seen = 0;
        }
        self.seen += 1;
        if write {
            let mut hits = 0u64;
            for &lpn in lpns {
                let hit = self.members.contains_key(&lpn);
                hits += hit as u64;
                self.hot.set(lpn, hit);
            }
            self.write_pages += lpns.len() as u64;
            self.hit_pages += hits;
            if let Some(w) = self.windows.as_mut().and_then(|w| w.last_mut()) {
                w.3 += hits;
            }
            if self.seen <= self.mined_requests {
                self.transactions.push(lpns.to_vec());
            }
        }
        if self.seen == self.mined_requests {
            self.mine();
        }
    }

    fn stream(&self, lpn: Lpn) -> Stream {
        self.hot.stream(lpn)
    }

    fn open_rules(&self) -> [OpenRule; STREAMS] {
        // Default stream (misses, and routine GC's moves): heavily erased blocks; hot stream
        // (hits): lightly erased ones; the migration stream pins its blocks itself; wear
        // leveling's, heavily erased (set by the FTL whatever a policy says); the mapping
        // table's, the oldest.
        [OpenRule::MostWorn, OpenRule::LeastWorn, OpenRule::Oldest, OpenRule::MostWorn, OpenRule::Oldest]
    }

    fn report(&self) -> Value {
        let r3 = |x: f64| (x * 1000.0).round() / 1000.0;
        let mut v = json!({
            "policy": "pattern",
            "windows_mined": self.mined,
            "patterns_per_window": r3(self.patterns as f64 / self.mined.max(1) as f64),
            "patterns_per_window_max": self.most_patterns,
            "mean_pattern_size": r3(if self.patterns > 0 { self.items as f64 / self.patterns as f64 } else { 0.0 }),
            "mining_nodes": self.nodes,
            "write_pages": self.write_pages,
            "hit_pages": self.hit_pages,
            "hit_share": r3(self.hit_pages as f64 / self.write_pages.max(1) as f64),
        });
        if let Some(w) = &self.windows {
            v["windows"] = json!({
                "patterns": w.iter().map(|w| w.0).collect::<Vec<_>>(),
                "mean_size": w.iter().map(|w| r3(if w.0 > 0 { w.1 as f64 / w.0 as f64 } else { 0.0 })).collect::<Vec<_>>(),
                "mining_nodes": w.iter().map(|w| w.2).collect::<Vec<_>>(),
                "hit_pages": w.iter().map(|w| w.3).collect::<Vec<_>>(),
            });
        }
        v
    }

    fn memory_bytes(&self) -> usize {
        self.hot.bytes() + self.members.capacity() * 8
    }

    fn wall_ns(&self) -> Option<(u64, u64)> {
        Some((self.mining_wall_ns, self.mined))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ftl::{STREAM_DEFAULT, STREAM_HOT};

    #[test]
    fn a_set_rewritten_four_times_in_the_mined_part_is_a_pattern_for_the_rest_of_the_window() {
        // Windows of 8 requests, the first 6 mined, support 4, patterns of 3+ pages.
        let mut p = Pattern::new(1000, 8, 6, 4, 3, true);
        let set = [10, 11, 12, 13];
        for _ in 0..4 {
            p.on_request(true, &set);
        }
        assert_eq!(p.stream(10), STREAM_DEFAULT, "nothing mined before the 6th request");
        p.on_request(false, &[10]);
        p.on_request(true, &[10, 11]); // a 6th request: mining happens now
        assert_eq!(p.windows, Some(vec![(1, 4, 4, 0)]), "one pattern of 4 pages");
        p.on_request(true, &[12, 99]);
        assert_eq!((p.stream(12), p.stream(99)), (STREAM_HOT, STREAM_DEFAULT));
        assert_eq!(p.windows.as_ref().unwrap()[0].3, 1);
        p.on_request(true, &[13]); // the window's 8th request
        assert_eq!(p.stream(13), STREAM_HOT);
        // A new window: its first 6 requests still match the old patterns, then its own (none).
        p.on_request(true, &[11]);
        assert_eq!(p.stream(11), STREAM_HOT);
        for _ in 0..5 {
            p.on_request(true, &[500]);
        }
        assert_eq!(p.windows.as_ref().unwrap().len(), 2);
        assert_eq!(p.windows.as_ref().unwrap()[1].0, 0, "single pages are no pattern");
        p.on_request(true, &[13]);
        assert_eq!(p.stream(13), STREAM_DEFAULT);
        let r = p.report();
        assert_eq!(r["patterns_per_window"], 0.5);
        assert_eq!(r["mean_pattern_size"], 4.0);
    }
}
