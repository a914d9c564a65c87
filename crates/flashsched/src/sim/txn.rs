//! Flash transactions (SSDSim's `sub_request`, MQSim's `NVM_Transaction_Flash`): one page-sized
//! piece of a host request, or one step of garbage collection, and the times it accumulates.

use crate::engine::Time;
use crate::nand::latency::{NandOpKind, ProgramMode};
use crate::nand::{Lpn, Ppn};

pub type TxnId = u32;
pub type ReqId = u32;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxnKind {
    HostRead,
    HostWrite,
    GcRead,
    GcWrite,
    Erase,
}

impl TxnKind {
    pub fn is_read(self) -> bool {
        matches!(self, TxnKind::HostRead | TxnKind::GcRead)
    }
    pub fn is_write(self) -> bool {
        matches!(self, TxnKind::HostWrite | TxnKind::GcWrite)
    }
    pub fn is_gc(self) -> bool {
        matches!(self, TxnKind::GcRead | TxnKind::GcWrite | TxnKind::Erase)
    }
    /// The flash operation it is (reads and GC reads, writes and GC writes, erases).
    #[inline]
    pub fn op(self) -> NandOpKind {
        match self {
            TxnKind::HostRead | TxnKind::GcRead => NandOpKind::Read,
            TxnKind::HostWrite | TxnKind::GcWrite => NandOpKind::Program,
            TxnKind::Erase => NandOpKind::Erase,
        }
    }
}

/// Where a host write goes within its chip (`Txn::place`); for reads, only `Mapping` is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(u8)]
pub enum Placement {
    /// The plane the page allocator chose.
    #[default]
    Static,
    /// The plane of its chip whose next block programs fastest (VIOS: the chip has other requests
    /// waiting).
    Fastest,
    /// The plane whose next block programs slowest (VIOS: no other request waits for the chip).
    Slowest,
    /// GC moves: a wear-leveling migration to another chip (`ftl::wear::WlAction::Split`): read
    /// from its victim, programmed into the migration block of the destination plane
    /// (`sim::wear`).
    Pinned,
    /// GC moves of a wear-leveling collection (`ftl::wear::WlAction::Collect`): programmed into
    /// wear leveling's own stream of the victim's plane (`ftl::STREAM_WEAR`).
    WearLevel,
    /// A translation page of the cached mapping table: programmed into the mapping stream
    /// (`ftl::STREAM_MAPPING`); on a read, a read of a translation page (a host read in every
    /// other respect), which schedulers that rank classes may put first.
    Mapping,
}

#[derive(Debug, Clone, Copy)]
pub struct Txn {
    pub kind: TxnKind,
    /// The host request it belongs to, or `NONE` for GC.
    pub req: ReqId,
    pub lpn: Lpn,
    /// Reads: the page read. Writes: the page programmed (set when the program starts). GC writes:
    /// the source page until then. Erases: the block's first page.
    pub ppn: Ppn,
    pub plane: u32,
    pub die: u32,
    /// Bytes moved over the channel (0 with copyback).
    pub bytes: u32,
    /// Writes: the mode the page is programmed in, chosen with the page. Reads and erases: `Native`.
    pub mode: ProgramMode,
    /// Host reads with LDPC levels: the level the page is sensed at (set with the array read).
    pub level: u8,
    /// Host writes: where in its chip it may go (set by the device queue).
    pub place: Placement,
    /// When it entered its chip's queue.
    pub enqueued: Time,
    /// When it last asked for the channel.
    pub chan_asked: Time,
    pub die_wait: u64,
    pub chan_wait: u64,
    pub bus: u64,
    pub array: u64,
    /// Host reads: time from the end of the data-out to the end of decoding (decoder wait plus
    /// decode), ns.
    pub ecc: u32,
}

impl Txn {
    pub fn new(kind: TxnKind, req: ReqId, lpn: Lpn, ppn: Ppn, plane: u32, die: u32, bytes: u32, now: Time) -> Self {
        Txn { kind, req, lpn, ppn, plane, die, bytes, mode: ProgramMode::Native, level: 0, place: Placement::Static, enqueued: now, chan_asked: 0, die_wait: 0, chan_wait: 0, bus: 0, array: 0, ecc: 0 }
    }
}

impl Txn {
    /// A read of a translation page (`ftl.mapping_cache`), issued by the table, not the host.
    #[inline]
    pub fn is_translation_read(&self) -> bool {
        self.kind == TxnKind::HostRead && self.place == Placement::Mapping
    }

    /// An idle-time re-program (RR): a page move like GC's, but programmed in an explicit mode
    /// (GC moves program at the block's own, `Native`), not part of any collection.
    #[inline]
    pub fn is_reprogram(&self) -> bool {
        matches!(self.kind, TxnKind::GcRead | TxnKind::GcWrite) && self.mode != ProgramMode::Native
    }
}

// A transaction is copied whole on the hot path (starting and finishing it): keep it small.
const _: () = assert!(std::mem::size_of::<Txn>() <= 80);

/// A slab: ids are reused once freed, so memory follows what is in flight, not the trace.
#[derive(Debug)]
pub struct Slab<T> {
    pub items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab { items: Vec::new(), free: Vec::new() }
    }
}

impl<T> Slab<T> {
    pub fn insert(&mut self, t: T) -> u32 {
        if let Some(id) = self.free.pop() {
            self.items[id as usize] = t;
            id
        } else {
            self.items.push(t);
            (self.items.len() - 1) as u32
        }
    }
    /// Free `id` for reuse (its value stays until overwritten).
    pub fn remove(&mut self, id: u32) {
        self.free.push(id);
    }

    /// Nothing is held (every inserted id was removed).
    pub fn is_empty(&self) -> bool {
        self.free.len() == self.items.len()
    }
    #[inline]
    pub fn get(&self, id: u32) -> &T {
        &self.items[id as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        &mut self.items[id as usize]
    }
    pub fn in_flight(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

pub type TxnSlab = Slab<Txn>;
