//! System tests of the NIC top blocks: two NICs back to back, and through a link with
//! loss, reordering and trimming, exchange random messages with each program.
//!
//! They run on the compiled engine (the emitted Verilog compiled to Rust, `--engine
//! compiled`), about a hundred times faster than rust-hdl's kernel; the program models
//! still check every event at the program's boundary, which the NIC brings out on its
//! `trace` outputs. Per program, [`native_and_compiled_match`] runs one short lossy
//! exchange on both engines and requires them to agree cycle for cycle.
use nt_hdl::nic::{NicBolt, NicHoma, NicHomaTr, NicNdp, NicNdp128, NicNdpFpga, NicProbe, NicTop};
use nt_sim::kernel::Kernel;
use nt_sim::link::{Link, LinkCfg};
use nt_sim::nic_pair::NicPair;
use nt_sim::nic_sim::{AppMsg, HostStats, NicConfig, NicDriver, NicEngine, Outcome, VNic};
use nt_sim::vmodel::Backend;
use nt_testbench::program_model::{Program, ProgramModel};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const MAC_A: u64 = 0x0200_0000_000a;
const MAC_B: u64 = 0x0200_0000_000b;
const IP_A: u32 = 0x0a00_0001;
const IP_B: u32 = 0x0a00_0002;

/// A NIC top block under test: how to build it, and its module name in the emitted
/// Verilog (the compiled engine compiles that).
struct Nic<T> {
    make: fn() -> T,
    module: &'static str,
}

impl<T> Nic<T> {
    const fn new(make: fn() -> T, module: &'static str) -> Self {
        Nic { make, module }
    }
}

const NDP: Nic<NicNdp> = Nic::new(NicNdp::new, "nic_ndp");
const NDP128: Nic<NicNdp128> = Nic::new(NicNdp128::new, "nic_ndp_n128");
const NDP_FPGA: Nic<NicNdpFpga> = Nic::new(NicNdpFpga::new, "nic_ndp_fpga");
const HOMA: Nic<NicHoma> = Nic::new(NicHoma::new, "nic_homa");
const HOMATR: Nic<NicHomaTr> = Nic::new(NicHomaTr::new, "nic_homatr");
const BOLT: Nic<NicBolt> = Nic::new(NicBolt::new, "nic_bolt");

/// The engine a test's NICs run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum On {
    /// rust-hdl's kernel on the block.
    Native,
    /// The block's emitted Verilog compiled to Rust (built once, cached).
    Compiled,
}

/// A NIC on either engine, behind one type.
type Host = NicDriver<Box<dyn NicEngine>>;

impl<T: NicTop + 'static> Nic<T> {
    fn engine(&self, on: On) -> Box<dyn NicEngine> {
        match on {
            On::Native => Box::new(Kernel::new((self.make)()).expect("kernel")),
            On::Compiled => Box::new(
                VNic::of_with(Backend::Compiled, self.module, self.make)
                    .unwrap_or_else(|e| panic!("{}: {e}", self.module)),
            ),
        }
    }

    fn host(&self, cfg: NicConfig, on: On) -> Host {
        NicDriver::with_engine(self.engine(on), cfg).expect("nic")
    }
}

/// A message length from four size bands (up to 64 B, 2 KiB, 9,000 B, `max`), each band
/// capped at `max`.
fn msg_len(rng: &mut ChaCha8Rng, max: usize) -> usize {
    let (lo, hi) = match rng.gen_range(0..4) {
        0 => (1, 64),
        1 => (65, 2048),
        2 => (2049, 9000),
        _ => (9001, max),
    };
    rng.gen_range(lo.min(max)..=hi.min(max))
}

/// A message length from 1 B to `max`, log-uniform: as many messages of 1-10 B as of
/// 1-10 KiB (mean about 3.6 KiB for `max` = 38 KiB), so that a run of thousands of
/// messages still covers the whole range.
fn log_uniform_len(rng: &mut ChaCha8Rng, max: usize) -> usize {
    let x: f64 = rng.gen_range(0.0..(max as f64).ln());
    (x.exp() as usize).clamp(1, max)
}

/// The two hosts' configurations, each the other's next hop, with the retransmission
/// timeout set when given (the receive timeout follows it).
fn host_configs(timeout: Option<u32>) -> (NicConfig, NicConfig) {
    let mut ca = NicConfig::new(MAC_A, IP_A);
    ca.switch_mac = MAC_B;
    if let Some(t) = timeout {
        ca.timeout = t;
        ca.rx_timeout = t * (ca.max_retries as u32 + 2);
    }
    let mut cb = ca.clone();
    cb.mac = MAC_B;
    cb.ip = IP_B;
    cb.switch_mac = MAC_A;
    (ca, cb)
}

struct Exchange {
    /// (sender is a, message index) → payload
    sent: Vec<(bool, usize, AppMsg)>,
}

fn exchange<T: NicTop + 'static>(
    nic: &Nic<T>,
    seed: u64,
    msgs_each: usize,
    link: LinkCfg,
    max_len: usize,
    max_cycles: u64,
) -> (Pair, Exchange) {
    exchange_with(
        nic,
        seed,
        msgs_each,
        link,
        (msg_len, max_len),
        max_cycles,
        None,
    )
}

/// A message-length distribution and its maximum.
type Sizes = (fn(&mut ChaCha8Rng, usize) -> usize, usize);

type Pair = NicPair<Box<dyn NicEngine>, Box<dyn NicEngine>>;

