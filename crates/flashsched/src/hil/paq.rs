//! `paq`: PAQ-style I/O clumping (Jung et al., ISCA 2012; spec §2). Requests wait in the device
//! queue with their physical addresses known; whenever a die frees up, the queue is walked oldest
//! first and a "clump" is formed of every request whose dies are all idle and not used by a request
//! already in the clump; the clump goes to the chips together. A request older than `max_age` goes
//! regardless (starvation guard). PAQ's second half, packing transactions of different requests
//! into multi-plane commands, is the device's: with `device.advanced.multi_plane` on, a die that
//! starts an operation takes queued operations for its other planes, whichever request they are of.
//!
//! Parameters: `hil.paq.max_age` (10ms [INFER]). The walk looks at the oldest `LOOKAHEAD` (256)
//! waiting requests, as a hardware queue of bounded depth would [INFER].

use std::collections::VecDeque;

use super::{DeviceQueue, DeviceView};
use crate::engine::Time;
use crate::nand::NONE;
use crate::sim::txn::{ReqId, Txn, TxnId};

struct Pending {
    txns: Vec<TxnId>,
    dies: Vec<u32>,
    born: Time,
    /// The die that kept it out of the last clump (one of `dies`): asked first at the next walk,
    /// where it is most often still busy. (The walk asks whether every die is free; the order
    /// it asks in changes nothing, and PAQ cost +27% of FIFO's instructions on bench8x8 asking
    /// them in `dies` order.) The die itself, not its index: a request turned away by it is
    /// then decided from this record alone, without reading `dies`.
    blocker: u32,
}

/// Requests examined per clump, oldest first.
const LOOKAHEAD: usize = 256;

pub struct Paq {
    max_age: u64,
    /// Dies taken by the clump being formed, one bit each (reused between clumps), and whether
    /// any bit is set.
    used: Vec<u64>,
    used_any: bool,
    queue: VecDeque<Pending>,
    /// Released entries kept for reuse, so a request does not cost two allocations.
    spare: Vec<Pending>,
    last_req: ReqId,
    releasing: VecDeque<TxnId>,
    held: usize,
}

impl Paq {
    pub fn new(max_age: u64) -> Self {
        Paq { max_age, used: Vec::new(), used_any: false, queue: VecDeque::new(), spare: Vec::new(), last_req: NONE, releasing: VecDeque::new(), held: 0 }
    }
}

impl DeviceQueue for Paq {
    fn name(&self) -> &'static str {
        "paq"
    }

    fn push(&mut self, id: TxnId, txn: &Txn) {
        if txn.req != self.last_req || self.queue.is_empty() {
            let mut p = self.spare.pop().unwrap_or(Pending { txns: Vec::new(), dies: Vec::new(), born: 0, blocker: 0 });
            p.born = txn.enqueued;
            p.blocker = txn.die;
            self.queue.push_back(p);
            self.last_req = txn.req;
        }
        let p = self.queue.back_mut().expect("just pushed");
        p.txns.push(id);
        if !p.dies.contains(&txn.die) {
            p.dies.push(txn.die);
        }
        self.held += 1;
    }

    fn pop(&mut self, _txns: &mut [Txn], device: &DeviceView) -> Option<TxnId> {
        if self.releasing.is_empty() && !self.queue.is_empty() {
            self.last_req = NONE; // the request being pushed is complete once we clump
            // Most walks release nothing, leaving `used` clear for the next.
            if std::mem::take(&mut self.used_any) {
                self.used.iter_mut().for_each(|w| *w = 0);
            }
            let taken = |used: &[u64], d: u32| used.get(d as usize / 64).is_some_and(|w| w & (1 << (d % 64)) != 0);
            let mut i = 0;
            let mut seen = 0;
            while i < self.queue.len() && seen < LOOKAHEAD {
                seen += 1;
                let used = &self.used;
                let p = &mut self.queue[i];
                let old = device.now.saturating_sub(p.born) > self.max_age;
                let blocked = |d: u32| taken(used, d) || (device.die_busy)(d);
                let free = !old
                    && !blocked(p.blocker)
                    && match p.dies.iter().find(|&&d| blocked(d)) {
                        Some(&d) => {
                            p.blocker = d;
                            false
                        }
                        None => true,
                    };
                if old || free {
                    let mut p = self.queue.remove(i).expect("index in range");
                    self.used_any = true;
                    for &d in &p.dies {
                        let w = d as usize / 64;
                        if self.used.len() <= w {
                            self.used.resize(w + 1, 0);
                        }
                        self.used[w] |= 1 << (d % 64);
                    }
                    self.releasing.extend(p.txns.drain(..));
                    p.dies.clear();
                    self.spare.push(p);
                } else {
                    i += 1;
                }
            }
        }
        let t = self.releasing.pop_front();
        if t.is_some() {
            self.held -= 1;
        }
        t
    }

    fn len(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::txn::TxnKind;

    fn txn(req: ReqId, die: u32) -> Txn {
        Txn::new(TxnKind::HostRead, req, 0, 0, 0, die, 4096, 0)
    }

    #[test]
    fn clumps_requests_on_idle_distinct_dies() {
        let mut p = Paq::new(10_000_000);
        p.push(10, &txn(1, 0));
        p.push(11, &txn(1, 1)); // request 1: dies 0 and 1
        p.push(20, &txn(2, 1)); // request 2: die 1 (taken by request 1 in this clump)
        p.push(30, &txn(3, 2)); // request 3: die 2 (busy)
        p.push(40, &txn(4, 3)); // request 4: die 3
        let busy = |d: u32| d == 2;
        let v = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        // one clump (the simulator then sees dies 0, 1 and 3 busy)
        let out: Vec<Option<TxnId>> = (0..3).map(|_| p.pop(&mut [], &v)).collect();
        assert_eq!(out, vec![Some(10), Some(11), Some(40)]);
        let none = |_: u32| false;
        let v = DeviceView { now: 0, die_busy: &none, chip_queued: &|_| 0 };
        let out: Vec<TxnId> = std::iter::from_fn(|| p.pop(&mut [], &v)).collect();
        assert_eq!(out, vec![20, 30]);
    }

    #[test]
    fn old_requests_go_anyway() {
        let mut p = Paq::new(1_000);
        p.push(10, &txn(1, 0));
        let busy = |_: u32| true;
        let v = DeviceView { now: 5_000, die_busy: &busy, chip_queued: &|_| 0 };
        assert_eq!(p.pop(&mut [], &v), Some(10));
    }
}
