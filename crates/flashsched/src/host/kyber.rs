//! `kyber`: Linux's Kyber (spec §5g). Requests are split into domains (read, write, discard;
//! flushes count as writes) with a device-wide token budget each: a request needs a token of its
//! domain to be dispatched and holds it until it completes, which throttles a domain's in-flight
//! depth. Dispatch keeps to one domain for up to its batch size, then moves round-robin to the next
//! domain with a request and a free token. At most every 100 ms, depths are rescaled from latency
//! histograms (8 buckets, each max(target/4, 1) ns wide): a domain's percentile is taken once it
//! has 500 samples or a second has passed since its percentile was first asked for with fewer
//! (the kernel's per-domain `latency_timeout`, shared by its two histograms), and a histogram is
//! cleared only when its percentile is taken. If any domain's p90 device latency is at bucket 4
//! or more, the device is congested, and each domain that is congested or misses its own p99
//! target scales its depth to floor(depth x (p99 bucket + 1) / 4), within [1, max]. A domain
//! without a p99 this time uses the one it had last, once, under congestion.
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
    /// Per domain: when a percentile may be taken with fewer than 500 samples (`latency_timeout`).
    timeout: [Option<Time>; DOMAINS],
    /// Per domain: the last p99 bucket, kept for the next congested window (`domain_p99`).
    last_p99: [Option<usize>; DOMAINS],
    /// When the rescaling timer fires: armed 100 ms after a completion finds it idle, as the
    /// kernel's `mod_timer(.., jiffies + HZ / 10)`; looked at on completions.
    timer: Option<Time>,
    held: usize,
}

impl Kyber {
    pub fn new(read_target: u64, write_target: u64) -> Self {
        Kyber {
            targets: [read_target, write_target, 5_000_000_000],
            queues: Default::default(),
            depth: MAX_DEPTH,
            in_flight: [0; DOMAINS],
            cur: 0,
            batching: 0,
            dispatched_at: HashMap::default(),
            io_hist: [[0; 8]; DOMAINS],
            total_hist: [[0; 8]; DOMAINS],
            timeout: [None; DOMAINS],
            last_p99: [None; DOMAINS],
            timer: None,
            held: 0,
        }
    }

    /// The latency bucket of a sample: buckets are max(target / 4, 1) ns wide (a 0 ns target
    /// gives 1 ns buckets, as the kernel's `max_t(u64, target >> 2, 1)`).
    fn bucket(&self, d: usize, lat: u64) -> usize {
        (lat.saturating_sub(1) / (self.targets[d] >> 2).max(1)).min(7) as usize
    }

    /// The kernel's `calculate_percentile`: the bucket holding percentile `p` of domain `d`'s
    /// histogram (`total` or device-only), or None while it has no samples, or fewer than 500
    /// and its domain's second has not passed (that second starts at the first such call). A
    /// histogram whose percentile is taken is cleared, and so is its domain's timeout.
    fn percentile(&mut self, d: usize, total: bool, p: u64, now: Time) -> Option<usize> {
        let h = if total { &mut self.total_hist[d] } else { &mut self.io_hist[d] };
        let samples: u64 = h.iter().sum();
        if samples == 0 {
            return None;
        }
        let timeout = *self.timeout[d].get_or_insert(now + 1_000_000_000);
        if samples < 500 && now < timeout {
            return None;
        }
        self.timeout[d] = None;
        let mut want = (samples * p).div_ceil(100);
        let mut bucket = 0;
        while bucket < 7 && h[bucket] < want {
            want -= h[bucket];
            bucket += 1;
        }
        *h = [0; 8];
        Some(bucket)
    }

    /// The kernel's `kyber_timer_fn`.
    fn adjust(&mut self, now: Time) {
        let mut congested = false;
        for d in 0..DOMAINS {
            if self.percentile(d, false, 90, now).is_some_and(|b| b >= 4) {
                congested = true;
            }
        }
        for d in 0..DOMAINS {
            let mut p99 = self.percentile(d, true, 99, now);
            if congested {
                p99 = p99.or(self.last_p99[d]);
                self.last_p99[d] = None;
            } else if p99.is_some() {
                self.last_p99[d] = p99;
            }
            let Some(p99) = p99 else { continue };
            if congested || p99 >= 4 {
                let scaled = (self.depth[d] as u64 * (p99 as u64 + 1)) >> 2;
                self.depth[d] = (scaled as u32).clamp(1, MAX_DEPTH[d]);
            }
        }
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
        }
        match self.timer {
            None => self.timer = Some(now + 100_000_000),
            Some(t) if now >= t => {
                self.timer = None;
                self.adjust(now);
            }
            Some(_) => {}
        }
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

    /// The kernel rounds a rescaled depth down: 256 x (bucket 0 + 1) / 4 = 64, and 3 x 1 / 4 = 0
    /// clamps to 1 (rounding up gave 1 there too, but 5 x 1 / 4 gave 2 instead of 1).
    #[test]
    fn rescaled_depths_round_down() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        k.depth = [256, 5, 64];
        // 500 fast reads, 500 writes at 3x their target: congested; reads p99 bucket 0.
        for i in 0..500u32 {
            k.total_hist[0][0] += 1;
            k.io_hist[0][0] += 1;
            k.total_hist[1][7] += 1;
            k.io_hist[1][7] += 1;
            let _ = i;
        }
        k.depth[1] = 5;
        k.adjust(0);
        assert_eq!(k.depth[0], 64, "256 x 1 / 4");
        assert_eq!(k.depth[1], 10, "5 x 8 / 4");
        let mut k = Kyber::new(2_000_000, 10_000_000);
        k.depth = [5, 128, 64];
        k.total_hist[0][0] = 500;
        k.io_hist[1][7] = 500;
        k.total_hist[1][7] = 500;
        k.adjust(0);
        assert_eq!(k.depth[0], 1, "floor(5 / 4) = 1, not ceil = 2");
    }

    /// Each domain waits for its own 500 samples (or its own second): a busy read domain does not
    /// make a write domain with a handful of samples take a percentile.
    #[test]
    fn each_domain_gates_on_its_own_samples() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        k.io_hist[0][0] = 600;
        k.total_hist[0][0] = 600;
        k.io_hist[1][7] = 3; // three slow writes: not enough to call the device congested yet
        k.total_hist[1][7] = 3;
        k.adjust(0);
        assert_eq!(k.depth, MAX_DEPTH, "no domain is congested and none misses its target on enough samples");
        assert_eq!(k.io_hist[1][7], 3, "the write histogram is kept for later");
        // A second later the writes' percentiles are taken: congestion.
        k.adjust(1_000_000_001);
        assert_eq!(k.io_hist[1], [0; 8]);
    }

    /// A 0 ns target is kept as 0 (buckets 1 ns wide), not turned into 4 ns.
    #[test]
    fn a_zero_target_gives_one_ns_buckets() {
        let k = Kyber::new(0, 10_000_000);
        assert_eq!(k.targets[0], 0);
        assert_eq!((k.bucket(0, 1), k.bucket(0, 2), k.bucket(0, 100)), (0, 1, 7));
    }

    #[test]
    fn congestion_shrinks_domains_that_meet_their_target() {
        let mut k = Kyber::new(2_000_000, 10_000_000);
        // Reads take 100 us (well within 2 ms); writes take 30 ms on the device (3x their target):
        // the device is congested, so the read depth shrinks by (p99 bucket 0 + 1)/4 and the write
        // depth would grow (it is at its maximum already).
        for i in 0..1200u32 {
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