/// Two NICs over `link`, each with `msgs_each` random messages queued for the other
/// (lengths from `draw_len` up to `max_len`), not yet run.
#[allow(clippy::too_many_arguments)]
fn build_exchange<T: NicTop + 'static>(
    nic: &Nic<T>,
    on: On,
    seed: u64,
    msgs_each: usize,
    link: LinkCfg,
    (draw_len, max_len): Sizes,
    timeout: Option<u32>,
) -> (Pair, Exchange) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (ca, cb) = host_configs(timeout);
    let a = nic.host(ca, on);
    let b = nic.host(cb, on);
    let ab = Link::new(link.clone(), seed ^ 0xab).expect("link");
    let ba = Link::new(link, seed ^ 0xba).expect("link");
    let mut pair = NicPair::new(a, b, ab, ba);
    let mut ex = Exchange { sent: vec![] };
    let mut t = 0u64;
    for _ in 0..msgs_each {
        for from_a in [true, false] {
            let len = draw_len(&mut rng, max_len);
            let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let m = AppMsg {
                cycle: t,
                dst_ip: if from_a { IP_B } else { IP_A },
                dst_port: rng.gen_range(1..100),
                src_port: rng.gen_range(1000..1100),
                payload,
            };
            let i = if from_a {
                pair.a.send(m.clone())
            } else {
                pair.b.send(m.clone())
            };
            ex.sent.push((from_a, i, m));
        }
        t += rng.gen_range(0..400);
    }
    (pair, ex)
}

/// [`exchange`] with the size distribution and the retransmission timeout set (the
/// receive timeout follows it).
fn exchange_with<T: NicTop + 'static>(
    nic: &Nic<T>,
    seed: u64,
    msgs_each: usize,
    link: LinkCfg,
    sizes: Sizes,
    max_cycles: u64,
    timeout: Option<u32>,
) -> (Pair, Exchange) {
    exchange_on(
        nic,
        On::Compiled,
        seed,
        msgs_each,
        link,
        sizes,
        max_cycles,
        timeout,
        |_, _| {},
    )
}

/// [`exchange_with`] on engine `on`, with `watch` seeing both NICs' probes every cycle
/// (after the program models have checked them).
#[allow(clippy::too_many_arguments)]
fn exchange_on<T: NicTop + 'static>(
    nic: &Nic<T>,
    on: On,
    seed: u64,
    msgs_each: usize,
    link: LinkCfg,
    (draw_len, max_len): Sizes,
    max_cycles: u64,
    timeout: Option<u32>,
    mut watch: impl FnMut(&NicProbe, &NicProbe),
) -> (Pair, Exchange) {
    let (mut pair, ex) =
        build_exchange(nic, on, seed, msgs_each, link, (draw_len, max_len), timeout);
    let program = Program::of(T::PROGRAM);
    let mut ma = ProgramModel::new(program, pair.a.config().rtt_pkts);
    let mut mb = ProgramModel::new(program, pair.b.config().rtt_pkts);
    let cycles = pair
        .run_until_settled_with(max_cycles, |pa, pb| {
            ma.cycle(pa.record.as_ref(), pa.freed, pa.ctrl)
                .map_err(|e| format!("NIC a: {e}"))?;
            mb.cycle(pb.record.as_ref(), pb.freed, pb.ctrl)
                .map_err(|e| format!("NIC b: {e}"))?;
            watch(pa, pb);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("seed {seed}, {on:?}: {e}"));
    assert!(
        ma.events + mb.events > 0,
        "seed {seed}: the program models saw no control event"
    );
    assert_eq!(
        ma.pending() + mb.pending(),
        0,
        "seed {seed}: predicted events never raised"
    );
    println!(
        "program model: {} control events checked; GRANTs by priority 1/2/3: {:?}",
        ma.events + mb.events,
        [1, 2, 3].map(|p| ma.grants_by_prio[p] + mb.grants_by_prio[p])
    );
    println!(
        "{} program, seed {seed}: {} messages each way in {cycles} cycles; a: {:?}; b: {:?}",
        T::PROGRAM,
        msgs_each,
        pair.ab.stats,
        pair.ba.stats
    );
    (pair, ex)
}

/// Every delivered message was sent and is byte-exact, delivered once; every message the
/// sender reports delivered was delivered.
fn check_exactly_once(pair: &Pair, ex: &Exchange, seed: u64) -> (usize, usize) {
    let mut want: HashMap<(bool, u16, u16, Vec<u8>), usize> = HashMap::new();
    for (from_a, _, m) in &ex.sent {
        *want
            .entry((*from_a, m.src_port, m.dst_port, m.payload.clone()))
            .or_default() += 1;
    }
    let mut got_delivered = 0;
    for (to_b, sim) in [(true, &pair.b.delivered), (false, &pair.a.delivered)] {
        for d in sim {
            let from_ip = if to_b { IP_A } else { IP_B };
            assert_eq!(d.src_ip, from_ip, "seed {seed}: wrong source");
            let k = (to_b, d.src_port, d.local_port, d.payload.clone());
            let n = want.get_mut(&k).unwrap_or_else(|| {
                panic!(
                    "seed {seed}: delivered a message that was not sent (or twice): {} bytes",
                    d.payload.len()
                )
            });
            assert!(*n > 0, "seed {seed}: delivered twice");
            *n -= 1;
            got_delivered += 1;
        }
    }
    let mut gave_up = 0;
    for (from_a, sim) in [(true, &pair.a), (false, &pair.b)] {
        for o in &sim.outcomes {
            let m = &ex
                .sent
                .iter()
                .find(|(fa, i, _)| *fa == from_a && *i == o.msg)
                .expect("sent")
                .2;
            let k = (from_a, m.src_port, m.dst_port, m.payload.clone());
            match o.outcome {
                Outcome::Delivered => assert_eq!(
                    want.get(&k).copied(),
                    Some(0),
                    "seed {seed}: message reported delivered but not delivered"
                ),
                Outcome::GaveUp => gave_up += 1,
                Outcome::Refused => panic!("seed {seed}: valid message refused"),
            }
        }
    }
    (got_delivered, gave_up)
}

/// Random messages (1 B to 38 KiB) both ways over a perfect link: every one delivered
/// exactly once, none given up.
fn back_to_back<T: NicTop + 'static>(nic: &Nic<T>, seed: u64, msgs_each: usize) {
    let (pair, ex) = exchange(nic, seed, msgs_each, LinkCfg::ideal(200), 38912, 3_000_000);
    let (delivered, gave_up) = check_exactly_once(&pair, &ex, seed);
    assert_eq!(gave_up, 0);
    assert_eq!(delivered, ex.sent.len());
}

