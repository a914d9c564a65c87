//! The flash controller's resources and their timing: dies, channels, ECC, program/erase
//! suspension and advanced commands.
//!
//! Timing of one flash operation on its die (a die is busy from the moment it starts an operation
//! until the operation's last step; a channel is busy only during transfers):
//!
//! - read: command on the channel (`timing.command`), array read (tR), data out on the channel
//!   (bytes / rate), then ECC decoding in the controller ([`EccModel`], die and channel free);
//! - program: command + data in on the channel, then the array program (tPROG);
//! - erase: command on the channel, then the array erase (tBERS).
//!
//! The array times and the bytes each operation moves come from the NAND latency model
//! ([`crate::nand::latency`]); by default `timing.read`, `timing.program` and `timing.erase`.
//!
//! Advanced commands ([`command`]) change the first two: a multi-plane command runs the array
//! operations of several planes of one die together, and a chip without multi-die interleaving
//! runs one die at a time.
//!
//! The channel serves waiting dies first-come, first-served. GC reads, writes and erases are real
//! operations on the same dies and channels as host I/O.
//!
//! Why a layer of its own: the simulator's event loop ([`crate::sim`]) decides what runs when;
//! this module decides how long it takes and what state a die or channel is in. Its functions
//! are leaves: they never call back into the simulator and never schedule events. They return
//! small `Copy` values ([`Step`], [`Grant`], [`SuspendAt`]) and the simulator pushes the events,
//! in a fixed order, so that events at equal times keep running in the same order.

pub mod channel;
pub mod command;
pub mod die;
pub mod ecc;
pub mod suspend;

pub use channel::{BusTiming, Channel, Grant};
pub use command::{Advanced, CommandCounts, MultiPlane};
pub use die::{AfterArray, Die, Phase, Step, StepEnd};
pub use ecc::{EccDecoders, EccModel};
pub use suspend::{SuspendAt, SuspendConfig, Suspension};

use crate::config::Settings;
use crate::engine::Time;
use crate::nand::latency::{BlockWear, LatencyModel, NandCtx};
use crate::nand::Layout;
use crate::sim::txn::Txn;

/// The drive's flash resources and their timing models.
#[derive(Debug, Clone)]
pub struct Flash {
    pub dies: Vec<Die>,
    pub channels: Vec<Channel>,
    /// Array times of reads, programs and erases, and the bytes they move.
    pub latency: LatencyModel,
    pub bus: BusTiming,
    pub ecc: EccModel,
    pub decoders: EccDecoders,
    pub suspend: SuspendConfig,
    /// Multi-plane, multi-die and copyback capabilities.
    pub adv: Advanced,
    /// Commands issued, all dies together. One record, not one per die: only the totals are
    /// reported, and a per-die record was a cache miss on every command (docs/performance.md).
    pub commands: CommandCounts,
    pub layout: Layout,
    /// Dies of each chip running an operation or holding a suspended one (`Die::is_occupied`).
    /// Kept here so that the chip-busy test of every host transaction reads one small array
    /// instead of each die's record (those reads missed the cache on most transactions,
    /// docs/performance.md). Only `begin` and `release` change whether a die is occupied
    /// (suspending and resuming keep it so), and they go through `Flash`.
    occupied: Vec<u16>,
    /// When each die last ended an operation, kept only when the clock may be set back
    /// (`host.queue_length`: SSDSim's admission, `sim::admission`); empty otherwise. A die is then
    /// free only from that time on, as SSDSim judges a chip idle by its predicted time.
    free_at: Vec<Time>,
}

impl Flash {
    /// The drive's flash; `wear` gives the erase counts after preconditioning (models that depend
    /// on wear start from them).
    pub fn new(s: &Settings, layout: Layout, wear: &dyn BlockWear) -> Self {
        Flash {
            dies: vec![Die::default(); layout.dies() as usize],
            channels: vec![Channel::default(); layout.channels as usize],
            latency: LatencyModel::from_settings(s, wear),
            bus: BusTiming::new(&s.timing).remembering(s.geometry.page_size as u64),
            ecc: EccModel::new(&s.timing),
            decoders: EccDecoders::new(layout.channels, s.device_model.ecc_decoders),
            suspend: SuspendConfig::new(s),
            adv: Advanced::new(s),
            commands: CommandCounts::default(),
            layout,
            occupied: vec![0; layout.chips() as usize],
            free_at: if s.resolved.int("host.queue_length") > 0 { vec![0; layout.dies() as usize] } else { Vec::new() },
        }
    }

    /// Decode time of a host read's page: its LDPC level's when the latency model has levels, else
    /// the ECC model's.
    #[inline]
    pub fn decode_ns(&self, txn: &Txn) -> u64 {
        match self.latency.decode_ns(txn.level) {
            Some(ns) if txn.kind == crate::sim::txn::TxnKind::HostRead => ns,
            Some(_) => 0,
            None => self.ecc.decode_ns(txn),
        }
    }

