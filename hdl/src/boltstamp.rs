//! Bolt's TX stamp (thesis §4.4.2, Listing 4.1; SPEC §2): writes Bolt's 9 bytes into every
//! frame the NIC sends, on the way from the deparser to the MAC, without adding a cycle.
//!
//! ```text
//!  sink (deparser) ─► words 0-5 pass; tos (word 1), flags and msg_len (word 4),
//!                     pkt_offset and credit (word 5) are kept ─► word 6, 7 rewritten ─► source (MAC TX)
//! ```
//!
//! # Bolt bytes (frame bytes 50-58, inside the NDP transport padding)
//! `q_size` (50-52) and `link_rate` (53) are 0 (switches write them into SRC packets);
//! `t_data_tx` (55-58) is the NIC time (cycles since reset, 32 bits) when word 6 leaves;
//! the flags byte (54, [`crate::swif::BOLT_DATA`] …) is:
//! * DATA: `DATA | INC`, plus `FIRST` when `pkt_offset < cfg.rtt_pkts` (the message's
//!   first window) and `LAST` when the message's credit reaches its last packet
//!   (`credit >= packets`: what is left of the message fits in the window, §4.4.2). Every
//!   DATA packet asks for a token (INC); switches clear INC where none is left.
//! * ACK: `ACK`, plus `INC` when the receiver echoes the data packet's INC. The program
//!   asks for the echo with IPv4 `tos` bit 2 of the ACK, DSCP bit 0 (the packet generator
//!   writes its `grant_prio` as the packet's priority, which the deparser puts into the
//!   DSCP field); switches in Bolt mode band by transport flags, not by `tos`.
//! * anything else (NACK): 0.
//!
//! Bytes 48-49 and 59-63 pass unchanged. With `enable` false (a build parameter) every word
//! passes unchanged, so every NIC top can carry the block.
//!
//! # Latency and throughput
//! None: `source` is `sink` with words 6 and 7 replaced (combinational), `sink.ready` is
//! `source.ready`.
use crate::deparser::MacSource;
use crate::parser::MacSink;
use crate::swif::{BOLT_ACK, BOLT_DATA, BOLT_FIRST, BOLT_INC, BOLT_LAST};
use rust_hdl::prelude::*;

/// The TX stamp. See the module documentation.
#[derive(LogicBlock)]
pub struct BoltStamp {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    /// The first window of a message, in packets (the NIC's `rtt_pkts`).
    pub rtt_pkts: Signal<In, Bits<8>>,
    pub sink: MacSink,
    pub source: MacSource,

    now: DFF<Bits<32>>,
    beat: DFF<Bits<4>>,
    tos: DFF<Bits<8>>,
    flags: DFF<Bits<8>>,
    len_hi: DFF<Bits<8>>,
    bflags: DFF<Bits<8>>,
    ts: DFF<Bits<32>>,

    take: Signal<Local, bool>,
    msg_len: Signal<Local, Bits<16>>,
    total: Signal<Local, Bits<8>>,
    off: Signal<Local, Bits<8>>,
    credit: Signal<Local, Bits<16>>,
    bf: Signal<Local, Bits<8>>,
    word: Signal<Local, Bits<64>>,

    enable: Constant<bool>,
    b_data_inc: Constant<Bits<8>>,
    b_first: Constant<Bits<8>>,
    b_last: Constant<Bits<8>>,
    b_ack: Constant<Bits<8>>,
    b_inc: Constant<Bits<8>>,
    b1: Constant<Bits<4>>,
    b4: Constant<Bits<4>>,
    b5: Constant<Bits<4>>,
    b6: Constant<Bits<4>>,
    b7: Constant<Bits<4>>,
    c15: Constant<Bits<4>>,
    one_4: Constant<Bits<4>>,
    zero_4: Constant<Bits<4>>,
    one_8: Constant<Bits<8>>,
    zero_8: Constant<Bits<8>>,
    zero_10: Constant<Bits<10>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    keep6: Constant<Bits<64>>,
    keep7: Constant<Bits<64>>,
    sh8: Constant<Bits<6>>,
    sh40: Constant<Bits<6>>,
}

