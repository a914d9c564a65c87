//! Compatibility profiles (`compat = "mqsim"` / `"ssdsim"`): every modelling choice in which
//! another simulator differs from flashsched's defaults, as one named setting. A profile is a
//! TOML file in `compat/` applied over the preset: it replaces defaults and preset values, never
//! a key the user set (in a file, a dict or with --set), so `compat = "mqsim"` plus
//! `device.advanced.interleave = true` is MQSim with dies that overlap. docs/fidelity.md lists
//! each key a profile sets with the source it comes from.

use super::error::{ConfigError, ConfigErrors};
use super::options::{Entry, Options};

pub const NAMES: &[&str] = &["mqsim", "ssdsim"];

pub fn get(name: &str) -> Option<&'static str> {
    Some(match name {
        "mqsim" => include_str!("compat/mqsim.toml"),
        "ssdsim" => include_str!("compat/ssdsim.toml"),
        _ => return None,
    })
}

/// `options` with its compat profile, if it names one, applied.
pub fn apply(options: &Options) -> Result<Options, ConfigErrors> {
    let name = match options.get("compat").map(|e| &e.value) {
        Some(toml::Value::String(n)) if n != "none" => n.clone(),
        // Anything else is left for validation to report (unknown names, wrong types).
        _ => return Ok(options.clone()),
    };
    let Some(text) = get(&name) else { return Ok(options.clone()) };
    let mut profile = Options::new();
    let origin = format!("compat {name}");
    profile.merge_toml_str(text, &origin, 0).map_err(|e| ConfigErrors::one(ConfigError::new("compat", &origin, e.to_string())))?;
    let mut out = options.clone();
    let set_by_user = |o: &Options, path: &str| o.get(path).is_some_and(|e| !e.origin.starts_with("preset "));
    // The per-operation command times stand in for device.timing.command: a user who set that
    // one keeps it for every operation they did not set on its own.
    let common_command = set_by_user(options, "device.timing.command");
    for (path, entry) in profile.entries {
        let user_set = set_by_user(&out, &path) || (common_command && path.starts_with("device.timing.command_"));
        if !user_set {
            out.entries.insert(path, Entry { value: entry.value, origin: origin.clone() });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    #[test]
    fn a_profile_overrides_the_preset_but_not_the_user() {
        let mut o = Options::from_preset("bench8x8").unwrap();
        o.set("compat=mqsim").unwrap();
        o.set("device.advanced.interleave=true").unwrap();
        let s = Settings::from_options(&o).unwrap();
        let r = &s.resolved;
        // bench8x8 sets device.timing.command = 0ns; the profile sets per-operation times.
        assert_eq!(s.timing.command_ns, [290, 361, 220]);
        assert_eq!(r.origin("device.timing.command_read"), "compat mqsim");
        assert!(r.bool("device.advanced.interleave"), "the user's --set wins");
        assert_eq!(r.origin("device.advanced.interleave"), "--set");
        assert_eq!(r.str("tsu.scheduler"), "o3");
        // The user's common command time beats the profile's per-operation ones.
        let mut o = Options::from_preset("bench8x8").unwrap();
        o.set("device.timing.command=5us").unwrap();
        o.set("compat=mqsim").unwrap();
        o.set("device.timing.command_read=1us").unwrap();
        assert_eq!(Settings::from_options(&o).unwrap().timing.command_ns, [1_000, 5_000, 5_000]);
    }

    #[test]
    fn every_profile_resolves_on_every_preset() {
        for name in NAMES {
            for preset in super::super::presets::NAMES {
                let mut o = Options::from_preset(preset).unwrap();
                o.set(&format!("compat={name}")).unwrap();
                Settings::from_options(&o).unwrap_or_else(|e| panic!("{name} on {preset}: {e}"));
            }
        }
    }
}
