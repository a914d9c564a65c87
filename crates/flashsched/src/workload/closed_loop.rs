//! Closed-loop jobs in fio's terms: `numjobs` jobs each keep `iodepth` requests in flight; when one
//! completes, the job issues its next request after `thinktime`. Throughput is what the drive
//! sustains, as in the PASS paper's multithreaded benchmarks, instead of what a trace dictates.

use rand::Rng as _;
use serde_json::{json, Value};

use super::{HostRequest, Workload};
use crate::config::settings::JobsSettings;
use crate::config::Settings;
use crate::engine::rng::{self, Rng};
use crate::engine::Time;
use crate::trace::{Op, TraceError};

pub struct ClosedLoop {
    p: JobsSettings,
    rng: Rng,
    logical_bytes: u64,
    region: u64,
    issued: Vec<u64>,
    next_seq: Vec<u64>,
    started: u64,
}

impl ClosedLoop {
    pub fn new(s: &Settings) -> Self {
        let p = s.workload.jobs.clone();
        let logical_bytes = s.logical_bytes();
        let region = if p.size == 0 { logical_bytes } else { p.size.min(logical_bytes) };
        let n = p.numjobs as usize;
        ClosedLoop {
            rng: rng::stream(s.seed, "workload.jobs"),
            logical_bytes,
            region: (region / p.bs).max(1) * p.bs,
            issued: vec![0; n],
            next_seq: vec![0; n],
            started: 0,
            p,
        }
    }

    fn make(&mut self, job: u32, at: Time) -> Option<HostRequest> {
        let j = job as usize;
        if self.issued[j] >= self.p.number_ios || (self.p.runtime_ns > 0 && at >= self.p.runtime_ns) {
            return None;
        }
        self.issued[j] += 1;
        let op = if self.p.read_fraction >= 1.0 || (self.p.read_fraction > 0.0 && self.rng.random::<f64>() < self.p.read_fraction) {
            Op::Read
        } else {
            Op::Write
        };
        let slots = self.region / self.p.bs;
        let within = if self.p.random {
            self.rng.random_range(0..slots) * self.p.bs
        } else {
            let o = self.next_seq[j];
            self.next_seq[j] = (o + self.p.bs) % self.region;
            o
        };
        let offset = (job as u64 * self.p.offset_increment + within) % self.logical_bytes;
        Some(HostRequest { arrival: at, op, offset, len: self.p.bs, line: 0, job })
    }
}

impl Workload for ClosedLoop {
    /// The initial requests: every job's `iodepth` requests at time 0.
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        let total = self.p.numjobs as u64 * self.p.iodepth as u64;
        while self.started < total {
            let job = (self.started % self.p.numjobs as u64) as u32;
            self.started += 1;
            if let Some(r) = self.make(job, 0) {
                return Ok(Some(r));
            }
        }
        Ok(None)
    }
    fn on_complete(&mut self, job: u32, now: Time) -> Option<HostRequest> {
        self.make(job, now + self.p.thinktime_ns)
    }
    fn progress(&self) -> f64 {
        let done: u64 = self.issued.iter().sum();
        done as f64 / (self.p.number_ios * self.p.numjobs as u64) as f64
    }
    fn describe(&self) -> Value {
        json!({
            "kind": "jobs",
            "synthetic": true,
            "numjobs": self.p.numjobs,
            "iodepth": self.p.iodepth,
            "random": self.p.random,
            "read_fraction": self.p.read_fraction,
            "bs": self.p.bs,
            "issued": self.issued.iter().sum::<u64>(),
        })
    }
}
