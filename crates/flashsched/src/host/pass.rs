//! `pass`: PASS, the parallelism-aware block-layer scheduler (Guo et al., JZUS-C 2014; paper
//! `001_*.txt` §3). The logical space is split into fixed-size regions, each with its own
//! sub-queue: read and write FIFOs (with deadlines) and address-sorted trees. Sub-queues are
//! served round-robin; each turn dispatches a batch of one direction only, in address order, and
//! ends when that direction is empty in the region or `batch_threshold` requests were dispatched
//! (§3.3). A region's next turn serves the other direction if it has requests. A request whose
//! deadline passed is served first, and its region's turn continues from it (deadline promotion,
//! "realized by periodically checking the two FIFO lists", §3.4). Bios are merged into queued
//! requests of the same sub-queue as in Deadline (§3.4: PASS is built on Deadline).
//!
//! With `host.pass.threshold = "outstanding"` the threshold also caps a region's requests at the
//! device (dispatched, not completed): a turn ends, and a region is passed over, while it has that
//! many (§3.2/§3.4's aim, "not to exceed the optimal threshold" [INFER]); an expired request goes
//! regardless.
//!
//! Parameters: `host.pass.region_size` (4GiB, §4.1), `host.pass.batch_threshold` (16, §4.1),
//! `host.deadline.read_expire` / `write_expire` (500ms / 5s: the paper gives no values; Deadline's
//! defaults, since PASS is implemented on it), `host.max_merge` (512KiB).

use rustc_hash::FxHashMap as HashMap;

use super::queues::{Added, DirQueue, Store};
use super::{Dispatched, HostParams, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

#[derive(Default)]
struct Region {
    dq: [DirQueue; 2],
    /// Direction of this region's last turn (the next turn prefers the other one).
    last_dir: usize,
    /// Address after which the next batch of each direction starts (one-way elevator).
    pos: [u64; 2],
}

impl Region {
    fn pending(&self) -> bool {
        !self.dq[0].is_empty() || !self.dq[1].is_empty()
    }
}

/// The turn in progress: region, direction, requests dispatched in it.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Turn {
    region: usize,
    dir: usize,
    count: u32,
}

pub struct Pass {
    p: HostParams,
    store: Store,
    regions: Vec<Region>,
    region_of: HashMap<ReqId, usize>,
    logical_bytes: u64,
    turn: Option<Turn>,
    /// Round-robin cursor: the region after the last one served.
    cursor: usize,
    /// Every queued request per direction in arrival order, with its region: deadlines of one
    /// direction grow with arrival, so the oldest expired request is at one of two heads.
    arrivals: [std::collections::VecDeque<(ReqId, u64, usize)>; 2],
    /// Regions with queued requests, so a turn finds the next one without scanning them all.
    busy: std::collections::BTreeSet<usize>,
    /// `pass_cap`: requests of each region at the device, and the region of each.
    at_device: Vec<u32>,
    dispatched_in: HashMap<ReqId, usize>,
}

impl Pass {
    pub fn new(p: &HostParams, logical_bytes: u64) -> Self {
        let n = logical_bytes.div_ceil(p.pass_region.max(1)).max(1) as usize;
        Pass {
            p: p.clone(),
            store: Store::default(),
            regions: (0..n).map(|_| Region { last_dir: 1, ..Region::default() }).collect(),
            region_of: HashMap::default(),
            logical_bytes: logical_bytes.max(1),
            turn: None,
            cursor: 0,
            arrivals: Default::default(),
            busy: Default::default(),
            at_device: vec![0; n],
            dispatched_in: HashMap::default(),
        }
    }

    /// The region a request belongs to (addresses beyond the drive fold as the simulator folds them).
    fn region(&self, offset: u64) -> usize {
        ((offset % self.logical_bytes) / self.p.pass_region.max(1)) as usize % self.regions.len()
    }

