//! SSDSim's admission cap (`host.queue_length`): at most that many requests admitted and not yet
//! complete; an arrival beyond it waits at the door, and so does every later one.
//!
//! What SSDSim v2.1 does (ssd.c `get_requests`, `trace_output`), and this module with it:
//! - A request is admitted when the clock reaches its arrival, unless `queue_length` requests
//!   are admitted and not reported; then it is held, and every request after it (SSDSim reads its
//!   trace in order). The cap is not checked when nothing is pending in the device (no event).
//! - When a request completes, the oldest held one is admitted at the end of that instant, and
//!   SSDSim sets its clock back to the held request's arrival (`ssd->current_time = time_t`).
//!   The device then walks forward from there again: a channel or chip that has been free since
//!   before that arrival by its predicted time takes the request's work at the arrival, and the
//!   times when the others became free are visited again (`find_nearest_event` returns every
//!   predicted time after the clock).
//! - The next held request is admitted when the clock, walking forward again, reaches its arrival
//!   and there is room.
//!
//! This is unphysical, and modelled as SSDSim behaves, not corrected: a held request's work can
//! start, and end, before it was admitted, on a channel or chip that was free by then, and its
//! latency counts from its arrival and never includes the hold. (Work already queued is not
//! affected: a resource busy with it at the time walked again stays busy.) On the reference
//! trace with a cap of 5, 7,570 requests are held for 204 us on average and 238 complete before
//! SSDSim admitted them. `ssd.admission` in the report counts the held requests and their hold
//! (from arrival to admission by the clock at admission: 0 for one admitted when the clock,
//! walking forward again after a set-back, reaches its arrival).
//!
//! The set-back needs each resource's predicted free time: dies keep when they last ended an
//! operation (`ctrl::Flash::free_by`), channels when their transfer ends, and SSDSim's channel
//! arbitration (`arbiter`) when read data became ready.

use std::collections::VecDeque;

use super::event::Ev;
use super::Simulator;
use crate::engine::Time;
use crate::workload::HostRequest;

/// The cap and the requests it holds.
#[derive(Debug, Default)]
pub(super) struct Admission {
    /// `host.queue_length` (0: no cap).
    cap: u32,
    /// Requests admitted and not complete.
    admitted: u32,
    /// Requests held at the cap, in arrival order.
    held: VecDeque<HostRequest>,
    /// An `Admit` event is queued.
    admit_queued: bool,
    /// Requests held, and the sum of their holds (ns): from arrival to admission.
    pub held_requests: u64,
    pub held_ns: u64,
    /// The longest hold (ns).
    pub held_max_ns: u64,
}

impl Admission {
    pub fn new(s: &crate::config::Settings) -> Self {
        Admission { cap: s.resolved.int("host.queue_length") as u32, ..Default::default() }
    }

    /// Whether a cap is set.
    #[inline]
    pub fn on(&self) -> bool {
        self.cap > 0
    }

    /// What the report says of it (`ssd.admission`; `None` without a cap).
    pub fn report(&self) -> Option<serde_json::Value> {
        if !self.on() {
            return None;
        }
        let mean = if self.held_requests == 0 { 0.0 } else { self.held_ns as f64 / self.held_requests as f64 };
        Some(serde_json::json!({
            "queue_length": self.cap,
            "held_requests": self.held_requests,
            "held_mean_ns": mean,
            "held_max_ns": self.held_max_ns,
        }))
    }
}

impl Simulator {
    /// A request arrives: admitted now, or held at the cap (with everything after it).
    pub(super) fn arrive(&mut self, r: HostRequest) {
        let a = &mut self.admission;
        if a.on() {
            // SSDSim does not check the cap when no event is pending (`find_nearest_event`
            // returns none): the device is idle, and the request goes in.
            let full = (a.admitted >= a.cap || !a.held.is_empty()) && !self.events.is_empty();
            if full {
                a.held.push_back(r);
                return;
            }
            a.admitted += 1;
        }
        self.on_arrival(r);
    }

    /// `n` admitted requests completed: a held one may go in, once this instant's other events
    /// have run.
    pub(super) fn admission_done(&mut self, n: u32) {
        let a = &mut self.admission;
        if !a.on() {
            return;
        }
        a.admitted -= n;
        if !a.held.is_empty() && !a.admit_queued {
            a.admit_queued = true;
            self.events.push(self.now, Ev::Admit);
        }
    }

    /// Admit the oldest held request if there is room and the clock has reached its arrival,
    /// setting the clock back to its arrival; then wait for the next one's arrival.
    pub(super) fn admit_held(&mut self) {
        self.admission.admit_queued = false;
        let a = &self.admission;
        let Some(&r) = a.held.front() else { return };
        if a.admitted >= a.cap {
            // No room: the next completion queues this again.
            return;
        }
        if r.arrival > self.now {
            // The clock was set back before this request's arrival: it goes in when the clock
            // gets there again.
            self.admission.admit_queued = true;
            self.events.push(r.arrival, Ev::Admit);
            return;
        }
        // SSDSim serves its channels at this instant (process) before it admits (the next turn
        // of its loop): channels due to be served now are served first.
        self.serve_due_channels();
        let a = &mut self.admission;
        a.held.pop_front();
        a.admitted += 1;
        let hold = self.now - r.arrival;
        a.held_requests += 1;
        a.held_ns += hold;
        a.held_max_ns = a.held_max_ns.max(hold);
        if r.arrival < self.now {
            self.set_clock_back(r.arrival);
        }
        self.on_arrival(r);
        // Its work is queued and its channels asked to serve before the next held request is
        // considered (SSDSim admits one trace line per turn of its loop).
        self.dispatch();
        self.need_dispatch = false;
        if !self.admission.held.is_empty() {
            self.admission.admit_queued = true;
            let at = self.admission.held.front().map_or(self.now, |h| h.arrival.max(self.now));
            self.events.push(at, Ev::Admit);
        }
    }

    /// SSDSim's set-back: the clock goes back to `to`, and the times since then when a channel
    /// or die became free (or read data ready) are visited again, each channel served there.
    fn set_clock_back(&mut self, to: Time) {
        let until = self.now;
        self.now = to;
        let mut times = Vec::new();
        for ch in 0..self.layout.channels {
            times.clear();
            self.channel_times(ch, until, &mut times);
            times.sort_unstable();
            times.dedup();
            for &t in &times {
                self.events.push(t, Ev::ServeChannel(ch));
            }
        }
    }

    /// A visit of channel `ch` after the clock was set back (or SSDSim's arbitration's turn):
    /// with the default arbitration, its idle dies (or chips, with multi-die commands) start
    /// what they may.
    pub(super) fn on_serve_channel(&mut self, ch: u32) {
        if self.arbiter.on {
            return self.serve_channel(ch);
        }
        let per_channel = self.layout.chips_per_channel * self.layout.dies_per_chip;
        for die in ch * per_channel..(ch + 1) * per_channel {
            self.try_start_die(die);
        }
    }
}
