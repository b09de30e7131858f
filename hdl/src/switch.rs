//! The switch (issue 6, first slice): `N` ports of 64-bit MAC RX/TX, a static forwarding
//! table, output-queued ports with [`BANDS`] = 4 priority bands in crosspoint buffers,
//! per-band limits in bytes and packets, strict-priority or weighted-round-robin band
//! scheduling, round robin over inputs, drop-tail or ideal trimming (paper 002 §2) with
//! optional return-to-sender of trimmed headers.
//!
//! ```text
//!  rx[i] ─► parse (words 0-4) ─► delay line (5 words) ─► writer ─┬─► crosspoint RAM (i,0): 4 band regions ─┐
//!             │ decision at word 4                        (trim, ├─► crosspoint RAM (i,1) ...              ├─► output o: return queue first,
//!             ▼                                           return ├─► ...                                    │   then SP / WRR over bands,
//!    admission (inputs in index order): per-(output,band)  rewrite)└─► return queue (i) (trimmed headers back)  │   RR over inputs ─► tx[o]
//!    occupancy in bytes and packets, region room                                                              │
//! ```
//!
//! # Interfaces
//! * `rx[i]`: frames from port `i`'s MAC (64-bit words, first byte in bits 63:56, `last` on
//!   the final word with `empty` = unused bytes of it, 0-7). `ready` is high except in reset
//!   cycles: the switch never backpressures a MAC; a frame that cannot be stored is dropped
//!   and counted. The 5 header words (0-4) of a frame must arrive in consecutive cycles (a
//!   MAC delivers a frame back to back); a gap among them makes the frame malformed. Gaps
//!   after word 4 are harmless.
//! * `tx[o]`: frames out of port `o` with `ready` (link backpressure); a frame is sent back
//!   to back once its first word is out, except where `ready` is low. `empty` is non-zero
//!   only on `last`; `data`/`last`/`empty` are 0 while `valid` is low.
//! * `route[k]` (k < N): the forwarding table, `valid`, `ip` (IPv4 destination address),
//!   `port`. The lowest matching valid entry wins; no match, or `port >= N`, drops the frame
//!   (`drop_no_route`).
//! * `band[b]`: per band `limit_bytes`, `limit_pkts` (admission limits of one output's band,
//!   summed over all inputs) and `weight` (WRR, packets per turn; 0 counts as 1).
//! * `cfg`: `mode` ([`MODE_DROPTAIL`], [`MODE_TRIM`], [`MODE_TOFINO_TRIM`], [`MODE_BOLT`]),
//!   `band_by_flags`
//!   (band from the transport flags instead of the IPv4 `tos`), `wrr` (weighted round robin
//!   instead of strict priority among bands), `ret` (return trimmed headers to their sender
//!   when the header band is full, instead of dropping them); Bolt's `cc_thresh`, `mtu`,
//!   `pru_cap`, `link_rate` and `sm_off` (below); Tofino-style trimming's `pipes`, `t0`,
//!   `t1`, `meter_burst` (below).
//! * `stat[p]`: wrapping 32-bit counters `rx_frames`, `tx_frames`, `drop_malformed`,
//!   `drop_no_route`, `drop_full`, `trimmed`, `returned`, `drop_header`, and the occupancy
//!   of each of port `p`'s output bands in bytes, `occ_bytes0..3` (admitted, not yet sent).
//!   Every frame is counted once (see "Length check"): `trimmed` counts data packets sent
//!   on as their trimmed header (into band 0 or, `returned`, back to the sender), not
//!   headers dropped for want of room (`drop_header` only); once the switch is empty,
//!   `rx_frames + src_sent = tx_frames + drop_malformed + drop_no_route + drop_full +
//!   drop_header + dod_drop` summed over ports.
//!
//! # Parsing and the band
//! At word 4 of a frame (the 5th word, which holds the low half of the destination IP and
//! the transport flags) the input decides. Malformed (`drop_malformed`): ethertype not
//! 0x0800, version/IHL not 4/5, IPv4 total length outside 50..=1074 (frames of 64..=1088
//! bytes), a frame that ends at or before word 4, or a gap among words 0-4. The IPv4
//! checksum is not verified (a correct one stays correct: trimming updates it
//! incrementally, RFC 1624). Band: by `tos`, its DSCP field, `min(tos >> 2, 3)` (a lower
//! value is a higher priority, as Homa's priorities, which the NIC sends as
//! `tos = prio << 2`); the ECN bits (`tos` 1:0) never select a band, and the switch never
//! rewrites them (no policy marks ECN). By flags, for IP protocol 154/155 a DATA packet
//! without CHOP goes to band 1 and everything else (ACK, NACK, PULL/GRANT, CHOP) to band 0,
//! other protocols to band 3. Band 0 is the highest priority and the header band of
//! trimming.
//!
//! # Length check (at the frame's end)
//! The decision at word 4 trusts the IPv4 total length; the frame's real length is known
//! when its last word leaves the delay line, 5 cycles after it arrived. A frame whose length
//! is not `IPv4 total length + 14` bytes is malformed (`drop_malformed`) whatever word 4
//! decided: shorter (found at its last word; this includes frames of 57-63 bytes, short of
//! the 64 header bytes a trimmed header takes) or longer (found at the word past its IPv4
//! length, without waiting for its end). A stored frame, a trimmed header in band 0, a
//! returned header and a deflected header with its DoD record are all rolled back (their
//! words, bytes and records freed, nothing sent): a header is never sent before its frame
//! has proved its length, so it is complete at the frame's last word, like a whole frame
//! (see "Latency"). A frame dropped at word 4 for want of a route or of room
//! (`drop_no_route`, `drop_full`, `drop_header`, `dod_drop`) is followed to its end too and
//! counted under that reason only if its length is right, else as malformed; `trimmed` and
//! `returned` count when the header is committed. What words 4 and 6 did stays done: a
//! malformed frame has moved the Tofino meters and the Bolt tokens, and may have had its
//! Bolt SRC sent (an SRC leaves at the data packet's word 7: its queue report is true
//! whatever follows).
//!
//! # Admission (at word 4)
//! A packet of `L` bytes (`IPv4 total length + 14`) and `W = ceil(L/8)` words is admitted to
//! output `o`, band `b` when `occ(o,b) + L <= limit_bytes[b]`, `pkts(o,b) + 1 <=
//! limit_pkts[b]` and the crosspoint region `(i,o,b)` has `W` free words. Inputs deciding
//! in the same cycle are taken in index order (input 0 first), each seeing the admissions of
//! the lower inputs; words leaving in that cycle free their bytes only at its end. When it
//! is not admitted: drop-tail drops it (`drop_full`); in trim mode a DATA packet of our
//! transport (IP protocol 154/155, DATA set, CHOP clear) is trimmed (`trimmed`) to its 64
//! header bytes (IPv4 total length 50, checksum updated, CHOP set) and admitted to band 0 of
//! the same output if band 0 takes 64 bytes and 8 words; otherwise, with `cfg.ret` and room
//! for 8 words in the input port's return queue, the header is returned (`returned`):
//! Ethernet, IPv4 and transport contexts swapped, sent out of the port it arrived on before
//! any band (the return queue of port `p` is written only by input `p` and read only by
//! output `p`); else it is dropped (`drop_header`). Other packets that do not fit are
//! dropped (`drop_full`). Tofino-style trimming and Bolt hook in here (below).
//!
//! # Tofino-style trimming ([`MODE_TOFINO_TRIM`], paper 002 §3-§5)
//! * **Pipes.** `cfg.pipes` = P ingress pipes (1..=[`MAX_PIPES`]; 0 counts as 1); input `i`
//!   is in pipe `floor(i*P/N)`.
//! * **Meters.** Each pipe has three meters per output port, at 100, 50 and 25 % of line
//!   rate (8, 4, 2 bytes per cycle), each a virtual queue of `cfg.meter_burst` bytes kept
//!   as a theoretical arrival time in 1/8 cycles ([`TAT_BITS`] bits, compared modulo
//!   2^40, so a meter untouched for 2^36 cycles would be misread): a frame of `L` bytes is
//!   green at meter
//!   `k` when `max(tat - 8*now, 0) + L*2^k <= burst*2^k`, and then
//!   `tat = max(tat, 8*now) + L*2^k`; a red frame leaves the meter unchanged. All three run
//!   on every routed, well-formed frame at its word 4 (inputs of a pipe chained in index
//!   order in a cycle).
//! * **Mode.** Each output port is optimistic, half-pessimistic or pessimistic; the mode
//!   picks the meter whose colour counts (100, 50, 25 %). A congestion signal for port `o`
//!   in cycle `t` makes it pessimistic while `now - t <= cfg.t0`, then half-pessimistic
//!   while `now - t <= cfg.t0 + cfg.t1`, then optimistic again (the paper's `t0_reg`,
//!   `t1_reg` with T1 counted after T0). The signal goes to every pipe at once, so one copy
//!   of the mode per port serves them all. `cfg.t0 = cfg.t1 = 0` turns the loop off.
//! * **Decision.** A trimmable packet (our transport, DATA without CHOP) whose meter is red
//!   is trimmed at ingress (`trimmed`; then exactly as trim mode: band 0, return to
//!   sender, or `drop_header`). Otherwise a packet that fits its band is queued. A
//!   trimmable one that does not fit is deflected on drop (DoD) into its input's DoD queue
//!   (records `(output, words)`, [`DOD_ENTRIES`] per input) with its trimmed header in the
//!   DoD store of `(input, output)` ([`DOD_WORDS`] words); with no room there it is lost and
//!   counted (`dod_drop`). Other packets that do not fit are dropped (`drop_full`).
//! * **Recirculation.** One server per pipe, the pipe's recirculation port at line rate:
//!   round robin over the pipe's inputs, it takes a record whose header is complete and
//!   holds it for the frame's full length in words; then the header is trimmed
//!   (`dod_trims`), released to its output and a congestion signal for that output goes
//!   to every pipe. The pipe's recirculation queue is the union of its inputs' DoD queues
//!   (served round robin, not in one arrival order). `dod_q` counts an input's records,
//!   waiting or in service.
//! * **Output.** A released header (8 words) goes out ahead of every band, after the
//!   return queue, round robin over inputs.
//! * **Timing.** A deflected frame of `W` words whose first word is in at `t` has its
//!   header complete with the frame's last word at `t + W + 4` (the length check), taken
//!   at `t + W + 5`, released at the end of `t + 2W + 5`; the signal makes the port
//!   pessimistic from `t + 2W + 6` (1088 bytes: 140, 141, 277, 278).
//!
//! # Bolt ([`MODE_BOLT`], thesis Algorithms 7 and 9)
//! Bands by transport flags; SRCs leave through the return queue of the arrival port. At
//! word 6 of a data packet, per output port in input-index order: the supply token
//! `sm += 8 × (now − last) − bytes`, floored at −2^24 and capped at `cfg.mtu`. If the
//! output's queue is at `cfg.cc_thresh` or above: an SRC (unless the packet has DEC), DEC
//! set, INC cleared. Else LAST without FIRST earns a PRU token (up to `cfg.pru_cap`; 0
//! turns PRU off). Else INC spends a PRU token, or else an MTU of supply token (supply
//! matching, SM) when `sm >= mtu`, or else is cleared. `cfg.sm_off` never takes the SM
//! branch: INC is kept only where a PRU token is spent; the supply token is still updated
//! (so `stat.sm` shows it), never spent. docs/architecture.md §17 has the details.
//!
//! # Storage
//! One crosspoint per (input, output) pair, `2^XP_A` = 2048 words: a RAM of 64-bit data
//! and a RAM of 4-bit tags (`last`, `empty`), written only by the input and read only by
//! the output; 4 band regions of [`REGION_WORDS`] = 512 words (4 KiB) each, circular, with
//! a reservation tail (moved at admission), a head (moved per word sent) and a count of
//! complete packets. A region holds three full-size (136-word) packets of its input at a
//! time, so an input's back-to-back MTU packets to one output are never refused while the
//! output drains them at line rate (with 256-word regions every second one was). A frame
//! is written by its input 5 cycles after it arrives (the delay line that waits for the
//! decision) and becomes eligible when its last word is written and its length matches the
//! IPv4 total length (otherwise it is rolled back, `drop_malformed`): store and forward. A
//! trimmed, returned or deflected header is written from the frame's first 8 words and
//! complete at the frame's last word under the same check; the words after the 8th are
//! only counted. Return queues: 64 words (8 headers) per port.
//!
//! # Output scheduling
//! Each output picks its next packet in the cycle its current packet's last word leaves (or
//! whenever idle): its return queue first, then a band by strict priority (lowest band with
//! a complete packet) or by WRR (stay in the current band while it has a packet and has sent
//! fewer than `weight` packets in this turn, else the next band in cyclic order that has one,
//! the current band last), then an input by round robin within that band (the first input
//! after the last one served in that band). The RAM read of the picked packet's first word is
//! issued in the same cycle, so packets leave back to back: one word per cycle.
//!
//! # Latency
//! Store and forward: first word in at cycle `t`, a frame of `W` words has its last word
//! written at `t + W + 4`, is picked at `t + W + 5` and its first word is out at
//! `t + W + 6` on an idle output (15 cycles for a 65-byte frame, 14 for a 64-byte one). A
//! trimmed or returned header of that frame likewise (`t + W + 6`): the length check holds
//! it `W - 8` cycles after its 8th word (0 for a 64-byte frame, 128 for 1088 bytes).
//!
//! # Implementation notes
//! One flat block (crosspoint state in flat arrays indexed `(i*N+o)*4+b`): rust-hdl
//! evaluates only the first `[...]` of a signal name at generation time, so nested
//! per-port sub-blocks with per-port arrays cannot be wired as a crossbar (the emitted
//! Verilog's one `always @(*)` block is cut into independent blocks by
//! [`crate::emit::split_always`], which Verilator and Yosys need at 16 ports). `bit_cast`
//! cannot take a loop-indexed operand (its width is evaluated outside the loop), so widths
//! change by shifts, masks and small tables. No reset of the RAMs is needed: a region is
//! read only where a complete packet was written.
//!
//! # Parameters
//! `N` ports (2..=16), `NN = N*N`, `NB = N*4`, `NNB = N*N*4`, `NR = (N+1)*N*4`, `NP = (N+1)*N`
//! (checked in
//! [`Switch::new`]; rust-hdl field types cannot use generic const expressions).
use rust_hdl::prelude::*;

/// Priority bands per output; band 0 is the highest.
pub const BANDS: usize = 4;
/// Words of one band region of a crosspoint (`2^9`): two full-size (136-word) packets of
/// one input, so an input's back-to-back MTU packets to one output stream at line rate (a
/// region of one packet trimmed every second packet of a lone flow).
pub const REGION_WORDS: u64 = 512;
/// Crosspoint RAM address bits (4 regions of 512 words).
pub const XP_A: usize = 11;
/// Return-queue RAM address bits (64 words, 8 headers).
pub const RET_A: usize = 6;
/// Largest number of ports.
pub const MAX_PORTS: usize = 16;

/// `cfg.mode`: drop a packet that does not fit.
pub const MODE_DROPTAIL: u64 = 0;
/// `cfg.mode`: ideal trimming (paper 002 §2).
pub const MODE_TRIM: u64 = 1;
/// `cfg.mode`: Tofino-style trimming (paper 002 §3-§5): per-pipe ingress meters,
/// deflect-on-drop to a recirculation path, and the pessimistic/half-pessimistic loop.
pub const MODE_TOFINO_TRIM: u64 = 2;
/// Tofino-style trimming: the most ingress pipes.
pub const MAX_PIPES: usize = 4;
/// Tofino-style trimming: deflected packets an input port can hold (its DoD queue).
pub const DOD_ENTRIES: u64 = 16;
/// Tofino-style trimming: words of deflected headers per (input, output) pair (16 headers).
pub const DOD_WORDS: u64 = 128;
/// DoD header RAM address bits.
pub const DOD_A: usize = 7;
/// Tofino-style trimming: bits of the meters' times (1/8 cycles, kept modulo 2^40). A
/// meter is read correctly while it was last updated fewer than 2^36 cycles ago (21 s
/// at 3.2 GHz).
pub const TAT_BITS: usize = 40;
// (the sign test reads bit 39 by number: rust-hdl's Verilog takes literal bit indices)
const _: () = assert!(TAT_BITS == 40);
/// `cfg.mode`: drop-tail plus Bolt (SRC, PRU, SM; thesis Algorithms 7 and 9).
pub const MODE_BOLT: u64 = 3;

/// Bolt flags (thesis Listing 4.1, frame byte 54): data, ack, src, last, first, inc, dec.
pub const BOLT_DATA: u8 = 0x80;
pub const BOLT_ACK: u8 = 0x40;
pub const BOLT_SRC: u8 = 0x20;
pub const BOLT_LAST: u8 = 0x10;
pub const BOLT_FIRST: u8 = 0x08;
pub const BOLT_INC: u8 = 0x04;
pub const BOLT_DEC: u8 = 0x02;
/// The supply token is kept as `sm + SM_OFFSET` in 32 bits, floored at 0 (`sm >= -2^24`).
pub const SM_OFFSET: u64 = 1 << 24;
/// Inter-arrival times above this many cycles count as this many (the supply it gives,
/// 8 bytes per cycle, exceeds any deficit the floor allows, so the token is capped anyway).
pub const SM_ELAPSED_CAP: u64 = 1 << 22;
/// Bytes a port serializes per cycle (64-bit words): the SM supply rate.
pub const BYTES_PER_CYCLE: u64 = 8;

const ACT_NONE: u64 = 0;
const ACT_FWD: u64 = 1;
const ACT_TRIM: u64 = 2;
const ACT_RET: u64 = 3;
const ACT_DOD: u64 = 4;
/// Dropped at word 4 (no route, full, header or DoD room): nothing is written, the frame is
/// followed to its end to count it under its reason or, if its length disagrees, as
/// malformed.
const ACT_DROP: u64 = 5;
const WHY_NOROUTE: u64 = 0;
const WHY_FULL: u64 = 1;
const WHY_HDR: u64 = 2;
const WHY_DOD: u64 = 3;

/// Frames from a MAC.
#[derive(LogicInterface, Default)]
pub struct SwitchSink {
    pub valid: Signal<In, bool>,
    pub ready: Signal<Out, bool>,
    pub data: Signal<In, Bits<64>>,
    pub last: Signal<In, bool>,
    pub empty: Signal<In, Bits<3>>,
}

/// Frames to a MAC.
#[derive(LogicInterface, Default)]
pub struct SwitchSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub empty: Signal<Out, Bits<3>>,
}

