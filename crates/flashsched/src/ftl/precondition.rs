//! Preconditioning: bring the drive to a used state before measuring, without simulated time.
//!
//! 1. Fill `ftl.precondition.fill` of the logical space, in order or in a seeded random order.
//! 2. Overwrite uniformly random filled pages `overwrites` times the filled count, running GC as
//!    needed: the write-the-drive-then-overwrite procedure of SNIA's SSS PTS, done instantly.
//! 3. Age every block to `pe_cycles` erases (applied before 1 and 2, which add to it).
//!
//! Counters are reset afterwards, so the run's write amplification counts only measured traffic.

use std::collections::VecDeque;

use rand::seq::SliceRandom;
use rand::Rng as _;

use super::alloc::PageAllocator;
use super::gc::VictimPolicy;
use super::{Ftl, FtlCounters};
use crate::config::settings::Precondition;
use crate::engine::rng;

/// How many overwrites ahead of its write a page is drawn (see the overwrite loop).
const AHEAD: u64 = 16;

pub fn precondition(
    ftl: &mut Ftl,
    p: &Precondition,
    seed: u64,
    alloc: &mut dyn PageAllocator,
    gc: &mut dyn VictimPolicy,
) -> Result<(), String> {
    if p.pe_cycles > 0 {
        ftl.age_all(p.pe_cycles);
    }
    let n = (ftl.logical_pages as f64 * p.fill).round() as u64;
    if n > 0 {
        let mut rng = rng::stream(seed, "ftl.precondition");
        if p.random_order {
            let mut order: Vec<u32> = (0..ftl.logical_pages as u32).collect();
            order.shuffle(&mut rng);
            order.truncate(n as usize);
            for lpn in order {
                ftl.write_untimed(lpn, alloc.plane_for_write(lpn as u64), gc)?;
            }
        } else {
            for lpn in 0..n as u32 {
                ftl.write_untimed(lpn, alloc.plane_for_write(lpn as u64), gc)?;
            }
        }
        let writes = (n as f64 * p.overwrites).round() as u64;
        // Overwrite among the filled pages: with a sequential fill these are lpn 0..n.
        let filled: Option<Vec<u32>> = p.random_order.then(|| {
            let mut v: Vec<u32> = (0..ftl.logical_pages as u32).filter(|&l| ftl.lookup(l).is_some()).collect();
            v.sort_unstable();
            v
        });
        let mut draw = || {
            let i = rng.random_range(0..n);
            match &filled {
                Some(v) => v[i as usize],
                None => i as u32,
            }
        };
        // The pages are drawn `AHEAD` writes before they are written (the same draws in the same
        // order: nothing else takes from the stream meanwhile), so that their cache misses
        // overlap: the mapping entry is prefetched as a page is drawn, and its current copy's
        // block record, valid bits and fewest-valid index entry half-way
        // (`Ftl::prefetch_overwrite` reads the entry, which has arrived by then). An overwrite of a random page of a large drive otherwise
        // waits for each of those misses in turn.
        let mut ahead: VecDeque<u32> = VecDeque::with_capacity(AHEAD as usize);
        for _ in 0..writes.min(AHEAD) {
            let lpn = draw();
            ftl.prefetch_mapping(lpn);
            ahead.push_back(lpn);
        }
        for k in 0..writes {
            if k + AHEAD < writes {
                let lpn = draw();
                ftl.prefetch_mapping(lpn);
                ahead.push_back(lpn);
            }
            if let Some(&lpn) = ahead.get(AHEAD as usize / 2) {
                ftl.prefetch_overwrite(lpn);
            }
            let lpn = ahead.pop_front().expect("one page drawn for each write");
            ftl.write_untimed(lpn, alloc.plane_for_write(lpn as u64), gc)?;
        }
    }
    ftl.counters = FtlCounters::default();
    Ok(())
}
