//! The reliability side of the NAND model: how error-prone each block is, which ISPP step size it
//! can be programmed with, and how many LDPC sensing levels a read of its pages needs.
//!
//! Why a model at all: VIOS sends writes to blocks that program faster because process variation
//! leaves them with fewer raw bit errors; RR/WR trades program speed against read sensing. Both need
//! blocks that differ and pages that remember how they were written. Every constant below is a
//! config key (`device.variation.*`, `device.ispp.*`, `device.ldpc.*`; docs/device.md gives each
//! one's source). What the papers give is tagged with the paper; the rest is [INFER].
//!
//! **Variation** (VIOS §4: "The BER growth rate that follows Bounded Gaussian distribution is used to
//! simulate the process variation ... μ and σ ... 3.7×10⁻⁴ and 9×10⁻⁵"): each block draws `r_b` once
//! per run, from a Gaussian truncated at ±`bound_sd` σ, in block order from the run's `variation`
//! stream. `r_b` is the block's raw bit error rate at its rated life, programmed at the reference step.
//!
//! **RBER law** (the multiplicative form of the spec, ../shared/spec/baselines.md §9c option A;
//! constants [INFER], calibrated so a median block supports the largest step when fresh and about
//! 0.33 V at rated life):
//!
//! ```text
//! RBER(b, N, ΔVp, t) = r_b · ((N + N₀) / (N_rated + N₀))^k · (ΔVp / ΔVp_ref)^γ  +  c_r · √N · ln(1 + t / t₀)
//! ```
//!
//! with N the block's P/E cycles, ΔVp the ISPP step its page was programmed with and t the time since
//! programming (the retention term; c_r = 0, off, by default: no paper states a retention time). The
//! spec's other option (a threshold-voltage distribution model) meets the same two end points but
//! puts every block at the largest step up to 6K P/E, leaving the 6K wear stage without variation, so
//! it is not offered.
//!
//! **Speed detection** (VIOS §2.2, by reading data back and counting errors; spec §9d): the detected
//! step of a block is the largest grid step with `(1 + margin) · RBER ≤ ecc_limit`; a block whose
//! RBER exceeds the limit even at the smallest step gets the smallest step and is counted. Detection
//! only ever lowers a block's step (VIOS §3.1: blocks move in the tree "when ... its ΔVp is
//! decreased").
//!
//! **LDPC sensing levels** (RR/WR Eq. 1 and Table I): a read senses with the fewest levels whose
//! correction capability covers the page's RBER at read time.

use rand_distr::{Distribution, StandardNormal};

use crate::engine::rng::Rng;

/// The ISPP step sizes a drive offers, in millivolts (integers, so program times are exact and a
/// run is byte-identical everywhere).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StepGrid {
    /// Smallest step (slowest program), VIOS's 0.30 V.
    pub min_mv: u16,
    /// Largest step (fastest program), VIOS §4: 0.6.
    pub max_mv: u16,
    /// Spacing of the grid and of one detection step down, VIOS §4: 0.03.
    pub decrement_mv: u16,
    /// The step at which `device.timing.program` applies (VIOS §4: 600 us at 0.3).
    pub ref_mv: u16,
}

impl StepGrid {
    /// VIOS's grid: 0.30 to 0.60 V in 0.03 V steps, 600 us at 0.30.
    pub const VIOS: StepGrid = StepGrid { min_mv: 300, max_mv: 600, decrement_mv: 30, ref_mv: 300 };

