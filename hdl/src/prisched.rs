//! Priority-scheduler extern (thesis §3.2.2 and §3.3.4): [`ENTRIES`] = 16 register entries
//! compared at once, returning the highest-priority entry that satisfies a predicate, with
//! an overflow FIFO of [`FIFO_DEPTH`] = 16 pending entries behind them. Homa uses it to pick
//! the message to grant (SRPT: the fewest remaining bytes first) and to rank it against the
//! overcommitment degree.
//!
//! ```text
//!  cmd: valid op id prio a b   ┌────────────────────────────────┐     query: valid pred q
//!  ───────────────────────────►│ 16 entries: valid id prio a b  │            │
//!  ◄── ready (low while the    │ order matrix before[16][16]    │            ▼
//!      FIFO head is popped)    └──▲──────────────┬──────────────┘  stage 1 (cycle t): the
//!                                 │ pop          │ UPSERT, no      predicate per entry, the
//!  live[N], newer[N]:          ┌──┴──────────────▼──┐ free entry   winner from the matrix;
//!  bitmaps; an outdated head   │ overflow FIFO, 16  │              every entry's rank and
//!  is discarded                │ (id, prio, a, b)   │              fields registered beside
//!                              └────────────────────┘              stage 2 (t+1): the
//!                                                                  winner's fields and rank
//!                                                                  resp (t+2)
//! ```
//!
//! # Entries
//! Each register entry holds `valid`, `id` (`A` bits), `prio`, `a`, `b` (16 bits each),
//! and the flags `a > b` and `a != b`, evaluated once when the entry is written (so the
//! query compares only `a < q` per entry).
//! Entries are ordered by `(prio, id)`: a LOWER `prio` is a HIGHER priority, ties go to
//! the lower id. A valid id is in at most one entry, so whether an id has an entry is
//! found by comparing it with the 16 entries' ids (in parallel; not a bit of an `N`-wide
//! bitmap chosen by the id, whose multiplexer is 7 levels deep at 128 ids). Bitmaps over
//! the `N` ids say which ids are live (`live`: upserted and not removed since) and which
//! were updated in place (`newer`, below). The FIFO head's "has an entry", "live" and
//! "newer" are registers beside it, kept current each cycle (the command's changes to its
//! id forwarded; on a pop, the next snapshot's looked up), so whether the head is popped
//! is decided from registers.
//!
//! The order of the entries is kept, not computed per query: `before[i]` bit `j` says that
//! entry `i` is ordered before entry `j`. When an entry is written, its key is compared
//! with the 16 others (the command's key and the FIFO head's key are both compared, in
//! parallel, and the one written is chosen), and its row and column of the matrix are
//! replaced. The bits of two valid entries are always exact (every write of an entry
//! rewrites every bit it shares with another); those of an invalid entry are unused.
//!
//! # Interface
//! * `cmd` (ready/valid; `op`, `id`, `prio`, `a`, `b`), one command per cycle:
//!   * [`OP_UPSERT`]: if `id` is in an entry, its `prio`/`a`/`b` are replaced; otherwise it
//!     is inserted into the lowest-numbered free entry; if no entry is free, the snapshot
//!     `(id, prio, a, b)` is pushed into the overflow FIFO (`stat.overflowed`), or, when the
//!     FIFO is full, dropped (`stat.fifo_drops`). Either way `id` is marked live.
//!   * [`OP_REMOVE`]: clears `id`'s entry if there is one (otherwise `stat.remove_miss`;
//!     not an error) and marks `id` not live.
//!   * Op codes 0 and 3, and any `id >= N`, are consumed with no effect and counted in
//!     `stat.bad_cmds`.
//!   * `ready` is low exactly in the cycles in which the FIFO head is popped (below). It
//!     is computed from registers only (no path from `cmd.valid`).
//! * Promotion (background, priority over `cmd`): the FIFO head is popped when the FIFO is
//!   not empty and an entry is free, or the head's id already has an entry (an update needs
//!   no free entry), or the head is outdated. A popped head is applied as an UPSERT
//!   (`stat.promoted`) if its id is still live and its entry has not been updated by a
//!   command since the snapshot was queued; otherwise it is discarded (`stat.stale`). A
//!   head that needs a free entry while all 16 are valid waits (and `ready` stays high).
//!   FIFO entries are snapshots in arrival order: an id upserted twice while the entries
//!   are full has two snapshots queued, and the newer one, popped later, updates the entry
//!   the older one created. An UPSERT command that updates an entry in place (its id is in
//!   the registers) is newer than every snapshot of that id still queued; a bitmap
//!   `newer[N]` (set by such an update, cleared by REMOVE) discards those snapshots so that
//!   they never roll the entry back. A REMOVE followed by an UPSERT that is queued lets
//!   older snapshots of the id, live again, through first; the newer snapshot follows them
//!   in FIFO order, so the entry ends with the newest values (unless the FIFO was full and
//!   the newest snapshot was dropped). Promotion is the only way into a free entry while
//!   the FIFO is not empty, so queued ids keep their order.
//! * `query` (`valid`, `pred`, `q`; `ready` always high): predicates [`PRED_ANY`] (every
//!   valid entry), [`PRED_A_GT_B`] (`a > b`), [`PRED_A_NE_B`] (`a != b`), [`PRED_A_LT_Q`]
//!   (`a < q`).
//! * `resp` (no backpressure): `valid`; `found`; the best entry satisfying the predicate,
//!   lowest `(prio, id)`: `id`, `prio`, `a`, `b`; `rank` = the number of valid entries
//!   ordered strictly before it by `(prio, id)` regardless of the predicate; `count` = the
//!   number of valid entries. `id`/`prio`/`a`/`b`/`rank` are 0 when not found; `count` is
//!   reported whenever `valid`; every field is 0 when `valid` is low.
//! * `stat`: wrapping 32-bit counters `upserts` (UPSERT commands, not promotions),
//!   `removes` (REMOVE commands, misses included), `remove_miss`, `overflowed`,
//!   `fifo_drops`, `stale`, `promoted`, `bad_cmds`, `queries`; levels `count` (valid
//!   entries) and `fifo_level`.
//! * `reset`: synchronous; empties the entries, the FIFO, the bitmaps and the response
//!   pipeline and clears the counters. A command or query in a reset cycle is discarded.
//!
//! # Timing
//! * A command accepted in cycle `t` changes the state at the end of `t`: a query accepted
//!   in `t+1` sees it. A snapshot queued in `t` can be promoted from `t+1` on.
//! * A query accepted in cycle `t` sees the entries as of the start of `t` (commands of
//!   earlier cycles, not one accepted in `t`). Its response, `found`/`id`/`prio`/`a`/`b`
//!   *and* `rank`/`count`, describes that state and is on `resp` in cycle
//!   `t + `[`RESP_LATENCY`] = `t+2`: stage 1 (cycle `t`) evaluates the predicate of every
//!   entry and picks the one matching entry that the matrix orders before every other
//!   matching entry, and registers it (one-hot), the entry count, every entry's rank (the
//!   valid entries ordered before it: a tree of adders per entry, in parallel with the
//!   query) and a copy of every entry's fields (a command of cycle `t` may rewrite an
//!   entry before stage 2 reads it); stage 2 (`t+1`) picks the winner's fields and rank
//!   from those registers.
//! * Throughput: one command per cycle (except in cycles that pop the FIFO) and one query
//!   per cycle.
//! * Logic depth: every path is at most 8 LUT levels on xcup
//!   (`fpga/reports/prisched_n*.xcup.txt`): the query's selection is one AND over the
//!   matrix row per entry, and the multiplexer of the winner's fields and rank is in the
//!   next stage (the ranks' adder trees run beside the query, from registers); the command
//!   side looks up one bit per bitmap for the command, decides the FIFO's pop from
//!   registers, and compares the keys in parallel with the choice of the entry to write.
//!
//! # Parameters
//! * `A`: id bits; `N = 2^A` ids (`1 <= A <= 10`). Ids on the 16-bit `cmd.id` port that are
//!   `>= N` are bad commands. With `N <= 16` every id fits in the registers, so the FIFO
//!   is never used, and its logic is built out (a constant gates its push and pop, and
//!   synthesis removes the rest).
use crate::fifo::Fifo;
use rust_hdl::prelude::*;

