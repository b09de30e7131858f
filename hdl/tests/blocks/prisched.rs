use nt_hdl::prisched::*;
use nt_sim::kernel::Kernel;

type Tb<const A: usize, const N: usize> = Kernel<PrioSched<A, N>>;

fn tb<const A: usize, const N: usize>() -> Tb<A, N> {
    Kernel::with_clock(PrioSched::<A, N>::new(), |b| &mut b.clock).expect("kernel")
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Resp {
    found: bool,
    id: u64,
    prio: u64,
    a: u64,
    b: u64,
    rank: u64,
    count: u64,
}

fn found(id: u64, prio: u64, a: u64, b: u64, rank: u64, count: u64) -> Resp {
    Resp {
        found: true,
        id,
        prio,
        a,
        b,
        rank,
        count,
    }
}

fn none(count: u64) -> Resp {
    Resp {
        count,
        ..Resp::default()
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Stat {
    upserts: u64,
    removes: u64,
    remove_miss: u64,
    overflowed: u64,
    fifo_drops: u64,
    stale: u64,
    promoted: u64,
    bad_cmds: u64,
    queries: u64,
    count: u64,
    fifo_level: u64,
}

fn stat<const A: usize, const N: usize>(k: &mut Tb<A, N>) -> Stat {
    k.settle().expect("settle");
    let s = &k.uut().stat;
    Stat {
        upserts: s.upserts.val().to_u64(),
        removes: s.removes.val().to_u64(),
        remove_miss: s.remove_miss.val().to_u64(),
        overflowed: s.overflowed.val().to_u64(),
        fifo_drops: s.fifo_drops.val().to_u64(),
        stale: s.stale.val().to_u64(),
        promoted: s.promoted.val().to_u64(),
        bad_cmds: s.bad_cmds.val().to_u64(),
        queries: s.queries.val().to_u64(),
        count: s.count.val().to_u64(),
        fifo_level: s.fifo_level.val().to_u64(),
    }
}

fn resp<const A: usize, const N: usize>(k: &Tb<A, N>) -> Option<Resp> {
    let r = &k.uut().resp;
    r.valid.val().then(|| Resp {
        found: r.found.val(),
        id: r.id.val().to_u64(),
        prio: r.prio.val().to_u64(),
        a: r.a.val().to_u64(),
        b: r.b.val().to_u64(),
        rank: r.rank.val().to_u64(),
        count: r.count.val().to_u64(),
    })
}

fn set_cmd<const A: usize, const N: usize>(
    k: &mut Tb<A, N>,
    op: u64,
    id: u64,
    prio: u64,
    a: u64,
    b: u64,
) {
    let c = &mut k.uut_mut().cmd;
    c.valid.next = true;
    c.op.next = op.into();
    c.id.next = id.into();
    c.prio.next = prio.into();
    c.a.next = a.into();
    c.b.next = b.into();
}

fn set_query<const A: usize, const N: usize>(k: &mut Tb<A, N>, pred: u64, q: u64) {
    let u = k.uut_mut();
    u.query.valid.next = true;
    u.query.pred.next = pred.into();
    u.query.q.next = q.into();
}

/// One cycle with nothing presented.
fn idle<const A: usize, const N: usize>(k: &mut Tb<A, N>) {
    let u = k.uut_mut();
    u.cmd.valid.next = false;
    u.query.valid.next = false;
    k.settle().expect("settle");
    k.tick().expect("tick");
}

/// Presents a command until it is accepted; returns the cycles it was stalled.
fn cmd<const A: usize, const N: usize>(
    k: &mut Tb<A, N>,
    op: u64,
    id: u64,
    prio: u64,
    a: u64,
    b: u64,
) -> u32 {
    set_cmd(k, op, id, prio, a, b);
    let mut stalls = 0;
    loop {
        k.settle().expect("settle");
        let ready = k.uut().cmd.ready.val();
        k.tick().expect("tick");
        if ready {
            break;
        }
        stalls += 1;
        assert!(stalls < 4, "command {op} {id} never accepted");
    }
    k.uut_mut().cmd.valid.next = false;
    stalls
}

fn upsert<const A: usize, const N: usize>(k: &mut Tb<A, N>, id: u64, prio: u64, a: u64, b: u64) {
    cmd(k, OP_UPSERT, id, prio, a, b);
}

fn remove<const A: usize, const N: usize>(k: &mut Tb<A, N>, id: u64) {
    cmd(k, OP_REMOVE, id, 0, 0, 0);
}

/// A query in this cycle; its response exactly `RESP_LATENCY` cycles later (and no
/// response in between).
fn query<const A: usize, const N: usize>(k: &mut Tb<A, N>, pred: u64, q: u64) -> Resp {
    set_query(k, pred, q);
    k.settle().expect("settle");
    assert!(k.uut().query.ready.val());
    k.tick().expect("tick");
    k.uut_mut().query.valid.next = false;
    k.settle().expect("settle");
    assert_eq!(resp(k), None, "no response one cycle after the query");
    k.tick().expect("tick");
    k.settle().expect("settle");
    resp(k).expect("a response two cycles after the query")
}

fn best<const A: usize, const N: usize>(k: &mut Tb<A, N>) -> Resp {
    query(k, PRED_ANY, 0)
}

#[test]
fn upsert_update_and_remove() {
    let mut k = tb::<4, 16>();
    assert_eq!(best(&mut k), none(0));
    upsert(&mut k, 3, 10, 1, 2);
    upsert(&mut k, 5, 7, 3, 4);
    assert_eq!(best(&mut k), found(5, 7, 3, 4, 0, 2));
    // An update of a present id keeps one entry.
    upsert(&mut k, 5, 20, 6, 6);
    assert_eq!(best(&mut k), found(3, 10, 1, 2, 0, 2));
    remove(&mut k, 3);
    assert_eq!(best(&mut k), found(5, 20, 6, 6, 0, 1));
    remove(&mut k, 3);
    remove(&mut k, 5);
    assert_eq!(best(&mut k), none(0));
    let s = stat(&mut k);
    assert_eq!(
        (s.upserts, s.removes, s.remove_miss, s.queries, s.count),
        (3, 3, 1, 5, 0)
    );
    assert_eq!(
        (s.overflowed, s.stale, s.promoted, s.bad_cmds),
        (0, 0, 0, 0)
    );
}

#[test]
fn equal_priorities_go_to_the_lower_id() {
    let mut k = tb::<4, 16>();
    for id in [9, 4, 12, 7] {
        upsert(&mut k, id, 5, id, 0);
    }
    upsert(&mut k, 15, 6, 0, 0);
    assert_eq!(best(&mut k), found(4, 5, 4, 0, 0, 5));
    // a < 10 picks 4, 9 and 7 but not 12; a >= 10 only 12 (rank 3: 4, 7, 9 before it).
    assert_eq!(query(&mut k, PRED_A_LT_Q, 10), found(4, 5, 4, 0, 0, 5));
    assert_eq!(query(&mut k, PRED_A_GT_B, 0).id, 4);
    remove(&mut k, 4);
    remove(&mut k, 7);
    remove(&mut k, 9);
    assert_eq!(best(&mut k), found(12, 5, 12, 0, 0, 2));
    upsert(&mut k, 4, 5, 4, 0);
    assert_eq!(query(&mut k, PRED_A_NE_B, 0), found(4, 5, 4, 0, 0, 3));
    upsert(&mut k, 4, 5, 0, 0);
    assert_eq!(query(&mut k, PRED_A_NE_B, 0), found(12, 5, 12, 0, 1, 3));
}

#[test]
fn each_predicate_selects_and_ranks() {
    let mut k = tb::<4, 16>();
    upsert(&mut k, 1, 100, 8, 9); // a < b
    upsert(&mut k, 2, 200, 7, 7); // a == b
    upsert(&mut k, 3, 300, 9, 2); // a > b
    assert_eq!(query(&mut k, PRED_ANY, 0), found(1, 100, 8, 9, 0, 3));
    assert_eq!(query(&mut k, PRED_A_GT_B, 0), found(3, 300, 9, 2, 2, 3));
    assert_eq!(query(&mut k, PRED_A_NE_B, 0), found(1, 100, 8, 9, 0, 3));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 8), found(2, 200, 7, 7, 1, 3));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 9), found(1, 100, 8, 9, 0, 3));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 7), none(3));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 0), none(3));
    remove(&mut k, 3);
    assert_eq!(query(&mut k, PRED_A_GT_B, 0), none(2));
    remove(&mut k, 1);
    assert_eq!(query(&mut k, PRED_A_NE_B, 0), none(1));
    assert_eq!(stat(&mut k).queries, 9);
}

