//! The reliability-aware latency model: used when process variation (`device.variation.enabled`),
//! LDPC read levels (`device.ldpc.enabled`) or an explicit program mode (`device.program_mode`) is
//! configured; otherwise the simulator uses the fixed model.
//!
//! - **Programs** take `timing.program` x step_ref / step, where the step is the page's mode's
//!   (RR/WR's slow/normal/fast) or, for `native`, the block's own: its detected step under variation
//!   (VIOS §2.2, §4), else step_ref. Every page remembers its mode (2 bits, allocated on the first
//!   non-native program).
//! - **Reads** sense for `timing.read`, or with LDPC for the sensing time of the page's level, and
//!   move the level's share of the page's bytes (nand/ldpc.rs). The level's decode time is charged
//!   by the ECC decoders (ctrl/ecc.rs).
//! - **Erases** take `timing.erase`; under variation each one re-detects its block's speed (at the
//!   erase count the block will have once it is done: the new speed applies to the pages programmed
//!   after it, which cannot start before the erase finishes), and `measured` detection adds a page
//!   read. Detection runs for every block when the run starts, after preconditioning set the erase
//!   counts, and only ever lowers a block's step.

use rand_distr::{Distribution, StandardNormal};

use super::latency::{ArrayCost, BlockWear, FixedLatency, NandCtx, NandOp, NandOpKind, ProgramMode};
use super::ldpc::{LdpcCounters, LdpcReads};
use super::reliability::{BlockStates, Detector, PageModes, StepGrid};
use crate::config::device_model::{Detection, DeviceModel};
use crate::engine::rng::{stream, Rng};
use crate::engine::Time;

/// Counters of the variation model, reported under `ssd.variation` in the JSON output.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VariationReport {
    /// Blocks per detected step at the end of the run: (step in volts x 1000, blocks), largest first.
    pub detected_steps: Vec<(u16, u64)>,
    /// Detections run by erases during the run (the initial one is not counted).
    pub detections: u64,
    /// Detections that lowered a block's step.
    pub steps_lowered: u64,
    /// Blocks whose RBER exceeds the ECC limit even at the smallest step (at the end of the run).
    pub blocks_beyond_ecc: u64,
    /// Pages programmed, and their total array program time (ns).
    pub programs: u64,
    pub program_ns_total: u64,
}

/// What the reliability-aware model counted: each part only when configured.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReliabilityReport {
    pub variation: Option<VariationReport>,
    pub ldpc: Option<LdpcCounters>,
    /// Programs (host and GC) by the mode they ran in, indexed by `ProgramMode` (native, slow,
    /// normal, fast).
    pub programs_per_mode: [u64; 4],
}

/// Per-block speeds under process variation.
#[derive(Debug, Clone)]
struct Speeds {
    detection: Detection,
    states: BlockStates,
    /// Blocks past the ECC limit, by block (to keep the count right as blocks wear further).
    beyond: Vec<bool>,
    rng: Rng,
    report: VariationReport,
}

#[derive(Debug, Clone)]
pub struct ReliableLatency {
    fixed: FixedLatency,
    grid: StepGrid,
    detector: Detector,
    mode_steps: [u16; 4],
    speeds: Option<Speeds>,
    ldpc: Option<LdpcReads>,
    /// The mode each page was programmed in, kept only when reads look it up (LDPC levels on):
    /// otherwise nothing reads it, and setting it costs a cache miss a program.
    modes: PageModes,
    programs_per_mode: [u64; 4],
    /// When each block was erased last (retention age of its pages), kept only when the retention
    /// term is on and LDPC levels follow the RBER.
    opened_at: Vec<Time>,
    /// The RBER model's two powers, remembered (`RberMemo`).
    memo: RberMemo,
    /// A program's array time and ISPP iterations by its step.
    programs: ProgramTable,
}

/// A program's array time and ISPP iterations (`StepGrid::program_ns`, `StepGrid::iterations`)
/// by its step in millivolts, for every step from 0 to the largest a program can get (the grid's,
/// its reference, the modes'), worked out once: each is a 64-bit division, and every program
/// under variation or program modes asked for both. A step beyond the table (none is) is
/// computed.
#[derive(Debug, Clone)]
struct ProgramTable {
    by_step: Vec<(u64, u32)>,
    grid: StepGrid,
    program_ns: u64,
    iterations: u32,
}

