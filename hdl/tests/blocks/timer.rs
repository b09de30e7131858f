//! Directed tests of the scanning timer's contract: the expiry bound (and that it is
//! tight), the command/scanner collision rules, back-pressure and reset.
use nt_hdl::timer::*;
use nt_sim::kernel::Kernel;

/// A command: (op, id, expiry, meta).
type Cmd = (u8, u32, u64, u64);

struct Tb<const A: usize, const N: usize, const M: usize> {
    k: Kernel<ScanningTimer<A, N, M>>,
}

impl<const A: usize, const N: usize, const M: usize> Tb<A, N, M> {
    fn new() -> Self {
        Tb {
            k: Kernel::with_clock(ScanningTimer::new(), |t| &mut t.clock).expect("kernel"),
        }
    }

    fn now(&self) -> u64 {
        self.k.cycle()
    }

    /// Runs one cycle; returns the event presented in it, if any: (id, meta).
    fn cycle(&mut self, cmd: Option<Cmd>, ready: bool) -> Option<(u32, u64)> {
        let now = self.k.cycle();
        let t = self.k.uut_mut();
        t.now.next = now.into();
        t.reset.next = false;
        t.source.ready.next = ready;
        t.cmd.valid.next = cmd.is_some();
        let (op, id, expiry, meta) = cmd.unwrap_or((0, 0, 0, 0));
        t.cmd.op.next = (op as u64).into();
        t.cmd.id.next = (id as u64).into();
        t.cmd.expiry.next = expiry.into();
        t.cmd.meta.next = meta.into();
        self.k.settle().expect("settle");
        let t = self.k.uut();
        let ev = t.source.valid.val().then(|| {
            (
                t.source.id.val().index() as u32,
                t.source.meta.val().index() as u64,
            )
        });
        self.k.tick().expect("tick");
        ev
    }

    fn reset(&mut self) {
        self.k.uut_mut().reset.next = true;
        self.k.uut_mut().cmd.valid.next = false;
        self.k.tick().expect("tick");
        self.k.uut_mut().reset.next = false;
    }

    /// Idles until cycle `until`, asserting that no event appears meanwhile.
    fn idle_until(&mut self, until: u64, ready: bool) {
        while self.now() < until {
            assert!(
                self.cycle(None, ready).is_none(),
                "unexpected event in cycle {}",
                self.now() - 1
            );
        }
    }

    /// Idles with ready high until an event appears (returns its cycle and payload) or
    /// `limit` cycles pass.
    fn wait_event(&mut self, limit: u64) -> Option<(u64, u32, u64)> {
        for _ in 0..limit {
            let c = self.now();
            if let Some((id, meta)) = self.cycle(None, true) {
                return Some((c, id, meta));
            }
        }
        None
    }
}

/// Cycle in which the event for one timer (id, written at W with expiry E) first appears.
fn first_fire<const A: usize, const N: usize>(w: u64, id: u32, e: u64) -> u64 {
    let mut tb = Tb::<A, N, 16>::new();
    tb.idle_until(w, true);
    assert!(tb.cycle(Some((OP_SCHEDULE, id, e, 0x5a)), true).is_none());
    let (f, fid, meta) = tb
        .wait_event(e.saturating_sub(w) + 4 * N as u64)
        .expect("timer never fired");
    assert_eq!((fid, meta), (id, 0x5a));
    f
}

fn check_bound<const A: usize, const N: usize>() {
    let n = N as u64;
    let mut worst = 0u64;
    for w in 0..n {
        for id in [0, 1, N as u32 / 2, N as u32 - 1] {
            for d in [0, 1, 2, 3, n - 1, n, n + 1, 2 * n + 3] {
                let e = w + d;
                let f = first_fire::<A, N>(w, id, e);
                let late = f - e.max(w + 2);
                assert!(f > e, "N={N} W={w} id={id} E={e}: fired early at {f}");
                assert!(
                    late <= n,
                    "N={N} W={w} id={id} E={e}: fired at {f}, {late} cycles past max(E, W+2)"
                );
                worst = worst.max(late);
            }
        }
    }
    assert_eq!(
        worst, n,
        "N={N}: the documented bound max(E, W+2) + N is not tight"
    );
}

#[test]
fn expiry_bound_holds_and_is_tight_n16() {
    check_bound::<4, 16>();
}

