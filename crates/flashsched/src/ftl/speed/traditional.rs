//! `traditional`: every host write in one mode, `device.program_mode` (RR/WR's baseline programs
//! everything at normal speed; `native` programs at each block's own step).

use super::{ProgramSpeed, WriteView};
use crate::nand::latency::ProgramMode;

pub struct Traditional {
    mode: ProgramMode,
}

impl Traditional {
    pub fn new(mode: ProgramMode) -> Self {
        Traditional { mode }
    }
}

impl ProgramSpeed for Traditional {
    fn name(&self) -> &'static str {
        "traditional"
    }

    #[inline]
    fn write_mode(&mut self, _w: WriteView) -> ProgramMode {
        self.mode
    }

    fn fixed(&self) -> Option<ProgramMode> {
        Some(self.mode)
    }
}
