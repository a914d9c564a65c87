//! Interval statistics: one JSON Lines record per window of simulated time (`stats.interval`),
//! to see GC episodes as they happen (throughput dips, latency spikes, free blocks running low).

use serde_json::json;

#[derive(Debug, Clone, Default)]
pub struct IntervalStats {
    pub width: u64,
    pub start: u64,
    reads: u64,
    writes: u64,
    read_bytes: u64,
    write_bytes: u64,
    lat_sum: u128,
    lat_max: u64,
    read_lat_sum: u128,
    write_lat_sum: u128,
    pub lines: Vec<String>,
}

impl IntervalStats {
    pub fn new(width: u64) -> Self {
        IntervalStats { width, ..Default::default() }
    }
    pub fn enabled(&self) -> bool {
        self.width > 0
    }
    #[inline]
    pub fn record(&mut self, is_read: bool, bytes: u64, lat: u64) {
        if is_read {
            self.reads += 1;
            self.read_bytes += bytes;
            self.read_lat_sum += lat as u128;
        } else {
            self.writes += 1;
            self.write_bytes += bytes;
            self.write_lat_sum += lat as u128;
        }
        self.lat_sum += lat as u128;
        self.lat_max = self.lat_max.max(lat);
    }

    /// Close the current window with the device state at its end.
    pub fn close(&mut self, free_blocks: u64, min_plane_free: u32, gc_invocations: u64, erases: u64) {
        let n = self.reads + self.writes;
        let secs = self.width as f64 / 1e9;
        let mean = |s: u128, n: u64| if n == 0 { 0.0 } else { (s as f64 / n as f64).round() };
        let line = json!({
            "type": "interval",
            "start_ns": self.start,
            "end_ns": self.start + self.width,
            "reads": self.reads,
            "writes": self.writes,
            "read_iops": (self.reads as f64 / secs).round(),
            "write_iops": (self.writes as f64 / secs).round(),
            "read_bw_bytes": (self.read_bytes as f64 / secs).round(),
            "write_bw_bytes": (self.write_bytes as f64 / secs).round(),
            "lat_mean_ns": mean(self.lat_sum, n),
            "read_lat_mean_ns": mean(self.read_lat_sum, self.reads),
            "write_lat_mean_ns": mean(self.write_lat_sum, self.writes),
            "lat_max_ns": self.lat_max,
            "free_blocks": free_blocks,
            "min_plane_free_blocks": min_plane_free,
            "gc_invocations_total": gc_invocations,
            "erases_total": erases,
        });
        self.lines.push(line.to_string());
        let width = self.width;
        let start = self.start + width;
        let lines = std::mem::take(&mut self.lines);
        *self = IntervalStats { width, start, lines, ..Default::default() };
    }
}