#[test]
fn ndp_back_to_back_delivers_every_message_exactly_once() {
    back_to_back(&NDP, 7100, 60);
}

/// The 128-message NDP NIC (`nic_ndp_n128`, synthesized for thesis Table 3.2) is wired
/// like the 16-message one: a short exchange, every message delivered exactly once (the
/// 128-message reassembly and packetization modules have their own equivalence tests).
#[test]
fn ndp_n128_back_to_back_delivers_every_message_exactly_once() {
    back_to_back(&NDP128, 7400, 12);
}

/// The NDP NIC as built for an FPGA (`nic_ndp_fpga`: two 38 KiB buffers per direction
/// instead of four) is wired like `nic_ndp`: three messages of 8,193 B each way (the
/// smallest size that takes a 38 KiB buffer, one more message than either side has such
/// buffers), every one delivered exactly once (on the kernel, so that no compiled model of
/// this variant is built).
#[test]
fn ndp_fpga_build_delivers_every_message_exactly_once() {
    let seed = 7500;
    let (pair, ex) = exchange_on(
        &NDP_FPGA,
        On::Native,
        seed,
        3,
        LinkCfg::ideal(200),
        (|_, max| max, 8193),
        400_000,
        None,
        |_, _| {},
    );
    let (delivered, gave_up) = check_exactly_once(&pair, &ex, seed);
    assert_eq!(gave_up, 0);
    assert_eq!(delivered, 6);
}

#[test]
fn homa_back_to_back_delivers_every_message_exactly_once() {
    back_to_back(&HOMA, 7200, 40);
}

#[test]
fn homatr_back_to_back_delivers_every_message_exactly_once() {
    back_to_back(&HOMATR, 7300, 40);
}

/// Line rate in both directions at once: NIC a sends back-to-back 1-byte messages (65-byte
/// packets, each its own message) to b over a short link; b acknowledges each with one
/// 65-byte control packet. In the steady state every MAC port of both NICs moves one
/// frame every 9 cycles (a's TX: data, a's RX: ACKs, b's RX: data, b's TX: ACKs), b
/// delivers one message every 9 cycles, nothing is dropped and the application of a is
/// never stalled.
fn line_rate<T: NicTop + 'static>(nic: &Nic<T>) {
    let n = 600usize;
    let (mut ca, mut cb) = host_configs(None);
    // Timeouts for this 4-cycle link: a released message slot waits about rx_timeout / 125
    // cycles before its next message (the receivers' late-duplicate window), so 16 slots
    // keep up with a 1-byte message every 9 cycles only when rx_timeout is below ~11,000.
    // At the defaults (1,256 cycles) a sender of 1-byte messages is held to one per ~79.
    for c in [&mut ca, &mut cb] {
        c.timeout = 1000;
        c.rx_timeout = 7000;
    }
    let a = nic.host(ca, On::Compiled);
    let b = nic.host(cb, On::Compiled);
    let mut pair = NicPair::new(
        a,
        b,
        Link::new(LinkCfg::ideal(4), 1).unwrap(),
        Link::new(LinkCfg::ideal(4), 2).unwrap(),
    );
    for i in 0..n {
        pair.a.send(AppMsg {
            cycle: 0,
            dst_ip: IP_B,
            dst_port: 9,
            src_port: 7,
            payload: vec![i as u8],
        });
    }
    let cycles = pair.run_until_settled(50_000).expect("settles");
    let gaps = |frames: &[nt_sim::pcap::Packet], what: &str| {
        assert!(frames.len() >= n, "{what}: {} frames", frames.len());
        // steady state: skip the first and last 50
        let w = &frames[50..n - 50];
        let worst = w.windows(2).map(|p| p[1].cycle - p[0].cycle).max().unwrap();
        let mean = (w[w.len() - 1].cycle - w[0].cycle) as f64 / (w.len() - 1) as f64;
        println!(
            "{} {what}: {} frames, mean {mean:.2} cycles apart, worst gap {worst}",
            T::PROGRAM,
            frames.len()
        );
        assert_eq!(worst, 9, "{what}: a gap in the steady state");
        assert!(
            frames.iter().all(|f| f.bytes.len() == 65),
            "{what}: 65-byte frames only"
        );
    };
    gaps(&pair.a.tx_frames, "a MAC TX (data)");
    gaps(&pair.b.tx_frames, "b MAC TX (ACKs)");
    let d = &pair.b.delivered;
    assert_eq!(d.len(), n);
    let w = &d[50..n - 50];
    let worst = w.windows(2).map(|p| p[1].cycle - p[0].cycle).max().unwrap();
    assert_eq!(worst, 9, "b's application: a gap in the steady state");
    // Messages are independent: the packetization module's round robin may send them in
    // another order than written. Every one arrives once, byte-exact.
    let mut got: Vec<u8> = d
        .iter()
        .map(|m| {
            assert_eq!(m.payload.len(), 1);
            m.payload[0]
        })
        .collect();
    let mut want: Vec<u8> = (0..n).map(|i| i as u8).collect();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "every message delivered once, byte-exact");
    assert!(pair
        .a
        .outcomes
        .iter()
        .all(|o| o.outcome == Outcome::Delivered));
    for sim in [&pair.a, &pair.b] {
        let p = sim.stats();
        assert_eq!(p.rx_frames, p.rx_passed, "no frame dropped");
        assert_eq!(p.rx_lookup_fail, 0);
    }
    println!(
        "{} line rate: {n} messages in {cycles} cycles; b delivered one every {:.2} cycles",
        T::PROGRAM,
        (w[w.len() - 1].cycle - w[0].cycle) as f64 / (w.len() - 1) as f64
    );
}

