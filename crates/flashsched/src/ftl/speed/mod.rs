//! Program-speed policies: the ISPP mode each host write is programmed in. One policy per file.
//!
//! A faster program (larger ISPP step) shortens the write and the wait of what queues behind it,
//! but leaves a wider threshold-voltage spread, so the page later needs more LDPC sensing levels to
//! read (RR/WR, paper 002 §II: slow, normal and fast programs read at fast, normal and slow
//! sensing; `device.ldpc`). The device programs in the mode chosen here; the policy only decides.

mod traditional;
mod wr;

pub use traditional::Traditional;
pub use wr::Wr;

use crate::config::Settings;
use crate::nand::latency::ProgramMode;

/// What a policy may know when a host write starts on its chip.
#[derive(Debug, Clone, Copy)]
pub struct WriteView {
    pub chip: u32,
    /// Transactions queued for the chip and not started (host and GC): requests that wait for it.
    pub waiting: usize,
    /// Transactions queued in the whole device and not started.
    pub waiting_device: usize,
}

/// Whether a host read that starts counts as conflicting (`ftl.read_conflict`), for a tag kept per
/// chip (`chip`) or one for the device (`device`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadConflict {
    pub chip: bool,
    pub device: bool,
}

pub trait ProgramSpeed: Send {
    fn name(&self) -> &'static str;
    /// The mode of a host write that starts now.
    fn write_mode(&mut self, w: WriteView) -> ProgramMode;
    /// A host read starts its array read on `chip`. Whether it counts as conflicting
    /// (`ftl.read_conflict`: it waited for its die, or others wait behind it), asked of its chip
    /// (`chip`) and of the device (`device`: for `induced`, any transaction waiting in the device).
    fn on_read_start(&mut self, _chip: u32, _conflicted: ReadConflict) {}
    /// The one mode of every write, if the policy looks at nothing: the simulator then skips the
    /// calls (the default policy costs nothing per request).
    fn fixed(&self) -> Option<ProgramMode> {
        None
    }
}

pub fn build(s: &Settings, chips: u32) -> Box<dyn ProgramSpeed> {
    match s.ftl.program_speed.as_str() {
        "traditional" => Box::new(Traditional::new(s.device_model.host_mode)),
        "wr" => Box::new(Wr::new(chips, s.ftl.wr_device_scope)),
        other => unreachable!("program speed policy {other} passed validation"),
    }
}
