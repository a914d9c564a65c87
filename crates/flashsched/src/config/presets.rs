//! Built-in presets: each is a TOML file in `presets/` whose header cites the paper table it follows
//! and marks every value the paper does not give as [INFER].

pub const NAMES: &[&str] = &["bench8x8", "pass2014", "pattern2019", "rrwr2016", "slacker2017", "tiny", "vios2016"];

pub fn get(name: &str) -> Option<&'static str> {
    Some(match name {
        "bench8x8" => include_str!("presets/bench8x8.toml"),
        "pass2014" => include_str!("presets/pass2014.toml"),
        "pattern2019" => include_str!("presets/pattern2019.toml"),
        "rrwr2016" => include_str!("presets/rrwr2016.toml"),
        "slacker2017" => include_str!("presets/slacker2017.toml"),
        "tiny" => include_str!("presets/tiny.toml"),
        "vios2016" => include_str!("presets/vios2016.toml"),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Options, Settings};

    #[test]
    fn every_preset_resolves() {
        for name in NAMES {
            let o = Options::from_preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
            Settings::from_options(&o).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }

    #[test]
    fn paper_capacities() {
        let cap = |n: &str| Settings::from_options(&Options::from_preset(n).unwrap()).unwrap().geometry.capacity_bytes();
        assert_eq!(cap("vios2016"), 128 << 30);
        assert_eq!(cap("slacker2017"), 1 << 40);
        assert_eq!(cap("pattern2019"), 16 << 30);
        assert_eq!(cap("pass2014"), 60 << 30);
        assert_eq!(cap("bench8x8"), 256 << 30);
    }
}