#[test]
fn ndp_line_rate_both_directions() {
    line_rate(&NDP);
}

#[test]
fn bolt_line_rate_both_directions() {
    line_rate(&BOLT);
}

#[test]
fn homa_line_rate_both_directions() {
    line_rate(&HOMA);
}

/// Fuzzing: random bytes, valid frames with random bytes flipped, and frames whose
/// transport fields are random (the IPv4 checksum does not cover them, so many pass the
/// parser: DATA for random messages and offsets, ACK/NACK/PULL/GRANT for random ids) are
/// fed to b's MAC RX. Nothing panics or wedges: once b's receive timer has freed whatever
/// the garbage allocated, a normal exchange between a and b delivers every message
/// exactly once.
fn fuzz<T: NicTop + 'static>(nic: &Nic<T>, seed: u64) {
    use nt_sim::pcap::Packet;
    use nt_sim::wire::{Frame, Layout, Transport, FLAG_DATA, PROTO_HOMA, PROTO_NDP};
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let homa = matches!(T::PROGRAM, "homa" | "homatr");
    let (ca, cb) = host_configs(Some(2_000));
    let a = nic.host(ca.clone(), On::Compiled);
    let b = nic.host(cb, On::Compiled);
    let mut pair = NicPair::new(
        a,
        b,
        Link::new(LinkCfg::ideal(50), 1).unwrap(),
        Link::new(LinkCfg::ideal(50), 2).unwrap(),
    );
    let layout = if homa { Layout::Homa } else { Layout::Ndp };
    let valid = |rng: &mut ChaCha8Rng| {
        let len = rng.gen_range(1..=1024usize);
        Frame {
            dst_mac: MAC_B,
            src_mac: MAC_A,
            tos: 0,
            ip_id: rng.gen(),
            ttl: 64,
            protocol: if homa { PROTO_HOMA } else { PROTO_NDP },
            src_ip: IP_A,
            dst_ip: IP_B,
            t: Transport {
                flags: FLAG_DATA,
                src_port: rng.gen(),
                dst_port: rng.gen(),
                msg_len: len as u16,
                tx_msg_id: rng.gen(),
                ..Default::default()
            },
            payload: (0..len).map(|_| rng.gen()).collect(),
        }
        .encode(layout)
    };
    let (mut junk, mut flipped, mut fields, mut ctrl) = (0, 0, 0, 0);
    let mut t = 10u64;
    for _ in 0..400 {
        let bytes = match rng.gen_range(0..4) {
            3 => {
                // A well-formed control packet for a random message id and offset.
                ctrl += 1;
                let msg_len: u16 = rng.gen_range(1..=38912);
                let total = (msg_len as u32).div_ceil(1024) as u8;
                let flags = [0x02, 0x04, 0x08, 0x0a, 0x0c][rng.gen_range(0..5)];
                // Bolt: one in three is a switch's SRC (flags 0, no payload) with random
                // queue, rate and reflected time.
                let src = T::PROGRAM == "bolt" && rng.gen_range(0..3) == 0;
                let mut bolt = [0u8; 9];
                if src {
                    rng.fill(&mut bolt[..]);
                    bolt[4] = nt_hdl::swif::BOLT_SRC;
                }
                Frame {
                    dst_mac: MAC_B,
                    src_mac: MAC_A,
                    tos: 0,
                    ip_id: rng.gen(),
                    ttl: 64,
                    protocol: if homa { PROTO_HOMA } else { PROTO_NDP },
                    src_ip: IP_A,
                    dst_ip: IP_B,
                    t: Transport {
                        flags: if src { 0 } else { flags },
                        src_port: rng.gen(),
                        dst_port: rng.gen(),
                        msg_len,
                        pkt_offset: if src {
                            rng.gen_range(0..total)
                        } else {
                            rng.gen_range(0..=total)
                        },
                        pull_grant: rng.gen(),
                        grant_prio: rng.gen(),
                        tx_msg_id: rng.gen(),
                        bolt,
                        ..Default::default()
                    },
                    payload: if src { vec![] } else { vec![0] },
                }
                .encode(layout)
            }
            0 => {
                junk += 1;
                let n = rng.gen_range(1..1600);
                (0..n).map(|_| rng.gen()).collect()
            }
            1 => {
                flipped += 1;
                let mut f = valid(&mut rng);
                for _ in 0..rng.gen_range(1..4) {
                    let i = rng.gen_range(0..f.len());
                    f[i] ^= 1 << rng.gen_range(0..8);
                }
                if rng.gen_bool(0.3) {
                    let n = rng.gen_range(1..f.len());
                    f.truncate(n);
                }
                f
            }
            _ => {
                fields += 1;
                let mut f = valid(&mut rng);
                for b in f.iter_mut().take(64).skip(34) {
                    if rng.gen_bool(0.3) {
                        *b = rng.gen();
                    }
                }
                f
            }
        };
        pair.b.push_rx(Packet { cycle: t, bytes });
        t += rng.gen_range(0..200);
    }
    // Garbage first, then the receive timer frees what it allocated.
    let garbage_end = t + 2 * ca.rx_timeout as u64;
    while pair.a.cycle() < garbage_end {
        pair.step().expect("step");
    }
    let st = pair.b.stats();
    let (frames, passed) = (st.rx_frames, st.rx_passed);
    println!(
        "{} fuzz seed {seed}: {junk} random, {flipped} flipped, {fields} random transport fields, {ctrl} control for random ids; b's parser passed {passed} of {frames}; {} DATA, {} control, {} receive timeouts, {} sends refused by lookup",
        T::PROGRAM,
        st.rx_data,
        st.rx_ctrl,
        st.rx_timeouts,
        st.rx_lookup_fail
    );
    assert!(
        passed > 50 && passed < frames,
        "the fuzz reached the program and was filtered"
    );
    assert!(
        st.rx_ctrl > 50,
        "control packets for random ids reached the program"
    );
    // Valid traffic afterwards.
    let mut sent = vec![];
    for i in 0..30 {
        let len = msg_len(&mut rng, 20_000);
        let m = AppMsg {
            cycle: garbage_end + i * 300,
            dst_ip: IP_B,
            dst_port: 5,
            src_port: 6,
            payload: (0..len).map(|_| rng.gen()).collect(),
        };
        pair.a.send(m.clone());
        sent.push(m.payload);
    }
    pair.run_until_settled(2_000_000)
        .expect("valid traffic settles");
    let outcomes: Vec<Outcome> = pair.a.outcomes.iter().map(|o| o.outcome).collect();
    let mut got: Vec<Vec<u8>> = pair
        .b
        .delivered
        .iter()
        .filter(|d| d.src_ip == IP_A && d.src_port == 6 && d.local_port == 5)
        .map(|d| d.payload.clone())
        .collect();
    got.sort();
    sent.sort();
    let lens = |v: &[Vec<u8>]| v.iter().map(|p| p.len()).collect::<Vec<_>>();
    assert!(
        got == sent,
        "seed {seed}: every valid message delivered once, byte-exact: sent lengths {:?}, delivered {:?}, outcomes {:?}",
        lens(&sent),
        lens(&got),
        outcomes
    );
    assert!(
        outcomes.iter().all(|o| *o == Outcome::Delivered),
        "{outcomes:?}"
    );
}

