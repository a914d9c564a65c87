//! MSR Cambridge CSV (SNIA IOTTA): `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601); offset and size are bytes.
//! Some published slices (../shared/traces/msr/web_*) rewrote the timestamp as whole seconds since
//! the volume's first request: a first timestamp below 10^12 is taken as seconds (a FILETIME of
//! any date after 1601-01-02 is above 8 x 10^11 ... and every real MSR trace is from 2007, ~1.28 x 10^17).

use super::{expect_fields, parse_scaled, parse_size, parse_u64, LineParser, Op, RawRecord};

#[derive(Default)]
pub struct Msr {
    seconds: Option<bool>,
}

const LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

impl LineParser for Msr {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String> {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f[0].eq_ignore_ascii_case("timestamp") {
            return Ok(None); // header
        }
        expect_fields(&f, 6, LAYOUT)?;
        let ts = parse_scaled(f[0], 0, "timestamp")?;
        let secs = *self.seconds.get_or_insert(ts < 1_000_000_000_000);
        let time_ns = if secs { parse_scaled(f[0], 9, "timestamp")? } else { ts * 100 };
        let op = match f[3].to_ascii_lowercase().as_str() {
            "read" => Op::Read,
            "write" => Op::Write,
            other => return Err(format!("type \"{other}\" is neither Read nor Write")),
        };
        Ok(Some(RawRecord {
            time_ns,
            op,
            offset: parse_u64(f[4], "offset")?,
            len: parse_size(f[5], "size")?,
            device: parse_u64(f[2], "disk number")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filetime_and_seconds() {
        let mut p = Msr::default();
        let r = p.parse("128166385295514663,hm,0,Write,9056014336,2048,2833").unwrap().unwrap();
        assert_eq!(r.time_ns, 128166385295514663i128 * 100);
        assert_eq!((r.op, r.offset, r.len), (Op::Write, 9056014336, 2048));
        let mut p = Msr::default();
        let r = p.parse("3,web,0,Read,512,4096,1").unwrap().unwrap();
        assert_eq!(r.time_ns, 3_000_000_000);
        assert!(p.parse("3,web,0,Read,512,-8,1").unwrap_err().contains("size \"-8\" is not a positive integer"));
        assert!(p.parse("3,web,0,Read").unwrap_err().contains("truncated"));
        assert!(p.parse("3,web,0,Erase,1,1,1").is_err());
    }
}
