//! Open-loop trace replay: requests arrive at the trace's timestamps (relative to its first
//! request), whatever the device does. Streams the file, so memory does not grow with its length.

use std::path::Path;

use serde_json::{json, Value};

use super::{HostRequest, Workload};
use crate::config::Settings;
use crate::trace::{TraceError, TraceReader};

pub struct Replay {
    reader: TraceReader,
    requests: u64,
}

impl Replay {
    pub fn open(s: &Settings) -> Result<Self, TraceError> {
        let t = &s.workload.trace;
        let reader = TraceReader::open(Path::new(&t.path), t.format.clone(), t.device, t.blkparse_action)?;
        Ok(Replay { reader, requests: 0 })
    }

    /// Records read so far whose time went backwards.
    pub fn out_of_order(&self) -> u64 {
        self.reader.out_of_order
    }
}

impl Workload for Replay {
    fn next_request(&mut self) -> Result<Option<HostRequest>, TraceError> {
        Ok(self.reader.next_record()?.map(|r| {
            self.requests += 1;
            HostRequest { arrival: r.time_ns, op: r.op, offset: r.offset, len: r.len, line: r.line, job: super::NO_JOB }
        }))
    }
    fn progress(&self) -> f64 {
        self.reader.progress()
    }
    fn describe(&self) -> Value {
        // Traces written by `flashsched trace synth` say so in their first line.
        let generated = self.reader.header.iter().find(|l| l.starts_with("flashsched synthetic trace"));
        json!({
            "kind": "trace",
            "synthetic": generated.is_some(),
            "generated_by": generated.cloned().unwrap_or_default(),
            "path": self.reader.file_name(),
            "format": self.reader.format.name(),
            "records_read": self.requests,
            "out_of_order": self.reader.out_of_order,
        })
    }
}
