//! Idle time, defined once for every idle-time task (`ftl::idle`): a chip is idle when none of its
//! dies works and nothing is queued for it; once it has stayed so for `device.idle.threshold`, the
//! task gets its turn and may start one page move on the chip. Any transaction reaching the chip
//! moves its work generation on, which cancels a pending turn.

use super::event::Ev;
use super::txn::{Txn, TxnKind};
use super::Simulator;
use crate::nand::latency::ProgramMode;
use crate::nand::NONE;

impl Simulator {
    /// Whether `chip` has nothing running and nothing queued.
    fn chip_idle(&self, chip: u32) -> bool {
        self.tsu.queued_on_chip(chip) == 0 && !self.flash.chip_busy(chip)
    }

    /// Nothing more will arrive and nothing is in flight: idle time after the end of the workload
    /// is not used (the run would otherwise go on re-programming after its last request).
    fn workload_over(&self) -> bool {
        self.outstanding == 0
            && self.host.is_empty()
            && self.next_arrival.is_none()
            && self.job_arrivals.is_empty()
            && self.workload_wakeup.is_none()
    }

    /// A die of `chip` finished: if the chip is now idle, give the idle task its turn after the
    /// threshold (only when a task is configured: other runs schedule nothing). Asked at every
    /// operation's end, and the task most often has nothing for the chip: that is answered in
    /// line, the rest out of line (`schedule_idle_turn`).
    #[inline]
    pub(super) fn maybe_idle(&mut self, chip: u32) {
        if self.idle_task.as_ref().is_some_and(|t| t.has_work(chip)) {
            self.schedule_idle_turn(chip);
        }
    }

    /// `maybe_idle` for a chip the task has work for.
    #[inline(never)]
    fn schedule_idle_turn(&mut self, chip: u32) {
        if self.chip_idle(chip) && !self.workload_over() {
            let gen = self.chip_gen[chip as usize];
            self.events.push(self.now + self.idle_threshold, Ev::ChipIdle(chip, gen));
        }
    }

    /// A transaction reached `chip`'s queue: a pending idle turn no longer holds.
    #[inline]
    pub(super) fn chip_busy_again(&mut self, chip: u32) {
        if let Some(g) = self.chip_gen.get_mut(chip as usize) {
            *g = g.wrapping_add(1);
        }
    }

    /// Whether an idle turn of `chip` scheduled at work generation `gen` still stands and has work.
    pub(super) fn idle_turn_due(&self, chip: u32, gen: u32) -> bool {
        self.chip_gen[chip as usize] == gen
            && self.chip_idle(chip)
            && !self.workload_over()
            && self.idle_task.as_ref().is_some_and(|t| t.has_work(chip))
    }

    /// `chip` has been idle since its work generation was `gen` (`idle_turn_due`): start the task's
    /// next page move.
    pub(super) fn on_chip_idle(&mut self, chip: u32) {
        let Some(task) = self.idle_task.as_mut() else { return };
        while let Some((lpn, ppn)) = task.next(chip) {
            let plane = self.layout.plane_of(ppn);
            // [INFER] No re-programming in a plane short of free blocks: it would only feed GC.
            if !self.ftl.still_current(lpn, ppn) || self.ftl.needs_gc(plane) {
                self.counters.reprograms_dropped += 1;
                continue;
            }
            let die = self.layout.die_of_plane(plane);
            // A read of the page, then its program at the slow step (`Txn::is_reprogram`).
            let mut r = Txn::new(TxnKind::GcRead, NONE, lpn, ppn, plane, die, self.page_size as u32, self.now);
            r.mode = ProgramMode::Slow;
            let r = self.txns.insert(r);
            self.to_tsu(r);
            return;
        }
    }
}
