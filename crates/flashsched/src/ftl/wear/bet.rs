//! The Block Erasing Table (Chang, Hsieh and Kuo, DAC 2007; spec §7) that both BET-based wear
//! levelers keep: one flag per set of blocks, set when a block of the set is erased; `e_cnt`
//! counts erases and `f_cnt` flags set since the last reset. Their ratio is the unevenness level.
//!
//! The algorithms are sequential: a recycling finishes (its blocks erased, the table updated)
//! before the table is checked again. Here a recycling is flash work that ends later, and the
//! table may fill and reset while some of its erases are still to come. Those erases belong to
//! the interval that started them, which is over; counting them in the new one would make
//! leveling's own erases start the next recycling, and with few sets or a low threshold the
//! leveling would feed itself forever on an idle drive. So the table remembers the interval in
//! which each of leveling's collections started (`collecting`) and leaves out of `e_cnt` and the
//! flags the erases of collections started before the last reset.

pub struct Bet {
    bits: Vec<u64>,
    len: u32,
    pub e_cnt: u64,
    pub f_cnt: u32,
    /// Resets so far: the current interval's number.
    interval: u32,
    /// Blocks wear leveling is collecting, each with the interval its collection started in (at
    /// most one a plane).
    collecting: Vec<(u32, u32)>,
}

impl Bet {
    /// A table of `len` flags, all clear.
    pub fn new(len: u32) -> Self {
        Bet { bits: vec![0; len.div_ceil(64) as usize], len, e_cnt: 0, f_cnt: 0, interval: 0, collecting: Vec::new() }
    }

    pub fn len(&self) -> u32 {
        self.len
    }

    pub fn flag(&self, i: u32) -> bool {
        self.bits[(i / 64) as usize] & (1 << (i % 64)) != 0
    }

    /// Set flag `i` (counted in `f_cnt` the first time).
    pub fn set(&mut self, i: u32) {
        if !self.flag(i) {
            self.bits[(i / 64) as usize] |= 1 << (i % 64);
            self.f_cnt += 1;
        }
    }

    /// Wear leveling starts collecting `block`.
    pub fn collecting(&mut self, block: u32) {
        self.collecting.push((block, self.interval));
    }

    /// `block`, of set `i`, was erased. Not counted if it ends a collection of wear leveling's
    /// that started before the last reset (see the module's documentation).
    pub fn erased(&mut self, i: u32, block: u32) {
        if let Some(k) = self.collecting.iter().position(|&(b, _)| b == block) {
            let (_, started) = self.collecting.swap_remove(k);
            if started != self.interval {
                return;
            }
        }
        self.e_cnt += 1;
        self.set(i);
    }

    /// Every flag is set.
    pub fn full(&self) -> bool {
        self.f_cnt == self.len
    }

    pub fn reset(&mut self) {
        self.bits.iter_mut().for_each(|w| *w = 0);
        self.e_cnt = 0;
        self.f_cnt = 0;
        self.interval = self.interval.wrapping_add(1);
    }

    /// `e_cnt / f_cnt >= t` (`strict`: `>`), in integers; false before any erase.
    pub fn uneven(&self, t: u64, strict: bool) -> bool {
        let bound = t * self.f_cnt as u64;
        self.f_cnt > 0 && if strict { self.e_cnt > bound } else { self.e_cnt >= bound }
    }

    /// The first clear flag at or after `from`, cyclically (the table must not be full).
    pub fn next_clear(&self, from: u32) -> u32 {
        debug_assert!(!self.full());
        let mut i = from;
        while self.flag(i) {
            i = (i + 1) % self.len;
        }
        i
    }

    pub fn bytes(&self) -> usize {
        self.bits.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unevenness_scan_and_reset() {
        let mut b = Bet::new(70);
        assert!(!b.uneven(1, false), "no erase yet");
        for _ in 0..10 {
            b.erased(3, 3);
        }
        assert_eq!((b.e_cnt, b.f_cnt), (10, 1));
        assert!(b.uneven(10, false) && !b.uneven(10, true), "10 / 1: at T = 10, not above it");
        b.erased(65, 65);
        assert_eq!(b.next_clear(3), 4);
        assert_eq!(b.next_clear(65), 66, "across a word boundary");
        for i in 0..70 {
            b.set(i);
        }
        assert!(b.full());
        b.reset();
        assert_eq!((b.e_cnt, b.f_cnt, b.flag(3)), (0, 0, false));
        assert_eq!(b.bytes(), 16);
    }

    #[test]
    fn erases_of_collections_started_before_a_reset_are_left_out() {
        let mut b = Bet::new(4);
        b.erased(0, 0);
        b.collecting(5);
        b.collecting(6);
        b.erased(1, 5);
        assert_eq!((b.e_cnt, b.f_cnt), (2, 2), "a collection of this interval counts");
        b.reset();
        b.erased(1, 6);
        assert_eq!((b.e_cnt, b.f_cnt, b.flag(1)), (0, 0, false), "started before the reset: left out");
        b.erased(1, 6);
        assert_eq!((b.e_cnt, b.f_cnt), (1, 1), "only that erase: the block's next one counts");
        b.collecting(7);
        b.erased(2, 7);
        assert_eq!((b.e_cnt, b.f_cnt), (2, 2));
        assert!(b.collecting.is_empty());
    }
}
