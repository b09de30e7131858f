//! Egress deparser of the NIC (thesis §3.2.1; SPEC §2): writes the Ethernet, IPv4 and
//! transport headers of every outgoing packet into its 8 header slots, from the Listing 3.2
//! metadata beside it, with a correct IPv4 header checksum; sets `empty` on the last word.
//!
//! ```text
//!  sink (arbiter: 8 header slots + payload, metadata) ─► header word of this beat ─► out reg ─► source (MAC TX)
//!        │ beat 0: payload length, checksum pair sums ─► regs ─┐  beat 1: IPv4 length, sum of pairs ─► regs
//!        └─────────────────────────────────────────────────────┴─ beat 2: checksum folded ─► reg ─► word 3
//! ```
//!
//! # Interfaces
//! * `sink`: packets from the arbiter (`TxFrameSink`): 8 words whose contents are ignored,
//!   then the payload words, `last` on the final one; the metadata beside every beat.
//! * `source`: Ethernet frames for the MAC, `empty` = unused bytes of the last word.
//! * `cfg`: this host's MAC and IPv4 address, the next hop's (the switch's) MAC, and the
//!   program's IP protocol number. `homa` (a build parameter) selects the transport layout.
//!
//! # Headers
//! Ethernet: `cfg.switch_mac`, `cfg.mac`, 0x0800. IPv4: version 4, IHL 5, `tos = min(rank, 63) << 2` (the priority in DSCP, ECN bits 0),
//! total length `50 + payload`, identification counting packets, DF, TTL 64,
//! `cfg.protocol`, the checksum, `cfg.ip` → `remote_ip`. Transport (SPEC §2 layouts):
//! `flags`, `local_port`, `remote_port`, `msg_len`, `pkt_offset`, pull/grant offset =
//! `credit`, Homa `grant_prio = rank`, `tx_msg_id`; `buf_ptr`, `buf_size_class` and the
//! padding (Bolt's bytes) are 0. The payload length comes from the metadata: a DATA
//! packet carries `min(1024, msg_len - 1024 * pkt_offset)` bytes, a control packet its
//! 1-byte dummy; the words themselves pass unchanged.
//!
//! # Latency and throughput
//! One cycle (a registered output), one word per cycle; `sink.ready` is `source.ready` or
//! an empty output register.
//!
//! # Timing
//! The metadata is the same on every beat of a packet, and the IPv4 total length is in
//! header word 2 and the checksum in word 3: so they are computed over the beats before
//! them, a few LUT levels per cycle, at no cost in latency. Beat 0 registers the payload
//! length and four pair sums of the checksum's constant terms (tos, DF, TTL/protocol,
//! identification, the two addresses); beat 1 the total length and the sum of the pairs;
//! beat 2 the folded, complemented checksum. Every header word is then a register or a
//! field of the metadata placed by the beat's mux.
use crate::arbiter::TxFrameSink;
use rust_hdl::prelude::*;

/// A frame stream to the MAC.
#[derive(LogicInterface, Default)]
pub struct MacSource {
    pub valid: Signal<Out, bool>,
    pub ready: Signal<In, bool>,
    pub data: Signal<Out, Bits<64>>,
    pub last: Signal<Out, bool>,
    pub empty: Signal<Out, Bits<3>>,
}

/// This host and its next hop.
#[derive(LogicInterface, Default)]
pub struct DeparserCfg {
    pub mac: Signal<In, Bits<48>>,
    pub ip: Signal<In, Bits<32>>,
    pub switch_mac: Signal<In, Bits<48>>,
    pub protocol: Signal<In, Bits<8>>,
}

/// The egress deparser. See the module documentation.
#[derive(LogicBlock)]
pub struct Deparser {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, bool>,
    pub cfg: DeparserCfg,
    pub sink: TxFrameSink,
    pub source: MacSource,
    /// Packets sent (wrapping).
    pub packets: Signal<Out, Bits<32>>,

    beat: DFF<Bits<4>>,
    ip_id: DFF<Bits<16>>,
    o_valid: DFF<bool>,
    o_data: DFF<Bits<64>>,
    o_last: DFF<bool>,
    o_empty: DFF<Bits<3>>,
    cnt: DFF<Bits<32>>,
    /// Beat 0: the payload length; the checksum's terms in pairs.
    r_payload: DFF<Bits<16>>,
    r_pair: [DFF<Bits<17>>; 4],
    /// Beat 1: the IPv4 total length; the sum of the pairs.
    r_ip_len: DFF<Bits<16>>,
    r_quad: DFF<Bits<19>>,
    /// Beat 2: the checksum.
    r_csum: DFF<Bits<16>>,