impl ProgramTable {
    fn new(fixed: &FixedLatency, grid: StepGrid, mode_steps: &[u16; 4]) -> Self {
        let top = grid.max_mv.max(grid.ref_mv).max(mode_steps.iter().copied().max().unwrap_or(0));
        let (program_ns, iterations) = (fixed.program_ns, fixed.iterations);
        let by_step = (0..=top).map(|mv| (grid.program_ns(program_ns, mv), grid.iterations(iterations, mv))).collect();
        ProgramTable { by_step, grid, program_ns, iterations }
    }

    #[inline]
    fn at(&self, step_mv: u16) -> (u64, u32) {
        match self.by_step.get(step_mv as usize) {
            Some(&p) => p,
            None => (self.grid.program_ns(self.program_ns, step_mv), self.grid.iterations(self.iterations, step_mv)),
        }
    }
}

/// The wear factor by erase count and the step factor by step, computed once each: a read's
/// LDPC level needs its page's RBER, and the two `powf` of `RberModel::rber` were the reliability
/// model's largest cost (docs/performance.md). Same values, same order of operations: results
/// are bit for bit those of `RberModel::rber`.
#[derive(Debug, Clone, Default)]
struct RberMemo {
    /// By erase count; NaN where not computed yet.
    wear: Vec<f64>,
    steps: Vec<(u16, f64)>,
}

impl RberMemo {
    /// Erase counts beyond this are computed each time rather than remembered.
    const MAX_PE: usize = 1 << 20;

    fn rber(&mut self, m: &crate::nand::reliability::RberModel, r_b: f64, pe: u32, step_mv: u16) -> f64 {
        r_b * self.wear(m, pe) * self.step_factor(m, step_mv)
    }

    fn wear(&mut self, m: &crate::nand::reliability::RberModel, pe: u32) -> f64 {
        let i = pe as usize;
        if i >= Self::MAX_PE {
            return m.wear(pe);
        }
        if i >= self.wear.len() {
            self.wear.resize(i + 1, f64::NAN);
        }
        if self.wear[i].is_nan() {
            self.wear[i] = m.wear(pe);
        }
        self.wear[i]
    }

    fn step_factor(&mut self, m: &crate::nand::reliability::RberModel, step_mv: u16) -> f64 {
        if let Some(&(_, f)) = self.steps.iter().find(|(s, _)| *s == step_mv) {
            return f;
        }
        let f = m.step_factor(step_mv);
        if self.steps.len() < 64 {
            self.steps.push((step_mv, f));
        }
        f
    }
}

impl ReliableLatency {
    /// Whether `dm` needs this model rather than the fixed one.
    pub fn wanted(dm: &DeviceModel) -> bool {
        dm.variation.is_some() || dm.ldpc.is_some() || dm.host_mode != ProgramMode::Native || dm.modes_per_write
    }

    /// Under variation, draw every block's r_b from the run's `variation` stream and detect its
    /// step at its current erase count.
    pub fn new(fixed: FixedLatency, dm: &DeviceModel, seed: u64, blocks: usize, pages: usize, wear: &dyn BlockWear) -> Self {
        let model = dm.rber;
        let detector = Detector::new(model, dm.ecc, dm.grid);
        let speeds = dm.variation.map(|detection| {
            let mut rng = stream(seed, "variation");
            let (states, beyond) = BlockStates::new(blocks, &detector, &mut rng, |b| wear.erase_count(b as u32));
            // Detection noise has a stream of its own, so turning it on does not move the r_b draws.
            Speeds { detection, states, beyond, rng: stream(seed, "variation.detect"), report: VariationReport::default() }
        });
        let ldpc = dm.ldpc.as_ref().map(|(levels, from_mode)| LdpcReads::new(levels.clone(), *from_mode));
        let retention = model.retention_coeff > 0.0 && ldpc.as_ref().is_some_and(|l| !l.from_mode);
        ReliableLatency {
            fixed,
            grid: dm.grid,
            detector,
            mode_steps: dm.mode_steps,
            speeds,
            ldpc,
            modes: PageModes::new(pages),
            programs_per_mode: [0; 4],
            opened_at: if retention { vec![0; blocks] } else { Vec::new() },
            memo: RberMemo::default(),
            programs: ProgramTable::new(&fixed, dm.grid, &dm.mode_steps),
        }
    }

    /// The step a page of `block` programmed in `mode` gets (millivolts).
    #[inline]
    fn step_of(&self, block: u32, mode: ProgramMode) -> u16 {
        match mode {
            ProgramMode::Native => match &self.speeds {
                Some(s) => s.states.step_mv(block as usize),
                None => self.grid.ref_mv,
            },
            m => self.mode_steps[m as usize],
        }
    }