#[test]
fn ndp_survives_fuzzing() {
    fuzz(&NDP, 7400);
}

#[test]
fn homa_survives_fuzzing() {
    fuzz(&HOMA, 7500);
}

/// [`exchange_with`] in `rounds` rounds of `per_round` messages each way, each round
/// queued when the last has settled (its messages spaced as in [`build_exchange`]), so
/// that at most `per_round` messages are in flight per direction; the program models
/// check every event of every round.
#[allow(clippy::too_many_arguments)]
fn exchange_in_rounds<T: NicTop + 'static>(
    nic: &Nic<T>,
    seed: u64,
    rounds: usize,
    per_round: usize,
    link: LinkCfg,
    (draw_len, max_len): Sizes,
    max_cycles: u64,
    timeout: Option<u32>,
) -> (Pair, Exchange) {
    let (mut pair, mut ex) = build_exchange(
        nic,
        On::Compiled,
        seed,
        0,
        link,
        (draw_len, max_len),
        timeout,
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let program = Program::of(T::PROGRAM);
    let mut ma = ProgramModel::new(program, pair.a.config().rtt_pkts);
    let mut mb = ProgramModel::new(program, pair.b.config().rtt_pkts);
    let mut cycles = 0;
    for round in 0..rounds {
        let mut t = pair.a.cycle();
        for _ in 0..per_round {
            for from_a in [true, false] {
                let len = draw_len(&mut rng, max_len);
                let m = AppMsg {
                    cycle: t,
                    dst_ip: if from_a { IP_B } else { IP_A },
                    dst_port: rng.gen_range(1..100),
                    src_port: rng.gen_range(1000..1100),
                    payload: (0..len).map(|_| rng.gen()).collect(),
                };
                let i = if from_a {
                    pair.a.send(m.clone())
                } else {
                    pair.b.send(m.clone())
                };
                ex.sent.push((from_a, i, m));
            }
            t += rng.gen_range(0..400);
        }
        cycles += pair
            .run_until_settled_with(max_cycles, |pa, pb| {
                ma.cycle(pa.record.as_ref(), pa.freed, pa.ctrl)
                    .map_err(|e| format!("NIC a: {e}"))?;
                mb.cycle(pb.record.as_ref(), pb.freed, pb.ctrl)
                    .map_err(|e| format!("NIC b: {e}"))
            })
            .unwrap_or_else(|e| panic!("seed {seed}, round {round}: {e}"));
    }
    assert_eq!(
        ma.pending() + mb.pending(),
        0,
        "seed {seed}: predicted events never raised"
    );
    println!(
        "{} program, seed {seed}: {rounds} rounds of {per_round} messages each way in {cycles} cycles; program model: {} control events checked; a: {:?}; b: {:?}",
        T::PROGRAM,
        ma.events + mb.events,
        pair.ab.stats,
        pair.ba.stats
    );
    (pair, ex)
}

/// A link that trims 8 % of the DATA frames (CHOP, headers only) in each direction: NDP
/// and Homa-Tr recover every trimmed packet by NACK, without a single timeout (the
/// retransmission timeout is longer than the whole run, so a packet not recovered by
/// NACK would stall its message past the run): every message is delivered exactly once,
/// and the senders retransmitted exactly the packets that were trimmed.
fn trimming_recovered_by_nack<T: NicTop + 'static>(nic: &Nic<T>, seed: u64) {
    let link = LinkCfg {
        chop: 0.08,
        ..LinkCfg::ideal(200)
    };
    // 80 messages each way of up to 8 KiB, in rounds of 8: a receiver has 8 buffers (4 of
    // 8 KiB and 4 of 38 KiB), and a packet whose lookup finds none is dropped silently,
    // which only a timeout would recover (checked below). Queued all at once, the
    // messages overlapped enough to take every buffer on 5 of 8 seeds tried.
    let timeout = 1_000_000;
    let (pair, ex) = exchange_in_rounds(
        nic,
        seed,
        10,
        8,
        link,
        (msg_len, 8192),
        900_000,
        Some(timeout),
    );
    for sim in [&pair.a, &pair.b] {
        assert_eq!(sim.stats().rx_lookup_fail, 0, "a receive lookup failed");
    }
    let (delivered, gave_up) = check_exactly_once(&pair, &ex, seed);
    assert_eq!(gave_up, 0);
    assert_eq!(delivered, ex.sent.len());
    let chopped = pair.ab.stats.chopped + pair.ba.stats.chopped;
    let (sa, sb) = (pair.a.stats(), pair.b.stats());
    let rtx = sa.tx_retransmitted + sb.tx_retransmitted;
    let trimmed_seen = sa.rx_trimmed + sb.rx_trimmed;
    let nacks_paced = sa.tx_nacks_paced + sb.tx_nacks_paced;
    println!(
        "{}: {chopped} DATA frames trimmed, {trimmed_seen} seen, {rtx} retransmitted, {nacks_paced} NACKs waited for a PULL slot",
        T::PROGRAM
    );
    if T::PROGRAM == "ndp" {
        // NACKs arriving between PULL slots waited for one (`pace_nacks`), and were still
        // each answered by exactly one retransmission (below).
        assert!(nacks_paced > 0, "no NACK waited for a PULL slot");
    } else {
        assert_eq!(nacks_paced, 0, "only NDP paces");
    }
    assert!(chopped >= 20, "the link trimmed enough packets ({chopped})");
    assert_eq!(trimmed_seen, chopped);
    assert_eq!(
        rtx, chopped,
        "one retransmission per trimmed packet: none by timeout"
    );
}

