//! The first layer of configuration: what the user wrote, as flat `path -> value` entries, each
//! remembering where it came from. Merging presets, files, Python dicts and `--set` overrides happens
//! here; unknown keys are rejected with a did-you-mean before anything is resolved.

use std::collections::BTreeMap;

use super::error::{ConfigError, ConfigErrors};
use super::keys::{self, KEYS};
use super::presets;

/// One value the user (or a preset) wrote, and where.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub value: toml::Value,
    /// `preset vios2016`, `my.toml`, `--set`, `python dict`.
    pub origin: String,
}

/// Raw options, layered: later layers override earlier ones key by key.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub entries: BTreeMap<String, Entry>,
    /// Unknown keys and sections found while merging. They do not stop the merge, so that
    /// resolving reports them together with every other problem of the configuration.
    pub errors: ConfigErrors,
}

impl Options {
    pub fn new() -> Self {
        Self::default()
    }

    /// Start from a named preset (and whatever presets it extends).
    pub fn from_preset(name: &str) -> Result<Self, ConfigErrors> {
        let mut o = Options::new();
        o.apply_preset(name, 0)?;
        Ok(o)
    }

    fn apply_preset(&mut self, name: &str, depth: usize) -> Result<(), ConfigErrors> {
        let Some(text) = presets::get(name) else {
            let names: Vec<&str> = presets::NAMES.to_vec();
            return Err(ConfigErrors::one(ConfigError::new(
                "preset",
                "",
                format!("unknown preset \"{name}\"{} (known: {})", did_you_mean(name, &names), names.join(", ")),
            )));
        };
        if depth > 8 {
            return Err(ConfigErrors::one(ConfigError::new("preset", "", "presets extend each other in a loop".into())));
        }
        self.merge_toml_str(text, &format!("preset {name}"), depth + 1)
    }

    /// Merge a TOML document. A top-level `preset = "NAME"` applies that preset first, so a file can
    /// say "the vios2016 drive, but with 4 channels".
    pub fn merge_toml_str(&mut self, text: &str, origin: &str, depth: usize) -> Result<(), ConfigErrors> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e.span().map(|s| line_of(text, s.start)).map(|l| format!(":{l}")).unwrap_or_default();
            ConfigErrors::one(ConfigError::new("", &format!("{origin}{at}"), format!("not valid TOML: {}", e.message())))
        })?;
        self.merge_table(table, origin, depth)
    }

    /// Merge a tree of values (from TOML or from a Python dict turned into JSON).
    pub fn merge_table(&mut self, table: toml::Table, origin: &str, depth: usize) -> Result<(), ConfigErrors> {
        if let Some(toml::Value::String(p)) = table.get("preset") {
            if !p.is_empty() {
                self.apply_preset(p, depth)?;
            }
        }
        let mut flat = Vec::new();
        let mut errors = ConfigErrors::default();
        flatten("", toml::Value::Table(table), &mut flat, &mut errors, origin);
        // One source may give a key once: a dict with "device.geometry.channels" and with
        // {"device": {"geometry": {"channels": ...}}} names it twice, and neither may win silently
        // (the TOML reader refuses the same for a file).
        let mut seen = std::collections::HashSet::new();
        for (path, value) in flat {
            if !seen.insert(path.clone()) {
                errors.push(ConfigError::new(&path, origin, "given twice (as a dotted key and in a nested table, say): give it once".into()));
                continue;
            }
            self.entries.insert(path, Entry { value, origin: origin.to_string() });
        }
        self.errors.0.extend(errors.0);
        Ok(())
    }

    /// Merge a JSON object (what the Python API sends for a dict).
    pub fn merge_json_str(&mut self, text: &str, origin: &str) -> Result<(), ConfigErrors> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| ConfigErrors::one(ConfigError::new("", origin, format!("not valid JSON: {e}"))))?;
        let t = json_to_toml(&v, "")
            .map_err(|(p, m)| ConfigErrors::one(ConfigError::new(&p, origin, m)))?;
        match t {
            toml::Value::Table(t) => self.merge_table(t, origin, 0),
            _ => Err(ConfigErrors::one(ConfigError::new("", origin, "a configuration must be a table of keys".into()))),
        }
    }

    /// Apply one `path=value` override. The value is read as TOML (`8`, `0.1`, `true`, `"x"`); if
    /// that fails it is taken as a bare string, so `--set device.timing.read=50us` works unquoted.
    pub fn set(&mut self, assignment: &str) -> Result<(), ConfigErrors> {
        let Some((path, raw)) = assignment.split_once('=') else {
            return Err(ConfigErrors::one(ConfigError::new(
                assignment.trim(),
                "--set",
                "expected PATH=VALUE, e.g. device.geometry.channels=4".into(),
            )));
        };
        let path = path.trim();
        let raw = raw.trim();
        let value = match parse_set_value(raw) {
            Ok(v) => v,
            Err(message) => {
                // Recorded with the other problems (keys, values), so that every one is reported.
                self.errors.push(ConfigError::new(path, "--set", message));
                return Ok(());
            }
        };
        if path == "preset" {
            if let toml::Value::String(p) = &value {
                self.apply_preset(p, 0)?;
            }
        }
        let mut errors = ConfigErrors::default();
        if check_known(path, &mut errors, "--set") {
            self.entries.insert(path.to_string(), Entry { value, origin: "--set".into() });
        }
        self.errors.0.extend(errors.0);
        Ok(())
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path)
    }
}

