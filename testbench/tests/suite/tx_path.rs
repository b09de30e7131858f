//! The NIC's transmit path, block by block in lockstep: the application's messages go into
//! the packetization module, the packet generator makes control packets from random
//! `CtrlPktEvent`s, the arbiter merges them (control first), the deparser writes the
//! headers, and the receiving host's ingress parser checks every frame. Every frame must
//! pass the parser; every message's bytes must arrive at the right offsets; every control
//! packet must arrive with its fields; the parser's DATA frames are acknowledged back
//! (DeliveredEvent), so every message must end DELIVERED and every id and buffer be free.
//! Each message's packets carry one `tx_msg_id`, `gen << 8 | slot`, different for every
//! message (slots are reused, generations are not within 256 messages); `status` reports
//! the bare slot. The packet generator runs against its golden model ([`PktGenModel`]:
//! which packets, when, with which flags and pull offset, PULLs paced), and every control
//! frame the receiver's parser reads must carry the flags, `tx_msg_id` and pull offset of
//! the packet the model predicted, in order.
use nt_hdl::arbiter::Arbiter;
use nt_hdl::deparser::Deparser;
use nt_hdl::packetization::{Packetization16, STATUS_DELIVERED};
use nt_hdl::parser::{Parser, SKIP_WORDS};
use nt_hdl::pktgen::PacketGen16;
use nt_hdl::pool::BufferConfig;
use nt_sim::arb_workload::{drive_frame_sink, read_frame_beat};
use nt_sim::kernel::Kernel;
use nt_sim::parser_workload::read_parser;
use nt_sim::pktgen_workload::{read_pktgen, CtrlEvent};
use nt_sim::wire::{FLAG_ACK, FLAG_DATA, FLAG_PULL_GRANT, PROTO_NDP};
use nt_testbench::pktgen_model::PktGenModel;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, VecDeque};

const SRC_MAC: u64 = 0x0200_0000_0001;
const SRC_IP: u32 = 0x0a00_0001;
/// The receiver (also the next hop's MAC: the two hosts are back to back).
const DST_MAC: u64 = 0x0200_0000_0002;
const DST_IP: u32 = 0x0a00_0002;

