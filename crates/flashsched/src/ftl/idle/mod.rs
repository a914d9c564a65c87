//! Idle-time tasks: flash work a chip does while the host leaves it alone. One task per file.
//!
//! *Idle* is defined once, in the simulator: a chip is idle when none of its dies runs an
//! operation and nothing is queued for it, and it becomes an idle-task's turn after it has stayed
//! so for `device.idle.threshold` (`Simulator::on_chip_idle`). A task then hands out one page to
//! move at a time; the move is real flash work (a read, a program elsewhere, the old copy
//! invalidated), so host requests arriving meanwhile wait behind it.

mod rr;

pub use rr::Rr;

use crate::config::Settings;
use crate::nand::{Lpn, Ppn};

/// A host read that finished its array read, as an idle task sees it.
#[derive(Debug, Clone, Copy)]
pub struct ReadSeen {
    pub chip: u32,
    pub lpn: Lpn,
    pub ppn: Ppn,
    /// The LDPC level it was sensed at (0: fast read, the slow-programmed pages).
    pub level: u8,
    /// It counts as conflicting (`ftl.read_conflict`).
    pub conflicted: bool,
    /// The host request it belongs to, by arrival number (re-programs are reported per request).
    pub origin: u64,
}

/// A page an idle task hands out to re-program: its logical page, the physical page it was
/// recorded at (the caller drops it if the page has moved since) and the request that recorded it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    pub lpn: Lpn,
    pub ppn: Ppn,
    pub origin: u64,
}

pub trait IdleTask: Send {
    fn name(&self) -> &'static str;
    /// A host read finished on the chip.
    fn on_read(&mut self, r: ReadSeen);
    /// The next page to re-program on idle `chip`, if any.
    fn next(&mut self, chip: u32) -> Option<Recorded>;
    /// Put back a page `next` handed out whose re-program host work pre-empted: it is the first
    /// `next` hands out on the chip again.
    fn defer(&mut self, chip: u32, r: Recorded);
    /// Whether `next` would hand out a page for `chip` (turns are only scheduled then).
    fn has_work(&self, chip: u32) -> bool;
    /// Counters for the output.
    fn report(&self) -> IdleReport;
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IdleReport {
    /// Pages recorded, and recordings refused because the chip's record queue was full.
    pub recorded: u64,
    pub record_overflows: u64,
}

pub fn build(s: &Settings, chips: u32) -> Option<Box<dyn IdleTask>> {
    match s.ftl.idle_task.as_str() {
        "none" => None,
        "rr" => Some(Box::new(Rr::new(chips, s.ftl.rr_queue))),
        other => unreachable!("idle task {other} passed validation"),
    }
}