/// Register entries compared at once.
pub const ENTRIES: usize = 16;
/// Overflow FIFO depth (pending snapshots).
pub const FIFO_DEPTH: usize = 16;
/// Insert or update an entry.
pub const OP_UPSERT: u64 = 1;
/// Remove an entry.
pub const OP_REMOVE: u64 = 2;
/// Every valid entry.
pub const PRED_ANY: u64 = 0;
/// Entries with `a > b`.
pub const PRED_A_GT_B: u64 = 1;
/// Entries with `a != b`.
pub const PRED_A_NE_B: u64 = 2;
/// Entries with `a < q`.
pub const PRED_A_LT_Q: u64 = 3;
/// Cycles from an accepted query to its response.
pub const RESP_LATENCY: u64 = 2;

// The HDL indexes arrays with literal expressions (`15 - j`, `2 * k + 1`) and keeps the
// entries' flags in 16-bit vectors; the FIFO has 2^4 entries.
const _: () = assert!(ENTRIES == 16 && FIFO_DEPTH == 1 << 4);

/// A queued UPSERT: the command's fields as they arrived.
#[derive(Clone, Copy, Debug, PartialEq, Default, LogicStruct)]
pub struct PsSnapshot {
    pub id: Bits<16>,
    pub prio: Bits<16>,
    pub a: Bits<16>,
    pub b: Bits<16>,
}

/// Commands (ready/valid).
#[derive(LogicInterface, Default)]
pub struct PsCmd {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    /// [`OP_UPSERT`] or [`OP_REMOVE`]; 0 and 3 are bad commands.
    pub op: Signal<In, Bits<2>>,
    pub id: Signal<In, Bits<16>>,
    pub prio: Signal<In, Bits<16>>,
    pub a: Signal<In, Bits<16>>,
    pub b: Signal<In, Bits<16>>,
}

/// Queries (`ready` always high).
#[derive(LogicInterface, Default)]
pub struct PsQuery {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    /// [`PRED_ANY`], [`PRED_A_GT_B`], [`PRED_A_NE_B`] or [`PRED_A_LT_Q`].
    pub pred: Signal<In, Bits<2>>,
    /// The bound of [`PRED_A_LT_Q`].
    pub q: Signal<In, Bits<16>>,
}

/// A query's answer, [`RESP_LATENCY`] cycles after it.
#[derive(LogicInterface, Default)]
pub struct PsResp {
    pub valid: Signal<Out, bool>,
    pub found: Signal<Out, bool>,
    pub id: Signal<Out, Bits<16>>,
    pub prio: Signal<Out, Bits<16>>,
    pub a: Signal<Out, Bits<16>>,
    pub b: Signal<Out, Bits<16>>,
    /// Valid entries ordered strictly before the winner by `(prio, id)`.
    pub rank: Signal<Out, Bits<8>>,
    /// Valid entries.
    pub count: Signal<Out, Bits<8>>,
}

/// Counters (wrapping) and levels.
#[derive(LogicInterface, Default)]
pub struct PsStat {
    pub upserts: Signal<Out, Bits<32>>,
    pub removes: Signal<Out, Bits<32>>,
    pub remove_miss: Signal<Out, Bits<32>>,
    pub overflowed: Signal<Out, Bits<32>>,
    pub fifo_drops: Signal<Out, Bits<32>>,
    pub stale: Signal<Out, Bits<32>>,
    pub promoted: Signal<Out, Bits<32>>,
    pub bad_cmds: Signal<Out, Bits<32>>,
    pub queries: Signal<Out, Bits<32>>,
    /// Valid entries.
    pub count: Signal<Out, Bits<8>>,
    /// Snapshots in the overflow FIFO.
    pub fifo_level: Signal<Out, Bits<8>>,
}