    /// The oldest expired request over all sub-queues, if any.
    fn expired(&mut self, now: Time) -> Option<(usize, usize, ReqId)> {
        let mut best: Option<(Time, usize, usize, ReqId)> = None;
        for dir in 0..2 {
            while let Some(&(id, seq, region)) = self.arrivals[dir].front() {
                match self.store.get(id) {
                    Some(q) if q.seq == seq => {
                        if q.deadline <= now && best.is_none_or(|b| q.deadline < b.0) {
                            best = Some((q.deadline, region, dir, id));
                        }
                        break;
                    }
                    _ => {
                        self.arrivals[dir].pop_front(); // dispatched already
                    }
                }
            }
        }
        best.map(|(_, r, d, id)| (r, d, id))
    }

    /// Whether region `ri` may dispatch: always, unless the threshold caps its requests at the
    /// device and it has that many.
    fn open(&self, ri: usize) -> bool {
        !self.p.pass_cap || self.at_device[ri] < self.p.pass_batch
    }

    /// Start the next region's turn, round-robin from the cursor (regions at their cap passed over).
    fn next_turn(&mut self) -> Option<Turn> {
        let n = self.regions.len();
        let ri = *self.busy.range(self.cursor..).chain(self.busy.range(..self.cursor)).find(|&&r| self.open(r))?;
        let r = &self.regions[ri];
        debug_assert!(r.pending());
        let other = 1 - r.last_dir;
        let dir = if !r.dq[other].is_empty() { other } else { r.last_dir };
        self.cursor = (ri + 1) % n;
        self.regions[ri].last_dir = dir;
        Some(Turn { region: ri, dir, count: 0 })
    }

    fn take(&mut self, turn: Turn, id: ReqId) -> Dispatched {
        let offset = self.store.get(id).expect("queued").offset;
        let r = &mut self.regions[turn.region];
        r.dq[turn.dir].remove(id, offset);
        r.pos[turn.dir] = offset;
        if !r.pending() {
            self.busy.remove(&turn.region);
        }
        self.region_of.remove(&id);
        self.turn = Some(Turn { count: turn.count + 1, ..turn });
        if self.p.pass_cap {
            self.at_device[turn.region] += 1;
            self.dispatched_in.insert(id, turn.region);
        }
        self.store.take(id)
    }
}