#[test]
fn ndp_recovers_trimmed_packets_by_nack() {
    trimming_recovered_by_nack(&NDP, 7600);
}

#[test]
fn homatr_recovers_trimmed_packets_by_nack() {
    trimming_recovered_by_nack(&HOMATR, 7700);
}

/// A link that loses (2 %), reorders (5 %, up to 400 cycles late) and trims (3 % of DATA)
/// frames in both directions, control packets included; `msgs_each` log-uniform messages
/// of 1 B to 38 KiB each way: every message is still delivered exactly once and
/// byte-exact, every sender learns its outcome, and none is given up. Lost PULLs/GRANTs are repaired by the
/// sender's probe, lost final ACKs by the receiver recognising late duplicates.
fn lossy_link<T: NicTop + 'static>(nic: &Nic<T>, seed: u64, msgs_each: usize) {
    let link = LinkCfg {
        loss: 0.02,
        reorder: 0.05,
        reorder_cycles: 400,
        chop: 0.03,
        ..LinkCfg::ideal(200)
    };
    let (pair, ex) = exchange_with(
        nic,
        seed,
        msgs_each,
        link,
        (log_uniform_len, 38912),
        20_000_000,
        Some(6_000),
    );
    let (delivered, gave_up) = check_exactly_once(&pair, &ex, seed);
    let stat = |s: &Host| {
        let st: HostStats = s.stats();
        [
            st.tx_retransmitted,
            st.rx_late_dups,
            st.rx_trimmed,
            st.rx_timeouts,
            st.rx_lookup_fail,
            st.tx_probes,
        ]
    };
    let (sa, sb) = (stat(&pair.a), stat(&pair.b));
    println!(
        "{} lossy, seed {seed}: {delivered} of {} delivered, {gave_up} given up; lost {} reordered {} trimmed {}; [retransmitted, late duplicates, trimmed seen, rx timeouts, lookup fails, probes] a {sa:?} b {sb:?}",
        T::PROGRAM,
        ex.sent.len(),
        pair.ab.stats.lost + pair.ba.stats.lost,
        pair.ab.stats.reordered + pair.ba.stats.reordered,
        pair.ab.stats.chopped + pair.ba.stats.chopped,
    );
    assert_eq!(gave_up, 0, "seed {seed}: a message was given up");
    assert_eq!(delivered, ex.sent.len());
    assert!(
        pair.ab.stats.lost + pair.ba.stats.lost >= 20,
        "the link lost enough frames"
    );
    assert!(pair.ab.stats.reordered + pair.ba.stats.reordered >= 20);
    assert!(
        sa[1] + sb[1] > 0,
        "seed {seed}: no late duplicate was exercised"
    );
}