    /// A die of `chip` runs an operation or holds a suspended one.
    #[inline]
    pub fn chip_busy(&self, chip: u32) -> bool {
        debug_assert_eq!(self.occupied[chip as usize] as usize, self.chip_dies(chip).iter().filter(|d| d.is_occupied()).count(), "chip {chip}");
        self.occupied[chip as usize] > 0
    }

    fn chip_dies(&self, chip: u32) -> &[Die] {
        let first = chip * self.layout.dies_per_chip;
        &self.dies[first as usize..(first + self.layout.dies_per_chip) as usize]
    }

    /// `die` starts `t` in `phase` at `now` (`Die::begin`).
    #[inline]
    pub fn begin(&mut self, die: u32, t: crate::sim::txn::TxnId, phase: Phase, now: Time) {
        let d = &mut self.dies[die as usize];
        let was = d.is_occupied();
        d.begin(t, phase, now);
        if !was {
            self.occupied[self.layout.chip_of_die(die) as usize] += 1;
        }
    }

    /// `die`'s operation of kind `kind` is over at `now` (`Die::release`); returns its transaction.
    #[inline]
    pub fn release(&mut self, die: u32, kind: crate::sim::txn::TxnKind, now: Time) -> crate::sim::txn::TxnId {
        let d = &mut self.dies[die as usize];
        let t = d.release(kind, now);
        if let Some(f) = self.free_at.get_mut(die as usize) {
            *f = now;
        }
        // A read served while a program or erase is suspended leaves the die occupied.
        if !d.is_occupied() {
            self.occupied[self.layout.chip_of_die(die) as usize] -= 1;
        }
        t
    }

    /// Without multi-die interleaving, `die` may start an operation only while no other die of
    /// its chip runs or holds one.
    #[inline]
    pub fn may_start(&self, die: u32) -> bool {
        if self.adv.interleave {
            return true;
        }
        // No other die of the chip occupied: the chip's count is at most this die's own.
        let chip = self.layout.chip_of_die(die);
        debug_assert!(self.chip_busy(chip) || !self.dies[die as usize].is_occupied());
        self.occupied[chip as usize] == u16::from(self.dies[die as usize].is_occupied())
    }

    /// Whether `die` may start at `now` as far as the time goes: the clock may be set back
    /// (`free_at`), and a die (with the chip as the unit, every die of its chip) that ended an
    /// operation after `now` is busy until then. Always true when the clock runs forward only.
    #[inline]
    pub fn free_by(&self, die: u32, now: Time) -> bool {
        if self.free_at.is_empty() {
            return true;
        }
        if self.adv.interleave {
            return self.free_at[die as usize] <= now;
        }
        let first = self.layout.chip_of_die(die) * self.layout.dies_per_chip;
        self.free_at[first as usize..(first + self.layout.dies_per_chip) as usize].iter().all(|&f| f <= now)
    }

    /// When `die` (with the chip as the unit, its chip) is next free by the clock (`free_by`): the
    /// latest end of an operation of the dies concerned (0 when the clock runs forward only).
    pub fn free_time(&self, die: u32) -> Time {
        if self.free_at.is_empty() {
            return 0;
        }
        if self.adv.interleave {
            return self.free_at[die as usize];
        }
        let first = self.layout.chip_of_die(die) * self.layout.dies_per_chip;
        self.free_at[first as usize..(first + self.layout.dies_per_chip) as usize].iter().copied().max().unwrap_or(0)
    }

    /// Commands issued so far, all chips together.
    pub fn command_totals(&self) -> CommandCounts {
        self.commands
    }

    /// An operation starting in `phase` goes straight to the array: a zero-length command needs
    /// no bus time.
    #[inline]
    pub fn skips_bus(&self, phase: Phase) -> bool {
        use crate::nand::latency::NandOpKind;
        match phase {
            Phase::ReadCmd => self.bus.command(NandOpKind::Read) == 0,
            Phase::EraseCmd => self.bus.command(NandOpKind::Erase) == 0,
            _ => false,
        }
    }

    /// `die` got channel `ch` at `now` for the next step of its running command (`txns` is the
    /// transaction slab). `wear` is the FTL's, for latency models that depend on it.
    #[inline]
    pub fn start_transfer(&mut self, ch: u32, die: u32, txns: &mut [Txn], wear: &dyn BlockWear, now: Time) -> Step {
        let ctx = NandCtx { layout: &self.layout, now, wear };
        let st = self.dies[die as usize].transfer_step(die, txns, &mut self.latency, &ctx, &self.bus, self.adv.dbsy_ns, now);
        self.channels[ch as usize].occupy(now, st.dur);
        st
    }

    /// `die` starts the array operation of its running command at `now` without the bus.
    #[inline]
    pub fn start_array(&mut self, die: u32, txns: &mut [Txn], wear: &dyn BlockWear, now: Time) -> Step {
        let ctx = NandCtx { layout: &self.layout, now, wear };
        self.dies[die as usize].array_step(die, txns, &mut self.latency, &ctx, &self.bus, now)
    }
}
