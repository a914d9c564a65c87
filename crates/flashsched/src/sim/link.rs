//! The host link (`host.link`): the interface requests cross between the host's queue and the
//! drive. Each direction carries one message at a time, first come first served, so requests
//! dispatched together queue for it.
//!
//! NVMe over PCIe (`pcie`), as MQSim models it (`PCIe_Link::estimate_transfer_time`,
//! `Host_Interface_NVMe`): a request rings the submission doorbell (host to device), the device
//! asks for the command (device to host) and receives it (64-byte command, 72 bytes as MQSim
//! stores it); a write then asks for its data and receives it before the drive splits it into
//! page transactions. When the flash work is done, a read's data goes to the host, then the
//! completion entry (16 bytes); the host answers with the completion doorbell. A message of p
//! payload bytes is sent as 128-byte packets with 28 bytes of header each: floor(p / 128) x 156
//! + (p mod 128 + 28 if p mod 128 > 0) bytes, which take ceil(bytes / lanes) / lane_rate ns
//! (truncated). `sata`: a fixed processing delay per command and the data at the link's rate, one
//! transfer at a time.
//!
//! The time a request spends on the link is part of its `device_queue` stage (docs/reference/output.md).

use super::event::Ev;
use super::txn::ReqId;
use super::Simulator;
use crate::config::Settings;
use crate::engine::Time;
use crate::trace::Op;

const TO_DEVICE: usize = 0;
const TO_HOST: usize = 1;

/// Payload bytes of NVMe's messages (MQSim's sizes): doorbell write, memory read request, the
/// submission queue entry as MQSim stores it, the completion queue entry.
const DOORBELL: u64 = 2;
const READ_REQUEST: u64 = 4;
const COMMAND: u64 = 72;
const COMPLETION: u64 = 16;

#[derive(Debug, Clone, Copy)]
enum Kind {
    None,
    Pcie { lanes: u64, lane_bytes_per_ns: f64 },
    Sata { delay_ns: u64, bytes_per_s: u64 },
}

#[derive(Debug, Clone)]
pub(super) struct HostLink {
    kind: Kind,
    /// Each direction is busy until then.
    busy: [Time; 2],
}

impl HostLink {
    pub fn new(s: &Settings) -> Self {
        let r = &s.resolved;
        let kind = match r.str("host.link") {
            "pcie" => Kind::Pcie { lanes: r.int("host.pcie.lanes") as u64, lane_bytes_per_ns: r.float("host.pcie.lane_rate") },
            "sata" => Kind::Sata { delay_ns: r.ns("host.sata.delay"), bytes_per_s: r.rate("host.sata.rate").max(1) },
            _ => Kind::None,
        };
        HostLink { kind, busy: [0; 2] }
    }

    #[inline]
    pub fn enabled(&self) -> bool {
        !matches!(self.kind, Kind::None)
    }

    /// Time on the wire of a message with `payload` bytes.
    fn wire_ns(&self, payload: u64) -> u64 {
        match self.kind {
            Kind::None => 0,
            Kind::Pcie { lanes, lane_bytes_per_ns } => {
                let bytes = payload / 128 * 156 + if payload % 128 > 0 { payload % 128 + 28 } else { 0 };
                (bytes.div_ceil(lanes) as f64 / lane_bytes_per_ns) as u64
            }
            Kind::Sata { bytes_per_s, .. } => (payload as u128 * 1_000_000_000).div_ceil(bytes_per_s as u128) as u64,
        }
    }

    /// Send a message of `payload` bytes in direction `dir` at `now`; returns when it arrives.
    fn send(&mut self, dir: usize, payload: u64, now: Time) -> Time {
        let start = self.busy[dir].max(now);
        self.busy[dir] = start + self.wire_ns(payload);
        self.busy[dir]
    }