#[test]
fn messages_and_control_packets_cross_the_tx_path_and_pass_the_receivers_parser() {
    let mut rng = ChaCha8Rng::seed_from_u64(6100);
    let mut pk = Kernel::new(Packetization16::new(&BufferConfig::n16())).expect("kernel");
    let mut pg = Kernel::new(PacketGen16::new()).expect("kernel");
    let mut ar = Kernel::new(Arbiter::new()).expect("kernel");
    let mut dp = Kernel::new(Deparser::new(false)).expect("kernel");
    let mut rx = Kernel::new(Parser::new(false)).expect("kernel");

    // The application: messages of random sizes; message m's word i is m << 32 | i.
    let n_msgs = 60u64;
    let mut app: VecDeque<(u64, bool)> = VecDeque::new();
    let mut lens = vec![];
    for m in 0..n_msgs {
        let len: u64 = match rng.gen_range(0..4) {
            0 => rng.gen_range(1..=64),
            1 => rng.gen_range(65..=2048),
            2 => rng.gen_range(2049..=9000),
            _ => rng.gen_range(9001..=38912),
        };
        lens.push(len);
        app.push_back(((DST_IP as u64) << 32 | 4000u64 << 16 | len, false));
        let words = len.div_ceil(8);
        for i in 0..words {
            app.push_back((m << 32 | i, i + 1 == words));
        }
    }
    let mut next_msg = 0u64;
    // Payload words that arrived: (message, word index) -> times.
    let mut received: HashMap<(u64, u64), u32> = HashMap::new();
    // (tx_msg_id, offset, msg_len) of each DATA frame seen, to acknowledge.
    let mut acks: VecDeque<(u16, u8, u16)> = VecDeque::new();
    // The wire id each message's packets carried.
    let mut wire_id: HashMap<u64, u16> = HashMap::new();
    let mut ctrl_sent: VecDeque<(u8, u16)> = VecDeque::new();
    let mut ctrl_got = 0u64;
    let mut statuses = vec![];
    let mut frame: Vec<u64> = vec![];
    let mut ctrl_left = 200u32;
    let mut cycles = 0u64;
    let mut data_frames = 0u64;
    // The packet generator's model (paced PULLs, 136 cycles apart; NACKs not paced) and
    // the control packets it sent, in order: (flags, tx_msg_id, pull offset).
    let rtt_pkts = 10u8;
    let mut pm = PktGenModel::new(true, 136, false, rtt_pkts);
    let mut pg_sent: VecDeque<(u8, u16, u16)> = VecDeque::new();
    let mut pg_in_pkt = false;
    let mut pulls_checked = 0u64;

    for cycle in 0..400_000u64 {
        cycles = cycle + 1;
        // --- inputs that do not depend on other blocks ---
        {
            let u = pk.uut_mut();
            u.now.next = cycle.into();
            // Credit for every packet of any message (no PULLs drive this sender).
            u.cfg.rtt_pkts.next = 64u64.into();
            u.cfg.timeout.next = 1_000_000u64.into();
            u.cfg.max_timeouts.next = 3u64.into();
            u.status.ready.next = true;
            let a = app.front().copied();
            u.app.valid.next = a.is_some();
            u.app.data.next = a.map(|x| x.0).unwrap_or(0).into();
            u.app.last.next = a.is_some_and(|x| x.1);
            u.app.src_port.next = 77u64.into();
            let d = acks.front().copied();
            u.delivered.valid.next = d.is_some();
            u.delivered.tx_msg_id.next = (d.map(|x| x.0).unwrap_or(0) as u64).into();
            u.delivered.ack_bitmap.next = d.map(|x| 1u64 << x.1).unwrap_or(0).into();
            u.delivered.below_flag.next = false;
            // The claim of a receiver's ACK: its address and context, ours, the length.
            nt_sim::drive_claim!(
                u.delivered,
                nt_sim::tx_workload::Claim {
                    peer_ip: DST_IP,
                    peer_port: 4000,
                    local_port: 77,
                    msg_len: d.map(|x| x.2).unwrap_or(0),
                }
            );
            u.credit.valid.next = false;
        }
        let ev = (ctrl_left > 0 && rng.gen_bool(0.01)).then(|| {
            let flags = if rng.gen_bool(0.5) {
                FLAG_ACK | FLAG_PULL_GRANT
            } else {
                FLAG_ACK
            };
            // Pull offsets up to 48 packets: a paced PULL raises a message's offset by
            // one per slot, so the generator settles.
            (flags, rng.gen_range(0..16u16), rng.gen_range(0..48u16))
        });
        {
            let u = pg.uut_mut();
            u.cfg.pace.next = true;
            u.cfg.gap.next = 136u64.into();
            u.cfg.pace_nacks.next = false;
            u.cfg.rtt_pkts.next = (rtt_pkts as u64).into();
            u.event.valid.next = ev.is_some();
            let (f, id, off) = ev.unwrap_or_default();
            u.event.flags.next = (f as u64).into();
            u.event.rx_id.next = (id as u64).into();
            u.event.dst_ip.next = (DST_IP as u64).into();
            u.event.dst_port.next = 4000u64.into();
            u.event.src_port.next = 77u64.into();
            u.event.tx_msg_id.next = (id as u64).into();
            u.event.msg_len.next = 100u64.into();
            u.event.pull_grant.next = (off as u64).into();
        }
        {
            let u = dp.uut_mut();
            u.cfg.mac.next = SRC_MAC.into();
            u.cfg.ip.next = (SRC_IP as u64).into();
            u.cfg.switch_mac.next = DST_MAC.into();
            u.cfg.protocol.next = (PROTO_NDP as u64).into();
            u.source.ready.next = true;
        }
        {
            let u = rx.uut_mut();
            u.cfg.mac.next = DST_MAC.into();
            u.cfg.ip.next = (DST_IP as u64).into();
            u.cfg.protocol.next = (PROTO_NDP as u64).into();
            u.source.ready.next = true;
        }
        // --- settle in dependency order (valid forward, ready back) ---
        dp.settle().expect("settle");
        pk.settle().expect("settle");
        pg.settle().expect("settle");
        let (dv, db) = read_frame_beat(&pk.uut().source);
        let (cv, cb) = read_frame_beat(&pg.uut().source);
        {
            let dp_ready = dp.uut().sink.ready.val();
            let u = ar.uut_mut();
            u.reset.next = false;
            drive_frame_sink(&mut u.data, dv.then_some(db));
            drive_frame_sink(&mut u.ctrl, cv.then_some(cb));
            u.source.ready.next = dp_ready;
        }
        ar.settle().expect("settle");
        let (data_ready, ctrl_ready) = (ar.uut().data.ready.val(), ar.uut().ctrl.ready.val());
        pk.uut_mut().source.ready.next = data_ready;
        pg.uut_mut().source.ready.next = ctrl_ready;
        pk.settle().expect("settle");
        pg.settle().expect("settle");
        {
            let io = read_pktgen(pg.uut());
            let pev = ev.map(|(flags, id, off)| CtrlEvent {
                flags,
                rx_id: id as u8,
                dst_ip: DST_IP,
                dst_port: 4000,
                src_port: 77,
                tx_msg_id: id,
                msg_len: 100,
                pkt_offset: 0,
                pull_grant: off,
                grant_prio: 0,
            });
            pm.cycle(cycle, pev, &io)
                .unwrap_or_else(|e| panic!("packet generator: {e}"));
            if io.src_valid && io.src_ready {
                if !pg_in_pkt {
                    pg_sent.push_back((
                        io.src.meta.flags,
                        io.src.meta.tx_msg_id,
                        io.src.meta.credit,
                    ));
                }
                pg_in_pkt = !io.src.last;
            }
        }
        let (av, ab) = read_frame_beat(&ar.uut().source);
        drive_frame_sink(&mut dp.uut_mut().sink, av.then_some(ab));
        dp.settle().expect("settle");
        {
            let d = dp.uut();
            let (v, w, l, e) = (
                d.source.valid.val(),
                d.source.data.val(),
                d.source.last.val(),
                d.source.empty.val(),
            );
            let u = rx.uut_mut();
            u.reset.next = false;
            u.sink.valid.next = v;
            u.sink.data.next = w;
            u.sink.last.next = l;
            u.sink.empty.next = e;
        }
        rx.settle().expect("settle");

        // --- observe ---
        {
            let u = pk.uut();
            if app.front().is_some() && u.app.ready.val() {
                let (w, _) = app.pop_front().expect("front");
                // A header word starts the next message.
                if w >> 32 == DST_IP as u64 && (w >> 16) & 0xffff == 4000 {
                    next_msg += 1;
                }
            }
            if !acks.is_empty() && u.delivered.ready.val() {
                acks.pop_front();
            }
            if u.status.valid.val() {
                statuses.push((
                    u.status.tx_msg_id.val().to_u64() as u16,
                    u.status.code.val().to_u64(),
                ));
            }
        }
        if let Some((f, id, _)) = ev.filter(|_| pg.uut().event.ready.val()) {
            ctrl_left -= 1;
            // A deferred PULL may be merged (the model predicts it); the ACK leaves with
            // the event.
            ctrl_sent.push_back((f & FLAG_ACK, id));
        }
        let io = read_parser(rx.uut());
        assert_eq!(
            io.drops.iter().sum::<u32>(),
            0,
            "cycle {cycle}: the receiver's parser dropped a frame: {:?}",
            io.drops
        );
        if io.src_valid {
            frame.push(io.src.data);
            if io.src.last {
                let h = io.hdr;
                if h.flags & FLAG_DATA != 0 {
                    // Word j of the payload is word 128 * offset + j of one message (the
                    // parser sends a frame from its word SKIP_WORDS on).
                    let pay = 8 - SKIP_WORDS as usize;
                    let m = frame[pay] >> 32;
                    for (j, w) in frame[pay..].iter().enumerate() {
                        assert_eq!(
                            (w >> 32, w & 0xffff_ffff),
                            (m, h.pkt_offset as u64 * 128 + j as u64),
                            "cycle {cycle}: payload word {j} at offset {}",
                            h.pkt_offset
                        );
                        *received.entry((m, w & 0xffff_ffff)).or_default() += 1;
                    }
                    assert_eq!(h.msg_len as u64, lens[m as usize], "msg_len of message {m}");
                    assert_eq!(
                        (h.src_ip, h.dst_ip, h.src_port, h.dst_port),
                        (SRC_IP, DST_IP, 77, 4000)
                    );
                    assert_eq!(
                        *wire_id.entry(m).or_insert(h.tx_msg_id),
                        h.tx_msg_id,
                        "every packet of message {m} carries its tx_msg_id"
                    );
                    acks.push_back((h.tx_msg_id, h.pkt_offset, h.msg_len));
                    data_frames += 1;
                } else {
                    ctrl_got += 1;
                    let (f, id, off) = pg_sent
                        .pop_front()
                        .expect("a control frame the packet generator sent");
                    assert_eq!(
                        (h.flags, h.tx_msg_id, h.pull_grant),
                        (f, id, off),
                        "cycle {cycle}: control frame (flags, tx_msg_id, pull offset)"
                    );
                    if h.flags & FLAG_PULL_GRANT != 0 {
                        pulls_checked += 1;
                    }
                    if h.flags & FLAG_ACK != 0 {
                        let (f, id) = ctrl_sent.pop_front().expect("an ACK was sent");
                        assert_eq!((f, id), (FLAG_ACK, h.tx_msg_id));
                    }
                    assert_eq!(h.payload_len, 1, "control packets carry a 1-byte payload");
                }
                frame.clear();
            }
        }
        pk.tick().expect("tick");
        pg.tick().expect("tick");
        ar.tick().expect("tick");
        dp.tick().expect("tick");
        rx.tick().expect("tick");
        if app.is_empty()
            && statuses.len() as u64 == n_msgs
            && ctrl_left == 0
            && ctrl_sent.is_empty()
            && pg_sent.is_empty()
            && pm.quiet()
        {
            break;
        }
    }
    println!(
        "tx path: {n_msgs} messages, {data_frames} data frames and {ctrl_got} control frames ({pulls_checked} PULL offsets checked against the packet generator's model) in {cycles} cycles, all accepted by the receiver's parser"
    );
    assert_eq!(next_msg, n_msgs);
    assert_eq!(statuses.len() as u64, n_msgs, "every message ended");
    assert!(statuses.iter().all(|s| s.1 == STATUS_DELIVERED));
    assert!(
        statuses.iter().all(|s| s.0 < 16),
        "status reports the bare slot"
    );
    // Slot in tx_msg_id & 0xff, generation in the high byte: never-used slots come
    // first (messages 0..16 take slots 0..16 at generation 0), and each reuse of a
    // slot carries that slot's next generation.
    assert_eq!(wire_id.len() as u64, n_msgs);
    let mut uses: HashMap<u16, u16> = HashMap::new();
    for m in 0..n_msgs {
        let id = wire_id[&m];
        let slot = id & 0xff;
        assert!(slot < 16, "message {m}: {id:#x} names no slot");
        if m < 16 {
            assert_eq!(slot, m as u16, "message {m} takes a fresh slot");
        }
        let u = uses.entry(slot).or_insert(0);
        assert_eq!(id >> 8, *u & 0xff, "message {m}: generation of slot {slot}");
        *u += 1;
    }
    let slots: std::collections::HashSet<u16> = wire_id.values().map(|id| id & 0xff).collect();
    assert!(slots.len() < wire_id.len(), "slots were reused");
    assert!(ctrl_sent.is_empty() && ctrl_got >= 200);
    assert!(
        pg_sent.is_empty() && pm.quiet(),
        "control packets never arrived"
    );
    assert!(
        pulls_checked >= 50,
        "only {pulls_checked} PULL offsets checked"
    );
    // Every payload word of every message arrived exactly once (the timeout is too long
    // for retransmissions).
    let want_words: u64 = lens.iter().map(|l| l.div_ceil(8)).sum();
    assert_eq!(
        received.len() as u64,
        want_words,
        "every payload word arrived"
    );
    assert!(received.values().all(|&n| n == 1), "no word arrived twice");
    for (m, l) in lens.iter().enumerate() {
        for i in 0..l.div_ceil(8) {
            assert!(
                received.contains_key(&(m as u64, i)),
                "word {i} of message {m} is missing"
            );
        }
    }
    let s = &pk.uut().stat;
    assert_eq!(s.ids_free.val().to_u64(), 16);
    assert_eq!(
        s.bufs_free.val().to_u64(),
        BufferConfig::n16().total_buffers()
    );
}