    /// The grid's steps, largest (fastest) first.
    pub fn steps_desc(&self) -> impl Iterator<Item = u16> + '_ {
        let n = (self.max_mv - self.min_mv) / self.decrement_mv.max(1);
        (0..=n).map(move |i| self.max_mv - i * self.decrement_mv)
    }

    /// Array program time at step `step_mv`: t_ref · ΔVp_ref / ΔVp (VIOS §2.2: a larger step needs
    /// fewer ISPP pulses), rounded to the nearest nanosecond.
    pub fn program_ns(&self, t_ref_ns: u64, step_mv: u16) -> u64 {
        let s = step_mv.max(1) as u64;
        // Called on every program: a 64-bit division when the product fits (any real program
        // time does), the same value as the 128-bit one it falls back to.
        match (t_ref_ns.checked_mul(self.ref_mv as u64)).and_then(|p| p.checked_add(s / 2)) {
            Some(n) => n / s,
            None => ((t_ref_ns as u128 * self.ref_mv as u128 + s as u128 / 2) / s as u128) as u64,
        }
    }

    /// The number of ISPP iterations at `step_mv` when `at_ref` are needed at the reference step:
    /// ceil(at_ref · ΔVp_ref / ΔVp), at least 1. Their boundaries are where a program can pause.
    pub fn iterations(&self, at_ref: u32, step_mv: u16) -> u32 {
        let s = step_mv.max(1) as u64;
        ((at_ref as u64 * self.ref_mv as u64).div_ceil(s)).max(1) as u32
    }
}

/// The RBER law and the variation distribution (see the module documentation for the formula).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RberModel {
    /// Mean of r_b (VIOS §4: 3.7e-4).
    pub mean: f64,
    /// Standard deviation of r_b (VIOS §4: 9e-5).
    pub sd: f64,
    /// The Gaussian is truncated at mean ± bound_sd · sd ("bounded"; the bound is [INFER]: 3).
    pub bound_sd: f64,
    /// N_rated: the P/E cycles at which r_b is the block's RBER (15,000 [INFER]: VIOS's last wear stage).
    pub rated_pe: f64,
    /// N₀: keeps a fresh block's RBER above zero (1,500 [INFER]).
    pub wear_offset: f64,
    /// k: RBER grows as the k-th power of wear (2 [INFER]; the spec's range 1.5-2.5).
    pub wear_exponent: f64,
    /// γ: RBER grows as the γ-th power of the step (4 [INFER]; the spec's range 2-4).
    pub step_exponent: f64,
    /// c_r of the retention term (0: off).
    pub retention_coeff: f64,
    /// t₀ of the retention term, in ns (1 h).
    pub retention_t0_ns: f64,
    /// ΔVp_ref in mV: the step r_b is given at.
    pub ref_mv: f64,
}

impl Default for RberModel {
    fn default() -> Self {
        RberModel {
            mean: 3.7e-4,
            sd: 9e-5,
            bound_sd: 3.0,
            rated_pe: 15_000.0,
            wear_offset: 1_500.0,
            wear_exponent: 2.0,
            step_exponent: 4.0,
            retention_coeff: 0.0,
            retention_t0_ns: 3.6e12,
            ref_mv: 300.0,
        }
    }
}

impl RberModel {
    /// One block's r_b: a Gaussian draw, redrawn until it falls within the bounds (rejection
    /// sampling keeps the shape of the Gaussian inside them). `sd = 0` gives every block the mean.
    pub fn sample(&self, rng: &mut Rng) -> f64 {
        if self.sd <= 0.0 {
            return self.mean;
        }
        let half = self.bound_sd * self.sd;
        loop {
            let z: f64 = StandardNormal.sample(rng);
            let r = self.mean + self.sd * z;
            if (r - self.mean).abs() <= half && r > 0.0 {
                return r;
            }
        }
    }

    /// The wear factor ((N + N₀) / (N_rated + N₀))^k.
    pub fn wear(&self, pe: u32) -> f64 {
        ((pe as f64 + self.wear_offset) / (self.rated_pe + self.wear_offset)).powf(self.wear_exponent)
    }

    /// The step factor (ΔVp / step_ref)^γ.
    pub fn step_factor(&self, step_mv: u16) -> f64 {
        (step_mv as f64 / self.ref_mv).powf(self.step_exponent)
    }

    /// RBER right after programming a block with r_b = `r_b` at `pe` cycles with step `step_mv`.
    pub fn rber(&self, r_b: f64, pe: u32, step_mv: u16) -> f64 {
        r_b * self.wear(pe) * self.step_factor(step_mv)
    }

    /// The retention term after `age_ns` nanoseconds at `pe` cycles.
    pub fn retention(&self, pe: u32, age_ns: u64) -> f64 {
        if self.retention_coeff == 0.0 || age_ns == 0 {
            return 0.0;
        }
        self.retention_coeff * (pe as f64).sqrt() * (age_ns as f64 / self.retention_t0_ns).ln_1p()
    }
}

