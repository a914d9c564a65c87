//! `cfq`: a reduced Completely Fair Queueing. Each stream (a closed-loop job: the "process") has
//! its own queue, sorted by address with a FIFO deadline (`fifo_expire`). Queues get the device in
//! turn, round-robin, for a time slice (`slice`), dispatching at most `quantum` requests in flight
//! at once; when the active queue runs empty before its slice ends, CFQ idles up to `slice_idle`
//! for that stream's next request before moving on. Reduced: all I/O is synchronous (the papers'
//! direct I/O), one priority, no groups, no merging across the queue, no async queues.
//!
//! From: Linux `block/cfq-iosched.c` (constants: quantum 8, fifo_expire_sync HZ/8, slice_sync
//! 100 ms, slice_idle 8 ms); the PASS paper's baseline. Parameters: `host.cfq.quantum` (8),
//! `host.cfq.slice` (100ms), `host.cfq.slice_idle` (8ms), `host.cfq.fifo_expire` (125ms).

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::FxHashMap as HashMap;

use super::{Dispatched, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CfqParams {
    pub quantum: u32,
    pub slice: u64,
    pub slice_idle: u64,
    pub fifo_expire: u64,
}

#[derive(Default)]
struct StreamQueue {
    sorted: BTreeSet<(u64, ReqId)>,
    /// (id, seq, arrival): ids are reused after completion, so an entry is live only while the
    /// queued request with that id has the same seq.
    fifo: VecDeque<(ReqId, u64, Time)>,
    pos: u64,
}

struct Active {
    stream: u32,
    slice_end: Time,
    idle_until: Option<Time>,
}

pub struct Cfq {
    p: CfqParams,
    queues: HashMap<u32, StreamQueue>,
    reqs: HashMap<ReqId, (u32, u64, u64, u64)>,
    seq: u64,
    rr: VecDeque<u32>,
    active: Option<Active>,
    in_flight: HashMap<u32, u32>,
    held: usize,
}

impl Cfq {
    pub fn new(p: CfqParams) -> Self {
        Cfq { p, queues: HashMap::default(), reqs: HashMap::default(), seq: 0, rr: VecDeque::new(), active: None, in_flight: HashMap::default(), held: 0 }
    }

    fn pending(&self, s: u32) -> bool {
        self.queues.get(&s).is_some_and(|q| !q.sorted.is_empty())
    }

    /// End the active queue's turn; it goes to the back of the round if it still has requests.
    fn expire_active(&mut self) {
        if let Some(a) = self.active.take() {
            if self.pending(a.stream) && !self.rr.contains(&a.stream) {
                self.rr.push_back(a.stream);
            }
        }
    }

    fn take_from(&mut self, s: u32, now: Time) -> Dispatched {
        let q = self.queues.get_mut(&s).expect("active queue");
        // The FIFO head first if it expired, else the next address (one-way elevator).
        while let Some(&(id, seq, _)) = q.fifo.front() {
            if self.reqs.get(&id).is_some_and(|r| r.3 == seq) {
                break;
            }
            q.fifo.pop_front();
        }
        let id = match q.fifo.front() {
            Some(&(id, _, t)) if t + self.p.fifo_expire <= now => id,
            _ => q.sorted.range((q.pos, 0)..).next().or_else(|| q.sorted.iter().next()).map(|&(_, id)| id).expect("queue has requests"),
        };
        let (_, offset, len, _) = self.reqs.remove(&id).expect("queued");
        q.sorted.remove(&(offset, id));
        q.pos = offset + len;
        self.held -= 1;
        *self.in_flight.entry(s).or_default() += 1;
        Dispatched { id, offset, len, merged: Vec::new() }
    }
}

impl HostScheduler for Cfq {
    fn name(&self) -> &'static str {
        "cfq"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        self.seq += 1;
        let q = self.queues.entry(req.stream).or_default();
        q.sorted.insert((req.offset, id));
        q.fifo.push_back((id, self.seq, now));
        self.reqs.insert(id, (req.stream, req.offset, req.len, self.seq));
        self.held += 1;
        match &mut self.active {
            Some(a) if a.stream == req.stream => a.idle_until = None, // the request we idled for
            _ => {
                if !self.rr.contains(&req.stream) {
                    self.rr.push_back(req.stream);
                }
            }
        }
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        loop {
            if let Some((s, slice_end, idle_until)) = self.active.as_ref().map(|a| (a.stream, a.slice_end, a.idle_until)) {
                if now >= slice_end {
                    self.expire_active();
                    continue;
                }
                if self.pending(s) {
                    if self.in_flight.get(&s).copied().unwrap_or(0) >= self.p.quantum {
                        return None; // wait for a completion
                    }
                    return Some(self.take_from(s, now));
                }
                // Empty before the slice ended: idle for this stream's next request.
                match idle_until {
                    None if self.p.slice_idle == 0 => {
                        self.expire_active();
                        continue;
                    }
                    None => {
                        let until = now + self.p.slice_idle;
                        if let Some(a) = self.active.as_mut() {
                            a.idle_until = Some(until);
                        }
                        return None;
                    }
                    Some(t) if now < t => return None,
                    Some(_) => {
                        self.expire_active();
                        continue;
                    }
                }
            }
            let s = loop {
                let s = self.rr.pop_front()?;
                if self.pending(s) {
                    break s;
                }
            };
            self.active = Some(Active { stream: s, slice_end: now + self.p.slice, idle_until: None });
        }
    }

    fn on_complete(&mut self, _id: ReqId, req: &HostRequestView, _now: Time) {
        if let Some(n) = self.in_flight.get_mut(&req.stream) {
            *n = n.saturating_sub(1);
        }
    }

    fn wakeup(&self) -> Option<Time> {
        self.active.as_ref().and_then(|a| a.idle_until).filter(|_| self.held > 0)
    }

    fn len(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Op;

    const P: CfqParams = CfqParams { quantum: 8, slice: 100_000_000, slice_idle: 8_000_000, fifo_expire: 125_000_000 };

    fn add(s: &mut Cfq, id: ReqId, stream: u32, page: u64, now: Time) {
        s.enqueue(id, &HostRequestView { arrival: now, op: Op::Read, offset: page * 4096, len: 4096, stream }, now);
    }

    #[test]
    fn queues_take_turns_and_idle_for_the_active_stream() {
        let mut s = Cfq::new(P);
        add(&mut s, 1, 0, 10, 0);
        add(&mut s, 2, 1, 20, 0);
        add(&mut s, 3, 0, 11, 0);
        // stream 0's slice: both of its requests, in address order
        assert_eq!(s.dispatch(0).map(|d| d.id), Some(1));
        assert_eq!(s.dispatch(0).map(|d| d.id), Some(3));
        // stream 0 is empty: CFQ idles (stream 1 waits) until 8 ms later
        assert_eq!(s.dispatch(1000), None);
        assert_eq!(s.wakeup(), Some(1000 + 8_000_000));
        // stream 0 sends another request within the window: it goes at once
        add(&mut s, 4, 0, 12, 2000);
        assert_eq!(s.dispatch(2000).map(|d| d.id), Some(4));
        assert_eq!(s.dispatch(2000), None);
        // the idle window runs out: stream 1's turn
        assert_eq!(s.dispatch(2000 + 8_000_001).map(|d| d.id), Some(2));
    }

    #[test]
    fn a_reused_id_in_another_queue_is_not_taken_for_an_old_fifo_entry() {
        let mut s = Cfq::new(CfqParams { slice: 1_000_000_000, ..P });
        add(&mut s, 1, 0, 10, 0);
        assert_eq!(s.dispatch(0).map(|d| d.id), Some(1));
        // id 1 completes and comes back for stream 1; stream 0's old FIFO entry for id 1 is stale
        add(&mut s, 1, 1, 20, 1);
        add(&mut s, 2, 0, 11, 1);
        assert_eq!(s.dispatch(500_000_000).map(|d| d.id), Some(2), "stream 0 takes its own request");
        assert_eq!(s.dispatch(500_000_000), None, "idling for stream 0");
        assert_eq!(s.dispatch(600_000_000).map(|d| d.id), Some(1));
    }

    #[test]
    fn slices_end_and_quantum_limits_in_flight() {
        let mut s = Cfq::new(CfqParams { quantum: 2, ..P });
        for i in 0..4 {
            add(&mut s, i, 0, i as u64, 0);
        }
        add(&mut s, 10, 1, 100, 0);
        assert!(s.dispatch(0).is_some() && s.dispatch(0).is_some());
        assert_eq!(s.dispatch(0), None, "quantum: 2 in flight");
        s.on_complete(0, &HostRequestView { arrival: 0, op: Op::Read, offset: 0, len: 4096, stream: 0 }, 10);
        assert_eq!(s.dispatch(10).map(|d| d.id), Some(2));
        // the slice ends: stream 1 gets its turn although stream 0 still has a request
        assert_eq!(s.dispatch(100_000_001).map(|d| d.id), Some(10));
    }
}