/// Read a `--set` value: a TOML value if it parses as one, else a bare string; but a value that
/// starts as a TOML string, array or table and does not parse is an error, not text (a quoted
/// string with a raw line break in it, say, which TOML does not allow: `\n` is the way).
pub fn parse_set_value(raw: &str) -> Result<toml::Value, String> {
    let doc = format!("v = {raw}");
    match doc.parse::<toml::Table>() {
        Ok(mut t) => Ok(t.remove("v").unwrap_or_else(|| toml::Value::String(raw.to_string()))),
        Err(e) if raw.starts_with(['"', '\'', '[', '{']) => {
            let why = e.message().lines().next().unwrap_or("invalid").to_string();
            Err(format!("{raw:?} is not a valid TOML value ({why}); a line break in a string is written \\n"))
        }
        Err(_) => Ok(toml::Value::String(raw.to_string())),
    }
}

/// Read a value written by this project (a key's default): TOML scalar if it parses as one, else
/// a bare string.
pub fn parse_scalar(raw: &str) -> toml::Value {
    parse_set_value(raw).unwrap_or_else(|_| toml::Value::String(raw.to_string()))
}

fn flatten(prefix: &str, v: toml::Value, out: &mut Vec<(String, toml::Value)>, errors: &mut ConfigErrors, origin: &str) {
    match v {
        toml::Value::Table(t) if keys::find(prefix).is_none() => {
            for (k, v) in t {
                let path = if prefix.is_empty() { k } else { format!("{prefix}.{k}") };
                flatten(&path, v, out, errors, origin);
            }
        }
        v => {
            if check_known(prefix, errors, origin) {
                out.push((prefix.to_string(), v));
            }
        }
    }
}

/// Is `path` a key (or the start of one)? If not, record an error with the closest key.
fn check_known(path: &str, errors: &mut ConfigErrors, origin: &str) -> bool {
    if keys::find(path).is_some() {
        return true;
    }
    let section_prefix = format!("{path}.");
    let msg = if KEYS.iter().any(|k| k.path.starts_with(&section_prefix)) {
        "is a section, not a value; set one of its keys".to_string()
    } else {
        let all: Vec<&str> = KEYS.iter().map(|k| k.path).collect();
        format!("unknown key{}", did_you_mean(path, &all))
    };
    errors.push(ConfigError::new(path, origin, msg));
    false
}

/// ` (did you mean X?)` when some candidate is close enough, else empty.
pub fn did_you_mean(word: &str, candidates: &[&str]) -> String {
    let best = candidates
        .iter()
        .map(|c| {
            // Compare whole paths and last segments: a typo is usually in one segment.
            let last_w = word.rsplit('.').next().unwrap_or(word);
            let last_c = c.rsplit('.').next().unwrap_or(c);
            let score = strsim::jaro_winkler(word, c).max(strsim::jaro_winkler(last_w, last_c) * 0.97);
            (score, *c)
        })
        .max_by(|a, b| a.0.partial_cmp(&b.0).unwrap().then_with(|| b.1.cmp(a.1)));
    match best {
        Some((s, c)) if s > 0.8 => format!(" (did you mean {c}?)"),
        _ => String::new(),
    }
}

fn json_to_toml(v: &serde_json::Value, path: &str) -> Result<toml::Value, (String, String)> {
    Ok(match v {
        serde_json::Value::Null => return Err((path.to_string(), "null is not a value; leave the key out instead".into())),
        serde_json::Value::Bool(b) => toml::Value::Boolean(*b),
        serde_json::Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                toml::Value::Integer(i)
            } else {
                toml::Value::Float(n.as_f64().unwrap_or(f64::NAN))
            }
        }
        serde_json::Value::String(s) => toml::Value::String(s.clone()),
        serde_json::Value::Array(a) => toml::Value::Array(
            a.iter().enumerate().map(|(i, x)| json_to_toml(x, &format!("{path}[{i}]"))).collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Object(o) => {
            let mut t = toml::Table::new();
            for (k, x) in o {
                let p = if path.is_empty() { k.clone() } else { format!("{path}.{k}") };
                t.insert(k.clone(), json_to_toml(x, &p)?);
            }
            toml::Value::Table(t)
        }
    })
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_all_reported_with_suggestions() {
        let mut o = Options::new();
        o.merge_toml_str("[device.geometry]\nchanels = 4\nplanes_per_dye = 2\n[ftl]\nbogus = 1\n", "my.toml", 0).unwrap();
        let err = o.errors.clone();
        let s = err.to_string();
        assert_eq!(err.0.len(), 3, "{s}");
        assert!(s.contains("device.geometry.chanels: unknown key (did you mean device.geometry.channels?)"), "{s}");
        assert!(s.contains("did you mean device.geometry.planes_per_die?"), "{s}");
        assert!(s.contains("my.toml"), "{s}");
    }

    #[test]
    fn set_parses_bare_and_typed_values() {
        let mut o = Options::new();
        o.set("device.timing.read=50us").unwrap();
        o.set("device.geometry.channels=4").unwrap();
        assert_eq!(o.get("device.timing.read").unwrap().value, toml::Value::String("50us".into()));
        assert_eq!(o.get("device.geometry.channels").unwrap().value, toml::Value::Integer(4));
        assert!(o.set("nonsense").is_err());
        o.set("device.geometry=3").unwrap();
        assert!(o.errors.to_string().contains("is a section"));
    }

    #[test]
    fn preset_then_file_overrides() {
        let mut o = Options::new();
        o.merge_toml_str("preset = \"tiny\"\n[device.geometry]\nchannels = 3\n", "f.toml", 0).unwrap();
        assert_eq!(o.get("device.geometry.channels").unwrap().value, toml::Value::Integer(3));
        assert!(o.get("device.geometry.pages_per_block").is_some());
    }
}