impl BoltStamp {
    /// A stamp that writes Bolt's bytes (`enable`) or passes every word unchanged.
    pub fn new(enable: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            rtt_pkts: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            now: Default::default(),
            beat: Default::default(),
            tos: Default::default(),
            flags: Default::default(),
            len_hi: Default::default(),
            bflags: Default::default(),
            ts: Default::default(),
            take: Default::default(),
            msg_len: Default::default(),
            total: Default::default(),
            off: Default::default(),
            credit: Default::default(),
            bf: Default::default(),
            word: Default::default(),
            enable: Constant::new(enable),
            b_data_inc: Constant::new(((BOLT_DATA | BOLT_INC) as u64).into()),
            b_first: Constant::new((BOLT_FIRST as u64).into()),
            b_last: Constant::new((BOLT_LAST as u64).into()),
            b_ack: Constant::new((BOLT_ACK as u64).into()),
            b_inc: Constant::new((BOLT_INC as u64).into()),
            b1: Constant::new(1.into()),
            b4: Constant::new(4.into()),
            b5: Constant::new(5.into()),
            b6: Constant::new(6.into()),
            b7: Constant::new(7.into()),
            c15: Constant::new(15.into()),
            one_4: Constant::new(1.into()),
            zero_4: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            zero_8: Constant::new(0.into()),
            zero_10: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            // Word 6 keeps bytes 48-49; word 7 keeps bytes 59-63.
            keep6: Constant::new(0xffff_0000_0000_0000u64.into()),
            keep7: Constant::new(0x0000_00ff_ffff_ffffu64.into()),
            sh8: Constant::new(8.into()),
            sh40: Constant::new(40.into()),
        }
    }
}

impl Logic for BoltStamp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, now, beat, tos, flags, len_hi, bflags, ts);
        self.now.d.next = self.now.q.val() + self.one_32.val();
        self.sink.ready.next = self.source.ready.val();
        self.take.next = self.sink.valid.val() & self.source.ready.val();

        // The Bolt flags, decided on word 5 from the fields kept so far.
        self.msg_len.next = (bit_cast::<16, 8>(self.len_hi.q.val()) << self.sh8.val())
            | bit_cast::<16, 8>(self.sink.data.val().get_bits::<8>(56));
        self.total.next = bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10));
        if self.msg_len.val().get_bits::<10>(0) != self.zero_10.val() {
            self.total.next =
                bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10)) + self.one_8.val();
        }
        self.off.next = self.sink.data.val().get_bits::<8>(48);
        self.credit.next = self.sink.data.val().get_bits::<16>(32);
        self.bf.next = self.zero_8.val();
        if self.flags.q.val().get_bit(0) {
            self.bf.next = self.b_data_inc.val();
            if self.off.val() < self.rtt_pkts.val() {
                self.bf.next = self.b_data_inc.val() | self.b_first.val();
                if self.credit.val() >= bit_cast::<16, 8>(self.total.val()) {
                    self.bf.next = self.b_data_inc.val() | self.b_first.val() | self.b_last.val();
                }
            } else if self.credit.val() >= bit_cast::<16, 8>(self.total.val()) {
                self.bf.next = self.b_data_inc.val() | self.b_last.val();
            }
        } else if self.flags.q.val().get_bit(1) {
            self.bf.next = self.b_ack.val();
            if self.tos.q.val().get_bit(2) {
                self.bf.next = self.b_ack.val() | self.b_inc.val();
            }
        }

        // The word out.
        self.word.next = self.sink.data.val();
        if self.enable.val() {
            if self.beat.q.val() == self.b6.val() {
                self.word.next = (self.sink.data.val() & self.keep6.val())
                    | (bit_cast::<64, 8>(self.bflags.q.val()) << self.sh8.val())
                    | bit_cast::<64, 8>(self.now.q.val().get_bits::<8>(24));
            }
            if self.beat.q.val() == self.b7.val() {
                self.word.next = (self.sink.data.val() & self.keep7.val())
                    | (bit_cast::<64, 24>(self.ts.q.val().get_bits::<24>(0)) << self.sh40.val());
            }
        }
        self.source.valid.next = self.sink.valid.val();
        self.source.data.next = self.word.val();
        self.source.last.next = self.sink.last.val();
        self.source.empty.next = self.sink.empty.val();

        if self.take.val() {
            if self.sink.last.val() {
                self.beat.d.next = self.zero_4.val();
            } else if self.beat.q.val() != self.c15.val() {
                self.beat.d.next = self.beat.q.val() + self.one_4.val();
            }
            if self.beat.q.val() == self.b1.val() {
                self.tos.d.next = self.sink.data.val().get_bits::<8>(0);
            }
            if self.beat.q.val() == self.b4.val() {
                self.flags.d.next = self.sink.data.val().get_bits::<8>(40);
                self.len_hi.d.next = self.sink.data.val().get_bits::<8>(0);
            }
            if self.beat.q.val() == self.b5.val() {
                self.bflags.d.next = self.bf.val();
            }
            if self.beat.q.val() == self.b6.val() {
                self.ts.d.next = self.now.q.val();
            }
        }
        if self.reset.val() {
            self.now.d.next = self.zero_32.val();
            self.beat.d.next = self.zero_4.val();
        }
    }
}

impl crate::Clocked for BoltStamp {
    fn clock_input(&mut self) -> &mut Signal<In, Clock> {
        &mut self.clock
    }
}