    take: Signal<Local, bool>,
    total: Signal<Local, Bits<8>>,
    payload: Signal<Local, Bits<16>>,
    ip_len: Signal<Local, Bits<16>>,
    tos: Signal<Local, Bits<16>>,
    dscp: Signal<Local, Bits<8>>,
    c63: Constant<Bits<8>>,
    sh2: Constant<Bits<16>>,
    ttl_proto: Signal<Local, Bits<16>>,
    sum: Signal<Local, Bits<20>>,
    fold1: Signal<Local, Bits<20>>,
    fold2: Signal<Local, Bits<16>>,
    csum: Signal<Local, Bits<16>>,
    mac: Signal<Local, Bits<48>>,
    rip: Signal<Local, Bits<32>>,
    lip: Signal<Local, Bits<32>>,
    msg_len: Signal<Local, Bits<16>>,
    pay_mod: Signal<Local, Bits<3>>,
    word: Signal<Local, Bits<64>>,
    homa: Constant<bool>,
    hw_type: Constant<Bits<16>>,
    ver_ihl: Constant<Bits<16>>,
    df: Constant<Bits<16>>,
    ttl: Constant<Bits<16>>,
    c1: Constant<Bits<16>>,
    c50: Constant<Bits<16>>,
    c1024: Constant<Bits<16>>,
    zero_low10: Constant<Bits<10>>,
    one_8: Constant<Bits<8>>,
    one_4: Constant<Bits<4>>,
    c8_4: Constant<Bits<4>>,
    zero_4: Constant<Bits<4>>,
    beats: [Constant<Bits<4>>; 8],
    zero_3: Constant<Bits<3>>,
    one_16: Constant<Bits<16>>,
    zero_16: Constant<Bits<16>>,
    one_32: Constant<Bits<32>>,
    zero_32: Constant<Bits<32>>,
    zero_64: Constant<Bits<64>>,
    sh8: Constant<Bits<6>>,
    sh10: Constant<Bits<6>>,
    sh16: Constant<Bits<6>>,
    sh24: Constant<Bits<6>>,
    sh32: Constant<Bits<6>>,
    sh40: Constant<Bits<6>>,
    sh48: Constant<Bits<6>>,
    sh56: Constant<Bits<6>>,
}

impl Deparser {
    /// A deparser for the NDP (`homa = false`) or the Homa transport layout.
    pub fn new(homa: bool) -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            cfg: Default::default(),
            sink: Default::default(),
            source: Default::default(),
            packets: Default::default(),
            beat: Default::default(),
            ip_id: Default::default(),
            o_valid: Default::default(),
            o_data: Default::default(),
            o_last: Default::default(),
            o_empty: Default::default(),
            cnt: Default::default(),
            r_payload: Default::default(),
            r_pair: Default::default(),
            r_ip_len: Default::default(),
            r_quad: Default::default(),
            r_csum: Default::default(),
            take: Default::default(),
            total: Default::default(),
            payload: Default::default(),
            ip_len: Default::default(),
            tos: Default::default(),
            dscp: Default::default(),
            c63: Constant::new(63.into()),
            sh2: Constant::new(2.into()),
            ttl_proto: Default::default(),
            sum: Default::default(),
            fold1: Default::default(),
            fold2: Default::default(),
            csum: Default::default(),
            mac: Default::default(),
            rip: Default::default(),
            lip: Default::default(),
            msg_len: Default::default(),
            pay_mod: Default::default(),
            word: Default::default(),
            homa: Constant::new(homa),
            hw_type: Constant::new(0x0800.into()),
            ver_ihl: Constant::new(0x4500.into()),
            df: Constant::new(0x4000.into()),
            ttl: Constant::new(0x4000.into()),
            c1: Constant::new(1.into()),
            c50: Constant::new(50.into()),
            c1024: Constant::new(1024.into()),
            zero_low10: Constant::new(0.into()),
            one_8: Constant::new(1.into()),
            one_4: Constant::new(1.into()),
            c8_4: Constant::new(8.into()),
            zero_4: Constant::new(0.into()),
            beats: std::array::from_fn(|i| Constant::new((i as u64).into())),
            zero_3: Constant::new(0.into()),
            one_16: Constant::new(1.into()),
            zero_16: Constant::new(0.into()),
            one_32: Constant::new(1.into()),
            zero_32: Constant::new(0.into()),
            zero_64: Constant::new(0.into()),
            sh8: Constant::new(8.into()),
            sh10: Constant::new(10.into()),
            sh16: Constant::new(16.into()),
            sh24: Constant::new(24.into()),
            sh32: Constant::new(32.into()),
            sh40: Constant::new(40.into()),
            sh48: Constant::new(48.into()),
            sh56: Constant::new(56.into()),
        }
    }
}