#[test]
fn expiry_bound_holds_and_is_tight_n128() {
    let n = 128u64;
    // A full sweep of W is slow at N = 128; sweep every scan phase for one delay and a few
    // phases for the others.
    let mut worst = 0;
    for w in 0..n {
        let e = w + n + 1;
        let f = first_fire::<7, 128>(w, 77, e);
        assert!(f > e && f - e <= n, "W={w} E={e} F={f}");
        worst = worst.max(f - e);
    }
    for w in [0, 5, 127] {
        for d in [0, 1, 2] {
            let e = w + d;
            let f = first_fire::<7, 128>(w, 3, e);
            assert!(f > e && f <= e.max(w + 2) + n, "W={w} E={e} F={f}");
        }
    }
    assert_eq!(worst, n);
}

/// Finds the cycle in which entry `id`, scheduled at cycle 0 already expired, first fires.
fn reference_fire(id: u32) -> u64 {
    first_fire::<4, 16>(0, id, 0)
}

#[test]
fn cancel_in_the_decision_cycle_wins() {
    let id = 9;
    let f = reference_fire(id);
    // The decision is made in cycle f-1; cancelling then must suppress the event.
    let mut tb = Tb::<4, 16, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, id, 0, 1)), true);
    tb.idle_until(f - 1, true);
    assert!(tb.cycle(Some((OP_CANCEL, id, 0, 0)), true).is_none());
    assert_eq!(tb.wait_event(100), None, "a cancelled timer fired");
}

#[test]
fn cancel_after_the_event_appeared_does_not_retract_it() {
    let id = 4;
    let f = reference_fire(id);
    let mut tb = Tb::<4, 16, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, id, 0, 7)), false);
    tb.idle_until(f, false);
    // The event is presented in cycle f; cancel it while it is back-pressured.
    assert_eq!(tb.cycle(Some((OP_CANCEL, id, 0, 0)), false), Some((id, 7)));
    for _ in 0..5 {
        assert_eq!(
            tb.cycle(None, false),
            Some((id, 7)),
            "valid dropped or payload changed while stalled"
        );
    }
    assert_eq!(tb.cycle(None, true), Some((id, 7)));
    assert_eq!(tb.wait_event(100), None, "fired twice");
}

#[test]
fn a_write_during_the_read_makes_the_read_stale() {
    let id = 6;
    let f = reference_fire(id);
    // Cycle f-2 reads the entry. Re-schedule it then with a far expiry: the stale row
    // (expired, meta 1) must not fire; the new one fires later with its own meta.
    let mut tb = Tb::<4, 16, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, id, 0, 1)), true);
    tb.idle_until(f - 2, true);
    let far = tb.now() + 40;
    assert!(tb.cycle(Some((OP_SCHEDULE, id, far, 2)), true).is_none());
    let (c, fid, meta) = tb
        .wait_event(200)
        .expect("the re-scheduled timer never fired");
    assert_eq!((fid, meta), (id, 2));
    assert!(c > far && c <= far + 16, "fired at {c}, expiry {far}");
}

#[test]
fn reschedule_moves_expiry_and_keeps_meta() {
    let mut tb = Tb::<4, 16, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, 3, 1_000_000, 0xabc)), true);
    assert_eq!(tb.wait_event(40), None);
    let now = tb.now();
    tb.cycle(Some((OP_RESCHEDULE, 3, now + 5, 0xfff)), true);
    let (c, id, meta) = tb.wait_event(40).expect("rescheduled timer did not fire");
    assert_eq!((id, meta), (3, 0xabc));
    assert!(c > now + 5 && c <= now + 5 + 16);
}

#[test]
fn reschedule_of_an_idle_entry_is_ignored() {
    let mut tb = Tb::<4, 16, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, 2, 1_000_000, 1)), true);
    tb.cycle(Some((OP_CANCEL, 2, 0, 0)), true);
    tb.cycle(Some((OP_RESCHEDULE, 2, 0, 0)), true); // would be due at once if it re-armed
    tb.cycle(Some((OP_RESCHEDULE, 11, 0, 0)), true); // never scheduled
    assert_eq!(tb.wait_event(100), None);
}