/// One forwarding-table entry.
#[derive(LogicInterface, Default)]
pub struct RouteCfg {
    pub valid: Signal<In, bool>,
    pub ip: Signal<In, Bits<32>>,
    pub port: Signal<In, Bits<8>>,
}

/// One band's limits and WRR weight.
#[derive(LogicInterface, Default)]
pub struct BandCfg {
    pub limit_bytes: Signal<In, Bits<20>>,
    pub limit_pkts: Signal<In, Bits<12>>,
    pub weight: Signal<In, Bits<8>>,
}

/// Switch-wide configuration.
#[derive(LogicInterface, Default)]
pub struct SwitchCfg {
    pub mode: Signal<In, Bits<2>>,
    pub band_by_flags: Signal<In, bool>,
    pub wrr: Signal<In, bool>,
    pub ret: Signal<In, bool>,
    /// Bolt: the congestion threshold in queued bytes of the output port (CC_THRESH).
    pub cc_thresh: Signal<In, Bits<20>>,
    /// Bolt: the MTU in bytes (the SM cap and the SM token size).
    pub mtu: Signal<In, Bits<12>>,
    /// Bolt: the cap of the PRU token count.
    pub pru_cap: Signal<In, Bits<8>>,
    /// Bolt: the link rate stamped into SRC packets.
    pub link_rate: Signal<In, Bits<8>>,
    /// Bolt: supply matching off. An INC-marked data packet that finds no PRU token has
    /// INC cleared, whatever the supply token holds (the token is still kept up to date,
    /// only never spent). `false` (the default) is Bolt as the thesis has it.
    pub sm_off: Signal<In, bool>,
    /// Tofino-style trimming: ingress pipes, 1..=4 (0 counts as 1, more as 4).
    pub pipes: Signal<In, Bits<3>>,
    /// Tofino-style trimming: the pessimistic period T0 and the half-pessimistic period T1
    /// after a congestion signal, in cycles (T0 = T1 = 0 turns the control loop off).
    pub t0: Signal<In, Bits<24>>,
    pub t1: Signal<In, Bits<24>>,
    /// Tofino-style trimming: the burst of the ingress meters (their virtual queue), bytes.
    pub meter_burst: Signal<In, Bits<20>>,
}

/// Per-port counters and output occupancy.
#[derive(LogicInterface, Default)]
pub struct SwitchPortStats {
    pub rx_frames: Signal<Out, Bits<32>>,
    pub tx_frames: Signal<Out, Bits<32>>,
    pub drop_malformed: Signal<Out, Bits<32>>,
    pub drop_no_route: Signal<Out, Bits<32>>,
    pub drop_full: Signal<Out, Bits<32>>,
    pub trimmed: Signal<Out, Bits<32>>,
    pub returned: Signal<Out, Bits<32>>,
    pub drop_header: Signal<Out, Bits<32>>,
    pub occ_bytes0: Signal<Out, Bits<20>>,
    pub occ_bytes1: Signal<Out, Bits<20>>,
    pub occ_bytes2: Signal<Out, Bits<20>>,
    pub occ_bytes3: Signal<Out, Bits<20>>,
    /// Bolt: SRC packets generated for data arriving on this port, and SRCs lost because
    /// this port's return queue had no room.
    pub src_sent: Signal<Out, Bits<32>>,
    pub src_drop: Signal<Out, Bits<32>>,
    /// Bolt: this output port's PRU tokens and supply token (bytes, two's complement).
    pub pru: Signal<Out, Bits<8>>,
    pub sm: Signal<Out, Bits<32>>,
    /// Tofino-style trimming: headers of packets that arrived on this port trimmed in the
    /// recirculation path; deflections lost because this port's DoD queue was full; this
    /// port's deflected packets waiting for or in recirculation; this output port's mode
    /// (0 optimistic, 1 half-pessimistic, 2 pessimistic).
    pub dod_trims: Signal<Out, Bits<32>>,
    pub dod_drop: Signal<Out, Bits<32>>,
    pub dod_q: Signal<Out, Bits<8>>,
    pub tmode: Signal<Out, Bits<2>>,
}

/// Zero extension of 10 bits to 11: a region position into a crosspoint address (a
/// block, because `bit_cast` cannot take a loop-indexed operand).
#[derive(LogicBlock, Default)]
pub struct Zext10 {
    pub a: Signal<In, Bits<10>>,
    pub y: Signal<Out, Bits<11>>,
}

impl Logic for Zext10 {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = bit_cast::<11, 10>(self.a.val());
    }
}

/// Zero extension of 20 bits to 64 (a block, because `bit_cast` cannot take a
/// loop-indexed operand).
#[derive(LogicBlock, Default)]
pub struct Zext20 {
    pub a: Signal<In, Bits<20>>,
    pub y: Signal<Out, Bits<64>>,
}

impl Logic for Zext20 {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = bit_cast::<64, 20>(self.a.val());
    }
}

type Q<T> = Signal<Local, T>;

/// The switch. See the module documentation.
#[derive(LogicBlock)]
pub struct Switch<
    const N: usize,
    const NN: usize,
    const NB: usize,
    const NNB: usize,
    const NR: usize,
    const NP: usize,
> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: SwitchCfg,
    pub band: [BandCfg; BANDS],
    pub route: [RouteCfg; N],
    pub rx: [SwitchSink; N],
    pub tx: [SwitchSource; N],
    pub stat: [SwitchPortStats; N],

    // ---- per input: parse and delay line (stage 0 newest) ----
    beat: [DFF<Bits<3>>; N],
    hbad: [DFF<bool>; N],
    sd0: [DFF<Bits<64>>; N],
    sd1: [DFF<Bits<64>>; N],
    sd2: [DFF<Bits<64>>; N],
    sd3: [DFF<Bits<64>>; N],
    sd4: [DFF<Bits<64>>; N],
    // tags: valid 4, last 3, empty 2:0
    st0: [DFF<Bits<5>>; N],
    st1: [DFF<Bits<5>>; N],
    st2: [DFF<Bits<5>>; N],
    st3: [DFF<Bits<5>>; N],
    st4: [DFF<Bits<5>>; N],
    // ---- per input: writer of the frame in stage 4 ----
    w_act: [DFF<Bits<3>>; N],
    // the reason of an ACT_DROP (WHY_*)
    w_why: [DFF<Bits<2>>; N],
    w_o: [DFF<Bits<4>>; N],
    w_b: [DFF<Bits<2>>; N],
    w_words: [DFF<Bits<10>>; N],
    w_empty: [DFF<Bits<3>>; N],
    w_beat: [DFF<Bits<10>>; N],
    w_start: [DFF<Bits<10>>; N],
    // the new IPv4 checksum, in bits 63:48
    w_csum: [DFF<Bits<64>>; N],
    w_len: [DFF<Bits<20>>; N],
    w_prev: [DFF<Bits<64>>; N],
    // ---- crosspoints (index i*N+o) and their regions (index (i*N+o)*4+b) ----
    xpd: [RAM<Bits<64>, XP_A>; NN],
    // last 3, empty 2:0
    xpt: [RAM<Bits<4>, XP_A>; NN],
    rtail: [DFF<Bits<10>>; NNB],
    /// Read heads, 11 bits so that a read address needs no widening (their low 10 bits
    /// are the 10-bit pointer arithmetic's).
    head: [DFF<Bits<11>>; NNB],
    done: [DFF<Bits<6>>; NNB],
    // ---- per output (index o*4+b for bands) ----
    occ_bytes: [DFF<Bits<20>>; NB],
    occ_pkts: [DFF<Bits<12>>; NB],
    rr: [DFF<Bits<4>>; NB],
    busy: [DFF<bool>; N],
    cur_ret: [DFF<bool>; N],
    cur_i: [DFF<Bits<4>>; N],
    cur_b: [DFF<Bits<2>>; N],
    wrr_band: [DFF<Bits<2>>; N],
    wrr_used: [DFF<Bits<8>>; N],
    // ---- per port: return queue ----
    retd: [RAM<Bits<64>, RET_A>; N],
    rett: [RAM<Bits<4>, RET_A>; N],
    ret_rtail: [DFF<Bits<10>>; N],
    ret_head: [DFF<Bits<10>>; N],
    ret_done: [DFF<Bits<4>>; N],
    // ---- per port: counters ----
    c_rx: [DFF<Bits<32>>; N],
    c_tx: [DFF<Bits<32>>; N],
    c_mal: [DFF<Bits<32>>; N],
    c_noroute: [DFF<Bits<32>>; N],
    c_full: [DFF<Bits<32>>; N],
    c_trim: [DFF<Bits<32>>; N],
    c_ret: [DFF<Bits<32>>; N],
    c_hdr: [DFF<Bits<32>>; N],
    // ---- Bolt ----
    now: DFF<Bits<32>>,
    // per input: candidate (decided at word 4), SRC speculatively written, SRC to commit,
    // word 6 to rewrite, SRC base in the return queue, queued bytes seen, frame bytes,
    // the data packet's new Bolt flags (bits 15:8)
    w_bc: [DFF<bool>; N],
    w_sv: [DFF<bool>; N],
    w_sgo: [DFF<bool>; N],
    w_bmod: [DFF<bool>; N],
    w_sbase: [DFF<Bits<10>>; N],
    w_q: [DFF<Bits<20>>; N],
    w_plen: [DFF<Bits<32>>; N],
    w_bf: [DFF<Bits<64>>; N],
    c_src: [DFF<Bits<32>>; N],
    c_srcdrop: [DFF<Bits<32>>; N],
    zq: [Zext20; N],
    /// Write and read positions within a region, widened to crosspoint addresses.
    zw: [Zext10; N],
    // per output: supply token (bytes, two's complement; the chain works on it plus
    // SM_OFFSET, unsigned), PRU tokens, last data arrival
    smo: [DFF<Bits<32>>; N],
    pru: [DFF<Bits<8>>; N],
    sm_last: [DFF<Bits<32>>; N],
    // ---- Tofino-style trimming ----
    // time in 1/8 cycle (byte times at line rate); meters per (output, pipe), index o*4+p,
    // at 100, 50 and 25 % of line rate: the theoretical arrival time of each
    now8: DFF<Bits<TAT_BITS>>,
    tat0: [DFF<Bits<TAT_BITS>>; NB],
    tat1: [DFF<Bits<TAT_BITS>>; NB],
    tat2: [DFF<Bits<TAT_BITS>>; NB],
    // per output: the last congestion signal (cycle) and whether it is still in force
    sig_t: [DFF<Bits<32>>; N],
    sig_v: [DFF<bool>; N],
    // per input: DoD queue of records (output, words), head, count, tail record pending
    reco: [RAM<Bits<4>, 4>; N],
    recw: [RAM<Bits<8>, 4>; N],
    rec_h: [DFF<Bits<4>>; N],
    rec_n: [DFF<Bits<8>>; N],
    rec_pend: [DFF<bool>; N],
    // per (input, output): deflected headers, reservation tail and head (words), released
    dodd: [RAM<Bits<64>, DOD_A>; NN],
    dtail: [DFF<Bits<10>>; NN],
    dhead: [DFF<Bits<10>>; NN],
    drel: [DFF<Bits<5>>; NN],
    // per pipe: the recirculation server
    sv_busy: [DFF<bool>; MAX_PIPES],
    sv_i: [DFF<Bits<4>>; MAX_PIPES],
    sv_o: [DFF<Bits<4>>; MAX_PIPES],
    sv_cnt: [DFF<Bits<8>>; MAX_PIPES],
    sv_rr: [DFF<Bits<4>>; MAX_PIPES],
    // per output: sending a DoD header, its word, round robin over inputs
    cur_dod: [DFF<bool>; N],
    dpos: [DFF<Bits<3>>; N],
    drr: [DFF<Bits<4>>; N],
    c_dodtrim: [DFF<Bits<32>>; N],
    c_doddrop: [DFF<Bits<32>>; N],

    // ---- locals, per input ----
    word_in: [Q<bool>; N],
    in_tag: [Q<Bits<5>>; N],
    dec: [Q<bool>; N],
    in_mal: [Q<bool>; N],
    ethertype: [Q<Bits<16>>; N],
    verihl: [Q<Bits<8>>; N],
    tos: [Q<Bits<8>>; N],
    ip_len: [Q<Bits<16>>; N],
    proto: [Q<Bits<8>>; N],
    ipl32: [Q<Bits<32>>; N],
    flags: [Q<Bits<8>>; N],
    dst_ip: [Q<Bits<32>>; N],
    len32: [Q<Bits<32>>; N],
    words32: [Q<Bits<32>>; N],
    d_words: [Q<Bits<10>>; N],
    d_empty: [Q<Bits<3>>; N],
    len20: [Q<Bits<20>>; N],
    cs_sum: [Q<Bits<64>>; N],
    cs_f1: [Q<Bits<64>>; N],
    cs_f2: [Q<Bits<64>>; N],
    cs_new: [Q<Bits<64>>; N],
    r_found: [Q<bool>; N],
    r_port: [Q<Bits<8>>; N],
    d_o: [Q<Bits<4>>; N],
    d_b: [Q<Bits<2>>; N],
    ours: [Q<bool>; N],
    trim_ok: [Q<bool>; N],
    dec_ok: [Q<bool>; N],
    dec_noroute: [Q<bool>; N],
    // writer
    s4v: [Q<bool>; N],
    s4l: [Q<bool>; N],
    s4e: [Q<Bits<3>>; N],
    wv: [Q<bool>; N],
    wwr: [Q<bool>; N],
    wpos: [Q<Bits<10>>; N],
    wdata: [Q<Bits<64>>; N],
    wlast: [Q<bool>; N],
    wempty: [Q<Bits<3>>; N],
    wtag: [Q<Bits<4>>; N],
    wboff: [Q<Bits<XP_A>>; N],
    waddr: [Q<Bits<XP_A>>; N],
    wnext: [Q<Bits<10>>; N],
    commit: [Q<bool>; N],
    rb: [Q<bool>; N],
    rb_xp: [Q<bool>; N],
    rb_ret: [Q<bool>; N],
    w_done: [Q<bool>; N],
    // admission
    cb_bytes: [Q<Bits<20>>; N],
    cb_pkts: [Q<Bits<12>>; N],
    c0_bytes: [Q<Bits<20>>; N],
    c0_pkts: [Q<Bits<12>>; N],
    tb_tail: [Q<Bits<10>>; N],
    tb_head: [Q<Bits<10>>; N],
    t0_tail: [Q<Bits<10>>; N],
    t0_head: [Q<Bits<10>>; N],
    rbm_b: [Q<bool>; N],
    rbm_0: [Q<bool>; N],
    ab_bytes: [Q<Bits<20>>; N],
    ab_pkts: [Q<Bits<12>>; N],
    a0_bytes: [Q<Bits<20>>; N],
    a0_pkts: [Q<Bits<12>>; N],
    base_b: [Q<Bits<10>>; N],
    base_0: [Q<Bits<10>>; N],
    used_b: [Q<Bits<10>>; N],
    used_0: [Q<Bits<10>>; N],
    lim_bytes: [Q<Bits<20>>; N],
    lim_pkts: [Q<Bits<12>>; N],
    fits_b: [Q<bool>; N],
    fits_0: [Q<bool>; N],
    ret_base: [Q<Bits<10>>; N],
    ret_used: [Q<Bits<10>>; N],
    ret_fits: [Q<bool>; N],
    a_fwd: [Q<bool>; N],
    a_trim: [Q<bool>; N],
    a_ret: [Q<bool>; N],
    a_full: [Q<bool>; N],
    a_hdr: [Q<bool>; N],
    add_v: [Q<bool>; N],
    add_b: [Q<Bits<2>>; N],
    add_bytes: [Q<Bits<20>>; N],
    run_b: [Q<Bits<20>>; NR],
    run_p: [Q<Bits<12>>; NR],
    // Bolt locals
    bolt: Q<bool>,
    by_flags: Q<bool>,
    mtu32: Q<Bits<32>>,
    offmtu: Q<Bits<32>>,
    link64: Q<Bits<64>>,
    bc: [Q<bool>; N],
    qsum: [Q<Bits<20>>; N],
    qown: [Q<Bits<20>>; N],
    sroom: [Q<bool>; N],
    bdec: [Q<bool>; N],
    bf6: [Q<Bits<64>>; N],
    bcong: [Q<bool>; N],
    bsel_sm: [Q<Bits<32>>; N],
    bsel_pru: [Q<Bits<8>>; N],
    bsel_hit: [Q<bool>; N],
    bgain: [Q<Bits<32>>; N],
    bt1: [Q<Bits<32>>; N],
    bt2: [Q<Bits<32>>; N],
    bt3: [Q<Bits<32>>; N],
    bsm_o: [Q<Bits<32>>; N],
    bpru_o: [Q<Bits<8>>; N],
    bnf: [Q<Bits<64>>; N],
    bsrc: [Q<bool>; N],
    wact: [Q<bool>; N],
    sv_w: [Q<bool>; N],
    rw: [Q<Bits<64>>; N],
    sdata: [Q<Bits<64>>; N],
    stag: [Q<Bits<4>>; N],
    scommit: [Q<bool>; N],
    spos: [Q<Bits<RET_A>>; N],
    el_o: [Q<Bits<32>>; N],
    gain_o: [Q<Bits<32>>; N],
    sm_run: [Q<Bits<32>>; NP],
    pru_run: [Q<Bits<8>>; NP],
    hit_run: [Q<bool>; NP],
    // Tofino locals
    tofino: Q<bool>,
    np3: Q<Bits<3>>,
    burst0: Q<Bits<TAT_BITS>>,
    burst1: Q<Bits<TAT_BITS>>,
    burst2: Q<Bits<TAT_BITS>>,
    t0_32: Q<Bits<32>>,
    t01_32: Q<Bits<32>>,
    pipe_i: [Q<Bits<2>>; N],
    trimmable: [Q<bool>; N],
    el_s: [Q<Bits<32>>; N],
    pess_o: [Q<bool>; N],
    half_o: [Q<bool>; N],
    sig_now: [Q<bool>; N],
    m_pess: [Q<bool>; N],
    m_half: [Q<bool>; N],
    ms0: [Q<Bits<TAT_BITS>>; N],
    ms1: [Q<Bits<TAT_BITS>>; N],
    ms2: [Q<Bits<TAT_BITS>>; N],
    mc0: [Q<Bits<TAT_BITS>>; N],
    mc1: [Q<Bits<TAT_BITS>>; N],
    mc2: [Q<Bits<TAT_BITS>>; N],
    mb0: [Q<Bits<TAT_BITS>>; N],
    mb1: [Q<Bits<TAT_BITS>>; N],
    mb2: [Q<Bits<TAT_BITS>>; N],
    mg0: [Q<bool>; N],
    mg1: [Q<bool>; N],
    mg2: [Q<bool>; N],
    mn0: [Q<Bits<TAT_BITS>>; N],
    mn1: [Q<Bits<TAT_BITS>>; N],
    mn2: [Q<Bits<TAT_BITS>>; N],
    mupd: [Q<bool>; N],
    md0: [Q<Bits<TAT_BITS>>; N],
    md1: [Q<Bits<TAT_BITS>>; N],
    md2: [Q<Bits<TAT_BITS>>; N],
    mf0: [Q<bool>; N],
    mf1: [Q<bool>; N],
    mf2: [Q<bool>; N],
    t_red: [Q<bool>; N],
    m0_run: [Q<Bits<TAT_BITS>>; NR],
    m1_run: [Q<Bits<TAT_BITS>>; NR],
    m2_run: [Q<Bits<TAT_BITS>>; NR],
    rb_dod: [Q<bool>; N],
    rb_drop: [Q<bool>; N],
    c_drop: [Q<bool>; N],
    pop_i: [Q<bool>; N],
    srv_has: [Q<bool>; N],
    rec_av: [Q<bool>; N],
    dn_eff: [Q<Bits<8>>; N],
    dtl: [Q<Bits<10>>; N],
    dhd: [Q<Bits<10>>; N],
    dbase: [Q<Bits<10>>; N],
    dused: [Q<Bits<10>>; N],
    dod_room: [Q<bool>; N],
    a_dod: [Q<bool>; N],
    a_doddrop: [Q<bool>; N],
    rec_slot: [Q<Bits<4>>; N],
    sv_rel: [Q<bool>; MAX_PIPES],
    sv_can: [Q<bool>; MAX_PIPES],
    sv_el: [Q<bool>; NB],
    sv_any: [Q<bool>; MAX_PIPES],
    sv_lo: [Q<Bits<4>>; MAX_PIPES],
    sv_hi: [Q<Bits<4>>; MAX_PIPES],
    sv_hif: [Q<bool>; MAX_PIPES],
    sv_sel: [Q<Bits<4>>; MAX_PIPES],
    sv_pick: [Q<bool>; MAX_PIPES],
    sv_ro: [Q<Bits<4>>; MAX_PIPES],
    sv_rw: [Q<Bits<8>>; MAX_PIPES],
    // ---- locals, per output ----
    cur_band: [Q<bool>; N],
    d_el: [Q<bool>; NN],
    d_any: [Q<bool>; N],
    d_lo: [Q<Bits<4>>; N],
    d_hi: [Q<Bits<4>>; N],
    d_hif: [Q<bool>; N],
    d_sel: [Q<Bits<4>>; N],
    dh_n: [Q<Bits<10>>; NN],
    txd: [Q<Bits<64>>; N],
    txt: [Q<Bits<4>>; N],
    txl: [Q<bool>; N],
    txe: [Q<Bits<3>>; N],
    pop: [Q<bool>; N],
    popl: [Q<bool>; N],
    dep: [Q<Bits<20>>; N],
    pick: [Q<bool>; N],
    elig: [Q<bool>; NNB],
    bel: [Q<bool>; NB],
    rsel_lo: [Q<Bits<4>>; NB],
    rsel_hi: [Q<Bits<4>>; NB],
    rhi_f: [Q<bool>; NB],
    rsel: [Q<Bits<4>>; NB],
    ret_el: [Q<bool>; N],
    any_b: [Q<bool>; N],
    sp_b: [Q<Bits<2>>; N],
    wcur_el: [Q<bool>; N],
    weff: [Q<Bits<8>>; N],
    wkeep: [Q<bool>; N],
    wc: [Q<Bits<2>>; NB],
    we: [Q<bool>; NB],
    wb: [Q<Bits<2>>; N],
    sel_b: [Q<Bits<2>>; N],
    sel_i: [Q<Bits<4>>; N],
    nb: [Q<Bits<2>>; N],
    nbase: [Q<Bits<XP_A>>; N],
    hs: [Q<Bits<11>>; NN],
    ro: [Q<Bits<11>>; NN],
    rh_next: [Q<Bits<10>>; N],

    // ---- constants ----
    pidx: [Constant<Bits<4>>; N],
    // pipe of input i with P pipes, index (P-1)*N+i; pipe numbers; pipe counts 1..=4
    pmap: [Constant<Bits<2>>; NB],
    pipx: [Constant<Bits<2>>; MAX_PIPES],
    pcnt: [Constant<Bits<3>>; MAX_PIPES],
    mode_tofino: Constant<Bits<2>>,
    c16_8: Constant<Bits<8>>,
    c128_10: Constant<Bits<10>>,
    one5: Constant<Bits<5>>,
    sh1: Constant<Bits<8>>,
    sh2: Constant<Bits<8>>,
    eight_t: Constant<Bits<TAT_BITS>>,
    zero_t: Constant<Bits<TAT_BITS>>,
    c14_t: Constant<Bits<TAT_BITS>>,
    // width changes by table (bit_cast cannot take loop-indexed operands)
    e3: [Constant<Bits<3>>; 8],
    tag4: [Constant<Bits<4>>; 8],
    tag4l: [Constant<Bits<4>>; 8],
    tag5: [Constant<Bits<5>>; 8],
    tag5l: [Constant<Bits<5>>; 8],
    wbytes: [Constant<Bits<20>>; 8],
    bandbase: [Constant<Bits<XP_A>>; BANDS],
    zero_xp: Constant<Bits<XP_A>>,
    bidx: [Constant<Bits<2>>; BANDS],
    dofs: [Constant<Bits<2>>; BANDS],
    nports: Constant<Bits<8>>,
    act_none: Constant<Bits<3>>,
    act_fwd: Constant<Bits<3>>,
    act_trim: Constant<Bits<3>>,
    act_ret: Constant<Bits<3>>,
    act_dod: Constant<Bits<3>>,
    act_drop: Constant<Bits<3>>,
    why_noroute: Constant<Bits<2>>,
    why_full: Constant<Bits<2>>,
    why_hdr: Constant<Bits<2>>,
    why_dod: Constant<Bits<2>>,
    mode_trim: Constant<Bits<2>>,
    mode_bolt: Constant<Bits<2>>,
    six3: Constant<Bits<3>>,
    seven3: Constant<Bits<3>>,
    smoff32: Constant<Bits<32>>,
    elcap32: Constant<Bits<32>>,
    m_keep6: Constant<Bits<64>>,
    m_flags6: Constant<Bits<64>>,
    m_notflags6: Constant<Bits<64>>,
    b_dec64: Constant<Bits<64>>,
    b_notinc64: Constant<Bits<64>>,
    b_src6: Constant<Bits<64>>,
    m_notflags4: Constant<Bits<64>>,
    zero2: Constant<Bits<2>>,
    one2: Constant<Bits<2>>,
    two2: Constant<Bits<2>>,
    three2: Constant<Bits<2>>,
    zero3: Constant<Bits<3>>,
    one3: Constant<Bits<3>>,
    four3: Constant<Bits<3>>,
    five3: Constant<Bits<3>>,
    zero4: Constant<Bits<4>>,
    one4: Constant<Bits<4>>,
    zero5: Constant<Bits<5>>,
    zero6: Constant<Bits<6>>,
    one6: Constant<Bits<6>>,
    zero8: Constant<Bits<8>>,
    one8: Constant<Bits<8>>,
    c15_8: Constant<Bits<8>>,
    c69_8: Constant<Bits<8>>,
    c154_8: Constant<Bits<8>>,
    c155_8: Constant<Bits<8>>,
    zero10: Constant<Bits<10>>,
    one10: Constant<Bits<10>>,
    one11: Constant<Bits<11>>,
    zero11: Constant<Bits<11>>,
    m_region_11: Constant<Bits<11>>,
    c2_10: Constant<Bits<10>>,
    c3_10: Constant<Bits<10>>,
    c4_10: Constant<Bits<10>>,
    c7_10: Constant<Bits<10>>,
    c6_10: Constant<Bits<10>>,
    c8_10: Constant<Bits<10>>,
    c64_10: Constant<Bits<10>>,
    m_region_10: Constant<Bits<10>>,
    c_region_10: Constant<Bits<10>>,
    c7_32: Constant<Bits<32>>,
    c14_32: Constant<Bits<32>>,
    c50_64: Constant<Bits<64>>,
    len50_64: Constant<Bits<64>>,
    m8_64: Constant<Bits<64>>,
    m16_64: Constant<Bits<64>>,
    /// Word 0 of a returned header without its source MAC's group (I/G) bit.
    m_ig0_64: Constant<Bits<64>>,
    m32_64: Constant<Bits<64>>,
    m48_64: Constant<Bits<64>>,
    mflags_64: Constant<Bits<64>>,
    zero12: Constant<Bits<12>>,
    one12: Constant<Bits<12>>,
    c50_16: Constant<Bits<16>>,
    c1074_16: Constant<Bits<16>>,
    ethertype_ipv4: Constant<Bits<16>>,
    zero20: Constant<Bits<20>>,
    c64_20: Constant<Bits<20>>,
    zero32: Constant<Bits<32>>,
    one32: Constant<Bits<32>>,
    two32: Constant<Bits<32>>,
    zero64: Constant<Bits<64>>,
    chop64: Constant<Bits<64>>,
    sh3: Constant<Bits<8>>,
    sh8: Constant<Bits<8>>,
    sh16: Constant<Bits<8>>,
    sh24: Constant<Bits<8>>,
    sh32: Constant<Bits<8>>,
    sh48: Constant<Bits<8>>,
}