/// The priority scheduler over `N = 2^A` message ids. See the module documentation.
#[derive(LogicBlock)]
pub struct PrioSched<const A: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cmd: PsCmd,
    pub query: PsQuery,
    pub resp: PsResp,
    pub stat: PsStat,

    // entries
    /// Bit `i`: entry `i` holds an id.
    ent_valid: DFF<Bits<16>>,
    ent_id: [DFF<Bits<A>>; ENTRIES],
    ent_prio: [DFF<Bits<16>>; ENTRIES],
    ent_a: [DFF<Bits<16>>; ENTRIES],
    ent_b: [DFF<Bits<16>>; ENTRIES],
    /// Bit `i`: entry `i`'s `a > b` / `a != b`, computed once when it is written.
    ent_a_gt_b: DFF<Bits<16>>,
    ent_a_ne_b: DFF<Bits<16>>,
    /// Row `i`, bit `j`: entry `i` is ordered before entry `j` by `(prio, id)` (exact for
    /// two valid entries `i != j`).
    before: [DFF<Bits<16>>; ENTRIES],
    /// Valid entries, 0..=16.
    used: DFF<Bits<5>>,
    /// Ids upserted and not removed since.
    live: DFF<Bits<N>>,
    /// Ids whose entry a command updated in place since they were last removed: every
    /// queued snapshot of them is older than the entry.
    newer: DFF<Bits<N>>,
    /// The overflow FIFO: its head in registers (`hd`, valid while `hv`), the entries
    /// after it in `ov_rest` (as `rfifo::RegFifo`; it holds at most 15). Beside the
    /// head, whether its id has an entry and its id's bits of `live` and `newer`, kept
    /// current every cycle from this cycle's changes, so that whether the head is popped
    /// is decided from registers (the lookups were the start of the command side's longest
    /// path: 62 MHz on ECP5 at 128 ids).
    ov_rest: Fifo<PsSnapshot, 4, 5>,
    hd: DFF<PsSnapshot>,
    hv: DFF<bool>,
    hd_held: DFF<bool>,
    hd_live: DFF<bool>,
    hd_newer: DFF<bool>,

    // query stage 1 (the winner, the count, every entry's rank and the entries' fields
    // as the query saw them)
    s1_valid: DFF<bool>,
    s1_found: DFF<bool>,
    /// One-hot: the winner (0 without one).
    s1_win: DFF<Bits<16>>,
    s1_count: DFF<Bits<5>>,
    /// Entry `i`'s rank: the valid entries ordered before it (one tree of adders each).
    s1_rk: [DFF<Bits<5>>; ENTRIES],
    rk_count: [Popcount16; ENTRIES],
    /// The entries' fields in the query's cycle (a command of that cycle may rewrite an
    /// entry; stage 2 reads the winner's fields from these copies).
    sh_id: [DFF<Bits<A>>; ENTRIES],
    sh_prio: [DFF<Bits<16>>; ENTRIES],
    sh_a: [DFF<Bits<16>>; ENTRIES],
    sh_b: [DFF<Bits<16>>; ENTRIES],
    // query stage 2 (the response)
    s2_valid: DFF<bool>,
    s2_found: DFF<bool>,
    s2_id: DFF<Bits<16>>,
    s2_prio: DFF<Bits<16>>,
    s2_a: DFF<Bits<16>>,
    s2_b: DFF<Bits<16>>,
    s2_rank: DFF<Bits<8>>,
    s2_count: DFF<Bits<8>>,

    // counters
    n_upserts: DFF<Bits<32>>,
    n_removes: DFF<Bits<32>>,
    n_remove_miss: DFF<Bits<32>>,
    n_overflowed: DFF<Bits<32>>,
    n_fifo_drops: DFF<Bits<32>>,
    n_stale: DFF<Bits<32>>,
    n_promoted: DFF<Bits<32>>,
    n_bad_cmds: DFF<Bits<32>>,
    n_queries: DFF<Bits<32>>,

    // command side
    any_free: Signal<Local, bool>,
    /// `used + 1` and `used - 1`, from the register alone (the command's decision picks).
    used_inc: Signal<Local, Bits<5>>,
    used_dec: Signal<Local, Bits<5>>,
    fifo_head_id: Signal<Local, Bits<16>>,
    head_idx: Signal<Local, Bits<A>>,
    head_prio: Signal<Local, Bits<16>>,
    head_a: Signal<Local, Bits<16>>,
    head_b: Signal<Local, Bits<16>>,
    head_held: Signal<Local, bool>,
    head_fresh: Signal<Local, bool>,
    /// The head's id is the command's.
    hd_is_cmd: Signal<Local, bool>,
    /// This cycle's REMOVE is of the head's id (its three bits cleared).
    rm_head: Signal<Local, bool>,
    /// The id of the snapshot after the head, and whether it is the head's id.
    fifo_next_id: Signal<Local, Bits<16>>,
    nx_idx: Signal<Local, Bits<A>>,
    nx_is_head: Signal<Local, bool>,
    /// One-hot over the entries: the next snapshot's id's entry (0 when there is none).
    nx_match: Signal<Local, Bits<16>>,
    /// `newer`'s bit of the command's id.
    cmd_newer: Signal<Local, bool>,
    /// Snapshots queued: the head and the entries after it.
    level: Signal<Local, Bits<5>>,
    promote: Signal<Local, bool>,
    take: Signal<Local, bool>,
    cmd_idx: Signal<Local, Bits<A>>,
    cmd_legal: Signal<Local, bool>,
    cmd_upsert: Signal<Local, bool>,
    do_remove: Signal<Local, bool>,
    cmd_hit: Signal<Local, bool>,
    /// One-hot over the ids: the command's id.
    cmd_bit: Signal<Local, Bits<N>>,
    /// One-hot over the entries: the command's id's entry, the head's id's entry, the
    /// lowest free entry (each 0 when there is none).
    cmd_match: Signal<Local, Bits<16>>,
    head_match: Signal<Local, Bits<16>>,
    free_one: Signal<Local, Bits<16>>,
    /// The entry the head would write, the entry the command would write (0 for none).
    wr_head: Signal<Local, Bits<16>>,
    wr_cmd: Signal<Local, Bits<16>>,
    /// A legal UPSERT is on `cmd` (taken unless the head is popped).
    cmd_go: Signal<Local, bool>,
    /// Bit `j`: the command's / the head's key is ordered before entry `j`'s.
    cmd_before: Signal<Local, Bits<16>>,
    head_before: Signal<Local, Bits<16>>,
    ins_head: Signal<Local, bool>,
    ins_cmd: Signal<Local, bool>,
    insert: Signal<Local, bool>,
    /// One-hot: the entry written this cycle (0 when none).
    wr: Signal<Local, Bits<16>>,
    src_idx: Signal<Local, Bits<A>>,
    src_prio: Signal<Local, Bits<16>>,
    src_a: Signal<Local, Bits<16>>,
    src_b: Signal<Local, Bits<16>>,
    src_a_gt_b: Signal<Local, bool>,
    src_a_ne_b: Signal<Local, bool>,
    src_before: Signal<Local, Bits<16>>,
    fifo_full: Signal<Local, bool>,
    to_fifo: Signal<Local, bool>,
    to_drop: Signal<Local, bool>,
    push_snap: Signal<Local, PsSnapshot>,
    // query side
    a_lt_q: Signal<Local, Bits<16>>,
    matching: Signal<Local, Bits<16>>,
    /// One-hot: the matching entry ordered before every other matching entry.
    win: Signal<Local, Bits<16>>,
    // stage 2: the winner's fields and rank, ORs over the registered one-hot winner
    w_id: Signal<Local, Bits<A>>,
    w_prio: Signal<Local, Bits<16>>,
    w_a: Signal<Local, Bits<16>>,
    w_b: Signal<Local, Bits<16>>,
    w_rank: Signal<Local, Bits<5>>,

    // constants
    one_hot: [Constant<Bits<16>>; ENTRIES],
    ones_16: Constant<Bits<16>>,
    /// The bits of a 16-bit id above `A` (an id is `< N` when they are all 0).
    id_high: Constant<Bits<16>>,
    entries_5: Constant<Bits<5>>,
    /// `N > ENTRIES`: the overflow FIFO can be needed (see `new`).
    fifo_on: Constant<bool>,
    /// `FIFO_DEPTH - 1`: the entries after the head when the FIFO is full.
    rest_full_5: Constant<Bits<5>>,
    one_5: Constant<Bits<5>>,
    zero_5: Constant<Bits<5>>,
    zero_a: Constant<Bits<A>>,
    zero_8: Constant<Bits<8>>,
    zero_16: Constant<Bits<16>>,
    one_16: Constant<Bits<16>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    one_n: Constant<Bits<N>>,
    zero_n: Constant<Bits<N>>,
    op_upsert: Constant<Bits<2>>,
    op_remove: Constant<Bits<2>>,
    pred_a_gt_b: Constant<Bits<2>>,
    pred_a_ne_b: Constant<Bits<2>>,
    pred_a_lt_q: Constant<Bits<2>>,
}