/// What the ECC can correct, for speed detection (VIOS §2.2: a step may not exceed "the capability
/// of the deployed ECC"). Both values [INFER]: no paper gives them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EccLimit {
    /// The largest RBER the decoder corrects (7.5e-4).
    pub limit: f64,
    /// Safety margin of detection: a step is allowed while (1 + margin) · RBER ≤ limit (0.15).
    pub margin: f64,
}

impl Default for EccLimit {
    fn default() -> Self {
        EccLimit { limit: 7.5e-4, margin: 0.15 }
    }
}

/// The outcome of detecting a block's program speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Detected {
    /// The largest step the block supports (the grid's smallest when none does).
    pub step_mv: u16,
    /// Even the smallest step exceeds the ECC limit: the block is past its life.
    pub beyond_ecc: bool,
}

/// Speed detection: the largest grid step at which a block of RBER parameter `r_b` at `pe` cycles
/// stays within the ECC limit with its margin. The step factors (ΔVp / step_ref)^γ are computed
/// once: detection runs for every block at the start of a run and at every erase.
#[derive(Clone, Debug, PartialEq)]
pub struct Detector {
    pub model: RberModel,
    pub ecc: EccLimit,
    pub grid: StepGrid,
    /// (step, (step / step_ref)^γ), largest step first.
    factors: Vec<(u16, f64)>,
    /// Per step of `factors`: the largest `r_b · wear` that passes the ECC test at that step with
    /// an exact estimate (`passes(rw, f, 1.0)`), found by bisection over the floating-point
    /// numbers; negative when none passes. The test is monotone in `rw`, so it holds exactly
    /// when `rw <= threshold`: detection with `estimate = 1.0` (every block at the start of a
    /// run) compares instead of multiplying. Kept only
    /// when they do not fall from step to step (the step factors do not grow as the steps
    /// fall: γ ≥ 0, every real model), so that the first step passed is the number of
    /// thresholds below `rw`; empty otherwise, and detection runs the test.
    thresholds: Vec<f64>,
}

impl Detector {
    pub fn new(model: RberModel, ecc: EccLimit, grid: StepGrid) -> Self {
        let factors: Vec<(u16, f64)> = grid.steps_desc().map(|s| (s, (s as f64 / model.ref_mv).powf(model.step_exponent))).collect();
        // The test is monotone in `rw` while its other factors are finite and not negative
        // (always, for a real model: an infinite one could make 0 x inf a NaN that fails where
        // larger values pass); otherwise no thresholds, and detection runs the test.
        let c = 1.0 + ecc.margin;
        let monotone = c.is_finite() && c >= 0.0 && factors.iter().all(|&(_, f)| f.is_finite() && f >= 0.0);
        let mut thresholds: Vec<f64> = if monotone { factors.iter().map(|&(_, f)| largest_passing(|rw| passes(&ecc, rw, f, 1.0))).collect() } else { Vec::new() };
        if !thresholds.windows(2).all(|w| w[0] <= w[1]) {
            thresholds.clear();
        }
        Detector { model, ecc, grid, factors, thresholds }
    }

    /// `estimate` scales the RBER the detector sees (1.0 = an exact oracle).
    pub fn detect(&self, r_b: f64, pe: u32, estimate: f64) -> Detected {
        self.detect_worn(r_b, self.model.wear(pe), estimate)
    }

    /// `detect` with the wear factor of the block's erase count already computed
    /// (`RberModel::wear`): detecting every block of a drive at the start computes it once per
    /// erase count instead of once per block.
    pub fn detect_worn(&self, r_b: f64, wear: f64, estimate: f64) -> Detected {
        // Evaluated as RberModel::rber does, (r_b x wear) x step factor, so results do not depend
        // on which of the two computed them.
        let rw = r_b * wear;
        if estimate == 1.0 && rw >= 0.0 && !self.thresholds.is_empty() {
            return self.detect_exact(rw);
        }
        self.detect_by_test(rw, estimate)
    }

