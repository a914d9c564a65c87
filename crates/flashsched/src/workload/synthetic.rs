//! The seeded synthetic open-loop generator: an arrival process (Poisson, fixed, bursty on/off),
//! an address distribution (uniform, zipf, hot/cold, sequential runs), request sizes and a read
//! ratio. Requests are generated one at a time, so a long workload costs no memory.

use rand::Rng as _;
use rand_distr::{Distribution, Exp1, StandardNormal, Zipf};
use serde_json::{json, Value};

use super::{HostRequest, Workload};
use crate::config::settings::SyntheticSettings;
use crate::config::Settings;
use crate::engine::rng::{self, Rng};
use crate::engine::MAX_TIME;
use crate::trace::{Op, TraceError};

pub struct Synthetic {
    p: SyntheticSettings,
    rng: Rng,
    slots: u64,
    /// Bytes of the address range actually used: `range` (0: the logical space), at most the
    /// logical space, rounded down to `align`.
    range: u64,
    stride: u64,
    zipf: Option<Zipf<f64>>,
    now: f64,
    on_end: f64,
    made: u64,
    seq_left: u64,
    seq_next: u64,
    /// Recurring extents (first slot, bytes), and the next one to replace (the oldest).
    recurring: Vec<(u64, u64)>,
    oldest: usize,
    /// Reads' own address space (`read_range`): slots, zipf stride, zipf distribution.
    reads: Option<(u64, u64, Option<Zipf<f64>>)>,
}

/// Slots of `range_bytes` (0: the logical space) and the zipf stride and distribution over them.
fn space(p: &SyntheticSettings, range_bytes: u64, logical: u64) -> (u64, u64, u64, Option<Zipf<f64>>) {
    let range = if range_bytes == 0 { logical } else { range_bytes.min(logical) };
    let slots = (range / p.align_bytes).max(1);
    // Scatter zipf ranks over the range with a multiplier coprime to the slot count (a
    // bijection), so the hottest slots are not all at the start of the drive.
    let mut stride = 0x9E37_79B9u64 % slots.max(2);
    while gcd(stride.max(1), slots) != 1 {
        stride += 1;
    }
    let zipf = (p.address == "zipf").then(|| Zipf::new(slots as f64, p.zipf_theta.max(1e-9)).expect("zipf parameters"));
    (slots, slots * p.align_bytes, stride.max(1), zipf)
}

impl Synthetic {
    pub fn new(s: &Settings) -> Self {
        let p = s.workload.synthetic.clone();
        let (slots, range, stride, zipf) = space(&p, p.range_bytes, s.logical_bytes());
        let reads = (p.read_range_bytes > 0).then(|| {
            let (n, _, stride, z) = space(&p, p.read_range_bytes, s.logical_bytes());
            (n, stride, z)
        });
        Synthetic {
            on_end: p.on_ns as f64,
            p,
            rng: rng::stream(s.seed, "workload.synthetic"),
            slots,
            range,
            stride,
            zipf,
            reads,
            now: 0.0,
            made: 0,
            seq_left: 0,
            seq_next: 0,
            recurring: Vec::new(),
            oldest: 0,
        }
        .with_recurring()
    }

    /// Draw the first recurring extents (only when asked for, so that other workloads draw the
    /// same numbers as before).
    fn with_recurring(mut self) -> Self {
        if self.p.recurring_share > 0.0 {
            self.recurring = (0..self.p.recurring_sets).map(|_| self.new_extent()).collect();
        }
        self
    }

    /// A recurring extent at a uniform random place.
    fn new_extent(&mut self) -> (u64, u64) {
        let a = self.p.align_bytes;
        let len = (self.p.recurring_size.div_ceil(a).max(1) * a).min(self.range);
        let slots = len / a;
        (self.rng.random_range(0..=self.slots.saturating_sub(slots)), len)
    }

    fn next_arrival(&mut self) -> f64 {
        if self.made == 0 {
            return 0.0;
        }
        let mean = self.p.interarrival_ns as f64;
        match self.p.arrival.as_str() {
            "fixed" => self.now + mean,
            "poisson" => self.now + mean * { let e: f64 = Exp1.sample(&mut self.rng); e },
            _ => {
                // on/off: Poisson inside bursts; a gap that crosses the end of a burst resumes at
                // the start of the next one.
                let mut t = self.now + mean * { let e: f64 = Exp1.sample(&mut self.rng); e };
                let (on, off) = (self.p.on_ns as f64, self.p.off_ns as f64);
                // Each burst crossed moves the gap's end by one off period and uses up one on
                // period of it: skip all but the last burst at once (a long gap over short bursts
                // would otherwise loop once a burst), then step as before. on_time > 0 is checked.
                let bursts = ((t - self.on_end) / on).ceil();
                if bursts > 2.0 {
                    let skip = bursts - 2.0;
                    t += skip * off;
                    self.on_end += skip * (on + off);
                }
                while t > self.on_end {
                    let next_on = self.on_end + off;
                    t = next_on + (t - self.on_end);
                    self.on_end += on + off;
                }
                t
            }
        }
    }