/// All 16 entries; rank counts the entries before the winner whatever the predicate.
#[test]
fn rank_and_count_over_sixteen_entries() {
    let mut k = tb::<4, 16>();
    for id in 0..16u64 {
        // prio descending with id: id 15 is the best; a > b only for ids 0..8.
        upsert(&mut k, id, 1000 - 10 * id, id, if id < 8 { 0 } else { 99 });
    }
    assert_eq!(stat(&mut k).count, 16);
    assert_eq!(best(&mut k), found(15, 850, 15, 99, 0, 16));
    assert_eq!(query(&mut k, PRED_A_GT_B, 0), found(7, 930, 7, 0, 8, 16));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 1), found(0, 1000, 0, 0, 15, 16));
    // Full: an update still lands in place (no FIFO with N = 16).
    upsert(&mut k, 0, 1, 0, 0);
    assert_eq!(query(&mut k, PRED_A_LT_Q, 1), found(0, 1, 0, 0, 0, 16));
    assert_eq!(query(&mut k, PRED_A_GT_B, 0), found(7, 930, 7, 0, 9, 16));
    let s = stat(&mut k);
    assert_eq!((s.overflowed, s.fifo_level, s.fifo_drops), (0, 0, 0));
}

/// A query sees the state at the start of its cycle, for every field including rank
/// and count: a command in the same cycle, or in the cycle after, does not change its
/// response; a query in the next cycle sees the command.
#[test]
fn a_query_answers_for_the_state_of_its_own_cycle() {
    let mut k = tb::<4, 16>();
    upsert(&mut k, 6, 50, 1, 0);
    upsert(&mut k, 8, 60, 1, 0);
    // Cycle t: query and an insert of a better id 2.
    set_query(&mut k, PRED_ANY, 0);
    set_cmd(&mut k, OP_UPSERT, 2, 10, 0, 0);
    k.settle().expect("settle");
    assert!(k.uut().cmd.ready.val());
    k.tick().expect("tick");
    // t+1: a second query (sees id 2) and a remove of id 6.
    set_cmd(&mut k, OP_REMOVE, 6, 0, 0, 0);
    k.settle().expect("settle");
    assert_eq!(resp(&k), None);
    k.tick().expect("tick");
    // t+2: the first response; an insert of id 1 that is better than everything.
    set_cmd(&mut k, OP_UPSERT, 1, 0, 0, 0);
    k.uut_mut().query.valid.next = false;
    k.settle().expect("settle");
    assert_eq!(resp(&k), Some(found(6, 50, 1, 0, 0, 2)));
    k.tick().expect("tick");
    k.uut_mut().cmd.valid.next = false;
    k.settle().expect("settle");
    assert_eq!(resp(&k), Some(found(2, 10, 0, 0, 0, 3)));
    k.tick().expect("tick");
    k.settle().expect("settle");
    assert_eq!(resp(&k), None);
    // A query whose winner is ranked behind an entry removed in the next cycle.
    set_query(&mut k, PRED_A_NE_B, 0);
    k.settle().expect("settle");
    k.tick().expect("tick");
    k.uut_mut().query.valid.next = false;
    set_cmd(&mut k, OP_REMOVE, 1, 0, 0, 0);
    k.settle().expect("settle");
    k.tick().expect("tick");
    k.uut_mut().cmd.valid.next = false;
    k.settle().expect("settle");
    assert_eq!(resp(&k), Some(found(8, 60, 1, 0, 2, 3)));
}

