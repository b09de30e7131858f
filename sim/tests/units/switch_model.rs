//! The switch's golden model at the sizes the RTL is not built in (8, 32 and 64 ports,
//! which `ntsim run` and `ntsim switch` run on it), under the seeded, self-checking
//! workload the RTL's equivalence tests use ([`nt_sim::switch2_workload`]): every kept
//! frame comes out whole (or as its trimmed or returned header) at its output, once and
//! in order; no (output, band) exceeds its limit by more than `5K - 1` packets; nothing is
//! lost inside; everything drains, in every mode.
use nt_sim::switch2_sim::{headroom, model_size};
use nt_sim::switch2_workload::{bolt_knobs, knobs, tofino_knobs, Knobs, Seen, Switch2Workload};
use nt_sim::swmodel::switch2_model::Switch2Model;

/// `ports` ports with 1 MiB of cells, as `ntsim run` builds them, for `cycles`.
fn run(ports: usize, seed: u64, cycles: u64, k: Knobs) -> Seen {
    let (n, lanes, ca, r, rp) = model_size(ports, 1024).expect("a size the model takes");
    assert_eq!(n, ports);
    let mut m = Switch2Model::new(n, lanes, ca, r, rp);
    let k = Knobs {
        headroom: headroom(n) as u16,
        drain: 2_500,
        ..k
    };
    let mut w = Switch2Workload::new(seed, n, lanes, cycles, k);
    for c in 0..cycles {
        let d = w
            .step(c, &m.view())
            .unwrap_or_else(|e| panic!("{ports} ports, seed {seed}: {e}"));
        m.clock(&d);
    }
    let s = *w
        .finish(&m.view())
        .unwrap_or_else(|e| panic!("{ports} ports, seed {seed}: {e}"));
    println!("{ports} ports, seed {seed}: {s:?}");
    s
}

#[test]
fn the_model_switches_every_mode_at_8_32_and_64_ports() {
    for (ports, cycles) in [(8, 6_000), (32, 5_000), (64, 4_500)] {
        let s = run(ports, 1, cycles, knobs());
        assert!(s.delivered > 15 * ports as u64, "{ports}: {s:?}");
        assert!(s.trimmed > 5 && s.returned > 0, "{ports}: {s:?}");
        assert!(
            s.max_over_pkts >= 0,
            "{ports}: the limits never bound: {s:?}"
        );
        let s = run(
            ports,
            2,
            cycles,
            Knobs {
                trim: false,
                ret: false,
                ..knobs()
            },
        );
        assert!(s.delivered > 15 * ports as u64, "{ports}: {s:?}");
        assert_eq!(s.trimmed, 0, "{ports}: drop-tail trimmed: {s:?}");
        let mut k = tofino_knobs();
        k.tof.pipes = 4;
        let s = run(ports, 3, cycles, k);
        assert!(s.metered > 0 && s.deflected > 0, "{ports}: {s:?}");
        assert_eq!(s.deflected, s.recirculated, "{ports}: {s:?}");
        let s = run(ports, 4, cycles, bolt_knobs());
        assert!(s.srcs > 5, "{ports}: too few SRCs: {s:?}");
        assert_eq!(s.trimmed, 0, "{ports}: {s:?}");
    }
}