impl<const A: usize, const N: usize> PrioSched<A, N> {
    /// Builds an empty scheduler over `N = 2^A` ids.
    ///
    /// Panics unless `1 <= A <= 10` and `N == 2^A`.
    pub fn new() -> Self {
        assert!(
            (1..=10).contains(&A),
            "priority scheduler id bits A={A} must be 1..=10"
        );
        assert_eq!(
            N,
            1usize << A,
            "priority scheduler ids N={N} must equal 2^A = {}",
            1usize << A
        );
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cmd: Default::default(),
            query: Default::default(),
            resp: Default::default(),
            stat: Default::default(),
            ent_valid: Default::default(),
            ent_id: std::array::from_fn(|_| Default::default()),
            ent_prio: std::array::from_fn(|_| Default::default()),
            ent_a: std::array::from_fn(|_| Default::default()),
            ent_b: std::array::from_fn(|_| Default::default()),
            ent_a_gt_b: Default::default(),
            ent_a_ne_b: Default::default(),
            before: std::array::from_fn(|_| Default::default()),
            used: Default::default(),
            live: Default::default(),
            newer: Default::default(),
            ov_rest: Fifo::new(),
            hd: Default::default(),
            hv: Default::default(),
            hd_held: Default::default(),
            hd_live: Default::default(),
            hd_newer: Default::default(),
            s1_valid: Default::default(),
            s1_found: Default::default(),
            s1_win: Default::default(),
            s1_count: Default::default(),
            s1_rk: std::array::from_fn(|_| Default::default()),
            rk_count: std::array::from_fn(|_| Default::default()),
            sh_id: std::array::from_fn(|_| Default::default()),
            sh_prio: std::array::from_fn(|_| Default::default()),
            sh_a: std::array::from_fn(|_| Default::default()),
            sh_b: std::array::from_fn(|_| Default::default()),
            s2_valid: Default::default(),
            s2_found: Default::default(),
            s2_id: Default::default(),
            s2_prio: Default::default(),
            s2_a: Default::default(),
            s2_b: Default::default(),
            s2_rank: Default::default(),
            s2_count: Default::default(),
            n_upserts: Default::default(),
            n_removes: Default::default(),
            n_remove_miss: Default::default(),
            n_overflowed: Default::default(),
            n_fifo_drops: Default::default(),
            n_stale: Default::default(),
            n_promoted: Default::default(),
            n_bad_cmds: Default::default(),
            n_queries: Default::default(),
            any_free: Default::default(),
            used_inc: Default::default(),
            used_dec: Default::default(),
            fifo_head_id: Default::default(),
            head_idx: Default::default(),
            head_prio: Default::default(),
            head_a: Default::default(),
            head_b: Default::default(),
            head_held: Default::default(),
            head_fresh: Default::default(),
            hd_is_cmd: Default::default(),
            rm_head: Default::default(),
            fifo_next_id: Default::default(),
            nx_idx: Default::default(),
            nx_is_head: Default::default(),
            nx_match: Default::default(),
            cmd_newer: Default::default(),
            level: Default::default(),
            promote: Default::default(),
            take: Default::default(),
            cmd_idx: Default::default(),
            cmd_legal: Default::default(),
            cmd_upsert: Default::default(),
            do_remove: Default::default(),
            cmd_hit: Default::default(),
            cmd_bit: Default::default(),
            cmd_match: Default::default(),
            head_match: Default::default(),
            free_one: Default::default(),
            wr_head: Default::default(),
            wr_cmd: Default::default(),
            cmd_go: Default::default(),
            cmd_before: Default::default(),
            head_before: Default::default(),
            ins_head: Default::default(),
            ins_cmd: Default::default(),
            insert: Default::default(),
            wr: Default::default(),
            src_idx: Default::default(),
            src_prio: Default::default(),
            src_a: Default::default(),
            src_b: Default::default(),
            src_a_gt_b: Default::default(),
            src_a_ne_b: Default::default(),
            src_before: Default::default(),
            fifo_full: Default::default(),
            to_fifo: Default::default(),
            to_drop: Default::default(),
            push_snap: Default::default(),
            a_lt_q: Default::default(),
            matching: Default::default(),
            win: Default::default(),
            w_id: Default::default(),
            w_prio: Default::default(),
            w_a: Default::default(),
            w_b: Default::default(),
            w_rank: Default::default(),
            one_hot: std::array::from_fn(|i| Constant::new((1u64 << i).into())),
            ones_16: Constant::new(0xffff.into()),
            id_high: Constant::new((0xffff_u64 & !(N as u64 - 1)).into()),
            entries_5: Constant::new((ENTRIES as u64).into()),
            // With N <= ENTRIES the FIFO is never used: an UPSERT finds no free entry only
            // when all ENTRIES entries hold distinct valid ids, that is every id, its own
            // included, so it updates in place. The constant lets synthesis remove the
            // FIFO's logic (its head's lookups were the longest path at N = 16); the
            // behaviour is the same.
            fifo_on: Constant::new(N > ENTRIES),
            rest_full_5: Constant::new(((FIFO_DEPTH - 1) as u64).into()),
            one_5: Constant::new(1.into()),
            zero_5: Constant::new(0.into()),
            zero_a: Constant::new(0.into()),
            zero_8: Constant::new(0.into()),
            zero_16: Constant::new(0.into()),
            one_16: Constant::new(1.into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            one_n: Constant::new(1.into()),
            zero_n: Constant::new(0.into()),
            op_upsert: Constant::new(OP_UPSERT.into()),
            op_remove: Constant::new(OP_REMOVE.into()),
            pred_a_gt_b: Constant::new(PRED_A_GT_B.into()),
            pred_a_ne_b: Constant::new(PRED_A_NE_B.into()),
            pred_a_lt_q: Constant::new(PRED_A_LT_Q.into()),
        }
    }
}

