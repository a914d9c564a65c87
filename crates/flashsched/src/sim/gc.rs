//! Garbage collection as flash work: starting a collection when a plane runs low on free blocks,
//! and turning its page moves and the victim's erase into transactions.

use super::txn::{Placement, Txn, TxnKind};
use super::Simulator;
use crate::nand::{Lpn, NONE};

/// The logical pages of a plane's GC moves, in the order they were queued, and how many have
/// started. Each move starts by checking that its page is still the current copy
/// (`Ftl::still_current`): a mapping entry anywhere in a table larger than the caches, whose miss
/// was a quarter of the GC-heavy run. As a move starts, the entry of the move after the next is
/// prefetched (one ahead measured 1.5% slower), so that its miss overlaps the moves before it; the
/// victim's second move is prefetched as the collection starts, its first not at all (it usually
/// starts at once). Only a hint: under a scheduler that starts a plane's moves
/// in another order, or with wear leveling's migrations in the same plane, it fetches the wrong
/// line, and nothing else changes.
#[derive(Debug, Clone, Default)]
pub(super) struct MovesAhead {
    lpns: Vec<Lpn>,
    started: usize,
}

impl Simulator {
    /// Start GC in `plane` if it is below its free-block floor and not already collecting.
    pub(super) fn maybe_gc(&mut self, plane: u32) {
        // The lowest free-block count seen (a `min`, not a branch: falling to a new low comes and
        // goes with every block a plane opens).
        self.free_min = self.free_min.min(self.ftl.free_blocks(plane));
        if !self.ftl.needs_gc(plane) {
            return;
        }
        let Some(victim) = self.gc.select(&self.ftl, plane) else { return };
        self.collect(plane, victim, Placement::Static);
    }

    /// Reclaim `victim` of `plane`: its valid pages moved as flash work (programmed where `place`
    /// says: GC's stream, or wear leveling's), then its erase.
    pub(super) fn collect(&mut self, plane: u32, victim: u32, place: Placement) {
        let moves = self.ftl.begin_gc(plane, victim);
        let die = self.layout.die_of_plane(plane);
        if moves.is_empty() {
            self.enqueue_erase(plane, victim);
            return;
        }
        let bytes = if self.copyback { 0 } else { self.page_size as u32 };
        let ahead = &mut self.gc_ahead[plane as usize];
        ahead.lpns.clear();
        ahead.lpns.extend(moves.iter().map(|&(_, lpn)| lpn));
        ahead.started = 0;
        if let Some(&l) = ahead.lpns.get(1) {
            self.ftl.prefetch_mapping(l);
        }
        for (src, lpn) in moves {
            let mut r = Txn::new(TxnKind::GcRead, NONE, lpn, src, plane, die, bytes, self.now);
            r.place = place;
            let t = self.txns.insert(r);
            self.to_tsu(t);
        }
    }

    /// A page move of `plane` is starting: prefetch the mapping entry of the move after the next
    /// (`MovesAhead`).
    #[inline]
    pub(super) fn gc_move_starting(&mut self, plane: u32) {
        let ahead = &mut self.gc_ahead[plane as usize];
        ahead.started += 1;
        if let Some(&lpn) = ahead.lpns.get(ahead.started + 1) {
            self.ftl.prefetch_mapping(lpn);
        }
    }

    /// A page move found its page moved or rewritten since it was planned.
    pub(super) fn move_dropped(&mut self, txn: &Txn) {
        if txn.is_reprogram() {
            self.counters.reprograms_dropped += 1;
        } else {
            let victim_plane = if txn.place == Placement::Pinned { self.migration_over(txn) } else { txn.plane };
            self.gc_move_finished(victim_plane, false);
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

    /// A host write stalled in a plane where GC can reclaim nothing. When pages may live away
    /// from their address's plane (`cross_plane`: dynamic allocation, where a burst of writes can
    /// all pick one plane, or wear leveling's migrations to other chips), a plane can fill with
    /// valid pages while others have room: move the write to
    /// another plane that can take it, of its own die when one can (started at once), else the
    /// one with the most free blocks (queued for its die). With nowhere to go it stays stalled,
    /// and its plane's stalled writes are tried again after the next erase (`stuck`).
    pub(super) fn relocate_write(&mut self, die: u32, t: super::txn::TxnId) {
        let x = *self.txns.get(t);
        let stream = self.wear.write_stream(&x);
        let ppd = self.layout.planes_per_die;
        let takes = |s: &Self, p: u32| p != x.plane && s.ftl.peek_in(p, crate::ftl::Writer::Host, stream).is_some();
        let own = (die * ppd..(die + 1) * ppd).find(|&p| takes(self, p));
        let target = own.or_else(|| {
            let channel = self.alloc.relocation_channel(x.lpn as u64);
            (0..self.layout.planes())
                .filter(|&p| channel.is_none_or(|c| self.layout.channel_of_die(self.layout.die_of_plane(p)) == c))
                .filter(|&p| takes(self, p))
                .max_by_key(|&p| (self.ftl.free_blocks(p), std::cmp::Reverse(p)))
        });
        let Some(plane) = target else {
            // Nowhere now: retried when a block is next erased anywhere. Planes below their GC
            // floor that no write of their own asks to collect are asked now (the erase comes).
            if !self.stuck.contains(&x.plane) {
                self.stuck.push(x.plane);
            }
            for p in 0..self.layout.planes() {
                if p != x.plane && self.ftl.needs_gc(p) {
                    self.maybe_gc(p);
                }
            }
            return;
        };
        let stalled = &mut self.stalled[x.plane as usize];
        let at = stalled.iter().rposition(|&s| s == t).expect("the write was just stalled");
        stalled.remove(at);
        self.counters.write_stalls -= 1;
        self.counters.writes_relocated += 1;
        if self.hil_places {
            self.placed_write_moves(x.plane, plane);
        }
        let w = self.txns.get_mut(t);
        w.plane = plane;
        w.die = self.layout.die_of_plane(plane);
        let new_die = w.die;
        if new_die == die {
            self.start_txn(die, t);
        } else {
            // Back at the head of its new die's queue, as a write that waited for GC is (the
            // request's own bookkeeping, and a slack-aware scheduler's record of it, were done
            // when it first entered the device).
            w.enqueued = self.now;
            self.disarm(new_die);
            self.tsu.enqueue_front(t, self.txns.get(t));
            self.try_start_die(new_die);
        }
    }

    /// Program `lpn` at `ppn` when pages can change planes (dynamic allocation, wear-leveling
    /// migrations): the old copy's plane may have writes stalled for want of a block GC could
    /// reclaim, and this invalidation may have made one, so GC is asked there again (nothing
    /// else would: its own writes cannot start) once the die has begun this write
    /// (`gc_recheck`).
    pub(super) fn program_across_planes(&mut self, lpn: crate::nand::Lpn, ppn: crate::nand::Ppn) -> Option<crate::nand::Ppn> {
        let old = self.ftl.program(lpn, ppn);
        if let Some(p) = old.map(|o| self.layout.plane_of(o)).filter(|&p| p != self.layout.plane_of(ppn)) {
            if self.has_stalled(p) {
                self.gc_recheck.push(p);
            }
        }
        old
    }
}