    /// Detection by the ECC test itself, step by step from the largest.
    fn detect_by_test(&self, rw: f64, estimate: f64) -> Detected {
        for &(step, f) in &self.factors {
            if passes(&self.ecc, rw, f, estimate) {
                return Detected { step_mv: step, beyond_ecc: false };
            }
        }
        Detected { step_mv: self.grid.min_mv, beyond_ecc: true }
    }

    /// `detect_by_test(rw, 1.0)` by the precomputed thresholds (`rw >= 0`, thresholds not
    /// empty): the same answer, as the test holds exactly when `rw <= threshold`, and with
    /// thresholds that do not fall the first step passed is the number of thresholds below
    /// `rw`, counted without a branch (after one test for the largest step, which every block of
    /// a fresh drive passes).
    #[inline]
    fn detect_exact(&self, rw: f64) -> Detected {
        let i = if rw <= self.thresholds[0] {
            // The largest step passes: every block of a fresh drive, a branch that then never misses.
            0
        } else {
            self.thresholds.iter().map(|&t| usize::from(t < rw)).sum::<usize>()
        };
        match self.factors.get(i) {
            Some(&(step, _)) => Detected { step_mv: step, beyond_ecc: false },
            None => Detected { step_mv: self.grid.min_mv, beyond_ecc: true },
        }
    }
}

/// The ECC test of detection: a block whose `r_b · wear` is `rw`, at a step whose factor is `f`,
/// seen through `estimate`, is within the ECC limit with its margin.
#[inline]
fn passes(ecc: &EccLimit, rw: f64, f: f64, estimate: f64) -> bool {
    (1.0 + ecc.margin) * (rw * f) * estimate <= ecc.limit
}

