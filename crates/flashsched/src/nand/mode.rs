//! The program modes a page can be written in (RR/WR's ISPP steps), apart from the latency model
//! that prices them, so that the configuration can name them without importing that model.

/// How a page is programmed. `Native` is the block's own (nominal or detected) speed; `Slow`,
/// `Normal` and `Fast` are the explicit modes of RR/WR (Table I), set for host writes by
/// `device.program_mode`. The discriminants are the 2-bit codes `reliability::PageModes` stores (0,
/// the default, for pages never programmed with another mode).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum ProgramMode {
    #[default]
    Native = 0,
    Slow = 1,
    Normal = 2,
    Fast = 3,
}
