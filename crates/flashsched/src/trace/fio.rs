//! fio iolog (fio HOWTO, "Trace file format").
//! - v2: header `fio version 2 iolog`, then `filename action [offset length]`; action is one of
//!   add, open, close, read, write, sync, datasync, trim, wait. `filename wait N` delays the next
//!   I/O by N microseconds.
//! - v3 (fio 3.31+): header `fio version 3 iolog`, then `timestamp filename action [offset length]`
//!   with the timestamp in microseconds since the start of the log (fio `iolog.c`).
//! Offsets and lengths are bytes. Each file name becomes a device number in order of appearance.

use super::{parse_u64, LineParser, Op, RawRecord};

#[derive(Default)]
pub struct Fio {
    version: u32,
    clock_us: u64,
    files: Vec<String>,
}

impl Fio {
    fn device(&mut self, name: &str) -> u64 {
        if let Some(i) = self.files.iter().position(|f| f == name) {
            return i as u64;
        }
        self.files.push(name.to_string());
        (self.files.len() - 1) as u64
    }
}

impl LineParser for Fio {
    fn parse(&mut self, line: &str) -> Result<Option<RawRecord>, String> {
        if let Some(v) = line.strip_prefix("fio version ") {
            self.version = match v.trim() {
                "2 iolog" => 2,
                "3 iolog" => 3,
                other => return Err(format!("unsupported fio iolog version \"{other}\" (2 and 3 are supported)")),
            };
            return Ok(None);
        }
        if self.version == 0 {
            return Err("a fio iolog starts with \"fio version 2 iolog\" or \"fio version 3 iolog\"".into());
        }
        let mut f: Vec<&str> = line.split_whitespace().collect();
        if self.version == 3 {
            if f.is_empty() {
                return Ok(None);
            }
            self.clock_us = parse_u64(f[0], "timestamp")?;
            f.remove(0);
        }
        if f.len() < 2 {
            return Err("expected \"filename action [offset length]\": truncated line?".into());
        }
        let op = match f[1] {
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            "sync" | "datasync" => Op::Flush,
            "add" | "open" | "close" => return Ok(None),
            "wait" if self.version == 2 => {
                let us = parse_u64(f.get(2).ok_or("wait needs a delay in microseconds")?, "wait")?;
                self.clock_us = self.clock_us.checked_add(us).ok_or_else(|| {
                    format!("wait {us} us takes the log's clock past 2^64 us (the waits so far add up to {} us)", self.clock_us)
                })?;
                return Ok(None);
            }
            other => return Err(format!("unknown action \"{other}\"")),
        };
        let device = self.device(f[0]);
        let time_ns = self.clock_us as i128 * 1000;
        if op == Op::Flush {
            return Ok(Some(RawRecord { time_ns, op, offset: 0, len: 0, device }));
        }
        if f.len() < 4 {
            return Err(format!("{} needs an offset and a length", f[1]));
        }
        let offset = parse_u64(f[2], "offset")?;
        let len = super::parse_size(f[3], "length")?;
        Ok(Some(RawRecord { time_ns, op, offset, len, device }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn v2_waits_accumulate() {
        let mut p = Fio::default();
        assert!(p.parse("fio version 2 iolog").unwrap().is_none());
        assert!(p.parse("/dev/sdb add").unwrap().is_none());
        assert!(p.parse("/dev/sdb wait 250").unwrap().is_none());
        let r = p.parse("/dev/sdb write 4096 8192").unwrap().unwrap();
        assert_eq!((r.time_ns, r.op, r.offset, r.len), (250_000, Op::Write, 4096, 8192));
    }

    #[test]
    fn v2_waits_past_2_64_us_are_an_error() {
        let mut p = Fio::default();
        p.parse("fio version 2 iolog").unwrap();
        assert!(p.parse(&format!("/dev/sdb wait {}", u64::MAX - 5)).unwrap().is_none());
        let e = p.parse("/dev/sdb wait 10").unwrap_err();
        assert!(e.contains("past 2^64 us"), "{e}");
    }

    #[test]
    fn v3_timestamps() {
        let mut p = Fio::default();
        p.parse("fio version 3 iolog").unwrap();
        let r = p.parse("1500 /dev/nvme0n1 read 0 4096").unwrap().unwrap();
        assert_eq!(r.time_ns, 1_500_000);
        assert!(p.parse("1600 /dev/nvme0n1 read 0").is_err());
        assert!(Fio::default().parse("/dev/sdb read 0 1").is_err());
    }
}