/// Fills the 16 entries of a 128-id scheduler with ids `0..16` (prio 1000 + id).
fn fill(k: &mut Tb<7, 128>) {
    for id in 0..16u64 {
        upsert(k, id, 1000 + id, 0, 0);
    }
}

#[test]
fn overflow_goes_to_the_fifo_and_is_promoted_after_a_remove() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    upsert(&mut k, 100, 5, 1, 2);
    upsert(&mut k, 101, 6, 3, 4);
    let s = stat(&mut k);
    assert_eq!((s.count, s.fifo_level, s.overflowed), (16, 2, 2));
    // Queued ids are not in the registers yet.
    assert_eq!(best(&mut k), found(0, 1000, 0, 0, 0, 16));
    // A remove frees an entry; the next cycle is a promotion and `cmd.ready` is low.
    remove(&mut k, 7);
    set_cmd(&mut k, OP_REMOVE, 8, 0, 0, 0);
    k.settle().expect("settle");
    assert!(!k.uut().cmd.ready.val(), "ready is low while promoting");
    k.tick().expect("tick");
    k.settle().expect("settle");
    assert!(k.uut().cmd.ready.val());
    k.tick().expect("tick"); // remove 8 accepted
    k.uut_mut().cmd.valid.next = false;
    k.settle().expect("settle");
    assert!(!k.uut().cmd.ready.val(), "second promotion");
    idle(&mut k);
    let s = stat(&mut k);
    assert_eq!(
        (s.count, s.fifo_level, s.promoted, s.stale, s.removes),
        (16, 0, 2, 0, 2)
    );
    assert!(k.uut().cmd.ready.val());
    assert_eq!(best(&mut k), found(100, 5, 1, 2, 0, 16));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 2), found(100, 5, 1, 2, 0, 16));
    assert_eq!(query(&mut k, PRED_A_LT_Q, 1), found(0, 1000, 0, 0, 2, 16));
}

