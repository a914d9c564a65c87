//! Whitespace-separated ASCII traces in DiskSim column order: `time device block count type`.
//! - DiskSim ASCII: time in milliseconds (a decimal), block and count in 512-byte sectors, type
//!   bit 0 = 1 for a read (DiskSim 4.0 manual).
//! - MQSim / SSDSim ASCII: time in integer nanoseconds, then the same columns; type 1 = read,
//!   0 = write (MQSim `ASCII_Trace_Definition.h`; SSDSim `readme.txt`).

use super::{expect_fields, parse_scaled, parse_size, parse_u64, LineParser, Op, RawRecord};

pub struct Ascii {
    /// Decimal digits that scale the time column to ns: 6 for ms, 0 for ns.
    time_digits: u32,
    layout: &'static str,
}

impl Ascii {
    pub fn disksim() -> Self {
        Ascii { time_digits: 6, layout: "time_ms devno blkno bcount flags" }
    }
    pub fn mqsim() -> Self {
        Ascii { time_digits: 0, layout: "time_ns device lsa size_sectors type" }
    }
}

impl LineParser for Ascii {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String> {
        if line.starts_with('#') {
            return Ok(None);
        }
        // Fixed-size field array: this parser runs once per line of multi-million-line traces.
        let mut f = [""; 5];
        let mut n = 0;
        for (i, x) in line.split_ascii_whitespace().take(5).enumerate() {
            f[i] = x;
            n = i + 1;
        }
        expect_fields(&f[..n], 5, self.layout)?;
        let time_ns = if self.time_digits == 0 {
            parse_u64(f[0], "time")? as i128
        } else {
            parse_scaled(f[0], self.time_digits, "time")?
        };
        let flags = parse_u64(f[4], "type")?;
        let op = if self.time_digits == 0 {
            match flags {
                0 => Op::Write,
                1 => Op::Read,
                v => return Err(format!("type {v} is neither 0 (write) nor 1 (read)")),
            }
        } else if flags & 1 == 1 {
            Op::Read
        } else {
            Op::Write
        };
        let sector = parse_u64(f[2], "block")?;
        let count = parse_size(f[3], "size")?;
        Ok(Some(RawRecord {
            time_ns,
            op,
            offset: sector.checked_mul(512).ok_or_else(|| format!("block {sector} is too large (its byte offset exceeds 2^64 - 1)"))?,
            len: count.checked_mul(512).ok_or_else(|| format!("size {count} is too large (its byte length exceeds 2^64 - 1)"))?,
            device: parse_u64(f[1], "device")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_dialects() {
        let r = Ascii::disksim().parse("0.221 5 162947904 16 1").unwrap().unwrap();
        assert_eq!((r.time_ns, r.device, r.offset, r.len, r.op), (221_000, 5, 162947904 * 512, 8192, Op::Read));
        let r = Ascii::mqsim().parse("938828000 3 197570570 16 0").unwrap().unwrap();
        assert_eq!((r.time_ns, r.op, r.len), (938_828_000, Op::Write, 8192));
        assert!(Ascii::mqsim().parse("1 0 5 16 2").is_err());
        assert!(Ascii::mqsim().parse("1 0 5 -16 1").unwrap_err().contains("size \"-16\""));
        assert!(Ascii::mqsim().parse("1 0 5").unwrap_err().contains("expected 5 fields"));
    }
}