    /// The detected step of `block` (millivolts) under variation; `None` without it.
    #[inline]
    pub fn detected_step(&self, block: u32) -> Option<u16> {
        self.speeds.as_ref().map(|s| s.states.step_mv(block as usize))
    }

    fn mode_of(code: u8) -> ProgramMode {
        match code {
            1 => ProgramMode::Slow,
            2 => ProgramMode::Normal,
            3 => ProgramMode::Fast,
            _ => ProgramMode::Native,
        }
    }

    /// The RBER now of a page of `block` programmed in `mode`.
    fn page_rber(&mut self, block: u32, mode: ProgramMode, ctx: &NandCtx) -> f64 {
        let r_b = self.speeds.as_ref().map_or(self.detector.model.mean, |s| s.states.r_b(block as usize));
        let pe = ctx.wear.erase_count(block);
        let step = self.step_of(block, mode);
        let age = self.opened_at.get(block as usize).map_or(0, |&t| ctx.now.saturating_sub(t));
        let model = self.detector.model;
        self.memo.rber(&model, r_b, pe, step) + model.retention(pe, age)
    }

    fn redetect(&mut self, block: u32, pe: u32) {
        let Some(s) = &mut self.speeds else { return };
        let estimate = match s.detection {
            Detection::Oracle => 1.0,
            Detection::Measured { noise } => {
                let z: f64 = StandardNormal.sample(&mut s.rng);
                (1.0 + noise * z).max(0.0)
            }
        };
        let b = block as usize;
        let d = self.detector.detect(s.states.r_b(b), pe, estimate);
        s.report.detections += 1;
        s.report.steps_lowered += s.states.lower(b, d.step_mv) as u64;
        // Whether the block is past its life is a fact of the model, not of the (noisy) estimate.
        s.beyond[b] = if estimate == 1.0 { d.beyond_ecc } else { self.detector.detect(s.states.r_b(b), pe, 1.0).beyond_ecc };
    }

    /// The array time and bus bytes of `op`. Programs, the most frequent, are priced here;
    /// erases and reads out of line (`cost_other`): an erase re-detects its block's speed and a
    /// read may work out its page's RBER, and with them here their registers cost every program
    /// a frame. (Not in line itself: in line, the fixed model's callers grew and slowed.)
    #[inline(never)]
    pub fn cost(&mut self, op: &NandOp, ctx: &NandCtx) -> ArrayCost {
        if op.kind == NandOpKind::Program {
            return self.program_cost(op, ctx);
        }
        self.cost_other(op, ctx)
    }

    #[inline]
    fn program_cost(&mut self, op: &NandOp, ctx: &NandCtx) -> ArrayCost {
        let block = ctx.layout.block_of(op.ppn);
        let (ns, iterations) = self.programs.at(self.step_of(block, op.mode));
        if self.ldpc.is_some() {
            self.modes.set(op.ppn as usize, op.mode as u8);
        }
        self.programs_per_mode[op.mode as usize] += 1;
        if let Some(s) = &mut self.speeds {
            s.report.programs += 1;
            s.report.program_ns_total += ns;
        }
        ArrayCost { array_ns: ns, bytes: op.bytes, level: 0, iterations }
    }

