//! `wr`: write-conflict reduction (Li et al., paper 002 §II-B-2). A write is programmed *fast*
//! while other requests wait for its chip, so that they wait less; once no conflict remains it is
//! programmed *slow* if the last read on the chip was a conflicting one (its data will then read
//! fast, easing the next read conflict), else *normal* (Figure 2: W1 fast with requests pending;
//! W3 slow after a conflicting read; W4 normal).
//!
//! [INFER] "Conflicts in the IO queue": with `ftl.wr.scope = "device"` (the default: Fig. 2 draws
//! one IO queue with one tag) a write is fast when any transaction waits in the device; with
//! `"chip"`, when transactions wait for its own chip. The read-conflict tag is kept per chip, or one for the device, to
//! match; it is set when a read starts, by whether the read conflicts (`ftl.read_conflict`: it
//! waited, or others wait behind it in the chip, or the device for the device's tag).

use super::{ProgramSpeed, ReadConflict, WriteView};
use crate::nand::latency::ProgramMode;

pub struct Wr {
    /// Per chip (or one, device scope): the last read that started there had waited for its chip.
    last_read_conflicted: Vec<bool>,
    device: bool,
}

impl Wr {
    pub fn new(chips: u32, device_scope: bool) -> Self {
        Wr { last_read_conflicted: vec![false; if device_scope { 1 } else { chips as usize }], device: device_scope }
    }

    fn tag(&self, chip: u32) -> usize {
        if self.device { 0 } else { chip as usize }
    }
}

impl ProgramSpeed for Wr {
    fn name(&self) -> &'static str {
        "wr"
    }

    #[inline]
    fn write_mode(&mut self, w: WriteView) -> ProgramMode {
        let waiting = if self.device { w.waiting_device } else { w.waiting };
        if waiting > 0 {
            ProgramMode::Fast
        } else if self.last_read_conflicted[self.tag(w.chip)] {
            ProgramMode::Slow
        } else {
            ProgramMode::Normal
        }
    }

    #[inline]
    fn on_read_start(&mut self, chip: u32, conflicted: ReadConflict) {
        let i = self.tag(chip);
        self.last_read_conflicted[i] = if self.device { conflicted.device } else { conflicted.chip };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(c: bool) -> ReadConflict {
        ReadConflict { chip: c, device: c }
    }

    #[test]
    fn figure_2_fast_under_conflict_then_slow_or_normal_by_the_last_read() {
        let mut wr = Wr::new(2, false);
        // (a) Four requests pending: W1 goes while others wait for the chip: fast.
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 3, waiting_device: 3 }), ProgramMode::Fast);
        // The last read, R1, was a conflicting one; W3, the last write, finds no one waiting: slow.
        wr.on_read_start(0, both(true));
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0, waiting_device: 0 }), ProgramMode::Slow);
        // (b) The last read did not conflict: W4 is programmed at normal speed.
        wr.on_read_start(0, both(false));
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0, waiting_device: 0 }), ProgramMode::Normal);
        // Tags are per chip: chip 1 saw no read.
        wr.on_read_start(0, both(true));
        assert_eq!(wr.write_mode(WriteView { chip: 1, waiting: 0, waiting_device: 0 }), ProgramMode::Normal);
        // A conflict in the queue wins over the tag.
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 1, waiting_device: 1 }), ProgramMode::Fast);
        // Device scope: another chip's queue counts, and one tag serves every chip.
        let mut wr = Wr::new(2, true);
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0, waiting_device: 2 }), ProgramMode::Fast);
        wr.on_read_start(1, both(true));
        assert_eq!(wr.write_mode(WriteView { chip: 0, waiting: 0, waiting_device: 0 }), ProgramMode::Slow);
    }
}
