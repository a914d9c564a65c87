//! blkparse default text output (`blkparse(1)`): `maj,min cpu seq time pid action rwbs sector +
//! nblocks [process]`. One action is kept (Q = queued, or D = issued to the driver) so a request is
//! not counted twice. RWBS: R read, W write, D discard; a flush-only event (F, no sectors) becomes a
//! flush. Sectors are 512 bytes. The per-CPU summary blkparse prints at the end is skipped.

use super::{parse_scaled, parse_size, parse_u64, LineParser, Op, RawRecord};

pub struct Blkparse {
    action: char,
    in_summary: bool,
}

impl Blkparse {
    pub fn new(action: char) -> Self {
        Blkparse { action, in_summary: false }
    }
}

impl LineParser for Blkparse {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String> {
        let f: Vec<&str> = line.split_whitespace().collect();
        let is_dev = |s: &str| s.split_once(',').is_some_and(|(a, b)| a.parse::<u32>().is_ok() && b.parse::<u32>().is_ok());
        if !is_dev(f[0]) {
            // blkparse ends with "CPU0 (8,16):", "Total (8,16):" and indented counters.
            if self.in_summary || f[0].starts_with("CPU") || f[0] == "Total" {
                self.in_summary = true;
                return Ok(None);
            }
            return Err(format!("\"{}\" is not a blkparse event line (maj,min cpu seq time pid action rwbs ...)", f[0]));
        }
        if f.len() < 7 {
            return Err(format!("expected at least 7 fields (maj,min cpu seq time pid action rwbs), found {}: truncated line?", f.len()));
        }
        if f[5].len() != 1 || !f[5].starts_with(self.action) {
            return Ok(None);
        }
        let rwbs = f[6];
        let minor = parse_u64(f[0].split_once(',').unwrap().1, "device minor")?;
        let time_ns = parse_scaled(f[3], 9, "time")?;
        let has_range = f.len() >= 10 && f[8] == "+";
        let op = if rwbs.contains('D') {
            Op::Trim
        } else if rwbs.contains('W') {
            Op::Write
        } else if rwbs.contains('R') {
            Op::Read
        } else if rwbs.contains('F') && !has_range {
            Op::Flush
        } else if rwbs.contains('N') {
            return Ok(None); // no data: a plug/unplug or message event
        } else {
            return Err(format!("RWBS \"{rwbs}\" has neither R, W, D nor F"));
        };
        if !has_range {
            if op == Op::Flush {
                return Ok(Some(RawRecord { time_ns, op, offset: 0, len: 0, device: minor }));
            }
            return Err("expected \"sector + nblocks\" after the RWBS field".into());
        }
        let sector = parse_u64(f[7], "sector")?;
        let n = parse_size(f[9], "nblocks")?;
        let offset = sector.checked_mul(512).ok_or_else(|| format!("sector {sector} is too large (its byte offset exceeds 2^64 - 1)"))?;
        let len = n.checked_mul(512).ok_or_else(|| format!("nblocks {n} is too large (its byte length exceeds 2^64 - 1)"))?;
        Ok(Some(RawRecord { time_ns, op, offset, len, device: minor }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_one_action() {
        let mut p = Blkparse::new('Q');
        let q = p.parse("8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]").unwrap().unwrap();
        assert_eq!((q.op, q.offset, q.len, q.time_ns, q.device), (Op::Read, 1444645666 * 512, 256 * 512, 1850, 16));
        assert!(p.parse("8,16   5        3     0.000006438 18615  G   R 1444645666 + 256 [java]").unwrap().is_none());
        assert!(p.parse("8,16   5        0     0.000012990     0  m   N cfq18615S / insert_request").unwrap().is_none());
        let w = p.parse("8,16   2    41115     9.378421727 16766  Q   WS 3428327274 + 8 [flush-8:16]").unwrap().unwrap();
        assert_eq!(w.op, Op::Write);
        assert!(p.parse("CPU0 (8,16):").unwrap().is_none());
        assert!(p.parse(" Reads Queued:  1,  2KiB").unwrap().is_none());
        assert!(Blkparse::new('Q').parse("garbage here").is_err());
    }
}
