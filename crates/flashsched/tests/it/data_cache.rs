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
    FlushDone(u32),
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
        2 => lpn.clone().prop_map(Op::FlushDone),
        1 => lpn.prop_map(Op::Remove),
    ]
}

/// (lpn, sectors, state, rewritten while flushing), most recently used first.
type Model = Vec<(u32, u64, SlotState, bool)>;

fn model_put(m: &mut Model, cap: usize, lpn: u32, sectors: u64, dirty: bool) -> Insert {
    if let Some(i) = m.iter().position(|e| e.0 == lpn) {
        let mut e = m.remove(i);
        e.1 |= sectors;
        if dirty {
            if e.2 == SlotState::Flushing {
                e.3 = true
            } else {
                e.2 = SlotState::Dirty
            }
        }
        m.insert(0, e);
        return Insert::Hit;
    }
    let mut out = Insert::Placed;
    if m.len() == cap {
        let Some(v) = m.iter().rposition(|e| e.2 != SlotState::Flushing) else {
            return Insert::Full;
        };
        let e = m.remove(v);
        out = Insert::Evicted {
            lpn: e.0,
            sectors: e.1,
            dirty: e.2 == SlotState::Dirty,
        };
    }
    m.insert(
        0,
        (
            lpn,
            sectors,
            if dirty {
                SlotState::Dirty
            } else {
                SlotState::Clean
            },
            false,
        ),
    );
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_data_cache_behaves_as_its_model(cap in 1u32..6, ops in prop::collection::vec(op(), 1..120)) {
        let mut c = DataCache::new(cap, Box::new(Lru::new(cap)));
        let mut m: Model = Vec::new();
        for o in ops {
            match o {
                Op::Write(l, s) => prop_assert_eq!(c.write(l, s), model_put(&mut m, cap as usize, l, s, true)),
                Op::Fill(l, s) => prop_assert_eq!(c.fill(l, s), model_put(&mut m, cap as usize, l, s, false)),
                Op::Read(l, s) => {
                    let want = m.iter().position(|e| e.0 == l).map_or(0, |i| m[i].1 & s);
                    if want != 0 {
                        let i = m.iter().position(|e| e.0 == l).unwrap();
                        let e = m.remove(i);
                        m.insert(0, e);
                    }
                    prop_assert_eq!(c.read(l, s), want);
                }
                Op::StartFlush(l) => {
                    let want = match m.iter_mut().find(|e| e.0 == l) {
                        Some(e) if e.2 == SlotState::Dirty => { e.2 = SlotState::Flushing; true }
                        _ => false,
                    };
                    prop_assert_eq!(c.start_flush(l), want);
                }
                Op::FlushDone(l) => {
                    // Only a page being written back gets its program's end.
                    if let Some(e) = m.iter_mut().find(|e| e.0 == l && e.2 == SlotState::Flushing) {
                        e.2 = if std::mem::take(&mut e.3) { SlotState::Dirty } else { SlotState::Clean };
                        c.flush_done(l);
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
