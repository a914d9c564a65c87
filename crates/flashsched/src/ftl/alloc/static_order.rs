//! `static`: every logical page has a fixed plane, striped over channel, way (chip), die and plane
//! in a configurable order (`ftl.allocation.order`, all 24 orders; CWDP by default).
//!
//! From: Hu et al., "Performance impact and interplay of SSD parallelism through advanced commands,
//! allocation strategy and data granularity", ICS 2011 (the four levels and their priority order);
//! MQSim's `Flash_Plane_Allocation_Scheme_Type` (the 24 permutations). Parameters:
//! `ftl.allocation.order` (default `CWDP`).

use super::PageAllocator;
use crate::nand::Layout;

pub struct StaticOrder {
    /// Plane of each position in a stripe: the plane of `lpn` depends only on `lpn mod planes`,
    /// so one table lookup replaces four divisions on every write.
    stripe: Vec<u32>,
    /// `planes - 1` when the number of planes is a power of two (a mask instead of a division).
    mask: Option<u64>,
}

impl StaticOrder {
    pub fn new(layout: Layout, order: [u8; 4]) -> Self {
        let planes = layout.planes() as u64;
        StaticOrder {
            stripe: (0..planes).map(|i| layout.static_plane(order, i)).collect(),
            mask: planes.is_power_of_two().then(|| planes - 1),
        }
    }
}

impl PageAllocator for StaticOrder {
    fn name(&self) -> &'static str {
        "static"
    }
    #[inline]
    fn plane_for_write(&mut self, lpn: u64) -> u32 {
        self.home_plane(lpn)
    }
    #[inline]
    fn home_plane(&self, lpn: u64) -> u32 {
        let i = match self.mask {
            Some(m) => lpn & m,
            None => lpn % self.stripe.len() as u64,
        };
        self.stripe[i as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    #[test]
    fn stripe_table_matches_the_arithmetic() {
        let s = Settings::from_options(&Options::from_preset("slacker2017").unwrap()).unwrap();
        let layout = Layout::new(&s.geometry);
        for order in [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2]] {
            let mut a = StaticOrder::new(layout, order);
            for lpn in (0..100_000u64).step_by(7) {
                assert_eq!(a.plane_for_write(lpn), layout.static_plane(order, lpn));
            }
        }
    }
}
