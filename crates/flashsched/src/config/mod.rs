//! Configuration in layers, after ruff and uv: [`Options`] (what the user wrote, unknown keys
//! rejected) → [`Settings`] (validated, integers in ns and bytes, defaults applied) → the engine.
//! Every key is declared once, in [`keys::KEYS`].

pub mod compat;
pub mod device_model;
pub mod cache;
mod channel;
pub mod page_cache;
pub mod sysbench;
pub mod error;
pub mod keys;
pub mod mechanisms;
pub mod options;
pub mod presets;
pub mod resolved;
pub mod schema;
pub mod settings;

pub use error::{ConfigError, ConfigErrors};
pub use options::Options;
pub use settings::{Geometry, Settings, Timing};

/// Build settings from a preset name or a TOML file, then `--set` overrides, in that order.
pub fn load(preset: Option<&str>, file: Option<&std::path::Path>, sets: &[String]) -> Result<Settings, ConfigErrors> {
    let mut o = match preset {
        Some(p) => Options::from_preset(p)?,
        None => Options::new(),
    };
    if let Some(f) = file {
        let text = std::fs::read_to_string(f).map_err(|e| {
            ConfigErrors::one(ConfigError::new("", &f.display().to_string(), format!("cannot read: {e}")))
        })?;
        o.merge_toml_str(&text, &f.display().to_string(), 0)?;
    }
    let mut errors = ConfigErrors::default();
    for s in sets {
        if let Err(e) = o.set(s) {
            errors.0.extend(e.0);
        }
    }
    if errors.is_empty() {
        return Settings::from_options(&o);
    }
    // A --set that could not be read still lets the rest be checked: every problem at once.
    if let Err(more) = Settings::from_options(&o) {
        errors.0.extend(more.0);
    }
    Err(errors)
}
