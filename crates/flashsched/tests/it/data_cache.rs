//! The DRAM data cache's page bookkeeping (`cache::DataCache` with LRU eviction) against a plain
//! model: a list of pages, most recently used first.

use flashsched::cache::evict::Lru;
use flashsched::cache::{DataCache, Insert, SlotState};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Op {
    Write(u32, u64),
    Fill(u32, u64),
    Read(u32, u64),
    StartFlush(u32),
    /// The end of the program of the `n`-th flush started so far (wrapping), dropping the page
    /// (MQSim's write-through) or not.
    FlushDone(usize, bool),
    Remove(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let lpn = 0u32..12;
    let sectors = 1u64..256;
    prop_oneof![
        4 => (lpn.clone(), sectors.clone()).prop_map(|(l, s)| Op::Write(l, s)),
        2 => (lpn.clone(), sectors.clone()).prop_map(|(l, s)| Op::Fill(l, s)),
        3 => (lpn.clone(), sectors).prop_map(|(l, s)| Op::Read(l, s)),
        2 => lpn.clone().prop_map(Op::StartFlush),
        2 => (0usize..8, any::<bool>()).prop_map(|(n, d)| Op::FlushDone(n, d)),
        1 => lpn.prop_map(Op::Remove),
    ]
}

/// (lpn, sectors, state, version), most recently used first.
type Model = Vec<(u32, u64, SlotState, u32)>;

fn model_put(m: &mut Model, cap: usize, lpn: u32, sectors: u64, version: Option<u32>) -> Insert {
    if let Some(i) = m.iter().position(|e| e.0 == lpn) {
        let mut e = m.remove(i);
        e.1 |= sectors;
        if let Some(v) = version {
            e.2 = SlotState::Dirty;
            e.3 = v;
        }
        m.insert(0, e);
        return Insert::Hit;
    }
    let mut out = Insert::Placed;
    if m.len() == cap {
        let e = m.pop().unwrap();
        out = Insert::Evicted { lpn: e.0, sectors: e.1, state: e.2, version: e.3 };
    }
    m.insert(0, (lpn, sectors, if version.is_some() { SlotState::Dirty } else { SlotState::Clean }, version.unwrap_or(0)));
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_data_cache_behaves_as_its_model(cap in 1u32..6, ops in prop::collection::vec(op(), 1..120)) {
        let mut c = DataCache::new(cap, Box::new(Lru::new(cap)));
        let mut m: Model = Vec::new();
        // Programs started: (lpn, version).
        let mut flushes: Vec<(u32, u32)> = Vec::new();
        for o in ops {
            match o {
                Op::Write(l, s) => {
                    let (got, v) = c.write(l, s);
                    prop_assert!(flushes.iter().all(|f| f.1 != v) && m.iter().all(|e| e.3 != v), "versions are new");
                    prop_assert_eq!(got, model_put(&mut m, cap as usize, l, s, Some(v)));
                }
                Op::Fill(l, s) => prop_assert_eq!(c.fill(l, s), model_put(&mut m, cap as usize, l, s, None)),
                Op::Read(l, s) => {
                    let want = m.iter().position(|e| e.0 == l).map_or(0, |i| m[i].1 & s);
                    if let Some(i) = m.iter().position(|e| e.0 == l) {
                        let e = m.remove(i);
                        m.insert(0, e);
                    }
                    prop_assert_eq!(c.read(l, s), want);
                }
                Op::StartFlush(l) => {
                    let want = match m.iter_mut().find(|e| e.0 == l) {
                        Some(e) if e.2 == SlotState::Dirty => { e.2 = SlotState::Flushing; Some((e.1, e.3)) }
                        _ => None,
                    };
                    let got = c.start_flush(l);
                    prop_assert_eq!(got, want);
                    if let Some((_, v)) = got {
                        flushes.push((l, v));
                    }
                }
                Op::FlushDone(n, drop) => {
                    if !flushes.is_empty() {
                        let (l, v) = flushes.remove(n % flushes.len());
                        if let Some(i) = m.iter().position(|e| e.0 == l && e.3 == v && e.2 == SlotState::Flushing) {
                            if drop { m.remove(i); } else { m[i].2 = SlotState::Clean; }
                        }
                        c.flush_done(l, v, drop);
                    }
                }
                Op::Remove(l) => {
                    let want = m.iter().position(|e| e.0 == l).map(|i| { let e = m.remove(i); (e.2, e.1) });
                    prop_assert_eq!(c.remove(l), want);
                }
            }
            prop_assert!(c.len() <= cap as usize);
            prop_assert_eq!(c.len(), m.len());
            for e in &m {
                prop_assert_eq!(c.get(e.0), Some((e.2, e.1)));
            }
            let dirty: Vec<u32> = m.iter().rev().filter(|e| e.2 == SlotState::Dirty).map(|e| e.0).collect();
            prop_assert_eq!(c.dirty(), dirty);
        }
    }
}