#[test]
fn back_pressure_holds_the_event_and_loses_nothing() {
    let mut tb = Tb::<4, 16, 16>::new();
    for id in 0..16u32 {
        tb.cycle(Some((OP_SCHEDULE, id, 0, 100 + id as u64)), false);
    }
    let mut held = None;
    for _ in 0..50 {
        let ev = tb.cycle(None, false);
        if held.is_some() {
            assert_eq!(ev, held, "event changed while stalled");
        }
        held = ev;
    }
    assert!(held.is_some());
    let mut seen = vec![];
    for _ in 0..200 {
        if let Some((id, meta)) = tb.cycle(None, true) {
            assert_eq!(meta, 100 + id as u64);
            seen.push(id);
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        (0..16).collect::<Vec<_>>(),
        "every timer fires exactly once"
    );
}

#[test]
fn one_event_per_cycle_when_everything_expires() {
    let mut tb = Tb::<4, 16, 16>::new();
    for id in 0..16u32 {
        tb.cycle(Some((OP_SCHEDULE, id, 20, id as u64)), true);
    }
    let mut fired = vec![];
    for _ in 0..60 {
        let c = tb.now();
        if let Some((id, _)) = tb.cycle(None, true) {
            fired.push((c, id));
        }
    }
    assert_eq!(fired.len(), 16);
    // Once the scanner reaches them, expired entries come out on consecutive cycles.
    for w in fired.windows(2) {
        assert_eq!(w[1].0, w[0].0 + 1, "gap in {fired:?}");
    }
}

#[test]
fn reset_disarms_every_timer_and_clears_the_output() {
    let mut tb = Tb::<4, 16, 16>::new();
    for id in 0..16u32 {
        tb.cycle(Some((OP_SCHEDULE, id, 0, 0)), false);
    }
    // (Writing entry c in cycle c keeps pace with the scanner: every read was stale, so the
    // first event comes on the next pass.)
    assert!(
        (0..20).any(|_| tb.cycle(None, false).is_some()),
        "no event before the reset"
    );
    tb.reset();
    assert_eq!(tb.wait_event(100), None);
    // Usable again after the reset.
    tb.cycle(Some((OP_SCHEDULE, 1, 0, 9)), true);
    assert_eq!(tb.wait_event(40).map(|e| (e.1, e.2)), Some((1, 9)));
}

#[test]
#[should_panic(expected = "must equal 2^A")]
fn entries_must_be_a_power_of_two_matching_a() {
    let _ = ScanningTimer::<4, 15, 16>::new();
}

#[test]
#[should_panic(expected = "metadata bits")]
fn metadata_width_is_checked() {
    let _ = ScanningTimer::<4, 16, 0>::new();
}

/// A 128-entry timer reads its rows a cycle ahead (`READ_AHEAD_ABOVE`): a write in the
/// cycle the memory reads an entry's row, the cycle before the scanner points at it, must
/// still be seen (it is forwarded into the row register), as in a timer that reads later.
#[test]
fn a_write_just_before_the_scanner_reaches_an_entry_is_seen_when_rows_are_read_ahead() {
    let id = 40;
    // Decided in cycle f-1; the scanner points at it in f-2; a timer that reads its row
    // then sees the writes up to f-3.
    let f = first_fire::<7, 128>(0, id, 0);
    let mut tb = Tb::<7, 128, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, id, 1 << 40, 1)), true);
    tb.idle_until(f - 3, true);
    assert!(tb.cycle(Some((OP_SCHEDULE, id, 0, 2)), true).is_none());
    assert_eq!(tb.wait_event(10), Some((f, id, 2)));
}

/// Entry `a` fires into the output register, `b` is due while the output is back-pressured
/// (a stall begins the cycle `a`'s event appears), and a command re-arms `c`, the next
/// entry, `k` cycles into the stall: `c` must fire with its new expiry and metadata once
/// the stall ends, whether the command came in the stall's first cycle (`k = 0`) or later.
fn command_for_the_next_entry_during_a_stall<const A: usize, const N: usize>(k: u64) {
    let (a, b, c) = (40u32, 41u32, 42u32);
    let fa = first_fire::<A, N>(0, a, 0);
    let mut tb = Tb::<A, N, 16>::new();
    tb.cycle(Some((OP_SCHEDULE, a, 0, 10)), false);
    tb.cycle(Some((OP_SCHEDULE, b, 0, 11)), false);
    tb.cycle(Some((OP_SCHEDULE, c, 1 << 40, 12)), false);
    tb.idle_until(fa, false);
    for i in 0..=k + 2 {
        let cmd = (i == k).then_some((OP_SCHEDULE, c, 0, 13));
        assert_eq!(tb.cycle(cmd, false), Some((a, 10)), "N={N} k={k} cycle {i}");
    }
    let mut seen = vec![];
    for _ in 0..8 {
        if let Some(e) = tb.cycle(None, true) {
            if seen.last() != Some(&e) {
                seen.push(e);
            }
        }
    }
    assert_eq!(seen, vec![(a, 10), (b, 11), (c, 13)], "N={N} k={k}");
}

#[test]
fn a_command_for_the_next_entry_during_a_stall_is_kept() {
    for k in [0, 1, 2] {
        command_for_the_next_entry_during_a_stall::<7, 128>(k);
        command_for_the_next_entry_during_a_stall::<6, 64>(k);
    }
}
