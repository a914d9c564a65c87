//! The first layer under the options: every key of the registry resolved to a typed value (the
//! options' value, else the key's default) with where it came from, and the TOML of it that
//! `config show` prints. `settings` validates these values into the settings the engine reads.

use std::collections::BTreeMap;

use super::error::{ConfigError, ConfigErrors};
use super::keys::{Kind, KEYS};
use super::options::{did_you_mean, Entry, Options};
use crate::units;

/// A resolved value of one key.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolved {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    /// Nanoseconds.
    Duration(u64),
    /// Bytes.
    Size(u64),
    /// Transfers per second.
    Rate(u64),
}

impl Resolved {
    /// Render back as a TOML literal with units, for `config show` and the JSON output.
    pub fn to_toml_literal(&self) -> String {
        match self {
            Resolved::Int(i) => i.to_string(),
            Resolved::Float(f) if f.is_nan() => "nan".into(),
            Resolved::Float(f) => {
                let s = format!("{f}");
                if s.contains('.') || s.contains('e') || s.contains("inf") { s } else { format!("{s}.0") }
            }
            Resolved::Bool(b) => b.to_string(),
            // TOML's own escapes (a control character as \u0000, not Rust's \0).
            Resolved::Str(s) => toml::Value::String(s.clone()).to_string(),
            Resolved::Duration(ns) => format!("\"{}\"", units::format_duration_ns(*ns)),
            Resolved::Size(b) => format!("\"{}\"", units::format_size(*b)),
            Resolved::Rate(r) => format!("\"{}\"", units::format_rate(*r)),
        }
    }
    /// Plain text without quotes, for flat tables.
    pub fn to_plain(&self) -> String {
        match self {
            Resolved::Str(s) => s.clone(),
            other => other.to_toml_literal().trim_matches('"').to_string(),
        }
    }
}

/// Every key with its resolved value and origin (`default` when the user did not set it).
#[derive(Debug, Clone)]
pub struct ResolvedMap {
    pub values: BTreeMap<&'static str, (Resolved, String)>,
}

impl ResolvedMap {
    pub fn resolve(options: &Options) -> Result<Self, ConfigErrors> {
        let mut errors = ConfigErrors::default();
        let mut values = BTreeMap::new();
        for spec in KEYS {
            let default_entry;
            let entry: &Entry = match options.get(spec.path) {
                Some(e) => e,
                None => {
                    default_entry = Entry { value: super::options::parse_scalar(spec.default), origin: "default".into() };
                    &default_entry
                }
            };
            match convert(spec.kind, &entry.value) {
                Ok(r) => {
                    values.insert(spec.path, (r, entry.origin.clone()));
                }
                Err(msg) => errors.push(ConfigError::new(spec.path, &entry.origin, msg)),
            }
        }
        errors.into_result(ResolvedMap { values })
    }

    fn get(&self, path: &str) -> &Resolved {
        &self.values.get(path).unwrap_or_else(|| panic!("no config key {path}")).0
    }
    pub fn origin(&self, path: &str) -> &str {
        &self.values[path].1
    }
    /// Whether `path` holds its key's default value (wherever the value came from: a saved
    /// configuration spells out every default).
    pub fn is_default(&self, path: &str) -> bool {
        let spec = super::keys::find(path).unwrap_or_else(|| panic!("no config key {path}"));
        convert(spec.kind, &super::options::parse_scalar(spec.default)).is_ok_and(|d| d.to_toml_literal() == self.get(path).to_toml_literal())
    }
    pub fn int(&self, path: &str) -> i64 {
        match self.get(path) { Resolved::Int(i) => *i, r => panic!("{path} is {r:?}") }
    }
    pub fn float(&self, path: &str) -> f64 {
        match self.get(path) { Resolved::Float(f) => *f, r => panic!("{path} is {r:?}") }
    }
    pub fn bool(&self, path: &str) -> bool {
        match self.get(path) { Resolved::Bool(b) => *b, r => panic!("{path} is {r:?}") }
    }
    pub fn str(&self, path: &str) -> &str {
        match self.get(path) { Resolved::Str(s) => s, r => panic!("{path} is {r:?}") }
    }
    pub fn ns(&self, path: &str) -> u64 {
        match self.get(path) { Resolved::Duration(d) => *d, r => panic!("{path} is {r:?}") }
    }
    pub fn bytes(&self, path: &str) -> u64 {
        match self.get(path) { Resolved::Size(b) => *b, r => panic!("{path} is {r:?}") }
    }
    pub fn rate(&self, path: &str) -> u64 {
        match self.get(path) { Resolved::Rate(r) => *r, r => panic!("{path} is {r:?}") }
    }