/// 4 ports.
pub type Switch4 = Switch<4, 16, 16, 64, 80, 20>;
/// 16 ports.
pub type Switch16 = Switch<16, 256, 64, 1024, 1088, 272>;

fn arr<T: Default, const K: usize>() -> [T; K] {
    std::array::from_fn(|_| T::default())
}

fn c<const W: usize>(v: u64) -> Constant<Bits<W>> {
    Constant::new(v.into())
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > Switch<N, NN, NB, NNB, NR, NP>
{
    /// Builds the switch. Panics unless `2 <= N <= 16` and the derived sizes match.
    pub fn new() -> Self {
        assert!(
            (2..=MAX_PORTS).contains(&N),
            "switch ports N={N} must be 2..=16"
        );
        assert_eq!(NN, N * N, "NN must be N*N");
        assert_eq!(NB, N * BANDS, "NB must be N*4");
        assert_eq!(NNB, N * N * BANDS, "NNB must be N*N*4");
        assert_eq!(NR, (N + 1) * N * BANDS, "NR must be (N+1)*N*4");
        assert_eq!(NP, (N + 1) * N, "NP must be (N+1)*N");
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            band: arr(),
            route: arr(),
            rx: arr(),
            tx: arr(),
            stat: arr(),
            beat: arr(),
            hbad: arr(),
            sd0: arr(),
            sd1: arr(),
            sd2: arr(),
            sd3: arr(),
            sd4: arr(),
            st0: arr(),
            st1: arr(),
            st2: arr(),
            st3: arr(),
            st4: arr(),
            w_act: arr(),
            w_why: arr(),
            w_o: arr(),
            w_b: arr(),
            w_words: arr(),
            w_empty: arr(),
            w_beat: arr(),
            w_start: arr(),
            w_csum: arr(),
            w_len: arr(),
            w_prev: arr(),
            xpd: arr(),
            xpt: arr(),
            rtail: arr(),
            head: arr(),
            done: arr(),
            occ_bytes: arr(),
            occ_pkts: arr(),
            rr: arr(),
            busy: arr(),
            cur_ret: arr(),
            cur_i: arr(),
            cur_b: arr(),
            wrr_band: arr(),
            wrr_used: arr(),
            retd: arr(),
            rett: arr(),
            ret_rtail: arr(),
            ret_head: arr(),
            ret_done: arr(),
            c_rx: arr(),
            c_tx: arr(),
            c_mal: arr(),
            c_noroute: arr(),
            c_full: arr(),
            c_trim: arr(),
            c_ret: arr(),
            c_hdr: arr(),
            w_bc: arr(),
            w_sv: arr(),
            w_sgo: arr(),
            w_bmod: arr(),
            w_sbase: arr(),
            w_q: arr(),
            w_plen: arr(),
            w_bf: arr(),
            c_src: arr(),
            c_srcdrop: arr(),
            zq: arr(),
            zw: arr(),
            tat0: arr(),
            tat1: arr(),
            tat2: arr(),
            sig_t: arr(),
            sig_v: arr(),
            reco: arr(),
            recw: arr(),
            rec_h: arr(),
            rec_n: arr(),
            rec_pend: arr(),
            dodd: arr(),
            dtail: arr(),
            dhead: arr(),
            drel: arr(),
            sv_busy: arr(),
            sv_i: arr(),
            sv_o: arr(),
            sv_cnt: arr(),
            sv_rr: arr(),
            cur_dod: arr(),
            dpos: arr(),
            drr: arr(),
            c_dodtrim: arr(),
            c_doddrop: arr(),
            pipe_i: arr(),
            trimmable: arr(),
            el_s: arr(),
            pess_o: arr(),
            half_o: arr(),
            sig_now: arr(),
            m_pess: arr(),
            m_half: arr(),
            ms0: arr(),
            ms1: arr(),
            ms2: arr(),
            mc0: arr(),
            mc1: arr(),
            mc2: arr(),
            mb0: arr(),
            mb1: arr(),
            mb2: arr(),
            mg0: arr(),
            mg1: arr(),
            mg2: arr(),
            mn0: arr(),
            mn1: arr(),
            mn2: arr(),
            mupd: arr(),
            md0: arr(),
            md1: arr(),
            md2: arr(),
            mf0: arr(),
            mf1: arr(),
            mf2: arr(),
            t_red: arr(),
            m0_run: arr(),
            m1_run: arr(),
            m2_run: arr(),
            rb_dod: arr(),
            rb_drop: arr(),
            c_drop: arr(),
            pop_i: arr(),
            srv_has: arr(),
            rec_av: arr(),
            dn_eff: arr(),
            dtl: arr(),
            dhd: arr(),
            dbase: arr(),
            dused: arr(),
            dod_room: arr(),
            a_dod: arr(),
            a_doddrop: arr(),
            rec_slot: arr(),
            sv_rel: arr(),
            sv_can: arr(),
            sv_el: arr(),
            sv_any: arr(),
            sv_lo: arr(),
            sv_hi: arr(),
            sv_hif: arr(),
            sv_sel: arr(),
            sv_pick: arr(),
            sv_ro: arr(),
            sv_rw: arr(),
            cur_band: arr(),
            d_el: arr(),
            d_any: arr(),
            d_lo: arr(),
            d_hi: arr(),
            d_hif: arr(),
            d_sel: arr(),
            dh_n: arr(),
            now8: Default::default(),
            tofino: Default::default(),
            np3: Default::default(),
            burst0: Default::default(),
            burst1: Default::default(),
            burst2: Default::default(),
            t0_32: Default::default(),
            t01_32: Default::default(),
            pmap: std::array::from_fn(|k| c(((k % N) * (k / N + 1) / N) as u64)),
            pipx: std::array::from_fn(|p| c(p as u64)),
            pcnt: std::array::from_fn(|p| c(p as u64 + 1)),
            mode_tofino: c(MODE_TOFINO_TRIM),
            c16_8: c(DOD_ENTRIES),
            c128_10: c(DOD_WORDS),
            one5: c(1),
            sh1: c(1),
            sh2: c(2),
            eight_t: c(8),
            zero_t: c(0),
            c14_t: c(14),
            smo: arr(),
            pru: arr(),
            sm_last: arr(),
            now: Default::default(),
            word_in: arr(),
            in_tag: arr(),
            dec: arr(),
            in_mal: arr(),
            ethertype: arr(),
            verihl: arr(),
            tos: arr(),
            ip_len: arr(),
            proto: arr(),
            ipl32: arr(),
            flags: arr(),
            dst_ip: arr(),
            len32: arr(),
            words32: arr(),
            d_words: arr(),
            d_empty: arr(),
            len20: arr(),
            cs_sum: arr(),
            cs_f1: arr(),
            cs_f2: arr(),
            cs_new: arr(),
            r_found: arr(),
            r_port: arr(),
            d_o: arr(),
            d_b: arr(),
            ours: arr(),
            trim_ok: arr(),
            dec_ok: arr(),
            dec_noroute: arr(),
            s4v: arr(),
            s4l: arr(),
            s4e: arr(),
            wv: arr(),
            wwr: arr(),
            wpos: arr(),
            wdata: arr(),
            wlast: arr(),
            wempty: arr(),
            wtag: arr(),
            wboff: arr(),
            waddr: arr(),
            wnext: arr(),
            commit: arr(),
            rb: arr(),
            rb_xp: arr(),
            rb_ret: arr(),
            w_done: arr(),
            cb_bytes: arr(),
            cb_pkts: arr(),
            c0_bytes: arr(),
            c0_pkts: arr(),
            tb_tail: arr(),
            tb_head: arr(),
            t0_tail: arr(),
            t0_head: arr(),
            rbm_b: arr(),
            rbm_0: arr(),
            ab_bytes: arr(),
            ab_pkts: arr(),
            a0_bytes: arr(),
            a0_pkts: arr(),
            base_b: arr(),
            base_0: arr(),
            used_b: arr(),
            used_0: arr(),
            lim_bytes: arr(),
            lim_pkts: arr(),
            fits_b: arr(),
            fits_0: arr(),
            ret_base: arr(),
            ret_used: arr(),
            ret_fits: arr(),
            a_fwd: arr(),
            a_trim: arr(),
            a_ret: arr(),
            a_full: arr(),
            a_hdr: arr(),
            add_v: arr(),
            add_b: arr(),
            add_bytes: arr(),
            run_b: arr(),
            run_p: arr(),
            bolt: Default::default(),
            by_flags: Default::default(),
            mtu32: Default::default(),
            offmtu: Default::default(),
            link64: Default::default(),
            bc: arr(),
            qsum: arr(),
            qown: arr(),
            sroom: arr(),
            bdec: arr(),
            bf6: arr(),
            bcong: arr(),
            bsel_sm: arr(),
            bsel_pru: arr(),
            bsel_hit: arr(),
            bgain: arr(),
            bt1: arr(),
            bt2: arr(),
            bt3: arr(),
            bsm_o: arr(),
            bpru_o: arr(),
            bnf: arr(),
            bsrc: arr(),
            wact: arr(),
            sv_w: arr(),
            rw: arr(),
            sdata: arr(),
            stag: arr(),
            scommit: arr(),
            spos: arr(),
            el_o: arr(),
            gain_o: arr(),
            sm_run: arr(),
            pru_run: arr(),
            hit_run: arr(),
            txd: arr(),
            txt: arr(),
            txl: arr(),
            txe: arr(),
            pop: arr(),
            popl: arr(),
            dep: arr(),
            pick: arr(),
            elig: arr(),
            bel: arr(),
            rsel_lo: arr(),
            rsel_hi: arr(),
            rhi_f: arr(),
            rsel: arr(),
            ret_el: arr(),
            any_b: arr(),
            sp_b: arr(),
            wcur_el: arr(),
            weff: arr(),
            wkeep: arr(),
            wc: arr(),
            we: arr(),
            wb: arr(),
            sel_b: arr(),
            sel_i: arr(),
            nb: arr(),
            nbase: arr(),
            hs: arr(),
            ro: arr(),
            rh_next: arr(),
            pidx: std::array::from_fn(|i| c(i as u64)),
            e3: std::array::from_fn(|e| c(e as u64)),
            tag4: std::array::from_fn(|e| c(e as u64)),
            tag4l: std::array::from_fn(|e| c(8 | e as u64)),
            tag5: std::array::from_fn(|e| c(16 | e as u64)),
            tag5l: std::array::from_fn(|e| c(24 | e as u64)),
            wbytes: std::array::from_fn(|e| c(8 - e as u64)),
            bandbase: std::array::from_fn(|b| c(b as u64 * REGION_WORDS)),
            zero_xp: c(0),
            bidx: std::array::from_fn(|b| c(b as u64)),
            dofs: std::array::from_fn(|d| c(((d + 1) % BANDS) as u64)),
            nports: c(N as u64),
            act_none: c(ACT_NONE),
            act_fwd: c(ACT_FWD),
            act_trim: c(ACT_TRIM),
            act_ret: c(ACT_RET),
            act_dod: c(ACT_DOD),
            act_drop: c(ACT_DROP),
            why_noroute: c(WHY_NOROUTE),
            why_full: c(WHY_FULL),
            why_hdr: c(WHY_HDR),
            why_dod: c(WHY_DOD),
            mode_trim: c(MODE_TRIM),
            mode_bolt: c(MODE_BOLT),
            six3: c(6),
            seven3: c(7),
            smoff32: c(SM_OFFSET),
            elcap32: c(SM_ELAPSED_CAP),
            m_keep6: c(0xffff_0000_0000_00ff),
            m_flags6: c(0xff00),
            m_notflags6: c(!0xff00u64),
            b_dec64: c((BOLT_DEC as u64) << 8),
            b_notinc64: c(!((BOLT_INC as u64) << 8)),
            b_src6: c((BOLT_SRC as u64) << 8),
            m_notflags4: c(!(0xffu64 << 40)),
            zero2: c(0),
            one2: c(1),
            two2: c(2),
            three2: c(3),
            zero3: c(0),
            one3: c(1),
            four3: c(4),
            five3: c(5),
            zero4: c(0),
            one4: c(1),
            zero5: c(0),
            zero6: c(0),
            one6: c(1),
            zero8: c(0),
            one8: c(1),
            c15_8: c(15),
            c69_8: c(0x45),
            c154_8: c(154),
            c155_8: c(155),
            zero10: c(0),
            one10: c(1),
            one11: c(1),
            zero11: c(0),
            m_region_11: c(REGION_WORDS - 1),
            c2_10: c(2),
            c3_10: c(3),
            c4_10: c(4),
            c7_10: c(7),
            c6_10: c(6),
            c8_10: c(8),
            c64_10: c(1 << RET_A),
            m_region_10: c(REGION_WORDS - 1),
            c_region_10: c(REGION_WORDS),
            c7_32: c(7),
            c14_32: c(14),
            c50_64: c(50),
            len50_64: c(50 << 48),
            m8_64: c(0xff),
            m16_64: c(0xffff),
            m_ig0_64: c(!0x100u64),
            m32_64: c(0xffff_ffff),
            m48_64: c(0xffff_ffff_ffff),
            mflags_64: c(0xff << 40),
            zero12: c(0),
            one12: c(1),
            c50_16: c(50),
            c1074_16: c(1074),
            ethertype_ipv4: c(0x0800),
            zero20: c(0),
            c64_20: c(64),
            zero32: c(0),
            one32: c(1),
            two32: c(2),
            zero64: c(0),
            chop64: c(0x10u64 << 40),
            sh3: c(3),
            sh8: c(8),
            sh16: c(16),
            sh24: c(24),
            sh32: c(32),
            sh48: c(48),
        }
    }
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > Default for Switch<N, NN, NB, NNB, NR, NP>
{
    fn default() -> Self {
        Self::new()
    }
}

impl<
        const N: usize,
        const NN: usize,
        const NB: usize,
        const NNB: usize,
        const NR: usize,
        const NP: usize,
    > Logic for Switch<N, NN, NB, NNB, NR, NP>
{
    #[hdl_gen]
    fn update(&mut self) {
        // `nn` is N: array indices are evaluated at generation time from loop variables
        // and literals only (docs/rust-hdl-guide.md), so N enters them as a loop variable.
        for nn in N..(N + 1) {
            // ================= clocks and register defaults =================
            for i in 0..N {
                self.beat[i].clock.next = self.clock.val();
                self.beat[i].d.next = self.beat[i].q.val();
                self.hbad[i].clock.next = self.clock.val();
                self.hbad[i].d.next = self.hbad[i].q.val();
                self.sd0[i].clock.next = self.clock.val();
                self.sd1[i].clock.next = self.clock.val();
                self.sd2[i].clock.next = self.clock.val();
                self.sd3[i].clock.next = self.clock.val();
                self.sd4[i].clock.next = self.clock.val();
                self.st0[i].clock.next = self.clock.val();
                self.st1[i].clock.next = self.clock.val();
                self.st2[i].clock.next = self.clock.val();
                self.st3[i].clock.next = self.clock.val();
                self.st4[i].clock.next = self.clock.val();
                self.w_act[i].clock.next = self.clock.val();
                self.w_act[i].d.next = self.w_act[i].q.val();
                self.w_why[i].clock.next = self.clock.val();
                self.w_why[i].d.next = self.w_why[i].q.val();
                self.w_o[i].clock.next = self.clock.val();
                self.w_o[i].d.next = self.w_o[i].q.val();
                self.w_b[i].clock.next = self.clock.val();
                self.w_b[i].d.next = self.w_b[i].q.val();
                self.w_words[i].clock.next = self.clock.val();
                self.w_words[i].d.next = self.w_words[i].q.val();
                self.w_empty[i].clock.next = self.clock.val();
                self.w_empty[i].d.next = self.w_empty[i].q.val();
                self.w_beat[i].clock.next = self.clock.val();
                self.w_beat[i].d.next = self.w_beat[i].q.val();
                self.w_start[i].clock.next = self.clock.val();
                self.w_start[i].d.next = self.w_start[i].q.val();
                self.w_csum[i].clock.next = self.clock.val();
                self.w_csum[i].d.next = self.w_csum[i].q.val();
                self.w_len[i].clock.next = self.clock.val();
                self.w_len[i].d.next = self.w_len[i].q.val();
                self.w_prev[i].clock.next = self.clock.val();
                self.w_prev[i].d.next = self.w_prev[i].q.val();
                self.busy[i].clock.next = self.clock.val();
                self.busy[i].d.next = self.busy[i].q.val();
                self.cur_ret[i].clock.next = self.clock.val();
                self.cur_ret[i].d.next = self.cur_ret[i].q.val();
                self.cur_i[i].clock.next = self.clock.val();
                self.cur_i[i].d.next = self.cur_i[i].q.val();
                self.cur_b[i].clock.next = self.clock.val();
                self.cur_b[i].d.next = self.cur_b[i].q.val();
                self.wrr_band[i].clock.next = self.clock.val();
                self.wrr_band[i].d.next = self.wrr_band[i].q.val();
                self.wrr_used[i].clock.next = self.clock.val();
                self.wrr_used[i].d.next = self.wrr_used[i].q.val();
                self.retd[i].read_clock.next = self.clock.val();
                self.retd[i].write_clock.next = self.clock.val();
                self.rett[i].read_clock.next = self.clock.val();
                self.rett[i].write_clock.next = self.clock.val();
                self.ret_rtail[i].clock.next = self.clock.val();
                self.ret_rtail[i].d.next = self.ret_rtail[i].q.val();
                self.ret_head[i].clock.next = self.clock.val();
                self.ret_head[i].d.next = self.ret_head[i].q.val();
                self.ret_done[i].clock.next = self.clock.val();
                self.ret_done[i].d.next = self.ret_done[i].q.val();
                self.c_rx[i].clock.next = self.clock.val();
                self.c_rx[i].d.next = self.c_rx[i].q.val();
                self.c_tx[i].clock.next = self.clock.val();
                self.c_tx[i].d.next = self.c_tx[i].q.val();
                self.c_mal[i].clock.next = self.clock.val();
                self.c_mal[i].d.next = self.c_mal[i].q.val();
                self.c_noroute[i].clock.next = self.clock.val();
                self.c_noroute[i].d.next = self.c_noroute[i].q.val();
                self.c_full[i].clock.next = self.clock.val();
                self.c_full[i].d.next = self.c_full[i].q.val();
                self.c_trim[i].clock.next = self.clock.val();
                self.c_trim[i].d.next = self.c_trim[i].q.val();
                self.c_ret[i].clock.next = self.clock.val();
                self.c_ret[i].d.next = self.c_ret[i].q.val();
                self.c_hdr[i].clock.next = self.clock.val();
                self.c_hdr[i].d.next = self.c_hdr[i].q.val();
                self.w_bc[i].clock.next = self.clock.val();
                self.w_bc[i].d.next = self.w_bc[i].q.val();
                self.w_sv[i].clock.next = self.clock.val();
                self.w_sv[i].d.next = self.w_sv[i].q.val();
                self.w_sgo[i].clock.next = self.clock.val();
                self.w_sgo[i].d.next = self.w_sgo[i].q.val();
                self.w_bmod[i].clock.next = self.clock.val();
                self.w_bmod[i].d.next = self.w_bmod[i].q.val();
                self.w_sbase[i].clock.next = self.clock.val();
                self.w_sbase[i].d.next = self.w_sbase[i].q.val();
                self.w_q[i].clock.next = self.clock.val();
                self.w_q[i].d.next = self.w_q[i].q.val();
                self.w_plen[i].clock.next = self.clock.val();
                self.w_plen[i].d.next = self.w_plen[i].q.val();
                self.w_bf[i].clock.next = self.clock.val();
                self.w_bf[i].d.next = self.w_bf[i].q.val();
                self.c_src[i].clock.next = self.clock.val();
                self.c_src[i].d.next = self.c_src[i].q.val();
                self.c_srcdrop[i].clock.next = self.clock.val();
                self.c_srcdrop[i].d.next = self.c_srcdrop[i].q.val();
                self.smo[i].clock.next = self.clock.val();
                self.pru[i].clock.next = self.clock.val();
                self.sm_last[i].clock.next = self.clock.val();
                self.sm_last[i].d.next = self.sm_last[i].q.val();
                self.zq[i].a.next = self.w_q[i].q.val();
                self.sig_t[i].clock.next = self.clock.val();
                self.sig_t[i].d.next = self.sig_t[i].q.val();
                self.sig_v[i].clock.next = self.clock.val();
                self.sig_v[i].d.next = self.sig_v[i].q.val();
                self.reco[i].read_clock.next = self.clock.val();
                self.reco[i].write_clock.next = self.clock.val();
                self.recw[i].read_clock.next = self.clock.val();
                self.recw[i].write_clock.next = self.clock.val();
                self.rec_h[i].clock.next = self.clock.val();
                self.rec_h[i].d.next = self.rec_h[i].q.val();
                self.rec_n[i].clock.next = self.clock.val();
                self.rec_n[i].d.next = self.rec_n[i].q.val();
                self.rec_pend[i].clock.next = self.clock.val();
                self.rec_pend[i].d.next = self.rec_pend[i].q.val();
                self.cur_dod[i].clock.next = self.clock.val();
                self.cur_dod[i].d.next = self.cur_dod[i].q.val();
                self.dpos[i].clock.next = self.clock.val();
                self.dpos[i].d.next = self.dpos[i].q.val();
                self.drr[i].clock.next = self.clock.val();
                self.drr[i].d.next = self.drr[i].q.val();
                self.c_dodtrim[i].clock.next = self.clock.val();
                self.c_dodtrim[i].d.next = self.c_dodtrim[i].q.val();
                self.c_doddrop[i].clock.next = self.clock.val();
                self.c_doddrop[i].d.next = self.c_doddrop[i].q.val();
            }
            for p in 0..MAX_PIPES {
                self.sv_busy[p].clock.next = self.clock.val();
                self.sv_busy[p].d.next = self.sv_busy[p].q.val();
                self.sv_i[p].clock.next = self.clock.val();
                self.sv_i[p].d.next = self.sv_i[p].q.val();
                self.sv_o[p].clock.next = self.clock.val();
                self.sv_o[p].d.next = self.sv_o[p].q.val();
                self.sv_cnt[p].clock.next = self.clock.val();
                self.sv_cnt[p].d.next = self.sv_cnt[p].q.val();
                self.sv_rr[p].clock.next = self.clock.val();
                self.sv_rr[p].d.next = self.sv_rr[p].q.val();
            }
            self.now8.clock.next = self.clock.val();
            self.now8.d.next = self.now8.q.val() + self.eight_t.val();
            self.tofino.next = self.cfg.mode.val() == self.mode_tofino.val();
            self.burst0.next = bit_cast::<TAT_BITS, 20>(self.cfg.meter_burst.val());
            self.burst1.next = self.burst0.val() << self.sh1.val();
            self.burst2.next = self.burst0.val() << self.sh2.val();
            self.t0_32.next = bit_cast::<32, 24>(self.cfg.t0.val());
            self.t01_32.next = self.t0_32.val() + bit_cast::<32, 24>(self.cfg.t1.val());
            // Pipes: 0 counts as 1, more than 4 as 4.
            self.np3.next = self.cfg.pipes.val();
            if self.cfg.pipes.val() == self.zero3.val() {
                self.np3.next = self.one3.val();
            }
            if self.cfg.pipes.val() > self.four3.val() {
                self.np3.next = self.four3.val();
            }
            for k in 0..NB {
                self.tat0[k].clock.next = self.clock.val();
                self.tat0[k].d.next = self.tat0[k].q.val();
                self.tat1[k].clock.next = self.clock.val();
                self.tat1[k].d.next = self.tat1[k].q.val();
                self.tat2[k].clock.next = self.clock.val();
                self.tat2[k].d.next = self.tat2[k].q.val();
            }
            for k in 0..NN {
                self.dodd[k].read_clock.next = self.clock.val();
                self.dodd[k].write_clock.next = self.clock.val();
                self.dtail[k].clock.next = self.clock.val();
                self.dtail[k].d.next = self.dtail[k].q.val();
                self.dhead[k].clock.next = self.clock.val();
                self.dhead[k].d.next = self.dhead[k].q.val();
                self.drel[k].clock.next = self.clock.val();
                self.drel[k].d.next = self.drel[k].q.val();
            }
            self.now.clock.next = self.clock.val();
            self.now.d.next = self.now.q.val() + self.one32.val();
            self.bolt.next = self.cfg.mode.val() == self.mode_bolt.val();
            self.by_flags.next = self.cfg.band_by_flags.val() | self.bolt.val();
            self.mtu32.next = bit_cast::<32, 12>(self.cfg.mtu.val());
            self.offmtu.next = self.smoff32.val() + self.mtu32.val();
            self.link64.next = bit_cast::<64, 8>(self.cfg.link_rate.val());
            for k in 0..NN {
                self.xpd[k].read_clock.next = self.clock.val();
                self.xpd[k].write_clock.next = self.clock.val();
                self.xpt[k].read_clock.next = self.clock.val();
                self.xpt[k].write_clock.next = self.clock.val();
            }
            for k in 0..NNB {
                self.rtail[k].clock.next = self.clock.val();
                self.rtail[k].d.next = self.rtail[k].q.val();
                self.head[k].clock.next = self.clock.val();
                self.head[k].d.next = self.head[k].q.val();
                self.done[k].clock.next = self.clock.val();
                self.done[k].d.next = self.done[k].q.val();
            }
            for k in 0..NB {
                self.occ_bytes[k].clock.next = self.clock.val();
                self.occ_pkts[k].clock.next = self.clock.val();
                self.rr[k].clock.next = self.clock.val();
                self.rr[k].d.next = self.rr[k].q.val();
            }

            // ================= inputs: parse, delay line, decision fields =================
            for i in 0..N {
                self.rx[i].ready.next = !self.reset.val();
                self.word_in[i].next = self.rx[i].valid.val() & !self.reset.val();
                self.in_tag[i].next = self.zero5.val();
                self.sd0[i].d.next = self.zero64.val();
                if self.word_in[i].val() {
                    self.sd0[i].d.next = self.rx[i].data.val();
                    for e in 0..8 {
                        if self.rx[i].empty.val() == self.e3[e].val() {
                            if self.rx[i].last.val() {
                                self.in_tag[i].next = self.tag5l[e].val();
                            } else {
                                self.in_tag[i].next = self.tag5[e].val();
                            }
                        }
                    }
                }
                self.st0[i].d.next = self.in_tag[i].val();
                self.sd1[i].d.next = self.sd0[i].q.val();
                self.st1[i].d.next = self.st0[i].q.val();
                self.sd2[i].d.next = self.sd1[i].q.val();
                self.st2[i].d.next = self.st1[i].q.val();
                self.sd3[i].d.next = self.sd2[i].q.val();
                self.st3[i].d.next = self.st2[i].q.val();
                self.sd4[i].d.next = self.sd3[i].q.val();
                self.st4[i].d.next = self.st3[i].q.val();

                // Header fields at word 4: stage 0 holds word 3, 1 word 2, 2 word 1.
                self.ethertype[i].next = self.sd2[i].q.val().get_bits::<16>(16);
                self.verihl[i].next = self.sd2[i].q.val().get_bits::<8>(8);
                self.tos[i].next = self.sd2[i].q.val().get_bits::<8>(0);
                self.ip_len[i].next = self.sd1[i].q.val().get_bits::<16>(48);
                self.proto[i].next = self.sd1[i].q.val().get_bits::<8>(0);
                self.ipl32[i].next = self.sd1[i].q.val().get_bits::<32>(32) >> self.sh16.val();
                self.flags[i].next = self.rx[i].data.val().get_bits::<8>(40);
                self.dst_ip[i].next = (self.sd0[i].q.val().get_bits::<32>(0) << self.sh16.val())
                    | (self.rx[i].data.val().get_bits::<32>(32) >> self.sh16.val());
                self.len32[i].next = self.ipl32[i].val() + self.c14_32.val();
                self.words32[i].next = (self.len32[i].val() + self.c7_32.val()) >> self.sh3.val();
                self.d_words[i].next = self.words32[i].val().get_bits::<10>(0);
                self.d_empty[i].next = self.zero3.val() - self.len32[i].val().get_bits::<3>(0);
                self.len20[i].next = self.len32[i].val().get_bits::<20>(0);
                // RFC 1624 eq. 3: HC' = ~(~HC + ~m + m'), m = old total length, m' = 50;
                // kept in bits 63:48 of a 64-bit value.
                self.cs_sum[i].next = (!self.sd0[i].q.val() >> self.sh48.val())
                    + (!self.sd1[i].q.val() >> self.sh48.val())
                    + self.c50_64.val();
                self.cs_f1[i].next = (self.cs_sum[i].val() & self.m16_64.val())
                    + (self.cs_sum[i].val() >> self.sh16.val());
                self.cs_f2[i].next = (self.cs_f1[i].val() & self.m16_64.val())
                    + (self.cs_f1[i].val() >> self.sh16.val());
                self.cs_new[i].next = (!self.cs_f2[i].val() & self.m16_64.val()) << self.sh48.val();

                // Forwarding table: the lowest matching entry wins (written last).
                self.r_found[i].next = false;
                self.r_port[i].next = self.zero8.val();
                for k in 0..N {
                    if self.route[nn - 1 - k].valid.val()
                        & (self.route[nn - 1 - k].ip.val() == self.dst_ip[i].val())
                    {
                        self.r_found[i].next = true;
                        self.r_port[i].next = self.route[nn - 1 - k].port.val();
                    }
                }
                self.d_o[i].next = self.r_port[i].val().get_bits::<4>(0);
                self.ours[i].next = (self.proto[i].val() == self.c154_8.val())
                    | (self.proto[i].val() == self.c155_8.val());
                // By `tos`: its DSCP field (bits 7:2), saturating at band 3; the ECN bits
                // (1:0) never select a band.
                self.d_b[i].next = self.tos[i].val().get_bits::<2>(2);
                if self.by_flags.val() {
                    if self.ours[i].val() {
                        if self.flags[i].val().get_bit(0) & !self.flags[i].val().get_bit(4) {
                            self.d_b[i].next = self.one2.val();
                        } else {
                            self.d_b[i].next = self.zero2.val();
                        }
                    } else {
                        self.d_b[i].next = self.three2.val();
                    }
                } else if self.tos[i].val() > self.c15_8.val() {
                    self.d_b[i].next = self.three2.val();
                }
                self.trim_ok[i].next = (self.cfg.mode.val() == self.mode_trim.val())
                    & self.ours[i].val()
                    & self.flags[i].val().get_bit(0)
                    & !self.flags[i].val().get_bit(4);
                self.trimmable[i].next = self.ours[i].val()
                    & self.flags[i].val().get_bit(0)
                    & !self.flags[i].val().get_bit(4);
                self.pipe_i[i].next = self.pipx[0].val();
                for pp in 0..MAX_PIPES {
                    if self.np3.val() == self.pcnt[pp].val() {
                        self.pipe_i[i].next = self.pmap[pp * nn + i].val();
                    }
                }

                // The decision cycle, and what is malformed.
                self.dec[i].next = self.word_in[i].val()
                    & (self.beat[i].q.val() == self.four3.val())
                    & !self.hbad[i].q.val();
                self.in_mal[i].next = false;
                if self.dec[i].val()
                    & ((self.ethertype[i].val() != self.ethertype_ipv4.val())
                        | (self.verihl[i].val() != self.c69_8.val())
                        | (self.ip_len[i].val() < self.c50_16.val())
                        | (self.ip_len[i].val() > self.c1074_16.val())
                        | self.rx[i].last.val())
                {
                    self.in_mal[i].next = true;
                }
                // A frame that ends before word 4.
                if self.word_in[i].val()
                    & self.rx[i].last.val()
                    & (self.beat[i].q.val() < self.four3.val())
                    & !self.hbad[i].q.val()
                {
                    self.in_mal[i].next = true;
                }
                // A gap among words 0-4.
                if !self.word_in[i].val()
                    & (self.beat[i].q.val() != self.zero3.val())
                    & (self.beat[i].q.val() < self.five3.val())
                    & !self.hbad[i].q.val()
                    & !self.reset.val()
                {
                    self.in_mal[i].next = true;
                    self.hbad[i].d.next = true;
                }
                self.dec_ok[i].next = self.dec[i].val()
                    & !self.in_mal[i].val()
                    & self.r_found[i].val()
                    & (self.r_port[i].val() < self.nports.val());
                self.dec_noroute[i].next = self.dec[i].val()
                    & !self.in_mal[i].val()
                    & !(self.r_found[i].val() & (self.r_port[i].val() < self.nports.val()));
                if self.word_in[i].val() {
                    if self.rx[i].last.val() {
                        self.beat[i].d.next = self.zero3.val();
                        self.hbad[i].d.next = false;
                    } else if self.beat[i].q.val() < self.seven3.val() {
                        self.beat[i].d.next = self.beat[i].q.val() + self.one3.val();
                    }
                }
                if self.word_in[i].val() & (self.beat[i].q.val() == self.zero3.val()) {
                    self.c_rx[i].d.next = self.c_rx[i].q.val() + self.one32.val();
                    self.w_bc[i].d.next = false;
                }
                // Bolt: the decision at word 6 (Bolt flags in bits 15:8), for a candidate
                // of word 4 that carries the Bolt data flag and is not cut short.
                self.bf6[i].next = self.rx[i].data.val() & self.m_flags6.val();
                self.bdec[i].next = self.word_in[i].val()
                    & (self.beat[i].q.val() == self.six3.val())
                    & !self.rx[i].last.val()
                    & self.w_bc[i].q.val()
                    & self.rx[i].data.val().get_bit(15);
                if self.word_in[i].val() & (self.beat[i].q.val() == self.six3.val()) {
                    self.w_bc[i].d.next = false;
                }
            }

            // ================= inputs: the writer (frame in stage 4) =================
            for i in 0..N {
                self.s4v[i].next = self.st4[i].q.val().get_bit(4);
                self.s4l[i].next = self.st4[i].q.val().get_bit(3);
                self.s4e[i].next = self.st4[i].q.val().get_bits::<3>(0);
                self.wv[i].next =
                    self.s4v[i].val() & (self.w_act[i].q.val() != self.act_none.val());
                // Words written: all of a forwarded frame, the first 8 (beats 0-7) of a
                // trimmed, returned or deflected header, none of a dropped frame (the rest
                // is only counted, to check the frame's length).
                self.wwr[i].next = self.wv[i].val()
                    & (self.w_act[i].q.val() != self.act_drop.val())
                    & ((self.w_act[i].q.val() == self.act_fwd.val())
                        | (self.w_beat[i].q.val() < self.c8_10.val()));
                self.wpos[i].next = self.w_start[i].q.val() + self.w_beat[i].q.val();
                self.wnext[i].next = self.w_beat[i].q.val() + self.one10.val();
                if self.s4v[i].val() {
                    self.w_prev[i].d.next = self.sd4[i].q.val();
                }
                self.wdata[i].next = self.sd4[i].q.val();
                self.wlast[i].next = self.s4l[i].val();
                self.wempty[i].next = self.s4e[i].val();
                // The returned header's word at this beat (trim mode's return to sender,
                // and Bolt's SRC): MACs, IPs and contexts swapped (stage 3 is the next
                // word, `w_prev` the previous one), IPv4 length 50, CHOP set. The new
                // source MAC (the old destination) has its group bit cleared: a frame to
                // a multicast MAC is never answered from a multicast source.
                self.rw[i].next = self.sd4[i].q.val();
                if self.w_beat[i].q.val() == self.zero10.val() {
                    self.rw[i].next = (((self.sd4[i].q.val() & self.m16_64.val())
                        << self.sh48.val())
                        | ((self.sd3[i].q.val() >> self.sh32.val()) << self.sh16.val())
                        | (self.sd4[i].q.val() >> self.sh48.val()))
                        & self.m_ig0_64.val();
                }
                if self.w_beat[i].q.val() == self.one10.val() {
                    self.rw[i].next = ((self.w_prev[i].q.val() >> self.sh16.val())
                        << self.sh32.val())
                        | (self.sd4[i].q.val() & self.m32_64.val());
                }
                if self.w_beat[i].q.val() == self.c2_10.val() {
                    self.rw[i].next =
                        self.len50_64.val() | (self.sd4[i].q.val() & self.m48_64.val());
                }
                if self.w_beat[i].q.val() == self.c3_10.val() {
                    self.rw[i].next = self.w_csum[i].q.val()
                        | ((self.sd4[i].q.val() & self.m16_64.val()) << self.sh32.val())
                        | ((self.sd3[i].q.val() >> self.sh48.val()) << self.sh16.val())
                        | ((self.sd4[i].q.val() >> self.sh32.val()) & self.m16_64.val());
                }
                if self.w_beat[i].q.val() == self.c4_10.val() {
                    self.rw[i].next = (((self.w_prev[i].q.val() >> self.sh16.val())
                        & self.m16_64.val())
                        << self.sh48.val())
                        | (self.sd4[i].q.val() & self.mflags_64.val())
                        | self.chop64.val()
                        | (((self.sd4[i].q.val() >> self.sh8.val()) & self.m16_64.val())
                            << self.sh24.val())
                        | (((self.sd4[i].q.val() >> self.sh24.val()) & self.m16_64.val())
                            << self.sh8.val())
                        | (self.sd4[i].q.val() & self.m8_64.val());
                }
                // Bolt's SRC: the returned header with transport flags 0 and, in word 6,
                // q_size, link_rate and the SRC flag (t_data_tx reflected unchanged).
                self.sdata[i].next = self.rw[i].val();
                if self.w_beat[i].q.val() == self.c4_10.val() {
                    self.sdata[i].next = self.rw[i].val() & self.m_notflags4.val();
                }
                if self.w_beat[i].q.val() == self.c6_10.val() {
                    self.sdata[i].next = (self.sd4[i].q.val() & self.m_keep6.val())
                        | (self.zq[i].y.val() << self.sh24.val())
                        | (self.link64.val() << self.sh16.val())
                        | self.b_src6.val();
                }
                self.stag[i].next = self.zero4.val();
                if self.w_beat[i].q.val() == self.c7_10.val() {
                    self.stag[i].next = self.tag4l[0].val();
                }
                if self.w_act[i].q.val() != self.act_fwd.val() {
                    // Trimmed or returned: a 64-byte header, IPv4 length 50, CHOP set.
                    self.wlast[i].next = self.w_beat[i].q.val() == self.c7_10.val();
                    self.wempty[i].next = self.zero3.val();
                    if (self.w_act[i].q.val() == self.act_trim.val())
                        | (self.w_act[i].q.val() == self.act_dod.val())
                    {
                        if self.w_beat[i].q.val() == self.c2_10.val() {
                            self.wdata[i].next =
                                self.len50_64.val() | (self.sd4[i].q.val() & self.m48_64.val());
                        }
                        if self.w_beat[i].q.val() == self.c3_10.val() {
                            self.wdata[i].next =
                                self.w_csum[i].q.val() | (self.sd4[i].q.val() & self.m48_64.val());
                        }
                        if self.w_beat[i].q.val() == self.c4_10.val() {
                            self.wdata[i].next = self.sd4[i].q.val() | self.chop64.val();
                        }
                    } else {
                        self.wdata[i].next = self.rw[i].val();
                    }
                } else if self.w_bmod[i].q.val() & (self.w_beat[i].q.val() == self.c6_10.val()) {
                    // Bolt: the data packet's new flags (DEC set, INC cleared or kept).
                    self.wdata[i].next =
                        (self.sd4[i].q.val() & self.m_notflags6.val()) | self.w_bf[i].q.val();
                }
                self.wtag[i].next = self.zero4.val();
                for e in 0..8 {
                    if self.wempty[i].val() == self.e3[e].val() {
                        if self.wlast[i].val() {
                            self.wtag[i].next = self.tag4l[e].val();
                        } else {
                            self.wtag[i].next = self.tag4[e].val();
                        }
                    }
                }
                self.wboff[i].next = self.zero_xp.val();
                for b in 0..BANDS {
                    if self.w_b[i].q.val() == self.bidx[b].val() {
                        self.wboff[i].next = self.bandbase[b].val();
                    }
                }
                self.zw[i].a.next = self.wpos[i].val() & self.m_region_10.val();
                self.waddr[i].next = self.wboff[i].val() | self.zw[i].y.val();
                // Commit (complete and of the right length) or roll back, at the frame's
                // last word or at the word past its IPv4 length, whatever was written: a
                // trimmed, returned or deflected header waits for its frame's end too.
                self.commit[i].next = false;
                self.rb[i].next = false;
                self.w_done[i].next = false;
                if self.wv[i].val() {
                    if self.s4l[i].val() {
                        self.w_done[i].next = true;
                        if (self.wnext[i].val() == self.w_words[i].q.val())
                            & (self.s4e[i].val() == self.w_empty[i].q.val())
                        {
                            self.commit[i].next = true;
                        } else {
                            self.rb[i].next = true;
                        }
                    } else if self.wnext[i].val() == self.w_words[i].q.val() {
                        self.w_done[i].next = true;
                        self.rb[i].next = true;
                    }
                }
                self.rb_ret[i].next =
                    self.rb[i].val() & (self.w_act[i].q.val() == self.act_ret.val());
                self.rb_dod[i].next =
                    self.rb[i].val() & (self.w_act[i].q.val() == self.act_dod.val());
                self.rb_drop[i].next =
                    self.rb[i].val() & (self.w_act[i].q.val() == self.act_drop.val());
                self.c_drop[i].next =
                    self.commit[i].val() & (self.w_act[i].q.val() == self.act_drop.val());
                self.rb_xp[i].next = self.rb[i].val()
                    & !self.rb_ret[i].val()
                    & !self.rb_dod[i].val()
                    & !self.rb_drop[i].val();
                self.wact[i].next = self.s4v[i].val()
                    & ((self.w_act[i].q.val() != self.act_none.val()) | self.w_sv[i].q.val());
                if self.wact[i].val() {
                    self.w_beat[i].d.next = self.wnext[i].val();
                }
                // Bolt: the SRC header is written speculatively into the return queue
                // (beats 0-7) and committed at beat 7 if the decision at word 6 sent it.
                self.sv_w[i].next = self.s4v[i].val() & self.w_sv[i].q.val();
                if self.sv_w[i].val()
                    & ((self.w_beat[i].q.val() == self.c7_10.val()) | self.s4l[i].val())
                {
                    self.w_sv[i].d.next = false;
                }
                self.scommit[i].next = self.sv_w[i].val()
                    & (self.w_beat[i].q.val() == self.c7_10.val())
                    & self.w_sgo[i].q.val();
                self.spos[i].next = self.w_sbase[i].q.val().get_bits::<RET_A>(0)
                    + self.w_beat[i].q.val().get_bits::<RET_A>(0);
                if self.w_done[i].val() {
                    self.w_act[i].d.next = self.act_none.val();
                }
                self.retd[i].write_enable.next = (self.wwr[i].val()
                    & (self.w_act[i].q.val() == self.act_ret.val()))
                    | self.sv_w[i].val();
                self.rett[i].write_enable.next = (self.wwr[i].val()
                    & (self.w_act[i].q.val() == self.act_ret.val()))
                    | self.sv_w[i].val();
                if self.sv_w[i].val() {
                    self.retd[i].write_address.next = self.spos[i].val();
                    self.retd[i].write_data.next = self.sdata[i].val();
                    self.rett[i].write_address.next = self.spos[i].val();
                    self.rett[i].write_data.next = self.stag[i].val();
                } else {
                    self.retd[i].write_address.next = self.wpos[i].val().get_bits::<RET_A>(0);
                    self.retd[i].write_data.next = self.wdata[i].val();
                    self.rett[i].write_address.next = self.wpos[i].val().get_bits::<RET_A>(0);
                    self.rett[i].write_data.next = self.wtag[i].val();
                }
                for o in 0..N {
                    self.xpd[i * nn + o].write_enable.next = self.wwr[i].val()
                        & (self.w_act[i].q.val() != self.act_ret.val())
                        & (self.w_act[i].q.val() != self.act_dod.val())
                        & (self.w_o[i].q.val() == self.pidx[o].val());
                    self.xpd[i * nn + o].write_address.next = self.waddr[i].val();
                    self.xpd[i * nn + o].write_data.next = self.wdata[i].val();
                    self.xpt[i * nn + o].write_enable.next = self.wwr[i].val()
                        & (self.w_act[i].q.val() != self.act_ret.val())
                        & (self.w_act[i].q.val() != self.act_dod.val())
                        & (self.w_o[i].q.val() == self.pidx[o].val());
                    self.xpt[i * nn + o].write_address.next = self.waddr[i].val();
                    self.xpt[i * nn + o].write_data.next = self.wtag[i].val();
                    // Tofino: a deflected packet's trimmed header, into the DoD store (i, o).
                    self.dodd[i * nn + o].write_enable.next = self.wwr[i].val()
                        & (self.w_act[i].q.val() == self.act_dod.val())
                        & (self.w_o[i].q.val() == self.pidx[o].val());
                    self.dodd[i * nn + o].write_address.next =
                        self.wpos[i].val().get_bits::<DOD_A>(0);
                    self.dodd[i * nn + o].write_data.next = self.wdata[i].val();
                }
            }

            // ================= outputs: current word, pop, eligibility, pick =================
            for o in 0..N {
                self.cur_band[o].next = !self.cur_ret[o].q.val() & !self.cur_dod[o].q.val();
                self.txd[o].next = self.zero64.val();
                self.txt[o].next = self.zero4.val();
                if self.cur_ret[o].q.val() {
                    self.txd[o].next = self.retd[o].read_data.val();
                    self.txt[o].next = self.rett[o].read_data.val();
                } else if self.cur_dod[o].q.val() {
                    // A deflected header: 8 words, the last with nothing empty.
                    for i in 0..N {
                        if self.cur_i[o].q.val() == self.pidx[i].val() {
                            self.txd[o].next = self.dodd[i * nn + o].read_data.val();
                        }
                    }
                    if self.dpos[o].q.val() == self.seven3.val() {
                        self.txt[o].next = self.tag4l[0].val();
                    }
                } else {
                    for i in 0..N {
                        if self.cur_i[o].q.val() == self.pidx[i].val() {
                            self.txd[o].next = self.xpd[i * nn + o].read_data.val();
                            self.txt[o].next = self.xpt[i * nn + o].read_data.val();
                        }
                    }
                }
                self.txl[o].next = self.busy[o].q.val() & self.txt[o].val().get_bit(3);
                self.txe[o].next = self.zero3.val();
                if self.txl[o].val() {
                    self.txe[o].next = self.txt[o].val().get_bits::<3>(0);
                }
                self.tx[o].valid.next = self.busy[o].q.val();
                self.tx[o].data.next = self.zero64.val();
                if self.busy[o].q.val() {
                    self.tx[o].data.next = self.txd[o].val();
                }
                self.tx[o].last.next = self.txl[o].val();
                self.tx[o].empty.next = self.txe[o].val();
                self.pop[o].next =
                    self.busy[o].q.val() & self.tx[o].ready.val() & !self.reset.val();
                self.popl[o].next = self.pop[o].val() & self.txl[o].val();
                self.dep[o].next = self.zero20.val();
                if self.pop[o].val() & self.cur_band[o].val() {
                    for e in 0..8 {
                        if self.txe[o].val() == self.e3[e].val() {
                            self.dep[o].next = self.wbytes[e].val();
                        }
                    }
                }
                if self.popl[o].val() {
                    self.c_tx[o].d.next = self.c_tx[o].q.val() + self.one32.val();
                }
                self.pick[o].next =
                    (!self.busy[o].q.val() | self.popl[o].val()) & !self.reset.val();

                // Complete packets per (input, band), less the one leaving now.
                for i in 0..N {
                    for b in 0..BANDS {
                        self.elig[(i * nn + o) * 4 + b].next =
                            self.done[(i * nn + o) * 4 + b].q.val() != self.zero6.val();
                        if self.popl[o].val()
                            & self.cur_band[o].val()
                            & (self.cur_i[o].q.val() == self.pidx[i].val())
                            & (self.cur_b[o].q.val() == self.bidx[b].val())
                        {
                            self.elig[(i * nn + o) * 4 + b].next =
                                self.done[(i * nn + o) * 4 + b].q.val() != self.one6.val();
                        }
                    }
                }
                self.ret_el[o].next = self.ret_done[o].q.val() != self.zero4.val();
                if self.popl[o].val() & self.cur_ret[o].q.val() {
                    self.ret_el[o].next = self.ret_done[o].q.val() != self.one4.val();
                }
                // Released DoD headers per input, less the one leaving now; round robin.
                self.d_any[o].next = false;
                self.d_lo[o].next = self.zero4.val();
                self.d_hi[o].next = self.zero4.val();
                self.d_hif[o].next = false;
                for i in 0..N {
                    self.d_el[i * nn + o].next = self.drel[i * nn + o].q.val() != self.zero5.val();
                    if self.popl[o].val()
                        & self.cur_dod[o].q.val()
                        & (self.cur_i[o].q.val() == self.pidx[i].val())
                    {
                        self.d_el[i * nn + o].next =
                            self.drel[i * nn + o].q.val() != self.one5.val();
                    }
                }
                for k in 0..N {
                    if self.d_el[(nn - 1 - k) * nn + o].val() {
                        self.d_any[o].next = true;
                        self.d_lo[o].next = self.pidx[nn - 1 - k].val();
                    }
                }
                for k in 0..(N - 1) {
                    if self.d_el[(nn - 1 - k) * nn + o].val()
                        & (self.pidx[nn - 1 - k].val() > self.drr[o].q.val())
                    {
                        self.d_hi[o].next = self.pidx[nn - 1 - k].val();
                        self.d_hif[o].next = true;
                    }
                }
                self.d_sel[o].next = self.d_lo[o].val();
                if self.d_hif[o].val() {
                    self.d_sel[o].next = self.d_hi[o].val();
                }
                // Round robin over inputs per band: the first eligible input after the last
                // served (`rsel_hi`), else the first eligible (`rsel_lo`); written in
                // reverse so that the lowest wins.
                for b in 0..BANDS {
                    self.bel[o * 4 + b].next = false;
                    self.rsel_lo[o * 4 + b].next = self.zero4.val();
                    self.rsel_hi[o * 4 + b].next = self.zero4.val();
                    self.rhi_f[o * 4 + b].next = false;
                    for k in 0..N {
                        if self.elig[((nn - 1 - k) * nn + o) * 4 + b].val() {
                            self.bel[o * 4 + b].next = true;
                            self.rsel_lo[o * 4 + b].next = self.pidx[nn - 1 - k].val();
                        }
                    }
                    // (input 0 is never after the last served)
                    for k in 0..(N - 1) {
                        if self.elig[((nn - 1 - k) * nn + o) * 4 + b].val()
                            & (self.pidx[nn - 1 - k].val() > self.rr[o * 4 + b].q.val())
                        {
                            self.rsel_hi[o * 4 + b].next = self.pidx[nn - 1 - k].val();
                            self.rhi_f[o * 4 + b].next = true;
                        }
                    }
                    self.rsel[o * 4 + b].next = self.rsel_lo[o * 4 + b].val();
                    if self.rhi_f[o * 4 + b].val() {
                        self.rsel[o * 4 + b].next = self.rsel_hi[o * 4 + b].val();
                    }
                }
                self.any_b[o].next = self.bel[o * 4].val()
                    | self.bel[o * 4 + 1].val()
                    | self.bel[o * 4 + 2].val()
                    | self.bel[o * 4 + 3].val();
                // Strict priority: the lowest band with a packet.
                self.sp_b[o].next = self.zero2.val();
                for bb in 0..BANDS {
                    if self.bel[o * 4 + 3 - bb].val() {
                        self.sp_b[o].next = self.bidx[3 - bb].val();
                    }
                }
                // Weighted round robin.
                self.wcur_el[o].next = false;
                self.weff[o].next = self.one8.val();
                for b in 0..BANDS {
                    if self.wrr_band[o].q.val() == self.bidx[b].val() {
                        self.wcur_el[o].next = self.bel[o * 4 + b].val();
                        if self.band[b].weight.val() != self.zero8.val() {
                            self.weff[o].next = self.band[b].weight.val();
                        }
                    }
                }
                self.wkeep[o].next =
                    self.wcur_el[o].val() & (self.wrr_used[o].q.val() < self.weff[o].val());
                for d in 0..BANDS {
                    self.wc[o * 4 + d].next = self.wrr_band[o].q.val() + self.dofs[d].val();
                    self.we[o * 4 + d].next = false;
                    for b in 0..BANDS {
                        if self.wc[o * 4 + d].val() == self.bidx[b].val() {
                            self.we[o * 4 + d].next = self.bel[o * 4 + b].val();
                        }
                    }
                }
                self.wb[o].next = self.zero2.val();
                for dd in 0..BANDS {
                    if self.we[o * 4 + 3 - dd].val() {
                        self.wb[o].next = self.wc[o * 4 + 3 - dd].val();
                    }
                }
                self.sel_b[o].next = self.sp_b[o].val();
                if self.cfg.wrr.val() {
                    if self.wkeep[o].val() {
                        self.sel_b[o].next = self.wrr_band[o].q.val();
                    } else {
                        self.sel_b[o].next = self.wb[o].val();
                    }
                }
                self.sel_i[o].next = self.zero4.val();
                for b in 0..BANDS {
                    if self.sel_b[o].val() == self.bidx[b].val() {
                        self.sel_i[o].next = self.rsel[o * 4 + b].val();
                    }
                }
                // Next state.
                self.nb[o].next = self.cur_b[o].q.val();
                if self.pop[o].val() & self.cur_dod[o].q.val() {
                    self.dpos[o].d.next = self.dpos[o].q.val() + self.one3.val();
                }
                if self.pick[o].val() {
                    self.busy[o].d.next =
                        self.ret_el[o].val() | self.d_any[o].val() | self.any_b[o].val();
                    self.cur_ret[o].d.next = self.ret_el[o].val();
                    self.cur_dod[o].d.next = !self.ret_el[o].val() & self.d_any[o].val();
                    self.dpos[o].d.next = self.zero3.val();
                    if !self.ret_el[o].val() & self.d_any[o].val() {
                        self.cur_i[o].d.next = self.d_sel[o].val();
                        self.drr[o].d.next = self.d_sel[o].val();
                    }
                    if !self.ret_el[o].val() & !self.d_any[o].val() & self.any_b[o].val() {
                        self.nb[o].next = self.sel_b[o].val();
                        self.cur_i[o].d.next = self.sel_i[o].val();
                        self.cur_b[o].d.next = self.sel_b[o].val();
                        for b in 0..BANDS {
                            if self.sel_b[o].val() == self.bidx[b].val() {
                                self.rr[o * 4 + b].d.next = self.sel_i[o].val();
                            }
                        }
                        if self.cfg.wrr.val() {
                            if self.wkeep[o].val() {
                                self.wrr_used[o].d.next =
                                    self.wrr_used[o].q.val() + self.one8.val();
                            } else {
                                self.wrr_band[o].d.next = self.wb[o].val();
                                self.wrr_used[o].d.next = self.one8.val();
                            }
                        }
                    }
                }
                // RAM reads for the next cycle: the next word of the current packet, or the
                // first word of the packet picked now.
                self.nbase[o].next = self.zero_xp.val();
                for b in 0..BANDS {
                    if self.nb[o].val() == self.bidx[b].val() {
                        self.nbase[o].next = self.bandbase[b].val();
                    }
                }
                for i in 0..N {
                    self.hs[i * nn + o].next = self.zero11.val();
                    for b in 0..BANDS {
                        if self.nb[o].val() == self.bidx[b].val() {
                            self.hs[i * nn + o].next = self.head[(i * nn + o) * 4 + b].q.val();
                        }
                    }
                    self.ro[i * nn + o].next = self.hs[i * nn + o].val();
                    if self.pop[o].val()
                        & self.cur_band[o].val()
                        & (self.cur_i[o].q.val() == self.pidx[i].val())
                        & (self.cur_b[o].q.val() == self.nb[o].val())
                    {
                        self.ro[i * nn + o].next = self.hs[i * nn + o].val() + self.one11.val();
                    }
                    self.xpd[i * nn + o].read_address.next =
                        self.nbase[o].val() | (self.ro[i * nn + o].val() & self.m_region_11.val());
                    self.xpt[i * nn + o].read_address.next =
                        self.nbase[o].val() | (self.ro[i * nn + o].val() & self.m_region_11.val());
                }
                self.rh_next[o].next = self.ret_head[o].q.val();
                if self.pop[o].val() & self.cur_ret[o].q.val() {
                    self.rh_next[o].next = self.ret_head[o].q.val() + self.one10.val();
                }
                self.ret_head[o].d.next = self.rh_next[o].val();
                for i in 0..N {
                    self.dh_n[i * nn + o].next = self.dhead[i * nn + o].q.val();
                    if self.pop[o].val()
                        & self.cur_dod[o].q.val()
                        & (self.cur_i[o].q.val() == self.pidx[i].val())
                    {
                        self.dh_n[i * nn + o].next =
                            self.dhead[i * nn + o].q.val() + self.one10.val();
                    }
                    self.dhead[i * nn + o].d.next = self.dh_n[i * nn + o].val();
                    self.dodd[i * nn + o].read_address.next =
                        self.dh_n[i * nn + o].val().get_bits::<DOD_A>(0);
                }
                self.retd[o].read_address.next = self.rh_next[o].val().get_bits::<RET_A>(0);
                self.rett[o].read_address.next = self.rh_next[o].val().get_bits::<RET_A>(0);
            }

            // ================= admission, inputs in index order =================
            for o in 0..N {
                for b in 0..BANDS {
                    self.run_b[o * 4 + b].next = self.occ_bytes[o * 4 + b].q.val();
                    self.run_p[o * 4 + b].next = self.occ_pkts[o * 4 + b].q.val();
                }
                // Bolt: token chains start from the registers; the supply since the last
                // data arrival (Algorithm 9), 8 bytes per cycle, inter-arrival capped.
                self.sm_run[o].next = self.smo[o].q.val() + self.smoff32.val();
                self.pru_run[o].next = self.pru[o].q.val();
                self.hit_run[o].next = false;
                self.el_o[o].next = self.now.q.val() - self.sm_last[o].q.val();
                if self.el_o[o].val() > self.elcap32.val() {
                    self.el_o[o].next = self.elcap32.val();
                }
                self.gain_o[o].next = self.el_o[o].val() << self.sh3.val();
                // Tofino: the port's mode (all pipes share it: every congestion signal goes
                // to all of them at once), and the meter chains start from the registers.
                self.el_s[o].next = self.now.q.val() - self.sig_t[o].q.val();
                self.pess_o[o].next =
                    self.sig_v[o].q.val() & (self.el_s[o].val() <= self.t0_32.val());
                self.half_o[o].next = self.sig_v[o].q.val()
                    & !self.pess_o[o].val()
                    & (self.el_s[o].val() <= self.t01_32.val());
                for p in 0..MAX_PIPES {
                    self.m0_run[o * 4 + p].next = self.tat0[o * 4 + p].q.val();
                    self.m1_run[o * 4 + p].next = self.tat1[o * 4 + p].q.val();
                    self.m2_run[o * 4 + p].next = self.tat2[o * 4 + p].q.val();
                }
            }
            // Tofino: the recirculation servers, one per pipe. A record whose header is
            // complete is taken round robin over the pipe's inputs and holds the server for
            // its frame's words (its full length at line rate); then its header is released
            // to its output and a congestion signal goes to every pipe.
            for i in 0..N {
                self.rec_av[i].next = (self.rec_n[i].q.val() > self.one8.val())
                    | ((self.rec_n[i].q.val() == self.one8.val()) & !self.rec_pend[i].q.val());
            }
            for p in 0..MAX_PIPES {
                self.sv_rel[p].next =
                    self.sv_busy[p].q.val() & (self.sv_cnt[p].q.val() == self.one8.val());
                self.sv_can[p].next = !self.sv_busy[p].q.val() | self.sv_rel[p].val();
                for i in 0..N {
                    self.sv_el[p * nn + i].next =
                        (self.pipe_i[i].val() == self.pipx[p].val()) & self.rec_av[i].val();
                }
                self.sv_any[p].next = false;
                self.sv_lo[p].next = self.zero4.val();
                self.sv_hi[p].next = self.zero4.val();
                self.sv_hif[p].next = false;
                for k in 0..N {
                    if self.sv_el[p * nn + nn - 1 - k].val() {
                        self.sv_any[p].next = true;
                        self.sv_lo[p].next = self.pidx[nn - 1 - k].val();
                    }
                }
                for k in 0..(N - 1) {
                    if self.sv_el[p * nn + nn - 1 - k].val()
                        & (self.pidx[nn - 1 - k].val() > self.sv_rr[p].q.val())
                    {
                        self.sv_hi[p].next = self.pidx[nn - 1 - k].val();
                        self.sv_hif[p].next = true;
                    }
                }
                self.sv_sel[p].next = self.sv_lo[p].val();
                if self.sv_hif[p].val() {
                    self.sv_sel[p].next = self.sv_hi[p].val();
                }
                self.sv_pick[p].next = self.sv_can[p].val() & self.sv_any[p].val();
                self.sv_ro[p].next = self.zero4.val();
                self.sv_rw[p].next = self.zero8.val();
                for i in 0..N {
                    if self.sv_sel[p].val() == self.pidx[i].val() {
                        self.sv_ro[p].next = self.reco[i].read_data.val();
                        self.sv_rw[p].next = self.recw[i].read_data.val();
                    }
                }
                if self.sv_busy[p].q.val() {
                    self.sv_cnt[p].d.next = self.sv_cnt[p].q.val() - self.one8.val();
                }
                if self.sv_rel[p].val() {
                    self.sv_busy[p].d.next = false;
                }
                if self.sv_pick[p].val() {
                    self.sv_busy[p].d.next = true;
                    self.sv_i[p].d.next = self.sv_sel[p].val();
                    self.sv_o[p].d.next = self.sv_ro[p].val();
                    self.sv_cnt[p].d.next = self.sv_rw[p].val();
                    self.sv_rr[p].d.next = self.sv_sel[p].val();
                }
            }
            for i in 0..N {
                self.pop_i[i].next = false;
                self.srv_has[i].next = false;
                for p in 0..MAX_PIPES {
                    if self.sv_pick[p].val() & (self.sv_sel[p].val() == self.pidx[i].val()) {
                        self.pop_i[i].next = true;
                    }
                    if self.sv_busy[p].q.val() & (self.sv_i[p].q.val() == self.pidx[i].val()) {
                        self.srv_has[i].next = true;
                    }
                }
            }
            for i in 0..N {
                self.cb_bytes[i].next = self.zero20.val();
                self.cb_pkts[i].next = self.zero12.val();
                self.c0_bytes[i].next = self.zero20.val();
                self.c0_pkts[i].next = self.zero12.val();
                self.tb_tail[i].next = self.zero10.val();
                self.tb_head[i].next = self.zero10.val();
                self.t0_tail[i].next = self.zero10.val();
                self.t0_head[i].next = self.zero10.val();
                for o in 0..N {
                    if self.d_o[i].val() == self.pidx[o].val() {
                        self.c0_bytes[i].next = self.run_b[(i * nn + o) * 4].val();
                        self.c0_pkts[i].next = self.run_p[(i * nn + o) * 4].val();
                        self.t0_tail[i].next = self.rtail[(i * nn + o) * 4].q.val();
                        self.t0_head[i].next =
                            self.head[(i * nn + o) * 4].q.val().get_bits::<10>(0);
                        for b in 0..BANDS {
                            if self.d_b[i].val() == self.bidx[b].val() {
                                self.cb_bytes[i].next = self.run_b[(i * nn + o) * 4 + b].val();
                                self.cb_pkts[i].next = self.run_p[(i * nn + o) * 4 + b].val();
                                self.tb_tail[i].next = self.rtail[(i * nn + o) * 4 + b].q.val();
                                self.tb_head[i].next =
                                    self.head[(i * nn + o) * 4 + b].q.val().get_bits::<10>(0);
                            }
                        }
                    }
                }
                self.lim_bytes[i].next = self.zero20.val();
                self.lim_pkts[i].next = self.zero12.val();
                for b in 0..BANDS {
                    if self.d_b[i].val() == self.bidx[b].val() {
                        self.lim_bytes[i].next = self.band[b].limit_bytes.val();
                        self.lim_pkts[i].next = self.band[b].limit_pkts.val();
                    }
                }
                // This input's own rollback happens before its decision.
                self.rbm_b[i].next = self.rb_xp[i].val()
                    & (self.w_o[i].q.val() == self.d_o[i].val())
                    & (self.w_b[i].q.val() == self.d_b[i].val());
                self.rbm_0[i].next = self.rb_xp[i].val()
                    & (self.w_o[i].q.val() == self.d_o[i].val())
                    & (self.w_b[i].q.val() == self.zero2.val());
                self.ab_bytes[i].next = self.cb_bytes[i].val();
                self.ab_pkts[i].next = self.cb_pkts[i].val();
                self.base_b[i].next = self.tb_tail[i].val();
                if self.rbm_b[i].val() {
                    self.ab_bytes[i].next = self.cb_bytes[i].val() - self.w_len[i].q.val();
                    self.ab_pkts[i].next = self.cb_pkts[i].val() - self.one12.val();
                    self.base_b[i].next = self.w_start[i].q.val();
                }
                self.a0_bytes[i].next = self.c0_bytes[i].val();
                self.a0_pkts[i].next = self.c0_pkts[i].val();
                self.base_0[i].next = self.t0_tail[i].val();
                if self.rbm_0[i].val() {
                    self.a0_bytes[i].next = self.c0_bytes[i].val() - self.w_len[i].q.val();
                    self.a0_pkts[i].next = self.c0_pkts[i].val() - self.one12.val();
                    self.base_0[i].next = self.w_start[i].q.val();
                }
                self.used_b[i].next = self.base_b[i].val() - self.tb_head[i].val();
                self.used_0[i].next = self.base_0[i].val() - self.t0_head[i].val();
                self.fits_b[i].next = ((self.ab_bytes[i].val() + self.len20[i].val())
                    <= self.lim_bytes[i].val())
                    & ((self.ab_pkts[i].val() + self.one12.val()) <= self.lim_pkts[i].val())
                    & ((self.used_b[i].val() + self.d_words[i].val()) <= self.c_region_10.val());
                self.fits_0[i].next = ((self.a0_bytes[i].val() + self.c64_20.val())
                    <= self.band[0].limit_bytes.val())
                    & ((self.a0_pkts[i].val() + self.one12.val()) <= self.band[0].limit_pkts.val())
                    & ((self.used_0[i].val() + self.c8_10.val()) <= self.c_region_10.val());
                self.ret_base[i].next = self.ret_rtail[i].q.val();
                if self.rb_ret[i].val() {
                    self.ret_base[i].next = self.w_start[i].q.val();
                }
                self.ret_used[i].next = self.ret_base[i].val() - self.ret_head[i].q.val();
                self.ret_fits[i].next = self.cfg.ret.val()
                    & ((self.ret_used[i].val() + self.c8_10.val()) <= self.c64_10.val());
                // Bolt: bytes queued at the output port (all bands) before this packet.
                self.qsum[i].next = self.zero20.val();
                for o in 0..N {
                    if self.d_o[i].val() == self.pidx[o].val() {
                        self.qsum[i].next = self.run_b[(i * nn + o) * 4].val()
                            + self.run_b[(i * nn + o) * 4 + 1].val()
                            + self.run_b[(i * nn + o) * 4 + 2].val()
                            + self.run_b[(i * nn + o) * 4 + 3].val();
                    }
                }
                self.qown[i].next = self.qsum[i].val();
                if self.rb_xp[i].val() & (self.w_o[i].q.val() == self.d_o[i].val()) {
                    self.qown[i].next = self.qsum[i].val() - self.w_len[i].q.val();
                }
                self.bc[i].next = self.bolt.val() & self.dec_ok[i].val() & self.ours[i].val();
                self.sroom[i].next =
                    (self.ret_used[i].val() + self.c8_10.val()) <= self.c64_10.val();
                // Tofino: the three meters of (this input's pipe, output), chained over the
                // inputs in index order; the port's mode picks the colour that counts.
                self.ms0[i].next = self.zero_t.val();
                self.ms1[i].next = self.zero_t.val();
                self.ms2[i].next = self.zero_t.val();
                self.m_pess[i].next = false;
                self.m_half[i].next = false;
                for o in 0..N {
                    if self.d_o[i].val() == self.pidx[o].val() {
                        self.m_pess[i].next = self.pess_o[o].val();
                        self.m_half[i].next = self.half_o[o].val();
                        for p in 0..MAX_PIPES {
                            if self.pipe_i[i].val() == self.pipx[p].val() {
                                self.ms0[i].next = self.m0_run[(i * nn + o) * 4 + p].val();
                                self.ms1[i].next = self.m1_run[(i * nn + o) * 4 + p].val();
                                self.ms2[i].next = self.m2_run[(i * nn + o) * 4 + p].val();
                            }
                        }
                    }
                }
                // L: the IPv4 total length (word 2, bits 63:48, now in stage 1) plus 14.
                // Times are kept modulo 2^TAT_BITS: a meter is ahead of now when the
                // difference is below 2^(TAT_BITS-1).
                self.mc0[i].next = (self.sd1[i].q.val().get_bits::<TAT_BITS>(24)
                    >> self.sh24.val())
                    + self.c14_t.val();
                self.mc1[i].next = self.mc0[i].val() << self.sh1.val();
                self.mc2[i].next = self.mc0[i].val() << self.sh2.val();
                self.md0[i].next = self.ms0[i].val() - self.now8.q.val();
                self.md1[i].next = self.ms1[i].val() - self.now8.q.val();
                self.md2[i].next = self.ms2[i].val() - self.now8.q.val();
                self.mf0[i].next =
                    !self.md0[i].val().get_bit(39) & (self.md0[i].val() != self.zero_t.val());
                self.mf1[i].next =
                    !self.md1[i].val().get_bit(39) & (self.md1[i].val() != self.zero_t.val());
                self.mf2[i].next =
                    !self.md2[i].val().get_bit(39) & (self.md2[i].val() != self.zero_t.val());
                self.mb0[i].next = self.zero_t.val();
                self.mn0[i].next = self.now8.q.val() + self.mc0[i].val();
                if self.mf0[i].val() {
                    self.mb0[i].next = self.md0[i].val();
                    self.mn0[i].next = self.ms0[i].val() + self.mc0[i].val();
                }
                self.mb1[i].next = self.zero_t.val();
                self.mn1[i].next = self.now8.q.val() + self.mc1[i].val();
                if self.mf1[i].val() {
                    self.mb1[i].next = self.md1[i].val();
                    self.mn1[i].next = self.ms1[i].val() + self.mc1[i].val();
                }
                self.mb2[i].next = self.zero_t.val();
                self.mn2[i].next = self.now8.q.val() + self.mc2[i].val();
                if self.mf2[i].val() {
                    self.mb2[i].next = self.md2[i].val();
                    self.mn2[i].next = self.ms2[i].val() + self.mc2[i].val();
                }
                self.mg0[i].next = (self.mb0[i].val() + self.mc0[i].val()) <= self.burst0.val();
                self.mg1[i].next = (self.mb1[i].val() + self.mc1[i].val()) <= self.burst1.val();
                self.mg2[i].next = (self.mb2[i].val() + self.mc2[i].val()) <= self.burst2.val();
                self.mupd[i].next = self.tofino.val() & self.dec_ok[i].val();
                self.t_red[i].next = false;
                if self.tofino.val() & self.trimmable[i].val() {
                    if self.m_pess[i].val() {
                        self.t_red[i].next = !self.mg2[i].val();
                    } else if self.m_half[i].val() {
                        self.t_red[i].next = !self.mg1[i].val();
                    } else {
                        self.t_red[i].next = !self.mg0[i].val();
                    }
                }
                for o in 0..N {
                    for p in 0..MAX_PIPES {
                        self.m0_run[((i + 1) * nn + o) * 4 + p].next =
                            self.m0_run[(i * nn + o) * 4 + p].val();
                        self.m1_run[((i + 1) * nn + o) * 4 + p].next =
                            self.m1_run[(i * nn + o) * 4 + p].val();
                        self.m2_run[((i + 1) * nn + o) * 4 + p].next =
                            self.m2_run[(i * nn + o) * 4 + p].val();
                        if self.mupd[i].val()
                            & (self.d_o[i].val() == self.pidx[o].val())
                            & (self.pipe_i[i].val() == self.pipx[p].val())
                        {
                            if self.mg0[i].val() {
                                self.m0_run[((i + 1) * nn + o) * 4 + p].next = self.mn0[i].val();
                            }
                            if self.mg1[i].val() {
                                self.m1_run[((i + 1) * nn + o) * 4 + p].next = self.mn1[i].val();
                            }
                            if self.mg2[i].val() {
                                self.m2_run[((i + 1) * nn + o) * 4 + p].next = self.mn2[i].val();
                            }
                        }
                    }
                }
                // Tofino: room in this input's DoD queue and the (input, output) DoD store,
                // after this cycle's rollback of its own deflection and a server's pop.
                self.dn_eff[i].next = self.rec_n[i].q.val();
                if self.rb_dod[i].val() & self.pop_i[i].val() {
                    self.dn_eff[i].next = self.rec_n[i].q.val() - self.one8.val() - self.one8.val();
                } else if self.rb_dod[i].val() | self.pop_i[i].val() {
                    self.dn_eff[i].next = self.rec_n[i].q.val() - self.one8.val();
                }
                self.dtl[i].next = self.zero10.val();
                self.dhd[i].next = self.zero10.val();
                for o in 0..N {
                    if self.d_o[i].val() == self.pidx[o].val() {
                        self.dtl[i].next = self.dtail[i * nn + o].q.val();
                        self.dhd[i].next = self.dhead[i * nn + o].q.val();
                    }
                }
                self.dbase[i].next = self.dtl[i].val();
                if self.rb_dod[i].val() & (self.w_o[i].q.val() == self.d_o[i].val()) {
                    self.dbase[i].next = self.w_start[i].q.val();
                }
                self.dused[i].next = self.dbase[i].val() - self.dhd[i].val();
                self.dod_room[i].next = (self.dn_eff[i].val() < self.c16_8.val())
                    & ((self.dused[i].val() + self.c8_10.val()) <= self.c128_10.val());
                self.a_fwd[i].next = false;
                self.a_trim[i].next = false;
                self.a_ret[i].next = false;
                self.a_full[i].next = false;
                self.a_hdr[i].next = false;
                self.a_dod[i].next = false;
                self.a_doddrop[i].next = false;
                if self.dec_ok[i].val() {
                    if self.t_red[i].val() {
                        // Tofino: trimmed in the ingress pipe (the meter is red).
                        if self.fits_0[i].val() {
                            self.a_trim[i].next = true;
                        } else if self.ret_fits[i].val() {
                            self.a_ret[i].next = true;
                        } else {
                            self.a_hdr[i].next = true;
                        }
                    } else if self.fits_b[i].val() {
                        self.a_fwd[i].next = true;
                    } else if self.trim_ok[i].val() {
                        if self.fits_0[i].val() {
                            self.a_trim[i].next = true;
                        } else if self.ret_fits[i].val() {
                            self.a_ret[i].next = true;
                        } else {
                            self.a_hdr[i].next = true;
                        }
                    } else if self.tofino.val() & self.trimmable[i].val() {
                        // Tofino: deflect on drop to the recirculation path.
                        if self.dod_room[i].val() {
                            self.a_dod[i].next = true;
                        } else {
                            self.a_doddrop[i].next = true;
                        }
                    } else {
                        self.a_full[i].next = true;
                    }
                }
                // Tofino: the DoD queue of records (output, words).
                self.rec_slot[i].next =
                    self.rec_h[i].q.val() + self.rec_n[i].q.val().get_bits::<4>(0);
                if self.rb_dod[i].val() {
                    self.rec_slot[i].next = self.rec_h[i].q.val()
                        + self.rec_n[i].q.val().get_bits::<4>(0)
                        - self.one4.val();
                }
                self.reco[i].write_enable.next = self.a_dod[i].val();
                self.reco[i].write_address.next = self.rec_slot[i].val();
                self.reco[i].write_data.next = self.d_o[i].val();
                self.recw[i].write_enable.next = self.a_dod[i].val();
                self.recw[i].write_address.next = self.rec_slot[i].val();
                self.recw[i].write_data.next = self.d_words[i].val().get_bits::<8>(0);
                self.reco[i].read_address.next = self.rec_h[i].q.val();
                self.recw[i].read_address.next = self.rec_h[i].q.val();
                if self.pop_i[i].val() {
                    self.rec_h[i].d.next = self.rec_h[i].q.val() + self.one4.val();
                    self.reco[i].read_address.next = self.rec_h[i].q.val() + self.one4.val();
                    self.recw[i].read_address.next = self.rec_h[i].q.val() + self.one4.val();
                }
                self.rec_n[i].d.next = self.dn_eff[i].val();
                if self.a_dod[i].val() {
                    self.rec_n[i].d.next = self.dn_eff[i].val() + self.one8.val();
                }
                if self.a_dod[i].val() {
                    self.rec_pend[i].d.next = true;
                } else if self.rb_dod[i].val()
                    | (self.commit[i].val() & (self.w_act[i].q.val() == self.act_dod.val()))
                {
                    self.rec_pend[i].d.next = false;
                }
                for o in 0..N {
                    if self.rb_dod[i].val() & (self.w_o[i].q.val() == self.pidx[o].val()) {
                        self.dtail[i * nn + o].d.next = self.w_start[i].q.val();
                    }
                    if self.a_dod[i].val() & (self.d_o[i].val() == self.pidx[o].val()) {
                        self.dtail[i * nn + o].d.next = self.dbase[i].val() + self.c8_10.val();
                    }
                }
                self.add_v[i].next = self.a_fwd[i].val() | self.a_trim[i].val();
                self.add_b[i].next = self.zero2.val();
                self.add_bytes[i].next = self.c64_20.val();
                if self.a_fwd[i].val() {
                    self.add_b[i].next = self.d_b[i].val();
                    self.add_bytes[i].next = self.len20[i].val();
                }
                // The chain: occupancy after inputs 0..=i.
                for o in 0..N {
                    for b in 0..BANDS {
                        self.run_b[((i + 1) * nn + o) * 4 + b].next =
                            self.run_b[(i * nn + o) * 4 + b].val();
                        self.run_p[((i + 1) * nn + o) * 4 + b].next =
                            self.run_p[(i * nn + o) * 4 + b].val();
                        if self.add_v[i].val()
                            & (self.d_o[i].val() == self.pidx[o].val())
                            & (self.add_b[i].val() == self.bidx[b].val())
                        {
                            if self.rb_xp[i].val()
                                & (self.w_o[i].q.val() == self.pidx[o].val())
                                & (self.w_b[i].q.val() == self.bidx[b].val())
                            {
                                self.run_b[((i + 1) * nn + o) * 4 + b].next =
                                    self.run_b[(i * nn + o) * 4 + b].val()
                                        + self.add_bytes[i].val()
                                        - self.w_len[i].q.val();
                            } else {
                                self.run_b[((i + 1) * nn + o) * 4 + b].next =
                                    self.run_b[(i * nn + o) * 4 + b].val()
                                        + self.add_bytes[i].val();
                                self.run_p[((i + 1) * nn + o) * 4 + b].next =
                                    self.run_p[(i * nn + o) * 4 + b].val() + self.one12.val();
                            }
                        } else if self.rb_xp[i].val()
                            & (self.w_o[i].q.val() == self.pidx[o].val())
                            & (self.w_b[i].q.val() == self.bidx[b].val())
                        {
                            self.run_b[((i + 1) * nn + o) * 4 + b].next =
                                self.run_b[(i * nn + o) * 4 + b].val() - self.w_len[i].q.val();
                            self.run_p[((i + 1) * nn + o) * 4 + b].next =
                                self.run_p[(i * nn + o) * 4 + b].val() - self.one12.val();
                        }
                    }
                }

                // Region pointers of this input, and its writer's next frame.
                for o in 0..N {
                    for b in 0..BANDS {
                        if self.rb_xp[i].val()
                            & (self.w_o[i].q.val() == self.pidx[o].val())
                            & (self.w_b[i].q.val() == self.bidx[b].val())
                        {
                            self.rtail[(i * nn + o) * 4 + b].d.next = self.w_start[i].q.val();
                        }
                        if self.a_fwd[i].val()
                            & (self.d_o[i].val() == self.pidx[o].val())
                            & (self.d_b[i].val() == self.bidx[b].val())
                        {
                            self.rtail[(i * nn + o) * 4 + b].d.next =
                                self.base_b[i].val() + self.d_words[i].val();
                        }
                    }
                    if self.a_trim[i].val() & (self.d_o[i].val() == self.pidx[o].val()) {
                        self.rtail[(i * nn + o) * 4].d.next =
                            self.base_0[i].val() + self.c8_10.val();
                    }
                }
                if self.rb_ret[i].val() {
                    self.ret_rtail[i].d.next = self.w_start[i].q.val();
                }
                if self.a_ret[i].val() {
                    self.ret_rtail[i].d.next = self.ret_base[i].val() + self.c8_10.val();
                }
                // Bolt at word 6 (Algorithms 7 and 9), inputs in index order per output.
                self.bsel_sm[i].next = self.zero32.val();
                self.bsel_pru[i].next = self.zero8.val();
                self.bsel_hit[i].next = false;
                self.bgain[i].next = self.zero32.val();
                for o in 0..N {
                    if self.w_o[i].q.val() == self.pidx[o].val() {
                        self.bsel_sm[i].next = self.sm_run[i * nn + o].val();
                        self.bsel_pru[i].next = self.pru_run[i * nn + o].val();
                        self.bsel_hit[i].next = self.hit_run[i * nn + o].val();
                        self.bgain[i].next = self.gain_o[o].val();
                    }
                }
                self.bt1[i].next = self.bsel_sm[i].val() + self.bgain[i].val();
                if self.bsel_hit[i].val() {
                    self.bt1[i].next = self.bsel_sm[i].val();
                }
                self.bt2[i].next = self.zero32.val();
                if self.bt1[i].val() >= self.w_plen[i].q.val() {
                    self.bt2[i].next = self.bt1[i].val() - self.w_plen[i].q.val();
                }
                self.bt3[i].next = self.bt2[i].val();
                if self.bt2[i].val() > self.offmtu.val() {
                    self.bt3[i].next = self.offmtu.val();
                }
                self.bcong[i].next = self.w_q[i].q.val() >= self.cfg.cc_thresh.val();
                self.bsrc[i].next = false;
                self.bnf[i].next = self.bf6[i].val();
                self.bsm_o[i].next = self.bt3[i].val();
                self.bpru_o[i].next = self.bsel_pru[i].val();
                if self.bcong[i].val() {
                    if !self.rx[i].data.val().get_bit(9) {
                        self.bsrc[i].next = true;
                        self.bnf[i].next =
                            (self.bf6[i].val() | self.b_dec64.val()) & self.b_notinc64.val();
                    }
                } else if self.rx[i].data.val().get_bit(12) {
                    if !self.rx[i].data.val().get_bit(11)
                        & (self.bsel_pru[i].val() < self.cfg.pru_cap.val())
                    {
                        self.bpru_o[i].next = self.bsel_pru[i].val() + self.one8.val();
                    }
                } else if self.rx[i].data.val().get_bit(10) {
                    if self.bsel_pru[i].val() != self.zero8.val() {
                        self.bpru_o[i].next = self.bsel_pru[i].val() - self.one8.val();
                    } else if (self.bt3[i].val() >= self.offmtu.val()) & !self.cfg.sm_off.val() {
                        self.bsm_o[i].next = self.bt3[i].val() - self.mtu32.val();
                    } else {
                        self.bnf[i].next = self.bf6[i].val() & self.b_notinc64.val();
                    }
                }
                for o in 0..N {
                    self.sm_run[(i + 1) * nn + o].next = self.sm_run[i * nn + o].val();
                    self.pru_run[(i + 1) * nn + o].next = self.pru_run[i * nn + o].val();
                    self.hit_run[(i + 1) * nn + o].next = self.hit_run[i * nn + o].val();
                    if self.bdec[i].val() & (self.w_o[i].q.val() == self.pidx[o].val()) {
                        self.sm_run[(i + 1) * nn + o].next = self.bsm_o[i].val();
                        self.pru_run[(i + 1) * nn + o].next = self.bpru_o[i].val();
                        self.hit_run[(i + 1) * nn + o].next = true;
                    }
                }
                if self.bdec[i].val() {
                    self.w_bmod[i].d.next = true;
                    self.w_bf[i].d.next = self.bnf[i].val();
                    if self.bsrc[i].val() {
                        if self.w_sv[i].q.val() {
                            self.w_sgo[i].d.next = true;
                            self.ret_rtail[i].d.next = self.w_sbase[i].q.val() + self.c8_10.val();
                            self.c_src[i].d.next = self.c_src[i].q.val() + self.one32.val();
                        } else {
                            self.c_srcdrop[i].d.next = self.c_srcdrop[i].q.val() + self.one32.val();
                        }
                    }
                }
                if self.dec[i].val() {
                    self.w_bc[i].d.next = self.bc[i].val();
                    self.w_sv[i].d.next = self.bc[i].val() & self.sroom[i].val();
                    self.w_sgo[i].d.next = false;
                    self.w_bmod[i].d.next = false;
                    self.w_sbase[i].d.next = self.ret_base[i].val();
                    self.w_q[i].d.next = self.qown[i].val();
                    self.w_plen[i].d.next = self.len32[i].val();
                    self.w_act[i].d.next = self.act_none.val();
                    self.w_beat[i].d.next = self.zero10.val();
                    self.w_o[i].d.next = self.d_o[i].val();
                    self.w_b[i].d.next = self.zero2.val();
                    self.w_words[i].d.next = self.d_words[i].val();
                    self.w_empty[i].d.next = self.d_empty[i].val();
                    self.w_csum[i].d.next = self.cs_new[i].val();
                    self.w_len[i].d.next = self.c64_20.val();
                    self.w_start[i].d.next = self.base_0[i].val();
                    if self.a_fwd[i].val() {
                        self.w_act[i].d.next = self.act_fwd.val();
                        self.w_b[i].d.next = self.d_b[i].val();
                        self.w_len[i].d.next = self.len20[i].val();
                        self.w_start[i].d.next = self.base_b[i].val();
                    }
                    if self.a_trim[i].val() {
                        self.w_act[i].d.next = self.act_trim.val();
                    }
                    if self.a_ret[i].val() {
                        self.w_act[i].d.next = self.act_ret.val();
                        self.w_start[i].d.next = self.ret_base[i].val();
                    }
                    if self.a_dod[i].val() {
                        self.w_act[i].d.next = self.act_dod.val();
                        self.w_start[i].d.next = self.dbase[i].val();
                    }
                    // Dropped at word 4: counted under its reason at the frame's end if
                    // its length is right, else as malformed.
                    self.w_why[i].d.next = self.why_noroute.val();
                    if self.dec_noroute[i].val() {
                        self.w_act[i].d.next = self.act_drop.val();
                    }
                    if self.a_full[i].val() {
                        self.w_act[i].d.next = self.act_drop.val();
                        self.w_why[i].d.next = self.why_full.val();
                    }
                    if self.a_hdr[i].val() {
                        self.w_act[i].d.next = self.act_drop.val();
                        self.w_why[i].d.next = self.why_hdr.val();
                    }
                    if self.a_doddrop[i].val() {
                        self.w_act[i].d.next = self.act_drop.val();
                        self.w_why[i].d.next = self.why_dod.val();
                    }
                }
                // Counters.
                if self.in_mal[i].val() & self.rb[i].val() {
                    self.c_mal[i].d.next = self.c_mal[i].q.val() + self.two32.val();
                } else if self.in_mal[i].val() | self.rb[i].val() {
                    self.c_mal[i].d.next = self.c_mal[i].q.val() + self.one32.val();
                }
                // A frame dropped at word 4 counts at its end, when its length is right.
                if self.c_drop[i].val() & (self.w_why[i].q.val() == self.why_noroute.val()) {
                    self.c_noroute[i].d.next = self.c_noroute[i].q.val() + self.one32.val();
                }
                if self.c_drop[i].val() & (self.w_why[i].q.val() == self.why_full.val()) {
                    self.c_full[i].d.next = self.c_full[i].q.val() + self.one32.val();
                }
                // A trimmed or returned header counts when its frame's length proved it
                // (its commit); a header dropped for want of room counts only as that.
                if self.commit[i].val()
                    & ((self.w_act[i].q.val() == self.act_trim.val())
                        | (self.w_act[i].q.val() == self.act_ret.val()))
                {
                    self.c_trim[i].d.next = self.c_trim[i].q.val() + self.one32.val();
                }
                if self.commit[i].val() & (self.w_act[i].q.val() == self.act_ret.val()) {
                    self.c_ret[i].d.next = self.c_ret[i].q.val() + self.one32.val();
                }
                if self.c_drop[i].val() & (self.w_why[i].q.val() == self.why_hdr.val()) {
                    self.c_hdr[i].d.next = self.c_hdr[i].q.val() + self.one32.val();
                }
                if self.c_drop[i].val() & (self.w_why[i].q.val() == self.why_dod.val()) {
                    self.c_doddrop[i].d.next = self.c_doddrop[i].q.val() + self.one32.val();
                }
            }

            // ================= occupancy, heads, complete-packet counts =================
            for o in 0..N {
                for b in 0..BANDS {
                    self.occ_bytes[o * 4 + b].d.next = self.run_b[(nn * nn + o) * 4 + b].val();
                    self.occ_pkts[o * 4 + b].d.next = self.run_p[(nn * nn + o) * 4 + b].val();
                    if self.pop[o].val()
                        & self.cur_band[o].val()
                        & (self.cur_b[o].q.val() == self.bidx[b].val())
                    {
                        self.occ_bytes[o * 4 + b].d.next =
                            self.run_b[(nn * nn + o) * 4 + b].val() - self.dep[o].val();
                        if self.popl[o].val() {
                            self.occ_pkts[o * 4 + b].d.next =
                                self.run_p[(nn * nn + o) * 4 + b].val() - self.one12.val();
                        }
                    }
                }
                for i in 0..N {
                    for b in 0..BANDS {
                        if self.pop[o].val()
                            & self.cur_band[o].val()
                            & (self.cur_i[o].q.val() == self.pidx[i].val())
                            & (self.cur_b[o].q.val() == self.bidx[b].val())
                        {
                            self.head[(i * nn + o) * 4 + b].d.next =
                                self.head[(i * nn + o) * 4 + b].q.val() + self.one11.val();
                        }
                        if self.commit[i].val()
                            & !self.rb_ret[i].val()
                            & (self.w_act[i].q.val() != self.act_ret.val())
                            & (self.w_act[i].q.val() != self.act_dod.val())
                            & (self.w_act[i].q.val() != self.act_drop.val())
                            & (self.w_o[i].q.val() == self.pidx[o].val())
                            & (self.w_b[i].q.val() == self.bidx[b].val())
                        {
                            if !(self.popl[o].val()
                                & self.cur_band[o].val()
                                & (self.cur_i[o].q.val() == self.pidx[i].val())
                                & (self.cur_b[o].q.val() == self.bidx[b].val()))
                            {
                                self.done[(i * nn + o) * 4 + b].d.next =
                                    self.done[(i * nn + o) * 4 + b].q.val() + self.one6.val();
                            }
                        } else if self.popl[o].val()
                            & self.cur_band[o].val()
                            & (self.cur_i[o].q.val() == self.pidx[i].val())
                            & (self.cur_b[o].q.val() == self.bidx[b].val())
                        {
                            self.done[(i * nn + o) * 4 + b].d.next =
                                self.done[(i * nn + o) * 4 + b].q.val() - self.one6.val();
                        }
                    }
                }
                // Tofino: meters, released DoD headers, congestion signals.
                for p in 0..MAX_PIPES {
                    self.tat0[o * 4 + p].d.next = self.m0_run[(nn * nn + o) * 4 + p].val();
                    self.tat1[o * 4 + p].d.next = self.m1_run[(nn * nn + o) * 4 + p].val();
                    self.tat2[o * 4 + p].d.next = self.m2_run[(nn * nn + o) * 4 + p].val();
                }
                self.sig_now[o].next = false;
                for p in 0..MAX_PIPES {
                    if self.sv_rel[p].val() & (self.sv_o[p].q.val() == self.pidx[o].val()) {
                        self.sig_now[o].next = true;
                    }
                }
                if self.sig_now[o].val() {
                    self.sig_t[o].d.next = self.now.q.val();
                    self.sig_v[o].d.next = true;
                } else if self.sig_v[o].q.val() & (self.el_s[o].val() > self.t01_32.val()) {
                    self.sig_v[o].d.next = false;
                }
                for i in 0..N {
                    if self.popl[o].val()
                        & self.cur_dod[o].q.val()
                        & (self.cur_i[o].q.val() == self.pidx[i].val())
                    {
                        self.drel[i * nn + o].d.next =
                            self.drel[i * nn + o].q.val() - self.one5.val();
                    }
                    for p in 0..MAX_PIPES {
                        if self.sv_rel[p].val()
                            & (self.sv_i[p].q.val() == self.pidx[i].val())
                            & (self.sv_o[p].q.val() == self.pidx[o].val())
                        {
                            if self.popl[o].val()
                                & self.cur_dod[o].q.val()
                                & (self.cur_i[o].q.val() == self.pidx[i].val())
                            {
                                self.drel[i * nn + o].d.next = self.drel[i * nn + o].q.val();
                            } else {
                                self.drel[i * nn + o].d.next =
                                    self.drel[i * nn + o].q.val() + self.one5.val();
                            }
                        }
                    }
                }
                for p in 0..MAX_PIPES {
                    if self.sv_rel[p].val() & (self.sv_i[p].q.val() == self.pidx[o].val()) {
                        self.c_dodtrim[o].d.next = self.c_dodtrim[o].q.val() + self.one32.val();
                    }
                }
                // Bolt token registers.
                self.smo[o].d.next = self.sm_run[nn * nn + o].val() - self.smoff32.val();
                self.pru[o].d.next = self.pru_run[nn * nn + o].val();
                if self.hit_run[nn * nn + o].val() {
                    self.sm_last[o].d.next = self.now.q.val();
                }
                // Return queue `o`: written by input `o`, read by output `o`.
                if (self.commit[o].val() & (self.w_act[o].q.val() == self.act_ret.val()))
                    | self.scommit[o].val()
                {
                    if !(self.popl[o].val() & self.cur_ret[o].q.val()) {
                        self.ret_done[o].d.next = self.ret_done[o].q.val() + self.one4.val();
                    }
                } else if self.popl[o].val() & self.cur_ret[o].q.val() {
                    self.ret_done[o].d.next = self.ret_done[o].q.val() - self.one4.val();
                }

                self.stat[o].rx_frames.next = self.c_rx[o].q.val();
                self.stat[o].tx_frames.next = self.c_tx[o].q.val();
                self.stat[o].drop_malformed.next = self.c_mal[o].q.val();
                self.stat[o].drop_no_route.next = self.c_noroute[o].q.val();
                self.stat[o].drop_full.next = self.c_full[o].q.val();
                self.stat[o].trimmed.next = self.c_trim[o].q.val();
                self.stat[o].returned.next = self.c_ret[o].q.val();
                self.stat[o].drop_header.next = self.c_hdr[o].q.val();
                self.stat[o].occ_bytes0.next = self.occ_bytes[o * 4].q.val();
                self.stat[o].occ_bytes1.next = self.occ_bytes[o * 4 + 1].q.val();
                self.stat[o].occ_bytes2.next = self.occ_bytes[o * 4 + 2].q.val();
                self.stat[o].occ_bytes3.next = self.occ_bytes[o * 4 + 3].q.val();
                self.stat[o].src_sent.next = self.c_src[o].q.val();
                self.stat[o].src_drop.next = self.c_srcdrop[o].q.val();
                self.stat[o].pru.next = self.pru[o].q.val();
                self.stat[o].sm.next = self.smo[o].q.val();
                self.stat[o].dod_trims.next = self.c_dodtrim[o].q.val();
                self.stat[o].dod_drop.next = self.c_doddrop[o].q.val();
                self.stat[o].dod_q.next = self.rec_n[o].q.val();
                if self.srv_has[o].val() {
                    self.stat[o].dod_q.next = self.rec_n[o].q.val() + self.one8.val();
                }
                self.stat[o].tmode.next = self.zero2.val();
                if self.pess_o[o].val() {
                    self.stat[o].tmode.next = self.two2.val();
                } else if self.half_o[o].val() {
                    self.stat[o].tmode.next = self.one2.val();
                }
            }

            // ================= reset =================
            if self.reset.val() {
                for i in 0..N {
                    self.beat[i].d.next = self.zero3.val();
                    self.hbad[i].d.next = false;
                    self.st0[i].d.next = self.zero5.val();
                    self.st1[i].d.next = self.zero5.val();
                    self.st2[i].d.next = self.zero5.val();
                    self.st3[i].d.next = self.zero5.val();
                    self.st4[i].d.next = self.zero5.val();
                    self.w_act[i].d.next = self.act_none.val();
                    self.w_beat[i].d.next = self.zero10.val();
                    self.busy[i].d.next = false;
                    self.cur_ret[i].d.next = false;
                    self.cur_i[i].d.next = self.zero4.val();
                    self.cur_b[i].d.next = self.zero2.val();
                    self.wrr_band[i].d.next = self.zero2.val();
                    self.wrr_used[i].d.next = self.zero8.val();
                    self.ret_rtail[i].d.next = self.zero10.val();
                    self.ret_head[i].d.next = self.zero10.val();
                    self.ret_done[i].d.next = self.zero4.val();
                    self.c_rx[i].d.next = self.zero32.val();
                    self.c_tx[i].d.next = self.zero32.val();
                    self.c_mal[i].d.next = self.zero32.val();
                    self.c_noroute[i].d.next = self.zero32.val();
                    self.c_full[i].d.next = self.zero32.val();
                    self.c_trim[i].d.next = self.zero32.val();
                    self.c_ret[i].d.next = self.zero32.val();
                    self.c_hdr[i].d.next = self.zero32.val();
                    self.w_bc[i].d.next = false;
                    self.w_sv[i].d.next = false;
                    self.w_sgo[i].d.next = false;
                    self.w_bmod[i].d.next = false;
                    self.c_src[i].d.next = self.zero32.val();
                    self.c_srcdrop[i].d.next = self.zero32.val();
                    self.smo[i].d.next = self.zero32.val();
                    self.pru[i].d.next = self.zero8.val();
                    self.sm_last[i].d.next = self.zero32.val();
                    self.sig_t[i].d.next = self.zero32.val();
                    self.sig_v[i].d.next = false;
                    self.rec_h[i].d.next = self.zero4.val();
                    self.rec_n[i].d.next = self.zero8.val();
                    self.rec_pend[i].d.next = false;
                    self.cur_dod[i].d.next = false;
                    self.dpos[i].d.next = self.zero3.val();
                    self.drr[i].d.next = self.zero4.val();
                    self.c_dodtrim[i].d.next = self.zero32.val();
                    self.c_doddrop[i].d.next = self.zero32.val();
                }
                for p in 0..MAX_PIPES {
                    self.sv_busy[p].d.next = false;
                    self.sv_i[p].d.next = self.zero4.val();
                    self.sv_o[p].d.next = self.zero4.val();
                    self.sv_cnt[p].d.next = self.zero8.val();
                    self.sv_rr[p].d.next = self.zero4.val();
                }
                for k in 0..NN {
                    self.dtail[k].d.next = self.zero10.val();
                    self.dhead[k].d.next = self.zero10.val();
                    self.drel[k].d.next = self.zero5.val();
                }
                self.now8.d.next = self.zero_t.val();
                self.now.d.next = self.zero32.val();
                for k in 0..NNB {
                    self.rtail[k].d.next = self.zero10.val();
                    self.head[k].d.next = self.zero11.val();
                    self.done[k].d.next = self.zero6.val();
                }
                for k in 0..NB {
                    self.tat0[k].d.next = self.zero_t.val();
                    self.tat1[k].d.next = self.zero_t.val();
                    self.tat2[k].d.next = self.zero_t.val();
                    self.occ_bytes[k].d.next = self.zero20.val();
                    self.occ_pkts[k].d.next = self.zero12.val();
                    self.rr[k].d.next = self.zero4.val();
                }
            }
        }
    }
}