    /// The message of step `step` of a request's way in (`back` false: before its flash work)
    /// or out: (direction, payload bytes, extra delay), or `None` when the way is over. `bytes`
    /// (the request's length) is the payload of the data messages of reads and writes only.
    fn message(&self, op: Op, bytes: u64, back: bool, step: u8) -> Option<(usize, u64, u64)> {
        match (self.kind, back) {
            (Kind::None, _) => None,
            (Kind::Pcie { .. }, false) => match (step, op) {
                (0, _) => Some((TO_DEVICE, DOORBELL, 0)),
                (1, _) => Some((TO_HOST, READ_REQUEST, 0)),
                (2, _) => Some((TO_DEVICE, COMMAND, 0)),
                (3, Op::Write) => Some((TO_HOST, READ_REQUEST, 0)),
                (4, Op::Write) => Some((TO_DEVICE, bytes, 0)),
                _ => None,
            },
            (Kind::Pcie { .. }, true) => match (step, op) {
                (0, Op::Read) => Some((TO_HOST, bytes, 0)),
                (0, _) | (1, Op::Read) => Some((TO_HOST, COMPLETION, 0)),
                _ => None,
            },
            // SATA is half duplex: one direction stands for both.
            (Kind::Sata { delay_ns, .. }, false) => match (step, op) {
                (0, _) => Some((TO_DEVICE, 0, delay_ns)),
                (1, Op::Write) => Some((TO_DEVICE, bytes, 0)),
                _ => None,
            },
            (Kind::Sata { .. }, true) => match (step, op) {
                (0, Op::Read) => Some((TO_DEVICE, bytes, 0)),
                _ => None,
            },
        }
    }
}

impl Simulator {
    /// Request `id`'s way over the link begins: in (`back` false: the host dispatched it) or out
    /// (its flash work is done).
    pub(super) fn link_begin(&mut self, id: ReqId, back: bool) {
        let r = &mut self.reqs.items[id as usize];
        (r.link_step, r.link_back, r.link_start) = (0, back, self.now);
        self.link_hop(id);
    }

    /// The request's previous message arrived (or its way begins): send the next, or finish.
    pub(super) fn link_hop(&mut self, id: ReqId) {
        let (op, len, back, step, start) = {
            let r = &self.reqs.items[id as usize];
            (r.op, r.dev_len, r.link_back, r.link_step, r.link_start)
        };
        match self.link.message(op, len, back, step) {
            Some((dir, payload, delay)) => {
                self.reqs.items[id as usize].link_step += 1;
                // A processing delay (SATA's) holds the command, not the wire.
                let at = if payload == 0 { self.now + delay } else { self.link.send(dir, payload, self.now + delay) };
                self.events.push(at, Ev::LinkHop(id));
            }
            None if !back => {
                self.split(id);
                self.drain_hil();
            }
            None => {
                // The host acknowledges the completion with the completion queue's doorbell: it
                // delays no request, but occupies the link.
                if matches!(self.link.kind, Kind::Pcie { .. }) {
                    self.link.send(TO_DEVICE, DOORBELL, self.now);
                }
                self.complete_to_host(id, self.now - start);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pcie_messages_take_mqsim_s_times() {
        let link = HostLink { kind: Kind::Pcie { lanes: 4, lane_bytes_per_ns: 1.0 }, busy: [0; 2] };
        // Doorbell 8, read request 8, command 25, completion 11; 4 KiB of data 1248, 64 KiB 19968.
        let t: Vec<u64> = [DOORBELL, READ_REQUEST, COMMAND, COMPLETION, 4096, 65536, 512].iter().map(|&p| link.wire_ns(p)).collect();
        assert_eq!(t, vec![8, 8, 25, 11, 1248, 19968, 156]);
    }

    #[test]
    fn each_direction_carries_one_message_at_a_time() {
        let mut link = HostLink { kind: Kind::Pcie { lanes: 4, lane_bytes_per_ns: 1.0 }, busy: [0; 2] };
        assert_eq!(link.send(TO_DEVICE, DOORBELL, 0), 8);
        assert_eq!(link.send(TO_DEVICE, DOORBELL, 0), 16, "queued behind the first");
        assert_eq!(link.send(TO_HOST, READ_REQUEST, 0), 8, "the other direction is free");
        assert_eq!(link.send(TO_DEVICE, COMMAND, 100), 125);
    }
}
