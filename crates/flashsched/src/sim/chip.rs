//! Chip-level multi-die commands (`device.advanced.multi_die`, with interleaving off): the chip
//! is the unit that takes commands, as in MQSim's TSU. A chip takes work only when all its dies
//! are idle; then the class with the highest priority among the dies' next transactions (reads,
//! then writes, then erases) is served on every die that has one, oldest first, as one
//! die-interleaved command: the dies' transfers go back to back on the channel (each die asks
//! for the bus in that order) and each die's array operation starts when its own transfer ends.
//! The chip takes nothing else until the last of them is done.

use super::txn::TxnKind;
use super::Simulator;

/// Priority of a transaction's class on a chip (lower first): MQSim serves reads (host and GC),
/// then writes, then erases.
fn rank(kind: TxnKind) -> u8 {
    match kind {
        TxnKind::HostRead | TxnKind::GcRead => 0,
        TxnKind::HostWrite | TxnKind::GcWrite => 1,
        TxnKind::Erase => 2,
    }
}

impl Simulator {
    /// Start a multi-die command on `chip` if it is idle and has queued work.
    pub(super) fn start_chip(&mut self, chip: u32) {
        let dpc = self.layout.dies_per_chip;
        let first = chip * dpc;
        loop {
            if (first..first + dpc).any(|d| self.flash.dies[d as usize].is_occupied()) {
                return;
            }
            // The next transaction of each die: (rank, time it was queued, id, die).
            let mut best: Option<u8> = None;
            let mut picks = std::mem::take(&mut self.chip_scratch);
            picks.clear();
            for d in first..first + dpc {
                if let Some(t) = self.tsu.peek(d, &self.txns.items) {
                    let x = self.txns.get(t);
                    let r = rank(x.kind);
                    best = Some(best.map_or(r, |b| b.min(r)));
                    picks.push((r, x.enqueued, t, d));
                }
            }
            let Some(best) = best else {
                self.chip_scratch = picks;
                return;
            };
            picks.retain(|p| p.0 == best);
            picks.sort_unstable();
            for &(_, _, _, d) in &picks {
                // A start above may have started this die already (GC work it queued).
                if self.flash.dies[d as usize].is_occupied() {
                    continue;
                }
                if let Some(t) = self.tsu.next(d, &self.txns.items) {
                    self.start_txn(d, t);
                }
            }
            self.chip_scratch = picks;
            // Every pick may have needed no flash work (a stale GC move) or had to wait for GC
            // (a write with no free page): then the chip is still idle and looks again.
        }
    }
}
