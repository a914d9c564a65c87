//! Idle time, defined once for every idle-time task (`ftl::idle`): a chip is idle when none of its
//! dies works and nothing is queued for it; once it has stayed so for `device.idle.threshold`, the
//! task gets its turn and may start one page move on the chip. Any transaction reaching the chip
//! moves its work generation on, which cancels a pending turn.
//!
//! A page move is background work that host I/O pre-empts (`ftl.rr.preempt`): a re-program whose
//! program has not started when work is queued for its chip is put back for the chip's next turn
//! (its read done in vain); one whose program runs is suspended for host reads at its next safe
//! point where the device suspends programs (`device.suspend.program`). Host transactions that
//! reach a die while it runs a re-program, and their wait until it ends or is suspended, are
//! counted (`ssd.idle.host_waits`).

use rustc_hash::FxHashSet;

use super::event::Ev;
use super::txn::{Txn, TxnId, TxnKind};
use super::Simulator;
use crate::engine::Time;
use crate::ftl::idle::Recorded;
use crate::nand::latency::ProgramMode;
use crate::nand::NONE;

/// The simulator's bookkeeping of idle-time re-programs (only sized when a task is configured).
#[derive(Debug, Default)]
pub(super) struct Reprograms {
    /// `ftl.rr.preempt`.
    pub preempt: bool,
    /// Pre-emption on a device that suspends programs, under a transaction scheduler that does not
    /// pause programs itself (Slacker's write pausing serves only the reads of its own pauses): a
    /// running re-program's program is suspended for host reads.
    pub suspend: bool,
    /// Per chip: the page of its re-program in flight (at most one: a turn starts one on an idle
    /// chip).
    in_flight: Vec<Option<Recorded>>,
    /// Per die: the host transactions that arrived while it ran a re-program, with their arrival
    /// times, and when the re-program reached its suspension's safe point (if it did).
    waiting: Vec<Vec<(TxnId, Time)>>,
    safe_at: Vec<Time>,
    /// Requests with a re-programmed page, by arrival number.
    requests: FxHashSet<u64>,
}

impl Reprograms {
    pub(super) fn new(preempt: bool, suspend: bool, chips: u32, dies: u32) -> Self {
        Reprograms {
            preempt,
            suspend,
            in_flight: vec![None; chips as usize],
            waiting: vec![Vec::new(); dies as usize],
            safe_at: vec![0; dies as usize],
            requests: FxHashSet::default(),
        }
    }

    /// The measured window starts: requests are counted anew.
    pub(super) fn begin_measurement(&mut self) {
        self.requests.clear();
    }
}

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
        while let Some(rec) = task.next(chip) {
            let (lpn, ppn) = (rec.lpn, rec.ppn);
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
            self.reprograms.in_flight[chip as usize] = Some(rec);
            self.to_tsu(r);
            return;
        }
    }

    /// A re-program's read ended on `die` (of `chip`): whether its program may be issued. With
    /// pre-emption and work queued for the chip, the page goes back to the task for the chip's
    /// next turn instead.
    pub(super) fn reprogram_read_done(&mut self, die: u32) -> bool {
        self.reprogram_settle(die, self.now);
        let chip = self.layout.chip_of_die(die);
        if !self.reprograms.preempt || self.tsu.queued_on_chip(chip) == 0 {
            return true;
        }
        self.counters.reprograms_preempted += 1;
        if let (Some(task), Some(rec)) = (self.idle_task.as_mut(), self.reprograms.in_flight[chip as usize].take()) {
            task.defer(chip, rec);
        }
        false
    }

    /// A re-program's program ended on `die`: count it, and its request.
    pub(super) fn reprogram_done(&mut self, die: u32) {
        self.reprogram_settle(die, self.now);
        self.counters.reprograms += 1;
        let chip = self.layout.chip_of_die(die);
        if let Some(rec) = self.reprograms.in_flight[chip as usize].take() {
            if self.reprograms.requests.insert(rec.origin) {
                self.counters.reprogrammed_requests += 1;
            }
        }
    }

    /// Host transaction `t` reached `die`'s queue: note it if a re-program holds the die (running,
    /// or suspended for a write, which only the resumption lets through).
    #[inline]
    pub(super) fn host_meets_reprogram(&mut self, die: u32, t: TxnId) {
        let d = &self.flash.dies[die as usize];
        let running = !d.is_idle() && d.txn() != NONE && self.txns.get(d.txn()).is_reprogram();
        let held = self.txns.get(t).kind == TxnKind::HostWrite && d.suspended_op().is_some_and(|s| self.txns.get(s).is_reprogram());
        if running || held {
            self.reprograms.waiting[die as usize].push((t, self.now));
        }
    }

    /// `die`'s re-program reached its suspension's safe point: the reads it serves now waited
    /// for it until then (`reprogram_read_served`).
    pub(super) fn reprogram_suspended(&mut self, die: u32) {
        self.reprograms.safe_at[die as usize] = self.now;
    }

    /// Host read `t` starts on `die` while the die holds a suspended re-program: if it met the
    /// re-program, its wait for it ended at the safe point.
    pub(super) fn reprogram_read_served(&mut self, die: u32, t: TxnId) {
        let w = &mut self.reprograms.waiting[die as usize];
        if let Some(i) = w.iter().position(|&(x, _)| x == t) {
            let (_, arrived) = w.swap_remove(i);
            let safe_at = self.reprograms.safe_at[die as usize];
            self.counters.reprogram_host_waits += 1;
            self.counters.reprogram_host_wait_ns += safe_at.saturating_sub(arrived);
        }
    }

    /// `die`'s re-program ended (its read or its program) at `end`: the host transactions that
    /// met it and were not served during a suspension waited for it until then.
    fn reprogram_settle(&mut self, die: u32, end: Time) {
        for (_, arrived) in self.reprograms.waiting[die as usize].drain(..) {
            self.counters.reprogram_host_waits += 1;
            self.counters.reprogram_host_wait_ns += end - arrived;
        }
    }
}
