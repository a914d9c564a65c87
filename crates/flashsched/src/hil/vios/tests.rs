//! Tests of `hil::vios`: the chip-state vector, the hierarchical-batch queues and every dispatch
//! rule.

use super::*;
use crate::sim::txn::TxnKind;
use crate::hil::Dispatch;

fn tiny() -> Layout {
    // 2 channels x 2 chips x 1 die
    Layout::new(&crate::config::Settings::from_options(&crate::config::Options::from_preset("tiny").unwrap()).unwrap().geometry)
}

/// NR recounted from the requests in the queues.
fn recount(v: &Vios) -> Vec<u32> {
    let mut nr = vec![0; v.nr.len()];
    for q in [&v.reads, &v.writes] {
        for b in &q.batches {
            for cb in &b.channel_batches {
                for &slot in cb.reqs.iter().filter(|&&s| s != NONE) {
                    let w = &v.waiting[slot as usize];
                    for &i in &w.left {
                        nr[w.chips[i as usize] as usize] += 1;
                    }
                }
            }
        }
    }
    nr
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig { cases: 300, ..Default::default() })]
    #[test]
    fn the_chip_state_vector_equals_a_recount_of_the_queues(
        dispatch in 0usize..5,
        ops in proptest::collection::vec((0u8..4, 1u32..16, proptest::bool::ANY), 1..200),
    ) {
        // op 0-1: a request arrives (its chips from the bits of `mask`, read or write);
        // op 2: pop one transaction with the chips in `mask` busy; op 3: a request in
        // flight completes. Under every dispatch rule.
        let layout = tiny();
        let d = [Dispatch::QueueDepth, Dispatch::IdleUnits, Dispatch::IdleRequests, Dispatch::SubRequests, Dispatch::Slots][dispatch];
        let mut v = Vios::new(layout, 1_000_000, 4).with_dispatch(d);
        let mut next_req = 0u32;
        let mut next_txn = 0u32;
        let mut issued: Vec<ReqId> = Vec::new();
        let mut all: Vec<Txn> = Vec::new();
        for (op, mask, read) in ops {
            match op {
                0 | 1 => {
                    let kind = if read { TxnKind::HostRead } else { TxnKind::HostWrite };
                    for chip in (0..4).filter(|c| mask >> c & 1 == 1) {
                        let t = Txn::new(kind, next_req, 0, 0, 0, chip * layout.dies_per_chip, 4096, 0);
                        v.push(next_txn, &t);
                        all.push(t);
                        next_txn += 1;
                    }
                    next_req += 1;
                }
                2 => {
                    let before: FxHashSet<ReqId> = v.in_flight.clone();
                    let busy = |die: u32| mask >> layout.chip_of_die(die) & 1 == 1;
                    let view = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
                    told(&mut v, &mut all, &view);
                    issued.extend(v.in_flight.difference(&before).copied());
                }
                _ => {
                    if let Some(r) = issued.pop() {
                        v.on_request_done(r);
                    }
                }
            }
            v.place_pending();
            proptest::prop_assert_eq!(&v.nr, &recount(&v));
        }
    }
}

#[test]
fn reads_are_issued_before_writes_and_leave_the_vector() {
    let layout = tiny();
    let mut v = Vios::new(layout, 1_000_000, 32);
    let idle = |_: u32| false;
    let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
    let mut all = vec![Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0); 3];
    all[1] = Txn::new(TxnKind::HostWrite, 1, 0, 0, 0, 0, 4096, 0);
    all[2] = Txn::new(TxnKind::HostRead, 2, 0, 0, 0, 0, 4096, 0);
    v.push(1, &all[1]);
    v.push(2, &all[2]);
    v.place_pending();
    assert_eq!(v.nr(0), 2);
    assert_eq!(v.pop(&mut all, &view), Some(2), "the read's chip batch goes first");
    assert_eq!(v.nr(0), 1);
    assert_eq!(v.pop(&mut all, &view), Some(1));
    assert_eq!(v.nr(0), 0);
    assert_eq!(v.pop(&mut all, &view), None);
    // No other request waited for chip 0 when the write was issued: a slower block.
    assert_eq!(all[1].place, Placement::Slowest);
}

