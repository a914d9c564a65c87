//! `wr`: write-conflict reduction (Li et al., paper 002 §II-B-2). A write is programmed *fast*
//! while other requests wait for its chip, so that they wait less; once no conflict remains it is
//! programmed *slow* if the last read on the chip was a conflicting one (its data will then read
//! fast, easing the next read conflict), else *normal* (Figure 2: W1 fast with requests pending;
//! W3 slow after a conflicting read; W4 normal).
//!
//! [INFER] The paper keeps one read-conflict tag "in the IO queue"; conflicts are per chip here
//! (a request conflicts with the others waiting for its chip), so the tag is kept per chip. A read
//! is conflicting when it waited for its chip; the tag is set when a read starts on the chip.

use super::{ProgramSpeed, WriteView};
use crate::nand::latency::ProgramMode;

pub struct Wr {
    /// Per chip: the last read that started on it had waited for it.
    last_read_conflicted: Vec<bool>,
}

impl Wr {
    pub fn new(chips: u32) -> Self {
        Wr { last_read_conflicted: vec![false; chips as usize] }
    }
}

impl ProgramSpeed for Wr {
    fn name(&self) -> &'static str {
        "wr"
    }

    #[inline]
    fn write_mode(&mut self, w: WriteView) -> ProgramMode {
        if w.waiting > 0 {
            ProgramMode::Fast
        } else if self.last_read_conflicted[w.chip as usize] {
            ProgramMode::Slow
        } else {
            ProgramMode::Normal
        }
    }

    #[inline]
    fn on_read_start(&mut self, chip: u32, conflicted: bool) {
        self.last_read_conflicted[chip as usize] = conflicted;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figure_2_fast_under_conflict_then_slow_or_normal_by_the_last_read() {
        let mut wr = Wr::new(2);
        // (a) Four requests pending: W1 goes while others wait for the chip: fast.
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 3 }), ProgramMode::Fast);
        // The last read, R1, was a conflicting one; W3, the last write, finds no one waiting: slow.
        wr.on_read_start(0, true);
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0 }), ProgramMode::Slow);
        // (b) The last read did not conflict: W4 is programmed at normal speed.
        wr.on_read_start(0, false);
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0 }), ProgramMode::Normal);
        // Tags are per chip: chip 1 saw no read.
        wr.on_read_start(0, true);
        assert_eq!(wr.write_mode(WriteView { chip: 1, waiting: 0 }), ProgramMode::Normal);
        // A conflict in the queue wins over the tag.
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 1 }), ProgramMode::Fast);
    }
}
