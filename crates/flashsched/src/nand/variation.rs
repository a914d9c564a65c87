//! The variation-aware latency model (`device.variation.enabled = true`): every block has its own
//! RBER parameter and programs at the largest ISPP step its RBER allows, so blocks differ in program
//! time (VIOS §2.2, §4). Reads and erases take the fixed times; a `measured` speed detection adds
//! one page read to each erase.
//!
//! Detection runs for every block when the run starts (after preconditioning has set the erase
//! counts) and again with each erase, at the erase count the block will have once the erase is
//! done: the new speed applies to the pages programmed after it, which cannot start before the
//! erase finishes. Detection only ever lowers a block's step.

use rand_distr::{Distribution, StandardNormal};

use super::latency::{ArrayCost, BlockWear, FixedLatency, NandCtx, NandOp, NandOpKind};
use super::reliability::{BlockStates, Detector, RberModel, StepGrid};
use crate::config::device_model::{Detection, DeviceModel};
use crate::engine::rng::{stream, Rng};

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

#[derive(Debug, Clone)]
pub struct VariationLatency {
    fixed: FixedLatency,
    grid: StepGrid,
    detector: Detector,
    detection: Detection,
    states: BlockStates,
    /// Blocks past the ECC limit, by block (to keep the count right as blocks wear further).
    beyond: Vec<bool>,
    rng: Rng,
    report: VariationReport,
}

impl PartialEq for VariationLatency {
    fn eq(&self, other: &Self) -> bool {
        self.fixed == other.fixed && self.grid == other.grid && self.report == other.report
    }
}

impl VariationLatency {
    /// Draw every block's r_b from the run's `variation` stream and detect its step at its current
    /// erase count.
    pub fn new(fixed: FixedLatency, dm: &DeviceModel, model: RberModel, detection: Detection, seed: u64,
               blocks: usize, wear: &dyn BlockWear) -> Self {
        let mut rng = stream(seed, "variation");
        let detector = Detector::new(model, dm.ecc, dm.grid);
        let (states, beyond) = BlockStates::new(blocks, &detector, &mut rng, |b| wear.erase_count(b as u32));
        VariationLatency {
            fixed,
            grid: dm.grid,
            detector,
            detection,
            states,
            beyond,
            // Detection noise has a stream of its own, so turning it on does not move the r_b draws.
            rng: stream(seed, "variation.detect"),
            report: VariationReport::default(),
        }
    }

    /// The step block `block` programs at now (millivolts).
    pub fn step_mv(&self, block: u32) -> u16 {
        self.states.step_mv(block as usize)
    }

    fn redetect(&mut self, block: u32, pe: u32) {
        let estimate = match self.detection {
            Detection::Oracle => 1.0,
            Detection::Measured { noise } => {
                let z: f64 = StandardNormal.sample(&mut self.rng);
                (1.0 + noise * z).max(0.0)
            }
        };
        let b = block as usize;
        let d = self.detector.detect(self.states.r_b(b), pe, estimate);
        self.report.detections += 1;
        self.report.steps_lowered += self.states.lower(b, d.step_mv) as u64;
        // Whether the block is past its life is a fact of the model, not of the (noisy) estimate.
        self.beyond[b] = if estimate == 1.0 { d.beyond_ecc } else { self.detector.detect(self.states.r_b(b), pe, 1.0).beyond_ecc };
    }

    #[inline]
    pub fn cost(&mut self, op: &NandOp, ctx: &NandCtx) -> ArrayCost {
        match op.kind {
            NandOpKind::Program => {
                let block = ctx.layout.block_of(op.ppn);
                let ns = self.grid.program_ns(self.fixed.program_ns, self.states.step_mv(block as usize));
                self.report.programs += 1;
                self.report.program_ns_total += ns;
                ArrayCost { array_ns: ns, bytes: op.bytes }
            }
            NandOpKind::Erase => {
                let block = ctx.layout.block_of(op.ppn);
                self.redetect(block, ctx.wear.erase_count(block) + 1);
                let extra = match self.detection {
                    Detection::Oracle => 0,
                    Detection::Measured { .. } => self.fixed.read_ns,
                };
                ArrayCost { array_ns: self.fixed.erase_ns + extra, bytes: 0 }
            }
            NandOpKind::Read => self.fixed.cost(op),
        }
    }

    pub fn report(&self) -> VariationReport {
        VariationReport {
            detected_steps: self.states.histogram(&self.grid),
            blocks_beyond_ecc: self.beyond.iter().filter(|&&b| b).count() as u64,
            ..self.report.clone()
        }
    }
}