#[test]
fn ndp_over_a_lossy_reordering_trimming_link() {
    lossy_link(&NDP, 8100, 250);
}

#[test]
fn homa_over_a_lossy_reordering_trimming_link() {
    lossy_link(&HOMA, 8200, 250);
}

#[test]
fn homatr_over_a_lossy_reordering_trimming_link() {
    lossy_link(&HOMATR, 8300, 250);
}

/// Bolt (`nic_bolt`) over the NIC pair: no switch answers with SRCs here, so every ACK
/// echoes INC and the windows only grow; what is checked is the transport underneath:
/// every message delivered exactly once and every control event equal to the model's.
#[test]
fn bolt_back_to_back_delivers_every_message_exactly_once() {
    back_to_back(&BOLT, 7350, 30);
}

#[test]
fn bolt_recovers_trimmed_packets_by_nack() {
    trimming_recovered_by_nack(&BOLT, 7750);
}

#[test]
fn bolt_over_a_lossy_reordering_trimming_link() {
    lossy_link(&BOLT, 8350, 150);
}

#[test]
fn bolt_survives_fuzzing() {
    fuzz(&BOLT, 7550);
}

#[test]
fn bolt_reports_messages_to_an_unreachable_peer_as_failed() {
    unreachable_peer(&BOLT);
}

/// A peer that never answers: every message is reported given up after its retries,
/// none is reported delivered, and the NIC is idle afterwards.
fn unreachable_peer<T: NicTop + 'static>(nic: &Nic<T>) {
    let (mut ca, cb) = host_configs(Some(2_000));
    ca.max_retries = 3;
    let a = nic.host(ca, On::Compiled);
    let b = nic.host(cb, On::Compiled);
    let dead = LinkCfg {
        loss: 1.0,
        ..LinkCfg::ideal(100)
    };
    let ab = Link::new(dead, 1).unwrap();
    let ba = Link::new(LinkCfg::ideal(100), 2).unwrap();
    let mut pair = NicPair::new(a, b, ab, ba);
    for (i, len) in [1usize, 1024, 5000, 38912].into_iter().enumerate() {
        pair.a.send(AppMsg {
            cycle: 10 * i as u64,
            dst_ip: IP_B,
            dst_port: 7,
            src_port: 1000,
            payload: vec![i as u8; len],
        });
    }
    let cycles = pair.run_until_settled(2_000_000).expect("settles");
    let outcomes: Vec<Outcome> = pair.a.outcomes.iter().map(|o| o.outcome).collect();
    println!("{}: all given up after {cycles} cycles", T::PROGRAM);
    assert_eq!(outcomes, vec![Outcome::GaveUp; 4]);
    assert!(pair.b.delivered.is_empty());
    assert_eq!(pair.a.stats().tx_given_up, 4);
}

#[test]
fn ndp_reports_messages_to_an_unreachable_peer_as_failed() {
    unreachable_peer(&NDP);
}

#[test]
fn homa_reports_messages_to_an_unreachable_peer_as_failed() {
    unreachable_peer(&HOMA);
}

/// Issue 9: the two NICs of a pair stepped on two threads ([`nt_sim::lockstep`]) give the
/// run of one thread, cycle for cycle: every frame either NIC sent (cycle and bytes), every
/// delivery and outcome, the links' fault counts and the cycle count, over a link that
/// loses, reorders and trims, so that timeouts and retransmissions happen too.
#[test]
fn two_threads_match_one_thread() {
    let link = LinkCfg {
        loss: 0.03,
        reorder: 0.1,
        reorder_cycles: 300,
        chop: 0.05,
        ..LinkCfg::ideal(60)
    };
    for seed in [5] {
        let run = |threads: usize| {
            let (mut pair, _) = build_exchange(
                &NDP,
                On::Compiled,
                seed,
                8,
                link.clone(),
                (msg_len, 12_000),
                Some(6000),
            );
            pair.set_threads(threads).expect("threads");
            let cycles = pair
                .run_until_settled(2_000_000)
                .unwrap_or_else(|e| panic!("seed {seed}, {threads} threads: {e}"));
            (cycles, pair)
        };
        let (c1, p1) = run(1);
        let (c2, p2) = run(2);
        assert_eq!(c1, c2, "seed {seed}: cycle counts");
        assert!(p1.a.tx_frames.len() > 20, "seed {seed}: traffic flowed");
        assert!(
            p1.ab.stats.lost + p1.ba.stats.lost > 0,
            "seed {seed}: the link lost frames"
        );
        assert_same_pair(&format!("seed {seed}"), &p1, &p2);
        println!(
            "seed {seed}: {c1} cycles, {} + {} frames, {} + {} deliveries, identical on 1 and 2 threads",
            p1.a.tx_frames.len(),
            p1.b.tx_frames.len(),
            p1.a.delivered.len(),
            p1.b.delivered.len()
        );
    }
    let (mut pair, _) = build_exchange(
        &NDP,
        On::Compiled,
        1,
        1,
        LinkCfg::ideal(10),
        (msg_len, 100),
        None,
    );
    assert!(pair.set_threads(0).is_err() && pair.set_threads(3).is_err());
}

