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
    layout: Layout,
    order: [u8; 4],
}

impl StaticOrder {
    pub fn new(layout: Layout, order: [u8; 4]) -> Self {
        StaticOrder { layout, order }
    }
}

impl PageAllocator for StaticOrder {
    fn name(&self) -> &'static str {
        "static"
    }
    #[inline]
    fn plane_for_write(&mut self, lpn: u64) -> u32 {
        self.layout.static_plane(self.order, lpn)
    }
    #[inline]
    fn home_plane(&self, lpn: u64) -> u32 {
        self.layout.static_plane(self.order, lpn)
    }
}
