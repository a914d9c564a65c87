//! LDPC soft sensing on reads (RR/WR, Li et al.: Eq. 1-3 and Table I): a page whose raw bit error
//! rate is higher needs more reference voltages to be decoded, so its read senses longer, moves
//! more soft-information bytes over the channel and may decode longer. `device.ldpc.*`.
//!
//! Two ways to choose a read's level (`device.ldpc.level_from`):
//! - `program_mode`: RR/WR's pairing (§II-B): a page programmed slowly reads at the first level,
//!   normally at the second, fast at the third (Table I's fast/normal/slow read columns). Pages
//!   programmed at the block's own speed read as `normal`.
//! - `rber`: the fewest levels whose threshold covers the page's RBER at read time, from the
//!   block's variation parameter, its wear, the step the page was programmed with and its age
//!   (nand/reliability.rs).

use super::latency::ProgramMode;
use super::reliability::LdpcLevels;

/// Reads per level, and reads no level could correct.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LdpcCounters {
    pub reads_per_level: Vec<u64>,
    pub uncorrectable: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LdpcReads {
    pub levels: LdpcLevels,
    /// Choose the level from the page's program mode (true) or from its RBER (false).
    pub from_mode: bool,
    counters: LdpcCounters,
}

impl LdpcReads {
    pub fn new(levels: LdpcLevels, from_mode: bool) -> Self {
        let n = levels.thresholds.len();
        LdpcReads { levels, from_mode, counters: LdpcCounters { reads_per_level: vec![0; n], uncorrectable: 0 } }
    }

    /// The level of a read of a page programmed in `mode` (RR/WR's pairing), clamped to the levels
    /// configured.
    pub fn level_for_mode(&mut self, mode: ProgramMode) -> u8 {
        let l = match mode {
            ProgramMode::Slow => 0,
            ProgramMode::Native | ProgramMode::Normal => 1,
            ProgramMode::Fast => 2,
        };
        let l = l.min(self.levels.thresholds.len() as u8 - 1);
        self.counters.reads_per_level[l as usize] += 1;
        l
    }

    /// The level of a read of a page whose RBER is `rber` now.
    pub fn level_for_rber(&mut self, rber: f64) -> u8 {
        let (l, uncorrectable) = self.levels.level_for(rber);
        self.counters.reads_per_level[l as usize] += 1;
        self.counters.uncorrectable += uncorrectable as u64;
        l
    }

    /// Array sensing time of `level`, ns.
    #[inline]
    pub fn sense_ns(&self, level: u8) -> u64 {
        self.levels.sense_ns[level as usize]
    }

    pub fn counters(&self) -> &LdpcCounters {
        &self.counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_mode_picks_rrwrs_pairing_and_counts() {
        let mut l = LdpcReads::new(LdpcLevels::rrwr(), true);
        assert_eq!([ProgramMode::Slow, ProgramMode::Normal, ProgramMode::Fast, ProgramMode::Native].map(|m| l.level_for_mode(m)), [0, 1, 2, 1]);
        assert_eq!(l.counters().reads_per_level, vec![1, 2, 1]);
        assert_eq!(l.level_for_rber(1e-3), 2);
        assert_eq!(l.counters().uncorrectable, 1);
        assert_eq!([0, 1, 2].map(|x| l.sense_ns(x)), [30_000, 90_000, 210_000]);
    }
}