impl<const A: usize, const N: usize> Default for PrioSched<A, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// 16 message ids.
pub type PrioSched16 = PrioSched<4, 16>;
/// 128 message ids.
pub type PrioSched128 = PrioSched<7, 128>;

impl<const A: usize, const N: usize> Logic for PrioSched<A, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            ent_valid,
            ent_a_gt_b,
            ent_a_ne_b,
            used,
            live,
            newer,
            hd,
            hv,
            hd_held,
            hd_live,
            hd_newer,
            s1_valid,
            s1_found,
            s1_win,
            s1_count,
            s2_valid,
            s2_found,
            s2_id,
            s2_prio,
            s2_a,
            s2_b,
            s2_rank,
            s2_count,
            n_upserts,
            n_removes,
            n_remove_miss,
            n_overflowed,
            n_fifo_drops,
            n_stale,
            n_promoted,
            n_bad_cmds,
            n_queries
        );
        for i in 0..ENTRIES {
            self.ent_id[i].clock.next = self.clock.val();
            self.ent_prio[i].clock.next = self.clock.val();
            self.ent_a[i].clock.next = self.clock.val();
            self.ent_b[i].clock.next = self.clock.val();
            self.before[i].clock.next = self.clock.val();
            self.s1_rk[i].clock.next = self.clock.val();
            self.sh_id[i].clock.next = self.clock.val();
            self.sh_prio[i].clock.next = self.clock.val();
            self.sh_a[i].clock.next = self.clock.val();
            self.sh_b[i].clock.next = self.clock.val();
            self.ent_id[i].d.next = self.ent_id[i].q.val();
            self.ent_prio[i].d.next = self.ent_prio[i].q.val();
            self.ent_a[i].d.next = self.ent_a[i].q.val();
            self.ent_b[i].d.next = self.ent_b[i].q.val();
        }
        self.ov_rest.clock.next = self.clock.val();
        self.ov_rest.reset.next = self.reset.val();

        // ---- Commands and promotion: one entry operation per cycle. ----
        // Whether the head is popped comes from registers only: the head's bits of the
        // bitmaps are registers beside it.
        self.any_free.next = self.used.q.val() != self.entries_5.val();
        self.used_inc.next = self.used.q.val() + self.one_5.val();
        self.used_dec.next = self.used.q.val() - self.one_5.val();
        // The FIFO holds 16-bit ids (all < N); its head is defined only while nonempty,
        // and everything derived from it is gated by `promote`.
        self.fifo_head_id.next = self.hd.q.val().id;
        self.head_idx.next = self.fifo_head_id.val().get_bits::<A>(0);
        // The snapshot after the head (defined only while the inner FIFO is nonempty; what
        // is derived from it is used only on a pop).
        self.fifo_next_id.next = self.ov_rest.head.val().id;
        self.nx_idx.next = self.fifo_next_id.val().get_bits::<A>(0);
        self.head_prio.next = self.hd.q.val().prio;
        self.head_a.next = self.hd.q.val().a;
        self.head_b.next = self.hd.q.val().b;
        self.head_held.next = self.hd_held.q.val();
        self.head_fresh.next = self.hd_live.q.val() & !self.hd_newer.q.val();
        // The head is popped when it can be applied (an entry is free, or its id has one)
        // or is to be discarded.
        self.promote.next = self.fifo_on.val()
            & self.hv.q.val()
            & (self.any_free.val() | self.head_held.val() | !self.head_fresh.val());
        self.cmd.ready.next = !self.promote.val();
        self.take.next = self.cmd.valid.val() & !self.promote.val();
        self.cmd_idx.next = self.cmd.id.val().get_bits::<A>(0);
        // `id < N` as "no bit above A" (an OR, not a 16-bit compare).
        self.cmd_legal.next = ((self.cmd.id.val() & self.id_high.val()) == self.zero_16.val())
            & ((self.cmd.op.val() == self.op_upsert.val())
                | (self.cmd.op.val() == self.op_remove.val()));
        self.cmd_upsert.next =
            self.take.val() & self.cmd_legal.val() & (self.cmd.op.val() == self.op_upsert.val());
        self.do_remove.next =
            self.take.val() & self.cmd_legal.val() & (self.cmd.op.val() == self.op_remove.val());
        self.cmd_bit.next = self.one_n.val() << self.cmd_idx.val();

        // Per entry, in parallel: which entry holds the command's id, the head's id and
        // the next snapshot's id, the lowest free entry, and whether each key is ordered before the entry's.
        self.cmd_match.next = self.zero_16.val();
        self.head_match.next = self.zero_16.val();
        self.nx_match.next = self.zero_16.val();
        self.cmd_before.next = self.zero_16.val();
        self.head_before.next = self.zero_16.val();
        for i in 0..ENTRIES {
            if self.ent_valid.q.val().get_bit(i) & (self.ent_id[i].q.val() == self.cmd_idx.val()) {
                self.cmd_match.next = self.cmd_match.val() | self.one_hot[i].val();
            }
            if self.ent_valid.q.val().get_bit(i) & (self.ent_id[i].q.val() == self.head_idx.val()) {
                self.head_match.next = self.head_match.val() | self.one_hot[i].val();
            }
            if self.ent_valid.q.val().get_bit(i) & (self.ent_id[i].q.val() == self.nx_idx.val()) {
                self.nx_match.next = self.nx_match.val() | self.one_hot[i].val();
            }
            if (self.cmd.prio.val() < self.ent_prio[i].q.val())
                | ((self.cmd.prio.val() == self.ent_prio[i].q.val())
                    & (self.cmd_idx.val() < self.ent_id[i].q.val()))
            {
                self.cmd_before.next = self.cmd_before.val() | self.one_hot[i].val();
            }
            if (self.head_prio.val() < self.ent_prio[i].q.val())
                | ((self.head_prio.val() == self.ent_prio[i].q.val())
                    & (self.head_idx.val() < self.ent_id[i].q.val()))
            {
                self.head_before.next = self.head_before.val() | self.one_hot[i].val();
            }
        }
        // The lowest clear bit of `ent_valid` (0 when all are set): a carry, not a chain
        // of 16 priority multiplexers.
        self.free_one.next = !self.ent_valid.q.val() & (self.ent_valid.q.val() + self.one_16.val());
        // Whether the command's id has an entry: from the 16 compares, not a bit of an
        // N-wide bitmap chosen by the id (at 128 ids that multiplexer, 7 levels of
        // multiplexers on ECP5, began the command side's longest path).
        self.cmd_hit.next = self.cmd_match.val() != self.zero_16.val();

        // What is written: a fresh head (into a free entry, or onto its id's entry), or
        // a legal UPSERT (onto its id's entry, or into a free entry when there is one).
        self.ins_head.next = self.promote.val() & self.head_fresh.val() & !self.head_held.val();
        self.ins_cmd.next = self.cmd_upsert.val() & !self.cmd_hit.val() & self.any_free.val();
        self.insert.next = self.ins_head.val() | self.ins_cmd.val();
        // The same choice, flat: the head's entry or the command's, each picked from its
        // own lookups, then one multiplexer on `promote`. A command's id has an entry
        // exactly when `cmd_match` is not 0, so an update in place is `cmd_match` itself.
        self.wr_head.next = self.zero_16.val();
        if self.head_fresh.val() {
            if self.head_held.val() {
                self.wr_head.next = self.head_match.val();
            } else {
                self.wr_head.next = self.free_one.val();
            }
        }
        self.wr_cmd.next = self.cmd_match.val();
        if !self.cmd_hit.val() & self.any_free.val() {
            self.wr_cmd.next = self.free_one.val();
        }
        self.cmd_go.next = self.cmd.valid.val()
            & self.cmd_legal.val()
            & (self.cmd.op.val() == self.op_upsert.val());
        self.wr.next = self.zero_16.val();
        if self.promote.val() {
            self.wr.next = self.wr_head.val();
        } else if self.cmd_go.val() {
            self.wr.next = self.wr_cmd.val();
        }
        if self.promote.val() {
            self.src_idx.next = self.head_idx.val();
            self.src_prio.next = self.head_prio.val();
            self.src_a.next = self.head_a.val();
            self.src_b.next = self.head_b.val();
            self.src_a_gt_b.next = self.head_a.val() > self.head_b.val();
            self.src_a_ne_b.next = self.head_a.val() != self.head_b.val();
            self.src_before.next = self.head_before.val();
        } else {
            self.src_idx.next = self.cmd_idx.val();
            self.src_prio.next = self.cmd.prio.val();
            self.src_a.next = self.cmd.a.val();
            self.src_b.next = self.cmd.b.val();
            self.src_a_gt_b.next = self.cmd.a.val() > self.cmd.b.val();
            self.src_a_ne_b.next = self.cmd.a.val() != self.cmd.b.val();
            self.src_before.next = self.cmd_before.val();
        }
        // The written entry takes the new values and the new key's row of the matrix;
        // every other entry's bit for it is the reverse (a valid entry's key differs from
        // the new one: its id differs).
        for i in 0..ENTRIES {
            if self.wr.val().get_bit(i) {
                self.ent_id[i].d.next = self.src_idx.val();
                self.ent_prio[i].d.next = self.src_prio.val();
                self.ent_a[i].d.next = self.src_a.val();
                self.ent_b[i].d.next = self.src_b.val();
                self.before[i].d.next = self.src_before.val();
            } else {
                if self.src_before.val().get_bit(i) {
                    self.before[i].d.next = self.before[i].q.val() & !self.wr.val();
                } else {
                    self.before[i].d.next = self.before[i].q.val() | self.wr.val();
                }
            }
        }
        self.ent_a_gt_b.d.next = self.ent_a_gt_b.q.val() & !self.wr.val();
        if self.src_a_gt_b.val() {
            self.ent_a_gt_b.d.next = self.ent_a_gt_b.q.val() | self.wr.val();
        }
        self.ent_a_ne_b.d.next = self.ent_a_ne_b.q.val() & !self.wr.val();
        if self.src_a_ne_b.val() {
            self.ent_a_ne_b.d.next = self.ent_a_ne_b.q.val() | self.wr.val();
        }
        self.ent_valid.d.next = self.ent_valid.q.val();
        if self.insert.val() {
            self.ent_valid.d.next = self.ent_valid.q.val() | self.free_one.val();
            self.used.d.next = self.used_inc.val();
        }
        if self.do_remove.val() {
            // A miss clears nothing: `cmd_match` is 0.
            self.ent_valid.d.next = self.ent_valid.q.val() & !self.cmd_match.val();
        }
        if self.do_remove.val() & self.cmd_hit.val() {
            self.used.d.next = self.used_dec.val();
        }
        // No entry free (so no promotion): the command's snapshot goes to the FIFO.
        self.fifo_full.next =
            self.hv.q.val() & (self.ov_rest.count.val() == self.rest_full_5.val());
        self.to_fifo.next = self.fifo_on.val()
            & self.cmd_upsert.val()
            & !self.cmd_hit.val()
            & !self.any_free.val()
            & !self.fifo_full.val();
        self.to_drop.next = self.cmd_upsert.val()
            & !self.cmd_hit.val()
            & !self.any_free.val()
            & self.fifo_full.val();
        self.push_snap.next.id = self.cmd.id.val();
        self.push_snap.next.prio = self.cmd.prio.val();
        self.push_snap.next.a = self.cmd.a.val();
        self.push_snap.next.b = self.cmd.b.val();
        // The FIFO (a push and a pop are never in one cycle: a command is taken only
        // when the head is not popped). A snapshot pushed into an empty FIFO becomes the
        // head; the head's bits are then the command's id's after the command: held 0
        // (it had no entry and none was free), live 1, newer unchanged.
        self.ov_rest.push_data.next = self.push_snap.val();
        self.ov_rest.push.next = self.to_fifo.val() & self.hv.q.val();
        self.ov_rest.pop.next = self.promote.val() & self.ov_rest.nonempty.val();
        self.cmd_newer.next = self.newer.q.val().get_bit(self.cmd_idx.val().index());
        self.nx_is_head.next = self.nx_idx.val() == self.head_idx.val();
        // A head that stays: its bits change as this cycle's command changes its id's.
        self.hd_is_cmd.next = self.head_idx.val() == self.cmd_idx.val();
        self.rm_head.next = self.do_remove.val() & self.hd_is_cmd.val();
        self.hd_held.d.next = (self.hd_held.q.val() | (self.ins_cmd.val() & self.hd_is_cmd.val()))
            & !self.rm_head.val();
        self.hd_live.d.next = (self.hd_live.q.val()
            | (self.cmd_upsert.val() & self.hd_is_cmd.val()))
            & !self.rm_head.val();
        self.hd_newer.d.next = (self.hd_newer.q.val()
            | (self.cmd_upsert.val() & self.cmd_hit.val() & self.hd_is_cmd.val()))
            & !self.rm_head.val();
        if self.to_fifo.val() {
            if !self.hv.q.val() {
                self.hd.d.next = self.push_snap.val();
                self.hv.d.next = true;
                self.hd_held.d.next = false;
                self.hd_live.d.next = true;
                self.hd_newer.d.next = self.cmd_newer.val();
            }
        }
        // A pop: the next snapshot's bits, from the bitmaps (no command this cycle; the
        // popped head may insert its id, which the next snapshot may share).
        if self.promote.val() {
            self.hv.d.next = self.ov_rest.nonempty.val();
            self.hd.d.next = self.ov_rest.head.val();
            self.hd_held.d.next = (self.nx_match.val() != self.zero_16.val())
                | (self.ins_head.val() & self.nx_is_head.val());
            self.hd_live.d.next = self.live.q.val().get_bit(self.nx_idx.val().index());
            self.hd_newer.d.next = self.newer.q.val().get_bit(self.nx_idx.val().index());
        }
        // Liveness.
        if self.cmd_upsert.val() {
            self.live.d.next = self.live.q.val() | self.cmd_bit.val();
            if self.cmd_hit.val() {
                self.newer.d.next = self.newer.q.val() | self.cmd_bit.val();
            }
        }
        if self.do_remove.val() {
            self.live.d.next = self.live.q.val() & !self.cmd_bit.val();
            self.newer.d.next = self.newer.q.val() & !self.cmd_bit.val();
        }
        // Counters.
        if self.cmd_upsert.val() {
            self.n_upserts.d.next = self.n_upserts.q.val() + self.one_32.val();
        }
        if self.do_remove.val() {
            self.n_removes.d.next = self.n_removes.q.val() + self.one_32.val();
        }
        if self.do_remove.val() & !self.cmd_hit.val() {
            self.n_remove_miss.d.next = self.n_remove_miss.q.val() + self.one_32.val();
        }
        if self.to_fifo.val() {
            self.n_overflowed.d.next = self.n_overflowed.q.val() + self.one_32.val();
        }
        if self.to_drop.val() {
            self.n_fifo_drops.d.next = self.n_fifo_drops.q.val() + self.one_32.val();
        }
        if self.promote.val() & !self.head_fresh.val() {
            self.n_stale.d.next = self.n_stale.q.val() + self.one_32.val();
        }
        if self.promote.val() & self.head_fresh.val() {
            self.n_promoted.d.next = self.n_promoted.q.val() + self.one_32.val();
        }
        if self.take.val() & !self.cmd_legal.val() {
            self.n_bad_cmds.d.next = self.n_bad_cmds.q.val() + self.one_32.val();
        }
        if self.query.valid.val() {
            self.n_queries.d.next = self.n_queries.q.val() + self.one_32.val();
        }

        // ---- Query stage 1: predicate per entry, the winner from the matrix. ----
        self.query.ready.next = true;
        self.a_lt_q.next = self.zero_16.val();
        for i in 0..ENTRIES {
            if self.ent_a[i].q.val() < self.query.q.val() {
                self.a_lt_q.next = self.a_lt_q.val() | self.one_hot[i].val();
            }
        }
        self.matching.next = self.ent_valid.q.val();
        if self.query.pred.val() == self.pred_a_gt_b.val() {
            self.matching.next = self.ent_valid.q.val() & self.ent_a_gt_b.q.val();
        }
        if self.query.pred.val() == self.pred_a_ne_b.val() {
            self.matching.next = self.ent_valid.q.val() & self.ent_a_ne_b.q.val();
        }
        if self.query.pred.val() == self.pred_a_lt_q.val() {
            self.matching.next = self.ent_valid.q.val() & self.a_lt_q.val();
        }
        // The winner is the matching entry ordered before every other matching entry (the
        // keys of valid entries are distinct, so there is at most one).
        self.win.next = self.zero_16.val();
        for i in 0..ENTRIES {
            if self.matching.val().get_bit(i)
                & ((self.before[i].q.val() | !self.matching.val() | self.one_hot[i].val())
                    == self.ones_16.val())
            {
                self.win.next = self.win.val() | self.one_hot[i].val();
            }
        }
        // Registered as they are; stage 2 zeroes them when there was no query. Beside the
        // winner, every entry's rank (the valid entries ordered before it) and a copy of
        // every entry's fields, so that stage 2 picks the winner's from registers.
        self.s1_valid.d.next = self.query.valid.val();
        self.s1_found.d.next = self.matching.val() != self.zero_16.val();
        self.s1_win.d.next = self.win.val();
        self.s1_count.d.next = self.used.q.val();
        for i in 0..ENTRIES {
            self.rk_count[i].a.next =
                self.ent_valid.q.val() & !(self.before[i].q.val() | self.one_hot[i].val());
            self.s1_rk[i].d.next = self.rk_count[i].y.val();
            self.sh_id[i].d.next = self.ent_id[i].q.val();
            self.sh_prio[i].d.next = self.ent_prio[i].q.val();
            self.sh_a[i].d.next = self.ent_a[i].q.val();
            self.sh_b[i].d.next = self.ent_b[i].q.val();
        }

        // ---- Query stage 2: the winner's fields and rank, ORs over the one-hot winner. ----
        self.w_id.next = self.zero_a.val();
        self.w_prio.next = self.zero_16.val();
        self.w_a.next = self.zero_16.val();
        self.w_b.next = self.zero_16.val();
        self.w_rank.next = self.zero_5.val();
        for i in 0..ENTRIES {
            if self.s1_win.q.val().get_bit(i) {
                self.w_id.next = self.w_id.val() | self.sh_id[i].q.val();
                self.w_prio.next = self.w_prio.val() | self.sh_prio[i].q.val();
                self.w_a.next = self.w_a.val() | self.sh_a[i].q.val();
                self.w_b.next = self.w_b.val() | self.sh_b[i].q.val();
                self.w_rank.next = self.w_rank.val() | self.s1_rk[i].q.val();
            }
        }
        self.s2_valid.d.next = self.s1_valid.q.val();
        self.s2_found.d.next = false;
        self.s2_id.d.next = self.zero_16.val();
        self.s2_prio.d.next = self.zero_16.val();
        self.s2_a.d.next = self.zero_16.val();
        self.s2_b.d.next = self.zero_16.val();
        self.s2_rank.d.next = self.zero_8.val();
        self.s2_count.d.next = self.zero_8.val();
        if self.s1_valid.q.val() {
            self.s2_found.d.next = self.s1_found.q.val();
            self.s2_id.d.next = bit_cast::<16, A>(self.w_id.val());
            self.s2_prio.d.next = self.w_prio.val();
            self.s2_a.d.next = self.w_a.val();
            self.s2_b.d.next = self.w_b.val();
            self.s2_rank.d.next = bit_cast::<8, 5>(self.w_rank.val());
            self.s2_count.d.next = bit_cast::<8, 5>(self.s1_count.q.val());
        }

        // ---- Outputs. ----
        self.resp.valid.next = self.s2_valid.q.val();
        self.resp.found.next = self.s2_found.q.val();
        self.resp.id.next = self.s2_id.q.val();
        self.resp.prio.next = self.s2_prio.q.val();
        self.resp.a.next = self.s2_a.q.val();
        self.resp.b.next = self.s2_b.q.val();
        self.resp.rank.next = self.s2_rank.q.val();
        self.resp.count.next = self.s2_count.q.val();
        self.stat.upserts.next = self.n_upserts.q.val();
        self.stat.removes.next = self.n_removes.q.val();
        self.stat.remove_miss.next = self.n_remove_miss.q.val();
        self.stat.overflowed.next = self.n_overflowed.q.val();
        self.stat.fifo_drops.next = self.n_fifo_drops.q.val();
        self.stat.stale.next = self.n_stale.q.val();
        self.stat.promoted.next = self.n_promoted.q.val();
        self.stat.bad_cmds.next = self.n_bad_cmds.q.val();
        self.stat.queries.next = self.n_queries.q.val();
        self.stat.count.next = bit_cast::<8, 5>(self.used.q.val());
        // (The head and the at most 15 entries after it: 16 fits 5 bits.)
        self.level.next = self.ov_rest.count.val();
        if self.hv.q.val() {
            self.level.next = self.ov_rest.count.val() + self.one_5.val();
        }
        self.stat.fifo_level.next = bit_cast::<8, 5>(self.level.val());

        if self.reset.val() {
            self.ent_valid.d.next = self.zero_16.val();
            self.used.d.next = self.zero_5.val();
            self.live.d.next = self.zero_n.val();
            self.newer.d.next = self.zero_n.val();
            self.hv.d.next = false;
            self.s1_valid.d.next = false;
            self.s2_valid.d.next = false;
            self.s2_found.d.next = false;
            self.s2_id.d.next = self.zero_16.val();
            self.s2_prio.d.next = self.zero_16.val();
            self.s2_a.d.next = self.zero_16.val();
            self.s2_b.d.next = self.zero_16.val();
            self.s2_rank.d.next = self.zero_8.val();
            self.s2_count.d.next = self.zero_8.val();
            self.n_upserts.d.next = self.zero_32.val();
            self.n_removes.d.next = self.zero_32.val();
            self.n_remove_miss.d.next = self.zero_32.val();
            self.n_overflowed.d.next = self.zero_32.val();
            self.n_fifo_drops.d.next = self.zero_32.val();
            self.n_stale.d.next = self.zero_32.val();
            self.n_promoted.d.next = self.zero_32.val();
            self.n_bad_cmds.d.next = self.zero_32.val();
            self.n_queries.d.next = self.zero_32.val();
        }
    }
}

