//! Garbage collection as flash work: starting a collection when a plane runs low on free blocks,
//! and turning its page moves and the victim's erase into transactions.

use super::txn::{Txn, TxnKind};
use super::Simulator;
use crate::nand::NONE;

impl Simulator {
    /// Start GC in `plane` if it is below its free-block floor and not already collecting.
    pub(super) fn maybe_gc(&mut self, plane: u32) {
        let free = self.ftl.free_blocks(plane);
        if free < self.free_min {
            self.free_min = free;
        }
        if !self.ftl.needs_gc(plane) {
            return;
        }
        let Some(victim) = self.gc.select(&self.ftl, plane) else { return };
        self.collect(plane, victim);
    }

    /// Wear leveling asks for blocks after an erase: collect each as GC would.
    pub(super) fn maybe_wear_level(&mut self) {
        while let Some(block) = self.wear.as_mut().and_then(|w| w.next(&self.ftl)) {
            let plane = self.layout.plane_of_block(block);
            self.counters.wl_collections += 1;
            self.counters.wl_pages += self.ftl.valid_count(block) as u64;
            self.collect(plane, block);
        }
    }

    /// Reclaim `victim` of `plane`: its valid pages moved as flash work, then its erase.
    fn collect(&mut self, plane: u32, victim: u32) {
        let moves = self.ftl.begin_gc(plane, victim);
        let die = self.layout.die_of_plane(plane);
        if moves.is_empty() {
            self.enqueue_erase(plane, victim);
            return;
        }
        let bytes = if self.copyback { 0 } else { self.page_size as u32 };
        for (src, lpn) in moves {
            let t = self.txns.insert(Txn::new(TxnKind::GcRead, NONE, lpn, src, plane, die, bytes, self.now));
            self.to_tsu(t);
        }
    }

    /// A page move found its page moved or rewritten since it was planned.
    pub(super) fn move_dropped(&mut self, txn: &Txn) {
        if txn.is_reprogram() {
            self.counters.reprograms_dropped += 1;
        } else {
            self.gc_move_finished(txn.plane, false);
        }
    }

    pub(super) fn gc_move_finished(&mut self, plane: u32, moved: bool) {
        if !moved {
            self.counters.gc_moves_dropped += 1;
        }
        if self.ftl.gc_move_done(plane, moved) {
            let victim = self.ftl.planes[plane as usize].gc_victim;
            self.enqueue_erase(plane, victim);
        }
    }

    pub(super) fn enqueue_erase(&mut self, plane: u32, block: u32) {
        let die = self.layout.die_of_plane(plane);
        let ppn = block * self.layout.pages_per_block;
        let t = self.txns.insert(Txn::new(TxnKind::Erase, NONE, 0, ppn, plane, die, 0, self.now));
        self.to_tsu(t);
    }
}