    fn size(&mut self, op: Op) -> u64 {
        let a = self.p.align_bytes;
        if self.p.size_fixed {
            return self.p.size_min;
        }
        if self.p.size_lognormal {
            let (mean, sd) = if op == Op::Read { self.p.read_size } else { self.p.write_size };
            // Lognormal with the given mean m and standard deviation s:
            // sigma^2 = ln(1 + s^2/m^2), mu = ln m - sigma^2 / 2.
            let (m, sd) = (mean as f64, sd as f64);
            let sigma2 = (1.0 + (sd * sd) / (m * m)).ln();
            let mu = m.ln() - sigma2 / 2.0;
            let z: f64 = StandardNormal.sample(&mut self.rng);
            let x = (mu + sigma2.sqrt() * z).exp();
            let lo = self.p.size_min.div_ceil(a).max(1) * a;
            let hi = (self.p.size_max / a).max(1) * a;
            return ((x / a as f64).ceil().max(1.0) as u64 * a).clamp(lo, hi.max(lo));
        }
        let lo = self.p.size_min.div_ceil(a).max(1);
        let hi = (self.p.size_max / a).max(lo);
        self.rng.random_range(lo..=hi) * a
    }

    fn slot(&mut self, size_slots: u64, op: Op) -> u64 {
        if let (Op::Read, Some((n, stride, zipf))) = (op, &self.reads) {
            let n = *n;
            return match zipf {
                Some(z) => (((z.sample(&mut self.rng) as u64 - 1) as u128 * *stride as u128) % n as u128) as u64,
                None => self.rng.random_range(0..n),
            }
            .min(n.saturating_sub(size_slots));
        }
        let n = self.slots;
        match self.p.address.as_str() {
            "uniform" => self.rng.random_range(0..n),
            "zipf" => {
                let rank = self.zipf.as_ref().unwrap().sample(&mut self.rng) as u64 - 1;
                (rank as u128 * self.stride as u128 % n as u128) as u64
            }
            "hotcold" => {
                let hot = ((n as f64 * self.p.hot_fraction).round() as u64).clamp(1, n);
                let s = if self.rng.random::<f64>() < self.p.hot_traffic || hot == n {
                    self.rng.random_range(0..hot)
                } else {
                    self.rng.random_range(hot..n)
                };
                // Separate hot parts: writes see the range mirrored, their hot part at its end.
                if self.p.hot_split_separate && op == Op::Write { n - 1 - s } else { s }
            }
            _ => {
                if self.seq_left == 0 || self.seq_next + size_slots > n {
                    self.seq_next = self.rng.random_range(0..n);
                    self.seq_left = self.p.sequential_run;
                }
                self.seq_left -= 1;
                let s = self.seq_next;
                self.seq_next += size_slots;
                s
            }
        }
    }
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl Workload for Synthetic {
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        if self.made >= self.p.requests {
            return Ok(None);
        }
        let t = self.next_arrival();
        if t > MAX_TIME as f64 {
            return Err(TraceError {
                file: "workload.synthetic".into(),
                line: 0,
                message: format!(
                    "request {} would arrive at {t:.0} ns, past the latest time a run can reach ({MAX_TIME} ns, about 146 years): \
                     workload.synthetic.interarrival ({} ns) is too long for this many requests",
                    self.made + 1,
                    self.p.interarrival_ns
                ),
            });
        }
        self.now = t;
        let op = if self.rng.random::<f64>() < self.p.read_ratio { Op::Read } else { Op::Write };
        if !self.recurring.is_empty() {
            // One extent is replaced every lifetime / sets requests, the oldest first.
            let every = (self.p.recurring_lifetime / self.recurring.len() as u64).max(1);
            if self.made > 0 && self.made % every == 0 {
                let e = self.new_extent();
                self.recurring[self.oldest] = e;
                self.oldest = (self.oldest + 1) % self.recurring.len();
            }
            if op == Op::Write && self.rng.random::<f64>() < self.p.recurring_share {
                let i = self.rng.random_range(0..self.recurring.len());
                let (slot, len) = self.recurring[i];
                self.made += 1;
                return Ok(Some(HostRequest { arrival: t.round() as u64, op, offset: slot * self.p.align_bytes, len, line: 0, job: super::NO_JOB }));
            }
        }
        let len = self.size(op);
        let a = self.p.align_bytes;
        let size_slots = len.div_ceil(a);
        let slot = self.slot(size_slots, op);
        // Keep the request inside the range (reads with their own range were kept in theirs).
        let slot = if op == Op::Read && self.reads.is_some() { slot } else { slot.min(self.slots.saturating_sub(size_slots)) };
        self.made += 1;
        Ok(Some(HostRequest { arrival: t.round() as u64, op, offset: slot * a, len, line: 0, job: super::NO_JOB }))
    }
    fn progress(&self) -> f64 {
        self.made as f64 / self.p.requests as f64
    }
    fn describe(&self) -> Value {
        let mut d = json!({
            "kind": "synthetic",
            "synthetic": true,
            "generator": "flashsched.synthetic",
            "requests": self.p.requests,
            "arrival": self.p.arrival,
            "address": self.p.address,
            "read_ratio": self.p.read_ratio,
            "range_bytes": self.range,
            "profile": self.p.profile,
        });
        if self.reads.is_some() {
            d["read_range_bytes"] = json!(self.reads.as_ref().map(|r| r.0 * self.p.align_bytes));
        }
        if !self.recurring.is_empty() {
            d["recurring"] = json!({"share": self.p.recurring_share, "sets": self.recurring.len(), "size_bytes": self.recurring[0].1, "lifetime_requests": self.p.recurring_lifetime});
        }
        d
    }
}
