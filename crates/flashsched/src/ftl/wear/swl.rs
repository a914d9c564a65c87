//! `swl`: static wear leveling with a Block Erasing Table (Chang, Hsieh and Kuo, DAC 2007 / IEEE
//! TC 59(1) 2010; spec §7), as the Pattern paper's SWL and PGIS+SWL baselines use it.
//!
//! The BET has one flag per set of 2^k consecutive blocks (`ftl.swl.set_bits` = k), set when a
//! block of the set is erased in the current interval; `e_cnt` counts erases and `f_cnt` set
//! flags since the last reset. While `e_cnt / f_cnt >= T` (`ftl.swl.threshold`), erases are
//! concentrating on few sets: the scan pointer `f_index` moves to the next set not erased in the
//! interval and its blocks are recycled (their valid, mostly cold, pages moved out and the blocks
//! erased, each erase updating the BET). When every flag is set the table resets and `f_index`
//! starts at a random set (a named, seeded stream).
//!
//! SWL-Procedure as in the spec, with two adaptations [INFER]: a block of the set that holds no
//! data (free, or a write frontier) is not recycled; once none of the set's blocks is left to
//! recycle the set's flag is set without an erase (it is as even as it can be made now). A set whose
//! blocks' planes are busy collecting waits for the next erase.

use rand::Rng as _;

use super::bet::Bet;
use super::{collectable, WearLeveler, WlAction};
use crate::engine::rng::{stream, Rng};
use crate::ftl::{BlockState, Ftl};

pub struct Swl {
    bet: Bet,
    k: u32,
    threshold: u32,
    f_index: u32,
    rng: Rng,
}

impl Swl {
    pub fn new(blocks: u32, threshold: u32, k: u32, seed: u64) -> Self {
        let sets = blocks.div_ceil(1 << k);
        let mut rng = stream(seed, "wear.swl");
        let f_index = rng.random_range(0..sets);
        Swl { bet: Bet::new(sets), k, threshold: threshold.max(1), f_index, rng }
    }

    /// `e_cnt / f_cnt >= T`.
    fn uneven(&self) -> bool {
        self.bet.uneven(self.threshold as u64, false)
    }
}

impl WearLeveler for Swl {
    fn name(&self) -> &'static str {
        "swl"
    }

    /// SWL_BETUpdate.
    fn on_erase(&mut self, block: u32) {
        self.bet.erased(block >> self.k, block);
    }

    /// SWL_Procedure, one block at a time.
    fn next(&mut self, ftl: &mut Ftl) -> Option<WlAction> {
        while self.uneven() {
            let sets = self.bet.len();
            if self.bet.full() {
                self.bet.reset();
                self.f_index = self.rng.random_range(0..sets);
                return None;
            }
            self.f_index = self.bet.next_clear(self.f_index);
            let first = self.f_index << self.k;
            let last = ((self.f_index + 1) << self.k).min(ftl.layout.blocks());
            if let Some(b) = (first..last).find(|&b| collectable(ftl, b)) {
                self.bet.collecting(b);
                return Some(WlAction::Collect(b));
            }
            if (first..last).any(|b| ftl.block_state(b) == BlockState::Full || ftl.block_state(b) == BlockState::Victim) {
                // Its planes are collecting: wait for the next erase.
                return None;
            }
            // Nothing in the set to recycle (free or frontier blocks only).
            self.bet.set(self.f_index);
            self.f_index = (self.f_index + 1) % sets;
        }
        None
    }

    fn memory_bytes(&self) -> usize {
        self.bet.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bet_update_and_the_unevenness_level() {
        let mut s = Swl::new(128, 4, 1, 1);
        assert_eq!(s.bet.len(), 64);
        // Four erases of block 10 (set 5): e_cnt 4, f_cnt 1: 4/1 >= 4, uneven.
        for _ in 0..3 {
            s.on_erase(10);
        }
        assert!(!s.uneven(), "3/1 < 4");
        s.on_erase(11); // same set (11 >> 1 == 5)
        assert_eq!((s.bet.e_cnt, s.bet.f_cnt), (4, 1));
        assert!(s.uneven());
        s.on_erase(40); // another set: 5/2 < 4
        assert!(!s.uneven());
        assert_eq!(s.memory_bytes(), 8, "64 flags in one word");
    }
}
