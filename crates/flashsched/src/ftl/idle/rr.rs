//! `rr`: read-conflict reduction (Li et al., paper 002 §II-B-1). A conflicting read (by default one
//! that others wait behind when it starts: `ftl.read_conflict`, `sim::read_conflict`) that was not
//! a fast read (its page was programmed at normal or fast speed, so it sensed at LDPC level 1 or 2)
//! has its page recorded; during idle time the page is re-programmed slowly, so its next read
//! senses at level 0 and holds the chip for less (Figure 1: R1, a fast read, and R4, which induces
//! no conflict, are not recorded; R2 and R3 are).
//!
//! [INFER] The paper keeps one queue "in the flash controller" and gives no bound; here each chip
//! has a FIFO of at most `ftl.rr.queue` pages (a full queue refuses new ones, counted), and a page
//! already queued is not queued twice.

use std::collections::VecDeque;

use rustc_hash::FxHashSet;

use super::{IdleReport, IdleTask, ReadSeen, Recorded};
use crate::nand::Ppn;

pub struct Rr {
    queues: Vec<VecDeque<Recorded>>,
    queued: FxHashSet<Ppn>,
    cap: usize,
    report: IdleReport,
}

impl Rr {
    pub fn new(chips: u32, cap: u32) -> Self {
        Rr { queues: vec![VecDeque::new(); chips as usize], queued: FxHashSet::default(), cap: cap as usize, report: IdleReport::default() }
    }

    /// Figure 1's rule: conflicting reads that were not fast.
    pub fn records(r: &ReadSeen) -> bool {
        r.conflicted && r.level > 0
    }
}

impl IdleTask for Rr {
    fn name(&self) -> &'static str {
        "rr"
    }

    fn on_read(&mut self, r: ReadSeen) {
        if !Self::records(&r) || self.queued.contains(&r.ppn) {
            return;
        }
        let q = &mut self.queues[r.chip as usize];
        if q.len() >= self.cap {
            self.report.record_overflows += 1;
            return;
        }
        q.push_back(Recorded { lpn: r.lpn, ppn: r.ppn, origin: r.origin });
        self.queued.insert(r.ppn);
        self.report.recorded += 1;
    }

    fn next(&mut self, chip: u32) -> Option<Recorded> {
        let r = self.queues[chip as usize].pop_front()?;
        self.queued.remove(&r.ppn);
        Some(r)
    }

    fn defer(&mut self, chip: u32, r: Recorded) {
        // Not bounded by `cap`: the page just left this queue.
        if self.queued.insert(r.ppn) {
            self.queues[chip as usize].push_front(r);
        }
    }

    fn has_work(&self, chip: u32) -> bool {
        !self.queues[chip as usize].is_empty()
    }

    fn report(&self) -> IdleReport {
        self.report.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::Lpn;

    fn read(lpn: Lpn, level: u8, conflicted: bool) -> ReadSeen {
        ReadSeen { chip: 0, lpn, ppn: 100 + lpn, level, conflicted, origin: 7 * lpn as u64 }
    }

    fn rec(lpn: Lpn) -> Option<Recorded> {
        Some(Recorded { lpn, ppn: 100 + lpn, origin: 7 * lpn as u64 })
    }

    #[test]
    fn figure_1_records_the_conflicting_reads_that_were_not_fast() {
        // R1: conflicting, fast (level 0): "can not be accelerated anymore". R2: conflicting, slow
        // (level 2). R3: conflicting, normal (level 1). R4: slow but conflict-free.
        let mut rr = Rr::new(1, 16);
        for r in [read(1, 0, true), read(2, 2, true), read(3, 1, true), read(4, 2, false)] {
            rr.on_read(r);
        }
        assert_eq!((rr.next(0), rr.next(0), rr.next(0)), (rec(2), rec(3), None));
        assert_eq!(rr.report().recorded, 2);
    }

    #[test]
    fn the_queue_is_bounded_and_holds_a_page_once() {
        let mut rr = Rr::new(2, 2);
        for lpn in [1, 1, 2, 3] {
            rr.on_read(read(lpn, 1, true));
        }
        assert_eq!(rr.report(), IdleReport { recorded: 2, record_overflows: 1 });
        assert_eq!(rr.next(1), None, "queues are per chip");
        assert_eq!(rr.next(0), rec(1));
        rr.on_read(read(1, 1, true)); // it left the queue: it may be recorded again
        assert_eq!(rr.report().recorded, 3);
    }

    #[test]
    fn a_deferred_page_comes_back_first() {
        let mut rr = Rr::new(1, 2);
        rr.on_read(read(1, 1, true));
        rr.on_read(read(2, 1, true));
        let first = rr.next(0).unwrap();
        rr.defer(0, first);
        assert_eq!((rr.next(0), rr.next(0), rr.next(0)), (rec(1), rec(2), None));
        assert_eq!(rr.report().recorded, 2, "a deferral is not a new recording");
    }
}