/// The population count of 16 bits, as a tree of adders (an entry's rank).
#[derive(LogicBlock)]
pub struct Popcount16 {
    pub a: Signal<In, Bits<16>>,
    pub y: Signal<Out, Bits<5>>,
    p1: [Signal<Local, Bits<5>>; 16],
    p2: [Signal<Local, Bits<5>>; 8],
    p4: [Signal<Local, Bits<5>>; 4],
    p8: [Signal<Local, Bits<5>>; 2],
    one_5: Constant<Bits<5>>,
    zero_5: Constant<Bits<5>>,
}

impl Default for Popcount16 {
    fn default() -> Self {
        Self {
            a: Default::default(),
            y: Default::default(),
            p1: Default::default(),
            p2: Default::default(),
            p4: Default::default(),
            p8: Default::default(),
            one_5: Constant::new(1.into()),
            zero_5: Constant::new(0.into()),
        }
    }
}

impl Logic for Popcount16 {
    #[hdl_gen]
    fn update(&mut self) {
        for j in 0..16 {
            self.p1[j].next = self.zero_5.val();
            if self.a.val().get_bit(j) {
                self.p1[j].next = self.one_5.val();
            }
        }
        for k in 0..8 {
            self.p2[k].next = self.p1[2 * k].val() + self.p1[2 * k + 1].val();
        }
        for k in 0..4 {
            self.p4[k].next = self.p2[2 * k].val() + self.p2[2 * k + 1].val();
        }
        for k in 0..2 {
            self.p8[k].next = self.p4[2 * k].val() + self.p4[2 * k + 1].val();
        }
        self.y.next = self.p8[0].val() + self.p8[1].val();
    }
}
