//! The reliability side of the device configuration (`device.ispp.*`, `device.variation.*`,
//! `device.ecc.*`), validated into the model types of `nand::reliability`.

use super::settings::ResolvedMap;
use crate::nand::reliability::{EccLimit, RberModel, StepGrid};

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
    /// Process variation and speed detection; None: every block programs at the reference step.
    pub variation: Option<Variation>,
    pub ecc: EccLimit,
    /// ECC decoders per channel; 0 = unlimited.
    pub ecc_decoders: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Variation {
    pub model: RberModel,
    pub detection: Detection,
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
        DeviceModel {
            grid,
            variation: enabled.then_some(Variation { model, detection }),
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
        let var = v.device_model.variation.unwrap();
        assert_eq!((var.model.mean, var.model.sd, var.model.rated_pe), (3.7e-4, 9e-5, 15_000.0));
        assert_eq!(var.detection, super::Detection::Measured { noise: 0.1 });
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