    /// The resolved configuration as a TOML document with units, grouped by section: each table
    /// once (in the order its first key is registered), so that it reads back as the same
    /// configuration (`flashsched config show NAME > c.toml; flashsched run --config c.toml`).
    pub fn to_toml(&self) -> String {
        let mut sections: Vec<&str> = Vec::new();
        for spec in KEYS {
            let sec = spec.path.rsplit_once('.').map_or("", |(sec, _)| sec);
            if !sections.contains(&sec) {
                sections.push(sec);
            }
        }
        let mut out = String::new();
        for sec in sections {
            if !sec.is_empty() {
                out.push_str(&format!("\n[{sec}]\n"));
            }
            for spec in KEYS.iter().filter(|k| k.path.rsplit_once('.').map_or("", |(s, _)| s) == sec) {
                let key = spec.path.rsplit_once('.').map_or(spec.path, |(_, k)| k);
                let (v, origin) = &self.values[spec.path];
                // The origin is a file name, a preset or --set: printed on one line whatever it holds.
                let origin: String = origin.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
                let note = if origin == "default" { String::new() } else { format!("  # from {origin}") };
                out.push_str(&format!("{key} = {}{note}\n", v.to_toml_literal()));
            }
        }
        out.trim_start().to_string()
    }
}

fn convert(kind: Kind, v: &toml::Value) -> Result<Resolved, String> {
    use toml::Value as V;
    let got = || describe(v);
    match kind {
        Kind::Int { min, max } => {
            let i = match v {
                V::Integer(i) => *i,
                V::Float(f) if f.fract() == 0.0 => *f as i64,
                _ => return Err(format!("expected an integer, got {}", got())),
            };
            if i < min {
                return Err(format!("must be at least {min} (got {i})"));
            }
            if i > max {
                return Err(format!("must be at most {max} (got {i})"));
            }
            Ok(Resolved::Int(i))
        }
        Kind::Float { min, max } => {
            let f = match v {
                V::Integer(i) => *i as f64,
                V::Float(f) => *f,
                _ => return Err(format!("expected a number, got {}", got())),
            };
            if !(f >= min && f <= max) {
                return Err(format!("must be between {min} and {max} (got {f})"));
            }
            Ok(Resolved::Float(f))
        }
        Kind::Bool => match v {
            V::Boolean(b) => Ok(Resolved::Bool(*b)),
            _ => Err(format!("expected true or false, got {}", got())),
        },
        Kind::Str => match v {
            V::String(s) => Ok(Resolved::Str(s.clone())),
            _ => Err(format!("expected a string, got {}", got())),
        },
        Kind::Enum(names) => match v {
            V::String(s) if names.contains(&s.as_str()) => Ok(Resolved::Str(s.clone())),
            V::String(s) => Err(format!("unknown value \"{s}\"{} (one of: {})", did_you_mean(s, names), names.join(", "))),
            _ => Err(format!("expected one of {}, got {}", names.join(", "), got())),
        },
        Kind::Duration => match v {
            V::String(s) => units::parse_duration_ns(s).map(Resolved::Duration),
            V::Integer(0) => Ok(Resolved::Duration(0)),
            _ => Err(format!("expected a duration with a unit such as \"600us\", got {}", got())),
        },
        Kind::Size => match v {
            V::String(s) => units::parse_size_bytes(s).map(Resolved::Size),
            V::Integer(i) if *i >= 0 => Ok(Resolved::Size(*i as u64)),
            _ => Err(format!("expected a size such as \"4KiB\", got {}", got())),
        },
        Kind::Rate => match v {
            V::String(s) => units::parse_rate_per_s(s).map(Resolved::Rate),
            _ => Err(format!("expected a rate such as \"333MT/s\", got {}", got())),
        },
    }
}

fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::String(s) => format!("\"{s}\""),
        toml::Value::Table(_) => "a table".into(),
        toml::Value::Array(_) => "a list".into(),
        other => other.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Typed settings
