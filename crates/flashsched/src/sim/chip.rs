//! Chip-level multi-die commands (`device.advanced.multi_die`, with interleaving off): the chip
//! is the unit that takes commands, as in MQSim's TSU. A chip takes work only when all its dies
//! are idle; then the class with the highest priority among the dies' next transactions (reads,
//! then writes, then erases) is served on every die that has one, oldest first, as one
//! die-interleaved command: the dies' transfers go back to back on the channel (each die asks
//! for the bus in that order) and each die's array operation starts when its own transfer ends.
//! The chip takes nothing else until the last of them is done.
//!
//! As in MQSim (`TSU_Base`), the command is led by the oldest transaction of the class, and
//! another die joins only with a transaction of that class at the same page offset in its block
//! as the leader (reads: the page read; writes: the page their plane would program next); the
//! first such in its queue is taken, and multi-plane packing (`device.advanced.multi_plane`)
//! fills each die's other planes the same way.
//!
//! Without multi-die commands a freed chip goes to one die at a time (`chip_freed`): in turn, or
//! reads first across the chip and dies by number (SSDSim's order, `tsu.read_priority`,
//! `tsu.write_order`).

use super::txn::{Txn, TxnId, TxnKind};
use super::wear::Wear;
use super::Simulator;
use crate::ftl::{Ftl, Writer};
use crate::engine::Time;
use crate::nand::{Layout, NONE};

/// Priority of a transaction's class on a chip (lower first): MQSim serves reads (host and GC),
/// then writes, then erases.
fn rank(kind: TxnKind) -> u8 {
    match kind {
        TxnKind::HostRead | TxnKind::GcRead => 0,
        TxnKind::HostWrite | TxnKind::GcWrite => 1,
        TxnKind::Erase => 2,
    }
}

/// Which transaction leads the chip's next command: of the best class (`rank`), a read of a
/// translation page first (MQSim serves its MappingReadTRQueue before user reads, which may join
/// the command), then the oldest.
fn lead_key(x: &Txn) -> (u8, bool) {
    (rank(x.kind), !x.is_translation_read())
}

/// The page offset within its block that `x` would use: a read's page, the page a write's plane
/// programs next; `None` for erases and reads of never-written pages.
fn page_in_block(x: &Txn, ftl: &Ftl, wear: &Wear, layout: &Layout) -> Option<u32> {
    let ppn = match x.kind {
        TxnKind::HostRead | TxnKind::GcRead => Some(x.ppn).filter(|&p| p != NONE),
        TxnKind::HostWrite => ftl.peek_in(x.plane, Writer::Host, wear.write_stream(x)),
        TxnKind::GcWrite => ftl.peek_in(x.plane, Writer::Gc, wear.write_stream(x)),
        TxnKind::Erase => None,
    };
    ppn.map(|p| layout.page_in_block(p))
}

/// A die's offer to its chip's next command: (rank, not a translation read, time queued, id,
/// die), the smallest first.
pub(super) type Offer = (u8, bool, Time, TxnId, u32);

impl Simulator {
    /// The best offer of the dies `first..first + dpc` but `except`: each die's next
    /// transaction, or the first of its kept-aside writes when its scheduler would take that
    /// next (`aside_offer`).
    #[inline(always)]
    fn chip_offers(&self, first: u32, dpc: u32, except: u32) -> Option<Offer> {
        // Kept-aside writes are looked for only while some die has them at its head.
        let aside = self.requeue.armed_dies() > 0;
        let mut pick: Option<Offer> = None;
        for d in first..first + dpc {
            if d == except {
                continue;
            }
            let offer = if aside { self.aside_offer(d).or_else(|| self.tsu.peek(d, &self.txns.items)) } else { self.tsu.peek(d, &self.txns.items) };
            if let Some(t) = offer {
                let x = self.txns.get(t);
                let (r, later) = lead_key(x);
                let c = (r, later, x.enqueued, t, d);
                pick = Some(pick.map_or(c, |p| p.min(c)));
            }
        }
        pick
    }

