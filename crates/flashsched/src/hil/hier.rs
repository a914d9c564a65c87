//! The hierarchical-batch structured queue of VIOS (Li et al., NPC 2016, §3.3, Fig. 3): chip
//! batches whose requests have no chip in common, each split into channel batches whose requests
//! have no channel in common. Sets are bitmasks, so a test is a word-wise AND and an insertion costs
//! the number of batches it looks at. `hil::vios` keeps one for reads and one for writes.

use std::collections::VecDeque;

use super::bits::Bits;
use crate::engine::Time;

/// Requests with no channel in common.
#[derive(Debug, Clone)]
pub struct ChannelBatch<R> {
    pub channels: Bits,
    pub reqs: Vec<R>,
}

/// Requests with no chip in common, split into channel batches.
#[derive(Debug, Clone)]
pub struct ChipBatch<R> {
    pub chips: Bits,
    pub channel_batches: Vec<ChannelBatch<R>>,
    pub len: usize,
    /// Requests already issued (`idle_requests` dispatch issues a batch request by request).
    pub issued: usize,
    pub born: Time,
}

/// One hierarchical-batch structured queue (reads or writes).
#[derive(Debug, Clone)]
pub struct HierQueue<R> {
    pub batches: VecDeque<ChipBatch<R>>,
    /// Largest number of requests in a chip batch.
    cap: usize,
    /// Issued chip batches kept for reuse (their sets and lists keep their memory).
    pool: Vec<ChipBatch<R>>,
}

impl<R: Copy> HierQueue<R> {
    pub fn new(cap: usize) -> Self {
        HierQueue { batches: VecDeque::new(), cap: cap.max(1), pool: Vec::new() }
    }

    /// Add request `r` touching `chips` on `channels`: the first chip batch without a common chip
    /// (and with room), then its first channel batch without a common channel. Returns the
    /// indices of the chip batch and channel batch it joined.
    pub fn insert(&mut self, r: R, chips: &Bits, channels: &Bits, now: Time) -> (usize, usize) {
        let cap = self.cap;
        let i = match self.batches.iter().position(|b| b.len < cap && !b.chips.intersects(chips)) {
            Some(i) => i,
            None => {
                let b = match self.pool.pop() {
                    Some(mut b) => {
                        b.born = now;
                        b
                    }
                    None => ChipBatch { chips: Bits::like(chips), channel_batches: Vec::new(), len: 0, issued: 0, born: now },
                };
                self.batches.push_back(b);
                self.batches.len() - 1
            }
        };
        let b = &mut self.batches[i];
        b.chips.union_with(chips);
        b.len += 1;
        // Channel batches past `used` are empty ones kept from an earlier use of this batch.
        let used = b.channel_batches.iter().take_while(|c| !c.reqs.is_empty()).count();
        let j = match b.channel_batches[..used].iter().position(|c| !c.channels.intersects(channels)) {
            Some(j) => j,
            None => {
                if used == b.channel_batches.len() {
                    b.channel_batches.push(ChannelBatch { channels: Bits::like(channels), reqs: Vec::new() });
                }
                used
            }
        };
        let c = &mut b.channel_batches[j];
        c.channels.union_with(channels);
        c.reqs.push(r);
        (i, j)
    }

    /// Put back the batches taken out to issue from: those whose requests were all issued are
    /// dropped (their memory kept for later ones). `any_done`: whether any batch may have been
    /// completed since they were taken (if not, there is nothing to drop).
    pub fn put_back(&mut self, mut batches: VecDeque<ChipBatch<R>>, any_done: bool) {
        if !any_done {
            self.batches = batches; // (the caller knows no batch was completed)
            return;
        }
        let mut i = 0;
        while i < batches.len() {
            if batches[i].issued == batches[i].len {
                let b = batches.remove(i).expect("batch i");
                self.recycle(b);
            } else {
                i += 1;
            }
        }
        self.batches = batches;
    }

    /// Keep an issued chip batch's memory for a later one.
    pub fn recycle(&mut self, mut b: ChipBatch<R>) {
        b.chips.clear();
        b.len = 0;
        b.issued = 0;
        for c in &mut b.channel_batches {
            c.channels.clear();
            c.reqs.clear();
        }
        self.pool.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The paper's Fig. 3 drive: 8 chips on 4 channels, chips numbered channel first (Eq. 1's
    /// static allocation: chip μ on channel μ mod 4).
    fn channels_of(chips: &[u32]) -> Bits {
        Bits::of(4, &chips.iter().map(|c| c % 4).collect::<Vec<_>>())
    }

    #[test]
    fn figure_3_the_sixth_request_joins_the_first_chip_batch_and_its_second_channel_batch() {
        // Fig. 3's figure is not in the text; these five requests are the ones its description
        // implies [INFER]: the first chip batch holds chips {0, 1, 2, 4, 5} in two channel batches,
        // the first conflicting with channels {2, 3} and the second holding channels {0, 1}.
        let reqs: [&[u32]; 5] = [&[0, 1, 2], &[4, 5], &[1, 2], &[0, 5], &[2, 6]];
        let mut q = HierQueue::new(32);
        let placed: Vec<(usize, usize)> = reqs.iter().enumerate().map(|(i, c)| q.insert(i, &Bits::of(8, c), &channels_of(c), 0)).collect();
        assert_eq!(placed, vec![(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]);
        // "if one more request accessing chips {6, 7} arrives, ... it is added [to the first chip
        // batch] and A_chip is updated to {0, 1, 2, 4, 5, 6, 7}. Then ... the second channel batch
        // ... is chosen with A_channel being updated to {0, 1, 2, 3}."
        assert_eq!(q.insert(5, &Bits::of(8, &[6, 7]), &channels_of(&[6, 7]), 0), (0, 1));
        let b = &q.batches[0];
        assert_eq!(b.chips.members().collect::<Vec<_>>(), vec![0, 1, 2, 4, 5, 6, 7]);
        assert_eq!(b.channel_batches[1].channels.members().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
        assert_eq!(b.channel_batches[0].reqs, vec![0]);
        assert_eq!(b.channel_batches[1].reqs, vec![1, 5]);
    }

    #[test]
    fn a_chip_batch_holds_at_most_its_capacity() {
        let mut q = HierQueue::new(2);
        for i in 0..3u32 {
            q.insert(i, &Bits::of(8, &[i]), &channels_of(&[i]), 0);
        }
        assert_eq!(q.batches.len(), 2);
        assert_eq!(q.batches[1].len, 1);
    }
}
