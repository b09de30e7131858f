//! System tests of the NIC top blocks: two NICs back to back, and through a link with
//! loss, reordering and trimming, exchange random messages with each program.
use nt_hdl::nic::{NicNdp, NicTop};
use nt_sim::link::{Link, LinkCfg};
use nt_sim::nic_pair::NicPair;
use nt_sim::nic_sim::{AppMsg, NicConfig, NicSim, Outcome};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;

const MAC_A: u64 = 0x0200_0000_000a;
const MAC_B: u64 = 0x0200_0000_000b;
const IP_A: u32 = 0x0a00_0001;
const IP_B: u32 = 0x0a00_0002;

fn msg_len(rng: &mut ChaCha8Rng, max: usize) -> usize {
    match rng.gen_range(0..4) {
        0 => rng.gen_range(1..=64),
        1 => rng.gen_range(65..=2048),
        2 => rng.gen_range(2049..=9000),
        _ => rng.gen_range(9001..=max),
    }
}

struct Exchange {
    /// (sender is a, message index) → payload
    sent: Vec<(bool, usize, AppMsg)>,
}

fn exchange<T: NicTop>(
    make: fn() -> T,
    seed: u64,
    msgs_each: usize,
    link: LinkCfg,
    max_len: usize,
    max_cycles: u64,
) -> (NicPair<T, T>, Exchange) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut ca = NicConfig::new(MAC_A, IP_A);
    ca.switch_mac = MAC_B;
    let mut cb = NicConfig::new(MAC_B, IP_B);
    cb.switch_mac = MAC_A;
    let a = NicSim::new(make(), ca).expect("nic a");
    let b = NicSim::new(make(), cb).expect("nic b");
    let ab = Link::new(link.clone(), seed ^ 0xab).expect("link");
    let ba = Link::new(link, seed ^ 0xba).expect("link");
    let mut pair = NicPair::new(a, b, ab, ba);
    let mut ex = Exchange { sent: vec![] };
    let mut t = 0u64;
    for _ in 0..msgs_each {
        for from_a in [true, false] {
            let len = msg_len(&mut rng, max_len);
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
    let cycles = pair.run_until_settled(max_cycles).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    println!(
        "{} program, seed {seed}: {} messages each way in {cycles} cycles; a: {:?}; b: {:?}",
        T::PROGRAM, msgs_each, pair.ab.stats, pair.ba.stats
    );
    (pair, ex)
}

/// Every delivered message was sent and is byte-exact, delivered once; every message the
/// sender reports delivered was delivered.
fn check_exactly_once<T: NicTop>(pair: &NicPair<T, T>, ex: &Exchange, seed: u64) -> (usize, usize) {
    let mut want: HashMap<(bool, u16, u16, Vec<u8>), usize> = HashMap::new();
    for (from_a, _, m) in &ex.sent {
        *want.entry((*from_a, m.src_port, m.dst_port, m.payload.clone())).or_default() += 1;
    }
    let mut got_delivered = 0;
    for (to_b, sim) in [(true, &pair.b.delivered), (false, &pair.a.delivered)] {
        for d in sim {
            let from_ip = if to_b { IP_A } else { IP_B };
            assert_eq!(d.src_ip, from_ip, "seed {seed}: wrong source");
            let k = (to_b, d.src_port, d.local_port, d.payload.clone());
            let n = want.get_mut(&k).unwrap_or_else(|| {
                panic!("seed {seed}: delivered a message that was not sent (or twice): {} bytes", d.payload.len())
            });
            assert!(*n > 0, "seed {seed}: delivered twice");
            *n -= 1;
            got_delivered += 1;
        }
    }
    let mut gave_up = 0;
    for (from_a, sim) in [(true, &pair.a), (false, &pair.b)] {
        for o in &sim.outcomes {
            let m = &ex.sent.iter().find(|(fa, i, _)| *fa == from_a && *i == o.msg).expect("sent").2;
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

#[test]
fn ndp_back_to_back_delivers_every_message_exactly_once() {
    let seed = 7100;
    let (pair, ex) = exchange(NicNdp::new, seed, 60, LinkCfg::ideal(200), 38912, 3_000_000);
    let (delivered, gave_up) = check_exactly_once(&pair, &ex, seed);
    assert_eq!(gave_up, 0);
    assert_eq!(delivered, ex.sent.len());
}

#[test]
#[ignore]
fn debug_small() {
    let seed = 7101;
    let t0 = std::time::Instant::now();
    let (pair, ex) = exchange(NicNdp::new, seed, 6, LinkCfg::ideal(200), 38912, 400_000);
    println!("wall {:?}, cycles {}, passes/cycle {}", t0.elapsed(), pair.a.cycle(), pair.a.kernel().passes() as f64 / pair.a.cycle() as f64);
    for o in &pair.a.outcomes { println!("a {:?}", o); }
    for o in &pair.b.outcomes { println!("b {:?}", o); }
    let s = pair.a.kernel().uut().stat();
    println!("a stat: data {} ret {} ctrl {} compl {} gu {} rxd {} rxc {} dlv {}", s.tx_data.val().to_u64(), s.tx_retransmitted.val().to_u64(), s.tx_ctrl.val().to_u64(), s.tx_completed.val().to_u64(), s.tx_given_up.val().to_u64(), s.rx_data.val().to_u64(), s.rx_ctrl.val().to_u64(), s.rx_delivered.val().to_u64());
    let (d, g) = check_exactly_once(&pair, &ex, seed);
    println!("delivered {d} gave up {g}");
}