impl Logic for Deparser {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, beat, ip_id, o_valid, o_data, o_last, o_empty, cnt, r_payload, r_ip_len,
            r_quad, r_csum
        );
        for i in 0..4 {
            self.r_pair[i].clock.next = self.clock.val();
            self.r_pair[i].d.next = self.r_pair[i].q.val();
        }
        // Handshake: the output register takes a word when it is empty or being emptied.
        self.sink.ready.next =
            (!self.o_valid.q.val() | self.source.ready.val()) & !self.reset.val();
        self.take.next = self.sink.valid.val() & self.sink.ready.val();
        if self.source.ready.val() {
            self.o_valid.d.next = false;
        }

        // Payload length and the IPv4 header checksum, from the metadata.
        self.msg_len.next = self.sink.msg_len.val();
        self.total.next = bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10));
        if self.msg_len.val().get_bits::<10>(0) != self.zero_low10.val() {
            self.total.next =
                bit_cast::<8, 6>(self.msg_len.val().get_bits::<6>(10)) + self.one_8.val();
        }
        self.payload.next = self.c1.val();
        if self.sink.flags.val().get_bit(0) {
            self.payload.next = self.c1024.val();
            if (self.sink.pkt_offset.val() + self.one_8.val()) == self.total.val() {
                self.payload.next = self.msg_len.val()
                    - (bit_cast::<16, 8>(self.sink.pkt_offset.val()) << self.sh10.val());
            }
        }
        // The priority in the DSCP field (tos[7:2], saturated at 63); ECN bits 0.
        self.dscp.next = self.sink.rank.val();
        if self.sink.rank.val() > self.c63.val() {
            self.dscp.next = self.c63.val();
        }
        self.tos.next = self.ver_ihl.val() | (bit_cast::<16, 8>(self.dscp.val()) << self.sh2.val());
        self.ttl_proto.next = self.ttl.val() | bit_cast::<16, 8>(self.cfg.protocol.val());
        self.rip.next = self.sink.remote_ip.val();
        self.lip.next = self.cfg.ip.val();
        // The checksum over the beats (see "Timing"): pairs at beat 0, their sum and the
        // total length at beat 1, the folds at beat 2.
        self.ip_len.next = self.r_payload.q.val() + self.c50.val();
        self.sum.next =
            bit_cast::<20, 19>(self.r_quad.q.val()) + bit_cast::<20, 16>(self.r_ip_len.q.val());
        self.fold1.next = bit_cast::<20, 16>(self.sum.val().get_bits::<16>(0))
            + (self.sum.val() >> self.sh16.val());
        // fold1 is at most 0xffff + 8: the second fold cannot carry out of 16 bits.
        self.fold2.next = self.fold1.val().get_bits::<16>(0)
            + bit_cast::<16, 4>(self.fold1.val().get_bits::<4>(16));
        self.csum.next = !self.fold2.val();
        if self.take.val() {
            if self.beat.q.val() == self.beats[0].val() {
                self.r_payload.d.next = self.payload.val();
                self.r_pair[0].d.next =
                    bit_cast::<17, 16>(self.tos.val()) + bit_cast::<17, 16>(self.ttl_proto.val());
                self.r_pair[1].d.next =
                    bit_cast::<17, 16>(self.df.val()) + bit_cast::<17, 16>(self.ip_id.q.val());
                self.r_pair[2].d.next = bit_cast::<17, 16>(self.lip.val().get_bits::<16>(16))
                    + bit_cast::<17, 16>(self.lip.val().get_bits::<16>(0));
                self.r_pair[3].d.next = bit_cast::<17, 16>(self.rip.val().get_bits::<16>(16))
                    + bit_cast::<17, 16>(self.rip.val().get_bits::<16>(0));
            }
            if self.beat.q.val() == self.beats[1].val() {
                self.r_ip_len.d.next = self.ip_len.val();
                self.r_quad.d.next = (bit_cast::<19, 17>(self.r_pair[0].q.val())
                    + bit_cast::<19, 17>(self.r_pair[1].q.val()))
                    + (bit_cast::<19, 17>(self.r_pair[2].q.val())
                        + bit_cast::<19, 17>(self.r_pair[3].q.val()));
            }
            if self.beat.q.val() == self.beats[2].val() {
                self.r_csum.d.next = self.csum.val();
            }
        }

        // The word of this beat: a header word, or the payload as it is.
        self.mac.next = self.cfg.mac.val();
        self.word.next = self.sink.data.val();
        if self.beat.q.val() == self.beats[0].val() {
            self.word.next = (bit_cast::<64, 48>(self.cfg.switch_mac.val()) << self.sh16.val())
                | bit_cast::<64, 16>(self.mac.val().get_bits::<16>(32));
        }
        if self.beat.q.val() == self.beats[1].val() {
            self.word.next = (bit_cast::<64, 32>(self.mac.val().get_bits::<32>(0))
                << self.sh32.val())
                | (bit_cast::<64, 16>(self.hw_type.val()) << self.sh16.val())
                | bit_cast::<64, 16>(self.tos.val());
        }
        if self.beat.q.val() == self.beats[2].val() {
            self.word.next = (bit_cast::<64, 16>(self.r_ip_len.q.val()) << self.sh48.val())
                | (bit_cast::<64, 16>(self.ip_id.q.val()) << self.sh32.val())
                | (bit_cast::<64, 16>(self.df.val()) << self.sh16.val())
                | bit_cast::<64, 16>(self.ttl_proto.val());
        }
        if self.beat.q.val() == self.beats[3].val() {
            self.word.next = (bit_cast::<64, 16>(self.r_csum.q.val()) << self.sh48.val())
                | (bit_cast::<64, 32>(self.lip.val()) << self.sh16.val())
                | bit_cast::<64, 16>(self.rip.val().get_bits::<16>(16));
        }
        if self.beat.q.val() == self.beats[4].val() {
            self.word.next = (bit_cast::<64, 16>(self.rip.val().get_bits::<16>(0))
                << self.sh48.val())
                | (bit_cast::<64, 8>(self.sink.flags.val()) << self.sh40.val())
                | (bit_cast::<64, 16>(self.sink.local_port.val()) << self.sh24.val())
                | (bit_cast::<64, 16>(self.sink.remote_port.val()) << self.sh8.val())
                | bit_cast::<64, 8>(self.msg_len.val().get_bits::<8>(8));
        }
        if self.beat.q.val() == self.beats[5].val() {
            if self.homa.val() {
                self.word.next = (bit_cast::<64, 8>(self.msg_len.val().get_bits::<8>(0))
                    << self.sh56.val())
                    | (bit_cast::<64, 8>(self.sink.pkt_offset.val()) << self.sh48.val())
                    | (bit_cast::<64, 16>(self.sink.credit.val()) << self.sh32.val())
                    | (bit_cast::<64, 8>(self.sink.rank.val()) << self.sh24.val())
                    | (bit_cast::<64, 16>(self.sink.tx_msg_id.val()) << self.sh8.val());
            } else {
                self.word.next = (bit_cast::<64, 8>(self.msg_len.val().get_bits::<8>(0))
                    << self.sh56.val())
                    | (bit_cast::<64, 8>(self.sink.pkt_offset.val()) << self.sh48.val())
                    | (bit_cast::<64, 16>(self.sink.credit.val()) << self.sh32.val())
                    | (bit_cast::<64, 16>(self.sink.tx_msg_id.val()) << self.sh16.val());
            }
        }
        if (self.beat.q.val() == self.beats[6].val()) | (self.beat.q.val() == self.beats[7].val()) {
            self.word.next = self.zero_64.val();
        }
        self.pay_mod.next = self.r_payload.q.val().get_bits::<3>(0);
        if self.take.val() {
            self.o_valid.d.next = true;
            self.o_data.d.next = self.word.val();
            self.o_last.d.next = self.sink.last.val();
            self.o_empty.d.next = self.zero_3.val();
            if self.sink.last.val() {
                // Unused bytes of the last word: (8 - payload % 8) % 8.
                self.o_empty.d.next = self.zero_3.val() - self.pay_mod.val();
                self.beat.d.next = self.zero_4.val();
                self.ip_id.d.next = self.ip_id.q.val() + self.one_16.val();
                self.cnt.d.next = self.cnt.q.val() + self.one_32.val();
            } else if self.beat.q.val() != self.c8_4.val() {
                self.beat.d.next = self.beat.q.val() + self.one_4.val();
            }
        }
        self.source.valid.next = self.o_valid.q.val();
        self.source.data.next = self.zero_64.val();
        self.source.last.next = false;
        self.source.empty.next = self.zero_3.val();
        if self.o_valid.q.val() {
            self.source.data.next = self.o_data.q.val();
            self.source.last.next = self.o_last.q.val();
            self.source.empty.next = self.o_empty.q.val();
        }
        self.packets.next = self.cnt.q.val();
        if self.reset.val() {
            self.o_valid.d.next = false;
            self.beat.d.next = self.zero_4.val();
            self.ip_id.d.next = self.zero_16.val();
            self.cnt.d.next = self.zero_32.val();
        }
    }
}
