//! The page-allocation slot as the simulator holds it: the default scheme (`static`) by value, so
//! that the plane of each write is a table look-up inlined into the split, without the view of
//! die loads a dynamic scheme needs (building it cost more than the look-up); any other scheme
//! behind the trait, reached through `Deref` for everything else.

use super::{AllocView, PageAllocator, StaticOrder};

pub enum AllocSlot {
    Static(StaticOrder),
    Other(Box<dyn PageAllocator>),
}

impl AllocSlot {
    /// The plane for a host write entering the device now; `view` builds what a dynamic scheme
    /// looks at (not built for a static one).
    #[inline]
    pub fn plane_for_write_with<'v>(&mut self, lpn: u64, view: impl FnOnce() -> AllocView<'v>) -> u32 {
        match self {
            AllocSlot::Static(s) => s.home_plane(lpn),
            AllocSlot::Other(p) => p.plane_for_write_now(lpn, &view()),
        }
    }

    #[inline]
    pub fn home_plane(&self, lpn: u64) -> u32 {
        match self {
            AllocSlot::Static(s) => s.home_plane(lpn),
            AllocSlot::Other(p) => p.home_plane(lpn),
        }
    }
}

policy_slot_deref!(AllocSlot, PageAllocator, Static);