/// `max_age` protects writes from reads too: under the dispatch rules that issue whole chip
/// batches, a write batch older than `max_age` goes before a younger read batch, and one that
/// is not that old still waits for the reads.
#[test]
fn a_write_older_than_max_age_goes_before_younger_reads() {
    let layout = tiny();
    for d in [Dispatch::QueueDepth, Dispatch::IdleUnits] {
        let mut v = Vios::new(layout, 1_000, 32).with_dispatch(d);
        let idle = |_: u32| false;
        let mut all = vec![Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0), Txn::new(TxnKind::HostRead, 1, 0, 0, 0, 0, 4096, 1_500)];
        v.push(0, &all[0]);
        v.push(1, &all[1]);
        let young = DeviceView { now: 900, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!(v.pop(&mut all, &young), Some(1), "{d:?}: a write younger than max_age waits for the reads");
        let mut v = Vios::new(layout, 1_000, 32).with_dispatch(d);
        v.push(0, &all[0]);
        v.push(1, &all[1]);
        let aged = DeviceView { now: 2_000, die_busy: &idle, chip_queued: &|_| 0 };
        assert_eq!(v.pop(&mut all, &aged), Some(0), "{d:?}: the write has waited past max_age");
        assert_eq!(v.pop(&mut all, &aged), Some(1));
    }
}

#[test]
fn a_write_to_a_chip_other_requests_wait_for_goes_to_a_faster_block() {
    // Fig. 4: three write requests queued for one chip. The first two are issued while
    // others still wait for the chip (NR > 1): fastest blocks; the last one finds NR = 1: a
    // slower block.
    let layout = tiny();
    let mut v = Vios::new(layout, 1_000_000, 32);
    let idle = |_: u32| false;
    let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
    let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    let order: Vec<TxnId> = std::iter::from_fn(|| v.pop(&mut all, &view)).collect();
    assert_eq!(order, vec![0, 1, 2]);
    assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Slowest]);
    // The ablation leaves the last one where the allocator put it.
    let mut v = Vios::new(layout, 1_000_000, 32).with_unconflicted(Placement::Static);
    let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    while v.pop(&mut all, &view).is_some() {}
    assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Static]);
}

#[test]
fn idle_requests_issues_each_request_when_its_own_chips_are_idle() {
    // Requests on chips 0 and 1 share a chip batch; chip 0 is busy: only the request on
    // chip 1 goes; the other follows once chip 0 is idle, and the batch is then done.
    let layout = tiny();
    let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::IdleRequests);
    let mut all: Vec<Txn> = (0..2).map(|r| Txn::new(TxnKind::HostRead, r, 0, 0, 0, r * layout.dies_per_chip, 4096, 0)).collect();
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    let busy0 = |d: u32| d < layout.dies_per_chip;
    let view = DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 };
    assert_eq!((v.pop(&mut all, &view), v.pop(&mut all, &view)), (Some(1), None));
    assert_eq!(v.nr(0), 1);
    let idle = |_: u32| false;
    let view = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
    assert_eq!((v.pop(&mut all, &view), v.pop(&mut all, &view)), (Some(0), None));
    assert_eq!((v.nr(0), v.queues().0.batches.len()), (0, 0));
}

/// Pop under `sub_requests`, every die reported as possibly idle first (as the simulator
/// reports a die that may have become idle): the view may have changed since the last pop.
fn told(v: &mut Vios, all: &mut [Txn], view: &DeviceView) -> Option<TxnId> {
    for d in 0..v.layout.dies() {
        v.on_die_may_idle(d);
    }
    v.pop(all, view)
}

#[test]
fn sub_requests_go_to_each_chip_when_that_chip_is_idle() {
    // One read on chips 0 and 1 (transactions 0, 1), then one on chip 1 (transaction 2).
    // Chip 0 busy: the first read's sub-request for chip 1 goes alone, and chip 1 is then
    // claimed, so the second read (a later chip batch: it shares chip 1) waits.
    let layout = tiny();
    let dpc = layout.dies_per_chip;
    let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::SubRequests);
    let mut all = vec![
        Txn::new(TxnKind::HostRead, 0, 0, 0, 0, 0, 4096, 0),
        Txn::new(TxnKind::HostRead, 0, 0, 0, 0, dpc, 4096, 0),
        Txn::new(TxnKind::HostRead, 1, 0, 0, 0, dpc, 4096, 0),
    ];
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    // The views say what the chips are doing: a chip given a transaction is busy after.
    let busy0 = |d: u32| d < dpc;
    let busy1 = |d: u32| (dpc..2 * dpc).contains(&d);
    let busy = |d: u32| d < 2 * dpc;
    let idle = |_: u32| false;
    let (v0, v1, vb, vi) = (
        DeviceView { now: 0, die_busy: &busy0, chip_queued: &|_| 0 },
        DeviceView { now: 0, die_busy: &busy1, chip_queued: &|_| 0 },
        DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 },
        DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 },
    );
    assert_eq!((told(&mut v, &mut all, &v0), told(&mut v, &mut all, &vb)), (Some(1), None));
    assert_eq!((v.nr(0), v.nr(1)), (1, 1), "chip 0's sub-request still waits; the second read waits for chip 1");
    assert!(v.in_flight.contains(&0));
    // Chip 1 runs transaction 1 and chip 0 is idle: chip 0's sub-request goes; the second
    // read still waits for chip 1.
    assert_eq!((told(&mut v, &mut all, &v1), told(&mut v, &mut all, &vb)), (Some(0), None));
    assert_eq!((v.nr(0), v.nr(1), v.queues().0.batches.len()), (0, 1, 1));
    assert_eq!((told(&mut v, &mut all, &vi), told(&mut v, &mut all, &vb)), (Some(2), None));
    assert_eq!((v.nr(1), v.queues().0.batches.len()), (0, 0));
}

