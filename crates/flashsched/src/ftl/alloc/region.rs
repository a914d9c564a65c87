//! `region`: each contiguous logical region of `ftl.allocation.region_size` bytes lives on one
//! chip (regions go to chips channel-first: region r on channel r mod C, way (r / C) mod W); inside
//! its chip a region's pages stripe over dies and planes. This is the device PASS assumes ("a
//! logical continuous space (i.e., region) is very likely an independently operating unit",
//! paper 001 §3.5), as opposed to page striping, which spreads every region over all chips.
//!
//! Parameters: `ftl.allocation.region_size` (bytes; 0, the default, means the logical capacity
//! divided by the number of chips: one region per chip).

use super::PageAllocator;
use crate::config::settings::region_pages;
use crate::nand::Layout;

pub struct Region {
    layout: Layout,
    region_pages: u64,
}

impl Region {
    pub fn new(layout: Layout, region_bytes: u64, logical_pages: u64) -> Self {
        let region_pages = region_pages(logical_pages, layout.chips() as u64, layout.page_size as u64, region_bytes);
        Region { layout, region_pages: region_pages.max(1) }
    }
}

impl PageAllocator for Region {
    fn name(&self) -> &'static str {
        "region"
    }
    #[inline]
    fn plane_for_write(&mut self, lpn: u64) -> u32 {
        self.home_plane(lpn)
    }
    #[inline]
    fn home_plane(&self, lpn: u64) -> u32 {
        let l = &self.layout;
        let r = lpn / self.region_pages;
        let channel = (r % l.channels as u64) as u32;
        let way = ((r / l.channels as u64) % l.chips_per_channel as u64) as u32;
        let i = lpn % (l.dies_per_chip as u64 * l.planes_per_die as u64);
        let die = (i % l.dies_per_chip as u64) as u32;
        let plane = (i / l.dies_per_chip as u64) as u32;
        l.plane_index(channel, way, die, plane)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    #[test]
    fn a_region_stays_on_one_chip() {
        let s = Settings::from_options(&Options::from_preset("pass2014").unwrap()).unwrap();
        let l = Layout::new(&s.geometry);
        let a = Region::new(l, 1 << 30, s.logical_pages());
        let per_region = (1u64 << 30) / 4096;
        let chip = |lpn: u64| l.chip_of_die(l.die_of_plane(a.home_plane(lpn)));
        for r in 0..20u64 {
            let c = chip(r * per_region);
            assert!((0..per_region).step_by(997).all(|i| chip(r * per_region + i) == c), "region {r} spans chips");
        }
        // consecutive regions go to different channels first
        assert_ne!(l.channel_of_chip(chip(0)), l.channel_of_chip(chip(per_region)));
        // inside a chip, pages spread over every die and plane
        let planes: std::collections::BTreeSet<u32> = (0..64).map(|i| a.home_plane(i)).collect();
        assert_eq!(planes.len() as u32, l.dies_per_chip * l.planes_per_die);
    }
}
