//! Closed-loop jobs in fio's terms: `numjobs` jobs each keep `iodepth` requests in flight; when one
//! completes, the job issues its next request after `thinktime`. Throughput is what the drive
//! sustains, as in the PASS paper's multithreaded benchmarks, instead of what a trace dictates.
//!
//! Job j addresses `[j x offset_increment, j x offset_increment + region)`, region = `size` (0: the
//! logical space) rounded down to `bs`; the configuration checks that this lies inside the logical
//! space, so no address is folded.

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
    region: u64,
    /// Requests each job generated, skipped ones included (they count against `number_ios`).
    made: Vec<u64>,
    next_seq: Vec<u64>,
    started: u64,
    skipped: u64,
}

impl ClosedLoop {
    pub fn new(s: &Settings) -> Self {
        let p = s.workload.jobs.clone();
        let logical_bytes = s.logical_bytes();
        // The configuration checked that size <= the logical space, size = 0 or size >= bs, and
        // that every job's area ends inside the logical space.
        let region = (if p.size == 0 { logical_bytes } else { p.size }) / p.bs * p.bs;
        debug_assert!(region >= p.bs && (p.numjobs as u64 - 1) * p.offset_increment + region <= logical_bytes);
        let n = p.numjobs as usize;
        ClosedLoop {
            rng: rng::stream(s.seed, "workload.jobs"),
            region,
            made: vec![0; n],
            next_seq: vec![0; n],
            started: 0,
            skipped: 0,
            p,
        }
    }

    fn make(&mut self, job: u32, at: Time) -> Option<HostRequest> {
        let j = job as usize;
        if self.made[j] >= self.p.number_ios || (self.p.runtime_ns > 0 && at >= self.p.runtime_ns) {
            return None;
        }
        self.made[j] += 1;
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
        let offset = job as u64 * self.p.offset_increment + within;
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
    /// Before any job starts, the jobs generate `n` requests round-robin (job 0, 1, ..., 0, ...)
    /// and drop them: each job's first requests, counted against its `number_ios` and advancing
    /// its sequential position. Every job then still starts its `iodepth` requests.
    fn skip(&mut self, n: u64) -> Result<u64, TraceError> {
        let jobs = self.p.numjobs;
        let (mut job, mut idle, mut done) = (0u32, 0u32, 0u64);
        while done < n && idle < jobs {
            if self.make(job, 0).is_some() {
                done += 1;
                idle = 0;
            } else {
                idle += 1; // this job has nothing left
            }
            job = (job + 1) % jobs;
        }
        self.skipped += done;
        Ok(done)
    }
    fn on_complete(&mut self, job: u32, now: Time) -> Option<HostRequest> {
        self.make(job, now + self.p.thinktime_ns)
    }
    fn progress(&self) -> f64 {
        let done: u64 = self.made.iter().sum();
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
            "issued": self.made.iter().sum::<u64>() - self.skipped,
        })
    }
}