#[test]
fn sub_requests_follow_figure_4() {
    // Three writes for one chip, issued one at a time as the chip frees: the first two while
    // others still wait for the chip (fastest), the last alone (slowest).
    let layout = tiny();
    let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::SubRequests);
    let (idle, busy) = (|_: u32| false, |_: u32| true);
    let vi = DeviceView { now: 0, die_busy: &idle, chip_queued: &|_| 0 };
    let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
    let mut all: Vec<Txn> = (0..3).map(|r| Txn::new(TxnKind::HostWrite, r, 0, 0, 0, 0, 4096, 0)).collect();
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    let rounds: Vec<(Option<TxnId>, Option<TxnId>)> = (0..3).map(|_| (told(&mut v, &mut all, &vi), told(&mut v, &mut all, &vb))).collect();
    assert_eq!(rounds, vec![(Some(0), None), (Some(1), None), (Some(2), None)]);
    assert_eq!(all.iter().map(|t| t.place).collect::<Vec<_>>(), vec![Placement::Fastest, Placement::Fastest, Placement::Slowest]);
}

#[test]
fn a_write_that_begins_with_an_update_read_is_queued_and_placed_as_a_write() {
    // A partial-page write under `ftl.partial_writes = "update_read"`: its first transaction
    // reads the old page's other sectors. The request is a write: VIOS's write queue, and its
    // write gets a block by Fig. 4 (here alone for its chip: an ordinary one).
    let layout = tiny();
    let mut v = Vios::new(layout, 1_000_000, 32).with_dispatch(Dispatch::Slots).with_unconflicted(Placement::Static);
    let mut all = vec![Txn::new(TxnKind::HostRead, 0, 0, 0, 0, 0, 4096, 0), Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0)];
    all[1].place = Placement::Slowest; // not what VIOS will set
    v.push(0, &all[0]);
    v.push(1, &all[1]);
    v.place_pending();
    assert_eq!((v.queues().0.batches.len(), v.queues().1.batches.len()), (0, 1));
    let busy = |_: u32| true;
    let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
    assert_eq!(std::iter::from_fn(|| v.pop(&mut all, &vb)).collect::<Vec<_>>(), vec![0, 1]);
    assert_eq!(all[1].place, Placement::Static);
}

#[test]
fn slots_fill_each_free_slot_with_the_next_request_in_vioss_order() {
    // Depth 2. Writes 0 (chip 0) and 1 (chip 0, a second chip batch), then reads 2 (chip 1)
    // and 3 (chip 1, a second read chip batch). The reads take the two slots first, whatever
    // the chips are doing; when one completes, the next read; then the writes in batch order.
    let layout = tiny();
    let dpc = layout.dies_per_chip;
    let mut v = Vios::new(layout, 1_000_000, 2).with_dispatch(Dispatch::Slots);
    let mut all = vec![
        Txn::new(TxnKind::HostWrite, 0, 0, 0, 0, 0, 4096, 0),
        Txn::new(TxnKind::HostWrite, 1, 0, 0, 0, 0, 4096, 0),
        Txn::new(TxnKind::HostRead, 2, 0, 0, 0, dpc, 4096, 0),
        Txn::new(TxnKind::HostRead, 3, 0, 0, 0, dpc, 4096, 0),
    ];
    for (i, t) in all.clone().iter().enumerate() {
        v.push(i as TxnId, t);
    }
    let busy = |_: u32| true;
    let vb = DeviceView { now: 0, die_busy: &busy, chip_queued: &|_| 0 };
    let pops = |v: &mut Vios, all: &mut Vec<Txn>| std::iter::from_fn(|| v.pop(all, &vb)).collect::<Vec<_>>();
    assert_eq!(pops(&mut v, &mut all), vec![2, 3], "busy chips do not hold a request back; the depth does");
    v.on_request_done(2);
    assert_eq!(pops(&mut v, &mut all), vec![0]);
    // Write 0 was issued while write 1 still waited for chip 0 (NR = 2): the fastest block.
    assert_eq!(all[0].place, Placement::Fastest);
    assert_eq!(v.nr(0), 1);
    v.on_request_done(3);
    v.on_request_done(0);
    assert_eq!(pops(&mut v, &mut all), vec![1]);
    assert_eq!(all[1].place, Placement::Slowest, "alone for its chip");
    assert_eq!((v.len(), v.queues().0.batches.len(), v.queues().1.batches.len()), (0, 0, 0));
}
