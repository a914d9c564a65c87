//! `kyber`: Linux's Kyber (spec §5g). Requests are split into domains (read, write, discard;
//! flushes count as writes) with a device-wide token budget each: a request needs a token of its
//! domain to be dispatched and holds it until it completes, which throttles a domain's in-flight
//! depth. Dispatch keeps to one domain for up to its batch size, then moves round-robin to the next
//! domain with a request and a free token. Every 100 ms (once 500 samples or 1 s have accumulated)
//! depths are rescaled from latency histograms: if any domain's p90 device latency exceeds its
//! target (bucket >= 4 of 8, buckets target/4 wide) the device is congested, and each domain that
//! is congested or misses its own p99 target scales its depth by (p99 bucket + 1)/4, within
//! [1, max].
//!
//! From: Linux `block/kyber-iosched.c`. Parameters: `host.kyber.read_target` (2ms),
//! `host.kyber.write_target` (10ms); the depths (256/128/64), batches (16/8/1) and discard target
//! (5 s) are the kernel's constants.

use rustc_hash::FxHashMap as HashMap;
use std::collections::VecDeque;

use super::{Dispatched, HostRequestView, HostScheduler};
use crate::engine::Time;
use crate::sim::txn::ReqId;
use crate::trace::Op;

const DOMAINS: usize = 3;
const MAX_DEPTH: [u32; DOMAINS] = [256, 128, 64];
const BATCH: [u32; DOMAINS] = [16, 8, 1];

fn domain(op: Op) -> usize {
    match op {
        Op::Read => 0,
        Op::Write | Op::Flush => 1,
        Op::Trim => 2,
    }
}

pub struct Kyber {
    targets: [u64; DOMAINS],
    queues: [VecDeque<(ReqId, u64, u64)>; DOMAINS],
    pub depth: [u32; DOMAINS],
    in_flight: [u32; DOMAINS],
    cur: usize,
    batching: u32,
    dispatched_at: HashMap<ReqId, Time>,
    io_hist: [[u64; 8]; DOMAINS],
    total_hist: [[u64; 8]; DOMAINS],
    window_start: Option<Time>,
    last_adjust: Time,
    held: usize,
}

impl Kyber {
    pub fn new(read_target: u64, write_target: u64) -> Self {
        Kyber {
            targets: [read_target.max(4), write_target.max(4), 5_000_000_000],
            queues: Default::default(),
            depth: MAX_DEPTH,
            in_flight: [0; DOMAINS],
            cur: 0,
            batching: 0,
            dispatched_at: HashMap::default(),
            io_hist: [[0; 8]; DOMAINS],
            total_hist: [[0; 8]; DOMAINS],
            window_start: None,
            last_adjust: 0,
            held: 0,
        }
    }

    fn bucket(&self, d: usize, lat: u64) -> usize {
        (lat.saturating_sub(1) / (self.targets[d] / 4)).min(7) as usize
    }

    /// Bucket of the given percentile of a histogram, if it has samples.
    fn percentile_bucket(h: &[u64; 8], p: f64) -> Option<usize> {
        let n: u64 = h.iter().sum();
        if n == 0 {
            return None;
        }
        let want = (n as f64 * p).ceil() as u64;
        let mut acc = 0;
        h.iter().position(|&c| {
            acc += c;
            acc >= want
        })
    }

    fn adjust(&mut self, now: Time) {
        let samples: u64 = self.io_hist.iter().flat_map(|h| h.iter()).sum();
        let started = self.window_start.unwrap_or(now);
        if now < self.last_adjust + 100_000_000 || (samples < 500 && now < started + 1_000_000_000) {
            return;
        }
        let congested = self.io_hist.iter().any(|h| Self::percentile_bucket(h, 0.90).is_some_and(|b| b >= 4));
        for d in 0..DOMAINS {
            if let Some(p99) = Self::percentile_bucket(&self.total_hist[d], 0.99) {
                if congested || p99 >= 4 {
                    let scaled = (self.depth[d] as u64 * (p99 as u64 + 1)).div_ceil(4) as u32;
                    self.depth[d] = scaled.clamp(1, MAX_DEPTH[d]);
                }
            }
        }
        self.io_hist = [[0; 8]; DOMAINS];
        self.total_hist = [[0; 8]; DOMAINS];
        self.window_start = None;
        self.last_adjust = now;
    }

