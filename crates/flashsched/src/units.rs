//! Values with units, as users write them in configs: `"600us"`, `"4KiB"`, `"333MT/s"`.
//!
//! Sizes follow fio's default `kb_base=1024`: `K`, `KB` and `KiB` all mean 1024 bytes, because the
//! papers write "2 KB pages" for 2048-byte pages and users copy those numbers.

/// Parse a duration into nanoseconds. Accepts `ns`, `us` (or `µs`), `ms`, `s`, with an integer or
/// decimal number in front (`"1.5ms"`). The result is rounded to the nearest nanosecond.
pub fn parse_duration_ns(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t);
    let mult: f64 = match unit.trim() {
        "ns" => 1.0,
        "us" | "µs" | "μs" => 1e3,
        "ms" => 1e6,
        "s" => 1e9,
        "" => return Err(format!("\"{t}\" needs a unit (ns, us, ms or s), e.g. \"600us\"")),
        u => return Err(format!("\"{t}\": unknown time unit \"{u}\" (use ns, us, ms or s)")),
    };
    let v = parse_nonneg(num, t)?;
    let ns = (v * mult).round();
    if ns > u64::MAX as f64 / 2.0 {
        return Err(format!("\"{t}\" is too large"));
    }
    Ok(ns as u64)
}

/// Parse a size into bytes: a plain integer is bytes; suffixes `B`, `K`/`KB`/`KiB`, `M`/`MB`/`MiB`,
/// `G`/`GB`/`GiB`, `T`/`TB`/`TiB` are powers of 1024 (fio's convention).
pub fn parse_size_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        u => return Err(format!("\"{t}\": unknown size unit \"{u}\" (use B, KiB, MiB, GiB or TiB)")),
    };
    let v = parse_nonneg(num, t)?;
    let bytes = v * mult as f64;
    if bytes.fract() != 0.0 {
        return Err(format!("\"{t}\" is not a whole number of bytes"));
    }
    if bytes > u64::MAX as f64 / 2.0 {
        return Err(format!("\"{t}\" is too large"));
    }
    Ok(bytes as u64)
}

/// Parse a transfer rate into transfers per second: `"333MT/s"`, `"1.2GT/s"`, `"400kT/s"`.
pub fn parse_rate_per_s(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (num, unit) = split_number(t);
    let mult: f64 = match unit.trim() {
        "T/s" => 1.0,
        "kT/s" | "KT/s" => 1e3,
        "MT/s" => 1e6,
        "GT/s" => 1e9,
        "" => return Err(format!("\"{t}\" needs a unit, e.g. \"333MT/s\"")),
        u => return Err(format!("\"{t}\": unknown rate unit \"{u}\" (use T/s, kT/s, MT/s or GT/s)")),
    };
    let v = parse_nonneg(num, t)?;
    Ok((v * mult).round() as u64)
}

fn split_number(t: &str) -> (&str, &str) {
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    (&t[..end], &t[end..])
}

fn parse_nonneg(num: &str, whole: &str) -> Result<f64, String> {
    let v: f64 = num.parse().map_err(|_| format!("\"{whole}\" does not start with a number"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("\"{whole}\" must not be negative"));
    }
    Ok(v)
}

/// Format nanoseconds the way a user would write them back (`600us`, `1.5ms`).
pub fn format_duration_ns(ns: u64) -> String {
    if ns == 0 {
        "0ns".into()
    } else if ns % 1_000_000_000 == 0 {
        format!("{}s", ns / 1_000_000_000)
    } else if ns % 1_000_000 == 0 {
        format!("{}ms", ns / 1_000_000)
    } else if ns % 1_000 == 0 {
        format!("{}us", ns / 1_000)
    } else {
        format!("{ns}ns")
    }
}

/// Format bytes with the largest binary unit that divides them exactly.
pub fn format_size(bytes: u64) -> String {
    for (unit, mult) in [("TiB", 1u64 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)] {
        if bytes >= mult && bytes % mult == 0 {
            return format!("{}{unit}", bytes / mult);
        }
    }
    format!("{bytes}B")
}

pub fn format_rate(per_s: u64) -> String {
    if per_s % 1_000_000_000 == 0 && per_s > 0 {
        format!("{}GT/s", per_s / 1_000_000_000)
    } else if per_s % 1_000_000 == 0 && per_s > 0 {
        format!("{}MT/s", per_s / 1_000_000)
    } else {
        format!("{per_s}T/s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("600us").unwrap(), 600_000);
        assert_eq!(parse_duration_ns("1.5ms").unwrap(), 1_500_000);
        assert_eq!(parse_duration_ns("20 us").unwrap(), 20_000);
        assert_eq!(parse_duration_ns("3s").unwrap(), 3_000_000_000);
        assert_eq!(parse_duration_ns("7ns").unwrap(), 7);
        assert!(parse_duration_ns("600").unwrap_err().contains("needs a unit"));
        assert!(parse_duration_ns("-1us").is_err());
        assert!(parse_duration_ns("5 parsecs").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_size_bytes("2KB").unwrap(), 2048);
        assert_eq!(parse_size_bytes("16GiB").unwrap(), 16 << 30);
        assert_eq!(parse_size_bytes("512").unwrap(), 512);
        assert_eq!(parse_size_bytes("0.5KiB").unwrap(), 512);
        assert!(parse_size_bytes("0.3B").is_err());
        assert!(parse_size_bytes("4 furlongs").is_err());
    }

    #[test]
    fn rates() {
        assert_eq!(parse_rate_per_s("333MT/s").unwrap(), 333_000_000);
        assert_eq!(parse_rate_per_s("1.2GT/s").unwrap(), 1_200_000_000);
        assert!(parse_rate_per_s("333").is_err());
    }

    #[test]
    fn round_trip_formats() {
        assert_eq!(format_duration_ns(600_000), "600us");
        assert_eq!(format_duration_ns(1_500_000), "1500us");
        assert_eq!(format_size(4096), "4KiB");
        assert_eq!(format_rate(333_000_000), "333MT/s");
    }
}
