//! The NAND latency model: how long an operation's array phase takes and how many bytes it moves
//! over the channel, given the operation, its page and the mode the page is programmed in.
//!
//! The controller (`crate::ctrl::die`) asks once per read, program and erase, when the array
//! operation is scheduled. Today's model is [`FixedLatency`]: one tR, tPROG and tBERS for every
//! page. The model is an enum stored by value, not a trait object: with one variant the `match`
//! compiles away, and the call is inlined into the die's step (it runs once per page operation).
//!
//! Adding a model (e.g. reliability-aware: read latency from the page's RBER, which depends on the
//! block's wear and variation and on the mode the page was programmed in) means a new variant and
//! its own file; the simulator does not change. A variant gets everything it may need through
//! [`NandOp`] (kind, page, program mode, bytes) and [`NandCtx`] (layout, time, the FTL's erase
//! counts), and `cost` takes `&mut self` so a variant can keep per-block or per-page state of its
//! own as programs and erases pass. Variants compute block and page numbers only if they need them
//! (each is a division).

use super::reliable::{ReliabilityReport, ReliableLatency};
use crate::config::{Settings, Timing};
use crate::engine::Time;
use crate::nand::{Layout, Ppn, NONE};

pub use super::mode::ProgramMode;


#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NandOpKind {
    // The values index per-kind counters (`ctrl::CommandCounts`).
    Read = 0,
    Program = 1,
    Erase = 2,
}

/// One array operation as the latency model sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NandOp {
    pub kind: NandOpKind,
    /// The page read or programmed; an erase's block's first page. `NONE` for a read of a page
    /// that was never written (`ftl.unmapped_reads = "flash"`).
    pub ppn: Ppn,
    /// The plane of the operation (for a page never written: the plane static allocation would
    /// have placed it on).
    pub plane: u32,
    /// The mode the page is (to be) programmed in.
    pub mode: ProgramMode,
    /// Bytes of the page the host asked for (0 for erases and copyback GC moves).
    pub bytes: u32,
}

impl NandOp {
    /// The operation's block (`None` for an unwritten page).
    #[inline]
    pub fn block(&self, l: &Layout) -> Option<u32> {
        (self.ppn != NONE).then(|| l.block_of(self.ppn))
    }

    /// The page's index in its block (`None` for an unwritten page).
    #[inline]
    pub fn page(&self, l: &Layout) -> Option<u32> {
        (self.ppn != NONE).then(|| l.page_in_block(self.ppn))
    }
}

/// The FTL's per-block state a model may read.
pub trait BlockWear {
    /// Program/erase cycles `block` has been through.
    fn erase_count(&self, block: u32) -> u32;
}

/// What a model may look at besides the operation itself.
#[derive(Clone, Copy)]
pub struct NandCtx<'a> {
    pub layout: &'a Layout,
    /// When the array operation is scheduled (its start may follow a command or data-in).
    pub now: Time,
    pub wear: &'a dyn BlockWear,
}

/// What an array operation costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayCost {
    /// Time of the array phase (tR, tPROG, tBERS).
    pub array_ns: u64,
    /// Bytes moved over the channel: data-in of a program, data-out of a read.
    pub bytes: u32,
    /// Reads with LDPC levels: the level the page was sensed at (its decode time follows from it).
    pub level: u8,
    /// Programs: the ISPP iterations the program is made of (equal parts of `array_ns`).
    pub iterations: u32,
}

/// Every page of every block takes the same time (`device.timing.{read,program,erase}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FixedLatency {
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// ISPP iterations of a program (`device.ispp.iterations`).
    pub iterations: u32,
}

impl FixedLatency {
    #[inline]
    pub fn cost(&self, op: &NandOp) -> ArrayCost {
        let array_ns = match op.kind {
            NandOpKind::Read => self.read_ns,
            NandOpKind::Program => self.program_ns,
            NandOpKind::Erase => self.erase_ns,
        };
        ArrayCost { array_ns, bytes: op.bytes, level: 0, iterations: self.iterations }
    }
}

#[derive(Debug, Clone)]
pub enum LatencyModel {
    Fixed(FixedLatency),
    /// Per-block program speeds, program modes and LDPC read levels (nand/reliable.rs); boxed so
    /// the common fixed model stays a few words.
    Reliable(Box<ReliableLatency>),
}

/// Memory a latency model holds for the drive's blocks and pages, bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StateBytes {
    pub per_block: usize,
    pub per_page: usize,
}

