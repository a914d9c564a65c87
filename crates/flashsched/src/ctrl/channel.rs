//! A flash channel: the bus a channel's dies share for commands and data transfers.
//!
//! The bus serves one transfer at a time and hands itself to waiting dies first-come,
//! first-served. A busy channel needs one `ChannelFree` event to pass the bus on; the
//! [`Channel`] says when that event is due and the simulator schedules it, so the order of
//! events at equal times stays the simulator's.

use std::collections::VecDeque;

use crate::config::Timing;
use crate::engine::Time;

/// Bus speed and the command overhead of one flash command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BusTiming {
    /// Bus time of the command and address cycles that start a read, a program, an erase.
    pub command_ns: [u64; 3],
    /// Bytes moved per bus cycle (the channel's width).
    pub bytes_per_transfer: u32,
    /// Bus cycles per second.
    pub rate_per_s: u64,
    /// Whole nanoseconds per bus cycle (`device.channel.cycle = "whole_ns"`), or 0: exact.
    pub cycle_ns: u64,
    /// Added to each array read before its data can go out: the ready/busy signal's delay
    /// (`device.timing.read_ready_delay`).
    pub read_ready_ns: u64,
    /// A multi-plane read sends each plane's page out in a transfer of its own, each queued for
    /// the bus on its own (MQSim's arbitration, `sim::turns`), instead of back to back.
    pub page_outs: bool,
    /// One size's transfer time worked out ahead (`remembering`): nearly every transfer is one
    /// page, and the formula's 64-bit division is tens of cycles. (0, 0) until then, which is
    /// right as it stands: no bytes take no time.
    known: (u64, u64),
}

impl BusTiming {
    pub fn new(t: &Timing) -> Self {
        let cycle_ns = if t.channel_whole_ns { 1_000_000_000 / t.channel_rate_per_s } else { 0 };
        BusTiming { command_ns: t.command_ns, bytes_per_transfer: t.channel_bytes_per_transfer, rate_per_s: t.channel_rate_per_s, cycle_ns, read_ready_ns: t.read_ready_ns, page_outs: false, known: (0, 0) }
    }

    /// The same timing with the transfer time of `bytes` (a page) computed once.
    pub fn remembering(mut self, bytes: u64) -> Self {
        self.known = (bytes, self.compute_ns(bytes));
        self
    }

    /// Command and address time of an operation of `kind`.
    #[inline]
    pub fn command(&self, kind: crate::nand::latency::NandOpKind) -> u64 {
        self.command_ns[kind as usize]
    }

    /// Bus time of `bytes` of data, without the command overhead: ceil(bytes / width / rate), or
    /// with whole-ns cycles, ceil(bytes / width) x cycle.
    #[inline]
    pub fn transfer_ns(&self, bytes: u64) -> u64 {
        if bytes == self.known.0 {
            return self.known.1;
        }
        self.compute_ns(bytes)
    }

    fn compute_ns(&self, bytes: u64) -> u64 {
        if self.cycle_ns > 0 {
            return bytes.div_ceil(self.bytes_per_transfer as u64) * self.cycle_ns;
        }
        // bytes <= 4 GiB and rate * width < 2^64 / 1e9 in practice; u128 only where it could overflow.
        let den = self.bytes_per_transfer as u64 * self.rate_per_s;
        match bytes.checked_mul(1_000_000_000) {
            Some(num) => num.div_ceil(den),
            None => (bytes as u128 * 1_000_000_000u128).div_ceil(den as u128) as u64,
        }
    }
}

/// What a die asking for the bus got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grant {
    /// The bus is free and nobody is waiting: transfer now.
    Now,
    /// Queued behind the current transfer and other waiting dies; a `ChannelFree` event is
    /// already due.
    Queued,
    /// Queued, and the channel needs a `ChannelFree` event at this time.
    QueuedRelease(Time),
}

#[derive(Debug, Clone, Default)]
pub struct Channel {
    /// The bus is busy until then (a transfer in progress).
    busy_until: Time,
    /// Dies waiting for the bus, oldest first.
    waiting: VecDeque<u32>,
    /// A `ChannelFree` event is scheduled.
    release_pending: bool,
    busy_ns: u64,
}

impl Channel {
    /// `die` asks for the bus at `now`.
    #[inline]
    pub fn request(&mut self, die: u32, now: Time) -> Grant {
        if now >= self.busy_until && self.waiting.is_empty() {
            return Grant::Now;
        }
        self.waiting.push_back(die);
        if self.release_pending {
            return Grant::Queued;
        }
        self.release_pending = true;
        Grant::QueuedRelease(self.busy_until.max(now))
    }

    /// A transfer of `dur` starts at `now`.
    #[inline]
    pub fn occupy(&mut self, now: Time, dur: u64) {
        self.busy_until = now + dur;
        self.busy_ns += dur;
    }

    /// The scheduled `ChannelFree` event ran: the oldest waiting die, which gets the bus.
    #[inline]
    pub fn release(&mut self) -> Option<u32> {
        self.release_pending = false;
        self.waiting.pop_front()
    }

    /// After handing the bus on: when the next `ChannelFree` event is due, if dies still wait.
    #[inline]
    pub fn rearm(&mut self) -> Option<Time> {
        if self.waiting.is_empty() {
            return None;
        }
        self.release_pending = true;
        Some(self.busy_until)
    }

    /// Whether the bus is free at `now` (no transfer in progress), whoever waits.
    #[inline]
    pub fn is_free(&self, now: Time) -> bool {
        now >= self.busy_until
    }

    /// When the current transfer ends (or the last one ended).
    #[inline]
    pub fn busy_until(&self) -> Time {
        self.busy_until
    }

    /// Time spent transferring so far.
    pub fn busy_ns(&self) -> u64 {
        self.busy_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    #[test]
    fn a_remembered_transfer_time_is_the_computed_one() {
        for sets in [&[][..], &["device.channel.cycle=whole_ns"][..], &["device.channel.rate=1200MT/s", "device.channel.width_bits=16"][..]] {
            let mut o = Options::from_preset("bench8x8").unwrap();
            for s in sets {
                o.set(s).unwrap();
            }
            let t = Settings::from_options(&o).unwrap().timing;
            let plain = BusTiming::new(&t);
            let page = plain.remembering(4096);
            for bytes in [0, 1, 512, 4095, 4096, 4097, 8192, 16384, 1 << 40] {
                assert_eq!(page.transfer_ns(bytes), plain.transfer_ns(bytes), "{sets:?}, {bytes} bytes");
            }
        }
        // 4096 bytes over an 8-bit 333 MT/s bus: ceil(4096 / 333e6 s) = 12,301 ns.
        let t = Settings::from_options(&Options::from_preset("bench8x8").unwrap()).unwrap().timing;
        assert_eq!(BusTiming::new(&t).remembering(4096).transfer_ns(4096), 12_301);
    }
}