#[test]
fn a_removed_id_is_discarded_from_the_fifo_as_stale() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    upsert(&mut k, 100, 5, 0, 0);
    upsert(&mut k, 101, 6, 0, 0);
    remove(&mut k, 100); // not in the registers: a miss, and no longer live
    k.settle().expect("settle");
    assert!(!k.uut().cmd.ready.val(), "the stale head is popped at once");
    idle(&mut k);
    let s = stat(&mut k);
    assert_eq!((s.remove_miss, s.stale, s.fifo_level), (1, 1, 1));
    // 101 waits for a free entry.
    assert!(k.uut().cmd.ready.val());
    idle(&mut k);
    assert_eq!(stat(&mut k).fifo_level, 1);
    remove(&mut k, 3);
    idle(&mut k); // 101: promoted
    let s = stat(&mut k);
    assert_eq!((s.stale, s.promoted, s.fifo_level, s.count), (1, 1, 0, 16));
    assert_eq!(best(&mut k), found(101, 6, 0, 0, 0, 16));
}

#[test]
fn a_full_fifo_drops_and_counts() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    for id in 0..FIFO_DEPTH as u64 {
        upsert(&mut k, 20 + id, 1, 0, 0);
    }
    let s = stat(&mut k);
    assert_eq!((s.fifo_level, s.overflowed, s.fifo_drops), (16, 16, 0));
    upsert(&mut k, 90, 0, 0, 0);
    upsert(&mut k, 91, 0, 0, 0);
    let s = stat(&mut k);
    assert_eq!(
        (s.fifo_level, s.overflowed, s.fifo_drops, s.upserts),
        (16, 16, 2, 34)
    );
    // Drain: remove the 16 register ids; every queued snapshot is promoted in turn.
    for id in 0..16u64 {
        remove(&mut k, id);
    }
    for _ in 0..4 {
        idle(&mut k);
    }
    let s = stat(&mut k);
    assert_eq!((s.fifo_level, s.promoted, s.count), (0, 16, 16));
    assert_eq!(best(&mut k), found(20, 1, 0, 0, 0, 16));
}

#[test]
fn bad_commands_are_consumed_without_effect() {
    let mut k = tb::<4, 16>();
    assert_eq!(cmd(&mut k, 0, 1, 1, 1, 1), 0);
    assert_eq!(cmd(&mut k, 3, 1, 1, 1, 1), 0);
    assert_eq!(cmd(&mut k, OP_UPSERT, 16, 1, 1, 1), 0);
    assert_eq!(cmd(&mut k, OP_REMOVE, 0xffff, 1, 1, 1), 0);
    upsert(&mut k, 15, 9, 9, 9);
    let s = stat(&mut k);
    assert_eq!((s.bad_cmds, s.upserts, s.removes, s.count), (4, 1, 0, 1));
    assert_eq!(best(&mut k), found(15, 9, 9, 9, 0, 1));
}

