//! DRAM access time of one transfer of `bytes` (a cache read or write of a request's sectors).
//!
//! The DRAM is read and written a row at a time: opening a row costs tRCD (activate to column
//! command) and tCL (column command to data); closing it before the next costs tRP (precharge).
//! Data moves `burst` bytes per transfer, two transfers per clock cycle of `1000 / clock_mhz` ns
//! (double data rate). MQSim's `Data_Cache_DRAM_Data_Rate` is that clock (its default 100 gives
//! 10 ns a cycle), `Data_Cache_DRAM_Data_Busrt_Size` the burst (1 byte).

/// How the access time is computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formula {
    /// Every row the transfer touches is opened (tRCD + tCL) and every row but the last closed
    /// (tRP); the data takes `bytes / burst / 2` cycles. Monotonic in the size.
    Rows,
    /// MQSim's `estimate_dram_access_time` (`Data_Cache_Manager_Base.h`), integer arithmetic as it
    /// does: up to a row, tRCD + tCL + bytes / burst / 2 cycles; above, tRCD + tCL + (row / burst
    /// / 2 cycles + tRP) x (bytes / row / 2) + tRCD + tCL + (bytes mod row) / (burst x cycle).
    /// Not monotonic: 12 KiB with 8 KiB rows takes 461 ns, 8 KiB 40,986 ns.
    Mqsim,
}

/// The DRAM's timing parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dram {
    pub t_rcd_ns: u64,
    pub t_cl_ns: u64,
    pub t_rp_ns: u64,
    /// Row size, bytes.
    pub row_bytes: u64,
    /// Bytes a transfer moves.
    pub burst_bytes: u64,
    /// Clock, MHz (two transfers a cycle).
    pub clock_mhz: u64,
    pub formula: Formula,
}

impl Dram {
    /// MQSim's defaults (`ssdconfig.xml`): tRCD = tCL = tRP = 13 ns, 8 KiB rows, 1-byte bursts at
    /// 100 MHz.
    pub fn mqsim_defaults(formula: Formula) -> Self {
        Dram {
            t_rcd_ns: 13,
            t_cl_ns: 13,
            t_rp_ns: 13,
            row_bytes: 8192,
            burst_bytes: 1,
            clock_mhz: 100,
            formula,
        }
    }

    /// One clock cycle, whole ns (MQSim truncates it).
    fn cycle_ns(&self) -> u64 {
        1000 / self.clock_mhz
    }

    /// Time to move `bytes` to or from the DRAM, ns (0 bytes: 0).
    pub fn access_ns(&self, bytes: u64) -> u64 {
        if bytes == 0 {
            return 0;
        }
        let (b, r) = (self.burst_bytes, self.row_bytes);
        let open = self.t_rcd_ns + self.t_cl_ns;
        match self.formula {
            Formula::Rows => {
                let rows = bytes.div_ceil(r);
                // Whole cycles, each exactly 1000 / clock_mhz ns; the sum rounded up once.
                let cycles = bytes.div_ceil(b).div_ceil(2);
                rows * open + (rows - 1) * self.t_rp_ns + (cycles * 1000).div_ceil(self.clock_mhz)
            }
            Formula::Mqsim => {
                let t = self.cycle_ns();
                if bytes <= r {
                    open + (bytes / b / 2) * t
                } else {
                    open + ((r / b / 2) * t + self.t_rp_ns) * (bytes / r / 2)
                        + open
                        + (bytes % r) / (b * t)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mqsim_s_formula_gives_its_answers_non_monotonic_size_and_all() {
        // ../shared/anchors/README.md, "MQSim with its data cache and mapping cache": the DRAM
        // times of writes of each size with the link free (i_write_sizes), by hand:
        // 512 B: 26 + 256 x 10; 4 KiB: 26 + 2048 x 10; 8 KiB: 26 + 4096 x 10 (one row);
        // 12 KiB: 26 + (40,960 + 13) x 0 + 26 + 4096 / 10; 16 KiB: 26 + 40,973 x 1 + 26;
        // 20 KiB: 26 + 40,973 + 26 + 409; 32 KiB: 26 + 40,973 x 2 + 26; 64 KiB: x 4.
        let d = Dram::mqsim_defaults(Formula::Mqsim);
        let k = 1024;
        for (bytes, ns) in [
            (512, 2_586),
            (4 * k, 20_506),
            (8 * k, 40_986),
            (12 * k, 461),
            (16 * k, 41_025),
            (20 * k, 41_434),
            (32 * k, 81_998),
            (64 * k, 163_944),
        ] {
            assert_eq!(d.access_ns(bytes), ns, "{bytes} bytes");
        }
    }

    #[test]
    fn rows_open_and_close_as_the_transfer_crosses_them() {
        let d = Dram::mqsim_defaults(Formula::Rows);
        let k = 1024;
        // Within a row the two formulas agree.
        let m = Dram::mqsim_defaults(Formula::Mqsim);
        for bytes in [512, 4 * k, 8 * k] {
            assert_eq!(d.access_ns(bytes), m.access_ns(bytes));
        }
        // 12 KiB: two rows opened (2 x 26), one closed (13), 6,144 cycles of 10 ns.
        assert_eq!(d.access_ns(12 * k), 52 + 13 + 61_440);
        // 64 KiB: 8 rows, 7 closed, 32,768 cycles.
        assert_eq!(d.access_ns(64 * k), 8 * 26 + 7 * 13 + 327_680);
        // A 1-byte transfer takes one cycle; odd sizes round up to whole cycles.
        assert_eq!(d.access_ns(1), 26 + 10);
        assert_eq!(d.access_ns(3), 26 + 20);
        assert_eq!(d.access_ns(0), 0);
        // Monotonic over every size up to 64 KiB, in sectors.
        let mut last = 0;
        for sectors in 1..=128u64 {
            let t = d.access_ns(sectors * 512);
            assert!(t > last, "{sectors} sectors: {t} after {last}");
            last = t;
        }
    }

    #[test]
    fn wider_bursts_and_faster_clocks_shorten_the_data_phase() {
        let mut d = Dram::mqsim_defaults(Formula::Rows);
        d.burst_bytes = 8;
        d.clock_mhz = 800; // 1.25 ns a cycle: 256 cycles
        assert_eq!(d.access_ns(4096), 26 + 320);
        // MQSim's formula truncates the cycle to whole ns.
        d.formula = Formula::Mqsim;
        assert_eq!(d.access_ns(4096), 26 + 256);
    }
}