    /// `cost` of an erase or a read.
    #[inline(never)]
    fn cost_other(&mut self, op: &NandOp, ctx: &NandCtx) -> ArrayCost {
        match op.kind {
            NandOpKind::Program => self.program_cost(op, ctx),
            NandOpKind::Erase => {
                let block = ctx.layout.block_of(op.ppn);
                self.redetect(block, ctx.wear.erase_count(block) + 1);
                // Its pages will be programmed anew; a read that looked up a page of it before the
                // erase (and runs after) reads it as native, not in the mode of its old data.
                self.modes.clear(op.ppn as usize, ctx.layout.pages_per_block as usize);
                if let Some(t) = self.opened_at.get_mut(block as usize) {
                    *t = ctx.now; // the erase's start: close enough for an age measured in hours
                }
                let extra = match self.speeds.as_ref().map(|s| s.detection) {
                    Some(Detection::Measured { .. }) => self.fixed.read_ns,
                    _ => 0,
                };
                ArrayCost { array_ns: self.fixed.erase_ns + extra, bytes: 0, level: 0, iterations: 0 }
            }
            NandOpKind::Read => {
                let Some(from_mode) = self.ldpc.as_ref().map(|l| l.from_mode) else {
                    return self.fixed.cost(op);
                };
                // A page never written (ftl.unmapped_reads = "flash") is taken as written before the
                // trace at the block's own speed, in the first block of the plane static allocation
                // put it on: its wear and variation are a real block's.
                let (block, mode) = if op.ppn == super::NONE {
                    (ctx.layout.first_block_of_plane(op.plane), ProgramMode::Native)
                } else {
                    (ctx.layout.block_of(op.ppn), Self::mode_of(self.modes.get(op.ppn as usize)))
                };
                let rber = (!from_mode).then(|| self.page_rber(block, mode, ctx));
                let l = self.ldpc.as_mut().expect("checked above");
                let level = match rber {
                    None => l.level_for_mode(mode),
                    Some(r) => l.level_for_rber(r),
                };
                ArrayCost { array_ns: l.sense_ns(level), bytes: l.levels.transfer_bytes(op.bytes, level), level, iterations: 0 }
            }
        }
    }

    /// Decode time of a page read at `level` (only with LDPC levels).
    pub fn decode_ns(&self, level: u8) -> Option<u64> {
        self.ldpc.as_ref().map(|l| l.levels.decode_ns[level as usize])
    }

    /// Memory held for blocks (variation parameters, detected steps, opening times) and pages
    /// (program modes, with LDPC levels: 2 bits a page, allocated on the first non-native program).
    pub fn state_bytes(&self) -> super::latency::StateBytes {
        let speeds = self.speeds.as_ref().map_or(0, |s| s.states.memory_bytes() + s.beyond.capacity());
        super::latency::StateBytes { per_block: speeds + self.opened_at.capacity() * 8, per_page: self.modes.memory_bytes() }
    }

    pub fn report(&self) -> ReliabilityReport {
        ReliabilityReport {
            variation: self.speeds.as_ref().map(|s| VariationReport {
                detected_steps: s.states.histogram(&self.grid),
                blocks_beyond_ecc: s.beyond.iter().filter(|&&b| b).count() as u64,
                ..s.report.clone()
            }),
            ldpc: self.ldpc.as_ref().map(|l| l.counters().clone()),
            programs_per_mode: self.programs_per_mode,
        }
    }
}

#[cfg(test)]
mod memo_tests {
    #[test]
    fn remembered_powers_give_the_model_s_rber_bit_for_bit() {
        let m = crate::nand::reliability::RberModel::default();
        let mut memo = super::RberMemo::default();
        for pe in [0u32, 1, 7, 500, 3000, 12_000, 40_000] {
            for step in [300u16, 350, 400, 450, 500, 550, 600, 650, 700, 750, 800] {
                for r_b in [1e-6, 3.3e-5, 1.7e-4] {
                    // Twice: computed, then remembered.
                    for _ in 0..2 {
                        assert_eq!(memo.rber(&m, r_b, pe, step).to_bits(), m.rber(r_b, pe, step).to_bits());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The program table gives what the grid's formulas give, at every step a program can get
    /// and beyond it, for grids and mode steps of several shapes.
    #[test]
    fn program_table_agrees_with_the_grid() {
        let grids = [StepGrid::VIOS, StepGrid { min_mv: 100, max_mv: 700, decrement_mv: 50, ref_mv: 800 }, StepGrid { min_mv: 1, max_mv: 3, decrement_mv: 1, ref_mv: 2 }];
        let modes = [[0, 400, 300, 225], [0, 0, 0, 0], [0, 900, 1, 2_000]];
        for grid in grids {
            for mode_steps in modes {
                for (program_ns, iterations) in [(600_000, 10), (1, 1), (u64::MAX / 3, 7)] {
                    let fixed = FixedLatency { read_ns: 0, program_ns, erase_ns: 0, iterations };
                    let t = ProgramTable::new(&fixed, grid, &mode_steps);
                    let top = *mode_steps.iter().chain([&grid.max_mv, &grid.ref_mv]).max().unwrap();
                    assert_eq!(t.by_step.len(), top as usize + 1);
                    for mv in (0..=top + 2).chain([u16::MAX]) {
                        assert_eq!(t.at(mv), (grid.program_ns(program_ns, mv), grid.iterations(iterations, mv)), "grid {grid:?} modes {mode_steps:?} step {mv}");
                    }
                }
            }
        }
    }
}
