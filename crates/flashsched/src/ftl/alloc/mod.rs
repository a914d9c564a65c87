//! Page allocation: which plane a logical page's write goes to. One policy per file.

mod dynamic;
mod region;
mod slot;
mod static_order;

pub use dynamic::Dynamic;
pub use region::Region;
pub use slot::AllocSlot;
pub use static_order::StaticOrder;

use crate::config::Settings;
use crate::nand::Layout;

/// What an allocator that decides at dispatch time may look at.
pub struct AllocView<'a> {
    /// Transactions queued for a die, plus one if it is busy.
    pub die_load: &'a dyn Fn(u32) -> u32,
    /// Free blocks of a plane.
    pub plane_free: &'a dyn Fn(u32) -> u32,
}

/// Chooses the plane for a write of `lpn`. The page inside the plane is the next free page of the
/// plane's active block (NAND programs pages of a block in order), chosen when the program starts.
pub trait PageAllocator: Send {
    fn name(&self) -> &'static str;
    fn plane_for_write(&mut self, lpn: u64) -> u32;
    /// Where a never-written page would have been placed (for reads of unmapped pages).
    fn home_plane(&self, lpn: u64) -> u32;
    /// The plane for a host write entering the device now; static schemes ignore the view.
    fn plane_for_write_now(&mut self, lpn: u64, _view: &AllocView) -> u32 {
        self.plane_for_write(lpn)
    }
    /// Whether a write may go to another plane than the one chosen when it entered the device,
    /// when that plane fills with valid data (dynamic schemes: a page's plane is not a function
    /// of its address, so any plane may hold it).
    fn relocates(&self) -> bool {
        false
    }
    /// The channel a relocated write of `lpn` must stay on, if any.
    fn relocation_channel(&self, _lpn: u64) -> Option<u32> {
        None
    }
}

pub fn build(s: &Settings, layout: Layout) -> AllocSlot {
    match s.ftl.allocation_scheme.as_str() {
        "static" => AllocSlot::Static(StaticOrder::new(layout, s.ftl.allocation_order)),
        _ => AllocSlot::Other(build_boxed(s, layout)),
    }
}

fn build_boxed(s: &Settings, layout: Layout) -> Box<dyn PageAllocator> {
    match s.ftl.allocation_scheme.as_str() {
        "static" => Box::new(StaticOrder::new(layout, s.ftl.allocation_order)),
        "dynamic" | "channel-static" => Box::new(Dynamic::with_planes(
            layout,
            s.ftl.allocation_scheme == "channel-static",
            s.resolved.str("ftl.allocation.plane") == "round_robin",
        )),
        "region" => Box::new(Region::new(layout, s.resolved.bytes("ftl.allocation.region_size"), s.logical_pages())),
        other => unreachable!("allocation scheme {other} passed validation"),
    }
}