    /// Start a multi-die command on `chip` if it is idle and has queued work.
    pub(super) fn start_chip(&mut self, chip: u32) {
        let dpc = self.layout.dies_per_chip;
        let first = chip * dpc;
        loop {
            // (With SSDSim's admission cap the clock may be set back: a chip that ended an
            // operation after now is busy until then, `admission`.)
            if self.flash.chip_busy(chip) || !self.flash.free_by(first, self.now) {
                return;
            }
            if self.turns.on && !self.turns_idle(self.layout.channel_of_chip(chip)) {
                // MQSim's turns: a leader that needed no flash work or waits for GC let work it
                // queued take the channel meanwhile; the chip waits for the channel's next turn.
                return;
            }
            // The leader: of the next transaction of each die, the best class (rank), then a
            // translation read, then the oldest, as the smallest offer.
            let pick = self.chip_offers(first, dpc, NONE);
            let Some((best, _, _, lead, lead_die)) = pick else { return };
            if self.requeue.armed_dies() > 0 && self.aside_offer(lead_die) == Some(lead) {
                // A write kept aside (`sim::stall`): it and those behind it that would have been
                // picked before any other die's offer stall now, as they would have one by one.
                let other = self.chip_offers(first, dpc, lead_die);
                self.stall_aside_leads(lead_die, other);
                continue;
            }
            // The leader's page offset, taken before it starts (a write allocates its page then).
            let layout = self.layout;
            let page = page_in_block(self.txns.get(lead), &self.ftl, &self.wear, &layout);
            let lead_class = self.txns.get(lead).kind.op();
            let t = self.tsu.next(lead_die, &self.txns.items);
            debug_assert_eq!(t, Some(lead), "next() returns what peek() showed");
            if let Some(t) = t {
                self.start_txn(lead_die, t);
            }
            if self.flash.dies[lead_die as usize].txn() != lead {
                // The leader needed no flash work (a stale GC move) or waits for GC: no command
                // to join; look again (or, if what that queued started, stop).
                continue;
            }
            // Without a page offset (an erase, a read of a never-written page) nothing can join.
            let Some(page) = page else { continue };
            for d in first..first + dpc {
                // A start above may have started this die already (GC work it queued).
                if d == lead_die || self.flash.dies[d as usize].is_occupied() {
                    continue;
                }
                let mut out = std::mem::take(&mut self.pick_scratch);
                {
                    let (txns, ftl, wear) = (&self.txns.items, &self.ftl, &self.wear);
                    let mut fits = |c: TxnId| {
                        let x = &txns[c as usize];
                        rank(x.kind) == best && page_in_block(x, ftl, wear, &layout) == Some(page)
                    };
                    self.tsu.take_companions(d, lead_class, 1, &mut fits, &mut out);
                }
                if let Some(&t) = out.first() {
                    self.start_txn(d, t);
                }
                out.clear();
                self.pick_scratch = out;
            }
            // Every pick may have needed no flash work (a stale GC move) or had to wait for GC
            // (a write with no free page): then the chip is still idle and looks again.
        }
    }

    /// The chip of `die` (the unit that takes commands, without interleaving) is free: which of
    /// its dies gets it. By default its other dies first, in turn, so none starves;
    /// `tsu.read_priority = "chip"` first gives it to the die with the oldest host read at the
    /// head of its queue, and `tsu.write_order = "die_number"` tries the dies from die 0.
    pub(super) fn chip_freed(&mut self, die: u32) {
        let dpc = self.layout.dies_per_chip;
        let first = die - die % dpc;
        if self.chip_reads_first {
            let (tsu, txns) = (&self.tsu, &self.txns.items);
            let reader = (first..first + dpc)
                .filter_map(|d| tsu.peek(d, txns).map(|t| (d, &txns[t as usize])))
                .filter(|(_, t)| t.kind == TxnKind::HostRead)
                .min_by_key(|(_, t)| t.enqueued)
                .map(|(d, _)| d);
            if let Some(d) = reader {
                self.start_die_now(d);
            }
        }
        for i in 1..=dpc {
            let d = if self.dies_by_number { first + i - 1 } else { first + (die - first + i) % dpc };
            self.start_die_now(d);
        }
    }
}
