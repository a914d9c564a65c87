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

use super::{collectable, WearLeveler, WlAction};
use crate::engine::rng::{stream, Rng};
use crate::ftl::{BlockState, Ftl};

pub struct Swl {
    bet: Vec<u64>,
    sets: u32,
    k: u32,
    threshold: u32,
    e_cnt: u64,
    f_cnt: u32,
    f_index: u32,
    rng: Rng,
}

impl Swl {
    pub fn new(blocks: u32, threshold: u32, k: u32, seed: u64) -> Self {
        let sets = blocks.div_ceil(1 << k);
        let mut rng = stream(seed, "wear.swl");
        let f_index = rng.random_range(0..sets);
        Swl { bet: vec![0; sets.div_ceil(64) as usize], sets, k, threshold: threshold.max(1), e_cnt: 0, f_cnt: 0, f_index, rng }
    }

    fn flag(&self, set: u32) -> bool {
        self.bet[(set / 64) as usize] & (1 << (set % 64)) != 0
    }

    fn set_flag(&mut self, set: u32) {
        if !self.flag(set) {
            self.bet[(set / 64) as usize] |= 1 << (set % 64);
            self.f_cnt += 1;
        }
    }

    /// `e_cnt / f_cnt >= T`, in integers.
    fn uneven(&self) -> bool {
        self.f_cnt > 0 && self.e_cnt >= self.threshold as u64 * self.f_cnt as u64
    }
}

impl WearLeveler for Swl {
    fn name(&self) -> &'static str {
        "swl"
    }

    /// SWL_BETUpdate.
    fn on_erase(&mut self, block: u32) {
        self.e_cnt += 1;
        self.set_flag(block >> self.k);
    }

    /// SWL_Procedure, one block at a time.
    fn next(&mut self, ftl: &mut Ftl) -> Option<WlAction> {
        while self.uneven() {
            if self.f_cnt == self.sets {
                self.bet.iter_mut().for_each(|w| *w = 0);
                self.e_cnt = 0;
                self.f_cnt = 0;
                self.f_index = self.rng.random_range(0..self.sets);
                return None;
            }
            while self.flag(self.f_index) {
                self.f_index = (self.f_index + 1) % self.sets;
            }
            let first = self.f_index << self.k;
            let last = ((self.f_index + 1) << self.k).min(ftl.layout.blocks());
            if let Some(b) = (first..last).find(|&b| collectable(ftl, b)) {
                return Some(WlAction::Collect(b));
            }
            if (first..last).any(|b| ftl.block_state(b) == BlockState::Full || ftl.block_state(b) == BlockState::Victim) {
                // Its planes are collecting: wait for the next erase.
                return None;
            }
            // Nothing in the set to recycle (free or frontier blocks only).
            self.set_flag(self.f_index);
            self.f_index = (self.f_index + 1) % self.sets;
        }
        None
    }

    fn memory_bytes(&self) -> usize {
        self.bet.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bet_update_and_the_unevenness_level() {
        let mut s = Swl::new(128, 4, 1, 1);
        assert_eq!(s.sets, 64);
        // Four erases of block 10 (set 5): e_cnt 4, f_cnt 1: 4/1 >= 4, uneven.
        for _ in 0..3 {
            s.on_erase(10);
        }
        assert!(!s.uneven(), "3/1 < 4");
        s.on_erase(11); // same set (11 >> 1 == 5)
        assert_eq!((s.e_cnt, s.f_cnt), (4, 1));
        assert!(s.uneven());
        s.on_erase(40); // another set: 5/2 < 4
        assert!(!s.uneven());
        assert_eq!(s.memory_bytes(), 8, "64 flags in one word");
    }
}
