//! Which of the units a device queue waits for are idle, found without asking the device about
//! every one of them at every pop (`sub_requests` dispatch, PIQ and VIOS). A unit (a chip, or a
//! die) goes from busy to idle only when one of its dies ends an operation, reaches a suspension's
//! safe point or drops a transaction it was starting (a write that finds no page, a stale GC
//! move), and the simulator reports each (`DeviceQueue::on_die_may_idle`). So only the units
//! reported since they were last seen busy (or given work) can be idle now: those are the ones
//! asked. Debug builds check, at every round, that every idle unit is one of them.

use super::bits::Bits;
use super::DeviceView;
use crate::engine::Time;

pub(crate) struct IdleWatch {
    /// (Read by debug builds' check.)
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    units: u32,
    dies_per_unit: u32,
    /// Units that may be idle: all at first, then those reported since they were last seen busy
    /// or given work.
    maybe: Bits,
    /// Whether anything a round depends on changed since the last one (a die reported, a
    /// request placed or done), and that round's instant.
    dirty: bool,
    last_round: Time,
}

impl IdleWatch {
    pub fn new(units: usize, dies_per_unit: u32) -> Self {
        // Every unit may be idle at first.
        let all: Vec<u32> = (0..units as u32).collect();
        IdleWatch { units: units as u32, dies_per_unit, maybe: Bits::of(units, &all), dirty: false, last_round: 0 }
    }

    /// A die of the unit may have become idle.
    #[inline]
    pub fn die_may_idle(&mut self, die: u32) {
        self.maybe.insert(die / self.dies_per_unit);
        self.dirty = true;
    }

    /// What the device queue holds or has in flight changed (a request placed or done).
    #[inline]
    pub fn changed(&mut self) {
        self.dirty = true;
    }

    /// Whether a round at `now` could give anything: not if nothing changed since the last round
    /// at this instant (the units it gave work are busy now, and what it could not give it still
    /// cannot), nor if no unit of `wanted` may be idle. Counts as the round.
    #[inline]
    pub fn round_due(&mut self, now: Time, wanted: &Bits) -> bool {
        let due = (self.dirty || now != self.last_round) && self.maybe.intersects(wanted);
        (self.dirty, self.last_round) = (false, now);
        due
    }

    /// Transactions were given to `unit`: it is busy from now on, until a die of it is reported.
    #[inline]
    pub fn given(&mut self, unit: u32) {
        self.maybe.remove(unit);
    }

    /// Fill `idle` with the units of `wanted` that are idle with nothing queued, and return how
    /// many there are. Units found busy are forgotten until they are reported again.
    pub fn idle_of(&mut self, wanted: &Bits, device: &DeviceView, idle: &mut Bits) -> u32 {
        let dpu = self.dies_per_unit;
        // The simulator must report every way a unit can become idle: every idle unit, wanted or
        // not, is one that may be (units leave `maybe` only when seen busy or given work).
        #[cfg(debug_assertions)]
        for u in 0..self.units {
            debug_assert!(!device.unit_idle(u, dpu) || self.maybe.contains(u), "unit {u} is idle, but no die of it was reported");
        }
        let mut n = 0;
        let (maybe, idle) = (self.maybe.words_mut(), idle.words_mut());
        for (w, (m, i)) in maybe.iter_mut().zip(idle.iter_mut()).enumerate() {
            let asked = *m & wanted.words()[w];
            let mut found = 0u64;
            let mut rest = asked;
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                if device.unit_idle(w as u32 * 64 + b, dpu) {
                    found |= 1 << b;
                    n += 1;
                }
            }
            *m &= !(asked & !found);
            *i = found;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_seen_busy_are_asked_again_only_once_reported() {
        let mut w = IdleWatch::new(4, 2);
        let wanted = Bits::of(4, &[0, 1, 2, 3]);
        let busy = |d: u32| d < 4; // units 0 and 1 busy, 2 and 3 idle
        let v = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
        let mut idle = Bits::new(4);
        assert_eq!(w.idle_of(&wanted, &v, &mut idle), 2);
        assert_eq!(idle.members().collect::<Vec<_>>(), vec![2, 3]);
        // Units 0 and 1 were seen busy, unit 2 is given work: none is asked again until a die
        // of it is reported (die 3: unit 1).
        assert_eq!(w.maybe.members().collect::<Vec<_>>(), vec![2, 3]);
        w.given(2);
        w.die_may_idle(3);
        w.die_may_idle(5);
        assert_eq!(w.maybe.members().collect::<Vec<_>>(), vec![1, 2, 3]);
        let busy0 = |d: u32| d < 2; // unit 0 still busy
        let v0 = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
        assert_eq!(w.idle_of(&Bits::of(4, &[0, 1, 2]), &v0, &mut idle), 2);
        assert_eq!(idle.members().collect::<Vec<_>>(), vec![1, 2]);
    }
}
