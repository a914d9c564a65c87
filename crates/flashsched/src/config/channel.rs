//! The channel's arbitration (`device.channel.arbitration`): what each model needs of the rest of
//! the device configuration.

use super::settings::ResolvedMap;

/// Report, through `err`, every setting that the chosen arbitration cannot run with.
pub(super) fn check_arbitration(r: &ResolvedMap, tsu: &str, err: &mut impl FnMut(&str, String)) {
    // SSDSim's channel arbitration models SSDSim with advanced commands off (`sim::arbiter`).
    if r.str("device.channel.arbitration") == "ssdsim" {
        let needs = [
            ("tsu.scheduler", tsu != "o3", "\"o3\" (the arbiter takes each die's host reads in the order they were queued, as o3 keeps them)"),
            ("device.advanced.interleave", r.bool("device.advanced.interleave"), "false (the chip is the unit that takes commands)"),
            ("device.advanced.multi_die", r.bool("device.advanced.multi_die"), "false"),
            ("device.advanced.multi_plane", r.str("device.advanced.multi_plane") != "off", "\"off\""),
            ("device.suspend.program", r.bool("device.suspend.program"), "false"),
            ("device.suspend.erase", r.bool("device.suspend.erase"), "false"),
            ("tsu.suspend_for_reads", r.bool("tsu.suspend_for_reads"), "false"),
        ];
        for (key, bad, want) in needs {
            if bad {
                err(key, format!("device.channel.arbitration = \"ssdsim\" models SSDSim with advanced commands off: set {key} = {want}"));
            }
        }
    }
    // MQSim's turns go to the units that take commands: chips with multi-die commands, or dies.
    if r.str("device.channel.arbitration") == "mqsim" {
        if !r.bool("device.advanced.multi_die") && !r.bool("device.advanced.interleave") {
            err("device.advanced.multi_die", "device.channel.arbitration = \"mqsim\" gives the channel's turns to chips that take multi-die commands (multi_die = true) or to dies that take their own (interleave = true): set one of them".to_string());
        }
        for key in ["device.suspend.program", "device.suspend.erase", "tsu.suspend_for_reads"] {
            if r.bool(key) {
                err(key, format!("device.channel.arbitration = \"mqsim\" models MQSim without suspension: set {key} = false"));
            }
        }
    }
    if r.bool("device.read_queue_hits") && r.str("device.channel.arbitration") != "ssdsim" {
        err("device.read_queue_hits", "needs device.channel.arbitration = \"ssdsim\", which keeps each channel's read queue".to_string());
    }
}

#[cfg(test)]
mod tests {
    /// The configuration problems of the `tiny` preset with `sets`, as one message ("" if none).
    fn problems(sets: &[&str]) -> String {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        crate::config::load(Some("tiny"), None, &sets).err().map(|e| e.to_string()).unwrap_or_default()
    }

    #[test]
    fn mqsim_turns_need_a_unit_that_takes_commands_and_no_suspension() {
        let e = problems(&["device.channel.arbitration=mqsim", "device.advanced.interleave=false", "device.advanced.multi_die=false", "device.suspend.program=true"]);
        assert!(e.contains("device.advanced.multi_die") && e.contains("device.suspend.program"), "{e}");
        assert_eq!(problems(&["device.channel.arbitration=mqsim", "device.advanced.interleave=true"]), "");
        assert_eq!(problems(&["device.channel.arbitration=mqsim", "device.advanced.interleave=false", "device.advanced.multi_die=true", "tsu.scheduler=o3"]), "");
    }
}
