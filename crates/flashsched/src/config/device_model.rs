//! The reliability side of the device configuration (`device.ispp.*`, `device.variation.*`,
//! `device.ecc.*`), validated into the model types of `nand::reliability`.

use super::settings::ResolvedMap;
use crate::nand::mode::ProgramMode;
use crate::nand::reliability::{EccLimit, LdpcLevels, RberModel, StepGrid};
use crate::units::parse_duration_ns;

/// How a block's speed is detected after each erase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Detection {
    /// Evaluate the model exactly, at no cost.
    Oracle,
    /// Charge one page read per detection and misestimate the RBER by 1 + noise x N(0, 1).
    Measured { noise: f64 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct DeviceModel {
    pub grid: StepGrid,
    /// ISPP iterations of a program at the reference step.
    pub iterations: u32,
    /// Process variation, with how speeds are detected; None: every block programs at the
    /// reference step. Its RBER law is `rber`.
    pub variation: Option<Detection>,
    pub ecc: EccLimit,
    /// ECC decoders per channel; 0 = unlimited.
    pub ecc_decoders: u32,
    /// The RBER law, used by variation and by `rber` LDPC levels (with r_b = its mean without
    /// variation).
    pub rber: RberModel,
    /// Steps of the explicit program modes, indexed by `ProgramMode` (Native: 0, the block's own).
    pub mode_steps: [u16; 4],
    /// The mode of every host write under the `traditional` program-speed policy.
    pub host_mode: ProgramMode,
    /// A program-speed policy other than `traditional` chooses a mode per host write
    /// (`ftl.program_speed`), so pages must remember theirs.
    pub modes_per_write: bool,
    /// LDPC levels and whether they follow the program mode (else the RBER).
    pub ldpc: Option<(LdpcLevels, bool)>,
}

/// A comma-separated list of `parse`d values; errors name the key and the item.
fn list<T>(r: &ResolvedMap, path: &str, err: &mut impl FnMut(&str, String), parse: impl Fn(&str) -> Result<T, String>) -> Vec<T> {
    let mut out = Vec::new();
    for (i, item) in r.str(path).split(',').map(str::trim).enumerate() {
        match parse(item) {
            Ok(v) => out.push(v),
            Err(e) => err(path, format!("item {} (\"{item}\"): {e}", i + 1)),
        }
    }
    out
}

fn ldpc_levels(r: &ResolvedMap, err: &mut impl FnMut(&str, String)) -> LdpcLevels {
    let float = |t: &str| t.parse::<f64>().map_err(|_| "not a number".to_string()).and_then(|v| {
        if v > 0.0 && v <= 1.0 { Ok(v) } else { Err("must be in (0, 1]".into()) }
    });
    let pct = |t: &str| t.parse::<u32>().map_err(|_| "not a whole percentage".to_string()).and_then(|v| {
        if (1..=10_000).contains(&v) { Ok(v) } else { Err("must be 1 to 10000".into()) }
    });
    let l = LdpcLevels {
        thresholds: list(r, "device.ldpc.thresholds", err, float),
        sense_ns: list(r, "device.ldpc.sense", err, parse_duration_ns),
        transfer_pct: list(r, "device.ldpc.transfer", err, pct),
        decode_ns: list(r, "device.ldpc.decode", err, parse_duration_ns),
    };
    let n = l.thresholds.len();
    if !(1..=4).contains(&n) {
        err("device.ldpc.thresholds", format!("{n} levels; 1 to 4 are supported"));
    }
    if l.thresholds.windows(2).any(|w| w[0] >= w[1]) {
        err("device.ldpc.thresholds", "must increase from level to level".into());
    }
    for (path, len) in [("device.ldpc.sense", l.sense_ns.len()), ("device.ldpc.transfer", l.transfer_pct.len()), ("device.ldpc.decode", l.decode_ns.len())] {
        if len != n {
            err(path, format!("has {len} items but device.ldpc.thresholds has {n}: one per level"));
        }
    }
    if l.sense_ns.contains(&0) {
        err("device.ldpc.sense", "every level senses for a positive time".into());
    }
    l
}

/// Volts to millivolts, refusing values that are not whole millivolts (steps are integers so that
/// program times are exact).
fn millivolts(r: &ResolvedMap, path: &str, err: &mut impl FnMut(&str, String)) -> u16 {
    let v = r.float(path);
    let mv = (v * 1000.0).round();
    if (v * 1000.0 - mv).abs() > 1e-6 {
        err(path, format!("must be a whole number of millivolts (got {v} V)"));
    }
    mv as u16
}

impl DeviceModel {
    pub fn from_resolved(r: &ResolvedMap, err: &mut impl FnMut(&str, String)) -> DeviceModel {
        let grid = StepGrid {
            min_mv: millivolts(r, "device.ispp.step_min", err),
            max_mv: millivolts(r, "device.ispp.step_max", err),
            decrement_mv: millivolts(r, "device.ispp.step_decrement", err).max(1),
            ref_mv: millivolts(r, "device.ispp.step_ref", err),
        };
        if grid.min_mv > grid.max_mv {
            err("device.ispp.step_min", format!("{} V is above step_max {} V", grid.min_mv as f64 / 1e3, grid.max_mv as f64 / 1e3));
        } else if (grid.max_mv - grid.min_mv) % grid.decrement_mv != 0 {
            err("device.ispp.step_decrement", format!(
                "step_max - step_min = {} V is not a multiple of the decrement {} V",
                (grid.max_mv - grid.min_mv) as f64 / 1e3,
                grid.decrement_mv as f64 / 1e3
            ));
        }
        let model = RberModel {
            mean: r.float("device.variation.rber_mean"),
            sd: r.float("device.variation.rber_sd"),
            bound_sd: r.float("device.variation.bound_sd"),
            rated_pe: r.int("device.variation.rated_pe") as f64,
            wear_offset: r.float("device.variation.wear_offset"),
            wear_exponent: r.float("device.variation.wear_exponent"),
            step_exponent: r.float("device.variation.step_exponent"),
            retention_coeff: r.float("device.variation.retention_coeff"),
            retention_t0_ns: r.ns("device.variation.retention_t0").max(1) as f64,
            ref_mv: grid.ref_mv.max(1) as f64,
        };
        let enabled = r.bool("device.variation.enabled");
        if enabled && model.mean - model.bound_sd * model.sd <= 0.0 {
            err("device.variation.bound_sd", format!(
                "the bound reaches zero or below (mean {} - {} x sd {}): a block's RBER must stay positive; lower bound_sd or sd",
                model.mean, model.bound_sd, model.sd
            ));
        }
        let detection = match r.str("device.variation.detect") {
            "measured" => Detection::Measured { noise: r.float("device.variation.detect_noise") },
            _ => Detection::Oracle,
        };
        let mode_steps = [
            0,
            millivolts(r, "device.ispp.slow_step", err),
            millivolts(r, "device.ispp.normal_step", err),
            millivolts(r, "device.ispp.fast_step", err),
        ];
        let host_mode = match r.str("device.program_mode") {
            "slow" => ProgramMode::Slow,
            "normal" => ProgramMode::Normal,
            "fast" => ProgramMode::Fast,
            _ => ProgramMode::Native,
        };
        let ldpc = r.bool("device.ldpc.enabled").then(|| (ldpc_levels(r, err), r.str("device.ldpc.level_from") == "program_mode"));
        DeviceModel {
            rber: model,
            mode_steps,
            host_mode,
            modes_per_write: r.str("ftl.program_speed") != "traditional",
            ldpc,
            grid,
            iterations: r.int("device.ispp.iterations") as u32,
            variation: enabled.then_some(detection),
            ecc: EccLimit { limit: r.float("device.ecc.limit"), margin: r.float("device.ecc.margin") },
            ecc_decoders: r.int("device.ecc.decoders") as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::config::{Options, Settings};

    fn settings(sets: &[&str]) -> Result<Settings, String> {
        let mut o = Options::new();
        for s in sets {
            o.set(s).map_err(|e| e.to_string())?;
        }
        Settings::from_options(&o).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_are_vios_grid_without_variation() {
        let s = settings(&[]).unwrap();
        let m = &s.device_model;
        assert_eq!((m.grid.min_mv, m.grid.max_mv, m.grid.decrement_mv, m.grid.ref_mv), (300, 600, 30, 300));
        assert!(m.variation.is_none());
        assert_eq!((m.ecc.limit, m.ecc.margin, m.ecc_decoders), (7.5e-4, 0.15, 1));
        let v = settings(&["device.variation.enabled=true", "device.variation.detect=\"measured\""]).unwrap();
        let (model, detection) = (v.device_model.rber, v.device_model.variation.unwrap());
        assert_eq!((model.mean, model.sd, model.rated_pe), (3.7e-4, 9e-5, 15_000.0));
        assert_eq!(detection, super::Detection::Measured { noise: 0.1 });
    }

    #[test]
    fn bad_grids_and_bounds_are_config_errors_with_their_key() {
        let e = settings(&["device.ispp.step_decrement=0.07"]).unwrap_err();
        assert!(e.contains("device.ispp.step_decrement") && e.contains("not a multiple"), "{e}");
        let e = settings(&["device.ispp.step_min=0.7"]).unwrap_err();
        assert!(e.contains("device.ispp.step_min") && e.contains("above step_max"), "{e}");
        let e = settings(&["device.ispp.step_max=0.6005"]).unwrap_err();
        assert!(e.contains("whole number of millivolts"), "{e}");
        let e = settings(&["device.variation.enabled=true", "device.variation.bound_sd=5"]).unwrap_err();
        assert!(e.contains("device.variation.bound_sd") && e.contains("stay positive"), "{e}");
        // The same bound is harmless while variation is off.
        assert!(settings(&["device.variation.bound_sd=5"]).is_ok());
    }
}