/// Two snapshots of one id queued: the older one is promoted into an entry, the newer
/// one updates it (at once: an update needs no free entry).
#[test]
fn a_newer_snapshot_of_the_same_id_wins() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    upsert(&mut k, 100, 50, 1, 1);
    upsert(&mut k, 100, 40, 2, 2);
    remove(&mut k, 0);
    idle(&mut k);
    k.settle().expect("settle");
    assert!(!k.uut().cmd.ready.val(), "the update is popped while full");
    idle(&mut k);
    assert_eq!(query(&mut k, PRED_A_NE_B, 0), none(16));
    assert_eq!(best(&mut k), found(100, 40, 2, 2, 0, 16));
    let s = stat(&mut k);
    assert_eq!((s.promoted, s.stale, s.fifo_level), (2, 0, 0));
}

/// A command that updates an entry in place is newer than the snapshots of its id
/// still queued: they are discarded rather than rolling the entry back.
#[test]
fn a_queued_snapshot_never_overwrites_a_newer_update() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    upsert(&mut k, 100, 50, 0, 0);
    upsert(&mut k, 101, 60, 0, 0);
    upsert(&mut k, 100, 40, 0, 0);
    remove(&mut k, 0); // the next cycle promotes 100 / prio 50 into entry 0
    idle(&mut k);
    let s = stat(&mut k);
    assert_eq!((s.promoted, s.fifo_level), (1, 2));
    // 101 waits for an entry; 100 / prio 40 behind it. This update lands in place.
    upsert(&mut k, 100, 1, 7, 7);
    remove(&mut k, 1); // promotes 101, then pops 100 / prio 40: outdated
    idle(&mut k);
    idle(&mut k);
    let s = stat(&mut k);
    assert_eq!((s.promoted, s.stale, s.count, s.fifo_level), (2, 1, 16, 0));
    assert_eq!(best(&mut k), found(100, 1, 7, 7, 0, 16));
    // Removed and upserted again (FIFO empty: straight into the free entry).
    remove(&mut k, 100);
    upsert(&mut k, 100, 3, 0, 0);
    assert_eq!(best(&mut k), found(100, 3, 0, 0, 0, 16));
}

#[test]
fn reset_empties_everything() {
    let mut k = tb::<7, 128>();
    fill(&mut k);
    upsert(&mut k, 100, 5, 0, 0);
    set_query(&mut k, PRED_ANY, 0);
    k.settle().expect("settle");
    k.tick().expect("tick");
    k.uut_mut().query.valid.next = false;
    k.uut_mut().reset.next = true;
    k.settle().expect("settle");
    k.tick().expect("tick");
    k.uut_mut().reset.next = false;
    k.settle().expect("settle");
    assert_eq!(resp(&k), None, "the query's response is flushed");
    assert_eq!(stat(&mut k), Stat::default());
    assert!(k.uut().cmd.ready.val());
    assert_eq!(best(&mut k), none(0));
    upsert(&mut k, 100, 5, 0, 0);
    assert_eq!(best(&mut k), found(100, 5, 0, 0, 0, 1));
}

/// A 32-id scheduler (another `A`).
#[test]
fn thirty_two_ids_overflow_too() {
    let mut k = tb::<5, 32>();
    for id in 0..20u64 {
        upsert(&mut k, 31 - id, id, 0, 0);
    }
    assert_eq!(cmd(&mut k, OP_UPSERT, 32, 0, 0, 0), 0);
    let s = stat(&mut k);
    assert_eq!((s.count, s.fifo_level, s.bad_cmds), (16, 4, 1));
    assert_eq!(best(&mut k), found(31, 0, 0, 0, 0, 16));
}

#[test]
#[should_panic(expected = "must equal 2^A")]
fn ids_must_be_a_power_of_two_matching_a() {
    let _ = PrioSched::<4, 15>::new();
}

#[test]
#[should_panic(expected = "id bits")]
fn id_bits_are_checked() {
    let _ = PrioSched::<11, 2048>::new();
}