/// The largest non-negative `x` with `ok(x)`, for `ok` monotone (true up to some point, false
/// after): a bisection over the bit patterns of the non-negative doubles, which are ordered as
/// their values. -1.0 when even 0 fails; infinity when infinity passes.
fn largest_passing(ok: impl Fn(f64) -> bool) -> f64 {
    if !ok(0.0) {
        return -1.0;
    }
    if ok(f64::INFINITY) {
        return f64::INFINITY;
    }
    // ok(lo) holds, ok(hi) does not.
    let (mut lo, mut hi) = (0u64, f64::INFINITY.to_bits());
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(f64::from_bits(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    f64::from_bits(lo)
}

/// LDPC read levels (RR/WR Eq. 1 and Table I): level ℓ corrects pages whose RBER is at most
/// `thresholds[ℓ]`; more levels sense longer and move more soft-information bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct LdpcLevels {
    /// Increasing RBER a level corrects ([INFER]: 7.5e-5, 2.37e-4, 7.5e-4; the top one is the ECC
    /// limit and each lower one is a factor 0.75^4 below, one RR/WR program notch at γ = 4).
    pub thresholds: Vec<f64>,
    /// Array sensing time per level, ns (RR/WR Table I: 30, 90, 210 us).
    pub sense_ns: Vec<u64>,
    /// Data-out bytes per level as a multiple of the page, in percent (RR/WR Table I: 40/80/100 us
    /// for a page that moves in 40 us: 100, 200, 250).
    pub transfer_pct: Vec<u32>,
    /// Decode time per level, ns (RR/WR Table I: 8 us each).
    pub decode_ns: Vec<u64>,
}

impl LdpcLevels {
    /// RR/WR's Table I.
    pub fn rrwr() -> Self {
        LdpcLevels {
            thresholds: vec![7.508e-5, 2.373e-4, 7.5e-4],
            sense_ns: vec![30_000, 90_000, 210_000],
            transfer_pct: vec![100, 200, 250],
            decode_ns: vec![8_000, 8_000, 8_000],
        }
    }

    /// The fewest levels that correct `rber`, and whether even the last one does not (then the read
    /// uses the last level and is counted as uncorrectable).
    pub fn level_for(&self, rber: f64) -> (u8, bool) {
        match self.thresholds.iter().position(|&t| rber <= t) {
            Some(l) => (l as u8, false),
            None => (self.thresholds.len().saturating_sub(1) as u8, true),
        }
    }

    /// Bytes moved over the channel by a read of `bytes` page bytes at `level`.
    pub fn transfer_bytes(&self, bytes: u32, level: u8) -> u32 {
        let pct = self.transfer_pct[level as usize] as u64;
        ((bytes as u64 * pct).div_ceil(100)) as u32
    }
}

/// Per-block reliability state: r_b and the detected step. Dense vectors (6 bytes a block: 1.5 MiB
/// for the 262,144 blocks of a 256 GiB drive with 1 MiB blocks), filled once at the start of a run.
#[derive(Clone, Debug, Default)]
pub struct BlockStates {
    r_b: Vec<f32>,
    step_mv: Vec<u16>,
}

impl BlockStates {
    /// Bytes held: an f32 and a u16 per block.
    pub fn memory_bytes(&self) -> usize {
        self.r_b.capacity() * 4 + self.step_mv.capacity() * 2
    }

    /// Draw every block's r_b in block order from `rng` and detect its step at its erase count.
    /// Also returns, per block, whether it is past the ECC limit even at the smallest step.
    pub fn new(blocks: usize, d: &Detector, rng: &mut Rng, erase_count: impl Fn(usize) -> u32) -> (Self, Vec<bool>) {
        let mut s = BlockStates { r_b: Vec::with_capacity(blocks), step_mv: Vec::with_capacity(blocks) };
        let mut beyond = Vec::with_capacity(blocks);
        // Neighbouring blocks mostly share their erase count (all 0 on a fresh drive).
        let mut worn: Option<(u32, f64)> = None;
        for b in 0..blocks {
            let r = d.model.sample(rng);
            let pe = erase_count(b);
            let wear = match worn {
                Some((p, w)) if p == pe => w,
                _ => {
                    let w = d.model.wear(pe);
                    worn = Some((pe, w));
                    w
                }
            };
            let det = d.detect_worn(r, wear, 1.0);
            beyond.push(det.beyond_ecc);
            s.r_b.push(r as f32);
            s.step_mv.push(det.step_mv);
        }
        (s, beyond)
    }

    pub fn r_b(&self, block: usize) -> f64 {
        self.r_b[block] as f64
    }

    pub fn step_mv(&self, block: usize) -> u16 {
        self.step_mv[block]
    }

    /// Lower a block's step to `detected` if that is smaller (detection never raises it); returns
    /// whether the step changed.
    pub fn lower(&mut self, block: usize, detected: u16) -> bool {
        let s = &mut self.step_mv[block];
        if detected < *s {
            *s = detected;
            true
        } else {
            false
        }
    }

    /// Number of blocks at each grid step, largest step first: (step_mv, blocks).
    pub fn histogram(&self, grid: &StepGrid) -> Vec<(u16, u64)> {
        let mut h: Vec<(u16, u64)> = grid.steps_desc().map(|s| (s, 0)).collect();
        // Counted by step value first (one add per block: a search of the grid per block was
        // 6% of a short run on the VIOS drive), then taken at the grid's steps: a value counts
        // at the first entry equal to it, as a search would find it.
        let mut by_value = vec![0u64; grid.max_mv.max(grid.min_mv) as usize + 1];
        for &s in &self.step_mv {
            if let Some(n) = by_value.get_mut(s as usize) {
                *n += 1;
            }
        }
        for e in &mut h {
            e.1 = by_value.get_mut(e.0 as usize).map_or(0, std::mem::take);
        }
        h
    }
}

/// Per-page program modes, 2 bits a page, allocated on the first page programmed with a mode other
/// than the default (so drives that never choose a mode pay nothing): 16 MiB for the 64 Mi pages of
/// a 256 GiB drive with 4 KiB pages.
#[derive(Clone, Debug, Default)]
pub struct PageModes {
    bits: Vec<u64>,
    pages: usize,
}

impl PageModes {
    pub fn new(pages: usize) -> Self {
        PageModes { bits: Vec::new(), pages }
    }

    /// The mode code (0-3) page `ppn` was last programmed with; 0 until set.
    #[inline]
    pub fn get(&self, ppn: usize) -> u8 {
        match self.bits.get(ppn / 32) {
            Some(w) => ((w >> ((ppn % 32) * 2)) & 3) as u8,
            None => 0,
        }
    }

    #[inline]
    pub fn set(&mut self, ppn: usize, mode: u8) {
        if self.bits.is_empty() {
            if mode == 0 {
                return;
            }
            self.bits = crate::mem::zeroed(self.pages.div_ceil(32));
        }
        let w = &mut self.bits[ppn / 32];
        let sh = (ppn % 32) * 2;
        *w = (*w & !(3 << sh)) | (((mode & 3) as u64) << sh);
    }

    /// Bytes held (0 until a page is programmed in a non-default mode).
    pub fn memory_bytes(&self) -> usize {
        self.bits.capacity() * 8
    }

    /// Reset pages `first .. first + n` to the default mode (an erased block).
    pub fn clear(&mut self, first: usize, n: usize) {
        if self.bits.is_empty() {
            return;
        }
        for p in first..first + n {
            self.bits[p / 32] &= !(3 << ((p % 32) * 2));
        }
    }

    /// Bytes held (0 until the first non-default mode).
    pub fn heap_bytes(&self) -> usize {
        self.bits.capacity() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::stream;

    #[test]
    fn program_time_is_inverse_in_the_step() {
        let g = StepGrid::VIOS;
        let t: Vec<u64> = g.steps_desc().map(|s| g.program_ns(600_000, s)).collect();
        // 600 us · 0.3 / ΔVp for ΔVp = 0.60, 0.57, ..., 0.30 (rounded to the nearest ns).
        assert_eq!(t, vec![300_000, 315_789, 333_333, 352_941, 375_000, 400_000, 428_571, 461_538, 500_000, 545_455, 600_000]);
        // RR/WR Table I's three speeds are the steps 0.225, 0.30 and 0.40 V.
        assert_eq!([225, 300, 400].map(|s| g.program_ns(600_000, s)), [800_000, 600_000, 450_000]);
        assert_eq!([300, 600, 225].map(|s| g.iterations(10, s)), [10, 5, 14]);
    }

    #[test]
    fn program_time_past_64_bits_takes_the_wide_path_and_agrees() {
        let g = StepGrid::VIOS;
        let wide = |t: u64, s: u16| ((t as u128 * g.ref_mv as u128 + s as u128 / 2) / s as u128) as u64;
        for t in [0, 1, 599_999, 600_000, u64::MAX / 300, u64::MAX / 300 + 1, u64::MAX / 2, u64::MAX] {
            for s in [1, 225, 299, 300, 301, 600] {
                assert_eq!(g.program_ns(t, s), wide(t, s), "t={t} step={s}");
            }
        }
    }

    /// The calibration targets: a median block (r_b = 3.7e-4) supports 0.60 V fresh and 0.30-0.36 V
    /// at 15K P/E; the bounds of the distribution at each wear stage (values from the formula by hand:
    /// the step is the largest s with 1.15 · r_b · w(N) · (s/0.3)^4 ≤ 7.5e-4).
    #[test]
    fn calibration_targets_hold() {
        let (m, e, g) = (RberModel::default(), EccLimit::default(), StepGrid::VIOS);
        let lo = m.mean - 3.0 * m.sd;
        let hi = m.mean + 3.0 * m.sd;
        let d = Detector::new(m, e, g);
        let at = |r: f64, pe: u32| d.detect(r, pe, 1.0).step_mv;
        assert_eq!(at(m.mean, 0), 600);
        assert!((300..=360).contains(&at(m.mean, 15_000)));
        assert_eq!(at(m.mean, 15_000), 330);
        // median / best / worst block per wear stage
        assert_eq!([6_000, 9_000, 12_000, 15_000].map(|n| at(m.mean, n)), [510, 420, 360, 330]);
        assert_eq!([6_000, 9_000, 12_000, 15_000].map(|n| at(lo, n)), [600, 600, 510, 450]);
        assert_eq!([6_000, 9_000, 12_000, 15_000].map(|n| at(hi, n)), [420, 360, 330, 300]);
        // The worst block is still correctable at 15K, and past it a little later.
        assert!(!d.detect(hi, 15_000, 1.0).beyond_ecc);
        assert!(d.detect(hi, 15_500, 1.0).beyond_ecc);
    }

    /// Detection by the thresholds gives the step the ECC test itself gives, at the thresholds,
    /// one value either side of each, and across the range, for the default model and for grids
    /// and exponents whose thresholds do not ascend (γ < 0) or where no step ever passes.
    #[test]
    fn detection_by_thresholds_is_detection_by_the_test() {
        use rand::{Rng, SeedableRng};
        let base = RberModel::default();
        let models = [
            (base, EccLimit::default(), StepGrid::VIOS),
            (RberModel { step_exponent: 2.5, ..base }, EccLimit { limit: 1e-3, margin: 0.3 }, StepGrid { min_mv: 250, max_mv: 700, decrement_mv: 50, ref_mv: 300 }),
            (RberModel { step_exponent: -1.5, ..base }, EccLimit::default(), StepGrid::VIOS),
            (base, EccLimit { limit: -1.0, margin: 0.15 }, StepGrid::VIOS),
            (RberModel { step_exponent: 0.0, ..base }, EccLimit::default(), StepGrid { min_mv: 300, max_mv: 310, decrement_mv: 0, ref_mv: 300 }),
        ];
        let mut rng = rand_pcg::Pcg64Mcg::seed_from_u64(11);
        for (i, (m, e, g)) in models.into_iter().enumerate() {
            let d = Detector::new(m, e, g);
            // Thresholds that fall (γ < 0) are not kept: detection then runs the test.
            assert_eq!(d.thresholds.is_empty(), m.step_exponent < 0.0, "model {i}");
            if d.thresholds.is_empty() {
                continue;
            }
            let mut xs = vec![0.0, -0.0, f64::MIN_POSITIVE, 1e-300, 1.0, 1e300, f64::MAX];
            for &t in &d.thresholds {
                if t.is_finite() && t > 0.0 {
                    xs.extend([t, t.next_up(), t.next_down()]);
                }
            }
            for _ in 0..200_000 {
                xs.push(rng.random_range(0.0..4e-3));
                xs.push(10f64.powf(rng.random_range(-12.0..2.0)));
            }
            for x in xs {
                assert_eq!(d.detect_exact(x), d.detect_by_test(x, 1.0), "model {i}, rw = {x:e}");
            }
        }
        // The default model's thresholds sit between its steps: every step is reached.
        let d = Detector::new(base, EccLimit::default(), StepGrid::VIOS);
        let steps: std::collections::BTreeSet<u16> = (0..2_000).map(|k| d.detect_worn(k as f64 * 1e-6, 1.0, 1.0).step_mv).collect();
        assert_eq!(steps.len(), 11);
    }

    /// `detect_worn`, whichever way it takes, answers as the test: with and without thresholds
    /// (falling ones, a margin below -1, infinite factors that make 0 x inf a NaN, which fails
    /// where larger values pass), with a noisy estimate beside the thresholds, and for a NaN.
    #[test]
    fn detection_answers_as_the_test_on_every_path() {
        let base = RberModel::default();
        let models = [
            (base, EccLimit::default()),
            (RberModel { step_exponent: -1.5, ..base }, EccLimit::default()),
            (base, EccLimit { limit: 7.5e-4, margin: -2.0 }),
            (base, EccLimit { limit: f64::INFINITY, margin: f64::INFINITY }),
            (RberModel { step_exponent: 2000.0, ..base }, EccLimit { limit: f64::INFINITY, margin: 0.15 }),
        ];
        for (i, (m, e)) in models.into_iter().enumerate() {
            let d = Detector::new(m, e, StepGrid::VIOS);
            assert_eq!(d.thresholds.is_empty(), i > 0, "model {i}");
            let mut xs = vec![0.0, 1e-6, 3.7e-4, 1e-3, 1.0, f64::NAN];
            for &t in &Detector::new(base, EccLimit::default(), StepGrid::VIOS).thresholds {
                xs.extend([t, t.next_up(), t.next_down()]);
            }
            for x in xs {
                for est in [1.0, 0.9, 1.1] {
                    assert_eq!(d.detect_worn(x, 1.0, est), d.detect_by_test(x, est), "model {i}, rw = {x:e}, estimate {est}");
                }
            }
        }
    }

    #[test]
    fn histogram_counts_each_grid_step_once() {
        let g = StepGrid::VIOS;
        let s = BlockStates { r_b: vec![0.0; 6], step_mv: vec![600, 600, 330, 300, 301, 999] };
        let h = s.histogram(&g);
        assert_eq!(h.len(), 11);
        assert_eq!(h[0], (600, 2));
        assert_eq!(h[9], (330, 1));
        assert_eq!(h[10], (300, 1));
        assert_eq!(h.iter().map(|e| e.1).sum::<u64>(), 4, "off-grid steps are not counted");
        // A grid that names a step twice counts it at its first entry.
        let flat = StepGrid { min_mv: 300, max_mv: 310, decrement_mv: 0, ref_mv: 300 };
        let s = BlockStates { r_b: vec![0.0; 2], step_mv: vec![310, 310] };
        assert_eq!(s.histogram(&flat).iter().map(|e| e.1).collect::<Vec<_>>()[..2], [2, 0]);
    }

    #[test]
    fn samples_are_bounded_gaussian_and_reproducible() {
        let m = RberModel::default();
        let mut rng = stream(7, "variation");
        let xs: Vec<f64> = (0..20_000).map(|_| m.sample(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64).sqrt();
        assert!((mean - 3.7e-4).abs() < 2e-6, "{mean}");
        // A Gaussian truncated at ±3σ has sd 0.9866σ.
        assert!((sd / 9e-5 - 0.9866).abs() < 0.02, "{sd}");
        assert!(xs.iter().all(|&x| (1.0e-4..=6.4e-4).contains(&x)));
        let again: Vec<f64> = { let mut r = stream(7, "variation"); (0..5).map(|_| m.sample(&mut r)).collect() };
        assert_eq!(&xs[..5], &again[..]);
    }

    #[test]
    fn detection_only_lowers_and_counts_blocks_per_step() {
        let (m, e, g) = (RberModel::default(), EccLimit::default(), StepGrid::VIOS);
        let mut rng = stream(1, "variation");
        let (mut s, beyond) = BlockStates::new(1000, &Detector::new(m, e, g), &mut rng, |_| 9_000);
        assert!(beyond.iter().all(|&b| !b));
        let h = s.histogram(&g);
        assert_eq!(h.iter().map(|e| e.1).sum::<u64>(), 1000);
        assert!(h.iter().filter(|e| e.1 > 0).count() >= 4, "9K P/E spreads the blocks over several steps: {h:?}");
        let before = s.step_mv(0);
        assert!(!s.lower(0, before + 30));
        assert!(s.lower(0, before - 30));
        assert_eq!(s.step_mv(0), before - 30);
    }

    #[test]
    fn ldpc_levels_follow_rber() {
        let l = LdpcLevels::rrwr();
        assert_eq!(l.level_for(1e-5), (0, false));
        assert_eq!(l.level_for(7.508e-5), (0, false));
        assert_eq!(l.level_for(1e-4), (1, false));
        assert_eq!(l.level_for(5e-4), (2, false));
        assert_eq!(l.level_for(1e-3), (2, true));
        assert_eq!([0, 1, 2].map(|lv| l.transfer_bytes(4096, lv)), [4096, 8192, 10240]);
    }

    #[test]
    fn retention_is_off_by_default_and_grows_with_age() {
        let mut m = RberModel::default();
        assert_eq!(m.retention(15_000, 1 << 50), 0.0);
        m.retention_coeff = 8.8e-8;
        let day = m.retention(15_000, 86_400_000_000_000);
        let year = m.retention(15_000, 365 * 86_400_000_000_000);
        assert!(day > 0.0 && year > day);
        assert!((year - 9.78e-5).abs() < 1e-6, "{year}");
    }

    #[test]
    fn page_modes_are_lazy_and_packed() {
        let mut p = PageModes::new(1 << 26); // 256 GiB of 4 KiB pages
        p.set(5, 0);
        assert_eq!(p.heap_bytes(), 0);
        p.set(5, 2);
        p.set(6, 3);
        p.set(5, 1);
        assert_eq!((p.get(5), p.get(6), p.get(7)), (1, 3, 0));
        p.set(40, 2);
        p.clear(0, 32);
        assert_eq!((p.get(5), p.get(6), p.get(40)), (0, 0, 2));
        assert_eq!(p.heap_bytes(), 16 << 20);
    }
}
