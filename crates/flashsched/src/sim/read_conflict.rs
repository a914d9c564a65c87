//! Which host reads count as conflicting, for RR's recording and WR's read-conflict tag
//! (`ftl.read_conflict`, paper 002 Figs. 1 and 2): a read that waited for its die (`waited`), or
//! one that others wait behind when it starts (`induced`: Fig. 1 records R1-R3, which reads queue
//! behind, and not R4, the last of the four).

use super::Simulator;
use crate::ftl::speed::ReadConflict;
use crate::sim::txn::TxnId;

impl Simulator {
    /// Host read `t` starts on `die`; `waited`: it waited for the die. Notes whether it induced a
    /// conflict (for RR, at its end) and tells the program-speed policy (WR's tag).
    pub(super) fn read_starts(&mut self, die: u32, t: TxnId, waited: bool) {
        let chip = self.layout.chip_of_die(die);
        let conflicted = if self.read_conflict_induced {
            // Transactions still queued are the ones that wait behind this read (it has left its
            // queue, or never entered it).
            let chip_behind = self.tsu.queued_on_chip(chip) > 0;
            // (RR records only mapped pages, and forgets the read at its end.)
            if chip_behind && self.idle_task.is_some() && self.txns.get(t).ppn != crate::nand::NONE
            {
                self.induced_reads.insert(t);
            }
            ReadConflict {
                chip: chip_behind,
                device: self.tsu.len() > 0,
            }
        } else {
            ReadConflict {
                chip: waited,
                device: waited,
            }
        };
        if self.speed_fixed.is_none() {
            self.program_speed.on_read_start(chip, conflicted);
        }
    }

    /// Whether host read `t`, ending, counts as conflicting for RR (and forget it).
    pub(super) fn read_conflicted(&mut self, t: TxnId, die_wait: u64) -> bool {
        if self.read_conflict_induced {
            self.induced_reads.remove(&t)
        } else {
            die_wait > 0
        }
    }
}
