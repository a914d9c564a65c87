//! Which of Slacker's mechanisms a `tsu.scheduler` name runs: read bypassing, write bypassing,
//! write pausing (`tsu::slacker`). Kept with the configuration, which checks that write pausing has
//! program suspension to work with, so that the configuration imports no domain module.

/// Which of Slacker's mechanisms run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Mechanisms {
    pub rbyp: bool,
    pub wbyp: bool,
    pub wp: bool,
}

impl Mechanisms {
    /// The mechanisms of a `tsu.scheduler` name.
    pub fn named(name: &str) -> Self {
        match name {
            "slacker" => Mechanisms { rbyp: true, wbyp: true, wp: true },
            "rbyp" => Mechanisms { rbyp: true, ..Default::default() },
            "wbyp" => Mechanisms { wbyp: true, ..Default::default() },
            "wp" => Mechanisms { wp: true, ..Default::default() },
            "rbyp+wp" => Mechanisms { rbyp: true, wp: true, ..Default::default() },
            _ => Mechanisms::default(),
        }
    }
}