/// Two runs of a pair ended alike: every frame either NIC sent (cycle and bytes), every
/// delivery and outcome, both NICs' counters and both links' fault counts.
fn assert_same_pair(what: &str, x: &Pair, y: &Pair) {
    for (name, p, q) in [("a", &x.a, &y.a), ("b", &x.b, &y.b)] {
        assert_eq!(p.tx_frames, q.tx_frames, "{what}: {name}'s frames");
        assert_eq!(p.delivered, q.delivered, "{what}: {name}'s deliveries");
        assert_eq!(p.outcomes, q.outcomes, "{what}: {name}'s outcomes");
        assert_eq!(p.stats(), q.stats(), "{what}: {name}'s counters");
    }
    assert_eq!(x.ab.stats, y.ab.stats, "{what}: link a→b");
    assert_eq!(x.ba.stats, y.ba.stats, "{what}: link b→a");
}

/// What both engines show of a cycle: the program-boundary events (from the `trace`
/// outputs) and the edges' handshakes; the native kernel's inner stage handshakes are
/// left out.
fn boundary(p: &NicProbe) -> NicProbe {
    NicProbe {
        ingress_out: false,
        ingress_out_last: false,
        packetize_out: false,
        egress_in: false,
        ..*p
    }
}

/// Per program: one short exchange over a link that loses, reorders and trims, on
/// rust-hdl's kernel and on the compiled engine (which the other system tests use), gives
/// the same run cycle for cycle: every record, control event, freed message, credit and
/// acknowledgement event and edge handshake in every cycle (each also checked by the
/// program model on both), every frame sent (cycle and bytes), every delivery and
/// outcome, the counters and the cycle count.
fn native_and_compiled_match<T: NicTop + 'static>(nic: &Nic<T>, seed: u64) {
    let link = LinkCfg {
        loss: 0.03,
        reorder: 0.1,
        reorder_cycles: 300,
        chop: 0.05,
        ..LinkCfg::ideal(60)
    };
    let run = |on: On| {
        let mut trace = vec![];
        let mut cycle = 0u64;
        let (pair, _) = exchange_on(
            nic,
            on,
            seed,
            6,
            link.clone(),
            (msg_len, 12_000),
            2_000_000,
            Some(3_000),
            |pa, pb| {
                let (pa, pb) = (boundary(pa), boundary(pb));
                if pa != NicProbe::default() || pb != NicProbe::default() {
                    trace.push((cycle, pa, pb));
                }
                cycle += 1;
            },
        );
        (pair, trace, cycle)
    };
    let (n, nt, nc) = run(On::Native);
    let (c, ct, cc) = run(On::Compiled);
    let m = T::PROGRAM;
    assert_eq!(nc, cc, "{m}: cycle counts");
    if let Some(i) = (0..nt.len().min(ct.len())).find(|&i| nt[i] != ct[i]) {
        panic!(
            "{m}: the engines differ first at cycle {}:\nnative   {:?}\ncompiled {:?}",
            nt[i].0.min(ct[i].0),
            nt[i],
            ct[i]
        );
    }
    assert_eq!(nt.len(), ct.len(), "{m}: event cycles");
    assert_same_pair(m, &n, &c);
    let records = nt
        .iter()
        .filter(|t| t.1.record.is_some() || t.2.record.is_some())
        .count();
    let ctrl = nt
        .iter()
        .filter(|t| t.1.ctrl.is_some() || t.2.ctrl.is_some())
        .count();
    let freed = nt
        .iter()
        .filter(|t| t.1.freed.is_some() || t.2.freed.is_some())
        .count();
    let s = n.a.stats();
    println!(
        "{m}: native and compiled identical over {nc} cycles: {} event cycles ({records} with a record, {ctrl} with a control event, {freed} with a freed message), {} + {} frames; lost {}, trimmed {}; a retransmitted {}",
        nt.len(),
        n.a.tx_frames.len(),
        n.b.tx_frames.len(),
        n.ab.stats.lost + n.ba.stats.lost,
        n.ab.stats.chopped + n.ba.stats.chopped,
        s.tx_retransmitted
    );
    assert!(
        records > 20 && ctrl > 20 && freed > 0,
        "{m}: too little happened"
    );
    assert!(
        n.ab.stats.lost + n.ba.stats.lost > 0 && n.ab.stats.chopped + n.ba.stats.chopped > 0,
        "{m}: the link lost and trimmed nothing"
    );
}

#[test]
fn ndp_native_and_compiled_match() {
    native_and_compiled_match(&NDP, 9100);
}

#[test]
fn homa_native_and_compiled_match() {
    native_and_compiled_match(&HOMA, 9200);
}

#[test]
fn homatr_native_and_compiled_match() {
    native_and_compiled_match(&HOMATR, 9300);
}

#[test]
fn bolt_native_and_compiled_match() {
    native_and_compiled_match(&BOLT, 9400);
}
