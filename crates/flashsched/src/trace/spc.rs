//! UMass / SPC trace format (SPC Trace File Format Specification 1.0.1): `ASU,LBA,Size,Opcode,
//! Timestamp[,...]`. LBA counts 512-byte blocks, Size is in bytes, Opcode is r or w
//! (case-insensitive), Timestamp is seconds (a decimal) since the start of the trace.

use super::{expect_fields, parse_scaled, parse_size, parse_u64, LineParser, Op, RawRecord};

pub struct Spc;

impl LineParser for Spc {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String> {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        expect_fields(&f, 5, "ASU,LBA,Size,Opcode,Timestamp")?;
        let op = match f[3] {
            "r" | "R" => Op::Read,
            "w" | "W" => Op::Write,
            other => return Err(format!("opcode \"{other}\" is neither r nor w")),
        };
        let lba = parse_u64(f[1], "LBA")?;
        Ok(Some(RawRecord {
            time_ns: parse_scaled(f[4], 9, "timestamp")?,
            op,
            offset: lba.checked_mul(512).ok_or_else(|| format!("LBA {lba} is too large"))?,
            len: parse_size(f[2], "size")?,
            device: parse_u64(f[0], "ASU")?,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_financial_line() {
        let r = Spc.parse("1,55590,3072,w,0.026214").unwrap().unwrap();
        assert_eq!((r.device, r.offset, r.len, r.op), (1, 55590 * 512, 3072, Op::Write));
        assert_eq!(r.time_ns, 26_214_000);
        assert!(Spc.parse("1,55590,0,w,0.1").unwrap_err().contains("size \"0\""));
        assert!(Spc.parse("1,55590,512,x,0.1").is_err());
    }
}
