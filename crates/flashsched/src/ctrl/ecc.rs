//! ECC decoding in the controller: time spent after a host read's data-out transfer, with the
//! die and the channel already free, on one of the channel's decoders (`device.ecc.decoders`; a
//! page waits when they are all busy).
//!
//! An enum rather than a number so that a model whose decode time depends on the page (read
//! retries on worn blocks) can be added as a variant without changing the simulator.

use crate::config::Timing;
use crate::engine::Time;
use crate::sim::txn::{Txn, TxnKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EccModel {
    /// Every host read page takes the same decode time (`device.timing.ecc`).
    Fixed { decode_ns: u64 },
}

impl EccModel {
    pub fn new(t: &Timing) -> Self {
        EccModel::Fixed { decode_ns: t.ecc_ns }
    }

    /// Decode time of `txn`'s page. Only host reads are decoded: GC reads are not charged.
    #[inline]
    pub fn decode_ns(&self, txn: &Txn) -> u64 {
        match *self {
            EccModel::Fixed { decode_ns } => {
                if txn.kind == TxnKind::HostRead {
                    decode_ns
                } else {
                    0
                }
            }
        }
    }
}

/// The ECC decoders of each channel: a page's decode starts when one of its channel's decoders is
/// free. Decoders are interchangeable, so a decode takes the one free earliest (FCFS in the order
/// the pages finish their transfers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EccDecoders {
    per_channel: usize,
    /// When each decoder is next free, `per_channel` entries per channel.
    free_at: Vec<Time>,
}

impl EccDecoders {
    /// `per_channel` decoders for each of `channels` channels; 0 means unlimited.
    pub fn new(channels: u32, per_channel: u32) -> Self {
        EccDecoders { per_channel: per_channel as usize, free_at: vec![0; channels as usize * per_channel as usize] }
    }

    /// A decode of `decode_ns` for a page of channel `ch` whose transfer ended at `now`: when it ends.
    #[inline]
    pub fn decode(&mut self, ch: u32, now: Time, decode_ns: u64) -> Time {
        if self.per_channel == 0 {
            return now + decode_ns;
        }
        let first = ch as usize * self.per_channel;
        let slots = &mut self.free_at[first..first + self.per_channel];
        let (i, _) = slots.iter().enumerate().min_by_key(|&(i, &t)| (t, i)).expect("at least one decoder");
        let end = slots[i].max(now) + decode_ns;
        slots[i] = end;
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_queue_for_the_channels_decoders() {
        let mut one = EccDecoders::new(2, 1);
        assert_eq!(one.decode(0, 100, 50), 150);
        assert_eq!(one.decode(0, 120, 50), 200, "waits for the busy decoder");
        assert_eq!(one.decode(1, 120, 50), 170, "another channel's decoder is free");
        assert_eq!(one.decode(0, 300, 50), 350, "idle again");
        let mut two = EccDecoders::new(1, 2);
        assert_eq!((two.decode(0, 0, 50), two.decode(0, 10, 50), two.decode(0, 20, 50)), (50, 60, 100));
        let mut unlimited = EccDecoders::new(1, 0);
        assert_eq!((unlimited.decode(0, 0, 50), unlimited.decode(0, 0, 50)), (50, 50));
    }
}