impl LatencyModel {
    /// The fixed model of `timing` alone (tests and tools that have no FTL).
    pub fn new(t: &Timing) -> Self {
        LatencyModel::Fixed(FixedLatency { read_ns: t.read_ns, program_ns: t.program_ns, erase_ns: t.erase_ns, iterations: 10 })
    }

    /// The model `s` configures, for a drive whose erase counts `wear` gives (after
    /// preconditioning).
    pub fn from_settings(s: &Settings, wear: &dyn BlockWear) -> Self {
        let fixed = FixedLatency {
            read_ns: s.timing.read_ns,
            program_ns: s.timing.program_ns,
            erase_ns: s.timing.erase_ns,
            iterations: s.device_model.iterations,
        };
        if !ReliableLatency::wanted(&s.device_model) {
            return LatencyModel::Fixed(fixed);
        }
        let g = &s.geometry;
        LatencyModel::Reliable(Box::new(ReliableLatency::new(fixed, &s.device_model, s.seed, g.blocks() as usize, g.pages() as usize, wear)))
    }

    /// Bytes of per-block and per-page state the model keeps (0 for the fixed model).
    pub fn state_bytes(&self) -> StateBytes {
        match self {
            LatencyModel::Fixed(_) => StateBytes::default(),
            LatencyModel::Reliable(m) => m.state_bytes(),
        }
    }

    /// The array time and bus bytes of `op`.
    #[inline]
    pub fn cost(&mut self, op: &NandOp, ctx: &NandCtx) -> ArrayCost {
        match self {
            LatencyModel::Fixed(m) => m.cost(op),
            LatencyModel::Reliable(m) => m.cost(op, ctx),
        }
    }

    /// The detected program step of `block` (millivolts; larger programs faster) when blocks
    /// differ (process variation); `None` otherwise.
    #[inline]
    pub fn detected_step(&self, block: u32) -> Option<u16> {
        match self {
            LatencyModel::Fixed(_) => None,
            LatencyModel::Reliable(m) => m.detected_step(block),
        }
    }

    /// Decode time of a page read at LDPC `level`, when the model has levels.
    #[inline]
    pub fn decode_ns(&self, level: u8) -> Option<u64> {
        match self {
            LatencyModel::Fixed(_) => None,
            LatencyModel::Reliable(m) => m.decode_ns(level),
        }
    }

    /// What the reliability-aware model counted (None for the fixed model).
    pub fn report(&self) -> Option<ReliabilityReport> {
        match self {
            LatencyModel::Fixed(_) => None,
            LatencyModel::Reliable(m) => Some(m.report()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    struct NoWear;
    impl BlockWear for NoWear {
        fn erase_count(&self, _: u32) -> u32 {
            0
        }
    }

    #[test]
    fn fixed_charges_the_configured_times_and_moves_the_bytes_asked_for() {
        let s = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap();
        let layout = Layout::new(&s.geometry);
        let ctx = NandCtx { layout: &layout, now: 0, wear: &NoWear };
        let mut m = LatencyModel::new(&s.timing);
        let op = |kind, ppn, bytes| NandOp { kind, ppn, plane: 0, mode: ProgramMode::default(), bytes };
        assert_eq!(m.cost(&op(NandOpKind::Read, 7, 2048), &ctx), ArrayCost { array_ns: 50_000, bytes: 2048, level: 0, iterations: 10 });
        assert_eq!(m.cost(&op(NandOpKind::Read, NONE, 4096), &ctx), ArrayCost { array_ns: 50_000, bytes: 4096, level: 0, iterations: 10 });
        assert_eq!(m.cost(&op(NandOpKind::Program, 7, 4096), &ctx), ArrayCost { array_ns: 500_000, bytes: 4096, level: 0, iterations: 10 });
        assert_eq!(m.cost(&op(NandOpKind::Erase, 0, 0), &ctx), ArrayCost { array_ns: 2_000_000, bytes: 0, level: 0, iterations: 10 });
    }

    #[test]
    fn an_unwritten_page_has_no_block() {
        let s = Settings::from_options(&Options::from_preset("tiny").unwrap()).unwrap();
        let layout = Layout::new(&s.geometry);
        let op = NandOp { kind: NandOpKind::Read, ppn: NONE, plane: 0, mode: ProgramMode::Native, bytes: 4096 };
        assert_eq!((op.block(&layout), op.page(&layout)), (None, None));
        let ppb = layout.pages_per_block;
        let op = NandOp { ppn: 3 * ppb + 5, ..op };
        assert_eq!((op.block(&layout), op.page(&layout)), (Some(3), Some(5)));
        assert_eq!(std::mem::size_of::<ProgramMode>(), 1);
    }
}