impl HostScheduler for Pass {
    fn name(&self) -> &'static str {
        "pass"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        let dir = super::dir_of(req.op);
        let expire = if dir == 0 { self.p.read_expire } else { self.p.write_expire };
        let ri = self.region(req.offset);
        match self.store.add(id, req, now + expire, self.p.max_merge, self.p.front_merges) {
            Added::New => {
                self.regions[ri].dq[dir].insert_sorted(id, req.offset);
                self.busy.insert(ri);
                self.region_of.insert(id, ri);
                let seq = self.store.get(id).expect("just added").seq;
                self.arrivals[dir].push_back((id, seq, ri));
            }
            Added::BackMerged(_) => {}
            Added::FrontMerged(host, old) => {
                let new = self.store.get(host).expect("queued").offset;
                let hr = self.region_of[&host];
                self.regions[hr].dq[dir].reposition(host, old, new);
            }
        }
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        if let Some((ri, dir, id)) = self.expired(now) {
            // Deadline promotion: the expired request's region takes the turn in its direction.
            self.regions[ri].last_dir = dir;
            self.cursor = (ri + 1) % self.regions.len();
            return Some(self.take(Turn { region: ri, dir, count: 0 }, id));
        }
        let turn = match self.turn {
            Some(t) if t.count < self.p.pass_batch && !self.regions[t.region].dq[t.dir].is_empty() && self.open(t.region) => t,
            _ => self.next_turn()?,
        };
        let r = &self.regions[turn.region];
        let id = match r.dq[turn.dir].at_or_after(r.pos[turn.dir]) {
            Some(id) => id,
            // Past the highest address: wrap to the lowest (one-way elevator).
            None => r.dq[turn.dir].lowest().expect("turn direction has requests"),
        };
        Some(self.take(turn, id))
    }

    fn len(&self) -> usize {
        self.store.held()
    }

    fn on_complete(&mut self, id: ReqId, _req: &HostRequestView, _now: Time) {
        if let Some(ri) = self.dispatched_in.remove(&id) {
            self.at_device[ri] -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    const REGION: u64 = 1 << 20;

    fn pass(batch: u32) -> Pass {
        let p = HostParams { pass_region: REGION, pass_batch: batch, ..HostParams::for_tests() };
        Pass::new(&p, 4 * REGION)
    }

    fn add(s: &mut Pass, id: ReqId, op: Op, region: u64, page: u64, now: Time) {
        s.enqueue(id, &HostRequestView { arrival: now, op, offset: region * REGION + page * 4096, len: 4096, stream: 0 }, now);
    }

    fn drain(s: &mut Pass, now: Time) -> Vec<ReqId> {
        std::iter::from_fn(|| s.dispatch(now).map(|d| d.id)).collect()
    }

    #[test]
    fn regions_round_robin_in_batches() {
        let mut s = pass(2);
        // region 0: reads 1..4, region 1: reads 11..14, arriving interleaved out of address order
        for (id, region, page) in [(3, 0, 3), (13, 1, 3), (1, 0, 1), (11, 1, 1), (2, 0, 2), (12, 1, 2), (4, 0, 4), (14, 1, 4)] {
            add(&mut s, id, Op::Read, region, page, 0);
        }
        // batches of 2 in address order, alternating regions
        assert_eq!(drain(&mut s, 0), vec![1, 2, 11, 12, 3, 4, 13, 14]);
    }

    #[test]
    fn a_turn_is_one_direction_and_the_next_turn_switches() {
        let mut s = pass(16);
        for (id, op, page) in [(1, Op::Read, 1), (2, Op::Write, 2), (3, Op::Read, 3), (4, Op::Write, 4)] {
            add(&mut s, id, op, 0, page, 0);
        }
        add(&mut s, 20, Op::Write, 2, 0, 0);
        // region 0 serves its reads (batch ends when reads run out), region 2 its write, then
        // region 0's next turn serves the other direction
        assert_eq!(drain(&mut s, 0), vec![1, 3, 20, 2, 4]);
    }

    #[test]
    fn with_the_outstanding_reading_a_region_waits_at_its_cap() {
        let p = HostParams { pass_region: REGION, pass_batch: 2, pass_cap: true, ..HostParams::for_tests() };
        let mut s = Pass::new(&p, 4 * REGION);
        for (id, region, page) in [(1, 0, 1), (2, 0, 2), (3, 0, 3), (4, 0, 4), (11, 1, 1), (12, 1, 2), (13, 1, 3)] {
            add(&mut s, id, Op::Read, region, page, 0);
        }
        // Each region sends 2 and then has 2 at the device: nothing more goes, though requests wait.
        assert_eq!(drain(&mut s, 0), vec![1, 2, 11, 12]);
        // Request 1 completes: region 0 may have one more at the device; region 1 is still full.
        let view = HostRequestView { arrival: 0, op: Op::Read, offset: 4096, len: 4096, stream: 0 };
        s.on_complete(1, &view, 10);
        assert_eq!(drain(&mut s, 10), vec![3]);
        s.on_complete(11, &view, 20);
        s.on_complete(12, &view, 20);
        assert_eq!(drain(&mut s, 20), vec![13]);
        // The per-turn reading (the default) sends everything at once.
        let mut t = pass(2);
        for (id, region, page) in [(1, 0, 1), (2, 0, 2), (3, 0, 3), (11, 1, 1)] {
            add(&mut t, id, Op::Read, region, page, 0);
        }
        assert_eq!(drain(&mut t, 0), vec![1, 2, 11, 3]);
    }

    #[test]
    fn expired_requests_are_promoted() {
        let mut s = pass(16);
        add(&mut s, 1, Op::Read, 3, 0, 0); // old request in region 3
        for page in 0..4 {
            add(&mut s, 10 + page as ReqId, Op::Read, 0, page, 100);
        }
        assert_eq!(s.dispatch(200).unwrap().id, 10); // region 0 first, nothing expired
        assert_eq!(s.dispatch(600_000_000).unwrap().id, 1); // request 1 is past its deadline
    }
}
