//! Program and erase suspension in the simulator: a die's program or erase put aside for host
//! reads queued behind it (`device.suspend`, `ctrl::suspend`) or for Slacker's write pausing, the
//! reads served meanwhile, and the operation's resumption.

use super::event::Ev;
use super::txn::{TxnId, TxnKind};
use super::Simulator;
use crate::ctrl::Suspension;
use crate::engine::Time;
use crate::nand::NONE;

impl Simulator {
    /// A suspended program or erase: only reads may run, within the suspension's budget (`more`
    /// says whether any is left); with none to run, the operation resumes. (Out of line: rare,
    /// and the die's start path is hot.)
    #[inline(never)]
    pub(super) fn serve_suspended(&mut self, die: u32, more: bool) {
        match if more { self.tsu.next_read(die, &self.txns.items) } else { None } {
            Some(t) => {
                if self.idle_task.is_some() {
                    self.reprogram_read_served(die, t);
                }
                self.start_txn(die, t);
                // Each read of a multi-plane command uses the suspension's budget. A stale GC read
                // is dropped instead of started, and dropping it may queue the victim's erase,
                // whose nested start can resume the suspended operation: only a read the die is
                // running now counts.
                let d = &mut self.flash.dies[die as usize];
                if d.txn() == t {
                    let n = 1 + d.group().len() as u32;
                    d.count_suspended_reads(n);
                }
            }
            None => self.resume(die),
        }
    }

    /// A host read `reader` was queued for the busy `die`: suspend its program or erase for it
    /// if the device allows (`ctrl::suspend`).
    pub(super) fn maybe_suspend_for(&mut self, die: u32, reader: TxnId) {
        if self.txns.get(reader).kind != TxnKind::HostRead {
            return;
        }
        if !self.flash.suspend.for_reads && !self.reprogram_suspendable(die) && !self.write_pause_wanted(die, Some(reader)) {
            return;
        }
        let f = &mut self.flash;
        if let Some(from) = f.dies[die as usize].read_queued(&f.suspend, &self.txns.items, self.now) {
            self.suspend_from(die, from);
        }
    }

    /// A host read reached `die` while it runs a re-program that pre-emption may suspend
    /// (`sim::idle`).
    fn reprogram_suspendable(&self, die: u32) -> bool {
        let lead = self.flash.dies[die as usize].txn();
        self.reprograms.suspend && lead != NONE && self.txns.get(lead).kind == TxnKind::GcWrite && self.txns.get(lead).is_reprogram()
    }

    /// Write pausing (a slack-aware scheduler's, `tsu_pauses`): should the program `die` runs
    /// pause for queued host reads? Asked when a read arrives (`reader`) and when a host program
    /// starts or resumes (`None`: "at each potential pause point ... checks if there is a pending
    /// read", Slacker §4.2). Never while a suspension is already decided or in place.
    #[inline]
    pub(super) fn write_pause_wanted(&mut self, die: u32, reader: Option<TxnId>) -> bool {
        let d = &self.flash.dies[die as usize];
        let lead = d.txn();
        if !self.tsu_pauses || lead == NONE || d.pause_pending() || !self.txns.get(lead).kind.is_write() {
            return false;
        }
        if reader.is_none() && self.tsu_counts && self.tsu.queued_for_die(die) == 0 {
            // At a pause point with nothing queued for the die, no read waits: the scheduler
            // would say no (the trait's contract). Asked at every host program's start, and
            // most find nothing queued; debug builds ask anyway and check.
            debug_assert!(!self.ask_write_pause(die, lead, None), "die {die}: a pause with nothing queued for it");
            return false;
        }
        self.ask_write_pause(die, lead, reader)
    }

    /// `write_pause_wanted` with something queued for the die: the scheduler is asked (out of
    /// line: most programs start with nothing queued for their die).
    #[inline(never)]
    fn ask_write_pause(&mut self, die: u32, lead: TxnId, reader: Option<TxnId>) -> bool {
        let d = &self.flash.dies[die as usize];
        if d.group().is_empty() {
            // One program (no multi-plane command): the scheduler is asked about it alone, with
            // no list built. (Asked at every host program's start: its cost showed.)
            return self.tsu.may_pause(die, std::slice::from_ref(&lead), reader, &self.txns.items);
        }
        let mut run = std::mem::take(&mut self.pause_scratch);
        run.clear();
        run.push(lead);
        run.extend_from_slice(d.group());
        let pause = self.tsu.may_pause(die, &run, reader, &self.txns.items);
        self.pause_scratch = run;
        pause
    }

    /// Suspend the die's program or erase at the first safe point after `from`, if allowed.
    pub(super) fn suspend_from(&mut self, die: u32, from: Time) {
        let f = &mut self.flash;
        let Some(s) = f.dies[die as usize].suspend_from(&f.suspend, from) else { return };
        match s.of {
            Suspension::Program => self.counters.program_suspensions += 1,
            Suspension::Erase => self.counters.erase_suspensions += 1,
        }
        self.counters.suspensions += 1;
        self.events.push(s.safe_point, Ev::SuspendDone(die, s.epoch));
    }

    /// The die reached its safe point: it is free for reads until it resumes.
    pub(super) fn on_suspended(&mut self, die: u32) {
        self.flash.dies[die as usize].at_safe_point(self.now);
        if self.idle_task.is_some() {
            self.reprogram_suspended(die);
        }
        self.die_may_idle(die);
        self.try_start_die(die);
    }

    /// No read left for the die: resume its suspended program or erase.
    pub(super) fn resume(&mut self, die: u32) {
        let f = &mut self.flash;
        let d = &mut f.dies[die as usize];
        let t = d.suspended_txn();
        let (end, epoch) = d.resume(&f.suspend, self.txns.get_mut(t), self.now);
        self.events.push(end, Ev::DieDone(die, epoch));
        if self.tsu_pauses {
            self.tsu.pause_over(die);
            // Reads the pause's budget left queued may pause it again, at its next safe point.
            if self.write_pause_wanted(die, None) {
                self.suspend_from(die, self.now);
            }
        }
    }
}
