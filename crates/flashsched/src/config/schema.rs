//! The JSON Schema of the configuration format and the reference page of every key, both generated
//! from [`super::keys::KEYS`]. A test fails when the copies in `docs/` are stale.

use serde_json::{json, Map, Value};

use super::keys::{Kind, KEYS};
use super::options::parse_scalar;

/// JSON Schema (draft 2020-12) describing a configuration file.
pub fn json_schema() -> Value {
    let mut root = Map::new();
    for spec in KEYS {
        let mut node = &mut root;
        let parts: Vec<&str> = spec.path.split('.').collect();
        for part in &parts[..parts.len() - 1] {
            let entry = node.entry(part.to_string()).or_insert_with(|| {
                json!({"type": "object", "additionalProperties": false, "properties": {}})
            });
            node = entry.get_mut("properties").and_then(Value::as_object_mut).expect("section");
        }
        node.insert(parts[parts.len() - 1].to_string(), key_schema(spec.kind, spec.default, spec.doc));
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "flashsched configuration",
        "description": "Generated from crates/flashsched/src/config/keys.rs; do not edit by hand.",
        "type": "object",
        "additionalProperties": false,
        "properties": Value::Object(root),
    })
}

fn key_schema(kind: Kind, default: &str, doc: &str) -> Value {
    let default_v = toml_to_json(&parse_scalar(default));
    let mut s = match kind {
        Kind::Int { min, max } => json!({"type": "integer", "minimum": min, "maximum": max}),
        Kind::Float { min, max } => json!({"type": "number", "minimum": min, "maximum": max}),
        Kind::Bool => json!({"type": "boolean"}),
        Kind::Str => json!({"type": "string"}),
        Kind::Enum(names) => json!({"type": "string", "enum": names}),
        Kind::Duration => json!({"type": "string", "pattern": r"^\s*[0-9.]+\s*(ns|us|µs|ms|s)\s*$"}),
        Kind::Size => json!({"type": ["string", "integer"], "pattern": r"^\s*[0-9.]+\s*([KMGT]i?B?|B)?\s*$"}),
        Kind::Rate => json!({"type": "string", "pattern": r"^\s*[0-9.]+\s*[kKMG]?T/s\s*$"}),
    };
    s["description"] = Value::String(doc.to_string());
    s["default"] = default_v;
    s
}

fn toml_to_json(v: &toml::Value) -> Value {
    match v {
        toml::Value::String(s) => Value::String(s.clone()),
        toml::Value::Integer(i) => json!(i),
        toml::Value::Float(f) => json!(f),
        toml::Value::Boolean(b) => json!(b),
        other => Value::String(other.to_string()),
    }
}

/// Markdown reference of every key: section, key, type, default, meaning.
pub fn reference_markdown() -> String {
    let mut out = String::from(
        "# Configuration reference\n\n\
         Generated from `crates/flashsched/src/config/keys.rs` by `make docs`; a test fails when this page is stale.\n\n\
         Values with units are strings: durations `\"600us\"` (ns, us, ms, s), sizes `\"4KiB\"` (B, KiB, MiB, GiB, TiB; \
         `KB` means 1024 bytes as in fio) or a plain integer of bytes, rates `\"333MT/s\"`. Layers apply in order: \
         built-in defaults, the preset (`--preset` or `preset = \"...\"` in a file), the file, then each `--set PATH=VALUE`.\n",
    );
    let mut section = "";
    for spec in KEYS {
        let (sec, key) = spec.path.rsplit_once('.').unwrap_or(("(top level)", spec.path));
        if sec != section {
            out.push_str(&format!("\n## `{sec}`\n\n| key | type | default | meaning |\n|---|---|---|---|\n"));
            section = sec;
        }
        let ty = match spec.kind {
            Kind::Enum(names) => format!("one of {}", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")),
            Kind::Int { min, max } if max == i64::MAX => format!("integer ≥ {min}"),
            Kind::Int { min, max } => format!("integer {min}..{max}"),
            Kind::Float { min, max } => format!("number {min}..{max}"),
            k => k.type_name().to_string(),
        };
        out.push_str(&format!("| `{key}` | {ty} | `{}` | {} |\n", spec.default, spec.doc.replace('|', "\\|")));
    }
    out
}
