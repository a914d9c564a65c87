//! Speed-aware placement of host writes inside their chip (VIOS §3.3, Fig. 4): a write the device
//! queue marked `Fastest` goes to the plane of its chip whose next block has the largest detected
//! program step, one marked `Slowest` to the smallest.
//!
//! The candidates are the blocks the chip's planes write next: each plane's open block, or the free
//! block it would open (free blocks open in the FTL's order). VIOS keeps every block with free
//! pages of a chip in one speed-ordered tree; with one write frontier per plane, the choice here is
//! among the chip's planes' frontiers [INFER]. Ties keep the plane the allocator chose, then the
//! lowest plane. Without process variation, or with an explicit `device.program_mode` (every block
//! then programs alike), nothing moves.

use super::txn::{Placement, TxnId};
use super::Simulator;
use crate::ftl::Writer;
use crate::nand::latency::ProgramMode;

impl Simulator {
    /// Move the host write `t` to the plane of its chip its placement asks for.
    pub(super) fn place_by_speed(&mut self, t: TxnId) {
        let x = *self.txns.get(t);
        if self.flash.host_mode != ProgramMode::Native {
            return;
        }
        let step = |p: u32| {
            let ppn = self.ftl.peek_allocation(p, Writer::Host)?;
            self.flash.latency.detected_step(self.layout.block_of(ppn))
        };
        let Some(own) = step(x.plane) else { return };
        let per_chip = self.layout.dies_per_chip * self.layout.planes_per_die;
        let first = self.layout.chip_of_die(x.die) * per_chip;
        let best = choose(x.place, (x.plane, own), (first..first + per_chip).map(|p| (p, step(p))));
        if best != x.plane {
            let w = self.txns.get_mut(t);
            w.plane = best;
            w.die = self.layout.die_of_plane(best);
            self.counters.writes_placed_elsewhere += 1;
        }
    }
}

/// The plane `place` picks: `own` (the allocator's plane and its step) unless a candidate's step is
/// strictly larger (`Fastest`) or smaller (`Slowest`); the first such extreme wins.
fn choose(place: Placement, own: (u32, u16), candidates: impl Iterator<Item = (u32, Option<u16>)>) -> u32 {
    let mut best = own;
    for (p, s) in candidates {
        let Some(s) = s else { continue };
        let better = match place {
            Placement::Fastest => s > best.1,
            Placement::Slowest => s < best.1,
            Placement::Static => false,
        };
        if better {
            best = (p, s);
        }
    }
    best.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extremes_win_and_ties_keep_the_allocators_plane() {
        let c = || [(0, Some(300)), (1, Some(500)), (2, None), (3, Some(500)), (4, Some(200))].into_iter();
        assert_eq!(choose(Placement::Fastest, (0, 300), c()), 1);
        assert_eq!(choose(Placement::Slowest, (0, 300), c()), 4);
        assert_eq!(choose(Placement::Fastest, (3, 500), c()), 3, "a tie keeps the allocator's plane");
        assert_eq!(choose(Placement::Static, (0, 300), c()), 0);
    }

    #[test]
    fn figure_4_three_conflicting_writes_average_340_us_against_370_in_order() {
        // VIOS Fig. 4: one chip, three blocks with one free page each, programming in 150 (F),
        // 180 (M) and 210 us (S); three write sub-requests arrive together and are served one
        // after another. VIOS marks the first two Fastest (NR > 1 when issued) and the last
        // Slowest (see hil::vios tests); "in order" takes the blocks as they come: M, S, F.
        let us = |step_mv: u16| 63_000 / step_mv as u64; // program time, us, at step_mv: 210 us at 0.30 V
        let mut free: Vec<(u32, u16)> = vec![(0, 350), (1, 300), (2, 420)]; // M, S, F
        assert_eq!(free.iter().map(|&(_, s)| us(s)).collect::<Vec<_>>(), vec![180, 210, 150]);
        let mut t = 0;
        let mut total = 0;
        for place in [Placement::Fastest, Placement::Fastest, Placement::Slowest] {
            let own = free[0];
            let p = choose(place, own, free.iter().map(|&(p, s)| (p, Some(s))));
            let i = free.iter().position(|&(q, _)| q == p).unwrap();
            t += us(free.remove(i).1);
            total += t;
        }
        assert_eq!(total / 3, 340);
        let in_order: u64 = [180, 180 + 210, 180 + 210 + 150].iter().sum();
        assert_eq!(in_order / 3, 370);
    }
}