    fn take(&mut self, d: usize, now: Time) -> Dispatched {
        let (id, offset, len) = self.queues[d].pop_front().expect("domain has requests");
        self.in_flight[d] += 1;
        self.batching += 1;
        self.held -= 1;
        self.dispatched_at.insert(id, now);
        Dispatched { id, offset, len, merged: Vec::new() }
    }
}

impl HostScheduler for Kyber {
    fn name(&self) -> &'static str {
        "kyber"
    }

    fn enqueue(&mut self, id: ReqId, req: &HostRequestView, _now: Time) {
        self.queues[domain(req.op)].push_back((id, req.offset, req.len));
        self.held += 1;
    }

    fn dispatch(&mut self, now: Time) -> Option<Dispatched> {
        let c = self.cur;
        if self.batching < BATCH[c] && !self.queues[c].is_empty() && self.in_flight[c] < self.depth[c] {
            return Some(self.take(c, now));
        }
        self.batching = 0;
        for k in 1..=DOMAINS {
            let d = (c + k) % DOMAINS;
            if !self.queues[d].is_empty() && self.in_flight[d] < self.depth[d] {
                self.cur = d;
                return Some(self.take(d, now));
            }
        }
        None // every domain with requests is out of tokens: wait for completions
    }

    fn on_complete(&mut self, id: ReqId, req: &HostRequestView, now: Time) {
        let d = domain(req.op);
        self.in_flight[d] = self.in_flight[d].saturating_sub(1);
        if let Some(t) = self.dispatched_at.remove(&id) {
            let io = self.bucket(d, now - t);
            let total = self.bucket(d, now - req.arrival);
            self.io_hist[d][io] += 1;
            self.total_hist[d][total] += 1;
            self.window_start.get_or_insert(now);
        }
        self.adjust(now);
    }

    fn len(&self) -> usize {
        self.held
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(op: Op, arrival: Time) -> HostRequestView {
        HostRequestView { arrival, op, offset: 0, len: 4096, stream: 0 }
    }

    #[test]
    fn tokens_limit_in_flight_and_return_on_completion() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        k.depth = [2, 1, 1];
        for id in 0..4 {
            k.enqueue(id, &view(Op::Read, 0), 0);
        }
        k.enqueue(10, &view(Op::Write, 0), 0);
        k.enqueue(11, &view(Op::Write, 0), 0);
        let first: Vec<ReqId> = std::iter::from_fn(|| k.dispatch(0).map(|d| d.id)).collect();
        // two read tokens, one write token; then nothing until a completion
        assert_eq!(first, vec![0, 1, 10]);
        k.on_complete(0, &view(Op::Read, 0), 1000);
        assert_eq!(k.dispatch(1000).map(|d| d.id), Some(2));
        assert_eq!(k.dispatch(1000), None);
        k.on_complete(10, &view(Op::Write, 0), 2000);
        assert_eq!(k.dispatch(2000).map(|d| d.id), Some(11));
    }

    #[test]
    fn batches_then_round_robin() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        for id in 0..20 {
            k.enqueue(id, &view(Op::Read, 0), 0);
        }
        for id in 100..110 {
            k.enqueue(id, &view(Op::Write, 0), 0);
        }
        let order: Vec<ReqId> = (0..26).filter_map(|_| k.dispatch(0).map(|d| d.id)).collect();
        // a batch of 16 reads, a batch of 8 writes, then reads again
        assert_eq!(&order[..16], &(0..16).collect::<Vec<_>>()[..]);
        assert_eq!(&order[16..24], &(100..108).collect::<Vec<_>>()[..]);
        assert_eq!(order[24], 16);
    }

    #[test]
    fn congestion_shrinks_domains_that_meet_their_target() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        // Reads take 100 us (well within 2 ms); writes take 30 ms on the device (3x their target):
        // the device is congested, so the read depth shrinks by (p99 bucket 0 + 1)/4 and the write
        // depth would grow (it is at its maximum already).
        for i in 0..600u32 {
            let t = i as u64 * 250_000;
            k.enqueue(i, &view(Op::Read, t), t);
            k.enqueue(10_000 + i, &view(Op::Write, t), t);
            while k.dispatch(t).is_some() {}
            k.on_complete(i, &view(Op::Read, t), t + 100_000);
            k.on_complete(10_000 + i, &view(Op::Write, t), t + 30_000_000);
        }
        assert!(k.depth[0] < 256, "read depth {:?}", k.depth);
        assert_eq!(k.depth[1], 128);
    }
}
