//! Host writes stalled for want of a free page, and their return to the chips' queues when GC
//! erases a block of their plane.
//!
//! Each erase puts every write stalled in its plane back at the head of its die's queue, in the
//! order they stalled; the die then takes them one by one, and once one finds no page the rest
//! find none either, at the same instant, and stall again. On an overloaded drive (an open-loop
//! trace faster than GC) tens of thousands of writes wait for a plane, and re-queueing all of them
//! at each of its erases made such runs quadratic: 600 million retried starts for 100,000
//! requests (docs/performance.md, "Ninth step").
//!
//! `LazyRequeue` gives the same run without the retries that cannot succeed. An erase re-queues
//! only as many of the plane's stalled writes as can take a page now plus one (an upper bound on
//! the host's room, so at least one of them stalls again unless all were re-queued), and keeps
//! the rest aside. When the last re-queued write of the plane has been tried and one of them
//! stalled, the rest go back to the plane's stalled list behind those that stalled again, and
//! `write_stalls` counts them, as the retries would have. This is exact only where nothing else
//! can take the plane's pages or see how many writes the die's queue holds while the re-queued
//! writes are tried: FCFS in the simulator's own slot (whose queue is a FIFO per die and whose
//! other users only ask whether it is empty: the conflict flag, the device queues' view, WR; the
//! dynamic allocator counts the queue but relocates stalled writes, which turns this off), no
//! suspension, no multi-plane or multi-die commands, one write stream (no write grouping or wear
//! leveling), no idle-time task and no relocation of stalled writes (`LazyRequeue::new`); other
//! runs re-queue every stalled write, as before. The one place the run takes another path: GC
//! started by the last stall finds the die's queue without the kept-aside writes and starts its
//! first read at once (`Simulator::starts_at_once`) where it used to queue it behind them and
//! start it after their retries, at the same instant; the two paths are the same run
//! (`sim::tests::an_idle_die_skips_fcfs_queue_with_the_same_results`).

use super::txn::TxnId;
use super::Simulator;

#[derive(Debug, Default)]
pub(super) struct LazyRequeue {
    pub(super) on: bool,
    /// Per plane: re-queued writes not yet tried.
    left: Vec<u32>,
    /// Per plane: the stalled writes an erase kept aside, in order.
    aside: Vec<Vec<TxnId>>,
    /// Writes kept aside over the run: the retries saved (for tests).
    pub(super) kept_aside: u64,
}

impl LazyRequeue {
    pub(super) fn new(sim: &Simulator, s: &crate::config::Settings) -> Self {
        let f = &sim.flash;
        let on = matches!(sim.tsu, crate::tsu::TsuSlot::Fcfs(_))
            && !f.suspend.program
            && !f.suspend.erase
            && !f.suspend.for_reads
            && f.adv.multi_plane == crate::ctrl::MultiPlane::Off
            && !f.adv.multi_die
            && sim.wear.grouping.is_none()
            && sim.wear.leveler.is_none()
            && sim.idle_task.is_none()
            && !sim.cross_plane
            && s.ftl.gc_policy == "greedy";
        if !on {
            return LazyRequeue::default();
        }
        let planes = sim.layout.planes() as usize;
        LazyRequeue { on, left: vec![0; planes], aside: vec![Vec::new(); planes], kept_aside: 0 }
    }
}

impl Simulator {
    /// An erase in `plane` freed a block: its stalled writes go back to the head of their die's
    /// queue, in order (all of them, or as many as can take a page plus one).
    pub(super) fn requeue_stalled(&mut self, plane: u32) {
        let mut waiting = std::mem::take(&mut self.stalled[plane as usize]);
        if self.requeue.on {
            debug_assert!(self.requeue.left[plane as usize] == 0 && self.requeue.aside[plane as usize].is_empty());
            let room = self.ftl.host_room_bound(plane) as usize;
            if waiting.len() > room + 1 {
                self.requeue.aside[plane as usize] = waiting.split_off(room + 1);
                self.requeue.kept_aside += self.requeue.aside[plane as usize].len() as u64;
            }
            self.requeue.left[plane as usize] = waiting.len() as u32;
        }
        for w in waiting.into_iter().rev() {
            self.tsu.enqueue_front(w, self.txns.get(w));
        }
    }

    /// A host write of `plane` was tried (`stalled`: it found no page). The last re-queued write
    /// of the plane tried, after one stalled: the writes kept aside stall behind them.
    #[inline]
    pub(super) fn host_write_tried(&mut self, plane: u32, stalled: bool) {
        if !self.requeue.on || self.requeue.left[plane as usize] == 0 {
            return;
        }
        self.requeue.left[plane as usize] -= 1;
        if self.requeue.left[plane as usize] == 0 {
            let aside = std::mem::take(&mut self.requeue.aside[plane as usize]);
            // With a bound on the room, a write kept aside means one re-queued write stalled:
            // the last one, as the die takes them in order.
            if stalled || aside.is_empty() {
                self.counters.write_stalls += aside.len() as u64;
                self.stalled[plane as usize].extend(aside);
            } else {
                // Cannot happen while `host_room_bound` bounds the room; should it, the writes
                // go back to the head of the queue, to be tried next as they would have been.
                debug_assert!(false, "plane {plane}: writes kept aside but every re-queued one took a page");
                for w in aside.into_iter().rev() {
                    self.tsu.enqueue_front(w, self.txns.get(w));
                }
            }
        }
    }
}
