//! The NAND model's addressing: how channels, chips, dies, planes, blocks and pages are numbered,
//! ([`latency`]) how long an array operation takes, and ([`reliability`]) how error-prone blocks
//! and pages are (not used by the simulator yet). Resources (channel bus, die busy intervals)
//! live in [`crate::ctrl`]; the addressing here is pure arithmetic so the FTL and the schedulers
//! share one numbering.
//!
//! Global indices nest: `chip = channel x chips_per_channel + way`, `die = chip x dies_per_chip + d`,
//! `plane = die x planes_per_die + p`, `block = plane x blocks_per_plane + b`,
//! `ppn = block x pages_per_block + page`.

pub mod divisor;
pub mod latency;
pub mod ldpc;
pub mod mode;
pub mod reliability;
pub mod reliable;

use crate::config::Geometry;
pub use divisor::Divisor;

/// Physical page number (global).
pub type Ppn = u32;
/// Logical page number.
pub type Lpn = u32;

pub const NONE: u32 = u32::MAX;

/// Precomputed sizes for index arithmetic on the hot path.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    pub channels: u32,
    pub chips_per_channel: u32,
    pub dies_per_chip: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size: u32,
    pub pages_per_plane: u32,
    /// The divisors of the hot index arithmetic below (no `div` instruction on the hot path).
    per_block: Divisor,
    per_plane_blocks: Divisor,
    per_plane_pages: Divisor,
    per_die: Divisor,
    per_chip: Divisor,
    per_channel: Divisor,
}

impl Layout {
    pub fn new(g: &Geometry) -> Self {
        Layout {
            channels: g.channels,
            chips_per_channel: g.chips_per_channel,
            dies_per_chip: g.dies_per_chip,
            planes_per_die: g.planes_per_die,
            blocks_per_plane: g.blocks_per_plane,
            pages_per_block: g.pages_per_block,
            page_size: g.page_size,
            pages_per_plane: g.blocks_per_plane * g.pages_per_block,
            per_block: Divisor::new(g.pages_per_block),
            per_plane_blocks: Divisor::new(g.blocks_per_plane),
            per_plane_pages: Divisor::new(g.blocks_per_plane * g.pages_per_block),
            per_die: Divisor::new(g.planes_per_die),
            per_chip: Divisor::new(g.dies_per_chip),
            per_channel: Divisor::new(g.chips_per_channel),
        }
    }
    pub fn chips(&self) -> u32 { self.channels * self.chips_per_channel }
    pub fn dies(&self) -> u32 { self.chips() * self.dies_per_chip }
    pub fn planes(&self) -> u32 { self.dies() * self.planes_per_die }
    pub fn blocks(&self) -> u32 { self.planes() * self.blocks_per_plane }
    pub fn pages(&self) -> u64 { self.blocks() as u64 * self.pages_per_block as u64 }

    #[inline]
    pub fn block_of(&self, ppn: Ppn) -> u32 { self.per_block.div(ppn) }
    #[inline]
    pub fn plane_of_block(&self, block: u32) -> u32 { self.per_plane_blocks.div(block) }
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> u32 { self.per_plane_pages.div(ppn) }
    #[inline]
    pub fn die_of_plane(&self, plane: u32) -> u32 { self.per_die.div(plane) }
    #[inline]
    pub fn chip_of_die(&self, die: u32) -> u32 { self.per_chip.div(die) }
    #[inline]
    pub fn channel_of_chip(&self, chip: u32) -> u32 { self.per_channel.div(chip) }
    #[inline]
    pub fn channel_of_die(&self, die: u32) -> u32 { self.channel_of_chip(self.chip_of_die(die)) }
    /// The page's offset in its block.
    #[inline]
    pub fn page_in_block(&self, ppn: Ppn) -> u32 { self.per_block.rem(ppn) }
    #[inline]
    pub fn first_block_of_plane(&self, plane: u32) -> u32 { plane * self.blocks_per_plane }

    /// The plane a parallel-unit coordinate names.
    pub fn plane_index(&self, channel: u32, way: u32, die: u32, plane: u32) -> u32 {
        ((channel * self.chips_per_channel + way) * self.dies_per_chip + die) * self.planes_per_die + plane
    }

    /// Static allocation: stripe consecutive logical pages over the levels in `order`, fastest
    /// first (0 = channel, 1 = way, 2 = die, 3 = plane), as MQSim's `allocate_plane_for_user_write`
    /// and SSDSim's `allocate_location` do. CWDP: channel = lpn mod C, way = (lpn / C) mod W, ...
    #[inline]
    pub fn static_plane(&self, order: [u8; 4], lpn: u64) -> u32 {
        let sizes = [self.channels, self.chips_per_channel, self.dies_per_chip, self.planes_per_die];
        let mut coord = [0u32; 4];
        let mut rest = lpn;
        for level in order {
            let n = sizes[level as usize] as u64;
            coord[level as usize] = (rest % n) as u32;
            rest /= n;
        }
        self.plane_index(coord[0], coord[1], coord[2], coord[3])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    fn layout(preset: &str) -> Layout {
        Layout::new(&Settings::from_options(&Options::from_preset(preset).unwrap()).unwrap().geometry)
    }

    #[test]
    fn cwdp_stripes_channels_first() {
        let l = layout("bench8x8");
        let order = [0, 1, 2, 3];
        let ch: Vec<u32> = (0..10).map(|lpn| l.channel_of_die(l.die_of_plane(l.static_plane(order, lpn)))).collect();
        assert_eq!(ch, vec![0, 1, 2, 3, 4, 5, 6, 7, 0, 1]);
        // lpn 8 goes to channel 0, way 1
        let p = l.static_plane(order, 8);
        assert_eq!(l.chip_of_die(l.die_of_plane(p)), 1);
        // every plane gets the same share of a full stripe
        let mut hits = vec![0u32; l.planes() as usize];
        for lpn in 0..(l.planes() as u64 * 3) {
            hits[l.static_plane(order, lpn) as usize] += 1;
        }
        assert!(hits.iter().all(|&h| h == 3));
    }

    #[test]
    fn pdwc_stripes_planes_first() {
        let l = layout("bench8x8");
        let order = [3, 2, 1, 0];
        assert_eq!(l.static_plane(order, 1), 1);
        assert_eq!(l.static_plane(order, 4), l.planes_per_die); // next die
    }
}
